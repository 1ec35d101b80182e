"""TriPeaks observations: a public view and an oracle view of one game.

The observer is its own object (as OpenSpiel's observers are): it turns a
:class:`~solitaire_env.tripeaks.game.TriPeaksGame` into an observation of one of four
modes and owns the matching Gymnasium space.  ``flat`` and ``dict`` show every public
fact and nothing hidden; ``oracle`` and ``oracle_dict`` add the face-down cards and the
stock order, for research only.  The layouts are documented in ``docs/environments.md``.

Flat layout (float32, all values in [0, 1]), :data:`FLAT_SIZE` = 607:

====================  =====  ===========================================================
offset                size   meaning
====================  =====  ===========================================================
``19*s`` (s=0..27)    19     slot s: [0] face down, [1] removed, [2:15] rank A..K one-hot,
                             [15:19] suit C D H S one-hot (ranks/suits only when face up)
532                   19     waste top: [0:13] rank, [13:17] suit, [17] joker, [18] empty
551                   1      stock count / 26
552                   52     card id c never seen yet (face down or in the stock, unseen)
604                   1      jokers not seen yet / 2
605                   1      chain / 28
606                   1      cleared / 28
====================  =====  ===========================================================

Oracle (flat) appends 28 * 17 (rank and suit of every slot's card, removed slots zero)
and 26 * 18 (the remaining stock in draw order: rank, suit, joker; zero past its end),
:data:`ORACLE_SIZE` = 1551.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from solitaire_env.common.cards import JOKER, NUM_CARDS
from solitaire_env.common.observer import Observer
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import NUM_SLOTS

SLOT_SIZE = 19
WASTE_OFFSET = NUM_SLOTS * SLOT_SIZE  # 532
STOCK_OFFSET = WASTE_OFFSET + 19  # 551
UNSEEN_OFFSET = STOCK_OFFSET + 1  # 552
JOKERS_OFFSET = UNSEEN_OFFSET + NUM_CARDS  # 604
CHAIN_OFFSET = JOKERS_OFFSET + 1  # 605
CLEARED_OFFSET = CHAIN_OFFSET + 1  # 606
FLAT_SIZE = CLEARED_OFFSET + 1  # 607
MAX_STOCK = 26  # 23 + waste card (empty waste start) + 2 jokers
ORACLE_SLOT_SIZE = 17
ORACLE_STOCK_SIZE = 18
ORACLE_TABLEAU_OFFSET = FLAT_SIZE
ORACLE_STOCK_OFFSET = ORACLE_TABLEAU_OFFSET + NUM_SLOTS * ORACLE_SLOT_SIZE
ORACLE_SIZE = ORACLE_STOCK_OFFSET + MAX_STOCK * ORACLE_STOCK_SIZE  # 1551

# dict-mode codes
FACE_DOWN = 52
REMOVED = 53
WASTE_JOKER = 52
WASTE_EMPTY = 53
STOCK_NONE = 53


def _card_rows(width: int, joker_col: int | None) -> np.ndarray:
    """Row per card id (and the joker): rank one-hot, suit one-hot[, joker flag]."""
    rows = np.zeros((NUM_CARDS + 1, width), dtype=np.float32)
    for c in range(NUM_CARDS):
        rows[c, c % 13] = 1.0
        rows[c, 13 + c // 13] = 1.0
    if joker_col is not None:
        rows[JOKER, joker_col] = 1.0
    return rows


_SLOT_ROWS = np.zeros((NUM_CARDS + 2, SLOT_SIZE), dtype=np.float32)  # + face-down, removed
_SLOT_ROWS[:NUM_CARDS, 2:] = _card_rows(17, None)[:NUM_CARDS]
_SLOT_ROWS[FACE_DOWN, 0] = 1.0
_SLOT_ROWS[REMOVED, 1] = 1.0
_WASTE_ROWS = np.zeros((NUM_CARDS + 2, 19), dtype=np.float32)
_WASTE_ROWS[: NUM_CARDS + 1, :18] = _card_rows(18, 17)
_WASTE_ROWS[WASTE_EMPTY, 18] = 1.0
_ORACLE_ROWS = _card_rows(ORACLE_STOCK_SIZE, 17)
#: Positions of the ones in each row, for updates that touch only what changed.
_SLOT_ONES = [tuple(np.flatnonzero(row).tolist()) for row in _SLOT_ROWS]
_WASTE_ONES = [tuple(np.flatnonzero(row).tolist()) for row in _WASTE_ROWS]


class TriPeaksObserver(Observer):
    """Encodes a game in one observation mode; ``space`` is its Gymnasium space.

    ``encode`` keeps the last flat observation and updates only what changed since the
    previous call on the same game, so a step costs a few slice writes.
    """

    def __init__(self, mode: str = "flat") -> None:
        super().__init__(mode, FLAT_SIZE, ORACLE_SIZE)
        if mode in ("dict", "oracle_dict"):
            parts: dict[str, spaces.Space[Any]] = {
                "tableau": spaces.MultiDiscrete(np.full(NUM_SLOTS, 54)),
                "waste": spaces.Discrete(54),
                "unseen": spaces.MultiBinary(NUM_CARDS),
                "counts": spaces.Box(0.0, 1.0, (4,), np.float32),
            }
            if self.oracle:
                parts["hidden_tableau"] = spaces.MultiDiscrete(np.full(NUM_SLOTS, 54))
                parts["stock"] = spaces.MultiDiscrete(np.full(MAX_STOCK, 54))
            self.space = spaces.Dict(parts)
        self._game: TriPeaksGame | None = None
        self._last: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
        self._codes: list[int] = []
        self._waste = WASTE_EMPTY
        self._blank = np.zeros_like(self._buf)
        self._blank[0:WASTE_OFFSET:SLOT_SIZE] = 1.0  # face down
        self._blank[WASTE_OFFSET + 18] = 1.0  # empty waste
        self._blank[UNSEEN_OFFSET:JOKERS_OFFSET] = 1.0

    # ------------------------------------------------------------------ flat

    def _slot_code(self, game: TriPeaksGame, s: int) -> int:
        if game.removed >> s & 1:
            return REMOVED
        if game.face_up >> s & 1:
            return game.tableau[s]
        return FACE_DOWN

    @staticmethod
    def _waste_code(game: TriPeaksGame) -> int:
        top = game.waste_top
        return WASTE_EMPTY if top is None else top

    def _unseen_ids(self, game: TriPeaksGame) -> tuple[list[int], int]:
        unseen = game.unseen_cards()
        return [c for c in unseen if c != JOKER], unseen.count(JOKER)

    def _update_flat(self, game: TriPeaksGame) -> np.ndarray:
        buf = self._buf
        mv = self._mv  # scalar writes through a memoryview cost half of numpy's item assignment
        full = self._game is not game
        if full:
            # A new game: start from the blank board (every slot face down, every card unseen,
            # empty waste) and let the update below write what differs from it.
            buf[:] = self._blank
            self._codes = [FACE_DOWN] * NUM_SLOTS
            self._waste = WASTE_EMPTY
            if game.rules.waste_start == "card" and game.deal.waste != JOKER:
                mv[UNSEEN_OFFSET + game.deal.waste] = 0.0
            mv[JOKERS_OFFSET] = game.stock.count(JOKER) / 2
            self._game = game
            self._last = (0, 0, 0, 0, 0)
        last_removed, last_face_up, last_stock_pos, last_seen, last_stock_seen = self._last
        removed, face_up, tableau = game.removed, game.face_up, game.tableau
        changed = (removed ^ last_removed) | (face_up ^ last_face_up)
        if changed:
            codes, slot_ones = self._codes, _SLOT_ONES
            while changed:
                low = changed & -changed
                s = low.bit_length() - 1
                base = SLOT_SIZE * s
                for i in slot_ones[codes[s]]:
                    mv[base + i] = 0.0
                # the slot's code (as _slot_code, inlined: this is the step's hot path)
                code = codes[s] = REMOVED if removed & low else tableau[s] if face_up & low else FACE_DOWN
                for i in slot_ones[code]:
                    mv[base + i] = 1.0
                changed ^= low
        waste_pile = game.waste
        waste = waste_pile[-1] if waste_pile else WASTE_EMPTY
        if waste != self._waste:
            for i in _WASTE_ONES[self._waste]:
                mv[WASTE_OFFSET + i] = 0.0
            for i in _WASTE_ONES[waste]:
                mv[WASTE_OFFSET + i] = 1.0
            self._waste = waste
        seen_slots = game.seen_slots
        newly_seen = seen_slots & ~last_seen
        while newly_seen:  # seen cards stay seen, so the unseen block only loses cards
            low = newly_seen & -newly_seen
            mv[UNSEEN_OFFSET + tableau[low.bit_length() - 1]] = 0.0
            newly_seen ^= low
        for pos in range(last_stock_seen, game.stock_seen):
            card = game.stock[pos]
            if card == JOKER:
                mv[JOKERS_OFFSET] -= 0.5
            else:
                mv[UNSEEN_OFFSET + card] = 0.0
        stock_pos = game.stock_pos
        if self.oracle and (full or removed != last_removed or stock_pos != last_stock_pos):
            self._oracle_fill(game)
        mv[STOCK_OFFSET] = (len(game.stock) - stock_pos) / MAX_STOCK
        mv[CHAIN_OFFSET] = game.chain / NUM_SLOTS
        mv[CLEARED_OFFSET] = removed.bit_count() / NUM_SLOTS
        self._last = (removed, face_up, stock_pos, seen_slots, game.stock_seen)
        return buf.copy()

    def _oracle_fill(self, game: TriPeaksGame) -> None:
        buf = self._buf
        tab = buf[ORACLE_TABLEAU_OFFSET:ORACLE_STOCK_OFFSET].reshape(NUM_SLOTS, ORACLE_SLOT_SIZE)
        for s, card in enumerate(game.tableau):
            tab[s] = 0.0 if game.removed >> s & 1 else _ORACLE_ROWS[card, :ORACLE_SLOT_SIZE]
        stock = buf[ORACLE_STOCK_OFFSET:].reshape(MAX_STOCK, ORACLE_STOCK_SIZE)
        stock[:] = 0.0
        rest = game.stock[game.stock_pos :]
        if rest:
            stock[: len(rest)] = _ORACLE_ROWS[list(rest)]

    # ------------------------------------------------------------------ dict

    def _dict(self, game: TriPeaksGame) -> dict[str, Any]:
        unseen_ids, jokers = self._unseen_ids(game)
        unseen = np.zeros(NUM_CARDS, dtype=np.int8)
        unseen[unseen_ids] = 1
        obs: dict[str, Any] = {
            "tableau": np.array([self._slot_code(game, s) for s in range(NUM_SLOTS)], dtype=np.int64),
            "waste": self._waste_code(game),
            "unseen": unseen,
            "counts": np.array(
                [
                    game.stock_count / MAX_STOCK,
                    game.chain / NUM_SLOTS,
                    game.removed.bit_count() / NUM_SLOTS,
                    jokers / 2,
                ],
                dtype=np.float32,
            ),
        }
        if self.oracle:
            obs["hidden_tableau"] = np.array(
                [REMOVED if game.removed >> s & 1 else c for s, c in enumerate(game.tableau)], dtype=np.int64
            )
            stock = np.full(MAX_STOCK, STOCK_NONE, dtype=np.int64)
            rest = game.stock[game.stock_pos :]
            stock[: len(rest)] = rest
            obs["stock"] = stock
        return obs
