"""The two labels of each position and legal move of the hint benchmark.

**Full information** (:attr:`MoveLabel.truth`, a label that reads the hidden cards, so it judges
with hindsight): the solver (:func:`solitaire_env.solve`) on the true position after the move:
``"win"`` (the move keeps a won line), ``"loss"`` (the search went through every line from
there: no win), ``"unknown"`` (the search's budget ran out: never guessed).  The position's own
label follows from its moves': ``"win"`` when some move wins, ``"loss"`` when every move loses,
else ``"unknown"``.  A *blunder* is a move labelled ``"loss"`` from a position labelled ``"win"``.

**Fair value** (:class:`FairValue`, what a player could know): ``samples`` full games consistent
with the public state (:meth:`agents.base.PublicState.determinize`, from a generator seeded by
the public information only, :meth:`~agents.base.PublicState.rng`); in each one, the position
after the move is solved.  The value is the share of the decided samples that are won, with a
Wilson interval; every move of a position is valued on the same samples.  It is computed from
the :class:`~agents.base.PublicState` alone (:func:`fair_values` never sees the game), so it is
the same whatever the unseen cards are.  Each sample is solved with full information, so the
value is that of a player who would learn the unseen cards right after the move: an optimistic
value (strategy fusion), the same for every heuristic compared on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.base import Game, PublicState, public_state
from agents.hintbench.positions import Position, position_game
from solitaire_env.common.statistics import wilson

__all__ = ["FairValue", "MoveLabel", "PositionLabels", "Truth", "fair_values", "label_position", "truth_labels"]

Truth = Literal["win", "loss", "unknown"]
_TRUTH: dict[str, Truth] = {"solved": "win", "unsolvable": "loss", "intractable": "unknown"}


@dataclass(frozen=True)
class FairValue:
    """A move's fair value: ``wins`` and ``losses`` over the samples, ``unknown`` samples whose
    search ran out of budget (left out of the share)."""

    wins: int
    losses: int
    unknown: int

    @property
    def decided(self) -> int:
        return self.wins + self.losses

    @property
    def value(self) -> float | None:
        """The share of the decided samples that are won (``None`` when none is decided)."""
        return self.wins / self.decided if self.decided else None

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of :attr:`value`."""
        return wilson(self.wins, self.decided)


@dataclass(frozen=True)
class MoveLabel:
    """One legal move of a position: its env ``action``, its full-information ``truth`` and its
    ``fair`` value."""

    action: int
    truth: Truth
    fair: FairValue


@dataclass(frozen=True)
class PositionLabels:
    """A position, its moves' labels (in action order) and the number of fair-value samples."""

    position: Position
    moves: tuple[MoveLabel, ...]
    samples: int

    @property
    def truth(self) -> Truth:
        """``"win"`` when some move wins, ``"loss"`` when every move loses, else ``"unknown"``."""
        truths = {m.truth for m in self.moves}
        if "win" in truths:
            return "win"
        return "loss" if truths == {"loss"} else "unknown"

    def move(self, action: int) -> MoveLabel:
        for m in self.moves:
            if m.action == action:
                return m
        raise KeyError(f"{action} is not a legal move of this position")

    @property
    def best_value(self) -> float | None:
        """The highest fair value of a move (``None`` when no move has one)."""
        values = [m.fair.value for m in self.moves if m.fair.value is not None]
        return max(values) if values else None

    @property
    def best_moves(self) -> tuple[int, ...]:
        """The moves whose fair value is the highest (ties all count as best)."""
        best = self.best_value
        return tuple(m.action for m in self.moves if best is not None and m.fair.value == best)

    def regret(self, action: int) -> float | None:
        """The best fair value minus ``action``'s (``None`` when either is undefined)."""
        value, best = self.move(action).fair.value, self.best_value
        return None if value is None or best is None else best - value


#: A search budget: ``(max_nodes, max_seconds)`` (:mod:`solitaire_env.common.budget`).
Budget = tuple[int | None, float | None]


def _solve_truth(game: Game, budget: Budget) -> Truth:
    from solitaire_env import solve  # the numba solvers: loaded on first use

    if game.won:
        return "win"
    return _TRUTH[solve(game, max_nodes=budget[0], max_seconds=budget[1]).status]


def _move_outcomes(game: Game, legal: list[int], budget: Budget) -> dict[int, Truth]:
    """Each legal move's outcome in ``game`` (a full game: a true position or a sample).  The
    position itself is solved first: a loss there is a loss for every move (no search per move),
    and a win gives the first move of its line a win."""
    from solitaire_env import solve

    root = solve(game, max_nodes=budget[0], max_seconds=budget[1])
    if root.status == "unsolvable":
        return dict.fromkeys(legal, "loss")
    known = root.line[0] if root.status == "solved" and root.line else None
    out: dict[int, Truth] = {}
    for action in legal:
        if action == known:
            out[action] = "win"
            continue
        child = game.copy()
        child.play(action)
        out[action] = _solve_truth(child, budget)
    return out


def truth_labels(game: Game, max_nodes: int | None, max_seconds: float | None = None) -> dict[int, Truth]:
    """The full-information label of each legal move of ``game`` (reads the hidden cards), each
    search on ``max_nodes`` / ``max_seconds`` (:mod:`solitaire_env.common.budget`)."""
    return _move_outcomes(game, game.legal_actions(), (max_nodes, max_seconds))


def fair_values(
    state: PublicState, samples: int, max_nodes: int | None, seed: int = 0, max_seconds: float | None = None
) -> dict[int, FairValue]:
    """Each legal move's fair value over ``samples`` determinizations of ``state`` (the public
    state only), the generator seeded by ``seed`` and the public information."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a whole number >= 1, got {samples!r}")
    legal = list(state.legal)
    counts = {a: [0, 0, 0] for a in legal}  # wins, losses, unknown
    rng = state.rng(seed)
    index = {"win": 0, "loss": 1, "unknown": 2}
    for _ in range(samples):
        sample = state.determinize(rng)
        for action, outcome in _move_outcomes(sample, legal, (max_nodes, max_seconds)).items():
            counts[action][index[outcome]] += 1
    return {a: FairValue(*c) for a, c in counts.items()}


def label_position(
    position: Position, *, samples: int, max_nodes: int | None, seed: int = 0, max_seconds: float | None = None
) -> PositionLabels:
    """Both labels of every legal move of ``position``: the truth on its real game, the fair
    value on ``samples`` determinizations of its public state (each search on ``max_nodes`` /
    ``max_seconds``)."""
    game = position_game(position)
    truth = truth_labels(game, max_nodes, max_seconds)
    fair = fair_values(public_state(game, position.actions), samples, max_nodes, seed, max_seconds)
    moves = tuple(MoveLabel(a, truth[a], fair[a]) for a in sorted(truth))
    return PositionLabels(position, moves, samples)
