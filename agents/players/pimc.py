"""``pimc``: perfect-information Monte Carlo, determinized sampling with the solver.

At each decision with more than one legal move the agent draws ``samples`` full games
consistent with what it has seen (:meth:`~agents.base.PublicState.determinize`, seeded from
the public information only, so the choice never depends on the unseen cards' order).  Every
candidate move is scored on the *same* samples: in each sample the position after the move is
solved with full information (the sample's hidden cards), within ``max_nodes`` per search.

* a ``solved`` position counts 1 (a win), ``unsolvable`` 0, ``intractable`` (the budget ran
  out) ``intractable`` (default 0.5: "unknown": a position whose search gave up may well be
  winnable, so it does not count as a loss);
* the move with the highest total wins; ties go to the hint heuristic's move
  (:mod:`solitaire_env.hints`), then to the first candidate in a fixed order.

TriPeaks: every legal move is a candidate.  Per sample the agent first solves the sample's
position itself: ``unsolvable`` means every candidate loses in that sample (no search per
move), ``solved`` gives the first move of the winning line a win without a search of its own.

Forty Thieves (the search is slow, so cheap settings): a forced safe foundation move is played
without search; the candidates are the solver's own move list
(:func:`~solitaire_env.fortythieves.solver.ordered_moves`: dominated and symmetric moves pruned,
best first), the first ``max_candidates`` of them plus the hint's move; with tiny budgets
almost every search is ``intractable``, so the cards founded along the best
line (summed over the samples) break the tie before the hint does; and a move back to a
position already met in the episode comes last (the episode ends at a position's third
occurrence).

Strategy fusion: in each sample the solver knows where every card lies, so it plays each
sample with a different strategy, and a move looks good if *some* continuation wins in each
sample, though no single strategy could choose among those continuations without seeing the
cards.  Where almost every legal move wins almost every sample, the totals tie and the
tie-break decides; ``docs/research_notes.md`` has what this costs on TriPeaks.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, cast

from agents.base import Agent, Game, GameName, PublicState
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.fortythieves.planning import founds_safely
from solitaire_env.fortythieves.python_solver import ordered_moves as ft_solver_moves
from solitaire_env.tripeaks.advice import tripeaks_advice
from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge

__all__ = ["DEFAULTS", "FortyThievesPimc", "PimcAgent", "TriPeaksPimc"]

#: Default options per game: a TriPeaks game costs about 0.3-0.5 CPU s (a 1000-deal
#: evaluation: minutes), a Forty Thieves game a few seconds (see the docs).
DEFAULTS: dict[GameName, dict[str, int]] = {
    "tripeaks": {"samples": 10, "max_nodes": 20_000, "max_candidates": 29},
    "fortythieves": {"samples": 2, "max_nodes": 200, "max_candidates": 4},
}


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return value


class PimcAgent(Agent):
    """Determinized sampling with the full-information solver (see the module docstring): what
    both games' agents share; :class:`TriPeaksPimc` and :class:`FortyThievesPimc` score the
    candidates.

    Options: ``samples`` (K, the determinizations per decision), ``max_nodes`` (the node
    budget of each search), ``intractable`` (what a spent budget counts, 0..1; default 0.5),
    ``max_candidates`` (Forty Thieves: the solver's first moves considered, plus the hint's),
    ``tiebreak`` (``"hint"``, the default: ties go to the hint's move; ``"order"``: to the first
    candidate, lowest action first on TriPeaks, for experiments).
    Defaults: :data:`DEFAULTS`.  ``decisions``, ``searches`` count what it did (for reports).
    """

    name = "pimc"
    label = "determinized solver"

    def __init__(
        self,
        game: GameName,
        seed: int = 0,
        *,
        samples: int | None = None,
        max_nodes: int | None = None,
        intractable: float = 0.5,
        max_candidates: int | None = None,
        tiebreak: str = "hint",
    ) -> None:
        super().__init__(game, seed)
        defaults = DEFAULTS[game]
        self.samples = _whole("samples", defaults["samples"] if samples is None else samples, 1)
        self.max_nodes = _whole("max_nodes", defaults["max_nodes"] if max_nodes is None else max_nodes, 1)
        self.max_candidates = _whole(
            "max_candidates", defaults["max_candidates"] if max_candidates is None else max_candidates, 1
        )
        if isinstance(intractable, bool) or not isinstance(intractable, int | float) or not 0 <= intractable <= 1:
            raise ValueError(f"intractable must be a number in [0, 1], got {intractable!r}")
        self.intractable = float(intractable)
        if tiebreak not in ("hint", "order"):
            raise ValueError(f"tiebreak must be 'hint' or 'order', got {tiebreak!r}")
        self.tiebreak = tiebreak
        #: counters for reports: decisions searched, searches run, decisions whose best score
        #: was shared (the tie-break chose), decisions where every candidate won every sample,
        #: decisions where the move differs from the hint's
        self.decisions = 0
        self.searches = 0
        self.ties = 0
        self.unanimous = 0
        self.overrides = 0
        #: the scores of the last decision searched (candidate -> score tuple)
        self.last_scores: dict[int, tuple[float, ...]] = {}

    # ------------------------------------------------------------------ the decision

    def act(self, state: PublicState) -> int:
        legal = state.legal
        if len(legal) == 1:
            return legal[0]
        return self._act(state)

    #: Where the win total sits in a candidate's score tuple.
    WIN_INDEX = 0

    @abstractmethod
    def _act(self, state: PublicState) -> int:
        """The move of a position with more than one legal move."""

    @abstractmethod
    def _search(self, game: Any) -> SolveResult:
        """The full-information search of one sample's position."""

    def _choose(self, candidates: list[int], hint: int | None, scores: dict[int, tuple[float, ...]]) -> int:
        """The best score; ties: the hint's move, then the earliest candidate."""
        self.decisions += 1
        self.last_scores = scores
        order = {a: i for i, a in enumerate(candidates)}
        use_hint = self.tiebreak == "hint"
        choice = max(candidates, key=lambda a: (scores[a], use_hint and a == hint, -order[a]))
        if sum(1 for a in candidates if scores[a] == scores[choice]) > 1:
            self.ties += 1
        if all(scores[a][self.WIN_INDEX] == self.samples for a in candidates):
            self.unanimous += 1
        if choice != hint:
            self.overrides += 1
        return choice

    def _value(self, result: SolveResult) -> float:
        if result.status == "solved":
            return 1.0
        if result.status == "intractable":
            return self.intractable
        return 0.0

    def _solve(self, game: Any) -> SolveResult:
        self.searches += 1
        return self._search(game)


