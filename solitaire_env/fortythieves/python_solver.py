"""The pure-Python Forty Thieves solver: an exhaustive depth-first search, then a beam over the draws.

This was the package's solver until the numba one (:mod:`solitaire_env.fortythieves.solver`);
it stays as the baseline of the solver benchmark (``solitaire-env bench``), as an independent
witness of wins in the tests, and as the Python twin of the numba search's move order
(:func:`ordered_moves`, which ``search_kernels.ordered_moves`` must equal move for move).

The solver is an oracle: it reads the stock order.  It searches from the game's current
position (on a copy: the game passed in is never changed) and answers with a
:class:`~solitaire_env.common.result.SolveResult`:

- ``solved``: ``line`` wins when replayed with ``try_play`` from the position;
- ``unsolvable``: the depth-first search below went through every position reachable from the
  position (up to its sound prunings) and none is won.  Only an exhausted search says this,
  never a spent budget;
- ``intractable``: the node budget ran out first.  ``line`` is then the line to the position with
  the most cards founded seen during the search and ``best`` that count.

``nodes`` counts the positions expanded (their moves generated), in both phases.

Phase 1: depth-first search (a tenth of the budget)
---------------------------------------------------
Iterative (an explicit stack: lines run to hundreds of moves), playing moves with ``try_play``
and taking them back with ``undo`` (exact).  A set of the keys of every position reached is the
transposition table: a position already reached is never expanded again.  That is the cycle
handling: moving cards back and forth only leads to positions already seen.  The key
(:func:`_canonical_key`) is a hash of the position that ignores the order of the columns and of
a suit's two foundations, so that positions which play the same are searched once (the game's
``position_hash`` tells them apart).

Prunings (each keeps a win reachable when one exists, so an exhausted search proves a loss;
the proofs take a winning line with the fewest foundation returns, then the fewest moves, and
show that the pruned search still reaches a position with a shorter such line):

1. *Safe foundation moves are forced.*  A card ``(s, r)`` founded onto a foundation of height
   ``r - 1`` while the other foundation of suit ``s`` also holds at least ``r - 1`` cards (both
   copies of ``(s, r - 1)`` are founded; aces always) is played as the only move of its
   position.  Play the winning line after it, skipping the card's own moves: the card stays
   "virtually" where the line has it.  That can only fail where the line puts a ``(s, r - 1)``
   on the card, or founds or returns cards of suit ``s`` up to rank ``r`` in a way the extra
   founded card forbids; each of these needs a *dominated return* (below) first.
2. *Dominated returns are never played*: a foundation's top card ``(s, r)`` does not go back to
   a column while the other foundation of suit ``s`` holds at least ``r - 1`` cards.  Skipping
   the last such return of a winning line (keeping the card virtually in its column) gives a
   winning line with fewer returns, by the argument of 1.
3. *Symmetric and composite moves*: a card alone in its column never moves to an empty column
   (the same position with two columns swapped); a card goes to the first empty column only
   (the others give the same position up to the order of the columns); the card moved last is
   not moved again at once (the two moves make one move that was possible before them).

Move order (after a forced move): other foundation moves (waste first), a column's last card
onto a build (the column empties), waste to a build, a card that is not on its own next higher
card onto a build, the draw; then the moves that only shuffle: waste or column card to an empty
column, a card from its own next higher card onto the other copy, foundation returns.  Within a
kind, moves that uncover a card that can be founded, or a lower card, come first.

Phase 2: beam search over the draws (the rest of the budget)
-------------------------------------------------------------
A depth-first search spends its budget at the end of the stock, where the columns can be
shuffled in a great many ways, and never gets back to the early choices.  The beam keeps, after
each draw, the ``width`` best positions: from each, a small depth-first search with the same
moves (no draw, at most ``_LOCAL_NODES`` positions, ``_END_NODES`` once the stock is empty)
lists the positions reachable before the next draw; all of them are scored, the best ``width``
distinct ones draw the next card.  Score: 100 per card founded, -60 per *blocker* (a card in a
column or the waste above a lower card of its suit, which has to move before that card can be
founded), +30 per empty column, -2 per waste card.  The first beam is as wide as the budget
left allows (about ``_NODES_PER_WIDTH`` nodes per unit of width), each next one twice as wide,
until one wins or the budget is spent.  The beam never proves a loss.

How often it solves a deal, and at what cost: README, "Solvability" (``scripts/ft_solvability.py``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from solitaire_env.common.result import SolveResult, Status
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    PARTNER,
    TOTAL_CARDS,
    WASTE,
    foundation_card,
    is_safe,
)

__all__ = ["DEFAULT_MAX_NODES", "ordered_moves", "solve_fortythieves_python"]

#: Node budget of :func:`solve_fortythieves` when none is given.
DEFAULT_MAX_NODES = 20_000

_TOTAL = TOTAL_CARDS
#: ``last`` of :func:`ordered_moves` for a card just founded: ``_FOUNDED + card``.
_FOUNDED = 100

#: Suit and rank (0 = ace) of each card id.
_SUIT = tuple(c // 13 for c in range(52))
_RANK = tuple(c % 13 for c in range(52))
#: Share of the budget for the exhaustive depth-first search (phase 1), and its floor.
_DFS_SHARE = 10
_DFS_MIN = 1_000
#: Beam: narrowest width, positions searched between two draws per beam position and after
#: the last draw, nodes a beam costs per unit of width (about; to size the first beam).
_BEAM_WIDTH = 4
_LOCAL_NODES = 50
_END_NODES = 500
_NODES_PER_WIDTH = 1500
#: Beam score weights.
_W_FOUNDED = 100
_W_BLOCKER = 60
_W_EMPTY = 30
_W_WASTE = 2


def ordered_moves(game: FortyThievesGame, last: int) -> list[int]:
    """The moves the search tries from the game's position, best first (the draw included),
    without the pruned ones (see the module docstring); a single safe foundation move when there
    is one.  ``last`` says where the card moved last lies: its column (0-9), ``100 + card`` on a
    foundation, -1 for none (or after a draw)."""
    mask = game.legal_mask()
    columns = game.columns
    fnd = game.foundations
    first_empty = -1
    for j in range(NUM_COLUMNS):
        if not columns[j]:
            first_empty = j
            break
    keyed: list[tuple[int, int]] = []
    m = mask & ~(1 << DRAW)
    while m:
        low = m & -m
        action = low.bit_length() - 1
        m ^= low
        src, dst = divmod(action, NUM_DESTS)
        if src >= FIRST_FOUNDATION_SRC:  # a foundation's top back to a column
            f = src - FIRST_FOUNDATION_SRC
            n = fnd[f]
            if fnd[PARTNER[f]] >= n - 1:
                continue  # dominated return: founding the card again would be a safe move
            if not columns[dst] and dst != first_empty:
                continue
            if foundation_card(f, n) == last - _FOUNDED:
                continue  # the card just founded (or its twin on the other foundation)
            keyed.append((1000 + n, action))
            continue
        if src == WASTE:
            card = game.waste[-1]
        else:
            col = columns[src]
            card = col[-1]
        if src == last:
            continue  # the card just moved there
        if dst == FOUNDATION:
            if is_safe(fnd, card):
                return [action]  # safe: forced
            if src == WASTE:
                keyed.append((100, action))
            else:
                keyed.append((110 + _uncover_key(game, col), action))
            continue
        empty_dst = not columns[dst]
        if empty_dst and dst != first_empty:
            continue
        if src == WASTE:
            keyed.append((600 if empty_dst else 300, action))
            continue
        if len(col) == 1:
            if empty_dst:
                continue  # a lone card to an empty column: the same position
            keyed.append((200, action))
            continue
        # (not quite ``builds_on``: a king on the next suit's ace counts too; kept, as the search
        # order, and so the node counts, depend on it)
        natural = col[-2] == card + 1
        if empty_dst:
            keyed.append((800 if natural else 700 + _uncover_key(game, col), action))
        elif natural:
            keyed.append((900 + _uncover_key(game, col), action))
        else:
            keyed.append((400 + _uncover_key(game, col), action))
    if mask >> DRAW & 1:
        keyed.append((500, DRAW))
    keyed.sort()
    return [a for _, a in keyed]


def _uncover_key(game: FortyThievesGame, col: list[int]) -> int:
    """How good the card under the top of ``col`` is to uncover: 0 when it can be founded, else
    1 + its rank (lower ranks are needed sooner)."""
    if len(col) < 2:
        return 0  # the column empties
    under = col[-2]
    if game.foundation_for(under) is not None:
        return 0
    return 1 + under % 13


def _moved_to(game: FortyThievesGame, action: int) -> int:
    """Where the card ``action`` moves will lie (the ``last`` of :func:`ordered_moves`); call it before
    playing ``action``."""
    if action == DRAW:
        return -1
    src, dst = divmod(action, NUM_DESTS)
    if dst != FOUNDATION:
        return dst
    card = game.source_card(src)
    return -1 if card is None else _FOUNDED + card


def _score(game: FortyThievesGame) -> int:
    """The beam's score of a position (higher is better)."""
    blockers = 0
    empty = 0
    for pile in (*game.columns, game.waste):
        if len(pile) < 2:
            if not pile:
                empty += 1
            continue
        lowest = [13, 13, 13, 13]  # lowest rank of each suit seen so far, from the bottom
        for c in pile:
            s = _SUIT[c]
            r = _RANK[c]
            if lowest[s] < r:
                blockers += 1
            else:
                lowest[s] = r
    if not game.waste:
        empty -= 1
    return _W_FOUNDED * sum(game.foundations) - _W_BLOCKER * blockers + _W_EMPTY * empty - _W_WASTE * len(game.waste)


