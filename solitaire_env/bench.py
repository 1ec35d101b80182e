"""Throughput benchmarks, each a ratio against a reference run interleaved in one process.

This machine is shared and noisy, so no figure here is an absolute rate: every round
times the reference and the subject back to back, and the reported figure is the
median over rounds of the per-round ratio.  The reference is
Gymnasium's ``CartPole-v1`` made with ``gym.make``, stepped with random actions; the Forty
Thieves batch env is also shown against its own single env (no target); the solvers run
against a pure-Python search on the same deals (TriPeaks: a plain DFS; Forty Thieves: the
pure-Python solver the numba one replaced, at the same node budget).

Both sides draw their random actions with the same cheap sampler (Python's
``random.Random``), so the ratio measures the environments, not the samplers:
CartPole takes ``0`` or ``1``; TriPeaks takes a uniformly random legal action from
``info["action_mask"]``, as a masked agent would.

Run: ``solitaire-env bench`` (or ``python -m solitaire_env.bench``; ``--rounds``, ``--steps``,
``--only env|vector|solver``, ``--num-envs``, ``--solver-deals``).
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

from solitaire_env.games import FORTYTHIEVES, TRIPEAKS


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
    subject_scale: int = 1,
) -> Ratio:
    """Time ``subject`` and ``reference`` for ``steps`` steps each per round, ``rounds`` rounds.

    Within a round the two alternate in ``chunks`` slices (who goes first alternates too);
    the round's ratio is the subject's rate over the reference's, and the median over rounds
    is reported.  ``subject_scale``: the subject runs that many times more steps than the
    reference per slice (a fast subject would otherwise finish a slice in a few calls).
    """
    subject(warmup * subject_scale)
    reference(warmup)
    ratios, sub_rates, ref_rates = [], [], []
    chunk = max(1, steps // chunks)
    for _ in range(rounds):
        t_sub = t_ref = 0.0
        for c in range(chunks):  # fine-grained alternation, so load swings hit both sides alike
            if c % 2:
                t_ref += reference(chunk)
                t_sub += subject(chunk * subject_scale)
            else:
                t_sub += subject(chunk * subject_scale)
                t_ref += reference(chunk)
        sub_rates.append(chunk * chunks * subject_scale / t_sub)
        ref_rates.append(chunk * chunks / t_ref)
        ratios.append(sub_rates[-1] / ref_rates[-1])
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


def vector_env_runner(env_id: str, num_envs: int, seed: int, **kwargs: Any) -> Callable[[int], float]:
    """A runner stepping ``gym.make_vec(env_id, num_envs)`` (the numba batch env) with random legal actions.

    Each batch step draws one uniformly random legal action per env from ``info["action_mask"]``
    (a numba sampler).  ``run(steps)`` plays ``round(steps / num_envs)`` batch steps (at least one)
    and returns the time scaled to ``steps`` env steps.
    """
    import numpy as np

    from solitaire_env.tripeaks.batch_kernels import sample_legal

    env = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    _, info = env.reset(seed=seed)
    rng_state = np.array([seed], dtype=np.uint64)
    actions = np.zeros(num_envs, dtype=np.int64)
    state = {"info": info}

    def run(steps: int) -> float:
        batches = max(1, round(steps / num_envs))
        step = env.step
        info = state["info"]
        start = time.perf_counter()
        for _ in range(batches):
            sample_legal(info["action_mask"], rng_state, actions)
            info = step(actions)[4]
        elapsed = time.perf_counter() - start
        state["info"] = info
        return elapsed * steps / (batches * num_envs)

    return run


def vector_env_ratio(
    env_id: str,
    target: float,
    *,
    num_envs: int = 1024,
    steps: int = 50_000,
    rounds: int = 7,
    seed: int = 0,
    **kwargs: Any,
) -> Ratio:
    """The batch env of ``env_id`` at ``num_envs`` envs vs CartPole-v1 (the subject runs 50x the steps)."""
    import solitaire_env  # noqa: F401  (registers the envs)

    extra = "".join(f", {k}={v}" for k, v in kwargs.items())
    return interleaved(
        f"{env_id.split('/')[-1]} batch env ({num_envs} envs{extra})",
        vector_env_runner(env_id, num_envs, seed, **kwargs),
        _cartpole_runner(seed),
        steps=steps,
        rounds=rounds,
        target=target,
        subject_scale=50,
    )


def vector_vs_single_ratio(
    env_id: str,
    target: float | None,
    *,
    num_envs: int = 1024,
    steps: int = 50_000,
    rounds: int = 7,
    seed: int = 0,
    subject_scale: int = 5,
    **kwargs: Any,
) -> Ratio:
    """The batch env of ``env_id`` at ``num_envs`` envs vs its own single env through ``gym.make``.

    Both take uniformly random legal actions from ``info["action_mask"]`` and copy their
    observations (the defaults); ``steps`` single-env steps per round, the batch env runs
    ``subject_scale`` times as many env steps (about as long).
    """
    import solitaire_env  # noqa: F401  (registers the envs)

    extra = "".join(f", {k}={v}" for k, v in kwargs.items())
    ratio = interleaved(
        f"{env_id.split('/')[-1]} batch env ({num_envs} envs{extra})",
        vector_env_runner(env_id, num_envs, seed, **kwargs),
        masked_env_runner(env_id, seed),
        steps=steps,
        rounds=rounds,
        target=target,
        subject_scale=subject_scale,
    )
    ratio.reference_name = f"{env_id.split('/')[-1]} single env"
    return ratio


#: The env benchmarks and their targets (ratios to CartPole).
ENV_TARGETS = {TRIPEAKS.env_id: 1.0, FORTYTHIEVES.env_id: 0.6}
#: The batch envs (at 1024 envs) and their targets against CartPole.
#: Forty Thieves' 2.5x is its earlier target of 5x its own single env taken at that env's 0.5x
#: CartPole target: once the single env got faster (0.74x), a ratio to it stopped saying whether
#: the batch env itself is fast. The ratio to the single env is still printed, without a target.
VECTOR_TARGETS = {TRIPEAKS.env_id: 40.0, FORTYTHIEVES.env_id: 2.5}
VECTOR_VS_SINGLE = frozenset({FORTYTHIEVES.env_id})


def solver_ratio(*, wrap: bool, deals_per_round: int = 10, rounds: int = 7) -> Ratio:
    """TriPeaks exact solver (numba) vs the plain pure-Python DFS, deals/s on the same deals.

    Round r solves deals ``TP1-<E|C>`` of seeds ``r*k .. r*k+k-1`` with both solvers, the
    order alternating per round; the verdicts must agree (else this raises).
    """
    from solitaire_env.tripeaks.deal import TriPeaksDeal
    from solitaire_env.tripeaks.game import TriPeaksGame
    from solitaire_env.tripeaks.reference_solver import reference_solvable
    from solitaire_env.tripeaks.rules import TriPeaksRules
    from solitaire_env.tripeaks.solver import solve_tripeaks

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


#: Forty Thieves solver bench: deals per round (at most) and the node budget of each search.
FT_SOLVER_DEALS = 3
FT_SOLVER_NODES = 100_000
#: The numba solver's turn of a round repeats its deals until this many seconds have passed
#: (its time is the mean over the repeats): one pass takes about 0.15 s, too short to time on a
#: shared machine, while the pure-Python solver's single pass takes seconds.
FT_SOLVER_REPEAT_SECONDS = 1.0


def ft_solver_ratio(
    *,
    deals_per_round: int = FT_SOLVER_DEALS,
    rounds: int = 7,
    max_nodes: int = FT_SOLVER_NODES,
    repeat_seconds: float = FT_SOLVER_REPEAT_SECONDS,
) -> Ratio:
    """Forty Thieves solver (numba) vs the pure-Python solver it replaced, positions/s on the same deals.

    Round r solves deals ``FT1-N`` of seeds ``1000 + r*k .. 1000 + r*k+k-1`` with both solvers at
    the same node budget, the order alternating per round.  Without a time budget the numba
    solver is the twin of the pure-Python one, so both must return the same status, line and
    node count (else this raises); the ratio is of positions expanded per second.  The numba
    solver's turn repeats the round's deals until ``repeat_seconds`` have passed and counts the
    mean time of a pass (a mean, not a minimum: the estimate of one pass's time is unbiased).
    """
    from solitaire_env.fortythieves.deal import FortyThievesDeal
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.fortythieves.python_solver import solve_fortythieves_python
    from solitaire_env.fortythieves.solver import solve_fortythieves

    solve_fortythieves(FortyThievesGame(FortyThievesDeal.from_seed(0)), max_nodes=5000)  # compile or load
    ratios, fast_rates, ref_rates = [], [], []

    def timed(
        solver: Callable[..., Any], games: list[FortyThievesGame], at_least: float = 0.0
    ) -> tuple[float, list[Any]]:
        start, passes = time.perf_counter(), 0
        while True:
            results = [solver(g, max_nodes=max_nodes) for g in games]
            passes += 1
            elapsed = time.perf_counter() - start
            if elapsed >= at_least:
                return elapsed / passes, results

    for r in range(rounds):
        seeds = range(1000 + r * deals_per_round, 1000 + (r + 1) * deals_per_round)
        games = [FortyThievesGame(FortyThievesDeal.from_seed(seed)) for seed in seeds]
        if r % 2:
            t_ref, ref = timed(solve_fortythieves_python, games)
            t_fast, fast = timed(solve_fortythieves, games, repeat_seconds)
        else:
            t_fast, fast = timed(solve_fortythieves, games, repeat_seconds)
            t_ref, ref = timed(solve_fortythieves_python, games)
        mine, theirs = ([(x.status, x.line, x.nodes, x.best) for x in side] for side in (fast, ref))
        if mine != theirs:
            bad = [
                f"FT1-N seed {s}: {a[0]}, {a[2]} nodes, best {a[3]}, {len(a[1])} moves vs "
                f"{b[0]}, {b[2]} nodes, best {b[3]}, {len(b[1])} moves{'' if a[1] == b[1] else ' (lines differ)'}"
                for s, a, b in zip(seeds, mine, theirs)
                if a != b
            ]
            raise AssertionError(f"the Forty Thieves solvers differ in round {r} (numba vs Python): {'; '.join(bad)}")
        nodes = sum(x.nodes for x in fast)
        ratios.append(t_ref / t_fast)
        fast_rates.append(nodes / t_fast)
        ref_rates.append(nodes / t_ref)
    return Ratio(
        f"Forty Thieves solver ({max_nodes:,} nodes a deal)",
        statistics.median(ratios),
        statistics.median(fast_rates),
        statistics.median(ref_rates),
        rounds,
        50.0,
        reference_name="pure-Python solver",
        unit="positions/s",
    )


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="solitaire-env bench", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ValueError as exc:
        parser.error(str(exc))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bench options (shared by ``solitaire-env bench`` and ``python -m solitaire_env.bench``)."""
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median taken), default 7")
    parser.add_argument("--steps", type=int, default=50_000, help="CartPole steps per round, default 50000")
    parser.add_argument(
        "--only",
        choices=["env", "vector", "solver"],
        help="run only the single envs, only the batch env(s) or only the solver benchmarks (TriPeaks, Forty Thieves)",
    )
    parser.add_argument("--num-envs", type=int, default=1024, help="envs of the batch env, default 1024")
    parser.add_argument(
        "--solver-deals",
        type=int,
        default=10,
        help=f"deals per solver round, default 10 (Forty Thieves: at most {FT_SOLVER_DEALS}, "
        f"{FT_SOLVER_NODES:,} nodes each)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmarks ``args`` asks for (``rounds``, ``steps``, ``only``, ``num_envs``, ``solver_deals``)."""
    if args.rounds < 1 or args.steps < 1 or args.num_envs < 1 or args.solver_deals < 1:
        raise ValueError("--rounds, --steps, --num-envs and --solver-deals must be at least 1")
    print(f"machine: {machine()}")
    if args.only in (None, "env"):
        for env_id, target in ENV_TARGETS.items():
            print(env_ratio(env_id, target, steps=args.steps, rounds=args.rounds).line(), flush=True)
    if args.only in (None, "vector"):
        for env_id, target in VECTOR_TARGETS.items():
            ratio = vector_env_ratio(env_id, target, num_envs=args.num_envs, steps=args.steps, rounds=args.rounds)
            print(ratio.line(), flush=True)
            if env_id in VECTOR_VS_SINGLE:
                single = vector_vs_single_ratio(
                    env_id, None, num_envs=args.num_envs, steps=args.steps, rounds=args.rounds
                )
                print(single.line(), flush=True)
    if args.only in (None, "solver"):
        for wrap in (True, False):
            print(solver_ratio(wrap=wrap, deals_per_round=args.solver_deals, rounds=args.rounds).line(), flush=True)
        ft_deals = min(args.solver_deals, FT_SOLVER_DEALS)
        ft = ft_solver_ratio(
            deals_per_round=ft_deals,
            rounds=args.rounds,
            max_nodes=FT_SOLVER_NODES,
            repeat_seconds=FT_SOLVER_REPEAT_SECONDS,
        )
        print(ft.line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
