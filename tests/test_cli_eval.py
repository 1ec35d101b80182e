"""``solitaire-env eval`` and ``solitaire-env replay``.

Most runs call :func:`solitaire_env.cli.main` in this process with one worker; the replay of
recorded episodes and one error run go through ``python -m solitaire_env`` in a fresh
process, as a user would.
"""

from __future__ import annotations

import importlib
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


def test_the_dry_run_prints_every_setting(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The whole text of a dry run (``EvalConfig.dry_run_text``), the outputs' lines included."""
    out_dir, record, plot = tmp_path / "o", tmp_path / "r", tmp_path / "p.png"
    argv = ["eval", "--game", "ft", "--agents", "random", "hint", "--deals", "7", "--seed", "3", "--workers", "2"]
    argv += ["--out", str(out_dir), "--record", str(record), "--plot", str(plot), "--foundation-return", "off"]
    status, out, err = run(capsys, *argv, "--dry-run")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "config ok: fortythieves, rules N, 7 deals from seed 3",
        "agents: random hint",
        "env: {'foundation_return': False}; backend process; workers 2",
        f"out: {out_dir}",
        f"record: {record}",
        f"plot: {plot}",
    ]
    status, out, _ = run(capsys, "eval", "--dry-run")
    assert status == 0
    assert out == (
        "config ok: tripeaks, rules E, 100 deals from seed 0\n"
        "agents: random\n"
        "env: (defaults); backend process; workers all\n"
    )


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
        ("dealz: 3\n", "unknown key 'dealz'; did you mean 'deals'?"),
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
        (["--backend", "process", "--ray-address", "auto"], "ray_address: applies to backend ray only"),
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


