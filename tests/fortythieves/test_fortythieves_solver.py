"""The Forty Thieves solver: wins that replay (on the game and through the env), losses proved
only by an exhausted search (checked against a plain search with no pruning), budgets, the game
passed in left alone, determinism and the best line."""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import pytest
from conftest import FORTYTHIEVES_ID, FT_DRAW, FT_FOUNDATION, FT_WASTE, ft_deal, ft_example_win, ft_move

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.budget import DEFAULT_MAX_NODES
from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.fortythieves.solver import ordered_moves, solve_fortythieves

EXAMPLE_DEAL, EXAMPLE_LINE = ft_example_win()

# Dead: every column top is a two (its ace lies at the bottom of a column) or a king whose queens
# are buried; no ace and no queen of clubs is in the stock, so nothing but the 64 draws is legal.
DEAD_COLUMNS = [
    "AC QC QC 2C",
    "AC JC JC 2C",
    "AD QD QD 2D",
    "AD JD JD 2D",
    "AH QH QH 2H",
    "AH JH JH 2H",
    "AS QS QS 2S",
    "AS JS JS 2S",
    "TC TD TH KC",
    "TS TC TD KC",
]
# Dead too, with a little play: the columns 9 and 10 end in KS and one QS is in the stock, so it
# can go on either king and move between them (both jacks of spades are buried in column 8).
DEAD_MOVING_COLUMNS = [*DEAD_COLUMNS[:6], "AS QS 9S 2S", "AS JS JS 2S", "TC TD TH KS", "TS TC TD KS"]


def new_game(deal: FortyThievesDeal, rules: FortyThievesRules | None = None) -> FortyThievesGame:
    return FortyThievesGame(deal, rules)


def replay(game: FortyThievesGame, line: tuple[int, ...]) -> FortyThievesGame:
    """A copy of ``game`` with ``line`` played on it (every move must be legal)."""
    copy = game.copy()
    for action in line:
        assert copy.try_play(action) is None, copy.action_name(action)
    return copy


def reachable_win(game: FortyThievesGame, limit: int = 50_000) -> bool | None:
    """A plain breadth-first search with no pruning over exact positions: whether a win is
    reachable (``None`` if more than ``limit`` positions)."""
    seen = {game.position_key()}
    todo = deque([game.copy()])
    while todo:
        g = todo.popleft()
        if g.won:
            return True
        for action in g.legal_actions():
            child = g.copy()
            child.play(action)
            key = child.position_key()
            if key not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(key)
                todo.append(child)
    return False


def almost_won(moves: int = 150) -> FortyThievesGame:
    """The seed-004 example game after ``moves`` moves of its winning line."""
    game = new_game(EXAMPLE_DEAL)
    for action in EXAMPLE_LINE[:moves]:
        game.play(action)
    return game


# --------------------------------------------------------------------------- wins


def test_almost_won_position_is_solved_and_the_line_wins():
    game = almost_won()
    assert 0 < game.founded < 104
    result = solve_fortythieves(game, max_nodes=20_000)
    assert isinstance(result, SolveResult)
    assert result.status == "solved" and result.solved
    assert result.best == 104 and result.nodes >= 1 and result.seconds >= 0
    assert replay(game, result.line).won
    assert reachable_win(game, limit=20_000) in (True, None)


def test_winning_line_replays_through_the_env():
    game = almost_won()
    result = solve_fortythieves(game, max_nodes=20_000)
    assert result.solved
    env = gym.make(FORTYTHIEVES_ID)
    env.reset(options={"deal": str(EXAMPLE_DEAL)})
    actions = [*EXAMPLE_LINE[:150], *result.line]
    for k, action in enumerate(actions):
        _, _, terminated, truncated, info = env.step(action)
        assert "illegal_reason" not in info
        assert not truncated
        assert terminated == (k == len(actions) - 1)
    assert info["founded"] == 104
    env.close()


def test_seed_example_deal_is_solved_from_the_start():
    game = new_game(EXAMPLE_DEAL)
    result = solve_fortythieves(game, max_nodes=50_000)
    assert result.status == "solved"
    assert replay(game, result.line).won
    env = gym.make(FORTYTHIEVES_ID)
    env.reset(options={"deal": str(EXAMPLE_DEAL)})
    terminated = False
    for action in result.line:
        _, _, terminated, truncated, info = env.step(action)
        assert "illegal_reason" not in info and not truncated
    assert terminated and info["founded"] == 104
    env.close()


def test_won_game_is_solved_with_an_empty_line():
    game = almost_won(len(EXAMPLE_LINE))
    assert game.won
    result = solve_fortythieves(game)
    assert result == SolveResult("solved", (), 0, 104, result.seconds)


@pytest.mark.parametrize("seed", [2, 26])
def test_random_deals_the_solver_wins_replay(seed):
    """Deals of FT1-N that the default budget solves (one by the depth-first phase, one by the beam)."""
    game = new_game(FortyThievesDeal.from_seed(seed))
    result = solve_fortythieves(game, max_nodes=DEFAULT_MAX_NODES)
    assert result.status == "solved"
    assert replay(game, result.line).won


# --------------------------------------------------------------------------- losses