class TriPeaksPimc(PimcAgent):
    """:class:`PimcAgent` on TriPeaks: every legal move, scored by the samples it wins."""

    games = ("tripeaks",)

    def _act(self, state: PublicState) -> int:
        hint = tripeaks_advice(cast(TriPeaksKnowledge, state.knowledge))
        rng = state.rng(self.seed)
        samples = [state.determinize(rng) for _ in range(self.samples)]
        legal = list(state.legal)
        return self._choose(legal, hint, self._tripeaks_scores(samples, legal))

    def _search(self, game: Any) -> SolveResult:
        from solitaire_env.tripeaks.solver import solve_tripeaks  # numba: loaded on first use

        return solve_tripeaks(game, max_nodes=self.max_nodes)

    def _tripeaks_scores(self, samples: list[Game], legal: list[int]) -> dict[int, tuple[float, ...]]:
        total = dict.fromkeys(legal, 0.0)
        for sample in samples:
            root = self._solve(sample)
            if root.status == "unsolvable":
                continue  # no move wins this sample: every candidate scores 0 here
            known = root.line[0] if root.status == "solved" and root.line else None
            for action in legal:
                if action == known:
                    total[action] += 1.0
                    continue
                child = sample.copy()
                child.play(action)
                total[action] += 1.0 if child.won else self._value(self._solve(child))
        return {a: (v,) for a, v in total.items()}


class FortyThievesPimc(PimcAgent):
    """:class:`PimcAgent` on Forty Thieves: the solver's first moves and the hint's, scored by
    (not repeating a position, samples won, cards founded)."""

    games = ("fortythieves",)
    WIN_INDEX = 1

    def _act(self, state: PublicState) -> int:
        hint = fortythieves_advice(cast(FortyThievesKnowledge, state.knowledge))
        rng = state.rng(self.seed)
        first = cast(FortyThievesGame, state.determinize(rng))
        # the solver's move list reads the columns, waste and foundations only (all public)
        moves = [a for a in ft_solver_moves(first, -1) if state.mask[a]]
        if len(moves) == 1 and founds_safely(first, moves[0]):
            return moves[0]  # a safe foundation move: the solver itself forces it
        candidates = moves[: self.max_candidates]
        if hint is not None and hint not in candidates:
            candidates.append(hint)
        if not candidates:
            candidates = [state.legal[0]]
        if len(candidates) == 1:
            return candidates[0]
        samples: list[Game] = [first]
        samples.extend(state.determinize(rng) for _ in range(self.samples - 1))
        visited = _visited_hashes(first, len(state.actions))
        return self._choose(candidates, hint, self._fortythieves_scores(samples, candidates, visited))

    def _fortythieves_scores(
        self, samples: list[Game], candidates: list[int], visited: set[int]
    ) -> dict[int, tuple[float, ...]]:
        value = dict.fromkeys(candidates, 0.0)
        founded = dict.fromkeys(candidates, 0)
        fresh: dict[int, bool] = {}
        for sample in cast(list[FortyThievesGame], samples):
            for action in candidates:
                child = sample.copy()
                child.play(action)
                fresh.setdefault(action, child.position_hash not in visited)
                if child.won:
                    value[action] += 1.0
                    founded[action] += child.founded
                    continue
                result = self._solve(child)
                value[action] += self._value(result)
                founded[action] += result.best
        return {a: (float(fresh[a]), value[a], float(founded[a])) for a in candidates}

    def _search(self, game: Any) -> SolveResult:
        from solitaire_env.fortythieves.solver import solve_fortythieves  # numba: loaded on first use

        return solve_fortythieves(game, max_nodes=self.max_nodes)


def _visited_hashes(game: FortyThievesGame, moves: int) -> set[int]:
    """The position hashes of the episode so far: ``game`` and the ``moves`` positions before it
    (taken back on a copy with undo).  A hash covers columns, waste, foundations and the stock
    position, all public, so any determinization gives the same set."""
    work = game.copy()
    seen = {work.position_hash}
    for _ in range(moves):
        if not work.undo():
            break
        seen.add(work.position_hash)
    return seen
