"""What only the numba batch Forty Thieves env has: a whole winning line against the single
envs, its deal kernel and code names, the repetition rule's default, batch episodes replayed in
the single env, injected deals, its input checks, ``illegal_action="raise"`` and MaskablePPO
training on it.

The batch env against N single envs (the differential runs over the rule option, scorings,
rewards, observation modes, illegal-action policies, the repetition rule, the step limit and
both autoreset modes), ``make_vec``'s default, unseeded resets and ``copy=False`` are tested for
every game in ``tests/generic/test_batch_equals_single.py``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import FT_DRAW, FT_MOVE_DEAL, ft_example_win
from vector_helpers import assert_same, make_pair, step_both

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env import FORTYTHIEVES_MAX_STEPS
from solitaire_env.common.deals import DealCodeError, DealStringError, encode_seed
from solitaire_env.common.env import IllegalActionError
from solitaire_env.fortythieves import batch_kernels as K
from solitaire_env.fortythieves.batch import FortyThievesVectorEnv, code_names
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.rules import FortyThievesScoring
from solitaire_env.games import FORTYTHIEVES

ENV_ID = "solitaire_env/FortyThieves-v0"
EXAMPLE_DEAL, EXAMPLE_LINE = ft_example_win()


@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_a_win_is_the_same(autoreset_mode: str) -> None:
    """Seed 004's 197-move winning line (envs 0 and 1), random play (env 2), then random deals."""
    batch, sync = make_pair(FORTYTHIEVES, 3, reward="progress", win_bonus=5.0, autoreset_mode=autoreset_mode)
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


def test_make_vec_default_has_the_repetition_rule() -> None:
    env = gym.make_vec(ENV_ID, num_envs=4)
    assert isinstance(env, FortyThievesVectorEnv)
    assert env.max_episode_steps == FORTYTHIEVES_MAX_STEPS and env.max_repeats == 3


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
