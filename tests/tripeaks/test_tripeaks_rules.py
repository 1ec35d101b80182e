"""TriPeaks rules: one test per rule of SPEC section 3 and the seeds 000, 001 and 003."""

from __future__ import annotations

import random

import pytest

from solitaire_env.common.cards import JOKER, card_id, card_text, parse_card, rank_of
from solitaire_env.common.deals import DealStringError
from solitaire_env.dealing import decode_deal
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import NUM_ACTIONS, REASONS, IllegalMoveError, TriPeaksGame
from solitaire_env.tripeaks.rules import (
    ALL_SLOTS,
    APEX_SLOTS,
    BOTTOM_MASK,
    BOTTOM_SLOTS,
    COVER_MASK,
    COVERED_BY,
    COVERS,
    DRAW,
    NUM_SLOTS,
    ROW_LENGTHS,
    ROW_OF,
    ROW_STARTS,
    TriPeaksRules,
    adjacent_ranks,
)

# --------------------------------------------------------------------------- helpers


def build_deal(waste_rank, removals, stock_ranks=()):
    """A deal with chosen ranks: ``removals`` is ``(slot, rank)`` pairs, ``stock_ranks`` the
    ranks of the first stock cards (``None`` = any).  Suits go C, D, H, S per rank in the order
    the cards are named; every card not named fills the remaining slots, then the stock, in id order."""
    free = {r: [card_id(r, s) for s in range(4)] for r in range(1, 14)}
    waste = free[waste_rank].pop(0)
    tableau = [None] * 28
    for slot, rank in removals:
        assert tableau[slot] is None
        tableau[slot] = free[rank].pop(0)
    stock = [None] * 23
    for i, rank in enumerate(stock_ranks):
        if rank is not None:
            stock[i] = free[rank].pop(0)
    rest = iter(sorted(c for cards in free.values() for c in cards))
    tableau = [c if c is not None else next(rest) for c in tableau]
    stock = [c if c is not None else next(rest) for c in stock]
    return TriPeaksDeal(tuple(tableau), waste, tuple(stock))


def state(game):
    """Everything about a game, to check that an illegal move changed nothing."""
    attrs = game.state_dict()
    return game.public_view(), attrs, game.deal, game.rules, game.scoring


def rest_of_state(game, skip=("moves", "seen_slots", "stock_seen")):
    """The state without the parts that undo keeps (move counter and knowledge)."""
    view, attrs, *others = state(game)
    view = {k: v for k, v in view.items() if k not in skip}
    attrs = {k: v for k, v in attrs.items() if k not in skip}
    return view, attrs, *others


# A legal removal order: bottom row, row 3, row 2, then the apexes 0, 1, 2.
ORDER = [*range(18, 28), *range(9, 18), *range(3, 9), 0, 1, 2]
# Ranks that move by one at every step, without K-A: 2..K, Q..A, 2..5 (28 cards).
ZIGZAG = [*range(2, 14), *range(12, 0, -1), 2, 3, 4, 5]
# Waste A; removing ORDER with ZIGZAG ranks clears all 28 in one chain.  The last stock card
# is an A too, so drawing all 23 first and then clearing also works.
CHAIN_DEAL = build_deal(1, zip(ORDER, ZIGZAG, strict=True), [1, *[None] * 21, 1])

# Bottom row only As, 2s and 3s; waste and stock only 6..J: never a legal removal.
STUCK_DEAL = build_deal(
    6,
    zip(BOTTOM_SLOTS, [1, 1, 1, 1, 2, 2, 2, 2, 3, 3], strict=True),
    [6, 6, 6, *[7] * 4, *[8] * 4, *[9] * 4, *[10] * 4, *[11] * 4],
)

