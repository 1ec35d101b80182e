"""What the batch-env tests of both games share."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same(a: Any, b: Any, path: str = "") -> None:
    """Recursive equality of vector-env outputs: dicts, arrays (object arrays element-wise), scalars."""
    if isinstance(a, dict) or isinstance(b, dict):
        assert isinstance(a, dict) and isinstance(b, dict), path
        assert set(a) == set(b), f"{path}: keys differ: {sorted(set(a) ^ set(b))}"
        for key in a:
            assert_same(a[key], b[key], f"{path}/{key}")
        return
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}.{k}")
        return
    if isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, path
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{k}]")
        return
    if a is None or b is None or isinstance(a, str):
        assert a == b, f"{path}: {a!r} != {b!r}"
        return
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    assert a_arr.shape == b_arr.shape, f"{path}: shape {a_arr.shape} != {b_arr.shape}"
    assert a_arr.dtype == b_arr.dtype or a_arr.dtype.kind == b_arr.dtype.kind, f"{path}: {a_arr.dtype} vs {b_arr.dtype}"
    assert np.array_equal(a_arr, b_arr), f"{path}: {a_arr} != {b_arr}"


_TRIPEAKS_RULES = ("jokers", "draw", "waste_start", "faces")


def tripeaks_lockstep(codes: list[str], env_kwargs: dict[str, Any], seed: int = 0, max_steps: int | None = None) -> Any:
    """Random legal moves played in a TriPeaks ``SB3VecEnv`` dealt ``codes`` and in rules-core
    games of the same codes, in lockstep.  Yields ``(env, games, actions, live)`` before each
    step: ``actions[i]`` the moves so far of game ``i``, ``live`` the games still going (the
    env's row of a finished game already holds another deal)."""
    from solitaire_env.sb3 import SB3VecEnv
    from solitaire_env.solvability import make_game

    n = len(codes)
    env = SB3VecEnv(n, game="tripeaks", deal_codes=list(codes), **env_kwargs)
    env.reset()
    games = [make_game(c, {k: v for k, v in env_kwargs.items() if k in _TRIPEAKS_RULES}) for c in codes]
    actions: list[list[int]] = [[] for _ in codes]
    rng = np.random.default_rng(seed)
    live = np.ones(n, dtype=bool)
    steps = 0
    while live.any() and (max_steps is None or steps < max_steps):
        yield env, games, actions, live
        mask = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        env.step(acts)
        for i in np.flatnonzero(live):
            games[i].play(int(acts[i]))
            actions[i].append(int(acts[i]))
            if games[i].over:
                live[i] = False
        steps += 1
