"""What a TriPeaks player knows: the public information of a position, as one typed object.

:class:`TriPeaksKnowledge` holds every public fact of a game and nothing else: the rules and
the scoring, the cards the player has seen where they were seen (``None`` / ``0`` where never
seen), what is face up and removed now, the waste top, the stock count, the counters, the
legal moves, and the cards never seen (as a multiset and as counts per rank).
:func:`tripeaks_knowledge` is the one place that copies these facts out of a
:class:`~solitaire_env.tripeaks.game.TriPeaksGame`.  The hint heuristic (:mod:`.advice`), the
agents' public state (``agents.base.PublicState``) and the agents' heuristics are made from it,
so none of them can read a hidden card; ``tests/test_knowledge.py`` checks that two games that
differ only in never-seen cards give equal knowledge, and that the observer shows what the
knowledge says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import JOKER, NUM_CARDS, card_text, rank_of
from solitaire_env.tripeaks.rules import ALL_SLOTS, NUM_ACTIONS, NUM_SLOTS, TriPeaksRules
from solitaire_env.tripeaks.scoring import TriPeaksScoring

if TYPE_CHECKING:
    from solitaire_env.tripeaks.game import TriPeaksGame

__all__ = ["TriPeaksKnowledge", "tripeaks_knowledge"]


class TriPeaksKnowledge(NamedTuple):
    """What a TriPeaks player knows: the public information of one position.

    The heuristics' inputs (the first fields, in rank form):

    - ``ranks[s]``: the rank (1..13) of slot ``s``'s card if the player has ever seen it (face up
      now, removed, or face up before an undo), else ``0`` (never seen: a placeholder).
    - ``removed``: removed slots (a bit mask).  ``key``: the waste top's rank, ``0`` when
      anything may be played on it (an empty waste or a joker).  ``stock_left``: cards left to
      draw.  ``unseen[r]``: how many cards of rank ``r`` were never seen (``r = 0``: jokers),
      counted from the seen cards (the deck is 4 of each rank plus the rule's jokers).
    - ``wrap``, ``when_stuck``: the K-A rule and ``draw == "when_stuck"``; ``won``.

    The same position in card form, and the rest of what is public:

    - ``rules``, ``scoring``: the game's rule options and scoring (frozen objects).
    - ``layout``: the 28 tableau cards in slot order, ``None`` where never seen.
    - ``stock``: the game's stock in draw order (with ``waste_start="empty"``: the deal's waste
      card first), ``None`` where never drawn.
    - ``first_waste``: with ``waste_start="card"`` the deal's waste card (face up from the
      start), else ``None``.
    - ``unseen_cards``: the cards never seen, sorted (the multiset behind ``unseen``).
    - ``face_up``: slots face up now (a bit mask; a card seen before an undo may be face down
      again); ``waste_top``: the waste's top card, ``None`` when the waste is empty.
    - ``legal_mask``: the rules core's legal moves (bit ``a`` for env action ``a``, 28 = draw).
    - ``score``, ``moves``, ``chain``, ``longest_chain``: the counters.
    """

    ranks: tuple[int, ...]
    removed: int
    key: int
    stock_left: int
    unseen: tuple[int, ...]
    wrap: bool
    when_stuck: bool
    won: bool
    rules: TriPeaksRules
    scoring: TriPeaksScoring
    layout: tuple[int | None, ...]
    stock: tuple[int | None, ...]
    first_waste: int | None
    unseen_cards: tuple[int, ...]
    face_up: int
    waste_top: int | None
    legal_mask: int
    score: int
    moves: int
    chain: int
    longest_chain: int

    @property
    def game(self) -> str:
        """The game's name (``agents.base.GameName``)."""
        return "tripeaks"

    @property
    def num_actions(self) -> int:
        """The number of env actions (the size of the legal mask)."""
        return NUM_ACTIONS

    @property
    def legal(self) -> tuple[int, ...]:
        """The legal env actions, ascending."""
        return tuple(set_bits(self.legal_mask))

    @property
    def all_known(self) -> bool:
        """Every card has been seen: a full-information position."""
        return not self.unseen_cards

    @property
    def cleared(self) -> int:
        return self.removed.bit_count()

    @property
    def over(self) -> bool:
        """Won, or no legal move left."""
        return self.legal_mask == 0

    def view(self) -> dict[str, Any]:
        """The dict the renderers draw: equal to ``game.public_view()`` (``tableau`` as card
        text, ``"??"`` face down, ``None`` removed; ``waste``; ``stock_count``; counters; status)."""
        tableau: list[str | None] = []
        for s, card in enumerate(self.layout):
            if self.removed >> s & 1:
                tableau.append(None)
            elif self.face_up >> s & 1 and card is not None:
                tableau.append(card_text(card))
            else:
                tableau.append("??")
        return {
            "game": "tripeaks",
            "tableau": tableau,
            "waste": None if self.waste_top is None else card_text(self.waste_top),
            "stock_count": self.stock_left,
            "score": self.score,
            "moves": self.moves,
            "cleared": self.cleared,
            "chain": self.chain,
            "longest_chain": self.longest_chain,
            "won": self.won,
            "over": self.over,
        }


def tripeaks_knowledge(game: TriPeaksGame) -> TriPeaksKnowledge:
    """The public copy of a TriPeaks game: the one place where public information is read.

    It reads a tableau card only where ``seen_slots`` says the player has seen it, a stock card
    only below ``stock_seen`` (drawn at least once), and otherwise only public state (removed
    and face-up slots, the waste top, the counters, the rules and the legal moves); the unseen
    cards are the deck less the seen ones.
    """
    seen = game.seen_slots
    tableau = game.tableau
    rules = game.rules
    layout = tuple(tableau[s] if seen >> s & 1 else None for s in range(NUM_SLOTS))
    stock_seen = game.stock_seen
    stock = game.stock
    first_waste = game.deal.waste if rules.waste_start == "card" else None
    seen_cards = game.seen_cards()
    # the unseen cards are the deck (52 cards and the rule's jokers) less the seen ones
    left = [1] * NUM_CARDS + [rules.jokers]
    counts = [rules.jokers] + [4] * 13
    for card in seen_cards:
        left[card] -= 1
        counts[0 if card == JOKER else rank_of(card)] -= 1
    unseen_cards = tuple(card for card in range(NUM_CARDS + 1) for _ in range(left[card]))
    top = game.waste_top
    return TriPeaksKnowledge(
        ranks=tuple(0 if card is None else rank_of(card) for card in layout),
        removed=game.removed,
        key=0 if top is None or top == JOKER else rank_of(top),
        stock_left=game.stock_count,
        unseen=tuple(counts),
        wrap=rules.wrap,
        when_stuck=rules.draw == "when_stuck",
        won=game.removed == ALL_SLOTS,
        rules=rules,
        scoring=game.scoring,
        layout=layout,
        stock=tuple(stock[:stock_seen]) + (None,) * (len(stock) - stock_seen),
        first_waste=first_waste,
        unseen_cards=unseen_cards,
        face_up=game.face_up,
        waste_top=top,
        legal_mask=game.legal_mask(),
        score=game.score,
        moves=game.moves,
        chain=game.chain,
        longest_chain=game.longest_chain,
    )
