"""The numba depth-first search of the Forty Thieves solver (:mod:`solitaire_env.fortythieves.solver`).

One search's state is a few NamedTuples of numpy arrays, allocated once per process and reused
(:class:`SearchArrays` holds them):

- :class:`Position`: the position (columns, waste, stock, foundations, the top-card tables),
  its two 64-bit canonical keys kept up to date move by move, and the scalars ``sc`` (the
  position's and the search's, the ``S_*`` slots); :func:`play`, :func:`undo`,
  :func:`ordered_moves`, :func:`child_keys` and :func:`position_keys` take it;
- :class:`Stack`: the depth-first search's stack (per depth: the ordered moves, how many were
  tried, the move played and the foundation it used) and the best line;
- :class:`Candidates`: the positions a search with ``collect`` entered (the beam's pool);
- :class:`Search`: those three and the transposition table, what :func:`start`,
  :func:`begin` and :func:`dfs` take.

:func:`dfs` runs the search for a slice of nodes and returns a status; the Python side checks
the clock and the budgets between slices and resumes the same arrays, so no work is lost when
a slice ends.  The small helpers that the hot loops inline take the arrays they touch, not the
tuples: a non-inlined numba call counts a reference to every array of a tuple it is given.

The rules come from :mod:`solitaire_env.fortythieves.kernels` (``source_dests``, ``is_safe``,
``foundation_for``, ``foundation_card``, ``PARENT_ARRAY``): the numba twins of the rules core,
checked against it by ``tests/fortythieves/test_fortythieves_kernels.py``.  Nothing here is a
new copy of a rule; what is here is the search: the move order and the prunings, each the
numba twin of :func:`solitaire_env.fortythieves.solver.ordered_moves` (the tests run both on
thousands of positions and compare the move lists).

Canonical key (ignores the order of the columns and of a suit's two foundations)
-------------------------------------------------------------------------------
Column ``j`` holding ``c_0 .. c_{h-1}`` (bottom first) has the hash ``ch[j] = sum_d Z[d, c_d]``
(mod 2**64), updated by one addition per push or pop.  The columns together give
``sum_j mix(ch[j])``, ``mix`` the SplitMix64 finaliser: a sum does not depend on the order of the
columns, and ``mix`` (a bijection with ``mix(0) = 0``, so an empty column adds nothing) keeps
which cards share a column (a plain sum of ``ch`` would not), and a sum rather than an xor
keeps two equal columns from cancelling (two decks allow them).  The waste adds
``sum_d ZW[d, w_d]`` and the stock position ``ZS[pos]``.  The foundations need no term: every
card is in a column, the waste, the stock after ``pos`` or on a foundation, so the rest fixes
how many copies of each card are founded, and those counts fix the pair of a suit's pile
heights up to their order (the solver's design: docs/hints.md).  Two such keys come
from independent tables; the table compares all of the first and the high 32 bits of the
second (96 bits), so a false match (a wrong pruning) has a chance of about ``N**2 / 2**97`` for
``N`` stored positions (about 1e-13 for 1e8 positions).

Table: open addressing with linear probing over one ``(N, 2)`` uint64 array, an entry being the
first key and, in its second word, the high half of the second key above the search's 32-bit
stamp: one 16-byte read per probe, and an entry of an older stamp counts as free, so a new
search clears nothing.  When the table is 70 % full :func:`dfs` returns :data:`TABLE_FULL`
before it expands anything more, and the caller moves the entries to a table four times the
size (:func:`grow_table`) and resumes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from solitaire_env.common.deals import SplitMix64
from solitaire_env.fortythieves.kernels import (
    PARENT_ARRAY,
    foundation_card,
    foundation_for,
    is_safe,
    source_dests,
)
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    MAX_COLUMN,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    NUM_SOURCES,
    PARTNER,
    STOCK_SIZE,
    TOTAL_CARDS,
    WASTE,
)

#: Deepest search line (moves); a search that would go deeper ends as :data:`DEPTH_CAP`.
MAX_DEPTH = 1 << 16
#: Moves one position can have after the prunings, at most (11 column or waste tops with at
#: most 4 destinations each, 8 foundation tops with at most 3, the draw), with room to spare.
MAX_MOVES = 96

#: Positions one search with ``collect`` may record (the beam's local searches expand at most
#: 500 positions, so their lines are at most 500 moves long).
MAX_COLLECT = 512
#: Beam score weights (``python_solver._score``): per card founded, per blocker, per empty
#: column, per waste card.
W_FOUNDED, W_BLOCKER, W_EMPTY, W_WASTE = 100, 60, 30, 2

#: Status codes of :func:`dfs`.
RUNNING, SOLVED, EXHAUSTED, NODE_LIMIT, TABLE_FULL, DEPTH_CAP = 0, 1, 2, 3, 4, 5

#: Slots of the scalar array ``sc``.
(S_WLEN, S_POS, S_NSTOCK, S_EMPTY, S_DEPTH, S_NODES, S_FOUNDED, S_BEST, S_BEST_LEN, S_COUNT, S_STAMP, S_NCAND) = range(
    12
)
S_BLOCKERS = 12  # the beam score's blockers, kept by play and undo
NUM_SCALARS = 13
#: After the scalars, ``sc`` holds per pile and depth the lowest rank of each suit below that
#: depth (4 bits a suit, 13 = none): a card pushed is a blocker when its suit's lowest rank
#: below it is lower.  Column ``j`` from ``S_MINS + j * (MAX_COLUMN + 1)``, the waste from
#: ``S_WASTE_MINS``.
S_MINS = NUM_SCALARS
S_WASTE_MINS = S_MINS + NUM_COLUMNS * (MAX_COLUMN + 1)
SC_SIZE = S_WASTE_MINS + STOCK_SIZE + 1
_NO_LOWEST = 0xDDDD

#: ``_FOUNDED + card``: where a card just founded lies (the ``last`` of the move order).
_FOUNDED = 100
#: Move keys (lower first), as in ``solver.ordered_moves``.
K_WASTE_FOUNDATION, K_COLUMN_FOUNDATION, K_LONE_TO_BUILD, K_WASTE_TO_BUILD = 100, 110, 200, 300
K_TO_BUILD, K_DRAW, K_WASTE_TO_EMPTY, K_TO_EMPTY, K_NATURAL_TO_EMPTY, K_NATURAL_TO_BUILD = 400, 500, 600, 700, 800, 900
K_RETURN = 1000

PARTNER_ARRAY = np.array(PARTNER, dtype=np.int64)
#: ``BIT_INDEX[1 << i] = i`` for the 11 destination bits.
BIT_INDEX = np.zeros(1 << NUM_DESTS, dtype=np.int64)
BIT_INDEX[[1 << i for i in range(NUM_DESTS)]] = np.arange(NUM_DESTS)
#: ``4 * suit`` and rank (0 = ace) of each card id, for the beam score's 4-bit suit fields.
SUIT_SHIFT = np.array([4 * (c // 13) for c in range(52)], dtype=np.int64)
RANK_OF = np.array([c % 13 for c in range(52)], dtype=np.int64)


def _zobrist(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    rng = SplitMix64(seed)
    return np.array([rng.next64() for _ in range(int(np.prod(shape)))], dtype=np.uint64).reshape(shape)


#: Zobrist tables of the two keys: column depth x card, waste depth x card, stock position.
Z_COLUMN = np.stack([_zobrist(0xC01, (MAX_COLUMN, 52)), _zobrist(0xC02, (MAX_COLUMN, 52))])
Z_WASTE = np.stack([_zobrist(0xA51, (STOCK_SIZE, 52)), _zobrist(0xA52, (STOCK_SIZE, 52))])
Z_STOCK = np.stack([_zobrist(0x5701, (STOCK_SIZE + 1,)), _zobrist(0x5702, (STOCK_SIZE + 1,))])

_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix(x: np.uint64) -> np.uint64:
    """The SplitMix64 finaliser: a bijection of 64-bit words with ``mix(0) == 0``."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


