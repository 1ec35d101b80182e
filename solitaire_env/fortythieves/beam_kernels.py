"""The numba beam over the draws of the Forty Thieves solver (the twin of ``python_solver._beam``).

A beam layer is a set of positions with the same number of cards drawn, each with its line
from the root.  The beam's state is three NamedTuples of numpy arrays, made once per beam, beside
the search's :class:`~solitaire_env.fortythieves.search_kernels.Search`:

- :class:`Layer`: one row per position of a layer (its piles, its hashes, its line);
- :class:`Pool`: the positions the searches from one layer entered (sort key, the layer entry
  searched from, keys, link, line length);
- :class:`Beam`: the beam's scalars and limits (``bs``, the ``B_*`` slots) and its two lines out.

:func:`expand` runs, for a range of the layer's positions, the search's depth-first search
(:func:`~solitaire_env.fortythieves.search_kernels.dfs`, no draws, at most ``LOCAL_NODES``
positions, ``END_NODES`` once the stock is empty) and pools every position it entered with its
beam score, its keys and its link (the position it was entered from and the move);
:func:`select` takes the pool in order (best score first, ties in the order met: a partition
finds the head, which alone is sorted unless duplicates use it up), keeps the first ``width``
positions with distinct keys, replays each one's moves by its links and plays the draw from
each into the next layer.  The Python driver (``solver._beam``) calls :func:`expand` in chunks so that
it can look at the clock between them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves.rules import DRAW, MAX_COLUMN, NUM_COLUMNS, NUM_FOUNDATIONS, STOCK_SIZE

#: A line from the solver's root is at most 64 draws with the moves between them (at most
#: ``MAX_COLLECT`` each) and the search after the last draw: lines longer than this end the beam.
MAX_LINE = 4096
#: Statuses of :func:`expand`: it went through its range (the layer may go on), a line wins,
#: the node budget is spent.
EXPANDED, WON, SPENT = 0, 1, 2
#: Scalars of a beam (``Beam.bs``): nodes used, entries in the pool, best founded, its line's
#: length, the winning line's length; then the limits :func:`expand` reads: the beam's node
#: budget, the positions searched from a layer entry that can still draw and from one that
#: cannot.
B_NODES, B_POOL, B_BEST, B_BEST_LEN, B_WIN_LEN, B_MAX_NODES, B_LOCAL_NODES, B_END_NODES = range(8)


class Layer(NamedTuple):
    """The positions of one beam layer (one row each, their hashes too) and their lines."""

    cols: np.ndarray  # (size, NUM_COLUMNS, MAX_COLUMN)
    clen: np.ndarray
    waste: np.ndarray
    wlen: np.ndarray
    pos: np.ndarray  # the stock position
    fnd: np.ndarray
    hashes: np.ndarray  # the search's ch and wh, flattened
    lines: np.ndarray  # (size, MAX_LINE) the line from the solver's root
    llen: np.ndarray
    n: np.ndarray  # [0]: the entries in use

    @classmethod
    def zeros(cls, size: int) -> Layer:
        return cls(
            np.zeros((size, NUM_COLUMNS, MAX_COLUMN), np.int8), np.zeros((size, NUM_COLUMNS), np.int8),
            np.zeros((size, STOCK_SIZE), np.int8), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros((size, NUM_FOUNDATIONS), np.int8), np.zeros((size, 4 * NUM_COLUMNS + 4), np.uint64),
            np.zeros((size, MAX_LINE), np.int16), np.zeros(size, np.int64), np.zeros(1, np.int64),
        )  # fmt: skip


class Pool(NamedTuple):
    """The positions the searches of one layer entered: score, layer entry searched from, keys,
    link (the pool entry it was entered from, -1 for the layer entry itself, and the move from
    there) and the length of its line from the layer entry."""

    order: np.ndarray  # (20_000 - score) << 32 | pool index: the sort key
    parent: np.ndarray
    keys: np.ndarray
    links: np.ndarray
    mlen: np.ndarray

    @classmethod
    def zeros(cls, size: int) -> Pool:
        return cls(
            np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros((size, 2), np.uint64),
            np.zeros((size, 2), np.int64), np.zeros(size, np.int64),
        )  # fmt: skip


class Beam(NamedTuple):
    """One beam's scalars (``B_*``) and its two lines out: to the most cards founded seen
    (``best_out[:bs[B_BEST_LEN]]``) and the winning one (``win_out[:bs[B_WIN_LEN]]``)."""

    bs: np.ndarray
    best_out: np.ndarray
    win_out: np.ndarray

    @classmethod
    def zeros(cls) -> Beam:
        return cls(np.zeros(8, np.int64), np.zeros(MAX_LINE, np.int16), np.zeros(MAX_LINE, np.int16))


@njit(cache=True, inline="always")
def store(p, layer, line, line_len):
    """Append the position ``p`` (with its hashes), with ``line[:line_len]``, to a layer."""
    cols, clen, waste, fnd, ch, wh, sc = p.cols, p.clen, p.waste, p.fnd, p.ch, p.wh, p.sc
    lcols, lclen, lhash = layer.cols, layer.clen, layer.hashes
    i = layer.n[0]
    for k in range(4):
        for j in range(NUM_COLUMNS):
            lhash[i, k * NUM_COLUMNS + j] = ch[k, j]
        lhash[i, 4 * NUM_COLUMNS + k] = wh[k]
    for j in range(NUM_COLUMNS):
        lclen[i, j] = clen[j]
        for d in range(clen[j]):
            lcols[i, j, d] = cols[j, d]
    w = sc[K.S_WLEN]
    lwaste = layer.waste
    for d in range(w):
        lwaste[i, d] = waste[d]
    layer.wlen[i] = w
    layer.pos[i] = sc[K.S_POS]
    lfnd = layer.fnd
    for f in range(NUM_FOUNDATIONS):
        lfnd[i, f] = fnd[f]
    layer.lines[i, :line_len] = line[:line_len]
    layer.llen[i] = line_len
    layer.n[0] = i + 1


@njit(cache=True, inline="always")
def load(layer, b, p):
    """Copy entry ``b`` of a layer into the position ``p`` (and derive the top tables)."""
    cols, clen, waste, fnd, ch, wh, sc = p.cols, p.clen, p.waste, p.fnd, p.ch, p.wh, p.sc
    lcols, lclen, lhash = layer.cols, layer.clen, layer.hashes
    for k in range(4):
        for j in range(NUM_COLUMNS):
            ch[k, j] = lhash[b, k * NUM_COLUMNS + j]
        wh[k] = lhash[b, 4 * NUM_COLUMNS + k]
    for j in range(NUM_COLUMNS):
        n = lclen[b, j]
        clen[j] = n
        for d in range(n):
            cols[j, d] = lcols[b, j, d]
    w = layer.wlen[b]
    lwaste = layer.waste
    for d in range(w):
        waste[d] = lwaste[b, d]
    sc[K.S_WLEN] = w
    sc[K.S_POS] = layer.pos[b]
    lfnd = layer.fnd
    for f in range(NUM_FOUNDATIONS):
        fnd[f] = lfnd[b, f]
    K.derive_tops(p)


@njit(cache=True)
def expand(layer, b0, b1, pool, s, beam, foundation_return):
    """Search from entries ``b0 .. b1 - 1`` of the layer (on the search ``s``); returns
    :data:`EXPANDED`, :data:`WON` (the line is ``win_out[:bs[B_WIN_LEN]]``) or :data:`SPENT`
    (``bs[B_NODES]`` reached ``bs[B_MAX_NODES]``).  The pool takes every position entered from a
    position that can still draw; ``best_out[:bs[B_BEST_LEN]]`` is the line to the most cards
    founded seen (``bs[B_BEST]``)."""
    p = s.position
    sc = p.sc
    bs = beam.bs
    cand_score, cand_len, cand_links, cand_keys = s.cands
    order, parent, keys, links, mlen = pool
    max_nodes = bs[B_MAX_NODES]
    nstock = sc[K.S_NSTOCK]
    for b in range(b0, b1):
        load(layer, b, p)
        drawing = sc[K.S_POS] < nstock
        limit = min(bs[B_LOCAL_NODES] if drawing else bs[B_END_NODES], max_nodes - bs[B_NODES])
        if limit <= 0:
            return SPENT
        K.new_stamp(s.table, sc)
        sc[K.S_NSTOCK] = nstock
        K.begin(s, foundation_return, bs[B_BEST], drawing)
        status = K.dfs(s, foundation_return, False, limit, limit + 1, drawing)
        bs[B_NODES] += sc[K.S_NODES]
        n0 = layer.llen[b]
        if sc[K.S_BEST] > bs[B_BEST] and n0 + sc[K.S_BEST_LEN] <= MAX_LINE:
            bs[B_BEST] = sc[K.S_BEST]
            beam.best_out[:n0] = layer.lines[b, :n0]
            beam.best_out[n0 : n0 + sc[K.S_BEST_LEN]] = s.stack.best_line[: sc[K.S_BEST_LEN]]
            bs[B_BEST_LEN] = n0 + sc[K.S_BEST_LEN]
        if status == K.SOLVED:
            d = sc[K.S_DEPTH]
            beam.win_out[:n0] = layer.lines[b, :n0]
            beam.win_out[n0 : n0 + d] = s.stack.played[:d]
            bs[B_WIN_LEN] = n0 + d
            return WON
        if drawing:
            p0 = q = bs[B_POOL]
            for k in range(sc[K.S_NCAND]):
                if q >= order.size:
                    break
                # best score first, then the order met (the pool index is unique and increasing)
                order[q] = (20_000 - cand_score[k]) << 32 | q
                parent[q] = b
                keys[q, 0] = cand_keys[k, 0]
                keys[q, 1] = cand_keys[k, 1]
                up = cand_links[k, 0]
                links[q, 0] = -1 if up < 0 else p0 + up  # (a parent is recorded before its children)
                links[q, 1] = cand_links[k, 1]
                mlen[q] = cand_len[k]
                q += 1
            bs[B_POOL] = q
        if bs[B_NODES] >= max_nodes:
            return SPENT
    return EXPANDED


@njit(cache=True)
def select(layer, width, pool, beam, following, p):
    """The next layer: the pool's first ``width`` positions with distinct keys (best score first,
    ties in the order met), each with the draw played, into the layer ``following`` (emptied
    first); ``p`` (a search's position) is the work space."""
    following.n[0] = 0
    n = beam.bs[B_POOL]
    order, parent, keys, links, mlen = pool
    lines, llen = layer.lines, layer.llen
    # Only the best entries are needed, in order: sort the first `head` of them (found by a
    # partition) and the rest only if duplicates and long lines leave the layer short.
    head = min(n, 2 * width + 16)
    if head < n:
        cut = np.partition(order[:n], head - 1)[head - 1]
        ranked = np.sort(order[:n][order[:n] <= cut])
    else:
        ranked = np.sort(order[:n])
    size = 1
    while size < 2 * n + 2:
        size *= 2
    seen1 = np.zeros(size, np.uint64)
    seen2 = np.zeros(size, np.uint64)
    used = np.zeros(size, np.bool_)
    mask = np.uint64(size - 1)
    line = np.zeros(MAX_LINE, np.int16)
    r = 0
    while r < n:
        if r == ranked.size:  # the head is used up: the rest, in order
            rest = np.sort(order[:n][order[:n] > ranked[r - 1]])
            ranked = np.concatenate((ranked, rest))
        c = ranked[r] & 0xFFFFFFFF
        r += 1
        if K.add_key(seen1, seen2, used, mask, keys[c, 0], keys[c, 1]):
            continue
        b = parent[c]
        n0 = llen[b]
        m = mlen[c]
        if n0 + m + 1 > MAX_LINE:
            continue
        load(layer, b, p)
        line[:n0] = lines[b, :n0]
        e = c
        for i in range(n0 + m - 1, n0 - 1, -1):  # the moves from the layer entry, by the links
            line[i] = links[e, 1]
            e = links[e, 0]
        for i in range(n0, n0 + m):
            K.play(line[i], p)
        K.play(DRAW, p)
        line[n0 + m] = DRAW
        store(p, following, line, n0 + m + 1)
        if following.n[0] == width:
            break
