"""A Toy deal: 4 piles of 2 cards (bottom, top) and the stock of 5 in draw order."""

from __future__ import annotations

from dataclasses import dataclass, field

from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import (
    DealCode,
    DealStringError,
    deal_rng,
    deal_sections,
    read_cards,
    shuffle,
    unchecked,
)
from toygame.rules import DECK, NUM_PILES, PILE_CARDS, STOCK_CARDS


@dataclass(frozen=True)
class ToyDeal:
    """``str()`` is the deal string ``<pile 1> | .. | <pile 4> | <stock>`` (5 sections)."""

    piles: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    code: DealCode | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.piles) != NUM_PILES or any(len(p) != PILE_CARDS for p in self.piles):
            raise DealStringError(f"Toy deal: want {NUM_PILES} piles of {PILE_CARDS} cards")
        if len(self.stock) != STOCK_CARDS:
            raise DealStringError(f"Toy deal: want a stock of {STOCK_CARDS} cards, got {len(self.stock)}")
        cards = [c for p in self.piles for c in p] + list(self.stock)
        if sorted(cards) != sorted(DECK):
            raise DealStringError("Toy deal: want each spade A..K exactly once")

    @classmethod
    def from_seed(cls, seed: int, *, rule: str = "S") -> ToyDeal:
        """Shuffled deck d: pile p is d[2p], d[2p+1] (bottom, top), the stock d[8:13]."""
        deck = shuffle(list(DECK), deal_rng("TY", seed))
        piles = tuple(tuple(deck[PILE_CARDS * p : PILE_CARDS * (p + 1)]) for p in range(NUM_PILES))
        return unchecked(cls, piles=piles, stock=tuple(deck[NUM_PILES * PILE_CARDS :]), code=DealCode("TY", rule, seed))

    @classmethod
    def parse(cls, text: str) -> ToyDeal:
        *piles, stock = deal_sections(text, NUM_PILES + 1, "Toy")
        cards = [tuple(read_cards(p, f"pile {i + 1}", False)) for i, p in enumerate(piles)]
        return cls(tuple(cards), tuple(read_cards(stock, "stock", False)))

    def __str__(self) -> str:
        return " | ".join(" ".join(card_text(c) for c in part) for part in (*self.piles, self.stock))

    @property
    def name(self) -> str:
        return str(self.code) if self.code is not None else str(self)
