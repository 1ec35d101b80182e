"""The ``solitaire-env`` command (also ``python -m solitaire_env``): argument parsing and dispatch.

Each verb is one function registered with :func:`verb`, which declares its arguments;
the function reads the parsed arguments, calls the library and returns the exit status.
Adding a verb is adding one such function.  The work is done elsewhere: the deal and rules the
arguments name in :mod:`solitaire_env.deal_args`, what ``deal``, ``solve`` and ``hint`` print
(and the move names ``hint`` reads) in :mod:`solitaire_env.text`, the run over many deals in
:mod:`solitaire_env.solvability`, terminal play in :mod:`solitaire_env.common.tty` and each
game's ``session`` module, benchmarks in :mod:`solitaire_env.bench`.

Other packages add verbs through the entry-point group :data:`PLUGIN_GROUP`: each entry point
names a mapping of verb name to :class:`~solitaire_env.cli_args.Verb` (a
:class:`~solitaire_env.cli_args.VerbTable`, built with the helpers of
:mod:`solitaire_env.cli_args`).  ``agents`` adds eval, hint-bench, replay, train and export so.
The entry points are loaded the first time :data:`VERBS` is read (when the parser is built),
sorted by name; ``--help`` lists the library's verbs, then the plug-ins', then ``bench``.  A
plug-in whose package is not installed adds nothing; one that fails to load, or that names a
verb already taken, is one error naming it.

Every error (a bad deal code or deal string, an unknown verb or option, a bad option value, a
missing file; the library's ``ValueError`` and ``OSError``) is one line on stderr,
``solitaire-env: error: <message>``, and exit status 2: never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import numpy as np

from solitaire_env import __version__
from solitaire_env.cli_args import (
    DRAW_ARG,
    EXIT_ERROR,
    FACES_ARG,
    FOUNDATION_RETURN_ARG,
    PROG,
    WASTE_START_ARG,
    Arg,
    CLIError,
    Verb,
    VerbTable,
    arg,
    check_output,
    game_codes,
    game_layouts,
    game_list,
    game_metavar,
    game_sections,
    game_titles,
    max_nodes_arg,
    max_seconds_arg,
    parse_game,
    parse_jokers,
    parse_positive,
    parse_rule_letter,
    parse_seed,
    text_now,
)
from solitaire_env.common.deals import DealCodeError
from solitaire_env.common.render import write_text
from solitaire_env.deal_args import game_for, load_deal, random_game, rule_options, rules_for, source_note, source_text
from solitaire_env.games import game_spec, spec_of
from solitaire_env.text import deal_text, hint_text, one_line, play_moves, solve_text

#: The entry-point group of the packages that add verbs.
PLUGIN_GROUP = "solitaire_env.verbs"


class _Parser(argparse.ArgumentParser):
    """argparse, with errors raised (and reported by :func:`main` as one line) instead of printed with usage."""

    def error(self, message: str) -> NoReturn:
        m = re.match(r"argument VERB: invalid choice: (\S+)", message)
        if m:
            message = f"unknown verb {m.group(1).strip(',')}; choose from {', '.join(VERBS)} (see {PROG} --help)"
        raise CLIError(message)


# --------------------------------------------------------------------------- verb registry


def plugin_verbs(taken: Mapping[str, Verb]) -> dict[str, Verb]:
    """The verbs of the installed entry points of :data:`PLUGIN_GROUP`, sorted by entry-point name.

    An entry point whose top-level package is not installed is skipped.  One that fails to
    load, that is not a mapping of name to :class:`Verb`, or that names a verb of ``taken`` or of
    another plug-in is a :class:`CLIError` naming it.
    """
    from importlib.metadata import entry_points

    found: dict[str, Verb] = {}
    seen: set[tuple[str, str]] = set()
    for point in sorted(entry_points(group=PLUGIN_GROUP), key=lambda p: (p.name, p.value)):
        if (point.name, point.value) in seen:  # the same distribution found twice on the path
            continue
        seen.add((point.name, point.value))
        where = f"the verbs plug-in {point.name!r} ({point.value}, entry point group {PLUGIN_GROUP})"
        try:
            table = point.load()
        except ModuleNotFoundError as error:
            if error.name == point.module.partition(".")[0]:  # its package is not installed
                continue
            raise CLIError(f"{where} failed to load: {type(error).__name__}: {one_line(error)}") from None
        except Exception as error:
            raise CLIError(f"{where} failed to load: {type(error).__name__}: {one_line(error)}") from None
        if not isinstance(table, Mapping) or not all(isinstance(v, Verb) and k == v.name for k, v in table.items()):
            raise CLIError(f"{where} is not a mapping of verb name to solitaire_env.cli_args.Verb: {table!r}")
        for name in table:
            if name in taken or name in found:
                raise CLIError(f"{where} adds the verb {name!r}, which {PROG} has already")
        found.update(table)
    return found


class _AllVerbs(VerbTable):
    """The library's verbs and, from the first read on, the plug-ins' (:func:`plugin_verbs`)."""

    def __init__(self) -> None:
        super().__init__()
        self._loaded = False

    def _table(self) -> dict[str, Verb]:
        if not self._loaded:
            own = self._verbs
            added = plugin_verbs(own)
            first = {n: v for n, v in own.items() if not v.last}
            self._verbs = {**first, **added, **{n: v for n, v in own.items() if v.last}}
            self._loaded = True
        return self._verbs


#: The verbs, in the order ``--help`` lists them (the plug-ins' loaded on the first read).
VERBS: VerbTable = _AllVerbs()
#: Register the decorated function as a verb of :data:`VERBS` (:meth:`VerbTable.verb`).
verb = VERBS.verb


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=f"Solitaire games ({game_titles(last=', ')}) for AI agents: deals, terminal play and more.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs")
    for v in VERBS.values():
        p = sub.add_parser(
            v.name,
            help=text_now(v.help),
            description=text_now(v.help),
            epilog=v.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for flags, kwargs in v.args:
            made: dict[str, Any] = {k: text_now(x) if k in ("help", "metavar") else x for k, x in kwargs.items()}
            p.add_argument(*flags, **made)
        p.set_defaults(run=v.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help and --version
            return exc.code if isinstance(exc.code, int) else 0
        if args.verb is None:
            raise CLIError(f"missing verb: choose from {', '.join(VERBS)} (see {PROG} --help)")
        status: int = args.run(args)
        return status
    except BrokenPipeError:  # the reader of our output went away (| head): stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except (CLIError, DealCodeError, ValueError, OSError) as exc:  # DealCodeError is a ValueError
        if len(getattr(exc, "problems", ())) > 1:  # a config's mistakes (ConfigError): one line each
            for line in str(exc).splitlines():
                print(f"{PROG}: error: {' '.join(line.split())}", file=sys.stderr)
            return EXIT_ERROR
        return _fail(one_line(exc))


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return EXIT_ERROR


# --------------------------------------------------------------------------- the deal and its rules

SOURCE_ARGS: tuple[Arg, ...] = (
    arg(
        "code",
        nargs="?",
        metavar="CODE",
        help=lambda: (
            f"a deal code like {game_codes()} (case-insensitive), or a deal string "
            "(it contains '|'); default: a random code of --game"
        ),
    ),
    arg(
        "--string-in",
        metavar="DEAL",
        help=lambda: f"read this deal string: {game_layouts()}",
    ),
    arg("--file", metavar="PATH", help="read a deal code or deal string from a file ('-' for stdin)"),
    arg(
        "--game",
        type=parse_game,
        metavar=game_metavar,
        help=lambda: (
            f"the game: {game_list()}.  A code names its game and a deal string's number of "
            f"sections does ({game_sections()}); with no deal given, the game of the random deal "
            "(default tp)"
        ),
    ),
    arg("--seed", type=parse_seed, metavar="N", help="seed of the generator that draws random deal codes"),
)
RULE_ARGS: tuple[Arg, ...] = (
    arg(
        "--rules",
        type=parse_rule_letter,
        metavar="E|C",
        help="TriPeaks rule: E Easy (K-A adjacent) or C Classic; a code's own letter decides for a code "
        "(default E for a deal string or a random deal)",
    ),
    arg(
        "--jokers",
        type=parse_jokers,
        metavar="N",
        help="TriPeaks: 0, 1 or 2 jokers shuffled into the stock (default 0)",
    ),
)


# --------------------------------------------------------------------------- deal

DEAL_EPILOG = """\
examples:
  solitaire-env deal TP1-E-AAAAAAB            code, rules and the opening board
  solitaire-env deal tp1-c-aaaaaab --open     the full deal, face-down cards and stock included
  solitaire-env deal TP1-E-AAAAAAB --string   only the deal string (for piping)
  solitaire-env deal "8S AD ... | 5H | 8D ..."  a deal string's board
  solitaire-env deal --seed 7 --string        a random deal from seed 7
  solitaire-env deal FT1-N-AAAAAAB            a Forty Thieves deal: 10 columns of 4, stock 64
  solitaire-env deal FT1-N-AAAAAAB --open     ... and its hidden stock in draw order
  solitaire-env deal --game ft --seed 7       a random Forty Thieves deal
