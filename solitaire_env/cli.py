"""The ``solitaire-env`` command (also ``python -m solitaire_env``): argument parsing and dispatch.

Each verb is one function registered with :func:`verb`, which declares its arguments;
the function reads the parsed arguments, calls the library and returns the exit status.
Adding a verb is adding one such function.  The work is done elsewhere: the deal and rules the
arguments name in :mod:`solitaire_env.deal_args`, what ``deal``, ``solve`` and ``hint`` print
(and the move names ``hint`` reads) in :mod:`solitaire_env.text`, the run over many deals in
:mod:`solitaire_env.solvability`, terminal play in :mod:`solitaire_env.common.tty` and each
game's ``session`` module, benchmarks in :mod:`solitaire_env.bench`, and evaluation, replay and
training in ``agents`` (imported lazily: this module is the one place that joins the library and
the agents; what ``eval --dry-run`` and ``train --dry-run`` print is the configs'
``dry_run_text()``, and which agents' numba kernels are not cached yet
:func:`agents.evaluation.harness.numba_cold_agents` says).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from solitaire_env import __version__
from solitaire_env.common.deals import DealCodeError, GameCode
from solitaire_env.common.outputs import output_path_problem
from solitaire_env.common.render import write_text
from solitaire_env.deal_args import game_for, load_deal, random_game, rule_options, rules_for, source_note, source_text
from solitaire_env.games import GAMES, TRIPEAKS, game_spec, spec_of
from solitaire_env.text import deal_text, hint_text, one_line, play_moves, solve_text

PROG = "solitaire-env"
#: Exit status of every error.
EXIT_ERROR = 2


class CLIError(Exception):
    """An error to report as one line (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with errors raised (and reported by :func:`main` as one line) instead of printed with usage."""

    def error(self, message: str) -> NoReturn:
        m = re.match(r"argument VERB: invalid choice: (\S+)", message)
        if m:
            message = f"unknown verb {m.group(1).strip(',')}; choose from {', '.join(VERBS)} (see {PROG} --help)"
        raise CLIError(message)


# --------------------------------------------------------------------------- verb registry

Arg = tuple[tuple[str, ...], dict[str, Any]]


def arg(*flags: str, **kwargs: Any) -> Arg:
    """One argument of a verb, as :meth:`argparse.ArgumentParser.add_argument` takes it."""
    return flags, kwargs


@dataclass(frozen=True)
class Verb:
    name: str
    help: str
    args: tuple[Arg, ...]
    run: Callable[[argparse.Namespace], int]
    epilog: str | None = None


#: The verbs, in the order ``--help`` lists them.
VERBS: dict[str, Verb] = {}


def verb(
    name: str, help: str, *args: Arg, epilog: str | None = None
) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Register the decorated function as the verb ``name`` with arguments ``args``."""

    def register(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        VERBS[name] = Verb(name, help, args, func, epilog)
        return func

    return register


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=f"Solitaire games ({', '.join(g.title for g in GAMES)}) for AI agents: deals, terminal play "
        "and more.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs")
    for v in VERBS.values():
        p = sub.add_parser(
            v.name,
            help=v.help,
            description=v.help,
            epilog=v.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for flags, kwargs in v.args:
            if kwargs.get("type") in (_game, _game_name):  # --game: the games of the table
                kwargs = {**kwargs, "metavar": "|".join(g.code.lower() for g in GAMES)}
            p.add_argument(*flags, **kwargs)
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


# --------------------------------------------------------------------------- argument types


def _game(text: str) -> GameCode:
    """A game given by code letters or name (``tp``, ``tripeaks``, ``Forty Thieves``): its code letters."""
    try:
        return game_spec(text).code
    except ValueError:
        want = " or ".join(f"{g.code.lower()} ({g.title})" for g in GAMES)
        raise argparse.ArgumentTypeError(f"want {want}, got {text!r}") from None


def _rule_letter(text: str) -> str:
    letter = text.strip().upper()
    if letter not in TRIPEAKS.letter_names:
        raise argparse.ArgumentTypeError(f"want E (Easy) or C (Classic), got {text!r}")
    return letter


def _jokers(text: str) -> int:
    if text.strip() not in ("0", "1", "2"):
        raise argparse.ArgumentTypeError(f"want 0, 1 or 2, got {text!r}")
    return int(text)


def _whole_number(minimum: int) -> Callable[[str], int]:
    """The argument type of a whole number >= ``minimum``."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"want a whole number >= {minimum}, got {text!r}")
        return value

    return whole_number


_seed = _whole_number(0)
_positive = _whole_number(1)


def _seconds(text: str) -> float:
    """The argument type of a time budget: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"want a number of seconds > 0, got {text!r}")
    return value


def _game_name(text: str) -> str:
    return game_spec(_game(text)).name


SOURCE_ARGS: tuple[Arg, ...] = (
    arg(
        "code",
        nargs="?",
        metavar="CODE",
        help="a deal code like TP1-E-AAAAAAB or FT1-N-AAAAAAB (case-insensitive), or a deal string "
        "(it contains '|'); default: a random code of --game",
    ),
    arg(
        "--string-in",
        metavar="DEAL",
        help="read this deal string: TriPeaks 28 tableau cards | waste | stock, Forty Thieves 10 columns | stock",
    ),
    arg("--file", metavar="PATH", help="read a deal code or deal string from a file ('-' for stdin)"),
    arg(
        "--game",
        type=_game,
        metavar="tp|ft",
        help="the game: tp TriPeaks, ft Forty Thieves.  A code names its game and a deal string's number of "
        "sections does (3 TriPeaks, 11 Forty Thieves); with no deal given, the game of the random deal "
        "(default tp)",
    ),
    arg("--seed", type=_seed, metavar="N", help="seed of the generator that draws random deal codes"),
)
RULE_ARGS: tuple[Arg, ...] = (
    arg(
        "--rules",
        type=_rule_letter,
        metavar="E|C",
        help="TriPeaks rule: E Easy (K-A adjacent) or C Classic; a code's own letter decides for a code "
        "(default E for a deal string or a random deal)",
    ),
    arg("--jokers", type=_jokers, metavar="N", help="TriPeaks: 0, 1 or 2 jokers shuffled into the stock (default 0)"),
)

# The rule options that several verbs take, written once.
DRAW_ARG = arg("--draw", choices=("anytime", "when_stuck"), help="TriPeaks: when drawing is allowed (default anytime)")
FACES_ARG = arg("--faces", choices=("standard", "open"), help="TriPeaks: open: all 28 cards face up (default standard)")
WASTE_START_ARG = arg(
    "--waste-start",
    choices=("card", "empty"),
    help="TriPeaks: empty: the stock has 24, any first play (default card)",
)
FOUNDATION_RETURN_ARG = arg(
    "--foundation-return",
    choices=("on", "off"),
    help="Forty Thieves: whether a foundation's top card may go back to a column (default on)",
)


def max_nodes_arg(help: str) -> Arg:
    """``--max-nodes N``, the solver's node budget, described by ``help``."""
    return arg("--max-nodes", type=_positive, metavar="N", help=help)


def max_seconds_arg(help: str) -> Arg:
    """``--max-seconds S``, the solver's time budget, described by ``help``."""
    return arg("--max-seconds", type=_seconds, metavar="S", help=help)


def _check_output(option: str, path: str | None, *, folder: bool = False) -> None:
    """A one-line error (before any work) if ``option``'s ``path`` cannot be written."""
    if path is not None:
        problem = output_path_problem(path, folder=folder)
        if problem is not None:
            raise CLIError(f"{option} {path!r} {problem}")


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
        help="print only the deal string (TriPeaks 28 tableau | waste | stock; Forty Thieves 10 columns | stock)",
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
    "play TriPeaks or Forty Thieves in the terminal",
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
mean and max nodes, mean solver ms per deal and the wall time.

The exit status is 0 for every verdict; 2 for bad input.

examples:
  solitaire-env solve TP1-E-AAAAAAB
  solitaire-env solve TP1-C-AAAAAAB --max-nodes 10000
  solitaire-env solve TP1-E-AAAAAAB --draw when_stuck --jokers 1
  solitaire-env solve "8S AD ... | 5H | 8D ..." --rules C
  solitaire-env solve --deals 10000 --seed 0 --rules E
  solitaire-env solve --deals 1000 --seed 0 --rules C --workers 2 --json results.json
  solitaire-env solve --deals 20 --game ft --seed 1
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
    arg("--deals", type=_positive, metavar="N", help="solve N random deals drawn from --seed and print a table"),
    arg("--workers", type=_positive, metavar="W", help="with --deals: worker processes (default: all cores)"),
    arg(
        "--json",
        metavar="FILE",
        help="write the per-deal results (code, status, nodes, best, seconds, line) to FILE once solved",
    ),
    arg("--no-progress", action="store_true", help="with --deals: no progress bar on stderr"),
    epilog=SOLVE_EPILOG,
)
def cmd_solve(args: argparse.Namespace) -> int:
    from solitaire_env.solvability import DealResult, write_results_json
    from solitaire_env.solving import solve

    if args.deals is not None:
        return _solve_many(args)
    for option, value in (("--workers", args.workers), ("--no-progress", args.no_progress or None)):
        if value is not None:
            raise CLIError(f"{option} applies to --deals N only")
    deal, letter = load_deal(args)
    game = game_for(args, deal, letter)
    _check_output("--json", args.json)
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
    _check_output("--json", args.json)
    codes = run.codes()
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


