"""The exact TriPeaks solver: a depth-first search in numba over a compact state.

A TriPeaks position, for solving, is three numbers: the removed-slot mask (28 bits), the
stock position and the waste key (the rank on the waste, or 0 when anything may be played:
an empty waste or a joker).  Chain, score and what was seen do not change which moves are
legal, so they are left out.  The search keeps a transposition table of expanded states
(open addressing over reusable arrays, cleared by a stamp rather than by zeroing, in three
sizes that a search moves through as it grows: 128 KB, 2 MB, 32 MB), tries
removals before the draw (the highest rows first, since they were just revealed), and stops
when the node budget is spent: it then says ``intractable``, never ``unsolvable``.

Every rule option is covered by the inputs: ``wrap`` through the accept masks, ``draw``
through ``when_stuck``, jokers and the empty waste through waste key 0, ``faces`` does not
matter (the solver sees every card: it is an oracle, for hints only when every card is known).

Cost of a call: the first search in a process pays a one-off cost here (importing numba,
numba's own start-up on its first compiled call, loading the cached kernel, allocating the
tables; docs/results.md measures it); after that, a deal's first search costs what a second
search of it does (nothing is prepared per deal beyond three small arrays), so time solver
runs after one warm-up call (``solitaire_env.solvability.warm_up``), as
``benchmarks/solve_first_call.py`` does.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from solitaire_env.common.budget import NO_NODE_LIMIT, StoppedBy, search_budget
from solitaire_env.common.cards import JOKER
from solitaire_env.common.result import SolveResult, Status
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.kernels import (
    bit_index,
    draw_allowed,
    exposed_slots,
    near_ranks,
    popcount,
    remove_slot,
)
from solitaire_env.tripeaks.rules import ALL_SLOTS, DRAW, NUM_SLOTS, card_key

TABLE_BITS = 21  # 4 M entries of 8 bytes, allocated once per process
SMALL_TABLE_BITS = 14  # 16 K entries (128 KB): short searches stay in the cache
MID_TABLE_BITS = 18  # 256 K entries (2 MB, one core's L2 here): searches up to 183 K states stay there
MAX_LINE = 64

SOLVED, UNSOLVABLE, INTRACTABLE, PAUSED = 0, 1, 2, 3
#: The registers of a search (the ``regs`` array of :func:`depth_first_search`).
R_STARTED, R_DEPTH, R_NODES, R_STORED, R_LEVEL, R_BEST_LEN, R_BEST_CLEARED = range(7)
#: Positions a time-budgeted search expands between two readings of the clock (a few ms).
SLICE_NODES = 50_000
_STATUS: dict[int, Status] = {SOLVED: "solved", UNSOLVABLE: "unsolvable", INTRACTABLE: "intractable"}
#: A state packs ``removed | pos << POS_SHIFT | key << KEY_SHIFT`` (28 + 6 + 4 bits); a table
#: entry adds the search's stamp above ``STAMP_SHIFT``.
POS_SHIFT = NUM_SLOTS
KEY_SHIFT = POS_SHIFT + 6
STAMP_SHIFT = KEY_SHIFT + 4


class Deal(NamedTuple):
    """A deal as the search reads it, fixed for the game's life: ``slot_rank`` (the 28 slots'
    ranks), ``stock_key`` (the stock's waste keys in draw order), ``accept`` (``accept[key]``:
    the slots whose rank may be played on waste key ``key``) and the rules ``wrap`` and
    ``when_stuck``."""

    slot_rank: np.ndarray
    stock_key: np.ndarray
    accept: np.ndarray
    wrap: bool
    when_stuck: bool


class Tables(NamedTuple):
    """The transposition tables a search passes through (small, middle, big: see
    :func:`depth_first_search`) and the search's ``stamp``."""

    small: np.ndarray
    mid: np.ndarray
    big: np.ndarray
    stamp: int


class Search(NamedTuple):
    """One search: the position it starts from (``removed``, stock position ``pos``, waste
    ``key``), whether it prunes dead positions (``prune``), and the arrays that hold it between
    two calls of :func:`depth_first_search`: the current ``line`` and the ``best_line`` (env
    actions), the stack ``st``, the tableau counts ``tab`` and the registers ``regs`` (``R_*``)."""

    removed: int
    pos: int
    key: int
    prune: bool
    line: np.ndarray
    best_line: np.ndarray
    st: np.ndarray
    tab: np.ndarray
    regs: np.ndarray


