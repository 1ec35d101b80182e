"""Forty Thieves rules: one test per rule of SPEC section 4 and of seed 004 (Quarante Voleurs as an
app plays it), with its numbers; the app's scoring, undo, ``with_stock``, the tap / double-click
helpers (fortythieves/session.py) and the deal codes at the env level."""

from __future__ import annotations

import json
import random
from collections import Counter

import gymnasium as gym
import pytest
from conftest import (
    FORTYTHIEVES_ID,
    FT_EMPTY_COLUMN_10,
    FT_FOUNDATION,
    FT_MOVE_COLUMNS,
    FT_MOVE_DEAL,
    FT_STUCK_DEAL,
    FT_WASTE,
    ft_cards,
    ft_deal,
    ft_deal_string,
    ft_example_win,
    ft_move,
)

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import DealCodeError, DealStringError
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import REASONS, FortyThievesGame, IllegalMoveError
from solitaire_env.fortythieves.rules import (
    APP_SCORING,
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    FOUNDATION_SUITS,
    MAX_COLUMN,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    NUM_SOURCES,
    STOCK_SIZE,
    TOTAL_CARDS,
    WASTE,
    FortyThievesRules,
    FortyThievesScoring,
    action_of,
    get_scoring,
    split_action,
)
from solitaire_env.fortythieves.session import double_click_action, tap_action

# --------------------------------------------------------------------------- helpers


def game_of(deal, scoring="app", **rules):
    return FortyThievesGame(deal, FortyThievesRules(**rules), scoring)


def play_all(game, actions):
    for a in actions:
        game.play(a)
    return game


def found(src):
    """The action moving the top card of ``src`` to the foundations."""
    return ft_move(src, FT_FOUNDATION)


def back(f, dst):
    """The action moving the top card of foundation ``f`` (0..7) to column ``dst``."""
    return ft_move(FIRST_FOUNDATION_SRC + f, dst)


def tops(game):
    return [card_text(c[-1]) if c else None for c in game.columns]


def column_texts(game, j):
    return [card_text(c) for c in game.columns[j]]


def snapshot(game):
    """Everything about a game (state_dict, the public view, the mask), to check nothing changed."""
    return game.state_dict(), game.public_view(), game.legal_mask()


def undo_snapshot(game):
    """The state without what undo keeps (the move counter and what was seen)."""
    state = {k: v for k, v in game.state_dict().items() if k not in ("moves", "stock_seen", "history")}
    view = {k: v for k, v in game.public_view().items() if k != "moves"}
    return state, view, game.legal_mask()


# Seed 004's example layout, each column read bottom to top (the last card named is the column's top
# card, the one that can move); the 64 other cards fill the stock in id order.
SEED_EXAMPLE_COLUMNS = [
    "AD 3S KH 2H",
    "JC 3H 2S 9H",
    "9C JH AH 8H",
    "8D 9D KC 7D",
    "TD 9S AH JS",
    "KC JS 8S QS",
    "9D QH 6D 4H",
    "9H AS AC 3H",
    "6C 5S 7H 4D",
    "5D 9C 2S TC",
]

# MOVE_DEAL (a position for the move rules) and STUCK_DEAL (only draws, then a dead end): conftest.py
MOVE_COLUMNS = FT_MOVE_COLUMNS
MOVE_DEAL = FT_MOVE_DEAL
EMPTY_COLUMN_10 = FT_EMPTY_COLUMN_10
STUCK_DEAL = FT_STUCK_DEAL

# No ace in the columns; the stock starts with the eight aces, then 2S 2S 2H 3S.
ACES_FIRST = ft_deal(
    [*["KC QC JC TC"] * 2, *["KD QD JD TD"] * 2, *["KH QH JH TH"] * 2, *["KS QS JS TS"] * 2, *["9C 9D 9H 9S"] * 2],
    "AS AH AD AC AS AH AD AC 2S 2S 2H 3S",
)

EXAMPLE_DEAL, EXAMPLE_LINE = ft_example_win()


def test_helper_deals():
    for deal in (MOVE_DEAL, STUCK_DEAL, ACES_FIRST, EXAMPLE_DEAL):
        cards = [c for col in deal.columns for c in col] + list(deal.stock)
        assert Counter(cards) == Counter({c: 2 for c in range(52)})
    assert [card_text(c) for c in MOVE_DEAL.stock[:3]] == ["6H", "QD", "8D"]
    assert card_text(STUCK_DEAL.stock[-1]) == "KS"


# --------------------------------------------------------------------------- tables and actions


def test_constants():
    assert (NUM_COLUMNS, NUM_FOUNDATIONS, STOCK_SIZE, TOTAL_CARDS) == (10, 8, 64, 104)
    assert (WASTE, FOUNDATION, FIRST_FOUNDATION_SRC, NUM_SOURCES, NUM_DESTS) == (10, 10, 11, 19, 11)
    assert (DRAW, NUM_ACTIONS) == (209, 210)
    assert MAX_COLUMN == 16  # 4 dealt cards, the top one a king, and Q..A on it


def test_foundation_suits_are_s_h_d_c_s_h_d_c():
    # seed 004: "左からスペード、ハート、ダイヤ、クラブ、スペード、ハート、ダイヤ、クラブ"; suit indices C0 D1 H2 S3
    assert FOUNDATION_SUITS == (3, 2, 1, 0, 3, 2, 1, 0)
    assert "".join("CDHS"[s] for s in FOUNDATION_SUITS) == "SHDCSHDC"
    game = game_of(MOVE_DEAL)
    assert game.public_view()["foundation_suits"] == ["S", "H", "D", "C", "S", "H", "D", "C"]


def test_action_encoding():
    assert action_of(0, 0) == 0
    assert action_of(3, 10) == 43
    assert action_of(10, 4) == 114  # the waste to column 5
    assert action_of(11, 9) == 130  # foundation 1 to column 10
    assert action_of(18, 10) == 208  # the last move action
    for a in range(DRAW):
        src, dst = split_action(a)
        assert action_of(src, dst) == a == src * 11 + dst
    for bad in ((19, 0), (-1, 0), (0, 11), (0, -1)):
        with pytest.raises(ValueError, match="no move"):
            action_of(*bad)
    game = game_of(MOVE_DEAL)
    for bad in (-1, 210):
        with pytest.raises(ValueError, match=r"0\.\.209"):
            game.illegal_reason(bad)
        with pytest.raises(ValueError, match=r"0\.\.209"):
            game.action_name(bad)