# A 50-move win (seed 000's example game): 11 draws, a 26-card chain ending on apex 0 (move 37),
# 4 draws, apex 1 (move 42), 7 draws, apex 2 (move 50).
EXAMPLE_DEAL = build_deal(
    13,
    [*zip(ORDER[:26], ZIGZAG[:26], strict=True), (1, 6), (2, 10)],
    [*[None] * 10, 1, None, None, None, 5, *[None] * 6, 9],
)
EXAMPLE_LINE = [*[DRAW] * 11, *ORDER[:26], *[DRAW] * 4, 1, *[DRAW] * 7, 2]

# Seed 000's worked example: bottom row 3S 5S KC 4S 2D AS KD 8H 7C 9S, waste AC, 7S in slot 13.
WORKED_EXAMPLE = (
    "2C 3C 4C 5C 6C 8C 9C TC JC QC AD 3D 4D 7S 5D 6D 7D 8D 3S 5S KC 4S 2D AS KD 8H 7C 9S | AC | "
    "9D TD JD QD AH 2H 3H 4H 5H 6H 7H 9H TH JH QH KH 2S 6S 8S TS JS QS KS"
)


def game_of(deal, scoring="app", **rules):
    return TriPeaksGame(deal, TriPeaksRules(**rules), scoring)


def play_all(game, actions):
    for a in actions:
        game.play(a)
    return game


def test_helper_decks():
    assert len(EXAMPLE_LINE) == 50
    for deal in (CHAIN_DEAL, STUCK_DEAL, EXAMPLE_DEAL, TriPeaksDeal.parse(WORKED_EXAMPLE)):
        assert sorted([*deal.tableau, deal.waste, *deal.stock]) == list(range(52))


# --------------------------------------------------------------------------- layout


def test_slot_numbering():
    assert NUM_SLOTS == 28
    assert ROW_STARTS == (0, 3, 9, 18)
    assert ROW_LENGTHS == (3, 6, 9, 10)
    assert APEX_SLOTS == (0, 1, 2)
    assert BOTTOM_SLOTS == (18, 19, 20, 21, 22, 23, 24, 25, 26, 27)
    assert ROW_OF == (0,) * 3 + (1,) * 6 + (2,) * 9 + (3,) * 10
    assert DRAW == 28
    assert NUM_ACTIONS == 29


def test_cover_relations_follow_the_spec_formula():
    for p in range(3):
        assert COVERED_BY[p] == (3 + 2 * p, 3 + 2 * p + 1)
    for i in range(6):
        assert COVERED_BY[3 + i] == (9 + i + i // 2, 9 + i + i // 2 + 1)
    for j in range(9):
        assert COVERED_BY[9 + j] == (18 + j, 18 + j + 1)
    for s in range(18, 28):
        assert COVERED_BY[s] == ()


def test_cover_relations_literal():
    assert COVERED_BY[:9] == ((3, 4), (5, 6), (7, 8), (9, 10), (10, 11), (12, 13), (13, 14), (15, 16), (16, 17))
    assert COVERED_BY[9] == (18, 19)
    assert COVERED_BY[13] == (22, 23)
    assert COVERED_BY[17] == (26, 27)
    # Row-3 slots 10, 13 and 16 lie under two row-2 cards each; the others under one.
    assert COVERS[10] == (3, 4)
    assert COVERS[11] == (4,)
    assert COVERS[12] == (5,)
    assert COVERS[13] == (5, 6)
    assert COVERS[14] == (6,)
    assert COVERS[16] == (7, 8)
    assert COVERS[18] == (9,)
    assert COVERS[22] == (12, 13)
    assert COVERS[0] == ()


def test_covers_is_the_inverse_of_covered_by():
    for s in range(28):
        for t in COVERED_BY[s]:
            assert s in COVERS[t]
        for t in COVERS[s]:
            assert s in COVERED_BY[t]
        assert sum(1 << c for c in COVERED_BY[s]) == COVER_MASK[s]


# --------------------------------------------------------------------------- start


def test_start_position():
    deal = decode_deal("TP1-E-AAAAAAB")
    game = TriPeaksGame(deal)
    view = game.public_view()
    assert view["tableau"][:18] == ["??"] * 18
    assert view["tableau"][18:] == [card_text(c) for c in deal.tableau[18:]]
    assert view["waste"] == card_text(deal.waste) == "5H"
    assert view["stock_count"] == game.stock_count == 23
    assert game.waste == [deal.waste]
    assert game.stock == deal.stock
    assert game.exposed == BOTTOM_MASK == game.face_up
    assert (game.score, game.moves, game.cleared, game.chain, game.longest_chain) == (500, 0, 0, 0, 0)
    assert (view["won"], view["over"], game.lost) == (False, False, False)
    assert not game.can_undo


def test_default_rules():
    rules = TriPeaksRules()
    assert (rules.wrap, rules.draw, rules.faces, rules.waste_start, rules.jokers, rules.undo_limit) == (
        True,
        "anytime",
        "standard",
        "card",
        0,
        None,
    )
    assert rules.rule_letter == "E"
    assert TriPeaksRules(wrap=False).rule_letter == "C"
    assert TriPeaksRules().to_dict()["draw"] == "anytime"


def test_seed003_talon_of_24_is_one_waste_card_and_23_stock():
    # Seed 003 deals a 24-card talon and turns its top card to start the waste: the same thing.
    deal = decode_deal("TP1-E-QX4ZZ2A")
    game = TriPeaksGame(deal)
    assert len(game.waste) + game.stock_count == 24
    assert game.waste_top == deal.waste


# --------------------------------------------------------------------------- seed 000 worked example


def test_worked_example_easy_legal_moves():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE), wrap=True)
    assert game.public_view()["tableau"][18:] == ["3S", "5S", "KC", "4S", "2D", "AS", "KD", "8H", "7C", "9S"]
    assert game.public_view()["waste"] == "AC"
    assert game.legal_actions() == [20, 22, 24, DRAW]


