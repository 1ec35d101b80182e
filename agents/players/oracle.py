"""``oracle``: the full-information solver as a player, the upper bound of every table.

The oracle is the one agent that sees hidden cards (``sees_hidden = True``): :func:`agents.base.decide`
hands it the game itself, so its figures are labelled "upper bound" and never compared as
if it played fair.

* **TriPeaks** (an exact solver): solve once per episode with
  :func:`~solitaire_env.tripeaks.solver.solve_tripeaks` and play the winning line.  The line is
  cached as a map from each position along it to the action to play there; a position off the
  line (the game diverged, or a new episode) is solved again.  When the deal cannot be won the
  search runs again with ``maximise_cleared=True`` and the oracle plays the line that clears
  the most cards; once that line is spent (nothing can clear more: each later search finds an
  empty line) it plays the hint heuristic's move, else any legal move, until the game ends.
  Its win rate is the share of solvable deals (up to the node budget: an ``intractable``
  deal is played like an unsolvable one, along the best line found).
* **Forty Thieves** (a best-effort search): :func:`~solitaire_env.fortythieves.solver.solve_fortythieves`
  with a node budget (``max_nodes``).  A winning line is followed to the end.  A line that does
  not win (the budget ran out: the line to the most cards founded) is followed only through its
  first ``follow`` draws (default 1), then the search runs again from there; following it to
  its end usually draws out the whole stock into a dead position.  When the search finds
  nothing better than the position (an empty line) the oracle plays the hint heuristic's
  move.  With full information but a bounded search this is **not** a true upper bound: a
  deal it loses may still be winnable.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from agents.base import Agent, Game, GameName
from solitaire_env.common.budget import search_budget
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.hints import public_move

__all__ = ["FortyThievesOracle", "OracleAgent", "TriPeaksOracle", "position_key"]


def position_key(game: Game) -> tuple[Any, ...]:
    """What a solver's line depends on: the deal's cards (stock order included) and the position
    (the game's ``line_key``)."""
    return game.line_key()


class OracleAgent(Agent):
    """Plays the full-information solver's line (it reads the hidden cards: an upper bound):
    what both games' oracles share (:class:`TriPeaksOracle`, :class:`FortyThievesOracle`).

    Options: ``max_nodes`` and ``max_seconds``, the budget of each search
    (:mod:`solitaire_env.common.budget`: one alone is the only limit, both: the first spent;
    neither: :data:`~solitaire_env.common.budget.DEFAULT_MAX_NODES` nodes); ``follow``
    (Forty Thieves): the draws of a non-winning line played before searching again (0: all).
    ``searches`` and ``nodes`` count the searches run and positions expanded (for reports).
    """

    name = "oracle"
    sees_hidden = True
    label = "upper bound"

    def __init__(
        self,
        game: GameName,
        seed: int = 0,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
        follow: int = 1,
    ) -> None:
        super().__init__(game, seed)
        if isinstance(follow, bool) or not isinstance(follow, int) or follow < 0:
            raise ValueError(f"follow must be a whole number >= 0, got {follow!r}")
        self.follow = follow
        self.budget = search_budget(max_nodes, max_seconds)
        #: position key -> the action the current line plays there
        self._plan: dict[tuple[Any, ...], int] = {}
        self.searches = 0
        self.nodes = 0
        #: the verdict of the last search from an episode's first position reached off-plan
        self.last_status: str | None = None

    def reset(self) -> None:
        self._plan = {}
        self.last_status = None

    def act(self, state: Any) -> int:
        raise TypeError("the oracle plays from the full game: call agents.base.decide (it calls act_full)")

    def act_full(self, game: Game, actions: tuple[int, ...]) -> int:
        key = position_key(game)
        action = self._plan.get(key)
        if action is not None and game.legal_mask() >> action & 1:
            return action
        result = self._search(game)
        self.last_status = result.status
        line = result.line if result.status == "solved" else self._unsolved_line(result.line)
        self._plan = self._line_plan(game, line)
        action = self._plan.get(key)
        if action is not None:
            return action
        # nothing better than here (the best line is empty): the heuristic, else any legal move
        move = public_move(game)
        if move is not None:
            return move
        mask = game.legal_mask()
        return (mask & -mask).bit_length() - 1  # the lowest legal action

    def _search(self, game: Game) -> SolveResult:
        self.searches += 1
        result = self._solve(game)
        self.nodes += result.nodes
        return result

    @abstractmethod
    def _solve(self, game: Any) -> SolveResult:
        """The full-information search of a position."""

    def _unsolved_line(self, line: tuple[int, ...]) -> tuple[int, ...]:
        """The part of a line that did not win that is played before searching again (all of it)."""
        return line

    @staticmethod
    def _line_plan(game: Game, line: tuple[int, ...]) -> dict[tuple[Any, ...], int]:
        """The positions along ``line`` from ``game`` (replayed on a copy), each with its action."""
        plan: dict[tuple[Any, ...], int] = {}
        work = game.copy()
        for action in line:
            plan[position_key(work)] = action  # a position met twice keeps its last action: no cycle
            if work.try_play(action) is not None:  # pragma: no cover - a solver line always replays
                break
        return plan


class TriPeaksOracle(OracleAgent):
    """:class:`OracleAgent` on TriPeaks: an exact search; a lost deal's line clears the most cards."""

    games = ("tripeaks",)

    def _solve(self, game: Any) -> SolveResult:
        from solitaire_env.tripeaks.solver import solve_tripeaks  # numba: loaded on first use

        return solve_tripeaks(game, max_nodes=self.budget.nodes, max_seconds=self.budget.seconds, maximise_cleared=True)


class FortyThievesOracle(OracleAgent):
    """:class:`OracleAgent` on Forty Thieves: a line that did not win is played through
    ``follow`` draws, then searched again."""

    games = ("fortythieves",)

    def _solve(self, game: Any) -> SolveResult:
        from solitaire_env.fortythieves.solver import solve_fortythieves  # numba: loaded on first use

        return solve_fortythieves(game, max_nodes=self.budget.nodes, max_seconds=self.budget.seconds)

    def _unsolved_line(self, line: tuple[int, ...]) -> tuple[int, ...]:
        return _through_draws(line, self.follow)


def _through_draws(line: tuple[int, ...], draws: int) -> tuple[int, ...]:
    """``line`` up to and including its ``draws``-th draw (all of it with fewer draws; ``draws=0``:
    all of it)."""
    if draws == 0:
        return line
    seen = 0
    for i, action in enumerate(line):
        if action == FT_DRAW:
            seen += 1
            if seen == draws:
                return line[: i + 1]
    return line
