"""Forty Thieves solver: a numba depth-first search over the rules' numba twins.

The solver is an oracle: it reads the stock order.  It searches from the game's current
position (the game passed in is never changed) and answers with a
:class:`~solitaire_env.common.result.SolveResult`:

- ``solved``: ``line`` wins when replayed with ``try_play`` from the position (the solver
  replays it through the rules core before it answers);
- ``unsolvable``: the search went through every position reachable from the position, up to
  the sound prunings below, and none is won.  Only an exhausted search says this;
- ``intractable``: a budget ran out first (``max_nodes``, ``max_seconds``, the table's size
  or the depth cap; ``stopped_by`` says which).  ``line`` is then the line to the position
  with the most cards founded seen and ``best`` that count.

``nodes`` counts the positions expanded (their moves generated), the root included.

The search (:mod:`solitaire_env.fortythieves.search_kernels`) is the numba twin of the
pure-Python depth-first search of :mod:`solitaire_env.fortythieves.python_solver` (phase 1):
the same moves in the same order (:func:`ordered_moves`), the same prunings, a transposition
table keyed by a canonical position hash that ignores the order of the columns and of a suit's
two foundations.  On a position where the pure-Python search finishes, both give the same
verdict, line and node count (the tests check this on many positions).  It runs in slices, so
the clock is read between slices and the search is resumed where it stopped.

Prunings (each keeps a win reachable when one exists; proofs in
docs/hints.md and in the python_solver docstring):

1. safe foundation moves are forced (both copies of the rank below are founded);
2. dominated returns are never played (a foundation's top goes back to a column only while the
   other foundation of its suit is lower by more than one card);
3. symmetric and composite moves: a lone card never moves to an empty column, a card goes to
   the first empty column only, the card moved last is not moved again at once.
"""

from __future__ import annotations

import time

import numpy as np

from solitaire_env.common.budget import StoppedBy, search_budget
from solitaire_env.common.kernel_call import KernelCall
from solitaire_env.common.result import SolveResult, Status
from solitaire_env.fortythieves import beam_kernels as B
from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.python_solver import ordered_moves
from solitaire_env.fortythieves.rules import TOTAL_CARDS

__all__ = ["ordered_moves", "solve_fortythieves"]

#: The transposition table starts at 2**TABLE_BITS entries and grows four-fold when 70 % full,
#: up to 2**MAX_TABLE_BITS (20 bytes an entry: 2**26 entries are 1.3 GB).
TABLE_BITS = 18
MAX_TABLE_BITS = 26
#: The beams' searches (at most END_NODES positions each) use a table of 2**BEAM_TABLE_BITS.
BEAM_TABLE_BITS = 12
#: Positions per numba call between two looks at the clock.
SLICE_NODES = 100_000
#: Share of the node budget for the exhaustive depth-first search (1 / DFS_SHARE), and its floor.
DFS_SHARE = 10
DFS_MIN = 1_000
#: Beam: narrowest width, positions searched between two draws per beam position and after
#: the last draw, nodes a beam costs per unit of width (about; to size the first beam).
BEAM_WIDTH = 4
#: The anytime schedule's first depth-first search (positions), and its later turns: a quarter
#: of the positions the beam before took.
ANYTIME_DFS_NODES = 100_000
DFS_TURN = 4
LOCAL_NODES = 50
END_NODES = 500
NODES_PER_WIDTH = 1500
#: The widest beam (its two layers and candidate pool take about 21 KB per unit of width, from the
#: arrays' sizes: a layer entry's line of MAX_LINE moves is most of it).
MAX_WIDTH = 16384
#: Beam positions searched per numba call between two looks at the clock.
BEAM_CHUNK = 256

#: The kernels the searches call many times per game, without the dispatcher's typing of the
#: search's NamedTuples (:class:`~solitaire_env.common.kernel_call.KernelCall`; one remembered
#: argument set each: the depth-first search's arrays, the beam's position).
_start, _dfs, _derive = KernelCall(K.start, 1), KernelCall(K.dfs, 1), KernelCall(K.derive, 1)

_STOPS: dict[int, StoppedBy] = {
    K.NODE_LIMIT: "nodes",
    K.DEPTH_CAP: "depth",
    K.TABLE_FULL: "table",
}


class _Search:
    """The process's search arrays (allocated on first use and reused by every search): one set
    for the depth-first search and one for the beams' small searches, so that a depth-first
    search can be resumed after a beam."""

    arrays: dict[str, K.SearchArrays] | None = None

    @classmethod
    def get(cls, role: str = "dfs") -> K.SearchArrays:
        if cls.arrays is None:
            cls.arrays = {}
        sa = cls.arrays.get(role)
        if sa is None:
            sa = cls.arrays[role] = K.SearchArrays(TABLE_BITS if role == "dfs" else BEAM_TABLE_BITS)
        else:
            sa.next_stamp()
        return sa


