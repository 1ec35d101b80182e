"""``solitaire-env eval`` and ``solitaire-env replay``.

Most runs call :func:`solitaire_env.cli.main` in this process with one worker; the replay of
recorded episodes and one error run go through ``python -m solitaire_env`` in a fresh
process, as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solitaire_env.cli import VERBS, main

ROOT = Path(__file__).resolve().parent.parent
ERROR_PREFIX = "solitaire-env: error: "


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_module(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "solitaire_env", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def assert_one_line_error(status: int, out: str, err: str, *, code: int = 2, contains: str = "") -> str:
    assert status == code, (status, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(ERROR_PREFIX), err
    assert "Traceback" not in err
    assert contains in lines[0], lines[0]
    return lines[0]


QUICK = ("--workers", "1", "--no-progress")


def test_verbs_registered() -> None:
    assert {"eval", "replay"} <= set(VERBS)


def test_eval_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "eval", "--agents", "random", "--deals", "5", "--seed", "3", *QUICK)
    assert status == 0 and err == ""
    assert "TriPeaks, rules E" in out and "5 deals: codes TP1-E-" in out
    assert "win rate" in out and "95% CI (Wilson)" in out and "cleared" in out and "s/game" in out
    assert any(line.startswith("random ") and " 5 " in line for line in out.splitlines())
    assert "wall time" in out


def test_eval_forty_thieves_and_compare_all(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "eval", "--game", "ft", "--agents", "random", "random:unused=1", "--deals", "2", *QUICK
    )
    assert status == 2  # random takes no options: one line
    status, out, _ = run(capsys, "eval", "--game", "ft", "--deals", "2", "--compare", "all", *QUICK)
    assert status == 0 and "Forty Thieves" in out and "founded" in out


def test_eval_out_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    argv = ["eval", "--agents", "random", "--deals", "4", "--out", str(out_dir), *QUICK]
    try:
        import matplotlib  # noqa: F401

        argv += ["--plot", str(tmp_path / "win.png")]
    except ImportError:
        pass
    status, out, _ = run(capsys, *argv)
    assert status == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["episodes.csv", "pairs.csv", "results.json", "summary.csv"]
    assert json.loads((out_dir / "results.json").read_text())["summary"]["random"]["deals"] == 4
    if "--plot" in argv:
        assert (tmp_path / "win.png").stat().st_size > 1000 and "plotted the win rates" in out


def test_eval_config_and_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    smoke = str(ROOT / "configs" / "eval_smoke.yaml")
    status, out, _ = run(capsys, "eval", "--config", smoke, "--deals", "3", "--seed", "9", *QUICK)
    assert status == 0 and "3 deals" in out and "default_rng(9)" in out and "1 worker(s)" in out
    status, out, _ = run(capsys, "eval", "--config", smoke, "--rules", "C", "--draw", "when_stuck", "--dry-run")
    assert status == 0 and "config ok: tripeaks, rules C, 20 deals" in out and "when_stuck" in out


@pytest.mark.parametrize("name", ["eval_tripeaks_easy", "eval_tripeaks_classic", "eval_fortythieves"])
def test_shipped_configs_validate_or_name_the_missing_agents(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, err = run(capsys, "eval", "--config", str(ROOT / "configs" / f"{name}.yaml"), "--dry-run")
    if status == 0:
        assert "config ok" in out
    else:
        assert_one_line_error(status, out, err, contains="unknown agent")


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("dealz: 3\n", "unknown key 'dealz'; known: game, rules, env, deals"),
        ("deals: ten\n", "deals: want a whole number >= 1, got 'ten'"),
        ("agents: random\nworkers: -2\n", "workers: want a whole number >= 1, got -2"),
        ("game: klondike\n", "game: want tripeaks (tp) or fortythieves (ft)"),
        ("env: {wrap: false}\n", "wrap comes from the deal codes' rule letter"),
        ("env: {jokers: 4}\n", "env: jokers must be 0, 1 or 2, got 4"),
        ("agents: [random, nope]\n", "unknown agent 'nope' for tripeaks; known: "),
        ("agents: [{samples: 3}]\n", "needs a 'name' key"),
        ("deals: [3\n", "not valid YAML at line"),
        ("- random\n", "want a mapping of settings"),
        ("backend: spark\n", "backend: want one of process, ray, got 'spark'"),
    ],
)
def test_bad_configs_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, yaml_text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text)
    line = assert_one_line_error(*run(capsys, "eval", "--config", str(path)), contains=message)
    assert str(path) in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--config", "no/such/config.yaml"], "no/such/config.yaml: No such file or directory"),
        (["--agents", "random", "no_such_agent"], "unknown agent 'no_such_agent' for tripeaks; known: "),
        (["--game", "ft", "--agents", "no_such_agent"], "unknown agent 'no_such_agent' for fortythieves"),
        (["--agents", "rollout:samples"], "bad agent option 'samples'"),
        (["--agents", "random:speed=3"], "agent 'random': bad options ['speed']"),
        (["--deals", "0"], "argument --deals: want a whole number >= 1"),
        (["--game", "ft", "--rules", "C"], "rules: the fortythieves rule letter is N"),
        (["--game", "ft", "--jokers", "1"], "unknown fortythieves keyword 'jokers'"),
        (["--backend", "process", "--ray-address", "auto"], "ray_address applies to backend ray only"),
        (["--agents", "ppo:model=no/such/model.zip"], "ppo"),
    ],
)
def test_bad_flags_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert_one_line_error(*run(capsys, "eval", *argv, "--no-progress"), contains=message)


def test_missing_model_file(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A model-file option that names no file: one line, before any work."""
    import agents.registry as registry
    from agents.base import Agent, PublicState

    class NeedsModel(Agent):
        name = "stub_model"

        def __init__(self, game: str, seed: int = 0, *, model: str = "") -> None:
            super().__init__(game, seed)  # type: ignore[arg-type]

        def act(self, state: PublicState) -> int:
            return state.legal[0]

    monkeypatch.setitem(registry._load(), ("stub_model", "tripeaks"), NeedsModel)
    assert_one_line_error(
        *run(capsys, "eval", "--agents", "stub_model:model=runs/missing.zip"),
        contains="agent 'stub_model': model file 'runs/missing.zip' not found",
    )
    if "ppo" in registry.agent_names("tripeaks"):
        assert_one_line_error(
            *run(capsys, "eval", "--agents", "ppo:model=runs/missing.zip"), contains="model file 'runs/missing.zip'"
        )


