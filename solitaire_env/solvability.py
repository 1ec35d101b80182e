"""Solvability statistics: solve many deal codes in worker processes and tabulate the verdicts.

The library half of ``solitaire-env solve --deals N`` (the command line only parses and prints):

- :func:`draw_codes` (defined in :mod:`solitaire_env.common.deals`, re-exported here): N deal codes
  from a seed, drawn by :func:`solitaire_env.common.deals.random_code` from
  ``numpy.random.default_rng(seed)`` (the top 35 bits of one raw PCG64 draw per code), the same
  draw an env makes on ``reset(seed=seed)``: the first code of seed S is the code of
  ``env.reset(seed=S)``.  Code k of a seed never depends on N, so the first 1000 codes of seed 0
  are the same in any run that draws >= 1000.
- :func:`make_game` (defined in :mod:`solitaire_env.games`, re-exported here): the rules-core
  game of a code under extra rule options.
- :func:`solvability`: solve each code (:func:`solitaire_env.solve`, the oracle with full
  information) in a :class:`multiprocessing.pool.Pool` of worker processes, with a tqdm bar.
- :func:`summary_table`: solved / unsolvable / intractable counts, each share with its 95%
  Wilson score interval (:func:`solitaire_env.common.statistics.wilson`, re-exported here), mean and
  max nodes, mean solver time per deal.
- :class:`SolvabilityRun`: the settings of one run (game, rule, N codes from a seed, extra rule
  options, budget, workers): its codes, the lines that describe it, the solving (timed) and
  the JSON it records; :func:`write_results_json` writes that JSON (and the one row of a
  single ``solve --json``), one per-deal row a line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from solitaire_env.common.budget import NO_NODE_LIMIT, Budget, StoppedBy, search_budget
from solitaire_env.common.deals import GameCode, draw_codes, parse_deal_code
from solitaire_env.common.pool import process_pool
from solitaire_env.common.result import Status
from solitaire_env.common.statistics import wilson
from solitaire_env.dealing import make_game
from solitaire_env.games import game_spec

if TYPE_CHECKING:
    from solitaire_env.common.result import SolveResult

__all__ = [
    "STATUSES",
    "DealResult",
    "SolvabilityRun",
    "counts",
    "default_workers",
    "draw_codes",
    "make_game",
    "solvability",
    "solve_code",
    "summary",
    "summary_table",
    "warm_up",
    "wilson",
    "write_results_json",
]

#: The verdicts, in the order the table lists them.
STATUSES: tuple[Status, ...] = ("solved", "unsolvable", "intractable")


@dataclass(frozen=True)
class DealResult:
    """One row of a solvability run: a :class:`~solitaire_env.common.result.SolveResult` and its code."""

    code: str
    status: Status
    nodes: int
    best: int
    seconds: float
    line: tuple[int, ...] = ()
    stopped_by: StoppedBy | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    @classmethod
    def of(cls, code: str, result: SolveResult) -> DealResult:
        """The row of ``result``, the solver's answer for the deal named ``code``."""
        return cls(code, result.status, result.nodes, result.best, result.seconds, result.line, result.stopped_by)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["line"] = list(self.line)
        return out


def solve_code(
    code: str, max_nodes: int | None = None, rules: dict[str, Any] | None = None, max_seconds: float | None = None
) -> DealResult:
    """Solve the deal of one code (in this process)."""
    from solitaire_env.solving import solve

    return DealResult.of(code, solve(make_game(code, rules), max_nodes=max_nodes, max_seconds=max_seconds))


def warm_up(code: str, rules: dict[str, Any] | None = None) -> None:
    """Load the compiled solver (numba's cache: about a second) before any timed solve."""
    from solitaire_env.solving import solve

    solve(make_game(code, rules), max_nodes=game_spec(code[:2]).plugin.WARM_UP_NODES)


def _solve_task(task: tuple[str, int | None, dict[str, Any] | None, float | None]) -> DealResult:
    return solve_code(*task)


