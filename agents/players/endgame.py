"""TriPeaks: the exact fair value of a position, by expectimax over the unseen cards (numba).

A player who knows only what was seen faces a game of chance, not of hidden state: every unseen
card is equally likely to be in every unseen place, so the rank a face-down slot shows when it
is turned up, and the rank of the next stock card, are draws from the unseen cards (jokers lie
only in the stock: a slot shows a non-joker, uniformly; the next stock card is a joker with
probability ``jokers / stock left``, else a non-joker, uniformly).  The best a fair player can
do from a position is then its *expectimax* value, the win probability:

- 1 when all 28 cards are removed, 0 when no move is legal;
- otherwise the best of each legal move's value.  A removal's value is its position's, averaged
  over the ranks of the face-down cards it turns up; the draw's is averaged over the next stock
  card.

:func:`fair_values` computes this exactly for every legal move, by a depth-first search over
(removed slots, waste key, ranks the search turned up, unseen cards left) with a transposition
table, and stops at ``max_nodes`` positions (it then returns no values, and the caller plays as
it would have).  It is exact and fair: it reads the known ranks and the *counts* of the unseen
ranks, never a hidden card.  It is small only late in a game (few face-down cards, a short
stock): the agents call it there.  The rules come from :mod:`solitaire_env.tripeaks.kernels`
(``remove_slot``, ``follows``, ``draw_allowed``, ``exposed_slots``); suits never matter, so ranks
suffice.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solitaire_env.tripeaks.kernels import bit_index, draw_allowed, exposed_slots, follows, remove_slot
from solitaire_env.tripeaks.rules import ALL_SLOTS, DRAW, NUM_KEYS, NUM_SLOTS

__all__ = ["MAX_FACE_DOWN", "TABLE_BITS", "Search", "fair_values", "new_table", "root_values"]

#: log2 of the transposition table's entries (1M: 32 MB with its codes, values and stamps).
TABLE_BITS = 20
#: The most face-down cards a search starts with (their ranks are packed 4 bits each in a key).
MAX_FACE_DOWN = 7
_PROBES = 32


def new_table(bits: int = TABLE_BITS) -> tuple[np.ndarray, ...]:
    """A transposition table for :func:`fair_values`: ``(keys, codes, values, generations,
    stamp)``; reuse it across calls (each call is a new generation: an older entry counts as
    free, so nothing is cleared)."""
    n = 1 << bits
    return (
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.float64),
        np.zeros(n, np.int64),
        np.zeros(1, np.int64),
    )


class Search(NamedTuple):
    """What a search reads and changes besides the position it is at: ``slot_rank`` (the known
    ranks, 0 where unknown) and ``counts`` (the unseen cards by rank, 0 = jokers), both changed
    and restored as the search turns cards up and draws; ``radix`` (the place of each rank's
    count in a position's code), ``down`` (the slots face down at the root: their ranks, packed,
    are part of the table's key), the rules ``wrap`` and ``when_stuck``, ``table``
    (:func:`new_table`'s) and ``nodes`` (positions entered, and the limit)."""

    slot_rank: np.ndarray
    counts: np.ndarray
    radix: np.ndarray
    down: np.ndarray
    wrap: bool
    when_stuck: bool
    table: tuple[np.ndarray, ...]
    nodes: np.ndarray


@njit(cache=True, inline="always")
def _removable(exposed, key, slot_rank, wrap):
    """The exposed slots whose known rank follows waste key ``key`` (:func:`kernels.follows`); the
    kernels' accept masks are fixed per deal, but here ranks turn up during the search."""
    moves = np.int64(0)
    rest = exposed
    while rest:
        low = rest & -rest
        rest ^= low
        if follows(key, slot_rank[bit_index(low)], wrap):
            moves |= low
    return moves


@njit(cache=True, inline="always")
def _slot(a, b, mask):
    h = a * np.int64(-7046029254386353131) ^ b * np.int64(0x632BE59BD9B4E019)
    return (h ^ (h >> 31)) & mask


@njit(cache=False)  # numba's cache of a recursive function crashes when loaded (seen here)
def _value(search, removed, exposed, key, new, code, stock, draw_only):
    """The expectimax value of a position (see the module docstring) in a :class:`Search`, or
    -1.0 once the search has entered more than ``nodes[1]`` positions.  ``new``: the slots the
    last removal exposed (those still unknown are turned up first: a chance node over their
    ranks, each a uniform non-joker unseen card); ``code`` is ``counts``' index in ``radix``;
    ``stock`` the stock cards left; ``draw_only``: the value of the draw alone (for
    :func:`fair_values`' root).  One self-recursive function: numba types no mutual recursion.
    The search's arrays are read where they are used (``search.counts[r]``): a field kept in a
    local would cost a reference count per position."""
    if removed == ALL_SLOTS:
        return 1.0
    while new and search.slot_rank[bit_index(new & -new)] != 0:
        new ^= new & -new  # a slot known already (seen before an undo covered it again)
    if new:
        t = bit_index(new & -new)
        total = 0
        for r in range(1, NUM_KEYS):
            total += search.counts[r]
        ev = 0.0
        for r in range(1, NUM_KEYS):
            c = search.counts[r]
            if c == 0:
                continue
            search.counts[r] = c - 1
            search.slot_rank[t] = r
            v = _value(search, removed, exposed, key, new ^ (new & -new), code - search.radix[r], stock, False)
            search.slot_rank[t] = 0
            search.counts[r] = c
            if v < 0.0:
                return -1.0
            ev += v * c / total
        return ev
    keys, codes, vals, gens, stamp = search.table
    gen = stamp[0]
    mask = keys.shape[0] - 1
    turned = np.int64(0)
    for i in range(search.down.shape[0]):
        turned |= search.slot_rank[search.down[i]] << (4 * i)
    a = removed | (key << 28) | (turned << 32)
    h = _slot(a, code, mask)
    if not draw_only:
        for i in range(_PROBES):
            j = (h + i) & mask
            if gens[j] != gen:
                break
            if keys[j] == a and codes[j] == code:
                return vals[j]
    search.nodes[0] += 1
    if search.nodes[0] > search.nodes[1]:
        return -1.0
    moves = _removable(exposed, key, search.slot_rank, search.wrap)
    best = 0.0
    rest = 0 if draw_only else moves
    while rest and best < 1.0:
        low = rest & -rest
        rest ^= low
        s = bit_index(low)
        r2, e2 = remove_slot(removed, exposed, s)
        v = _value(search, r2, e2, search.slot_rank[s], e2 & ~exposed, code, stock, False)
        if v < 0.0:
            return -1.0
        if v > best:
            best = v
    if best < 1.0 and draw_allowed(stock, moves, search.when_stuck):
        # the next stock card: a joker with probability jokers / stock, else a uniform non-joker
        jokers = search.counts[0]
        others = 0
        for r in range(1, NUM_KEYS):
            others += search.counts[r]
        ev = 0.0
        for r in range(NUM_KEYS):
            c = search.counts[r]
            if c == 0:
                continue
            p = jokers / stock if r == 0 else (1.0 - jokers / stock) * c / others
            search.counts[r] = c - 1
            v = _value(search, removed, exposed, r, 0, code - search.radix[r], stock - 1, False)
            search.counts[r] = c
            if v < 0.0:
                return -1.0
            ev += p * v
        if ev > best:
            best = ev
    if draw_only:
        return best
    for i in range(_PROBES):
        j = (h + i) & mask
        if gens[j] != gen:
            keys[j] = a
            codes[j] = code
            vals[j] = best
            gens[j] = gen
            break
    return best


def fair_values(
    layout: np.ndarray,
    removed: int,
    key: int,
    unseen: np.ndarray,
    stock: int,
    wrap: bool,
    when_stuck: bool,
    max_nodes: int,
    table: tuple[np.ndarray, ...],
) -> tuple[np.ndarray, np.ndarray, int]:
    """The exact fair win probability of each legal move.

    ``layout``: the 28 ranks, -1 (or 0) where never seen; ``removed`` the removed-slot mask;
    ``key`` the waste key (0: anything plays); ``unseen`` the unseen cards' counts by rank
    (index 0: jokers); ``stock`` the stock cards left; ``table``: :func:`new_table`.  Returns
    ``(moves, values, nodes)``: the legal moves (removals by slot, then ``DRAW``), their values
    and the positions searched; no moves when the search passed ``max_nodes`` positions, or when
    more than :data:`MAX_FACE_DOWN` cards are face down (then ``nodes`` is -1).  The kernel is
    :func:`root_values`, which takes the rules as one argument."""
    return root_values(layout, removed, key, unseen, stock, (wrap, when_stuck), max_nodes, table)


@njit(cache=False)  # calls the recursive _value: not cached either
def root_values(layout, removed, key, unseen, stock, rules, max_nodes, table):
    """:func:`fair_values` with ``rules`` the tuple ``(wrap, when_stuck)``: it builds the
    :class:`Search` and values each legal move at the root."""
    wrap, when_stuck = rules
    out_moves = np.empty(NUM_SLOTS + 1, np.int64)
    out_vals = np.empty(NUM_SLOTS + 1, np.float64)
    slot_rank = np.zeros(NUM_SLOTS, np.int64)
    n_down = 0
    for s in range(NUM_SLOTS):
        if layout[s] > 0:
            slot_rank[s] = layout[s]
        elif not removed >> s & 1:
            n_down += 1
    if n_down > MAX_FACE_DOWN:
        return out_moves[:0], out_vals[:0], np.int64(-1)
    down = np.empty(n_down, np.int64)
    n_down = 0
    for s in range(NUM_SLOTS):
        if slot_rank[s] == 0 and not removed >> s & 1:
            down[n_down] = s
            n_down += 1
    counts = unseen.copy()
    radix = np.empty(NUM_KEYS, np.int64)
    code = np.int64(0)
    base = np.int64(1)
    for r in range(NUM_KEYS):
        radix[r] = base
        code += counts[r] * base
        base *= counts[r] + 1
    table[4][0] += 1  # a new generation: the older entries are free
    nodes = np.zeros(2, np.int64)
    nodes[1] = max_nodes
    search = Search(slot_rank, counts, radix, down, wrap, when_stuck, table, nodes)
    exposed = exposed_slots(removed)
    moves = _removable(exposed, key, slot_rank, wrap)
    n = 0
    for m in range(DRAW + 1):  # the removals by slot, then the draw (DRAW is slot 28's number)
        if m == DRAW:
            if not draw_allowed(stock, moves, when_stuck):
                break
            r2, e2, k2, new = removed, exposed, key, np.int64(0)
        elif moves >> m & 1:
            r2, e2 = remove_slot(removed, exposed, m)
            k2, new = slot_rank[m], e2 & ~exposed
        else:
            continue
        v = _value(search, r2, e2, k2, new, code, stock, m == DRAW)
        if v < 0.0:
            return out_moves[:0], out_vals[:0], nodes[0]
        out_moves[n] = m
        out_vals[n] = v
        n += 1
    return out_moves[:n], out_vals[:n], nodes[0]
