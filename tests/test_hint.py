"""Tests of the hint (docs/hints.md).

(a) The answer never depends on unseen cards: hypothesis permutes the never-seen tableau slots
and never-drawn stock positions (TriPeaks) or the never-drawn stock (Forty Thieves) after a
random play prefix with undos, and the hint is the same at every step.  (b) "unwinnable" only
when every card is known, and then only from an exhausted search.  (c) Cards seen before an undo
stay known.  (d) A draw when no removal is legal; the suggestion is always legal; a winnable line
replays to a win.  (e) The play sessions show the hint on ``h``.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest
from conftest import deal_string, winnable_deal
from hypothesis import event, given, settings
from hypothesis import strategies as st

import solitaire_env
from solitaire_env.common.cards import JOKER, card_id
from solitaire_env.common.deals import DealCodeError, DealStringError
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.fortythieves.rules import FOUNDATION, NUM_DESTS
from solitaire_env.fortythieves.session import FortyThievesSession
from solitaire_env.hints import (
    REASON_BUDGET,
    REASON_HIDDEN,
    REASON_NO_WIN,
    REASON_OVER,
    REASON_PLAN,
    REASON_WIN,
    REASON_WON,
    Hint,
    hint,
    public_move,
)
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.knowledge import tripeaks_knowledge
from solitaire_env.tripeaks.rules import DRAW, TriPeaksRules
from solitaire_env.tripeaks.session import PlaySession
from solitaire_env.tripeaks.solver import solve_tripeaks

SEEDS = st.integers(0, 2**35 - 1)
RULES = st.fixed_dictionaries(
    {
        "wrap": st.booleans(),
        "draw": st.sampled_from(["anytime", "when_stuck"]),
        "faces": st.sampled_from(["standard", "open"]),
        "waste_start": st.sampled_from(["card", "empty"]),
        "jokers": st.integers(0, 2),
    }
)
#: Random choices that pick the moves of a prefix (see :func:`pick`).
CHOICES = st.lists(st.integers(0, 2**20), min_size=5, max_size=90)
OPEN = TriPeaksRules(faces="open")
VERDICT_OF_STATUS = {"solved": "winnable", "unsolvable": "unwinnable", "intractable": "unknown"}


def answer(h: Hint) -> tuple:
    """Everything a hint says (the solver's node count is compared too)."""
    return (h.action, h.verdict, h.reason, h.line, h.name, h.nodes)


def check(game: TriPeaksGame | FortyThievesGame, h: Hint) -> None:
    """What every hint must satisfy, whatever the position."""
    mask = game.legal_mask()
    if h.action is None:
        assert mask == 0  # no move is named only when none is legal
    else:
        assert mask >> h.action & 1, f"{h.name} is not legal"
        assert h.name == game.action_name(h.action)
    if h.verdict == "unwinnable":
        assert game.all_known and h.reason == REASON_NO_WIN
    if not game.all_known:
        assert h.verdict == ("winnable" if game.won else "unknown")
        if h.reason == REASON_PLAN:  # Forty Thieves: the planner's plan up to the next draw
            assert isinstance(game, FortyThievesGame) and h.line[0] == h.action and h.line[-1] == FT_DRAW
            g = game.copy()
            assert all(g.try_play(a) is None for a in h.line)
        else:
            assert h.line == () and h.nodes == 0
    if h.verdict == "winnable" and not game.won:
        assert replays_to_win(game, h.line) and h.action == h.line[0]
    draw = DRAW if isinstance(game, TriPeaksGame) else FT_DRAW
    if isinstance(game, TriPeaksGame) and mask == 1 << draw:
        assert h.action == draw  # no removal is legal: draw


def replays_to_win(game: TriPeaksGame | FortyThievesGame, line: tuple[int, ...]) -> bool:
    g = game.copy()
    for action in line:
        assert g.try_play(action) is None
    return g.won


def pick(game: TriPeaksGame | FortyThievesGame, choice: int) -> int | None:
    """The op a choice stands for: ``None`` = undo (one in six), a draw when legal (one in six,
    so that prefixes often get to see every card), else any legal action."""
    if choice % 6 == 0:
        return None
    draw = DRAW if isinstance(game, TriPeaksGame) else FT_DRAW
    legal = game.legal_actions()
    if choice % 6 == 1 and draw in legal:
        return draw
    return legal[(choice >> 3) % len(legal)] if legal else None


def apply(game: TriPeaksGame | FortyThievesGame, op: int | None) -> None:
    if op is None:
        game.undo()
    else:
        assert game.try_play(op) is None


# --------------------------------------------------------------------------- (a) never peeks


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, rules=RULES, draw_first=st.integers(0, 26), choices=CHOICES, data=st.data())
def test_tripeaks_hint_is_the_same_whatever_the_unseen_cards(seed, rules, draw_first, choices, data):
    deal = TriPeaksDeal.from_seed(seed, jokers=rules["jokers"])
    game = TriPeaksGame(deal, TriPeaksRules(**rules))
    ops: list[int | None] = []
    for _ in range(draw_first):  # a draw run now and then sees the whole stock
        if game.legal_mask() >> DRAW & 1:
            ops.append(DRAW)
            apply(game, DRAW)
    for choice in choices:
        if game.over:
            break
        ops.append(pick(game, choice))
        apply(game, ops[-1])
    # the cards never seen at the end (so never seen at any step before), permuted
    cards = [*deal.tableau, deal.waste, *deal.stock]
    first_stock = 29 if rules["waste_start"] == "card" else 28
    hidden = [s for s in range(28) if not game.seen_slots >> s & 1]
    hidden += [first_stock + p for p in range(game.stock_seen, len(game.stock))]
    assert sorted(cards[i] for i in hidden) == sorted(game.unseen_cards())
    rng = data.draw(st.randoms(use_true_random=False))
    jokers = [cards[i] for i in hidden].count(JOKER)
    joker_spots = rng.sample([i for i in hidden if i >= 28], jokers)  # a joker never goes to the tableau
    others = [cards[i] for i in hidden if cards[i] != JOKER]
    rng.shuffle(others)
    permuted = list(cards)
    fill = iter(others)
    for i in hidden:
        permuted[i] = JOKER if i in joker_spots else next(fill)
    assert Counter(permuted) == Counter(cards)
    other = TriPeaksDeal.parse(deal_string(permuted[:28], permuted[28], permuted[29:]))
    a = TriPeaksGame(deal, TriPeaksRules(**rules))
    b = TriPeaksGame(other, TriPeaksRules(**rules))
    for op in [*ops, "end"]:
        ha, hb = hint(a), hint(b)
        assert answer(ha) == answer(hb)
        assert tripeaks_knowledge(a) == tripeaks_knowledge(b)
        check(a, ha)
        event(f"verdict {ha.verdict}, all known {a.all_known}")
        if op != "end":
            apply(a, op)  # type: ignore[arg-type]
            apply(b, op)  # type: ignore[arg-type]