@njit(cache=True)
def _dead(tab_mask, tab_odd, tab_left, stock_mask, stock_odd, stock_even, key, wrap):
    """True when the state cannot be won, by two necessary conditions (so pruning is exact).

    Every remaining tableau card needs a card of a neighbouring rank somewhere it could come
    from (the waste now, the tableau, the rest of the stock) or a joker.  And, without the
    wrap, ranks alternate in parity along a chain; every remaining tableau card lies in the
    chain of one head (the waste card now, or a stock card still to come), and a chain on an
    odd head holds as many even cards as odd ones or one more (the other way round on an
    even head), so the tableau's even-minus-odd count lies between minus the even heads and
    plus the odd heads.  Rank sets are bit masks (bit r: rank r; bit 0: a joker).
    """
    if key == 0 or stock_mask & 1:
        return False
    if not wrap:
        odd_heads = (key & 1) + stock_odd
        even_heads = 1 - (key & 1) + stock_even
        tab_even = tab_left - tab_odd
        if tab_even - tab_odd > odd_heads or tab_odd - tab_even > even_heads:
            return True
    avail = tab_mask | stock_mask | (np.int64(1) << key)
    return (tab_mask & ~near_ranks(avail, wrap)) != 0


@njit(cache=True)
def _tab_put(tab, r):
    """A tableau card of rank r is back: ``tab[1..13]`` counts per rank, ``tab[14]`` the mask of
    ranks present, ``tab[15]`` the count of odd ranks."""
    tab[r] += 1
    tab[14] |= np.int64(1) << r
    tab[15] += r & 1


@njit(cache=True)
def _tab_take(tab, r):
    """A tableau card of rank r is removed (the inverse of :func:`_tab_put`)."""
    tab[r] -= 1
    if tab[r] == 0:
        tab[14] ^= np.int64(1) << r
    tab[15] -= r & 1


