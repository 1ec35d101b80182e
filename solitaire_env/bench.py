"""Throughput benchmarks, each a ratio against a reference run interleaved in one process.

This machine is shared and noisy, so no figure here is an absolute rate: every round
times the reference and the subject back to back, and the reported figure is the
median over rounds of the per-round ratio (SPEC section 9).  The reference is
Gymnasium's ``CartPole-v1`` made with ``gym.make``, stepped with random actions.

Both sides draw their random actions with the same cheap sampler (Python's
``random.Random``), so the ratio measures the environments, not the samplers:
CartPole takes ``0`` or ``1``; TriPeaks takes a uniformly random legal action from
``info["action_mask"]``, as a masked agent would.

Run: ``python -m solitaire_env.bench`` (``--rounds``, ``--steps``).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym


def _cartpole_runner(seed: int) -> Callable[[int], float]:
    env = gym.make("CartPole-v1")
    env.reset(seed=seed)
    rnd = random.Random(seed).random

    def run(steps: int) -> float:
        step, reset = env.step, env.reset
        start = time.perf_counter()
        for _ in range(steps):
            _, _, terminated, truncated, _ = step(1 if rnd() < 0.5 else 0)
            if terminated or truncated:
                reset()
        return time.perf_counter() - start

    return run


def masked_env_runner(env_id: str, seed: int, **kwargs: Any) -> Callable[[int], float]:
    """A runner stepping ``gym.make(env_id, **kwargs)`` with random legal actions."""
    env = gym.make(env_id, **kwargs)
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


@dataclass
class Ratio:
    """Median of per-round ratios subject/reference, with the median rates of both."""

    name: str
    ratio: float
    subject_rate: float
    reference_rate: float
    rounds: int
    target: float | None = None

    reference_name: str = "CartPole"
    unit: str = "steps/s"

    def line(self) -> str:
        verdict = "" if self.target is None else ("  PASS" if self.ratio >= self.target else "  BELOW TARGET")
        target = "" if self.target is None else f" (target >= {self.target:g}x)"
        return (
            f"{self.name:<38} {self.ratio:6.2f}x {self.reference_name}{target}{verdict}   "
            f"[{self.subject_rate:,.1f} vs {self.reference_rate:,.1f} {self.unit}, median of {self.rounds} rounds]"
        )


def interleaved(
    name: str,
    subject: Callable[[int], float],
    reference: Callable[[int], float],
    *,
    steps: int,
    rounds: int,
    target: float | None = None,
    warmup: int = 2000,
    chunks: int = 20,
) -> Ratio:
    """Time ``subject`` and ``reference`` for ``steps`` steps each per round, ``rounds`` rounds.

    Within a round the two alternate in ``chunks`` slices (who goes first alternates too);
    the round's ratio is reference time / subject time, and the median over rounds is reported.
    """
    subject(warmup)
    reference(warmup)
    ratios, sub_rates, ref_rates = [], [], []
    chunk = max(1, steps // chunks)
    for _ in range(rounds):
        t_sub = t_ref = 0.0
        for c in range(chunks):  # fine-grained alternation, so load swings hit both sides alike
            if c % 2:
                t_ref += reference(chunk)
                t_sub += subject(chunk)
            else:
                t_sub += subject(chunk)
                t_ref += reference(chunk)
        sub_rates.append(chunk * chunks / t_sub)
        ref_rates.append(chunk * chunks / t_ref)
        ratios.append(t_ref / t_sub)
    return Ratio(
        name, statistics.median(ratios), statistics.median(sub_rates), statistics.median(ref_rates), rounds, target
    )


def env_ratio(env_id: str, target: float, *, steps: int = 50_000, rounds: int = 7, seed: int = 0) -> Ratio:
    """An env of the package through ``gym.make`` (flat observations), random legal actions, vs CartPole-v1."""
    import solitaire_env  # noqa: F401  (registers the envs)

    return interleaved(
        f"{env_id.split('/')[-1]} env (gym.make, flat)",
        masked_env_runner(env_id, seed),
        _cartpole_runner(seed),
        steps=steps,
        rounds=rounds,
        target=target,
    )


#: The env benchmarks and their SPEC section 9 targets.
ENV_TARGETS = {"solitaire_env/TriPeaks-v0": 1.0, "solitaire_env/FortyThieves-v0": 0.5}


def solver_ratio(*, wrap: bool, deals_per_round: int = 10, rounds: int = 7) -> Ratio:
    """TriPeaks exact solver (numba) vs the plain pure-Python DFS, deals/s on the same deals.

    Round r solves deals ``TP1-<E|C>`` of seeds ``r*k .. r*k+k-1`` with both solvers, the
    order alternating per round; the verdicts must agree (else this raises).
    """
    from solitaire_env.deals import TriPeaksDeal
    from solitaire_env.solver.reference import reference_solvable
    from solitaire_env.solver.tripeaks import solve_tripeaks
    from solitaire_env.tripeaks.game import TriPeaksGame
    from solitaire_env.tripeaks.rules import TriPeaksRules

    rules = TriPeaksRules(wrap=wrap)
    solve_tripeaks(TriPeaksGame(TriPeaksDeal.from_seed(0), rules))  # compile (or load the cache)
    ratios, fast_rates, ref_rates = [], [], []

    def timed(solver: Callable[[TriPeaksGame], bool], games: list[TriPeaksGame]) -> tuple[float, list[bool]]:
        start = time.perf_counter()
        verdicts = [solver(g) for g in games]
        return time.perf_counter() - start, verdicts

    def fast(g: TriPeaksGame) -> bool:
        return solve_tripeaks(g).status == "solved"

    for r in range(rounds):
        seeds = range(r * deals_per_round, (r + 1) * deals_per_round)
        games = [TriPeaksGame(TriPeaksDeal.from_seed(seed), rules) for seed in seeds]
        if r % 2:
            t_ref, v_ref = timed(reference_solvable, games)
            t_fast, v_fast = timed(fast, games)
        else:
            t_fast, v_fast = timed(fast, games)
            t_ref, v_ref = timed(reference_solvable, games)
        if v_fast != v_ref:
            raise AssertionError(f"verdicts differ in round {r}: {v_fast} vs {v_ref}")
        ratios.append(t_ref / t_fast)
        fast_rates.append(deals_per_round / t_fast)
        ref_rates.append(deals_per_round / t_ref)
    name = f"TriPeaks solver, {'Easy' if wrap else 'Classic'}"
    return Ratio(
        name,
        statistics.median(ratios),
        statistics.median(fast_rates),
        statistics.median(ref_rates),
        rounds,
        50.0,
        reference_name="pure-Python DFS",
        unit="deals/s",
    )


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solitaire_env.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median taken), default 7")
    parser.add_argument("--steps", type=int, default=50_000, help="steps per side per round, default 50000")
    parser.add_argument(
        "--only", choices=["env", "solver"], help="run only the env benchmarks or only the solver benchmarks"
    )
    parser.add_argument("--solver-deals", type=int, default=10, help="deals per solver round, default 10")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        parser.error("--rounds and --steps must be at least 1")
    print(f"machine: {machine()}")
    if args.only != "solver":
        for env_id, target in ENV_TARGETS.items():
            print(env_ratio(env_id, target, steps=args.steps, rounds=args.rounds).line(), flush=True)
    if args.only != "env":
        for wrap in (True, False):
            print(solver_ratio(wrap=wrap, deals_per_round=args.solver_deals, rounds=args.rounds).line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
