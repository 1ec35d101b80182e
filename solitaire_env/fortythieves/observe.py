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

from solitaire_env.common.cards import NUM_CARDS
from solitaire_env.common.observer import Observer
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION,
    FIRST_FOUNDATION_SRC,
    MAX_COLUMN,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    STOCK_SIZE,
)
from solitaire_env.fortythieves.rules import WASTE as WASTE_SOURCE

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


#: Positions of a card's two ones among its 17 values: its rank and its suit.
_RANK = tuple(c % 13 for c in range(NUM_CARDS))
_SUIT = tuple(13 + c // 13 for c in range(NUM_CARDS))
#: The leftmost foundation of each card's suit (the other one of its suit is 4 to its right).


class FortyThievesObserver(Observer):
    """Encodes a game in one observation mode; ``space`` is its Gymnasium space.

    The flat encoder keeps its last vector and the piles it was made from, and rewrites
    only the positions of piles that changed since the previous call on the same game.
    """

    def __init__(self, mode: str = "flat") -> None:
        super().__init__(mode, FLAT_SIZE, ORACLE_SIZE)
        if mode in ("dict", "oracle_dict"):
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
        self._game: FortyThievesGame | None = None
        self._columns: list[list[int]] = []
        self._waste: list[int] = []
        self._foundations: list[int] = []
        self._stock_seen = 0
        self._stock_pos = 0
        self._changes = -2

    # ------------------------------------------------------------------ flat

    def _write_pile(self, base: int, old: list[int], new: list[int]) -> None:
        """Rewrite the positions of a pile (17 values each from ``base``) where ``new`` differs."""
        mv = self._mv  # scalar writes through a memoryview: half the cost of numpy's
        lo, ln = len(old), len(new)
        n = k = lo if lo < ln else ln
        if old[:n] != new[:n]:  # piles change at the top: a change lower down is rare (undo, reset)
            k = 0
            while old[k] == new[k]:
                k += 1
        for i in range(k, lo):
            card = old[i]
            at = base + CARD_SIZE * i
            mv[at + _RANK[card]] = 0.0
            mv[at + _SUIT[card]] = 0.0
        for i in range(k, ln):
            card = new[i]
            at = base + CARD_SIZE * i
            mv[at + _RANK[card]] = 1.0
            mv[at + _SUIT[card]] = 1.0

    def _reset_buffer(self, game: FortyThievesGame) -> None:
        """Encode ``game`` from scratch (a new game, or after unpickling)."""
        buf, mv = self._buf, self._mv
        buf[:] = 0.0
        for j, col in enumerate(game.columns):  # scalar writes: cheaper than numpy for 40 cards
            at = CARD_SIZE * MAX_COLUMN * j
            for card in col:
                mv[at + _RANK[card]] = mv[at + _SUIT[card]] = 1.0
                at += CARD_SIZE
            mv[LENGTHS_OFFSET + j] = len(col) / MAX_COLUMN
        if self.oracle:
            at = ORACLE_STOCK_OFFSET + CARD_SIZE * game.stock_pos
            for card in game.stock[game.stock_pos :]:
                mv[at + _RANK[card]] = mv[at + _SUIT[card]] = 1.0
                at += CARD_SIZE
        self._columns = [col[:] for col in game.columns]
        self._waste = []
        self._foundations = [0] * NUM_FOUNDATIONS
        self._stock_seen = 0
        self._stock_pos = game.stock_pos
        buf[STOCK_OFFSET] = (len(game.stock) - game.stock_pos) / STOCK_SIZE
        counts = np.bincount(np.asarray(game.stock, dtype=np.int64), minlength=NUM_CARDS)
        buf[UNSEEN_OFFSET:FLAT_SIZE] = counts / 2
        self._game = game
        self._update_waste(game)
        self._update_foundations(game)
        self._update_stock(game)

    def _update_flat(self, game: FortyThievesGame) -> np.ndarray:
        if self._game is not game:  # a new game: encoded from scratch, nothing left to update
            self._reset_buffer(game)
            self._changes = game.changes
            return self._buf.copy()
        # One move since the last call (the usual env step)? Then only its piles can differ.
        moved = game.last_action if game.changes == self._changes + 1 and game.last_action >= 0 else None
        self._changes = game.changes
        if moved is None:
            for j in range(NUM_COLUMNS):
                self._update_column(game, j)
            self._update_waste(game)
            self._update_foundations(game)
            self._update_stock(game)
        elif moved == DRAW:  # one card from the stock onto the waste (the usual step: inlined)
            mv, waste, card = self._mv, self._waste, game.waste[-1]
            n = len(waste)
            if n:
                mv[WASTE_TOP_OFFSET + _RANK[waste[-1]]] = 0.0
                mv[WASTE_TOP_OFFSET + _SUIT[waste[-1]]] = 0.0
            rank, suit = _RANK[card], _SUIT[card]
            at = WASTE_OFFSET + CARD_SIZE * n
            mv[at + rank] = mv[at + suit] = 1.0
            mv[WASTE_TOP_OFFSET + rank] = mv[WASTE_TOP_OFFSET + suit] = 1.0
            waste.append(card)
            mv[WASTE_SIZE_OFFSET] = (n + 1) / STOCK_SIZE
            self._update_stock(game)
        else:  # one card from a pile to another
            src, dst = divmod(moved, NUM_DESTS)
            if src < NUM_COLUMNS:
                card = self._columns[src][-1]
                self._column_pop(src)
            elif src == WASTE_SOURCE:
                card = self._waste[-1]
                self._waste_pop()
            else:  # from a foundation
                f = src - FIRST_FOUNDATION_SRC
                self._foundations[f] = n = game.foundations[f]
                self._mv[FOUNDATIONS_OFFSET + f] = n / 13
            if dst < NUM_COLUMNS:
                self._column_push(dst, game.columns[dst][-1])
            else:  # to a foundation: the leftmost of its suit that took it, one of two
                f = FIRST_FOUNDATION[card]
                fnd, last = game.foundations, self._foundations
                last[f] = fnd[f]
                last[f + 4] = fnd[f + 4]
                self._mv[FOUNDATIONS_OFFSET + f] = fnd[f] / 13
                self._mv[FOUNDATIONS_OFFSET + f + 4] = fnd[f + 4] / 13
        return self._buf.copy()

    def _put(self, at: int, card: int, value: float) -> None:
        self._mv[at + _RANK[card]] = value
        self._mv[at + _SUIT[card]] = value

    def _column_pop(self, j: int) -> None:
        col = self._columns[j]
        card = col.pop()
        self._put(CARD_SIZE * (MAX_COLUMN * j + len(col)), card, 0.0)
        self._mv[LENGTHS_OFFSET + j] = len(col) / MAX_COLUMN

    def _column_push(self, j: int, card: int) -> None:
        col = self._columns[j]
        self._put(CARD_SIZE * (MAX_COLUMN * j + len(col)), card, 1.0)
        col.append(card)
        self._mv[LENGTHS_OFFSET + j] = len(col) / MAX_COLUMN

    def _waste_pop(self) -> None:
        waste = self._waste
        card = waste.pop()
        self._put(WASTE_OFFSET + CARD_SIZE * len(waste), card, 0.0)
        self._put(WASTE_TOP_OFFSET, card, 0.0)
        if waste:
            self._put(WASTE_TOP_OFFSET, waste[-1], 1.0)
        self._mv[WASTE_SIZE_OFFSET] = len(waste) / STOCK_SIZE

    def _update_column(self, game: FortyThievesGame, j: int) -> None:
        col, last = game.columns[j], self._columns[j]
        if col != last:
            self._write_pile(CARD_SIZE * MAX_COLUMN * j, last, col)
            self._mv[LENGTHS_OFFSET + j] = len(col) / MAX_COLUMN
            self._columns[j] = col[:]

    def _update_waste(self, game: FortyThievesGame) -> None:
        waste, last, mv = game.waste, self._waste, self._mv
        if waste != last:
            self._write_pile(WASTE_OFFSET, last, waste)
            if last:
                mv[WASTE_TOP_OFFSET + _RANK[last[-1]]] = 0.0
                mv[WASTE_TOP_OFFSET + _SUIT[last[-1]]] = 0.0
            if waste:
                mv[WASTE_TOP_OFFSET + _RANK[waste[-1]]] = 1.0
                mv[WASTE_TOP_OFFSET + _SUIT[waste[-1]]] = 1.0
            mv[WASTE_SIZE_OFFSET] = len(waste) / STOCK_SIZE
            self._waste = waste[:]

    def _update_foundations(self, game: FortyThievesGame) -> None:
        if game.foundations != self._foundations:
            for f, n in enumerate(game.foundations):
                self._mv[FOUNDATIONS_OFFSET + f] = n / 13
            self._foundations = game.foundations[:]

    def _update_stock(self, game: FortyThievesGame) -> None:
        mv = self._mv  # scalar writes through a memoryview: half the cost of numpy's
        if game.stock_seen > self._stock_seen:
            for pos in range(self._stock_seen, game.stock_seen):
                mv[UNSEEN_OFFSET + game.stock[pos]] -= 0.5
            self._stock_seen = game.stock_seen
        if game.stock_pos != self._stock_pos:
            mv[STOCK_OFFSET] = (len(game.stock) - game.stock_pos) / STOCK_SIZE
            if self.oracle and self._stock_pos >= 0:
                lo, hi = sorted((self._stock_pos, game.stock_pos))
                for p in range(lo, hi):
                    card = game.stock[p]
                    value = 0.0 if p < game.stock_pos else 1.0
                    mv[ORACLE_STOCK_OFFSET + CARD_SIZE * p + _RANK[card]] = value
                    mv[ORACLE_STOCK_OFFSET + CARD_SIZE * p + _SUIT[card]] = value
            self._stock_pos = game.stock_pos

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