def test_action_names():
    game = game_of(MOVE_DEAL)
    assert game.action_name(DRAW) == "draw"
    assert game.action_name(ft_move(1, 0)) == "move 7S from column 2 to column 1"
    assert game.action_name(found(3)) == "move AS from column 4 to foundation"
    assert game.action_name(ft_move(FT_WASTE, 9)) == "move the top card from waste to column 10"
    assert game.action_name(back(0, 2)) == "move the top card from foundation 1 to column 3"
    play_all(game, [found(3), DRAW])
    assert game.action_name(back(0, 2)) == "move AS from foundation 1 to column 3"
    assert game.action_name(ft_move(FT_WASTE, 0)) == "move 6H from waste to column 1"


def test_rules_and_scoring_options():
    rules = FortyThievesRules()
    assert (rules.foundation_return, rules.undo_limit) == (True, None)
    assert rules.to_dict() == {"foundation_return": True, "undo_limit": None}
    for bad in ({"foundation_return": 1}, {"undo_limit": -1}, {"undo_limit": True}, {"undo_limit": 2.0}):
        with pytest.raises(ValueError):
            FortyThievesRules(**bad)
    assert get_scoring("app") is APP_SCORING
    assert (APP_SCORING.start, APP_SCORING.floor, APP_SCORING.to_foundation) == (0, 0, 10)
    assert (APP_SCORING.waste_to_column, APP_SCORING.foundation_to_column) == (5, -15)
    assert (APP_SCORING.column_to_column, APP_SCORING.draw) == (0, 0)
    custom = FortyThievesScoring(name="mine", to_foundation=1)
    assert get_scoring(custom) is custom
    with pytest.raises(ValueError, match="scoring"):
        get_scoring("classic")


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("seed", [0, 1, 2, 12345, 2**35 - 1])
def test_two_decks_each_card_twice(seed):
    # seed 004: "52枚のトランプ2組を一緒にシャッフルした、計104枚 ... 同じカードがそれぞれ2枚ずつ"
    deal = FortyThievesDeal.from_seed(seed)
    cards = [c for col in deal.columns for c in col] + list(deal.stock)
    assert len(cards) == 104
    assert Counter(cards) == Counter({c: 2 for c in range(52)})


def test_start_position():
    # seed 004: 10 columns of 4, all face up; stock 64; waste empty; 8 empty foundations
    deal = decode_deal("FT1-N-AAAAAAB")
    game = FortyThievesGame(deal)
    view = game.public_view()
    assert len(view["columns"]) == 10
    assert all(len(col) == 4 for col in view["columns"])
    assert view["columns"] == [[card_text(c) for c in col] for col in deal.columns]
    assert "??" not in json.dumps(view)  # nothing in the columns is face down
    assert view["waste"] == [] and game.waste == []
    assert view["stock_count"] == game.stock_count == 64
    assert view["foundations"] == [None] * 8 and game.foundations == [0] * 8
    assert (game.score, game.moves, game.founded, game.chain, game.longest_chain) == (0, 0, 0, 0, 0)
    assert (view["won"], view["over"]) == (False, False)
    assert game.unseen_cards() == list(deal.stock)
    assert not game.all_known and not game.can_undo


def test_seed_example_layout_and_its_opening_moves():
    # The example board of seed 004: the tops are 2H 9H 8H 7D JS QS 4H 3H 4D TC, no ace on top.
    deal = ft_deal(SEED_EXAMPLE_COLUMNS)
    game = FortyThievesGame(deal)
    assert tops(game) == ["2H", "9H", "8H", "7D", "JS", "QS", "4H", "3H", "4D", "TC"]
    # 2H on 3H (col 8), 8H on 9H (col 2), JS on QS (col 6), 3H on 4H (col 7), or draw
    assert game.legal_actions() == [ft_move(0, 7), ft_move(2, 1), ft_move(4, 5), ft_move(7, 6), DRAW]
    assert game.illegal_reason(found(2)) == "foundation_order"  # 8H: the ace under it cannot go first
    assert game.illegal_reason(ft_move(6, 7)) == "wrong_rank"  # 4H on 3H
    assert game.illegal_reason(ft_move(0, 1)) == "wrong_rank"  # 2H on 9H


# --------------------------------------------------------------------------- moves on the columns


def test_move_position_legal_moves():
    game = game_of(MOVE_DEAL)
    assert tops(game) == ["8S", "7S", "8H", "AS", "7S", "9S", "6S", "KH", "5S", "AH"]
    assert game.legal_actions() == [
        ft_move(0, 5),  # 8S on 9S
        ft_move(1, 0),  # 7S on 8S
        found(3),  # AS
        ft_move(4, 0),  # 7S on 8S
        ft_move(6, 1),  # 6S on 7S (column 2)
        ft_move(6, 4),  # 6S on 7S (column 5)
        ft_move(8, 6),  # 5S on 6S
        found(9),  # AH
        DRAW,
    ]


def test_one_card_moves_same_suit_one_lower():
    # seed 004: "スペードの8の上にスペードの7を置けますが、ハートの8の上には置けません"
    game = game_of(MOVE_DEAL)
    assert game.illegal_reason(ft_move(1, 0)) is None  # 7S on 8S
    assert game.illegal_reason(ft_move(1, 2)) == "wrong_suit"  # 7S on 8H
    assert game.illegal_reason(ft_move(1, 5)) == "wrong_rank"  # 7S on 9S
    assert game.illegal_reason(ft_move(6, 0)) == "wrong_rank"  # 6S on 8S
    assert game.illegal_reason(ft_move(8, 0)) == "wrong_rank"  # 5S on 8S
    assert game.illegal_reason(ft_move(5, 0)) == "wrong_rank"  # 9S on 8S: higher, not lower
    game.play(ft_move(1, 0))
    assert column_texts(game, 0) == ["2C", "3C", "4C", "8S", "7S"]
    assert column_texts(game, 1) == ["5C", "6C", "8H"]  # exactly one card left column 2
    assert (game.moves, game.score) == (1, 0)


