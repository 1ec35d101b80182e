"""``solitaire-env replay``: recorded episodes replayed and checked (:mod:`agents.evaluation.records`)."""

from __future__ import annotations

import argparse
import sys

from solitaire_env.cli_args import PROG, VerbTable, arg
from solitaire_env.text import one_line

VERBS = VerbTable()
verb = VERBS.verb

REPLAY_EPILOG = """\
Each record (a JSON file written by eval --record; a folder stands for every *.json under
it) is replayed in a fresh env made with the recorded env keywords: every action must be
legal, the episode must end exactly after the last one, and the score, the outcome (won,
cards cleared / founded, moves, longest chain, steps, truncated reason) and the rules must be
the recorded ones.  The first difference stops the replay: one line on stderr naming the
file and what differs, exit status 1.  A file that is not a record (bad JSON, a missing
field) exits with 2.  A record of another solitaire-env version replays with a warning
(--strict: an error).

examples:
  solitaire-env replay episodes/
  solitaire-env replay episodes/random/00007-TP1-E-IUIL36E.json --verbose
  solitaire-env replay episodes/ --rerun-agent     also re-run each agent and check its choices
"""
#: Exit status of a replay that differs from its record.
EXIT_MISMATCH = 1


@verb(
    "replay",
    "replay recorded episodes and check that they reproduce exactly",
    arg("files", nargs="+", metavar="FILE", help="episode records (JSON) or folders of them"),
    arg("--rerun-agent", action="store_true", help="also rebuild each recorded agent and check its every choice"),
    arg("--strict", action="store_true", help="a record of another solitaire-env version is an error"),
    arg("-v", "--verbose", action="store_true", help="one line per episode"),
    epilog=REPLAY_EPILOG,
)
def cmd_replay(args: argparse.Namespace) -> int:
    from agents.evaluation.records import PROGRESS_KEY, Replayer, ReplayMismatch, find_records

    paths = find_records(args.files)
    replayer = Replayer(rerun_agent=args.rerun_agent, strict=args.strict)
    warned: set[str] = set()
    n = 0
    try:
        for report in replayer.replay_files(paths):
            n += 1
            for warning in report.warnings:
                if warning not in warned:
                    warned.add(warning)
                    print(f"{PROG}: warning: {report.path}: {warning}", file=sys.stderr)
            if args.verbose:
                r = report.record
                o = r["outcome"]
                agent = r.get("agent", {}).get("name", "?")
                deal = r.get("deal_code") or "(deal string)"
                state = "won" if o["won"] else "lost"
                progress = f"{o[PROGRESS_KEY[r['game']]]} {PROGRESS_KEY[r['game']]}"
                print(
                    f"ok  {report.path}: {deal} {agent} {state}, score {r['score']}, {progress}, {o['steps']} actions"
                )
    except ReplayMismatch as error:
        print(f"{PROG}: error: {one_line(error)}", file=sys.stderr)
        return EXIT_MISMATCH
    finally:
        replayer.close()
    print(f"replayed {n} episode(s): every one reproduced exactly (legal actions, score, outcome, rules)")
    return 0
