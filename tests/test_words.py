"""The project's own words: no development log in the tracked files, no internal document in ``--help``.

Two checks, each with planted cases that prove it can fail:

- every tracked text file except ``CHANGELOG.md`` is free of work-log references (a numbered
  work session or tracker issue, in any of their spellings: singular or plural, ``#``, a hyphen);
- every verb's ``--help`` (and the top-level one) is free of them too, and names no document a
  user does not have: the rule documents (``seed`` followed by a three-digit number), the
  product contract (``SPEC``) and the upper-case architecture document (the public page is
  ``docs/architecture.md``, which may be named).

The checks and the planted cases call the same matchers (:func:`log_references`,
:func:`internal_names`, :func:`file_problems`, :func:`help_texts`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from solitaire_env import cli

ROOT = Path(__file__).resolve().parents[1]

#: A reference to a numbered work session or tracker issue: the word (singular or plural, any
#: case) then a number, with a space, a hyphen or "#" between (the planted cases below spell
#: them out; this file builds them from pieces so that it stays clean itself).
LOG_REFERENCE = re.compile(r"\b(?:sessions?|issues?)[\s-]*#?\s*\d+", re.IGNORECASE)

#: Documents a user of the package does not have, as ``--help`` could name them.  Case-sensitive
#: where the public name differs only in case (``docs/architecture.md`` is a public page).
INTERNAL_NAME = re.compile(
    r"\bseeds?[\s-]*0\d\d\b"  # the rule documents: seed 001, seed-004, seeds 000
    r"|\bSPEC\b"  # the product contract: SPEC, SPEC.md, SPEC section 6
    r"|\bARCHITECTURE(?:\.md)?\b"  # the internal architecture document (upper case)
    r"|/work/shared"  # where the internal documents live
)

#: The only tracked file that may name sessions and issues: the changelog.
EXEMPT = ("CHANGELOG.md",)

#: Paths the file check skips besides EXEMPT (none: every tracked file is checked).
#: An entry ending in "/" is a folder; any other entry is one exact path.
PENDING_REWRITE: tuple[str, ...] = ()

#: Suffixes of files that are not text (the NUL-byte test catches the rest).
BINARY_SUFFIXES = frozenset({".npz", ".npy", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".zip", ".gz", ".pt", ".pkl"})


# --------------------------------------------------------------------------- the matchers


def log_references(text: str) -> list[str]:
    """Every work-log reference in ``text`` (a session or issue word and its number), as found."""
    return [m.group(0) for m in LOG_REFERENCE.finditer(text)]


def internal_names(text: str) -> list[str]:
    """Every name of an internal document in ``text`` ("seed 001", "SPEC", ...), as found."""
    return [m.group(0) for m in INTERNAL_NAME.finditer(text)]


def skipped(path: str) -> bool:
    """Whether the file check leaves ``path`` (relative, ``/``-separated) alone."""
    if path in EXEMPT:
        return True
    return any(path.startswith(p) if p.endswith("/") else path == p for p in PENDING_REWRITE)


def file_problems(path: Path, name: str) -> list[str]:
    """``name:line: reference`` for every work-log reference in the text file ``path``; nothing
    for a binary file."""
    if path.suffix.lower() in BINARY_SUFFIXES:
        return []
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []
    problems = []
    for m in LOG_REFERENCE.finditer(text):  # the whole text: "session\n3" across lines counts too
        line = text.count("\n", 0, m.start()) + 1
        problems.append(f"{name}:{line}: {m.group(0)!r}")
    return problems


def help_texts(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The ``--help`` text of ``parser`` (key ``""``) and of each of its verbs (key: the verb)."""
    texts = {"": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts[name] = sub.format_help()
    return texts


def help_problems(texts: dict[str, str]) -> list[str]:
    """``verb: found`` for every work-log reference and internal document name in ``texts``."""
    return [
        f"{verb or cli.PROG} --help: {found!r}"
        for verb, text in texts.items()
        for found in log_references(text) + internal_names(text)
    ]


def tracked_files() -> list[str]:
    """The repository's tracked files (``git ls-files``), or a skip outside a git checkout."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no tracked files to check")
    out = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode("utf-8").split("\0") if p]


# --------------------------------------------------------------------------- the checks


def test_tracked_files_name_no_session_or_issue() -> None:
    names = [n for n in tracked_files() if not skipped(n) and (ROOT / n).is_file()]
    assert len(names) > 100, names  # the walk really covers the repository
    problems = [p for n in names for p in file_problems(ROOT / n, n)]
    assert not problems, "work-log references outside CHANGELOG.md:\n" + "\n".join(problems)


def test_help_texts_name_no_session_issue_or_internal_document() -> None:
    texts = help_texts(cli.build_parser())
    assert set(texts) == {"", *cli.VERBS}, "every verb's --help is checked"
    problems = help_problems(texts)
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- planted cases


def test_a_planted_session_in_a_docstring_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    word, number = "session", "3"  # built here, so that this file itself stays clean
    planted.write_text(f'def f():\n    """Measured in {word} {number}."""\n', encoding="utf-8")
    assert file_problems(planted, "planted.py") == [f"planted.py:2: '{word} {number}'"]
    planted.write_text('def f():\n    """Measured on 3 deals (docs/training.md)."""\n', encoding="utf-8")
    assert file_problems(planted, "planted.py") == []


def test_a_planted_issue_in_a_help_text_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    word, number = "issue", "7"
    planted = cli.Verb("planted", f"a verb added in {word} {number}", (), lambda args: 0)
    monkeypatch.setitem(cli.VERBS, "planted", planted)
    texts = help_texts(cli.build_parser())
    assert "planted" in texts
    assert any(f"'{word} {number}'" in p for p in help_problems(texts))
    assert [p for p in help_problems(texts) if p.startswith("planted")] == [f"planted --help: '{word} {number}'"]


@pytest.mark.parametrize(
    "text",
    [
        "the hint (" + "seed" + " 001: a move worth trying)",
        "keys of seed" + "-004",
        "see " + "SPEC" + " section 6",
        "see " + "ARCHITECTURE" + ".md",
        "as " + "sessions" + " 8-10 found",
        "the run of " + "session" + " 10's config",
        "fixed in " + "issue" + " #7",
        "the published " + "session" + "-5 config",
    ],
)
def test_planted_names_in_help_are_caught(text: str) -> None:
    assert help_problems({"planted": text})


@pytest.mark.parametrize(
    "text",
    [
        "solitaire-env solve --deals 1000 --seed 0 --rules C",
        "the shape of the code: docs/architecture.md",
        "game_spec(text).code; a spec of the env",
        "the play session (solitaire_env.tripeaks.session) and issues of the terminal",
        "2 sessions, 10 columns",
    ],
)
def test_public_words_in_help_pass(text: str) -> None:
    assert help_problems({"ok": text}) == []


def test_skipped_paths() -> None:
    assert skipped("CHANGELOG.md")
    for path in PENDING_REWRITE:
        assert skipped(path if not path.endswith("/") else path + "index.md")
    assert not skipped("solitaire_env/cli.py")
    assert not skipped("docs.md")
