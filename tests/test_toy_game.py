"""A third game is one more row: Toy (``tests/toygame/``, a game folder that lives only in the
tests) registered with ``solitaire_env.games.register_game`` runs through the generic API suite,
the command line and the library's functions, with no edit to the package.

The table of games has no way to take a row out again, so Toy is registered only in
subprocesses (``-p toygame.register``, ``import toygame.register``): the registry of this
process, and of every other test, stays the package's own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from solitaire_env.games import GAMES

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: A Toy code whose deal the solver wins (18 moves), and one it proves lost.
WON_CODE, LOST_CODE = "TY1-S-AAAAAB7", "TY1-S-AAAAAAE"


def _env() -> dict[str, str]:
    """The environment of a subprocess: this tree's package and ``tests/`` (``toygame``) first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), str(TESTS), env.get("PYTHONPATH")) if p)
    return env


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300, **kwargs)


def test_this_process_does_not_know_the_toy() -> None:
    assert "toy" not in [g.name for g in GAMES]


def test_the_generic_api_suite_runs_the_toy_env() -> None:
    """tests/generic/test_api.py with Toy registered: every test of its env id passes."""
    args = ["-q", "-p", "no:cacheprovider", "-p", "toygame.register", "-n", "0", "-k", "Toy or every_env"]
    done = _run([sys.executable, "-m", "pytest", *args, "tests/generic/test_api.py"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed is not None and int(passed.group(1)) > 40, done.stdout[-2000:]
    assert " failed" not in done.stdout and " error" not in done.stdout


#: Run with Toy registered: the command line (help, deal, solve, hint, play), the env under
#: gymnasium's checker and the library's functions on Toy codes; prints what it saw as JSON.
SCRIPT = r"""
import contextlib, io, json, sys, warnings

import toygame.register  # noqa: F401
import gymnasium as gym
from gymnasium.utils.env_checker import check_env

import solitaire_env
from solitaire_env.cli import main

WON, LOST = sys.argv[1], sys.argv[2]
out = {}

def cli(*argv, stdin=""):
    buf, err = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO(stdin)
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return {"status": status, "out": buf.getvalue(), "err": err.getvalue()}

out["help"] = cli("--help")
out["deal_help"] = cli("deal", "--help")
out["deal"] = cli("deal", WON)
out["deal_string"] = cli("deal", WON, "--string")
out["random"] = cli("deal", "--game", "ty", "--seed", "3")
out["solve"] = cli("solve", WON)
out["solve_lost"] = cli("solve", LOST)
out["hint"] = cli("hint", WON, "--moves", "draw,draw")
out["play"] = cli("play", WON, "--lines", stdin="d\nd\nu\nh\nq\n")
out["other_option"] = cli("deal", WON, "--jokers", "1")

env = gym.make("solitaire_env/Toy-v0", render_mode="ansi")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    check_env(env.unwrapped, skip_render_check=False)
out["check_env_warnings"] = [str(w.message) for w in caught]
_, info = env.reset(options={"deal_code": WON})
out["reset_code"] = info["deal_code"]
out["vector_entry_point"] = gym.spec("solitaire_env/Toy-v0").vector_entry_point

deal = solitaire_env.decode_deal(WON)
out["decode"] = [type(deal).__name__, str(deal.code), str(deal).count("|") + 1]
game = solitaire_env.make_game(WON, {"redeals": 2})
out["make_game"] = [type(game).__name__, game.rules.redeals]
result = solitaire_env.solve(WON)
out["solve_api"] = [result.status, result.stopped_by, len(result.line)]
out["solve_string"] = solitaire_env.solve(str(deal)).status
out["solve_budget"] = [solitaire_env.solve(WON, max_nodes=1).status, solitaire_env.solve(WON, max_nodes=1).stopped_by]
out["solve_lost_api"] = solitaire_env.solve(LOST).status
h = solitaire_env.hint(WON)
out["hint_hidden"] = [h.verdict, h.action, h.name]
game = solitaire_env.make_game(WON)
for action in result.line:  # play the winning line until every card has been seen
    if game.all_known:
        break
    game.play(action)
h = solitaire_env.hint(game)
out["hint_known"] = [h.verdict, h.stopped_by, list(h.line)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    done = _run([sys.executable, "-c", SCRIPT, WON_CODE, LOST_CODE])
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_help_lists_the_toy(seen: dict[str, Any]) -> None:
    assert seen["help"]["status"] == 0 and "Toy" in seen["help"]["out"]
    assert seen["deal_help"]["status"] == 0
    assert "--game tp|ft|ty" in " ".join(seen["deal_help"]["out"].split())


def test_deal_solve_hint_and_play_on_the_command_line(seen: dict[str, Any]) -> None:
    for verb in ("deal", "deal_string", "random", "solve", "solve_lost", "hint", "play"):
        assert seen[verb]["status"] == 0 and seen[verb]["err"] == "", (verb, seen[verb])
    deal = seen["deal"]["out"]
    assert f"code:   {WON_CODE}" in deal and "game:   Toy" in deal and "░░" in deal
    assert seen["deal_string"]["out"].count("|") == 4
    assert "game:   Toy" in seen["random"]["out"] and "TY1-S-" in seen["random"]["out"]
    assert "verdict: solved: a winning line of 18 moves" in seen["solve"]["out"]
    assert "after the line: won, 13/13 stacked" in seen["solve"]["out"]
    assert "verdict: unsolvable" in seen["solve_lost"]["out"]
    hint = seen["hint"]["out"]
    assert "moves:   2 played: 6 6" in hint and "hint:    " in hint and "verdict: unknown" in hint
    play = seen["play"]["out"]
    assert play.startswith(f"Toy  {WON_CODE}") and "undid the last move" in play and "hint: " in play
    assert seen["other_option"]["status"] == 2
    assert "--jokers applies to TriPeaks only" in seen["other_option"]["err"]


def test_the_env_passes_gymnasiums_checker(seen: dict[str, Any]) -> None:
    assert seen["check_env_warnings"] == []
    assert seen["reset_code"] == WON_CODE
    assert seen["vector_entry_point"] is None


def test_the_library_functions_take_toy_codes(seen: dict[str, Any]) -> None:
    assert seen["decode"] == ["ToyDeal", WON_CODE, 5]
    assert seen["make_game"] == ["ToyGame", 2]
    assert seen["solve_api"] == ["solved", "won", 18]
    assert seen["solve_string"] == "solved"
    assert seen["solve_budget"] == ["intractable", "nodes"]
    assert seen["solve_lost_api"] == "unsolvable"
    verdict, action, name = seen["hint_hidden"]
    assert verdict == "unknown" and isinstance(action, int) and name
    verdict, stopped_by, line = seen["hint_known"]
    assert verdict == "winnable" and stopped_by == "won" and line