def test_missing_optional_packages(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert_one_line_error(
        *run(capsys, "eval", "--deals", "1", "--plot", str(tmp_path / "x.png"), *QUICK),
        contains="plot needs matplotlib: pip install 'solitaire-env[plot]'",
    )
    monkeypatch.setitem(sys.modules, "ray", None)
    assert_one_line_error(
        *run(capsys, "eval", "--deals", "1", "--backend", "ray", "--no-progress"),
        contains="backend ray needs the ray package: pip install 'solitaire-env[ray]'",
    )


# --------------------------------------------------------------------------- record and replay


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("episodes")
    status = main(["eval", "--agents", "random", "--deals", "20", "--seed", "7", "--record", str(folder), *QUICK])
    assert status == 0
    return folder


def test_record_then_replay_in_a_fresh_process(recorded: Path) -> None:
    files = sorted(recorded.rglob("*.json"))
    assert len(files) == 20
    done = run_module("replay", str(recorded))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "replayed 20 episode(s): every one reproduced exactly" in done.stdout


def test_replay_verbose_and_rerun_agent(capsys: pytest.CaptureFixture[str], recorded: Path) -> None:
    files = sorted(recorded.rglob("*.json"))[:3]
    status, out, err = run(capsys, "replay", *map(str, files), "--verbose", "--rerun-agent")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 4 and all(line.startswith("ok  ") and " random " in line for line in lines[:3])
    assert "replayed 3 episode(s)" in lines[3]


def _copy_record(recorded: Path, tmp_path: Path) -> tuple[Path, dict[str, object]]:
    source = sorted(recorded.rglob("*.json"))[0]
    record = json.loads(source.read_text())
    return tmp_path / source.name, record


def test_replay_mismatch_is_one_line_exit_1(capsys: pytest.CaptureFixture[str], recorded: Path, tmp_path: Path) -> None:
    path, record = _copy_record(recorded, tmp_path)
    record["score"] = int(record["score"]) + 5  # type: ignore[call-overload]
    path.write_text(json.dumps(record))
    line = assert_one_line_error(*run(capsys, "replay", str(path)), code=1, contains="replay differs: score differs")
    assert str(path) in line
    record["score"] = int(record["score"]) - 5  # type: ignore[call-overload]
    record["actions"] = [0, *record["actions"]]  # type: ignore[list-item]
    path.write_text(json.dumps(record))
    assert_one_line_error(*run(capsys, "replay", str(path)), code=1, contains="action 1 of")


def test_replay_version_warning(capsys: pytest.CaptureFixture[str], recorded: Path, tmp_path: Path) -> None:
    path, record = _copy_record(recorded, tmp_path)
    record["version"] = "0.0.1"
    path.write_text(json.dumps(record))
    status, out, err = run(capsys, "replay", str(path))
    assert status == 0 and "replayed 1 episode(s)" in out
    assert err.startswith("solitaire-env: warning: ") and "recorded with solitaire-env 0.0.1" in err
    assert_one_line_error(*run(capsys, "replay", str(path), "--strict"), code=1, contains="0.0.1")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "solitaire_env.episode/1", "version": "0.1.0", "game": "trip', "not valid JSON"),
        ("\x00\x01\x02garbage", "not valid JSON"),
        ('{"hello": 1}', "missing field 'format'"),
    ],
)
def test_corrupted_record_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    line = assert_one_line_error(*run(capsys, "replay", str(path)), contains=message)
    assert str(path) in line


def test_replay_missing_inputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(*run(capsys, "replay", str(tmp_path / "nope.json")), contains="No such file or directory")
    assert_one_line_error(*run(capsys, "replay", str(tmp_path)), contains="no episode records")
    assert_one_line_error(*run(capsys, "replay"), contains="the following arguments are required: FILE")


def test_errors_in_a_fresh_process_have_no_traceback(recorded: Path, tmp_path: Path) -> None:
    done = run_module("eval", "--agents", "random", "not_an_agent", "--no-progress")
    assert_one_line_error(done.returncode, done.stdout, done.stderr, contains="unknown agent 'not_an_agent'")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    done = run_module("replay", str(broken))
    assert_one_line_error(done.returncode, done.stdout, done.stderr, contains="not valid JSON")
