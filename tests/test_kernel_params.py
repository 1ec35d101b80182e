"""No numba kernel takes more than :data:`MAX_PARAMS` parameters (AST scan of every ``@njit`` /
``@jit`` function in ``solitaire_env`` and ``agents``): a kernel's state travels as one
structure (a NamedTuple of arrays), not as loose arrays."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_PARAMS = 8


def _is_kernel(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit", "overload", "register_jitable"):
            return True
    return False


def kernels(tree: ast.AST) -> list[ast.FunctionDef]:
    """The numba-compiled functions of ``tree``."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and _is_kernel(node)]


def wide_kernels(tree: ast.AST) -> list[tuple[str, int]]:
    """The kernels of ``tree`` with more than :data:`MAX_PARAMS` parameters, with their counts."""
    found = []
    for node in kernels(tree):
        a = node.args
        count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
        if count > MAX_PARAMS:
            found.append((node.name, count))
    return found


def test_the_scan_counts_parameters() -> None:
    source = (
        "@njit(cache=True)\ndef wide(a, b, c, d, e, f, g, h, i):\n    pass\n"
        "@njit\ndef narrow(a, b):\n    pass\n"
        "def plain(a, b, c, d, e, f, g, h, i, j):\n    pass\n"
        "@numba.njit(cache=True)\ndef wide2(a, b, c, d, e, f, g, h, *, i):\n    pass\n"
        "@overload(stub)\ndef wide3(a, b, c, d, e, f, g, h, i):\n    pass\n"
    )
    assert wide_kernels(ast.parse(source)) == [("wide", 9), ("wide2", 9), ("wide3", 9)]


def test_no_kernel_takes_more_than_eight_parameters() -> None:
    found = {}
    scanned = 0
    for package in ("solitaire_env", "agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            scanned += len(kernels(tree))
            wide = wide_kernels(tree)
            if wide:
                found[path.relative_to(ROOT).as_posix()] = wide
    assert scanned > 100, f"only {scanned} kernels found: the scan misses the decorators"
    assert not found, f"kernels with more than {MAX_PARAMS} parameters (pass a NamedTuple of arrays): {found}"
