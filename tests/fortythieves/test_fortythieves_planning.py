"""The fair turn planner of Forty Thieves (:mod:`solitaire_env.fortythieves.planning`)."""

from __future__ import annotations

import numpy as np
import pytest

from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.planning import endgame_line, hint_plan, plan_turn, sampled_stocks
from solitaire_env.fortythieves.rules import DRAW, FOUNDATION, NUM_DESTS, TOTAL_CARDS
from solitaire_env.fortythieves.solver import solve_fortythieves

#: Cheap settings for tests (the agent's defaults are for evaluations).
FAST = {"samples": 3, "root_nodes": 300, "eval_nodes": 300}


def _positions(n: int, seed: int) -> list[FortyThievesGame]:
    """Positions along random games (foundation moves preferred), the stock not out."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed * 1000 + i))
        for _ in range(int(rng.integers(0, 120))):
            legal = game.legal_actions()
            if not legal or game.stock_pos >= len(game.stock) - 1:
                break
            found = [a for a in legal if a != DRAW and a % NUM_DESTS == FOUNDATION]
            game.play(int(rng.choice(found if found and rng.random() < 0.7 else legal)))
        if not game.over:
            out.append(game)
    return out


def _permuted(game: FortyThievesGame, rng: np.random.Generator) -> FortyThievesGame:
    rest = list(game.stock[game.stock_seen :])
    rng.shuffle(rest)
    return game.with_stock(game.stock[: game.stock_seen] + tuple(rest))


def test_sampled_stocks_keep_what_was_seen_and_ignore_the_true_order() -> None:
    rng = np.random.default_rng(1)
    for game in _positions(10, 1):
        other = _permuted(game, rng)
        a = sampled_stocks(game, np.random.default_rng(9), 4)
        b = sampled_stocks(other, np.random.default_rng(9), 4)
        for x, y in zip(a, b, strict=True):
            assert x.stock == y.stock
            assert x.stock[: game.stock_seen] == game.stock[: game.stock_seen]
            assert sorted(x.stock) == sorted(game.stock)
            assert x.position_hash == game.position_hash
        assert len({x.stock for x in a}) > 1 or len(game.stock) - game.stock_seen < 2


def test_hint_plan_is_legal_stops_before_the_draw_and_never_repeats() -> None:
    for game in _positions(15, 2):
        moves = hint_plan(game)
        assert DRAW not in moves
        work = game.copy()
        seen = {work.position_hash}
        for a in moves:
            assert work.try_play(a) is None
            assert work.position_hash not in seen
            seen.add(work.position_hash)


def test_plan_turn_plans_end_with_the_draw_and_leave_the_game_alone() -> None:
    for game in _positions(6, 3):
        before = game.state_dict()
        plans = plan_turn(game, np.random.default_rng(0), **FAST)
        assert game.state_dict() == before
        assert plans and {p.source for p in plans} >= {"draw"}
        ends = set()
        for p in plans:
            assert p.moves[-1] == DRAW and DRAW not in p.moves[:-1]
            work = game.copy()
            for a in p.moves[:-1]:
                assert work.try_play(a) is None
            ends.add(work.position_hash)
            assert 0 <= p.value <= FAST["samples"] and 0 <= p.founded <= FAST["samples"] * TOTAL_CARDS
        assert len(ends) == len(plans)  # one candidate per position before the draw
        keys = [(-p.value, -p.founded) for p in plans]
        assert keys == sorted(keys)


def test_plan_turn_does_not_read_the_unseen_order() -> None:
    rng = np.random.default_rng(4)
    for game in _positions(5, 4):
        a = plan_turn(game, np.random.default_rng(7), **FAST)
        b = plan_turn(_permuted(game, rng), np.random.default_rng(7), **FAST)
        assert a == b


def test_plan_turn_wins_when_one_unseen_card_is_left() -> None:
    """Along a won line, with one stock card left unseen every sample is the true stock: the
    best plan wins in every sample, and the endgame line after its draw wins the game."""
    game = FortyThievesGame(FortyThievesDeal.from_seed(2))
    result = solve_fortythieves(game, max_nodes=100_000)
    assert result.status == "solved"
    for a in result.line:
        if a == DRAW and game.stock_pos == len(game.stock) - 1:
            break
        game.play(a)
    assert game.stock_pos == game.stock_seen == len(game.stock) - 1
    plans = plan_turn(game, np.random.default_rng(0), samples=2, root_nodes=20_000, eval_nodes=20_000)
    assert plans[0].value == 2 and plans[0].founded == 2 * TOTAL_CARDS
    for a in plans[0].moves:
        game.play(a)
    for a in endgame_line(game, 100_000):
        game.play(a)
    assert game.won


def test_plan_turn_refuses_an_empty_stock() -> None:
    game = FortyThievesGame(FortyThievesDeal.from_seed(6))
    while game.stock_pos < len(game.stock):
        game.play(DRAW)
    with pytest.raises(ValueError, match="stock is out"):
        plan_turn(game, np.random.default_rng(0), **FAST)
    line = endgame_line(game, 2000)
    work = game.copy()
    for a in line:
        assert work.try_play(a) is None
    assert not line or work.won or work.founded > game.founded


@pytest.mark.parametrize("undo_limit", [None, 0])
def test_shorten_line_keeps_the_end_and_cuts_detours(undo_limit: int | None) -> None:
    import dataclasses

    from solitaire_env.fortythieves.planning import shorten_line
    from solitaire_env.fortythieves.rules import FortyThievesRules

    rules = dataclasses.replace(FortyThievesRules(), undo_limit=undo_limit)
    shortened = 0
    for seed in range(8):
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)
        rng = np.random.default_rng(seed)
        line = []
        work = game.copy()
        for _ in range(80):
            legal = work.legal_actions()
            if not legal:
                break
            a = int(rng.choice(legal))
            work.play(a)
            line.append(a)
        short = shorten_line(game, tuple(line))
        again = game.copy()
        for a in short:
            assert again.try_play(a) is None
        assert again.position_hash == work.position_hash and len(short) <= len(line)
        shortened += len(short) < len(line)
    assert shortened  # random lines wander: some are cut
    # a detour: a card moved to another column and back, then a draw: the detour goes
    for seed in range(50):
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)
        pairs = [(x, y) for x in game.legal_actions() for y in _moves_back(game, x)]
        if pairs:
            there, back = pairs[0]
            assert shorten_line(game, (there, back, DRAW)) == (DRAW,)
            return
    raise AssertionError("no deal with a move and its way back")


def _moves_back(game: FortyThievesGame, action: int) -> list[int]:
    if action == DRAW:
        return []
    work = game.copy()
    work.play(action)
    out = []
    for a in work.legal_actions():
        w = work.copy()
        w.play(a)
        if w.position_hash == game.position_hash:
            out.append(a)
    return out


def test_plan_turn_defaults_are_the_published_settings() -> None:
    import inspect

    from solitaire_env.fortythieves.planning import DEFAULT_PLANNING

    params = inspect.signature(plan_turn).parameters
    assert {k: params[k].default for k in DEFAULT_PLANNING} == DEFAULT_PLANNING
