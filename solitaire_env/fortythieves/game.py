"""The Forty Thieves (Quarante Voleurs) rules core: legal moves, play, undo, counters.

Seed 004's rules: two decks; 10 columns of 4, all face up; a 64-card stock drawn one card
at a time onto the waste, one pass; 8 foundations with fixed suits S H D C S H D C, each
built from the ace up in its suit.  One card moves at a time: the top of a column, of the
waste, or (option ``foundation_return``) of a foundation, and only to a column.  On a
column a card goes on the next higher card of its suit; nothing goes on an ace; an empty
column takes any card.  Won when all 104 cards are on the foundations.

Moves are env actions (:mod:`solitaire_env.fortythieves.rules`): ``src * 11 + dst``, 209 draws.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from solitaire_env.common.bits import set_bits
from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import SplitMix64
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.knowledge import counters_of, fortythieves_knowledge
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    FOUNDATION_SUITS,
    MAX_COLUMN,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    NUM_SOURCES,
    PARENT,
    STOCK_SIZE,
    TOTAL_CARDS,
    WASTE,
    FortyThievesRules,
    FortyThievesScoring,
    column_refusal,
    foundation_card,
    foundation_for,
    get_scoring,
)

#: Reason codes of illegal moves and the message shown for each.
REASONS: dict[str, str] = {
    "wrong_suit": "a card goes on the next higher card of the same suit",
    "wrong_rank": "a card goes on a card exactly one rank higher",
    "onto_ace": "nothing can be placed on an ace",
    "foundation_order": "foundations are built up in suit from the ace",
    "nothing_to_move": "there is no card to move there",
    "same_place": "the card is already there",
    "return_not_allowed": "cards do not leave the foundations (foundation_return is off)",
    "stock_empty": "no cards left to draw",
    "game_over": "the game is over",
}

#: ``_NEXT[c]``: the card ``c`` goes on in a column (``rules.PARENT``), 52 for a king; the
#: legal mask reads the columns topped by it (``_topped[52]`` is never set).
_NEXT = PARENT
#: ``_TOPS[f][n]``: the top card of foundation ``f`` holding ``n`` cards (-1 for none).
_TOPS = tuple(tuple(foundation_card(f, n) if n else -1 for n in range(14)) for f in range(NUM_FOUNDATIONS))
_SHIFT = tuple(src * NUM_DESTS for src in range(19))
_TO_FOUNDATION = 1 << FOUNDATION
_DRAW_BIT = 1 << DRAW
_WASTE_SHIFT = WASTE * NUM_DESTS
#: Every bit of the legal mask but the waste's moves and the draw (what a draw cannot change).
_KEEP_ON_DRAW = ((1 << NUM_ACTIONS) - 1) & ~(((1 << NUM_DESTS) - 1) << _WASTE_SHIFT) & ~_DRAW_BIT


def _zobrist_keys(count: int, salt: int) -> list[int]:
    """``count`` fixed 64-bit keys from the package's SplitMix64 (the same in every process)."""
    rng = SplitMix64(salt)
    return [rng.next64() for _ in range(count)]


#: The Zobrist keys of :attr:`FortyThievesGame.position_hash` (public: the batch kernels hash
#: with the same numbers): a card at a depth of a column (``(column * MAX_COLUMN + depth) * 52 +
#: card``), at a place of the waste (``place * 52 + card``), a foundation height (``f * 14 + n``)
#: and the stock position.
ZOBRIST_COLUMN = _zobrist_keys(NUM_COLUMNS * MAX_COLUMN * 52, 0x46540001)
ZOBRIST_WASTE = _zobrist_keys(STOCK_SIZE * 52, 0x46540002)
ZOBRIST_FOUNDATION = _zobrist_keys(NUM_FOUNDATIONS * 14, 0x46540003)
ZOBRIST_STOCK = _zobrist_keys(STOCK_SIZE + 1, 0x46540004)
#: The hash of empty foundations and an undrawn stock (a new game adds its columns).
ZOBRIST_START = ZOBRIST_STOCK[0]
for _f in range(NUM_FOUNDATIONS):
    ZOBRIST_START ^= ZOBRIST_FOUNDATION[_f * 14]
_Z_COLUMN, _Z_WASTE, _Z_FOUNDATION, _Z_STOCK, _Z_START = (
    ZOBRIST_COLUMN,
    ZOBRIST_WASTE,
    ZOBRIST_FOUNDATION,
    ZOBRIST_STOCK,
    ZOBRIST_START,
)