def load_position(sa: K.SearchArrays, game: FortyThievesGame) -> None:
    """Copy the game's position into the search arrays (what :func:`search_kernels.start` reads)."""
    sa.cols[:] = 0
    for j, col in enumerate(game.columns):
        sa.cols[j, : len(col)] = col
        sa.clen[j] = len(col)
    sa.waste[: len(game.waste)] = game.waste
    sa.stock[: len(game.stock)] = game.stock
    sa.fnd[:] = game.foundations
    sa.sc[K.S_WLEN] = len(game.waste)
    sa.sc[K.S_POS] = game.stock_pos
    sa.sc[K.S_NSTOCK] = len(game.stock)


def depth_first(
    game: FortyThievesGame,
    max_nodes: int,
    *,
    max_seconds: float | None = None,
    draws: bool = True,
    best: int | None = None,
    collect: bool = False,
) -> tuple[Status, tuple[int, ...], int, int, tuple[int, ...], str]:
    """The numba depth-first search from ``game``'s position.

    Returns ``(status, winning line or (), nodes, most founded, line to it, stop)`` with
    ``stop`` one of ``""`` (decided), ``"nodes"``, ``"seconds"``, ``"table"``, ``"depth"``.
    Without ``draws`` the draw is never played (the search of the positions before the next draw).
    ``best``: the most cards founded seen before (default: the position's own); the line
    returned is to a position above it, else empty.  With ``collect`` every position entered is
    recorded in the search arrays (the beam's candidates: :func:`_candidates`).
    """
    start = time.perf_counter()
    sa = _Search.get()
    if max_nodes <= 0:
        sa.sc[K.S_NCAND] = 0
        return "intractable", (), 0, game.founded if best is None else best, (), "nodes"
    load_position(sa, game)
    foundation_return = game.rules.foundation_return
    _start(sa.search, foundation_return, game.founded if best is None else best, collect)
    sc = sa.sc
    status = K.RUNNING
    stop = ""
    while status == K.RUNNING:
        status = _dfs(sa.search, foundation_return, draws, max_nodes, SLICE_NODES, collect)
        if status == K.TABLE_FULL and sa.table.shape[0] < 1 << MAX_TABLE_BITS:
            sa.grow()
            status = K.RUNNING
        if status == K.RUNNING and max_seconds is not None and time.perf_counter() - start >= max_seconds:
            stop = "seconds"
            break
    nodes = int(sc[K.S_NODES])
    best = int(sc[K.S_BEST])
    best_line = tuple(int(a) for a in sa.best_line[: sc[K.S_BEST_LEN]])
    if status == K.SOLVED:
        return "solved", tuple(int(a) for a in sa.played[: sc[K.S_DEPTH]]), nodes, best, best_line, ""
    if status == K.EXHAUSTED:
        return "unsolvable", (), nodes, best, best_line, ""
    return "intractable", (), nodes, best, best_line, stop or _STOPS[status]


class DepthFirst:
    """A resumable depth-first search from one position (on the depth-first search's arrays;
    another search started there ends this one)."""

    def __init__(self, game: FortyThievesGame) -> None:
        self.sa = sa = _Search.get("dfs")
        load_position(sa, game)
        self.foundation_return = game.rules.foundation_return
        _start(sa.search, self.foundation_return, game.founded, False)
        self.status = K.RUNNING

    @property
    def nodes(self) -> int:
        return int(self.sa.sc[K.S_NODES])

    def run(self, more: int, deadline: float | None) -> None:
        """Go on for about ``more`` positions (whole slices), or until it ends or ``deadline``."""
        sa, goal = self.sa, self.nodes + more
        while self.status == K.RUNNING and self.nodes < goal:
            if deadline is not None and time.perf_counter() >= deadline:
                return
            step = min(SLICE_NODES, goal - self.nodes)
            self.status = _dfs(sa.search, self.foundation_return, True, 2**62, step, False)
            if self.status == K.TABLE_FULL and sa.table.shape[0] < 1 << MAX_TABLE_BITS:
                sa.grow()
                self.status = K.RUNNING

    def best(self) -> tuple[int, tuple[int, ...]]:
        sc = self.sa.sc
        return int(sc[K.S_BEST]), tuple(self.sa.best_line[: sc[K.S_BEST_LEN]].tolist())


