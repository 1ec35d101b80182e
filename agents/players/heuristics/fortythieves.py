"""Forty Thieves heuristic agents: public information only, deterministic, no trivial cycles.

In Forty Thieves everything but the order of the stock is in sight, so an agent can keep an
exact copy of the position: :class:`_Replica` replays the actions of the public state through
the rules core (a :class:`~solitaire_env.fortythieves.game.FortyThievesGame` dealt from the
knowledge object's ``layout`` and ``stock``, the deal's columns and the stock cards already
seen, every drawn card being seen; the never-seen places hold the knowledge's
``unseen_cards`` in sorted order, and are never drawn).  Apart from the actions played, the
agents read nothing but ``state.knowledge``
(:class:`~solitaire_env.fortythieves.knowledge.FortyThievesKnowledge`) and that copy.
The copy gives the whole waste, the positions met since the last draw (the stock
position never goes back, so older positions cannot come again) and a way to try a move and
take it back (``play`` and ``undo``).  The rules are those of
:mod:`solitaire_env.fortythieves.rules` (``builds_on``, ``foundation_for``, ``is_safe``).

Every agent ranks the legal moves by its own idea, then plays the first one that does not lead
back to a position met since the last draw; a draw is always new.  So none of them moves a card
back and forth: only when every ranked move would repeat a position (the stock is out and
nothing new is left to try) does it repeat one, and the environment's repetition rule then ends
the episode.

- ``safe_foundation``: "safe foundation plays first": foundation moves (safe ones first: both
  copies of the rank below are founded), then the waste card onto a build, else draw.  It never
  rearranges the columns: a baseline.
- ``hint``: the hint's advice (:func:`solitaire_env.hints.fortythieves_advice`: safe
  foundation moves, other foundation moves, the waste onto a build, a column move that frees a
  card, draw).
- ``free_column``: "free a column": foundation moves, then the moves that shorten the shortest
  column (its top onto a build elsewhere) until it is empty, an empty column used to dig out the
  card a foundation wants next, the waste onto a build, then draw.
- ``evaluate``: foundation moves first, then the move, or the short line of moves that digs out
  a card a foundation wants ("free the card you need"), that raises a position score the most:
  founded cards, empty columns, cards on their natural parents, and a penalty for every card
  that lies on a card needed sooner, in the columns and in the waste ("avoid burying needed
  cards").  It draws when nothing raises the score.  See :class:`EvaluateAgent`.
- ``lookahead``: ``evaluate``'s score over every position the moves before the next draw reach
  (a breadth-first search of ``nodes`` positions, in numba): the first move towards the best,
  else draw.  See :class:`LookaheadAgent`.
"""

from __future__ import annotations

import dataclasses
import functools
from abc import abstractmethod
from typing import Any, cast

import numpy as np

from agents.base import Agent, PublicState
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    PARENT,
    SUIT_FOUNDATIONS,
    WASTE,
    FortyThievesRules,
    builds_on,
    foundation_card,
    foundation_for,
    is_safe,
)

__all__ = ["EvaluateAgent", "FreeColumnAgent", "HintAgent", "LookaheadAgent", "SafeFoundationAgent", "dig_lines"]


