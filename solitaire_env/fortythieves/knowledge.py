"""What a Forty Thieves player sees: the public information of a position, as one typed object.

:class:`FortyThievesKnowledge` is everything on the table but the stock order (hidden);
:func:`fortythieves_knowledge` is the one place that copies it out of a
:class:`~solitaire_env.fortythieves.game.FortyThievesGame`.  The hint heuristic (:mod:`.advice`)
and the agents' public inputs are made from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from solitaire_env.fortythieves.game import FortyThievesGame

__all__ = ["FortyThievesKnowledge", "fortythieves_knowledge"]


@dataclass(frozen=True)
class FortyThievesKnowledge:
    """What a Forty Thieves player sees: the only input of the Forty Thieves heuristic.

    Columns (bottom to top), the waste top (``None`` if empty), the foundation heights, the
    number of stock cards left, the ``foundation_return`` rule and ``legal_mask``, the rules
    core's legal moves (bit ``a`` for action ``a``: a function of the public position).  The
    stock order is hidden and not part of it.
    """

    columns: tuple[tuple[int, ...], ...]
    waste_top: int | None
    foundations: tuple[int, ...]
    stock_left: int
    foundation_return: bool
    won: bool
    legal_mask: int


def fortythieves_knowledge(game: FortyThievesGame) -> FortyThievesKnowledge:
    """The public copy of a Forty Thieves game (everything but the stock, which it never reads)."""
    return FortyThievesKnowledge(
        columns=tuple(tuple(col) for col in game.columns),
        waste_top=game.waste[-1] if game.waste else None,
        foundations=tuple(game.foundations),
        stock_left=game.stock_count,
        foundation_return=game.rules.foundation_return,
        won=game.won,
        legal_mask=game.legal_mask(),
    )