def test_wrong_suit_is_reported_before_wrong_rank():
    game = game_of(MOVE_DEAL)
    assert game.illegal_reason(ft_move(0, 7)) == "wrong_suit"  # 8S on KH: both wrong, suit first
    assert game.illegal_reason(ft_move(2, 0)) == "wrong_suit"  # 8H on 8S


def test_nothing_goes_on_an_ace():
    # seed 004: "列にあるエースの上には何も置けません"
    game = game_of(MOVE_DEAL)
    for src in (0, 1, 2, 4, 5, 6, 7, 8):
        assert game.illegal_reason(ft_move(src, 3)) == "onto_ace"  # onto AS
        assert game.illegal_reason(ft_move(src, 9)) == "onto_ace"  # onto AH
    game.play(DRAW)  # 6H on the waste
    assert game.illegal_reason(ft_move(FT_WASTE, 9)) == "onto_ace"


def test_a_same_suit_run_of_two_does_not_move_together():
    # seed 004: "同じスートで数字が連続する2枚でも、まとめて動かすことはできません"
    game = game_of(MOVE_DEAL)
    assert column_texts(game, 4)[-2:] == ["8S", "7S"]
    # column 5 to column 6 (9S) would take the 7S alone, which does not fit on a 9S
    assert game.illegal_reason(ft_move(4, 5)) == "wrong_rank"
    game.play(ft_move(4, 0))  # 7S on column 1's 8S
    assert column_texts(game, 4) == ["QC", "KC", "8S"]
    game.play(ft_move(4, 5))  # then the 8S on the 9S, one card at a time
    assert column_texts(game, 5) == ["2D", "3D", "4D", "9S", "8S"]
    assert column_texts(game, 4) == ["QC", "KC"]


def test_a_king_only_goes_on_an_empty_column():
    game = game_of(MOVE_DEAL)
    for dst in range(10):
        if dst != 7:
            assert game.illegal_reason(ft_move(7, dst)) is not None
    play_all(game, EMPTY_COLUMN_10)
    assert game.illegal_reason(ft_move(7, 9)) is None


def test_an_empty_column_takes_any_card_from_a_column_or_the_waste():
    # seed 004: "空の列には、キングだけでなくどのカードでも置けます。他の列のカードも、捨て札のカードも置けます"
    game = game_of(MOVE_DEAL)
    play_all(game, EMPTY_COLUMN_10)
    assert game.columns[9] == []
    for src in range(9):
        assert game.illegal_reason(ft_move(src, 9)) is None
    game.play(DRAW)  # 6H
    assert game.illegal_reason(ft_move(FT_WASTE, 9)) is None
    assert game.illegal_reason(back(1, 9)) is None  # and a foundation card (4H)
    game.play(ft_move(FT_WASTE, 9))
    assert column_texts(game, 9) == ["6H"] and game.waste == []
    assert game.illegal_reason(ft_move(FT_WASTE, 0)) == "nothing_to_move"


def test_a_lone_card_may_move_to_another_empty_column():
    game = game_of(MOVE_DEAL)
    play_all(game, [*EMPTY_COLUMN_10, ft_move(7, 9)])  # KH alone in column 10
    assert column_texts(game, 9) == ["KH"]
    assert game.illegal_reason(ft_move(9, 9)) == "same_place"


# --------------------------------------------------------------------------- foundations


def test_foundations_fill_left_to_right_in_suit_order():
    # seed 004: fixed suits S H D C S H D C; the first ace of a suit takes the leftmost foundation
    game = game_of(ACES_FIRST)
    expected = [0] * 8
    for f in (0, 1, 2, 3, 4, 5, 6, 7):  # AS AH AD AC AS AH AD AC
        game.play(DRAW)
        game.play(found(FT_WASTE))
        expected[f] = 1
        assert game.foundations == expected
    assert game.public_view()["foundations"] == ["AS", "AH", "AD", "AC", "AS", "AH", "AD", "AC"]


def test_the_leftmost_accepting_foundation_is_used():
    game = game_of(ACES_FIRST)
    play_all(game, [DRAW, found(FT_WASTE)] * 8)
    game.play(DRAW)  # 2S: foundations 1 and 5 both accept it
    game.play(found(FT_WASTE))
    assert game.foundations == [2, 1, 1, 1, 1, 1, 1, 1]
    game.play(DRAW)  # the second 2S: only foundation 5 accepts it now
    game.play(found(FT_WASTE))
    assert game.foundations == [2, 1, 1, 1, 2, 1, 1, 1]
    game.play(DRAW)  # 2H
    game.play(found(FT_WASTE))
    assert game.foundations == [2, 2, 1, 1, 2, 1, 1, 1]
    assert game.foundation_for(ft_cards("3S")[0]) == 0
    assert game.foundation_for(ft_cards("3H")[0]) == 1
    assert game.foundation_for(ft_cards("2D")[0]) == 2
    assert game.foundation_for(ft_cards("4S")[0]) is None


def test_foundations_start_with_the_ace_and_go_up_in_suit():
    # seed 004: "各組札は指定されたスートのエースから始め、次に2、3と、キングまで順に重ねます"
    game = game_of(MOVE_DEAL)
    play_all(game, [DRAW, DRAW, DRAW])  # 6H QD 8D
    assert game.illegal_reason(found(FT_WASTE)) == "foundation_order"  # 8D on nothing
    assert game.illegal_reason(found(0)) == "foundation_order"  # 8S on nothing
    assert game.illegal_reason(found(8)) == "foundation_order"  # 5S
    game.play(found(9))  # AH
    assert game.foundations == [0, 1, 0, 0, 0, 0, 0, 0]
    assert game.illegal_reason(found(3)) is None  # AS to its own foundation
    game.play(found(9))  # 2H
    assert game.illegal_reason(found(9)) is None  # 3H
    game.play(found(9))
    assert game.illegal_reason(found(2)) == "foundation_order"  # 8H on 3H
    game.play(found(9))  # 4H
    assert game.foundations == [0, 4, 0, 0, 0, 0, 0, 0]
    assert game.public_view()["foundations"] == [None, "4H", None, None, None, None, None, None]


