"""A solvability run that writes one JSON line a deal as it finishes, and resumes.

``solitaire-env solve --deals N --out runs.jsonl`` writes a first line that records the run's
settings (``{"run": ...}``: game, rule, rule options, seed, deals, budget), then one line per
deal in the order the deals finish: ``index`` (its place among the run's codes), ``code``,
``status``, ``stopped_by``, ``line``, ``nodes``, ``best`` and ``seconds``.  Each line is flushed
when written, so a run that is stopped loses at most the deals being solved.

Run the same command again and it reads the file, keeps every complete line, drops a last line
cut off by the stop, and solves only the deals that are not in it: no deal is lost or done
twice.  The deals are solved in local processes or on Ray (``--backend ray``), with the same
rows.  A file that records a run with other settings is refused with one clear error (nothing
is written to it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from solitaire_env.common.backends import Chunk, import_ray, run_local, run_ray
from solitaire_env.solvability import DealResult, SolvabilityRun, solve_code, warm_up

__all__ = ["RunFileError", "SolveWorker", "read_run_file", "run_settings", "solve_to_file"]


class RunFileError(ValueError):
    """An ``--out`` file that cannot be resumed: another run's settings, or lines that are not
    this run's rows."""


def run_settings(run: SolvabilityRun) -> dict[str, Any]:
    """What a run file's first line records: everything that decides the rows (not the workers)."""
    budget = run.budget
    return {
        "game": run.game,
        "rule": run.rule,
        "rules": run.rules,
        "seed": run.seed,
        "deals": run.deals,
        "max_nodes": run.max_nodes,
        "max_seconds": run.max_seconds,
        "budget": budget.describe(),  # the default budget too, should it change between versions
    }


def read_run_file(path: str | Path, run: SolvabilityRun) -> dict[int, DealResult]:
    """The rows already in ``path`` for ``run``, by index (empty when the file does not exist or
    is empty).  A last line without its newline (a write cut off by a stop) is dropped from the
    file.  Raises :class:`RunFileError` for another run's file or a line that is not a row."""
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return {}
    text = p.read_text(encoding="utf-8")
    complete = text if text.endswith("\n") else text[: text.rfind("\n") + 1]
    lines = complete.splitlines()
    if not lines:
        p.write_text("", encoding="utf-8")
        return {}
    try:
        head = json.loads(lines[0])["run"]
    except (ValueError, KeyError, TypeError):
        raise RunFileError(f"{path} is not a solve run file (its first line is not a run record)") from None
    want = run_settings(run)
    if head != want:
        diff = ", ".join(f"{k} {head.get(k)!r} (this run: {v!r})" for k, v in want.items() if head.get(k) != v)
        raise RunFileError(f"{path} holds a run with other settings: {diff}; give another --out")
    codes = run.codes()
    rows: dict[int, DealResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            d = json.loads(line)
            index = int(d.pop("index"))
            row = DealResult(**{**d, "line": tuple(d["line"])})
        except (ValueError, KeyError, TypeError):
            raise RunFileError(f"{path} line {number} is not a deal row") from None
        if not 0 <= index < len(codes) or codes[index] != row.code:
            raise RunFileError(f"{path} line {number}: deal {index} is not {row.code} in this run")
        rows[index] = row
    if complete != text:
        p.write_text(complete, encoding="utf-8")
    return rows


class SolveWorker:
    """A backend worker (:mod:`solitaire_env.common.backends`) that solves each deal of a chunk
    under one run's budget and rule options; ``setup`` is the :class:`SolvabilityRun`."""

    def __init__(self, setup: SolvabilityRun) -> None:
        self.run = setup
        warm_up(setup.codes()[0], setup.rules or None)

    def play(self, chunk: Chunk) -> list[tuple[int, DealResult]]:
        run = self.run
        return [(i, solve_code(code, run.max_nodes, run.rules or None, run.max_seconds)) for i, code in chunk]

    def close(self) -> None:
        pass


def solve_to_file(
    run: SolvabilityRun,
    path: str | Path,
    *,
    progress: bool = False,
    backend: str = "process",
    address: str | None = None,
) -> list[DealResult]:
    """Solve the run's deals that ``path`` does not hold yet, appending a line each as it
    finishes (see the module docstring); returns every row of the run, in the codes' order.

    ``backend="process"``: ``run.workers`` local processes (1: this process); ``"ray"``: Ray
    actors, on the cluster at ``address`` (default: ``RAY_ADDRESS`` or a local Ray), at most
    ``run.workers`` of them.  The rows are the same on every backend.  The progress bar shows
    the share decided (solved or proved lost) so far."""
    if backend not in ("process", "ray"):
        raise ValueError(f"backend must be 'process' or 'ray', got {backend!r}")
    if backend == "ray":
        import_ray()  # a missing ray fails before anything is written
    done = read_run_file(path, run)
    codes = run.codes()
    work: list[Chunk] = [[(i, c)] for i, c in enumerate(codes) if i not in done]
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if not done and (not p.exists() or p.stat().st_size == 0):
        p.write_text(json.dumps({"run": run_settings(run)}) + "\n", encoding="utf-8")
    decided = sum(r.status != "intractable" for r in done.values())
    bar = tqdm(total=len(codes), initial=len(done), unit="deal", desc="solving", file=sys.stderr, disable=not progress)
    try:
        with open(p, "a", encoding="utf-8") as out:

            def on_chunk(rows: list[tuple[int, DealResult]]) -> None:
                nonlocal decided
                for index, row in rows:
                    out.write(json.dumps({"index": index, **row.to_dict()}) + "\n")
                    out.flush()
                    done[index] = row
                    decided += row.status != "intractable"
                    bar.update(1)
                bar.set_postfix_str(f"decided {100 * decided / len(done):.1f}%")

            if work and backend == "ray":
                run_ray(run, work, run.workers, on_chunk, address=address, worker_class=SolveWorker)
            elif work:
                run_local(run, work, max(1, min(run.workers, len(work))), on_chunk, worker_class=SolveWorker)
    finally:
        bar.close()
    return [done[i] for i in range(len(codes))]
