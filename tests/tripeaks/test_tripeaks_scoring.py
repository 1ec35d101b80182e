"""TriPeaks scoring: the app, classic and streak presets and custom scorings (SPEC section 3)."""

from __future__ import annotations

import dataclasses

import pytest

from solitaire_env.common.cards import card_id
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import (
    BOTTOM_SLOTS,
    DRAW,
    GROUP_OF,
    PEAK_GROUP_MASKS,
    PEAK_GROUPS,
    TriPeaksRules,
)
from solitaire_env.tripeaks.scoring import (
    APP,
    CLASSIC,
    PRESETS,
    STREAK,
    TriPeaksPointScoring,
    TriPeaksScoring,
    get_scoring,
)

# --------------------------------------------------------------------------- helpers


def build_deal(waste_rank, removals, stock_ranks=()):
    """A deal with chosen ranks: ``removals`` is ``(slot, rank)`` pairs, ``stock_ranks`` the
    ranks of the first stock cards (``None`` = any); every card not named fills the rest in id order."""
    free = {r: [card_id(r, s) for s in range(4)] for r in range(1, 14)}
    waste = free[waste_rank].pop(0)
    tableau = [None] * 28
    for slot, rank in removals:
        tableau[slot] = free[rank].pop(0)
    stock = [None] * 23
    for i, rank in enumerate(stock_ranks):
        if rank is not None:
            stock[i] = free[rank].pop(0)
    rest = iter(sorted(c for cards in free.values() for c in cards))
    tableau = [c if c is not None else next(rest) for c in tableau]
    stock = [c if c is not None else next(rest) for c in stock]
    return TriPeaksDeal(tuple(tableau), waste, tuple(stock))


# Removal order bottom row, row 3, row 2, apexes 0, 1, 2; ranks 2..K, Q..A, 2..5 step by one.
ORDER = [*range(18, 28), *range(9, 18), *range(3, 9), 0, 1, 2]
ZIGZAG = [*range(2, 14), *range(12, 0, -1), 2, 3, 4, 5]
# Waste A: all 28 clear in one chain; the last stock card is an A, so the same line works
# after drawing all 23 stock cards.
CHAIN_DEAL = build_deal(1, zip(ORDER, ZIGZAG, strict=True), [1, *[None] * 21, 1])
# Same, but the apexes go last in the order 2, 0, 1.
ORDER_201 = [*ORDER[:25], 2, 0, 1]
CHAIN_DEAL_201 = build_deal(1, zip(ORDER_201, ZIGZAG, strict=True), [1, *[None] * 21, 1])

# Seed 000's example game: a 50-move win whose peak groups empty at moves 37, 42 and 50.
EXAMPLE_DEAL = build_deal(
    13,
    [*zip(ORDER[:26], ZIGZAG[:26], strict=True), (1, 6), (2, 10)],
    [*[None] * 10, 1, None, None, None, 5, *[None] * 6, 9],
)
EXAMPLE_LINE = [*[DRAW] * 11, *ORDER[:26], *[DRAW] * 4, 1, *[DRAW] * 7, 2]


def new_game(deal=CHAIN_DEAL, scoring="app", **rules):
    return TriPeaksGame(deal, TriPeaksRules(**rules), scoring)


def scores_along(game, line):
    out = []
    for action in line:
        game.play(action)
        out.append(game.score)
    return out


# --------------------------------------------------------------------------- peak groups


def test_peak_groups():
    assert [len(g) for g in PEAK_GROUPS] == [9, 9, 10]
    assert set(PEAK_GROUPS[0]) == {0, 3, 4, 9, 10, 11, 18, 19, 20}
    assert set(PEAK_GROUPS[1]) == {1, 5, 6, 12, 13, 14, 21, 22, 23}
    assert set(PEAK_GROUPS[2]) == {2, 7, 8, 15, 16, 17, 24, 25, 26, 27}
    assert sorted(s for g in PEAK_GROUPS for s in g) == list(range(28))
    for g, slots in enumerate(PEAK_GROUPS):
        assert PEAK_GROUP_MASKS[g] == sum(1 << s for s in slots)
        for s in slots:
            assert GROUP_OF[s] == g


def test_peak_groups_follow_the_spec():
    # Peak p's six upper cards: apex p, row-2 cards 2p and 2p+1, row-3 cards 3p..3p+2.
    for p in range(3):
        upper = {p, 3 + 2 * p, 4 + 2 * p, 9 + 3 * p, 10 + 3 * p, 11 + 3 * p}
        assert upper <= set(PEAK_GROUPS[p])
    bottom = [[18, 19, 20], [21, 22, 23], [24, 25, 26, 27]]
    for p in range(3):
        assert sorted(set(PEAK_GROUPS[p]) & set(BOTTOM_SLOTS)) == bottom[p]


# --------------------------------------------------------------------------- app


