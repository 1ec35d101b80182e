"""The evaluation harness (``agents.evaluate``; ``agents.evaluation``: ``config``, ``backends``, ``records``).

Written against the ``random`` agent and test-local stub agents (registered for the test
only), so that it does not depend on which other agents exist.  Runs with stubs use one
worker (this process); the multi-worker and Ray runs use ``random`` only.
"""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

import agents.registry as registry
from agents.base import Agent, Game, GameName, PublicState
from agents.evaluation.backends import agent_seed
from agents.evaluation.config import EvalConfig
from agents.evaluation.harness import EvalResult, evaluate, mcnemar_exact, plot_win_rates, wilson
from agents.evaluation.records import RecordError, Replayer, ReplayMismatch, find_records, load_record
from agents.evaluation.specs import AgentSpec, parse_agent_spec
from agents.settings import ConfigError, load_config_file
from solitaire_env import __version__
from solitaire_env.common.backends import chunks, run_local
from solitaire_env.solvability import draw_codes

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


# --------------------------------------------------------------------------- stub agents


class FirstAgent(Agent):
    """The lowest legal action (deterministic, draws whenever it is the only move left...)."""

    name = "stub_first"

    def act(self, state: PublicState) -> int:
        return state.legal[0]


class SeededAgent(Agent):
    """A choice that depends on its seed; remembers the seeds it played with."""

    name = "stub_seeded"
    seen_seeds: ClassVar[list[int]] = []

    def reset(self) -> None:
        SeededAgent.seen_seeds.append(self.seed)

    def act(self, state: PublicState) -> int:
        return state.legal[self.seed % len(state.legal)]


class PeekAgent(Agent):
    """Sees hidden cards (like the oracle): the last legal action of the full game."""

    name = "stub_peek"
    sees_hidden = True
    label = "upper bound"

    def act(self, state: PublicState) -> int:  # pragma: no cover - decide() calls act_full
        raise AssertionError("a sees_hidden agent must get the game")

    def act_full(self, game: Game, actions: tuple[int, ...]) -> int:
        bits = game.legal_mask()
        return bits.bit_length() - 1


class ModelAgent(Agent):
    """Needs a model file (like ppo)."""

    name = "stub_model"

    def __init__(self, game: GameName, seed: int = 0, *, model: str | None = None) -> None:
        super().__init__(game, seed)
        if model is None:
            raise ValueError("stub_model needs model=PATH")
        with open(model if model.endswith(".zip") else model + ".zip", encoding="utf-8"):
            pass

    def act(self, state: PublicState) -> int:
        return state.legal[-1]


class IllegalAgent(Agent):
    name = "stub_illegal"

    def act(self, state: PublicState) -> int:
        return next(a for a in range(len(state.mask)) if not state.mask[a])


STUBS = (FirstAgent, SeededAgent, PeekAgent, ModelAgent, IllegalAgent)


@pytest.fixture(autouse=True)
def stubs(monkeypatch: pytest.MonkeyPatch) -> None:
    table = registry._load()
    for cls in STUBS:
        for game in cls.games:
            monkeypatch.setitem(table, (cls.name, game), cls)


def outcomes(result: EvalResult) -> dict[str, list[tuple[Any, ...]]]:
    return {k: [r.outcome() for r in rows] for k, rows in result.episodes.items()}


# --------------------------------------------------------------------------- specs and configs


def test_parse_agent_spec() -> None:
    assert parse_agent_spec("random") == AgentSpec("random")
    spec = parse_agent_spec(" rollout:samples=200, depth=3,greedy=true,rate=0.5,model=runs/a.zip ")
    assert spec.name == "rollout"
    assert spec.kwargs == {"samples": 200, "depth": 3, "greedy": True, "rate": 0.5, "model": "runs/a.zip"}
    assert spec.key == "rollout:samples=200,depth=3,greedy=true,rate=0.5,model=runs/a.zip"
    assert AgentSpec.parse({"name": "rollout", "samples": 200}) == AgentSpec("rollout", (("samples", 200),))
    assert AgentSpec.parse("pimc").to_dict() == {"name": "pimc"}
    for bad in ("", ":x=1", "rollout:samples", "rollout:=3", "rollout:a=1,a=2"):
        with pytest.raises(ConfigError):
            parse_agent_spec(bad)
    for bad_value in ({"samples": 3}, {"name": 3}, {"name": "x", "opt": object()}, 7):
        with pytest.raises(ConfigError):
            AgentSpec.parse(bad_value)


