"""Gymnasium environments for solitaire card games: TriPeaks and Forty Thieves.

``import solitaire_env`` registers ``solitaire_env/TriPeaks-v0`` and ``solitaire_env/FortyThieves-v0``
(every env of the table of games, :mod:`solitaire_env.games`: ``GAMES``, ``ENV_IDS``, ``game_spec``;
:func:`~solitaire_env.games.register_game` adds a game).
It also offers what a user needs to build and search a game without the env: the deal
functions (``decode_deal``, ``parse_deal_code``, ``TriPeaksDeal``, ...), ``make_game`` (the game
of a deal code under rule options), the rules cores
(``TriPeaksGame``, ``FortyThievesGame``), their options (``TriPeaksRules``, ``FortyThievesRules``,
``TriPeaksScoring``, ``TriPeaksPointScoring``, ``FortyThievesScoring``), and ``solve`` / ``hint`` with their
results (``SolveResult``, ``Hint``).  The game classes and option types are imported on first
use, so ``import solitaire_env`` stays cheap (no numba; the solvers load when first called).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solitaire_env.common.deals import DealCode, DealCodeError, DealStringError, parse_deal_code
from solitaire_env.dealing import decode_deal, make_game
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.games import (
    ENV_IDS,
    FORTYTHIEVES_MAX_STEPS,
    GAMES,
    TRIPEAKS_MAX_STEPS,
    GameCode,
    GameName,
    game_spec,
)
from solitaire_env.tripeaks.deal import TriPeaksDeal

if TYPE_CHECKING:
    from solitaire_env.common.result import SolveResult
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.fortythieves.rules import FortyThievesRules, FortyThievesScoring
    from solitaire_env.hints import Hint
    from solitaire_env.solving import RulesArgument
    from solitaire_env.tripeaks.game import TriPeaksGame
    from solitaire_env.tripeaks.rules import TriPeaksRules
    from solitaire_env.tripeaks.scoring import TriPeaksPointScoring, TriPeaksScoring

#: The package version (the same as pyproject.toml's).
__version__ = "1.0.0"

#: Names offered here but imported on first use (module ``__getattr__``), so that
#: ``import solitaire_env`` stays cheap: name -> the module that defines it.
_LAZY = {
    "TriPeaksGame": "solitaire_env.tripeaks.game",
    "TriPeaksRules": "solitaire_env.tripeaks.rules",
    "TriPeaksScoring": "solitaire_env.tripeaks.scoring",
    "TriPeaksPointScoring": "solitaire_env.tripeaks.scoring",
    "FortyThievesGame": "solitaire_env.fortythieves.game",
    "FortyThievesRules": "solitaire_env.fortythieves.rules",
    "FortyThievesScoring": "solitaire_env.fortythieves.rules",
    "SolveResult": "solitaire_env.common.result",
    "Hint": "solitaire_env.hints",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solitaire_env' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def solve(
    game: Any, *, rules: RulesArgument = None, max_nodes: int | None = None, max_seconds: float | None = None
) -> SolveResult:
    """Search a full-information position: a game, a deal code (``"TP1-C-AAAAAAB"``), a deal
    string or a deal (see :func:`solitaire_env.solving.solve`; the budget:
    :mod:`solitaire_env.common.budget`)."""
    from solitaire_env.solving import solve as _solve

    return _solve(game, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds)


def hint(
    game: Any,
    *,
    rules: RulesArgument = None,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    plan: bool = True,
) -> Hint:
    """One move worth trying and a verdict that never peeks, for a game, a deal code, a deal
    string or a deal (see :func:`solitaire_env.hints.hint`; the budget:
    :mod:`solitaire_env.common.budget`)."""
    from solitaire_env.hints import hint as _hint

    return _hint(game, rules=rules, max_nodes=max_nodes, max_seconds=max_seconds, plan=plan)


__all__ = [
    "ENV_IDS",
    "FORTYTHIEVES_MAX_STEPS",
    "GAMES",
    "TRIPEAKS_MAX_STEPS",
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "FortyThievesDeal",
    "FortyThievesGame",
    "FortyThievesRules",
    "FortyThievesScoring",
    "GameCode",
    "GameName",
    "Hint",
    "SolveResult",
    "TriPeaksDeal",
    "TriPeaksGame",
    "TriPeaksPointScoring",
    "TriPeaksRules",
    "TriPeaksScoring",
    "__version__",
    "decode_deal",
    "game_spec",
    "hint",
    "make_game",
    "parse_deal_code",
    "solve",
]
