"""Every game's numba batch env (its ``vector_entry_point``) against N single envs (SyncVectorEnv
over gym.make), for the games of :data:`solitaire_env.games.GAMES` (a game without a batch env is
skipped, saying so).

The differential tests step both with the same seeds and the same random actions (mostly legal,
some illegal) and require identical observations, rewards, terminations, truncations and infos
(final observations and final infos included), and identical masks, for a set of rule options,
scorings, rewards, observation modes, illegal-action policies and both autoreset modes per game.
The set of options and what each run must have met is one small :class:`Case` per game name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from vector_helpers import assert_same, make_pair, step_both

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.fortythieves import batch as vector_ft
from solitaire_env.fortythieves.rules import FortyThievesScoring
from solitaire_env.games import GAMES, GameSpec, game_spec
from solitaire_env.tripeaks.scoring import TriPeaksPointScoring


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


def run_differential(
    spec: GameSpec,
    num_envs: int,
    steps: int,
    seed: int,
    illegal_rate: float = 0.05,
    after: Callable[[Any], None] | None = None,
    **kwargs: Any,
) -> Tally:
    """Step the batch env and SyncVectorEnv side by side; returns what ended how."""
    batch, sync = make_pair(spec, num_envs, **kwargs)
    out_b, out_s = batch.reset(seed=seed), sync.reset(seed=seed)
    assert_same(out_b, out_s, "reset")
    n = batch.single_action_space.n
    rng = np.random.default_rng(seed)
    info = out_s[1]
    tally = Tally()
    for t in range(steps):
        masks = info["action_mask"]
        actions = np.array(
            [
                rng.integers(0, n) if rng.random() < illegal_rate or not row.any() else rng.choice(np.flatnonzero(row))
                for row in masks
            ],
            dtype=np.int64,
        )
        out = step_both(batch, sync, actions, f"step {t}")
        info = out[4]
        tally.add(out)
    if after is not None:
        after(batch)
    batch.close()
    sync.close()
    return tally


# --------------------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Case:
    """One game's differential runs: its option sets and what a run must have met."""

    configs: list[dict[str, Any]]
    num_envs: int
    steps: int
    seed: Callable[[int], int]  # by the index of the option set
    check: Callable[[dict[str, Any], Tally], None]
    long_num_envs: int
    long_min_episodes: int
    #: Set up a run (``kwargs``, monkeypatch) and return a check of the batch env after it, or None.
    prepare: Callable[[dict[str, Any], pytest.MonkeyPatch], Callable[[Any], None] | None] = lambda k, m: None


def _tp_check(kwargs: dict[str, Any], tally: Tally) -> None:
    assert tally.episodes >= 100, vars(tally)  # thousands of deals over the configurations


TRIPEAKS = Case(
    configs=[
        {},
        {"wrap": False, "scoring": "classic", "reward": "progress"},
        {"draw": "when_stuck", "scoring": "streak", "reward": "win"},
        {"faces": "open", "obs_mode": "oracle"},
        {"waste_start": "empty", "obs_mode": "dict"},
        {"jokers": 1, "obs_mode": "oracle_dict", "autoreset_mode": "same_step"},
        {"jokers": 2, "autoreset_mode": "same_step", "illegal_action": "terminate", "wrap": False},
        {"max_episode_steps": 25, "autoreset_mode": "same_step", "obs_mode": "dict", "illegal_penalty": -3.0},
        {
            "waste_start": "empty",
            "jokers": 2,
            "draw": "when_stuck",
            "obs_mode": "oracle",
            "autoreset_mode": "same_step",
        },
        {
            "scoring": TriPeaksPointScoring(
                start=7, floor=2, removal_points=2, draw_points=-3, group_points=5, clear_points=9
            )
        },
    ],
    num_envs=16,
    steps=700,
    seed=lambda index: 11,
    check=_tp_check,
    long_num_envs=64,
    long_min_episodes=2000,
)


def _ft_check(kwargs: dict[str, Any], tally: Tally) -> None:
    assert tally.episodes >= 90 and tally.illegal >= 500, vars(tally)
    if kwargs.get("max_repeats", 3) is not None:
        assert tally.repetitions >= 25, vars(tally)
    if "max_episode_steps" in kwargs:
        assert tally.limits >= 15, vars(tally)