# --------------------------------------------------------------------------- eval


def _config_with_flags(args: argparse.Namespace, keys: Sequence[str], env_flags: Sequence[str]) -> dict[str, Any]:
    """The settings of ``--config`` (if given) with the flags given on top: ``keys`` by name,
    ``env_flags`` and ``--foundation-return`` into its ``env`` mapping."""
    from agents.settings import load_config_file

    raw: dict[str, Any] = load_config_file(args.config) if args.config is not None else {}
    for key in keys:
        if getattr(args, key) is not None:
            raw[key] = getattr(args, key)
    flags = {k: getattr(args, k) for k in env_flags}
    if args.foundation_return is not None:
        flags["foundation_return"] = args.foundation_return == "on"
    flags = {k: v for k, v in flags.items() if v is not None}
    if flags:
        env = raw.get("env") or {}
        if not isinstance(env, dict):
            raise CLIError(f"{args.config}: env: want a mapping of env keywords, got {env!r}")
        raw["env"] = {**env, **flags}
    return raw


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
    arg("--game", type=_game_name, metavar="tp|ft", help="the game (default tp)"),
    arg("--rules", type=_rule_letter, metavar="E|C", help="TriPeaks: the deal codes' rule letter (default E)"),
    arg("--agents", nargs="+", metavar="AGENT", help="agents: NAME or NAME:KEY=VALUE,... (default random)"),
    arg("--deals", type=_positive, metavar="N", help="how many deal codes (default 100)"),
    arg("--seed", type=_seed, metavar="N", help="seed of the deal codes and of the agents (default 0)"),
    arg("--workers", type=_positive, metavar="W", help="worker processes or Ray actors (default: all cores)"),
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
    arg("--jokers", type=_jokers, metavar="N", help="TriPeaks: 0, 1 or 2 jokers in the stock (default 0)"),
    arg("--scoring", choices=("app", "classic", "streak"), help="scoring preset (default app; Forty Thieves: app)"),
    arg("--foundation-return", choices=("on", "off"), help="Forty Thieves: foundation to column moves (default on)"),
    arg("--dry-run", action="store_true", help="validate the settings, print what would run, and stop"),
    arg("--no-progress", action="store_true", help="no progress bar on stderr"),
    epilog=EVAL_EPILOG,
)
def cmd_eval(args: argparse.Namespace) -> int:
    from agents.evaluation.backends import RayUnavailableError
    from agents.evaluation.config import EvalConfig
    from agents.evaluation.harness import (
        COMPILE_NOTE,
        EvalResult,
        OutputWriteError,
        check_outputs,
        evaluate,
        numba_cold_agents,
    )

    keys = ("game", "rules", "deals", "seed", "agents", "workers", "backend", "ray_address", "compare")
    env_flags = ("draw", "faces", "waste_start", "jokers", "scoring")
    raw = _config_with_flags(args, (*keys, "out", "record", "plot"), env_flags)
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