def test_presets():
    assert set(PRESETS) == {"app", "classic", "streak"}
    assert get_scoring("app") is APP
    assert (APP.start, APP.floor, APP.removal_points, APP.draw_points, APP.group_points) == (500, 0, -1, -1, 100)
    assert (APP.chain_points, APP.apex_points, APP.clear_points) == (False, (0, 0, 0), 0)
    assert (CLASSIC.start, CLASSIC.floor, CLASSIC.chain_points, CLASSIC.draw_points) == (0, None, True, -5)
    assert CLASSIC.apex_points == (15, 15, 30)
    assert (STREAK.start, STREAK.floor, STREAK.chain_points, STREAK.draw_points) == (0, None, True, 0)
    assert (STREAK.apex_points, STREAK.clear_points) == ((15, 30, 45), 100)


def test_app_is_the_default():
    game = TriPeaksGame(CHAIN_DEAL)
    assert game.scoring is APP
    assert game.score == 500


def test_app_win_without_drawing_scores_772():
    game = new_game()
    scores = scores_along(game, ORDER)
    assert game.won
    assert game.moves == 28
    assert game.score == 772 == 500 - 28 + 300
    # -1 a removal; +100 at each apex (the move that empties its peak group).
    assert scores[:25] == [500 - n for n in range(1, 26)]
    assert scores[25:] == [574, 673, 772]


def test_app_win_after_drawing_all_23_scores_749():
    game = new_game()
    scores_along(game, [DRAW] * 23)
    assert game.score == 477
    scores_along(game, ORDER)
    assert game.won
    assert game.moves == 51
    assert game.score == 749 == 500 - 51 + 300


def test_app_seed000_example_game_scores_750():
    game = new_game(EXAMPLE_DEAL)
    assert len(EXAMPLE_LINE) == 50
    scores = scores_along(game, EXAMPLE_LINE)
    assert game.won
    assert game.moves == 50
    assert game.score == 750 == 500 - 50 + 300
    # +100 arrives exactly in the moves that empty a peak group: 37, 42 and 50.
    jumps = [n for n in range(1, 50) if scores[n] > scores[n - 1]]
    assert [n + 1 for n in jumps] == [37, 42, 50]
    assert scores[35] == 464  # after move 36
    assert scores[36] == 563  # move 37 empties the left group
    assert scores[40] == 559  # after move 41
    assert scores[41] == 658  # move 42 empties the centre group
    assert scores[48] == 651  # after move 49
    assert scores[49] == 750  # move 50 empties the right group


def test_app_group_bonus_arrives_in_the_emptying_move_in_any_order():
    game = new_game(CHAIN_DEAL_201)
    scores = scores_along(game, ORDER_201)
    assert scores[24] == 475
    assert scores[25:] == [574, 673, 772]  # right, left, centre: +100 - 1 each


def test_app_never_below_zero():
    low = dataclasses.replace(APP, start=3)
    game = new_game(scoring=low)
    assert scores_along(game, [DRAW] * 5) == [2, 1, 0, 0, 0]
    game.play(DRAW)
    assert game.score == 0


def test_app_floor_then_group_bonus():
    # A group-emptying removal scores -1 + 100 in one move; the floor applies to the result.
    low = dataclasses.replace(APP, start=0)
    game = new_game(scoring=low)
    scores = scores_along(game, ORDER)
    assert scores[:25] == [0] * 25
    assert scores[25:] == [99, 198, 297]


def test_custom_point_scoring_floor():
    scoring = TriPeaksPointScoring(start=2, floor=0, draw_points=-1)
    game = new_game(scoring=scoring)
    assert scores_along(game, [DRAW, DRAW, DRAW, DRAW]) == [1, 0, 0, 0]


def test_undo_restores_the_score_but_not_the_move_counter():
    game = new_game()
    scores_along(game, [DRAW, *ORDER[:5]])
    assert (game.score, game.moves) == (494, 6)
    game.undo()
    assert (game.score, game.moves) == (495, 6)
    game.undo()
    game.undo()
    assert (game.score, game.moves) == (497, 6)
    game.play(ORDER[2])
    assert (game.score, game.moves) == (496, 7)


def test_undo_restores_the_group_bonus():
    game = new_game()
    scores_along(game, ORDER[:26])
    assert game.score == 574
    game.undo()
    assert game.score == 475
    game.play(0)
    assert game.score == 574


def test_undo_restores_floored_score():
    game = new_game(scoring=dataclasses.replace(APP, start=1))
    scores_along(game, [DRAW, DRAW])
    assert game.score == 0
    game.undo()
    assert game.score == 0
    game.undo()
    assert game.score == 1


# --------------------------------------------------------------------------- classic


def test_classic_one_chain():
    game = new_game(scoring="classic")
    assert game.score == 0
    scores = scores_along(game, ORDER)
    # k for the k-th removal of the chain; apexes add 15, 15, 30 on top.
    expected = []
    total = 0
    for k, slot in enumerate(ORDER, start=1):
        total += k + {0: 15, 1: 15, 2: 30}.get(slot, 0)
        expected.append(total)
    assert scores == expected
    assert game.score == 466 == sum(range(1, 29)) + 60