def test_worked_example_classic_legal_moves():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE), wrap=False)
    assert game.legal_actions() == [22, DRAW]


def test_worked_example_play():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE))
    for slot, card in ((20, "KC"), (23, "AS"), (22, "2D")):
        assert game.try_play(slot) is None
        assert card_text(game.waste_top) == card
    view = game.public_view()
    assert view["waste"] == "2D"
    assert view["stock_count"] == 23
    assert view["tableau"][9:18] == ["??"] * 4 + ["7S"] + ["??"] * 4
    assert view["tableau"][18:] == ["3S", "5S", None, "4S", None, None, "KD", "8H", "7C", "9S"]
    assert view["tableau"][:9] == ["??"] * 9
    assert game.face_up >> 13 & 1 and game.exposed >> 13 & 1
    assert (game.moves, game.cleared, game.chain) == (3, 3, 3)


def test_worked_example_illegal_attempts_change_nothing():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE))
    before = state(game)
    assert game.illegal_reason(18) == "not_adjacent"  # 3S on AC
    assert game.try_play(18) == "not_adjacent"
    assert state(game) == before
    for slot in (0, 5, 13, 17):
        assert game.try_play(slot) == "face_down"
        assert state(game) == before
    with pytest.raises(IllegalMoveError) as info:
        game.play(18)
    assert info.value.reason == "not_adjacent"
    assert str(info.value) == "not_adjacent: rank must be one higher or lower"
    assert state(game) == before


# --------------------------------------------------------------------------- exposure (seed 001)


def test_face_down_card_turns_up_only_when_both_covering_cards_are_removed():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE))
    game.play(22)  # 2D on AC; slot 13 is still covered by 23 (AS)
    assert game.public_view()["tableau"][13] == "??"
    assert game.illegal_reason(13) == "face_down"
    assert not game.exposed >> 13 & 1
    assert not game.seen_slots >> 13 & 1
    game.play(23)  # AS on 2D: both covering cards are gone
    assert game.public_view()["tableau"][13] == "7S"
    assert game.exposed >> 13 & 1
    assert game.seen_slots >> 13 & 1
    # Slot 12 lies under 21 and 22: one of them is still there.
    assert game.public_view()["tableau"][12] == "??"


