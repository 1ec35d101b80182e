"""Expert iteration rounds for the TriPeaks rollout agent's learned base policy (issue 24).

One round (:mod:`agents.training.base_net`): a teacher (``rollout``, with the hand-written base
policy or a network) labels the positions of training games, a network is fitted to its move
values, and the network is measured on validation deals alone (``base``) and, optionally,
inside the rollout agent, paired against a reference agent on the same deals.

    python benchmarks/tp_expert_iteration.py collect --out runs/ei/r1 --games 1000
    python benchmarks/tp_expert_iteration.py collect --out runs/ei/r2 --games 1000 --teacher-net runs/ei/r1/net.npz
    python benchmarks/tp_expert_iteration.py fit --data runs/ei/r1 --out runs/ei/r1
    python benchmarks/tp_expert_iteration.py play --agent base:net=runs/ei/r1/net.npz --deals 5000
    python benchmarks/tp_expert_iteration.py play --agent rollout:net=runs/ei/r1/net.npz --deals 500

Deal seeds: training games use ``--seed`` (default 2); ``play`` uses seed 1 (validation) unless
told; the test deals (seed 0) are for published runs only.  ``play`` writes the per-deal wins
to ``--out`` (a json file) so that two agents can be paired (``pair``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _agent(spec: str) -> Any:
    from agents.registry import make_agent

    name, _, rest = spec.partition(":")
    opts: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        k, _, v = item.partition("=")
        opts[k] = int(v) if v.lstrip("-").isdigit() else v
    return make_agent(name, "tripeaks", seed=0, **opts)


def _collect_chunk(task: tuple[list[str], str, str | None, float, int]) -> tuple[Any, list[bool], float]:
    from agents.training.base_net import collect

    codes, teacher, behaviour, epsilon, seed = task
    t = time.process_time()
    data, won = collect(codes, _agent(teacher), _agent(behaviour) if behaviour else None, epsilon=epsilon, seed=seed)
    return data, won, time.process_time() - t


def _play_chunk(task: tuple[list[str], str]) -> tuple[list[bool], list[int], float]:
    from agents.base import decide
    from agents.evaluation.backends import agent_seed
    from solitaire_env.solvability import make_game

    codes, spec = task
    agent = _agent(spec)
    t = time.process_time()
    won, cleared = [], []
    for code in codes:
        agent.seed = agent_seed(1, code)
        game, actions = make_game(code), []
        while not game.over:
            a = decide(agent, game, actions)
            game.play(a)
            actions.append(a)
        won.append(bool(game.won))
        cleared.append(int(game.cleared) if hasattr(game, "cleared") else 0)
    return won, cleared, time.process_time() - t


def _split(codes: list[str], parts: int) -> list[list[str]]:
    return [codes[i::parts] for i in range(parts)]


def _unsplit(parts: list[list[Any]]) -> list[Any]:
    n = sum(len(p) for p in parts)
    out: list[Any] = [None] * n
    for i, p in enumerate(parts):
        out[i :: len(parts)] = p
    return out


def main() -> None:
    from agents.training.base_net import Positions, fit, save_net
    from solitaire_env.common.pool import process_pool
    from solitaire_env.common.statistics import wilson
    from solitaire_env.solvability import draw_codes

    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("collect", "fit", "play", "pair"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--rules", default="E")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0, help="skip this many training deals (another round's)")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--teacher", default="rollout")
    ap.add_argument("--teacher-net", default=None)
    ap.add_argument("--behaviour", default=None, help="an agent spec; default: the teacher's own moves")
    ap.add_argument("--epsilon", type=float, default=0.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", nargs="*", default=[])
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--temperature", type=float, default=2.0)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--agent", default="base")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--play-seed", type=int, default=1)
    ap.add_argument("--runs", nargs=2, default=[])
    a = ap.parse_args()
    out = Path(a.out)
    if a.what == "collect":
        out.mkdir(parents=True, exist_ok=True)
        teacher = a.teacher + (f":net={a.teacher_net}" if a.teacher_net else "")
        codes = draw_codes(a.first + a.games, a.seed, "TP", a.rules)[a.first :]
        t0 = time.time()
        with process_pool(a.workers) as pool:
            got = pool.map(
                _collect_chunk,
                [(c, teacher, a.behaviour, a.epsilon, i) for i, c in enumerate(_split(codes, a.workers))],
            )
        data = Positions.join([g[0] for g in got])
        wins = sum(sum(g[1]) for g in got)
        np.savez(out / "positions.npz", features=data.features, values=data.values, count=data.count)
        report = {
            "teacher": teacher,
            "behaviour": a.behaviour,
            "epsilon": a.epsilon,
            "games": a.games,
            "first": a.first,
            "seed": a.seed,
            "rules": a.rules,
            "positions": len(data),
            "behaviour_wins": wins,
            "cpu_seconds": sum(g[2] for g in got),
            "wall_seconds": time.time() - t0,
        }
        (out / "collect.json").write_text(json.dumps(report, indent=1))
        print(json.dumps(report))
    elif a.what == "fit":
        parts = []
        for d in a.data:
            with np.load(Path(d) / "positions.npz") as f:
                parts.append(Positions(f["features"], f["values"], f["count"]))
        data = Positions.join(parts)
        t0 = time.process_time()
        net = fit(data, hidden=a.hidden, epochs=a.epochs, temperature=a.temperature, learning_rate=a.lr)
        out.mkdir(parents=True, exist_ok=True)
        save_net(
            out / "net.npz", net, data=np.array(a.data), hidden=a.hidden, epochs=a.epochs, temperature=a.temperature
        )
        print(
            json.dumps({"positions": len(data), "cpu_seconds": time.process_time() - t0, "net": str(out / "net.npz")})
        )
    elif a.what == "play":
        codes = draw_codes(a.deals, a.play_seed, "TP", a.rules)
        t0 = time.time()
        with process_pool(a.workers) as pool:
            got = pool.map(_play_chunk, [(c, a.agent) for c in _split(codes, a.workers)])
        won = _unsplit([g[0] for g in got])
        wins = sum(won)
        lo, hi = wilson(wins, len(won))
        report = {
            "agent": a.agent,
            "deals": a.deals,
            "seed": a.play_seed,
            "rules": a.rules,
            "wins": wins,
            "rate": wins / len(won),
            "interval": [lo, hi],
            "cpu_per_game": sum(g[2] for g in got) / len(won),
            "wall_seconds": time.time() - t0,
            "won": won,
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report))
        print(json.dumps({k: v for k, v in report.items() if k != "won"}))
    else:
        from agents.evaluation.harness import mcnemar_exact

        r1, r2 = (json.loads(Path(p).read_text()) for p in a.runs)
        w1, w2 = r1["won"], r2["won"]
        n = min(len(w1), len(w2))
        only1 = sum(1 for i in range(n) if w1[i] and not w2[i])
        only2 = sum(1 for i in range(n) if w2[i] and not w1[i])
        p = mcnemar_exact(only1, only2)
        print(
            json.dumps(
                {
                    "first": r1["agent"],
                    "second": r2["agent"],
                    "deals": n,
                    "first_only": only1,
                    "second_only": only2,
                    "p": p,
                }
            )
        )


if __name__ == "__main__":
    main()
