"""What a TriPeaks player knows: the public information of a position, as one typed object.

:class:`TriPeaksKnowledge` holds the seen facts of a game and nothing else (every never-seen card is
a placeholder, ``0``); :func:`tripeaks_knowledge` is the one place that copies them out of a
:class:`~solitaire_env.tripeaks.game.TriPeaksGame`.  The hint heuristic (:mod:`.advice`) and the
agents' public inputs are made from it, so they cannot read a hidden card.
"""

from __future__ import annotations

from dataclasses import dataclass

from solitaire_env.common.cards import JOKER, rank_of
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import NUM_SLOTS

__all__ = ["TriPeaksKnowledge", "tripeaks_knowledge"]


@dataclass(frozen=True)
class TriPeaksKnowledge:
    """What a TriPeaks player knows: the only input of the TriPeaks heuristic.

    ``ranks[s]``: the rank (1..13) of slot ``s``'s card if the player has ever seen it (face up
    now, removed, or face up before an undo), else ``0`` (never seen: a placeholder).
    ``removed``: removed slots.  ``key``: the waste top's rank, ``0`` when anything may be
    played on it (an empty waste or a joker).  ``stock_left``: cards left to draw.
    ``unseen[r]``: how many cards of rank ``r`` were never seen (``r = 0``: jokers), counted
    from the seen cards (the deck is 4 of each rank plus the rule's jokers).
    """

    ranks: tuple[int, ...]
    removed: int
    key: int
    stock_left: int
    unseen: tuple[int, ...]
    wrap: bool
    when_stuck: bool
    won: bool


def tripeaks_knowledge(game: TriPeaksGame) -> TriPeaksKnowledge:
    """The public copy of a TriPeaks game: the one place where the heuristic touches the game.

    It reads a tableau card only where ``seen_slots`` says the player has seen it, and
    otherwise only public state (removed slots, the waste top, the stock count, the rules and
    the list of seen cards).
    """
    seen = game.seen_slots
    ranks = tuple(rank_of(game.tableau[s]) if seen >> s & 1 else 0 for s in range(NUM_SLOTS))
    counts = [game.rules.jokers] + [4] * 13
    for card in game.seen_cards():
        counts[0 if card == JOKER else rank_of(card)] -= 1
    top = game.waste_top
    return TriPeaksKnowledge(
        ranks=ranks,
        removed=game.removed,
        key=0 if top is None or top == JOKER else rank_of(top),
        stock_left=game.stock_count,
        unseen=tuple(counts),
        wrap=game.rules.wrap,
        when_stuck=game.rules.draw == "when_stuck",
        won=game.won,
    )
