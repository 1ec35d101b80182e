"""Compile the numba kernels into numba's on-disk cache, in three processes at once.

``bash scripts/test.sh`` runs this before pytest. In a fresh clone the cache is empty, and
without it every pytest-xdist worker (and every process a test starts) would compile the same
kernels again at the same time. Here each kernel compiles once, three parts side by side
(about 150 CPU s in all: 88 s of wall time on 2 cores, 2026-12-07), and the tests then load
them from the cache. With a warm cache this takes a few seconds.

Each part plays a small workload that calls its kernels with the argument types that the
package uses: the Forty Thieves solver, hint and agents; the envs, the TriPeaks solver and the
TriPeaks agents; the kernels of training.

    python scripts/compile_kernels.py          # every part, in parallel
    python scripts/compile_kernels.py solver   # one part, in this process
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any


def _masked_first(mask: Any) -> int:
    import numpy as np

    return int(np.flatnonzero(mask)[0])


def _solver() -> None:
    """The Forty Thieves searches (depth-first and beam, both schedules), the planned hint and
    the Forty Thieves agents' kernels."""
    import agents
    from solitaire_env import FortyThievesDeal, FortyThievesGame, hint, solve
    from solitaire_env.fortythieves.rules import DRAW

    game = FortyThievesGame(FortyThievesDeal.from_seed(1))
    solve(game, max_nodes=20_000)
    solve(game, max_seconds=0.5)
    hint(game)
    game.play(DRAW)  # a draw: the hint then plans with cards unseen
    hint(game, max_nodes=300)
    agents.evaluate(game="fortythieves", deals=1, agents=["lookahead", "rollout", "ppo"], workers=1)


def _rest() -> None:
    """The single and batch envs of both games, the TriPeaks solver and the TriPeaks agents'
    kernels."""
    import gymnasium as gym
    import numpy as np

    import agents
    import solitaire_env
    from solitaire_env import hint, solve
    from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
    from solitaire_env.tripeaks.batch import TriPeaksVectorEnv

    for env_id in solitaire_env.ENV_IDS.values():
        for obs_mode in ("flat", "dict", "oracle", "oracle_dict"):
            env = gym.make(env_id, obs_mode=obs_mode)
            _, info = env.reset(seed=0)
            for _ in range(10):
                _, _, done, cut, info = env.step(_masked_first(info["action_mask"]))
                if done or cut:
                    break
    for batch_class in (TriPeaksVectorEnv, FortyThievesVectorEnv):
        for obs_mode in ("flat", "dict", "oracle", "oracle_dict"):
            batch = batch_class(4, obs_mode=obs_mode)
            batch.reset(seed=0)
            for _ in range(5):
                batch.step(np.array([_masked_first(row) for row in batch.action_masks()]))
    tp = solitaire_env.make_game("TP1-C-AAAAAAB")
    solve(tp)
    hint(tp)  # the hint's search for the most cards cleared
    names = ["lookahead", "rollout:samples=8", "rollout_net:samples=8", "base_net", "pimc:samples=2", "oracle"]
    names += ["rollout:samples=8,plans=2", "rollout:samples=8,depth=2"]
    agents.evaluate(game="tripeaks", deals=1, agents=names, workers=1)


def _training() -> None:
    """The kernels of training: TriPeaks move values and advice, the base network's features."""
    import numpy as np

    import agents
    from agents.training.advice import batch_advice
    from agents.training.base_net import collect
    from agents.training.move_values import action_values, potentials, sampled_action_values
    from solitaire_env.tripeaks.batch import TriPeaksVectorEnv

    batch = TriPeaksVectorEnv(4)
    batch.reset(seed=0)
    potentials(batch, 30.0)
    action_values(batch, 30.0)
    sampled_action_values(batch, 30.0, 2, np.random.default_rng(0))
    batch_advice(batch)
    collect(["TP1-E-AAAAAAB"], agents.make_agent("rollout", "tripeaks", samples=4))


PARTS = {"solver": _solver, "rest": _rest, "training": _training}


def main(argv: list[str]) -> int:
    if argv:
        start = time.perf_counter()
        PARTS[argv[0]]()
        print(f"compile_kernels {argv[0]}: {time.perf_counter() - start:.1f} s", flush=True)
        return 0
    children = [subprocess.Popen([sys.executable, __file__, part]) for part in PARTS]
    codes = [child.wait() for child in children]
    return max(codes)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