def test_exposed_and_face_up_agree_under_random_play():
    rnd = random.Random(3)
    for seed in range(40):
        game = TriPeaksGame(TriPeaksDeal.from_seed(seed))
        while not game.over:
            legal = game.legal_actions()
            assert legal == [a for a in range(NUM_ACTIONS) if game.illegal_reason(a) is None]
            for s in range(28):
                if not game.removed >> s & 1:
                    covered = any(not game.removed >> c & 1 for c in COVERED_BY[s])
                    assert bool(game.exposed >> s & 1) == (not covered)
                    assert bool(game.face_up >> s & 1) == (not covered)
            game.play(rnd.choice(legal))
            if rnd.random() < 0.1:
                game.undo()
        assert game.legal_actions() == []
        assert game.won or game.lost


# --------------------------------------------------------------------------- removal and K-A


@pytest.mark.parametrize(
    ("rank", "wrap", "ranks"),
    [
        (13, True, (12, 1)),
        (1, True, (13, 2)),
        (13, False, (12,)),
        (1, False, (2,)),
        (7, True, (6, 8)),
        (7, False, (6, 8)),
        (2, False, (1, 3)),
        (12, False, (11, 13)),
    ],
)
def test_adjacent_ranks(rank, wrap, ranks):
    assert adjacent_ranks(rank, wrap) == ranks


# Waste K; bottom row Q A 2 J 5 5 6 6 7 K.
K_DEAL = build_deal(13, zip(BOTTOM_SLOTS, [12, 1, 2, 11, 5, 5, 6, 6, 7, 13], strict=True))
# Waste A; bottom row K 2 5 5 6 6 7 7 8 8.
A_DEAL = build_deal(1, zip(BOTTOM_SLOTS, [13, 2, 5, 5, 6, 6, 7, 7, 8, 8], strict=True))


def test_wrap_from_king_play_queen_or_ace():
    game = game_of(K_DEAL, wrap=True)
    assert game.legal_actions() == [18, 19, DRAW]  # Q, A (not the other K)
    game.play(19)  # A on K
    assert game.legal_actions() == [20, 27, DRAW]  # from A: 2 or K


def test_wrap_from_ace_play_two_or_king():
    game = game_of(A_DEAL, wrap=True)
    assert game.legal_actions() == [18, 19, DRAW]


def test_classic_king_and_ace_are_not_adjacent():
    game = game_of(K_DEAL, wrap=False)
    assert game.legal_actions() == [18, DRAW]
    assert game.illegal_reason(19) == "not_adjacent"
    game.play(18)  # Q on K
    assert game.legal_actions() == [21, 27, DRAW]  # J or K on Q
    game = game_of(A_DEAL, wrap=False)
    assert game.legal_actions() == [19, DRAW]
    assert game.illegal_reason(18) == "not_adjacent"


def test_suit_does_not_matter():
    game = game_of(CHAIN_DEAL)
    # waste AC; slot 18 is 2C, same suit, and 2D would do as well: only the rank counts.
    assert card_text(game.tableau[18]) == "2C"
    game.play(18)
    assert game.waste_top == game.tableau[18]
    assert [rank_of(c) for c in game.waste] == [1, 2]


def test_removed_card_becomes_the_waste_top():
    game = game_of(CHAIN_DEAL)
    for n, slot in enumerate(ORDER[:12], start=1):
        game.play(slot)
        assert game.waste_top == CHAIN_DEAL.tableau[slot]
        assert len(game.waste) == n + 1
        assert game.removed >> slot & 1


# --------------------------------------------------------------------------- stock


def test_draw_turns_the_top_stock_card_onto_the_waste():
    game = game_of(CHAIN_DEAL)
    for i in range(23):
        assert game.stock_count == 23 - i
        game.play(DRAW)
        assert game.waste_top == CHAIN_DEAL.stock[i]
    assert game.waste == [CHAIN_DEAL.waste, *CHAIN_DEAL.stock]
    assert game.stock_count == 0


