"""The numba twins of the Forty Thieves rule primitives: the only numba copy of the rules.

Each function here is the compiled twin of one pure-Python primitive of
:mod:`solitaire_env.fortythieves.rules` (same name, same meaning, arrays for tuples and -1 for
``None``), built from the same tables; the batch kernels
(:mod:`solitaire_env.fortythieves.batch_kernels`) import them, as a numba solver would.
``tests/fortythieves/test_fortythieves_kernels.py`` checks every one against its Python twin and against the
rules core (:class:`~solitaire_env.fortythieves.game.FortyThievesGame`) on thousands of
positions from random play.

- :func:`builds_on`, :func:`foundation_for`, :func:`is_safe`, :func:`foundation_card`: as in
  ``rules``; ``heights`` is a 1-D array of the 8 foundation heights (a row of a state array).
- :func:`source_dests`: the legal destinations of one source's top card, as the 11 bits of its
  row of the action mask (``src * 11 + dst``): what ``FortyThievesGame.legal_mask`` computes
  for that source.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solitaire_env.fortythieves.rules import (
    FIRST_FOUNDATION,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    FOUNDATION_SUITS,
    NUM_FOUNDATIONS,
    PARENT,
)

#: The tables of ``rules`` as arrays (numba freezes module-level arrays as constants).
PARENT_ARRAY = np.array(PARENT, dtype=np.int64)
FIRST_FOUNDATION_ARRAY = np.array(FIRST_FOUNDATION, dtype=np.int64)
FOUNDATION_SUITS_ARRAY = np.array(FOUNDATION_SUITS, dtype=np.int64)
#: The foundation destination's bit in a source's row of the mask.
TO_FOUNDATION_BIT = 1 << FOUNDATION
_OTHER = NUM_FOUNDATIONS // 2  # the other foundation of a suit is this far to the right


@njit(cache=True, inline="always")
def builds_on(card: int, top: int) -> bool:
    """``rules.builds_on``: ``card`` goes on ``top`` in a column (same suit, one rank lower)."""
    return PARENT_ARRAY[card] == top


@njit(cache=True, inline="always")
def foundation_for(heights: np.ndarray, card: int) -> int:
    """``rules.foundation_for``: the leftmost foundation that takes ``card``, -1 for none."""
    f = FIRST_FOUNDATION_ARRAY[card]
    below = card % 13
    if heights[f] == below:
        return f
    if heights[f + _OTHER] == below:
        return f + _OTHER
    return -1


@njit(cache=True, inline="always")
def is_safe(heights: np.ndarray, card: int) -> bool:
    """``rules.is_safe``: both copies of the rank below ``card`` are founded (aces always)."""
    f = FIRST_FOUNDATION_ARRAY[card]
    a = heights[f]
    b = heights[f + _OTHER]
    return (a if a < b else b) == card % 13


@njit(cache=True, inline="always")
def foundation_card(f: int, height: int) -> int:
    """``rules.foundation_card``: the top card of foundation ``f`` holding ``height`` >= 1 cards."""
    return FOUNDATION_SUITS_ARRAY[f] * 13 + height - 1


@njit(cache=True, inline="always")
def source_dests(src: int, card: int, empty: int, parent_columns: int, heights: np.ndarray) -> int:
    """The legal destinations (11 bits: columns 0-9, bit 10 the foundations) of the top card
    ``card`` of source ``src``, given the bit mask of the empty columns and of the columns whose
    top is ``card``'s parent (``PARENT_ARRAY[card]``): an empty column takes any card, a column
    topped by its parent takes it, a foundation takes it from a column or the waste only.
    (A column never offers a move to itself: it is not empty and its top is not its parent.)
    Whether a foundation may give its card back at all (``foundation_return``) is the caller's."""
    d = empty | parent_columns
    if src < FIRST_FOUNDATION_SRC and foundation_for(heights, card) >= 0:
        d |= TO_FOUNDATION_BIT
    return d


#: Codes of :func:`column_refusal` (0: the column takes the card), the names being the game's
#: reason codes.
REFUSALS = ("", "wrong_suit", "wrong_rank", "onto_ace")
REFUSE_WRONG_SUIT, REFUSE_WRONG_RANK, REFUSE_ONTO_ACE = 1, 2, 3


@njit(cache=True, inline="always")
def column_refusal(card: int, top: int) -> int:
    """``rules.column_refusal`` as a code of :data:`REFUSALS`; ``top`` -1 for an empty column."""
    if top < 0:
        return 0
    if top % 13 == 0:
        return REFUSE_ONTO_ACE
    if top // 13 != card // 13:
        return REFUSE_WRONG_SUIT
    if top != card + 1:
        return REFUSE_WRONG_RANK
    return 0