"""


@verb(
    "deal",
    "show a deal: its canonical code, rules and opening board, the full deal, or its deal string",
    *SOURCE_ARGS,
    *RULE_ARGS,
    arg("--open", action="store_true", help="show every card: face-down cards and the stock in draw order"),
    arg(
        "--string",
        action="store_true",
        help=lambda: f"print only the deal string ({game_layouts('; ')})",
    ),
    epilog=DEAL_EPILOG,
)
def cmd_deal(args: argparse.Namespace) -> int:
    if args.open and args.string:
        raise CLIError("choose one of --open and --string")
    deal, letter = load_deal(args)
    if args.string:
        print(deal)
        return 0
    write_text(deal_text(deal, letter, full=args.open, source=source_note(args)))
    return 0


# --------------------------------------------------------------------------- play

PLAY_EPILOG = """\
TriPeaks keys: arrows move between the removable cards, Enter or Space removes the card
under the cursor (or type its slot number 0-27 and Enter), D draw, U undo, H hint,
N new deal, R restart the same deal, Esc close the message, ? help, Q quit.

Forty Thieves keys: left/right move the cursor over columns 1-10, the waste and the
foundations; Enter is the app's double click on the cursor's card, Space its tap; or type a
source (1-9, 0 = column 10, w waste, f then 1-8 a foundation) then a destination (a column key,
or f the foundations): 3 5, w f, 3 f, f2 7.  D, U, N, R, Esc, ?, Q as in TriPeaks.