class Position(NamedTuple):
    """The position being searched: its piles, its two keys kept up to date move by move, and
    the scalars (the position's and the search's, ``S_*``) with the lowest-rank words of the
    beam score's blockers.  What :func:`play`, :func:`undo`, :func:`ordered_moves` and the keys
    read and write."""

    cols: np.ndarray  # (NUM_COLUMNS, MAX_COLUMN) cards, bottom first
    clen: np.ndarray  # the columns' heights
    tops: np.ndarray  # each column's top card, -1 when it is empty
    topped: np.ndarray  # per card id (53: NO_CARD too), the bits of the columns it tops
    waste: np.ndarray  # the waste, bottom first (its length is sc[S_WLEN])
    stock: np.ndarray  # the stock in draw order (the next card is stock[sc[S_POS]])
    fnd: np.ndarray  # the 8 foundations' heights
    ch: np.ndarray  # (4, NUM_COLUMNS): per column its 2 raw hashes, then their mix()
    wh: np.ndarray  # the waste's 2 hashes, then the sums of the columns' mixes
    sc: np.ndarray  # the scalars S_* and, from S_MINS, the lowest-rank words

    @classmethod
    def zeros(cls) -> Position:
        return cls(
            np.zeros((NUM_COLUMNS, MAX_COLUMN), np.int64), np.zeros(NUM_COLUMNS, np.int64),
            np.full(NUM_COLUMNS, -1, np.int64), np.zeros(53, np.int64), np.zeros(STOCK_SIZE, np.int64),
            np.zeros(STOCK_SIZE, np.int64), np.zeros(NUM_FOUNDATIONS, np.int64), np.zeros((4, NUM_COLUMNS), np.uint64),
            np.zeros(4, np.uint64), np.zeros(SC_SIZE, np.int64),
        )  # fmt: skip


