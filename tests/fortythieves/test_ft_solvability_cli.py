"""`solitaire-env solve --game ft --deals N`: the verdict table with Wilson intervals, the
progress bar, the per-deal JSON, the time budget in worker processes, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solitaire_env import solvability
from solitaire_env.cli import main
from solitaire_env.solvability import STATUSES, draw_codes, solve_code, wilson

ERROR_PREFIX = "solitaire-env: error: "
#: Seed 2's first three FT1-N codes at 5,000 nodes: two solved, one intractable.
MIXED_SEED, MIXED_NODES = 2, 5000
#: Seed 7's first two FT1-N codes: neither decided within a few million nodes.
HARD_SEED = 7


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def table_rows(out: str) -> dict[str, list[str]]:
    """The verdict table's rows by their first cell (``solved`` ... ``all``)."""
    rows = {}
    for line in out.splitlines():
        cells = line.replace("[", " [").split()
        if cells and cells[0] in (*STATUSES, "all"):
            rows[cells[0]] = cells
    return rows


def test_ft_deals_table_progress_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sub" / "ft.json"
    argv = ["solve", "--game", "ft", "--deals", "3", "--seed", str(MIXED_SEED), "--max-nodes", str(MIXED_NODES)]
    status, out, err = run(capsys, *argv, "--workers", "1", "--json", str(path))
    assert status == 0
    codes = draw_codes(3, MIXED_SEED, "FT", "N")
    assert out.startswith("Forty Thieves\n3 deals: codes " + codes[0] + " ... drawn from numpy default_rng(2)")
    assert "budget 5,000 nodes per deal; 1 worker process(es)\n" in out
    assert "solving" in err and "3/3" in err  # the tqdm bar, on stderr only
    # the per-deal rows: the codes in order, each the solver's own answer for that code
    data = json.loads(path.read_text())
    assert data["game"] == "FT" and data["rule"] == "N" and data["deals"] == 3
    assert data["max_nodes"] == MIXED_NODES and data["max_seconds"] is None and data["workers"] == 1
    rows = data["results"]
    assert [r["code"] for r in rows] == codes
    for r in rows:
        assert {"code", "status", "nodes", "best", "seconds", "line"} <= set(r)
        alone = solve_code(r["code"], MIXED_NODES)
        assert (r["status"], r["nodes"], r["best"], r["line"]) == (
            alone.status,
            alone.nodes,
            alone.best,
            list(alone.line),
        )
        assert r["nodes"] <= MIXED_NODES and 0 < r["seconds"] < 5
    found = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    assert found == {"solved": 2, "unsolvable": 0, "intractable": 1}
    # the table: each verdict's count, share and 95% Wilson interval (in %, two decimals)
    table = table_rows(out)
    for s in STATUSES:
        k = found[s]
        lo, hi = wilson(k, 3)
        assert table[s][1:5] == [str(k), f"{100 * k / 3:.2f}%", f"[{100 * lo:.2f}%,", f"{100 * hi:.2f}%]"], s
        assert data["summary"][s]["count"] == k and data["summary"][s]["ci95"] == pytest.approx([lo, hi])
    assert table["all"][1:3] == ["3", "100.00%"]
    assert table["intractable"][5:7] == [f"{MIXED_NODES:,}", f"{MIXED_NODES:,}"]  # mean and max nodes
    assert "\nwall time " in out


def test_ft_deals_time_budget_reaches_the_worker_processes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--max-seconds`` with a large node budget in two worker processes: every deal stops on time."""
    path = tmp_path / "ft.json"
    argv = ["solve", "--game", "ft", "--deals", "2", "--seed", str(HARD_SEED), "--max-seconds", "0.15"]
    status, out, err = run(
        capsys, *argv, "--max-nodes", "50000000", "--workers", "2", "--no-progress", "--json", str(path)
    )
    assert status == 0 and err == ""  # --no-progress: no bar
    assert "budget 0.15 s or 50,000,000 nodes per deal; 2 worker process(es)\n" in out
    data = json.loads(path.read_text())
    assert data["max_seconds"] == 0.15 and data["max_nodes"] == 50_000_000 and data["workers"] == 2
    rows = data["results"]
    assert [r["code"] for r in rows] == draw_codes(2, HARD_SEED, "FT", "N")
    for r in rows:
        assert r["status"] == "intractable" and r["stopped_by"] == "seconds"
        assert r["seconds"] < 1.5 and r["nodes"] < 50_000_000  # without the time budget: 20 s or more
    assert table_rows(out)["intractable"][1] == "2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "0"], "argument --deals: want a whole number >= 1, got '0'"),
        (["--deals", "-3"], "argument --deals: want a whole number >= 1, got '-3'"),
        (["--deals", "2", "--max-seconds", "-1"], "argument --max-seconds: want a number of seconds > 0, got '-1'"),
        (["--deals", "2", "--max-seconds", "0"], "argument --max-seconds: want a number of seconds > 0, got '0'"),
        (["--deals", "2", "--max-nodes", "0"], "argument --max-nodes: want a whole number >= 1, got '0'"),
        (["--deals", "2", "--workers", "0"], "argument --workers: want a whole number >= 1, got '0'"),
        (["--deals", "2", "FT1-N-AAAAAAB"], "give one deal (CODE, --string-in or --file) or --deals N, not both"),
        (["FT1-N-AAAAAAB", "--workers", "2"], "--workers applies to --deals N only"),
    ],
)
def test_ft_solve_bad_values_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "solve", "--game", "ft", *argv)
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), err
    assert message in lines[0]
    assert "Traceback" not in err


def test_solvability_refuses_bad_budgets() -> None:
    codes = draw_codes(1, 0, "FT", "N")
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="max_seconds must be a finite number > 0"):
            solvability.solvability(codes, max_seconds=bad, workers=1)
    with pytest.raises(ValueError, match="max_nodes must be a whole number >= 1"):
        solvability.solvability(codes, max_nodes=0, workers=1)
    rows = solvability.solvability(draw_codes(1, 0, "TP", "E"), max_seconds=1.0, workers=1)
    assert rows[0].stopped_by in ("won", "proved")  # TriPeaks takes a time budget too