def test_one_pass_of_the_stock():
    game = play_all(game_of(CHAIN_DEAL), [DRAW] * 23)
    before = state(game)
    assert game.try_play(DRAW) == "stock_empty"
    assert state(game) == before
    assert game.stock_count == 0
    assert not game.legal_mask() >> DRAW & 1
    # A removal is still legal (the last stock card is an A), so the game is not over.
    assert not game.over
    assert game.legal_actions() == [18]


def test_draw_is_allowed_anytime_by_default():
    game = game_of(CHAIN_DEAL)
    assert game.removable()
    assert game.illegal_reason(DRAW) is None
    game.play(DRAW)


# --------------------------------------------------------------------------- end of the game


def test_win_with_stock_left():
    game = play_all(game_of(CHAIN_DEAL), ORDER)
    assert game.won
    assert game.over
    assert not game.lost
    assert game.cleared == 28
    assert game.stock_count == 23
    assert game.legal_mask() == 0
    assert game.legal_actions() == []
    view = game.public_view()
    assert view["tableau"] == [None] * 28
    assert (view["won"], view["over"]) == (True, True)


def test_loss_when_stock_empty_and_no_removal():
    game = game_of(STUCK_DEAL)
    assert game.removable() == 0
    for _ in range(22):
        game.play(DRAW)
        assert not game.over
        assert not game.lost
    game.play(DRAW)
    assert game.lost
    assert game.over
    assert not game.won
    assert game.legal_mask() == 0
    assert game.public_view()["over"] is True


def test_undo_after_a_loss_and_after_a_win():
    game = play_all(game_of(STUCK_DEAL), [DRAW] * 23)
    assert game.lost
    assert game.undo()
    assert not game.over
    assert game.stock_count == 1
    assert game.legal_actions() == [DRAW]
    game = play_all(game_of(CHAIN_DEAL), ORDER)
    assert game.undo()
    assert not game.over
    assert game.legal_actions() == [2, DRAW]


@pytest.mark.parametrize("action", [DRAW, 18, 0, 27])
def test_game_over_reason_changes_nothing(action):
    for game in (play_all(game_of(CHAIN_DEAL), ORDER), play_all(game_of(STUCK_DEAL), [DRAW] * 23)):
        before = state(game)
        assert game.try_play(action) == "game_over"
        assert state(game) == before
        with pytest.raises(IllegalMoveError) as info:
            game.play(action)
        assert info.value.reason == "game_over"
        assert state(game) == before


# --------------------------------------------------------------------------- reasons


def test_reason_codes_and_messages():
    assert REASONS == {
        "not_adjacent": "rank must be one higher or lower",
        "covered": "this card is still covered",
        "face_down": "this card is still face down",
        "removed": "this card has already been removed",
        "stock_empty": "no cards left to draw",
        "draw_not_allowed": "a card can still be removed; draw only when stuck",
        "game_over": "the game is over",
    }


def test_removed_reason_changes_nothing():
    game = play_all(game_of(CHAIN_DEAL), [18, 19])
    before = state(game)
    assert game.try_play(18) == "removed"
    assert state(game) == before
    with pytest.raises(IllegalMoveError, match="removed: this card has already been removed"):
        game.play(18)
    assert state(game) == before


def test_covered_reason_with_open_faces_changes_nothing():
    game = game_of(CHAIN_DEAL, faces="open")
    before = state(game)
    for slot in range(18):
        assert game.try_play(slot) == "covered"
    assert state(game) == before
    with pytest.raises(IllegalMoveError, match="covered: this card is still covered"):
        game.play(0)
    assert state(game) == before


def test_face_down_reason_changes_nothing():
    game = game_of(CHAIN_DEAL)
    before = state(game)
    for slot in range(18):
        assert game.try_play(slot) == "face_down"
    assert state(game) == before