class Stack(NamedTuple):
    """The depth-first search's stack, per depth: the ordered moves, how many were tried, the
    move played and the foundation it used; the best line seen and the move order's scratch."""

    moves: np.ndarray  # (MAX_DEPTH, MAX_MOVES) the ordered moves of each depth
    nmov: np.ndarray  # how many
    tried: np.ndarray  # how many were tried
    played: np.ndarray  # the move played at each depth (the line from the root)
    fidx: np.ndarray  # the foundation it founded on or took from, else -1
    best_line: np.ndarray  # the line to the most cards founded (its length is sc[S_BEST_LEN])
    scratch: np.ndarray  # MAX_MOVES keys for ordered_moves' sort

    @classmethod
    def zeros(cls) -> Stack:
        return cls(
            np.zeros((MAX_DEPTH, MAX_MOVES), np.int16), np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64),
            np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64),
            np.zeros(MAX_MOVES, np.int64),
        )  # fmt: skip


class Candidates(NamedTuple):
    """The positions a search with ``collect`` entered (:data:`MAX_COLLECT` at most, the root
    first; their count is ``sc[S_NCAND]``): the beam's candidates."""

    score: np.ndarray  # the beam score (score())
    length: np.ndarray  # the depth, the length of its line
    # per candidate k: [k, 0] its parent candidate (-1 for the root), [k, 1] the move from it;
    # [d, 2]: the candidate on the current line at depth d
    links: np.ndarray
    keys: np.ndarray  # (MAX_COLLECT, 2) the two keys

    @classmethod
    def zeros(cls) -> Candidates:
        return cls(
            np.zeros(MAX_COLLECT, np.int64), np.zeros(MAX_COLLECT, np.int64), np.zeros((MAX_COLLECT, 3), np.int64),
            np.zeros((MAX_COLLECT, 2), np.uint64),
        )  # fmt: skip


class Search(NamedTuple):
    """Everything one search works on: what :func:`start`, :func:`begin` and :func:`dfs` take."""

    position: Position
    stack: Stack
    table: np.ndarray  # the transposition table, (2**bits, 2) uint64 (the module docstring)
    cands: Candidates


class SearchArrays:
    """The arrays of one search (see the module docstring), allocated once: :attr:`search` (a
    :class:`Search`) is what the kernels take.  The arrays of its parts are attributes too
    (``sa.cols``, ``sa.played``, ``sa.table``, ...); :meth:`grow` replaces the table."""

    def __init__(self, table_bits: int = 16) -> None:
        self.position = Position.zeros()
        self.stack = Stack.zeros()
        self.cands = Candidates.zeros()
        self.__dict__.update(self.position._asdict(), **self.stack._asdict())  # sa.cols, sa.played, ...
        self.new_table(table_bits)

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> np.ndarray:
            """The arrays of the position and of the stack, by their field names (set in ``__init__``)."""

    def _set_table(self, table: np.ndarray) -> None:
        self.table = table
        self.search = Search(self.position, self.stack, table, self.cands)

    def new_table(self, bits: int) -> None:
        self._set_table(np.zeros((1 << bits, 2), np.uint64))
        self.sc[S_STAMP] = 1
        self.sc[S_COUNT] = 0

    def next_stamp(self) -> None:
        """Start a new search on the same table: every entry becomes free."""
        if self.sc[S_STAMP] >= 2**32 - 2:
            self.table[:, 1] = 0
            self.sc[S_STAMP] = 0
        self.sc[S_STAMP] += 1
        self.sc[S_COUNT] = 0

    def grow(self) -> None:
        """Move the entries of this search to a table four times the size."""
        table = np.zeros((4 * self.table.shape[0], 2), np.uint64)
        grow_table(self.table, table, np.uint64(self.sc[S_STAMP]))
        self._set_table(table)


