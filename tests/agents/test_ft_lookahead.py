"""The Forty Thieves ``lookahead`` agent: its numba kernels against their Python twins.

- :func:`position_value` against ``EvaluateAgent.score`` on thousands of positions from random
  play (the score the agent ranks the turn's positions by);
- :func:`turn_search` against a breadth-first search written here over the Python solver's
  moves (``python_solver.ordered_moves``, the twin of the numba move order) and its canonical
  position key, scored by ``EvaluateAgent.score``: the same first move on every position;
- the agent never reads the stock and plays the line's first move.

The agent's blindness to the unseen cards, its legality and that it never goes round in circles
are in ``test_agents_heuristics.py`` (it is one of the ``FT_NAMES`` there).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from conftest import ft_random_positions

from agents.base import decide, public_state
from agents.players.heuristics.fortythieves import EvaluateAgent, LookaheadAgent
from agents.players.heuristics.fortythieves_kernels import position_value, turn_search
from agents.registry import make_agent
from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.python_solver import _canonical_key, ordered_moves
from solitaire_env.fortythieves.rules import DRAW
from solitaire_env.fortythieves.solver import load_position
from solitaire_env.solvability import draw_codes, make_game

WEIGHTS = np.array([10.0, 3.0, 0.5, 1.0, 1.0])
VALUES = np.zeros(210)  # turn_search's per-move best scores


def _arrays(game: FortyThievesGame) -> K.SearchArrays:
    sa = K.SearchArrays(4)
    load_position(sa, game)
    K.derive(sa.position)
    return sa


def _position(sa: K.SearchArrays) -> list[np.ndarray]:
    """The position the arrays hold, with its keys and tables (not the stale entries above the
    piles' tops)."""
    cols = [sa.cols[j, : sa.clen[j]].copy() for j in range(len(sa.clen))]
    rest = (sa.clen, sa.fnd, sa.waste[: sa.sc[K.S_WLEN]], sa.ch, sa.wh, sa.tops, sa.topped, sa.sc[: K.S_MINS])
    return [*cols, *(x.copy() for x in rest)]


def _random_games(deals: int, seed: int, steps: int) -> list[FortyThievesGame]:
    """Positions along random games (foundation moves preferred), ``steps`` per deal at most."""
    rng = np.random.default_rng(seed)
    out = []
    for i, code in enumerate(draw_codes(deals, seed, "FT", "N")):
        game = make_game(code, {"foundation_return": i % 3 != 2})
        for _ in range(steps):
            legal = game.legal_actions()
            if not legal:
                break
            found = [a for a in legal if a != DRAW and a % 11 == 10]
            game.play(int(rng.choice(found if found and rng.random() < 0.6 else legal)))
            out.append(game.copy())
    return out


def test_position_value_is_the_evaluate_score() -> None:
    agent = EvaluateAgent("fortythieves", founded=7.0, empty=2.5, run=0.75, bury=1.5, waste=0.5)
    weights = np.array([7.0, 2.5, 0.75, 1.5, 0.5])
    need = np.zeros(52, np.int64)
    games = _random_games(30, 3, 200)
    assert len(games) > 3000
    values = set()
    for game in games:
        sa = _arrays(game)
        got = position_value(sa.cols, sa.clen, sa.waste, sa.sc[K.S_WLEN], sa.fnd, weights, need)
        assert got == pytest.approx(agent.score(game), abs=1e-9)
        values.add(round(got, 6))
    assert len(values) > 500  # the positions differ, and so do their scores


def _python_turn_search(game: FortyThievesGame, nodes: int, margin: float = 0.0) -> tuple[int, float, dict[int, float]]:
    """The breadth-first search of ``turn_search`` in Python (see the module docstring): the
    first move, the root's score, and the best score reached through each first move."""
    score = EvaluateAgent("fortythieves").score
    seen = {_canonical_key(game)}
    queue: deque[tuple[FortyThievesGame, int]] = deque([(game, -1)])
    root = score(game)
    best, top, count = -1, root + margin, 1
    through: dict[int, float] = {}
    while queue and count <= nodes:
        node, first = queue.popleft()
        for a in ordered_moves(node, -1):
            if a == DRAW:
                continue
            child = node.copy()
            child.play(a)
            key = _canonical_key(child)
            if key in seen:
                continue
            seen.add(key)
            move = a if first < 0 else first
            value = score(child)
            through[move] = max(through.get(move, -np.inf), value)
            if value > top:
                best, top = move, value
            queue.append((child, move))
            count += 1
            if count > nodes:
                break
    return best, root, through


@pytest.mark.parametrize("nodes", [1, 30, 250])
def test_turn_search_is_the_python_breadth_first_search(nodes: int) -> None:
    positions = ft_random_positions(60, 4)
    moved = 0
    for game, _ in positions:
        sa = _arrays(game)
        before = _position(sa)
        got, root = turn_search(sa.position, sa.scratch, game.rules.foundation_return, nodes, WEIGHTS, 0.0, VALUES)
        want, want_root, through = _python_turn_search(game, nodes)
        assert got == want, (nodes, game.columns)
        assert root == pytest.approx(want_root, abs=1e-9)
        tried = {a for a in range(210) if VALUES[a] > -np.inf}
        assert tried == set(through)
        for a in tried:
            assert VALUES[a] == pytest.approx(through[a], abs=1e-9)
        if got >= 0:  # the first move's line holds the best position
            assert VALUES[got] == max(VALUES)
        after = _position(sa)  # the arrays hold the root again
        assert all(np.array_equal(x, y) for x, y in zip(before, after))
        moved += got >= 0
    assert moved > 20


def test_a_larger_margin_draws_more_often() -> None:
    positions = ft_random_positions(40, 8)
    draws = []
    for margin in (0.0, 1e6):
        count = 0
        for game, _ in positions:
            sa = _arrays(game)
            args = (sa.position, sa.scratch, game.rules.foundation_return, 200, WEIGHTS, margin, VALUES)
            count += turn_search(*args)[0] < 0
        draws.append(count)
    assert draws[0] < draws[1] == len(positions)


def test_the_agent_plays_the_searchs_first_move_and_never_reads_the_stock() -> None:
    agent = make_agent("lookahead", "fortythieves", nodes=300)
    assert isinstance(agent, LookaheadAgent) and agent.nodes == 300
    for game, actions in ft_random_positions(25, 9)[:25]:
        state = public_state(game, actions)
        action = agent.act(state)
        assert action in state.legal
        # the stock's order does not enter: the search from the true position (its real stock)
        # gives the same first move, unless the agent had to avoid a repeated position
        sa = _arrays(game)
        first = turn_search(sa.position, sa.scratch, game.rules.foundation_return, 300, WEIGHTS, 0.0, VALUES)[0]
        if action != DRAW and first >= 0:
            assert action == first


def test_the_agent_wins_more_than_evaluate_on_a_few_deals() -> None:
    """A deeper search finds more: 8 validation deals, where evaluate founds fewer cards in all."""
    totals = {}
    for name, options in (("evaluate", {}), ("lookahead", {"nodes": 2000})):
        founded = 0
        for code in draw_codes(8, 1, "FT", "N"):
            game = make_game(code)
            agent = make_agent(name, "fortythieves", **options)
            actions: list[int] = []
            while not game.over and len(actions) < 1000:
                action = decide(agent, game, actions)
                game.play(action)
                actions.append(action)
            founded += game.founded
        totals[name] = founded
    assert totals["lookahead"] > totals["evaluate"] + 24, totals


def test_bad_options() -> None:
    for bad in (0, -1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="nodes"):
            LookaheadAgent("fortythieves", nodes=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        LookaheadAgent("tripeaks")
