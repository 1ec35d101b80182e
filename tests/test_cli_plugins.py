"""How ``solitaire-env`` finds the verbs of other packages: the entry-point group
``solitaire_env.verbs`` (``agents`` adds eval, hint-bench, replay, train and export so), and the
games its help lists, read when the parser is built.

The plug-ins planted here are a ``*.dist-info`` folder with an ``entry_points.txt`` on the
``PYTHONPATH`` of a ``python -m solitaire_env`` run, as an installed distribution is.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from solitaire_env import cli, cli_args
from solitaire_env.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
#: The verbs, in the order ``--help`` lists them.
ORDER = ("deal", "play", "solve", "hint", "eval", "hint-bench", "replay", "train", "export", "bench")
HELLO = """
from solitaire_env.cli_args import VerbTable, arg

VERBS = VerbTable()


@VERBS.verb("hello", "say hello", arg("--name", default="world", help="whom to greet"))
def hello(args):
    print(f"hello {args.name}")
    return 3
"""


def listed_verbs(help_text: str) -> list[str]:
    """The verbs of ``--help``, in its order."""
    lines = help_text.split("verbs:\n", 1)[1].splitlines()
    return [line.split()[0] for line in lines[1:] if line.startswith("    ") and not line.startswith("     ")]


def run(tmp_path: Path, *argv: str, points: str = "", modules: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``python -m solitaire_env ARGV`` with a distribution ``planted`` whose entry points of the
    group are ``points`` (lines ``name = module:object``) and whose modules are ``modules``."""
    if points:
        info = tmp_path / "planted-0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: planted\nVersion: 0\n")
        (info / "entry_points.txt").write_text(f"[{cli.PLUGIN_GROUP}]\n{points}\n")
    for name, source in (modules or {}).items():
        (tmp_path / f"{name}.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(tmp_path))), "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-m", "solitaire_env", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


def test_the_agents_entry_point_is_installed() -> None:
    points = {p.name: p.value for p in entry_points(group=cli.PLUGIN_GROUP)}
    assert points.get("agents") == "agents.verbs:VERBS", (
        f"the entry point of the agents' verbs is not in the installed metadata ({points}): "
        "reinstall with `python -m pip install --no-deps -e .`"
    )


def test_help_lists_the_agents_verbs_in_order(tmp_path: Path) -> None:
    status, out, err = run(tmp_path, "--help")
    assert status == 0 and err == "", err
    assert listed_verbs(out) == list(ORDER)
    assert list(cli.VERBS) == list(ORDER)


def test_a_plugin_adds_a_verb_before_bench(tmp_path: Path) -> None:
    status, out, err = run(tmp_path, "--help", points="hello = planted_verbs:VERBS", modules={"planted_verbs": HELLO})
    assert status == 0 and err == "", err
    assert listed_verbs(out) == [*ORDER[:-1], "hello", "bench"]
    assert run(tmp_path, "hello", "--name", "you") == (3, "hello you\n", "")


def test_a_plugin_whose_package_is_absent_adds_nothing(tmp_path: Path) -> None:
    status, out, err = run(tmp_path, "--help", points="gone = no_such_package_here.verbs:VERBS")
    assert status == 0 and err == "", err
    assert listed_verbs(out) == list(ORDER)


@pytest.mark.parametrize(
    ("points", "source", "says"),
    [
        ("broken = planted_verbs:VERBS", "raise RuntimeError('boom')\n", "failed to load: RuntimeError: boom"),
        ("broken = planted_verbs.inner:VERBS", "", "failed to load: ModuleNotFoundError"),
        ("broken = planted_verbs:MISSING", "VERBS = {}\n", "failed to load: AttributeError"),
        ("broken = planted_verbs:VERBS", "VERBS = [1, 2]\n", "is not a mapping of verb name to"),
        ("broken = planted_verbs:VERBS", HELLO.replace('"hello"', '"deal"'), "adds the verb 'deal', which"),
    ],
    ids=["raises", "missing-module", "missing-object", "not-a-mapping", "verb-taken"],
)
def test_a_broken_plugin_is_one_error_naming_it(tmp_path: Path, points: str, source: str, says: str) -> None:
    status, out, err = run(tmp_path, "deal", "TP1-E-AAAAAAB", points=points, modules={"planted_verbs": source})
    assert status == cli.EXIT_ERROR and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"solitaire-env: error: the verbs plug-in 'broken' ({points.split(' = ')[1]}"), err
    assert says in err, err


def test_a_game_added_later_is_listed_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    changes: dict[str, Any] = {"code": "TY", "title": "Toy", "deal_sections": 5, "deal_layout": "a | b"}
    toy = dataclasses.replace(GAMES[0], **changes)  # a game the rest of the package does not know
    monkeypatch.setattr(cli_args, "GAMES", (*GAMES, toy))
    parser = cli.build_parser()
    assert "(TriPeaks, Forty Thieves, Toy)" in " ".join(parser.format_help().split())
    (verbs,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    deal = " ".join(verbs.choices["deal"].format_help().split())
    for part in ("--game tp|ft|ty", "ty Toy", "5 Toy", "Toy a | b", "TY1-E-AAAAAAB"):
        assert part in deal, part
    assert cli_args.game_titles() == "TriPeaks, Forty Thieves or Toy"