@njit(cache=True)
def depth_first_search(deal, tables, search, max_nodes, pause_at):
    """Iterative DFS of a :class:`Deal` through :class:`Tables`, from and into a :class:`Search`
    (each given as the NamedTuple or as a plain tuple of its fields), stopping at ``max_nodes``
    nodes.  Returns (status, nodes, line length, best length, best cleared).

    Resumable: the search's stack (``st``: removed, exposed, stock position, moves left and cards
    cleared per depth), its tableau counts (``tab``) and its registers (``regs``: started, depth,
    nodes, stored, table level, best length, best cleared) live in the :class:`Search`'s arrays.
    Once ``nodes`` reaches ``pause_at`` it returns :data:`PAUSED`, and a call with the same
    search goes on where it stopped, so a search cut into slices expands the same nodes in the
    same order as one run straight through (the time budget reads the clock between slices).

    Table entries hold ``state | stamp << STAMP_SHIFT`` (0 = free): an entry of an older stamp counts
    as free, so no table needs clearing between searches.  A search starts in the small table
    (it stays in the processor's cache, which is what makes short searches fast) and moves
    its entries to the middle one when the small one is 70 % full, and from there to the big
    one.  Every table is an exact set of the states stored so far, so the tables a search
    passes through change its speed, never its nodes or its verdict: only the big table's
    filling (past 2.9 M states, beyond the default budget) stops memoising.  The middle step
    was added because going straight from 128 KB to 32 MB scattered every medium search's
    states (the unsolvable deals: most of a solvability run's time) over 32 MB, far from the
    cache; ``benchmarks/solve_first_call.py`` measures what the middle step gains (docs/results.md
    records its runs).  A ``mid_table`` no larger than ``small_table`` skips the middle step.
    """
    slot_rank, stock_key, accept, wrap, when_stuck = deal
    small_table, mid_table, big_table, stamp = tables
    removed0, pos0, key0, prune, line, best_line, st, tab, regs = search
    all_slots = np.int64(ALL_SLOTS)
    draw_bit = np.int64(1) << DRAW
    n_stock = stock_key.shape[0]
    stamp_bits = np.int64(stamp) << STAMP_SHIFT
    # the stock from each position on: ranks present (bit 0: a joker), odd and even counts
    stock_mask = np.zeros(n_stock + 1, np.int64)
    stock_odd = np.zeros(n_stock + 1, np.int64)
    stock_even = np.zeros(n_stock + 1, np.int64)
    for p in range(n_stock - 1, -1, -1):
        r = stock_key[p]
        stock_mask[p] = stock_mask[p + 1] | (np.int64(1) << r)
        stock_odd[p] = stock_odd[p + 1] + (1 if r & 1 else 0)
        stock_even[p] = stock_even[p + 1] + (1 if r and r & 1 == 0 else 0)
    st_removed = st[0]
    st_exposed = st[1]
    st_pos = st[2]
    st_moves = st[3]
    st_cleared = st[4]
    if regs[R_STARTED] == 0:
        regs[R_STARTED] = 1
        # the tableau cards left: count per rank, ranks present (bit mask), odd and even counts
        tab[:] = 0  # see _tab_put
        for s in range(NUM_SLOTS):
            if removed0 & (np.int64(1) << s) == 0:
                _tab_put(tab, slot_rank[s])
        exposed0 = exposed_slots(removed0)
        cleared0 = popcount(removed0)
        regs[R_BEST_CLEARED] = cleared0
        regs[R_BEST_LEN] = 0
        if removed0 == all_slots:
            return SOLVED, 0, 0, 0, cleared0
        moves0 = exposed0 & accept[key0]
        if draw_allowed(n_stock - pos0, moves0, when_stuck):
            moves0 |= draw_bit
        st_removed[0] = removed0
        st_exposed[0] = exposed0
        st_pos[0] = pos0
        st_moves[0] = moves0
        st_cleared[0] = cleared0
        regs[R_NODES] = 1
        regs[R_DEPTH] = 0
        regs[R_STORED] = 0
        regs[R_LEVEL] = 0
    depth = regs[R_DEPTH]
    nodes = regs[R_NODES]
    stored = regs[R_STORED]
    level = regs[R_LEVEL]
    best_len = regs[R_BEST_LEN]
    best_cleared = regs[R_BEST_CLEARED]
    table = small_table if level == 0 else (mid_table if level == 1 else big_table)
    mask = table.shape[0] - 1
    limit = (table.shape[0] * 7) // 10
    while depth >= 0:
        if nodes >= pause_at:
            regs[R_DEPTH] = depth
            regs[R_NODES] = nodes
            regs[R_STORED] = stored
            regs[R_LEVEL] = level
            regs[R_BEST_LEN] = best_len
            regs[R_BEST_CLEARED] = best_cleared
            return PAUSED, nodes, 0, best_len, best_cleared
        moves = st_moves[depth]
        if moves == 0:
            if depth > 0 and line[depth - 1] != DRAW:  # leaving the state that removal made
                _tab_put(tab, slot_rank[line[depth - 1]])
            depth -= 1
            continue
        low = moves & -moves  # lowest slot first: upper rows, then the bottom row, then the draw
        st_moves[depth] = moves ^ low
        removed = st_removed[depth]
        exposed = st_exposed[depth]
        pos = st_pos[depth]
        cleared = st_cleared[depth]
        if low == draw_bit:
            action = DRAW
            key = stock_key[pos]
            pos += 1
        else:
            action = bit_index(low)
            removed, exposed = remove_slot(removed, exposed, action)
            cleared += 1
            key = slot_rank[action]
        line[depth] = action
        if removed == all_slots:
            return SOLVED, nodes, depth + 1, best_len, NUM_SLOTS
        if action != DRAW:
            _tab_take(tab, key)
        if prune and _dead(
            tab[14], tab[15], NUM_SLOTS - cleared, stock_mask[pos], stock_odd[pos], stock_even[pos], key, wrap
        ):
            if action != DRAW:
                _tab_put(tab, key)
            continue
        # transposition table: skip states already expanded
        state = removed | (pos << POS_SHIFT) | (key << KEY_SHIFT)
        h = ((state * np.int64(-7046029254386353131)) >> 40) & mask  # high bits of a multiplicative hash
        seen = False
        while True:
            entry = table[h]
            if entry >> STAMP_SHIFT != stamp:
                break
            if entry == state | stamp_bits:
                seen = True
                break
            h = (h + 1) & mask
        if seen:
            if action != DRAW:
                _tab_put(tab, key)
            continue
        if stored >= limit and table.shape[0] < big_table.shape[0]:
            # move to the next table: re-insert every entry of this search
            if table.shape[0] < mid_table.shape[0] and mid_table.shape[0] < big_table.shape[0]:
                grown = mid_table
                level = 1
            else:
                grown = big_table
                level = 2
            for i in range(table.shape[0]):
                entry = table[i]
                if entry >> STAMP_SHIFT == stamp:
                    old = entry & ((np.int64(1) << STAMP_SHIFT) - 1)
                    j = ((old * np.int64(-7046029254386353131)) >> 40) & (grown.shape[0] - 1)
                    while grown[j] >> STAMP_SHIFT == stamp:
                        j = (j + 1) & (grown.shape[0] - 1)
                    grown[j] = entry
            table = grown
            mask = table.shape[0] - 1
            limit = (table.shape[0] * 7) // 10
            h = ((state * np.int64(-7046029254386353131)) >> 40) & mask
            while table[h] >> STAMP_SHIFT == stamp:
                h = (h + 1) & mask
        if stored < limit:  # a full table only stops memoising: the search stays exact
            table[h] = state | stamp_bits
            stored += 1
        nodes += 1
        if nodes > max_nodes:  # this position is not expanded: the budget's nodes were
            return INTRACTABLE, max_nodes, 0, best_len, best_cleared
        if cleared > best_cleared:
            best_cleared = cleared
            best_len = depth + 1
            for i in range(depth + 1):
                best_line[i] = line[i]
        child = exposed & accept[key]
        if draw_allowed(n_stock - pos, child, when_stuck):
            child |= draw_bit
        depth += 1
        st_removed[depth] = removed
        st_exposed[depth] = exposed
        st_pos[depth] = pos
        st_moves[depth] = child
        st_cleared[depth] = cleared
    return UNSOLVABLE, nodes, 0, best_len, best_cleared