The game: a code's or a deal string's own; with no deal given, --game (default tp).
When stdin is not a terminal, key names are read one or more a line (d, enter, left, u,
a slot number; for Forty Thieves one move a line: 3 5, w f, f2 7 ...) and the screen is
printed after each line, up to the end of input.

examples:
  solitaire-env play                       a random TriPeaks deal
  solitaire-env play --game ft             a random Forty Thieves deal
  solitaire-env play TP1-C-AAAAAAB --draw when_stuck --scoring classic
  solitaire-env play FT1-N-AAAAAAB --foundation-return off
  printf 'd\\nright\\nenter\\nu\\n' | solitaire-env play TP1-E-AAAAAAB
  printf '2 f\\nd\\nw 4\\nu\\n' | solitaire-env play FT1-N-AAAAAAB
"""


@verb(
    "play",
    lambda: f"play {game_titles()} in the terminal",
    *SOURCE_ARGS,
    *RULE_ARGS,
    DRAW_ARG,
    FACES_ARG,
    WASTE_START_ARG,
    arg(
        "--scoring",
        choices=("app", "classic", "streak"),
        help="scoring preset (default app; Forty Thieves has app only)",
    ),
    arg(
        "--foundation-return",
        choices=("on", "off"),
        help="Forty Thieves: whether a foundation's top card may go back to a column (default on, as in the app)",
    ),
    arg("--lines", action="store_true", help="read key names line by line even on a terminal"),
    epilog=PLAY_EPILOG,
)
def cmd_play(args: argparse.Namespace) -> int:
    from solitaire_env.common.tty import run

    if args.file == "-":
        raise CLIError("play reads its keys from stdin: give the deal with --file PATH, not --file -")
    rng = np.random.default_rng(args.seed)
    deal, letter = load_deal(args, rng)
    session = spec_of(deal).plugin.session(deal, rules_for(args, deal, letter), args, rng)
    return run(session, lines=args.lines)


# --------------------------------------------------------------------------- solve

SOLVE_EPILOG = """\
One deal: prints the verdict (solved / unsolvable / intractable), the line (a winning line,
or the line that clears the most cards) as env actions and in words, the node count and the
time.  The solver sees every card: it is an oracle, not a player.