@njit(cache=True)
def grow_table(table, new_table, stamp):
    """Copy the entries of ``stamp`` from one table into an empty, larger one."""
    mask = np.uint64(new_table.shape[0] - 1)
    for i in range(table.shape[0]):
        if table[i, 1] & _LOW32 == stamp:
            h = table[i, 0] & mask
            while new_table[h, 1] & _LOW32 == stamp:
                h = (h + np.uint64(1)) & mask
            new_table[h, 0] = table[i, 0]
            new_table[h, 1] = table[i, 1]


@njit(cache=True, inline="always")
def _retop(j, cols, clen, tops, topped, sc):
    old = tops[j]
    if old >= 0:
        topped[old] &= ~(1 << j)
    n = clen[j]
    if n:
        new = cols[j, n - 1]
        tops[j] = new
        topped[new] |= 1 << j
        sc[S_EMPTY] &= ~(1 << j)
    else:
        tops[j] = -1
        sc[S_EMPTY] |= 1 << j


@njit(cache=True, inline="always")
def position_keys(p):
    """The two canonical keys of the position (see the module docstring); the sums of the
    columns' mixed hashes are kept up to date by :func:`play` and :func:`undo` in ``wh[2:]``."""
    pos = p.sc[S_POS]
    wh = p.wh
    return wh[0] + Z_STOCK[0, pos] + wh[2], wh[1] + Z_STOCK[1, pos] + wh[3]


@njit(cache=True, inline="always")
def _column_hash(ch, wh, j, n, card, sign):
    """Column ``j`` gains (``sign`` 1) or loses (-1) ``card`` at depth ``n``: update its two
    hashes, their mixes and the sums of the mixes."""
    for k in range(2):
        if sign > 0:
            ch[k, j] += Z_COLUMN[k, n, card]
        else:
            ch[k, j] -= Z_COLUMN[k, n, card]
        m = mix(ch[k, j])
        wh[2 + k] += m - ch[2 + k, j]
        ch[2 + k, j] = m


@njit(cache=True, inline="always")
def _pushed(sc, base, n, card):
    """``card`` went onto a pile at depth ``n`` (its lowest-rank words from ``sc[base]``)."""
    low = sc[base + n]
    shift = SUIT_SHIFT[card]
    r = RANK_OF[card]
    if (low >> shift) & 15 < r:
        sc[S_BLOCKERS] += 1
        sc[base + n + 1] = low
    else:
        sc[base + n + 1] = (low & ~(15 << shift)) | (r << shift)


@njit(cache=True, inline="always")
def _popped(sc, base, n, card):
    """``card`` left a pile from depth ``n``."""
    if (sc[base + n] >> SUIT_SHIFT[card]) & 15 < RANK_OF[card]:
        sc[S_BLOCKERS] -= 1


@njit(cache=True, inline="always")
def _column_push(j, card, cols, clen, ch, wh, sc):
    """Put ``card`` on column ``j`` (its hashes and blockers too; the caller re-tops it)."""
    n = clen[j]
    cols[j, n] = card
    clen[j] = n + 1
    _column_hash(ch, wh, j, n, card, 1)
    _pushed(sc, S_MINS + j * (MAX_COLUMN + 1), n, card)


@njit(cache=True, inline="always")
def _column_pop(j, cols, clen, ch, wh, sc):
    """Take the top card off column ``j`` and return it (its hashes and blockers too; the
    caller re-tops it)."""
    n = clen[j] - 1
    card = cols[j, n]
    clen[j] = n
    _column_hash(ch, wh, j, n, card, -1)
    _popped(sc, S_MINS + j * (MAX_COLUMN + 1), n, card)
    return card


@njit(cache=True, inline="always")
def _waste_push(card, waste, wh, sc):
    """Put ``card`` on the waste (its hashes and blockers too)."""
    n = sc[S_WLEN]
    waste[n] = card
    wh[0] += Z_WASTE[0, n, card]
    wh[1] += Z_WASTE[1, n, card]
    _pushed(sc, S_WASTE_MINS, n, card)
    sc[S_WLEN] = n + 1