def test_classic_apex_points_go_by_order_of_removal():
    game = new_game(CHAIN_DEAL_201, scoring="classic")
    scores = scores_along(game, ORDER_201)
    assert scores[24] == sum(range(1, 26))
    assert [scores[25] - scores[24], scores[26] - scores[25], scores[27] - scores[26]] == [26 + 15, 27 + 15, 28 + 30]


def test_classic_draw_costs_5_and_may_go_below_zero():
    game = new_game(scoring="classic")
    assert scores_along(game, [DRAW, DRAW]) == [-5, -10]
    scores_along(game, [DRAW] * 21)
    assert game.score == -115
    scores_along(game, ORDER)
    assert game.score == -115 + 466 == 351


def test_classic_draw_restarts_the_chain():
    game = new_game(EXAMPLE_DEAL, scoring="classic")
    scores = scores_along(game, EXAMPLE_LINE)
    assert scores[10] == -55  # 11 draws
    assert scores[36] == -55 + sum(range(1, 27)) + 15  # a 26-card chain ending on apex 0
    assert scores[40] == scores[36] - 20  # 4 draws
    assert scores[41] == scores[40] + 1 + 15  # apex 1 is the first card of a new chain
    assert scores[48] == scores[41] - 35
    assert scores[49] == scores[48] + 1 + 30
    assert game.score == -55 + 351 + 15 - 20 + 16 - 35 + 31


# --------------------------------------------------------------------------- streak


def test_streak_one_chain():
    game = new_game(scoring="streak")
    scores = scores_along(game, ORDER)
    assert scores[24] == sum(range(1, 26))
    assert scores[25] - scores[24] == 26 + 15
    assert scores[26] - scores[25] == 27 + 30
    assert scores[27] - scores[26] == 28 + 45 + 100  # third apex and the clear bonus
    assert game.score == 596 == sum(range(1, 29)) + 90 + 100


def test_streak_has_no_draw_penalty():
    game = new_game(scoring="streak")
    assert scores_along(game, [DRAW] * 23) == [0] * 23
    scores_along(game, ORDER)
    assert game.score == 596


def test_streak_example_game():
    game = new_game(EXAMPLE_DEAL, scoring="streak")
    scores_along(game, EXAMPLE_LINE)
    assert game.score == sum(range(1, 27)) + 15 + (1 + 30) + (1 + 45) + 100


def test_streak_clear_bonus_is_configurable():
    scoring = dataclasses.replace(STREAK, clear_points=200)
    game = new_game(scoring=scoring)
    scores_along(game, ORDER)
    assert game.score == 696


# --------------------------------------------------------------------------- custom


class Recorder(TriPeaksScoring):
    """Ten points a removal, -3 a draw; records what the game tells it."""

    name = "recorder"
    start = 7

    def __init__(self):
        self.calls = []

    def removal(self, chain, apex, group_emptied, won):
        self.calls.append((chain, apex, group_emptied, won))
        return 10

    def draw(self):
        self.calls.append("draw")
        return -3


def test_custom_scoring_subclass():
    scoring = Recorder()
    game = new_game(scoring=scoring)
    assert game.scoring is scoring
    assert game.score == 7
    scores_along(game, [DRAW, *ORDER])
    assert game.score == 7 - 3 + 280
    calls = scoring.calls
    assert calls[0] == "draw"
    assert calls[1:26] == [(k, 0, False, False) for k in range(1, 26)]
    assert calls[26:] == [(26, 1, True, False), (27, 2, True, False), (28, 3, True, True)]


def test_custom_scoring_has_no_floor_by_default():
    class Harsh(TriPeaksScoring):
        def draw(self):
            return -50

    game = new_game(scoring=Harsh())
    scores_along(game, [DRAW, DRAW])
    assert game.score == -100


def test_custom_point_scoring():
    scoring = TriPeaksPointScoring(
        name="mine",
        start=10,
        removal_points=2,
        chain_points=True,
        draw_points=-4,
        apex_points=(1, 2, 3),
        group_points=5,
        clear_points=1000,
    )
    game = new_game(scoring=scoring)
    scores_along(game, [DRAW, *ORDER])
    assert game.score == 10 - 4 + 28 * 2 + sum(range(1, 29)) + 6 + 15 + 1000


def test_scoring_base_gives_nothing():
    base = TriPeaksScoring()
    assert (base.name, base.start, base.floor) == ("custom", 0, None)
    assert base.removal(3, 1, True, True) == 0
    assert base.draw() == 0


@pytest.mark.parametrize("name", ["App", "points", "", "classic "])
def test_unknown_preset_name(name):
    with pytest.raises(ValueError, match="unknown scoring"):
        get_scoring(name)
    with pytest.raises(ValueError):
        new_game(scoring=name)


@pytest.mark.parametrize("thing", [None, 3, object()])
def test_scoring_must_be_a_scoring(thing):
    with pytest.raises(ValueError):
        get_scoring(thing)
