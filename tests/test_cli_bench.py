"""`solitaire-env bench`: a tiny run prints ratio lines; bad arguments are one line and exit 2."""

from __future__ import annotations

import re

import pytest

from solitaire_env.cli import main


def test_bench_vector_prints_one_ratio_line_per_batch_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--only", "vector", "--rounds", "1", "--steps", "400", "--num-envs", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machine: ")
    assert out[1].startswith("TriPeaks-v0 batch env (8 envs)") and "x CartPole (target >= 40x)" in out[1]
    assert out[2].startswith("FortyThieves-v0 batch env (8 envs)") and "x CartPole (target >= 2.5x)" in out[2]
    # the ratio to its own single env, shown without a target
    assert out[3].startswith("FortyThieves-v0 batch env (8 envs)") and "x FortyThieves-v0 single env" in out[3]
    assert "target" not in out[3] and len(out) == 4


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--rounds", "0"],
        ["bench", "--only", "gpu"],
        ["bench", "--num-envs", "-3"],
        ["bench", "--steps", "many"],
    ],
)
def test_bench_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("solitaire-env: error: ")


def test_bench_solver_prints_the_forty_thieves_solver_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from solitaire_env import bench

    monkeypatch.setattr(bench, "FT_SOLVER_NODES", 2000)  # run() passes the module's budget on
    monkeypatch.setattr(bench, "FT_SOLVER_REPEAT_SECONDS", 0.0)
    argv = ["bench", "--only", "solver", "--rounds", "2", "--solver-deals", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machine: ") and len(out) == 4
    assert out[1].startswith("TriPeaks solver, Easy") and out[2].startswith("TriPeaks solver, Classic")
    assert out[3].startswith("Forty Thieves solver (2,000 nodes a deal)")
    assert re.search(r"\d\.\d\dx pure-Python solver \(target >= 50x\)  (PASS|BELOW TARGET)", out[3])
    assert re.search(r"\[[\d,]+\.\d vs [\d,]+\.\d positions/s, median of 2 rounds\]$", out[3])


def test_bench_solver_runs_both_games_and_caps_the_forty_thieves_deals(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from solitaire_env import bench

    seen: list[tuple[int, int, int, float]] = []
    real = bench.ft_solver_ratio

    def spy(*, deals_per_round: int, rounds: int, max_nodes: int, repeat_seconds: float) -> bench.Ratio:
        seen.append((deals_per_round, rounds, max_nodes, repeat_seconds))
        return real(deals_per_round=1, rounds=1, max_nodes=500, repeat_seconds=0)

    monkeypatch.setattr(bench, "ft_solver_ratio", spy)
    assert main(["bench", "--only", "solver", "--rounds", "1", "--solver-deals", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" (")[0].split("  ")[0].strip() for line in out[1:]] == [
        "TriPeaks solver, Easy",
        "TriPeaks solver, Classic",
        "Forty Thieves solver",
    ]
    assert seen == [(bench.FT_SOLVER_DEALS, 1, bench.FT_SOLVER_NODES, bench.FT_SOLVER_REPEAT_SECONDS)]


def test_ft_solver_ratio_alternates_and_asserts_equal_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both solvers see the same deals, the order alternates per round, and a difference in
    status, line, nodes or best between them raises (naming the deal)."""
    from solitaire_env import bench
    from solitaire_env.common.result import SolveResult
    from solitaire_env.fortythieves import python_solver, solver

    calls: list[tuple[str, str]] = []
    fast, slow = solver.solve_fortythieves, python_solver.solve_fortythieves_python

    def log_fast(game: object, **kw: object) -> SolveResult:
        calls.append(("numba", str(game.deal.code)))  # type: ignore[attr-defined]
        return fast(game, **kw)  # type: ignore[arg-type]

    def log_slow(game: object, **kw: object) -> SolveResult:
        calls.append(("python", str(game.deal.code)))  # type: ignore[attr-defined]
        return slow(game, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(solver, "solve_fortythieves", log_fast)
    monkeypatch.setattr(python_solver, "solve_fortythieves_python", log_slow)
    ratio = bench.ft_solver_ratio(deals_per_round=2, rounds=2, max_nodes=300, repeat_seconds=0)
    assert ratio.rounds == 2 and ratio.unit == "positions/s" and ratio.reference_name == "pure-Python solver"
    assert ratio.ratio > 0 and ratio.subject_rate > 0 and ratio.reference_rate > 0
    timed = calls[1:]  # the first numba call is the compile warm-up
    assert calls[0][0] == "numba" and len(timed) == 8
    assert [who for who, _ in timed] == ["numba"] * 2 + ["python"] * 4 + ["numba"] * 2
    assert [c for _, c in timed[:2]] == [c for _, c in timed[2:4]]  # round 0: same deals
    assert [c for _, c in timed[4:6]] == [c for _, c in timed[6:]]  # round 1: same deals
    assert set(timed[:2]).isdisjoint({("numba", c) for _, c in timed[6:]})  # new deals per round

    def worse_best(game: object, **kw: object) -> SolveResult:
        r = slow(game, **kw)  # type: ignore[arg-type]
        return SolveResult(r.status, r.line, r.nodes, r.best - 1, r.seconds, stopped_by=r.stopped_by)

    monkeypatch.setattr(python_solver, "solve_fortythieves_python", worse_best)
    with pytest.raises(
        AssertionError, match=r"solvers differ in round 0 .*FT1-N seed 1000: .* best (\d+), .* best (?!\1)"
    ):
        bench.ft_solver_ratio(deals_per_round=1, rounds=1, max_nodes=300, repeat_seconds=0)


def test_ft_solver_ratio_repeats_the_numba_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``repeat_seconds`` the numba solver's turn runs its deals again until that long has
    passed; the pure-Python solver runs each deal once."""
    from solitaire_env import bench
    from solitaire_env.common.result import SolveResult
    from solitaire_env.fortythieves import python_solver, solver

    calls: list[str] = []
    fast, slow = solver.solve_fortythieves, python_solver.solve_fortythieves_python

    def log_fast(game: object, **kw: object) -> SolveResult:
        calls.append("numba")
        return fast(game, **kw)  # type: ignore[arg-type]

    def log_slow(game: object, **kw: object) -> SolveResult:
        calls.append("python")
        return slow(game, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(solver, "solve_fortythieves", log_fast)
    monkeypatch.setattr(python_solver, "solve_fortythieves_python", log_slow)
    bench.ft_solver_ratio(deals_per_round=1, rounds=1, max_nodes=300, repeat_seconds=0.2)
    assert calls.count("python") == 1 and calls.count("numba") > 2  # (the first is the warm-up)