@njit(cache=True, inline="always")
def _waste_pop(waste, wh, sc):
    """Take the top card off the waste and return it (its hashes and blockers too)."""
    n = sc[S_WLEN] - 1
    card = waste[n]
    sc[S_WLEN] = n
    wh[0] -= Z_WASTE[0, n, card]
    wh[1] -= Z_WASTE[1, n, card]
    _popped(sc, S_WASTE_MINS, n, card)
    return card


@njit(cache=True, inline="always")
def _derive_blockers(cols, clen, waste, sc):
    sc[S_BLOCKERS] = 0
    for j in range(NUM_COLUMNS):
        base = S_MINS + j * (MAX_COLUMN + 1)
        sc[base] = _NO_LOWEST
        for d in range(clen[j]):
            _pushed(sc, base, d, cols[j, d])
    sc[S_WASTE_MINS] = _NO_LOWEST
    for d in range(sc[S_WLEN]):
        _pushed(sc, S_WASTE_MINS, d, waste[d])


@njit(cache=True, inline="always")
def play(a, p):
    """Play the legal action ``a`` on the position ``p``; returns the foundation it founded on or
    took from, else -1."""
    cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc = p
    f = -1
    if a == DRAW:
        pos = sc[S_POS]
        _waste_push(stock[pos], waste, wh, sc)
        sc[S_POS] = pos + 1
        return f
    src = a // NUM_DESTS
    dst = a - src * NUM_DESTS
    if src < NUM_COLUMNS:
        card = _column_pop(src, cols, clen, ch, wh, sc)
        _retop(src, cols, clen, tops, topped, sc)
    elif src == WASTE:
        card = _waste_pop(waste, wh, sc)
    else:
        f = src - FIRST_FOUNDATION_SRC
        card = foundation_card(f, fnd[f])
        fnd[f] -= 1
        sc[S_FOUNDED] -= 1
    if dst == FOUNDATION:
        f = foundation_for(fnd, card)
        fnd[f] += 1
        sc[S_FOUNDED] += 1
    else:
        _column_push(dst, card, cols, clen, ch, wh, sc)
        _retop(dst, cols, clen, tops, topped, sc)
    return f


@njit(cache=True, inline="always")
def undo(a, f, p):
    """Take back the action ``a`` that :func:`play` played on ``p`` (``f``: what it returned)."""
    cols, clen, tops, topped, waste, _, fnd, ch, wh, sc = p
    if a == DRAW:
        _waste_pop(waste, wh, sc)
        sc[S_POS] -= 1
        return
    src = a // NUM_DESTS
    dst = a - src * NUM_DESTS
    if dst == FOUNDATION:
        card = foundation_card(f, fnd[f])
        fnd[f] -= 1
        sc[S_FOUNDED] -= 1
    else:
        card = _column_pop(dst, cols, clen, ch, wh, sc)
        _retop(dst, cols, clen, tops, topped, sc)
    if src < NUM_COLUMNS:
        _column_push(src, card, cols, clen, ch, wh, sc)
        _retop(src, cols, clen, tops, topped, sc)
    elif src == WASTE:
        _waste_push(card, waste, wh, sc)
    else:
        fnd[src - FIRST_FOUNDATION_SRC] += 1
        sc[S_FOUNDED] += 1


@njit(cache=True, inline="always")
def _uncover_key(cols, clen, fnd, j):
    """How good the card under column ``j``'s top is to uncover: 0 when it can be founded (or the
    column empties), else 1 + its rank."""
    n = clen[j]
    if n < 2:
        return 0
    under = cols[j, n - 2]
    if foundation_for(fnd, under) >= 0:
        return 0
    return 1 + under % 13


