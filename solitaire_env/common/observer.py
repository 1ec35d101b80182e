"""What every game's observer shares: the modes, the flat buffer, mode dispatch and pickling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

#: The observation modes of every game: two public ones and their oracle counterparts.
OBS_MODES = ("flat", "dict", "oracle", "oracle_dict")


class Observer:
    """Base of the games' observers: subclasses call ``Observer.__init__``, set ``_game`` and
    define ``_update_flat`` (flat and oracle modes) and ``_dict`` (dict modes)."""

    mode: str
    _game: Any
    _update_flat: Callable[[Any], Any]
    _dict: Callable[[Any], Any]

    def __init__(self, mode: str, flat_size: int, oracle_size: int) -> None:
        """Check and keep ``mode``; make the flat buffer (``oracle_size`` values in the oracle
        modes, else ``flat_size``) and its memoryview, and in the flat modes the ``Box`` space
        over it (the dict modes' ``space`` is the subclass's to set)."""
        if mode not in OBS_MODES:
            raise ValueError(f"unknown observation mode {mode!r}; want one of {', '.join(OBS_MODES)}")
        self.mode = mode
        self.oracle = mode.startswith("oracle")
        size = oracle_size if self.oracle else flat_size
        self.space: spaces.Space[Any]
        if mode in ("flat", "oracle"):
            self.space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self._buf = np.zeros(size, dtype=np.float32)
        self._mv: Any = memoryview(self._buf)  # type: ignore[arg-type]

    @property
    def encoder(self) -> Callable[[Any], Any]:
        """The function ``encode`` calls in this mode, for hot loops that call it every step."""
        return self._update_flat if self.mode in ("flat", "oracle") else self._dict

    def encode(self, game: Any) -> Any:
        """The observation of ``game`` in this observer's mode."""
        return self.encoder(game)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_game"] = None  # re-encode from scratch after unpickling
        state.pop("_mv", None)  # a memoryview of the buffer: made again by __setstate__
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_buf" in state:
            self.__dict__["_mv"] = memoryview(state["_buf"])
