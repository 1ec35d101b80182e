"""``solve``: one entry point over every game's solver."""

from __future__ import annotations

from typing import Any

from solitaire_env.deals import FortyThievesDeal, TriPeaksDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.solver.result import SolveResult
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules


def solve(game: Any, *, max_nodes: int | None = None) -> SolveResult:
    """Search a full-information position: a rules-core game (e.g. ``env.unwrapped.game``) or a deal.

    Returns a :class:`SolveResult` whose ``status`` is ``solved`` (with ``line``, a winning list
    of env actions), ``unsolvable`` (search exhausted) or ``intractable`` (budget spent), and
    whose ``nodes`` is the node count.  The solver sees every card: it is an oracle.
    TriPeaks is solved exactly; Forty Thieves by a best-effort search.
    """
    if isinstance(game, TriPeaksDeal):
        # a deal made from a code plays under that code's rule letter (E wraps K-A, C does not)
        wrap = game.code.wrap if game.code is not None else True
        game = TriPeaksGame(game, TriPeaksRules(wrap=wrap, jokers=game.jokers))
    elif isinstance(game, FortyThievesDeal):
        game = FortyThievesGame(game)
    if isinstance(game, TriPeaksGame):
        from solitaire_env.solver.tripeaks import DEFAULT_MAX_NODES, solve_tripeaks

        return solve_tripeaks(game, max_nodes=DEFAULT_MAX_NODES if max_nodes is None else max_nodes)
    if isinstance(game, FortyThievesGame):
        from solitaire_env.solver.fortythieves import solve_fortythieves

        if max_nodes is None:
            return solve_fortythieves(game)
        return solve_fortythieves(game, max_nodes=max_nodes)
    raise TypeError(f"solve() takes a TriPeaks or Forty Thieves game or deal, not {type(game).__name__}")
