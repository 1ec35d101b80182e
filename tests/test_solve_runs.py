"""solve --deals N --out FILE.jsonl: one line a deal as it finishes, and a rerun that resumes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solitaire_env import solve_runs
from solitaire_env.cli import main
from solitaire_env.solvability import SolvabilityRun, solvability
from solitaire_env.solve_runs import RunFileError, read_run_file, solve_to_file


def _run(**kw: object) -> SolvabilityRun:
    options: dict = {"seed": 5, "max_nodes": 3000, "workers": 1, **kw}
    return SolvabilityRun("TP", "C", 8, **options)


def _key(row: object) -> tuple:
    return (row.code, row.status, row.nodes, row.best, row.line, row.stopped_by)  # type: ignore[attr-defined]


def _indices(path: Path) -> list[int]:
    return [json.loads(line)["index"] for line in path.read_text().splitlines()[1:]]


def test_rows_are_the_plain_runs(tmp_path: Path) -> None:
    run = _run()
    plain = solvability(run.codes(), max_nodes=3000, workers=1)
    rows = solve_to_file(run, tmp_path / "r.jsonl")
    assert [_key(r) for r in rows] == [_key(r) for r in plain]
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"run": solve_runs.run_settings(run)}
    assert sorted(_indices(tmp_path / "r.jsonl")) == list(range(8))
    assert set(json.loads(lines[1])) == {"index", "code", "status", "stopped_by", "line", "nodes", "best", "seconds"}


def test_an_interrupted_run_resumes_with_no_deal_lost_or_done_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, path = _run(), tmp_path / "r.jsonl"
    whole = [_key(r) for r in solve_to_file(run, tmp_path / "whole.jsonl")]
    real, calls = solve_runs.solve_code, []

    def stopped_after_three(*args: object) -> object:
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(args[0])
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(solve_runs, "solve_code", stopped_after_three)
    with pytest.raises(KeyboardInterrupt):
        solve_to_file(run, path)
    assert _indices(path) == [0, 1, 2]
    with path.open("a") as f:  # a line cut off by the stop
        f.write('{"index": 3, "code": "TP1-C')
    monkeypatch.setattr(solve_runs, "solve_code", lambda *a: calls.append(a[0]) or real(*a))  # type: ignore[func-returns-value]
    rows = solve_to_file(run, path)
    assert [_key(r) for r in rows] == whole
    assert sorted(_indices(path)) == list(range(8))  # each deal once
    assert calls == run.codes()  # the three done deals were not solved again
    assert len(read_run_file(path, run)) == 8


def test_another_runs_file_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    solve_to_file(_run(), path)
    before = path.read_text()
    with pytest.raises(RunFileError, match=re.escape("seed 5 (this run: 6)")):
        solve_to_file(_run(seed=6), path)
    with pytest.raises(RunFileError, match="max_nodes"):
        read_run_file(path, _run(max_nodes=10))
    assert path.read_text() == before
    (tmp_path / "x.jsonl").write_text("hello\n")
    with pytest.raises(RunFileError, match="not a solve run file"):
        read_run_file(tmp_path / "x.jsonl", _run())


def test_the_process_pool_gives_the_same_rows(tmp_path: Path) -> None:
    one = solve_to_file(_run(), tmp_path / "a.jsonl")
    two = solve_to_file(_run(workers=2), tmp_path / "b.jsonl")
    assert [_key(r) for r in one] == [_key(r) for r in two]


def test_ray_gives_the_same_rows(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'solitaire-env[ray]')")
    one = solve_to_file(_run(), tmp_path / "a.jsonl")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = solve_to_file(_run(workers=2), tmp_path / "b.jsonl", backend="ray")
    finally:
        ray.shutdown()
    assert [_key(r) for r in one] == [_key(r) for r in remote]
    assert sorted(_indices(tmp_path / "b.jsonl")) == list(range(8))


def test_cli_out_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "r.jsonl")
    argv = ["solve", "--deals", "4", "--game", "tp", "--rules", "C", "--max-nodes", "2000", "--workers", "1"]
    assert main([*argv, "--out", path, "--no-progress"]) == 0
    first = capsys.readouterr().out
    assert main([*argv, "--out", path, "--no-progress"]) == 0
    again = capsys.readouterr().out
    assert "resuming" in again and "4 of 4 deals done" in again
    assert first.split("wall time")[0].splitlines()[-4:] == again.split("wall time")[0].splitlines()[-4:]
    assert main([*argv[:2], "5", *argv[3:], "--out", path, "--no-progress"]) == 2
    assert "other settings: deals 4 (this run: 5)" in capsys.readouterr().err
    assert main(["solve", "TP1-E-AAAAAAB", "--out", path]) == 2
    assert "--out applies to --deals N only" in capsys.readouterr().err
    assert main([*argv, "--backend", "ray"]) == 2
    assert "apply to --deals N --out FILE only" in capsys.readouterr().err
