"""The file of a learned base-policy network (``.npz``): written by expert iteration
(:mod:`agents.training.base_net`), read by the rollout agents (:mod:`agents.players.rollout`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["load_net", "save_net", "split_net"]


def split_net(net: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(W1, b1, w2, b2)`` of a :func:`~agents.players.playouts.net_array`."""
    n_in, hidden = int(net[0]), int(net[1])
    at = 2
    w1 = net[at : at + hidden * n_in].reshape(hidden, n_in)
    at += hidden * n_in
    b1 = net[at : at + hidden]
    w2 = net[at + hidden : at + 2 * hidden]
    return w1, b1, w2, float(net[at + 2 * hidden])


def save_net(path: str | Path, net: np.ndarray, **meta: Any) -> None:
    """Write a network (and any notes about how it was made) to an ``.npz`` file."""
    arrays: dict[str, Any] = {k: np.asarray(v) for k, v in meta.items()}
    arrays["net"] = np.asarray(net, dtype=np.float64)
    np.savez(Path(path), **arrays)


def load_net(path: str | Path) -> np.ndarray:
    """The network of a :func:`save_net` file (checked by :func:`~agents.players.playouts.net_params`)."""
    try:
        with np.load(Path(path)) as f:
            net = np.asarray(f["net"], dtype=np.float64)
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not a base-policy network file ({e})") from None
    from agents.players.playouts import net_params

    net_params(net)  # raises ValueError if malformed
    return net