def test_a_foundation_top_card_can_go_back_to_a_column():
    # seed 004: "組札の一番上のカードをドラッグして列に戻せます"
    game = game_of(MOVE_DEAL)
    play_all(game, EMPTY_COLUMN_10)  # hearts foundation: 4H
    assert game.illegal_reason(back(1, 9)) is None  # 4H to the empty column
    assert game.illegal_reason(back(1, 0)) == "wrong_suit"  # 4H on 8S
    assert game.illegal_reason(back(0, 9)) == "nothing_to_move"  # the spades foundation is empty
    assert game.illegal_reason(ft_move(FIRST_FOUNDATION_SRC + 1, FT_FOUNDATION)) == "same_place"
    game.play(back(1, 9))
    assert column_texts(game, 9) == ["4H"] and game.foundations[1] == 3
    assert game.public_view()["foundations"][1] == "3H"
    # a foundation card also goes onto the next higher card of its suit
    game.play(back(1, 9))  # 3H on the 4H
    assert column_texts(game, 9) == ["4H", "3H"] and game.foundations[1] == 2


def test_foundation_return_off():
    game = game_of(MOVE_DEAL, foundation_return=False)
    play_all(game, EMPTY_COLUMN_10)
    for f in range(8):
        for dst in range(11):
            assert game.illegal_reason(back(f, dst)) == "return_not_allowed"
    assert not any(game.legal_mask() >> a & 1 for a in range(FIRST_FOUNDATION_SRC * 11, DRAW))
    assert game.try_play(back(1, 9)) == "return_not_allowed"
    assert double_click_action(game, FIRST_FOUNDATION_SRC + 1) is None


# --------------------------------------------------------------------------- stock and waste


def test_draw_one_card_to_the_waste_one_pass():
    # seed 004: "山札をタップすると、1枚めくって捨て札に置きます ... 山札はもう一巡できません"
    game = game_of(MOVE_DEAL)
    for n in range(1, 65):
        game.play(DRAW)
        assert game.stock_count == 64 - n and len(game.waste) == n
        assert game.waste[-1] == MOVE_DEAL.stock[n - 1]
    assert game.waste == list(MOVE_DEAL.stock)
    assert game.all_known and game.unseen_cards() == []
    assert game.illegal_reason(DRAW) == "stock_empty"
    assert not game.legal_mask() >> DRAW & 1
    with pytest.raises(IllegalMoveError, match="stock_empty: no cards left to draw"):
        game.play(DRAW)


def test_only_the_waste_top_moves():
    # seed 004: "動かせるのは捨て札の一番上のカードだけ ... 上のカードを先に動かさなければ使えるようになりません"
    game = game_of(MOVE_DEAL)
    play_all(game, [*EMPTY_COLUMN_10, DRAW, DRAW])  # waste 6H QD: the 6H is under the QD
    assert game.waste == ft_cards("6H QD")
    assert game.illegal_reason(ft_move(FT_WASTE, 9)) is None
    game.play(ft_move(FT_WASTE, 9))  # the QD goes, not the 6H
    assert column_texts(game, 9) == ["QD"] and game.waste == ft_cards("6H")
    assert game.action_name(ft_move(FT_WASTE, 0)) == "move 6H from waste to column 1"


# --------------------------------------------------------------------------- end of the game


def test_the_example_line_wins_with_1185():
    # seed 004: "捨て札から列に29枚を置いています。最終得点は1040 + 29 × 5 = 1185点"
    game = FortyThievesGame(EXAMPLE_DEAL)
    waste_to_column = returns = 0
    for a in EXAMPLE_LINE:
        assert not game.won
        src, dst = split_action(a)
        waste_to_column += a != DRAW and src == WASTE and dst < 10
        returns += a != DRAW and src >= FIRST_FOUNDATION_SRC
        before = game.score
        game.play(a)
        if a == DRAW or (src < 10 and dst < 10):
            assert game.score == before
        elif dst == FOUNDATION:
            assert game.score == before + 10
        else:
            assert game.score == before + 5
    assert (waste_to_column, returns) == (29, 0)
    assert game.won and game.over and game.founded == 104
    assert game.foundations == [13] * 8
    assert game.score == 1185 == 1040 + 29 * 5  # no win bonus
    assert game.moves == len(EXAMPLE_LINE) == 197
    assert game.stock_count == 0 and game.waste == [] and all(c == [] for c in game.columns)
    assert game.public_view()["foundations"] == ["KS", "KH", "KD", "KC"] * 2
    assert (game.public_view()["won"], game.public_view()["over"]) == (True, True)


def test_after_a_win_every_action_is_game_over():
    game = play_all(FortyThievesGame(EXAMPLE_DEAL), EXAMPLE_LINE)
    state = snapshot(game)
    assert game.legal_mask() == 0 and game.legal_actions() == []
    for a in range(NUM_ACTIONS):
        assert game.illegal_reason(a) == "game_over"
        assert game.try_play(a) == "game_over"
    assert snapshot(game) == state
    assert tap_action(game, WASTE) is None and double_click_action(game, FIRST_FOUNDATION_SRC) is None


def test_a_dead_end_is_over_without_being_won():
    # seed 004: "アプリは手詰まりを検出しません" -- the package does: no legal move = over (the env terminates)
    game = game_of(STUCK_DEAL)
    assert game.legal_actions() == [DRAW]
    for _ in range(63):
        game.play(DRAW)
        assert not game.over
    game.play(DRAW)  # the last card, KS: nowhere to go
    assert game.legal_mask() == 0 and game.over and not game.won
    assert game.public_view()["over"] and not game.public_view()["won"]
    # every move has its own reason (not game_over), and undo still works
    assert game.illegal_reason(DRAW) == "stock_empty"
    assert game.illegal_reason(ft_move(0, 1)) == "wrong_rank"  # 2C on 2C
    assert game.illegal_reason(ft_move(FT_WASTE, 0)) == "wrong_suit"  # KS on 2C
    assert game.undo() and not game.over