class _Table:
    """The transposition tables (small, middle, big), allocated once per process and reused
    through stamps."""

    small: np.ndarray | None = None
    mid: np.ndarray | None = None
    big: np.ndarray | None = None
    stamp = 0

    @classmethod
    def next(cls) -> Tables:
        if cls.small is None or cls.mid is None or cls.big is None or cls.stamp >= 2**24:
            # np.full writes every page now (np.zeros would map them lazily, and the first
            # search to outgrow the small table would pay ~50 ms of page faults)
            cls.small = np.full(1 << SMALL_TABLE_BITS, 0, dtype=np.int64)
            cls.mid = np.full(1 << MID_TABLE_BITS, 0, dtype=np.int64)
            cls.big = np.full(1 << TABLE_BITS, 0, dtype=np.int64)
            cls.stamp = 0
        cls.stamp += 1
        return Tables(cls.small, cls.mid, cls.big, cls.stamp)


#: ``_KEY_OF[card]``: the waste key a card makes (its rank 1-13; 0 for a joker).
_KEY_OF = np.array([card_key(c) for c in range(JOKER + 1)], dtype=np.int64)


#: The :class:`Deal` of the last few deals searched (a hint searches the same deal again and again).
_DEALS: dict[tuple[tuple[int, ...], tuple[int, ...], bool, bool], Deal] = {}


def _deal(game: TriPeaksGame) -> Deal:
    """The :class:`Deal` of a game: fixed for the game's life."""
    when_stuck = game.rules.draw == "when_stuck"
    token = (game.tableau, game.stock, game.rules.wrap, when_stuck)
    deal = _DEALS.get(token)
    if deal is None:
        if len(_DEALS) >= 64:
            _DEALS.clear()
        deal = Deal(
            _KEY_OF[np.array(game.tableau, dtype=np.int64)],
            _KEY_OF[np.array(game.stock, dtype=np.int64)],
            np.array(game._accept, dtype=np.int64),
            game.rules.wrap,
            when_stuck,
        )
        _DEALS[token] = deal
    return deal


