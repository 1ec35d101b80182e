"""Forty Thieves observations: public (flat / dict) and oracle views of one game.

The only hidden cards are the stock's.  Flat layout (float32 in [0, 1]),
:data:`FLAT_SIZE` = 3897; a card is 17 values (rank A..K one-hot, suit C D H S one-hot):

=================  ======  =================================================================
offset             size    meaning
=================  ======  =================================================================
0                  2720    columns: column j, position i (0 = bottom) at ``(16*j + i) * 17``
2720               10      column lengths / 16
2730               1088    waste, bottom first: position p at ``2730 + 17*p`` (64 positions)
3818               17      waste top card (zero when the waste is empty)
3835               1       waste size / 64
3836               8       cards on each foundation (S H D C S H D C) / 13
3844               1       stock count / 64
3845               52      copies of card id c not seen yet (still in the stock) / 2
=================  ======  =================================================================

Oracle (flat) appends the stock by position, 64 * 17 (a drawn position is zero):
:data:`ORACLE_SIZE` = 4985.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from solitaire_env.cards import NUM_CARDS
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import MAX_COLUMN, NUM_COLUMNS, NUM_FOUNDATIONS, STOCK_SIZE

CARD_SIZE = 17
COLUMNS_OFFSET = 0
LENGTHS_OFFSET = NUM_COLUMNS * MAX_COLUMN * CARD_SIZE  # 2720
WASTE_OFFSET = LENGTHS_OFFSET + NUM_COLUMNS  # 2730
WASTE_TOP_OFFSET = WASTE_OFFSET + STOCK_SIZE * CARD_SIZE  # 3818
WASTE_SIZE_OFFSET = WASTE_TOP_OFFSET + CARD_SIZE  # 3835
FOUNDATIONS_OFFSET = WASTE_SIZE_OFFSET + 1  # 3836
STOCK_OFFSET = FOUNDATIONS_OFFSET + NUM_FOUNDATIONS  # 3844
UNSEEN_OFFSET = STOCK_OFFSET + 1  # 3845
FLAT_SIZE = UNSEEN_OFFSET + NUM_CARDS  # 3897
ORACLE_STOCK_OFFSET = FLAT_SIZE
ORACLE_SIZE = ORACLE_STOCK_OFFSET + STOCK_SIZE * CARD_SIZE  # 4985

NONE = 52  # dict-mode code of an empty position
OBS_MODES = ("flat", "dict", "oracle", "oracle_dict")


def _ones(card: int) -> tuple[int, int]:
    """Positions of the two ones of a card's 17 values."""
    return card % 13, 13 + card // 13


