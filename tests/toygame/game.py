"""The Toy rules core: legal moves, play, undo, counters (see :mod:`toygame.rules`)."""

from __future__ import annotations

from typing import Any

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import card_text, rank_of
from toygame.deal import ToyDeal
from toygame.rules import (
    ALL_PILES,
    ALL_RANKS,
    CARD_POINTS,
    DRAW,
    DRAW_POINTS,
    NUM_ACTIONS,
    NUM_PILES,
    NUM_RANKS,
    REDEAL,
    REDEAL_POINTS,
    WASTE,
    ToyRules,
)

REASONS: dict[str, str] = {
    "game_over": "the game is over",
    "empty_pile": "this pile is empty",
    "empty_waste": "the waste is empty",
    "not_next": "the foundation takes the next rank only",
    "stock_left": "the stock still has cards: a redeal waits until it is empty",
    "no_redeal": "no redeal is left",
    "stock_empty": "no cards left to draw",
}

_STATE = ("piles", "down", "talon", "pos", "redeals_left", "stacked", "score", "chain", "longest_chain", "cleared")


class ToyGame:
    """One Toy game.  ``piles`` (bottom to top), ``down`` (bit p: pile p's bottom card is face
    down), ``talon`` (the stock and waste cards: ``talon[:pos]`` is the waste, top last, and
    ``talon[pos:]`` the stock in draw order), ``stacked`` (cards on the foundation), ``seen``
    (bit r-1: the card of rank r has been seen)."""

    REASONS = REASONS

    def __init__(self, deal: ToyDeal, rules: ToyRules | None = None) -> None:
        self.deal = deal
        self.rules = rules if rules is not None else ToyRules()
        self.piles = [list(p) for p in deal.piles]
        self.down = ALL_PILES
        self.talon = list(deal.stock)
        self.pos = 0
        self.redeals_left = self.rules.redeals
        self.stacked = self.score = self.moves = self.chain = self.longest_chain = self.cleared = 0
        self.seen = 0
        for pile in self.piles:
            self.seen |= 1 << rank_of(pile[-1]) - 1
        self._history: list[tuple[Any, ...]] = []

    # ------------------------------------------------------------------ queries

    @property
    def waste(self) -> list[int]:
        return self.talon[: self.pos]

    @property
    def waste_top(self) -> int | None:
        return self.talon[self.pos - 1] if self.pos else None

    @property
    def stock_count(self) -> int:
        return len(self.talon) - self.pos

    @property
    def progress(self) -> int:
        return self.stacked

    @property
    def won(self) -> bool:
        return self.stacked == NUM_RANKS

    @property
    def over(self) -> bool:
        return self.legal_mask() == 0

    @property
    def all_known(self) -> bool:
        return self.seen == ALL_RANKS

    def legal_mask(self) -> int:
        if self.stacked == NUM_RANKS:
            return 0
        want = self.stacked + 1
        bits = sum(1 << p for p, pile in enumerate(self.piles) if pile and rank_of(pile[-1]) == want)
        if self.pos and rank_of(self.talon[self.pos - 1]) == want:
            bits |= 1 << WASTE
        if self.pos and self.pos == len(self.talon) and self.redeals_left:
            bits |= 1 << REDEAL
        if self.pos < len(self.talon):
            bits |= 1 << DRAW
        return bits

    def legal_actions(self) -> list[int]:
        return set_bits(self.legal_mask())

    def illegal_reason(self, action: int) -> str | None:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"Toy actions are 0..{NUM_ACTIONS - 1}, got {action!r}")
        if self.legal_mask() >> action & 1:
            return None
        if self.over:
            return "game_over"
        if action == DRAW:
            return "stock_empty"
        if action == REDEAL:
            return "no_redeal" if not self.redeals_left else "stock_left" if self.stock_count else "empty_waste"
        if action == WASTE and not self.pos:
            return "empty_waste"
        if action < NUM_PILES and not self.piles[action]:
            return "empty_pile"
        return "not_next"

    def unseen_cards(self) -> list[int]:
        return [c for p in self.piles for c in p if not self.seen >> rank_of(c) - 1 & 1] + [
            c for c in self.talon if not self.seen >> rank_of(c) - 1 & 1
        ]

    # ------------------------------------------------------------------ moves

    def try_play(self, action: int) -> str | None:
        """Play ``action`` if legal and return ``None``; else change nothing and return the reason."""
        reason = self.illegal_reason(action)
        if reason is not None:
            return reason
        self._history.append(self._snapshot())
        self.moves += 1
        if action == DRAW:
            self.seen |= 1 << rank_of(self.talon[self.pos]) - 1
            self.pos += 1
            self.chain = 0
            self.score += DRAW_POINTS
            return None
        if action == REDEAL:
            self.pos = 0
            self.redeals_left -= 1
            self.chain = 0
            self.score += REDEAL_POINTS
            return None
        if action == WASTE:
            self.pos -= 1
            self.talon.pop(self.pos)
        else:
            pile = self.piles[action]
            pile.pop()
            self.cleared += 1
            if pile and self.down >> action & 1:
                self.down &= ~(1 << action)
                self.seen |= 1 << rank_of(pile[-1]) - 1
        self.stacked += 1
        self.chain += 1
        self.longest_chain = max(self.longest_chain, self.chain)
        self.score += CARD_POINTS
        return None

    def play(self, action: int) -> None:
        reason = self.try_play(action)
        if reason is not None:
            raise ValueError(f"{reason}: {REASONS[reason]}")

    def _snapshot(self) -> tuple[Any, ...]:
        """The mutable state (:data:`_STATE`), its lists copied."""
        values = [getattr(self, k) for k in _STATE]
        return ([list(p) for p in self.piles], values[1], list(self.talon), *values[3:])

    def undo(self) -> bool:
        """Take back the last move (what was seen stays seen, the move counter stays)."""
        if not self._history:
            return False
        state = self._history.pop()
        for name, value in zip(_STATE, state):
            setattr(self, name, value)
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def state_dict(self) -> dict[str, Any]:
        out = dict(zip(_STATE, self._snapshot()))
        out.update(moves=self.moves, seen=self.seen, _history=list(self._history))
        return out

    def copy(self) -> ToyGame:
        other = object.__new__(ToyGame)
        other.__dict__.update(self.__dict__)
        other.piles = [list(p) for p in self.piles]
        other.talon = list(self.talon)
        other._history = list(self._history)
        return other

    # ------------------------------------------------------------------ views

    def action_name(self, action: int) -> str:
        """``"stack 3S from pile 2"``, ``"stack 5S from the waste"``, ``"redeal"``, ``"draw"``."""
        if action == DRAW:
            return "draw"
        if action == REDEAL:
            return "redeal"
        if action == WASTE:
            top = self.waste_top
            return f"stack {'--' if top is None else card_text(top)} from the waste"
        if not 0 <= action < NUM_PILES:
            raise ValueError(f"Toy actions are 0..{NUM_ACTIONS - 1}, got {action!r}")
        pile = self.piles[action]
        return f"stack {card_text(pile[-1]) if pile else '--'} from pile {action + 1}"

    def counters(self) -> dict[str, int]:
        return {
            "score": self.score,
            "moves": self.moves,
            "cleared": self.cleared,
            "chain": self.chain,
            "longest_chain": self.longest_chain,
            "stacked": self.stacked,
        }

    def public_view(self) -> dict[str, Any]:
        from toygame.knowledge import toy_knowledge

        return toy_knowledge(self).view()

    def __repr__(self) -> str:
        return f"ToyGame({self.deal.name!r}, stacked={self.stacked}, stock={self.stock_count})"