# --------------------------------------------------------------------------- hint-bench

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
    arg("--game", type=_game_name, metavar="tp|ft", help="the game (default tp)"),
    arg("--rules", type=_rule_letter, metavar="E|C", help="TriPeaks: the deal codes' rule letter (default E)"),
    arg("--deals", type=_positive, metavar="N", help="how many deal codes (default 50)"),
    arg("--seed", type=_seed, metavar="N", help="seed of the deal codes, the agents and the samples (default 0)"),
    arg("--reference", metavar="AGENT", help="the agent whose episodes give the positions (default hint)"),
    arg(
        "--heuristics",
        nargs="+",
        metavar="H",
        help="agents NAME[:KEY=VALUE,...] or MODULE:FUNCTION (default random hint)",
    ),
    arg("--every", type=_positive, metavar="K", help="keep every K-th position with a choice (default 1)"),
    arg("--per-deal", type=_positive, metavar="N", help="at most N positions a deal (default: all)"),
    arg("--samples", type=_positive, metavar="S", help="fair-value samples per position (default 20)"),
    arg(
        "--decided-only",
        action="store_const",
        const=True,
        help="score only the positions where the solver decided every move (Forty Thieves)",
    ),
    arg(
        "--max-nodes",
        type=_positive,
        metavar="N",
        help="solver node budget per search (default without --max-seconds: 200000 tp, 100000 ft)",
    ),
    max_seconds_arg("solver time budget per search (alone: the only limit; with --max-nodes: the first spent)"),
    arg("--workers", type=_positive, metavar="W", help="worker processes or Ray actors (default: all cores)"),
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
    from agents.evaluation.backends import RayUnavailableError
    from agents.hintbench.config import HintBenchConfig
    from agents.hintbench.run import run_hint_bench

    keys = ("game", "rules", "deals", "seed", "reference", "heuristics", "every", "per_deal", "samples", "max_nodes",
            "max_seconds", "decided_only")  # fmt: skip
    raw = _config_with_flags(args, (*keys, "workers", "backend", "ray_address", "out", "plot"), ("draw", "faces"))
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