def test_env_terminates_at_a_dead_end():
    env = gym.make(FORTYTHIEVES_ID)
    _, info = env.reset(options={"deal": str(STUCK_DEAL)})
    for n in range(1, 65):
        _, reward, terminated, truncated, info = env.step(DRAW)
        assert (terminated, truncated) == (n == 64, False)
        assert reward == 0.0
    assert not info["action_mask"].any() and info["founded"] == 0


# --------------------------------------------------------------------------- scoring (seed 004's table)


def score_after(game, action):
    before = game.score
    game.play(action)
    return game.score - before


def test_scoring_table():
    game = game_of(MOVE_DEAL)
    assert game.score == 0  # at the start
    assert score_after(game, found(9)) == 10  # column to a foundation (AH)
    assert score_after(game, ft_move(1, 0)) == 0  # column to column (7S on 8S)
    assert score_after(game, DRAW) == 0  # draw (6H)
    play_all(game, [found(9), found(9), found(9)])  # 2H 3H 4H
    assert game.score == 40
    assert score_after(game, back(1, 9)) == -15  # foundation to column (4H to the empty column)
    assert score_after(game, found(9)) == 10  # the same card founded again
    assert score_after(game, ft_move(FT_WASTE, 9)) == 5  # waste (6H) to the empty column
    assert score_after(game, found(3)) == 10  # AS
    assert game.score == 50


def test_waste_to_foundation_scores_10():
    game = game_of(ACES_FIRST)
    game.play(DRAW)
    assert score_after(game, found(FT_WASTE)) == 10


def test_waste_to_a_building_column_scores_5():
    game = game_of(ft_deal(["JH JH KD 7H", *MOVE_COLUMNS[1:]], "6H"))
    game.play(DRAW)
    assert score_after(game, ft_move(FT_WASTE, 0)) == 5
    assert column_texts(game, 0)[-2:] == ["7H", "6H"]


def test_return_then_found_again_is_net_minus_5():
    # seed 004: "組札からカードを戻すと15点減り、再び組札に置いても10点しか入りません"
    game = game_of(MOVE_DEAL)
    play_all(game, EMPTY_COLUMN_10)
    assert game.score == 40
    game.play(back(1, 9))
    assert game.score == 25
    game.play(found(9))
    assert game.score == 35 == 40 - 5


def test_score_never_goes_below_zero_and_later_points_count_from_zero():
    # seed 004: "得点は0より下がりません"
    game = game_of(MOVE_DEAL)
    play_all(game, EMPTY_COLUMN_10)  # AH..4H founded: 40
    game.play(back(1, 9))  # 4H to the empty column: 25
    game.play(back(1, 9))  # 3H on it: 10
    assert game.score == 10
    game.play(back(1, 9))  # 2H on the 3H: 10 - 15 is clamped to 0
    assert game.score == 0
    game.play(back(1, 9))  # AH on the 2H at score 0: stays 0
    assert game.score == 0 and game.foundations[1] == 0
    assert column_texts(game, 9) == ["4H", "3H", "2H", "AH"]
    # the floor is applied at each step: the next +10 counts from 0, not from a hidden -50
    game.play(found(9))
    assert game.score == 10
    game.play(found(9))
    assert game.score == 20


def test_without_a_floor_the_score_goes_negative():
    game = game_of(MOVE_DEAL, scoring=FortyThievesScoring(name="no floor", floor=None))
    play_all(game, [*EMPTY_COLUMN_10, back(1, 9), back(1, 9), back(1, 9), back(1, 9)])
    assert game.score == 40 - 4 * 15 == -20
    game.play(found(9))
    assert game.score == -10


def test_custom_scoring_points():
    scoring = FortyThievesScoring(
        name="mine",
        start=100,
        to_foundation=1,
        waste_to_column=2,
        column_to_column=-3,
        draw=-4,
        foundation_to_column=-5,
    )
    game = game_of(MOVE_DEAL, scoring=scoring)
    assert game.score == 100
    assert score_after(game, found(9)) == 1  # AH
    assert score_after(game, ft_move(1, 0)) == -3  # 7S on 8S
    assert score_after(game, DRAW) == -4  # 6H
    assert score_after(game, back(1, 9)) == -5  # AH back onto column 10's 2H
    play_all(game, [found(9)] * 4)  # AH 2H 3H 4H
    assert score_after(game, ft_move(FT_WASTE, 9)) == 2  # 6H to the empty column
    assert game.score == 100 + 1 - 3 - 4 - 5 + 4 + 2


# --------------------------------------------------------------------------- undo


def test_undo_restores_score_and_state_but_not_the_move_counter():
    # seed 004: "得点は操作前に戻りますが、手数カウンターは減りません"
    game = game_of(MOVE_DEAL)
    # AH, 7S on 8S, draw 6H, 2H 3H 4H, 4H back to column 10, draw QD
    line = [found(9), ft_move(1, 0), DRAW, found(9), found(9), found(9), back(1, 9), DRAW]
    history = [undo_snapshot(game)]
    for n, a in enumerate(line, 1):
        game.play(a)
        history.append(undo_snapshot(game))
        assert game.moves == n
    assert game.score == 25
    for n in range(len(line), 0, -1):
        assert undo_snapshot(game) == history[n]
        assert game.undo()
        assert undo_snapshot(game) == history[n - 1]
        assert game.moves == len(line)  # never decremented
    assert not game.undo() and not game.can_undo
    assert game.score == 0 and game.stock_count == 64 and game.waste == []
    assert game.stock_seen == 2  # what was drawn stays seen
    assert game.unseen_cards() == list(MOVE_DEAL.stock[2:])


def test_undo_of_a_return_and_of_a_clamped_score():
    game = game_of(MOVE_DEAL)
    play_all(game, [*EMPTY_COLUMN_10, back(1, 9), back(1, 9), back(1, 9)])
    assert game.score == 0  # clamped from -5
    assert game.undo()
    assert game.score == 10 and game.foundations[1] == 2 and column_texts(game, 9) == ["4H", "3H"]
    assert game.undo() and game.undo()
    assert game.score == 40 and game.foundations[1] == 4 and game.columns[9] == []


def test_undo_after_a_win():
    game = play_all(FortyThievesGame(EXAMPLE_DEAL), EXAMPLE_LINE)
    assert game.undo()
    assert not game.won and game.score == 1175 and game.founded == 103
    assert column_texts(game, 7) == ["KC"] and game.legal_mask() >> found(7) & 1
    assert tap_action(game, 7) == found(7)


