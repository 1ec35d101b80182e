"""The TriPeaks rules core: legal moves, play, undo, counters and knowledge of seen cards.

A :class:`TriPeaksGame` is the one place where the rules (docs/tripeaks_rules.md) live; the
environment, the solver, the hints, the agents and the CLI all play through it.  Moves
are env actions: ``0..27`` removes the card in that slot, ``28`` (:data:`DRAW`) draws.

State is kept in bit masks over the 28 slots (``removed``, ``exposed``, ``face_up``), a
stock position and the waste pile, so that a move costs a handful of integer operations.
An illegal move changes nothing and is reported by a stable reason code (:data:`REASONS`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import DealStringError
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.knowledge import tripeaks_knowledge
from solitaire_env.tripeaks.rules import (
    ALL_SLOTS,
    BOTTOM_MASK,
    CARD_KEYS,
    DRAW,
    GROUP_OF,
    NUM_ACTIONS,
    NUM_SLOTS,
    PEAK_GROUP_MASKS,
    TriPeaksRules,
    accept_masks,
    card_key,
    legal_bits,
    newly_exposed,
)
from solitaire_env.tripeaks.scoring import TriPeaksScoring, get_scoring

#: Reason codes of illegal moves and the message shown for each.
REASONS: dict[str, str] = {
    "not_adjacent": "rank must be one higher or lower",
    "covered": "this card is still covered",
    "face_down": "this card is still face down",
    "removed": "this card has already been removed",
    "stock_empty": "no cards left to draw",
    "draw_not_allowed": "a card can still be removed; draw only when stuck",
    "game_over": "the game is over",
}


class IllegalMoveError(ValueError):
    """Raised by :meth:`TriPeaksGame.play` for an illegal move (nothing was changed)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}: {REASONS[reason]}")
        self.reason = reason