def test_config_defaults() -> None:
    config = EvalConfig.from_mapping({})
    assert (config.game, config.rules, config.deals, config.seed) == ("tripeaks", "E", 100, 0)
    assert config.agents == (AgentSpec("random"),) and config.backend == "process" and config.compare == "best"
    ft = EvalConfig.from_mapping({"game": "ft", "env": {"foundation_return": False}, "agents": "random"})
    assert (ft.game, ft.rules, ft.env_kwargs, ft.code_game) == ("fortythieves", "N", {"foundation_return": False}, "FT")
    assert EvalConfig.from_mapping(ft.to_dict()) == ft


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"dealz": 3}, "unknown key 'dealz'; did you mean 'deals'?"),
        ({"zzz": 3}, "unknown key 'zzz'; known: game, rules, env, deals"),
        ({"deals": "ten"}, "deals: want a whole number >= 1, got 'ten'"),
        ({"deals": 0}, "deals: want a whole number >= 1"),
        ({"deals": True}, "deals: want a whole number >= 1, got True"),
        ({"seed": -1}, "seed: want a whole number >= 0"),
        ({"workers": 1.5}, "workers: want a whole number >= 1"),
        ({"game": "klondike"}, "game: want tripeaks (tp) or fortythieves (ft), got 'klondike'"),
        ({"rules": "X"}, "rules: the tripeaks rule letter is E (Easy) or C (Classic), got 'X'"),
        ({"game": "ft", "rules": "E"}, "rules: the fortythieves rule letter is N"),
        ({"backend": "dask"}, "backend: want one of process, ray, got 'dask'"),
        ({"compare": "some"}, "compare: want one of best, all"),
        ({"env": {"wrap": False}}, "wrap comes from the deal codes' rule letter"),
        ({"env": {"reward": "win"}}, "env: unknown tripeaks keyword 'reward'"),
        ({"game": "ft", "env": {"jokers": 1}}, "unknown fortythieves keyword 'jokers' (a tripeaks option)"),
        ({"env": {"jokers": 5}}, "env: jokers must be 0, 1 or 2, got 5"),
        ({"env": ["draw"]}, "env: want a mapping"),
        ({"agents": []}, "agents: want a non-empty list"),
        ({"agents": ["random", "random"]}, "'random' listed twice"),
        ({"agents": [{"samples": 3}]}, "needs a 'name' key"),
        ({"out": 3}, "out: want a path"),
        ({"ray_address": "auto"}, "ray_address: applies to backend ray only"),
        ({"agents": ["random:bogus=1"]}, "agent 'random': bad options ['bogus']"),
    ],
)
def test_config_errors(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        EvalConfig.from_mapping(data, source="x.yaml")
    text = str(info.value)
    assert text.startswith("x.yaml: ") and message in text, text
    assert "\n" not in text


def test_unknown_agents_are_all_named() -> None:
    with pytest.raises(ConfigError) as info:
        EvalConfig.from_mapping({"agents": ["random", "no_such_agent", "nor_this"]})
    text = str(info.value)
    assert "unknown agents 'no_such_agent', 'nor_this' for tripeaks; known: " in text and "random" in text
    # check_agents=False validates everything else only
    assert EvalConfig.from_mapping({"agents": ["no_such_agent"]}, check_agents=False).agents[0].name == "no_such_agent"


def test_model_file_checked(tmp_path: Path) -> None:
    missing = tmp_path / "missing.zip"
    with pytest.raises(ConfigError, match=r"agent 'stub_model': model file '.*missing.zip' not found"):
        EvalConfig.from_mapping({"agents": [{"name": "stub_model", "model": str(missing)}]})
    with pytest.raises(ConfigError, match="stub_model needs model=PATH"):
        EvalConfig.from_mapping({"agents": ["stub_model"]})
    model = tmp_path / "model.zip"
    model.write_text("weights")
    config = EvalConfig.from_mapping({"agents": [f"stub_model:model={model}"]})
    assert config.agents[0].kwargs == {"model": str(model)}
    # SB3 style: the path without its .zip
    EvalConfig.from_mapping({"agents": [f"stub_model:model={tmp_path / 'model'}"]}, check_agents=False).check_agents()


def test_load_config_file(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("game: tp\ndeals: 3\nagents:\n  - random\n  - {name: stub_first}\n")
    config = EvalConfig.from_mapping(load_config_file(str(good)), source=str(good))
    assert config.deals == 3 and [a.key for a in config.agents] == ["random", "stub_first"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: tp\ndeals: [3\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: not valid YAML at line \d+, column \d+"):
        load_config_file(str(bad))
    listed = tmp_path / "list.yaml"
    listed.write_text("- random\n")
    with pytest.raises(ConfigError, match="want a mapping of settings"):
        load_config_file(str(listed))
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing\n")
    assert load_config_file(str(empty)) == {}
    with pytest.raises(FileNotFoundError):
        load_config_file(str(tmp_path / "absent.yaml"))


@pytest.mark.parametrize("name", ["eval_tripeaks_easy", "eval_tripeaks_classic", "eval_fortythieves", "eval_smoke"])
def test_shipped_configs(name: str) -> None:
    path = CONFIGS / f"{name}.yaml"
    data = load_config_file(str(path))
    config = EvalConfig.from_mapping(data, source=str(path), check_agents=False)
    expected = {"eval_tripeaks_easy": 1000, "eval_tripeaks_classic": 1000, "eval_fortythieves": 300}
    assert config.deals == expected.get(name, config.deals) and config.seed == 0
    if name == "eval_smoke":
        assert [a.name for a in config.agents] == ["random"] and config.deals <= 50
    known = set(registry.agent_names(config.game))
    unknown = [a.name for a in config.agents if a.name not in known]
    if not unknown:
        config.check_agents()
    else:  # agents still to come: the error names them
        with pytest.raises(ConfigError) as info:
            config.check_agents(f"{path}: ")
        assert all(repr(n) in str(info.value) for n in unknown)


# --------------------------------------------------------------------------- statistics


def _binomial_p(a: int, b: int) -> float:
    n, k = a + b, min(a, b)
    return min(1.0, 2 * sum(math.comb(n, i) * 0.5**n for i in range(k + 1)))


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)
    for a, b in ((2, 7), (10, 25), (40, 41), (0, 30)):
        assert mcnemar_exact(a, b) == mcnemar_exact(b, a) == pytest.approx(_binomial_p(a, b))
    assert 0 < mcnemar_exact(0, 1000) < 1e-300  # exact integers: no overflow, no NaN
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def _result(rows: dict[str, list[tuple[bool, int]]], hidden: tuple[str, ...] = ()) -> EvalResult:
    from agents.evaluation.backends import EpisodeResult

    episodes = {
        key: [
            EpisodeResult(key, i, f"c{i}", 0, won, 0, progress, 0, 0, 0, None, 0.0)
            for i, (won, progress) in enumerate(v)
        ]
        for key, v in rows.items()
    }
    n = len(next(iter(rows.values())))
    return EvalResult(
        config=EvalConfig(),
        codes=[f"c{i}" for i in range(n)],
        episodes=episodes,
        labels={},
        sees_hidden={k: k in hidden for k in rows},
        wall_seconds=1.0,
        workers=1,
    )


def test_best_agent() -> None:
    assert _result({"a": [(False, 3)], "b": [(True, 28)], "c": [(True, 28)]}).best() == "b"  # first on a tie
    assert _result({"a": [(False, 3)], "b": [(False, 9)], "c": [(False, 5)]}).best() == "b"  # most cleared
    assert _result({"a": [(False, 3)], "o": [(True, 28)]}, hidden=("o",)).best() == "a"  # never the oracle
    assert _result({"o": [(True, 28)]}, hidden=("o",)).best() == "o"
    pairs = _result({"a": [(True, 28), (False, 1), (True, 28)], "b": [(False, 2), (False, 1), (True, 28)]}).pairs(
        "best"
    )
    assert pairs == [
        {
            "a": "a",
            "b": "b",
            "deals": 3,
            "both": 1,
            "a_only": 1,
            "b_only": 0,
            "neither": 1,
            "win_rate_diff": 1 / 3,
            "p_value": 1.0,
        }
    ]


def test_chunks_cover_every_deal_once() -> None:
    codes = [f"c{i}" for i in range(103)]
    for workers in (1, 2, 7):
        work = chunks(codes, workers)
        assert [pair for chunk in work for pair in chunk] == list(enumerate(codes))
        assert max(len(c) for c in work) <= 16


# --------------------------------------------------------------------------- runs


def test_evaluate_tripeaks_stats() -> None:
    result = evaluate(game="tripeaks", deals=12, seed=3, agents=["random", "stub_first", "stub_peek"], workers=1)
    codes = draw_codes(12, 3, "TP", "E")
    assert result.codes == codes
    for key in ("random", "stub_first", "stub_peek"):
        rows = result.episodes[key]
        assert [r.code for r in rows] == codes and [r.index for r in rows] == list(range(12))
        assert all(r.truncated_reason is None and r.steps == r.moves for r in rows)
        assert all(0 <= r.progress <= 28 and r.won == (r.progress == 28) for r in rows)
    s = result.summary()
    for key, rows in result.episodes.items():
        d = s[key]
        wins = sum(r.won for r in rows)
        assert (d["deals"], d["wins"]) == (12, wins)
        assert d["ci95"] == list(wilson(wins, 12))
        assert d["mean_score"] == pytest.approx(sum(r.score for r in rows) / 12)
        assert d["mean_cleared"] == pytest.approx(sum(r.progress for r in rows) / 12)
        assert d["mean_longest_chain"] == pytest.approx(sum(r.longest_chain for r in rows) / 12)
        assert d["mean_moves"] == pytest.approx(sum(r.moves for r in rows) / 12)
        assert d["mean_seconds"] > 0
    assert s["stub_peek"]["label"] == "upper bound"
    assert result.best() in ("random", "stub_first")  # never the agent that sees hidden cards
    pairs = result.pairs("all")
    assert [(p["a"], p["b"]) for p in pairs] == [
        ("random", "stub_first"),
        ("random", "stub_peek"),
        ("stub_first", "stub_peek"),
    ]
    for p in pairs:
        assert p["both"] + p["a_only"] + p["b_only"] + p["neither"] == 12
        assert p["p_value"] == mcnemar_exact(p["a_only"], p["b_only"])
    assert len(result.pairs("best")) == 2
    table = result.table()
    assert "stub_peek (upper bound)" in table and "95% CI (Wilson)" in table and "cleared" in table
    assert "exact McNemar" in table and "wall time" in table


def test_every_agent_sees_the_same_deals_and_seeds() -> None:
    SeededAgent.seen_seeds.clear()
    result = evaluate(game="tripeaks", deals=6, seed=11, agents=["stub_seeded", "random"], workers=1)
    expected = [agent_seed(11, code) for code in result.codes]
    assert SeededAgent.seen_seeds == expected
    assert [r.seed for r in result.episodes["random"]] == expected
    assert len(set(expected)) == 6
    again = evaluate(game="tripeaks", deals=6, seed=11, agents=["stub_seeded", "random"], workers=1)
    assert outcomes(again) == outcomes(result)


def test_reproducible_whatever_the_workers_and_the_deal_count(tmp_path: Path) -> None:
    # recording keeps the actions, so that they are compared too
    one = evaluate(game="tripeaks", deals=16, seed=5, agents=["random"], workers=1, record=str(tmp_path / "1"))
    two = evaluate(game="tripeaks", deals=16, seed=5, agents=["random"], workers=2, record=str(tmp_path / "2"))
    assert two.workers == 2 and one.episodes["random"][0].actions
    assert outcomes(one) == outcomes(two)
    one = evaluate(game="tripeaks", deals=16, seed=5, agents=["random"], workers=1)
    half = evaluate(game="tripeaks", deals=8, seed=5, agents=["random"], workers=1)
    assert outcomes(half)["random"] == outcomes(one)["random"][:8]


def test_rules_and_env_kwargs_reach_the_env() -> None:
    result = evaluate(
        game="tripeaks",
        rules="C",
        env={"draw": "when_stuck", "jokers": 1, "scoring": "classic"},
        deals=3,
        agents=["random"],
        workers=1,
        record=None,
    )
    assert all(code.startswith("TP1-C-") for code in result.codes)
    assert "rules C" in result.header() and "draw when_stuck" in result.header()


def test_fortythieves_run() -> None:
    result = evaluate(game="ft", deals=3, seed=1, agents=["random", "stub_first"], workers=1)
    assert result.progress_key == "founded"
    assert all(code.startswith("FT1-N-") for code in result.codes)
    for rows in result.episodes.values():
        assert all(r.truncated_reason in (None, "repetition", "step_limit") for r in rows)
        assert all(0 <= r.progress <= 104 for r in rows)
    assert "mean_founded" in result.summary()["random"]
    assert "founded" in result.table()


def test_illegal_action_names_the_agent_and_the_deal() -> None:
    with pytest.raises(RuntimeError, match=r"agent 'stub_illegal' on deal TP1-E-\w+ .*illegal action"):
        evaluate(game="tripeaks", deals=1, agents=["stub_illegal"], workers=1)


def test_settings_and_config_not_both() -> None:
    config = EvalConfig.from_mapping({"deals": 1})
    with pytest.raises(TypeError):
        evaluate(config, deals=2)


# --------------------------------------------------------------------------- files


def test_write_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = evaluate(game="tripeaks", deals=5, agents=["random", "stub_first"], workers=1, out=str(out))
    assert sorted(p.name for p in out.iterdir()) == ["episodes.csv", "pairs.csv", "results.json", "summary.csv"]
    data = json.loads((out / "results.json").read_text())
    assert data["version"] == __version__ and data["config"]["deals"] == 5
    assert data["summary"]["random"]["deals"] == 5 and len(data["episodes"]) == 10
    assert data["pairs"] == result.pairs()
    episodes = (out / "episodes.csv").read_text().splitlines()
    assert len(episodes) == 11 and episodes[0].startswith("agent,deal_index,deal_code,seed,won,score,cleared")
    summary = (out / "summary.csv").read_text().splitlines()
    assert len(summary) == 3 and "ci95_low" in summary[0] and "win_rate" in summary[0]
    assert (out / "pairs.csv").read_text().startswith("a,b,deals,both,a_only,b_only,neither")


def test_plot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = evaluate(game="tripeaks", deals=4, agents=["random", "stub_peek"], workers=1)
    pytest.importorskip("matplotlib")
    path = plot_win_rates(result, tmp_path / "plots" / "win.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ConfigError, match=r"plot needs matplotlib: pip install 'solitaire-env\[plot\]'"):
        plot_win_rates(result, tmp_path / "again.png")
    with pytest.raises(ConfigError, match="plot needs matplotlib"):  # before anything runs
        evaluate(game="tripeaks", deals=1, agents=["random"], workers=1, plot=str(tmp_path / "x.png"))


# --------------------------------------------------------------------------- records and replay


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("records")
    table = registry._load()
    table[("stub_first", "tripeaks")] = FirstAgent
    try:
        evaluate(game="tripeaks", deals=6, seed=2, agents=["random", "stub_first"], workers=1, record=str(folder))
        evaluate(game="ft", deals=2, seed=2, agents=["random"], workers=1, record=str(folder / "ft"))
    finally:
        table.pop(("stub_first", "tripeaks"), None)
    return folder


def test_records_written_and_replayed(recorded: Path) -> None:
    files = find_records([str(recorded)])
    assert len(files) == 6 * 2 + 2
    record = load_record(find_records([str(recorded / "random")])[0])
    assert record["version"] == __version__ and record["game"] == "tripeaks"
    assert record["deal_code"].startswith("TP1-E-") and record["env_kwargs"] == {}
    assert record["agent"]["name"] == "random" and record["agent"]["seed"] == agent_seed(2, record["deal_code"])
    assert record["rules"]["wrap"] is True
    assert set(record["outcome"]) == {"won", "cleared", "moves", "longest_chain", "steps", "truncated_reason"}
    assert len(record["actions"]) == record["outcome"]["steps"]
    reports = list(Replayer(rerun_agent=True).replay_files(files))
    assert len(reports) == len(files) and not any(r.warnings for r in reports)


def _tamper(record: dict[str, Any], how: str) -> dict[str, Any]:
    r = copy.deepcopy(record)
    if how == "score":
        r["score"] += 1
    elif how == "won":
        r["outcome"]["won"] = not r["outcome"]["won"]
    elif how == "cleared":
        r["outcome"]["cleared"] += 1
    elif how == "reason":
        r["outcome"]["truncated_reason"] = "step_limit"
    elif how == "short":
        r["actions"] = r["actions"][:-1]
    elif how == "long":
        r["actions"] = [*r["actions"], 28]
    elif how == "illegal":
        r["actions"][0] = 0  # an apex: covered at the start
    elif how == "rules":
        r["rules"]["draw"] = "when_stuck"
    elif how == "code":
        r["deal_code"] = "TP1-E-AAAAAAB"
    return r


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("score", "score differs: recorded"),
        ("won", "won differs"),
        ("cleared", "cleared differs"),
        ("reason", "truncated_reason differs"),
        ("short", "the episode did not end after the"),
        ("long", "the episode ended after action"),
        ("illegal", "action 1 of"),
        ("rules", "rules differ"),
        ("code", "differs|illegal|ended|did not end"),
    ],
)
def test_replay_detects_any_difference(recorded: Path, how: str, message: str) -> None:
    record = load_record(find_records([str(recorded / "random")])[0])
    with pytest.raises(ReplayMismatch, match=message):
        Replayer().replay(_tamper(record, how))


def test_replay_version_mismatch(recorded: Path) -> None:
    record = load_record(find_records([str(recorded / "random")])[0])
    record["version"] = "0.0.1"
    report = Replayer().replay(record)
    assert report.warnings == [f"recorded with solitaire-env 0.0.1, replayed with {__version__}"]
    with pytest.raises(ReplayMismatch, match=r"recorded with solitaire-env 0\.0\.1"):
        Replayer(strict=True).replay(record)


def test_rerun_agent_checks_its_choices(recorded: Path) -> None:
    record = load_record(find_records([str(recorded / "random")])[0])
    record["agent"]["seed"] += 1
    with pytest.raises(ReplayMismatch, match=r"agent 'random' \(seed \d+\) chose \d+ at step \d+, the record has"):
        Replayer(rerun_agent=True).replay(record)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "want a JSON object"),
        ('{"format": "other/1"}', "not an episode record"),
        ('{"format": "solitaire_env.episode/9"}', "unsupported record format"),
    ],
)
def test_load_record_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError, match=message):
        load_record(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("actions"), "missing field 'actions'"),
        (lambda r: r.update(actions=[1, "x"]), "field 'actions' must be a list of whole numbers"),
        (lambda r: r.update(score="12"), "field 'score' must be a whole number"),
        (lambda r: r["outcome"].update(won=1), "outcome: field 'won' must be true or false"),
        (lambda r: r.update(game="klondike"), "field 'game' must be tripeaks or fortythieves"),
        (lambda r: r.update(deal="x"), "exactly one of the fields 'deal_code' and 'deal'"),
    ],
)
def test_bad_record_fields(recorded: Path, tmp_path: Path, change: Any, message: str) -> None:
    record = json.loads(find_records([str(recorded / "random")])[0].read_text())
    change(record)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(RecordError, match=message):
        list(Replayer().replay_files([path]))


