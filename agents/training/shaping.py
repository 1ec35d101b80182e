"""Reward shaping for training TriPeaks policies: a potential from the base policy's playout on the true cards.

Why: a TriPeaks game is mostly decided by the order of the stock, which no policy can see, so
the return of an episode says little about any one move (docs/training.md has the measured
results). The ``rollout`` agent scores a move by the
games a fair base policy wins after it over many fillings of the unseen cards. Training can do
the same with one filling per visit, the true one, and let the many episodes of training
average it: potential-based shaping (Ng, Harada and Russell, 1999) with

    Phi(s) = cards the base policy still clears from s + win_bonus * [it clears them all]

where the base policy (:mod:`agents.players.playouts`, ``DEFAULT_POLICY`` of :mod:`agents.players.rollout`) plays
on the *true* deal of the training env. The reward of a step becomes
``r + gamma * Phi(s') - Phi(s)`` (``Phi`` of a finished game is 0), so a move is paid at once for
what it changes in the base policy's outcome on this deal.

What the policy sees does not change: the shaping is a training signal, like the reward itself
(the env knows the deal; it is the env that pays). The potential is a function of the env's
state, and the shaping terms of an episode add up to ``-Phi(s_0)`` (up to discounting), which no
action changes: the policy that maximizes the shaped return is the one that maximizes the return
(the theorem's condition; with ``gamma`` < 1 the discounting of the last term is the small
difference). The trained policy still reads only the public observation, and the ``ppo`` agent
plays it from the public state (tests/agents/test_move_values.py checks the potential against the rules
core; tests/agents/test_train.py that a shaped run's model plays through the fair agent).

The potential is :func:`agents.training.move_values.potentials`. :class:`PlayoutShaping` is an SB3
``VecEnvWrapper`` over :class:`~solitaire_env.sb3.SB3VecEnv`
(TriPeaks): put ``VecMonitor`` inside it so that the logged episode returns stay unshaped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from agents.players import playouts as P
from agents.players.rollout import DEFAULT_POLICY
from agents.training.game_features import for_game
from agents.training.move_values import potentials

__all__ = ["PlayoutShaping"]


class PlayoutShaping(VecEnvWrapper):
    """Adds ``gamma * Phi(s') - Phi(s)`` to the rewards of a TriPeaks :class:`SB3VecEnv` (module docstring).

    ``venv`` is the SB3 env chain whose innermost env is the ``SB3VecEnv`` (e.g. a
    ``VecMonitor`` over it), with ``reward="progress"``: the potential counts cards and the
    env's own ``win_bonus``, the reward's units. ``gamma`` is PPO's discount. The infos gain
    nothing; ``potential`` holds ``Phi`` of the current states.
    """

    def __init__(self, venv: VecEnv, gamma: float) -> None:
        super().__init__(venv)
        inner: Any = venv
        while hasattr(inner, "venv"):
            inner = inner.venv
        batch = getattr(inner, "env", None)
        if batch is None or not for_game("shaping", getattr(inner, "game", None)):
            raise ValueError("PlayoutShaping needs a TriPeaks SB3VecEnv (solitaire_env.sb3) inside")
        if batch.reward_mode != "progress":
            raise ValueError('PlayoutShaping needs reward="progress" (its potential counts cards and the win bonus)')
        self._batch = batch
        self.win_bonus = float(batch.win_bonus)
        self.gamma = float(gamma)
        self._params = P.policy_params(**DEFAULT_POLICY)
        self.potential = np.zeros(self.num_envs, dtype=np.float64)

    def _phi(self) -> np.ndarray:
        return potentials(self._batch, self.win_bonus, self._params)

    def reset(self) -> Any:
        obs = self.venv.reset()
        self.potential = self._phi()
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        after = self._phi()  # a finished game's row already holds the next game (same-step autoreset)
        shaped = rewards + self.gamma * np.where(dones, 0.0, after) - self.potential
        self.potential = after
        return obs, shaped.astype(np.float32), dones, infos