def _need(foundations: list[int] | tuple[int, ...], card: int) -> int:
    """How many cards of its suit must be founded before ``card`` can be (0: it can go now)."""
    below = card % 13
    return min((below - foundations[f] for f in SUIT_FOUNDATIONS[card // 13] if foundations[f] <= below), default=0)


@functools.lru_cache(maxsize=4096)
def _need_table(foundations: tuple[int, ...]) -> list[int]:
    """:func:`_need` of every card id at once (do not change the list: it is cached)."""
    table = [0] * 52
    for suit in range(4):
        a, b = (foundations[f] for f in SUIT_FOUNDATIONS[suit])
        lo, hi = min(a, b), max(a, b)
        for below in range(13):
            table[suit * 13 + below] = below - hi if below >= hi else (below - lo if below >= lo else 0)
    return table


def _key(game: FortyThievesGame) -> tuple[Any, ...]:
    """The position among those since the last draw (the waste only shrinks between draws)."""
    return (tuple(map(tuple, game.columns)), len(game.waste), tuple(game.foundations))


def _public_stock(k: FortyThievesKnowledge) -> tuple[int, ...]:
    """The stock of the copy: the cards seen in their places, the unseen ones sorted in the rest."""
    fill = iter(k.unseen_cards)
    return tuple(next(fill) if card is None else card for card in k.stock)


def _replica_game(k: FortyThievesKnowledge) -> FortyThievesGame:
    """The game of the knowledge's deal (the never-seen stock places hold the unseen cards in
    sorted order), without an undo limit, before its actions."""
    layout = k.layout
    columns = []
    for c in range(NUM_COLUMNS):
        col = []
        for card in layout[4 * c : 4 * c + 4]:
            assert card is not None  # Forty Thieves deals every column card face up
            col.append(card)
        columns.append(tuple(col))
    stock = _public_stock(k)
    rules: FortyThievesRules = k.rules
    if rules.undo_limit is not None:
        rules = dataclasses.replace(rules, undo_limit=None)
    return FortyThievesGame(FortyThievesDeal(tuple(columns), stock), rules, k.scoring)


class _Replica:
    """A copy of the public position kept in step with the actions of the public state, and
    the positions met since the last draw (the stock position never goes back, so older
    positions cannot come again).  Rebuilt from the deal whenever the actions are not a
    continuation of the last call's; when they draw cards seen since the copy was made, the
    copy takes them in their places (``with_stock``): always a function of the public state
    alone."""

    def __init__(self) -> None:
        self.game: FortyThievesGame | None = None
        self.layout: tuple[int | None, ...] = ()
        self.actions: tuple[int, ...] = ()
        self.seen: set[tuple[Any, ...]] = set()

    def sync(self, state: PublicState) -> FortyThievesGame:
        k = cast(FortyThievesKnowledge, state.knowledge)
        actions = state.actions
        n = len(self.actions)
        game = self.game
        if (
            game is None
            or len(actions) < n
            or actions[:n] != self.actions
            or k.layout != self.layout
            or k.stock[: game.stock_seen] != game.stock[: game.stock_seen]
        ):  # another game, or an earlier position of this one
            self.layout = k.layout
            game = self.game = _replica_game(k)
            self.seen = {_key(game)}
            n = 0
        elif not _draws_match(game, k, actions[n:].count(DRAW)):
            # cards seen since the copy was made: the same copy with them in their places
            game = self.game = game.with_stock(_public_stock(k))
        for action in actions[n:]:
            game.play(action)
            if action == DRAW:
                self.seen = set()
            self.seen.add(_key(game))
        self.actions = actions
        if tuple(game.foundations) != k.foundations or tuple(map(tuple, game.columns)) != k.columns:
            if n == 0:  # pragma: no cover - a bug if it happens
                raise AssertionError("the replayed position differs from the public state")
            self.game = None  # not this episode's position after all: replay from the deal
            return self.sync(state)
        return game

    def repeats(self, action: int) -> bool:
        """Whether ``action`` leads back to a position met since the last draw."""
        if action == DRAW:
            return False
        game = self.game
        assert game is not None
        game.play(action)
        again = _key(game) in self.seen
        game.undo()
        return again


def _draws_match(game: FortyThievesGame, k: FortyThievesKnowledge, draws: int) -> bool:
    """Whether the copy's next ``draws`` stock cards (and those drawn before) are the knowledge's."""
    end = game.stock_pos + draws
    return game.stock[:end] == k.stock[:end]


class _FortyThievesAgent(Agent):
    """A Forty Thieves heuristic: :meth:`rank` orders the moves worth playing; :meth:`act`
    plays the first that does not repeat a position since the last draw, else a draw; with the
    stock out and nothing new to play, a move back to a position already met (the game is stuck:
    the repetition rule ends it)."""

    games = ("fortythieves",)

    def __init__(self, game: Any, seed: int = 0) -> None:
        super().__init__(game, seed)
        self._replica = _Replica()

    def reset(self) -> None:
        self._replica = _Replica()

    def position(self, state: PublicState) -> FortyThievesGame:
        """The agent's copy of the public position of ``state`` (kept in step with its actions;
        the never-seen stock places hold the unseen cards in sorted order and are never drawn)."""
        return self._replica.sync(state)

    def repeats(self, action: int) -> bool:
        """Whether ``action`` leads back to a position met since the last draw (of the position
        of the last :meth:`position` or :meth:`act` call)."""
        return self._replica.repeats(action)

    def act(self, state: PublicState) -> int:
        pos = self._replica.sync(state)
        legal_moves = state.knowledge.legal
        legal = set(legal_moves)
        ranked = [a for a in self.rank(state, pos) if a in legal]
        for action in ranked:
            if not self._replica.repeats(action):
                return action
        if DRAW in legal:
            return DRAW
        # the stock is out and nothing this agent wants is new: the game is stuck.  Rather than
        # wander, go back to a position met before (the environment's repetition rule ends the
        # episode after a few such moves)
        fallback = ranked or list(legal_moves)
        for action in fallback:
            if self._replica.repeats(action):
                return action
        return fallback[0]

    @abstractmethod
    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        """The moves this agent wants to play, best first (may include illegal ones or the draw)."""


def _foundation_moves(pos: FortyThievesGame) -> list[int]:
    """Moves to a foundation: safe ones first, the waste before the columns, then the column
    whose next card is wanted soonest."""
    fnd = pos.foundations
    out = []
    for src in (WASTE, *range(NUM_COLUMNS)):
        pile = pos.waste if src == WASTE else pos.columns[src]
        if not pile or foundation_for(fnd, pile[-1]) is None:
            continue
        card = pile[-1]
        under = _need(fnd, pile[-2]) if len(pile) > 1 else -1
        out.append((not is_safe(fnd, card), src != WASTE, under, src))
    return [src * NUM_DESTS + FOUNDATION for *_, src in sorted(out)]


def _any_foundation_move(pos: FortyThievesGame) -> int | None:
    """A move to a foundation (the waste first, then the columns left to right), or ``None``."""
    for src in (WASTE, *range(NUM_COLUMNS)):
        card = pos.source_card(src)
        if card is not None and foundation_for(pos.foundations, card) is not None:
            return src * NUM_DESTS + FOUNDATION
    return None


def _waste_builds(pos: FortyThievesGame) -> list[int]:
    """The waste card onto a build (the longest column first)."""
    if not pos.waste:
        return []
    card = pos.waste[-1]
    cols = pos.columns
    dests = [j for j in range(NUM_COLUMNS) if cols[j] and builds_on(card, cols[j][-1])]
    dests.sort(key=lambda j: (-len(cols[j]), j))
    return [WASTE * NUM_DESTS + j for j in dests]


class SafeFoundationAgent(_FortyThievesAgent):
    """``safe_foundation``: foundation moves (safe first), the waste onto a build, else draw."""

    name = "safe_foundation"

    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        return [*_foundation_moves(pos), *_waste_builds(pos), DRAW]


class HintAgent(_FortyThievesAgent):
    """``hint``: the hint's public advice, then (when it would repeat a position) the draw."""

    name = "hint"

    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        k = cast(FortyThievesKnowledge, state.knowledge)
        advice = fortythieves_advice(k)
        return [] if advice is None else [advice]


class FreeColumnAgent(_FortyThievesAgent):
    """``free_column``: work towards empty columns and use them.

    Foundation moves first; then a column's top card onto a build elsewhere, the shortest
    column first (to empty it); then, with an empty column, a top card that covers a card a
    foundation wants now goes into it; then the waste onto a build; then draw.
    """

    name = "free_column"

    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        cols = pos.columns
        fnd = pos.foundations
        moves = _foundation_moves(pos)
        shorten = []
        for j in range(NUM_COLUMNS):
            col = cols[j]
            if not col or (len(col) > 1 and builds_on(col[-1], col[-2])):
                continue  # empty, or the top already sits on its natural parent
            for d in range(NUM_COLUMNS):
                if d != j and cols[d] and builds_on(col[-1], cols[d][-1]):
                    shorten.append((len(col), -len(cols[d]), j, d))
        moves += [j * NUM_DESTS + d for _, _, j, d in sorted(shorten)]
        empty = [j for j in range(NUM_COLUMNS) if not cols[j]]
        if empty:
            dig = []
            for j in range(NUM_COLUMNS):
                col = cols[j]
                if len(col) > 1 and not builds_on(col[-1], col[-2]):
                    dig.append((_need(fnd, col[-2]), len(col), j))
            dig.sort()
            moves += [j * NUM_DESTS + empty[0] for need, _, j in dig if need == 0]
        moves += _waste_builds(pos)
        moves.append(DRAW)
        return moves


class EvaluateAgent(_FortyThievesAgent):
    """``evaluate``: foundation moves first, then the move or short digging line that raises a
    position score the most; draw when nothing raises it.

    The score of a position: ``founded`` points per founded card, ``empty`` per empty column,
    ``run`` per card sitting on its natural parent (same suit, one rank higher: it follows that
    card to the foundation), minus, for every card lying on a card that is not its natural
    parent (in a column or in the waste), ``bury / (1 + need)`` (``waste`` in the waste), where
    ``need`` is the fewest cards that must be founded before some card under it can go ("avoid
    burying needed cards").

    Candidates: every legal column or waste move (a card never comes back from a foundation;
    of several empty columns only the first is tried), and the digging lines of
    :func:`dig_lines`: the cards (at most ``dig``) above a card a foundation wants, each moved
    onto its natural parent elsewhere or into an empty column ("free the card you need").  Each
    is played on the replica, followed by the foundation moves it opens (at most ``follow``),
    scored against the position's own score after its open foundation moves, and taken back.
    The agent plays the first move of the best candidate that gains more than ``margin``, else
    draws (like every agent here, it never plays a move back to a position met since the last
    draw).
    """

    name = "evaluate"

    def __init__(
        self,
        game: Any,
        seed: int = 0,
        *,
        founded: float = 10.0,
        empty: float = 3.0,
        run: float = 0.5,
        bury: float = 1.0,
        waste: float = 1.0,
        follow: int = 4,
        margin: float = 0.0,
        dig: int = 5,
    ) -> None:
        super().__init__(game, seed)
        self.w_founded = float(founded)
        self.w_empty = float(empty)
        self.w_run = float(run)
        self.w_bury = float(bury)
        self.w_waste = float(waste)
        self.follow = int(follow)
        self.margin = float(margin)
        self.dig = int(dig)

    def score(self, pos: FortyThievesGame) -> float:
        """The position score (see the class docstring)."""
        return self._walk(pos)[0]

    def score_parts(self, pos: FortyThievesGame) -> tuple[int, int, int, float, float]:
        """What the score counts: cards founded, empty columns, cards on their natural parent,
        and the burying penalties before their weights, ``sum 1 / (1 + need)`` over the cards
        lying on a card that is not their natural parent, in the columns and in the waste."""
        return self._walk(pos)[1]

    def _walk(self, pos: FortyThievesGame) -> tuple[float, tuple[int, int, int, float, float]]:
        """The score and its parts, from one pass over the piles (the score summed in the same
        order as ever, so that the agent's choices do not move by a rounding)."""
        fnd = pos.foundations
        need = _need_table(tuple(fnd))
        founded = sum(fnd)
        value = self.w_founded * founded
        run = self.w_run
        empty = runs = 0
        bury = waste = 0.0
        for j, pile in enumerate((*pos.columns, pos.waste)):
            if not pile:
                if j < NUM_COLUMNS:
                    value += self.w_empty
                    empty += 1
                continue
            in_column = j < NUM_COLUMNS
            weight = self.w_bury if in_column else self.w_waste
            low = 99
            below = pile[0]
            for card in pile[1:]:
                n = need[below]
                if n < low:
                    low = n
                if PARENT[card] == below:
                    value += run
                    runs += 1
                else:
                    value -= weight / (1 + low)
                    if in_column:
                        bury += 1.0 / (1 + low)
                    else:
                        waste += 1.0 / (1 + low)
                below = card
        return value, (founded, empty, runs, bury, waste)

    def after_walk(self, pos: FortyThievesGame, action: int | None) -> tuple[float, tuple[int, int, int, float, float]]:
        """The score and :meth:`score_parts` after ``action`` (``None``: no move) and the
        foundation moves it opens, at most ``follow`` (the position is restored)."""
        played = 0
        if action is not None:
            pos.play(action)
            played = 1
        for _ in range(self.follow):
            move = _any_foundation_move(pos)
            if move is None:
                break
            pos.play(move)
            played += 1
        walked = self._walk(pos)
        for _ in range(played):
            pos.undo()
        return walked

    def _after(self, pos: FortyThievesGame, action: int | None) -> float:
        """The score after ``action`` (``None``: no move) and the foundation moves it opens, at
        most ``follow`` (the position is restored)."""
        return self.after_walk(pos, action)[0]

    def _after_line(self, pos: FortyThievesGame, line: list[int]) -> float:
        """The score after the moves of ``line`` and the foundation moves they open."""
        for action in line[:-1]:
            pos.play(action)
        value = self._after(pos, line[-1])
        for _ in line[:-1]:
            pos.undo()
        return value

    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        found = _foundation_moves(pos)
        base = self._after(pos, None)
        scored = []
        empty = next((j for j in range(NUM_COLUMNS) if not pos.columns[j]), -1)
        for action in state.knowledge.legal:
            src, dst = divmod(action, NUM_DESTS)
            if action == DRAW or dst == FOUNDATION or src >= FIRST_FOUNDATION_SRC:
                continue  # foundation moves come first anyway; never take a card back
            if dst < NUM_COLUMNS and not pos.columns[dst] and dst != empty:
                continue  # the empty columns are all alike: try the first one only
            if self._replica.repeats(action):
                continue
            gain = self._after(pos, action) - base
            if gain > self.margin:
                scored.append((-gain, 1, action))
        if self.dig:
            for line in dig_lines(pos, self.dig):
                if len(line) > 1 and not self._replica.repeats(line[0]):
                    gain = self._after_line(pos, line) - base
                    if gain > self.margin:
                        scored.append((-gain, len(line), line[0]))
        scored.sort()
        return [*found, *(action for *_, action in scored), DRAW]


class LookaheadAgent(EvaluateAgent):
    """``lookahead``: the first move towards the best position reachable before the next draw.

    Nothing new is seen before the next draw, so every position the moves of this turn reach is
    known.  A breadth-first search over the solver's moves, the draw left out
    (:func:`~agents.players.heuristics.fortythieves_kernels.turn_search`, numba), enters at most
    ``nodes`` new positions, each once, and scores each by ``evaluate``'s position score (the
    same weights, as the same options); the agent plays the first move of the line to the best
    one (the first met among equals: the shorter line), and draws when none beats the position
    it is in by more than ``margin``.  With the stock out the same search runs over the endgame.
    It searches again at every move, never draws to look, and so never reads the stock's order.
    :meth:`plan` is the turn it would play (the ``planner``'s optional extra candidate).
    """

    name = "lookahead"

    def __init__(self, game: Any, seed: int = 0, *, nodes: int = 4000, **weights: Any) -> None:
        super().__init__(game, seed, **weights)
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise ValueError(f"nodes must be a whole number >= 1, got {nodes!r}")
        self.nodes = nodes
        self._arrays: Any = None  # the search arrays, made on first use
        self._values = np.zeros(NUM_ACTIONS, np.float64)
        #: :meth:`search` of the position of the last :meth:`act` call
        self.last_search: tuple[int | None, float, np.ndarray] | None = None
        self._weights = np.array([self.w_founded, self.w_empty, self.w_run, self.w_bury, self.w_waste], np.float64)

    def _make_arrays(self) -> None:
        """The search arrays and the calls of the two kernels on them (made on first use:
        numba is loaded then), which skip the dispatcher's typing of the search's NamedTuple."""
        from agents.players.heuristics.fortythieves_kernels import turn_search
        from solitaire_env.common.kernel_call import KernelCall
        from solitaire_env.fortythieves import search_kernels

        self._arrays = search_kernels.SearchArrays(4)
        self._derive = KernelCall(search_kernels.derive, 1)
        self._turn_search = KernelCall(turn_search, 1)

    def first_move(self, pos: FortyThievesGame) -> int | None:
        """The first move of the line to the best position before the next draw, ``None`` when
        none beats ``pos``'s own score by more than ``margin`` (the agent then draws)."""
        return self.search(pos)[0]

    def search(self, pos: FortyThievesGame) -> tuple[int | None, float, np.ndarray]:
        """The turn search from ``pos``: :meth:`first_move`, ``pos``'s own score, and for each
        action the best score the lines starting with it reach (``-inf`` for the draw and the
        moves the search did not try; the array is reused by the next call)."""
        from solitaire_env.fortythieves.solver import load_position

        if self._arrays is None:
            self._make_arrays()
        sa = self._arrays
        load_position(sa, pos)
        self._derive(sa.position)
        first, root = self._turn_search(
            sa.position, sa.scratch, pos.rules.foundation_return, self.nodes, self._weights, self.margin, self._values
        )
        return (int(first) if first >= 0 else None), float(root), self._values

    def plan(self, game: FortyThievesGame) -> tuple[int, ...]:
        """The agent's moves from ``game``'s position until it would draw (the turn it would
        play; :func:`~solitaire_env.fortythieves.planning.policy_plan`, ``game`` not changed)."""
        from solitaire_env.fortythieves.planning import policy_plan

        return policy_plan(game, self.first_move)

    def rank(self, state: PublicState, pos: FortyThievesGame) -> list[int]:
        self.last_search = self.search(pos)
        first = self.last_search[0]
        return [first, DRAW] if first is not None else [DRAW]


def dig_lines(pos: FortyThievesGame, depth: int) -> list[list[int]]:
    """Lines of moves that bring a card a foundation wants to the top of its column or of the
    waste, moving the (at most ``depth``) cards above it one by one onto their natural parents
    elsewhere or into empty columns ("free the card you need")."""
    wanted = set()
    for f in range(NUM_FOUNDATIONS):
        n = pos.foundations[f]
        if n < 13:
            wanted.add(foundation_card(f, n + 1))  # the card it takes next
    lines = []
    for src in (*range(NUM_COLUMNS), WASTE):
        pile = pos.columns[src] if src < NUM_COLUMNS else pos.waste
        for i in range(max(0, len(pile) - 1 - depth), len(pile) - 1):
            if pile[i] not in wanted:
                continue
            line: list[int] = []
            while len(pile) - 1 > i:
                card = pile[-1]
                dest = -1
                for d in range(NUM_COLUMNS):
                    col = pos.columns[d]
                    if d != src and col and col[-1] == PARENT[card]:
                        dest = d
                        break
                if dest < 0:
                    dest = next((d for d in range(NUM_COLUMNS) if d != src and not pos.columns[d]), -1)
                if dest < 0:
                    break
                action = src * NUM_DESTS + dest
                line.append(action)
                pos.play(action)
            if len(pile) - 1 == i:
                lines.append(line)
            for _ in line:
                pos.undo()
    return lines
