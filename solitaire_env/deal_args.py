"""The deal and the rules that command-line arguments name (``deal``, ``play``, ``solve``, ``hint``).

The arguments are an :class:`argparse.Namespace` (or any object with the same attributes):
``code`` (a deal code or a deal string), ``string_in``, ``file`` (a path, ``-`` for stdin),
``game`` (code letters), ``seed``, ``rules`` (a TriPeaks rule letter), ``jokers`` and the rule
options ``draw``, ``faces``, ``waste_start`` and ``foundation_return``; an option that is not
given is ``None``.

- :func:`load_deal`: the one deal the arguments give (a code, a deal string or a file), or a
  random code of ``--game``, and its rule letter.  The game is the code's, or the deal
  string's (by its number of sections); an option of the other game, or a ``--game`` or a
  ``--rules`` that contradicts the deal, is an error.
- :func:`rule_options` / :func:`tp_rules` / :func:`ft_rules` / :func:`game_for`: the rule
  options given, the rules a deal is played by under them, and the rules-core game.

Every mistake is a :class:`ValueError` with a one-line message (the command line prints it as
``solitaire-env: error: <message>``); a file that cannot be read is an :class:`OSError`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from solitaire_env.common.deals import DealCode, DealStringError, GameCode, parse_deal_code, random_code
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.games import deal_string_spec, decode_deal, game_spec
from solitaire_env.text import GAME_TITLES
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

if TYPE_CHECKING:
    from solitaire_env.games import Deal

__all__ = [
    "GAME_OPTIONS",
    "check_game_options",
    "detect_game",
    "ft_rules",
    "game_for",
    "load_deal",
    "random_game",
    "rule_options",
    "source_note",
    "source_text",
    "tp_rules",
]

#: Options that apply to one game only: (attribute, option, game).  Their defaults are ``None``
#: so that giving one for the other game can be told from not giving it.
GAME_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("rules", "--rules", "TP"),
    ("jokers", "--jokers", "TP"),
    ("draw", "--draw", "TP"),
    ("faces", "--faces", "TP"),
    ("waste_start", "--waste-start", "TP"),
    ("foundation_return", "--foundation-return", "FT"),
)


def source_text(args: argparse.Namespace) -> str | None:
    """The one deal code or deal string the arguments give, or ``None`` for a random deal."""
    given = [x for x in (args.code, args.string_in) if x is not None]
    if args.file is not None:
        if args.file == "-":
            given.append(sys.stdin.read())
        else:
            with open(args.file, encoding="utf-8") as f:
                given.append(f.read())
    if len(given) > 1:
        raise ValueError("give one deal: a CODE, --string-in DEAL or --file PATH")
    if not given:
        return None
    text = given[0].strip()
    if not text:
        raise ValueError("the deal is empty: want a deal code like TP1-E-AAAAAAB or FT1-N-AAAAAAB, or a deal string")
    return text


def source_note(args: argparse.Namespace) -> str | None:
    """The deal code as typed on the command line (the reports name it when it is not the
    canonical spelling), or ``None`` for a deal string or no code."""
    code = args.code
    return code.strip() if code is not None and "|" not in code else None


def check_game_options(args: argparse.Namespace, game: str, subject: str, why: str = "") -> None:
    """Refuse an option of the other game, in one line naming the deal (``subject``) and, if
    given, ``why`` it is of that game."""
    for attr, option, owner in GAME_OPTIONS:
        if owner != game and getattr(args, attr, None) is not None:
            raise ValueError(
                f"{option} applies to {GAME_TITLES[owner]} only, and {subject} is a {GAME_TITLES[game]} deal{why}"
            )
    scoring = getattr(args, "scoring", None)
    if game == "FT" and scoring not in (None, "app"):
        raise ValueError(f"--scoring {scoring} is a TriPeaks preset; Forty Thieves has app scoring only")


def random_game(args: argparse.Namespace, subject: str) -> GameCode:
    """The game of a random deal (``--game``, default TriPeaks), after refusing the other
    game's options in one line naming ``subject`` (``"the random deal"``)."""
    game: GameCode = args.game or "TP"
    why = f" (--game {game.lower()})" if args.game else " (--game tp by default; add --game ft for Forty Thieves)"
    check_game_options(args, game, subject, why)
    return game


