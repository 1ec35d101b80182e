"""What only the numba batch TriPeaks env has: its deal kernel and code names, injected deals,
its input checks, ``illegal_action="raise"`` and MaskablePPO training on it.

The batch env against N single envs (the differential runs over the rule options, scorings,
rewards, observation modes, illegal-action policies and autoreset modes), ``make_vec``'s
default, unseeded resets and ``copy=False`` are tested for every game in
``tests/generic/test_batch_equals_single.py``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.deals import DealCodeError, DealStringError, encode_seed
from solitaire_env.common.env import IllegalActionError
from solitaire_env.tripeaks import batch_kernels as K
from solitaire_env.tripeaks.batch import TriPeaksVectorEnv, code_names
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.scoring import TriPeaksScoring

ENV_ID = "solitaire_env/TriPeaks-v0"


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

    class Odd(TriPeaksScoring):
        pass

    with pytest.raises(ValueError, match="TriPeaksPointScoring"):
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
