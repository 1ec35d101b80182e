"""The result of a search, shared by every game's solver."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from solitaire_env.common.budget import STOPS, StoppedBy

Status = Literal["solved", "unsolvable", "intractable"]

#: What ended a search that reached a verdict.
_VERDICT_STOPS: dict[str, StoppedBy] = {"solved": "won", "unsolvable": "proved"}


@dataclass(frozen=True)
class SolveResult:
    """What a search found on a full-information position.

    - ``status``: ``"solved"`` (``line`` wins), ``"unsolvable"`` (the search space was exhausted:
      no win exists), ``"intractable"`` (a budget ran out first; a spent budget is never
      reported as unsolvable).
    - ``line``: env actions from the position: a winning line when solved; otherwise the best
      line found by the objective (e.g. most cards cleared), possibly empty.
    - ``nodes``: positions expanded; ``best``: the objective value ``line`` reaches (cards
      cleared or founded); ``seconds``: the search's wall time.
    - ``stopped_by``: what ended the search (:mod:`solitaire_env.common.budget`): ``"won"`` when
      solved, ``"proved"`` when unsolvable (both filled in), and for an intractable search the
      limit it met: ``"nodes"``, ``"seconds"``, ``"depth"`` or ``"table"`` (required).
    """

    status: Status
    line: tuple[int, ...] = ()
    nodes: int = 0
    best: int = 0
    seconds: float = 0.0
    extra: dict[str, object] = field(default_factory=dict, compare=False)
    stopped_by: StoppedBy | None = None

    def __post_init__(self) -> None:
        verdict_stop = _VERDICT_STOPS.get(self.status)
        if verdict_stop is not None:
            if self.stopped_by not in (None, verdict_stop):
                raise ValueError(f"a {self.status} search stopped by {verdict_stop!r}, not {self.stopped_by!r}")
            object.__setattr__(self, "stopped_by", verdict_stop)
        elif self.stopped_by not in STOPS[2:]:
            raise ValueError(
                f"an intractable result says which limit ended it: stopped_by in {STOPS[2:]}, got {self.stopped_by!r}"
            )

    @property
    def solved(self) -> bool:
        return self.status == "solved"