class TriPeaksGame:
    """One game of TriPeaks from a deal, under rule options and a scoring.

    Public attributes (read them, do not write them): ``deal``, ``rules``, ``scoring``,
    ``tableau`` (card of each slot), ``stock`` (draw order), ``removed``, ``exposed`` and
    ``face_up`` (slot bit masks), ``stock_pos`` (cards drawn), ``waste`` (list, top last),
    ``score``, ``moves``, ``chain``, ``longest_chain``, ``apexes_removed``,
    ``seen_slots`` (slots ever face up) and ``stock_seen`` (stock cards ever drawn).
    """

    REASONS = REASONS
    __slots__ = (
        "_accept",
        "_history",
        "_key",
        "_legal",
        "_when_stuck",
        "apexes_removed",
        "chain",
        "deal",
        "exposed",
        "face_up",
        "longest_chain",
        "moves",
        "removed",
        "rules",
        "score",
        "scoring",
        "seen_slots",
        "stock",
        "stock_pos",
        "stock_seen",
        "tableau",
        "waste",
    )

    def __init__(
        self,
        deal: TriPeaksDeal,
        rules: TriPeaksRules | None = None,
        scoring: str | TriPeaksScoring = "app",
    ) -> None:
        rules = rules if rules is not None else TriPeaksRules()
        if deal.jokers != rules.jokers:
            raise DealStringError(f"the deal has {deal.jokers} joker(s) but the rules ask for {rules.jokers}")
        self.deal = deal
        self.rules = rules
        self.scoring = get_scoring(scoring)
        self.tableau: tuple[int, ...] = deal.tableau
        if rules.waste_start == "card":
            first_waste = [deal.waste]
            self.stock: tuple[int, ...] = deal.stock
        else:
            first_waste = []
            self.stock = (deal.waste, *deal.stock)
        # accept[k]: slots playable on a waste key k (0 = empty waste or joker, else its rank)
        self._accept = list(accept_masks([CARD_KEYS[card] for card in self.tableau], rules.wrap))  # no joker there
        self._when_stuck = rules.draw == "when_stuck"
        self.removed = 0
        self.exposed = BOTTOM_MASK
        self.face_up = ALL_SLOTS if rules.faces == "open" else BOTTOM_MASK
        self.stock_pos = 0
        self.waste: list[int] = first_waste
        self._key = self._waste_key()
        self.score = self.scoring.start
        self.moves = 0
        self.chain = 0
        self.longest_chain = 0
        self.apexes_removed = 0
        self.seen_slots = self.face_up
        self.stock_seen = 0
        limit = rules.undo_limit
        self._history: deque[tuple[int, ...]] | list[tuple[int, ...]] = [] if limit is None else deque(maxlen=limit)
        self._legal = self._legal_now()

    # ------------------------------------------------------------------ queries

    def _waste_key(self) -> int:
        return card_key(self.waste[-1] if self.waste else None)

    @property
    def waste_key(self) -> int:
        """What may be played on the waste: the rank of its top card (1-13), or 0 when any card
        may (an empty waste, or a joker on top)."""
        return self._key

    @property
    def waste_top(self) -> int | None:
        return self.waste[-1] if self.waste else None

    @property
    def stock_count(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def cleared(self) -> int:
        return self.removed.bit_count()

    @property
    def progress(self) -> int:
        """Cards cleared (the ``progress`` reward counts these)."""
        return self.removed.bit_count()

    @property
    def won(self) -> bool:
        return self.removed == ALL_SLOTS

    def removable(self) -> int:
        """Bit mask of the slots whose card can be removed now."""
        return self.exposed & self._accept[self._key]

    @property
    def lost(self) -> bool:
        return self.removed != ALL_SLOTS and self.legal_mask() == 0

    @property
    def over(self) -> bool:
        """Won, or no legal move left (the stock is empty and no removal is legal)."""
        return self.legal_mask() == 0

    def legal_mask(self) -> int:
        """Bit mask over the 29 actions (bit 28 = draw) of the legal moves now."""
        return self._legal

    def _legal_now(self) -> int:
        """The legal mask of the position (:func:`legal_bits`); the game keeps it in ``_legal``,
        made anew after every move and undo, so that a query and a legality check cost nothing."""
        removable = self.exposed & self._accept[self._key]
        return legal_bits(self.removed, removable, len(self.stock) - self.stock_pos, self._when_stuck)

    def legal_actions(self) -> list[int]:
        """The legal actions now, ascending."""
        return set_bits(self.legal_mask())

    def illegal_reason(self, action: int) -> str | None:
        """The reason code why ``action`` is illegal now, or ``None`` if it is legal."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"TriPeaks actions are 0..28, got {action!r}")
        if self.over:
            return "game_over"
        if action == DRAW:
            if self.stock_pos == len(self.stock):
                return "stock_empty"
            if self._when_stuck and self.exposed & self._accept[self._key]:
                return "draw_not_allowed"
            return None
        bit = 1 << action
        if self.removed & bit:
            return "removed"
        if not self.face_up & bit:
            return "face_down"
        if not self.exposed & bit:
            return "covered"
        if not self._accept[self._key] & bit:
            return "not_adjacent"
        return None

    @property
    def all_known(self) -> bool:
        """Every card has been seen at least once (all 28 slots and the whole stock)."""
        return self.seen_slots == ALL_SLOTS and self.stock_seen == len(self.stock)

    def seen_cards(self) -> list[int]:
        """Every card the player has seen so far (face up now or before an undo), as a list."""
        seen = [c for s, c in enumerate(self.tableau) if self.seen_slots >> s & 1]
        seen.extend(self.stock[: self.stock_seen])
        if self.rules.waste_start == "card":
            seen.append(self.deal.waste)
        return seen

    def unseen_cards(self) -> list[int]:
        """Cards never seen yet (face-down slots never turned and stock cards never drawn)."""
        unseen = [c for s, c in enumerate(self.tableau) if not self.seen_slots >> s & 1]
        unseen.extend(self.stock[self.stock_seen :])
        return unseen

    # ------------------------------------------------------------------ moves

    def try_play(self, action: int) -> str | None:
        """Play ``action`` if legal and return ``None``; else change nothing and return the reason."""
        if not (0 <= action < NUM_ACTIONS and self._legal >> action & 1):
            # the slow path finds the reason (or raises for an action out of range)
            reason = self.illegal_reason(action)
            assert reason is not None
            return reason
        self._history.append(
            (
                self.removed,
                self.exposed,
                self.face_up,
                self.stock_pos,
                self.chain,
                self.longest_chain,
                self.apexes_removed,
                self.score,
            )
        )
        self.moves += 1
        scoring = self.scoring
        if action == DRAW:
            card = self.stock[self.stock_pos]
            self.stock_pos += 1
            if self.stock_pos > self.stock_seen:
                self.stock_seen = self.stock_pos
            self.chain = 0
            points = scoring.draw()
        else:
            bit = 1 << action
            removed = self.removed | bit
            self.removed = removed
            turned = newly_exposed(removed, action)
            self.exposed = (self.exposed & ~bit) | turned
            self.face_up |= turned
            self.seen_slots |= turned
            card = self.tableau[action]
            self.chain += 1
            if self.chain > self.longest_chain:
                self.longest_chain = self.chain
            apex = 0
            if action < 3:
                self.apexes_removed += 1
                apex = self.apexes_removed
            group = PEAK_GROUP_MASKS[GROUP_OF[action]]
            points = scoring.removal(self.chain, apex, removed & group == group, removed == ALL_SLOTS)
        self.waste.append(card)
        self._key = key = CARD_KEYS[card]
        self._legal = legal_bits(
            self.removed, self.exposed & self._accept[key], len(self.stock) - self.stock_pos, self._when_stuck
        )
        score = self.score + points
        floor = scoring.floor
        self.score = floor if floor is not None and score < floor else score
        return None

    def play(self, action: int) -> None:
        """Play a legal ``action``; raise :class:`IllegalMoveError` (changing nothing) otherwise."""
        reason = self.try_play(action)
        if reason is not None:
            raise IllegalMoveError(reason)

    def undo(self) -> bool:
        """Take back the last move (removal or draw); ``False`` if there is none to take back.

        Cards the move turned face up are turned face down again, and score, chain and
        longest chain are restored; the move counter and what was seen are kept.
        """
        if not self._history:
            return False
        (
            self.removed,
            self.exposed,
            self.face_up,
            self.stock_pos,
            self.chain,
            self.longest_chain,
            self.apexes_removed,
            self.score,
        ) = self._history.pop()
        self.waste.pop()
        self._key = self._waste_key()
        self._legal = self._legal_now()
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def state_dict(self) -> dict[str, Any]:
        """Every mutable part of the game (copies), e.g. to check that a move changed nothing."""
        out = {name: getattr(self, name) for name in TriPeaksGame.__slots__ if name not in ("deal", "rules", "scoring")}
        out["waste"] = list(self.waste)
        out["_history"] = list(self._history)
        out["_accept"] = list(self._accept)
        return out

    def copy(self) -> TriPeaksGame:
        """An independent copy (history included)."""
        other = object.__new__(TriPeaksGame)
        for name in TriPeaksGame.__slots__:
            setattr(other, name, getattr(self, name))
        other.waste = list(self.waste)
        other._history = self._history.copy()
        return other

    # ------------------------------------------------------------------ views

    def action_name(self, action: int) -> str:
        """An action in words: ``"remove 7S (slot 13)"``, ``"draw"``."""
        if action == DRAW:
            return "draw"
        if not 0 <= action < NUM_SLOTS:
            raise ValueError(f"TriPeaks actions are 0..28, got {action!r}")
        card = card_text(self.tableau[action]) if self.face_up >> action & 1 else "??"
        return f"remove {card} (slot {action})"

    def counters(self) -> dict[str, int]:
        return {
            "score": self.score,
            "moves": self.moves,
            "cleared": self.removed.bit_count(),
            "chain": self.chain,
            "longest_chain": self.longest_chain,
        }

    def line_key(self) -> tuple[Any, ...]:
        """What a solver's line from here depends on: the rules, the deal's cards (stock order
        included) and the position."""
        return (self.rules, self.tableau, self.stock, self.removed, self.stock_pos, self.waste_key)

    def public_view(self) -> dict[str, Any]:
        """What the player sees, JSON-serialisable: ``tableau`` (card text, ``"??"`` face
        down, ``None`` removed), ``waste`` (top card or ``None``), ``stock_count``, counters
        and the game status."""
        return tripeaks_knowledge(self).view()

    def __repr__(self) -> str:
        return f"TriPeaksGame({self.deal.name!r}, cleared={self.cleared}, stock={self.stock_count}, score={self.score})"
