"""The config models: their JSON Schemas as committed, every mistake in one error, "did you mean"."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agents.evaluation.config import EvalConfig
from agents.hintbench.config import HintBenchConfig
from agents.settings import ConfigError
from agents.training.config import TrainConfig
from solitaire_env.cli import main

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"eval_": "eval", "hints_": "hint_bench", "ppo_": "train"}


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("write_schemas", ROOT / "scripts" / "write_schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_schemas_are_the_models() -> None:
    script = _script()
    for kind, model in script.models().items():
        path = ROOT / "docs" / "schemas" / f"{kind}.schema.json"
        assert path.read_text(encoding="utf-8") == script.schema_text(model), f"{path}: run scripts/write_schemas.py"
    assert script.main(["--check"]) == 0


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_each_shipped_config_names_its_schema(path: Path) -> None:
    kind = next((k for prefix, k in KINDS.items() if path.name.startswith(prefix)), None)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if kind is None:  # the expert-iteration configs: not a model of the train schema (method, rounds, fit, ...)
        assert path.name.startswith("ei_") and "$schema" not in first
        return
    assert first == f"# yaml-language-server: $schema=../docs/schemas/{kind}.schema.json"
    model = {"eval": EvalConfig, "hint_bench": HintBenchConfig, "train": TrainConfig}[kind]
    model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))  # the types and keys, nothing built


def test_three_mistakes_one_message_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("deals: 0\nbackend: dask\nsede: 3\n")
    assert main(["eval", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"solitaire-env: error: {bad}: 3 mistakes:",
        "solitaire-env: error: 1. deals: want a whole number >= 1, got 0",
        "solitaire-env: error: 2. backend: want one of process, ray, got 'dask'",
        "solitaire-env: error: 3. unknown key 'sede'; did you mean 'seed'?",
    ], err
    assert "pydantic" not in err and "Input should" not in err
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the command in a fresh process: the same lines, exit status 2
    done = subprocess.run([sys.executable, "-m", "solitaire_env", "eval", "--config", str(bad)], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert (done.returncode, done.stderr, done.stdout) == (2, err, "")
    bad.write_text("num_envs: 0\nppo: {learning_rate: -1, n_epoch: 2}\n")
    assert main(["train", "--config", str(bad)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[1:] == [
        "solitaire-env: error: 1. num_envs: want a whole number >= 1, got 0",
        "solitaire-env: error: 2. ppo.learning_rate: want a number >= 0, got -1",
        "solitaire-env: error: 3. ppo: unknown key 'n_epoch'; did you mean 'n_epochs'?",
    ], lines


@pytest.mark.parametrize(
    ("model", "data", "line"),
    [
        (EvalConfig, {"agent": ["random"]}, "unknown key 'agent'; did you mean 'agents'?"),
        (HintBenchConfig, {"heuristic": ["hint"]}, "unknown key 'heuristic'; did you mean 'heuristics'?"),
        (TrainConfig, {"validation": {"deal": 8}}, "validation: unknown key 'deal'; did you mean 'deals'?"),
        (TrainConfig, {"test": {"seeds": 3}}, "test: unknown key 'seeds'; did you mean 'seed'?"),
        (TrainConfig, {"pretrain": {"epoch": 1}}, "pretrain: unknown key 'epoch'; did you mean 'epochs'?"),
        (TrainConfig, {"ppo": {"zzz": 1}}, "ppo: unknown key 'zzz'; known: learning_rate, n_steps"),
    ],
)
def test_unknown_keys_get_did_you_mean(model: type, data: dict[str, object], line: str) -> None:
    with pytest.raises(ConfigError) as info:
        model.from_mapping(data, source="x.yaml")  # type: ignore[attr-defined]
    assert info.value.problems[0].startswith(line), info.value.problems
    assert str(info.value).startswith(f"x.yaml: {line}")


def test_a_null_block_takes_its_defaults_and_no_line_is_pydantics() -> None:
    config = TrainConfig.from_mapping({"ppo": None, "validation": None, "test": None})
    assert (config.validation.deals, config.test.deals, config.ppo_kwargs) == (200, 1000, {"policy": "MlpPolicy"})
    bad = {"imitation": {"teacher_options": {"a": "x"}}, "ppo": {"features": 3}, "validation": 5, "pretrain": [1]}
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_mapping(bad)
    assert info.value.problems == (
        "ppo.features: want one of none, chain, afterstate, moves, got 3",
        "pretrain: want a mapping, got [1]",
        "imitation.teacher_options.a: want a number, got 'x'",
        "validation: want a mapping, got 5",
    )
