"""The numba batch Forty Thieves env against N single envs (SyncVectorEnv over gym.make).

The differential tests step both with the same seeds and the same random actions (mostly
legal, some illegal) and require identical observations, rewards, terminations,
truncations and infos (final observations and final infos included) for the rule option,
scorings, rewards, observation modes, illegal-action policies, the repetition rule and the
step limit, in both autoreset modes.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import FT_DRAW, FT_MOVE_DEAL, ft_example_win
from vector_helpers import assert_same

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env import FORTYTHIEVES_MAX_STEPS
from solitaire_env.common.deals import DealCodeError, DealStringError, encode_seed
from solitaire_env.common.env import IllegalActionError
from solitaire_env.fortythieves import batch as vector_ft
from solitaire_env.fortythieves import batch_kernels as K
from solitaire_env.fortythieves.batch import FortyThievesVectorEnv, code_names
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.rules import FortyThievesScoring

ENV_ID = "solitaire_env/FortyThieves-v0"
EXAMPLE_DEAL, EXAMPLE_LINE = ft_example_win()


def make_pair(num_envs: int, **kwargs: Any) -> tuple[FortyThievesVectorEnv, gym.vector.SyncVectorEnv]:
    """The batch env (through make_vec) and SyncVectorEnv over gym.make single envs, same options."""
    batch = gym.make_vec(ENV_ID, num_envs=num_envs, **kwargs)
    assert isinstance(batch, FortyThievesVectorEnv)
    autoreset = kwargs.get("autoreset_mode", "next_step")
    single_kwargs = {k: v for k, v in kwargs.items() if k not in ("autoreset_mode", "max_episode_steps")}
    max_steps = kwargs.get("max_episode_steps", FORTYTHIEVES_MAX_STEPS)
    mode = gym.vector.AutoresetMode.SAME_STEP if autoreset == "same_step" else gym.vector.AutoresetMode.NEXT_STEP
    sync = gym.vector.SyncVectorEnv(
        [lambda: gym.make(ENV_ID, max_episode_steps=max_steps, **single_kwargs) for _ in range(num_envs)],
        autoreset_mode=mode,
    )
    return batch, sync


def step_both(batch: Any, sync: Any, actions: np.ndarray, where: str) -> tuple[Any, ...]:
    out_b, out_s = batch.step(actions), sync.step(actions)
    for part, x, y in zip(("obs", "reward", "terminated", "truncated", "info"), out_b, out_s):
        assert_same(x, y, f"{where} {part}")
    assert_same(batch.action_masks(), np.stack([e.unwrapped.action_masks() for e in sync.envs]), f"{where} masks")
    return out_s


class Tally:
    """Episodes ended, by how."""

    def __init__(self) -> None:
        self.episodes = self.repetitions = self.limits = self.illegal = 0

    def add(self, out: tuple[Any, ...]) -> None:
        _, _, terminated, truncated, info = out
        self.episodes += int(np.sum(terminated | truncated))
        final = info.get("final_info", info)  # same_step: the infos of the episodes that ended
        cut = final.get("_truncated_reason", np.zeros(len(truncated), dtype=bool))
        self.repetitions += int(np.sum(cut & truncated))
        self.limits += int(np.sum(truncated & ~cut))
        self.illegal += int(np.sum(info.get("_illegal_reason", 0)))
        if final is not info:
            self.illegal += int(np.sum(final.get("_illegal_reason", 0)))


def run_differential(num_envs: int, steps: int, seed: int, illegal_rate: float = 0.05, **kwargs: Any) -> Tally:
    """Step the batch env and SyncVectorEnv side by side; returns what ended how."""
    batch, sync = make_pair(num_envs, **kwargs)
    out_b, out_s = batch.reset(seed=seed), sync.reset(seed=seed)
    assert_same(out_b, out_s, "reset")
    rng = np.random.default_rng(seed)
    info = out_s[1]
    tally = Tally()
    for t in range(steps):
        masks = info["action_mask"]
        actions = np.array(
            [
                rng.integers(0, K.NUM_ACTIONS)
                if rng.random() < illegal_rate or not row.any()
                else rng.choice(np.flatnonzero(row))
                for row in masks
            ],
            dtype=np.int64,
        )
        out = step_both(batch, sync, actions, f"step {t}")
        info = out[4]
        tally.add(out)
    if vector_ft.REPEAT_TABLE_START < 64:
        assert batch._rep_keys.shape[1] >= 8 * vector_ft.REPEAT_TABLE_START  # the tables grew (and were rehashed)
    batch.close()
    sync.close()
    return tally


CUSTOM = FortyThievesScoring(
    name="custom",
    start=40,
    floor=None,
    to_foundation=7,
    waste_to_column=-2,
    foundation_to_column=-9,
    column_to_column=1,
    draw=-1,
)
CONFIGS: list[dict[str, Any]] = [
    {},
    {"foundation_return": False, "reward": "progress", "autoreset_mode": "same_step"},
    {"obs_mode": "dict", "reward": "win", "max_repeats": 2},
    {"obs_mode": "oracle", "autoreset_mode": "same_step", "illegal_action": "terminate"},
    {"obs_mode": "oracle_dict", "autoreset_mode": "same_step", "max_repeats": None, "max_episode_steps": 90},
    {"max_repeats": 6, "max_episode_steps": 150, "illegal_penalty": -2.5, "foundation_return": False},
    {"scoring": CUSTOM, "autoreset_mode": "same_step", "max_episode_steps": 70, "obs_mode": "dict"},
    {"scoring": FortyThievesScoring(start=3, floor=1, draw=-2), "reward": "progress", "win_bonus": 3.0},
]
IDS = [",".join(f"{k}={'custom' if k == 'scoring' else v}" for k, v in c.items()) or "default" for c in CONFIGS]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=IDS)
def test_batch_env_equals_single_envs(kwargs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    if kwargs.get("max_repeats") == 6:  # small repetition tables, to grow them many times
        monkeypatch.setattr(vector_ft, "REPEAT_TABLE_START", 2)
    tally = run_differential(16, 800, seed=11 + CONFIGS.index(kwargs), **kwargs)
    assert tally.episodes >= 90 and tally.illegal >= 500, vars(tally)
    if kwargs.get("max_repeats", 3) is not None:
        assert tally.repetitions >= 25, vars(tally)
    if "max_episode_steps" in kwargs:
        assert tally.limits >= 15, vars(tally)


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", CONFIGS, ids=IDS)
def test_batch_env_equals_single_envs_long(kwargs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    if kwargs.get("max_repeats") == 6:
        monkeypatch.setattr(vector_ft, "REPEAT_TABLE_START", 2)
    tally = run_differential(48, 3000, seed=5 + CONFIGS.index(kwargs), illegal_rate=0.1, **kwargs)
    assert tally.episodes >= 1000, vars(tally)


@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_a_win_is_the_same(autoreset_mode: str) -> None:
    """Seed 004's 197-move winning line (envs 0 and 1), random play (env 2), then random deals."""
    batch, sync = make_pair(3, reward="progress", win_bonus=5.0, autoreset_mode=autoreset_mode)
    options = {"deal": str(EXAMPLE_DEAL)}
    assert_same(batch.reset(seed=2, options=options), sync.reset(seed=2, options=options), "reset")
    rng = np.random.default_rng(0)
    wins = 0
    for t in range(len(EXAMPLE_LINE) + 60):
        masks = batch.action_masks()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])
        if t < len(EXAMPLE_LINE):
            actions[:2] = EXAMPLE_LINE[t]
        out = step_both(batch, sync, actions, f"step {t}")
        if t == len(EXAMPLE_LINE) - 1:
            assert out[2][:2].all() and list(out[1][:2]) == [6.0, 6.0]  # the last card founded + the bonus
            ended = out[4]["final_info"] if autoreset_mode == "same_step" else out[4]
            assert list(ended["score"][:2]) == [1185, 1185] and list(ended["founded"][:2]) == [104, 104]
            wins += 2
    assert wins == 2