# --------------------------------------------------------------------------- outputs: checked first, table first


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Replace the episode runners: a test that uses this asserts that no game was played."""
    evaluate_module = importlib.import_module("agents.evaluation.harness")

    calls: list[object] = []

    def runner(*args: object, **kwargs: object) -> int:
        calls.append(args)
        raise AssertionError("a game was played")

    monkeypatch.setattr(evaluate_module, "run_local", runner)
    monkeypatch.setattr(evaluate_module, "run_ray", runner)
    return calls


def _plot_or_skip(argv: list[str]) -> None:
    if "--plot" in argv:
        pytest.importorskip("matplotlib")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--plot", "{tmp}/x.jpg2"], "plot: matplotlib cannot write .jpg2 files ("),
        (["--plot", "{tmp}/x"], "has no extension; want a file name ending in .png"),
        (["--plot", "{tmp}"], "is an existing folder, not a file"),
        (["--plot", "{tmp}/a_file/x.png"], "cannot be made: "),
        (["--out", "{tmp}/a_file"], "out: '{tmp}/a_file' is an existing file, not a folder"),
        (["--out", "{tmp}/a_file/deeper"], "is a file, not a folder"),
        (["--out", "{tmp}/with_dir"], "results.json' is an existing folder, not a file"),
        (["--record", "{tmp}/a_file"], "record: '{tmp}/a_file' is an existing file, not a folder"),
        (["--out", "{tmp}/fine", "--plot", "{tmp}/x.jpg2"], ".jpg2"),
    ],
)
def test_bad_outputs_fail_before_any_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, no_games: list[object], argv: list[str], message: str
) -> None:
    (tmp_path / "a_file").write_text("keep me\n")
    (tmp_path / "with_dir" / "results.json").mkdir(parents=True)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    _plot_or_skip(argv)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    line = assert_one_line_error(
        *run(capsys, "eval", "--agents", "random", "--deals", "3", *argv, *QUICK),
        contains=message.replace("{tmp}", str(tmp_path)),
    )
    assert "Traceback" not in line
    assert no_games == []  # refused before the first game
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing made
    assert (tmp_path / "a_file").read_text() == "keep me\n"
    # --dry-run checks the outputs too
    assert_one_line_error(*run(capsys, "eval", *argv, "--dry-run"), contains=message.replace("{tmp}", str(tmp_path)))


def test_the_api_checks_outputs_before_any_game(tmp_path: Path, no_games: list[object]) -> None:
    from agents.evaluation.harness import evaluate
    from agents.settings import ConfigError

    (tmp_path / "a_file").write_text("")
    with pytest.raises(ConfigError, match=r"out: .* is an existing file, not a folder"):
        evaluate(game="tripeaks", deals=2, agents=["random"], workers=1, out=str(tmp_path / "a_file"))
    assert no_games == []


def test_missing_folders_are_made_for_every_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["--out", str(tmp_path / "a" / "b" / "out"), "--record", str(tmp_path / "c" / "d")]
    try:
        import matplotlib  # noqa: F401

        argv += ["--plot", str(tmp_path / "e" / "f" / "win.svg")]
    except ImportError:
        pass
    status, _, err = run(capsys, "eval", "--agents", "random", "--deals", "2", *argv, *QUICK)
    assert status == 0, err
    assert (tmp_path / "a" / "b" / "out" / "results.json").is_file()
    assert len(list((tmp_path / "c" / "d").rglob("*.json"))) == 2
    if "--plot" in argv:
        assert (tmp_path / "e" / "f" / "win.svg").read_text().lstrip().startswith("<?xml")
    # solve --json the same way (it used to refuse a missing folder)
    path = tmp_path / "g" / "h" / "one.json"
    status, _, err = run(capsys, "solve", "TP1-E-AAAAAAB", "--json", str(path))
    assert status == 0, err
    assert json.loads(path.read_text())["results"][0]["status"] == "solved"
    path = tmp_path / "i" / "many.json"
    status, _, err = run(capsys, "solve", "--deals", "2", "--workers", "1", "--no-progress", "--json", str(path))
    assert status == 0, err
    assert len(json.loads(path.read_text())["results"]) == 2


def test_solve_json_checked_before_the_work(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("keep me\n")
    for argv in (["TP1-E-AAAAAAB"], ["--deals", "2", "--workers", "1", "--no-progress"]):
        for bad in (tmp_path, tmp_path / "a_file" / "x.json"):
            status, out, err = run(capsys, "solve", *argv, "--json", str(bad))
            assert_one_line_error(status, out, err, contains=f"--json '{bad}' ")
            assert out == ""  # nothing solved, nothing printed
    assert (tmp_path / "a_file").read_text() == "keep me\n"


def test_a_late_write_failure_still_prints_the_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evaluate_module = importlib.import_module("agents.evaluation.harness")

    def fail(self: object, directory: str) -> None:
        raise PermissionError(13, "Permission denied", str(directory))

    monkeypatch.setattr(evaluate_module.EvalResult, "write", fail)
    argv = ["--out", str(tmp_path / "out")]
    try:
        import matplotlib  # noqa: F401

        argv += ["--plot", str(tmp_path / "win.png")]
    except ImportError:
        pass
    status, out, err = run(capsys, "eval", "--agents", "random", "--deals", "4", *argv, *QUICK)
    line = assert_one_line_error(status, out, err, contains="every game was played, but writing failed: out '")
    assert "Permission denied" in line and "(the table above is complete)" in line
    assert any(row.startswith("random ") and " 4 " in row for row in out.splitlines())  # the table
    assert "wall time" in out
    if "--plot" in argv:  # the other output was still written
        assert (tmp_path / "win.png").stat().st_size > 1000 and "written: plot '" in line


def test_a_record_that_fails_mid_run_does_not_stop_the_games(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evaluate_module = importlib.import_module("agents.evaluation.harness")

    real = evaluate_module.write_record
    calls = []

    def flaky(directory: str, agent: str, record: dict[str, object]) -> Path:
        calls.append(record)
        if len(calls) > 2:
            raise OSError(28, "No space left on device", str(directory))
        return real(directory, agent, record)

    monkeypatch.setattr(evaluate_module, "write_record", flaky)
    out_dir = tmp_path / "out"
    status, out, err = run(
        capsys, "eval", "--deals", "5", "--record", str(tmp_path / "rec"), "--out", str(out_dir), *QUICK
    )
    line = assert_one_line_error(status, out, err, contains="No space left on device (2 of 5 written)")
    assert "written: out '" in line
    assert any(row.startswith("random ") and " 5 " in row for row in out.splitlines())
    assert json.loads((out_dir / "results.json").read_text())["summary"]["random"]["deals"] == 5
    assert len(calls) == 3  # recording stopped at the first failure; the games went on


# --------------------------------------------------------------------------- the table's legend


@pytest.mark.parametrize(("game", "progress"), [("tp", "cleared (cards removed, of 28)"), ("ft", "founded")])
def test_the_table_has_a_legend_under_its_rows(capsys: pytest.CaptureFixture[str], game: str, progress: str) -> None:
    status, out, _ = run(capsys, "eval", "--game", game, "--agents", "random", "--deals", "2", *QUICK)
    assert status == 0
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("random "))
    legend = lines[row + 1 : row + 3]
    assert progress in legend[0] and "chain (longest run of" in legend[0]
    assert "means per game" in legend[1] and "Wilson" in legend[1] and "s/game: seconds per game" in legend[1]
    assert all(len(line) <= 100 for line in legend)


# --------------------------------------------------------------------------- numba's first compile


def test_the_compile_note_is_printed_only_when_a_kernel_is_cold(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import agents.evaluation.harness as evaluation

    monkeypatch.setitem(
        evaluation.NUMBA_KERNELS, ("random", "tripeaks"), ("agents.players.playouts", ("sample_counts",))
    )
    monkeypatch.setattr(evaluation, "numba_cold", lambda module, functions: True)
    status, out, err = run(capsys, "eval", "--agents", "random", "--deals", "1", *QUICK)
    assert status == 0
    assert err.splitlines() == [
        "solitaire-env: compiling the numba kernels of random on first use (about 10 s; cached after)"
    ]
    assert out.index("TriPeaks") == 0  # the table on stdout, the note on stderr
    monkeypatch.setattr(evaluation, "numba_cold", lambda module, functions: False)
    status, out, err = run(capsys, "eval", "--agents", "random", "--deals", "1", *QUICK)
    assert status == 0 and err == ""
    monkeypatch.setattr(evaluation, "numba_cold", lambda module, functions: True)
    status, _, err = run(capsys, "eval", "--agents", "random", "--deals", "1", "--dry-run")
    assert status == 0 and err == ""  # a dry run compiles nothing


def test_numba_cold_reads_numba_s_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.evaluation.harness import numba_cold

    (tmp_path / "tiny_kernel_for_cli_test.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef plus_one(x):\n    return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert numba_cold("tiny_kernel_for_cli_test", ("plus_one",))  # never compiled: cold
    import tiny_kernel_for_cli_test as tiny

    assert tiny.plus_one(1) == 2  # compiles and writes the cache
    assert not numba_cold("tiny_kernel_for_cli_test", ("plus_one",))
    assert numba_cold("tiny_kernel_for_cli_test", ("no_such_function",))  # cannot tell: say cold
    assert numba_cold("no_such_module_for_cli_test", ("f",))


def test_the_numba_kernels_table_names_cached_dispatchers() -> None:
    from agents.evaluation.harness import NUMBA_KERNELS
    from agents.registry import agent_names

    for (agent, game), (module, functions) in NUMBA_KERNELS.items():
        assert agent in agent_names(game)  # type: ignore[arg-type]
        mod = importlib.import_module(module)
        for name in functions:
            assert hasattr(getattr(mod, name), "_cache"), (module, name)
            assert type(getattr(mod, name)._cache).__name__ == "FunctionCache", (module, name)


# --------------------------------------------------------------------------- agent options


def test_a_bad_agent_option_is_one_line_naming_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    line = assert_one_line_error(*run(capsys, "eval", "--agents", "rollout:bogus=1", "--no-progress"), contains="bogus")
    assert "rollout" in line and "samples" in line  # what the agent takes
    assert "unexpected keyword argument" not in line and "__init__" not in line


def test_every_config_mistake_is_its_own_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A config with several mistakes: one error line for each (and a heading), not only the first."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: tripeaks\ndeals: -3\nseed: x\nagents: [random, bogus]\nfoo: 1\n")
    status, out, err = run(capsys, "eval", "--config", str(bad))
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert all(line.startswith("solitaire-env: error: ") for line in lines)
    assert len(lines) == 5 and "4 mistakes" in lines[0]
    for word in ("'foo'", "deals:", "seed:", "'bogus'"):
        assert sum(word in line for line in lines[1:]) == 1, word