@settings(max_examples=50, deadline=None)
@given(
    seed=SEEDS,
    draw_first=st.integers(0, 64),
    choices=st.lists(st.integers(0, 2**20), min_size=5, max_size=120),
    data=st.data(),
)
def test_fortythieves_hint_is_the_same_whatever_the_unseen_cards(seed, draw_first, choices, data):
    deal = FortyThievesDeal.from_seed(seed)
    game = FortyThievesGame(deal)
    ops: list[int | None] = [FT_DRAW] * draw_first  # a long draw run now and then sees every card
    for op in ops:
        apply(game, op)
    for choice in choices:
        if game.over:
            break
        # mostly the hint's own move (so that prefixes go somewhere), else a random op
        op = public_move(game) if choice % 3 == 1 else pick(game, choice)
        ops.append(op)
        apply(game, op)
    drawn = game.stock_seen
    rest = list(deal.stock[drawn:])
    data.draw(st.randoms(use_true_random=False)).shuffle(rest)
    assert sorted(rest) == sorted(game.unseen_cards())
    other = FortyThievesDeal(deal.columns, (*deal.stock[:drawn], *rest))
    a, b = FortyThievesGame(deal), FortyThievesGame(other)
    for op in [*ops, "end"]:
        ha, hb = hint(a, max_nodes=300), hint(b, max_nodes=300)  # a small budget keeps it fast
        assert answer(ha) == answer(hb)
        check(a, ha)
        event(f"verdict {ha.verdict}, all known {a.all_known}")
        if op != "end":
            apply(a, op)  # type: ignore[arg-type]
            apply(b, op)  # type: ignore[arg-type]


