"""Writes this folder's episode records and traces.json with an OLD tree (commit 5a8b111).

Run it with the old tree first on the path (it refuses to run with this repository's code):

    mkdir -p /tmp/before && git archive 5a8b111 | tar -x -C /tmp/before
    cd /tmp/before && PYTHONPATH=/tmp/before python /path/to/tests/data/records_5a8b111/make_records.py

For every run of ``RUNS`` it calls ``python -m solitaire_env eval ... --record`` of that tree
(one worker) into ``<run>/``, then plays every record again in that tree's envs with
``trajectory`` of tests/test_records_5a8b111.py under each of its ``VARIANTS`` and
writes the rewards and digests to ``traces.json``.  Existing run folders are replaced.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent

#: folder -> eval arguments (deals, rules, env options, agents)
RUNS = {
    "tripeaks_easy": "--game tp --rules E --deals 20 --agents random hint rollout:samples=50",
    "tripeaks_classic_variant": (
        "--game tp --rules C --deals 12 --draw when_stuck --jokers 1 --scoring classic --agents random hint"
        " rollout:samples=50"
    ),
    "tripeaks_open_variant": "--game tp --rules E --deals 8 --faces open --waste-start empty --agents random hint",
    "fortythieves": (
        "--game ft --deals 12 --agents random safe_foundation"
        " rollout:samples=1,horizon=10,candidates=3,endgame_nodes=2000"
    ),
    "fortythieves_no_return": "--game ft --deals 6 --foundation-return off --agents random safe_foundation",
}


def main() -> int:
    import solitaire_env

    tree = Path(solitaire_env.__file__).resolve().parent.parent
    if tree == REPO:
        raise SystemExit("make_records: run it with the old tree first on PYTHONPATH, not this repository")
    print(f"old tree: {tree}")
    sys.path.insert(0, str(REPO / "tests"))
    from test_records_5a8b111 import VARIANTS, trajectory

    traces = {}
    for run, args in RUNS.items():
        out = HERE / run
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "solitaire_env", "eval", *args.split(), "--seed", "0", "--workers", "1"]
        subprocess.run([*cmd, "--no-progress", "--record", str(out)], cwd=tree, check=True, stdout=subprocess.DEVNULL)
        for path in sorted(out.rglob("*.json")):
            record = json.loads(path.read_text())
            runs = {label: trajectory(record, variant) for label, variant in VARIANTS.items()}
            traces[path.relative_to(HERE).as_posix()] = {
                "info_keys": sorted(set().union(*(r["info_keys"] for r in runs.values()))),
                "rewards": [int(r) if r.is_integer() else r for r in runs["flat/score"]["rewards"]],  # (shorter)
                "digest": {label: r["digest"] for label, r in runs.items()},
            }
    lines = (f"{json.dumps(k)}: {json.dumps(traces[k], separators=(',', ':'))}" for k in sorted(traces))
    (HERE / "traces.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one record a line
    print(f"{len(traces)} records and their traces in {HERE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
