"""The documentation site's generated pages and examples (``mkdocs.yml``, ``docs/hooks/reference.py``).

The API reference has one entry for every name of ``solitaire_env.__all__`` and
``agents.__all__``, each pointing at the object the package offers; the CLI reference has a
section for every verb; the Python blocks of docs/index.md and docs/getting_started.md run as
files; the version is 1.0.0 in the package, in pyproject.toml and in ``solitaire-env --version``.  (The build itself,
``mkdocs build --strict``, runs in ``scripts/test.sh``.)
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import agents
import solitaire_env
from solitaire_env.cli import VERBS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GETTING_STARTED = DOCS / "getting_started.md"
#: The pages whose Python blocks run as tests.
EXAMPLE_PAGES = (DOCS / "index.md", GETTING_STARTED)


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M)


BLOCKS = python_blocks(GETTING_STARTED)
EXAMPLES = [(page.name, i, block) for page in EXAMPLE_PAGES for i, block in enumerate(python_blocks(page))]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOK = _hook()


def test_mkdocs_yml_runs_the_hook_and_lists_the_references() -> None:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "docs/hooks/reference.py" in text
    assert "cli.md" in text and "reference/api.md" in text
    assert HOOK.CLI_MARKER in (DOCS / "cli.md").read_text(encoding="utf-8")
    assert HOOK.API_MARKER in (DOCS / "reference" / "api.md").read_text(encoding="utf-8")


def _resolve(path: str) -> object:
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            value = getattr(value, part)
        return value
    raise ImportError(path)


@pytest.mark.parametrize("package", [solitaire_env, agents], ids=lambda m: m.__name__)
def test_the_api_reference_has_every_public_name(package: ModuleType) -> None:
    entries = re.findall(r'^::: (\S+)\n    options:\n      heading: "([\w.]+)"', HOOK.api_markdown(), flags=re.M)
    paths = {heading: path for path, heading in entries}
    for name in package.__all__:
        path = paths.get(f"{package.__name__}.{name}")
        assert path is not None, f"{package.__name__}.{name} has no entry"
        value = getattr(package, name)
        documented = _resolve(path)  # the entry documents the very object the package offers
        assert documented is value or documented == value, (name, path)


def test_the_api_reference_names_only_public_names() -> None:
    headings = re.findall(r'^      heading: "([\w.]+)"', HOOK.api_markdown(), flags=re.M)
    public = {f"{p.__name__}.{n}" for p in (solitaire_env, agents) for n in p.__all__}
    assert sorted(headings) == sorted(public)


def test_the_cli_reference_has_every_verb_and_option() -> None:
    text = HOOK.cli_markdown()
    for name in VERBS:
        assert f"## `solitaire-env {name}` {{#{name}}}" in text, name
    assert "`--max-nodes N`" in text and "`--version`" in text
    assert "--help" not in re.sub(r"```text\n.*?```", "", text, flags=re.S)  # -h is left out


def test_getting_started_is_small_and_has_examples() -> None:
    assert GETTING_STARTED.stat().st_size <= 8 * 1024
    assert len(BLOCKS) >= 4
    text = "\n".join(BLOCKS)
    for call in ("gym.make", "deal_code", "action_masks", "hint(", "solve(", "make_agent(", "evaluate("):
        assert call in text, call
    assert "FortyThieves" in text or 'ENV_IDS["fortythieves"]' in text


@pytest.mark.parametrize(("page", "index", "code"), EXAMPLES, ids=[f"{p}-{i}" for p, i, _ in EXAMPLES])
def test_a_python_block_of_the_docs_runs_as_a_file(page: str, index: int, code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_version_is_1_0_0_everywhere() -> None:
    assert solitaire_env.__version__ == "1.0.0"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r'^version = "(.*)"$', pyproject, flags=re.M) == [solitaire_env.__version__]
    done = subprocess.run(
        [sys.executable, "-m", "solitaire_env", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "solitaire-env 1.0.0", done


def test_the_words_stay_within_their_budgets() -> None:
    """README.md is one screen (at most 12 KB) and the docs' Markdown at most 200 KB in all: a
    page that grows past them is a page to cut, not a budget to raise."""
    assert (ROOT / "README.md").stat().st_size <= 12_000
    total = sum(page.stat().st_size for page in DOCS.rglob("*.md"))
    assert total <= 200_000, f"docs/ holds {total} bytes of Markdown"
