"""The ppo agent's seconds per game in two source trees, interleaved, and whether they play the same moves.

Run (from the repository root):

    mkdir -p /tmp/before && git archive 5a8b111 | tar -x -C /tmp/before   # the "before" tree
    solitaire-env train --config CONFIG   # a model per game: any ppo run, e.g. configs/ppo_smoke.yaml
                                          # with game/rules/out changed and a few thousand timesteps
    python benchmarks/ppo_seconds_per_game.py --tp-model runs/tp/best_model.zip --ft-model runs/ft/best_model.zip
    python benchmarks/ppo_seconds_per_game.py --tp-model M --deals 20 --rounds 1   # a quick check

Each round runs, for each game given a model, ``python -m solitaire_env eval --agents ppo:model=M
--deals N --workers 1 --record DIR --out DIR`` once in each tree (a fresh process, the tree first
on ``PYTHONPATH`` and the working directory, checked to import its own packages), the order
alternating from round to round.  One worker: the figure is one process's time per game, what
the eval table's ``s/game`` column reports (``mean_seconds`` of results.json: the episode's wall
time in its worker, ``reset`` and every decision and step).  The table gives per game the median
over the rounds in each tree and old/new (above 1: the new tree is faster).  Then the records
of the last round are compared deal by deal: the two trees must choose the same actions and
reach the same score and outcome.  The model must load in both trees (train it with the old
one: the new one reads its files).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from before_after import check_tree, tree_env  # the same folder: run as python benchmarks/<script>.py

GAMES = {"tripeaks": "tp", "fortythieves": "ft"}


def run_eval(tree: Path, game: str, model: Path, deals: int, seed: int, out: Path) -> float:
    """One eval of the ppo agent in ``tree``; its records and results in ``out``; the s/game."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "solitaire_env", "eval", "--game", GAMES[game], "--agents"]
    cmd += [f"ppo:model={model}", "--deals", str(deals), "--seed", str(seed), "--workers", "1", "--no-progress"]
    cmd += ["--out", str(out / "results"), "--record", str(out / "records")]
    proc = subprocess.run(cmd, cwd=tree, env=tree_env(tree), capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"ppo_seconds_per_game: eval failed in {tree} (exit {proc.returncode}):\n{proc.stderr}")
    summary = json.loads((out / "results" / "results.json").read_text())["summary"]
    (row,) = summary.values()
    return float(row["mean_seconds"])


def records(folder: Path) -> dict[str, dict]:
    """The episode records under ``folder`` by deal code."""
    recs = (json.loads(p.read_text()) for p in sorted(folder.rglob("*.json")))
    return {r["deal_code"]: r for r in recs}


def same_play(old: Path, new: Path) -> tuple[int, list[str]]:
    """How many deals either tree recorded, and those missing in one or whose actions, score or outcome differ."""
    a, b = records(old), records(new)
    differ = [c for c in sorted(set(a) | set(b)) if c not in a or c not in b]
    for code in sorted(set(a) & set(b)):
        ra, rb = a[code], b[code]
        if ra["actions"] != rb["actions"] or ra["score"] != rb["score"] or ra["outcome"] != rb["outcome"]:
            differ.append(code)
    return len(set(a) | set(b)), differ


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old", type=Path, default=Path("/tmp/before"), help="the old tree (default /tmp/before)")
    p.add_argument("--new", type=Path, default=root, help="the new tree (default: this repository)")
    p.add_argument("--tp-model", type=Path, help="a TriPeaks ppo model (model.zip of a training run)")
    p.add_argument("--ft-model", type=Path, help="a Forty Thieves ppo model")
    p.add_argument("--deals", type=int, default=200, help="deals per eval (default 200)")
    p.add_argument("--seed", type=int, default=0, help="the eval seed (default 0)")
    p.add_argument("--rounds", type=int, default=3, help="rounds, each one eval per tree and game (default 3)")
    p.add_argument("--work", type=Path, default=Path("/tmp/ppo_seconds_per_game"), help="scratch folder")
    a = p.parse_args(argv)
    models = {g: m.resolve() for g, m in (("tripeaks", a.tp_model), ("fortythieves", a.ft_model)) if m}
    if not models:
        p.error("give --tp-model and/or --ft-model")
    trees = {"old": a.old.resolve(), "new": a.new.resolve()}
    for tree in trees.values():
        check_tree(tree)
    print(f"old {trees['old']}, new {trees['new']}; {a.rounds} rounds of {a.deals} deals (seed {a.seed}), 1 worker")
    times: dict[tuple[str, str], list[float]] = {(g, s): [] for g in models for s in trees}
    for r in range(a.rounds):
        for game, model in models.items():
            for side in ("old", "new") if r % 2 == 0 else ("new", "old"):
                sg = run_eval(trees[side], game, model, a.deals, a.seed, a.work / f"{game}-{side}")
                times[(game, side)].append(sg)
                print(f"round {r + 1} {game:<12} {side}: {sg:.4f} s/game", flush=True)
    print(f"\n{'game':<12}  {'old s/game':>10}  {'new s/game':>10}  {'old/new':>7}  same moves")
    for game in models:
        old, new = statistics.median(times[(game, "old")]), statistics.median(times[(game, "new")])
        n, differ = same_play(a.work / f"{game}-old" / "records", a.work / f"{game}-new" / "records")
        same = f"{n - len(differ)}/{n} deals" + (f" (differ: {', '.join(differ[:5])})" if differ else "")
        print(f"{game:<12}  {old:10.4f}  {new:10.4f}  {old / new:7.2f}  {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
