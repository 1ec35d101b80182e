"""TriPeaks scoring: the three presets (docs/tripeaks_rules.md) and custom scoring.

A scoring is an object with ``name``, ``start`` (the opening score), ``floor`` (the
lowest score, or ``None``) and two methods returning the points of one move:

- ``removal(chain, apex, group_emptied, won)``: ``chain`` is the removal's place in the
  current chain (1 after a draw), ``apex`` is 1, 2 or 3 when the removed card is the
  first, second or third apex removed (0 otherwise), ``group_emptied`` is True when the
  move empties one of the app's peak groups (9/9/10 cards), ``won`` when it clears all 28.
- ``draw()``: the points of drawing a stock card.

Subclass :class:`TriPeaksScoring`, or build a :class:`TriPeaksPointScoring` with your own numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


class TriPeaksScoring:
    """Base class of TriPeaks scorings: override what differs from 'no points at all'."""

    name: str = "custom"
    start: int = 0
    floor: int | None = None

    def removal(self, chain: int, apex: int, group_emptied: bool, won: bool) -> int:
        return 0

    def draw(self) -> int:
        return 0


@dataclass(frozen=True)
class TriPeaksPointScoring(TriPeaksScoring):
    """A scoring made of fixed points per event (every preset is one of these).

    ``removal_points`` per removal, plus ``k`` for the k-th removal of a chain when
    ``chain_points``; ``apex_points[i]`` for the (i+1)-th apex removed; ``group_points``
    when a peak group empties; ``clear_points`` for clearing all 28; ``draw_points`` per draw.
    """

    name: str = "custom"
    start: int = 0
    floor: int | None = None
    removal_points: int = 0
    chain_points: bool = False
    draw_points: int = 0
    apex_points: tuple[int, int, int] = (0, 0, 0)
    group_points: int = 0
    clear_points: int = 0

    def removal(self, chain: int, apex: int, group_emptied: bool, won: bool) -> int:
        points = self.removal_points
        if self.chain_points:
            points += chain
        if apex:
            points += self.apex_points[apex - 1]
        if group_emptied:
            points += self.group_points
        if won:
            points += self.clear_points
        return points

    def draw(self) -> int:
        return self.draw_points


#: Seed 000's app: start 500, -1 a removal, -1 a draw, +100 a peak group emptied, floor 0.
APP = TriPeaksPointScoring(name="app", start=500, floor=0, removal_points=-1, draw_points=-1, group_points=100)
#: Seed 000's original scheme: k for the k-th removal of a chain, -5 a draw, apexes 15/15/30.
CLASSIC = TriPeaksPointScoring(name="classic", chain_points=True, draw_points=-5, apex_points=(15, 15, 30))
#: Seed 003: k for the k-th removal of a chain, apexes 15/30/45, +100 for clearing all 28.
STREAK = TriPeaksPointScoring(name="streak", chain_points=True, apex_points=(15, 30, 45), clear_points=100)

PRESETS: dict[str, TriPeaksScoring] = {s.name: s for s in (APP, CLASSIC, STREAK)}


def get_scoring(scoring: str | TriPeaksScoring) -> TriPeaksScoring:
    """A preset by name (``app``, ``classic``, ``streak``) or a scoring object as it is."""
    if isinstance(scoring, str):
        try:
            return PRESETS[scoring]
        except KeyError:
            raise ValueError(
                f"unknown scoring {scoring!r}; want one of {', '.join(PRESETS)} or a TriPeaksScoring object"
            ) from None
    if not (
        hasattr(scoring, "start")
        and callable(getattr(scoring, "removal", None))
        and callable(getattr(scoring, "draw", None))
    ):
        raise ValueError(f"scoring must be a preset name or a TriPeaksScoring object, got {scoring!r}")
    return scoring
