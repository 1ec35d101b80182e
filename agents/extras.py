"""The optional dependencies: :func:`require_rl` is the one place that imports the ``rl`` extra
(torch, stable-baselines3, sb3-contrib, tensorboard) for training and the ``ppo`` agent; without
it, a :class:`MissingExtraError` (a ``ValueError`` and an ``ImportError``) with one line naming
``pip install 'solitaire-env[rl]'``."""

from __future__ import annotations

import importlib

__all__ = ["MissingExtraError", "require_rl"]


class MissingExtraError(ValueError, ImportError):
    """An optional dependency is not installed: one line naming the pip command.  A ``ValueError``
    (the CLI prints it as its one-line error) and an ``ImportError`` (``except ImportError`` still
    catches it)."""


#: The modules of the ``rl`` extra, by the name pip knows them under.
RL_MODULES = (("torch", "torch"), ("stable_baselines3", "stable-baselines3"), ("sb3_contrib", "sb3-contrib"))


def require_rl(what: str, *, tensorboard: bool = False) -> None:
    """Import the ``rl`` extra's modules (and, with ``tensorboard``, what SB3 logs with), or raise
    :class:`MissingExtraError`: ``{what} needs the rl extra: pip install 'solitaire-env[rl]' (...)``."""
    missing: list[str] = []
    for module, package in RL_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing.append(_missing(package, module, error))
    if tensorboard and not missing:
        try:  # what stable-baselines3's TensorBoard logger imports (it fails only when learning starts)
            importlib.import_module("torch.utils.tensorboard")
        except ImportError as error:
            missing.append(_missing("tensorboard", "tensorboard", error))
    if missing:
        raise MissingExtraError(f"{what} needs the rl extra: pip install 'solitaire-env[rl]' ({'; '.join(missing)})")


def _missing(package: str, module: str, error: ImportError) -> str:
    name = getattr(error, "name", None) or ""
    if isinstance(error, ModuleNotFoundError) and (name == module or name.startswith(module + ".")):
        return f"{package} is not installed"
    return f"{package} does not import: {' '.join(str(error).split())}"
