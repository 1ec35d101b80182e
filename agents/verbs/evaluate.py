"""``solitaire-env eval``: agents on the same deals (:func:`agents.evaluation.harness.evaluate`).

What ``eval --dry-run`` prints is the config's ``dry_run_text()``; which agents' numba kernels are
not cached yet :func:`agents.evaluation.harness.numba_cold_agents` says.
"""

from __future__ import annotations

import argparse
import os
import sys

from agents.verbs.flags import config_with_flags
from solitaire_env.cli_args import (
    DRAW_ARG,
    FACES_ARG,
    PROG,
    CLIError,
    VerbTable,
    arg,
    game_metavar,
    parse_game_name,
    parse_jokers,
    parse_positive,
    parse_rule_letter,
    parse_seed,
)
from solitaire_env.text import one_line

VERBS = VerbTable()
verb = VERBS.verb

EVAL_EPILOG = """\
Every agent plays the same N deal codes, drawn from numpy's default_rng(--seed) by
solitaire_env.common.deals.random_code (the draw of solve --deals), in --workers processes (default:
all cores) or on a Ray cluster (--backend ray).  An agent is seeded per deal from the seed and
the deal code, so a run is reproducible.  The table gives, per agent, the win rate with its
95% Wilson interval, the mean score, cards cleared (TriPeaks) or founded (Forty Thieves),
longest chain, moves and seconds per game; then a paired comparison on the same deals
(exact McNemar test on the deals one agent won and the other lost): each agent against the
best one that does not see hidden cards (--compare best) or every pair (--compare all).

An agent is NAME or NAME:KEY=VALUE,KEY=VALUE (values typed as in YAML: 200, 0.5, true).
A YAML config (--config, see configs/) holds the same settings; the flags override it.
--out DIR writes results.json, summary.csv, pairs.csv and episodes.csv; --record DIR one
JSON per episode (replay them with: solitaire-env replay DIR); --plot FILE a bar chart of
the win rates with their intervals (needs matplotlib: pip install 'solitaire-env[plot]').
Every output is checked before the first game (a folder, not a file, for --out and --record;
an image format matplotlib can write for --plot) and missing folders are made.  The table is
printed before any file is written, so a write that fails at the end cannot take it along.
The first run of the numba agents (TriPeaks rollout, pimc, oracle) compiles their kernels,
about 10 s per worker; a line on stderr says so, and numba caches them for later runs.

examples:
  solitaire-env eval --agents random --deals 200
  solitaire-env eval --agents random oracle --deals 1000 --rules C --out results/classic
  solitaire-env eval --game ft --agents random oracle:max_nodes=5000 --deals 20
  solitaire-env eval --config configs/eval_tripeaks_easy.yaml --deals 100 --plot win_rates.png
  solitaire-env eval --config configs/eval_smoke.yaml --record episodes/
  solitaire-env eval --config configs/eval_tripeaks_easy.yaml --backend ray --ray-address auto
  solitaire-env eval --config configs/eval_fortythieves.yaml --dry-run
"""


@verb(
    "eval",
    "evaluate agents on the same N deals: win rates with intervals, paired tests, JSON/CSV, records",
    arg("--config", metavar="FILE", help="a YAML evaluation config (see configs/); the flags below override it"),
    arg("--game", type=parse_game_name, metavar=game_metavar, help="the game (default tp)"),
    arg("--rules", type=parse_rule_letter, metavar="E|C", help="TriPeaks: the deal codes' rule letter (default E)"),
    arg("--agents", nargs="+", metavar="AGENT", help="agents: NAME or NAME:KEY=VALUE,... (default random)"),
    arg("--deals", type=parse_positive, metavar="N", help="how many deal codes (default 100)"),
    arg("--seed", type=parse_seed, metavar="N", help="seed of the deal codes and of the agents (default 0)"),
    arg("--workers", type=parse_positive, metavar="W", help="worker processes or Ray actors (default: all cores)"),
    arg("--backend", choices=("process", "ray"), help="process: a local process pool (default); ray: a Ray cluster"),
    arg(
        "--ray-address", metavar="ADDR", help="with --backend ray: the cluster to join (default: RAY_ADDRESS or local)"
    ),
    arg(
        "--compare", choices=("best", "all"), help="paired tests: each agent against the best (default), or every pair"
    ),
    arg("--out", metavar="DIR", help="write results.json, summary.csv, pairs.csv and episodes.csv in this folder"),
    arg("--record", metavar="DIR", help="write one JSON record per episode in this folder (see replay)"),
    arg(
        "--plot",
        metavar="FILE",
        help="draw the win rates with their 95%% intervals; the extension names the format (png, svg, pdf, "
        "jpg, ...: any matplotlib writes; needs matplotlib)",
    ),
    DRAW_ARG,
    FACES_ARG,
    arg("--waste-start", choices=("card", "empty"), help="TriPeaks: empty: the stock has 24 (default card)"),
    arg("--jokers", type=parse_jokers, metavar="N", help="TriPeaks: 0, 1 or 2 jokers in the stock (default 0)"),
    arg("--scoring", choices=("app", "classic", "streak"), help="scoring preset (default app; Forty Thieves: app)"),
    arg("--foundation-return", choices=("on", "off"), help="Forty Thieves: foundation to column moves (default on)"),
    arg("--dry-run", action="store_true", help="validate the settings, print what would run, and stop"),
    arg("--no-progress", action="store_true", help="no progress bar on stderr"),
    epilog=EVAL_EPILOG,
)
def cmd_eval(args: argparse.Namespace) -> int:
    from agents.evaluation.config import EvalConfig
    from agents.evaluation.harness import (
        COMPILE_NOTE,
        EvalResult,
        OutputWriteError,
        check_outputs,
        evaluate,
        numba_cold_agents,
    )
    from solitaire_env.common.backends import RayUnavailableError

    keys = ("game", "rules", "deals", "seed", "agents", "workers", "backend", "ray_address", "compare")
    env_flags = ("draw", "faces", "waste_start", "jokers", "scoring")
    raw = config_with_flags(args, (*keys, "out", "record", "plot"), env_flags)
    config = EvalConfig.from_mapping(raw, source=args.config)
    check_outputs(config)  # every output path and the plot's format, before any game
    if args.dry_run:
        print(config.dry_run_text(), end="")
        return 0
    cold = numba_cold_agents(config.agents, config.game)
    if cold:
        print(f"{PROG}: {COMPILE_NOTE.format(agents=', '.join(cold))}", file=sys.stderr, flush=True)

    def print_table(result: EvalResult) -> None:  # before any file is written
        print(result.header(), end="")
        print()
        print(result.table(), end="", flush=True)

    try:
        result = evaluate(config, progress=not args.no_progress, on_result=print_table)
    except RayUnavailableError as error:
        raise CLIError(str(error)) from None
    except RuntimeError as error:  # an agent's illegal move, a worker that died
        raise CLIError(one_line(error)) from None
    except OutputWriteError as error:
        raise CLIError(f"{one_line(error)} (the table above is complete)") from None
    if config.out is not None:
        print(f"wrote {os.path.join(config.out, 'results.json')} and summary.csv, pairs.csv, episodes.csv")
    if config.record is not None:
        print(f"recorded {result.records} episodes in {config.record} (check them: {PROG} replay {config.record})")
    if config.plot is not None:
        print(f"plotted the win rates to {config.plot}")
    return 0