# --------------------------------------------------------------------------- replay

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


# --------------------------------------------------------------------------- train

TRAIN_EPILOG = """\
Trains MaskablePPO (sb3-contrib; pip install 'solitaire-env[rl]') on the numba batch env from
a YAML config (see configs/ppo_*.yaml and docs/training.md): until its timesteps or minutes,
whichever comes first; validation deals evaluated during training (MaskableEvalCallback, the
best model kept); then the test: the ppo agent on the best model next to the config's
comparison agents on the held-out test deals (paired McNemar tests).  The training stream never
deals a validation or test deal.  Writes to the out folder: model.zip, best_model.zip (each
with its sidecar JSON for the ppo agent), model.npz and best_model.npz (the numpy policies of the
afterstate and move-feature policies: they play without torch), metrics.json, learning_curve.png, evaluations.npz,
test/ (the evaluation's results) and tensorboard/ (tensorboard --logdir OUT/tensorboard).

examples:
  solitaire-env train --config configs/ppo_smoke.yaml
  solitaire-env train --config configs/ppo_tripeaks_easy.yaml
  solitaire-env train --config configs/ppo_tripeaks_easy.yaml --resume runs/ppo_tripeaks_easy/model.zip \\
      --timesteps 2000000 --out runs/ppo_tripeaks_easy_more
  solitaire-env eval --agents lookahead ppo:model=runs/ppo_tripeaks_easy/best_model.zip --deals 1000
"""


@verb(
    "train",
    "train MaskablePPO from a YAML config: validation while training, test on held-out deals, model + metrics",
    arg("--config", metavar="FILE", required=True, help="a YAML training config (see configs/ppo_*.yaml)"),
    arg("--timesteps", type=_positive, metavar="N", help="override: env steps to train (with --resume: steps to add)"),
    arg("--minutes", type=float, metavar="M", help="override: wall-clock limit of the learning, in minutes"),
    arg("--seed", type=_seed, metavar="N", help="override: the seed of the envs, the policy and PPO"),
    arg("--out", metavar="DIR", help="override: the output folder"),
    arg("--resume", metavar="MODEL", help="go on training this saved model (model.zip of an earlier run)"),
    arg("--test-deals", type=int, metavar="N", help="override: how many held-out test deals (0: no test)"),
    arg("--dry-run", action="store_true", help="validate the config, print what would run, and stop"),
    arg("--no-progress", action="store_true", help="no progress bar on stderr"),
    epilog=TRAIN_EPILOG,
)
def cmd_train(args: argparse.Namespace) -> int:
    from agents.training.expert_iteration import is_expert_iteration

    if is_expert_iteration(args.config):
        return _train_expert_iteration(args)
    try:
        from agents.training.train import TrainConfig, load_train_config, train
    except ImportError as error:  # pragma: no cover - the rl extra is missing
        raise CLIError(f"train needs the rl extra (pip install 'solitaire-env[rl]'): {error}") from None
    if args.minutes is not None and not 0 < args.minutes < float("inf"):
        raise CLIError(f"--minutes must be a finite number > 0, got {args.minutes}")
    if args.test_deals is not None and args.test_deals < 0:
        raise CLIError(f"--test-deals must be >= 0, got {args.test_deals}")
    config: TrainConfig = load_train_config(
        args.config, timesteps=args.timesteps, minutes=args.minutes, seed=args.seed, out=args.out, resume=args.resume
    )
    if args.test_deals is not None:
        raw = config.to_dict()
        raw["test"]["deals"] = args.test_deals
        config = TrainConfig.from_mapping(raw, source=args.config)
    if args.dry_run:
        print(config.dry_run_text(), end="")
        return 0
    result = train(config, progress=not args.no_progress)
    m = result.metrics
    best = m["best_validation"] or {}
    print(
        f"trained {m['timesteps_this_run']:,} steps in {m['learn_seconds']:.0f} s "
        f"({m['steps_per_second']:,.0f} steps/s, "
        f"stopped by {m['stopped_by']}); best validation mean return {best.get('mean_reward', float('nan')):.3f}"
        + (f", win rate {100 * best['win_rate']:.1f}%" if "win_rate" in best else "")
    )
    if "test" in m:
        print(m["test"]["table"], end="")
    for key in ("best_model", "best_model_numpy", "model", "model_numpy", "metrics", "learning_curve", "tensorboard"):
        if key in result.files:
            print(f"{key}: {result.files[key]}")
    return 0


