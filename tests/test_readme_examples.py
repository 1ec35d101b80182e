"""README's Python examples, saved as files and run with ``python file.py``: as written, and with
their ``if __name__ == "__main__":`` guards taken out (a newcomer's copy).  Guarded, each one
finishes; unguarded, each one finishes or fails within seconds with the pool's one line naming the
fix, never hangs (the process pool spawns its workers, which re-import the main script)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from solitaire_env.common.pool import WORKER_START_MESSAGE

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M)
GUARD = re.compile(r'^if __name__ == "__main__":.*\n((?:    .*\n|\n)+)', re.M)


def unguarded(code: str) -> str:
    """The code with each ``if __name__ == "__main__":`` block's body moved to the top level."""
    return GUARD.sub(lambda m: textwrap.dedent(m.group(1)), code)


def run(code: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return done, time.perf_counter() - start


def test_readme_has_python_examples_and_the_guard_is_removable() -> None:
    assert len(BLOCKS) >= 2
    guarded = [b for b in BLOCKS if "__main__" in b]
    assert guarded, "the example that starts worker processes carries the guard"
    assert all("__main__" not in unguarded(b) for b in guarded)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_readme_example_runs_as_a_file(index: int, tmp_path: Path) -> None:
    done, _ = run(BLOCKS[index], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("index", [i for i, b in enumerate(BLOCKS) if "__main__" in b])
def test_an_unguarded_readme_example_fails_fast_with_the_fix(index: int, tmp_path: Path) -> None:
    done, seconds = run(unguarded(BLOCKS[index]), tmp_path)
    if done.returncode != 0:  # with one CPU the default is one worker, and the example finishes
        assert done.stderr.strip().splitlines()[-1].endswith(WORKER_START_MESSAGE), done.stderr[-2000:]
    assert seconds < 120, seconds
