"""``solitaire-env hint-bench``: settings checked before any work, the table, the outputs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from agents.hintbench.config import HintBenchConfig
from agents.hintbench.positions import Position, position_game
from agents.settings import ConfigError
from solitaire_env.cli import main

ERROR_PREFIX = "solitaire-env: error: "
FAST = ["--deals", "3", "--per-deal", "3", "--every", "2", "--samples", "3", "--workers", "1", "--no-progress"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_small_run_prints_the_table_and_writes_its_outputs(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out_dir, plot = tmp_path / "out", tmp_path / "p" / "hints.png"
    status, out, _ = run(
        capsys,
        "hint-bench",
        *FAST,
        "--heuristics",
        "random",
        "hint",
        "oracle",
        "--out",
        str(out_dir),
        "--plot",
        str(plot),
    )
    assert status == 0
    assert "positions from 3 tripeaks deals" in out and "full information: judged with hindsight" in out
    assert [line.split()[0] for line in out.splitlines() if line.split()[:1] in (["random"], ["hint"], ["oracle"])][
        :3
    ] == ["random", "hint", "oracle"]
    results = json.loads((out_dir / "results.json").read_text())
    assert [s["heuristic"] for s in results["scores"]] == ["random", "hint", "oracle"]
    worst = results["scores"][0]["worst"][0]  # random's worst position, to look at
    assert worst["board"] and worst["move_name"] and Position.from_json(worst)
    oracle = results["scores"][2]
    assert oracle["full_information_blunders"] == 0 and oracle["full_information_agreement"] in (1.0, None)
    positions = [Position.from_json(p) for p in json.loads((out_dir / "positions.json").read_text())]
    assert positions and all(position_game(p) is not None for p in positions)  # replayable
    with open(out_dir / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["full_information"] for r in rows} <= {"win", "loss", "unknown"}
    for i in range(len(positions)):  # each heuristic picked exactly one move per position
        assert sum(int(r["hint"]) for r in rows if int(r["position"]) == i) == 1
    assert (out_dir / "summary.csv").read_text().startswith("heuristic,")
    assert plot.stat().st_size > 0


def test_the_same_run_twice_gives_the_same_results(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    texts = []
    for name in ("a", "b"):
        assert run(capsys, "hint-bench", *FAST, "--seed", "4", "--out", str(tmp_path / name))[0] == 0
        texts.append((tmp_path / name / "labels.csv").read_text())
    assert texts[0] == texts[1]


def test_dry_run_and_bad_settings_fail_before_any_work(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    status, out, _ = run(capsys, "hint-bench", "--dry-run", "--deals", "7", "--heuristics", "random", "lookahead")
    assert status == 0 and "deals: 7" in out and "heuristics: ['random', 'lookahead']" in out
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    for argv, match in (
        (["--heuristics", "nosuchagent"], "unknown agent"),
        (["--heuristics", "rollout:nosuch=1"], "nosuch"),
        (["--heuristics", "no_such_module_q:f"], "cannot import module"),
        (["--reference", "nosuchagent"], "reference: "),
        (["--out", str(a_file)], "is an existing file"),
        (["--plot", str(tmp_path / "x.nosuchformat")], "format"),
        (["--game", "ft", "--draw", "when_stuck"], "draw"),
    ):
        status, _, err = run(capsys, "hint-bench", "--dry-run", *argv)
        assert status == 2, argv
        assert err.startswith(ERROR_PREFIX) and "Traceback" not in err
        assert match in err, (argv, err)


def test_the_config_names_every_mistake() -> None:
    with pytest.raises(ConfigError) as error:
        HintBenchConfig.from_mapping({"deals": 0, "samples": -1, "nope": 1, "env": {"scoring": "app"}}, build=False)
    text = str(error.value)
    assert "deals" in text and "samples" in text and "'nope'" in text and "not a rule option" in text
    assert len(error.value.problems) == 4
    config = HintBenchConfig.from_mapping({"game": "ft", "heuristics": ["hint"]}, build=False)
    assert config.max_nodes == 100_000 and config.rules == "N" and config.heuristics == ("hint",)


def test_the_shipped_configs_validate() -> None:
    from agents.settings import load_config_file

    root = Path(__file__).resolve().parent.parent / "configs"
    paths = sorted(root.glob("hints_*.yaml"))
    assert paths
    for path in paths:
        HintBenchConfig.from_mapping(load_config_file(str(path)), source=str(path))


def test_decided_only_keeps_the_positions_the_solver_decided(capsys) -> None:  # type: ignore[no-untyped-def]
    ft = ["hint-bench", "--game", "ft", "--deals", "1", "--per-deal", "2", "--every", "5", "--samples", "1"]
    status, out, _ = run(capsys, *ft, "--max-nodes", "20", "--workers", "1", "--no-progress", "--decided-only")
    assert status == 0
    assert out.startswith("0 positions (of 2 sampled: those whose every move the solver decided)")
    status, out, _ = run(capsys, "hint-bench", *FAST, "--decided-only")  # TriPeaks: the solver decides all
    assert status == 0 and "sampled" not in out.splitlines()[0]
