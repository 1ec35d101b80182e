"""``solitaire-env export``: a trained ``model.zip`` as a numpy policy (``.npz``) that plays without torch.

The policies of ``ppo.features: afterstate`` (TriPeaks) and ``ppo.features: moves`` (Forty
Thieves) are scorers: one network gives each move a number.  Their actor is that network alone,
so the file holds its layers and what the scorer's inputs need (the rules' K-A wrap, the advice,
the lookahead bonus; :class:`agents.players.scorers.ScorerNet`), and the ``ppo`` agent plays it
with numpy (``make_agent("ppo", game, model="model.npz")``).  ``solitaire-env train`` writes
``model.npz`` and ``best_model.npz`` beside the ``.zip`` files.  Other policies (``MlpPolicy``
on the flat or dict observation, ``features: chain``) are refused with one line: they play
through torch only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.extras import require_rl
from agents.players.ppo import model_file, read_sidecar
from agents.players.scorers import ScorerNet

__all__ = ["export_policy", "is_scorer", "numpy_path"]


def numpy_path(model: str | Path) -> Path:
    """Where the numpy policy of ``model`` goes by default: ``name.zip`` -> ``name.npz``."""
    return Path(model).with_suffix(".npz")


def is_scorer(policy: Any) -> bool:
    """Whether a MaskablePPO policy is one of the scorers that export to numpy."""
    from agents.training.afterstate import TriPeaksAfterstateFeatures
    from agents.training.move_policy import MoveFeaturesExtractor

    return isinstance(policy.pi_features_extractor, TriPeaksAfterstateFeatures | MoveFeaturesExtractor)


def export_policy(model: str | Path, out: str | Path | None = None) -> Path:
    """Write the numpy policy of the MaskablePPO ``model`` (a ``.zip``) to ``out`` (default
    :func:`numpy_path`); returns its path.  The model's sidecar (``name.json``) gives its game
    and env keywords; without one, the game follows from the policy's kind."""
    require_rl("solitaire-env export")
    from sb3_contrib import MaskablePPO
    from torch import nn

    from agents.training.afterstate import TriPeaksAfterstateFeatures
    from agents.training.move_features import LOOKAHEAD_ROW, MOVE_FEATURES
    from agents.training.move_policy import MoveFeaturesExtractor

    path = model_file(model)
    if not path.is_file():
        raise FileNotFoundError(f"model file not found: {path}")
    try:
        policy = MaskablePPO.load(str(path), device="cpu").policy
    except Exception as error:
        raise ValueError(f"cannot load the ppo model {path}: {type(error).__name__}: {error}") from None
    extractor = policy.pi_features_extractor
    sidecar = read_sidecar(path) or {}
    if isinstance(extractor, TriPeaksAfterstateFeatures):
        kind, game = "afterstate", "tripeaks"
        extra: dict[str, Any] = {"wrap": extractor.wrap, "advice": "base_policy" if extractor.with_advice else None}
    elif isinstance(extractor, MoveFeaturesExtractor):
        kind, game = "moves", "fortythieves"
        extra = {
            "bonus": float(extractor.lookahead_bonus),
            "move_features": MOVE_FEATURES,
            "lookahead_row": LOOKAHEAD_ROW,
        }
    else:
        raise ValueError(
            f"{path}: only the scorer policies (ppo.features: afterstate or moves) export to numpy; "
            f"this one's features are {type(extractor).__name__}: play it with torch (model={path})"
        )
    if sidecar.get("game", game) != game:
        raise ValueError(f"{path}: the sidecar says {sidecar['game']}, the policy is a {game} one")
    layers = [
        (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
        for m in extractor.scorer
        if isinstance(m, nn.Linear)
    ]
    net = ScorerNet(kind=kind, game=game, layers=layers, env_kwargs=dict(sidecar.get("env_kwargs", {})), **extra)
    return net.save(numpy_path(path) if out is None else out)
