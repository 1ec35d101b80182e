"""``solve``: one entry point over every game's solver, and :func:`as_game`, the argument
handling that :func:`solve` and :func:`~solitaire_env.hints.hint` share.

Both take a position in any of four forms:

- a rules-core game (``TriPeaksGame`` / ``FortyThievesGame``, e.g. ``env.unwrapped.game``): its
  current position, under its own rules (``rules=`` is then an error: the game has them);
- a deal code (``"TP1-C-AAAAAAB"``): its starting position; the rule letter sets the K-A wrap
  (``E`` wraps, ``C`` does not);
- a deal string (the card-by-card form of :mod:`solitaire_env.common.deals`; 3 ``|``-separated
  sections for TriPeaks, 11 for Forty Thieves): its starting position, Easy rules (wrap) unless
  ``rules=`` says otherwise;
- a deal object (``TriPeaksDeal`` / ``FortyThievesDeal``, or a parsed ``DealCode``): as its
  code, or as a deal string when it has none.

``rules=`` sets the other rule options for the three deal forms: a mapping of the rules
keywords (``{"draw": "when_stuck", "jokers": 1}``, the same names as the ``gym.make``
keywords) or a ``TriPeaksRules`` / ``FortyThievesRules`` object.  A code's rule letter always
decides ``wrap``; a ``wrap`` that contradicts it is an error, not silently replaced.  Jokers
default to the deal's own (a deal string with ``JK`` in it), and a code deals the jokers that
``rules`` asks for.  Scoring does not change what a search finds; to pick one, build the game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeAlias

from solitaire_env.common.budget import search_budget
from solitaire_env.common.deals import DealCode, parse_deal_code
from solitaire_env.common.result import SolveResult
from solitaire_env.dealing import deal_string_game
from solitaire_env.games import GAMES, GameSpec, game_spec, spec_of

__all__ = ["GameArgumentError", "RulesArgument", "as_game", "solve"]

#: What ``rules=`` takes: rule keywords (a mapping), a game's rules object (``TriPeaksRules``,
#: ``FortyThievesRules``), or ``None`` (the defaults).
RulesArgument: TypeAlias = Any


class GameArgumentError(TypeError, ValueError):
    """Something that is not a game, a deal, a deal code or a deal string.

    A ``ValueError`` like every bad input of the package, and a ``TypeError`` (what it was
    before deal codes were accepted) so that older ``except TypeError`` code still catches it.
    """


def _game_of(thing: object) -> GameSpec | None:
    """The row of the game ``thing`` is an object of, or ``None``."""
    try:
        return spec_of(thing)
    except TypeError:
        return None


def _rules_from(spec: GameSpec, rules: Any, forced: dict[str, Any], what: str) -> Any:
    """The game's rules built from ``rules`` (a mapping or an instance), with ``forced`` values
    (from the deal or its code) that an explicit ``rules`` value may repeat but not contradict."""
    cls = spec.rules_class
    if rules is None:
        options: dict[str, Any] = {}
    elif isinstance(rules, cls):
        options = rules.to_dict()
    elif dataclasses.is_dataclass(rules) and _game_of(rules) is not None:
        raise ValueError(f"rules: a {type(rules).__name__} does not apply to {what}, a {spec.title} deal")
    elif isinstance(rules, Mapping):
        options = dict(rules)
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(str(k) for k in options if k not in names)
        if unknown:
            raise ValueError(
                f"rules: unknown {spec.title} rule option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))}; options: {', '.join(names)}"
            )
    else:
        raise ValueError(f"rules: want a mapping of rule options or a {cls.__name__}, got {type(rules).__name__}")
    for key, (value, why) in forced.items():
        if key in options and options[key] != value:
            raise ValueError(f"rules: {key}={options[key]!r} contradicts {what}: {why}")
        options[key] = value
    return cls(**options)


def _dealt_options(rules: Any) -> dict[str, Any]:
    """The rule options in ``rules`` that change the cards dealt (TriPeaks ``jokers``), for any game."""
    if isinstance(rules, Mapping):
        return {k: rules[k] for g in GAMES for k in g.deal_options if k in rules}
    if dataclasses.is_dataclass(rules):
        return {k: getattr(rules, k) for g in GAMES for k in g.deal_options if hasattr(rules, k)}
    return {}


def _code_deal(code: DealCode, rules: Any) -> Any:
    spec = game_spec(code.game)
    options = {k: v for k, v in _dealt_options(rules).items() if k in spec.deal_options}
    try:
        return spec.deal_class.from_seed(code.seed, rule=code.rule, **options)
    except (TypeError, ValueError) as error:
        raise ValueError(f"rules: {error}") from None


def _text_deal(text: str, rules: Any) -> Any:
    """The deal a string names: a deal string when it has ``|`` in it, else a deal code."""
    if "|" in text:
        return deal_string_game(text).deal_class.parse(text)
    return _code_deal(parse_deal_code(text), rules)


def as_game(game: Any, *, rules: RulesArgument = None, caller: str = "solve") -> Any:
    """The rules-core game that ``game`` stands for (see the module docstring for the forms).

    A game is returned as it is (not copied).  Errors: :class:`~solitaire_env.DealCodeError`
    for a bad code, :class:`~solitaire_env.DealStringError` for a bad deal string, a
    ``ValueError`` for bad ``rules``, :class:`GameArgumentError` for anything else; each one
    line saying what is wrong.
    """
    spec = None if isinstance(game, str | DealCode) else _game_of(game)
    if spec is not None and isinstance(game, spec.game_class):
        if rules is not None:
            raise ValueError(
                f"{caller}(): rules= applies to a deal code, a deal string or a deal; "
                f"a {type(game).__name__} already has its rules (build it with the rules you want)"
            )
        return game
    if isinstance(game, str):
        deal: Any = _text_deal(game, rules)
    elif isinstance(game, DealCode):
        deal = _code_deal(game, rules)
    elif spec is not None and isinstance(game, spec.deal_class):
        deal = game
    else:
        games = " or ".join(g.title for g in GAMES)
        raise GameArgumentError(
            f"{caller}() takes a {games} game, a deal, a deal code (like 'TP1-E-AAAAAAB') "
            f"or a deal string, not {type(game).__name__}"
        )
    spec = spec_of(deal)
    what = f"the deal {deal.code}" if deal.code is not None else "the deal string"
    return spec.game_class(deal, _rules_from(spec, rules, spec.plugin.forced_rules(deal), what))


def solve(
    game: Any, *, rules: RulesArgument = None, max_nodes: int | None = None, max_seconds: float | None = None
) -> SolveResult:
    """Search a full-information position: a game, a deal code, a deal string or a deal.

    ``solve("TP1-C-AAAAAAB")`` solves that deal under Classic rules (no K-A wrap);
    ``solve(code, rules={"draw": "when_stuck"})`` adds rule options; ``solve(env.unwrapped.game)``
    searches a running game's position (see :func:`as_game`).

    The budget (:mod:`solitaire_env.common.budget`): ``max_nodes`` positions (a whole number
    >= 1), ``max_seconds`` seconds (a number > 0), whichever runs out first; one given alone is
    the only limit; neither: :data:`~solitaire_env.common.budget.DEFAULT_MAX_NODES` nodes.  Forty
    Thieves with ``max_seconds`` runs its anytime schedule
    (:func:`~solitaire_env.fortythieves.solver.solve_fortythieves`).

    Returns a :class:`SolveResult` whose ``status`` is ``solved`` (with ``line``, a winning list
    of env actions), ``unsolvable`` (search exhausted) or ``intractable`` (a budget spent), whose
    ``stopped_by`` says what ended the search (``won``, ``proved``, ``nodes``, ``seconds``, ...)
    and whose ``nodes`` is the node count.  The solver sees every card: it is an oracle.
    TriPeaks is solved exactly; Forty Thieves by a search that may run out of budget.
    """
    position = as_game(game, rules=rules, caller="solve")
    search_budget(max_nodes, max_seconds)  # a bad budget is an error before any search
    return spec_of(position).plugin.solve(position, max_nodes=max_nodes, max_seconds=max_seconds)
