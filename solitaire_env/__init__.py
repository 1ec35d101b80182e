"""Gymnasium environments for solitaire card games: TriPeaks and Forty Thieves.

``import solitaire_env`` registers ``solitaire_env/TriPeaks-v0`` and ``solitaire_env/FortyThieves-v0``.
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
    from solitaire_env.solver.hint import Hint
    from solitaire_env.solver.result import SolveResult

__version__ = "0.1.0"


def solve(game: Any, *, max_nodes: int | None = None) -> SolveResult:
    """Search a full-information position (see :func:`solitaire_env.solver.api.solve`)."""
    from solitaire_env.solver.api import solve as _solve

    return _solve(game, max_nodes=max_nodes)


def hint(game: Any, *, max_nodes: int | None = None) -> Hint:
    """One move worth trying and a verdict that never peeks (see :func:`solitaire_env.solver.hint.hint`)."""
    from solitaire_env.solver.hint import hint as _hint

    return _hint(game, max_nodes=max_nodes)


__all__ = [
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "FortyThievesDeal",
    "TriPeaksDeal",
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
