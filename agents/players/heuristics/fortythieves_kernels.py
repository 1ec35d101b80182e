"""Numba twins of the ``evaluate`` position score, for the ``lookahead`` agent's turn search.

- :func:`need_table`: ``_need_table`` of :mod:`agents.players.heuristics.fortythieves` (how many
  cards of its suit must be founded before a card can be), from the 8 foundation heights;
- :func:`position_value`: ``EvaluateAgent.score`` of a position given by its piles (those of
  a search :class:`~solitaire_env.fortythieves.search_kernels.Position`), the weights in the
  order of :data:`WEIGHTS`, summed in the same order as the Python score (so the two agree to
  the last bit);
- :func:`turn_search`: the first move towards the best-scored position the moves before the
  next draw reach, by a breadth-first search over the solver's moves and keys on a search
  ``Position``, played with the search's own ``play`` and taken back with its ``undo`` (the
  rules' numba twins).

``tests/agents/test_ft_lookahead.py`` checks both against the Python score and a breadth-first
search in Python on thousands of positions from random play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves.kernels import builds_on
from solitaire_env.fortythieves.rules import DRAW, NUM_COLUMNS, SUIT_FOUNDATIONS

#: The order of :func:`position_value`'s weights (``EvaluateAgent``'s options of these names).
WEIGHTS = ("founded", "empty", "run", "bury", "waste")
SUIT_FOUNDATIONS_ARRAY = np.array(SUIT_FOUNDATIONS, dtype=np.int64)


@njit(cache=True)
def need_table(fnd: np.ndarray, need: np.ndarray) -> None:
    """Fill ``need[card]`` (52 card ids): the cards of its suit to found before ``card`` can go."""
    for suit in range(4):
        a = fnd[SUIT_FOUNDATIONS_ARRAY[suit, 0]]
        b = fnd[SUIT_FOUNDATIONS_ARRAY[suit, 1]]
        lo = min(a, b)
        hi = max(a, b)
        for below in range(13):
            need[suit * 13 + below] = below - hi if below >= hi else (below - lo if below >= lo else 0)


@njit(cache=True)
def position_value(cols, clen, waste, wlen, fnd, weights, need):
    """``EvaluateAgent.score`` of the position (``need`` is scratch of 52 entries)."""
    need_table(fnd, need)
    founded = 0
    for f in range(fnd.size):
        founded += fnd[f]
    value = weights[0] * founded
    run = weights[2]
    for j in range(NUM_COLUMNS + 1):
        in_column = j < NUM_COLUMNS
        n = clen[j] if in_column else wlen
        if n == 0:
            if in_column:
                value += weights[1]
            continue
        weight = weights[3] if in_column else weights[4]
        low = 99
        below = cols[j, 0] if in_column else waste[0]
        for d in range(1, n):
            card = cols[j, d] if in_column else waste[d]
            m = need[below]
            if m < low:
                low = m
            if builds_on(card, below):
                value += run
            else:
                value -= weight / (1 + low)
            below = card
    return value


@njit(cache=True)
def turn_search(p, scratch, foundation_return, max_nodes, weights, margin, values):
    """The first move of the line to the best position reachable before the next draw, -1 for
    none better than the position itself by more than ``margin``; and the position's own score.

    ``p`` is a :class:`~solitaire_env.fortythieves.search_kernels.Position` holding the root
    (derived), ``scratch`` the move order's (a search stack's ``scratch``).  ``values`` (one
    entry per action) gets, for each move the search tried from the root, the best score of the
    positions entered by lines that start with it; ``-inf`` for the others (the draw, and the
    moves the solver's prunings leave out).

    A breadth-first search over the search's moves (:func:`~solitaire_env.fortythieves.search_kernels.ordered_moves`:
    the solver's prunings, the draw left out) enters at most ``max_nodes`` new positions, each
    once (the search's position keys), and scores each with :func:`position_value`; the first
    best one met wins (so the shorter line among equals).  A node is reached again by replaying
    its line from the root.  ``p`` holds the root again afterwards; the stock is never read.
    """
    size = 1
    while size < 4 * (max_nodes + 1):
        size *= 2
    mask = np.uint64(size - 1)
    seen1 = np.zeros(size, np.uint64)
    seen2 = np.zeros(size, np.uint64)
    used = np.zeros(size, np.bool_)
    parent = np.zeros(max_nodes + 1, np.int64)
    move = np.zeros(max_nodes + 1, np.int64)
    line = np.zeros(max_nodes + 1, np.int64)
    fidx = np.zeros(max_nodes + 1, np.int64)
    origin = np.zeros(max_nodes + 1, np.int64)
    out = np.zeros(K.MAX_MOVES, np.int16)
    values[:] = -np.inf
    need = np.zeros(52, np.int64)
    k1, k2 = K.position_keys(p)
    K.add_key(seen1, seen2, used, mask, k1, k2)
    parent[0] = -1
    best = 0
    root = position_value(p.cols, p.clen, p.waste, p.sc[K.S_WLEN], p.fnd, weights, need)
    top = root + margin
    count = 1
    head = 0
    while head < count and count <= max_nodes:
        m = 0
        e = head
        while e > 0:
            line[m] = move[e]
            e = parent[e]
            m += 1
        for i in range(m - 1, -1, -1):
            fidx[i] = K.play(line[i], p)
        nm = K.ordered_moves(p, -1, foundation_return, out, scratch)
        for t in range(nm):
            a = np.int64(out[t])
            if a == DRAW:
                continue
            k1, k2 = K.child_keys(a, p)
            if K.add_key(seen1, seen2, used, mask, k1, k2):
                continue
            f = K.play(a, p)
            value = position_value(p.cols, p.clen, p.waste, p.sc[K.S_WLEN], p.fnd, weights, need)
            K.undo(a, f, p)
            parent[count] = head
            move[count] = a
            origin[count] = a if head == 0 else origin[head]
            if value > values[origin[count]]:
                values[origin[count]] = value
            if value > top:
                top = value
                best = count
            count += 1
            if count > max_nodes:
                break
        for i in range(m):
            K.undo(line[i], fidx[i], p)
        head += 1
    first = -1
    while best > 0:
        first = move[best]
        best = parent[best]
    return first, root
