"""MkDocs hook (``hooks:`` in mkdocs.yml): the CLI reference and the API reference, made at build time.

- In ``docs/cli.md`` the line ``<!-- cli-reference -->`` becomes one section per verb of
  ``solitaire_env.cli.build_parser()``: its description, usage, arguments and epilog, as
  ``solitaire-env VERB --help`` prints them.
- In ``docs/reference/api.md`` the line ``<!-- api-reference -->`` becomes one mkdocstrings
  ``:::`` entry per name of ``solitaire_env.__all__`` and ``agents.__all__``, which mkdocstrings
  renders from the docstrings.

So neither page can fall behind the code: a new verb, option or public name appears on the next
build, and a name that no longer resolves fails ``mkdocs build --strict``.
"""

from __future__ import annotations

import argparse
import ast
import html
import importlib
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # document this tree's packages, whatever is installed
    sys.path.insert(0, str(ROOT))

CLI_MARKER = "<!-- cli-reference -->"
API_MARKER = "<!-- api-reference -->"
#: The packages whose ``__all__`` the API reference lists, with a sentence on each.
PACKAGES = {
    "solitaire_env": "The environments' package: the games, their deals and rules, the solver and the hint.",
    "agents": "The agents, their registry and the evaluation harness.",
}
#: The page that explains a verb in full, named under its section.
GUIDES = {
    "deal": ("Deal codes", "deals.md"),
    "solve": ("Solver and hints", "hints.md"),
    "hint": ("Solver and hints", "hints.md"),
    "eval": ("Evaluation", "evaluation.md"),
    "replay": ("Evaluation", "evaluation.md"),
    "hint-bench": ("Hint benchmark", "hint_benchmark.md"),
    "train": ("Training guide", "training.md"),
    "export": ("Training guide", "training.md"),
    "bench": ("Results", "results.md"),
}
#: Width of the usage lines (argparse reads it from the terminal otherwise).
WIDTH = 100


# --------------------------------------------------------------------------- CLI reference


def _escape(text: str) -> str:
    """Plain text (an argparse help string) as Markdown that shows it as it is."""
    return re.sub(r"([\\`*_\[\]])", r"\\\1", html.escape(" ".join(text.split()), quote=False))


def _sentence(text: str) -> str:
    """A help string as the first sentence of a section: escaped, with a capital letter."""
    text = _escape(text)
    return text[:1].upper() + text[1:]


def _verbs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each verb's parser, in the order ``--help`` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    """The parser's arguments, group by group, as Markdown lists (``-h`` left out)."""
    formatter = parser._get_formatter()
    lines: list[str] = []
    for group in parser._action_groups:
        actions = [
            a for a in group._group_actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]
        if not actions:
            continue
        lines += ["", f"**{(group.title or 'arguments').capitalize()}**", ""]
        for action in actions:
            invocation = formatter._format_action_invocation(action)
            text = formatter._expand_help(action) if action.help else ""
            lines.append(f"- `{invocation}`" + (f": {_escape(text)}" if text else ""))
    return lines


def cli_markdown() -> str:
    """The generated part of the CLI reference: every verb of ``solitaire-env``, from its parser."""
    from solitaire_env.cli import PROG, build_parser

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps usage lines to the terminal: fix the width
    try:
        parser = build_parser()
        verbs = _verbs(parser)
        out = [f"## `{PROG}` {{#{PROG}}}", "", _sentence(parser.description or ""), "", "```text"]
        out += [parser.format_usage().rstrip(), "```", "", "| verb | what it does |", "| --- | --- |"]
        for name, sub in verbs.items():
            out.append(f"| [`{name}`](#{name}) | {_escape(sub.description or '').replace('|', '&#124;')} |")
        out += _arguments(parser)
        for name, sub in verbs.items():
            out += ["", f"## `{PROG} {name}` {{#{name}}}", "", _sentence(sub.description or ""), "", "```text"]
            out += [sub.format_usage().rstrip(), "```"]
            if name in GUIDES:
                title, page = GUIDES[name]
                out += ["", f"In full: [{title}]({page})."]
            out += _arguments(sub)
            if sub.epilog:
                out += ["", "```text", sub.epilog.strip("\n"), "```"]
        return "\n".join(out) + "\n"
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


# --------------------------------------------------------------------------- API reference


def api_path(package: str, name: str) -> str:
    """The dotted path of ``package.name`` where it is defined (the module mkdocstrings reads).

    Classes and functions say where they live; any other value (a constant, a type alias) is
    looked up in the module its package imports it from, else documented in the package itself.
    """
    module = importlib.import_module(package)
    value = getattr(module, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        return f"{value.__module__}.{value.__qualname__}"
    for node in ast.parse(inspect.getsource(module)).body:  # the package's top-level imports
        if isinstance(node, ast.ImportFrom) and node.module and any(a.name == name for a in node.names):
            return f"{node.module}.{name}"
    return f"{package}.{name}"


def api_markdown() -> str:
    """The generated part of the API reference: one ``:::`` entry per public name.

    Each entry's heading is the public name (``solitaire_env.TriPeaksGame``); its anchor is the
    path of the object where it is defined, which mkdocstrings gives it.
    """
    out: list[str] = []
    for package, about in PACKAGES.items():
        names = sorted(importlib.import_module(package).__all__, key=lambda n: (n.startswith("_"), n.lower()))
        paths = {name: api_path(package, name) for name in names}
        out += [f"## `{package}`", "", about, ""]
        out.append(" · ".join(f"[`{n}`](#{paths[n]})" for n in names))
        for name in names:
            out += ["", f"::: {paths[name]}", "    options:", f'      heading: "{package}.{name}"']
            out.append(f'      toc_label: "{name}"')
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- MkDocs events


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_markdown())
    if API_MARKER in markdown:
        markdown = markdown.replace(API_MARKER, api_markdown())
    return markdown


#: Sphinx roles left in docstrings (``:func:`x```): the role's name goes, the code stays.
_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    return _ROLE.sub("", html_text)
