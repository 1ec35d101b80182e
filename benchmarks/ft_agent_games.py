"""Forty Thieves agents game by game, one process, CPU time per game: the planner's tuning runs.

Run (from the repository root):

    python benchmarks/ft_agent_games.py --seed 7 --deals 100 --start 40 planner "planner:eval_nodes=5000" > v.jsonl
    python benchmarks/ft_agent_games.py --compare v.jsonl other.jsonl

Each line of the output is one episode as JSON (agent spec, deal code, won, cards founded, CPU
and wall seconds, env steps, truncation); the last lines sum each agent up.  The episodes are
played by the evaluation's own loop (``agents.evaluation.backends.DealWorker.episode``, with the
agent seeds of an evaluation seeded 0) on ``draw_codes(start + deals, seed, "FT", "N")[start:]``.
Tune on seeds other than 0 (the test deals of configs/eval_fortythieves.yaml) and 99 (the
confirmation deals of docs/agents.md).  ``--compare`` sums up several such files on
the deals they all have.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any


def play(seed: int, deals: int, start: int, specs: list[str]) -> None:
    from agents.evaluation.backends import DealWorker, WorkerSetup, agent_seed
    from agents.evaluation.specs import parse_agent_spec
    from solitaire_env.common.deals import draw_codes

    parsed = tuple(parse_agent_spec(text) for text in specs)
    codes = draw_codes(start + deals, seed, "FT", "N")[start:]
    worker = DealWorker(WorkerSetup("fortythieves", "solitaire_env/FortyThieves-v0", (), parsed, 0))
    totals: dict[str, list[float]] = {}
    for i, code in enumerate(codes):
        for key, agent in worker.agents:
            cpu = time.process_time()
            r = worker.episode(key, agent, start + i, code, agent_seed(0, code))
            cpu = time.process_time() - cpu
            t = totals.setdefault(key, [0, 0, 0.0, 0])
            t[0] += r.won
            t[1] += r.progress
            t[2] += cpu
            t[3] += 1
            row = {"agent": key, "code": code, "won": r.won, "founded": r.progress, "cpu": round(cpu, 2)}
            row.update(wall=round(r.seconds, 2), steps=r.steps, trunc=r.truncated_reason)
            print(json.dumps(row), flush=True)
    for key, (won, founded, cpu, n) in totals.items():
        print(f"SUMMARY {key}: won {won:.0f}/{n:.0f} founded {founded / n:.2f} cpu/game {cpu / n:.2f}", flush=True)


def compare(paths: list[str]) -> None:
    runs: list[dict[tuple[str, str], dict[str, Any]]] = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.startswith("{")]
        runs.append({(r["agent"], r["code"]): r for r in rows})
    common = set.intersection(*({code for _, code in run} for run in runs))
    for path, run in zip(paths, runs, strict=True):
        for agent in sorted({a for a, _ in run}):
            rows = [run[(agent, c)] for c in sorted(common) if (agent, c) in run]
            if rows:
                n = len(rows)
                won = sum(r["won"] for r in rows)
                founded = sum(r["founded"] for r in rows) / n
                cpu = sum(r["cpu"] for r in rows) / n
                print(f"{path} {agent}: {n} deals, won {won}, founded {founded:.2f}, cpu/game {cpu:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", help="agent specs: NAME or NAME:KEY=VALUE,...")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--compare", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    if args.compare:
        compare(args.compare)
    elif args.agents:
        play(args.seed, args.deals, args.start, args.agents)
    else:
        parser.error("give agent specs, or --compare FILE...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