class FortyThievesObserver:
    """Encodes a game in one observation mode; ``space`` is its Gymnasium space.

    The flat encoder keeps its last vector and the piles it was made from, and rewrites
    only the positions of piles that changed since the previous call on the same game.
    """

    def __init__(self, mode: str = "flat") -> None:
        if mode not in OBS_MODES:
            raise ValueError(f"unknown observation mode {mode!r}; want one of {', '.join(OBS_MODES)}")
        self.mode = mode
        self.oracle = mode.startswith("oracle")
        self.space: spaces.Space[Any]
        if mode in ("flat", "oracle"):
            self.space = spaces.Box(0.0, 1.0, (ORACLE_SIZE if self.oracle else FLAT_SIZE,), np.float32)
        else:
            parts: dict[str, spaces.Space[Any]] = {
                "columns": spaces.MultiDiscrete(np.full((NUM_COLUMNS, MAX_COLUMN), NONE + 1)),
                "waste": spaces.MultiDiscrete(np.full(STOCK_SIZE, NONE + 1)),
                "foundations": spaces.MultiDiscrete(np.full(NUM_FOUNDATIONS, 14)),
                "unseen": spaces.MultiDiscrete(np.full(NUM_CARDS, 3)),
                "counts": spaces.Box(0.0, 1.0, (2,), np.float32),
            }
            if self.oracle:
                parts["stock"] = spaces.MultiDiscrete(np.full(STOCK_SIZE, NONE + 1))
            self.space = spaces.Dict(parts)
        self._buf = np.zeros(ORACLE_SIZE if self.oracle else FLAT_SIZE, dtype=np.float32)
        self._game: FortyThievesGame | None = None
        self._columns: list[list[int]] = []
        self._waste: list[int] = []
        self._foundations: list[int] = []
        self._stock_seen = 0
        self._stock_pos = 0

    # ------------------------------------------------------------------ flat

    def _write_pile(self, base: int, old: list[int], new: list[int]) -> None:
        """Rewrite the positions of a pile (17 values each from ``base``) where ``new`` differs."""
        buf = self._buf
        k = 0
        n = min(len(old), len(new))
        while k < n and old[k] == new[k]:
            k += 1
        for i in range(k, len(old)):
            r, s = _ones(old[i])
            buf[base + CARD_SIZE * i + r] = 0.0
            buf[base + CARD_SIZE * i + s] = 0.0
        for i in range(k, len(new)):
            r, s = _ones(new[i])
            buf[base + CARD_SIZE * i + r] = 1.0
            buf[base + CARD_SIZE * i + s] = 1.0

    def _update_flat(self, game: FortyThievesGame) -> np.ndarray:
        buf = self._buf
        if self._game is not game:
            buf[:] = 0.0
            self._columns = [[] for _ in range(NUM_COLUMNS)]
            self._waste = []
            self._foundations = [0] * NUM_FOUNDATIONS
            self._stock_seen = 0
            self._stock_pos = 0
            counts = np.bincount(np.asarray(game.stock, dtype=np.int64), minlength=NUM_CARDS)
            buf[UNSEEN_OFFSET:FLAT_SIZE] = counts / 2
            if self.oracle:
                for p, card in enumerate(game.stock):
                    r, s = _ones(card)
                    buf[ORACLE_STOCK_OFFSET + CARD_SIZE * p + r] = 1.0
                    buf[ORACLE_STOCK_OFFSET + CARD_SIZE * p + s] = 1.0
            self._game = game
        for j, col in enumerate(game.columns):
            old = self._columns[j]
            if col != old:
                self._write_pile(CARD_SIZE * MAX_COLUMN * j, old, col)
                buf[LENGTHS_OFFSET + j] = len(col) / MAX_COLUMN
                self._columns[j] = list(col)
        waste = game.waste
        if waste != self._waste:
            self._write_pile(WASTE_OFFSET, self._waste, waste)
            self._write_pile(WASTE_TOP_OFFSET, self._waste[-1:], waste[-1:])
            buf[WASTE_SIZE_OFFSET] = len(waste) / STOCK_SIZE
            self._waste = list(waste)
        if game.foundations != self._foundations:
            for f, n in enumerate(game.foundations):
                buf[FOUNDATIONS_OFFSET + f] = n / 13
            self._foundations = list(game.foundations)
        if game.stock_seen > self._stock_seen:
            for pos in range(self._stock_seen, game.stock_seen):
                buf[UNSEEN_OFFSET + game.stock[pos]] -= 0.5
            self._stock_seen = game.stock_seen
        if game.stock_pos != self._stock_pos:
            buf[STOCK_OFFSET] = (len(game.stock) - game.stock_pos) / STOCK_SIZE
            if self.oracle:
                lo, hi = sorted((self._stock_pos, game.stock_pos))
                for p in range(lo, hi):
                    r, s = _ones(game.stock[p])
                    value = 0.0 if p < game.stock_pos else 1.0
                    buf[ORACLE_STOCK_OFFSET + CARD_SIZE * p + r] = value
                    buf[ORACLE_STOCK_OFFSET + CARD_SIZE * p + s] = value
            self._stock_pos = game.stock_pos
        elif self._stock_pos == 0:
            buf[STOCK_OFFSET] = len(game.stock) / STOCK_SIZE
        return buf.copy()

    # ------------------------------------------------------------------ dict

    def _dict(self, game: FortyThievesGame) -> dict[str, Any]:
        columns = np.full((NUM_COLUMNS, MAX_COLUMN), NONE, dtype=np.int64)
        for j, col in enumerate(game.columns):
            columns[j, : len(col)] = col
        waste = np.full(STOCK_SIZE, NONE, dtype=np.int64)
        waste[: len(game.waste)] = game.waste
        unseen = np.bincount(np.asarray(game.unseen_cards(), dtype=np.int64), minlength=NUM_CARDS)
        obs: dict[str, Any] = {
            "columns": columns,
            "waste": waste,
            "foundations": np.array(game.foundations, dtype=np.int64),
            "unseen": unseen.astype(np.int64),
            "counts": np.array([game.stock_count / STOCK_SIZE, len(game.waste) / STOCK_SIZE], dtype=np.float32),
        }
        if self.oracle:
            stock = np.full(STOCK_SIZE, NONE, dtype=np.int64)
            rest = game.stock[game.stock_pos :]
            stock[game.stock_pos : game.stock_pos + len(rest)] = rest
            obs["stock"] = stock
        return obs

    def encode(self, game: FortyThievesGame) -> Any:
        """The observation of ``game`` in this observer's mode."""
        if self.mode in ("flat", "oracle"):
            return self._update_flat(game)
        return self._dict(game)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_game"] = None  # re-encode from scratch after unpickling
        return state