def _canonical_key(game: FortyThievesGame) -> int:
    """A hash of the position that ignores the order of the columns and of the two foundations
    of a suit (such positions play the same)."""
    f = game.foundations
    return hash(
        (
            tuple(sorted(map(tuple, game.columns))),
            tuple(game.waste),
            game.stock_pos,
            *sorted((f[0], f[4])),
            *sorted((f[1], f[5])),
            *sorted((f[2], f[6])),
            *sorted((f[3], f[7])),
        )
    )


@dataclass
class _Best:
    """The line to the most cards founded seen so far."""

    founded: int
    line: tuple[int, ...] = ()

    def offer(self, founded: int, prefix: tuple[int, ...], path: list[int]) -> None:
        self.founded = founded
        self.line = prefix + tuple(path)


def _search(
    game: FortyThievesGame,
    limit: int,
    best: _Best,
    *,
    prefix: tuple[int, ...] = (),
    draws: bool = True,
    collect: list[tuple[int, tuple[int, ...]]] | None = None,
) -> tuple[Status, tuple[int, ...], int]:
    """Depth-first search from ``game`` (left as it was) over at most ``limit`` expanded positions.

    Returns ``(status, winning line or (), nodes)``: ``solved``; ``unsolvable`` when every
    position reachable (without drawing if ``draws`` is false) was searched; ``intractable``
    when ``limit`` ran out.  ``collect`` receives ``(score, moves)`` of every position reached
    (the beam's candidates); ``best`` is offered every position reached, as ``prefix`` + moves.
    """
    if limit <= 0:
        return "intractable", (), 0
    seen = {_canonical_key(game)}
    path: list[int] = []
    if collect is not None:
        collect.append((_score(game), ()))
    # one frame per position on the current line: its moves, how many were tried, its legal mask
    stack = [ordered_moves(game, -1)]
    masks = [game.legal_mask()]
    tried = [0]
    nodes = 1
    try_play, undo = game.try_play, game.undo
    while stack:
        moves = stack[-1]
        i = tried[-1]
        if i == len(moves):
            stack.pop()
            tried.pop()
            masks.pop()
            if path:
                path.pop()
                undo()
                game._mask = masks[-1]  # the cached legal mask of the position undone to
            continue
        tried[-1] = i + 1
        action = moves[i]
        if action == DRAW and not draws:
            continue
        last = _moved_to(game, action)
        if try_play(action) is not None:  # pragma: no cover - the moves were legal here
            raise RuntimeError(f"the solver generated an illegal move {action}")
        key = _canonical_key(game)
        if key in seen:
            undo()
            game._mask = masks[-1]
            continue
        seen.add(key)
        path.append(action)
        founded = sum(game.foundations)
        if founded > best.founded:
            best.offer(founded, prefix, path)
            if founded == _TOTAL:
                line = tuple(path)
                _unwind(game, len(path))
                return "solved", line, nodes
        if collect is not None:
            collect.append((_score(game), tuple(path)))
        if nodes >= limit:
            _unwind(game, len(path))
            return "intractable", (), nodes
        nodes += 1
        stack.append(ordered_moves(game, last))
        masks.append(game.legal_mask())
        tried.append(0)
    return "unsolvable", (), nodes


