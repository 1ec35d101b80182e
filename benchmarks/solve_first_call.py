"""The TriPeaks solver's first call on a deal against its second call on the same deal.

A solvability run only ever makes first calls, so a first call that costs more than a second
one is a cost every run pays.  Each round takes fresh deal codes (never solved before in this
process), and for each deal times ``solitaire_env.solve(game)`` twice in a row: the first call,
then the second call on the same game.  The kernels are loaded (and the tables allocated) by
a warm-up on other deals first; the warm-up's very first call, the process's one-off cost
(numba's own start-up, loading the cached kernel; numba is imported before it), is printed
on its own.

Each round also solves the same deals (first calls again, in alternating order) with the
middle transposition table switched off, which is how the solver searched before it had one
(128 KB, then straight to 32 MB): the ratio of the two is what the middle table gains.

Printed: per round the mean first and second times per deal, first/second, and the time
without the middle table; then medians over the rounds.

    python benchmarks/solve_first_call.py [--rounds 7] [--deals 65] [--rule E] [--seed 1000]

``--check FILE`` also writes every first call's (code, status, nodes, best, line) as JSON lines,
for comparing verdicts and node counts between two versions of the solver.  Every round
checks that both calls and the search without the middle table agree on status, nodes and line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np

import solitaire_env
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks import solver as tripeaks


def _timed(games: list[Any], no_mid: bool) -> tuple[float, list[Any]]:
    """Solve every game once; the seconds and the results.  ``no_mid``: without the middle table."""
    tripeaks._Table.next()  # make sure the tables exist before swapping one
    mid = tripeaks._Table.mid
    if no_mid:
        tripeaks._Table.mid = np.zeros(1, dtype=np.int64)  # no larger than the small table: skipped
    try:
        start = time.perf_counter()
        results = [solitaire_env.solve(game) for game in games]
        return time.perf_counter() - start, results
    finally:
        tripeaks._Table.mid = mid


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--deals", type=int, default=65)
    parser.add_argument("--rule", default="E", choices=["E", "C"])
    parser.add_argument("--seed", type=int, default=1000, help="seed of the codes (round r uses seed + r)")
    parser.add_argument("--check", help="write each first call's result here (JSON lines)")
    args = parser.parse_args()

    warm = [make_game(code) for code in draw_codes(20, 999, "TP", args.rule)]
    t = time.perf_counter()
    solitaire_env.solve(warm[0])
    print(f"the process's first solve (one-off; numba was imported before): {1000 * (time.perf_counter() - t):.0f} ms")
    for game in warm:  # warm-up: both table layouts, first and second calls
        _timed([game, game], no_mid=False)
        _timed([game, game], no_mid=True)

    rows: list[str] = []  # --check: one JSON line per first call
    firsts: list[float] = []
    seconds: list[float] = []
    no_mids: list[float] = []
    ratios: list[float] = []
    gains: list[float] = []
    for r in range(args.rounds):
        codes = draw_codes(args.deals, args.seed + r, "TP", args.rule)
        games = [make_game(code) for code in codes]
        # the other layout first on odd rounds; its calls are first calls too (own tables)
        if r % 2:
            t_no_mid, plain = _timed([make_game(code) for code in codes], no_mid=True)
        t_first = t_second = 0.0
        for code, game in zip(codes, games):
            t = time.perf_counter()
            first = solitaire_env.solve(game)
            t_first += time.perf_counter() - t
            t = time.perf_counter()
            second = solitaire_env.solve(game)
            t_second += time.perf_counter() - t
            assert (first.status, first.nodes, first.line) == (second.status, second.nodes, second.line), code
            row = {"code": code, "status": first.status, "nodes": first.nodes, "best": first.best}
            rows.append(json.dumps({**row, "line": list(first.line)}) + "\n")
        if r % 2 == 0:
            t_no_mid, plain = _timed([make_game(code) for code in codes], no_mid=True)
        again = [solitaire_env.solve(game) for game in games]
        assert [(p.status, p.nodes, p.line) for p in plain] == [(a.status, a.nodes, a.line) for a in again]
        n = len(codes)
        firsts.append(1000 * t_first / n)
        seconds.append(1000 * t_second / n)
        no_mids.append(1000 * t_no_mid / n)
        ratios.append(t_first / t_second)
        gains.append(t_no_mid / t_first)
        print(
            f"round {r}: first {firsts[-1]:.2f} ms, second {seconds[-1]:.2f} ms per deal "
            f"(first/second {ratios[-1]:.2f}); first without the middle table {no_mids[-1]:.2f} ms "
            f"({gains[-1]:.2f}x the time)",
            flush=True,
        )
    if args.check:
        with open(args.check, "w", encoding="utf-8") as out:
            out.writelines(rows)
    print(
        f"{args.rule}, {args.deals} deals x {args.rounds} rounds, medians: first {statistics.median(firsts):.2f} ms, "
        f"second {statistics.median(seconds):.2f} ms, first/second {statistics.median(ratios):.2f} "
        f"(range {min(ratios):.2f}-{max(ratios):.2f}); without the middle table "
        f"{statistics.median(no_mids):.2f} ms, {statistics.median(gains):.2f}x the first call's time "
        f"(range {min(gains):.2f}-{max(gains):.2f})"
    )


if __name__ == "__main__":
    main()
