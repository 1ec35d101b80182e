"""CPU and wall seconds of the Forty Thieves hint where the planner runs (docs/hints.md).

Run (from the repository root): ``python benchmarks/ft_hint_seconds.py``.  Positions: deals
0-39, each after a random number (0-149, seeded by the deal) of ``evaluate``'s moves; those
with every card known (the solver's case) and those with a forced move (no search) are left out.
"""

import time

import numpy as np

from agents.base import decide
from agents.registry import make_agent
from solitaire_env import hint
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame

hint(FortyThievesGame(FortyThievesDeal.from_seed(0)), max_nodes=100)  # numba load
cpu = []
wall = []
planned = 0
for seed in range(40):
    g = FortyThievesGame(FortyThievesDeal.from_seed(seed))
    a = make_agent("evaluate", "fortythieves")
    acts = []
    for _i in range(int(np.random.default_rng(seed).integers(0, 150))):
        if g.over:
            break
        m = decide(a, g, acts)
        g.play(m)
        acts.append(m)
    if g.all_known:
        continue
    c = time.process_time()
    t = time.perf_counter()
    h = hint(g)
    wall.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    planned += h.nodes > 0
    if h.nodes == 0:
        cpu.pop()
        wall.pop()
print(
    "planned positions",
    len(cpu),
    "planned",
    planned,
    f"cpu median {np.median(cpu):.3f} p90 {np.percentile(cpu, 90):.3f} max {max(cpu):.3f}",
    f"wall median {np.median(wall):.3f} max {max(wall):.3f}",
)