def search_inputs(game: TriPeaksGame) -> dict[str, Any]:
    """The compact full-information position of a game, as the search takes it."""
    deal = _deal(game)
    return {
        "slot_rank": deal.slot_rank,
        "stock_key": deal.stock_key,
        "accept": deal.accept,
        "removed": game.removed,
        "pos": game.stock_pos,
        "key": game.waste_key,
        "when_stuck": deal.when_stuck,
    }


def solve_tripeaks(
    game: TriPeaksGame,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    maximise_cleared: bool = False,
) -> SolveResult:
    """Solve a TriPeaks position exactly, with full information (it reads hidden cards).

    The budget is :func:`~solitaire_env.common.budget.search_budget`'s: ``max_nodes``
    positions, ``max_seconds`` seconds, whichever runs out first; neither given:
    :data:`~solitaire_env.common.budget.DEFAULT_MAX_NODES` nodes.  A search cut into time slices
    expands the same nodes as one with the same node budget, so a time budget changes only
    where the search stops.

    ``solved``: ``line`` is a winning list of env actions from the position.  Otherwise
    ``line`` reaches the most cards cleared among the positions the search expanded
    (``best``).  The search prunes positions that cannot be won, so by default that is a good
    line, not a proven maximum; with ``maximise_cleared=True`` an unsolvable position is
    searched again without that pruning (on what is left of the budget), and ``best`` is then
    the most cards that can be cleared at all (within the budget: ``extra["best_exact"]`` says
    whether it was proved).
    """
    budget = search_budget(max_nodes, max_seconds)
    start = time.perf_counter()
    deadline = budget.deadline(start)
    result = _solve(game, budget.nodes, deadline, prune=True)
    if maximise_cleared and result.status == "unsolvable":
        left = max(1, budget.nodes - result.nodes)
        again = _solve(game, left, deadline, prune=False)
        return SolveResult(
            "unsolvable",
            again.line,
            result.nodes + again.nodes,
            again.best,
            time.perf_counter() - start,
            {"best_exact": again.status == "unsolvable"},
        )
    return result


def _search_arrays() -> tuple[np.ndarray, ...]:
    """New arrays for a :class:`Search`: ``(line, best_line, st, tab, regs)``."""
    line = np.zeros(MAX_LINE, dtype=np.int64)
    best_line = np.zeros(MAX_LINE, dtype=np.int64)
    return line, best_line, np.zeros((5, MAX_LINE), dtype=np.int64), np.zeros(16, dtype=np.int64), np.zeros(7, np.int64)


#: The arrays of searches that are over, for the next ones (a search pops a set and puts it back
#: when it is done: no arrays are allocated per search, and two threads never share a set).
_SPARE: list[tuple[np.ndarray, ...]] = []


def _solve(game: TriPeaksGame, max_nodes: int, deadline: float | None, *, prune: bool) -> SolveResult:
    start = time.perf_counter()
    deal = _deal(game)
    tables = _Table.next()
    try:
        line, best_line, stack, tab, regs = _SPARE.pop()
    except IndexError:
        line, best_line, stack, tab, regs = _search_arrays()
    regs[R_STARTED] = 0
    search = Search(game.removed, game.stock_pos, game.waste_key, prune, line, best_line, stack, tab, regs)
    # plain tuples of the same fields: numba's dispatcher types a NamedTuple argument in Python
    # (a few microseconds a call, on searches that often take 15), a plain tuple in C
    args = (tuple(deal), tuple(tables), tuple(search), max_nodes)
    status = PAUSED
    nodes = n_line = n_best = best = 0
    stopped_by: StoppedBy | None = "nodes"
    while status == PAUSED:
        if deadline is not None and nodes and time.perf_counter() >= deadline:
            status, stopped_by = INTRACTABLE, "seconds"
            break
        pause_at = nodes + SLICE_NODES if deadline is not None else NO_NODE_LIMIT
        status, nodes, n_line, n_best, best = depth_first_search(*args, pause_at)
    found = tuple((line[:n_line] if status == SOLVED else best_line[:n_best]).tolist())
    _SPARE.append((line, best_line, stack, tab, regs))
    return SolveResult(
        _STATUS[int(status)],
        found,
        int(nodes),
        int(best),
        time.perf_counter() - start,
        stopped_by=stopped_by if status == INTRACTABLE else None,
    )


assert DRAW == NUM_SLOTS  # the draw bit sits just above the slot bits
