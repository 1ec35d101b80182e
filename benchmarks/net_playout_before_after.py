"""Before/after speed of the rollout playouts (the learned base policy's, ``MODE_NET``, and the
hand-written one's), in one process.

Run (from the repository root):

    python benchmarks/net_playout_before_after.py                 # old = commit c7bd6c0, 7 rounds
    python benchmarks/net_playout_before_after.py --old a72d470   # the version with the _outs / _catch terms
    python benchmarks/net_playout_before_after.py --old REV --rounds 9 --samples 500

The old ``agents/players/playouts.py`` is read from ``REV`` (``git show``) into a module of its
own (its imports, ``solitaire_env``, are the working tree's).  Positions: ``--deals`` Easy deals
(seed 5) after 0-14 random moves each; in each, every legal move is scored by ``sample_counts``
over ``--samples`` fillings of the unseen cards, with the published Easy network and with the
hand-written policy.  Before timing, both versions run once with each policy (numba compiles or
loads its cache) and their results are compared: they must be equal, sample by sample.  Then the
four are timed alternately, the order reversed every other round; the table gives the median CPU
time (``time.process_time``) of each and, per policy, the median of old/new over the rounds
(above 1: the new code is faster).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _old_module(rev: str) -> Any:
    source = subprocess.run(
        ["git", "show", f"{rev}:agents/players/playouts.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="old_playouts_"))
    path = folder / "old_playouts.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_playouts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_playouts"] = module
    spec.loader.exec_module(module)
    return module


def _positions(deals: int, samples: int, width_of: Any) -> list[tuple[Any, np.ndarray, np.ndarray, np.ndarray]]:
    from agents.base import public_state
    from agents.players.rollout import tripeaks_position
    from solitaire_env.common.deals import draw_codes
    from solitaire_env.solvability import make_game

    rng = np.random.default_rng(0)
    jobs = []
    for code in draw_codes(deals, 5, "TP", "E"):
        game, actions = make_game(code), []
        for _ in range(int(rng.integers(0, 15))):
            legal = game.legal_actions()
            if game.over or not legal:
                break
            action = legal[int(rng.integers(len(legal)))]
            game.play(action)
            actions.append(action)
        if game.over:
            continue
        state = public_state(game, actions)
        x = tripeaks_position(state)
        paths = np.array(state.legal, dtype=np.int64).reshape(-1, 1)
        lengths = np.ones(len(state.legal), dtype=np.int64)
        jobs.append((x, rng.random((samples, width_of(x.stock, x.ranks))), paths, lengths))
    return jobs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", default="c7bd6c0", help="the git revision of the old playouts.py")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--samples", type=int, default=1000)
    a = ap.parse_args()

    from agents.players import playouts as new
    from agents.players.net_file import load_net
    from agents.players.rollout import DEFAULT_POLICY, published_net

    old = _old_module(a.old)
    net = load_net(published_net(True))
    p_new, p_old = new.net_params(net, **DEFAULT_POLICY), old.net_params(net, **DEFAULT_POLICY)
    hand, hand_old = new.policy_params(**DEFAULT_POLICY), old.policy_params(**DEFAULT_POLICY)
    jobs = _positions(a.deals, a.samples, new.fill_columns)

    def run(f: Any, params: np.ndarray) -> tuple[float, list[np.ndarray]]:
        t = time.process_time()
        out = [f(x, u, paths, lengths, params) for x, u, paths, lengths in jobs]
        return time.process_time() - t, out

    _, got_new = run(new.sample_counts, p_new)
    _, got_old = run(old.sample_counts, p_old)
    _, hand_new_got = run(new.sample_counts, hand)
    _, hand_old_got = run(old.sample_counts, hand_old)
    same = sum(np.array_equal(x, y) for x, y in zip(got_new, got_old))
    same += sum(np.array_equal(x, y) for x, y in zip(hand_new_got, hand_old_got))
    if same != 2 * len(jobs):
        raise SystemExit(f"the versions differ: {2 * len(jobs) - same} of {2 * len(jobs)} position runs")
    times: dict[str, list[float]] = {"old net": [], "new net": [], "old hand-written": [], "new hand-written": []}
    for r in range(a.rounds):
        order = [
            ("old net", old.sample_counts, p_old),
            ("new net", new.sample_counts, p_new),
            ("old hand-written", old.sample_counts, hand_old),
            ("new hand-written", new.sample_counts, hand),
        ]
        for name, f, params in order if r % 2 == 0 else order[::-1]:
            times[name].append(run(f, params)[0])
    print(f"{len(jobs)} positions x {a.samples} samples, every legal move; results equal in all; {a.rounds} rounds")
    for name, values in times.items():
        print(
            f"{name:>16}: median {statistics.median(values):.3f} CPU s (min {min(values):.3f}, max {max(values):.3f})"
        )
    for what in ("net", "hand-written"):
        ratio = statistics.median(o / n for o, n in zip(times[f"old {what}"], times[f"new {what}"]))
        print(f"{what} old/new (median of the rounds' ratios): {ratio:.2f}")


if __name__ == "__main__":
    main()
