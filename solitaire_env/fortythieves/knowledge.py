"""What a Forty Thieves player sees: the public information of a position, as one typed object.

:class:`FortyThievesKnowledge` is everything on the table but the order of the stock cards never
drawn (hidden): the rules and the scoring, the deal's columns (dealt face up), the columns, the
waste and the foundations now, the stock cards drawn so far in their places, the counters, the
legal moves and the cards never seen.  :func:`fortythieves_knowledge` is the one place that
copies it out of a :class:`~solitaire_env.fortythieves.game.FortyThievesGame`.  The hint
heuristic (:mod:`.advice`), the agents' public state (``agents.base.PublicState``) and the
agents' heuristics are made from it; ``tests/test_knowledge.py`` checks that games that differ
only in never-drawn stock cards give equal knowledge, and that the observer shows what the
knowledge says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import NUM_CARDS, card_text
from solitaire_env.fortythieves.rules import (
    FOUNDATION_SUITS,
    NUM_ACTIONS,
    TOTAL_CARDS,
    FortyThievesRules,
    FortyThievesScoring,
    foundation_card,
)

if TYPE_CHECKING:
    from solitaire_env.fortythieves.game import FortyThievesGame

__all__ = ["FortyThievesKnowledge", "fortythieves_knowledge"]


class Counted(Protocol):
    """What :func:`counters_of` reads: a game, or its knowledge."""

    @property
    def score(self) -> int: ...
    @property
    def moves(self) -> int: ...
    @property
    def foundations(self) -> Sequence[int]: ...
    @property
    def chain(self) -> int: ...
    @property
    def longest_chain(self) -> int: ...


def counters_of(position: Counted) -> dict[str, int]:
    """The counters of a position as the info and the view show them (the cards founded also
    as ``cleared``, the name both games share): ``FortyThievesGame.counters`` itself, and what
    the knowledge's view shows."""
    founded = sum(position.foundations)
    return {
        "score": position.score,
        "moves": position.moves,
        "cleared": founded,
        "founded": founded,
        "chain": position.chain,
        "longest_chain": position.longest_chain,
    }


class FortyThievesKnowledge(NamedTuple):
    """What a Forty Thieves player sees: the public information of one position.

    - ``columns`` (bottom to top), ``waste_top`` (``None`` if the waste is empty),
      ``foundations`` (the 8 heights, S H D C S H D C), ``stock_left`` (cards left to draw),
      ``foundation_return`` (the rule), ``won``, and ``legal_mask``: the rules core's legal
      moves (bit ``a`` for env action ``a``: a function of the public position).
    - ``rules``, ``scoring``: the game's rule options and scoring (frozen objects).
    - ``dealt``: the deal's columns (bottom to top; all dealt face up).
    - ``drawn``: the stock cards drawn at least once, in draw order; ``stock_size``: how many
      cards the stock was dealt.  (``stock`` and ``unseen_cards`` are made from them.)
    - ``waste``: the whole waste, bottom first (every waste card is in sight).
    - ``score``, ``moves``, ``chain``, ``longest_chain``: the counters.

    Derived (properties): ``layout`` (the 40 dealt column cards, column by column, never
    ``None``), ``stock`` (draw order, ``None`` where never drawn), ``unseen_cards`` (the cards
    never seen, sorted: the two decks less every card seen), ``legal``, ``all_known``,
    ``founded``, ``over`` and :meth:`view`.
    """

    columns: tuple[tuple[int, ...], ...]
    waste_top: int | None
    foundations: tuple[int, ...]
    stock_left: int
    foundation_return: bool
    won: bool
    legal_mask: int
    rules: FortyThievesRules
    scoring: FortyThievesScoring
    dealt: tuple[tuple[int, ...], ...]
    drawn: tuple[int, ...]
    stock_size: int
    waste: tuple[int, ...]
    score: int
    moves: int
    chain: int
    longest_chain: int

    @property
    def game(self) -> str:
        """The game's name (``agents.base.GameName``)."""
        return "fortythieves"

    @property
    def num_actions(self) -> int:
        """The number of env actions (the size of the legal mask)."""
        return NUM_ACTIONS

    @property
    def first_waste(self) -> None:
        """Forty Thieves deals no waste card (``TriPeaksKnowledge.first_waste``'s counterpart)."""
        return None

    @property
    def layout(self) -> tuple[int | None, ...]:
        """The deal's 40 column cards, column by column, bottom to top."""
        return sum(self.dealt, ())

    @property
    def stock(self) -> tuple[int | None, ...]:
        """The stock in draw order, ``None`` where never drawn."""
        drawn = self.drawn
        return drawn + (None,) * (self.stock_size - len(drawn))

    @property
    def unseen_cards(self) -> tuple[int, ...]:
        """The cards never seen, sorted: two of each card id less the dealt and drawn cards."""
        counts = [2] * NUM_CARDS
        for col in self.dealt:
            for card in col:
                counts[card] -= 1
        for card in self.drawn:
            counts[card] -= 1
        return tuple(card for card in range(NUM_CARDS) for _ in range(counts[card]))

    @property
    def legal(self) -> tuple[int, ...]:
        """The legal env actions, ascending."""
        return tuple(set_bits(self.legal_mask))

    @property
    def all_known(self) -> bool:
        """Every card has been seen (the whole stock was drawn once)."""
        return not self.unseen_cards

    @property
    def founded(self) -> int:
        return sum(self.foundations)

    @property
    def over(self) -> bool:
        """Won, or no legal move left."""
        return self.legal_mask == 0

    def view(self) -> dict[str, Any]:
        """The dict the renderers draw: equal to ``game.public_view()``."""
        return {
            "game": "fortythieves",
            "columns": [[card_text(c) for c in col] for col in self.columns],
            "waste": [card_text(c) for c in self.waste],
            "foundations": [card_text(foundation_card(f, n)) if n else None for f, n in enumerate(self.foundations)],
            "foundation_suits": ["CDHS"[s] for s in FOUNDATION_SUITS],
            "stock_count": self.stock_left,
            **counters_of(self),
            "won": self.won,
            "over": self.over,
        }


def fortythieves_knowledge(game: FortyThievesGame) -> FortyThievesKnowledge:
    """The public copy of a Forty Thieves game (it reads a stock card only below ``stock_seen``)."""
    waste = game.waste
    foundations = tuple(game.foundations)
    return FortyThievesKnowledge(
        columns=tuple(map(tuple, game.columns)),
        waste_top=waste[-1] if waste else None,
        foundations=foundations,
        stock_left=game.stock_count,
        foundation_return=game.rules.foundation_return,
        won=sum(foundations) == TOTAL_CARDS,
        legal_mask=game.legal_mask(),
        rules=game.rules,
        scoring=game.scoring,
        dealt=game.deal.columns,
        drawn=game.stock[: game.stock_seen],
        stock_size=len(game.stock),
        waste=tuple(waste),
        score=game.score,
        moves=game.moves,
        chain=game.chain,
        longest_chain=game.longest_chain,
    )