def test_reset_without_seed_goes_on_with_each_envs_generator() -> None:
    batch, sync = make_pair(3, max_episode_steps=5)
    assert_same(batch.reset(seed=7), sync.reset(seed=7), "reset")
    for t in range(12):
        step_both(batch, sync, np.full(3, FT_DRAW), f"step {t}")
    assert_same(batch.reset(), sync.reset(), "reset without a seed")
    assert_same(batch.reset(seed=[None, 4, None]), sync.reset(seed=[None, 4, None]), "reset with some seeds")
    for t in range(6):
        step_both(batch, sync, np.full(3, FT_DRAW), f"step {t}")


def test_deal_kernel_matches_from_seed() -> None:
    deck = np.zeros(K.DECK_SIZE, dtype=np.int8)
    state = np.zeros(1, dtype=np.uint64)
    rng = np.random.default_rng(0)
    for seed in [0, 1, (1 << 35) - 1, *rng.integers(0, 1 << 35, 3000).tolist()]:
        K.deal_from_seed(seed, deck, state)
        deal = FortyThievesDeal.from_seed(seed)
        assert tuple(deck.tolist()) == tuple(c for col in deal.columns for c in col) + deal.stock, seed


def test_code_names_match_deal_codes() -> None:
    seeds = np.array([0, 1, 31, 32, (1 << 35) - 1, 123456789])
    assert list(code_names(seeds)) == [f"FT1-N-{encode_seed(int(s))}" for s in seeds]