@njit(cache=True, inline="always")
def ordered_moves(p, last, foundation_return, out, scratch):
    """The search's moves from the position ``p`` into ``out``, best first, without the pruned
    ones; returns how many.  The numba twin of ``solver.ordered_moves`` (same moves, same order)."""
    cols, clen, _, topped, waste, _, fnd, _, _, sc = p
    empty = sc[S_EMPTY]
    first_empty = -1
    allowed = (1 << NUM_DESTS) - 1  # destinations not cut by "the first empty column only"
    if empty:
        low = empty & -empty
        allowed &= ~empty | low
        first_empty = 0
        while low > 1:
            low >>= 1
            first_empty += 1
    n = 0
    for src in range(NUM_SOURCES):
        if src < NUM_COLUMNS:
            h = clen[src]
            if h == 0 or src == last:  # (the card just moved there is not moved again at once)
                continue
            card = cols[src, h - 1]
        elif src == WASTE:
            h = sc[S_WLEN]
            if h == 0:
                continue
            card = waste[h - 1]
        else:
            if not foundation_return:
                break
            f = src - FIRST_FOUNDATION_SRC
            h = fnd[f]
            if h == 0 or fnd[PARTNER_ARRAY[f]] >= h - 1:
                continue  # nothing there, or a dominated return
            card = foundation_card(f, h)
            if card == last - _FOUNDED:
                continue  # the card just founded (or its twin)
        dests = source_dests(src, card, empty, topped[PARENT_ARRAY[card]], fnd) & allowed
        uk = 0
        if src < NUM_COLUMNS and dests:
            uk = _uncover_key(cols, clen, fnd, src)
        while dests:
            low = dests & -dests
            dests ^= low
            dst = BIT_INDEX[low]
            action = src * NUM_DESTS + dst
            if src >= FIRST_FOUNDATION_SRC:
                scratch[n] = (K_RETURN + h) * 256 + action
                n += 1
                continue
            if dst == FOUNDATION:
                if is_safe(fnd, card):
                    out[0] = action
                    return 1
                if src == WASTE:
                    scratch[n] = K_WASTE_FOUNDATION * 256 + action
                else:
                    scratch[n] = (K_COLUMN_FOUNDATION + uk) * 256 + action
                n += 1
                continue
            empty_dst = clen[dst] == 0
            if src == WASTE:
                scratch[n] = (K_WASTE_TO_EMPTY if empty_dst else K_WASTE_TO_BUILD) * 256 + action
                n += 1
                continue
            if h == 1:
                if empty_dst:
                    continue  # a lone card to an empty column: the same position
                scratch[n] = K_LONE_TO_BUILD * 256 + action
                n += 1
                continue
            natural = cols[src, h - 2] == card + 1
            if empty_dst:
                key = K_NATURAL_TO_EMPTY if natural else K_TO_EMPTY + uk
            elif natural:
                key = K_NATURAL_TO_BUILD + uk
            else:
                key = K_TO_BUILD + uk
            scratch[n] = key * 256 + action
            n += 1
    if sc[S_POS] < sc[S_NSTOCK]:
        scratch[n] = K_DRAW * 256 + DRAW
        n += 1
    for i in range(1, n):  # insertion sort by (key, action)
        x = scratch[i]
        k = i - 1
        while k >= 0 and scratch[k] > x:
            scratch[k + 1] = scratch[k]
            k -= 1
        scratch[k + 1] = x
    for i in range(n):
        out[i] = scratch[i] & 255
    return n


@njit(cache=True, inline="always")
def _moved_to(a, p):
    """Where the card ``a`` moves will lie (the ``last`` of the move order), before playing ``a``."""
    if a == DRAW:
        return -1
    src = a // NUM_DESTS
    dst = a - src * NUM_DESTS
    if dst != FOUNDATION:
        return dst
    if src < NUM_COLUMNS:
        return _FOUNDED + p.cols[src, p.clen[src] - 1]
    return _FOUNDED + p.waste[p.sc[S_WLEN] - 1]


@njit(cache=True, inline="always")
def child_keys(a, p):
    """The two keys of the position after the legal action ``a``, without playing it."""
    cols, clen, _, _, waste, stock, fnd, ch, wh, sc = p
    pos = sc[S_POS]
    w0 = wh[0]
    w1 = wh[1]
    m0 = wh[2]
    m1 = wh[3]
    if a == DRAW:
        n = sc[S_WLEN]
        card = stock[pos]
        return w0 + Z_WASTE[0, n, card] + Z_STOCK[0, pos + 1] + m0, w1 + Z_WASTE[1, n, card] + Z_STOCK[1, pos + 1] + m1
    src = a // NUM_DESTS
    dst = a - src * NUM_DESTS
    if src < NUM_COLUMNS:
        n = clen[src] - 1
        card = cols[src, n]
        m0 += mix(ch[0, src] - Z_COLUMN[0, n, card]) - ch[2, src]
        m1 += mix(ch[1, src] - Z_COLUMN[1, n, card]) - ch[3, src]
    elif src == WASTE:
        n = sc[S_WLEN] - 1
        card = waste[n]
        w0 -= Z_WASTE[0, n, card]
        w1 -= Z_WASTE[1, n, card]
    else:
        f = src - FIRST_FOUNDATION_SRC
        card = foundation_card(f, fnd[f])
    if dst != FOUNDATION:
        n = clen[dst]
        m0 += mix(ch[0, dst] + Z_COLUMN[0, n, card]) - ch[2, dst]
        m1 += mix(ch[1, dst] + Z_COLUMN[1, n, card]) - ch[3, dst]
    return w0 + Z_STOCK[0, pos] + m0, w1 + Z_STOCK[1, pos] + m1