def _unwind(game: FortyThievesGame, count: int) -> None:
    for _ in range(count):
        game.undo()


def _beam(root: FortyThievesGame, width: int, max_nodes: int, best: _Best) -> tuple[tuple[int, ...] | None, int]:
    """Phase 2: one beam search of ``width`` over the draws; ``(winning line or None, nodes)``."""
    beam: list[tuple[FortyThievesGame, tuple[int, ...]]] = [(root, ())]
    nodes = 0
    while beam and nodes < max_nodes:
        candidates: list[tuple[int, int, int, tuple[int, ...]]] = []
        for b, (game, line) in enumerate(beam):
            drawing = game.stock_pos < len(game.stock)
            limit = min(_LOCAL_NODES if drawing else _END_NODES, max_nodes - nodes)
            found: list[tuple[int, tuple[int, ...]]] = []
            status, win, used = _search(game, limit, best, prefix=line, draws=False, collect=found)
            nodes += used
            if status == "solved":
                return line + win, nodes
            if drawing:
                candidates.extend((-score, len(candidates), b, moves) for score, moves in found)
            if nodes >= max_nodes:
                break
        candidates.sort()
        keys: set[int] = set()
        next_beam: list[tuple[FortyThievesGame, tuple[int, ...]]] = []
        for _, _, b, moves in candidates:
            game, line = beam[b]
            child = game.copy()
            for action in (*moves, DRAW):
                child.play(action)
            key = _canonical_key(child)
            if key in keys:
                continue
            keys.add(key)
            next_beam.append((child, (*line, *moves, DRAW)))
            if len(next_beam) == width:
                break
        beam = next_beam
    return None, nodes


