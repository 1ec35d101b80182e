"""Budgets that mean what they say (solitaire_env.common.budget), for solve, hint and the oracle.

A budget given alone is the only limit, with both the first spent ends the search, and every
result says what ended it (``stopped_by``).
"""

from __future__ import annotations

import time

import pytest

import solitaire_env
from agents import make_agent
from solitaire_env.common.budget import DEFAULT_MAX_NODES, NO_NODE_LIMIT, Budget, search_budget
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import DRAW
from solitaire_env.solving import as_game
from solitaire_env.tripeaks import solver as tp_solver

FT_UNDECIDED = "FT1-N-AAAAAAD"  # no verdict within a few seconds of search
TP_HARD = "TP1-C-MISHNBK"  # unsolvable: about 880,000 nodes without pruning (the hint's second search)


def test_the_rules_of_a_budget() -> None:
    assert search_budget() == Budget(DEFAULT_MAX_NODES, None)
    assert search_budget(max_nodes=5) == Budget(5, None)
    assert search_budget(max_seconds=2) == Budget(NO_NODE_LIMIT, 2.0)
    assert search_budget(7, 0.5) == Budget(7, 0.5)
    assert search_budget(7, 0.5).describe() == "0.5 s or 7 nodes"
    assert search_budget(max_seconds=3).describe() == "3 s"
    for bad in (
        {"max_nodes": 0},
        {"max_nodes": 1.5},
        {"max_nodes": True},
        {"max_seconds": 0},
        {"max_seconds": float("inf")},
    ):
        with pytest.raises(ValueError, match=r"max_nodes|max_seconds"):
            search_budget(**bad)  # type: ignore[arg-type]


def test_an_intractable_result_must_say_what_ended_it() -> None:
    assert SolveResult("solved").stopped_by == "won"
    assert SolveResult("unsolvable").stopped_by == "proved"
    with pytest.raises(ValueError, match="stopped_by"):
        SolveResult("intractable")
    with pytest.raises(ValueError, match="a solved search stopped by 'won', not 'nodes'"):
        SolveResult("solved", stopped_by="nodes")


def test_forty_thieves_seconds_alone_is_the_only_limit() -> None:
    solitaire_env.solve(FT_UNDECIDED, max_nodes=3000)  # the kernels loaded: the time is the search's
    start = time.perf_counter()
    result = solitaire_env.solve(FT_UNDECIDED, max_seconds=1.5)
    wall = time.perf_counter() - start
    assert result.status == "intractable" and result.stopped_by == "seconds"
    assert 1.2 < wall < 3.0  # the default node budget (about a second of search) does not apply
    assert result.nodes > DEFAULT_MAX_NODES // 2


def test_forty_thieves_nodes_alone_and_both() -> None:
    assert solitaire_env.solve(FT_UNDECIDED, max_nodes=1000).stopped_by == "nodes"
    both = solitaire_env.solve(FT_UNDECIDED, max_nodes=2000, max_seconds=30)
    assert both.stopped_by == "nodes" and both.nodes <= 2001 and both.seconds < 5  # the root counts too
    first = solitaire_env.solve(FT_UNDECIDED, max_nodes=10**9, max_seconds=0.3)
    assert first.stopped_by == "seconds" and first.seconds < 2


def test_tripeaks_takes_seconds_and_a_sliced_search_is_the_same_search(monkeypatch: pytest.MonkeyPatch) -> None:
    game = as_game(TP_HARD)
    straight = tp_solver.solve_tripeaks(game, max_nodes=10**7, maximise_cleared=True)
    monkeypatch.setattr(tp_solver, "SLICE_NODES", 997)
    sliced = tp_solver.solve_tripeaks(game, max_seconds=60, maximise_cleared=True)
    same = ("status", "line", "nodes", "best", "stopped_by")
    assert [getattr(sliced, k) for k in same] == [getattr(straight, k) for k in same]
    assert straight.stopped_by == "proved" and straight.nodes > DEFAULT_MAX_NODES // 2
    short = tp_solver.solve_tripeaks(game, max_seconds=1e-6, maximise_cleared=True)
    assert short.status == "intractable" and short.stopped_by == "seconds" and short.nodes == 997
    nodes = solitaire_env.solve(TP_HARD, max_nodes=1000)
    assert (nodes.status, nodes.stopped_by, nodes.nodes) == ("intractable", "nodes", 1000)


def _all_known_start(code: str) -> FortyThievesGame:
    """The start of a Forty Thieves deal with every stock card seen: the stock drawn out, then
    undone back (``all_known`` counts what was seen, undo included)."""
    game = as_game(code)
    assert isinstance(game, FortyThievesGame)
    draws = 0
    while game.illegal_reason(DRAW) is None:
        game.play(DRAW)
        draws += 1
    for _ in range(draws):
        game.undo()
    assert game.all_known and game.stock_pos == 0
    return game


def test_hint_budgets() -> None:
    game = _all_known_start(FT_UNDECIDED)
    assert solitaire_env.hint(game, max_nodes=1000).stopped_by == "nodes"
    start = time.perf_counter()
    h = solitaire_env.hint(game, max_seconds=1.0)
    assert h.verdict == "unknown" and h.stopped_by == "seconds" and 0.8 < time.perf_counter() - start < 2.5
    assert solitaire_env.hint("TP1-E-AAAAAAB").stopped_by is None  # cards hidden: the heuristic, no search
    planned = solitaire_env.hint("FT1-N-AAAAAAC", max_nodes=500)
    assert planned.stopped_by == "nodes" and planned.line  # the planner: each search on 500 nodes
    cut = solitaire_env.hint("FT1-N-AAAAAAC", max_seconds=1e-6)
    assert cut.stopped_by == "seconds" and cut.action is not None  # the planner's searches left out


def test_the_oracle_takes_both_budgets() -> None:
    agent = make_agent("oracle", "fortythieves", max_seconds=0.2)
    assert agent.budget == Budget(NO_NODE_LIMIT, 0.2)  # type: ignore[attr-defined]
    agent = make_agent("oracle", "tripeaks", max_nodes=5000)
    assert agent.budget == Budget(5000, None)  # type: ignore[attr-defined]