@njit(cache=True)
def new_stamp(table, sc):
    """Start a new search on the table from numba (as ``SearchArrays.next_stamp``)."""
    if sc[S_STAMP] >= 2**32 - 2:
        table[:, 1] = 0
        sc[S_STAMP] = 0
    sc[S_STAMP] += 1
    sc[S_COUNT] = 0


@njit(cache=True)
def _insert(table, sc, k1, k2):
    """Insert the keys; ``True`` when they were already in the table.  An entry is ``key1`` and
    the high 32 bits of ``key2`` above the search's stamp (an entry of another stamp is free):
    96 bits of key compared, one 16-byte entry read per probe."""
    stamp = np.uint64(sc[S_STAMP])
    check = (k2 & _HIGH32) | stamp
    mask = np.uint64(table.shape[0] - 1)
    h = k1 & mask
    while table[h, 1] & _LOW32 == stamp:
        if table[h, 0] == k1 and table[h, 1] == check:
            return True
        h = (h + np.uint64(1)) & mask
    table[h, 0] = k1
    table[h, 1] = check
    sc[S_COUNT] += 1
    return False


@njit(cache=True, inline="always")
def add_key(seen1, seen2, used, mask, k1, k2):
    """Add the keys to a small open-addressing set (``used`` marks the taken slots, ``mask`` is
    its size minus one, a power of two); ``True`` when they were in it already."""
    h = k1 & mask
    while used[h]:
        if seen1[h] == k1 and seen2[h] == k2:
            return True
        h = (h + np.uint64(1)) & mask
    used[h] = True
    seen1[h] = k1
    seen2[h] = k2
    return False


@njit(cache=True, inline="always")
def _score(sc):
    empty = 0
    e = sc[S_EMPTY]
    while e:
        e &= e - 1
        empty += 1
    return W_FOUNDED * sc[S_FOUNDED] - W_BLOCKER * sc[S_BLOCKERS] + W_EMPTY * empty - W_WASTE * sc[S_WLEN]


@njit(cache=True)
def score(p):
    """The beam's score of the position (``python_solver._score``): 100 per card founded, -60
    per blocker (a card in a column or the waste above a lower card of its suit, counted by
    :func:`play` and :func:`undo`), +30 per empty column, -2 per waste card."""
    return _score(p.sc)


@njit(cache=True, inline="always")
def _record(c, sc, played, d, k1, k2):
    """Record the position at depth ``d`` (keys ``k1``, ``k2``) in the candidates ``c`` (see
    :func:`start`)."""
    k = sc[S_NCAND]
    if k < MAX_COLLECT and d < MAX_COLLECT:
        c_score, c_length, c_links, c_keys = c
        c_score[k] = _score(sc)
        c_length[k] = d
        if d:
            c_links[k, 0] = c_links[d - 1, 2]
            c_links[k, 1] = played[d - 1]
        else:
            c_links[k, 0] = -1
            c_links[k, 1] = -1
        c_links[d, 2] = k
        c_keys[k, 0] = k1
        c_keys[k, 1] = k2
        sc[S_NCAND] = k + 1


@njit(cache=True, inline="always")
def derive_tops(p):
    """Make the top tables, the empty-column mask, the founded count and the blockers of the
    position ``p`` (not the hashes)."""
    cols, clen, tops, topped, waste, _, fnd, _, _, sc = p
    topped[:] = 0
    tops[:] = -1
    sc[S_EMPTY] = 0
    for j in range(NUM_COLUMNS):
        _retop(j, cols, clen, tops, topped, sc)
    founded = 0
    for f in range(NUM_FOUNDATIONS):
        founded += fnd[f]
    sc[S_FOUNDED] = founded
    _derive_blockers(cols, clen, waste, sc)


@njit(cache=True)
def derive(p):
    """:func:`derive_tops` and the hashes, from the position in ``cols``/``clen``/``waste``/``fnd``
    and ``sc[S_WLEN]``."""
    derive_tops(p)
    cols, clen, waste, ch, wh = p.cols, p.clen, p.waste, p.ch, p.wh
    ch[:] = 0
    wh[:] = 0
    for j in range(NUM_COLUMNS):
        for d in range(clen[j]):
            ch[0, j] += Z_COLUMN[0, d, cols[j, d]]
            ch[1, j] += Z_COLUMN[1, d, cols[j, d]]
        for k in range(2):
            ch[2 + k, j] = mix(ch[k, j])
            wh[2 + k] += ch[2 + k, j]
    for d in range(p.sc[S_WLEN]):
        wh[0] += Z_WASTE[0, d, waste[d]]
        wh[1] += Z_WASTE[1, d, waste[d]]


