"""The numba batch TriPeaks env against N single envs (SyncVectorEnv over gym.make).

The differential tests step both with the same seeds and the same random actions (mostly
legal, some illegal) and require identical observations, rewards, terminations,
truncations and infos (final observations and final infos included) for every rule option,
scoring preset, reward, observation mode, illegal-action policy and autoreset mode.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from vector_helpers import assert_same

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.deals import DealCodeError, DealStringError, encode_seed
from solitaire_env.common.env import IllegalActionError
from solitaire_env.tripeaks import batch_kernels as K
from solitaire_env.tripeaks.batch import TriPeaksVectorEnv, code_names
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.scoring import PointScoring, Scoring

ENV_ID = "solitaire_env/TriPeaks-v0"


def run_differential(num_envs: int, steps: int, seed: int, illegal_rate: float = 0.05, **kwargs: Any) -> int:
    """Step the batch env and SyncVectorEnv side by side; returns the episodes finished."""
    batch = gym.make_vec(ENV_ID, num_envs=num_envs, **kwargs)
    assert isinstance(batch, TriPeaksVectorEnv)
    autoreset = kwargs.get("autoreset_mode", "next_step")
    single_kwargs = {k: v for k, v in kwargs.items() if k not in ("autoreset_mode", "max_episode_steps")}
    max_steps = kwargs.get("max_episode_steps", 200)
    mode = gym.vector.AutoresetMode.SAME_STEP if autoreset == "same_step" else gym.vector.AutoresetMode.NEXT_STEP
    sync = gym.vector.SyncVectorEnv(
        [lambda: gym.make(ENV_ID, max_episode_steps=max_steps, **single_kwargs) for _ in range(num_envs)],
        autoreset_mode=mode,
    )
    out_b, out_s = batch.reset(seed=seed), sync.reset(seed=seed)
    assert_same(out_b, out_s, "reset")
    rng = np.random.default_rng(seed)
    info = out_s[1]
    episodes = 0
    for t in range(steps):
        masks = info["action_mask"]
        actions = np.array(
            [
                rng.integers(0, 29) if rng.random() < illegal_rate or not row.any() else rng.choice(np.flatnonzero(row))
                for row in masks
            ],
            dtype=np.int64,
        )
        out_b, out_s = batch.step(actions), sync.step(actions)
        for part, x, y in zip(("obs", "reward", "terminated", "truncated", "info"), out_b, out_s):
            assert_same(x, y, f"step {t} {part}")
        assert_same(batch.action_masks(), np.stack([e.unwrapped.action_masks() for e in sync.envs]), f"step {t} masks")
        info = out_s[4]
        episodes += int(np.sum(out_s[2] | out_s[3]))
    batch.close()
    sync.close()
    return episodes


CONFIGS: list[dict[str, Any]] = [
    {},
    {"wrap": False, "scoring": "classic", "reward": "progress"},
    {"draw": "when_stuck", "scoring": "streak", "reward": "win"},
    {"faces": "open", "obs_mode": "oracle"},
    {"waste_start": "empty", "obs_mode": "dict"},
    {"jokers": 1, "obs_mode": "oracle_dict", "autoreset_mode": "same_step"},
    {"jokers": 2, "autoreset_mode": "same_step", "illegal_action": "terminate", "wrap": False},
    {"max_episode_steps": 25, "autoreset_mode": "same_step", "obs_mode": "dict", "illegal_penalty": -3.0},
    {"waste_start": "empty", "jokers": 2, "draw": "when_stuck", "obs_mode": "oracle", "autoreset_mode": "same_step"},
    {"scoring": PointScoring(start=7, floor=2, removal_points=2, draw_points=-3, group_points=5, clear_points=9)},
]


@pytest.mark.parametrize(
    "kwargs", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in c.items()) or "default" for c in CONFIGS]
)
def test_batch_env_equals_single_envs(kwargs: dict[str, Any]) -> None:
    episodes = run_differential(16, 700, seed=11, **kwargs)
    assert episodes >= 100  # thousands of deals over the configurations


@pytest.mark.slow
@pytest.mark.parametrize(
    "kwargs", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in c.items()) or "default" for c in CONFIGS]
)
def test_batch_env_equals_single_envs_long(kwargs: dict[str, Any]) -> None:
    assert run_differential(64, 3000, seed=5, illegal_rate=0.1, **kwargs) >= 2000


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_deal_kernel_matches_from_seed(jokers: int) -> None:
    tableau = np.zeros(28, dtype=np.int8)
    rest = np.zeros(K.MAX_STOCK + 1, dtype=np.int64)
    rng = np.random.default_rng(jokers)
    for seed in [0, 1, (1 << 35) - 1, *rng.integers(0, 1 << 35, 3000).tolist()]:
        n = K.deal_from_seed(seed, jokers, tableau, rest)
        deal = TriPeaksDeal.from_seed(seed, jokers=jokers)
        assert tuple(tableau.tolist()) == deal.tableau
        assert rest[0] == deal.waste
        assert tuple(rest[1:n].tolist()) == deal.stock


def test_code_names_match_deal_codes() -> None:
    seeds = np.array([0, 1, 31, 32, (1 << 35) - 1, 123456789])
    assert list(code_names(seeds, "C")) == [f"TP1-C-{encode_seed(int(s))}" for s in seeds]


def test_make_vec_default_is_the_batch_env_and_sync_still_available() -> None:
    env = gym.make_vec(ENV_ID, num_envs=4)
    assert isinstance(env, TriPeaksVectorEnv)
    assert env.action_space.shape == (4,)
    _, info = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.shape == (4, 29) and masks.dtype == np.bool_
    assert np.array_equal(masks, info["action_mask"].astype(bool))
    sync = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)


def test_reset_without_a_seed_goes_on_with_each_generator() -> None:
    batch = TriPeaksVectorEnv(3)
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(ENV_ID) for _ in range(3)])
    assert_same(batch.reset(seed=4), sync.reset(seed=4))
    for _ in range(3):
        assert_same(batch.reset(), sync.reset())
    codes = set(TriPeaksVectorEnv(2).reset()[1]["deal_code"]) | set(TriPeaksVectorEnv(2).reset()[1]["deal_code"])
    assert len(codes) == 4  # unseeded: from entropy


def test_injected_deals_replay_in_the_single_env() -> None:
    codes = ["TP1-E-AAAAAAB", "tp1-c-aaaaaac", "TP1-N-AAAAAAD"]
    env = TriPeaksVectorEnv(3)
    obs, info = env.reset(options={"deal_codes": codes})
    assert list(info["deal_code"]) == ["TP1-E-AAAAAAB", "TP1-C-AAAAAAC", "TP1-E-AAAAAAD"]
    for i, code in enumerate(codes):
        single = gym.make(ENV_ID)
        o, inf = single.reset(options={"deal_code": code})
        assert np.array_equal(obs[i], o) and np.array_equal(info["action_mask"][i], inf["action_mask"])
    deal = str(TriPeaksDeal.from_seed(99))
    obs, info = env.reset(options={"deal": deal})
    assert list(info["deal_code"]) == [deal] * 3
    o, _ = gym.make(ENV_ID).reset(options={"deal": deal})
    assert all(np.array_equal(row, o) for row in obs)
    _, info = env.reset(options={"deal_code": "TP1-C-AAAAAAB"})
    assert list(info["deal_code"]) == ["TP1-C-AAAAAAB"] * 3


def test_bad_input_gives_one_clear_error_and_changes_nothing() -> None:
    env = TriPeaksVectorEnv(2)
    _obs, _info = env.reset(seed=3)
    state = env._st.copy()
    with pytest.raises(ValueError, match=r"outside 0\.\.28"):
        env.step(np.array([0, 29]))
    with pytest.raises(ValueError, match="2 whole numbers"):
        env.step(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="2 whole numbers"):
        env.step(np.array([0.5, 1.0]))
    with pytest.raises(DealCodeError, match="seed must be 7"):
        env.reset(options={"deal_codes": ["TP1-E-AAAAAAB", "TP1-E-AAA"]})
    with pytest.raises(DealCodeError, match="this env plays TP"):
        env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    with pytest.raises(ValueError, match="one entry per env"):
        env.reset(options={"deal_codes": ["TP1-E-AAAAAAB"]})
    with pytest.raises(DealStringError):
        env.reset(options={"deal": "AS 2S | 3S | 4S"})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seed": 3})
    assert np.array_equal(env._st, state)  # nothing was touched
    with pytest.raises(ValueError, match="callable"):
        TriPeaksVectorEnv(2, reward=lambda s, p, w: 0.0)  # type: ignore[arg-type]

    class Odd(Scoring):
        pass

    with pytest.raises(ValueError, match="PointScoring"):
        TriPeaksVectorEnv(2, scoring=Odd())
    with pytest.raises(ValueError, match="does not render"):
        TriPeaksVectorEnv(2, render_mode="ansi")
    with pytest.raises(ValueError, match="num_envs"):
        TriPeaksVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        TriPeaksVectorEnv(2, autoreset_mode="disabled")
    with pytest.raises(RuntimeError, match="reset"):
        TriPeaksVectorEnv(2).step(np.array([0, 0]))


def test_illegal_action_raise_changes_nothing() -> None:
    env = TriPeaksVectorEnv(3, illegal_action="raise")
    obs, info = env.reset(seed=1)
    state, before = env._st.copy(), obs.copy()
    legal = [int(np.flatnonzero(row)[0]) for row in info["action_mask"]]
    illegal = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        env.step(np.array([legal[0], legal[1], illegal]))
    assert "env 2" in str(err.value)
    assert np.array_equal(env._st, state) and np.array_equal(env._obs, before)
    env.step(np.array(legal))  # still usable


def test_copy_false_returns_the_buffer() -> None:
    env = TriPeaksVectorEnv(2, copy=False)
    obs, _ = env.reset(seed=0)
    obs2, *_ = env.step(np.array([28, 28]))
    assert obs2 is obs
    env = TriPeaksVectorEnv(2)
    obs, _info = env.reset(seed=0)
    obs2, *_ = env.step(np.array([28, 28]))
    assert obs2 is not obs and not np.array_equal(obs, obs2)


def test_maskable_ppo_trains_on_the_batch_env(tmp_path: Any) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from solitaire_env.sb3 import SB3VecEnv

    env = VecMonitor(SB3VecEnv(16, reward="progress"))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(2048)
    assert model.num_timesteps >= 2048
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    obs = env.reset()
    for _ in range(60):  # masked play: never an illegal action
        actions, _ = loaded.predict(obs, action_masks=get_action_masks(env))
        masks = env.env_method("action_masks")
        assert all(m[a] for m, a in zip(masks, actions))
        obs, rewards, dones, infos = env.step(actions)
        assert all(r >= 0 for r in rewards)  # progress rewards: no illegal penalty was paid
        for i in np.flatnonzero(dones):
            assert "terminal_observation" in infos[i] and infos[i]["deal_code"].startswith("TP1-E-")