def default_workers() -> int:
    """All cores: ``os.cpu_count()`` (1 if unknown)."""
    return os.cpu_count() or 1


def solvability(
    codes: Sequence[str],
    *,
    max_nodes: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    rules: dict[str, Any] | None = None,
    max_seconds: float | None = None,
) -> list[DealResult]:
    """Solve every code; the rows come back in the order of ``codes``.

    ``workers`` processes (default :func:`default_workers`; 1 solves in this process),
    ``max_nodes`` and ``max_seconds`` per deal (:mod:`solitaire_env.common.budget`: one alone is
    the only limit, both: the first spent; neither: the default node budget), ``progress`` shows
    a tqdm bar on stderr, ``rules`` are extra rule options (see :func:`make_game`).
    """
    search_budget(max_nodes, max_seconds)  # a bad budget fails here, not in a worker
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    codes = [str(parse_deal_code(c)) for c in codes]
    if not codes:
        return []
    make_game(codes[0], rules)  # bad rule options fail here, in one clear error, not in a worker
    workers = max(1, min(workers, len(codes)))
    tasks = [(code, max_nodes, rules, max_seconds) for code in codes]
    bar = tqdm(total=len(codes), unit="deal", desc="solving", file=sys.stderr, disable=not progress, smoothing=0.05)
    try:
        if workers == 1:
            warm_up(codes[0], rules)
            return _collect(map(_solve_task, tasks), bar)
        chunk = max(1, min(32, len(tasks) // (workers * 16)))
        with process_pool(workers, initializer=warm_up, initargs=(codes[0], rules)) as pool:
            return _collect(pool.imap(_solve_task, tasks, chunksize=chunk), bar)
    finally:
        bar.close()


def _collect(results: Iterable[DealResult], bar: tqdm[Any]) -> list[DealResult]:
    rows = []
    for row in results:
        rows.append(row)
        bar.update(1)
    return rows


def counts(rows: Sequence[DealResult]) -> dict[Status, int]:
    """How many rows have each verdict."""
    out: dict[Status, int] = dict.fromkeys(STATUSES, 0)
    for row in rows:
        out[row.status] += 1
    return out


def summary(rows: Sequence[DealResult], z: float = 1.96) -> dict[str, Any]:
    """The figures of :func:`summary_table`, as a dict (what ``--json`` stores beside the rows)."""
    n = len(rows)
    out: dict[str, Any] = {"deals": n}
    for status, k in counts(rows).items():
        lo, hi = wilson(k, n, z)
        group = [r for r in rows if r.status == status]
        out[status] = {
            "count": k,
            "share": k / n if n else 0.0,
            "ci95": [lo, hi],
            "mean_nodes": sum(r.nodes for r in group) / k if k else None,
            "max_nodes": max((r.nodes for r in group), default=None),
            "mean_ms": 1000 * sum(r.seconds for r in group) / k if k else None,
        }
    out["mean_nodes"] = sum(r.nodes for r in rows) / n if n else None
    out["max_nodes"] = max((r.nodes for r in rows), default=None)
    out["mean_ms"] = 1000 * sum(r.seconds for r in rows) / n if n else None
    return out


def summary_table(rows: Sequence[DealResult], *, wall_seconds: float | None = None, z: float = 1.96) -> str:
    """A text table: one line per verdict (count, share, 95% Wilson interval, mean and max nodes,
    mean solver ms per deal) and the total; then the wall time, if given."""
    s = summary(rows, z)
    n = s["deals"]
    head = ("verdict", "deals", "share", "95% CI (Wilson)", "mean nodes", "max nodes", "mean ms")
    lines = [head]

    def fmt(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    for status in STATUSES:
        d = s[status]
        lo, hi = d["ci95"]
        lines.append(
            (
                status,
                str(d["count"]),
                f"{100 * d['share']:.2f}%",
                f"[{100 * lo:.2f}%, {100 * hi:.2f}%]",
                fmt(d["mean_nodes"], ",.0f"),
                fmt(d["max_nodes"], ","),
                fmt(d["mean_ms"], ".2f"),
            )
        )
    total = ("all", str(n), "100.00%" if n else "-", "")
    lines.append((*total, fmt(s["mean_nodes"], ",.0f"), fmt(s["max_nodes"], ","), fmt(s["mean_ms"], ".2f")))
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    text = []
    for i, row in enumerate(lines):
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        text.append("  ".join(cells).rstrip())
        if i == 0:
            text.append("  ".join("-" * w for w in widths))
    if wall_seconds is not None:
        text.append(f"wall time {wall_seconds:.1f} s ({1000 * wall_seconds / n if n else 0:.2f} ms per deal)")
    return "\n".join(text) + "\n"


@dataclass(frozen=True)
class SolvabilityRun:
    """One run of ``solve --deals N``: ``deals`` codes of ``game`` under ``rule`` drawn from
    ``seed`` (:func:`draw_codes`), solved under the extra rule options ``rules`` with
    ``max_nodes`` and ``max_seconds`` per deal (:mod:`solitaire_env.common.budget`) in
    ``workers`` processes."""

    game: GameCode
    rule: str
    deals: int
    seed: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    max_nodes: int | None = None
    workers: int = field(default_factory=default_workers)
    max_seconds: float | None = None

    @property
    def budget(self) -> Budget:
        """The budget per deal."""
        return search_budget(self.max_nodes, self.max_seconds)

    @property
    def processes(self) -> int:
        """The worker processes the run uses (never more than its deals)."""
        return min(self.workers, self.deals)

    def codes(self) -> list[str]:
        """The run's deal codes, in order."""
        return draw_codes(self.deals, self.seed, self.game, self.rule)

    def header(self, codes: Sequence[str]) -> str:
        """Two lines: the game, rules and options; the codes, where they come from, the budget
        and the workers."""
        spec = game_spec(self.game)
        named = len(spec.letter_names) > 1  # a game with one rule letter does not name it
        what = spec.title + (f", rules {self.rule}: {spec.letter_names[self.rule]}" if named else "")
        if self.rules:
            what += "; " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.rules.items())
        return (
            f"{what}\n{self.deals} deals: codes {codes[0]}{' ...' if len(codes) > 1 else ''} drawn from numpy "
            f"default_rng({self.seed}) by random_code; budget {self.budget.describe()} per deal; "
            f"{self.processes} worker process(es)\n"
        )

    def solve(self, codes: Sequence[str], *, progress: bool = False) -> tuple[list[DealResult], float]:
        """Solve ``codes`` (:func:`solvability`): the rows and the wall time in seconds."""
        start = time.perf_counter()
        rows = solvability(
            codes,
            max_nodes=self.max_nodes,
            workers=self.workers,
            progress=progress,
            rules=self.rules,
            max_seconds=self.max_seconds,
        )
        return rows, time.perf_counter() - start

    def to_json(self, rows: Sequence[DealResult], wall_seconds: float) -> dict[str, Any]:
        """What ``--json`` records of the run: its settings, :func:`summary` and every row."""
        return {
            "game": self.game,
            "rule": self.rule,
            "rules": self.rules,
            "seed": self.seed,
            "deals": self.deals,
            "codes_from": f"numpy.random.default_rng({self.seed}) + solitaire_env.common.deals.random_code",
            "max_nodes": self.budget.nodes if self.budget.nodes < NO_NODE_LIMIT else None,
            "max_seconds": self.max_seconds,
            "workers": self.processes,
            "wall_seconds": wall_seconds,
            "summary": summary(rows),
            "results": [row.to_dict() for row in rows],
        }


def write_results_json(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` as JSON, one key a line and one per-deal row (``data["results"]``)
    a line, making missing parent folders."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n")
        for key, value in data.items():
            if key != "results":
                f.write(f" {json.dumps(key)}: {json.dumps(value)},\n")
        rows = ",\n".join(f"  {json.dumps(row)}" for row in data["results"])
        f.write(f' "results": [\n{rows}\n ]\n}}\n')