def detect_game(text: str, option: GameCode | None = None) -> GameCode:
    """The game of a deal code or deal string: ``--game`` if given, else the code's letters,
    else the deal string's number of ``|``-separated sections (3 TriPeaks, 11 Forty Thieves)."""
    if option is not None:
        return option
    if "|" not in text:
        return parse_deal_code(text).game
    try:
        return deal_string_spec(text).code
    except DealStringError as exc:
        raise ValueError(str(exc)) from None


def load_deal(args: argparse.Namespace, rng: np.random.Generator | None = None) -> tuple[Deal, str]:
    """The deal the arguments name, and its rule letter (TriPeaks ``E``/``C``, Forty Thieves ``N``).

    The game is the code's, or the deal string's (by its sections), or ``--game`` (default
    TriPeaks) for a random code drawn from ``rng`` (default: a generator seeded by ``--seed``).
    An option of the other game, or a ``--game`` that contradicts the deal, is an error.
    """
    text = source_text(args)
    option: GameCode | None = args.game
    jokers = args.jokers
    if text is None:
        game = random_game(args, "the random deal")
        rng = rng if rng is not None else np.random.default_rng(args.seed)
        code = random_code(game, args.rules or game_spec(game).default_rule, rng)
        return decode_deal(code, jokers=jokers or 0), code.rule
    if "|" in text:
        game = detect_game(text, option)
        why = f" (--game {game.lower()})" if option else f" (it has {text.count('|') + 1} sections)"
        check_game_options(args, game, "the deal string", why)
        if game == "FT":
            return FortyThievesDeal.parse(text), "N"
        deal = TriPeaksDeal.parse(text)
        if jokers is not None and jokers != deal.jokers:
            raise ValueError(f"--jokers {jokers} does not match the deal string, which has {deal.jokers} joker(s)")
        return deal, args.rules or "E"
    code = parse_deal_code(text)
    if option is not None and option != code.game:
        raise ValueError(f"--game {option.lower()} contradicts the code {code}, a {GAME_TITLES[code.game]} code")
    check_game_options(args, code.game, str(code))
    if code.game == "TP":
        if args.rules is not None and args.rules != code.rule:
            raise ValueError(
                f"--rules {args.rules} contradicts the code {code}, whose rule letter is {code.rule}; "
                f"use {DealCode(code.game, args.rules, code.seed)} for that rule"
            )
        return decode_deal(code, jokers=jokers or 0), code.rule
    return decode_deal(code), code.rule


def rule_options(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The rule options (other than the rule letter and the look of the cards) the arguments
    give for ``game``, as :func:`solitaire_env.games.make_game` takes them."""
    if game == "FT":
        value = getattr(args, "foundation_return", None)
        return {} if value is None else {"foundation_return": value == "on"}
    names = ("jokers", "draw", "waste_start")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def ft_rules(args: argparse.Namespace) -> FortyThievesRules:
    """The Forty Thieves rules under the arguments' options (the defaults for the others)."""
    return FortyThievesRules(**rule_options(args, "FT"))


def tp_rules(args: argparse.Namespace, deal: TriPeaksDeal, letter: str) -> TriPeaksRules:
    """The TriPeaks rules ``deal`` is played by under the arguments' options: the rule
    ``letter``, the deal's own jokers, ``--faces`` where the verb has it, the other options'
    defaults."""
    options = rule_options(args, "TP")
    options["jokers"] = deal.jokers
    if getattr(args, "faces", None) is not None:
        options["faces"] = args.faces
    return TriPeaksRules(wrap=letter == "E", **options)


def game_for(args: argparse.Namespace, deal: Deal, letter: str) -> TriPeaksGame | FortyThievesGame:
    """The rules-core game of ``deal`` under the arguments' options (:func:`tp_rules`, :func:`ft_rules`)."""
    if isinstance(deal, FortyThievesDeal):
        return FortyThievesGame(deal, ft_rules(args))
    return TriPeaksGame(deal, tp_rules(args, deal, letter))
