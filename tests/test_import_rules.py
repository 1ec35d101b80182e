"""The import rules of docs/architecture.md, checked on the source (AST, no import):

1. a game folder (``solitaire_env/tripeaks/``, ``solitaire_env/fortythieves/``) never imports
   another game; ``solitaire_env/common/`` (once it exists) imports no game;
2. nothing outside a game imports a name starting with ``_`` from one of its modules, nor reads
   ``module._name`` of one of them;
3. ``agents`` never imports a ``_`` name from ``solitaire_env``, never reads ``module._name`` of a
   ``solitaire_env`` module, and never reads a ``_`` attribute of an object (static
   approximation: every ``x._name`` read in ``agents/``, except dunders, ``self._x`` / ``cls._x``
   and the privates that ``agents`` itself defines and ``solitaire_env`` does not: the names of
   its own ``_`` functions, classes, module globals and attributes it assigns);
4. ``solitaire_env`` never imports ``agents`` (the agent verbs of the command line come in
   through the ``solitaire_env.verbs`` entry points that ``agents`` declares);
5. no import circles among the modules of ``solitaire_env`` and ``agents`` (imports inside
   functions count; those under ``if TYPE_CHECKING:`` do not, they never run).

Today's violations are listed in :data:`KNOWN_VIOLATIONS`; the test also requires each listed one
to be still there, so the list can only shrink (it is empty now: keep it so).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from solitaire_env.games import GAMES as TABLE

ROOT = Path(__file__).resolve().parents[1]
#: The game packages (a game's folder owns all of its parts), from the table of games.
GAMES = tuple(g.package for g in TABLE)
#: Shared code that no game owns: it may import no game.
COMMON = "solitaire_env.common"
#: The ``solitaire_env`` modules that may import ``agents``: none.
JOINS: frozenset[str] = frozenset()
#: ``_`` attributes that are public API of the standard library (namedtuple) and never a private.
PUBLIC_UNDERSCORE = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

#: (file, name) of every violation found today: the ``_`` name imported or read, or the module
#: imported against rules 1 / 4.  Each entry must still be a violation (remove it once fixed).
KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset()

Violation = tuple[str, str, str]  # (file, name, rule)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path) -> bool:
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _game_of(module: str) -> str | None:
    return next((g for g in GAMES if _under(module, g)), None)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from X import ...`` names, with a relative ``X`` resolved against ``module``."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


class _Source:
    """One file: its module name, its tree, and the names it binds to modules of the project."""

    def __init__(self, path: Path, root: Path) -> None:
        self.path = path
        self.file = path.relative_to(root).as_posix()
        self.module = _module_name(path, root)
        self.is_package = path.name == "__init__.py"
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.imports: list[tuple[str, str | None]] = []  # (module, name imported from it or None)
        self.bound: dict[str, str] = {}  # local name -> module it stands for
        self.runtime: set[str] = set()  # the modules of the project it imports when it runs
        typing_only = {
            id(inner)
            for node in ast.walk(self.tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in typing_only:
                self.runtime |= self._modules(node, root)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.imports.append((alias.name, None))
                    if alias.asname:
                        self.bound[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.bound[top] = top
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, self.module, self.is_package)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    if _is_module(full, root):  # ``from pkg import module``: a module, not a name
                        self.imports.append((full, None))
                        self.bound[alias.asname or alias.name] = full
                    else:
                        self.imports.append((source, alias.name))

    def _modules(self, node: ast.Import | ast.ImportFrom, root: Path) -> set[str]:
        """The project modules an import statement loads (the deepest module each name names)."""
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            source = _absolute(node, self.module, self.is_package)
            names = [f"{source}.{alias.name}" for alias in node.names]
        found = set()
        for name in names:
            while name and not _is_module(name, root):
                name = name.rpartition(".")[0]
            if name and name != self.module:
                found.add(name)
        return found

    def module_of(self, node: ast.expr) -> str | None:
        """The module an expression (``name`` or ``name.sub.sub``) stands for, if it is one."""
        if isinstance(node, ast.Name):
            return self.bound.get(node.id)
        if isinstance(node, ast.Attribute):
            outer = self.module_of(node.value)
            return f"{outer}.{node.attr}" if outer is not None else None
        return None

    def private_reads(self) -> Iterator[tuple[ast.expr, str, str | None]]:
        """Every ``x._name`` read (not a dunder), also as ``getattr`` / ``hasattr(x, "_name")``:
        the object read, the name, and the module the object stands for (or None)."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _private(node.attr):
                yield node.value, node.attr, self.module_of(node.value)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
            ):
                yield node.args[0], node.args[1].value, self.module_of(node.args[0])


