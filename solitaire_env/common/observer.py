"""What every game's observer shares: mode dispatch and pickling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Observer:
    """Base of the games' observers: subclasses set ``mode`` and ``_game`` and define
    ``_update_flat`` (flat and oracle modes) and ``_dict`` (dict modes)."""

    mode: str
    _game: Any
    _update_flat: Callable[[Any], Any]
    _dict: Callable[[Any], Any]

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
