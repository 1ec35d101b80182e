"""The top-level API: what ``import solitaire_env`` and ``import agents`` offer, lazily, and the
position forms ``solitaire_env.solve`` takes (a game, a deal code, a deal string, a deal)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import winnable_deal

import agents
import solitaire_env
from solitaire_env import (
    DealCodeError,
    DealStringError,
    FortyThievesDeal,
    FortyThievesGame,
    FortyThievesRules,
    TriPeaksDeal,
    TriPeaksGame,
    TriPeaksRules,
    decode_deal,
    parse_deal_code,
)
from solitaire_env.solving import GameArgumentError


def run_python(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# --------------------------------------------------------------------------- solitaire_env


@pytest.mark.parametrize("name", solitaire_env.__all__)
def test_every_name_in_all_imports_from_the_top_level(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from solitaire_env import {name}", namespace)
    assert namespace[name] is getattr(solitaire_env, name)


def test_the_top_level_names_are_the_defining_modules_objects() -> None:
    from solitaire_env import hints as hint
    from solitaire_env.common import result
    from solitaire_env.fortythieves import game as ft_game
    from solitaire_env.fortythieves import rules as ft_rules
    from solitaire_env.tripeaks import game as tp_game
    from solitaire_env.tripeaks import rules as tp_rules
    from solitaire_env.tripeaks import scoring

    assert solitaire_env.TriPeaksGame is tp_game.TriPeaksGame
    assert solitaire_env.TriPeaksRules is tp_rules.TriPeaksRules
    assert (
        solitaire_env.TriPeaksScoring is scoring.TriPeaksScoring
        and solitaire_env.TriPeaksPointScoring is scoring.TriPeaksPointScoring
    )
    assert solitaire_env.FortyThievesGame is ft_game.FortyThievesGame
    assert solitaire_env.FortyThievesRules is ft_rules.FortyThievesRules
    assert solitaire_env.FortyThievesScoring is ft_rules.FortyThievesScoring
    assert solitaire_env.SolveResult is result.SolveResult and solitaire_env.Hint is hint.Hint
    assert {"TriPeaksGame", "FortyThievesGame", "TriPeaksRules", "decode_deal"} <= set(dir(solitaire_env))
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        solitaire_env.NoSuchName  # noqa: B018


def test_import_solitaire_env_stays_cheap_and_a_game_name_loads_its_module() -> None:
    run_python(
        "import sys, solitaire_env\n"
        "heavy = {'numba', 'torch', 'solitaire_env.tripeaks.game', 'solitaire_env.fortythieves.game'}\n"
        "assert not heavy & set(sys.modules), heavy & set(sys.modules)\n"
        "from solitaire_env import TriPeaksGame, decode_deal\n"
        "assert 'solitaire_env.tripeaks.game' in sys.modules and 'numba' not in sys.modules\n"
        "assert TriPeaksGame(decode_deal('TP1-E-AAAAAAB')).legal_actions()\n"
    )


# --------------------------------------------------------------------------- solve's position forms


def same(a: object, b: object) -> bool:
    keys = ("status", "line", "nodes", "best")
    return [getattr(a, k) for k in keys] == [getattr(b, k) for k in keys]


@pytest.mark.parametrize(("letter", "wrap"), [("E", True), ("C", False), ("N", True)])
def test_solve_takes_a_deal_code_and_its_rule_letter_sets_the_wrap(letter: str, wrap: bool) -> None:
    code = f"TP1-{letter}-AAAAAAD"
    deal = decode_deal(code)
    assert isinstance(deal, TriPeaksDeal)
    expected = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=wrap)))
    assert same(solitaire_env.solve(code), expected)
    assert same(solitaire_env.solve(f"  {code.lower()} "), expected)  # as parse_deal_code reads codes
    assert same(solitaire_env.solve(parse_deal_code(code)), expected)
    assert same(solitaire_env.solve(deal), expected)


def test_the_rule_letter_matters_for_some_deal() -> None:
    """So that the test above can fail: a deal whose result differs between E and C."""
    for seed in "BCDEFGHIJKLMNOP":
        code = f"AAAAAA{seed}"
        easy, classic = solitaire_env.solve(f"TP1-E-{code}"), solitaire_env.solve(f"TP1-C-{code}")
        if not same(easy, classic):
            return
    pytest.fail("no deal among the first few differs between the E and C rules")


def test_solve_takes_a_deal_string_of_either_game() -> None:
    text = winnable_deal()
    got = solitaire_env.solve(text)
    assert got.solved
    assert same(got, solitaire_env.solve(TriPeaksGame(TriPeaksDeal.parse(text))))
    ft = decode_deal("FT1-N-AAAAAAB")
    assert isinstance(ft, FortyThievesDeal)
    budget = 2_000
    expected = solitaire_env.solve(FortyThievesGame(ft), max_nodes=budget)
    assert same(solitaire_env.solve(str(ft), max_nodes=budget), expected)
    assert same(solitaire_env.solve("FT1-N-AAAAAAB", max_nodes=budget), expected)


def test_rules_options_reach_the_game() -> None:
    code = "TP1-C-AAAAAAD"
    rules = {"draw": "when_stuck", "jokers": 1}
    deal = decode_deal(code, jokers=1)
    expected = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=False, draw="when_stuck", jokers=1)))
    assert same(solitaire_env.solve(code, rules=rules), expected)
    assert same(solitaire_env.solve(code, rules={**rules, "wrap": False}), expected)  # agreeing is fine
    as_object = TriPeaksRules(wrap=False, draw="when_stuck", jokers=1)
    assert same(solitaire_env.solve(code, rules=as_object), expected)
    assert not same(solitaire_env.solve(code), expected)  # the options changed something
    ft = solitaire_env.solve("FT1-N-AAAAAAB", rules={"foundation_return": False}, max_nodes=500)
    assert ft.status in ("solved", "unsolvable", "intractable")


@pytest.mark.parametrize(
    ("position", "kwargs", "error", "message"),
    [
        ("TP1-X-AAAAAAB", {}, DealCodeError, "unknown rule 'X'"),
        ("TP1-E-AAAA", {}, DealCodeError, "the seed must be 7 characters"),
        ("hello", {}, DealCodeError, "three parts"),
        ("", {}, DealCodeError, "empty deal code"),
        ("AS | 2C", {}, DealStringError, "3 sections (TriPeaks"),
        ("AS | KS | 2C", {}, DealStringError, "want 28 cards"),
        (42, {}, GameArgumentError, "not int"),
        (None, {}, GameArgumentError, "a deal code (like 'TP1-E-AAAAAAB')"),
        ("TP1-C-AAAAAAB", {"rules": {"wrap": True}}, ValueError, "wrap=True contradicts the deal TP1-C-AAAAAAB"),
        ("TP1-E-AAAAAAB", {"rules": {"bogus": 1}}, ValueError, "unknown TriPeaks rule option 'bogus'; options: wrap"),
        ("TP1-E-AAAAAAB", {"rules": {"draw": "never"}}, ValueError, "draw must be 'anytime' or 'when_stuck'"),
        ("TP1-E-AAAAAAB", {"rules": {"jokers": 3}}, ValueError, "jokers must be 0, 1 or 2"),
        ("TP1-E-AAAAAAB", {"rules": FortyThievesRules()}, ValueError, "does not apply"),
        ("TP1-E-AAAAAAB", {"rules": 3}, ValueError, "want a mapping of rule options"),
        ("FT1-N-AAAAAAB", {"rules": {"jokers": 1}}, ValueError, "unknown Forty Thieves rule option 'jokers'"),
        ("TP1-E-AAAAAAB", {"max_nodes": "many"}, ValueError, "max_nodes must be a whole number >= 1"),
    ],
)
def test_bad_positions_give_one_clear_value_error(
    position: object, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        solitaire_env.solve(position, **kwargs)  # type: ignore[arg-type]
    text = str(info.value)
    assert isinstance(info.value, ValueError) and message in text and "\n" not in text, text
    assert error is GameArgumentError or not isinstance(info.value, TypeError)


def test_a_deal_string_with_jokers_takes_them_and_rules_must_agree() -> None:
    deal = decode_deal("TP1-E-AAAAAAB", jokers=2)
    text = str(deal)  # no code: a deal string with two JK in the stock
    expected = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(jokers=2)))
    assert same(solitaire_env.solve(text), expected)
    with pytest.raises(ValueError, match="jokers=0 contradicts the deal string: it has 2 joker"):
        solitaire_env.solve(text, rules={"jokers": 0})


def test_a_game_keeps_its_own_rules() -> None:
    game = TriPeaksGame(decode_deal("TP1-E-AAAAAAB"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="already has its rules"):
        solitaire_env.solve(game, rules={"draw": "when_stuck"})


# --------------------------------------------------------------------------- agents


@pytest.mark.parametrize("name", agents.__all__)
def test_every_name_agents_offers_imports(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from agents import {name}", namespace)
    value = namespace[name]
    assert value is getattr(agents, name)
    module = importlib.import_module(agents._LAZY[name])
    assert value is getattr(module, name)


def test_agents_top_level_names() -> None:
    from agents.base import Agent
    from agents.evaluation.harness import evaluate
    from agents.registry import agent_names, make_agent

    assert sorted(agents.__all__) == sorted(agents._LAZY)  # every lazy name is listed, and only those
    assert agents.Agent is Agent and agents.make_agent is make_agent and agents.agent_names is agent_names
    assert agents.evaluate is evaluate and callable(agents.evaluate)  # the function, not the module
    assert isinstance(agents.make_agent("random", "tripeaks"), agents.Agent)
    assert "rollout" in agents.agent_names("tripeaks")
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        agents.nothing_here  # noqa: B018


def test_agents_evaluate_runs_an_evaluation() -> None:
    result = agents.evaluate(game="tripeaks", deals=3, seed=1, agents=["random"], workers=1, write=False)
    assert isinstance(result, agents.EvalResult)
    assert "random" in result.table()


def test_import_agents_pulls_no_torch_and_no_numba() -> None:
    run_python(
        "import sys, agents\n"
        "assert not {'torch', 'numba', 'solitaire_env'} & set(sys.modules), 'import agents is heavy'\n"
        "agents.make_agent('hint', 'tripeaks'); agents.evaluate\n"
        "assert not {'torch', 'numba'} & set(sys.modules), {'torch', 'numba'} & set(sys.modules)\n"
    )


def test_agents_evaluate_stays_the_function_after_the_submodules_are_imported() -> None:
    """The evaluation module is ``agents.evaluation.harness``: importing it (or any other submodule) never
    rebinds ``agents.evaluate``, and there is no module of that name to shadow the function."""
    run_python(
        "import agents.evaluation.harness\nimport agents\nfrom agents.evaluation.harness import EvalResult\n"
        "assert callable(agents.evaluate) and agents.evaluate is agents.evaluation.harness.evaluate\n"
    )
    run_python(
        "import importlib.util, agents\nf = agents.evaluate\n"
        "import agents.evaluation.harness, agents.evaluation.backends\n"
        "assert agents.evaluate is f\n"
        "assert importlib.util.find_spec('agents.evaluate') is None\n"
    )


#: The public API of 1.0. Adding or removing a name is a decision: change this list, the
#: ``__all__`` of the package and the docs' API reference together.
SOLITAIRE_ENV_API = [
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "ENV_IDS",
    "FORTYTHIEVES_MAX_STEPS",
    "FortyThievesDeal",
    "FortyThievesGame",
    "FortyThievesRules",
    "FortyThievesScoring",
    "GAMES",
    "GameCode",
    "GameName",
    "Hint",
    "TriPeaksPointScoring",
    "TriPeaksScoring",
    "SolveResult",
    "TRIPEAKS_MAX_STEPS",
    "TriPeaksDeal",
    "TriPeaksGame",
    "TriPeaksRules",
    "__version__",
    "decode_deal",
    "game_spec",
    "hint",
    "make_game",
    "parse_deal_code",
    "solve",
]
AGENTS_API = [
    "Agent",
    "AgentOptionError",
    "EnvOutput",
    "EvalConfig",
    "EvalResult",
    "PublicState",
    "UnknownAgentError",
    "agent_class",
    "agent_names",
    "agent_options",
    "decide",
    "env_output",
    "evaluate",
    "make_agent",
    "observe",
    "public_state",
]


def test_the_public_api_is_pinned() -> None:
    assert sorted(solitaire_env.__all__) == sorted(SOLITAIRE_ENV_API)
    assert sorted(agents.__all__) == sorted(AGENTS_API)
    assert len(set(solitaire_env.__all__)) == len(solitaire_env.__all__)
    assert len(set(agents.__all__)) == len(agents.__all__)


def _only_reexports(path: Path) -> bool:
    """True when a module's body is nothing but imports (and ``__all__``): a second path to names
    defined elsewhere.  A package's ``__init__`` with only a docstring is not one."""
    import ast

    body = [
        n
        for n in ast.parse(path.read_text()).body
        if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    imports = [
        n
        for n in body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")
    ]
    rest = [n for n in body if n not in imports and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
    only_all = all(
        isinstance(n, (ast.Assign, ast.AnnAssign))
        and all(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
        for n in rest
    )
    return bool(imports) and only_all


def test_no_module_only_reexports_another_and_no_import_hook() -> None:
    root = Path(solitaire_env.__file__).parent.parent
    offenders = [
        str(p.relative_to(root))
        for package in ("solitaire_env", "agents")
        for p in sorted((root / package).rglob("*.py"))
        if _only_reexports(p)
    ]
    assert offenders == []
    assert not hasattr(agents, "MOVED_MODULES")
    run_python(
        "import importlib.util, sys, agents\n"
        "assert not any('Moved' in type(f).__name__ for f in sys.meta_path)\n"
        "old = ('agents.rollout', 'agents.config', 'agents._playout', 'solitaire_env.vector',\n"
        "       'solitaire_env.solver', 'solitaire_env.env', 'solitaire_env.play', 'solitaire_env.render')\n"
        "for old in old:\n"
        "    assert importlib.util.find_spec(old) is None, old\n"
    )


def test_the_reexport_check_can_fail(tmp_path: Path) -> None:
    planted = tmp_path / "old_path.py"
    planted.write_text('"""old path"""\nfrom solitaire_env.common.cards import *  # noqa: F403\n__all__ = ["x"]\n')
    assert _only_reexports(planted)
    real = tmp_path / "real.py"
    real.write_text("from os import path\n\n\ndef f() -> str:\n    return path.sep\n")
    assert not _only_reexports(real)