class _Best:
    """The line to the most cards founded seen so far."""

    def __init__(self, founded: int) -> None:
        self.founded = founded
        self.line: tuple[int, ...] = ()

    def offer(self, founded: int, prefix: tuple[int, ...], line: tuple[int, ...]) -> None:
        if founded > self.founded:
            self.founded = founded
            self.line = prefix + line


def _beam(
    root: FortyThievesGame, width: int, max_nodes: int, best: _Best, deadline: float | None
) -> tuple[tuple[int, ...] | None, int, bool]:
    """One beam search of ``width`` over the draws (the twin of ``python_solver._beam``, in
    :mod:`~solitaire_env.fortythieves.beam_kernels`); ``(winning line or None, nodes, out of time)``."""
    sa = _Search.get("beam")
    load_position(sa, root)
    _derive(sa.position)
    # this beam's layers, pool and scalars are made here: so are the calls that remember them
    expand, select = KernelCall(B.expand), KernelCall(B.select)
    layer, spare = B.Layer.zeros(width), B.Layer.zeros(width)
    B.store(sa.position, layer, np.zeros(1, np.int16), 0)
    beam = B.Beam.zeros()
    bs = beam.bs
    bs[B.B_BEST] = best.founded
    bs[B.B_MAX_NODES], bs[B.B_LOCAL_NODES], bs[B.B_END_NODES] = max_nodes, LOCAL_NODES, END_NODES
    pool = B.Pool.zeros(width * (LOCAL_NODES + 1))
    foundation_return = root.rules.foundation_return
    out_of_time = False
    status = B.EXPANDED
    while layer.n[0] and bs[B.B_NODES] < max_nodes:
        n = int(layer.n[0])
        bs[B.B_POOL] = 0
        for b0 in range(0, n, BEAM_CHUNK):
            if deadline is not None and time.perf_counter() >= deadline:
                out_of_time = True
                break
            status = expand(layer, b0, min(n, b0 + BEAM_CHUNK), pool, sa.search, beam, foundation_return)
            if status != B.EXPANDED:
                break
        if status != B.EXPANDED or out_of_time:
            break
        select(layer, width, pool, beam, spare, sa.position)
        layer, spare = spare, layer
    best.offer(int(bs[B.B_BEST]), (), tuple(beam.best_out[: bs[B.B_BEST_LEN]].tolist()))
    nodes = int(bs[B.B_NODES])
    if status == B.WON:
        return tuple(beam.win_out[: bs[B.B_WIN_LEN]].tolist()), nodes, False
    return None, nodes, out_of_time


def _replays_to_win(game: FortyThievesGame, line: tuple[int, ...]) -> bool:
    g = game.copy()
    return all(g.try_play(a) is None for a in line) and g.won


def solve_fortythieves(
    game: FortyThievesGame,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    objective: str = "founded",
) -> SolveResult:
    """Search for a win from ``game``'s position with full information (stock order included).

    The budget is :func:`~solitaire_env.common.budget.search_budget`'s: ``max_nodes``
    positions expanded, ``max_seconds`` seconds, whichever runs out first (one given alone is
    the only limit; neither: :data:`~solitaire_env.common.budget.DEFAULT_MAX_NODES` nodes).
    ``objective`` (``"founded"``, the only one) is what ``best`` counts when no win is found.
    ``game`` is not changed.

    - Without ``max_seconds`` (the node schedule, the twin of the pure-Python solver): a
      depth-first search over a tenth of the budget, then beams over the draws, each as wide as
      the nodes left allow (:data:`NODES_PER_WIDTH` a unit of width), twice as wide as the
      last at least.  The result depends on ``max_nodes`` only.
    - With ``max_seconds`` (the anytime schedule): a depth-first search over
      :data:`ANYTIME_DFS_NODES` positions, then beams of width 4, 8, 16, ... up to
      :data:`MAX_WIDTH`, each followed by a quarter as many positions more of the same depth-first search
      (resumed where it stopped: it alone can prove a loss), and the depth-first search alone
      once the widest beam has run.  The sequence does not depend on the budgets, so a search
      that ends at ``t`` seconds answers as every search with a budget above ``t`` would (a
      solvability run at 20 s per deal also tells what 1 s and 5 s decide, up to the clock's
      granularity: the clock is read between slices of :data:`SLICE_NODES` positions and
      between chunks of :data:`BEAM_CHUNK` beam positions).

    ``stopped_by``: what ended the search (``"won"``, ``"proved"``, ``"nodes"``, ``"seconds"``,
    ``"table"``, ``"depth"``).  ``extra``: ``stored`` (positions in the depth-first search's
    table), ``dfs_nodes`` and ``beam_width`` (the widest beam run).
    """
    if objective != "founded":
        raise ValueError(f"unknown Forty Thieves objective {objective!r}; want 'founded'")
    budget = search_budget(max_nodes, max_seconds)
    start = time.perf_counter()
    if game.won:
        extra: dict[str, object] = {"stored": 0, "dfs_nodes": 0, "beam_width": 0}
        return SolveResult("solved", (), 0, TOTAL_CARDS, time.perf_counter() - start, extra)
    work = game.copy()
    deadline = budget.deadline(start)
    if deadline is None:
        return _solve_by_nodes(game, work, budget.nodes, start)
    return _solve_anytime(game, work, budget.nodes, deadline, start)