def test_not_adjacent_reason_changes_nothing():
    game = game_of(CHAIN_DEAL)
    before = state(game)
    assert card_text(game.tableau[19]) == "3C"
    assert game.try_play(19) == "not_adjacent"  # 3C on AC
    assert state(game) == before


def test_stock_empty_reason_changes_nothing():
    game = play_all(game_of(CHAIN_DEAL), [DRAW] * 23)
    before = state(game)
    with pytest.raises(IllegalMoveError, match="stock_empty: no cards left to draw"):
        game.play(DRAW)
    assert state(game) == before


def test_draw_not_allowed_reason_changes_nothing():
    game = game_of(CHAIN_DEAL, draw="when_stuck")
    before = state(game)
    assert game.legal_actions() == [18]
    assert game.try_play(DRAW) == "draw_not_allowed"
    assert state(game) == before


@pytest.mark.parametrize("action", [-1, 29, 100])
def test_out_of_range_action(action):
    game = game_of(CHAIN_DEAL)
    with pytest.raises(ValueError):
        game.illegal_reason(action)
    with pytest.raises(ValueError):
        game.try_play(action)


# --------------------------------------------------------------------------- counters


def test_counters_along_a_game():
    game = game_of(EXAMPLE_DEAL)
    longest = 0
    chain = 0
    for n, action in enumerate(EXAMPLE_LINE, start=1):
        cleared = game.cleared
        game.play(action)
        chain = 0 if action == DRAW else chain + 1
        longest = max(longest, chain)
        assert game.moves == n
        assert game.cleared == cleared + (action != DRAW)
        assert game.chain == chain
        assert game.longest_chain == longest
        assert game.counters() == {
            "score": game.score,
            "moves": n,
            "cleared": game.cleared,
            "chain": chain,
            "longest_chain": longest,
        }
    assert game.won
    assert (game.moves, game.cleared, game.chain, game.longest_chain) == (50, 28, 1, 26)


def test_draw_resets_the_chain_but_not_the_longest():
    game = play_all(game_of(EXAMPLE_DEAL), EXAMPLE_LINE[:37])
    assert (game.chain, game.longest_chain) == (26, 26)
    game.play(DRAW)
    assert (game.chain, game.longest_chain) == (0, 26)


def test_undo_never_decrements_moves():
    game = play_all(game_of(CHAIN_DEAL), ORDER[:5])
    assert game.moves == 5
    for _ in range(5):
        assert game.undo()
    assert game.moves == 5
    assert game.cleared == 0
    assert not game.undo()
    assert game.moves == 5
    game.play(18)
    assert game.moves == 6


# --------------------------------------------------------------------------- undo


def test_undo_restores_everything_after_each_move():
    game = game_of(EXAMPLE_DEAL)
    for action in EXAMPLE_LINE:
        before = rest_of_state(game)
        moves = game.moves
        game.play(action)
        assert game.undo()
        assert rest_of_state(game) == before
        assert game.moves == moves + 1
        game.play(action)
    assert game.won


def test_undo_back_to_the_start():
    game = game_of(EXAMPLE_DEAL)
    start = rest_of_state(game)
    play_all(game, EXAMPLE_LINE)
    assert (game.score, game.longest_chain) == (750, 26)
    for _ in EXAMPLE_LINE:
        assert game.undo()
    assert not game.can_undo
    assert not game.undo()
    assert rest_of_state(game) == start
    assert game.moves == 50
    assert (game.score, game.chain, game.longest_chain, game.apexes_removed) == (500, 0, 0, 0)


def test_undo_turns_revealed_cards_face_down_and_keeps_what_was_seen():
    game = play_all(game_of(TriPeaksDeal.parse(WORKED_EXAMPLE)), [20, 23, 22])
    assert game.public_view()["tableau"][13] == "7S"
    game.undo()
    assert game.public_view()["tableau"][13] == "??"
    assert game.illegal_reason(13) == "face_down"
    assert not game.face_up >> 13 & 1
    assert game.seen_slots >> 13 & 1  # the player saw it
    assert parse_card("7S") in game.seen_cards()
    assert parse_card("7S") not in game.unseen_cards()
    assert game.waste_top == parse_card("AS")
    assert game.public_view()["tableau"][22] == "2D"


