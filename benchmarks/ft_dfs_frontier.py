"""Where the Forty Thieves depth-first search spends its nodes: the stock position, empty
columns and depth of its frontier, sampled between slices.

Run (from the repository root):

    python benchmarks/ft_dfs_frontier.py --seeds 3,7,8,9 --seconds 5

For each deal (FT1-N seed, default rules) the solver's resumable depth-first search runs alone
(no beam) in slices of ``--slice`` positions; after each slice the position on top of its stack
is read.  The report gives, per deal, the status, the positions expanded, the most cards founded,
and histograms of the sampled stock positions (in bins of 8 cards drawn) and empty columns.
"""

from __future__ import annotations

import argparse
import collections
import time

from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves import solver as S
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame


def frontier(seed: int, seconds: float, slice_nodes: int) -> dict[str, object]:
    search = S.DepthFirst(FortyThievesGame(FortyThievesDeal.from_seed(seed)))
    drawn: collections.Counter[int] = collections.Counter()
    empty: collections.Counter[int] = collections.Counter()
    depths: list[int] = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds and search.status == K.RUNNING:
        search.run(slice_nodes, None)
        sc = search.sa.sc
        drawn[int(sc[K.S_POS]) // 8 * 8] += 1
        empty[bin(int(sc[K.S_EMPTY])).count("1")] += 1
        depths.append(int(sc[K.S_DEPTH]))
    return {
        "seed": seed,
        "status": int(search.status),
        "nodes": search.nodes,
        "best": search.best()[0],
        "drawn": sorted(drawn.items()),
        "empty_columns": sorted(empty.items()),
        "median_depth": sorted(depths)[len(depths) // 2] if depths else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="3,7,8,9", help="comma-separated FT1-N seeds")
    parser.add_argument("--seconds", type=float, default=5.0, help="search time a deal")
    parser.add_argument("--slice", type=int, default=20_000, help="positions between two samples")
    args = parser.parse_args()
    frontier(0, 0.1, 1000)  # compile the kernels before the clock counts
    for seed in (int(s) for s in args.seeds.split(",")):
        print(frontier(seed, args.seconds, args.slice))


if __name__ == "__main__":
    main()