def test_the_start_of_a_deal_gets_public_advice() -> None:
    game = TriPeaksGame(TriPeaksDeal.from_seed(1))
    before = game.state_dict()
    h = hint(game)
    assert game.state_dict() == before  # the game is not changed
    assert h.verdict == "unknown" and h.reason == REASON_HIDDEN and h.line == ()
    assert h.action is not None and h.action < DRAW and h.name.startswith("remove ")
    ft = FortyThievesGame(FortyThievesDeal.from_seed(1))
    h = hint(ft)
    assert h.verdict == "unknown" and h.reason == REASON_HIDDEN
    assert h.action is not None and h.action % NUM_DESTS == FOUNDATION  # an ace goes up first


# --------------------------------------------------------------------------- (b) unwinnable


def drawn_out(seed: int) -> TriPeaksGame:
    """A deal with every card face up and the whole stock drawn: every card is known."""
    game = TriPeaksGame(TriPeaksDeal.from_seed(seed), OPEN)
    while game.stock_count:
        game.play(DRAW)
    assert game.all_known
    return game


def test_a_fully_known_dead_position_is_unwinnable() -> None:
    game = drawn_out(1)
    assert solitaire_env.solve(game).status == "unsolvable"
    result = solve_tripeaks(game, maximise_cleared=True)  # the hint's best line: most cards cleared
    assert result.status == "unsolvable" and result.extra == {"best_exact": True}
    h = hint(game)
    assert h.verdict == "unwinnable" and h.reason == REASON_NO_WIN
    assert h.line == result.line and h.action == h.line[0] and h.nodes == result.nodes
    replay = game.copy()
    for action in h.line:
        replay.play(action)
    assert replay.cleared == result.best  # the line clears the most that can be cleared
    check(game, h)


def test_a_finished_game_with_every_card_known_is_unwinnable_without_a_move() -> None:
    game = drawn_out(7)
    assert game.over and not game.won
    h = hint(game)
    assert h.verdict == "unwinnable" and h.action is None and h.name == "no move"


def test_a_finished_game_with_hidden_cards_is_not_called_unwinnable() -> None:
    game = TriPeaksGame(TriPeaksDeal.from_seed(7))
    while game.stock_count:
        game.play(DRAW)
    assert game.over and not game.all_known
    h = hint(game)
    assert h.verdict == "unknown" and h.action is None and h.reason == REASON_OVER


def test_the_stock_alone_unseen_is_enough_to_withhold_a_verdict() -> None:
    game = TriPeaksGame(TriPeaksDeal.from_seed(1), OPEN)  # every tableau card is face up
    assert game.seen_slots == (1 << 28) - 1 and not game.all_known
    h = hint(game)
    assert h.verdict == "unknown" and h.reason == REASON_HIDDEN and h.nodes == 0


def test_a_tiny_budget_gives_unknown_never_unwinnable() -> None:
    game = drawn_out(2)
    for _ in range(23):
        game.undo()
    assert game.stock_pos == 0 and game.all_known  # the start again, every card known
    h = hint(game, max_nodes=1)
    assert h.verdict == "unknown" and h.reason == REASON_BUDGET and h.line == ()
    assert h.action == public_move(game)
    check(game, h)
    # the same on a dead position that still needs a search to be proved dead
    dead = drawn_out(8)
    assert hint(dead).verdict == "unwinnable"
    h = hint(dead, max_nodes=1)
    assert h.verdict == "unknown" and h.reason == REASON_BUDGET and h.action is not None


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_a_budget_must_be_a_positive_whole_number(bad) -> None:
    with pytest.raises(ValueError, match="max_nodes"):
        hint(TriPeaksGame(TriPeaksDeal.from_seed(1)), max_nodes=bad)


def test_hint_takes_games_and_deals_only() -> None:
    assert answer(hint(TriPeaksDeal.from_seed(5))) == answer(hint(TriPeaksGame(TriPeaksDeal.from_seed(5))))
    assert hint(FortyThievesDeal.from_seed(5)).verdict == "unknown"
    with pytest.raises(TypeError, match="TriPeaks or Forty Thieves"):
        hint(42)
    with pytest.raises(ValueError, match="TriPeaks or Forty Thieves game, a deal, a deal code"):
        hint([1, 2])  # the same error is a ValueError too


#: A code whose starting hint differs between the E and C rules (K-C on a waste that wraps).
WRAP_MATTERS = "AAAAABT"