@njit(cache=True)
def start(s, foundation_return, best, collect):
    """Set up the search ``s`` from the position in ``cols``/``clen``/``waste``/``stock``/``fnd``
    and ``sc[S_WLEN]``, ``sc[S_POS]``, ``sc[S_NSTOCK]`` (the rest is derived here): the keys, the
    top tables, the root in the table and its moves.  One node (the root) is counted.  ``best``:
    the most cards founded seen so far (a line is kept only for positions above it); with
    ``collect`` every position entered (the root first) is recorded with its score, depth, keys
    and link (its parent's record and the move from it: lines are read back by following the
    links) in ``s.cands`` (:data:`MAX_COLLECT` at most; a parent is always recorded before its
    children)."""
    derive(s.position)
    begin(s, foundation_return, best, collect)


@njit(cache=True)
def begin(s, foundation_return, best, collect):
    """:func:`start` on a position whose tables and hashes are already derived (the beam's)."""
    p = s.position
    sc = p.sc
    sc[S_BEST] = best
    sc[S_BEST_LEN] = 0
    sc[S_DEPTH] = 0
    sc[S_NODES] = 1
    sc[S_NCAND] = 0
    k1, k2 = position_keys(p)
    _insert(s.table, sc, k1, k2)
    if collect:
        _record(s.cands, sc, s.stack.played, 0, k1, k2)
    st = s.stack
    st.nmov[0] = ordered_moves(p, -1, foundation_return, st.moves[0], st.scratch)
    st.tried[0] = 0


@njit(cache=True)
def dfs(s, foundation_return, draws, limit, slice_nodes, collect):
    """Run the depth-first search ``s`` (set up by :func:`start`, or resumed) until it ends or has
    expanded ``slice_nodes`` more positions; returns a status code.

    The twin of ``python_solver._search``: a position already in the table is not entered again
    (its keys come from :func:`child_keys` before the move is played, so a transposition costs
    no play and undo); the best line (most cards founded) is kept in
    ``best_line[:sc[S_BEST_LEN]]``; :data:`NODE_LIMIT` when ``limit`` positions were expanded;
    without ``draws`` the draw is never played; with ``collect`` every position entered is
    recorded (see :func:`start`).  After :data:`SOLVED` the winning line is
    ``played[:sc[S_DEPTH]]``.
    """
    p = s.position
    sc = p.sc
    table = s.table
    moves, nmov, tried, played, fidx, best_line, scratch = s.stack
    cands = s.cands
    fill = table.shape[0] * 7 // 10
    stop = sc[S_NODES] + slice_nodes
    d = sc[S_DEPTH]
    while True:
        if sc[S_COUNT] >= fill:
            sc[S_DEPTH] = d
            return TABLE_FULL
        if tried[d] == nmov[d]:
            if d == 0:
                sc[S_DEPTH] = d
                return EXHAUSTED
            d -= 1
            undo(played[d], fidx[d], p)
            continue
        a = moves[d, tried[d]]
        tried[d] += 1
        if a == DRAW and not draws:
            continue
        k1, k2 = child_keys(a, p)
        if _insert(table, sc, k1, k2):
            continue
        last = _moved_to(a, p)
        f = play(a, p)
        played[d] = a
        fidx[d] = f
        d += 1
        founded = sc[S_FOUNDED]
        if founded > sc[S_BEST]:
            sc[S_BEST] = founded
            best_line[:d] = played[:d]
            sc[S_BEST_LEN] = d
            if founded == TOTAL_CARDS:
                sc[S_DEPTH] = d
                return SOLVED
        if collect:
            _record(cands, sc, played, d, k1, k2)
        if sc[S_NODES] >= limit:
            sc[S_DEPTH] = d
            return NODE_LIMIT
        sc[S_NODES] += 1
        if d >= MAX_DEPTH - 1:
            sc[S_DEPTH] = d
            return DEPTH_CAP
        nmov[d] = ordered_moves(p, last, foundation_return, moves[d], scratch)
        tried[d] = 0
        if sc[S_NODES] >= stop:
            sc[S_DEPTH] = d
            return RUNNING
