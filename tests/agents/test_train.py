"""``solitaire-env train``: configs, the smoke run, resume, the outputs, and a model on other rules."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from agents.settings import ConfigError
from agents.training.train import TrainConfig, deal_sets, evaluate_model, load_train_config, train
from solitaire_env.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
PUBLISHED = ["ppo_smoke.yaml", "ppo_tripeaks_easy.yaml", "ppo_tripeaks_classic.yaml", "ppo_fortythieves.yaml"]


def tiny(tmp_path: Path, **changes: object) -> dict[str, object]:
    """The smoke config, smaller still, writing under ``tmp_path``."""
    data = yaml.safe_load((CONFIGS / "ppo_smoke.yaml").read_text())
    data.update(
        {
            "num_envs": 8,
            "timesteps": 512,
            "validation": {"deals": 8, "seed": 1, "every": 256},
            "test": {"deals": 6, "seed": 0, "agents": ["random"], "workers": 1},
            "out": str(tmp_path / "run"),
        }
    )
    data["ppo"] = {**data["ppo"], "n_steps": 32, "batch_size": 64, "n_epochs": 1}  # type: ignore[dict-item]
    data.update(changes)
    return data


# --------------------------------------------------------------------------- configs


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_validate(name: str) -> None:
    config = load_train_config(str(CONFIGS / name))
    assert config.test.seed != config.validation.seed
    assert not str(dict(config.env).get("obs_mode", "flat")).startswith("oracle")


def test_easy_config_is_the_published_evaluation() -> None:
    """The Easy run's test deals are the 1000 deals of configs/eval_tripeaks_easy.yaml (seed 0, rules E)."""
    config = load_train_config(str(CONFIGS / "ppo_tripeaks_easy.yaml"))
    evaluation = yaml.safe_load((CONFIGS / "eval_tripeaks_easy.yaml").read_text())
    assert (config.test.deals, config.test.seed, config.rules) == (evaluation["deals"], evaluation["seed"], "E")
    assert config.minutes is not None and config.minutes <= 60


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bogus": 1}, "unknown key 'bogus'"),
        ({"game": "chess"}, "game: want tripeaks"),
        ({"rules": "Q"}, "rules:"),
        ({"num_envs": 0}, "num_envs: want a whole number >= 1"),
        ({"timesteps": "many"}, "timesteps: want a whole number"),
        ({"minutes": -3}, "minutes: want a number of minutes > 0"),
        ({"minutes": float("inf")}, "minutes: want a number of minutes > 0"),
        ({"env": {"wrap": True}}, "wrap comes from the deal codes"),
        ({"env": {"obs_mode": "oracle"}}, "shows hidden cards"),
        ({"env": {"reward": "money"}}, "unknown reward"),
        ({"env": {"foundation_return": True}}, "unknown tripeaks keyword 'foundation_return'"),
        ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate: want a number"),
        ({"ppo": {"n_steps": 0}}, "ppo.n_steps: want a whole number >= 1"),
        ({"ppo": {"net_arch": [64, "x"]}}, "ppo.net_arch"),
        ({"ppo": {"policy": "CnnPolicy"}}, "ppo.policy"),
        ({"ppo": {"gamma": 0.9, "lr": 1}}, "ppo: unknown key 'lr'"),
        ({"env": {"obs_mode": "dict"}, "ppo": {"policy": "MlpPolicy"}}, "needs MultiInputPolicy"),
        ({"validation": {"deals": 8, "seed": 0}}, "validation.seed and test.seed are both 0"),
        ({"validation": {"often": 1}}, "validation: unknown key 'often'"),
        ({"test": {"agents": ["no_such_agent"]}}, "unknown agent 'no_such_agent'"),
        ({"resume": "nowhere/model.zip"}, "resume: model file 'nowhere/model.zip' not found"),
    ],
)
def test_bad_configs_fail_in_one_line(tmp_path: Path, change: dict[str, object], message: str) -> None:
    data = tiny(tmp_path)
    data.update(change)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")) as info:
        TrainConfig.from_mapping(data, source="x.yaml")
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("x.yaml: ")


def test_cli_bad_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("game: tripeaks\nnum_envs: -1\n")
    assert main(["train", "--config", str(path)]) != 0
    err = capsys.readouterr().err
    assert "num_envs" in err and len(err.strip().splitlines()) == 1
    assert main(["train", "--config", str(tmp_path / "missing.yaml")]) != 0
    assert main(["train", "--config", str(path), "--minutes", "0"]) != 0


def test_cli_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--config", str(CONFIGS / "ppo_tripeaks_easy.yaml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "config ok: tripeaks, rules E" in out and "test: 1000 deals (seed 0)" in out


