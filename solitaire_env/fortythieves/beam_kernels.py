"""The numba beam over the draws of the Forty Thieves solver (the twin of ``python_solver._beam``).

A beam layer is a set of positions with the same number of cards drawn, each with its line
from the root, held in a :class:`Layer` (numpy arrays, one row per position).
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
#: Scalars of a beam (``bs``): nodes used, entries in the pool, best founded, its line's length,
#: the winning line's length.
B_NODES, B_POOL, B_BEST, B_BEST_LEN, B_WIN_LEN = range(5)


class Layer:
    """``size`` positions of one beam layer and their lines."""

    def __init__(self, size: int) -> None:
        self.cols = np.zeros((size, NUM_COLUMNS, MAX_COLUMN), np.int8)
        self.clen = np.zeros((size, NUM_COLUMNS), np.int8)
        self.waste = np.zeros((size, STOCK_SIZE), np.int8)
        self.wlen = np.zeros(size, np.int64)
        self.pos = np.zeros(size, np.int64)
        self.fnd = np.zeros((size, NUM_FOUNDATIONS), np.int8)
        self.hashes = np.zeros((size, 4 * NUM_COLUMNS + 4), np.uint64)  # the search's ch and wh
        self.lines = np.zeros((size, MAX_LINE), np.int16)
        self.llen = np.zeros(size, np.int64)
        self.n = np.zeros(1, np.int64)

    def args(self) -> tuple[np.ndarray, ...]:
        return (
            self.cols,
            self.clen,
            self.waste,
            self.wlen,
            self.pos,
            self.fnd,
            self.hashes,
            self.lines,
            self.llen,
            self.n,
        )


class Pool:
    """The positions the searches of one layer entered: score, layer entry searched from, keys,
    link (the pool entry it was entered from, -1 for the layer entry itself, and the move from
    there) and the length of its line from the layer entry."""

    def __init__(self, size: int) -> None:
        self.order = np.zeros(size, np.int64)
        self.parent = np.zeros(size, np.int64)
        self.keys = np.zeros((size, 2), np.uint64)
        self.links = np.zeros((size, 2), np.int64)
        self.mlen = np.zeros(size, np.int64)

    def args(self) -> tuple[np.ndarray, ...]:
        return self.order, self.parent, self.keys, self.links, self.mlen


@njit(cache=True)
def store(
    cols, clen, waste, fnd, ch, wh, sc, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, lines, llen, ln, line, line_len
):  # fmt: skip
    """Append the search arrays' position (with its hashes), with ``line[:line_len]``, to a layer."""
    i = ln[0]
    for k in range(4):
        for j in range(NUM_COLUMNS):
            lhash[i, k * NUM_COLUMNS + j] = ch[k, j]
        lhash[i, 4 * NUM_COLUMNS + k] = wh[k]
    for j in range(NUM_COLUMNS):
        lclen[i, j] = clen[j]
        for d in range(clen[j]):
            lcols[i, j, d] = cols[j, d]
    w = sc[K.S_WLEN]
    for d in range(w):
        lwaste[i, d] = waste[d]
    lwlen[i] = w
    lpos[i] = sc[K.S_POS]
    for f in range(NUM_FOUNDATIONS):
        lfnd[i, f] = fnd[f]
    lines[i, :line_len] = line[:line_len]
    llen[i] = line_len
    ln[0] = i + 1


@njit(cache=True)
def load(b, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, cols, clen, tops, topped, waste, fnd, ch, wh, sc):
    """Copy entry ``b`` of a layer into the search arrays (and derive the top tables)."""
    for k in range(4):
        for j in range(NUM_COLUMNS):
            ch[k, j] = lhash[b, k * NUM_COLUMNS + j]
        wh[k] = lhash[b, 4 * NUM_COLUMNS + k]
    for j in range(NUM_COLUMNS):
        n = lclen[b, j]
        clen[j] = n
        for d in range(n):
            cols[j, d] = lcols[b, j, d]
    w = lwlen[b]
    for d in range(w):
        waste[d] = lwaste[b, d]
    sc[K.S_WLEN] = w
    sc[K.S_POS] = lpos[b]
    for f in range(NUM_FOUNDATIONS):
        fnd[f] = lfnd[b, f]
    K.derive_tops(cols, clen, tops, topped, waste, fnd, sc)


