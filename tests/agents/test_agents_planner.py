"""The Forty Thieves ``planner`` agent: legal, blind to the unseen cards, faithful to its plan,
deterministic, and its episodes replay exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import ft_random_positions

from agents.base import decide, public_state
from agents.evaluation.harness import evaluate
from agents.evaluation.records import Replayer, find_records
from agents.players.planner import PlannerAgent
from agents.registry import make_agent
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import DRAW

#: Cheap settings for tests (the defaults are for evaluations).
FAST: dict[str, Any] = {"samples": 2, "root_nodes": 300, "eval_nodes": 300, "endgame_nodes": 2000}


def _positions(n: int, seed: int) -> list[tuple[FortyThievesGame, list[int]]]:
    """Positions along random games (tests/conftest.py), the finished ones left out."""
    return [(g, a) for g, a in ft_random_positions(n, seed) if not g.over]


def test_registered_and_options_checked() -> None:
    agent = make_agent("planner", "fortythieves")
    assert isinstance(agent, PlannerAgent) and not agent.sees_hidden
    for bad in ({"samples": 0}, {"eval_nodes": 0}, {"intractable": 1.5}, {"root_nodes": -1}, {"lookahead": -1}):
        with pytest.raises(ValueError):
            make_agent("planner", "fortythieves", **bad)


@pytest.mark.parametrize("options", [FAST, {**FAST, "lookahead": 200}])
def test_legal_and_blind_to_the_unseen_cards(options: dict[str, Any]) -> None:
    rng = np.random.default_rng(3)
    agent = make_agent("planner", "fortythieves", seed=4, **options)  # one agent: it must notice new games
    for game, actions in _positions(12, 1):
        state = public_state(game, actions)
        action = agent.act(state)
        assert action in state.legal
        rest = list(state.unseen)
        rng.shuffle(rest)
        other = state.with_unseen(rest)
        assert make_agent("planner", "fortythieves", seed=4, **options).act(public_state(other, actions)) == action


def test_the_lookahead_turn_is_a_candidate() -> None:
    """With ``lookahead`` the lookahead agent's turn (what that agent would play) is among the
    plans: one of them ends in the position it ends in (plans that meet are one)."""
    from agents.players.heuristics.fortythieves import LookaheadAgent

    def end(moves: tuple[int, ...]) -> int:
        work = game.copy()
        for a in moves:
            work.play(a)
        return work.position_hash

    checked = based = 0
    for game, actions in _positions(16, 6):
        agent = make_agent("planner", "fortythieves", seed=2, **FAST, lookahead=300)
        assert isinstance(agent, PlannerAgent)
        agent.act(public_state(game, actions))
        if not agent.turns:
            continue  # a forced move or the stock out: no plan
        turn = LookaheadAgent("fortythieves", nodes=300).plan(game)
        assert end(turn) in {end(p.moves[:-1]) for p in agent.last_plans}
        checked += 1
        based += any(p.source == "base" for p in agent.last_plans)
    assert checked >= 6 and based >= 2


def test_plays_its_plan_to_the_draw() -> None:
    """After a turn's search the agent plays the best plan's moves, the draw last, without
    searching again."""
    checked = 0
    for game, actions in _positions(6, 2):
        agent = make_agent("planner", "fortythieves", seed=1, **FAST)
        assert isinstance(agent, PlannerAgent)
        while not game.over and agent.turns == 0 and game.stock_pos < len(game.stock):
            move = decide(agent, game, actions)
            game.play(move)
            actions.append(move)
        if agent.turns == 0:
            continue
        plan = agent.last_plans[0].moves
        assert plan[-1] == DRAW and actions[-1] == plan[0]
        for move in plan[1:]:
            assert decide(agent, game, actions) == move
            game.play(move)
            actions.append(move)
        assert agent.turns == 1
        checked += 1
    assert checked >= 3


def test_deterministic() -> None:
    game, actions = _positions(3, 5)[-1]
    moves = []
    for _ in range(2):
        g = game.copy()
        acts = list(actions)
        agent = make_agent("planner", "fortythieves", seed=9, **FAST)
        for _ in range(40):
            if g.over:
                break
            a = decide(agent, g, acts)
            g.play(a)
            acts.append(a)
        moves.append(acts)
    assert moves[0] == moves[1]


def test_episodes_replay_exactly(tmp_path: Path) -> None:
    """Recorded games, the agent rerun from the records in this process (the records also
    replay with ``solitaire-env replay``, a fresh process: tests/test_cli.py)."""
    spec = {"name": "planner", **FAST}
    evaluate(game="ft", deals=2, seed=3, agents=[spec], workers=1, record=str(tmp_path))
    files = find_records([str(tmp_path)])
    assert len(files) == 2
    reports = list(Replayer(rerun_agent=True).replay_files(files))
    assert len(reports) == 2 and not any(r.warnings for r in reports)


def test_the_hint_suggests_the_agents_move() -> None:
    """Seed 001's hint with cards unseen is the planner's first move of a turn (seed 0, the
    default settings), and ``plan=False`` the heuristic's."""
    from solitaire_env import hint
    from solitaire_env.hints import REASON_PLAN, public_move

    planned = 0
    for game, actions in _positions(20, 7):
        if game.all_known:
            continue
        h = hint(game)
        assert make_agent("planner", "fortythieves").act(public_state(game, actions)) == h.action
        assert hint(game, plan=False).action == public_move(game)
        planned += h.reason == REASON_PLAN
    assert planned >= 4