def _sources(root: Path, package: str) -> list[_Source]:
    folder = root / package
    return [_Source(p, root) for p in sorted(folder.rglob("*.py"))] if folder.is_dir() else []


def _own_privates(sources: list[_Source]) -> set[str]:
    """The ``_`` names a set of files defines: functions, classes, globals, assigned attributes."""
    names: set[str] = set()
    for src in sources:
        for node in ast.walk(src.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):  # ``import x as _x``: its own name for a module
                names.add(node.asname or node.name.split(".")[0])
    return {n for n in names if _private(n)}


def violations(root: Path = ROOT) -> set[Violation]:
    """Every breach of the four rules under ``root`` (a checkout: ``solitaire_env/``, ``agents/``)."""
    library = _sources(root, "solitaire_env")
    agents = _sources(root, "agents")
    # a ``_`` name that solitaire_env defines is read as its private even where agents happens
    # to define the same name (``game._key`` is the game's, whatever agents calls ``_key``)
    own = _own_privates(agents) - _own_privates(library)
    found: set[Violation] = set()
    for src in library + agents:
        game = _game_of(src.module)
        in_agents = _under(src.module, "agents")
        for module, name in src.imports:
            other = _game_of(module)
            if game is not None and other is not None and other != game:
                found.add((src.file, module, "a game imports another game"))
            if _under(src.module, COMMON) and other is not None:
                found.add((src.file, module, "common imports a game"))
            if name is not None and _private(name):
                if other is not None and other != game:
                    found.add((src.file, name, "a _ name imported from outside its game"))
                if in_agents and _under(module, "solitaire_env"):
                    found.add((src.file, name, "agents imports a _ name of solitaire_env"))
            if not in_agents and _under(module, "agents") and src.file not in JOINS:
                found.add((src.file, module, "a library module imports agents"))
        for value, attr, read_from in src.private_reads():
            if read_from is not None:
                other = _game_of(read_from)
                if other is not None and other != game:
                    found.add((src.file, attr, "a _ name read from outside its game"))
                if in_agents and _under(read_from, "solitaire_env"):
                    found.add((src.file, attr, "agents reads a _ name of a solitaire_env module"))
            elif in_agents:
                if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                    continue
                if attr in own or attr in PUBLIC_UNDERSCORE:
                    continue
                found.add((src.file, attr, "agents reads a _ attribute it does not define"))
    files = {src.module: src.file for src in library + agents}
    for circle in import_circles({src.module: src.runtime & files.keys() for src in library + agents}):
        found.add((files[circle[0]], " <-> ".join(circle), "an import circle"))
    return found


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module of an import graph (Tarjan), each
    sorted: every group is a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _listing(found: set[Violation]) -> str:
    return "\n".join(f"  ({file!r}, {name!r}),  # {rule}" for file, name, rule in sorted(found))


def test_import_rules_hold() -> None:
    found = violations()
    new = {v for v in found if v[:2] not in KNOWN_VIOLATIONS}
    assert not new, "import rules broken (see tests/test_import_rules.py):\n" + _listing(new)
    gone = KNOWN_VIOLATIONS - {v[:2] for v in found}
    assert not gone, f"fixed violations still listed in KNOWN_VIOLATIONS (remove them): {sorted(gone)}"


# --------------------------------------------------------------------------- the checker itself


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in {"solitaire_env/__init__.py": "", "agents/__init__.py": "", **files}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(tmp_path).parents:  # every folder a package
            init = tmp_path / parent / "__init__.py"
            if parent != Path(".") and not init.exists():
                init.write_text("")
        path.write_text(text)
    return tmp_path


