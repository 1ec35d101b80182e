"""The Toy rules: the layout's sizes, the env actions and the one rule option.

The 13 spades A..K are dealt into 4 piles of 2 cards (the bottom one face down, the top one
face up) and a stock of 5.  The foundation is built up from the ace, one rank at a time, from
the top card of a pile or of the waste.  A draw turns the top stock card onto the waste; when
the stock is empty, a redeal (``redeals`` of them per game) turns the waste over into the stock.
The game is won when all 13 cards are on the foundation, and lost when no move is legal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from solitaire_env.common.cards import card_id

NUM_PILES = 4
PILE_CARDS = 2
STOCK_CARDS = 5
NUM_RANKS = 13
#: The deck: the spades, A..K (card ids 39..51).
DECK = tuple(card_id(rank, 3) for rank in range(1, NUM_RANKS + 1))
ALL_RANKS = (1 << NUM_RANKS) - 1
ALL_PILES = (1 << NUM_PILES) - 1
#: Env actions: 0..3 the top card of that pile to the foundation, then these.
WASTE = NUM_PILES
REDEAL = NUM_PILES + 1
DRAW = NUM_PILES + 2
NUM_ACTIONS = DRAW + 1
#: Points: a card onto the foundation, a draw, a redeal.
CARD_POINTS, DRAW_POINTS, REDEAL_POINTS = 10, -1, -5


@dataclass(frozen=True)
class ToyRules:
    """``redeals``: how many times the waste may be turned over into the stock (0..3)."""

    redeals: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.redeals, bool) or self.redeals not in (0, 1, 2, 3):
            raise ValueError(f"redeals must be 0, 1, 2 or 3, got {self.redeals!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
