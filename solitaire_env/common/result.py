"""The result of a search, shared by every game's solver."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["solved", "unsolvable", "intractable"]


@dataclass(frozen=True)
class SolveResult:
    """What a search found on a full-information position.

    - ``status``: ``"solved"`` (``line`` wins), ``"unsolvable"`` (the search space was exhausted:
      no win exists), ``"intractable"`` (the node budget ran out first; a spent budget is never
      reported as unsolvable).
    - ``line``: env actions from the position: a winning line when solved; otherwise the best
      line found by the objective (e.g. most cards cleared), possibly empty.
    - ``nodes``: positions expanded; ``best``: the objective value ``line`` reaches (cards
      cleared or founded).
    """

    status: Status
    line: tuple[int, ...] = ()
    nodes: int = 0
    best: int = 0
    seconds: float = 0.0
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def solved(self) -> bool:
        return self.status == "solved"
