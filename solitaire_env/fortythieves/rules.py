"""Forty Thieves (Quarante Voleurs) tables, rule options and scoring.

Actions (``Discrete(210)``): ``src * 11 + dst`` with ``src`` 0-9 a column, 10 the waste,
11-18 a foundation (left to right) and ``dst`` 0-9 a column, 10 the foundations (the
leftmost foundation of the card's suit that accepts it); 209 draws.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

NUM_COLUMNS = 10
NUM_FOUNDATIONS = 8
WASTE = 10  # as a source
FOUNDATION = 10  # as a destination
FIRST_FOUNDATION_SRC = 11
NUM_SOURCES = 19
NUM_DESTS = 11
DRAW = NUM_SOURCES * NUM_DESTS  # 209
NUM_ACTIONS = DRAW + 1  # 210
#: Suit of each foundation, left to right: S H D C S H D C (suit indices of ``cards``: C0 D1 H2 S3).
FOUNDATION_SUITS = (3, 2, 1, 0, 3, 2, 1, 0)
#: Cards in a column at most: 4 dealt + a run down from a king to an ace on top of them.
MAX_COLUMN = 16
STOCK_SIZE = 64
TOTAL_CARDS = 104


def action_of(src: int, dst: int) -> int:
    """The action moving the top card of ``src`` to ``dst``."""
    if not (0 <= src < NUM_SOURCES and 0 <= dst < NUM_DESTS):
        raise ValueError(f"no move from source {src} to destination {dst}")
    return src * NUM_DESTS + dst


def split_action(action: int) -> tuple[int, int]:
    """``(src, dst)`` of a move action (not of the draw)."""
    return divmod(action, NUM_DESTS)


@dataclass(frozen=True)
class FortyThievesRules:
    """Rule options: ``foundation_return`` lets a foundation's top card go back to a column."""

    foundation_return: bool = True
    undo_limit: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.foundation_return, bool):
            raise ValueError(f"foundation_return must be True or False, got {self.foundation_return!r}")
        if self.undo_limit is not None and (
            isinstance(self.undo_limit, bool) or not isinstance(self.undo_limit, int) or self.undo_limit < 0
        ):
            raise ValueError(f"undo_limit must be None or a whole number >= 0, got {self.undo_limit!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FortyThievesScoring:
    """Points per kind of move (seed 004's app scoring by default), with a floor."""

    name: str = "app"
    start: int = 0
    floor: int | None = 0
    to_foundation: int = 10
    waste_to_column: int = 5
    foundation_to_column: int = -15
    column_to_column: int = 0
    draw: int = 0


APP_SCORING = FortyThievesScoring()


def get_scoring(scoring: str | FortyThievesScoring) -> FortyThievesScoring:
    if isinstance(scoring, FortyThievesScoring):
        return scoring
    if scoring == "app":
        return APP_SCORING
    raise ValueError(f"unknown Forty Thieves scoring {scoring!r}; want 'app' or a FortyThievesScoring")
