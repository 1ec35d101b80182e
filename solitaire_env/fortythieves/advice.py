"""The Forty Thieves hint heuristic: a move from what the player sees (a :class:`FortyThievesKnowledge`).

* Forty Thieves: a safe foundation move (both copies of the rank below are founded), else any
  foundation move, else the waste card onto a build, else a column move that frees a card (the
  card under it is not its natural parent, or its column empties), else a draw; with the stock
  empty, the waste card to an empty column; and when none of these is legal, any legal move
  (a last resort, so that a move is named whenever one exists).

The rules are those of :mod:`solitaire_env.fortythieves.rules` (``builds_on``, ``foundation_for``,
``is_safe``); the legal moves those of the rules core (the knowledge's ``legal_mask``).
"""

from __future__ import annotations

from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.fortythieves.rules import (
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    WASTE,
    builds_on,
    foundation_for,
    is_safe,
)

__all__ = ["fortythieves_advice"]


def _ft_foundation_ok(k: FortyThievesKnowledge, card: int) -> bool:
    return foundation_for(k.foundations, card) is not None


def fortythieves_advice(k: FortyThievesKnowledge) -> int | None:
    """The heuristic move from a Forty Thieves knowledge (see the module docstring); ``None``
    when the game is won or no move is legal.  It reads nothing but ``k``."""
    if k.won:
        return None
    cols = k.columns
    empty = [j for j in range(NUM_COLUMNS) if not cols[j]]

    def under_key(j: int) -> tuple[int, int]:
        """How good uncovering column ``j``'s second card is (smaller is better)."""
        col = cols[j]
        if len(col) < 2:
            return (1, 0)  # the column empties
        under = col[-2]
        return (0 if _ft_foundation_ok(k, under) else 2, under % 13)

    # 1-2. foundation moves: safe ones first, the waste before the columns
    sources = ([WASTE] if k.waste_top is not None else []) + [j for j in range(NUM_COLUMNS) if cols[j]]
    founding = []
    for src in sources:
        card = k.waste_top if src == WASTE else cols[src][-1]
        assert card is not None
        if _ft_foundation_ok(k, card):
            order = (0, 0, 0) if src == WASTE else (0, *under_key(src))
            founding.append((not is_safe(k.foundations, card), *order, src))
    if founding:
        return min(founding)[-1] * NUM_DESTS + FOUNDATION
    # 3. the waste card onto a build (the longest column first)
    if k.waste_top is not None:
        builds = [j for j in range(NUM_COLUMNS) if cols[j] and builds_on(k.waste_top, cols[j][-1])]
        if builds:
            return WASTE * NUM_DESTS + max(builds, key=lambda j: (len(cols[j]), -j))
    # 4. a column move that frees a card
    freeing = []
    for j in range(NUM_COLUMNS):
        col = cols[j]
        if not col:
            continue
        card = col[-1]
        natural = len(col) > 1 and builds_on(card, col[-2])
        if natural:
            continue  # moving it only swaps one build for another
        for d in range(NUM_COLUMNS):
            if d != j and cols[d] and builds_on(card, cols[d][-1]):
                freeing.append((under_key(j), -len(cols[d]), j, d))
        if empty and len(col) > 1 and _ft_foundation_ok(k, col[-2]):
            freeing.append(((0, col[-2] % 13), 1, j, empty[0]))  # to an empty column, to found the card under
    if freeing:
        _, _, src, dst = min(freeing)
        return src * NUM_DESTS + dst
    # 5. draw
    if k.stock_left:
        return FT_DRAW
    # the stock is out: the waste card into an empty column brings the next waste card up
    if k.waste_top is not None and empty:
        return WASTE * NUM_DESTS + empty[0]
    # nothing that makes progress: any legal move still is one (a card to an empty column,
    # onto another build, then back from a foundation), so that a move is named while one exists
    rest = _ft_other_moves(k)
    return rest[0] if rest else None


def _ft_other_moves(k: FortyThievesKnowledge) -> list[int]:
    """The legal moves (of ``k.legal_mask``, the rules core's) the steps above never suggest, in
    the order of a last resort: a column card that is not on its natural parent to an empty
    column; a card off its natural parent (onto another build or an empty column); a
    foundation card back down; a lone card to another empty column (each kind in action
    order).  Once the stock is out these can cycle: an agent playing :func:`public_move` needs
    a step limit (the envs have one)."""
    cols = k.columns
    to_empty: list[int] = []
    onto: list[int] = []
    back: list[int] = []
    alone: list[int] = []
    m = k.legal_mask & ~(1 << FT_DRAW)
    while m:
        low = m & -m
        m ^= low
        action = low.bit_length() - 1
        src, dst = divmod(action, NUM_DESTS)
        if src == WASTE or dst == FOUNDATION:
            continue  # the steps above see to the waste and the foundations
        if src >= FIRST_FOUNDATION_SRC:
            back.append(action)
            continue
        col = cols[src]
        if cols[dst]:
            onto.append(action)
        elif len(col) == 1:
            alone.append(action)
        elif builds_on(col[-1], col[-2]):
            onto.append(action)  # it only breaks a build: as pointless as a swap
        else:
            to_empty.append(action)
    return to_empty + onto + back + alone
