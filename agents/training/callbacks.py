"""The training run's callbacks inside ``model.learn``: the validations, the stop, the progress bar.

- :func:`validation_callback`: sb3-contrib's ``MaskableEvalCallback`` on the validation env,
  every ``validation.every`` env steps (each validation deal once, masked, deterministic), keeping
  the best model by mean return in ``best_model.zip`` and its history in ``evaluations.npz``;
- :func:`validate_now`: one validation at once (the warm-started policy's, the final weights');
- :class:`Watch`: stops the learning on a signal (:class:`~agents.training.signals.StopSignals`) or
  at the time limit, keeps the tqdm bar on stderr (env steps, newest validation return) and
  records the training curve (mean episode return and length per rollout).

Imports stable-baselines3 and sb3-contrib: import it after :func:`agents.extras.require_rl`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback

from agents.training.signals import StopSignals

__all__ = ["Watch", "validate_now", "validation_callback"]


def validation_callback(eval_env: Any, deals: int, every: int, num_envs: int, out: Path) -> MaskableEvalCallback:
    """Every ``every`` env steps (over ``num_envs`` envs), play the ``deals`` validation deals of
    ``eval_env`` once; the best model goes to ``out/best_model.zip``, the history to ``out``."""
    return MaskableEvalCallback(
        eval_env,
        n_eval_episodes=deals,
        eval_freq=max(1, every // num_envs),
        best_model_save_path=str(out),
        log_path=str(out),
        deterministic=True,
        warn=False,
        verbose=0,
    )


def validate_now(evaluation: MaskableEvalCallback) -> None:
    """Make ``evaluation`` validate now (its next call is the one its frequency validates at)."""
    evaluation.n_calls = evaluation.eval_freq - 1
    evaluation.on_step()


class Watch(BaseCallback):
    """The stop (signals, time limit), the progress bar and the training curve (mean episode
    return per rollout).

    ``minutes`` (None: no limit) is counted from when the watch is made; ``warm_started`` makes
    the policy as it starts learning a candidate for the best model (one validation first)."""

    def __init__(
        self, evaluation: MaskableEvalCallback, stop: StopSignals, timesteps: int, start_steps: int, progress: bool
    ) -> None:
        super().__init__()
        self.evaluation = evaluation
        self.stop = stop
        self.timesteps = timesteps
        self.start_steps = start_steps
        self.progress = progress
        self.minutes: float | None = None
        self.warm_started = False
        self.curve: list[dict[str, float]] = []
        self.start = time.perf_counter()
        self.stopped_by = "timesteps"
        self.bar: Any = None
        self.shown = 0  # the validations the bar has shown

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        if self.warm_started:  # the warm-started policy is a candidate for the best model too
            validate_now(self.evaluation)
            self.evaluation.n_calls = 0
        # env steps against the configured timesteps; a time limit is said in the description
        self.bar = tqdm(
            total=self.timesteps,
            unit="step",
            unit_scale=True,
            desc="training" if self.minutes is None else f"training (at most {self.minutes:.3g} min)",
            disable=not self.progress,
            file=sys.stderr,
        )
        self.show()

    def show(self) -> None:
        """The steps so far and the newest validation's mean return on the bar."""
        if self.bar is None:
            return
        self.bar.n = min(self.bar.total, self.model.num_timesteps - self.start_steps)
        self.shown = len(self.evaluation.evaluations_timesteps)
        if self.shown:
            self.bar.set_postfix({"validation_return": f"{self.evaluation.last_mean_reward:.2f}"}, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.show()
            self.bar.close()
            self.bar = None

    def _on_rollout_end(self) -> None:
        buffer = self.model.ep_info_buffer
        if buffer:
            self.curve.append(
                {
                    "timesteps": float(self.num_timesteps),
                    "seconds": time.perf_counter() - self.start,
                    "episode_return": float(np.mean([e["r"] for e in buffer])),
                    "episode_length": float(np.mean([e["l"] for e in buffer])),
                }
            )

    def _on_step(self) -> bool:
        if self.stop():
            self.stopped_by = "interrupt"
            return False
        if self.n_calls % 16 == 0 or len(self.evaluation.evaluations_timesteps) != self.shown:
            self.show()
        if self.minutes is not None and time.perf_counter() - self.start >= 60.0 * self.minutes:
            self.stopped_by = "minutes"
            return False
        return True
