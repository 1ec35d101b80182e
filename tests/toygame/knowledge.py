"""What a Toy player knows: the public facts of a position, copied out of the game by
:func:`toy_knowledge`, the one place that reads them (a card only once it has been seen)."""

from __future__ import annotations

from typing import Any, NamedTuple

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import card_text, rank_of
from toygame.game import ToyGame
from toygame.rules import DECK, NUM_ACTIONS, ToyRules


class ToyKnowledge(NamedTuple):
    """``piles``: each pile bottom to top, ``None`` for a card never seen; ``down``: the piles
    whose bottom card is face down now; ``waste``: top last; ``stock``: draw order, ``None`` for
    a card never seen; ``unseen_cards``: the cards never seen, sorted."""

    rules: ToyRules
    piles: tuple[tuple[int | None, ...], ...]
    down: int
    waste: tuple[int, ...]
    stock: tuple[int | None, ...]
    stacked: int
    redeals_left: int
    unseen_cards: tuple[int, ...]
    legal_mask: int
    score: int
    moves: int
    cleared: int
    chain: int
    longest_chain: int

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def legal(self) -> tuple[int, ...]:
        return tuple(set_bits(self.legal_mask))

    @property
    def all_known(self) -> bool:
        return not self.unseen_cards

    @property
    def won(self) -> bool:
        return self.stacked == len(DECK)

    @property
    def over(self) -> bool:
        return self.legal_mask == 0

    def view(self) -> dict[str, Any]:
        """What the renderers draw (``game.public_view()``): piles as card text (``"??"`` face
        down), the waste top, the stock count, the foundation top, counters and status."""
        piles = []
        for p, pile in enumerate(self.piles):
            shown = [card_text(c) if c is not None else "??" for c in pile]
            if self.down >> p & 1 and shown:
                shown[0] = "??"
            piles.append(shown)
        return {
            "game": "toy",
            "piles": piles,
            "waste": card_text(self.waste[-1]) if self.waste else None,
            "stock_count": len(self.stock),
            "foundation": card_text(DECK[self.stacked - 1]) if self.stacked else None,
            "redeals_left": self.redeals_left,
            "score": self.score,
            "moves": self.moves,
            "cleared": self.cleared,
            "stacked": self.stacked,
            "chain": self.chain,
            "longest_chain": self.longest_chain,
            "won": self.won,
            "over": self.over,
        }


def toy_knowledge(game: ToyGame) -> ToyKnowledge:
    """The public copy of ``game``: a card is read only where ``game.seen`` says it was seen."""

    def known(card: int) -> int | None:
        return card if game.seen >> rank_of(card) - 1 & 1 else None

    return ToyKnowledge(
        rules=game.rules,
        piles=tuple(tuple(known(c) for c in pile) for pile in game.piles),
        down=game.down,
        waste=tuple(game.waste),
        stock=tuple(known(c) for c in game.talon[game.pos :]),
        stacked=game.stacked,
        redeals_left=game.redeals_left,
        unseen_cards=tuple(sorted(c for c in DECK if not game.seen >> rank_of(c) - 1 & 1)),
        legal_mask=game.legal_mask(),
        score=game.score,
        moves=game.moves,
        cleared=game.cleared,
        chain=game.chain,
        longest_chain=game.longest_chain,
    )