def test_make_vec_default_is_the_batch_env_and_sync_still_available() -> None:
    env = gym.make_vec(ENV_ID, num_envs=4)
    assert isinstance(env, FortyThievesVectorEnv)
    assert env.max_episode_steps == FORTYTHIEVES_MAX_STEPS and env.max_repeats == 3
    assert env.action_space.shape == (4,)
    _, info = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.shape == (4, 210) and masks.dtype == np.bool_
    assert np.array_equal(masks, info["action_mask"].astype(bool))
    sync = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)


def test_batch_episodes_replay_in_the_single_env() -> None:
    """A batch episode, replayed in the single env from its info['deal_code'], gives the same steps."""
    env = FortyThievesVectorEnv(4, max_repeats=2)
    _, info = env.reset(seed=123)
    rng = np.random.default_rng(1)
    episodes: list[tuple[str, list[int], list[float], float]] = []
    current: list[tuple[str, list[int], list[float]]] = [(str(c), [], []) for c in info["deal_code"]]
    while len(episodes) < 12:
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in env.action_masks()])
        _, rewards, terminated, truncated, info = env.step(actions)
        for i in range(4):
            if env._did_reset[i]:  # next_step: this step only dealt the next episode
                current[i] = (str(info["deal_code"][i]), [], [])
                continue
            current[i][1].append(int(actions[i]))
            current[i][2].append(float(rewards[i]))
            if terminated[i] or truncated[i]:
                episodes.append((*current[i], float(info["score"][i])))
    for code, actions_played, rewards_got, score in episodes:
        single = gym.make(ENV_ID, max_repeats=2)
        single.reset(options={"deal_code": code})
        got = []
        for a in actions_played:
            _, r, term, trunc, inf = single.step(a)
            got.append(r)
        assert got == rewards_got and (term or trunc) and inf["score"] == score


def test_injected_deals_replay_in_the_single_env() -> None:
    codes = ["FT1-N-AAAAAAB", "ft1-n-aaaaaac", " FT1-N-ZZZZZZZ "]
    env = FortyThievesVectorEnv(3)
    obs, info = env.reset(options={"deal_codes": codes})
    assert list(info["deal_code"]) == ["FT1-N-AAAAAAB", "FT1-N-AAAAAAC", "FT1-N-ZZZZZZZ"]
    for i, code in enumerate(codes):
        o, inf = gym.make(ENV_ID).reset(options={"deal_code": code})
        assert np.array_equal(obs[i], o) and np.array_equal(info["action_mask"][i], inf["action_mask"])
    deal = str(FT_MOVE_DEAL)
    obs, info = env.reset(options={"deal": deal})
    assert list(info["deal_code"]) == [deal] * 3
    o, _ = gym.make(ENV_ID).reset(options={"deal": deal})
    assert all(np.array_equal(row, o) for row in obs)
    obs, info = env.reset(options={"deals": [FT_MOVE_DEAL, deal, EXAMPLE_DEAL]})
    assert list(info["deal_code"]) == [deal, deal, str(EXAMPLE_DEAL)]
    _, info = env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    assert list(info["deal_code"]) == ["FT1-N-AAAAAAB"] * 3


