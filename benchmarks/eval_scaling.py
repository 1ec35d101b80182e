"""Evaluation scaling: time of `lookahead` on TriPeaks Easy for 100/200/400 deals on 1 worker and
400 deals on 2 workers, 5 interleaved rounds, medians (python benchmarks/eval_scaling.py)."""

import statistics
import time

from agents.evaluation.harness import evaluate

cfg = [(100, 1), (200, 1), (400, 1), (400, 2)]
times: dict[tuple[int, int], list[float]] = {c: [] for c in cfg}
for _ in range(5):
    for deals, workers in cfg:
        t = time.perf_counter()
        evaluate(game="tripeaks", deals=deals, agents=["lookahead"], workers=workers, progress=False, write=False)
        times[(deals, workers)].append(time.perf_counter() - t)
for c in cfg:
    print(c, round(statistics.median(times[c]), 2))
print("ratios per round 400x1/400x2:", [round(a / b, 2) for a, b in zip(times[(400, 1)], times[(400, 2)])])