class IllegalMoveError(ValueError):
    """Raised by :meth:`FortyThievesGame.play` for an illegal move (nothing was changed)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}: {REASONS[reason]}")
        self.reason = reason


def _place_name(index: int, as_dest: bool) -> str:
    if index < NUM_COLUMNS:
        return f"column {index + 1}"
    if as_dest:
        return "foundation"
    if index == WASTE:
        return "waste"
    return f"foundation {index - FIRST_FOUNDATION_SRC + 1}"


class FortyThievesGame:
    """One game of Forty Thieves from a deal.

    Public attributes (read them, do not write them): ``deal``, ``rules``, ``scoring``,
    ``columns`` (10 lists, bottom to top), ``waste`` (list, top last), ``stock`` (draw
    order), ``stock_pos`` (cards drawn), ``stock_seen`` (stock cards ever drawn),
    ``foundations`` (cards on each of the 8 foundations), ``score``, ``moves``, ``chain``
    (moves since the last draw) and ``longest_chain``.
    """

    REASONS = REASONS
    __slots__ = (
        "_accepts",
        "_empty",
        "_history",
        "_mask",
        "_return",
        "_stock_size",
        "_topped",
        "_tops",
        "chain",
        "changes",
        "columns",
        "deal",
        "foundations",
        "last_action",
        "longest_chain",
        "moves",
        "position_hash",
        "rules",
        "score",
        "scoring",
        "stock",
        "stock_pos",
        "stock_seen",
        "waste",
    )

    def __init__(
        self,
        deal: FortyThievesDeal,
        rules: FortyThievesRules | None = None,
        scoring: str | FortyThievesScoring = "app",
    ) -> None:
        self.deal = deal
        self.rules = rules if rules is not None else FortyThievesRules()
        self.scoring = get_scoring(scoring)
        self.columns: list[list[int]] = [list(col) for col in deal.columns]
        self.waste: list[int] = []
        self.stock: tuple[int, ...] = deal.stock
        self.stock_pos = 0
        self.stock_seen = 0
        self.foundations = [0] * NUM_FOUNDATIONS
        self.score = self.scoring.start
        self.moves = 0
        self.chain = 0
        self.longest_chain = 0
        limit = self.rules.undo_limit
        self._history: deque[tuple[int, ...]] | list[tuple[int, ...]] = [] if limit is None else deque(maxlen=limit)
        self._mask: int | None = None
        #: ``changes`` counts every change of the position (each move and each undo);
        #: ``last_action`` is the action of the last change when it was a move, else -1.
        #: Together they tell an observer exactly what changed since it last looked.
        self.changes = 0
        self.last_action = -1
        self._return = self.rules.foundation_return
        self._stock_size = len(self.stock)
        # _tops[p]: top card of pile p (sources 0..18: columns, waste, foundations), -1 if none;
        # _topped[c]: columns whose top is card c (index 52: none); _empty: empty columns
        self._tops = [-1] * NUM_SOURCES
        self._topped = [0] * 53
        self._empty = 0
        #: _accepts[c]: the foundation destination bit when some foundation takes card c next, else 0
        self._accepts = [_TO_FOUNDATION if c % 13 == 0 else 0 for c in range(52)]
        #: Zobrist hash of the position (columns, waste, foundations, stock position), kept up
        #: to date by every move: equal positions have equal hashes (and unequal ones collide
        #: with chance about 2**-64).
        z = _Z_START
        for j, col in enumerate(self.columns):
            if col:
                self._tops[j] = col[-1]
                self._topped[col[-1]] |= 1 << j
            else:
                self._empty |= 1 << j
            base = j * MAX_COLUMN * 52
            for depth, card in enumerate(col):
                z ^= _Z_COLUMN[base + depth * 52 + card]
        self.position_hash = z

    def _retop(self, p: int) -> None:
        """Update the top-card tables after pile ``p`` changed."""
        if p < NUM_COLUMNS:
            col = self.columns[p]
            new = col[-1] if col else -1
            old = self._tops[p]
            if old >= 0:
                self._topped[old] &= ~(1 << p)
            if new >= 0:
                self._topped[new] |= 1 << p
                self._empty &= ~(1 << p)
            else:
                self._empty |= 1 << p
        elif p == WASTE:
            new = self.waste[-1] if self.waste else -1
        else:
            f = p - FIRST_FOUNDATION_SRC
            n = self.foundations[f]
            new = _TOPS[f][n] if n else -1
            # the cards foundation f took next before (n - 1 or n + 1 cards) and takes now (n)
            fnd, base = self.foundations, FOUNDATION_SUITS[f] * 13
            for k in (n - 1, n, n + 1):
                if 0 <= k < 13:
                    self._accepts[base + k] = _TO_FOUNDATION if foundation_for(fnd, base + k) is not None else 0
        self._tops[p] = new

    # ------------------------------------------------------------------ queries

    @property
    def founded(self) -> int:
        """Cards on the foundations."""
        return sum(self.foundations)

    @property
    def progress(self) -> int:
        return sum(self.foundations)

    @property
    def stock_count(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def won(self) -> bool:
        return sum(self.foundations) == TOTAL_CARDS

    @property
    def over(self) -> bool:
        return not self.legal_mask()

    @property
    def all_known(self) -> bool:
        """Every card has been seen (the columns are face up; the whole stock was drawn once)."""
        return self.stock_seen == len(self.stock)

    def unseen_cards(self) -> list[int]:
        """Cards never seen yet: the stock cards never drawn."""
        return list(self.stock[self.stock_seen :])

    def foundation_top(self, f: int) -> int | None:
        n = self.foundations[f]
        return foundation_card(f, n) if n else None

    def source_card(self, src: int) -> int | None:
        """The card a move from ``src`` would take (column top, waste top, foundation top)."""
        if src < NUM_COLUMNS:
            col = self.columns[src]
            return col[-1] if col else None
        if src == WASTE:
            return self.waste[-1] if self.waste else None
        return self.foundation_top(src - FIRST_FOUNDATION_SRC)

    def foundation_for(self, card: int) -> int | None:
        """The leftmost foundation that accepts ``card``, or ``None`` (``rules.foundation_for``)."""
        return foundation_for(self.foundations, card)

    def legal_mask(self) -> int:
        """Bit mask over the 210 actions of the legal moves now; 0 exactly when the game is over."""
        if self._mask is not None:
            return self._mask
        fnd = self.foundations
        if sum(fnd) == TOTAL_CARDS:
            self._mask = 0
            return 0
        tops, topped, empty, accepts = self._tops, self._topped, self._empty, self._accepts
        bits = 0
        for src in range(NUM_COLUMNS + 1):  # columns and the waste
            c = tops[src]
            if c >= 0:
                # an empty column takes it (never its own: a column with a card is not empty),
                # so does a column topped by the next higher card of its suit, and a foundation
                bits |= (empty | topped[_NEXT[c]] | accepts[c]) << _SHIFT[src]
        if self._return and any(fnd):
            for src in range(FIRST_FOUNDATION_SRC, NUM_SOURCES):
                c = tops[src]
                if c >= 0:
                    bits |= (empty | topped[_NEXT[c]]) << _SHIFT[src]
        if self.stock_pos < self._stock_size:
            bits |= _DRAW_BIT
        self._mask = bits
        return bits

    def legal_actions(self) -> list[int]:
        """The legal actions now, ascending."""
        return set_bits(self.legal_mask())

    def illegal_reason(self, action: int) -> str | None:
        """The reason code why ``action`` is illegal now, or ``None`` if it is legal."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"Forty Thieves actions are 0..209, got {action!r}")
        if self.won:
            return "game_over"
        if action == DRAW:
            return None if self.stock_pos < len(self.stock) else "stock_empty"
        src, dst = divmod(action, NUM_DESTS)
        if src >= FIRST_FOUNDATION_SRC and not self.rules.foundation_return:
            return "return_not_allowed"
        card = self.source_card(src)
        if card is None:
            return "nothing_to_move"
        if dst == FOUNDATION:
            if src >= FIRST_FOUNDATION_SRC:
                return "same_place"
            return None if self.foundation_for(card) is not None else "foundation_order"
        if dst == src:
            return "same_place"
        col = self.columns[dst]
        return column_refusal(card, col[-1] if col else None)

    # ------------------------------------------------------------------ moves

    def try_play(self, action: int) -> str | None:
        """Play ``action`` if legal and return ``None``; else change nothing and return the reason."""
        mask = self._mask
        if mask is None:
            mask = self.legal_mask()
        if not (0 <= action < NUM_ACTIONS and mask >> action & 1):
            reason = self.illegal_reason(action)
            if reason is None:  # legal by the rules but not offered: the game is over
                reason = "game_over"
            return reason
        self._mask = None
        self.changes += 1
        self.last_action = action
        self.moves += 1
        scoring = self.scoring
        if action == DRAW:
            pos, waste = self.stock_pos, self.waste
            card = self.stock[pos]
            self._history.append((DRAW, -1, -1, self.score, self.chain, self.longest_chain, self.position_hash))
            self.position_hash ^= _Z_WASTE[len(waste) * 52 + card] ^ _Z_STOCK[pos] ^ _Z_STOCK[pos + 1]
            waste.append(card)
            self._tops[WASTE] = card
            self.stock_pos = pos = pos + 1
            if pos > self.stock_seen:
                self.stock_seen = pos
            self.chain = 0
            points = scoring.draw
            # a draw changes only the waste's moves and the draw: the mask follows without a full pass
            row = self._empty | self._topped[_NEXT[card]] | self._accepts[card]
            mask = (mask & _KEEP_ON_DRAW) | row << _WASTE_SHIFT
            self._mask = mask | _DRAW_BIT if pos < self._stock_size else mask
        else:
            points = self._move(action)
        score = self.score + points
        floor = scoring.floor
        self.score = floor if floor is not None and score < floor else score
        return None

    def _move(self, action: int) -> int:
        """Move a card (a legal move, not the draw); return its points.  The top-card tables of
        columns are updated here (the usual move), a foundation's by :meth:`_retop`."""
        scoring = self.scoring
        src, dst = divmod(action, NUM_DESTS)
        src_f = dst_f = -1
        z = z0 = self.position_hash
        tops, topped = self._tops, self._topped
        if src < NUM_COLUMNS:
            col = self.columns[src]
            card = col.pop()
            z ^= _Z_COLUMN[(src * MAX_COLUMN + len(col)) * 52 + card]
            bit = 1 << src
            topped[card] &= ~bit
            if col:
                tops[src] = top = col[-1]
                topped[top] |= bit
            else:
                tops[src] = -1
                self._empty |= bit
        elif src == WASTE:
            waste = self.waste
            card = waste.pop()
            z ^= _Z_WASTE[len(waste) * 52 + card]
            tops[WASTE] = waste[-1] if waste else -1
        else:
            src_f = src - FIRST_FOUNDATION_SRC
            n = self.foundations[src_f]
            card = foundation_card(src_f, n)
            self.foundations[src_f] = n - 1
            z ^= _Z_FOUNDATION[src_f * 14 + n] ^ _Z_FOUNDATION[src_f * 14 + n - 1]
            self._retop(src)
        if dst == FOUNDATION:
            dst_f = foundation_for(self.foundations, card)  # type: ignore[assignment]
            n = self.foundations[dst_f]
            self.foundations[dst_f] = n + 1
            z ^= _Z_FOUNDATION[dst_f * 14 + n] ^ _Z_FOUNDATION[dst_f * 14 + n + 1]
            self._retop(FIRST_FOUNDATION_SRC + dst_f)
            points = scoring.to_foundation
        else:
            col = self.columns[dst]
            z ^= _Z_COLUMN[(dst * MAX_COLUMN + len(col)) * 52 + card]
            col.append(card)
            bit = 1 << dst
            old = tops[dst]
            if old >= 0:
                topped[old] &= ~bit
            else:
                self._empty &= ~bit
            topped[card] |= bit
            tops[dst] = card
            if src == WASTE:
                points = scoring.waste_to_column
            elif src_f >= 0:
                points = scoring.foundation_to_column
            else:
                points = scoring.column_to_column
        self.position_hash = z
        chain = self.chain
        self._history.append((action, src_f, dst_f, self.score, chain, self.longest_chain, z0))
        self.chain = chain + 1
        if chain >= self.longest_chain:
            self.longest_chain = chain + 1
        return points

    def play(self, action: int) -> None:
        """Play a legal ``action``; raise :class:`IllegalMoveError` (changing nothing) otherwise."""
        reason = self.try_play(action)
        if reason is not None:
            raise IllegalMoveError(reason)

    def undo(self) -> bool:
        """Take back the last move or draw; ``False`` if there is none.  Restores the score,
        not the move counter; cards seen stay seen."""
        if not self._history:
            return False
        action, src_f, dst_f, self.score, self.chain, self.longest_chain, self.position_hash = self._history.pop()
        self._mask = None
        self.changes += 1
        self.last_action = -1
        if action == DRAW:
            self.waste.pop()
            self._retop(WASTE)
            self.stock_pos -= 1
            return True
        src, dst = divmod(action, NUM_DESTS)
        if dst == FOUNDATION:
            card = foundation_card(dst_f, self.foundations[dst_f])
            self.foundations[dst_f] -= 1
        else:
            card = self.columns[dst].pop()
        if src < NUM_COLUMNS:
            self.columns[src].append(card)
        elif src == WASTE:
            self.waste.append(card)
        else:
            self.foundations[src_f] += 1
        self._retop(src)
        self._retop(dst if dst_f < 0 else FIRST_FOUNDATION_SRC + dst_f)
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def copy(self) -> FortyThievesGame:
        """An independent copy (history included)."""
        other = object.__new__(FortyThievesGame)
        for name in FortyThievesGame.__slots__:
            setattr(other, name, getattr(self, name))
        other.columns = [list(col) for col in self.columns]
        other.waste = list(self.waste)
        other.foundations = list(self.foundations)
        other._history = self._history.copy()
        other._tops = list(self._tops)
        other._topped = list(self._topped)
        other._accepts = list(self._accepts)
        return other

    def with_stock(self, stock: tuple[int, ...] | list[int]) -> FortyThievesGame:
        """A copy of the game (history included) dealt with another order of the cards never
        seen: ``stock`` holds the same cards as the game's stock and the same first
        ``stock_seen`` (the cards ever drawn).  The position, counters and hash are the same;
        only the draws still to come differ (a determinization, or a public copy whose unseen
        places hold placeholders)."""
        stock = tuple(stock)
        seen = self.stock_seen
        if len(stock) != len(self.stock) or stock[:seen] != self.stock[:seen]:
            raise ValueError("with_stock: want the same number of cards and the cards already seen unchanged")
        other = self.copy()
        other.deal = FortyThievesDeal(self.deal.columns, stock)  # checks that the cards are the same
        other.stock = stock
        return other

    def state_dict(self) -> dict[str, Any]:
        """Every mutable part of the game (copies), e.g. to check that a move changed nothing."""
        return {
            "columns": [list(c) for c in self.columns],
            "waste": list(self.waste),
            "stock_pos": self.stock_pos,
            "stock_seen": self.stock_seen,
            "foundations": list(self.foundations),
            "score": self.score,
            "moves": self.moves,
            "chain": self.chain,
            "longest_chain": self.longest_chain,
            "history": list(self._history),
        }

    def position_key(self) -> tuple[Any, ...]:
        """A hashable key of the position (what matters for play: cards and stock position)."""
        return (tuple(map(tuple, self.columns)), tuple(self.waste), tuple(self.foundations), self.stock_pos)

    # ------------------------------------------------------------------ views

    def action_name(self, action: int) -> str:
        """An action in words: ``"move 7S from column 3 to column 5"``, ``"draw"``."""
        if action == DRAW:
            return "draw"
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"Forty Thieves actions are 0..209, got {action!r}")
        src, dst = divmod(action, NUM_DESTS)
        card = self.source_card(src)
        what = card_text(card) if card is not None else "the top card"
        return f"move {what} from {_place_name(src, False)} to {_place_name(dst, True)}"

    counters = counters_of  # a method: game.counters() is counters_of(game)

    def line_key(self) -> tuple[Any, ...]:
        """What a solver's line from here depends on: the rules, the stock's order and the
        position (its hash and the stock position)."""
        return (self.rules, self.stock, self.position_hash, self.stock_pos)

    def public_view(self) -> dict[str, Any]:
        """What the player sees, JSON-serialisable: ``columns`` (10 lists of card text, bottom
        to top), ``waste`` (list, top last), ``foundations`` (8 top cards or ``None``, with
        ``foundation_suits``), ``stock_count``, counters and the game status."""
        return fortythieves_knowledge(self).view()

    def __repr__(self) -> str:
        return f"FortyThievesGame({self.deal.name!r}, founded={self.founded}, stock={self.stock_count})"
