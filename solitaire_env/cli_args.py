"""What a verb of ``solitaire-env`` is made of: :class:`Verb`, :func:`arg`, the argument types and
the options that several verbs share.

:mod:`solitaire_env.cli` registers the library's verbs with these, and a package that adds verbs
(see :data:`solitaire_env.cli.PLUGIN_GROUP`) builds its own :class:`VerbTable` with them, so that
its verbs parse, print their help and fail the same way.

A help text or a metavar that lists the games is a function of no arguments (:data:`Text`),
called when the parser is built: it reads :data:`solitaire_env.games.GAMES` then, so a game
registered after this module is imported is listed and accepted.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

from solitaire_env.common.deals import GameCode
from solitaire_env.common.outputs import output_path_problem
from solitaire_env.games import GAMES, TRIPEAKS, game_spec

PROG = "solitaire-env"
#: Exit status of every error.
EXIT_ERROR = 2


class CLIError(Exception):
    """An error to report as one line (exit status 2)."""


# --------------------------------------------------------------------------- verbs

#: A help text or metavar: the text, or a function that makes it when the parser is built.
Text = str | Callable[[], str]
#: One argument: the flags and the keywords of :meth:`argparse.ArgumentParser.add_argument`.
Arg = tuple[tuple[str, ...], dict[str, Any]]
#: What a verb runs: the parsed arguments in, the exit status out.
Run = Callable[[argparse.Namespace], int]


def arg(*flags: str, **kwargs: Any) -> Arg:
    """One argument of a verb, as :meth:`argparse.ArgumentParser.add_argument` takes it
    (``help`` and ``metavar`` may be a :data:`Text` function)."""
    return flags, kwargs


def text_now(value: Text | None) -> str | None:
    """``value``, made now if it is a function."""
    return value() if callable(value) else value


@dataclass(frozen=True)
class Verb:
    """One verb: its name, help, arguments, the function that runs it and its epilog.
    ``last``: listed after the verbs that plug-ins add (the library's ``bench``)."""

    name: str
    help: Text
    args: tuple[Arg, ...]
    run: Run
    epilog: str | None = None
    last: bool = False


class VerbTable(MutableMapping[str, Verb]):
    """Verbs by name, in the order ``--help`` lists them; :meth:`verb` registers one."""

    def __init__(self) -> None:
        self._verbs: dict[str, Verb] = {}

    def _table(self) -> dict[str, Verb]:
        return self._verbs

    def __getitem__(self, name: str) -> Verb:
        return self._table()[name]

    def __setitem__(self, name: str, value: Verb) -> None:
        self._verbs[name] = value

    def __delitem__(self, name: str) -> None:
        del self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def verb(
        self, name: str, help: Text, *args: Arg, epilog: str | None = None, last: bool = False
    ) -> Callable[[Run], Run]:
        """Register the decorated function as the verb ``name`` with arguments ``args``."""

        def register(func: Run) -> Run:
            self[name] = Verb(name, help, args, func, epilog, last)
            return func

        return register


# --------------------------------------------------------------------------- the games, as listed


def game_metavar() -> str:
    """``tp|ft``: the games' code letters."""
    return "|".join(g.code.lower() for g in GAMES)


def game_list() -> str:
    """``tp TriPeaks, ft Forty Thieves``."""
    return ", ".join(f"{g.code.lower()} {g.title}" for g in GAMES)


def game_titles(sep: str = ", ", last: str = " or ") -> str:
    """``TriPeaks or Forty Thieves`` (``sep`` between the titles, ``last`` before the last one)."""
    titles = [g.title for g in GAMES]
    return sep.join(titles[:-1]) + last + titles[-1] if len(titles) > 1 else "".join(titles)


def game_layouts(sep: str = ", ") -> str:
    """``TriPeaks 28 tableau | waste | stock, Forty Thieves 10 columns | stock``: each game's deal string."""
    return sep.join(f"{g.title} {g.deal_layout}" for g in GAMES)


def game_sections() -> str:
    """``3 TriPeaks, 11 Forty Thieves``: each game's number of deal-string sections."""
    return ", ".join(f"{g.deal_sections} {g.title}" for g in GAMES)


def game_codes() -> str:
    """``TP1-E-AAAAAAB or FT1-N-AAAAAAB``: a deal code of each game."""
    return " or ".join(f"{g.code}1-{g.default_rule}-AAAAAAB" for g in GAMES)


# --------------------------------------------------------------------------- argument types


def parse_game(text: str) -> GameCode:
    """A game given by code letters or name (``tp``, ``tripeaks``, ``Forty Thieves``): its code letters."""
    try:
        return game_spec(text).code
    except ValueError:
        want = " or ".join(f"{g.code.lower()} ({g.title})" for g in GAMES)
        raise argparse.ArgumentTypeError(f"want {want}, got {text!r}") from None


def parse_game_name(text: str) -> str:
    """A game given as :func:`parse_game` takes it: its name (``tripeaks``)."""
    return game_spec(parse_game(text)).name


def parse_rule_letter(text: str) -> str:
    """A TriPeaks rule letter, ``E`` or ``C`` (either case)."""
    letter = text.strip().upper()
    if letter not in TRIPEAKS.letter_names:
        raise argparse.ArgumentTypeError(f"want E (Easy) or C (Classic), got {text!r}")
    return letter


def parse_jokers(text: str) -> int:
    """A number of jokers: 0, 1 or 2."""
    if text.strip() not in ("0", "1", "2"):
        raise argparse.ArgumentTypeError(f"want 0, 1 or 2, got {text!r}")
    return int(text)


def whole_number(minimum: int) -> Callable[[str], int]:
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


#: A seed (a whole number >= 0) and a count (>= 1).
parse_seed = whole_number(0)
parse_positive = whole_number(1)


def parse_seconds(text: str) -> float:
    """The argument type of a time budget: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"want a number of seconds > 0, got {text!r}")
    return value


def check_output(option: str, path: str | None, *, folder: bool = False) -> None:
    """A one-line error (before any work) if ``option``'s ``path`` cannot be written."""
    if path is not None:
        problem = output_path_problem(path, folder=folder)
        if problem is not None:
            raise CLIError(f"{option} {path!r} {problem}")


# --------------------------------------------------------------------------- shared options

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
    return arg("--max-nodes", type=parse_positive, metavar="N", help=help)


def max_seconds_arg(help: str) -> Arg:
    """``--max-seconds S``, the solver's time budget, described by ``help``."""
    return arg("--max-seconds", type=parse_seconds, metavar="S", help=help)