def test_the_dry_run_prints_every_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole text of a dry run (``TrainConfig.dry_run_text``), with the command line's overrides."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny(tmp_path, minutes=2.5), sort_keys=False))
    resume = tmp_path / "m.zip"
    resume.write_bytes(b"")
    argv = ["train", "--config", str(path), "--seed", "4", "--timesteps", "1234567", "--resume", str(resume)]
    assert main([*argv, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    ppo = "{'n_steps': 32, 'batch_size': 64, 'n_epochs': 1, 'net_arch': [64, 64], 'torch_threads': 1, "
    ppo += "'policy': 'MlpPolicy'}"
    assert err == ""
    assert out.splitlines() == [
        "config ok: tripeaks, rules E, 8 envs, 1,234,567 timesteps or 2.5 minutes, seed 4",
        "env: {'obs_mode': 'flat', 'reward': 'progress', 'win_bonus': 10}",
        f"ppo: {ppo}",
        "advice: none; shaping: none; pretrain: none",
        "validation: 8 deals (seed 1) every 256 steps",
        "test: 6 deals (seed 0), compared with: random",
        f"out: {tmp_path / 'run'}; resume: {resume}",
    ]
    path.write_text(yaml.safe_dump(tiny(tmp_path, env={"reward": "progress"}, ppo={}, pretrain={}, minutes=None)))
    assert main(["train", "--config", str(path), "--test-deals", "0", "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[1:6] == [
        "env: {'reward': 'progress'}",
        "ppo: {'policy': 'MlpPolicy'}",
        "advice: none; shaping: none; pretrain: the defaults",
        "validation: 8 deals (seed 1) every 256 steps",
        "test: none (test.deals is 0)",
    ]


def test_an_empty_config_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty file would start the defaults' million-step run: refused in one line."""
    for text in ("", "# nothing yet\n", "{}\n"):
        path = tmp_path / "empty.yaml"
        path.write_text(text)
        with pytest.raises(ConfigError, match=r"empty\.yaml: the config is empty"):
            load_train_config(str(path))
        assert main(["train", "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "the config is empty" in err


def test_every_mistake_of_a_train_config_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three different mistakes: one error, one line per mistake (not only the first)."""
    data = tiny(tmp_path, num_envs=0, advice="lots")
    data["ppo"] = {**data["ppo"], "gamma": "fast"}  # type: ignore[dict-item]
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_mapping(data, source="x.yaml")
    error = info.value
    assert len(error.problems) == 3, error.problems
    lines = str(error).splitlines()
    assert lines[0] == "x.yaml: 3 mistakes:" and len(lines) == 4
    for line, key in zip(lines[1:], ("advice: want one of", "num_envs: want a whole number", "ppo.gamma: want a")):
        assert key in line, lines
    # through the CLI: every mistake named
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["train", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert all(key in err for key in ("num_envs:", "advice:", "ppo.gamma:")), err
    # a check that depends on a wrong key is skipped, not reported as a second mistake
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_mapping(tiny(tmp_path, game="chess", rules="N"), source="x.yaml")
    assert info.value.problems == ("game: want tripeaks (tp) or fortythieves (ft), got 'chess'",)


def test_every_mistake_of_an_eval_config_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Eval configs (agents/evaluation/config.py) too: three mistakes, three lines, the CLI naming all three."""
    from agents.evaluation.config import EvalConfig

    data = {"deals": 0, "backend": "dask", "agents": ["random", "no_such_agent"]}
    with pytest.raises(ConfigError) as info:
        EvalConfig.from_mapping(data, source="e.yaml")
    assert str(info.value).splitlines() == [
        "e.yaml: 3 mistakes:",
        "  1. deals: want a whole number >= 1, got 0",
        "  2. backend: want one of process, ray, got 'dask'",
        f"  3. {info.value.problems[2]}",
    ]
    assert info.value.problems[2].startswith("agents: unknown agent 'no_such_agent' for tripeaks")
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["eval", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert all(key in err for key in ("deals:", "backend:", "no_such_agent")), err


def test_a_failed_resume_leaves_no_empty_folder(tmp_path: Path) -> None:
    """A model file that is not one fails before the out folder is made; a folder that was
    there before is left as it was."""
    bad = tmp_path / "bad.zip"
    bad.write_text("not a model")
    out = tmp_path / "new" / "run"
    with pytest.raises(ConfigError, match="resume: cannot go on from"):
        train(tiny(tmp_path, resume=str(bad), out=str(out)), progress=False, log=lambda *a: None)
    assert not out.exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="resume: cannot go on from"):
        train(tiny(tmp_path, resume=str(bad), out=str(kept)), progress=False, log=lambda *a: None)
    assert [p.name for p in kept.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_an_interrupted_run_saves_and_resumes(tmp_path: Path, signame: str) -> None:
    """Ctrl-C or SIGTERM in the middle of learning: model.zip, its sidecar and metrics.json
    (interrupted, with the timesteps reached), one line saying so, exit 130; the model resumes."""
    import signal
    import subprocess
    import sys
    import time

    data = tiny(tmp_path, timesteps=10_000_000, minutes=2, test={"deals": 4, "seed": 0, "workers": 1})
    out = Path(str(data["out"]))
    config = tmp_path / "long.yaml"
    config.write_text(yaml.safe_dump(data))
    # the child's signal handling as from a terminal, whatever this process inherited
    script = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "signal.signal(signal.SIGTERM, signal.SIG_DFL); from solitaire_env.cli import main; "
        f"sys.exit(main(['train', '--config', {str(config)!r}, '--no-progress']))"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "evaluations.npz").exists():  # a validation has run: learning is under way
            assert child.poll() is None and time.monotonic() < deadline, child.communicate()
            time.sleep(0.05)
        child.send_signal(getattr(signal, signame))
        _, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"interrupted by {signame} at ") and "--resume" in last and str(out / "model.zip") in last
    assert "Traceback" not in stderr
    for name in ("model.zip", "model.json", "metrics.json"):
        assert (out / name).is_file(), name
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["interrupted"] is True and metrics["interrupted_by"] == signame
    assert metrics["interrupted_in"] == "learning" and metrics["stopped_by"] == "interrupt"
    assert 0 < metrics["timesteps"] < 10_000_000 and "test" not in metrics
    assert metrics["files"]["model_sidecar"] == str(out / "model.json")
    if signame == "SIGTERM":  # the saved model goes on training (once is enough)
        more = tiny(tmp_path, resume=str(out / "model.zip"), out=str(tmp_path / "more"), timesteps=256)
        more["test"] = {"deals": 0}
        resumed = train(more, progress=False, log=lambda *a: None).metrics
        assert resumed["timesteps"] >= metrics["timesteps"] + 256 and not resumed["interrupted"]


def test_pretrain_stops_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm start asks ``stop`` before every env move and fit batch: once it says yes, the
    warm start ends without its last check (``interrupted``)."""
    from sb3_contrib import MaskablePPO

    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    model = MaskablePPO("MlpPolicy", inner, n_steps=8, batch_size=32, seed=0, device="cpu")
    asked: list[int] = []
    checks: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 12  # a round of 2 moves and its fits, then a stop in the second round

    def check() -> dict[str, float]:
        checks.append(1)
        return {"win_rate": 0.0, "mean_reward": 0.0}

    class Clock:  # one second per reading: without the stop, a minute is a few dozen rounds
        now = 0.0

        @classmethod
        def perf_counter(cls) -> float:
            cls.now += 1.0
            return cls.now

    monkeypatch.setattr("agents.training.pretrain.time", Clock)
    settings = PretrainSettings(minutes=1, samples=2, steps=2, batch_size=8, threads=1)
    got = run_pretrain(model, inner, inner, settings, seed=0, check=check, every=1e9, say=lambda *a: None, stop=stop)
    assert got["interrupted"] is True and 1 <= got["rounds"] <= 2 and not checks
    assert got["kept_check_seconds"] is None


def test_held_out_deals_are_disjoint(tmp_path: Path) -> None:
    config = TrainConfig.from_mapping(tiny(tmp_path, validation={"deals": 50, "seed": 1}, test={"deals": 50}))
    validation, test = deal_sets(config)
    assert len(validation) == len(test) == 50
    assert not set(validation) & set(test)


# --------------------------------------------------------------------------- runs


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One tiny training run (shared by the tests below), its log lines and its progress bar."""
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("train")
    said: list[str] = []
    bar = io.StringIO()
    with contextlib.redirect_stderr(bar):
        result = train(TrainConfig.from_mapping(tiny(tmp)), progress=True, log=lambda *a: said.append(" ".join(a)))
    return {"result": result, "tmp": tmp, "log": said, "bar": bar.getvalue()}


def test_run_prints_its_settings_at_the_start(smoke: dict[str, object]) -> None:
    """Before any learning: one block with the limits, the env and what an update costs."""
    log: list[str] = smoke["log"]  # type: ignore[assignment]
    assert log[0] == "training MaskablePPO (a new policy):"
    block = "\n".join(log[:9])
    assert "512 timesteps or 5 minutes, whichever comes first" in block
    assert "each update: 32 steps x 8 envs = 256 env steps, batch_size 64, n_epochs 1" in block
    assert "validation: 8 deals (seed 1) every 256 steps; test: 6 deals (seed 0), compared with random" in block


def test_progress_bar_counts_timesteps_and_shows_the_last_validation(smoke: dict[str, object]) -> None:
    """The bar counts env steps up to the configured timesteps (a time limit is in its label),
    ends at 100 %, and its last frame shows the last validation (the one at the final weights)."""
    frames = [f for f in str(smoke["bar"]).replace("\r", "\n").splitlines() if f.startswith("training")]
    assert frames, smoke["bar"]
    last = frames[-1]
    assert last.startswith("training (at most 5 min): 100%") and "512/512" in last, last
    metrics = smoke["result"].metrics  # type: ignore[attr-defined]
    assert f"validation_return={metrics['validation'][-1]['mean_reward']:.2f}" in last, last
    assert not metrics["interrupted"] and metrics["stopped_by"] == "timesteps"


def test_smoke_run_writes_everything(smoke: dict[str, object]) -> None:
    result = smoke["result"]
    out = result.out  # type: ignore[attr-defined]
    for name in ("model.zip", "model.json", "best_model.zip", "best_model.json", "metrics.json", "evaluations.npz"):
        assert (out / name).is_file(), name
    assert (out / "learning_curve.png").stat().st_size > 1000
    assert any((out / "tensorboard").rglob("events.out.tfevents.*"))
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["timesteps"] >= 512
    assert metrics["validation"] and all(0 <= r["win_rate"] <= 1 for r in metrics["validation"])
    assert metrics["validation"][-1]["timesteps"] == metrics["timesteps"]  # a last one at the final weights
    summary = metrics["test"]["summary"]
    assert set(summary) == {metrics["test"]["agent"], "random"}
    assert summary[metrics["test"]["agent"]]["deals"] == 6
    progress = metrics["test"]["progress"]
    assert set(progress["per_agent"]) == set(summary) and set(progress["paired"]) == {"random"}
    row = progress["per_agent"]["random"]
    assert row["mean"] == pytest.approx(summary["random"]["mean_cleared"])
    assert row["ci95_low"] <= row["mean"] <= row["ci95_high"]
    # the harness's ppo games and the batch env's games of the same policy on the same deals agree
    assert metrics["test"]["batch_check"]["wins"] == summary[metrics["test"]["agent"]]["wins"]


def test_smoke_model_loads_and_plays_a_masked_episode(smoke: dict[str, object]) -> None:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import solitaire_env  # noqa: F401

    out = smoke["result"].out  # type: ignore[attr-defined]
    model = MaskablePPO.load(str(out / "model.zip"), device="cpu")
    env = gym.make("solitaire_env/TriPeaks-v0", reward="progress")
    obs, info = env.reset(seed=3)
    done = False
    steps = 0
    while not done:
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, terminated, truncated, info = env.step(int(action))
        done = terminated or truncated
        steps += 1
    assert steps > 0 and "illegal_reason" not in info


def test_resume_goes_on_from_the_saved_model(smoke: dict[str, object]) -> None:
    tmp = smoke["tmp"]
    first = smoke["result"]
    model = str(first.out / "model.zip")  # type: ignore[attr-defined]
    before = json.loads((first.out / "metrics.json").read_text())["timesteps"]  # type: ignore[attr-defined]
    config = TrainConfig.from_mapping(
        tiny(tmp, resume=model, out=str(tmp / "resumed"), timesteps=256, test={"deals": 0})  # type: ignore[arg-type]
    )
    result = train(config, progress=False, log=lambda *a: None)
    metrics = result.metrics
    assert metrics["timesteps"] >= before + 256
    assert metrics["timesteps_this_run"] >= 256
    assert "test" not in metrics


def test_model_evaluates_on_other_rule_options(smoke: dict[str, object]) -> None:
    """A model trained on Easy plays Classic deals, jokers and draw-when-stuck through the harness."""
    from agents.evaluation.harness import evaluate

    best = str(smoke["result"].out / "best_model.zip")  # type: ignore[attr-defined]
    for rules, env in (("C", {}), ("E", {"jokers": 1, "draw": "when_stuck"})):
        result = evaluate(
            game="tripeaks", rules=rules, env=env, deals=4, seed=5, agents=[f"ppo:model={best}"], workers=1, write=False
        )
        (row,) = result.summary().values()
        assert row["deals"] == 4


def test_evaluate_model_matches_the_ppo_agent(smoke: dict[str, object]) -> None:
    """The batch evaluation and the ppo agent in the single env play the very same games."""
    from sb3_contrib import MaskablePPO

    from agents.evaluation.harness import evaluate
    from solitaire_env.solvability import draw_codes

    best = smoke["result"].out / "best_model.zip"  # type: ignore[attr-defined]
    codes = draw_codes(12, 9, "TP", "C")
    batch = evaluate_model(MaskablePPO.load(str(best), device="cpu"), codes, "tripeaks", {"wrap": False})
    result = evaluate(
        game="tripeaks", rules="C", deals=12, seed=9, agents=[f"ppo:model={best}"], workers=1, write=False
    )
    (episodes,) = result.episodes.values()
    assert [e.progress for e in episodes] == batch["progress"].tolist()
    assert [e.score for e in episodes] == batch["score"].tolist()
    assert np.array_equal([e.won for e in episodes], batch["won"])


@pytest.mark.slow
def test_fortythieves_smoke(tmp_path: Path) -> None:
    data = tiny(tmp_path, game="fortythieves", rules="N", test={"deals": 2, "agents": ["random"], "workers": 1})
    data["validation"] = {"deals": 2, "seed": 1, "every": 256}
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    assert result.metrics["test"]["summary"]


def test_chain_policy_trains_saves_and_plays_in_the_harness(tmp_path: Path) -> None:
    """``ppo.features: chain`` goes through the whole pipeline: the harness's ppo agent (single
    env) and the batch env play the same games with the saved model."""
    data = tiny(tmp_path, timesteps=256, test={"deals": 4, "seed": 0, "agents": [], "workers": 1})
    data["ppo"] = {**data["ppo"], "features": "chain"}  # type: ignore[dict-item]
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    test = result.metrics["test"]
    assert test["batch_check"]["wins"] == test["summary"][test["agent"]]["wins"]
    from sb3_contrib import MaskablePPO

    from agents.training.features import TriPeaksChainFeatures

    policy = MaskablePPO.load(result.files["best_model"], device="cpu").policy
    assert isinstance(policy.features_extractor, TriPeaksChainFeatures)
    data["ppo"] = {"features": "chain"}
    data["game"], data["rules"] = "fortythieves", "N"
    with pytest.raises(ConfigError, match="reads the flat TriPeaks observation"):
        TrainConfig.from_mapping(data)


def test_advice_and_shaping_train_save_and_play_in_the_harness(tmp_path: Path) -> None:
    """``advice: base_policy`` + ``shaping: playout`` go through the whole pipeline: the sidecar
    names the advice, the harness's ppo agent (public state only) and the batch env (advice from
    the env's arrays) play the same games with the saved model."""
    data = tiny(tmp_path, timesteps=256, test={"deals": 6, "seed": 0, "agents": [], "workers": 1})
    data["ppo"] = {**data["ppo"], "features": "chain"}  # type: ignore[dict-item]
    data.update(advice="base_policy", shaping="playout")
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    test = result.metrics["test"]
    assert test["batch_check"]["wins"] == test["summary"][test["agent"]]["wins"]
    assert test["batch_check"]["mean_progress"] == pytest.approx(test["summary"][test["agent"]]["mean_cleared"])
    from agents.players.ppo import read_sidecar

    assert read_sidecar(result.files["best_model"])["advice"] == "base_policy"  # type: ignore[index]
    assert result.metrics["config"]["shaping"] == "playout"
    from agents.registry import make_agent

    agent = make_agent("ppo", "tripeaks", model=result.files["best_model"])
    assert agent.advice == "base_policy"
    with pytest.raises(ValueError, match="takes observations"):
        make_agent("ppo", "tripeaks", model=result.files["best_model"], advice="none")


def test_pretrain_warm_starts_then_ppo(tmp_path: Path) -> None:
    """A ``pretrain`` block fits the policy first (in the time budget), the warm-started policy is
    validated at step 0 (a candidate for the best model), PPO goes on, and the harness's agent
    and the batch env play the same games with the result."""
    data = tiny(tmp_path, timesteps=256, minutes=1, test={"deals": 6, "seed": 0, "agents": [], "workers": 1})
    data.update(
        advice="base_policy",
        pretrain={"minutes": 0.03, "samples": 2, "steps": 2, "batch_size": 64, "replay": 2},
    )
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    pre = result.metrics["pretrain"]
    assert pre["rounds"] >= 1 and pre["positions"] > 0 and pre["checks"]
    assert 0 <= pre["checks"][-1]["win_rate"] <= 1
    validation = result.metrics["validation"]
    assert validation[0]["timesteps"] == 0 and validation[-1]["timesteps"] > 0
    test = result.metrics["test"]
    assert test["batch_check"]["wins"] == test["summary"][test["agent"]]["wins"]


def test_afterstate_policy_warm_starts_trains_and_plays_in_the_harness(tmp_path: Path) -> None:
    """``ppo.features: afterstate`` (with advice and a warm start) goes through the whole
    pipeline: the saved policy is an AfterstatePolicy with the scorer's layers of ``net_arch``,
    and the harness's ppo agent and the batch env play the same games with it."""
    data = tiny(tmp_path, timesteps=256, minutes=1, test={"deals": 6, "seed": 0, "agents": [], "workers": 1})
    data["ppo"] = {**data["ppo"], "features": "afterstate", "net_arch": [16, 8]}  # type: ignore[dict-item]
    data.update(
        advice="base_policy",
        pretrain={"minutes": 0.03, "samples": 2, "steps": 2, "batch_size": 64, "replay": 2},
    )
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    test = result.metrics["test"]
    assert test["batch_check"]["wins"] == test["summary"][test["agent"]]["wins"]
    assert test["batch_check"]["mean_progress"] == pytest.approx(test["summary"][test["agent"]]["mean_cleared"])
    from sb3_contrib import MaskablePPO

    from agents.training.afterstate import AfterstatePolicy

    policy = MaskablePPO.load(result.files["best_model"], device="cpu").policy
    assert isinstance(policy, AfterstatePolicy)
    assert [m.out_features for m in policy.features_extractor.scorer if hasattr(m, "out_features")] == [16, 8, 1]
    data["ppo"] = {"features": "afterstate", "net_arch": {"pi": [8], "vf": [8]}}
    with pytest.raises(ConfigError, match="with features afterstate"):
        TrainConfig.from_mapping(data)
    data["ppo"] = {"features": "afterstate"}
    data["game"], data["rules"] = "fortythieves", "N"
    del data["advice"], data["pretrain"]
    with pytest.raises(ConfigError, match="reads the flat TriPeaks observation"):
        TrainConfig.from_mapping(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pretrain": {"minutes": 0}}, "pretrain.minutes: want a number > 0"),
        ({"pretrain": {}, "resume": "configs/ppo_smoke.yaml"}, "does not go with resume"),
        ({"pretrain": {"samples": 1.5}}, "pretrain.samples: want a whole number"),
        ({"pretrain": {"epsilon": 2}}, "pretrain.epsilon"),
        ({"pretrain": {"final_learning_rate": 0}}, "pretrain.final_learning_rate: want a number > 0"),
        ({"pretrain": {"loss": "hinge"}}, "pretrain.loss: want one of squared, cross_entropy"),
        ({"pretrain": {"average": 1}}, "pretrain.average: want a decay between 0 and 1"),
        ({"pretrain": {"symmetry": "yes"}}, "pretrain.symmetry: want true or false"),
        ({"pretrain": {"critic_every": 0}}, "pretrain.critic_every: want a whole number >= 1"),
        ({"pretrain": {"teacher": "x"}}, "pretrain"),
        ({"pretrain": {}, "env": {"reward": "score"}}, "reward progress"),
        ({"advice": "lookahead"}, "advice: want one of"),
        ({"shaping": "yes"}, "shaping: want one of"),
        ({"shaping": "playout", "env": {"reward": "score"}}, "reward progress"),
        ({"advice": "base_policy", "env": {"obs_mode": "dict"}, "ppo": {"policy": "MultiInputPolicy"}}, "flat"),
        ({"advice": "base_policy", "game": "fortythieves", "rules": "N", "env": {}}, "TriPeaks"),
    ],
)
def test_bad_advice_and_shaping(tmp_path: Path, change: dict[str, object], message: str) -> None:
    data = tiny(tmp_path)
    data.update(change)
    with pytest.raises(ConfigError, match=message):
        TrainConfig.from_mapping(data)


def test_progress_comparison_by_hand() -> None:
    from types import SimpleNamespace

    from agents.training.train import progress_comparison

    def rows(values: list[int]) -> list[SimpleNamespace]:
        return [SimpleNamespace(progress=v) for v in values]

    out = progress_comparison({"a": rows([3, 5, 5, 9]), "b": rows([1, 5, 7, 2])}, "a")
    assert out["per_agent"]["a"]["mean"] == 5.5 and out["per_agent"]["b"]["mean"] == 3.75
    paired = out["paired"]["b"]
    assert (paired["deals_more"], paired["deals_less"]) == (2, 1)  # the tie (5, 5) is dropped
    assert paired["mean_difference"] == 1.75 and paired["sign_test_p"] == 1.0
    assert "a" not in out["paired"]


def test_numbers_yaml_reads_as_strings_are_numbers(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text("ppo:\n  learning_rate: 3e-4\ntimesteps: 1e3\n")
    config = load_train_config(str(path))
    assert config.timesteps == 1000 and config.ppo_kwargs["learning_rate"] == 3e-4


def test_resume_refuses_a_model_of_the_other_game(smoke: dict[str, object], tmp_path: Path) -> None:
    model = str(smoke["result"].out / "model.zip")  # type: ignore[attr-defined]
    data = tiny(tmp_path, game="fortythieves", rules="N", resume=model, test={"deals": 0})
    with pytest.raises(ConfigError, match="trained on tripeaks, not fortythieves"):
        train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)


def test_empty_pretrain_block_means_the_defaults(tmp_path: Path) -> None:
    data = tiny(tmp_path)
    assert TrainConfig.from_mapping(data).pretrain is None
    data["pretrain"] = {}
    config = TrainConfig.from_mapping(data)
    assert config.pretrain is not None and config.pretrain.given() == {} and config.to_dict()["pretrain"] == {}


def test_pretrain_learning_rate_goes_down_in_a_straight_line() -> None:
    """``final_learning_rate``: the rate falls linearly over the warm start's minutes and stays
    at the final rate after them; without it the rate is constant."""
    from agents.training.pretrain import PretrainSettings

    decay = PretrainSettings(minutes=10, learning_rate=3e-4, final_learning_rate=3e-5)
    assert decay.rate(0) == 3e-4
    assert abs(decay.rate(300) - 1.65e-4) < 1e-12
    assert abs(decay.rate(600) - 3e-5) < 1e-12 and abs(decay.rate(900) - 3e-5) < 1e-12
    assert PretrainSettings(learning_rate=1e-3).rate(300) == 1e-3


def test_pretrain_fits_with_the_falling_learning_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every optimizer step of the warm start uses the scheduled rate: never rising, inside
    [final, initial], the last one reported in the result."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    used: list[float] = []

    class Recording(torch.optim.Adam):
        def step(self, *args: Any, **kwargs: Any) -> Any:
            used.append(self.param_groups[0]["lr"])
            return super().step(*args, **kwargs)

    class Clock:  # one second per reading: the rounds do not depend on the machine's speed
        now = 0.0

        @classmethod
        def perf_counter(cls) -> float:
            cls.now += 1.0
            return cls.now

    monkeypatch.setattr(torch.optim, "Adam", Recording)
    monkeypatch.setattr("agents.training.pretrain.time", Clock)
    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    model = MaskablePPO("MlpPolicy", inner, n_steps=8, batch_size=32, seed=0, device="cpu")
    settings = PretrainSettings(
        minutes=0.2, samples=2, steps=2, batch_size=4, threads=1, learning_rate=1e-3, final_learning_rate=1e-5
    )
    got = run_pretrain(model, inner, inner, settings, seed=0, say=lambda *a: None)
    assert got["rounds"] >= 2 and len(used) >= 2
    assert all(b <= a for a, b in itertools.pairwise(used)) and used[-1] < used[0]
    assert all(1e-5 <= r < 1e-3 for r in used) and got["last_learning_rate"] == used[-1]


@pytest.mark.parametrize("averaged_best", [True, False])
def test_pretrain_ends_with_the_checked_weights_that_did_best(averaged_best: bool) -> None:
    """``average``: each check plays the fitted weights, then their moving average, on the same
    deals; the fitted weights are put back after it, and the warm start ends with whichever of
    the two scored best at the best check (here the first check), the very weights checked."""
    import copy

    import torch
    from sb3_contrib import MaskablePPO

    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    model = MaskablePPO("MlpPolicy", inner, n_steps=8, batch_size=32, seed=0, device="cpu")
    seen: list[dict] = []

    def check() -> dict[str, float]:  # calls alternate: the fitted weights, then their average
        seen.append(copy.deepcopy(model.policy.state_dict()))
        first, averaged = len(seen) <= 2, len(seen) % 2 == 0
        return {"win_rate": 0.0, "mean_reward": (10.0 if first else 0.0) + (averaged == averaged_best)}

    settings = PretrainSettings(minutes=0.02, samples=2, steps=2, batch_size=8, threads=1, average=0.5)
    got = run_pretrain(model, inner, inner, settings, seed=0, check=check, every=0.0, say=lambda *a: None)
    assert len(seen) >= 4 and len(seen) % 2 == 0 and got["kept_averaged"] == averaged_best
    assert "averaged_mean_reward" in got["checks"][0]
    final = model.policy.state_dict()
    kept = seen[1] if averaged_best else seen[0]
    assert all(torch.equal(final[k], kept[k]) for k in final)
    assert not all(torch.equal(seen[0][k], seen[1][k]) for k in final)  # the average is not the weights
    # after each check the fitted weights went on from themselves, not from their average
    assert not all(torch.equal(seen[2][k], seen[1][k]) for k in final)


@pytest.mark.parametrize("symmetry", [True, False])
def test_pretrain_symmetry_fits_the_images_of_the_positions(monkeypatch: pytest.MonkeyPatch, symmetry: bool) -> None:
    """``symmetry``: every fit batch goes through :func:`agents.training.symmetry.augment` (each row under
    one of the 48 symmetries, its legal moves and values renumbered with it); without, none does."""
    import torch
    from sb3_contrib import MaskablePPO

    import agents.training.symmetry
    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    batches: list[tuple[Any, ...]] = []
    real = agents.training.symmetry.augment

    def recording(tables: Any, *tensors: Any, **kwargs: Any) -> tuple[Any, ...]:
        out = real(tables, *tensors, **kwargs)
        batches.append((tables, tensors, out))
        return out

    monkeypatch.setattr(agents.training.symmetry, "augment", recording)
    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    model = MaskablePPO("MlpPolicy", inner, n_steps=8, batch_size=32, seed=0, device="cpu")
    settings = PretrainSettings(minutes=0.005, samples=2, steps=4, batch_size=8, threads=1, symmetry=symmetry)
    got = run_pretrain(model, inner, inner, settings, seed=0, say=lambda *a: None)
    assert got["rounds"] >= 1
    if not symmetry:
        assert batches == []
        return
    assert batches
    for (obs_table, move_table), (obs, mask, values), (got_obs, got_mask, got_values) in batches:
        assert obs_table.shape == (48, obs.shape[1]) and mask.shape == values.shape == got_mask.shape
        for i in range(len(obs)):  # each row is its position under one symmetry, moves with it
            assert any(
                torch.equal(got_obs[i], obs[i, obs_table[k]])
                and torch.equal(got_mask[i], mask[i, move_table[k]])
                and torch.equal(got_values[i], values[i, move_table[k]])
                for k in range(48)
            )
            assert got_mask[i].sum() == mask[i].sum() > 1


@pytest.mark.parametrize("critic_every", [1, 10**6])
def test_pretrain_critic_every_leaves_the_critic_alone_between(critic_every: int) -> None:
    """``critic_every``: the value head is fitted on every k-th fit batch only; on the others the
    critic's weights stay as they are (here, with k larger than the batches, all warm start long),
    while the actor's are fitted on every batch."""
    import copy

    import torch
    from sb3_contrib import MaskablePPO

    from agents.training.afterstate import AfterstatePolicy, afterstate_policy_kwargs
    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    model = MaskablePPO(
        AfterstatePolicy, inner, n_steps=8, batch_size=32, seed=0, device="cpu",
        policy_kwargs=afterstate_policy_kwargs(True, [16]),
    )  # fmt: skip
    policy = model.policy
    before = copy.deepcopy(policy.state_dict())
    settings = PretrainSettings(minutes=0.005, samples=2, steps=4, batch_size=8, threads=1, critic_every=critic_every)
    got = run_pretrain(model, inner, inner, settings, seed=0, say=lambda *a: None)
    assert got["rounds"] >= 1
    after = policy.state_dict()
    critic = [k for k in after if k.startswith(("mlp_extractor.value_net", "value_net"))]
    actor = [k for k in after if k.startswith("features_extractor.scorer")]
    assert critic and actor
    assert not any(torch.equal(before[k], after[k]) for k in actor)
    critic_moved = not all(torch.equal(before[k], after[k]) for k in critic)
    assert critic_moved == (critic_every == 1)


@pytest.mark.parametrize("loss", ["squared", "cross_entropy"])
def test_pretrain_loss_is_least_at_the_values_over_the_temperature(loss: str) -> None:
    """Both fits are at their minimum (zero gradient) where the legal logits are the values /
    temperature plus a constant, whatever the illegal moves' logits and values; elsewhere the
    loss is higher and its gradient does not vanish."""
    import torch

    from agents.training.pretrain import policy_loss

    mask = torch.tensor([[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    values = torch.tensor([[3.0, 11.0, 99.0, 7.0], [-5.0, 2.0, 40.0, 1e6]])
    best = (values / 4.0 + torch.tensor([[0.5], [-2.0]])).masked_fill(mask == 0, 123.0).requires_grad_(True)
    at_best = policy_loss(best, mask, values, 4.0, loss)
    at_best.backward()
    assert best.grad is not None and float(best.grad.abs().max()) < 1e-6
    other = torch.zeros_like(values, requires_grad=True)
    worse = policy_loss(other, mask, values, 4.0, loss)
    worse.backward()
    assert worse.item() > at_best.item() + 0.1 and other.grad is not None
    assert float((other.grad * mask).abs().max()) > 1e-3 and float((other.grad * (1 - mask)).abs().max()) == 0.0


def test_pretrain_ends_with_the_best_checked_weights() -> None:
    """The warm start goes back to the weights of its best check (the first, here)."""
    import copy

    import torch
    from sb3_contrib import MaskablePPO

    from agents.training.advice_env import AdviceObservation
    from agents.training.pretrain import PretrainSettings, run_pretrain
    from solitaire_env.sb3 import SB3VecEnv

    inner = SB3VecEnv(4, game="tripeaks", reward="progress", win_bonus=30.0)
    inner.seed(0)
    env = AdviceObservation(inner)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, seed=0, device="cpu")
    seen: list[dict] = []

    def check() -> dict[str, float]:
        seen.append(copy.deepcopy(model.policy.state_dict()))
        return {"win_rate": 0.0, "mean_reward": 10.0 - len(seen)}  # every check worse than the one before

    settings = PretrainSettings(minutes=0.02, samples=2, steps=2, batch_size=16, threads=1)
    got = run_pretrain(model, inner, env, settings, seed=0, check=check, every=0.0, say=lambda *a: None)
    assert len(seen) >= 2 and got["kept_check_seconds"] == got["checks"][0]["seconds"]
    final = model.policy.state_dict()
    assert all(torch.equal(final[k], seen[0][k]) for k in final)
    assert not all(torch.equal(seen[-1][k], seen[0][k]) for k in final)  # the weights did move


def _moves_config(tmp_path: Path) -> dict[str, object]:
    data = tiny(tmp_path, game="fortythieves", rules="N", num_envs=4, timesteps=256, minutes=2)
    # games cut at 150 steps: a step of the move envs makes the features of every legal move
    data["env"] = {"obs_mode": "flat", "reward": "progress", "win_bonus": 30, "max_episode_steps": 150}
    data["validation"] = {"deals": 2, "seed": 1, "every": 128}
    data["test"] = {"deals": 2, "seed": 0, "agents": ["evaluate"], "workers": 1}
    data["ppo"] = {"features": "moves", "net_arch": [16, 8], "n_steps": 32, "batch_size": 64, "n_epochs": 1}
    data["imitation"] = {
        "games": 2,
        "workers": 1,
        "epochs": 2,
        "teacher_options": {"samples": 1, "root_nodes": 200, "eval_nodes": 200, "endgame_nodes": 0},
    }
    return data


def test_move_policy_imitates_the_planner_trains_and_plays_in_the_harness(tmp_path: Path) -> None:
    """``ppo.features: moves`` with an ``imitation`` block (Forty Thieves) goes through the whole
    pipeline: the saved policy is a MovePolicy, the harness's ppo agent and the validation envs
    play the same games with it, and its choices do not move when the unseen stock is permuted."""
    data = _moves_config(tmp_path)
    data["imitation"]["lookahead_bonus"] = 2.5  # type: ignore[index]
    result = train(TrainConfig.from_mapping(data), progress=False, log=lambda *a: None)
    pre = result.metrics["pretrain"]
    assert pre["games"] == 2 and pre["positions"] > 20 and len(pre["epochs"]) == 2
    test = result.metrics["test"]
    assert test["batch_check"]["wins"] == test["summary"][test["agent"]]["wins"]
    assert test["batch_check"]["mean_progress"] == pytest.approx(test["summary"][test["agent"]]["mean_founded"])
    from sb3_contrib import MaskablePPO

    from agents.training.move_policy import MovePolicy, lookahead_bonus

    policy = MaskablePPO.load(result.files["best_model"], device="cpu").policy
    assert isinstance(policy, MovePolicy)
    assert lookahead_bonus(policy) == 2.5  # set after the fit, saved with the model
    from agents.base import public_state
    from agents.registry import make_agent
    from tests.conftest import ft_random_positions

    agent = make_agent("ppo", "fortythieves", model=result.files["best_model"])
    rng = np.random.default_rng(2)
    for game, actions in ft_random_positions(12, 8):
        state = public_state(game, actions)
        if not state.legal:
            continue
        move = agent.act(state)
        assert move in state.legal
        cards = list(state.unseen)
        rng.shuffle(cards)
        assert agent.act(public_state(state.with_unseen(cards), actions)) == move


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"imitation": {"games": 0}}, "imitation.games: want a whole number >= 1"),
        ({"imitation": {"teacher": "oracle"}}, "imitation.teacher: want one of planner, lookahead"),
        ({"imitation": {"teacher_options": {"samples": 0}}}, "imitation.teacher_options: samples"),
        ({"imitation": {"teacher_options": {"x": 1}}}, "imitation.teacher_options"),
        ({"imitation": {"teacher": "lookahead", "teacher_options": {"nodes": 0}}}, "imitation.teacher_options: nodes"),
        ({"imitation": {"teacher": "lookahead", "teacher_options": {"samples": 4}}}, "imitation.teacher_options"),
        ({"imitation": {"epsilon": 2}}, "imitation.epsilon"),
        ({"imitation": {"lookahead_bonus": -1}}, "imitation.lookahead_bonus: want a number >= 0"),
        ({"imitation": {"lookahead_bonus": "high"}}, "imitation.lookahead_bonus"),
        ({"imitation": {"speed": 1}}, "unknown key 'speed'"),
        ({"imitation": {}, "ppo": {"features": "none"}}, "ppo.features moves"),
        ({"game": "tripeaks", "rules": "E"}, "ppo.features: moves is for Forty Thieves"),
    ],
)
def test_bad_imitation_blocks(tmp_path: Path, change: dict[str, object], message: str) -> None:
    data = _moves_config(tmp_path)
    data.update(change)
    with pytest.raises(ConfigError, match=message):
        TrainConfig.from_mapping(data)


def test_the_lookahead_can_be_the_teacher(tmp_path: Path) -> None:
    from agents.training.imitation import ImitationSettings

    data = _moves_config(tmp_path)
    data["imitation"] = {"teacher": "lookahead", "teacher_options": {"nodes": 30000}}
    config = TrainConfig.from_mapping(data)
    assert config.imitation is not None
    assert ImitationSettings(**config.imitation.given()).teacher_options == {"nodes": 30000}
    # without options, the lookahead's own defaults (not the planner's)
    assert ImitationSettings(teacher="lookahead").teacher_options == {}
