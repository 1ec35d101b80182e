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
- :func:`rules_for` / :func:`game_for`: the rules a deal is played by under the options given
  (its game's plugin reads them), and the rules-core game.

Every mistake is a :class:`ValueError` with a one-line message (the command line prints it as
``solitaire-env: error: <message>``); a file that cannot be read is an :class:`OSError`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from solitaire_env.common.deals import DealCode, parse_deal_code, random_code
from solitaire_env.dealing import deal_string_game, decode_deal
from solitaire_env.games import GAMES, GameSpec, game_spec, spec_of

if TYPE_CHECKING:
    from solitaire_env.games import Deal

__all__ = [
    "check_game_options",
    "detect_game",
    "game_for",
    "load_deal",
    "random_game",
    "rule_options",
    "rules_for",
    "source_note",
    "source_text",
]


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


def check_game_options(args: argparse.Namespace, game: GameSpec, subject: str, why: str = "") -> None:
    """Refuse an option of another game (each game's plugin lists its ``CLI_OPTIONS``; their
    defaults are ``None`` so that giving one can be told from not giving it), in one line naming
    the deal (``subject``) and, if given, ``why`` it is of that game; then the game's own checks."""
    for owner in GAMES:
        if owner is game:
            continue
        for attr, option in owner.plugin.CLI_OPTIONS:
            mine = any(attr == a for a, _ in game.plugin.CLI_OPTIONS)
            if not mine and getattr(args, attr, None) is not None:
                raise ValueError(f"{option} applies to {owner.title} only, and {subject} is a {game.title} deal{why}")
    game.plugin.check_args(args)


def random_game(args: argparse.Namespace, subject: str) -> GameSpec:
    """The game of a random deal (``--game``, default the first game of the table), after
    refusing another game's options in one line naming ``subject`` (``"the random deal"``)."""
    game = game_spec(args.game) if args.game else GAMES[0]
    if args.game:
        why = f" (--game {game.code.lower()})"
    else:
        others = "; ".join(f"add --game {g.code.lower()} for {g.title}" for g in GAMES if g is not game)
        why = f" (--game {game.code.lower()} by default; {others})"
    check_game_options(args, game, subject, why)
    return game


def detect_game(text: str, option: str | None = None) -> GameSpec:
    """The game of a deal code or deal string: ``--game`` if given, else the code's letters,
    else the deal string's number of ``|``-separated sections (3 TriPeaks, 11 Forty Thieves)."""
    if option is not None:
        return game_spec(option)
    if "|" not in text:
        return game_spec(parse_deal_code(text).game)
    try:
        return deal_string_game(text)
    except ValueError as exc:
        raise ValueError(str(exc)) from None


def load_deal(args: argparse.Namespace, rng: np.random.Generator | None = None) -> tuple[Deal, str]:
    """The deal the arguments name, and its rule letter (TriPeaks ``E``/``C``, Forty Thieves ``N``).

    The game is the code's, or the deal string's (by its sections), or ``--game`` (default
    TriPeaks) for a random code drawn from ``rng`` (default: a generator seeded by ``--seed``).
    An option of another game, or a ``--game`` that contradicts the deal, is an error.
    """
    text = source_text(args)
    option: str | None = args.game
    rules = getattr(args, "rules", None)
    dealt = {k: getattr(args, k) for g in GAMES for k in g.deal_options if getattr(args, k, None) is not None}
    if text is None:
        game = random_game(args, "the random deal")
        rng = rng if rng is not None else np.random.default_rng(args.seed)
        code = random_code(game.code, rules or game.default_rule, rng)
        return decode_deal(code, **dealt), code.rule
    if "|" in text:
        game = detect_game(text, option)
        why = f" (--game {game.code.lower()})" if option else f" (it has {text.count('|') + 1} sections)"
        check_game_options(args, game, "the deal string", why)
        deal = game.deal_class.parse(text)
        for key, value in dealt.items():
            if value != getattr(deal, key):
                raise ValueError(
                    f"--{key} {value} does not match the deal string, which has {getattr(deal, key)} {key}"
                )
        return deal, rules or game.default_rule
    code = parse_deal_code(text)
    spec = game_spec(code.game)
    if option is not None and game_spec(option) is not spec:
        raise ValueError(f"--game {option.lower()} contradicts the code {code}, a {spec.title} code")
    check_game_options(args, spec, str(code))
    if rules is not None and rules != code.rule:
        raise ValueError(
            f"--rules {rules} contradicts the code {code}, whose rule letter is {code.rule}; "
            f"use {DealCode(code.game, rules, code.seed)} for that rule"
        )
    return decode_deal(code, **dealt), code.rule


def rule_options(args: argparse.Namespace, game: object) -> dict[str, Any]:
    """The rule options (other than the rule letter and the look of the cards) the arguments
    give for ``game``, as :func:`solitaire_env.dealing.make_game` takes them."""
    return game_spec(game).plugin.rule_options(args)


def rules_for(args: argparse.Namespace, deal: Deal, letter: str) -> Any:
    """The rules ``deal`` is played by under the arguments' options (its game's plugin:
    ``rules_of_args``)."""
    rules: Any = spec_of(deal).plugin.rules_of_args(args, deal, letter)
    return rules


def game_for(args: argparse.Namespace, deal: Deal, letter: str) -> Any:
    """The rules-core game of ``deal`` under the arguments' options (:func:`rules_for`)."""
    return spec_of(deal).game_class(deal, rules_for(args, deal, letter))
