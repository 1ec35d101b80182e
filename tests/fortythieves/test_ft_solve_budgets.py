"""The Forty Thieves solver's time budget through solve(), the CLI and the bench line."""

from __future__ import annotations

import pytest

import solitaire_env
from solitaire_env import bench
from solitaire_env.cli import main
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves import python_solver

EASY = "FT1-N-AAAAAAC"  # solved by the first depth-first search (a few hundred positions)
HARD = "FT1-N-AAAAAAD"  # not decided within a second


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_with_seconds_reports_the_time_budget(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", EASY, "--max-seconds", "0.5")
    assert status == 0 and err == ""
    assert "verdict: solved" in out
    assert "(budget 0.5 s)" in out and "stopped: won (a winning line was found)" in out
    status, out, _ = run(capsys, "solve", HARD, "--max-seconds", "0.2")
    assert status == 0
    assert "verdict: intractable: the time budget was spent (0.2 s) before a verdict" in out
    assert "stopped: seconds (the time budget was spent)" in out
    status, out, _ = run(capsys, "solve", HARD, "--max-seconds", "5", "--max-nodes", "3000")
    assert "(budget 5 s or 3,000 nodes)" in out and "verdict: intractable: the node budget was spent" in out
    assert "stopped: nodes" in out


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "nan"])
def test_bad_seconds_are_one_clear_error(capsys: pytest.CaptureFixture[str], value: str) -> None:
    status, _, err = run(capsys, "solve", EASY, "--max-seconds", value)
    assert status == 2
    assert f"argument --max-seconds: want a number of seconds > 0, got {value!r}" in err


def test_tripeaks_takes_a_time_budget_too(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "TP1-E-AAAAAAB", "--max-seconds", "1")
    assert status == 0 and err == ""
    assert "(budget 1 s)" in out and "stopped: " in out
    status, out, _ = run(capsys, "solve", "--deals", "2", "--max-seconds", "1", "--workers", "1", "--no-progress")
    assert status == 0 and "budget 1 s per deal" in out
    assert solitaire_env.solve("TP1-E-AAAAAAB", max_seconds=1.0).stopped_by in ("won", "proved")


def test_solvability_run_with_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "--game", "ft", "--deals", "2", "--max-seconds", "0.2", "--workers", "1")
    assert status == 0
    assert "budget 0.2 s per deal" in out
    assert "solving" in err  # the progress bar
    assert out.count("\nall ") == 1


def test_solve_passes_the_time_budget_on() -> None:
    result = solitaire_env.solve(HARD, max_seconds=0.05)
    assert result.status == "intractable" and result.stopped_by == "seconds"
    assert result.seconds < 2.0


def test_the_bench_line_compares_equal_results(monkeypatch: pytest.MonkeyPatch) -> None:
    ratio = bench.ft_solver_ratio(deals_per_round=1, rounds=2, max_nodes=2000, repeat_seconds=0)
    assert ratio.ratio > 0 and ratio.unit == "positions/s" and ratio.target == 50.0
    assert "Forty Thieves solver (2,000 nodes a deal)" in ratio.line()
    original = python_solver.solve_fortythieves_python

    def off_by_one(game, *, max_nodes):  # type: ignore[no-untyped-def]
        r = original(game, max_nodes=max_nodes)
        return SolveResult(r.status, r.line, r.nodes + 1, r.best, r.seconds, stopped_by=r.stopped_by)

    monkeypatch.setattr(python_solver, "solve_fortythieves_python", off_by_one)
    with pytest.raises(AssertionError, match="the Forty Thieves solvers differ"):
        bench.ft_solver_ratio(deals_per_round=1, rounds=1, max_nodes=2000, repeat_seconds=0)