def test_with_stock_deals_the_unseen_cards_in_another_order():
    # a determinization: the same game (position, counters, hash, history) with the never-seen
    # stock cards in another order; only the draws still to come differ
    rnd = random.Random(5)
    game = FortyThievesGame(FortyThievesDeal.from_seed(3))
    for _ in range(40):
        legal = game.legal_actions()
        game.play(DRAW if DRAW in legal and rnd.random() < 0.3 else rnd.choice(legal))
    play_all(game, [DRAW, DRAW])
    assert game.undo()  # the last draw undone: its card is back in the stock, and seen
    seen, original = game.stock_seen, game.stock
    assert game.stock_pos == seen - 1 and 6 <= seen < STOCK_SIZE - 2
    stock = original[:seen] + tuple(reversed(original[seen:]))
    assert stock[seen] != original[seen]
    before = snapshot(game)
    before_hash = game.position_hash

    other = game.with_stock(list(stock))  # a list is taken too
    assert other is not game and other.stock == stock and isinstance(other.stock, tuple)
    assert other.deal.columns == game.deal.columns and other.deal.stock == stock
    assert other.deal.code is None  # a deal of another order is no longer the code's deal
    assert snapshot(other) == before and other.position_hash == before_hash
    assert other.stock_seen == seen and other.unseen_cards() == list(stock[seen:])
    assert game.stock == original and snapshot(game) == before  # the game itself is untouched

    # the history came along: both undo the same moves
    twin = game.copy()
    while twin.undo():
        assert other.undo()
        assert undo_snapshot(other) == undo_snapshot(twin)
    assert not other.undo()
    assert snapshot(game) == before  # and playing on the copy never touches the game

    # the draws to come follow the new order, the seen ones stay where they were
    for g in (game, other):
        while g.stock_pos <= seen:
            g.play(DRAW)
    assert game.waste[-1] == original[seen] and other.waste[-1] == stock[seen]


def test_with_stock_refuses_another_deal():
    game = FortyThievesGame(FortyThievesDeal.from_seed(3))
    play_all(game, [DRAW] * 3)
    assert game.undo()  # the third card is back in the stock, but it was seen: it stays in its place
    stock, seen = game.stock, game.stock_seen
    assert seen == 3 and game.stock_pos == 2
    unseen = list(stock[seen:])
    assert game.with_stock(stock[:seen] + tuple(unseen[1:] + unseen[:1])).stock_pos == 2
    undone = stock[:2] + stock[seen : seen + 1] + stock[2:3] + stock[seen + 1 :]  # the undone card swapped
    assert sorted(undone) == sorted(stock) and undone[2] != stock[2]
    with pytest.raises(ValueError, match="with_stock"):
        game.with_stock(undone)
    with pytest.raises(ValueError, match="with_stock"):
        game.with_stock(stock[:-1])  # a card short
    with pytest.raises(ValueError, match="with_stock"):
        game.with_stock(stock + stock[:1])  # a card more
    moved = stock[1 : seen + 1] + stock[:1] + stock[seen + 1 :]  # a seen card moved (same cards)
    assert sorted(moved) == sorted(stock) and moved[:seen] != stock[:seen]
    with pytest.raises(ValueError, match="with_stock"):
        game.with_stock(moved)
    other_card = next(c for c in range(52) if c != unseen[0])
    with pytest.raises(DealStringError, match="exactly"):  # another card: the deal checks the counts
        game.with_stock((*stock[:seen], other_card, *stock[seen + 1 :]))
    assert game.stock == stock


def test_undo_limit():
    # the app keeps the last 100 moves; the package's default is unlimited, with an optional limit
    game = game_of(MOVE_DEAL, undo_limit=2)
    play_all(game, [DRAW, DRAW, DRAW])
    assert game.undo() and game.undo() and not game.undo()
    assert game.stock_count == 63
    game = game_of(MOVE_DEAL, undo_limit=0)
    game.play(DRAW)
    assert not game.undo() and not game.can_undo
    game = game_of(MOVE_DEAL, undo_limit=100)
    play_all(game, [DRAW] * 64)
    assert sum(game.undo() for _ in range(101)) == 64


def test_undo_is_exact_under_random_play():
    rnd = random.Random(4)
    for seed in range(30):
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed))
        stack = [undo_snapshot(game)]
        for _ in range(150):
            if game.over:
                break
            if rnd.random() < 0.25 and len(stack) > 1:
                assert game.undo()
                stack.pop()
                assert undo_snapshot(game) == stack[-1]
            else:
                game.play(rnd.choice(game.legal_actions()))
                stack.append(undo_snapshot(game))


# --------------------------------------------------------------------------- illegal moves change nothing


def position_for(reason):
    """A game and an action whose reason code is ``reason``."""
    if reason == "wrong_suit":
        return game_of(MOVE_DEAL), ft_move(1, 2)  # 7S on 8H
    if reason == "wrong_rank":
        return game_of(MOVE_DEAL), ft_move(1, 5)  # 7S on 9S
    if reason == "onto_ace":
        return game_of(MOVE_DEAL), ft_move(8, 3)  # 5S on AS
    if reason == "foundation_order":
        return game_of(MOVE_DEAL), found(0)  # 8S
    if reason == "nothing_to_move":
        return game_of(MOVE_DEAL), ft_move(FT_WASTE, 0)  # the waste is empty
    if reason == "same_place":
        return game_of(MOVE_DEAL), ft_move(4, 4)
    if reason == "return_not_allowed":
        game = game_of(MOVE_DEAL, foundation_return=False)
        return play_all(game, [found(9)]), back(1, 9)
    if reason == "stock_empty":
        return play_all(game_of(MOVE_DEAL), [DRAW] * 64), DRAW
    if reason == "game_over":
        return play_all(FortyThievesGame(EXAMPLE_DEAL), EXAMPLE_LINE), DRAW
    raise AssertionError(reason)


