"""The ``solitaire-env`` command (also ``python -m solitaire_env``).

Each verb is one function registered with :func:`verb`, which declares its arguments;
the function reads the parsed arguments, calls the library and returns the exit status.
Adding a verb is adding one such function.  Every error (a bad deal code or deal string,
an unknown verb or option, a bad option value, a missing file) is one line on stderr,
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
from solitaire_env.cards import card_text
from solitaire_env.deals import (
    Deal,
    DealCode,
    DealCodeError,
    FortyThievesDeal,
    TriPeaksDeal,
    decode_deal,
    parse_deal_code,
    random_code,
)
from solitaire_env.render import symbol, tripeaks_ansi
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

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
        description="Solitaire games (TriPeaks, Forty Thieves) for AI agents: deals, terminal play and more.",
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
        return _fail(_one_line(exc))


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        text = f"{where}{exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return EXIT_ERROR


# --------------------------------------------------------------------------- shared helpers

RULE_NAMES = {"E": "Easy (K and A are adjacent)", "C": "Classic (K and A are not adjacent)"}


def _rule_letter(text: str) -> str:
    letter = text.strip().upper()
    if letter not in RULE_NAMES:
        raise argparse.ArgumentTypeError(f"want E (Easy) or C (Classic), got {text!r}")
    return letter


def _jokers(text: str) -> int:
    if text.strip() not in ("0", "1", "2"):
        raise argparse.ArgumentTypeError(f"want 0, 1 or 2, got {text!r}")
    return int(text)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"want a whole number >= 0, got {text!r}")
    return value


SOURCE_ARGS: tuple[Arg, ...] = (
    arg(
        "code",
        nargs="?",
        metavar="CODE",
        help="a deal code like TP1-E-AAAAAAB (case-insensitive), or a deal string (it contains '|'); "
        "default: a random TriPeaks code",
    ),
    arg("--string-in", metavar="DEAL", help="read this deal string (28 tableau cards | waste | stock)"),
    arg("--file", metavar="PATH", help="read a deal code or deal string from a file ('-' for stdin)"),
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


def _source_text(args: argparse.Namespace) -> str | None:
    """The one deal code or deal string the arguments give, or ``None`` for a random deal."""
    given = [x for x in (args.code, args.string_in) if x is not None]
    if args.file is not None:
        if args.file == "-":
            given.append(sys.stdin.read())
        else:
            with open(args.file, encoding="utf-8") as f:
                given.append(f.read())
    if len(given) > 1:
        raise CLIError("give one deal: a CODE, --string-in DEAL or --file PATH")
    if not given:
        return None
    text = given[0].strip()
    if not text:
        raise CLIError("the deal is empty: want a deal code like TP1-E-AAAAAAB or a deal string")
    return text


def load_deal(args: argparse.Namespace, rng: np.random.Generator | None = None) -> tuple[Deal, str]:
    """The deal the arguments name, and its TriPeaks rule letter (``E``/``C``; ``N`` for FT).

    With no deal given, a random TriPeaks code is drawn from ``rng`` (default: a generator
    seeded by ``--seed``).
    """
    text = _source_text(args)
    jokers = args.jokers
    if text is None:
        rng = rng if rng is not None else np.random.default_rng(args.seed)
        code = random_code("TP", args.rules or "E", rng)
        return TriPeaksDeal.from_seed(code.seed, jokers=jokers or 0, rule=code.rule), code.rule
    if "|" in text:
        deal: Deal
        if text.count("|") == 10:
            deal = FortyThievesDeal.parse(text)
            return deal, "N"
        deal = TriPeaksDeal.parse(text)
        if jokers is not None and jokers != deal.jokers:
            raise CLIError(f"--jokers {jokers} does not match the deal string, which has {deal.jokers} joker(s)")
        return deal, args.rules or "E"
    code = parse_deal_code(text)
    if code.game == "TP":
        if args.rules is not None and args.rules != code.rule:
            raise CLIError(
                f"--rules {args.rules} contradicts the code {code}, whose rule letter is {code.rule}; "
                f"use {DealCode(code.game, args.rules, code.seed)} for that rule"
            )
        return decode_deal(code, jokers=jokers or 0), code.rule
    if jokers:
        raise CLIError("--jokers applies to TriPeaks only")
    return decode_deal(code), code.rule


def _not_yet_ft() -> CLIError:
    return CLIError("Forty Thieves is not available yet in this command (deal --string prints an FT deal string)")


# --------------------------------------------------------------------------- deal

DEAL_EPILOG = """\
examples:
  solitaire-env deal TP1-E-AAAAAAB            code, rules and the opening board
  solitaire-env deal tp1-c-aaaaaab --open     the full deal, face-down cards and stock included
  solitaire-env deal TP1-E-AAAAAAB --string   only the deal string (for piping)
  solitaire-env deal "8S AD ... | 5H | 8D ..."  a deal string's board
  solitaire-env deal --seed 7 --string        a random deal from seed 7
