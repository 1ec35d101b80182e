"""Before/after throughput of two source trees: `solitaire-env bench` run alternately in each.

Run (from the repository root):

    mkdir -p /tmp/before && git archive 5a8b111 | tar -x -C /tmp/before   # the "before" tree
    python benchmarks/before_after.py                  # 7 rounds: old, new, new, old, old, ...
    python benchmarks/before_after.py --quick          # a dry run: 2 short rounds, ~1 minute
    python benchmarks/before_after.py --old A --new B --rounds 9 --bench-args "--only env --rounds 5"

Each round runs ``python -m solitaire_env bench`` once in each tree (a fresh process, the tree
first on ``PYTHONPATH`` and the working directory; the script checks that the tree's own
``solitaire_env`` and ``agents`` are the ones imported), the order alternating from round to
round so that a drift in the machine's load hits both alike.  Before the first round each tree
runs a short untimed bench, so that numba's on-disk caches of both trees are filled.

Every ratio line the bench prints (``<name>  <ratio>x <reference> ...``) is parsed: those ratios
are measured against a reference (CartPole, the single env, the pure-Python solver) interleaved
in the same process, so they compare across processes on a noisy, shared machine where raw
rates do not.  The table gives per line the median ratio over the rounds in the old tree, in the
new tree, and new/old (above 1: the new tree is faster).  A line only one tree prints shows
``-`` for the other.  ``--log FILE`` keeps every bench output.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

#: A ratio line of `solitaire-env bench`: name, ratio, reference name (then an optional target
#: and the rates in brackets).
RATIO_LINE = re.compile(r"^(?P<name>\S.*?)\s+(?P<ratio>\d+(?:\.\d+)?)x (?P<ref>.+?)(?: \(target| {3}\[)")

FULL_BENCH_ARGS = "--rounds 3 --steps 50000 --solver-deals 10"
QUICK_BENCH_ARGS = "--rounds 1 --steps 10000 --solver-deals 3"
WARMUP_BENCH_ARGS = "--rounds 1 --steps 1000 --solver-deals 1"


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes ``python`` import ``tree``'s packages first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def check_tree(tree: Path) -> None:
    """Fail unless ``solitaire_env`` and ``agents`` import from ``tree`` with its environment."""
    code = "import solitaire_env, agents; print(solitaire_env.__file__); print(agents.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=tree_env(tree), capture_output=True, text=True, check=True
    ).stdout.split()
    for path in out:
        if not Path(path).resolve().is_relative_to(tree.resolve()):
            raise SystemExit(f"{Path(sys.argv[0]).stem}: {tree} does not load its own packages: {path}")


def bench(tree: Path, args: str) -> str:
    """The output of one ``python -m solitaire_env bench ARGS`` in ``tree``."""
    cmd = [sys.executable, "-m", "solitaire_env", "bench", *shlex.split(args)]
    proc = subprocess.run(cmd, cwd=tree, env=tree_env(tree), capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"before_after: bench failed in {tree} (exit {proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def parse(output: str) -> dict[str, float]:
    """The ratio lines of a bench output: ``"<name> vs <reference>"`` -> ratio."""
    ratios = {}
    for line in output.splitlines():
        m = RATIO_LINE.match(line)
        if m:
            ratios[f"{m['name']} vs {m['ref']}"] = float(m["ratio"])
    return ratios


def table(old: dict[str, list[float]], new: dict[str, list[float]]) -> str:
    """Median old, median new and new/old for every line either tree printed."""
    keys = list(old) + [k for k in new if k not in old]
    width = max(len(k) for k in keys)
    rows = [f"{'bench line':<{width}}  {'old':>7}  {'new':>7}  {'new/old':>7}"]
    for k in keys:
        o = statistics.median(old[k]) if old.get(k) else None
        n = statistics.median(new[k]) if new.get(k) else None
        rel = f"{n / o:7.3f}" if o and n else f"{'-':>7}"
        rows.append(f"{k:<{width}}  {f'{o:.2f}' if o else '-':>7}  {f'{n:.2f}' if n else '-':>7}  {rel}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old", type=Path, default=Path("/tmp/before"), help="the old tree (default /tmp/before)")
    p.add_argument("--new", type=Path, default=root, help="the new tree (default: this repository)")
    p.add_argument("--rounds", type=int, help="rounds, each one bench per tree (default 7; --quick: 2)")
    p.add_argument("--quick", action="store_true", help=f"a dry run: 2 rounds of bench {QUICK_BENCH_ARGS}")
    p.add_argument("--bench-args", help=f"the bench options of every run (default {FULL_BENCH_ARGS!r})")
    p.add_argument("--log", type=Path, help="append every bench output to this file")
    a = p.parse_args(argv)
    rounds = a.rounds or (2 if a.quick else 7)
    bench_args = a.bench_args or (QUICK_BENCH_ARGS if a.quick else FULL_BENCH_ARGS)
    trees = {"old": a.old, "new": a.new}
    for tree in trees.values():
        check_tree(tree)
    print(f"old {a.old}, new {a.new}; {rounds} rounds of `solitaire-env bench {bench_args}`", flush=True)
    for tree in trees.values():
        bench(tree, WARMUP_BENCH_ARGS)  # fills the numba caches; not counted
    results: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    log = a.log.open("a") if a.log else None
    for r in range(rounds):
        order = ("old", "new") if r % 4 in (0, 3) else ("new", "old")  # old new, new old, new old, old new
        for side in order:
            out = bench(trees[side], bench_args)
            if log:
                log.write(f"=== round {r + 1} {side} ({trees[side]})\n{out}")
                log.flush()
            for k, v in parse(out).items():
                results[side].setdefault(k, []).append(v)
        print(f"round {r + 1}/{rounds} done ({' then '.join(order)})", flush=True)
    if log:
        log.close()
    print(table(results["old"], results["new"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
