"""The single env's step rate in two source trees, interleaved in one process.

Run (from the repository root):

    mkdir -p /tmp/before && git archive 0065117 | tar -x -C /tmp/before   # the "before" tree
    python benchmarks/env_step_two_trees.py --old /tmp/before                # TriPeaks, 9 rounds
    python benchmarks/env_step_two_trees.py --old /tmp/before --game FT --rounds 7

`benchmarks/before_after.py` compares two trees through `solitaire-env bench` in separate
processes, each ratio taken against CartPole in its own process.  On this shared machine a
process's speed alone swings by a few percent (CartPole's own rate differed by up to 7 %
between two processes of the same tree), which is the size of the difference a refactoring
makes to the single env.  This script removes that noise: it imports both trees into one
process (the old tree's ``solitaire_env`` modules are loaded first and set aside under their
own names, then the new tree's), wraps each tree's env class as ``gym.make`` does
(``PassiveEnvChecker``, ``OrderEnforcing``, ``TimeLimit(200)``), and steps them alternately
in small slices with random legal actions (the bench's runner: Python's ``random.Random``,
a uniform choice among ``info["action_mask"]``'s legal actions, a reset when an episode ends).
Per round it prints both rates and new/old; the median over rounds is the figure (above 1:
the new tree is faster).  Only ``gymnasium``, numpy and the two trees' own env modules are
used, so the comparison holds as long as both trees' env classes take no arguments.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

ENV_CLASSES = {
    "TP": ("solitaire_env.tripeaks.env", "TriPeaksEnv"),
    "FT": ("solitaire_env.fortythieves.env", "FortyThievesEnv"),
}


def load_env_class(tree: Path, game: str) -> type:
    """The env class of ``game`` from ``tree``, imported with that tree first on ``sys.path``;
    its modules are then removed from ``sys.modules`` (the class keeps them alive)."""
    module_name, class_name = ENV_CLASSES[game]
    sys.path.insert(0, str(tree))
    try:
        for name in [m for m in sys.modules if m == "solitaire_env" or m.startswith("solitaire_env.")]:
            del sys.modules[name]
        module = importlib.import_module(module_name)
        if not Path(module.__file__ or "").resolve().is_relative_to(tree.resolve()):
            raise SystemExit(f"{tree} does not hold {module_name} (imported {module.__file__})")
        cls: type = getattr(module, class_name)
    finally:
        sys.path.remove(str(tree))
        for name in [m for m in sys.modules if m == "solitaire_env" or m.startswith("solitaire_env.")]:
            del sys.modules[name]
    return cls


def runner(env_class: type, seed: int) -> Callable[[int], float]:
    """``run(steps)``: the seconds ``steps`` random legal steps take (resetting on episode end)."""
    env: Any = gym.wrappers.TimeLimit(gym.wrappers.OrderEnforcing(gym.wrappers.PassiveEnvChecker(env_class())), 200)
    _, info = env.reset(seed=seed)
    rnd = random.Random(seed).random
    state = {"info": info}

    def run(steps: int) -> float:
        step, reset = env.step, env.reset
        info = state["info"]
        start = time.perf_counter()
        for _ in range(steps):
            legal = info["action_mask"].nonzero()[0].tolist()
            _, _, terminated, truncated, info = step(legal[int(rnd() * len(legal))])
            if terminated or truncated:
                _, info = reset()
        elapsed = time.perf_counter() - start
        state["info"] = info
        return elapsed

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the tree before (e.g. a git archive)")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent, help="default: this tree")
    parser.add_argument("--game", choices=sorted(ENV_CLASSES), default="TP")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=50_000, help="steps per tree per round, default 50000")
    parser.add_argument("--chunks", type=int, default=20, help="alternating slices per round, default 20")
    args = parser.parse_args(argv)
    old = runner(load_env_class(args.old, args.game), 0)
    new = runner(load_env_class(args.new, args.game), 0)
    old(2000), new(2000)  # warm up
    chunk = max(1, args.steps // args.chunks)
    ratios = []
    print(f"{args.game} single env (gym.make wrappers, flat), {chunk * args.chunks} steps per tree per round")
    for r in range(args.rounds):
        t_old = t_new = 0.0
        for c in range(args.chunks):
            if (c + r) % 2:
                t_new += new(chunk)
                t_old += old(chunk)
            else:
                t_old += old(chunk)
                t_new += new(chunk)
        ratios.append(t_old / t_new)
        steps = chunk * args.chunks
        rates = f"old {steps / t_old:9.0f} steps/s, new {steps / t_new:9.0f} steps/s"
        print(f"round {r + 1}: {rates}, new/old {ratios[-1]:.3f}")
    faster = sum(x > 1 for x in ratios)
    print(f"median new/old {statistics.median(ratios):.3f} (new faster in {faster} of {len(ratios)} rounds)")


if __name__ == "__main__":
    main()