_CLEAN = {
    "solitaire_env/tripeaks/rules.py": "_TABLE = 1\nWRAP = True\n",
    "solitaire_env/tripeaks/game.py": (
        "from solitaire_env.tripeaks.rules import _TABLE\nfrom . import rules\nx = rules._TABLE\n"
    ),
    "solitaire_env/fortythieves/game.py": "from solitaire_env.common.cards import card_text\n",
    "solitaire_env/common/cards.py": "def card_text(c):\n    return str(c)\n",
    "agents/verbs.py": "def main():\n    from solitaire_env.common.cards import card_text\n",
    "agents/base.py": (
        "class Agent:\n    def __init__(self):\n        self._rng = 1\n"
        "    def copy(self, other):\n        return other._rng + self._rng\n"
    ),
    "agents/point.py": "def f(p):\n    return p._replace(x=1), p.__class__\n",
}


def test_checker_passes_a_clean_tree(tmp_path: Path) -> None:
    assert violations(_tree(tmp_path, _CLEAN)) == set()


_FT, _HINT, _HEUR = "solitaire_env/fortythieves/rules.py", "solitaire_env/hint.py", "agents/heur.py"
#: (file, its text, the name it breaks the rules with, the rule): one planted violation each.
_PLANTED = [
    (
        _FT,
        "from solitaire_env.tripeaks.rules import WRAP\n",
        "solitaire_env.tripeaks.rules",
        "a game imports another game",
    ),
    (_FT, "from ..tripeaks import rules\n", "solitaire_env.tripeaks.rules", "a game imports another game"),
    (
        "solitaire_env/common/deck.py",
        "import solitaire_env.tripeaks.rules as r\n",
        "solitaire_env.tripeaks.rules",
        "common imports a game",
    ),
    (_HINT, "from solitaire_env.tripeaks.rules import _TABLE\n", "_TABLE", "a _ name imported from outside its game"),
    (
        _HINT,
        "import solitaire_env.tripeaks.rules\nx = solitaire_env.tripeaks.rules._TABLE\n",
        "_TABLE",
        "a _ name read from outside its game",
    ),
    (
        _HEUR,
        "def f():\n    from solitaire_env.common.cards import _parse\n",
        "_parse",
        "agents imports a _ name of solitaire_env",
    ),
    (
        _HEUR,
        "from solitaire_env.common import cards\ny = cards._SUITS\n",
        "_SUITS",
        "agents reads a _ name of a solitaire_env module",
    ),
    (_HEUR, "def f(batch):\n    return batch._st[0]\n", "_st", "agents reads a _ attribute it does not define"),
    (
        _HEUR,
        "def f(batch):\n    return hasattr(batch, '_tab')\n",
        "_tab",
        "agents reads a _ attribute it does not define",
    ),
    ("solitaire_env/render.py", "from agents.base import Agent\n", "agents.base", "a library module imports agents"),
    (
        "solitaire_env/cli.py",
        "def main():\n    from agents.base import Agent\n",
        "agents.base",
        "a library module imports agents",
    ),
]


@pytest.mark.parametrize(("rel", "text", "name", "rule"), _PLANTED)
def test_checker_finds_each_kind_of_violation(tmp_path: Path, rel: str, text: str, name: str, rule: str) -> None:
    assert violations(_tree(tmp_path, {**_CLEAN, rel: text})) == {(rel, name, rule)}


def test_checker_finds_an_import_circle_and_skips_typing_only_imports(tmp_path: Path) -> None:
    circle = {**_CLEAN, "solitaire_env/tripeaks/rules.py": "def f():\n    from solitaire_env.tripeaks import game\n"}
    want = ("solitaire_env/tripeaks/game.py", "solitaire_env.tripeaks.game <-> solitaire_env.tripeaks.rules")
    assert violations(_tree(tmp_path, circle)) == {(*want, "an import circle")}
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from solitaire_env.tripeaks import game\n"
    assert violations(_tree(tmp_path, {**_CLEAN, "solitaire_env/tripeaks/rules.py": typing_only})) == set()


def test_a_private_of_solitaire_env_counts_even_where_agents_has_the_same_name(tmp_path: Path) -> None:
    """``game._key`` reads the game's private although agents names a variable ``_key`` too."""
    files = {
        **_CLEAN,
        "solitaire_env/tripeaks/game.py": "class Game:\n    def __init__(self):\n        self._key = 0\n",
        _HEUR: "def f(game):\n    _key = 1\n    return game._key + _key\n",
    }
    assert violations(_tree(tmp_path, files)) == {(_HEUR, "_key", "agents reads a _ attribute it does not define")}
