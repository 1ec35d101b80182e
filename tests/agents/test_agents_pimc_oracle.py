"""The ``oracle`` and ``pimc`` agents: verdicts, legality, fairness and determinism."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_position, winnable_deal

from agents.base import Game, decide, public_state
from agents.players.oracle import OracleAgent
from agents.players.pimc import PimcAgent
from agents.registry import agent_names, make_agent
from solitaire_env import TriPeaksDeal, solve
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.game import TriPeaksGame

#: Cheap pimc settings for tests (the defaults are for evaluations).
TP_FAST = {"samples": 4, "max_nodes": 5_000}
FT_FAST = {"samples": 1, "max_nodes": 30, "max_candidates": 3}


def _play(agent: object, game: Game, limit: int = 1000) -> list[int]:
    actions: list[int] = []
    while not game.over and len(actions) < limit:
        action = decide(agent, game, actions)  # type: ignore[arg-type]
        game.play(action)
        actions.append(action)
    return actions


def test_registered() -> None:
    for game in ("tripeaks", "fortythieves"):
        assert {"oracle", "pimc"} <= set(agent_names(game))  # type: ignore[arg-type]
    oracle = make_agent("oracle", "tripeaks")
    assert isinstance(oracle, OracleAgent) and oracle.sees_hidden and oracle.label == "upper bound"
    assert isinstance(make_agent("pimc", "fortythieves"), PimcAgent)
    assert not PimcAgent.sees_hidden
    with pytest.raises(ValueError, match="samples"):
        make_agent("pimc", "tripeaks", samples=0)
    with pytest.raises(ValueError, match="intractable"):
        make_agent("pimc", "tripeaks", intractable=2)
    with pytest.raises(ValueError, match="max_nodes"):
        make_agent("oracle", "tripeaks", max_nodes=0)


def test_oracle_wins_a_winnable_deal() -> None:
    game = TriPeaksGame(TriPeaksDeal.parse(winnable_deal(draws_before=3)))
    actions = _play(make_agent("oracle", "tripeaks"), game)
    assert game.won and len(actions) <= 28 + 3 + 20  # 28 removals, at most every draw


@pytest.mark.parametrize("rule", ["E", "C"])
def test_oracle_matches_the_solver(rule: str) -> None:
    """The oracle wins exactly the deals the exact solver solves (Classic has lost ones)."""
    agent = make_agent("oracle", "tripeaks")
    verdicts = []
    for code in draw_codes(25, 1, "TP", rule):
        verdict = solve(make_game(code)).status
        game = make_game(code)
        agent.reset()
        _play(agent, game)
        assert game.over
        assert game.won == (verdict == "solved"), code
        verdicts.append(verdict)
    if rule == "C":
        assert "unsolvable" in verdicts and "solved" in verdicts


def test_oracle_resolves_when_the_game_leaves_its_line() -> None:
    code = draw_codes(1, 1, "TP", "E")[0]
    agent = make_agent("oracle", "tripeaks")
    game = make_game(code)
    actions: list[int] = []
    while len(actions) < 3 or len(game.legal_actions()) < 2:  # the oracle's own moves
        action = decide(agent, game, actions)
        game.play(action)
        actions.append(action)
    searches = agent.searches  # type: ignore[attr-defined]
    planned = decide(agent, game, actions)
    other = next(a for a in game.legal_actions() if a != planned)  # someone else moves
    game.play(other)
    actions.append(other)
    verdict = solve(game).status
    while not game.over:
        action = decide(agent, game, actions)
        game.play(action)
        actions.append(action)
    assert agent.searches > searches  # type: ignore[attr-defined]
    assert game.won == (verdict == "solved")


def test_oracle_fortythieves_plays_legal_moves() -> None:
    agent = make_agent("oracle", "fortythieves", max_nodes=500)
    game = make_game(draw_codes(1, 1, "FT", "N")[0])
    actions = _play(agent, game, limit=40)
    assert len(actions) == 40 or game.over
    assert game.founded > 0
    assert agent.searches > 1  # type: ignore[attr-defined]  (a non-winning line is followed through one draw)


def test_oracle_refuses_a_public_state() -> None:
    game = make_game(draw_codes(1, 1, "TP", "E")[0])
    with pytest.raises(TypeError, match="act_full"):
        make_agent("oracle", "tripeaks").act(public_state(game, []))


def test_pimc_plays_legal_moves_tripeaks() -> None:
    agent = make_agent("pimc", "tripeaks", **TP_FAST)
    for code in draw_codes(2, 1, "TP", "C"):
        game = make_game(code)
        _play(agent, game)  # decide() raises on an illegal action
        assert game.over
    assert agent.decisions > 0 and agent.searches > 0  # type: ignore[attr-defined]


def test_pimc_plays_legal_moves_fortythieves() -> None:
    agent = make_agent("pimc", "fortythieves", **FT_FAST)
    game = make_game(draw_codes(1, 1, "FT", "N")[0])
    actions = _play(agent, game, limit=40)
    assert len(actions) == 40 or game.over


@pytest.mark.parametrize(
    ("game_code", "rule", "options"), [("TP", "E", TP_FAST), ("TP", "C", TP_FAST), ("FT", "N", FT_FAST)]
)
def test_pimc_ignores_the_unseen_cards_order(game_code: str, rule: str, options: dict[str, int]) -> None:
    """The same public state, whatever the unseen cards are, gets the same move."""
    name = "tripeaks" if game_code == "TP" else "fortythieves"
    agent = make_agent("pimc", name, seed=7, **options)  # type: ignore[arg-type]
    rng = np.random.default_rng(11)
    checked = 0
    for i, code in enumerate(draw_codes(4, 3, game_code, rule)):
        game, actions = random_position(code, 4 + 5 * i, seed=i)
        state = public_state(game, actions)
        if len(state.legal) < 2:
            continue
        move = agent.act(state)
        for _ in range(2):
            cards = list(state.unseen)
            rng.shuffle(cards)
            other = public_state(state.with_unseen(cards), actions)
            assert agent.act(other) == move
        checked += 1
    assert checked >= 2


def test_pimc_is_deterministic() -> None:
    codes = draw_codes(3, 4, "TP", "E")
    runs = []
    for _ in range(2):
        agent = make_agent("pimc", "tripeaks", seed=3, **TP_FAST)
        moves = []
        for code in codes:
            game = make_game(code)
            moves.append(tuple(_play(agent, game)))
        runs.append(moves)
    assert runs[0] == runs[1]
