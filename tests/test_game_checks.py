"""Nothing outside a game's folder asks which game it has: no ``isinstance`` against a game's
class and no comparison with a game's name, code letters, title or row (AST scan, no import).

Allowed: ``solitaire_env/<game>/`` (each game's own code) and ``solitaire_env/games.py`` (the
table).  Everything else asks the table: ``spec_of(thing).plugin`` and the row's fields.

:data:`KNOWN_CHECKS` lists checks allowed for now (file -> count; empty: keep it so); the test
requires each count to be exact, so the list can only shrink.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from solitaire_env.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = ("solitaire_env/tripeaks/", "solitaire_env/fortythieves/", "solitaire_env/games.py")
#: The words that name a game: names, codes (either case), titles.
WORDS = frozenset(w for g in GAMES for w in (g.name, g.code, g.code.lower(), g.title))
#: The packages of the games (a class imported from one is a game's class) and the names of their rows.
PACKAGES = tuple(g.package for g in GAMES)
ROWS = frozenset(g.name.upper() for g in GAMES)

#: Game checks allowed for now, per file (remove an entry once its file is clean).
KNOWN_CHECKS: dict[str, int] = {}


def _names(node: ast.expr) -> list[str]:
    """The class names an ``isinstance`` second argument names (``A``, ``m.A``, ``(A, B)``, ``A | B``)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):  # ``module.Class``: the module's name counts too
        return [node.attr, *_names(node.value)]
    if isinstance(node, ast.Tuple):
        return [n for e in node.elts for n in _names(e)]
    if isinstance(node, ast.BinOp):
        return _names(node.left) + _names(node.right)
    return []


def _is_game_word(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in WORDS
    if isinstance(node, ast.Name | ast.Attribute):
        return (node.id if isinstance(node, ast.Name) else node.attr) in ROWS
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_game_word(e) for e in node.elts)
    return False


def game_classes(tree: ast.AST) -> set[str]:
    """The names a file imports from the games' packages (their classes among them)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGES):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def game_checks(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that check which game they have."""
    lines = []
    classes = game_classes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            if len(node.args) == 2 and classes & set(_names(node.args[1])):
                lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(_is_game_word(e) for e in (node.left, *node.comparators)):
            lines.append(node.lineno)
    return lines


def scanned() -> dict[str, list[int]]:
    found = {}
    for package in ("solitaire_env", "agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(ALLOWED):
                continue
            lines = game_checks(ast.parse(path.read_text(encoding="utf-8")))
            if lines:
                found[rel] = lines
    return found


def test_the_scan_finds_each_kind_of_check() -> None:
    source = (
        "from solitaire_env.tripeaks.game import TriPeaksGame\n"
        "from solitaire_env.fortythieves import knowledge as m\n"
        "from agents.training.afterstate import TriPeaksAfterstateFeatures\n"
        "isinstance(g, TriPeaksGame)\nisinstance(k, (m.FortyThievesKnowledge, int))\n"
        "game == 'tripeaks'\ncode.game != 'FT'\nx in ('tp', 'ft')\nspec is TRIPEAKS\n"
        "isinstance(x, int)\nname == 'other'\nisinstance(e, TriPeaksAfterstateFeatures)\n"
    )
    assert game_checks(ast.parse(source)) == [4, 5, 6, 7, 8, 9]


def test_no_game_checks_outside_the_games() -> None:
    found = scanned()
    library = {f: lines for f, lines in found.items() if f.startswith("solitaire_env/")}
    assert not library, f"game checks in the library (ask the table: spec_of(x).plugin): {library}"
    counts = {f: len(lines) for f, lines in found.items()}
    new = {f: found[f] for f in counts if counts[f] > KNOWN_CHECKS.get(f, 0)}
    assert not new, f"new game checks (ask the table instead): {new}"
    fixed = {f: n for f, n in KNOWN_CHECKS.items() if counts.get(f, 0) < n}
    assert not fixed, f"fewer game checks than listed: lower KNOWN_CHECKS {fixed} to {Counter(counts)}"
