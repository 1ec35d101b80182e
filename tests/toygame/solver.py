"""The Toy solver: an exhaustive depth-first search over full-information positions, with a
table of the positions seen, a node budget and a time budget."""

from __future__ import annotations

import time

from solitaire_env.common.budget import StoppedBy, search_budget
from solitaire_env.common.result import SolveResult
from toygame.game import ToyGame


def _key(game: ToyGame) -> tuple[object, ...]:
    return (tuple(map(len, game.piles)), tuple(game.talon), game.pos, game.redeals_left)


def solve_toy(game: ToyGame, *, max_nodes: int | None = None, max_seconds: float | None = None) -> SolveResult:
    """A winning line from ``game``'s position, or a proof that none exists (its best line is
    the one that stacks the most cards), or ``intractable`` when a budget ran out."""
    budget = search_budget(max_nodes, max_seconds)
    start = time.perf_counter()
    deadline = budget.deadline(start)
    g = game.copy()
    seen: set[tuple[object, ...]] = set()
    line: list[int] = []
    best: tuple[int, tuple[int, ...]] = (g.stacked, ())
    nodes = 0
    stop: StoppedBy | None = None

    def search() -> bool:
        nonlocal nodes, best, stop
        if g.won:
            return True
        key = _key(g)
        if key in seen:
            return False
        if nodes >= budget.nodes or (deadline is not None and nodes % 64 == 0 and time.perf_counter() > deadline):
            stop = "nodes" if nodes >= budget.nodes else "seconds"
            return False
        seen.add(key)
        nodes += 1
        for action in g.legal_actions():
            g.play(action)
            line.append(action)
            if g.stacked > best[0]:
                best = (g.stacked, tuple(line))
            if search():
                return True
            line.pop()
            g.undo()
            if stop is not None:
                return False
        return False

    won = search()
    seconds = time.perf_counter() - start
    if won:
        return SolveResult("solved", tuple(line), nodes, g.stacked, seconds)
    if stop is not None:
        return SolveResult("intractable", best[1], nodes, best[0], seconds, stopped_by=stop)
    return SolveResult("unsolvable", best[1], nodes, best[0], seconds)