Many deals (--deals N): draws N codes from numpy's default_rng(--seed, default 0) with
solitaire_env.common.deals.random_code (the draw env.reset(seed=...) makes), solves them in
--workers processes and prints each verdict's count and share with a 95% Wilson interval,
mean and max nodes, mean solver ms per deal and the wall time.  With --out FILE.jsonl each
deal's row is appended to FILE as it finishes; the same command again resumes the run.

The exit status is 0 for every verdict; 2 for bad input.

examples:
  solitaire-env solve TP1-E-AAAAAAB
  solitaire-env solve TP1-C-AAAAAAB --max-nodes 10000
  solitaire-env solve TP1-E-AAAAAAB --draw when_stuck --jokers 1
  solitaire-env solve "8S AD ... | 5H | 8D ..." --rules C
  solitaire-env solve --deals 10000 --seed 0 --rules E
  solitaire-env solve --deals 1000 --seed 0 --rules C --workers 2 --json results.json
  solitaire-env solve --deals 20 --game ft --seed 1
  solitaire-env solve --deals 1000 --game ft --seed 7 --max-seconds 20 --out runs.jsonl
  solitaire-env solve --deals 1000 --game ft --max-seconds 20 --out runs.jsonl --backend ray
"""


@verb(
    "solve",
    "solve a deal (verdict, winning line, nodes, time), or the solvability of N random deals",
    *SOURCE_ARGS,
    *RULE_ARGS,
    DRAW_ARG,
    WASTE_START_ARG,
    FOUNDATION_RETURN_ARG,
    max_nodes_arg(
        "node budget per deal (alone: the only limit; default 1,000,000 when --max-seconds is not given either);"
        " a spent budget is 'intractable'"
    ),
    max_seconds_arg(
        "time budget per deal (alone: the only limit; with --max-nodes: whichever runs out first; Forty Thieves"
        " runs its anytime schedule); a spent budget is 'intractable'"
    ),
    arg("--deals", type=parse_positive, metavar="N", help="solve N random deals drawn from --seed and print a table"),
    arg("--workers", type=parse_positive, metavar="W", help="with --deals: worker processes (default: all cores)"),
    arg(
        "--json",
        metavar="FILE",
        help="write the per-deal results (code, status, nodes, best, seconds, line) to FILE once solved",
    ),
    arg(
        "--out",
        metavar="FILE.jsonl",
        help="with --deals: append one JSON line a deal to FILE as it finishes; run the same command again to"
        " resume (the deals already in FILE are skipped)",
    ),
    arg(
        "--backend",
        choices=("process", "ray"),
        help="with --out: process: a local process pool (default); ray: Ray actors, a local Ray or --ray-address",
    ),
    arg("--ray-address", metavar="ADDR", help="with --backend ray: the cluster to join (default: RAY_ADDRESS, local)"),
    arg("--no-progress", action="store_true", help="with --deals: no progress bar on stderr"),
    epilog=SOLVE_EPILOG,
)
def cmd_solve(args: argparse.Namespace) -> int:
    from solitaire_env.solvability import DealResult, write_results_json
    from solitaire_env.solving import solve

    if args.deals is not None:
        return _solve_many(args)
    only_many = (("--workers", args.workers), ("--no-progress", args.no_progress or None), ("--out", args.out))
    for option, value in (*only_many, ("--backend", args.backend), ("--ray-address", args.ray_address)):
        if value is not None:
            raise CLIError(f"{option} applies to --deals N only")
    deal, letter = load_deal(args)
    game = game_for(args, deal, letter)
    check_output("--json", args.json)
    solve(game, max_nodes=1)  # load the compiled solver first, so that the time is the search's
    result = solve(game, max_nodes=args.max_nodes, max_seconds=args.max_seconds)
    text = solve_text(
        game, letter, result, max_nodes=args.max_nodes, source=source_note(args), max_seconds=args.max_seconds
    )
    print(text, end="")
    if args.json is not None:
        row = DealResult.of(str(deal.code) if deal.code is not None else str(deal), result)
        data = {"max_nodes": args.max_nodes, "max_seconds": args.max_seconds, "results": [row.to_dict()]}
        write_results_json(args.json, data)
    return 0


def _solve_many(args: argparse.Namespace) -> int:
    from solitaire_env.solvability import SolvabilityRun, default_workers, summary_table, write_results_json

    if source_text(args) is not None:
        raise CLIError("give one deal (CODE, --string-in or --file) or --deals N, not both")
    game = random_game(args, "the random deals").code
    run = SolvabilityRun(
        game,
        args.rules or game_spec(game).default_rule,  # --rules is refused above for a game without it
        args.deals,
        seed=0 if args.seed is None else args.seed,
        rules=rule_options(args, game),
        max_nodes=args.max_nodes,
        workers=args.workers or default_workers(),
        max_seconds=args.max_seconds,
    )
    check_output("--json", args.json)
    check_output("--out", args.out)
    if args.out is None and (args.backend is not None or args.ray_address is not None):
        raise CLIError("--backend and --ray-address apply to --deals N --out FILE only")
    if args.ray_address is not None and args.backend != "ray":
        raise CLIError("--ray-address applies to --backend ray only")
    codes = run.codes()
    if args.out is not None:
        from solitaire_env.solve_runs import RunFileError, read_run_file, solve_to_file

        try:
            done = len(read_run_file(args.out, run))  # another run's file fails here, before any work
        except RunFileError as e:
            raise CLIError(str(e)) from None
        print(run.header(codes), end="")
        if done:
            print(f"resuming {args.out}: {done} of {run.deals} deals done")
        start = time.perf_counter()
        from solitaire_env.common.backends import RayUnavailableError

        try:
            rows = solve_to_file(
                run,
                args.out,
                progress=not args.no_progress,
                backend=args.backend or "process",
                address=args.ray_address,
            )
        except RayUnavailableError as e:
            raise CLIError(str(e)) from None
        wall = time.perf_counter() - start
    else:
        print(run.header(codes), end="")
        rows, wall = run.solve(codes, progress=not args.no_progress)
    print()
    print(summary_table(rows, wall_seconds=wall), end="")
    if args.json is not None:
        write_results_json(args.json, run.to_json(rows, wall))
    return 0


# --------------------------------------------------------------------------- hint

HINT_EPILOG = """\
Prints the hint (solitaire_env.hint, docs/hints.md) for the position that --moves reach from
the deal: the suggested move as an env action and in words, the verdict and the reason, and
the board as the player sees it.  The hint never peeks: it reads only the cards the player
has seen, and consults the full-information solver only once every card is known (every
face-down card turned and every stock card drawn), so "unwinnable" is a proof; while cards
are hidden the verdict is "unknown".  Forty Thieves with stock cards unseen: the move is the
fair planner's (the plan up to the next draw that did best on sampled stock orders, printed
as "plan:"; a few tenths of a second of CPU), or with --no-plan the heuristic's, at once.