def test_reason_codes():
    assert set(REASONS) == {
        "wrong_suit",
        "wrong_rank",
        "onto_ace",
        "foundation_order",
        "nothing_to_move",
        "same_place",
        "return_not_allowed",
        "stock_empty",
        "game_over",
    }
    assert REASONS["stock_empty"] == "no cards left to draw"
    assert REASONS["onto_ace"] == "nothing can be placed on an ace"
    assert FortyThievesGame.REASONS is REASONS


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_every_illegal_move_changes_nothing(reason):
    game, action = position_for(reason)
    before = snapshot(game)
    assert game.illegal_reason(action) == reason
    assert not game.legal_mask() >> action & 1
    assert game.try_play(action) == reason
    assert snapshot(game) == before
    with pytest.raises(IllegalMoveError) as info:
        game.play(action)
    assert info.value.reason == reason
    assert str(info.value) == f"{reason}: {REASONS[reason]}"
    assert snapshot(game) == before


def test_more_nothing_to_move_and_same_place_cases():
    game = game_of(MOVE_DEAL)
    play_all(game, EMPTY_COLUMN_10)
    assert game.illegal_reason(ft_move(9, 0)) == "nothing_to_move"  # empty column
    assert game.illegal_reason(found(9)) == "nothing_to_move"
    assert game.illegal_reason(back(0, 9)) == "nothing_to_move"  # empty foundation
    assert game.illegal_reason(ft_move(FT_WASTE, FT_FOUNDATION)) == "nothing_to_move"
    for j in range(9):
        assert game.illegal_reason(ft_move(j, j)) == "same_place"
    assert game.illegal_reason(ft_move(FIRST_FOUNDATION_SRC + 1, FT_FOUNDATION)) == "same_place"


# --------------------------------------------------------------------------- the app's tap and double click
# (UI, in solitaire_env/fortythieves/session.py: functions of a game)


TAP_COLUMNS = [
    "KC KC KD 5H",  # 1: 5H, the card to send
    "KD QC QC 6H",  # 2: 6H, length 4
    "QD QD JC 7H",  # 3: 7H
    "JC JD JD 6H",  # 4: 6H, length 4 (its 6H can go on column 3's 7H)
    "TC TC TD TD",  # 5
    "9C 9C 9D 9D",  # 6
    "8C 8C 8D 8D",  # 7
    "7C 7C 7D 7D",  # 8
    "4D 3D 2D AD",  # 9: empties into the foundations
    "4C 3C 2C AC",  # 10: empties into the foundations
]
TAP_DEAL = ft_deal(TAP_COLUMNS, "5H 2S 6C 5C")


def test_tap_sends_a_column_card_to_a_foundation_only():
    # seed 004: "カードをタップすると、置ける組札に移動します"
    game = game_of(TAP_DEAL)
    assert tap_action(game, 8) == found(8)  # AD
    assert tap_action(game, 9) == found(9)  # AC
    assert tap_action(game, 0) is None  # 5H fits on two 6H, but a tap only founds
    assert tap_action(game, 4) is None
    assert tap_action(game, FT_WASTE) is None  # empty waste
    assert tap_action(game, FIRST_FOUNDATION_SRC) is None  # empty foundation
    play_all(game, [found(8)] * 4)  # AD..4D: column 9 empty
    assert tap_action(game, 8) is None
    assert tap_action(game, FIRST_FOUNDATION_SRC + 2) is None  # a foundation card goes nowhere on a tap
    assert tap_action(game, 0) is None  # not even to the empty column


def test_tap_sends_the_waste_card_to_a_foundation_else_a_column():
    # seed 004: "捨て札のカードの場合、組札に置けなければ、置ける列に移動します"
    game = game_of(TAP_DEAL)
    game.play(DRAW)  # 5H: no foundation; columns 2 and 4 (6H) accept it, the leftmost first
    assert tap_action(game, FT_WASTE) == ft_move(FT_WASTE, 1)
    play_all(game, [found(9)] * 4)  # column 10 empty; a building column still comes first
    assert tap_action(game, FT_WASTE) == ft_move(FT_WASTE, 1)
    game.play(ft_move(FT_WASTE, 1))
    game.play(DRAW)  # 2S: no foundation, no 3S: the empty column
    assert tap_action(game, FT_WASTE) == ft_move(FT_WASTE, 9)
    game.play(ft_move(FT_WASTE, 9))
    game.play(DRAW)  # 6C: the clubs foundation holds AC..4C, no 7C on top anywhere, no empty column
    assert tap_action(game, FT_WASTE) is None


def test_tap_and_double_click_on_the_waste_prefer_a_foundation():
    game = game_of(TAP_DEAL)
    play_all(game, [*[found(9)] * 4, DRAW, DRAW, DRAW, DRAW])  # clubs at 4C, column 10 empty; waste 5H 2S 6C 5C
    assert tap_action(game, FT_WASTE) == found(FT_WASTE)  # the 5C could also go to the empty column
    assert double_click_action(game, FT_WASTE) == found(FT_WASTE)
    game.play(found(FT_WASTE))
    assert tap_action(game, FT_WASTE) == found(FT_WASTE)  # then the 6C


def test_double_click_foundation_else_longest_column_else_empty_column():
    # seed 004: "カードを組札に移します。置けなければ、置ける列のうち最も長い列へ、それも無理なら空の列へ移します"
    game = game_of(TAP_DEAL)
    assert double_click_action(game, 8) == found(8)  # AD
    assert double_click_action(game, 0) == ft_move(0, 1)  # 5H: columns 2 and 4 (6H), both 4 long: the leftmost
    assert double_click_action(game, 7) == ft_move(7, 6)  # 7D on 8D
    assert double_click_action(game, 2) is None  # 7H: no 8H, no empty column
    game.play(ft_move(3, 2))  # column 4's 6H on column 3's 7H: column 3 is now 5 long
    assert len(game.columns[2]) == 5 and tops(game)[1] == tops(game)[2] == "6H"
    assert double_click_action(game, 0) == ft_move(0, 2)  # the longest accepting column
    game.play(DRAW)  # 5H on the waste: the same choice
    assert double_click_action(game, FT_WASTE) == ft_move(FT_WASTE, 2)
    assert double_click_action(game, 4) == ft_move(4, 3)  # TD on column 4's JD, now on top
    play_all(game, [found(9)] * 4)  # column 10 empty
    assert double_click_action(game, 5) == ft_move(5, 4)  # 9D still prefers a column it builds on
    game.play(ft_move(0, 2))
    assert double_click_action(game, 0) == ft_move(0, 9)  # KD: no QD on top: the empty column
    play_all(game, [found(8)] * 4)  # column 9 empty too: the leftmost empty column
    assert double_click_action(game, 0) == ft_move(0, 8)
    assert double_click_action(game, 8) is None  # an empty column has nothing to send
    assert double_click_action(game, FIRST_FOUNDATION_SRC + 4) is None  # an empty foundation