def _ft_prepare(kwargs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Callable[[Any], None] | None:
    if kwargs.get("max_repeats") != 6:
        return None
    monkeypatch.setattr(vector_ft, "REPEAT_TABLE_START", 2)  # small repetition tables, to grow them many times

    def grew(batch: Any) -> None:
        assert batch._rep_keys.shape[1] >= 8 * vector_ft.REPEAT_TABLE_START  # the tables grew (and were rehashed)

    return grew


_FT_CUSTOM = FortyThievesScoring(
    name="custom",
    start=40,
    floor=None,
    to_foundation=7,
    waste_to_column=-2,
    foundation_to_column=-9,
    column_to_column=1,
    draw=-1,
)
FORTYTHIEVES = Case(
    configs=[
        {},
        {"foundation_return": False, "reward": "progress", "autoreset_mode": "same_step"},
        {"obs_mode": "dict", "reward": "win", "max_repeats": 2},
        {"obs_mode": "oracle", "autoreset_mode": "same_step", "illegal_action": "terminate"},
        {"obs_mode": "oracle_dict", "autoreset_mode": "same_step", "max_repeats": None, "max_episode_steps": 90},
        {"max_repeats": 6, "max_episode_steps": 150, "illegal_penalty": -2.5, "foundation_return": False},
        {"scoring": _FT_CUSTOM, "autoreset_mode": "same_step", "max_episode_steps": 70, "obs_mode": "dict"},
        {"scoring": FortyThievesScoring(start=3, floor=1, draw=-2), "reward": "progress", "win_bonus": 3.0},
    ],
    num_envs=16,
    steps=800,
    seed=lambda index: 11 + index,
    check=_ft_check,
    long_num_envs=48,
    long_min_episodes=1000,
    prepare=_ft_prepare,
)

#: One case per game name; :func:`test_every_game_has_a_case` keeps it complete.
CASES: dict[str, Case] = {"tripeaks": TRIPEAKS, "fortythieves": FORTYTHIEVES}
#: The games of games.py with a batch env (``GameSpec.batch_path``); the tests skip the others.
BATCH_GAMES = tuple(g.name for g in GAMES if g.batch_path is not None)


def test_every_game_has_a_case() -> None:
    assert sorted(CASES) == sorted(BATCH_GAMES)


def batch_spec(name: str) -> GameSpec:
    """The row of ``name``; the test is skipped (saying why) for a game without a batch env."""
    spec = game_spec(name)
    if spec.batch_path is None:
        pytest.skip(f"games.py registers {name!r} without a batch env (batch_path None)")
    return spec


def _label(kwargs: dict[str, Any]) -> str:
    return ",".join(f"{k}={'custom' if k == 'scoring' and not isinstance(v, str) else v}" for k, v in kwargs.items())


#: (game name, index of its option set), for every game of games.py (a game without a case: one failing entry).
PARAMS = [
    (name, i) for name in [g.name for g in GAMES] for i in range(len(CASES[name].configs) if name in CASES else 1)
]
IDS = [f"{name}-{_label(CASES[name].configs[i]) or 'default'}" if name in CASES else name for name, i in PARAMS]


def case(name: str) -> Case:
    batch_spec(name)
    if name not in CASES:
        pytest.fail(f"games.py registers {name!r} but tests/generic/test_batch_equals_single.py has no case for it")
    return CASES[name]


@pytest.mark.parametrize(("name", "index"), PARAMS, ids=IDS)
def test_batch_env_equals_single_envs(name: str, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    c = case(name)
    kwargs = c.configs[index]
    after = c.prepare(kwargs, monkeypatch)
    tally = run_differential(game_spec(name), c.num_envs, c.steps, seed=c.seed(index), after=after, **kwargs)
    c.check(kwargs, tally)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "index"), PARAMS, ids=IDS)
def test_batch_env_equals_single_envs_long(name: str, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    c = case(name)
    kwargs = c.configs[index]
    after = c.prepare(kwargs, monkeypatch)
    seed = c.seed(index) - 6  # 5 (+ the index for Forty Thieves), as the per-game files had it
    tally = run_differential(game_spec(name), c.long_num_envs, 3000, seed=seed, illegal_rate=0.1, after=after, **kwargs)
    assert tally.episodes >= c.long_min_episodes, vars(tally)


@pytest.mark.parametrize("name", tuple(g.name for g in GAMES))
def test_make_vec_default_is_the_batch_env_and_sync_still_available(name: str) -> None:
    spec = batch_spec(name)
    env = gym.make_vec(spec.env_id, num_envs=4)
    assert isinstance(env, spec.batch_class)
    assert env.max_episode_steps == spec.max_episode_steps
    assert env.action_space.shape == (4,)
    n = gym.make(spec.env_id).unwrapped.num_actions
    _, info = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.shape == (4, n) and masks.dtype == np.bool_
    assert np.array_equal(masks, info["action_mask"].astype(bool))
    sync = gym.make_vec(spec.env_id, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)


def last_legal(masks: np.ndarray) -> np.ndarray:
    """Each row's highest legal action (the draw, while the stock lasts), 0 for a row with none."""
    return np.array([int(np.flatnonzero(row)[-1]) if row.any() else 0 for row in masks], dtype=np.int64)


@pytest.mark.parametrize("name", tuple(g.name for g in GAMES))
def test_reset_without_a_seed_goes_on_with_each_envs_generator(name: str) -> None:
    """Unseeded resets, partly seeded resets and the automatic resets of episodes cut by the step
    limit deal what SyncVectorEnv deals; unseeded from the start, the deals come from entropy."""
    spec = batch_spec(name)
    batch, sync = make_pair(spec, 3, max_episode_steps=5)
    assert_same(batch.reset(seed=7), sync.reset(seed=7), "reset")
    for t in range(12):
        step_both(batch, sync, last_legal(batch.action_masks()), f"step {t}")
    for k in range(3):
        assert_same(batch.reset(), sync.reset(), f"reset {k} without a seed")
    assert_same(batch.reset(seed=[None, 4, None]), sync.reset(seed=[None, 4, None]), "reset with some seeds")
    for t in range(6):
        step_both(batch, sync, last_legal(batch.action_masks()), f"step {t} after")
    codes = {str(c) for _ in range(2) for c in spec.batch_class(2).reset()[1]["deal_code"]}
    assert len(codes) == 4  # unseeded: from entropy


@pytest.mark.parametrize("name", tuple(g.name for g in GAMES))
def test_copy_false_returns_the_buffer(name: str) -> None:
    batch_class = batch_spec(name).batch_class
    env = batch_class(2, copy=False)
    obs, info = env.reset(seed=0)
    legal = np.array([int(np.flatnonzero(row)[-1]) for row in info["action_mask"]])
    obs2, *_ = env.step(legal)
    assert obs2 is obs
    env = batch_class(2)
    obs, info = env.reset(seed=0)
    obs2, *_ = env.step(legal)
    assert obs2 is not obs and not np.array_equal(obs, obs2)
