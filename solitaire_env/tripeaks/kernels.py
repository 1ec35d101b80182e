"""The numba twins of the TriPeaks rule primitives of :mod:`solitaire_env.tripeaks.rules`.

This is the only numba copy of the TriPeaks rules: the batch kernels, the exact solver and
the agents' playouts import these functions and tables.  Each function has a pure-Python
twin of the same name in ``rules.py``; ``tests/tripeaks/test_tripeaks_kernels.py`` compares every pair
(and both with :class:`~solitaire_env.tripeaks.game.TriPeaksGame`) on many random positions.

Positions are bit masks over the 28 slots in ``np.int64``.  The tables are module constants
built from ``rules.py`` (numba freezes module globals at compile time: no cost per call).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solitaire_env.tripeaks.rules import (
    ALL_SLOTS,
    COVER_MASK,
    COVERS,
    DECK_SIZE,
    DRAW,
    NUM_KEYS,
    NUM_RANKS,
    NUM_SLOTS,
    RANK_BITS,
)

#: ``COVER[s]``: bit mask of the slots covering slot ``s`` (``rules.COVER_MASK``).
COVER = np.array(COVER_MASK, dtype=np.int64)
#: ``COVERS_PAD[s]``: the (up to two) slots slot ``s`` lies on, -1 padded (``rules.COVERS``).
COVERS_PAD = np.array([[*COVERS[s], -1, -1][:2] for s in range(NUM_SLOTS)], dtype=np.int64)

#: A de Bruijn sequence B(2, 6): ``(low * DEBRUIJN) >> 58`` differs for each one-bit ``low``.
DEBRUIJN = 0x03F79D71B4CB0A89
#: ``BIT_INDEX[((1 << k) * DEBRUIJN mod 2**64) >> 58] == k`` for k < 64 (see :func:`bit_index`).
BIT_INDEX = np.zeros(64, dtype=np.int64)
for _k in range(64):
    BIT_INDEX[((DEBRUIJN << _k) & (2**64 - 1)) >> 58] = _k
#: ``BIT_OF_MOD37[(1 << k) % 37] == k`` for k < 36 (the powers of two are distinct mod 37).
BIT_OF_MOD37 = np.zeros(37, dtype=np.int64)
for _k in range(36):
    BIT_OF_MOD37[(1 << _k) % 37] = _k


@njit(cache=True, inline="always")
def bit_index(low):
    """The index of the one set bit of ``low`` (a power of two below 2**63), by de Bruijn."""
    return BIT_INDEX[((low * np.int64(DEBRUIJN)) >> 58) & 63]


@njit(cache=True, inline="always")
def popcount(x):
    """The number of set bits of a non-negative int64."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def card_key(card):
    """``rules.card_key``: the waste key of a card id, its rank 1..13, or 0 for a joker or no card (-1)."""
    if card < 0 or card >= DECK_SIZE:
        return 0
    return card % NUM_RANKS + 1


@njit(cache=True, inline="always")
def follows(key, rank, wrap):
    """``rules.follows``: a card of ``rank`` may be played on waste key ``key`` (0: any rank)."""
    if key == 0:
        return True
    if rank == 0:
        return False
    diff = abs(key - rank)
    return diff == 1 or (wrap and diff == NUM_RANKS - 1)


@njit(cache=True, inline="always")
def near_ranks(rank_set, wrap):
    """``rules.near_ranks``: the ranks one above or below a rank of ``rank_set`` (K-A with ``wrap``)."""
    ranks = rank_set & RANK_BITS
    near = ((ranks << 1) | (ranks >> 1)) & RANK_BITS
    if wrap:
        if ranks & (1 << NUM_RANKS):
            near |= 2  # an ace lies next to a king
        if ranks & 2:
            near |= 1 << NUM_RANKS
    return near


@njit(cache=True)
def accept_masks(slot_rank, wrap, accept):
    """``rules.accept_masks`` into ``accept[0..13]`` (``slot_rank[s]``: rank 1..13, 0 unknown)."""
    by_rank = np.zeros(NUM_RANKS + 1, np.int64)
    for s in range(NUM_SLOTS):
        by_rank[slot_rank[s]] |= np.int64(1) << s
    accept[0] = ALL_SLOTS
    for key in range(1, NUM_KEYS):
        mask = np.int64(0)
        for r in range(1, NUM_RANKS + 1):
            if follows(key, r, wrap):
                mask |= by_rank[r]
        accept[key] = mask


@njit(cache=True, inline="always")
def newly_exposed(removed, slot):
    """``rules.newly_exposed``: the slots that removing ``slot`` exposes (``removed`` includes it)."""
    out = np.int64(0)
    for k in range(2):
        t = COVERS_PAD[slot, k]
        if t >= 0 and removed & COVER[t] == COVER[t]:
            out |= np.int64(1) << t
    return out


@njit(cache=True)
def exposed_slots(removed):
    """``rules.exposed_slots``: not removed, every covering card removed."""
    exposed = np.int64(0)
    for s in range(NUM_SLOTS):
        bit = np.int64(1) << s
        if removed & bit == 0 and removed & COVER[s] == COVER[s]:
            exposed |= bit
    return exposed


@njit(cache=True, inline="always")
def remove_slot(removed, exposed, slot):
    """``rules.remove_slot``: ``(removed, exposed)`` after removing the exposed card of ``slot``."""
    bit = np.int64(1) << slot
    removed |= bit
    return removed, (exposed & ~bit) | newly_exposed(removed, slot)


@njit(cache=True, inline="always")
def draw_allowed(stock_left, removable, when_stuck):
    """``rules.draw_allowed``: a stock card is left and (``when_stuck``) no removal is legal."""
    return stock_left > 0 and not (when_stuck and removable != 0)


@njit(cache=True, inline="always")
def legal_bits(removed, removable, stock_left, when_stuck):
    """``rules.legal_bits``: the legal-action mask (bit 28 = draw)."""
    if removed == ALL_SLOTS:
        return np.int64(0)
    if draw_allowed(stock_left, removable, when_stuck):
        return removable | (np.int64(1) << DRAW)
    return removable
