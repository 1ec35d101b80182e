"""A TriPeaks deal: 28 tableau cards in slot order, the waste card, the stock in draw order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from solitaire_env.common.cards import JOKER, NUM_CARDS, card_text
from solitaire_env.common.deals import (
    DealCode,
    DealStringError,
    check_counts,
    deal_rng,
    deal_sections,
    read_cards,
    shuffle,
    unchecked,
)
from solitaire_env.games import TRIPEAKS
from solitaire_env.tripeaks.rules import NUM_SLOTS as TABLEAU_SLOTS

__all__ = ["TriPeaksDeal"]


@dataclass(frozen=True)
class TriPeaksDeal:
    """A TriPeaks deal: 28 tableau cards in slot order, the waste card, the stock in draw order.

    ``str()`` is the deal string ``<28 cards> | <waste> | <stock>``; :meth:`parse` reads
    one back.  Jokers (``JK``) may stand in the stock or on the waste, never in the tableau.
    """

    tableau: tuple[int, ...]
    waste: int
    stock: tuple[int, ...]
    code: DealCode | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.tableau) != TABLEAU_SLOTS:
            raise DealStringError(f"tableau: want 28 cards in slot order, got {len(self.tableau)}")
        if JOKER in self.tableau:
            raise DealStringError("tableau: a joker (JK) may only be in the stock or on the waste")
        cards = [*self.tableau, self.waste, *self.stock]
        jokers = cards.count(JOKER)
        if jokers > 2:
            raise DealStringError(f"at most 2 jokers, got {jokers}")
        check_counts(cards, 1, "TriPeaks deal")
        if len(cards) != NUM_CARDS + jokers:
            raise DealStringError(f"TriPeaks deal: want 52 cards (+ jokers), got {len(cards)}")

    @property
    def jokers(self) -> int:
        return (self.waste == JOKER) + self.stock.count(JOKER)

    @classmethod
    def from_places(cls, layout: Sequence[int], stock: Sequence[int], waste: int | None) -> TriPeaksDeal:
        """The deal whose 28 tableau slots hold ``layout`` and whose stock holds ``stock`` in draw
        order; ``waste`` is the waste's card at the start, or ``None`` when the deal's waste card is
        the first of ``stock`` (a deal played with an empty waste at the start)."""
        if waste is None:
            return cls(tuple(layout), stock[0], tuple(stock[1:]))
        return cls(tuple(layout), waste, tuple(stock))

    @classmethod
    def from_seed(cls, seed: int, *, jokers: int = 0, rule: str = "E") -> TriPeaksDeal:
        """Deal of a seed: shuffled deck d, tableau d[0:28], waste d[28], stock d[29:52].

        With jokers, each joker is then inserted into the stock at ``rng.below(len + 1)``
        drawn from the same stream, so the tableau and waste never change with the option.
        """
        if jokers not in (0, 1, 2):
            raise ValueError(f"jokers must be 0, 1 or 2, got {jokers!r}")
        rng = deal_rng("TP", seed)
        deck = shuffle(list(range(NUM_CARDS)), rng)
        stock = deck[29:]
        for _ in range(jokers):
            stock.insert(rng.below(len(stock) + 1), JOKER)
        code = DealCode(TRIPEAKS.code, TRIPEAKS.rule_letters[rule], seed)
        return unchecked(cls, tableau=tuple(deck[:28]), waste=deck[28], stock=tuple(stock), code=code)

    @classmethod
    def parse(cls, text: str) -> TriPeaksDeal:
        tableau, waste, stock = deal_sections(text, 3, "TriPeaks")
        if len(tableau) != TABLEAU_SLOTS:
            raise DealStringError(f"tableau section: want 28 cards in slot order, got {len(tableau)}")
        if len(waste) != 1:
            raise DealStringError(f"waste section: want exactly 1 card, got {len(waste)}")
        return cls(
            tuple(read_cards(tableau, "tableau", False)),
            read_cards(waste, "waste", True)[0],
            tuple(read_cards(stock, "stock", True)),
        )

    def __str__(self) -> str:
        return " | ".join(" ".join(card_text(c) for c in part) for part in (self.tableau, (self.waste,), self.stock))

    @property
    def name(self) -> str:
        """The deal code if the deal came from one, else the deal string."""
        return str(self.code) if self.code is not None else str(self)
