"""``planner``: Forty Thieves plans up to the next draw, scored on sampled stock orders.

The agent decides once per *turn* (the moves up to and including the next draw) with
:func:`solitaire_env.fortythieves.planning.plan_turn`: candidate plans (drawing at once, the
hint heuristic's moves until it draws, the full-information search's moves up to its first draw
in each sample of the stock's order) are each scored on every sample by the search after the
plan's draw, and the best is played move by move, its draw included.  Nothing is seen before
the draw, so the plan loses nothing by being fixed in advance, and the search's clairvoyance
(strategy fusion) enters only after the next card.

When the stock is out every card is known: the agent follows the full-information search's line
(:func:`~solitaire_env.fortythieves.planning.endgame_line`, ``endgame_nodes`` positions; a new
search once a line is played out, at most ``endgame_searches`` in a game), else the hint's move.
A safe foundation move (both copies of the rank below founded) is played at once, as the solver
itself forces it.

The position is :meth:`~agents.base.PublicState.with_unseen` with the unseen cards in sorted
order and the samples come from :func:`~solitaire_env.fortythieves.planning.public_rng` (the
public position and the agent's seed), so the choices are a function of the public state:
permuting the unseen stock cards never changes them.  With seed 0, a turn's first move is the
one :func:`solitaire_env.hint` suggests.
Measured figures: docs/results.md.
"""

from __future__ import annotations

from typing import Any, cast

from agents.base import Agent, GameName, PublicState
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.fortythieves.planning import DEFAULT_PLANNING, Plan, endgame_line, forced_move, plan_turn, public_rng

__all__ = ["PlannerAgent"]


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return value


class PlannerAgent(Agent):
    """Plans up to the next draw, scored on sampled stock orders (see the module docstring).

    Options: ``samples`` (stock orders per turn), ``root_nodes`` (the search per sample that
    proposes plans), ``eval_nodes`` (the search per plan and sample that scores it),
    ``intractable`` (what a spent budget counts, 0..1), ``endgame_nodes`` and
    ``endgame_searches`` (the full-information endgame once the stock is out), ``branch`` (plans
    that start with another legal move), ``lookahead`` (when above 0: the ``lookahead`` agent's
    turn, searching that many positions a move, is one more candidate plan).
    ``turns`` counts the turns planned, ``stats`` the turns' searches and the positions they
    expanded; ``last_plans`` holds the last turn's candidates, best first.
    """

    name = "planner"
    games = ("fortythieves",)
    label = "plans to the next draw on sampled stocks"

    def __init__(
        self,
        game: GameName = "fortythieves",
        seed: int = 0,
        *,
        samples: int = int(DEFAULT_PLANNING["samples"]),
        root_nodes: int = int(DEFAULT_PLANNING["root_nodes"]),
        eval_nodes: int = int(DEFAULT_PLANNING["eval_nodes"]),
        intractable: float = float(DEFAULT_PLANNING["intractable"]),
        endgame_nodes: int = 1_000_000,
        endgame_searches: int = 4,
        branch: int = 0,
        lookahead: int = 0,
    ) -> None:
        super().__init__(game, seed)
        self.samples = _whole("samples", samples, 1)
        self.root_nodes = _whole("root_nodes", root_nodes, 0)
        self.eval_nodes = _whole("eval_nodes", eval_nodes, 1)
        self.endgame_nodes = _whole("endgame_nodes", endgame_nodes, 0)
        self.endgame_searches = _whole("endgame_searches", endgame_searches, 0)
        self.branch = _whole("branch", branch, 0)
        self.lookahead = _whole("lookahead", lookahead, 0)
        self._base: Any = None  # the lookahead agent whose turn is a candidate plan
        if self.lookahead:
            from agents.players.heuristics.fortythieves import LookaheadAgent

            self._base = LookaheadAgent(game, seed, nodes=self.lookahead)
        if isinstance(intractable, bool) or not isinstance(intractable, int | float) or not 0 <= intractable <= 1:
            raise ValueError(f"intractable must be a number in [0, 1], got {intractable!r}")
        self.intractable = float(intractable)
        self.turns = 0
        self.stats: dict[str, int] = {}
        self.last_plans: list[Plan] = []
        self._reset_game()

    def _reset_game(self, layout: tuple[int | None, ...] = ()) -> None:
        # the line being followed: (the deal's layout, the actions it starts after, its moves)
        self._line: tuple[tuple[int | None, ...], tuple[int, ...], tuple[int, ...]] | None = None
        self._endgames = 0  # endgame searches in this game
        self._layout = layout  # the game's deal (its columns): another one is another game

    def reset(self) -> None:
        self._reset_game()

    # ------------------------------------------------------------------ the decision

    def act(self, state: PublicState) -> int:
        if state.layout != self._layout or not state.actions:
            self._reset_game(state.layout)  # a new game, without a reset() first
        legal = state.legal
        if len(legal) == 1:
            return legal[0]
        move = self._follow(state)
        if move is not None:
            return move
        base = cast(FortyThievesGame, state.with_unseen(list(state.unseen)))
        move = forced_move(base)
        if move is not None:
            return move
        k = cast(FortyThievesKnowledge, state.knowledge)
        line = self._endgame_line(base) if k.stock_left == 0 else self._turn(base)
        if not line:
            hint = fortythieves_advice(k)
            return hint if hint is not None else legal[0]
        self._line = (state.layout, state.actions, line)
        return line[0]

    def _follow(self, state: PublicState) -> int | None:
        """The next move of the line being followed, if the game is still on it."""
        memo = self._line
        if memo is None or memo[0] != state.layout or state.actions[: len(memo[1])] != memo[1]:
            return None
        done = len(state.actions) - len(memo[1])
        line = memo[2]
        if done < len(line) and state.actions[len(memo[1]) :] == line[:done] and state.mask[line[done]]:
            return line[done]
        return None

    # ------------------------------------------------------------------ the turn

    def _turn(self, base: FortyThievesGame) -> tuple[int, ...]:
        self.turns += 1
        extra = (self._base.plan(base),) if self._base is not None else ()
        self.last_plans = plan_turn(
            base, public_rng(base, self.seed), samples=self.samples, root_nodes=self.root_nodes,
            eval_nodes=self.eval_nodes, intractable=self.intractable, branch=self.branch, stats=self.stats,
            extra=extra,
        )  # fmt: skip
        return self.last_plans[0].moves

    def _endgame_line(self, base: FortyThievesGame) -> tuple[int, ...]:
        """With every card known: the search's line, if it wins or founds more cards."""
        if self._endgames >= self.endgame_searches or self.endgame_nodes == 0:
            return ()
        self._endgames += 1
        return endgame_line(base, self.endgame_nodes)
