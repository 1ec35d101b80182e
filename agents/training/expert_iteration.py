"""``solitaire-env train`` with ``method: expert_iteration``: the TriPeaks rollout agent's learned
base policy, round by round (:mod:`agents.training.base_net`).

Round ``k`` plays ``rounds[k]`` training deals (seed ``seed``, each round its own deals) with
the teacher: the ``rollout`` agent with the hand-written base policy in round 1, with round
``k - 1``'s network after that.  The teacher's move values label the positions; a network is
fitted to the positions of every round so far (``fit.data: all``) or of this round only
(``last``); the network alone (the ``base`` agent) is then measured on the validation deals.
The budget is in games, positions and epochs; ``minutes`` is a guard only (the run stops with
an error past it, nothing is cut short silently).  After the last round, the test: the agents
``base_net`` and ``rollout_net`` with the final network next to the config's comparison agents
on the test deals (paired McNemar tests, :func:`agents.evaluation.harness.evaluate`).

Writes to ``out``: ``round_K/positions.npz`` and ``round_K/net.npz`` per round, ``net.npz``
(the final network), ``metrics.json`` (every round's figures, the test's) and ``test/``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from agents.settings import (
    OptWhole1,
    PathStr,
    Positive,
    Settings,
    Whole0,
    Whole1,
    fail,
    load_config_file,
    validate,
    whole,
)

__all__ = ["EI_KEYS", "ExpertIterationConfig", "is_expert_iteration", "load_ei_config", "run_expert_iteration"]


@dataclass(frozen=True)
class ExpertIterationConfig:
    """A validated expert-iteration config (see the module docstring and docs/training.md)."""

    rules: str = "E"
    seed: int = 2
    workers: int = 2
    minutes: float = 60.0
    rounds: tuple[int, ...] = (1000, 1000)
    teacher: dict[str, Any] = field(default_factory=dict)
    fit: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] = field(default_factory=lambda: {"deals": 5000, "seed": 1, "rollout_deals": 0})
    test: dict[str, Any] = field(default_factory=lambda: {"deals": 1000, "seed": 0, "agents": ["rollout"]})
    out: str = "runs/ei_tripeaks"
    source: str = ""


def is_expert_iteration(path: str) -> bool:
    """Whether the YAML config at ``path`` asks for ``method: expert_iteration`` (``False`` for a
    file that cannot be read: the MaskablePPO loader then names what is wrong with it)."""
    try:
        data = load_config_file(path)
    except (OSError, ValueError):
        return False
    return data.get("method") == "expert_iteration"


class _Teacher(Settings):
    samples: OptWhole1 = Field(None, description="the rollout agent's samples per move")
    max_samples: OptWhole1 = Field(None, description="its cap on samples")
    z: Positive = Field(None, description="its confidence z")


class _Fit(Settings):
    hidden: OptWhole1 = Field(None, description="hidden units of the network")
    epochs: OptWhole1 = Field(None, description="passes over the positions")
    batch_size: OptWhole1 = Field(None, description="minibatch size")
    learning_rate: Positive = Field(None, description="step size")
    temperature: Positive = Field(None, description="the move values' temperature")
    data: Literal["all", "last"] | None = Field(None, description="fit on every round's positions or the last's")
    seed: Annotated[int | None, Field(ge=0), whole(0)] = Field(None, description="the fit's seed")


class _Validation(Settings):
    deals: Whole1 = Field(5000, description="validation deals of the base_net agent per round")
    seed: Whole0 = Field(1, description="their seed")
    rollout_deals: Whole0 = Field(0, description="validation deals of rollout_net per round")


class _Test(Settings):
    deals: Whole0 = Field(1000, description="test deals after the last round (0: none)")
    seed: Whole0 = Field(0, description="their seed")
    agents: list[str] = Field(["rollout"], description="agents compared with the final network's")


class ExpertIterationFile(Settings):
    """An expert-iteration config file (see the module docstring and docs/training.md)."""

    method: Literal["expert_iteration"] = Field(description="what the train verb runs")
    game: Literal["tripeaks"] = Field("tripeaks", description="expert iteration trains the TriPeaks rollout agent")
    rules: Literal["E", "C"] = Field("E", description="E (Easy) or C (Classic)")
    seed: Whole0 = Field(2, description="the training deals' seed")
    workers: Whole1 = Field(2, description="worker processes")
    minutes: Positive = Field(60.0, description="a guard: the run fails past it")
    rounds: list[Whole1] = Field([1000, 1000], min_length=1, description="games per round")
    teacher: _Teacher = Field(_Teacher(), description="the rollout agent's options")
    fit: _Fit = Field(_Fit(), description="the network's fit")
    validation: _Validation = Field(_Validation(), description="the validation deals")
    test: _Test = Field(_Test(), validate_default=True, description="the test deals and agents")
    out: PathStr = Field("runs/ei_tripeaks", description="the output folder")

    @field_validator("test")
    @classmethod
    def _seeds(cls, test: _Test, info: ValidationInfo) -> _Test:
        seed, validation = info.data.get("seed"), info.data.get("validation")
        if validation and (
            validation.seed == seed or test.seed == seed or (test.deals and test.seed == validation.seed)
        ):
            fail("seed, validation.seed and test.seed must differ (the training deals are neither)")
        return test


EI_KEYS = tuple(ExpertIterationFile.model_fields)


def load_ei_config(path: str, *, out: str | None = None, seed: int | None = None) -> ExpertIterationConfig:
    """Read and validate an expert-iteration config (one :class:`ConfigError` names every mistake)."""
    data = load_config_file(path)
    data.update({k: v for k, v in (("out", out), ("seed", seed)) if v is not None})
    f = validate(ExpertIterationFile, data, path)
    return ExpertIterationConfig(
        rules=f.rules,
        seed=f.seed,
        workers=f.workers,
        minutes=float(f.minutes or 60),
        rounds=tuple(f.rounds),
        teacher=f.teacher.given(),
        fit=f.fit.given(),
        validation=f.validation.model_dump(),
        test=f.test.model_dump(),
        out=str(f.out),
        source=path,
    )


def _spec(name: str, net: str | None, options: Mapping[str, Any]) -> str:
    opts = dict(options)
    if net is not None:
        opts["net"] = net
    return name + (":" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")


def _collect_task(task: tuple[list[str], str, dict[str, Any]]) -> Any:
    from agents.registry import make_agent
    from agents.training.base_net import collect

    codes, name, options = task
    teacher: Any = make_agent(name, "tripeaks", seed=0, **options)
    return collect(codes, teacher)


def _collect(codes: list[str], options: dict[str, Any], workers: int) -> tuple[Any, int]:
    from agents.training.base_net import Positions
    from solitaire_env.common.pool import process_pool

    parts = [codes[i::workers] for i in range(workers)]
    tasks = [(p, "rollout", options) for p in parts if p]
    if workers == 1:
        got = [_collect_task(t) for t in tasks]
    else:
        with process_pool(workers) as pool:
            got = pool.map(_collect_task, tasks)
    return Positions.join([g[0] for g in got]), sum(sum(g[1]) for g in got)


def _evaluate(config: ExpertIterationConfig, agents: list[str], deals: int, seed: int, out: Path | None) -> Any:
    from agents.evaluation.harness import evaluate

    settings: dict[str, Any] = {
        "game": "tripeaks",
        "rules": config.rules,
        "deals": deals,
        "seed": seed,
        "agents": agents,
        "workers": config.workers,
        "compare": "all",
    }
    if out is not None:
        settings["out"] = str(out)
    return evaluate(settings, write=out is not None)


def run_expert_iteration(config: ExpertIterationConfig, say: Any = print) -> dict[str, Any]:
    """Run the rounds, then the test; returns the metrics (also written to ``out/metrics.json``)."""
    from agents.players.net_file import save_net
    from agents.training.base_net import Positions, fit
    from solitaire_env.solvability import draw_codes

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    deadline = start + 60.0 * config.minutes
    metrics: dict[str, Any] = {"config": {k: v for k, v in asdict(config).items()}, "rounds": []}
    all_codes = draw_codes(sum(config.rounds), config.seed, "TP", config.rules)
    data_so_far: list[Any] = []
    net_path: str | None = None
    first = 0
    fit_options = {k: v for k, v in config.fit.items() if k != "data"}
    for k, games in enumerate(config.rounds, 1):
        folder = out / f"round_{k}"
        folder.mkdir(exist_ok=True)
        t0 = time.time()
        teacher = {**config.teacher, **({"net": net_path} if net_path else {})}
        data, teacher_wins = _collect(all_codes[first : first + games], teacher, config.workers)
        first += games
        np.savez(folder / "positions.npz", features=data.features, values=data.values, count=data.count)
        collect_seconds = time.time() - t0
        data_so_far.append(data)
        train = Positions.join(data_so_far) if config.fit.get("data", "all") == "all" else data
        t1 = time.time()
        net = fit(train, **fit_options)
        net_path = str(folder / "net.npz")
        save_net(net_path, net, round=k, positions=len(train))
        fit_seconds = time.time() - t1
        v = config.validation
        result = _evaluate(config, [_spec("base_net", net_path, {})], v["deals"], v["seed"], None)
        s = next(iter(result.summary().values()))
        row: dict[str, Any] = {
            "round": k,
            "games": games,
            "teacher": _spec("rollout", net_path if k > 1 else None, config.teacher).replace(
                net_path, f"round_{k - 1}"
            ),
            "teacher_wins": teacher_wins,
            "positions": len(data),
            "fitted_on": len(train),
            "collect_seconds": round(collect_seconds, 1),
            "fit_seconds": round(fit_seconds, 1),
            "validation_base_net": {
                "deals": s["deals"],
                "wins": s["wins"],
                "win_rate": s["win_rate"],
                "ci95": s["ci95"],
            },
        }
        if v["rollout_deals"]:
            r = _evaluate(config, [_spec("rollout_net", net_path, config.teacher)], v["rollout_deals"], v["seed"], None)
            s2 = next(iter(r.summary().values()))
            row["validation_rollout_net"] = {
                k2: s2[k2] for k2 in ("deals", "wins", "win_rate", "ci95", "mean_cpu_seconds")
            }
        metrics["rounds"].append(row)
        say(json.dumps(row))
        (out / "metrics.json").write_text(json.dumps(metrics, indent=1))
        if time.time() > deadline:
            raise RuntimeError(f"expert iteration: past its guard of {config.minutes} minutes after round {k}")
    assert net_path is not None
    final = out / "net.npz"
    final.write_bytes(Path(net_path).read_bytes())
    metrics["net"] = str(final)
    metrics["learn_seconds"] = round(time.time() - start, 1)
    t = config.test
    if t["deals"]:
        agents = [_spec("rollout_net", str(final), config.teacher), _spec("base_net", str(final), {}), *t["agents"]]
        result = _evaluate(config, agents, t["deals"], t["seed"], out / "test")
        metrics["test"] = {"summary": result.summary(), "pairs": result.pairs("all"), "table": result.table()}
        say(result.table())
    metrics["seconds"] = round(time.time() - start, 1)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, default=str))
    return metrics