def test_bad_input_gives_one_clear_error_and_changes_nothing() -> None:
    env = FortyThievesVectorEnv(2)
    env.reset(seed=3)
    env.step(np.array([FT_DRAW, FT_DRAW]))
    parts = ("_st", "_cols", "_waste", "_stock", "_obs", "_mask", "_zh", "_seed_pos", "_rep_keys", "_rep_counts")
    before = {name: getattr(env, name).copy() for name in parts}
    names = list(env._names)
    with pytest.raises(ValueError, match=r"outside 0\.\.209"):
        env.step(np.array([0, 210]))
    with pytest.raises(ValueError, match=r"outside 0\.\.209"):
        env.step(np.array([-1, 0]))
    with pytest.raises(ValueError, match="2 whole numbers"):
        env.step(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="2 whole numbers"):
        env.step(np.array([0.5, 1.0]))
    with pytest.raises(DealCodeError, match="seed must be 7"):
        env.reset(options={"deal_codes": ["FT1-N-AAAAAAB", "FT1-N-AAA"]})
    with pytest.raises(DealCodeError, match="this env plays FT"):
        env.reset(options={"deal_code": "TP1-E-AAAAAAB"})
    with pytest.raises(DealCodeError, match="unknown rule"):
        env.reset(options={"deal_code": "FT1-E-AAAAAAB"})
    with pytest.raises(ValueError, match="one entry per env"):
        env.reset(options={"deal_codes": ["FT1-N-AAAAAAB"]})
    with pytest.raises(DealStringError):
        env.reset(options={"deal": "AS 2S | 3S | 4S"})
    with pytest.raises(DealStringError):
        env.reset(options={"deals": [str(FT_MOVE_DEAL), 7]})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seed": 3})
    with pytest.raises(ValueError, match="give one of"):
        env.reset(options={"deal_code": "FT1-N-AAAAAAB", "deal": str(FT_MOVE_DEAL)})
    with pytest.raises(ValueError, match="num_envs=2"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError):
        env.reset(seed=[1, -2])
    for name, value in before.items():  # nothing was touched
        assert np.array_equal(getattr(env, name), value), name
    assert list(env._names) == names
    with pytest.raises(ValueError, match="callable"):
        FortyThievesVectorEnv(2, reward=lambda s, p, w: 0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown reward"):
        FortyThievesVectorEnv(2, reward="points")
    with pytest.raises(ValueError, match="Forty Thieves scoring"):
        FortyThievesVectorEnv(2, scoring="classic")
    with pytest.raises(ValueError, match="whole-number"):
        FortyThievesVectorEnv(2, scoring=FortyThievesScoring(draw=0.5))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_repeats"):
        FortyThievesVectorEnv(2, max_repeats=1)
    with pytest.raises(ValueError, match="max_episode_steps"):
        FortyThievesVectorEnv(2, max_episode_steps=0)
    with pytest.raises(ValueError, match="foundation_return"):
        FortyThievesVectorEnv(2, foundation_return="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation mode"):
        FortyThievesVectorEnv(2, obs_mode="pixels")
    with pytest.raises(ValueError, match="illegal_action"):
        FortyThievesVectorEnv(2, illegal_action="ignore")
    with pytest.raises(ValueError, match="does not render"):
        FortyThievesVectorEnv(2, render_mode="ansi")
    with pytest.raises(ValueError, match="num_envs"):
        FortyThievesVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        FortyThievesVectorEnv(2, autoreset_mode="disabled")
    with pytest.raises(RuntimeError, match="reset"):
        FortyThievesVectorEnv(2).step(np.array([0, 0]))


def test_illegal_action_raise_changes_nothing() -> None:
    env = FortyThievesVectorEnv(3, illegal_action="raise")
    obs, info = env.reset(seed=1)
    state, before, mask = env._st.copy(), obs.copy(), env._mask.copy()
    legal = [int(np.flatnonzero(row)[0]) for row in info["action_mask"]]
    with pytest.raises(IllegalActionError) as err:
        env.step(np.array([legal[0], legal[1], 10 * 11 + 10]))  # the waste is empty
    assert "env 2" in str(err.value) and err.value.reason == "nothing_to_move"
    with pytest.raises(ValueError, match="outside"):
        env.step(np.array([legal[0], legal[1], 999]))
    assert np.array_equal(env._st, state) and np.array_equal(env._obs, before) and np.array_equal(env._mask, mask)
    env.step(np.array(legal))  # still usable


def test_copy_false_returns_the_buffer() -> None:
    env = FortyThievesVectorEnv(2, copy=False)
    obs, _ = env.reset(seed=0)
    obs2, *_ = env.step(np.array([FT_DRAW, FT_DRAW]))
    assert obs2 is obs
    env = FortyThievesVectorEnv(2)
    obs, _info = env.reset(seed=0)
    obs2, *_ = env.step(np.array([FT_DRAW, FT_DRAW]))
    assert obs2 is not obs and not np.array_equal(obs, obs2)


def test_maskable_ppo_trains_on_the_batch_env(tmp_path: Any) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from solitaire_env.sb3 import SB3VecEnv

    with pytest.raises(ValueError, match="unknown game"):
        SB3VecEnv(2, game="klondike")
    env = VecMonitor(SB3VecEnv(8, game="fortythieves", reward="progress", max_repeats=2, max_episode_steps=60))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    obs = env.reset()
    ended = 0
    for _ in range(70):  # masked play: never an illegal action
        actions, _ = loaded.predict(obs, action_masks=get_action_masks(env))
        masks = env.env_method("action_masks")
        assert all(m[a] for m, a in zip(masks, actions))
        obs, _rewards, dones, infos = env.step(actions)
        assert not any("illegal_reason" in inf for inf in infos)
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert "terminal_observation" in info and info["deal_code"].startswith("FT1-N-")
            if info.get("truncated_reason") == "repetition" or info["moves"] == 60:
                assert info["TimeLimit.truncated"]
            ended += 1
    assert ended >= 8
