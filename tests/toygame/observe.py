"""Toy observations in the four modes of :mod:`solitaire_env.common.observer`.

Flat (float32 in [0, 1]), :data:`FLAT_SIZE` = 91: per pile (4 x 15) [0] a face-down card
under the top, [1] empty, [2:15] the top card's rank; the waste top (13 ranks, empty); the
stock count / 5; the cards stacked / 13; the ranks never seen (13); redeals left / 3; the chain
/ 13.  Oracle adds each pile's face-down card (4 x 13) and the stock in draw order (5 x 13).
Every observation is a new array, made from the game's public facts (oracle: and its hidden ones).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from solitaire_env.common.cards import rank_of
from solitaire_env.common.observer import Observer
from toygame.game import ToyGame
from toygame.rules import NUM_PILES, NUM_RANKS, STOCK_CARDS

PILE_SIZE = 2 + NUM_RANKS
WASTE_OFFSET = NUM_PILES * PILE_SIZE
COUNTS_OFFSET = WASTE_OFFSET + NUM_RANKS + 1
UNSEEN_OFFSET = COUNTS_OFFSET + 2
FLAT_SIZE = UNSEEN_OFFSET + NUM_RANKS + 2
ORACLE_SIZE = FLAT_SIZE + (NUM_PILES + STOCK_CARDS) * NUM_RANKS


class ToyObserver(Observer):
    def __init__(self, mode: str = "flat") -> None:
        super().__init__(mode, FLAT_SIZE, ORACLE_SIZE)
        self._game = None
        if mode in ("dict", "oracle_dict"):
            parts: dict[str, spaces.Space[Any]] = {
                "piles": spaces.MultiDiscrete(np.full(NUM_PILES, NUM_RANKS + 1)),
                "down": spaces.MultiBinary(NUM_PILES),
                "waste": spaces.Discrete(NUM_RANKS + 1),
                "unseen": spaces.MultiBinary(NUM_RANKS),
                "counts": spaces.Box(0.0, 1.0, (4,), np.float32),
            }
            if self.oracle:
                parts["hidden"] = spaces.MultiDiscrete(np.full(NUM_PILES, NUM_RANKS + 1))
                parts["stock"] = spaces.MultiDiscrete(np.full(STOCK_CARDS, NUM_RANKS + 1))
            self.space = spaces.Dict(parts)

    @staticmethod
    def _tops(game: ToyGame) -> list[int]:
        """Each pile's top rank, 0 for an empty pile."""
        return [rank_of(p[-1]) if p else 0 for p in game.piles]

    @staticmethod
    def _unseen(game: ToyGame) -> np.ndarray:
        return np.array([1 - (game.seen >> r & 1) for r in range(NUM_RANKS)], dtype=np.int8)

    @staticmethod
    def _counts(game: ToyGame) -> list[float]:
        return [game.stock_count / STOCK_CARDS, game.stacked / NUM_RANKS, game.redeals_left / 3, game.chain / NUM_RANKS]

    @staticmethod
    def _hidden(game: ToyGame) -> list[int]:
        """Each pile's face-down card's rank, 0 for none (oracle only)."""
        return [rank_of(p[0]) if game.down >> i & 1 and len(p) > 1 else 0 for i, p in enumerate(game.piles)]

    def _update_flat(self, game: ToyGame) -> np.ndarray:
        buf = np.zeros(self._buf.shape, dtype=np.float32)
        for p, top in enumerate(self._tops(game)):
            base = PILE_SIZE * p
            buf[base] = float(game.down >> p & 1 and len(game.piles[p]) > 1)
            buf[base + 1 if not top else base + 1 + top] = 1.0
        waste = game.waste_top
        buf[WASTE_OFFSET + (rank_of(waste) - 1 if waste is not None else NUM_RANKS)] = 1.0
        stock, stacked, redeals, chain = self._counts(game)
        buf[COUNTS_OFFSET : COUNTS_OFFSET + 2] = stock, stacked
        buf[UNSEEN_OFFSET : UNSEEN_OFFSET + NUM_RANKS] = self._unseen(game)
        buf[FLAT_SIZE - 2 : FLAT_SIZE] = redeals, chain
        if self.oracle:
            for p, rank in enumerate(self._hidden(game)):
                if rank:
                    buf[FLAT_SIZE + NUM_RANKS * p + rank - 1] = 1.0
            for i, card in enumerate(game.talon[game.pos :]):
                buf[FLAT_SIZE + NUM_RANKS * (NUM_PILES + i) + rank_of(card) - 1] = 1.0
        return buf

    def _dict(self, game: ToyGame) -> dict[str, Any]:
        top = game.waste_top
        obs: dict[str, Any] = {
            "piles": np.array(self._tops(game), dtype=np.int64),
            "down": np.array([game.down >> p & 1 and len(pile) > 1 for p, pile in enumerate(game.piles)], np.int8),
            "waste": 0 if top is None else rank_of(top),
            "unseen": self._unseen(game),
            "counts": np.array(self._counts(game), dtype=np.float32),
        }
        if self.oracle:
            obs["hidden"] = np.array(self._hidden(game), dtype=np.int64)
            stock = [rank_of(c) for c in game.talon[game.pos :]]
            obs["stock"] = np.array(stock + [0] * (STOCK_CARDS - len(stock)), dtype=np.int64)
        return obs