def test_double_click_on_a_foundation_card_sends_it_back_to_a_column():
    # a foundation card cannot go to a foundation, so (with foundation_return on) it goes to the longest
    # accepting column, else an empty one; with foundation_return off it stays
    game = game_of(TAP_DEAL)
    play_all(game, [found(8)] * 4)  # diamonds AD..4D, column 9 empty
    assert double_click_action(game, FIRST_FOUNDATION_SRC + 2) == back(2, 8)
    game = game_of(TAP_DEAL, foundation_return=False)
    play_all(game, [found(8)] * 4)
    assert double_click_action(game, FIRST_FOUNDATION_SRC + 2) is None


def test_tap_and_double_click_actions_are_always_legal():
    rnd = random.Random(7)
    checked = 0
    for seed in range(40):
        for rules in ({}, {"foundation_return": False}):
            game = game_of(FortyThievesDeal.from_seed(seed), **rules)
            for _ in range(120):
                legal = game.legal_actions()
                if not legal:
                    break
                for src in range(NUM_SOURCES):
                    for helper in (tap_action, double_click_action):
                        a = helper(game, src)
                        if a is not None:
                            assert game.illegal_reason(a) is None and a // 11 == src
                            checked += 1
                game.play(rnd.choice(legal))
    assert checked > 1000


# --------------------------------------------------------------------------- deal codes and deal strings in the env


def test_env_deals_the_code_exactly():
    env = gym.make(FORTYTHIEVES_ID)
    _, info = env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    deal = FortyThievesDeal.from_seed(1)
    assert info["deal_code"] == "FT1-N-AAAAAAB"
    game = env.unwrapped.game
    assert game.deal == deal and game.stock == deal.stock
    assert game.columns == [list(col) for col in deal.columns]
    assert env.unwrapped.public_view()["columns"] == [[card_text(c) for c in col] for col in deal.columns]
    # case and blanks do not matter; the canonical code is reported
    _, info = env.reset(options={"deal_code": "  ft1-n-aaaaaab "})
    assert info["deal_code"] == "FT1-N-AAAAAAB" and env.unwrapped.game.deal == deal


def test_env_deal_string_round_trip():
    env = gym.make(FORTYTHIEVES_ID)
    deal = FortyThievesDeal.from_seed(77)
    _, info = env.reset(options={"deal": str(deal)})
    assert info["deal_code"] == str(deal)  # a hand-made deal is named by its cards
    assert env.unwrapped.game.deal == deal
    _, info = env.reset(options={"deal": deal})  # a deal object from a code keeps its code
    assert info["deal_code"] == str(deal)


@pytest.mark.parametrize(
    ("code", "word"),
    [
        ("TP1-E-AAAAAAB", "is for game TP"),
        ("FT1-E-AAAAAAB", "unknown rule 'E' for FT"),
        ("FT1-C-AAAAAAB", "unknown rule 'C' for FT"),
        ("FT2-N-AAAAAAB", "unsupported version"),
        ("FT1-N-AAAAAA", "7 characters"),
        ("FT1-N-AAAAAA8", "base32"),
        ("FT1-N", "three parts"),
        ("", "empty"),
    ],
)
def test_env_rejects_bad_codes(code, word):
    env = gym.make(FORTYTHIEVES_ID)
    env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    view = env.unwrapped.public_view()
    with pytest.raises(DealCodeError) as info:
        env.reset(options={"deal_code": code})
    assert word in str(info.value)
    assert env.unwrapped.public_view() == view  # the episode goes on


_GOOD = FortyThievesDeal.from_seed(1)
_COLS = [list(col) for col in _GOOD.columns]
_STOCK = list(_GOOD.stock)
_TWICE = next(c for c, n in Counter(_STOCK).items() if n == 2)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        (ft_deal_string(_COLS, [*_STOCK[:-1], _TWICE]), f"too many of {card_text(_TWICE)}"),  # a card three times
        (ft_deal_string(_COLS, _STOCK[:-1]), "1 card(s) missing"),  # 103 cards
        (ft_deal_string(_COLS, [*_STOCK, _STOCK[0]]), "too many of"),  # 105 cards
        (ft_deal_string([_COLS[0][:3], *_COLS[1:]], [_COLS[0][3], *_STOCK]), "column 1: want 4 cards"),
        (ft_deal_string([*_COLS[:9], [*_COLS[9], _STOCK[0]]], _STOCK[1:]), "column 10: want 4 cards"),
        (ft_deal_string(_COLS, _STOCK).replace(card_text(_STOCK[-1]), "JK"), "joker"),
        (ft_deal_string(_COLS, _STOCK).rsplit(" | ", 1)[0], "11 sections"),
        ("nonsense", "11 sections"),
        (42, "deal string or deal, got 42"),
    ],
)
def test_env_rejects_bad_deal_strings(text, word):
    env = gym.make(FORTYTHIEVES_ID)
    env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    view = env.unwrapped.public_view()
    with pytest.raises(DealStringError) as info:
        env.reset(options={"deal": text})
    assert word in str(info.value)
    assert isinstance(info.value, DealCodeError) and isinstance(info.value, ValueError)
    assert env.unwrapped.public_view() == view


def test_env_rejects_a_tripeaks_deal():
    from solitaire_env.tripeaks.deal import TriPeaksDeal

    env = gym.make(FORTYTHIEVES_ID)
    with pytest.raises(DealStringError, match="Forty Thieves deal string"):
        env.reset(options={"deal": TriPeaksDeal.from_seed(1)})
    with pytest.raises(DealStringError):
        env.reset(options={"deal": str(TriPeaksDeal.from_seed(1))})