@pytest.mark.parametrize("columns", [DEAD_COLUMNS, DEAD_MOVING_COLUMNS], ids=["draws only", "with moves"])
def test_dead_position_is_unsolvable(columns):
    game = new_game(ft_deal(columns))
    assert reachable_win(game) is False  # the plain search agrees: no win anywhere
    result = solve_fortythieves(game, max_nodes=100_000)
    assert result.status == "unsolvable"
    assert result.nodes < 1_000
    assert result.best == 0 and replay(game, result.line).founded == 0


def test_dead_position_after_some_play_is_unsolvable():
    game = new_game(ft_deal(DEAD_MOVING_COLUMNS))
    for _ in range(40):
        game.play(FT_DRAW)
    result = solve_fortythieves(game, max_nodes=100_000)
    assert result.status == "unsolvable"
    assert reachable_win(game) is False


# --------------------------------------------------------------------------- budgets and contract


def test_tiny_budget_is_intractable_never_unsolvable():
    game = new_game(FortyThievesDeal.from_seed(0))
    result = solve_fortythieves(game, max_nodes=10)
    assert result.status == "intractable"
    assert result.nodes <= 10
    assert replay(game, result.line).founded == result.best


def test_one_node_budget_is_intractable_and_says_nodes():
    result = solve_fortythieves(new_game(ft_deal(DEAD_COLUMNS)), max_nodes=1)
    assert result.status == "intractable" and result.stopped_by == "nodes" and result.nodes <= 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_bad_budget_is_refused(bad):
    with pytest.raises(ValueError, match="max_nodes"):
        solve_fortythieves(new_game(EXAMPLE_DEAL), max_nodes=bad)


def test_unknown_objective_is_refused():
    with pytest.raises(ValueError, match="objective"):
        solve_fortythieves(new_game(EXAMPLE_DEAL), objective="score")


@pytest.mark.parametrize("undo_limit", [None, 0, 3])
def test_game_passed_in_is_unchanged(undo_limit):
    game = new_game(FortyThievesDeal.from_seed(5), FortyThievesRules(undo_limit=undo_limit))
    for action in [FT_DRAW, FT_DRAW, FT_DRAW]:
        game.play(action)
    before = (game.state_dict(), game.position_hash, game.legal_mask(), game.changes)
    result = solve_fortythieves(game, max_nodes=3_000)
    assert (game.state_dict(), game.position_hash, game.legal_mask(), game.changes) == before
    assert replay(game, result.line).founded == result.best


def test_deterministic():
    game = new_game(FortyThievesDeal.from_seed(3))
    a = solve_fortythieves(game, max_nodes=4_000)
    b = solve_fortythieves(game.copy(), max_nodes=4_000)
    assert (a.status, a.line, a.nodes, a.best) == (b.status, b.line, b.nodes, b.best)


@pytest.mark.parametrize("seed", [1, 7])
def test_best_is_the_founded_count_the_line_reaches(seed):
    game = new_game(FortyThievesDeal.from_seed(seed))
    result = solve_fortythieves(game, max_nodes=3_000)
    assert result.status == "intractable"
    end = replay(game, result.line)
    assert end.founded == result.best >= game.founded
    assert result.best > 0


def test_without_foundation_return():
    game = new_game(EXAMPLE_DEAL, FortyThievesRules(foundation_return=False))
    result = solve_fortythieves(game, max_nodes=50_000)
    assert result.solved and replay(game, result.line).won


# --------------------------------------------------------------------------- the prunings


def test_a_safe_foundation_move_is_the_only_move():
    # column 10 ends in 2H AH: the ace is always safe to found
    columns = [*DEAD_COLUMNS[:5], "TH JH JH 3H", *DEAD_COLUMNS[6:8], "TC TD 9H KC", "TS TC 2H AH"]
    deal = ft_deal(columns)
    game = new_game(deal)
    ace = ft_move(9, FT_FOUNDATION)
    assert game.legal_mask() >> ace & 1
    assert ordered_moves(game, -1) == [ace]
    game.play(ace)
    # 2H now: the other hearts foundation is empty, so founding it is not safe...
    two = ft_move(9, FT_FOUNDATION)
    assert game.legal_mask() >> two & 1
    moves = ordered_moves(game, -1)
    assert two in moves and FT_DRAW in moves
    # the ace may go back on the two (a legal return), but that return is dominated: never tried
    assert game.legal_mask() >> ft_move(11 + 1, 9) & 1
    assert not any(a < FT_DRAW and a // 11 >= 11 for a in moves)


def test_moves_are_legal_and_end_with_the_shuffles_and_the_draw():
    game = new_game(FortyThievesDeal.from_seed(4))
    for _ in range(30):
        moves = ordered_moves(game, -1)
        mask = game.legal_mask()
        assert all(mask >> a & 1 for a in moves)
        assert len(set(moves)) == len(moves)
        if len(moves) > 1 and game.stock_count:  # else one forced (safe) foundation move
            assert FT_DRAW in moves and moves[-1] != moves[0]
        waste_moves = [a for a in moves if a // 11 == FT_WASTE]
        game.play(waste_moves[0] if waste_moves else moves[0])
