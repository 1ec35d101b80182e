"""Move features: a Forty Thieves position as a table of what each legal move does.

A multilayer perceptron on the flat observation (3,897 one-hot values) has to learn from the
cards alone which card fits on which, which move frees a card a foundation wants, and which
buries one: the old flat PPO policy founded fewer cards than the simplest heuristic. Here the
policy's input is instead one row per action (210 rows of :data:`MOVE_FEATURES` numbers; zero
for an illegal action) and a few numbers about the position, and the policy scores every row
with one shared network (:mod:`agents.training.move_policy`), as the TriPeaks afterstate policy does.

A row says, for a legal move (the rules core plays it on a copy of the public position and
takes it back; the draw is never played, since its card is unseen):

====  ==========================================================================================
0     legal (1 for every legal move: the scorer reads only these rows)
1-6   draw; to a foundation; from the waste; from a foundation; into an empty column; founds
      safely (both copies of the rank below are founded: :func:`~solitaire_env.fortythieves.planning.founds_safely`)
7-10  the ``evaluate`` agent's move; the hint's move (:func:`solitaire_env.hints.fortythieves_advice`);
      leads back to a position met since the last draw; the first move of a digging line
      (:func:`agents.players.heuristics.fortythieves.dig_lines`)
11-16 after the move and the foundation moves it opens (at most 4), the change of the
      ``evaluate`` agent's score parts from the position's own: cards founded / 4, empty
      columns, cards on their natural parent / 4, the burying penalties of the columns and of
      the waste / 4; and the ``evaluate`` gain / 10 (its score after, less its score after the
      foundation moves open now: the number it ranks moves by)
17-20 the moved card's rank / 13; the cards left in its pile (/ 16, the waste's / 64); in the
      destination column (/ 16; a foundation's height / 13); the legal moves after it / 30
21-23 the ``lookahead`` agent's move (:class:`~agents.players.heuristics.fortythieves.LookaheadAgent`,
      :data:`LOOKAHEAD_NODES` positions a move; the draw when it would draw); whether its turn
      search tried the move; and the best ``evaluate`` score the search's lines that start with
      the move reach, less the position's own score, / 10 (0 when not tried)
====  ==========================================================================================

The position's numbers (:data:`POSITION_FEATURES`): cards founded / 104, stock left / 64, empty
columns / 10, waste / 64, legal moves / 30, the ``evaluate`` score / 100, moves since the last
draw / 30, and whether the last move was a draw.

Everything is a function of the public state: the copy of the position is the ``evaluate``
agent's (:class:`~agents.players.heuristics.fortythieves.EvaluateAgent`), whose never-seen stock
places hold the unseen cards in sorted order and are never drawn; ``tests/agents/test_move_features.py``
checks that permuting the unseen stock cards changes nothing.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from agents.base import PublicState
from agents.players.heuristics.fortythieves import EvaluateAgent, LookaheadAgent, dig_lines
from agents.training.game_features import for_game
from solitaire_env.common.cards import rank_of
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.fortythieves.planning import founds_safely
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_DESTS,
    WASTE,
)

__all__ = [
    "LOOKAHEAD_NODES",
    "LOOKAHEAD_ROW",
    "MOVE_FEATURES",
    "OBS_SIZE",
    "POSITION_FEATURES",
    "MoveFeatures",
    "takes_move_features",
]

#: Numbers per action row (see the module docstring).
MOVE_FEATURES = 24
#: The positions the ``lookahead`` agent's turn search enters a move, for rows 21-23.
LOOKAHEAD_NODES = 4000
#: The row number that is 1 for the ``lookahead`` agent's move (what a policy's lookahead bonus reads).
LOOKAHEAD_ROW = 21
#: Numbers about the position, after the 210 rows.
POSITION_FEATURES = 8
#: The observation's length: 210 rows and the position's numbers.
OBS_SIZE = NUM_ACTIONS * MOVE_FEATURES + POSITION_FEATURES
_PARTS_SCALE = (4.0, 1.0, 4.0, 4.0, 4.0)


def takes_move_features(space: Any) -> bool:
    """Whether an observation space is that of the move features (a flat Box of :data:`OBS_SIZE`)."""
    return getattr(space, "shape", None) == (OBS_SIZE,)


class MoveFeatures:
    """The move features of public states, one game at a time (see the module docstring).

    Call it with each position of a game in turn (it keeps a copy of the position in step with
    the actions, and rebuilds it for another game or an earlier position)."""

    def __init__(self) -> None:
        self._evaluate = EvaluateAgent("fortythieves")
        self._lookahead = LookaheadAgent("fortythieves", nodes=LOOKAHEAD_NODES)

    def reset(self) -> None:
        self._evaluate.reset()
        self._lookahead.reset()

    def __call__(self, state: PublicState) -> np.ndarray:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        if not for_game("moves", state.game):
            raise TypeError("move features are for Forty Thieves public states")
        k = cast(FortyThievesKnowledge, state.knowledge)
        legal = k.legal
        if not legal:
            return out
        ev = self._evaluate
        choice = ev.act(state)  # its move; this keeps its copy of the position in step
        la = self._lookahead
        ahead = la.act(state)
        assert la.last_search is not None
        _, root, through = la.last_search
        pos = ev.position(state)
        hint = fortythieves_advice(k)
        digs = {line[0] for line in dig_lines(pos, ev.dig) if len(line) > 1}
        base_score = ev.after_walk(pos, None)[0]  # what evaluate's gains are measured from
        base_parts = ev.score_parts(pos)
        rows = out[: NUM_ACTIONS * MOVE_FEATURES].reshape(NUM_ACTIONS, MOVE_FEATURES)
        for action in legal:
            row = rows[action]
            row[0] = 1.0
            row[7] = action == choice
            row[8] = action == hint
            row[LOOKAHEAD_ROW] = action == ahead
            if through[action] > -np.inf:
                row[22] = 1.0
                row[23] = (through[action] - root) / 10.0
            if action == DRAW:
                row[1] = 1.0
                continue
            src, dst = divmod(action, NUM_DESTS)
            card = pos.source_card(src)
            assert card is not None
            row[2] = dst == FOUNDATION
            row[3] = src == WASTE
            row[4] = src >= FIRST_FOUNDATION_SRC
            row[5] = dst < NUM_COLUMNS and not pos.columns[dst]
            row[6] = dst == FOUNDATION and founds_safely(pos, action)
            row[9] = ev.repeats(action)
            row[10] = action in digs
            score, parts = ev.after_walk(pos, action)
            for i, (after, before, scale) in enumerate(zip(parts, base_parts, _PARTS_SCALE)):
                row[11 + i] = (after - before) / scale
            row[16] = (score - base_score) / 10.0
            row[17] = rank_of(card) / 13.0
            if src < NUM_COLUMNS:
                row[18] = (len(pos.columns[src]) - 1) / 16.0
            elif src == WASTE:
                row[18] = (len(pos.waste) - 1) / 64.0
            if dst < NUM_COLUMNS:
                row[19] = len(pos.columns[dst]) / 16.0
            elif dst == FOUNDATION:
                f = pos.foundation_for(card)
                row[19] = 0.0 if f is None else pos.foundations[f] / 13.0
            pos.play(action)
            row[20] = bin(pos.legal_mask()).count("1") / 30.0
            pos.undo()
        since_draw = 0
        for action in reversed(state.actions):
            if action == DRAW:
                break
            since_draw += 1
        tail = out[NUM_ACTIONS * MOVE_FEATURES :]
        tail[:] = (
            k.founded / 104.0,
            k.stock_left / 64.0,
            base_parts[1] / 10.0,
            len(pos.waste) / 64.0,
            len(legal) / 30.0,
            base_score / 100.0,
            min(since_draw, 60) / 30.0,
            bool(state.actions) and state.actions[-1] == DRAW,
        )
        return out
