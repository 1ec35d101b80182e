"""Forty Thieves envs whose observation is the move features (:mod:`agents.training.move_features`).

The features are made by the rules core in Python from the public state, one game at a time, so
these are single envs (:class:`MoveFeaturesEnv`, a Gymnasium wrapper) in an SB3 ``DummyVecEnv``
(:func:`move_vec_env`), not the numba batch env. A step costs about a millisecond more than the
single env's own (``benchmarks/ft_agent_games.py`` times whole games).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from agents.base import observe
from agents.training.move_features import OBS_SIZE, MoveFeatures

__all__ = ["MoveFeaturesEnv", "MoveVecEnv", "move_vec_env"]


class MoveFeaturesEnv(gym.Wrapper):
    """A Forty Thieves env (``gym.make`` of the registered id with ``env_kwargs``) whose
    observations are the move features of its public state.

    ``codes``: deal these codes in turn, one per episode (an evaluation); else random deals from
    ``seed``, never one of ``exclude`` (the training stream). ``info["is_success"]`` says at
    each episode's end whether it was won (as the SB3 batch env's)."""

    def __init__(
        self,
        env_kwargs: Mapping[str, Any] | None = None,
        *,
        codes: Sequence[str] | None = None,
        exclude: Iterable[str] = (),
        seed: int | None = None,
    ) -> None:
        import solitaire_env  # noqa: F401 (registers the envs)

        kwargs = {k: v for k, v in (env_kwargs or {}).items() if k not in ("autoreset_mode", "copy", "obs_mode")}
        super().__init__(gym.make("solitaire_env/FortyThieves-v0", obs_mode="flat", **kwargs))
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)
        self.codes = list(codes) if codes is not None else None
        self.exclude = frozenset(exclude)
        self.features = MoveFeatures()
        self._next = 0
        self._seed = seed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        self.features.reset()
        if self.codes:
            code = self.codes[self._next % len(self.codes)]
            self._next += 1
            _, info = self.env.reset(seed=seed, options={"deal_code": code})
        else:
            _, info = self.env.reset(seed=seed, options=options)
            while info["deal_code"] in self.exclude:  # a held-out deal: the next one
                _, info = self.env.reset()
        return self.features(observe(self.env)), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        _, reward, terminated, truncated, info = self.env.step(int(action))
        if terminated or truncated:
            info["is_success"] = bool(self.env.unwrapped.game.won)  # type: ignore[attr-defined]
        return self.features(observe(self.env)), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.unwrapped.action_masks(), dtype=bool)  # type: ignore[attr-defined]


class MoveVecEnv(DummyVecEnv):
    """A ``DummyVecEnv`` of :class:`MoveFeaturesEnv` with the batch envs' ``action_masks()``."""

    def action_masks(self) -> np.ndarray:
        return np.stack([env.action_masks() for env in self.envs])  # type: ignore[attr-defined]


def move_vec_env(
    n: int,
    env_kwargs: Mapping[str, Any] | None = None,
    *,
    codes: Sequence[str] | None = None,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> Any:
    """A :class:`MoveVecEnv` of ``n`` :class:`MoveFeaturesEnv`: with ``codes`` (as many as
    ``n``), env ``i`` deals ``codes[i]`` every episode; else random deals (seeds ``seed + i``)
    that are never in ``exclude``."""
    held = frozenset(exclude)
    if codes is not None and len(codes) != n:
        raise ValueError(f"want {n} codes (one per env), got {len(codes)}")

    def make(i: int) -> Any:
        if codes is not None:
            return lambda: MoveFeaturesEnv(env_kwargs, codes=[codes[i]])
        return lambda: MoveFeaturesEnv(env_kwargs, exclude=held, seed=seed + i)

    return MoveVecEnv([make(i) for i in range(n)])
