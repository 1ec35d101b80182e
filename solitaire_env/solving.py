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
from typing import Any

from solitaire_env.common.budget import search_budget
from solitaire_env.common.deals import DealCode, parse_deal_code
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.games import GAMES, deal_string_spec, decode_deal
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

__all__ = ["GameArgumentError", "RulesArgument", "as_game", "solve"]

#: What ``rules=`` takes: rule keywords, a rules object, or ``None`` (the defaults).
RulesArgument = Mapping[str, Any] | TriPeaksRules | FortyThievesRules | None

#: The title of the game each rules class is of (from the table of games).
_RULES_TITLES = {g.rules_path: g.title for g in GAMES}


class GameArgumentError(TypeError, ValueError):
    """Something that is not a game, a deal, a deal code or a deal string.

    A ``ValueError`` like every bad input of the package, and a ``TypeError`` (what it was
    before deal codes were accepted) so that older ``except TypeError`` code still catches it.
    """


def _rules_from(
    cls: type[TriPeaksRules] | type[FortyThievesRules],
    rules: RulesArgument,
    forced: dict[str, Any],
    what: str,
) -> Any:
    """``cls`` built from ``rules`` (a mapping or an instance), with ``forced`` values (from the
    deal or its code) that an explicit ``rules`` value may repeat but not contradict."""
    game_name = _RULES_TITLES[f"{cls.__module__}:{cls.__qualname__}"]
    if rules is None:
        options: dict[str, Any] = {}
    elif isinstance(rules, cls):
        options = rules.to_dict()
    elif isinstance(rules, TriPeaksRules | FortyThievesRules):
        raise ValueError(f"rules: a {type(rules).__name__} does not apply to {what}, a {game_name} deal")
    elif isinstance(rules, Mapping):
        options = dict(rules)
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(str(k) for k in options if k not in names)
        if unknown:
            raise ValueError(
                f"rules: unknown {game_name} rule option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))}; options: {', '.join(names)}"
            )
    else:
        raise ValueError(f"rules: want a mapping of rule options or a {cls.__name__}, got {type(rules).__name__}")
    for key, (value, why) in forced.items():
        if key in options and options[key] != value:
            raise ValueError(f"rules: {key}={options[key]!r} contradicts {what}: {why}")
        options[key] = value
    return cls(**options)


def _text_deal(text: str, jokers: int) -> TriPeaksDeal | FortyThievesDeal:
    """The deal a string names: a deal string when it has ``|`` in it, else a deal code."""
    if "|" in text:
        deal: TriPeaksDeal | FortyThievesDeal = deal_string_spec(text).deal_class.parse(text)
        return deal
    return _code_deal(parse_deal_code(text), jokers)


def _code_deal(code: DealCode, jokers: int) -> TriPeaksDeal | FortyThievesDeal:
    if code.game == "TP" and (isinstance(jokers, bool) or jokers not in (0, 1, 2)):
        raise ValueError(f"rules: jokers must be 0, 1 or 2, got {jokers!r}")
    return decode_deal(code, jokers=jokers if code.game == "TP" else 0)


def _requested_jokers(rules: RulesArgument) -> int:
    if isinstance(rules, TriPeaksRules):
        return rules.jokers
    if isinstance(rules, Mapping):
        return rules.get("jokers", 0)
    return 0


def as_game(game: Any, *, rules: RulesArgument = None, caller: str = "solve") -> TriPeaksGame | FortyThievesGame:
    """The rules-core game that ``game`` stands for (see the module docstring for the forms).

    A game is returned as it is (not copied).  Errors: :class:`~solitaire_env.DealCodeError`
    for a bad code, :class:`~solitaire_env.DealStringError` for a bad deal string, a
    ``ValueError`` for bad ``rules``, :class:`GameArgumentError` for anything else; each one
    line saying what is wrong.
    """
    if isinstance(game, TriPeaksGame | FortyThievesGame):
        if rules is not None:
            raise ValueError(
                f"{caller}(): rules= applies to a deal code, a deal string or a deal; "
                f"a {type(game).__name__} already has its rules (build it with the rules you want)"
            )
        return game
    if isinstance(game, str):
        deal: Any = _text_deal(game, _requested_jokers(rules))
    elif isinstance(game, DealCode):
        deal = _code_deal(game, _requested_jokers(rules))
    elif isinstance(game, TriPeaksDeal | FortyThievesDeal):
        deal = game
    else:
        raise GameArgumentError(
            f"{caller}() takes a TriPeaks or Forty Thieves game, a deal, a deal code (like 'TP1-E-AAAAAAB') "
            f"or a deal string, not {type(game).__name__}"
        )
    what = f"the deal {deal.code}" if deal.code is not None else "the deal string"
    if isinstance(deal, FortyThievesDeal):
        return FortyThievesGame(deal, _rules_from(FortyThievesRules, rules, {}, what))
    forced: dict[str, Any] = {"jokers": (deal.jokers, f"it has {deal.jokers} joker(s)")}
    if deal.code is not None:
        letter = "E (K and A adjacent)" if deal.code.wrap else "C (K and A not adjacent)"
        forced["wrap"] = (deal.code.wrap, f"its rule letter is {letter}")
    return TriPeaksGame(deal, _rules_from(TriPeaksRules, rules, forced, what))


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
    if isinstance(position, TriPeaksGame):
        from solitaire_env.tripeaks.solver import solve_tripeaks

        return solve_tripeaks(position, max_nodes=max_nodes, max_seconds=max_seconds)
    from solitaire_env.fortythieves.solver import solve_fortythieves

    return solve_fortythieves(position, max_nodes=max_nodes, max_seconds=max_seconds)