def test_undo_a_draw_keeps_what_was_seen():
    game = play_all(game_of(CHAIN_DEAL), [DRAW, DRAW])
    assert game.undo()
    assert game.stock_count == 22
    assert game.waste_top == CHAIN_DEAL.stock[0]
    assert game.stock_seen == 2
    assert CHAIN_DEAL.stock[1] in game.seen_cards()
    assert CHAIN_DEAL.stock[1] not in game.unseen_cards()


def test_undo_restores_chain_and_longest_chain():
    game = play_all(game_of(CHAIN_DEAL), [18, 19, 20, DRAW])
    assert (game.chain, game.longest_chain) == (0, 3)
    game.undo()
    assert (game.chain, game.longest_chain) == (3, 3)
    game.undo()
    game.undo()
    assert (game.chain, game.longest_chain) == (1, 1)


def test_all_known_stays_true_after_undo():
    game = game_of(CHAIN_DEAL)
    assert not game.all_known
    assert len(game.unseen_cards()) == 18 + 23
    assert len(game.seen_cards()) == 11
    play_all(game, [DRAW] * 23 + ORDER)
    assert game.won
    assert game.all_known
    for _ in range(51):
        assert game.undo()
    assert game.all_known
    assert game.unseen_cards() == []
    assert sorted(game.seen_cards()) == list(range(52))
    assert game.public_view()["tableau"][:18] == ["??"] * 18
    assert game.stock_count == 23


def test_undo_limit():
    game = game_of(CHAIN_DEAL, undo_limit=2)
    play_all(game, ORDER[:3])
    assert game.undo()
    assert game.undo()
    assert not game.undo()
    assert game.cleared == 1
    assert game.moves == 3


def test_undo_limit_zero_disables_undo():
    game = game_of(CHAIN_DEAL, undo_limit=0)
    game.play(18)
    assert not game.can_undo
    assert not game.undo()
    assert game.cleared == 1


def test_undo_is_unlimited_by_default():
    game = play_all(game_of(CHAIN_DEAL), [DRAW] * 23 + ORDER)
    undone = 0
    while game.undo():
        undone += 1
    assert undone == 51


def test_copy_is_independent():
    game = play_all(game_of(CHAIN_DEAL), ORDER[:3])
    other = game.copy()
    other.play(ORDER[3])
    other.undo()
    other.undo()
    assert game.cleared == 3
    assert game.waste_top == CHAIN_DEAL.tableau[ORDER[2]]
    assert other.cleared == 2
    assert game.undo()
    assert game.cleared == 2


# --------------------------------------------------------------------------- rule options


def test_draw_when_stuck():
    game = game_of(CHAIN_DEAL, draw="when_stuck")
    assert not game.legal_mask() >> DRAW & 1
    game = game_of(STUCK_DEAL, draw="when_stuck")
    assert game.legal_actions() == [DRAW]
    play_all(game, [DRAW] * 23)
    assert game.lost


def test_when_stuck_draw_becomes_legal_once_stuck():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE), wrap=False, draw="when_stuck")
    assert game.legal_actions() == [22]
    game.play(22)  # 2D: now 3S (18) or AS (23)
    game.play(23)  # AS: Classic, no 2 is exposed (slot 13, 7S, turned up)
    assert game.removable() == 0
    assert game.legal_actions() == [DRAW]


def test_faces_open():
    game = game_of(CHAIN_DEAL, faces="open")
    view = game.public_view()
    assert view["tableau"] == [card_text(c) for c in CHAIN_DEAL.tableau]
    assert game.face_up == ALL_SLOTS
    assert game.exposed == BOTTOM_MASK
    assert game.seen_slots == ALL_SLOTS
    assert game.legal_actions() == [18, DRAW]
    play_all(game, ORDER[:10])
    assert game.exposed == sum(1 << s for s in range(9, 18))
    assert game.face_up == ALL_SLOTS