@pytest.mark.parametrize(("letter", "wrap"), [("E", True), ("C", False)])
def test_hint_takes_a_deal_code_and_its_rule_letter_sets_the_wrap(letter: str, wrap: bool) -> None:
    code = f"TP1-{letter}-{WRAP_MATTERS}"
    deal = decode_deal(code)
    expected = answer(hint(TriPeaksGame(deal, TriPeaksRules(wrap=wrap))))  # type: ignore[arg-type]
    assert answer(hint(code)) == expected
    assert answer(solitaire_env.hint(code.lower())) == expected
    assert answer(hint(deal)) == expected  # a deal made from a code plays under its letter too
    other = answer(hint(TriPeaksGame(deal, TriPeaksRules(wrap=not wrap))))  # type: ignore[arg-type]
    assert other != expected  # so the rule letter is what decides


def test_hint_takes_a_deal_string_and_rule_options() -> None:
    deal = TriPeaksDeal.from_seed(0)
    text = str(TriPeaksDeal(deal.tableau, deal.waste, deal.stock))  # no code: a plain deal string
    assert answer(hint(text)) == answer(hint(TriPeaksGame(deal)))
    opened = answer(hint(TriPeaksGame(deal, TriPeaksRules(faces="open"))))
    assert answer(hint(text, rules={"faces": "open"})) == opened != answer(hint(text))
    assert answer(solitaire_env.hint(text, rules=TriPeaksRules(faces="open"))) == opened
    ft = FortyThievesDeal.from_seed(3)
    assert answer(hint(str(ft))) == answer(hint("FT1-N-AAAAAAD")) == answer(hint(FortyThievesGame(ft)))


@pytest.mark.parametrize(
    ("position", "rules", "error", "message"),
    [
        ("TP1-Q-AAAAAAB", None, DealCodeError, "unknown rule 'Q'"),
        ("XX1-E-AAAAAAB", None, DealCodeError, "unknown game 'XX'"),
        ("2C 3C | 4C | 5C", None, DealStringError, "want 28 cards"),
        ("TP1-C-AAAAAAB", {"wrap": True}, ValueError, "contradicts the deal TP1-C-AAAAAAB"),
        ("TP1-E-AAAAAAB", {"jokerz": 1}, ValueError, "unknown TriPeaks rule option 'jokerz'"),
    ],
)
def test_hint_bad_strings_and_rules_are_one_line_value_errors(position, rules, error, message) -> None:
    with pytest.raises(error) as info:
        hint(position, rules=rules)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert not isinstance(info.value, TypeError)


# --------------------------------------------------------------------------- (c) undo keeps knowledge


def test_cards_seen_before_an_undo_stay_known() -> None:
    game = TriPeaksGame(TriPeaksDeal.from_seed(1))
    # play the hint until every card has been seen (this deal gets there), then take every move back
    while not game.all_known:
        assert not game.over
        game.play(public_move(game))  # type: ignore[arg-type]
    while game.undo():
        pass
    assert game.moves > 0 and game.removed == 0 and game.stock_pos == 0
    assert game.all_known  # the face-down cards are face down again, but known
    h = hint(game)
    assert h.reason != REASON_HIDDEN and h.verdict in ("winnable", "unwinnable")
    assert h.verdict == VERDICT_OF_STATUS[solitaire_env.solve(game).status]
    check(game, h)
    # the public heuristic uses the remembered cards too (it "does not pretend not to know")
    assert all(tripeaks_knowledge(game).ranks)


def test_fortythieves_stock_seen_before_an_undo_stays_known() -> None:
    game = FortyThievesGame(FortyThievesDeal.from_seed(2))
    for _ in range(64):
        game.play(FT_DRAW)
    for _ in range(64):
        game.undo()
    assert game.all_known and game.stock_pos == 0
    h = hint(game, max_nodes=1)
    assert h.verdict == "unknown" and h.reason == REASON_BUDGET
    check(game, h)


# --------------------------------------------------------------------------- (d) moves and lines


def test_a_draw_when_no_removal_is_legal() -> None:
    game = TriPeaksGame(TriPeaksDeal.from_seed(1))
    game.play(DRAW)  # the waste is now 8D: nothing on the bottom row follows it
    assert game.legal_mask() == 1 << DRAW
    h = hint(game)
    assert h.action == DRAW and h.name == "draw" and h.verdict == "unknown"