@njit(cache=True)
def expand(
    b0, b1, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, lines, llen, ln,
    order, parent, keys, links, mlen,
    cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc, moves, nmov, tried, played, fidx, best_line, scratch,
    table, cand_score, cand_len, cand_links, cand_keys,
    foundation_return, max_nodes, local_nodes, end_nodes, bs, best_out, win_out,
):  # fmt: skip
    """Search from entries ``b0 .. b1 - 1`` of the layer; returns :data:`EXPANDED`, :data:`WON`
    (the line is ``win_out[:bs[B_WIN_LEN]]``) or :data:`SPENT` (``bs[B_NODES]`` reached
    ``max_nodes``).  The pool takes every position entered from a position that can still draw;
    ``best_out[:bs[B_BEST_LEN]]`` is the line to the most cards founded seen (``bs[B_BEST]``)."""
    nstock = sc[K.S_NSTOCK]
    for b in range(b0, b1):
        load(b, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, cols, clen, tops, topped, waste, fnd, ch, wh, sc)
        drawing = sc[K.S_POS] < nstock
        limit = min(local_nodes if drawing else end_nodes, max_nodes - bs[B_NODES])
        if limit <= 0:
            return SPENT
        K.new_stamp(table, sc)
        sc[K.S_NSTOCK] = nstock
        K.begin(
            cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc, moves, nmov, tried, played, fidx, best_line,
            scratch, table, cand_score, cand_len, cand_links, cand_keys, foundation_return, bs[B_BEST], drawing,
        )  # fmt: skip
        status = K.dfs(
            cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc, moves, nmov, tried, played, fidx, best_line,
            scratch, table, cand_score, cand_len, cand_links, cand_keys, foundation_return, False, limit, limit + 1,
            drawing,
        )  # fmt: skip
        bs[B_NODES] += sc[K.S_NODES]
        n0 = llen[b]
        if sc[K.S_BEST] > bs[B_BEST] and n0 + sc[K.S_BEST_LEN] <= MAX_LINE:
            bs[B_BEST] = sc[K.S_BEST]
            best_out[:n0] = lines[b, :n0]
            best_out[n0 : n0 + sc[K.S_BEST_LEN]] = best_line[: sc[K.S_BEST_LEN]]
            bs[B_BEST_LEN] = n0 + sc[K.S_BEST_LEN]
        if status == K.SOLVED:
            d = sc[K.S_DEPTH]
            win_out[:n0] = lines[b, :n0]
            win_out[n0 : n0 + d] = played[:d]
            bs[B_WIN_LEN] = n0 + d
            return WON
        if drawing:
            p0 = p = bs[B_POOL]
            for k in range(sc[K.S_NCAND]):
                if p >= order.size:
                    break
                # best score first, then the order met (the pool index is unique and increasing)
                order[p] = (20_000 - cand_score[k]) << 32 | p
                parent[p] = b
                keys[p, 0] = cand_keys[k, 0]
                keys[p, 1] = cand_keys[k, 1]
                up = cand_links[k, 0]
                links[p, 0] = -1 if up < 0 else p0 + up  # (a parent is recorded before its children)
                links[p, 1] = cand_links[k, 1]
                mlen[p] = cand_len[k]
                p += 1
            bs[B_POOL] = p
        if bs[B_NODES] >= max_nodes:
            return SPENT
    return EXPANDED


@njit(cache=True)
def select(
    width, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, lines, llen,
    order, parent, keys, links, mlen, bs,
    ncols, nclen, nwaste, nwlen, npos, nfnd, nhash, nlines, nllen, nn,
    cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc,
):  # fmt: skip
    """The next layer: the pool's first ``width`` positions with distinct keys (best score first,
    ties in the order met), each with the draw played, into the ``n*`` layer (emptied first)."""
    nn[0] = 0
    p = bs[B_POOL]
    # Only the best entries are needed, in order: sort the first `head` of them (found by a
    # partition) and the rest only if duplicates and long lines leave the layer short.
    head = min(p, 2 * width + 16)
    if head < p:
        cut = np.partition(order[:p], head - 1)[head - 1]
        ranked = np.sort(order[:p][order[:p] <= cut])
    else:
        ranked = np.sort(order[:p])
    size = 1
    while size < 2 * p + 2:
        size *= 2
    seen1 = np.zeros(size, np.uint64)
    seen2 = np.zeros(size, np.uint64)
    used = np.zeros(size, np.bool_)
    mask = np.uint64(size - 1)
    line = np.zeros(MAX_LINE, np.int16)
    r = 0
    while r < p:
        if r == ranked.size:  # the head is used up: the rest, in order
            rest = np.sort(order[:p][order[:p] > ranked[r - 1]])
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
        load(b, lcols, lclen, lwaste, lwlen, lpos, lfnd, lhash, cols, clen, tops, topped, waste, fnd, ch, wh, sc)
        line[:n0] = lines[b, :n0]
        e = c
        for i in range(n0 + m - 1, n0 - 1, -1):  # the moves from the layer entry, by the links
            line[i] = links[e, 1]
            e = links[e, 0]
        for i in range(n0, n0 + m):
            K.play(line[i], cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc)
        K.play(DRAW, cols, clen, tops, topped, waste, stock, fnd, ch, wh, sc)
        line[n0 + m] = DRAW
        store(
            cols, clen, waste, fnd, ch, wh, sc, ncols, nclen, nwaste, nwlen, npos, nfnd, nhash, nlines, nllen, nn, line,
            n0 + m + 1,
        )  # fmt: skip
        if nn[0] == width:
            break