def test_waste_start_empty():
    game = game_of(CHAIN_DEAL, waste_start="empty")
    assert game.stock_count == 24
    assert game.stock == (CHAIN_DEAL.waste, *CHAIN_DEAL.stock)
    assert game.waste == []
    assert game.waste_top is None
    assert game.public_view()["waste"] is None
    assert game.legal_actions() == [*range(18, 28), DRAW]
    before = rest_of_state(game)
    game.play(25)  # any exposed card
    assert game.waste_top == CHAIN_DEAL.tableau[25]
    game.undo()
    assert rest_of_state(game) == before
    game.play(DRAW)
    assert game.waste_top == CHAIN_DEAL.waste
    assert game.stock_count == 23


def test_waste_start_empty_knowledge():
    game = game_of(CHAIN_DEAL, waste_start="empty")
    assert CHAIN_DEAL.waste in game.unseen_cards()
    assert CHAIN_DEAL.waste not in game.seen_cards()
    play_all(game, [DRAW] * 24)
    assert game.stock_seen == 24


@pytest.mark.parametrize("jokers", [1, 2])
def test_jokers_are_drawn_from_the_stock_and_accept_any_rank(jokers):
    deal = TriPeaksDeal.from_seed(1, jokers=jokers)
    game = game_of(deal, jokers=jokers)
    assert game.stock_count == 23 + jokers
    assert game.waste_top == deal.waste
    first = deal.stock.index(JOKER)
    play_all(game, [DRAW] * (first + 1))
    assert game.waste_top == JOKER
    assert game.public_view()["waste"] == "JK"
    assert game.removable() == game.exposed == BOTTOM_MASK
    assert game.legal_actions() == [*range(18, 28), DRAW]
    game.play(27)
    assert game.waste_top == deal.tableau[27]
    game.undo()
    assert game.waste_top == JOKER
    assert game.removable() == BOTTOM_MASK


def test_joker_on_the_waste_from_a_deal_string():
    deal = TriPeaksDeal.parse(WORKED_EXAMPLE.replace(" | AC | ", " | JK | AC "))
    game = game_of(deal, jokers=1)
    assert game.legal_actions() == [*range(18, 28), DRAW]
    game.play(18)  # 3S on the joker
    assert card_text(game.waste_top) == "3S"
    assert game.legal_actions() == [21, 22, DRAW]  # 4S, 2D


def test_joker_count_must_match_the_rules():
    with pytest.raises(DealStringError, match="joker"):
        TriPeaksGame(TriPeaksDeal.from_seed(1, jokers=1))
    with pytest.raises(DealStringError, match="joker"):
        game_of(TriPeaksDeal.from_seed(1), jokers=2)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("wrap", "yes"),
        ("wrap", 1),
        ("wrap", None),
        ("draw", "sometimes"),
        ("draw", "Anytime"),
        ("faces", "closed"),
        ("faces", True),
        ("waste_start", "full"),
        ("waste_start", None),
        ("jokers", 3),
        ("jokers", -1),
        ("jokers", True),
        ("jokers", "1"),
        ("undo_limit", -1),
        ("undo_limit", 1.5),
        ("undo_limit", True),
    ],
)
def test_invalid_rule_options(option, value):
    with pytest.raises(ValueError, match=option):
        TriPeaksRules(**{option: value})


def test_action_names():
    game = game_of(TriPeaksDeal.parse(WORKED_EXAMPLE))
    assert game.action_name(DRAW) == "draw"
    assert game.action_name(20) == "remove KC (slot 20)"
    assert game.action_name(13) == "remove ?? (slot 13)"  # face down: never named
    with pytest.raises(ValueError):
        game.action_name(29)