def test_the_heuristic_prefers_a_move_that_turns_a_card_up() -> None:
    # bottom row 6C 5C J J J J 2C 2D 8C 7D on a 7C: remove 6C first; then 5C (slot 19) turns
    # slot 9 face up, while 7D (slot 27) starts a longer known chain (7D, 8C) that turns nothing up
    bottom = [card_id(r, s) for r, s in ((6, 0), (5, 0), (11, 0), (11, 1), (11, 2), (11, 3), (2, 0), (2, 1), (8, 0))]
    bottom.append(card_id(7, 1))
    waste = card_id(7, 0)
    rest = [c for c in range(52) if c not in [*bottom, waste]]
    game = TriPeaksGame(TriPeaksDeal.parse(deal_string(rest[:18] + bottom, waste, rest[18:])))
    game.play(18)
    assert game.removable() == 1 << 19 | 1 << 27
    h = hint(game)
    assert h.action == 19 and h.name == "remove 5C (slot 19)"
    game.play(19)
    assert game.face_up >> 9 & 1


def test_a_winnable_line_replays_to_a_win() -> None:
    game = TriPeaksGame(TriPeaksDeal.parse(winnable_deal(draws_before=3)), OPEN)
    for _ in range(23):
        game.play(DRAW)
    for _ in range(23):
        game.undo()
    h = hint(game)
    assert h.verdict == "winnable" and h.reason == REASON_WIN
    assert h.action == DRAW and game.legal_mask() == 1 << DRAW  # nothing follows the K on the waste
    assert replays_to_win(game, h.line)
    # and Forty Thieves: play the hint until every card is known, then ask
    ft = FortyThievesGame(FortyThievesDeal.from_seed(2))
    while not ft.all_known:
        ft.play(public_move(ft))  # type: ignore[arg-type]
    h = hint(ft)
    assert h.verdict == VERDICT_OF_STATUS[solitaire_env.solve(ft, max_nodes=20_000).status]
    check(ft, h)


def test_a_won_game() -> None:
    game = TriPeaksGame(TriPeaksDeal.parse(winnable_deal()))
    while not game.won:
        game.play(public_move(game))  # type: ignore[arg-type]
    h = hint(game)
    assert (h.action, h.verdict, h.line, h.reason, h.name) == (None, "winnable", (), REASON_WON, "no move")


def test_the_top_level_hint_is_lazy() -> None:
    h = solitaire_env.hint(TriPeaksDeal.from_seed(1))
    assert isinstance(h, Hint) and "hint" in solitaire_env.__all__
    code = "import sys, solitaire_env; assert not {'numba', 'solitaire_env.hints'} & set(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------- (e) the play sessions


def test_play_session_h_shows_the_hint_and_puts_the_cursor_on_it() -> None:
    s = PlaySession(TriPeaksDeal.from_seed(1))
    s.handle("right")
    s.handle("h")
    h = hint(s.game)
    assert h.action is not None and h.action != DRAW
    assert s.cursor == h.action  # the suggested card is highlighted by the cursor ...
    screen = s.screen()
    assert "hint: remove 6♠ (slot 18) [Enter] · unknown: cards are still hidden" in screen
    assert "[6♠]" in screen
    s.handle("enter")  # ... so Enter plays it
    assert s.game.removed == 1 << h.action
    s.handle("esc")
    assert "hint:" not in s.screen()
    s.handle("d")
    s.handle("h")
    assert "hint: draw [D] · unknown" in s.screen()


def test_play_session_h_on_an_unwinnable_position_offers_the_exits() -> None:
    s = PlaySession(TriPeaksDeal.from_seed(1), rules=OPEN)
    for _ in range(23):
        s.handle("d")
    s.handle("h")
    screen = s.screen()
    assert "hint: unwinnable: every card is known and no line wins from here" in screen
    assert "best try: remove" in screen and "exits: U undo · H hint · R replay same deal · N new deal" in screen
    assert s.cursor == hint(s.game).action


def test_fortythieves_session_h_shows_the_hint() -> None:
    s = FortyThievesSession(FortyThievesDeal.from_seed(1))
    s.handle("h")
    assert "hint: move A♠ from column 5 to the foundations [type 5 f] · unknown" in s.screen()
    assert s.cursor == 4
    s.handle("5")
    s.handle("f")
    assert s.game.founded == 1
    for _ in range(100):  # follow the hint until it says draw
        action = hint(s.game).action
        if action == FT_DRAW:
            break
        s.game.play(action)  # type: ignore[arg-type]
    s.handle("h")
    assert "hint: draw [D] · unknown" in s.message
