"""The training features that exist for one game only, and the games each is for: the one place
that says so (configs, the ppo agent and the evaluations ask :func:`for_game`)."""

from __future__ import annotations

from agents.base import GameName

__all__ = ["FEATURE_GAMES", "for_game"]

#: feature -> the games it is for.  ``advice``: the base policy's move in the observation;
#: ``shaping`` / ``pretrain``: the TriPeaks move values; ``chain`` / ``afterstate``: the TriPeaks
#: feature extractors; ``moves`` / ``imitation``: the Forty Thieves move features and teacher.
FEATURE_GAMES: dict[str, tuple[GameName, ...]] = {
    "advice": ("tripeaks",),
    "shaping": ("tripeaks",),
    "pretrain": ("tripeaks",),
    "chain": ("tripeaks",),
    "afterstate": ("tripeaks",),
    "moves": ("fortythieves",),
    "imitation": ("fortythieves",),
}


def for_game(feature: str, game: object) -> bool:
    """Whether ``feature`` exists for ``game`` (a game's name)."""
    return game in FEATURE_GAMES.get(feature, ())
