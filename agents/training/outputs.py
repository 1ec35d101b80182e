"""The training run's files: the models with their sidecars, ``metrics.json``, the learning curve.

- :class:`TrainResult`: what a run made (its folder, its files by name, its metrics);
- :func:`model_paths`: ``model.zip`` (the last weights) and ``best_model.zip`` (the best
  validation's, written by sb3-contrib's ``MaskableEvalCallback``) in the out folder;
- :func:`save_models`: both models saved, each with the sidecar JSON the ``ppo`` agent reads
  (:func:`agents.players.ppo.write_sidecar`), and the names of every file of the run;
- :func:`write_metrics`: ``metrics.json``, written whole (never half a file);
- :func:`plot_curve`: ``learning_curve.png`` (needs matplotlib; skipped without it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.training.config import TrainConfig

__all__ = ["TrainResult", "model_paths", "plot_curve", "save_models", "write_metrics"]


@dataclass
class TrainResult:
    """What a run made: the folder, the files, and the metrics written to ``metrics.json``."""

    out: Path
    files: dict[str, str]
    metrics: dict[str, Any]


def model_paths(out: Path) -> tuple[Path, Path]:
    """``model.zip`` (the last weights) and ``best_model.zip`` (the best validation's) in ``out``."""
    return out / "model.zip", out / "best_model.zip"


def save_models(model: Any, config: TrainConfig, stopped: Callable[[], bool]) -> dict[str, str]:
    """Save ``model.zip`` and its sidecar, the sidecar of ``best_model.zip`` (first the last
    weights as the best model if no validation saved one, unless the run was ``stopped``), the
    numpy policies ``model.npz`` / ``best_model.npz`` of a scorer policy
    (:mod:`agents.training.export`), and return the run's files by name (what ``metrics.json``
    lists under ``files``)."""
    from agents.players.ppo import write_sidecar

    out = Path(config.out)
    model_path, best_path = model_paths(out)
    sidecar_kwargs = dict(config.env_kwargs)
    advice = None if config.advice == "none" else config.advice
    files: dict[str, str] = {}
    model.save(str(model_path))
    files["model"] = str(model_path)
    files["model_sidecar"] = str(write_sidecar(model_path, config.game, sidecar_kwargs, advice=advice))
    if not stopped() and not best_path.exists():  # no validation beat -inf: cannot happen, but keep it usable
        model.save(str(best_path))
    if best_path.exists():
        files["best_model"] = str(best_path)
        files["best_model_sidecar"] = str(write_sidecar(best_path, config.game, sidecar_kwargs, advice=advice))
    from agents.training.export import export_policy, is_scorer

    if is_scorer(model.policy):  # the numpy policies beside them (agents.training.export)
        files["model_numpy"] = str(export_policy(model_path))
        if best_path.exists():
            files["best_model_numpy"] = str(export_policy(best_path))
    files["tensorboard"] = str(out / "tensorboard")
    if (out / "evaluations.npz").exists():
        files["evaluations"] = str(out / "evaluations.npz")
    files["metrics"] = str(out / "metrics.json")
    return files


def write_metrics(out: Path, metrics: dict[str, Any]) -> None:
    """Write ``metrics.json`` in ``out`` whole: a ``.part`` file first, then renamed over it."""
    path = out / "metrics.json"
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(metrics, indent=2) + "\n")
    os.replace(part, path)  # never half a file


def plot_curve(metrics: dict[str, Any], path: Path, config: TrainConfig) -> Path | None:
    """``learning_curve.png``: the training curve and the validations (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    curve = metrics["training_curve"]
    validation = metrics["validation"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    if curve:
        left.plot([r["timesteps"] for r in curve], [r["episode_return"] for r in curve], lw=1)
    left.set_xlabel("env steps")
    left.set_ylabel("mean episode return (training, last 100 episodes)")
    left.grid(alpha=0.3)
    x = [r["timesteps"] for r in validation]
    if validation and any(r.get("win_rate", 0.0) > 0 for r in validation):  # else the reward says more
        right.plot(x, [100 * r.get("win_rate", 0.0) for r in validation], marker="o")
        right.set_ylabel(f"validation win rate, % ({config.validation.deals} deals)")
    else:
        right.plot(x, [r["mean_reward"] for r in validation], marker="o")
        right.set_ylabel(f"validation mean return ({config.validation.deals} deals)")
    right.set_xlabel("env steps")
    right.grid(alpha=0.3)
    fig.suptitle(f"MaskablePPO, {config.game} ({config.rules}): {config.source or config.out}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
