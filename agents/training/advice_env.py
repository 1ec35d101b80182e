"""The advice as an SB3 wrapper: the base policy's move appended to a TriPeaks vec env's observations.

:mod:`agents.training.advice` computes the advice (numpy and numba only, so that the ``ppo`` agent
plays an advised policy without torch); this is the training's side, which needs
stable-baselines3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from agents.training.advice import ADVICE_SIZE, batch_advice, with_advice
from agents.training.game_features import for_game
from solitaire_env.tripeaks.observe import FLAT_SIZE

__all__ = ["AdviceObservation"]


class AdviceObservation(VecEnvWrapper):
    """Appends :func:`batch_advice` (one-hot) to the flat observations of a TriPeaks ``SB3VecEnv`` chain."""

    def __init__(self, venv: VecEnv) -> None:
        inner: Any = venv
        while hasattr(inner, "venv"):
            inner = inner.venv
        batch = getattr(inner, "env", None)
        space = venv.observation_space
        if (
            not for_game("advice", getattr(inner, "game", None))
            or batch is None
            or not isinstance(space, spaces.Box)
            or space.shape != (FLAT_SIZE,)
        ):
            raise ValueError("advice needs a TriPeaks SB3VecEnv with flat observations (obs_mode 'flat') inside")
        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (FLAT_SIZE + ADVICE_SIZE,), np.float32))
        self._batch = batch

    def reset(self) -> Any:
        obs = self.venv.reset()
        return with_advice(np.asarray(obs), batch_advice(self._batch))

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        # a finished game's row already holds the next game (same-step autoreset); the final
        # observation in the infos gets no advice (SB3 reads it only for the value of a timeout)
        for i in np.flatnonzero(dones):
            final = infos[i].get("terminal_observation")
            if final is not None:
                infos[i]["terminal_observation"] = with_advice(final, -1)
        return with_advice(np.asarray(obs), batch_advice(self._batch)), rewards, dones, infos