def _work_copy(game: FortyThievesGame) -> FortyThievesGame:
    """A copy whose undo history is unbounded (a game with an ``undo_limit`` keeps a deque)."""
    work = game.copy()
    if not isinstance(work._history, list):
        work._history = list(work._history)
    return work


def solve_fortythieves_python(
    game: FortyThievesGame, *, max_nodes: int = DEFAULT_MAX_NODES, objective: str = "founded"
) -> SolveResult:
    """Search for a win from ``game``'s position with full information (stock order included).

    ``max_nodes`` bounds the positions expanded; ``objective`` (``"founded"``, the only one) is
    what ``best`` counts when no win is found.  ``game`` is not changed.
    """
    if objective != "founded":
        raise ValueError(f"unknown Forty Thieves objective {objective!r}; want 'founded'")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 0:
        raise ValueError(f"max_nodes must be a whole number >= 0, got {max_nodes!r}")
    start = time.perf_counter()
    work = _work_copy(game)
    best = _Best(work.founded)
    if work.won:
        return SolveResult("solved", (), 0, _TOTAL, time.perf_counter() - start)
    dfs_nodes = min(max_nodes, max(_DFS_MIN, max_nodes // _DFS_SHARE))
    status, line, nodes = _search(work, dfs_nodes, best)
    if status == "solved":
        return SolveResult(status, line, nodes, _TOTAL, time.perf_counter() - start)
    if status == "unsolvable":
        return SolveResult(status, best.line, nodes, best.founded, time.perf_counter() - start)
    width = 0
    while nodes < max_nodes:
        # as wide as the budget left allows (a beam costs about _NODES_PER_WIDTH per position)
        width = max(2 * width, _BEAM_WIDTH, (max_nodes - nodes) // _NODES_PER_WIDTH)
        win, used = _beam(work, width, max_nodes - nodes, best)
        nodes += used
        if win is not None:
            return SolveResult("solved", win, nodes, _TOTAL, time.perf_counter() - start)
    return SolveResult("intractable", best.line, nodes, best.founded, time.perf_counter() - start, stopped_by="nodes")
