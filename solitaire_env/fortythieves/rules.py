"""Forty Thieves (Quarante Voleurs) tables, rule primitives, rule options and scoring.

Actions (``Discrete(210)``): ``src * 11 + dst`` with ``src`` 0-9 a column, 10 the waste,
11-18 a foundation (left to right) and ``dst`` 0-9 a column, 10 the foundations (the
leftmost foundation of the card's suit that accepts it); 209 draws.
"""

from __future__ import annotations

from collections.abc import Sequence
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


#: A card id that is no card (52): what a king builds on, an empty place in the tables below.
NO_CARD = 52
#: ``PARENT[c]``: the card ``c`` goes on in a column (same suit, one rank higher), ``NO_CARD``
#: for a king.  Nothing goes on an ace: no card is one rank lower than an ace of its suit.
PARENT = tuple(c + 1 if c % 13 != 12 else NO_CARD for c in range(52))
#: ``FIRST_FOUNDATION[c]``: the leftmost foundation of card ``c``'s suit; the other one is
#: ``PARTNER`` of it, 4 to its right.
FIRST_FOUNDATION = tuple(FOUNDATION_SUITS.index(c // 13) for c in range(52))
#: ``PARTNER[f]``: the other foundation of foundation ``f``'s suit.
PARTNER = tuple((f + 4) % NUM_FOUNDATIONS for f in range(NUM_FOUNDATIONS))
#: ``SUIT_FOUNDATIONS[s]``: the two foundations of suit ``s`` (card id // 13), left first.
SUIT_FOUNDATIONS = tuple((FOUNDATION_SUITS.index(s), FOUNDATION_SUITS.index(s) + 4) for s in range(4))
assert all(FOUNDATION_SUITS[f] == FOUNDATION_SUITS[PARTNER[f]] != FOUNDATION_SUITS[(f + 1) % 8] for f in range(8))


# ---------------------------------------------------------------------- the rule primitives
# The one pure-Python copy of each Forty Thieves rule; :mod:`solitaire_env.fortythieves.kernels`
# holds their numba twins (tests/fortythieves/test_fortythieves_kernels.py ties the two and the game).


def builds_on(card: int, top: int) -> bool:
    """``card`` may go on ``top`` in a column: same suit, one rank lower (nothing goes on an ace)."""
    return PARENT[card] == top


def column_accepts(card: int, top: int | None) -> bool:
    """A column whose top card is ``top`` (``None``: an empty column, which takes any card) takes ``card``."""
    return top is None or PARENT[card] == top


def column_refusal(card: int, top: int | None) -> str | None:
    """Why a column whose top is ``top`` (``None``: empty) refuses ``card``: ``"onto_ace"``,
    ``"wrong_suit"`` or ``"wrong_rank"`` (reason codes of the game), ``None`` when it takes it
    (exactly when :func:`column_accepts`)."""
    if top is None:
        return None
    if top % 13 == 0:
        return "onto_ace"
    if top // 13 != card // 13:
        return "wrong_suit"
    if top != card + 1:
        return "wrong_rank"
    return None


def foundation_for(foundations: Sequence[int], card: int) -> int | None:
    """The foundation that takes ``card`` (the leftmost of its suit whose height is the card's rank
    less one), or ``None``; ``foundations`` are the 8 heights, left to right."""
    f = FIRST_FOUNDATION[card]
    below = card % 13
    if foundations[f] == below:
        return f
    if foundations[f + 4] == below:
        return f + 4
    return None


def is_safe(foundations: Sequence[int], card: int) -> bool:
    """Founding ``card`` is safe: both copies of the rank below are founded (an ace always is).
    A safe card is always one a foundation takes."""
    f = FIRST_FOUNDATION[card]
    a, b = foundations[f], foundations[f + 4]
    return (a if a < b else b) == card % 13


def foundation_card(f: int, height: int) -> int:
    """The top card of foundation ``f`` holding ``height`` (>= 1) cards: what a return moves."""
    return FOUNDATION_SUITS[f] * 13 + height - 1


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
    """Points per kind of move (the app's scoring by default), with a floor."""

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