def _result(
    game: FortyThievesGame, status: Status, line: tuple[int, ...], nodes: int, best: _Best, start: float,
    extra: dict[str, object], stopped_by: StoppedBy | None,
) -> SolveResult:  # fmt: skip
    seconds = time.perf_counter() - start
    if status == "solved":
        if not _replays_to_win(game, line):  # pragma: no cover - a bug, never a verdict
            raise RuntimeError("the Forty Thieves solver found a line that does not win")
        return SolveResult("solved", line, nodes, TOTAL_CARDS, seconds, extra)
    stop = stopped_by if status == "intractable" else None
    return SolveResult(status, best.line, nodes, best.founded, seconds, extra, stop)


def _solve_by_nodes(game: FortyThievesGame, work: FortyThievesGame, max_nodes: int, start: float) -> SolveResult:
    dfs_nodes = min(max_nodes, max(DFS_MIN, max_nodes // DFS_SHARE))
    status: Status
    status, line, nodes, founded, to_best, _ = depth_first(work, dfs_nodes)
    best = _Best(work.founded)
    best.offer(founded, (), to_best)
    extra: dict[str, object] = {"stored": _stored(), "dfs_nodes": nodes, "beam_width": 0}
    width = 0
    while status == "intractable" and nodes < max_nodes:
        # as wide as the budget left allows (a beam costs about NODES_PER_WIDTH per position)
        width = min(MAX_WIDTH, max(2 * width, BEAM_WIDTH, (max_nodes - nodes) // NODES_PER_WIDTH))
        win, used, _ = _beam(work, width, max_nodes - nodes, best, None)
        nodes += used
        extra["beam_width"] = width
        if win is not None:
            status, line = "solved", win
    return _result(game, status, line, nodes, best, start, extra, "nodes")


def _solve_anytime(
    game: FortyThievesGame, work: FortyThievesGame, max_nodes: int, deadline: float, start: float
) -> SolveResult:
    best = _Best(work.founded)
    dfs = DepthFirst(work)
    dfs.run(min(ANYTIME_DFS_NODES, max_nodes), deadline)
    extra: dict[str, object] = {"beam_width": 0}
    beam_nodes = 0
    width = BEAM_WIDTH
    status: Status = "intractable"
    line: tuple[int, ...] = ()
    stop: StoppedBy = "nodes"
    while dfs.nodes + beam_nodes < max_nodes and time.perf_counter() < deadline:
        if dfs.status in (K.SOLVED, K.EXHAUSTED):
            break
        if width <= MAX_WIDTH:
            win, used, _ = _beam(work, width, max_nodes - dfs.nodes - beam_nodes, best, deadline)
            beam_nodes += used
            extra["beam_width"] = width
            width *= 2
            if win is not None:
                status, line = "solved", win
                break
            if dfs.status == K.RUNNING:  # the proof search takes its turn
                dfs.run(min(used // DFS_TURN, max_nodes - dfs.nodes - beam_nodes), deadline)
        elif dfs.status == K.RUNNING:  # the widest beam has run: the depth-first search alone
            dfs.run(max_nodes - dfs.nodes - beam_nodes, deadline)
        else:  # every beam has run and the depth-first search met its own limit (depth, table)
            stop = _STOPS[int(dfs.status)]
            break
    else:
        stop = "nodes" if dfs.nodes + beam_nodes >= max_nodes else "seconds"
    founded, to_best = dfs.best()
    best.offer(founded, (), to_best)
    if dfs.status == K.SOLVED:
        status, line = "solved", tuple(dfs.sa.played[: dfs.sa.sc[K.S_DEPTH]].tolist())
    elif dfs.status == K.EXHAUSTED and status != "solved":
        status = "unsolvable"
    nodes = dfs.nodes + beam_nodes
    extra.update(stored=_stored(), dfs_nodes=dfs.nodes)
    return _result(game, status, line, nodes, best, start, extra, stop)


def _stored() -> int:
    sa = (_Search.arrays or {}).get("dfs")
    return 0 if sa is None else int(sa.sc[K.S_COUNT])
