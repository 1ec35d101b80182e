"""Forty Thieves solvability at several time budgets from one run (the anytime schedule).

Run (from the repository root):

    python benchmarks/ft_solvability_times.py --seeds 0-499 --seconds 20 --workers 2 --out ft_cov.json
    python benchmarks/ft_solvability_times.py --report ft_cov.json --at 1,5,20

Each deal (FT1-N seed, default rules) is solved with ``solve_fortythieves(max_seconds=S)`` and
an unbounded node budget, in worker processes (each warms numba up first).  With a time budget
the solver runs its anytime schedule, whose sequence of searches does not depend on the budget:
a deal decided after ``t`` seconds in this run is decided by any run with a budget above ``t``.
So one run at 20 s gives the shares at 1 s and 5 s too: a deal counts as decided at ``b`` seconds
when its search ended with a verdict in at most ``b`` seconds.  (The clock is read between
slices of the search, so a verdict can come a few milliseconds after a deadline; ``--at``
budgets are compared with the recorded time as is.)

The report gives, per budget, the solved, unsolvable and intractable counts with Wilson 95 %
intervals, and the bracket ``[solved, solved + intractable]`` that solvability lies in.
``--out`` keeps every deal's record (seed, code, status, seconds, nodes, best, widest beam).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any


def _solve(args: tuple[int, float]) -> dict[str, Any]:
    from solitaire_env.fortythieves.deal import FortyThievesDeal
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.fortythieves.solver import solve_fortythieves

    seed, seconds = args
    deal = FortyThievesDeal.from_seed(seed)
    result = solve_fortythieves(FortyThievesGame(deal), max_nodes=2**62, max_seconds=seconds)
    return {
        "seed": seed,
        "code": deal.name,
        "status": result.status,
        "seconds": round(result.seconds, 4),
        "nodes": result.nodes,
        "best": result.best,
        "beam_width": result.extra.get("beam_width"),
        "stop": result.extra.get("stop"),
    }


def _warm(_: int) -> None:
    from solitaire_env.fortythieves.deal import FortyThievesDeal
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.fortythieves.solver import solve_fortythieves

    game = FortyThievesGame(FortyThievesDeal.from_seed(0))
    solve_fortythieves(game, max_nodes=3000)  # the node schedule reaches the beam: every kernel loads
    solve_fortythieves(game, max_seconds=0.05)


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def report(records: list[dict[str, Any]], budgets: list[float]) -> str:
    from solitaire_env.common.statistics import wilson

    n = len(records)
    lines = [f"{n} deals; share [Wilson 95 %]"]
    for b in budgets:
        solved = sum(r["status"] == "solved" and r["seconds"] <= b for r in records)
        lost = sum(r["status"] == "unsolvable" and r["seconds"] <= b for r in records)
        open_ = n - solved - lost
        parts = []
        for name, k in (("solved", solved), ("unsolvable", lost), ("intractable", open_)):
            lo, hi = wilson(k, n)
            parts.append(f"{name} {k} ({k / n:.1%} [{lo:.1%}, {hi:.1%}])")
        lines.append(
            f"at {b:g} s: " + ", ".join(parts) + f"; solvable in [{solved / n:.1%}, {(solved + open_) / n:.1%}]"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-499", help="FT1-N seeds, 'A-B' inclusive (default 0-499)")
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget per deal (default 20)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="write every deal's record here (JSON)")
    parser.add_argument("--report", type=Path, help="only report on a file written by --out")
    parser.add_argument("--at", default="1,5,20", help="budgets to report, seconds (default 1,5,20)")
    args = parser.parse_args(argv)
    budgets = [float(x) for x in args.at.split(",")]
    if args.report:
        print(report(json.loads(args.report.read_text())["deals"], budgets))
        return
    seeds = _seeds(args.seeds)
    start = time.time()
    records: list[dict[str, Any]] = []
    with mp.get_context("spawn").Pool(args.workers) as pool:
        pool.map(_warm, range(args.workers))
        for i, record in enumerate(pool.imap(_solve, [(s, args.seconds) for s in seeds]), 1):
            records.append(record)
            print(
                f"{i}/{len(seeds)} seed {record['seed']}: {record['status']} {record['seconds']:.2f} s", file=sys.stderr
            )
            if args.out and i % 10 == 0:
                args.out.write_text(json.dumps({"seconds": args.seconds, "deals": records}))
    if args.out:
        args.out.write_text(json.dumps({"seconds": args.seconds, "workers": args.workers, "deals": records}, indent=0))
    print(report(records, [b for b in budgets if b <= args.seconds]))
    print(f"wall {time.time() - start:.0f} s, {args.workers} workers")


if __name__ == "__main__":
    main()
