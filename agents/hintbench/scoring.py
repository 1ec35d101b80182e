"""Scores of a heuristic on labelled positions, and paired comparisons between heuristics.

Given a heuristic's move at each labelled position (:func:`score_choices`):

- **fair agreement**: the move is one of the best by fair value (ties all count as best), over
  the positions where some move has a fair value;
- **full-information agreement**: the move wins when the position is winnable (any move agrees
  at a lost position), over the positions whose labels decide it;
- **blunder rate** (full information, judged with hindsight): moves labelled ``"loss"`` from
  positions labelled ``"win"``, over the winnable positions where the move's label is decided;
- **mean regret**: best fair value minus the move's, with a 95 % interval (normal approximation
  of the mean), over the positions where both are defined.

:func:`compare` pairs two heuristics on the positions both have a regret for: the mean
difference with its interval, how often each was better, and an exact two-sided sign test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from agents.hintbench.labels import PositionLabels
from solitaire_env.common.statistics import wilson

__all__ = ["HeuristicScore", "PairedComparison", "compare", "score_choices"]


def _mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95 % interval (normal approximation; the mean alone when n < 2)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class HeuristicScore:
    """A heuristic's scores; ``regrets[i]`` and ``blunders[i]`` per position (``None`` where
    undefined), ``choices[i]`` its move."""

    name: str
    choices: tuple[int, ...]
    regrets: tuple[float | None, ...]
    blunders: tuple[bool | None, ...]
    fair_agree: int
    fair_counted: int
    full_agree: int
    full_counted: int

    @property
    def positions(self) -> int:
        return len(self.choices)

    @property
    def blunder_count(self) -> int:
        return sum(1 for b in self.blunders if b)

    @property
    def blunder_counted(self) -> int:
        return sum(1 for b in self.blunders if b is not None)

    @property
    def blunder_rate(self) -> float:
        return self.blunder_count / self.blunder_counted if self.blunder_counted else math.nan

    @property
    def blunder_interval(self) -> tuple[float, float]:
        return wilson(self.blunder_count, self.blunder_counted)

    @property
    def fair_agreement(self) -> float:
        return self.fair_agree / self.fair_counted if self.fair_counted else math.nan

    @property
    def full_agreement(self) -> float:
        return self.full_agree / self.full_counted if self.full_counted else math.nan

    @property
    def mean_regret(self) -> tuple[float, float, float]:
        """Mean regret and its 95 % interval."""
        return _mean_interval([r for r in self.regrets if r is not None])

    def worst(self, k: int = 5) -> list[int]:
        """The indices of the ``k`` positions of highest regret (blunders first, then regret)."""

        def key(i: int) -> tuple[bool, float, int]:
            regret = self.regrets[i]
            return (not self.blunders[i], -(regret if regret is not None else -1.0), i)

        return sorted(range(self.positions), key=key)[:k]


def score_choices(name: str, labels: Sequence[PositionLabels], choices: Sequence[int]) -> HeuristicScore:
    """Score the moves ``choices[i]`` a heuristic made at ``labels[i]``'s positions.  A move
    that is not legal at its position raises ``ValueError``."""
    if len(labels) != len(choices):
        raise ValueError(f"{len(choices)} choices for {len(labels)} positions")
    regrets: list[float | None] = []
    blunders: list[bool | None] = []
    fair_agree = fair_counted = full_agree = full_counted = 0
    for i, (pl, action) in enumerate(zip(labels, choices)):
        try:
            move = pl.move(action)
        except KeyError:
            raise ValueError(f"{name}: move {action} at position {i} ({pl.position.deal}) is not legal") from None
        regrets.append(pl.regret(action))
        if pl.best_value is not None:
            fair_counted += 1
            fair_agree += action in pl.best_moves
        root = pl.truth
        if root == "loss":
            full_counted += 1
            full_agree += 1
        elif root == "win" and move.truth != "unknown":
            full_counted += 1
            full_agree += move.truth == "win"
        blunders.append(move.truth == "loss" if root == "win" and move.truth != "unknown" else None)
    return HeuristicScore(
        name, tuple(int(c) for c in choices), tuple(regrets), tuple(blunders), fair_agree, fair_counted,
        full_agree, full_counted,
    )  # fmt: skip


def _sign_test(better: int, worse: int) -> float:
    """Exact two-sided sign test p-value of ``better`` against ``worse`` (ties left out)."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class PairedComparison:
    """``a`` against ``b`` on the positions both have a regret for: mean of ``regret(a) -
    regret(b)`` (below 0: ``a`` is better) and its interval, how often each had the lower
    regret, and the sign test's p-value."""

    a: str
    b: str
    positions: int
    mean_difference: tuple[float, float, float]
    a_better: int
    b_better: int
    p_value: float


def compare(a: HeuristicScore, b: HeuristicScore) -> PairedComparison:
    """Pair two heuristics scored on the same positions."""
    if a.positions != b.positions:
        raise ValueError(f"{a.name} and {b.name} were scored on different position sets")
    diffs = [ra - rb for ra, rb in zip(a.regrets, b.regrets) if ra is not None and rb is not None]
    a_better = sum(1 for d in diffs if d < 0)
    b_better = sum(1 for d in diffs if d > 0)
    return PairedComparison(
        a.name, b.name, len(diffs), _mean_interval(diffs), a_better, b_better, _sign_test(a_better, b_better)
    )
