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
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tqdm import tqdm

from solitaire_env.common.deals import GameCode, GameName, draw_codes, parse_deal_code
from solitaire_env.common.result import Status
from solitaire_env.common.statistics import wilson
from solitaire_env.games import code_letter, make_game

__all__ = [
    "STATUSES",
    "DealResult",
    "counts",
    "default_budget",
    "default_workers",
    "draw_codes",
    "make_game",
    "solvability",
    "solve_code",
    "summary",
    "summary_table",
    "warm_up",
    "wilson",
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

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["line"] = list(self.line)
        return out


def solve_code(code: str, max_nodes: int | None = None, rules: dict[str, Any] | None = None) -> DealResult:
    """Solve the deal of one code (in this process)."""
    from solitaire_env.solving import solve

    result = solve(make_game(code, rules), max_nodes=max_nodes)
    return DealResult(code, result.status, result.nodes, result.best, result.seconds, result.line)


def warm_up(code: str, rules: dict[str, Any] | None = None) -> None:
    """Load the compiled solver (numba's cache: about a second) before any timed solve."""
    from solitaire_env.solving import solve

    solve(make_game(code, rules), max_nodes=1)


def _solve_task(task: tuple[str, int | None, dict[str, Any] | None]) -> DealResult:
    return solve_code(*task)


def default_budget(game: GameCode | GameName) -> int:
    """The node budget each game's solver uses when none is given (``game`` by code letters or name)."""
    if code_letter(game) == "TP":
        from solitaire_env.tripeaks.solver import DEFAULT_MAX_NODES
    else:
        from solitaire_env.fortythieves.solver import DEFAULT_MAX_NODES
    return int(DEFAULT_MAX_NODES)


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
) -> list[DealResult]:
    """Solve every code; the rows come back in the order of ``codes``.

    ``workers`` processes (default :func:`default_workers`; 1 solves in this process),
    ``max_nodes`` per deal (default: each game's solver's own budget), ``progress`` shows a
    tqdm bar on stderr, ``rules`` are extra rule options (see :func:`make_game`).
    """
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes!r}")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    codes = [str(parse_deal_code(c)) for c in codes]
    if not codes:
        return []
    make_game(codes[0], rules)  # bad rule options fail here, in one clear error, not in a worker
    workers = max(1, min(workers, len(codes)))
    tasks = [(code, max_nodes, rules) for code in codes]
    bar = tqdm(total=len(codes), unit="deal", desc="solving", file=sys.stderr, disable=not progress, smoothing=0.05)
    try:
        if workers == 1:
            warm_up(codes[0], rules)
            return _collect(map(_solve_task, tasks), bar)
        chunk = max(1, min(32, len(tasks) // (workers * 16)))
        with multiprocessing.get_context().Pool(workers, initializer=warm_up, initargs=(codes[0], rules)) as pool:
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
