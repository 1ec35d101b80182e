"""How many Forty Thieves deals the solver wins, proves lost or gives up on.

Solves the deals FT1-N of seeds ``--seed`` .. ``--seed + --deals - 1`` with
:func:`solitaire_env.fortythieves.solver.solve_fortythieves` (full information: the solver reads
the stock) in ``--workers`` processes, and prints each verdict's count and share with a 95%
Wilson interval, the mean nodes and seconds per deal and the wall time.

    python scripts/ft_solvability.py --deals 200 --seed 0 --workers 2
"""

from __future__ import annotations

import argparse
import math
import time
from multiprocessing import Pool

from tqdm import tqdm

from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.solver import DEFAULT_MAX_NODES, solve_fortythieves

VERDICTS = ("solved", "unsolvable", "intractable")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of the share ``k / n`` (``z = 1.96``: 95%)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def solve_seed(job: tuple[int, int]) -> tuple[int, str, int, int, float]:
    """``(seed, status, nodes, best, seconds)`` of one deal."""
    seed, max_nodes = job
    result = solve_fortythieves(FortyThievesGame(FortyThievesDeal.from_seed(seed)), max_nodes=max_nodes)
    return seed, result.status, result.nodes, result.best, result.seconds


def table(rows: list[tuple[int, str, int, int, float]]) -> str:
    n = len(rows)
    lines = [f"{'verdict':<12} {'deals':>6} {'share':>7}  {'95% CI (Wilson)':<17} {'mean nodes':>10} {'mean s':>7}"]
    for verdict in VERDICTS:
        mine = [r for r in rows if r[1] == verdict]
        k = len(mine)
        lo, hi = wilson(k, n)
        nodes = sum(r[2] for r in mine) / k if k else 0.0
        secs = sum(r[4] for r in mine) / k if k else 0.0
        lines.append(f"{verdict:<12} {k:>6} {k / n:>7.1%}  [{lo:>6.1%}, {hi:>6.1%}]  {nodes:>10.0f} {secs:>7.2f}")
    lines.append(
        f"{'all':<12} {n:>6} {1:>7.1%}  {'':<17} {sum(r[2] for r in rows) / n:>10.0f} "
        f"{sum(r[4] for r in rows) / n:>7.2f}"
    )
    lines.append(f"mean cards founded (best line): {sum(r[3] for r in rows) / n:.1f} of 104")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="number of deals (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    parser.add_argument(
        "--max-nodes", type=int, default=DEFAULT_MAX_NODES, help=f"node budget per deal (default {DEFAULT_MAX_NODES})"
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.workers < 1 or args.max_nodes < 0 or args.seed < 0:
        parser.error("--deals and --workers must be >= 1, --max-nodes and --seed >= 0")
    jobs = [(seed, args.max_nodes) for seed in range(args.seed, args.seed + args.deals)]
    start = time.perf_counter()
    rows: list[tuple[int, str, int, int, float]] = []
    with Pool(args.workers) as pool:
        for row in tqdm(pool.imap_unordered(solve_seed, jobs), total=len(jobs), desc="solving", unit="deal"):
            rows.append(row)
    wall = time.perf_counter() - start
    rows.sort()
    print(
        f"Forty Thieves FT1-N seeds {args.seed}..{args.seed + args.deals - 1}, "
        f"max_nodes={args.max_nodes}, {args.workers} workers"
    )
    print(table(rows))
    print(f"wall time {wall:.1f} s")


if __name__ == "__main__":
    main()