EXPORT_EPILOG = """\
Writes the numpy policy of a trained MaskablePPO model: the scorer network of a ppo.features:
afterstate (TriPeaks) or ppo.features: moves (Forty Thieves) policy and what its inputs need, read
from MODEL and its sidecar JSON.  The ppo agent plays the .npz with numpy, without torch
(ppo:model=FILE.npz); the packaged policies that the ppo agent plays without a model are such
files.  train writes model.npz and best_model.npz itself; export is for a model.zip from
elsewhere.  Other policies (MlpPolicy, features: chain) play through torch only.

examples:
  solitaire-env export runs/ppo_tripeaks_easy/best_model.zip
  solitaire-env export runs/ppo_fortythieves/best_model.zip --out ft.npz
  solitaire-env eval --agents ppo:model=ft.npz --game ft --deals 200
"""


@verb(
    "export",
    "write a trained model.zip as a numpy policy (.npz) that the ppo agent plays without torch",
    arg("model", metavar="MODEL", help="a model.zip that train wrote (its sidecar JSON beside it)"),
    arg("--out", metavar="FILE", help="the .npz to write (default: MODEL with .npz for .zip)"),
    epilog=EXPORT_EPILOG,
)
def cmd_export(args: argparse.Namespace) -> int:
    from agents.training.export import export_policy, numpy_path

    out = args.out if args.out is not None else str(numpy_path(args.model))
    _check_output("--out", out)
    try:
        path = export_policy(args.model, out)
    except (FileNotFoundError, ValueError) as error:  # a missing rl extra too (MissingExtraError)
        raise CLIError(str(error)) from None
    print(f"numpy policy: {path} ({path.stat().st_size:,} bytes)")
    return 0


def _train_expert_iteration(args: argparse.Namespace) -> int:
    """``train`` with a ``method: expert_iteration`` config (agents/training/expert_iteration.py)."""
    from dataclasses import replace

    from agents.training.expert_iteration import load_ei_config, run_expert_iteration

    for name in ("timesteps", "resume"):
        if getattr(args, name) is not None:
            raise CLIError(f"--{name} is for MaskablePPO configs; {args.config} is an expert-iteration config")
    config = load_ei_config(args.config, out=args.out, seed=args.seed)
    if args.minutes is not None:
        if not 0 < args.minutes < float("inf"):
            raise CLIError(f"--minutes must be a finite number > 0, got {args.minutes}")
        config = replace(config, minutes=float(args.minutes))
    if args.test_deals is not None:
        if args.test_deals < 0:
            raise CLIError(f"--test-deals must be >= 0, got {args.test_deals}")
        config = replace(config, test={**config.test, "deals": args.test_deals})
    if args.dry_run:
        print(f"expert iteration of the TriPeaks rollout agent's base policy ({config.source})")
        for key, value in vars(config).items():
            if key != "source":
                print(f"  {key}: {value}")
        return 0
    metrics = run_expert_iteration(config, say=print)
    print(f"net: {metrics['net']}\nmetrics: {os.path.join(config.out, 'metrics.json')}")
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
    arg("--rounds", type=_positive, default=7, metavar="N", help="interleaved rounds, median taken (default 7)"),
    arg("--steps", type=_positive, default=50_000, metavar="N", help="CartPole steps per round (default 50000)"),
    arg("--only", choices=("env", "vector", "solver"), help="only the single envs, the batch env or the solver"),
    arg("--num-envs", type=_positive, default=1024, metavar="N", help="envs of the batch env (default 1024)"),
    arg("--solver-deals", type=_positive, default=10, metavar="N", help="deals per solver round (default 10)"),
    epilog=BENCH_EPILOG,
)
def cmd_bench(args: argparse.Namespace) -> int:
    from solitaire_env import bench

    return bench.run(args)
