"""``solitaire-env hint-bench``: hint heuristics scored move by move (:mod:`agents.hintbench`)."""

from __future__ import annotations

import argparse
import os

from agents.verbs.flags import config_with_flags
from solitaire_env.cli_args import (
    DRAW_ARG,
    FACES_ARG,
    CLIError,
    VerbTable,
    arg,
    game_metavar,
    max_seconds_arg,
    parse_game_name,
    parse_positive,
    parse_rule_letter,
    parse_seed,
)
from solitaire_env.text import one_line

VERBS = VerbTable()
verb = VERBS.verb

HINT_BENCH_EPILOG = """\
Scores hint heuristics move by move (docs/hint_benchmark.md).  The positions are
those with a choice along the reference agent's episodes on N deal codes (drawn as for eval);
each legal move gets two labels:
  full information*  the solver on the true deal: does the move keep a winnable position
                     winnable?  A blunder loses a winnable position.  Undecided searches
                     (budget spent) are counted apart, never guessed.  * judged with hindsight.
  fair value         the move's win rate over --samples games consistent with what the player
                     has seen (each solved), with a Wilson interval: regret = the best move's
                     fair value minus the move's.
A heuristic is a registered agent (NAME or NAME:KEY=VALUE,...) or user code MODULE:FUNCTION
(a function of the public state returning a legal action).  The table gives, per heuristic,
agreement with the best fair move, full-information agreement, the blunder rate and the mean
regret with 95% intervals, then each heuristic paired with the lowest-regret one on the same
positions (exact sign test).  --out DIR writes results.json (with the worst positions),
summary.csv, positions.json (replayable) and labels.csv; --plot FILE draws blunder rate and
regret.  Every output is checked before any work.

examples:
  solitaire-env hint-bench --deals 20 --heuristics random hint lookahead oracle
  solitaire-env hint-bench --config configs/hints_tripeaks_easy.yaml --out results/hints --plot hints.png
  solitaire-env hint-bench --game ft --deals 5 --per-deal 5 --samples 4 --heuristics random hint
  solitaire-env hint-bench --heuristics hint my_module:my_hint --deals 50
"""


@verb(
    "hint-bench",
    "benchmark hint heuristics move by move: blunders against the solver, regret against fair values",
    arg("--config", metavar="FILE", help="a YAML hint-benchmark config (see configs/); the flags below override it"),
    arg("--game", type=parse_game_name, metavar=game_metavar, help="the game (default tp)"),
    arg("--rules", type=parse_rule_letter, metavar="E|C", help="TriPeaks: the deal codes' rule letter (default E)"),
    arg("--deals", type=parse_positive, metavar="N", help="how many deal codes (default 50)"),
    arg("--seed", type=parse_seed, metavar="N", help="seed of the deal codes, the agents and the samples (default 0)"),
    arg("--reference", metavar="AGENT", help="the agent whose episodes give the positions (default hint)"),
    arg(
        "--heuristics",
        nargs="+",
        metavar="H",
        help="agents NAME[:KEY=VALUE,...] or MODULE:FUNCTION (default random hint)",
    ),
    arg("--every", type=parse_positive, metavar="K", help="keep every K-th position with a choice (default 1)"),
    arg("--per-deal", type=parse_positive, metavar="N", help="at most N positions a deal (default: all)"),
    arg("--samples", type=parse_positive, metavar="S", help="fair-value samples per position (default 20)"),
    arg(
        "--decided-only",
        action="store_const",
        const=True,
        help="score only the positions where the solver decided every move (Forty Thieves)",
    ),
    arg(
        "--max-nodes",
        type=parse_positive,
        metavar="N",
        help="solver node budget per search (default without --max-seconds: 200000 tp, 100000 ft)",
    ),
    max_seconds_arg("solver time budget per search (alone: the only limit; with --max-nodes: the first spent)"),
    arg("--workers", type=parse_positive, metavar="W", help="worker processes or Ray actors (default: all cores)"),
    arg("--backend", choices=("process", "ray"), help="process: a local process pool (default); ray: a Ray cluster"),
    arg("--ray-address", metavar="ADDR", help="with --backend ray: the cluster to join"),
    arg("--out", metavar="DIR", help="write results.json, summary.csv, positions.json and labels.csv here"),
    arg("--plot", metavar="FILE", help="draw blunder rate and mean regret per heuristic (needs matplotlib)"),
    DRAW_ARG,
    FACES_ARG,
    arg("--foundation-return", choices=("on", "off"), help="Forty Thieves: foundation to column moves (default on)"),
    arg("--dry-run", action="store_true", help="validate the settings, print what would run, and stop"),
    arg("--no-progress", action="store_true", help="no progress bar on stderr"),
    epilog=HINT_BENCH_EPILOG,
)
def cmd_hint_bench(args: argparse.Namespace) -> int:
    from agents.hintbench.config import HintBenchConfig
    from agents.hintbench.run import run_hint_bench
    from solitaire_env.common.backends import RayUnavailableError

    keys = ("game", "rules", "deals", "seed", "reference", "heuristics", "every", "per_deal", "samples", "max_nodes",
            "max_seconds", "decided_only")  # fmt: skip
    raw = config_with_flags(args, (*keys, "workers", "backend", "ray_address", "out", "plot"), ("draw", "faces"))
    config = HintBenchConfig.from_mapping(raw, source=args.config)
    config.check_outputs()
    if args.dry_run:
        print(config.dry_run_text(), end="")
        return 0
    try:
        result = run_hint_bench(config, progress=not args.no_progress)
    except RayUnavailableError as error:
        raise CLIError(str(error)) from None
    except (RuntimeError, ValueError) as error:  # a heuristic's illegal move, a worker that died
        raise CLIError(one_line(error)) from None
    print(result.header(), end="")
    print()
    print(result.table(), end="", flush=True)
    if config.out is not None:
        result.write(config.out)
        print(f"wrote {os.path.join(config.out, 'results.json')} and summary.csv, positions.json, labels.csv")
    if config.plot is not None:
        result.plot(config.plot)
        print(f"plotted blunder rates and regrets to {config.plot}")
    return 0