# --------------------------------------------------------------------------- Ray


def test_ray_backend_matches_process_backend(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'solitaire-env[ray]')")
    settings = {"game": "tripeaks", "deals": 6, "seed": 4, "agents": ["random"], "workers": 2}
    local = evaluate(**settings, record=str(tmp_path / "local"))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = evaluate(**settings, backend="ray", record=str(tmp_path / "ray"))
    finally:
        ray.shutdown()
    assert remote.config.backend == "ray" and remote.workers == 2
    assert outcomes(remote) == outcomes(local)  # actions included
    assert len(list((tmp_path / "ray").rglob("*.json"))) == 6


def test_a_worker_that_cannot_build_its_agents_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agents are built in the parent first; a worker failing later must not hang the pool."""
    import agents.evaluation.backends as backends

    setup = backends.WorkerSetup("tripeaks", "solitaire_env/TriPeaks-v0", (), (AgentSpec("no_such_agent"),), 0)
    work = chunks(draw_codes(4, 0, "TP", "E"), 2)
    with pytest.raises(RuntimeError, match="a worker could not build its env and agents: UnknownAgentError"):
        run_local(setup, work, 2, lambda rows: None, worker_class=backends.DealWorker)


@pytest.mark.parametrize(
    ("game", "env_id", "code"),
    [
        ("tripeaks", "solitaire_env/TriPeaks-v0", "TP1-E-AAAAAAB"),
        ("fortythieves", "solitaire_env/FortyThieves-v0", "FT1-N-AAAAAAB"),
    ],
)
def test_the_loop_hands_agents_what_the_env_returned(
    monkeypatch: pytest.MonkeyPatch, game: GameName, env_id: str, code: str
) -> None:
    """Every move, the agent gets the public state and the observation, info and mask the env
    returned at that position (checked against a second env replaying the same actions)."""
    import gymnasium as gym
    import numpy as np

    from agents.base import EnvOutput
    from agents.evaluation.backends import DealWorker, WorkerSetup
    from agents.players.random import RandomAgent

    seen: list[tuple[PublicState, EnvOutput, Any]] = []

    def spy(self: RandomAgent, state: PublicState, output: EnvOutput) -> int:
        observation = (
            {k: v.copy() for k, v in output.observation.items()}
            if isinstance(output.observation, dict)
            else output.observation.copy()
        )
        seen.append((state, output, observation))
        return self.act(state)

    monkeypatch.setattr(RandomAgent, "act_observed", spy)
    setup = WorkerSetup(
        game=game, env_id=env_id, env_kwargs=(), agents=(AgentSpec("random"),), seed=0, keep_actions=True
    )
    worker = DealWorker(setup)
    result = worker.play([(0, code)])[0]
    worker.close()
    assert result.actions is not None and len(seen) == result.steps == len(result.actions) > 0
    env = gym.make(env_id)
    obs, info = env.reset(options={"deal_code": code})
    for (state, output, observation), action in zip(seen, result.actions):
        assert output.obs_mode == "flat"
        np.testing.assert_array_equal(observation, obs)
        assert output.info["deal_code"] == info["deal_code"] == code and output.info["score"] == info["score"]
        np.testing.assert_array_equal(output.mask, state.mask)
        np.testing.assert_array_equal(output.mask, info["action_mask"].astype(bool))
        obs, _, _, _, info = env.step(action)
    env.close()
