"""The plain pure-Python depth-first search: the reference the fast solver is checked against.

It plays through the rules core itself (``legal_mask``, ``try_play``, ``undo``) with a set of
visited states, so the numba solver is compared with the rules, not with a second copy of
them.  Kept deliberately simple (and slow): it is the baseline of the solver benchmark.
"""

from __future__ import annotations

import sys

from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import ALL_SLOTS


def reference_solvable(game: TriPeaksGame) -> bool:
    """Whether the position can be won, by exhaustive search (the game is left unchanged)."""
    g = game.copy()
    visited: set[tuple[int, int, int]] = set()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))

    def dfs() -> bool:
        if g.removed == ALL_SLOTS:
            return True
        state = (g.removed, g.stock_pos, g._waste_key())
        if state in visited:
            return False
        visited.add(state)
        mask = g.legal_mask()
        for action in range(29):
            if mask >> action & 1:
                g.try_play(action)
                won = dfs()
                g.undo()
                if won:
                    return True
        return False

    return dfs()
