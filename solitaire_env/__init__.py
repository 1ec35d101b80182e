"""Gymnasium environments for solitaire card games: TriPeaks and Forty Thieves.

``import solitaire_env`` registers ``solitaire_env/TriPeaks-v0`` and ``solitaire_env/FortyThieves-v0``.
It also offers what a user needs to build and search a game without the env: the deal
functions (``decode_deal``, ``parse_deal_code``, ``TriPeaksDeal``, ...), the rules cores
(``TriPeaksGame``, ``FortyThievesGame``), their options (``TriPeaksRules``, ``FortyThievesRules``,
``Scoring``, ``PointScoring``, ``FortyThievesScoring``), and ``solve`` / ``hint`` with their
results (``SolveResult``, ``Hint``).  The game classes and option types are imported on first
use, so ``import solitaire_env`` stays cheap (no numba; the solvers load when first called).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gymnasium.envs.registration import register, registry

from solitaire_env.deals import (
    DealCode,
    DealCodeError,
    DealStringError,
    FortyThievesDeal,
    TriPeaksDeal,
    decode_deal,
    parse_deal_code,
)

if TYPE_CHECKING:
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.fortythieves.rules import FortyThievesRules, FortyThievesScoring
    from solitaire_env.solver.api import RulesArgument
    from solitaire_env.solver.hint import Hint
    from solitaire_env.solver.result import SolveResult
    from solitaire_env.tripeaks.game import TriPeaksGame
    from solitaire_env.tripeaks.rules import TriPeaksRules
    from solitaire_env.tripeaks.scoring import PointScoring, Scoring

__version__ = "0.1.0"

#: Names offered here but imported on first use (module ``__getattr__``), so that
#: ``import solitaire_env`` stays cheap: name -> the module that defines it.
_LAZY = {
    "TriPeaksGame": "solitaire_env.tripeaks.game",
    "TriPeaksRules": "solitaire_env.tripeaks.rules",
    "Scoring": "solitaire_env.tripeaks.scoring",
    "PointScoring": "solitaire_env.tripeaks.scoring",
    "FortyThievesGame": "solitaire_env.fortythieves.game",
    "FortyThievesRules": "solitaire_env.fortythieves.rules",
    "FortyThievesScoring": "solitaire_env.fortythieves.rules",
    "SolveResult": "solitaire_env.solver.result",
    "Hint": "solitaire_env.solver.hint",
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


def solve(game: Any, *, rules: RulesArgument = None, max_nodes: int | None = None) -> SolveResult:
    """Search a full-information position: a game, a deal code (``"TP1-C-AAAAAAB"``), a deal
    string or a deal (see :func:`solitaire_env.solver.api.solve`)."""
    from solitaire_env.solver.api import solve as _solve

    return _solve(game, rules=rules, max_nodes=max_nodes)


def hint(game: Any, *, rules: RulesArgument = None, max_nodes: int | None = None) -> Hint:
    """One move worth trying and a verdict that never peeks, for a game, a deal code, a deal
    string or a deal (see :func:`solitaire_env.solver.hint.hint`)."""
    from solitaire_env.solver.hint import hint as _hint

    return _hint(game, rules=rules, max_nodes=max_nodes)


__all__ = [
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "FortyThievesDeal",
    "FortyThievesGame",
    "FortyThievesRules",
    "FortyThievesScoring",
    "Hint",
    "PointScoring",
    "Scoring",
    "SolveResult",
    "TriPeaksDeal",
    "TriPeaksGame",
    "TriPeaksRules",
    "__version__",
    "decode_deal",
    "hint",
    "parse_deal_code",
    "solve",
]

#: Step limit of the registered TriPeaks env (a game has at most 54 legal moves).
TRIPEAKS_MAX_STEPS = 200
#: Step limit of the registered Forty Thieves env (the game itself can go on forever).
FORTYTHIEVES_MAX_STEPS = 1000

if "solitaire_env/TriPeaks-v0" not in registry:
    register(
        id="solitaire_env/TriPeaks-v0",
        entry_point="solitaire_env.tripeaks.env:TriPeaksEnv",
        vector_entry_point="solitaire_env.vector.tripeaks:TriPeaksVectorEnv",
        max_episode_steps=TRIPEAKS_MAX_STEPS,
    )

if "solitaire_env/FortyThieves-v0" not in registry:
    register(
        id="solitaire_env/FortyThieves-v0",
        entry_point="solitaire_env.fortythieves.env:FortyThievesEnv",
        vector_entry_point="solitaire_env.vector.fortythieves:FortyThievesVectorEnv",
        max_episode_steps=FORTYTHIEVES_MAX_STEPS,
    )
