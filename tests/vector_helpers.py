"""What the batch-env tests of every game share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

if TYPE_CHECKING:
    from solitaire_env.games import GameSpec


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


def make_pair(spec: GameSpec, num_envs: int, **kwargs: Any) -> tuple[Any, gym.vector.SyncVectorEnv]:
    """The batch env (through make_vec) and SyncVectorEnv over gym.make single envs, same options."""
    batch = gym.make_vec(spec.env_id, num_envs=num_envs, **kwargs)
    assert isinstance(batch, spec.batch_class)
    autoreset = kwargs.get("autoreset_mode", "next_step")
    single_kwargs = {k: v for k, v in kwargs.items() if k not in ("autoreset_mode", "max_episode_steps")}
    max_steps = kwargs.get("max_episode_steps", spec.max_episode_steps)
    mode = gym.vector.AutoresetMode.SAME_STEP if autoreset == "same_step" else gym.vector.AutoresetMode.NEXT_STEP
    sync = gym.vector.SyncVectorEnv(
        [lambda: gym.make(spec.env_id, max_episode_steps=max_steps, **single_kwargs) for _ in range(num_envs)],
        autoreset_mode=mode,
    )
    return batch, sync


def step_both(batch: Any, sync: Any, actions: np.ndarray, where: str) -> tuple[Any, ...]:
    """One step of both envs: the same five outputs and the same masks; returns SyncVectorEnv's."""
    out_b, out_s = batch.step(actions), sync.step(actions)
    for part, x, y in zip(("obs", "reward", "terminated", "truncated", "info"), out_b, out_s):
        assert_same(x, y, f"{where} {part}")
    assert_same(batch.action_masks(), np.stack([e.unwrapped.action_masks() for e in sync.envs]), f"{where} masks")
    return out_s


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
