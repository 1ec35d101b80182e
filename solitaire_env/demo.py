"""A first run: seeded TriPeaks episodes with random legal moves, printed as a table.

``python -m solitaire_env.demo [--episodes N] [--seed S] [--rules E|C]``.  Every row names
its deal code, so any episode can be looked at again with ``solitaire-env deal CODE``.
(The evaluation harness with real agents replaces this as the main job in a later issue.)
"""

from __future__ import annotations

import argparse
import random

import gymnasium as gym
import numpy as np

import solitaire_env  # noqa: F401  (registers the envs)


def play_random(episodes: int, seed: int, wrap: bool) -> list[dict[str, object]]:
    env = gym.make("solitaire_env/TriPeaks-v0", wrap=wrap)
    rnd = random.Random(seed)
    rows = []
    _, info = env.reset(seed=seed)
    for _ in range(episodes):
        code, done = info["deal_code"], False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(legal[rnd.randrange(len(legal))]))
            done = terminated or truncated
        view = env.unwrapped.public_view()  # type: ignore[attr-defined]
        rows.append(
            {
                "deal_code": code,
                "result": "won" if view["won"] else "lost",
                "cleared": view["cleared"],
                "score": view["score"],
                "moves": view["moves"],
                "longest_chain": view["longest_chain"],
            }
        )
        _, info = env.reset()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solitaire_env.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=10, help="episodes to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal codes and of the moves (default 0)")
    parser.add_argument("--rules", choices=["E", "C"], default="E", help="E (Easy, K-A adjacent) or C (Classic)")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    rows = play_random(args.episodes, args.seed, wrap=args.rules == "E")
    print(f"TriPeaks ({'Easy' if args.rules == 'E' else 'Classic'}), random legal moves, app scoring")
    print(f"{'deal code':<15} {'result':<6} {'cleared':>7} {'score':>5} {'moves':>5} {'longest chain':>13}")
    for r in rows:
        print(
            f"{r['deal_code']:<15} {r['result']:<6} {r['cleared']:>4}/28 {r['score']:>5} {r['moves']:>5} "
            f"{r['longest_chain']:>13}"
        )
    wins = sum(r["result"] == "won" for r in rows)
    mean_cleared = sum(int(r["cleared"]) for r in rows) / len(rows)  # type: ignore[call-overload]
    print(f"won {wins}/{len(rows)}, mean cards cleared {mean_cleared:.1f}/28")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