--moves A,B,... is played in order through the rules core, each move an env action number
(TriPeaks: 0-27 remove the card in that slot, 28 draws; Forty Thieves: src * 11 + dst, 209
draws) or its name as action_name() prints it ("remove 6S (slot 18)", "draw", "move AC
from column 2 to foundation"); TriPeaks also takes "remove 6S".  The hint's own "N = name"
can be appended to --moves to go on.  An illegal move is one line naming its place in the
list and the game's reason.

examples:
  solitaire-env hint TP1-E-AAAAAAB
  solitaire-env hint TP1-E-AAAAAAB --moves 27,26,28
  solitaire-env hint TP1-E-AAAAAAB --moves "remove 6D (slot 27),draw"
  solitaire-env hint TP1-C-AAAAAAB --faces open --draw when_stuck
  solitaire-env hint FT1-N-AAAAAAB --moves 21,209
  solitaire-env hint FT1-N-AAAAAAB --moves 54,21 --no-plan
  solitaire-env hint FT1-N-AAAAAAB --moves "move AC from column 2 to foundation,draw"
"""


@verb(
    "hint",
    "the hint (a move worth trying and a verdict that never peeks) for a deal after some moves",
    *SOURCE_ARGS,
    *RULE_ARGS,
    arg("--moves", metavar="A,B,...", default="", help="moves to play first, comma-separated: action numbers or names"),
    DRAW_ARG,
    FACES_ARG,
    WASTE_START_ARG,
    FOUNDATION_RETURN_ARG,
    max_nodes_arg(
        "the solver's node budget once every card is known (default 1,000,000 when --max-seconds is not given"
        " either), and each of the Forty Thieves planner's searches while stock cards are unseen"
    ),
    max_seconds_arg(
        "the solver's time budget once every card is known (alone: the only limit; with --max-nodes: whichever"
        " runs out first), and the Forty Thieves planner's whole turn search while stock cards are unseen"
    ),
    arg("--no-plan", action="store_true", help="Forty Thieves: the heuristic's move, not the planner's"),
    epilog=HINT_EPILOG,
)
def cmd_hint(args: argparse.Namespace) -> int:
    from solitaire_env import hint

    deal, letter = load_deal(args)
    game = game_for(args, deal, letter)
    played = play_moves(game, args.moves)
    h = hint(game, max_nodes=args.max_nodes, max_seconds=args.max_seconds, plan=not args.no_plan)
    print(hint_text(game, letter, h, played, source_note(args)), end="")
    return 0


BENCH_EPILOG = """\
Every figure is a ratio against a reference run interleaved with it in this process (median
of --rounds rounds): the envs against Gymnasium's CartPole-v1 (gym.make, random actions), the
TriPeaks solver against the plain pure-Python search, the Forty Thieves solver against the
pure-Python solver it replaced (same results asserted).  docs/results.md records a run.

examples:
  solitaire-env bench                      every benchmark (several minutes)
  solitaire-env bench --only vector        the batch env at 1024 envs
  solitaire-env bench --only env --rounds 9
"""


@verb(
    "bench",
    "throughput benchmarks: single envs, the batch env, the solver, each as a ratio to its reference",
    arg("--rounds", type=parse_positive, default=7, metavar="N", help="interleaved rounds, median taken (default 7)"),
    arg("--steps", type=parse_positive, default=50_000, metavar="N", help="CartPole steps per round (default 50000)"),
    arg("--only", choices=("env", "vector", "solver"), help="only the single envs, the batch env or the solver"),
    arg("--num-envs", type=parse_positive, default=1024, metavar="N", help="envs of the batch env (default 1024)"),
    arg("--solver-deals", type=parse_positive, default=10, metavar="N", help="deals per solver round (default 10)"),
    epilog=BENCH_EPILOG,
    last=True,
)
def cmd_bench(args: argparse.Namespace) -> int:
    from solitaire_env import bench

    return bench.run(args)