"""


@verb(
    "deal",
    "show a deal: its canonical code, rules and opening board, the full deal, or its deal string",
    *SOURCE_ARGS,
    *RULE_ARGS,
    arg("--open", action="store_true", help="show every card: the full deal, face-down cards and stock included"),
    arg("--string", action="store_true", help="print only the deal string (28 tableau | waste | stock)"),
    epilog=DEAL_EPILOG,
)
def cmd_deal(args: argparse.Namespace) -> int:
    if args.open and args.string:
        raise CLIError("choose one of --open and --string")
    deal, letter = load_deal(args)
    if args.string:
        print(deal)
        return 0
    if isinstance(deal, FortyThievesDeal):
        raise _not_yet_ft()
    print(deal_text(deal, letter, full=args.open, source=_source_text_for_note(args)), end="")
    return 0


def _source_text_for_note(args: argparse.Namespace) -> str | None:
    code = args.code
    return code.strip() if code is not None and "|" not in code else None


def deal_text(deal: TriPeaksDeal, letter: str, *, full: bool = False, source: str | None = None) -> str:
    """What ``deal`` prints for a TriPeaks deal: code, rules and the board (or the full deal)."""
    lines = []
    if deal.code is not None:
        note = f"  (read from {source!r})" if source is not None and source != str(deal.code) else ""
        lines.append(f"code:   {deal.code}{note}")
    else:
        lines.append("code:   none (a deal string)")
    lines.append("game:   TriPeaks")
    lines.append(f"rules:  {RULE_NAMES[letter]}")
    if deal.jokers:
        lines.append(f"jokers: {deal.jokers} in the stock")
    rules = TriPeaksRules(wrap=letter == "E", jokers=deal.jokers, faces="open" if full else "standard")
    board = tripeaks_ansi(TriPeaksGame(deal, rules).public_view()).split("\n")
    lines.append("")
    if full:
        lines.append("FULL DEAL: every card face up, including the 18 that start face down (not what the player sees)")
        lines.append("")
        lines.extend(board[:4])
        lines.append("")
        lines.append(f"  waste {symbol(card_text(deal.waste))}")
        stock = " ".join(symbol(card_text(c)) for c in deal.stock)
        lines.append(f"  stock ({len(deal.stock)} cards, in draw order): {stock}")
    else:
        lines.append("board at the start, as the player sees it:")
        lines.append("")
        lines.extend(board[:6])
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- play

PLAY_EPILOG = """\
keys (seed 001): arrows move between the removable cards, Enter or Space removes the card
under the cursor (or type its slot number 0-27 and Enter), D draw, U undo, H hint,
N new deal, R restart the same deal, Esc close the message, ? help, Q quit.
When stdin is not a terminal, key names are read one or more a line (d, enter, left, u,
a slot number, q ...) and the screen is printed after each line, up to the end of input.

examples:
  solitaire-env play                       a random deal
  solitaire-env play TP1-C-AAAAAAB --draw when_stuck --scoring classic
  printf 'd\\nright\\nenter\\nu\\n' | solitaire-env play TP1-E-AAAAAAB
"""


@verb(
    "play",
    "play TriPeaks in the terminal",
    *SOURCE_ARGS,
    *RULE_ARGS,
    arg("--draw", choices=("anytime", "when_stuck"), default="anytime", help="when drawing is allowed"),
    arg("--faces", choices=("standard", "open"), default="standard", help="open: all 28 cards face up"),
    arg("--waste-start", choices=("card", "empty"), default="card", help="empty: the stock has 24, any first play"),
    arg("--scoring", choices=("app", "classic", "streak"), default="app", help="scoring preset"),
    arg("--lines", action="store_true", help="read key names line by line even on a terminal"),
    epilog=PLAY_EPILOG,
)
def cmd_play(args: argparse.Namespace) -> int:
    from solitaire_env import play

    if args.file == "-":
        raise CLIError("play reads its keys from stdin: give the deal with --file PATH, not --file -")
    rng = np.random.default_rng(args.seed)
    deal, letter = load_deal(args, rng)
    if isinstance(deal, FortyThievesDeal):
        raise _not_yet_ft()
    rules = TriPeaksRules(
        wrap=letter == "E", draw=args.draw, faces=args.faces, waste_start=args.waste_start, jokers=deal.jokers
    )
    session = play.PlaySession(deal, rules, args.scoring, rng=rng)
    return play.run(session, lines=args.lines)
