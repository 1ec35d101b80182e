"""Before/after speed of the TriPeaks playout kernels and their callers, in one process.

Run (from the repository root):

    python benchmarks/playout_before_after.py                 # old = commit 8e20c08, 7 rounds
    python benchmarks/playout_before_after.py --old REV --rounds 9 --samples 500

The old versions of ``agents/_playout.py``, ``agents/move_values.py``, ``agents/rollout.py`` and
``agents/advice.py`` (their paths before they moved into ``agents/players/``) are read from ``REV`` (``git show``)
into a package ``old_playout_agents`` under
``--dir``, their imports of each other pointed at that package (everything else, ``agents.base``
and ``solitaire_env``, is the working tree's).  Both versions are then timed alternately, the
order swapped every round, on the same inputs: a full TriPeaks game of the ``rollout`` agent per
deal, and one call each of ``sampled_action_values``, ``action_values``, ``potentials`` and
``batch_advice`` on a batch env.  Before timing, both are run once (numba compiles or loads its
cache) and their results are compared: they must be equal.  The table gives the median time of
each version over the rounds and old/new (above 1: the new code is faster).  Times are the
process's CPU time (``time.process_time``): on a machine shared with other work, wall-clock
times swing with the load far more than the difference measured.
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

FILES = ("_playout", "move_values", "rollout", "advice")
PACKAGE = "old_playout_agents"


def old_package(rev: str, root: Path) -> dict[str, ModuleType]:
    """The four modules as of ``rev``, imported as ``old_playout_agents.<name>`` from ``root``."""
    pkg = root / PACKAGE
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    names = "|".join(FILES)
    for name in FILES:
        text = subprocess.run(
            ["git", "show", f"{rev}:agents/{name}.py"], capture_output=True, text=True, check=True
        ).stdout
        text = re.sub(rf"from agents import ({names})\b", rf"from {PACKAGE} import \1", text)
        text = re.sub(rf"from agents\.({names}) import", rf"from {PACKAGE}.\1 import", text)
        path = pkg / f"{name}.py"
        if not path.exists() or path.read_text() != text:  # keep numba's cache when unchanged
            path.write_text(text)
    sys.path.insert(0, str(root))
    return {name: importlib.import_module(f"{PACKAGE}.{name}") for name in FILES}


def new_package() -> dict[str, ModuleType]:
    return {name: importlib.import_module(f"agents.{name}") for name in FILES}


def play_games(mods: dict[str, ModuleType], codes: list[str], samples: int) -> list[int]:
    """Every deal played to the end by the ``rollout`` agent; the actions played."""
    from agents.base import public_state
    from solitaire_env.solvability import make_game

    agent = mods["rollout"].TriPeaksRollout(seed=0, samples=samples)
    out: list[int] = []
    for code in codes:
        game, actions = make_game(code, {}), []
        agent.reset()
        while not game.over:
            a = agent.act(public_state(game, actions))
            game.play(a)
            actions.append(a)
        out += actions
    return out


def batch_env(n: int, steps: int) -> Any:
    """A TriPeaks batch env of ``n`` Easy deals after ``steps`` fixed random moves."""
    from solitaire_env.sb3 import SB3VecEnv
    from solitaire_env.solvability import draw_codes

    env = SB3VecEnv(n, game="tripeaks", deal_codes=draw_codes(n, 7, "TP", "E"))
    env.reset()
    rng = np.random.default_rng(3)
    for _ in range(steps):
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
    return env.env


def jobs(mods: dict[str, ModuleType], env: Any, codes: list[str], samples: int) -> dict[str, Any]:
    mv, adv = mods["move_values"], mods["advice"]
    return {
        "rollout games": lambda: play_games(mods, codes, samples),
        "sampled_action_values": lambda: mv.sampled_action_values(env, 30.0, 64, np.random.default_rng(0)),
        "action_values": lambda: mv.action_values(env, 30.0),
        "potentials": lambda: mv.potentials(env, 30.0),
        "batch_advice": lambda: adv.batch_advice(env),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", default="8e20c08", help="the commit of the old modules (default 8e20c08)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/old_playout"), help="where the old package is written")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--deals", type=int, default=2, help="rollout games per round")
    parser.add_argument("--samples", type=int, default=1000, help="the rollout agent's samples")
    parser.add_argument("--envs", type=int, default=128, help="games of the batch env")
    args = parser.parse_args()

    from solitaire_env.solvability import draw_codes

    versions = {"old": old_package(args.old, args.dir), "new": new_package()}
    env = batch_env(args.envs, 6)
    codes = draw_codes(args.deals, 11, "TP", "E")
    work = {v: jobs(m, env, codes, args.samples) for v, m in versions.items()}
    for name in work["old"]:  # compile or load, and check the two agree
        a, b = work["old"][name](), work["new"][name]()
        if not np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True):
            raise SystemExit(f"{name}: the old and the new code differ")
    times: dict[str, dict[str, list[float]]] = {name: {"old": [], "new": []} for name in work["old"]}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in times:
            for v in order:
                t0 = time.process_time()
                work[v][name]()
                times[name][v].append(time.process_time() - t0)
    print(f"{'':24s} {'old s':>9s} {'new s':>9s} {'old/new':>8s}   (median of {args.rounds} rounds)")
    for name, t in times.items():
        old, new = statistics.median(t["old"]), statistics.median(t["new"])
        print(f"{name:24s} {old:9.4f} {new:9.4f} {old / new:8.3f}")


if __name__ == "__main__":
    main()
