"""A Forty Thieves deal: 10 columns of 4 (bottom to top), then the stock in draw order."""

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
from solitaire_env.fortythieves.rules import NUM_COLUMNS as FT_COLUMNS
from solitaire_env.games import FORTYTHIEVES

FT_COLUMN_DEPTH = 4

__all__ = ["FortyThievesDeal"]


@dataclass(frozen=True)
class FortyThievesDeal:
    """A Forty Thieves deal: 10 columns of 4 (bottom to top), then the stock in draw order."""

    columns: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    code: DealCode | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.columns) != FT_COLUMNS:
            raise DealStringError(f"want 10 columns, got {len(self.columns)}")
        for i, col in enumerate(self.columns):
            if len(col) != FT_COLUMN_DEPTH:
                raise DealStringError(f"column {i + 1}: want 4 cards, got {len(col)}")
        cards = [c for col in self.columns for c in col] + list(self.stock)
        if JOKER in cards:
            raise DealStringError("Forty Thieves has no jokers")
        check_counts(cards, 2, "Forty Thieves deal")
        if len(cards) != 2 * NUM_CARDS:
            raise DealStringError(f"Forty Thieves deal: want 104 cards, got {len(cards)}")

    @classmethod
    def from_places(cls, layout: Sequence[int], stock: Sequence[int], waste: int | None = None) -> FortyThievesDeal:
        """The deal whose columns hold ``layout`` (four cards a column, column 1 first, each from
        the bottom up) and whose stock holds ``stock`` in draw order (``waste``: unused, a Forty
        Thieves deal has no waste card)."""
        columns = tuple(tuple(layout[4 * c : 4 * c + 4]) for c in range(len(layout) // 4))
        return cls(columns, tuple(stock))

    @classmethod
    def from_seed(cls, seed: int, *, rule: str = "N") -> FortyThievesDeal:
        """Deal of a seed: shuffled two-deck d, column c = d[4c:4c+4] bottom to top, stock d[40:]."""
        deck = shuffle(list(range(NUM_CARDS)) * 2, deal_rng("FT", seed))
        cols = tuple(tuple(deck[4 * c : 4 * c + 4]) for c in range(FT_COLUMNS))
        code = DealCode(FORTYTHIEVES.code, FORTYTHIEVES.rule_letters[rule], seed)
        return unchecked(cls, columns=cols, stock=tuple(deck[40:]), code=code)

    @classmethod
    def parse(cls, text: str) -> FortyThievesDeal:
        parts = deal_sections(text, FT_COLUMNS + 1, "Forty Thieves")
        cols = []
        for i, tokens in enumerate(parts[:FT_COLUMNS]):
            if len(tokens) != FT_COLUMN_DEPTH:
                raise DealStringError(f"column {i + 1}: want 4 cards bottom to top, got {len(tokens)}")
            cols.append(tuple(read_cards(tokens, f"column {i + 1}", False)))
        return cls(tuple(cols), tuple(read_cards(parts[-1], "stock", False)))

    def __str__(self) -> str:
        return " | ".join(" ".join(card_text(c) for c in part) for part in (*self.columns, self.stock))

    @property
    def name(self) -> str:
        return str(self.code) if self.code is not None else str(self)
