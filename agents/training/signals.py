"""Stopping a training run: Ctrl-C / SIGTERM, what an interrupted run saves, how to go on.

- :class:`StopSignals`: SIGINT and SIGTERM while a run is on.  During the warm start and the
  learning the first signal only asks for a stop (checked at every env step); a second one, or
  any signal after the learning, raises ``KeyboardInterrupt`` at once, except while files are
  being written.
- :func:`interrupted`: marks ``metrics.json`` of a stopped run (``interrupted_by``,
  ``interrupted_in``), says what was saved and the command that resumes the run (or, stopped in
  its test, the evaluation that tests the model), and returns the :class:`TrainingInterrupted`
  (a ``KeyboardInterrupt``: the CLI exits 130) that the run raises.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

from agents.training.config import TrainConfig
from agents.training.outputs import TrainResult, write_metrics

__all__ = ["StopSignals", "TrainingInterrupted", "interrupted"]


class TrainingInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT) or SIGTERM after it saved what it had: ``result`` holds the
    files (``model.zip`` and its sidecar, ``metrics.json`` with ``"interrupted": true``).  A
    ``KeyboardInterrupt``, so the CLI exits 130."""

    def __init__(self, result: TrainResult, message: str) -> None:
        super().__init__(message)
        self.result = result


class StopSignals:
    """SIGINT and SIGTERM while a run is on (installed in the main thread only).

    While ``graceful`` (the warm start and the learning), the first signal only asks for a stop,
    which the run checks at every env step (:meth:`__call__`); a second one, or any signal once
    learning is over, raises ``KeyboardInterrupt`` at once, except while ``saving`` (the files
    are written whole).  A process forked from the run (an evaluation worker) gets the default
    behaviour back."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.graceful = True
        self.saving = False
        self._pid = os.getpid()
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(sig) is not signal.SIG_IGN:  # a signal the caller ignores stays ignored
                    self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._old.clear()

    def __call__(self) -> bool:
        return self.name is not None

    def note(self, default: str = "SIGINT") -> None:
        """A ``KeyboardInterrupt`` that came without our handler (not the main thread)."""
        self.name = self.name or default

    def _handle(self, signum: int, frame: Any) -> None:
        if os.getpid() != self._pid:  # a forked worker: what it would do without this handler
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        again = self.name is not None
        self.name = self.name or signal.Signals(signum).name
        if self.saving:
            return
        if again or not self.graceful:
            raise KeyboardInterrupt


def interrupted(result: TrainResult, config: TrainConfig, name: str, phase: str, say: Any) -> TrainingInterrupted:
    """Mark and write the metrics of an interrupted run, say what was saved and how to go on."""
    metrics, files = result.metrics, result.files
    metrics["interrupted_by"] = name
    metrics["interrupted_in"] = phase
    write_metrics(result.out, metrics)
    model, out = files["model"], result.out
    saved = f"saved {model} (its sidecar {Path(files['model_sidecar']).name})" + (
        ", best_model.zip" if "best_model" in files else ""
    )
    source = (config.source or "").split(" (with --")[0]
    cfg = source if source and os.path.isfile(source) else "CONFIG.yaml"
    if phase == "test":
        best = files.get("best_model", model)
        again = f"test it with: solitaire-env eval --agents ppo:model={best} --deals {config.test.deals}"
        again += f" --seed {config.test.seed} --rules {config.rules}"
        what = "during the test"
    else:
        left = config.timesteps - int(metrics["timesteps_this_run"])
        more = f" --timesteps {left}" if 0 < left < config.timesteps else ""
        note = " (without the config's pretrain block)" if config.pretrain is not None else ""
        again = f"resume with: solitaire-env train --config {cfg}{note} --resume {model}{more} --out {out}-resumed"
        what = f"at {metrics['timesteps']:,} timesteps"
    message = f"interrupted by {name} {what}: {saved} and {out / 'metrics.json'}; {again}"
    say(message)
    return TrainingInterrupted(result, message)
