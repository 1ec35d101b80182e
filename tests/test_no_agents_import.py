"""``solitaire_env`` imports nothing from ``agents`` (the package that depends on it), checked on
the source: no ``import agents``, no ``from agents ...``, and no ``import_module("agents...")``
or ``__import__("agents...")`` with a literal name, in any module, at any depth."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _is_agents(name: str | None) -> bool:
    return name is not None and (name == "agents" or name.startswith("agents."))


def agents_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of ``agents`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _is_agents(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _is_agents(node.module):
            found.append((node.lineno, str(node.module)))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if (
                called in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and _is_agents(first.value)
            ):
                found.append((node.lineno, first.value))
    return found


def test_solitaire_env_imports_nothing_from_agents() -> None:
    files = sorted((ROOT / "solitaire_env").rglob("*.py"))
    assert len(files) > 30 and ROOT / "solitaire_env" / "cli.py" in files  # the walk covers the package
    problems = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in files
        for line, module in agents_imports(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)


def test_the_scan_catches_every_form() -> None:
    planted = (
        "import agents\n"
        "def f():\n    from agents.evaluation import harness\n"
        "    import agents.base as b\n"
        "    importlib.import_module('agents.verbs')\n"
        "    __import__('agents')\n"
        "from agentsx import y\nimport solitaire_env.agents_like\nfrom . import agents\n"
    )
    assert [m for _, m in agents_imports(planted)] == [
        "agents",
        "agents.evaluation",
        "agents.base",
        "agents.verbs",
        "agents",
    ]
