"""The TriPeaks env specifics: reset options, actions, illegal actions, rewards, rule and
scoring options, the observation layouts decoded back, the public view and the text drawing."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from conftest import CLEAR_ORDER, TRIPEAKS_ID, assert_same, deal_string, legal_actions, winnable_deal

import solitaire_env
from solitaire_env import DealCodeError, DealStringError, TriPeaksDeal
from solitaire_env.common.cards import JOKER, card_symbol, card_text, rank_of
from solitaire_env.common.env import IllegalActionError
from solitaire_env.common.render import CARD_BACK
from solitaire_env.tripeaks import observe as ob
from solitaire_env.tripeaks.rules import BOTTOM_SLOTS, TriPeaksRules
from solitaire_env.tripeaks.scoring import APP, CLASSIC, STREAK, TriPeaksPointScoring

DRAW = 28


def make(**kwargs):
    return gym.make(TRIPEAKS_ID, **kwargs)


def first_seed(pred, rules=None):
    """The first seed whose deal code, played under ``rules``, satisfies ``pred(base_env)``."""
    env = make(**(rules or {}))
    letter = "E" if (rules or {}).get("wrap", True) else "C"
    for seed in range(2000):
        env.reset(options={"deal_code": code_of(seed, letter)})
        if pred(env.unwrapped):
            return seed
    raise AssertionError("no such deal among 2000 seeds")


def code_of(seed, rule="E"):
    return f"TP1-{rule}-{solitaire_env.common.deals.encode_seed(seed)}"


def snapshot(env):
    base = env.unwrapped
    game = base.game
    return (
        base.public_view(),
        base.action_masks().copy(),
        game.removed,
        game.face_up,
        game.exposed,
        game.stock_pos,
        list(game.waste),
        game.score,
        game.moves,
        game.chain,
        game.longest_chain,
        game.seen_slots,
        game.stock_seen,
    )


# --------------------------------------------------------------------------- spaces and actions


def test_action_space_and_draw_action():
    env = make()
    assert env.action_space == gym.spaces.Discrete(29)
    assert env.unwrapped.num_actions == 29
    _, info = env.reset(seed=0)
    base = env.unwrapped
    assert base.action_name(DRAW) == "draw"
    stock = base.game.stock_count
    assert stock == 23
    _, reward, terminated, _, info = env.step(DRAW)
    assert base.game.stock_count == 22 and info["moves"] == 1 and info["chain"] == 0
    assert base.public_view()["waste"] == card_text(base.game.stock[0])
    assert reward == -1.0 and not terminated  # app scoring: a draw costs 1


def test_action_names_never_name_a_face_down_card():
    env = make()
    env.reset(seed=1)
    base = env.unwrapped
    game = base.game
    for s in BOTTOM_SLOTS:
        assert base.action_name(s) == f"remove {card_text(game.tableau[s])} (slot {s})"
    for s in range(18):
        name = base.action_name(s)
        assert name == f"remove ?? (slot {s})"
        assert card_text(game.tableau[s]) not in name
    assert base.action_name(np.int64(DRAW)) == "draw"
    with pytest.raises(ValueError):
        base.action_name(29)


def test_action_name_example_from_the_docs():
    # slot 13 (row 3) holds 7S; every other card is any other card
    seven_spades = 3 * 13 + 6
    rest = [c for c in range(52) if c != seven_spades]
    tableau = [*rest[:13], seven_spades, *rest[13:27]]
    deal = deal_string(tableau, rest[27], rest[28:])
    env = make(faces="open")
    env.reset(options={"deal": deal})
    assert env.unwrapped.action_name(13) == "remove 7S (slot 13)"


# --------------------------------------------------------------------------- reset options


def test_deal_code_option_is_case_insensitive_and_canonical():
    env = make()
    _, info = env.reset(options={"deal_code": " tp1-n-aaaaaab "})
    assert info["deal_code"] == "TP1-E-AAAAAAB"
    assert env.unwrapped.game.tableau == TriPeaksDeal.from_seed(1).tableau
    assert env.unwrapped.game.rules.wrap is True


def test_random_episode_code_carries_the_env_wrap_rule():
    assert make(wrap=True).reset(seed=0)[1]["deal_code"].startswith("TP1-E-")
    assert make(wrap=False).reset(seed=0)[1]["deal_code"].startswith("TP1-C-")
    # same seed, same layout: the rule letter never changes the cards
    a, b = make(wrap=True), make(wrap=False)
    a.reset(seed=0)
    b.reset(seed=0)
    assert a.unwrapped.game.tableau == b.unwrapped.game.tableau
    assert a.unwrapped.game.stock == b.unwrapped.game.stock


def _king_ace_seed():
    """A seed whose opening waste is a K with an exposed A (or the reverse)."""

    def pred(base):
        game = base.game
        top = rank_of(game.waste[-1])
        bottom = {rank_of(game.tableau[s]) for s in BOTTOM_SLOTS}
        return (top == 13 and 1 in bottom) or (top == 1 and 13 in bottom)

    return first_seed(pred)


@pytest.mark.parametrize("env_wrap", [True, False])
def test_rule_letter_sets_wrap_whatever_the_env_kwarg(env_wrap):
    seed = _king_ace_seed()
    env = make(wrap=env_wrap)
    _, info_e = env.reset(options={"deal_code": code_of(seed, "E")})
    game_e = env.unwrapped.game
    top = rank_of(game_e.waste[-1])
    other = 1 if top == 13 else 13
    slots = [s for s in BOTTOM_SLOTS if rank_of(game_e.tableau[s]) == other]
    assert slots
    assert game_e.rules.wrap is True
    assert all(info_e["action_mask"][s] == 1 for s in slots)
    view_e = env.unwrapped.public_view()
    _, info_c = env.reset(options={"deal_code": code_of(seed, "c")})
    game_c = env.unwrapped.game
    assert info_c["deal_code"] == code_of(seed, "C")
    assert game_c.rules.wrap is False
    assert all(info_c["action_mask"][s] == 0 for s in slots)
    assert env.unwrapped.public_view()["tableau"] == view_e["tableau"]
    assert (game_c.tableau, game_c.stock) == (game_e.tableau, game_e.stock)
    # the other rule options stay the env's
    assert game_c.rules.draw == game_e.rules.draw == "anytime"


@pytest.mark.parametrize("env_wrap", [True, False])
def test_env_rules_describe_the_rules_in_play(env_wrap):
    """``env.unwrapped.rules`` is what the episode plays by: a code's rule letter sets ``wrap``;
    a seed, a deal string or a code of the env's own letter brings back the env's own rules
    (``configured_rules``, what ``gym.make`` was given)."""
    own = TriPeaksRules(wrap=env_wrap, draw="when_stuck", jokers=1)
    env = make(wrap=env_wrap, draw="when_stuck", jokers=1)
    base = env.unwrapped
    assert base.rules == base.configured_rules == own
    other, mine = ("C", "E") if env_wrap else ("E", "C")
    text = str(TriPeaksDeal.from_seed(3, jokers=1))

    def check(want_wrap):
        assert base.rules == base.game.rules
        assert base.rules.wrap is want_wrap
        assert (base.rules.draw, base.rules.jokers, base.rules.faces) == ("when_stuck", 1, "standard")
        assert base.configured_rules == own

    env.reset(options={"deal_code": code_of(7, other)})
    check(not env_wrap)
    env.reset(options={"deal_code": code_of(7, mine)})
    check(env_wrap)
    env.reset(options={"deal_code": code_of(8, other)})
    env.reset(seed=1)  # a random code: the env's own letter
    check(env_wrap)
    assert env.reset(seed=2)[1]["deal_code"].startswith(f"TP1-{mine}-")
    env.reset(options={"deal_code": code_of(9, other)})
    env.reset(options={"deal": text})  # a deal string: the env's own rules
    check(env_wrap)
    env.reset(options={"deal_code": code_of(9, other)})
    with pytest.raises(DealCodeError):  # a failed reset keeps the episode, and its rules
        env.reset(options={"deal_code": "TP1-X-AAAAAAB"})
    check(not env_wrap)


def test_deal_option_with_a_string_and_an_object():
    text = winnable_deal()
    deal = TriPeaksDeal.parse(text)
    env = make()
    # the string may be in lower case and use 10 for T: the info reports the canonical string
    messy = text.lower().replace("t", "10")
    _, info = env.reset(options={"deal": messy})
    assert info["deal_code"] == str(deal) == text
    assert env.unwrapped.game.tableau == deal.tableau
    _, info = env.reset(options={"deal": deal})
    assert info["deal_code"] == text
    # a hand-made deal plays under the env's own rules
    env_c = make(wrap=False, draw="when_stuck")
    env_c.reset(options={"deal": text})
    assert env_c.unwrapped.game.rules == TriPeaksRules(wrap=False, draw="when_stuck")


def test_deal_object_from_a_code_reports_a_handle_that_reproduces_it():
    """A deal object made from a code plays under the env's rules, so its info names the cards
    (the deal string), never a code whose rule letter could disagree with the env's wrap."""
    env = make(wrap=True)
    deal = TriPeaksDeal.from_seed(5, rule="C")
    first = env.reset(options={"deal": deal})
    assert env.unwrapped.game.rules.wrap is True
    assert first[1]["deal_code"] == str(deal)
    replay = make(wrap=True)
    assert_same(replay.reset(options={"deal": first[1]["deal_code"]}), first)
    assert replay.unwrapped.game.rules == env.unwrapped.game.rules
    assert replay.unwrapped.game.stock == env.unwrapped.game.stock


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"deal_code": "FT1-N-AAAAAAB"}, DealCodeError, "game FT"),
        ({"deal_code": "TP1-X-AAAAAAB"}, DealCodeError, "unknown rule"),
        ({"deal_code": "TP1-E-AAAAAA"}, DealCodeError, "7 characters"),
        ({"deal_code": "TP1-E-AAAAAA0"}, DealCodeError, "base32"),
        ({"deal_code": "TP2-E-AAAAAAB"}, DealCodeError, "version"),
        ({"deal_code": "nonsense"}, DealCodeError, "three parts"),
        ({"deal": "AC 2C | 3C | 4C"}, DealStringError, "28 cards"),
        ({"deal": 42}, DealStringError, "TriPeaks deal"),
        ({"deal": winnable_deal().replace("KD", "AC", 1)}, DealStringError, "exactly once"),
        ({"deal": winnable_deal() + " JK"}, DealStringError, "joker"),
        ({"deal_code": "TP1-E-AAAAAAB", "deal": winnable_deal()}, ValueError, "not both"),
        ({"seed": 3}, ValueError, "unknown reset option"),
    ],
)
def test_bad_reset_options_raise_and_keep_the_episode(options, error, match):
    env = make()
    _, info = env.reset(seed=0)
    env.step(int(legal_actions(info["action_mask"])[0]))
    before = snapshot(env)
    with pytest.raises(error, match=match):
        env.reset(options=options)
    assert_same(snapshot(env), before)
    assert issubclass(error, ValueError)
    _, _, _, _, info = env.step(DRAW)  # the running episode goes on
    assert "illegal_reason" not in info and info["moves"] == 2


def test_jokers_in_deal_must_match_the_rules():
    deal = TriPeaksDeal.from_seed(3, jokers=1)
    with pytest.raises(DealStringError, match="joker"):
        make(jokers=0).reset(options={"deal": str(deal)})
    _, info = make(jokers=1).reset(options={"deal": str(deal)})
    assert info["deal_code"] == str(deal)


# --------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(("reward", "penalty"), [("score", -1.0), ("win", -0.01), ("progress", -0.1)])
def test_penalize_default_penalties_and_nothing_changes(reward, penalty):
    env = make(reward=reward, obs_mode="dict")
    obs, info = env.reset(seed=4)
    before = snapshot(env)
    obs2, r, terminated, truncated, info2 = env.step(0)  # apex: face down
    assert r == penalty and isinstance(r, float)
    assert not terminated and not truncated
    assert info2["illegal_reason"] == "face_down"
    assert info2["illegal_message"] == "this card is still face down"
    assert_same(obs2, obs)
    assert_same(snapshot(env), before)
    assert np.array_equal(info2["action_mask"], info["action_mask"])
    assert {k: v for k, v in info2.items() if k not in ("illegal_reason", "illegal_message")}.keys() == info.keys()


def test_custom_penalty_and_callable_reward_penalty():
    env = make(illegal_penalty=-2.5)
    env.reset(seed=4)
    assert env.step(0)[1] == -2.5
    env = make(reward=lambda ds, dp, won: 0.0)
    env.reset(seed=4)
    assert env.step(0)[1] == -0.1


def test_raise_policy():
    env = make(illegal_action="raise")
    env.reset(seed=4)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="face_down: this card is still face down") as exc:
        env.step(0)
    assert isinstance(exc.value, ValueError) and exc.value.reason == "face_down"
    assert_same(snapshot(env), before)
    # the episode goes on
    action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    _, _, _, _, info = env.step(action)
    assert info["moves"] == 1


def test_terminate_policy():
    env = make(illegal_action="terminate")
    obs, _ = env.reset(seed=4)
    before = snapshot(env)
    obs2, reward, terminated, truncated, info = env.step(5)
    assert terminated and not truncated and reward == -1.0
    assert info["illegal_reason"] == "face_down"
    assert_same(obs2, obs)
    assert_same(snapshot(env), before)


def _reason_after(env, actions, action):
    for a in actions:
        _, _, _, _, info = env.step(a)
        assert "illegal_reason" not in info, (a, info)
    _, reward, terminated, _, info = env.step(action)
    return info.get("illegal_reason"), reward, terminated


def test_every_illegal_reason_is_reachable_through_the_env():
    reasons = {}
    # face_down: an apex at the start
    env = make()
    env.reset(seed=0)
    reasons["face_down"] = _reason_after(env, [], 0)[0]
    # covered: open faces show every card, the apex is still covered
    env = make(faces="open")
    env.reset(seed=0)
    reasons["covered"] = _reason_after(env, [], 0)[0]
    # not_adjacent: a bottom card one rank away from nothing
    env = make()
    _, info = env.reset(seed=0)
    blocked = [s for s in BOTTOM_SLOTS if not info["action_mask"][s]]
    reasons["not_adjacent"] = _reason_after(env, [], blocked[0])[0]
    # removed: a card removed twice
    env = make(faces="open")
    seed = first_seed(lambda b: b.game.removable() != 0, {"faces": "open"})
    _, info = env.reset(options={"deal_code": code_of(seed)})
    slot = int(legal_actions(info["action_mask"])[0])
    reasons["removed"] = _reason_after(env, [slot], slot)[0]
    # stock_empty: all 23 drawn, a removal still legal
    seed = first_seed(lambda b: [b.game.try_play(DRAW) for _ in range(23)] and not b.game.over)
    env = make()
    env.reset(options={"deal_code": code_of(seed)})
    reasons["stock_empty"] = _reason_after(env, [DRAW] * 23, DRAW)[0]
    # draw_not_allowed: draw only when stuck, and a removal is legal
    env = make(draw="when_stuck")
    seed = first_seed(lambda b: b.game.removable() != 0, {"draw": "when_stuck"})
    _, info = env.reset(options={"deal_code": code_of(seed)})
    assert info["action_mask"][DRAW] == 0
    reasons["draw_not_allowed"] = _reason_after(env, [], DRAW)[0]
    # game_over: any action after the end
    env = make()
    seed = first_seed(lambda b: [b.game.try_play(DRAW) for _ in range(23)] and b.game.over)
    env.reset(options={"deal_code": code_of(seed)})
    for _ in range(23):
        _, _, terminated, _, info = env.step(DRAW)
    assert terminated and not info["action_mask"].any()
    with pytest.warns(UserWarning, match="after this episode ended"):  # a step after the end
        reason, reward, terminated = _reason_after(env, [], 20)
    reasons["game_over"] = reason
    assert terminated and reward == -1.0
    assert reasons == {r: r for r in solitaire_env.tripeaks.game.REASONS}


# --------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("scoring", ["app", "classic", "streak"])
def test_score_reward_is_the_score_change(scoring):
    env = make(scoring=scoring)
    start = {"app": 500, "classic": 0, "streak": 0}[scoring]
    rng = np.random.default_rng(0)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        assert info["score"] == start
        score, total, done = start, 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal_actions(info["action_mask"]))))
            assert reward == info["score"] - score
            score = info["score"]
            total += reward
            done = terminated or truncated
        assert total == info["score"] - start


@pytest.mark.parametrize(
    ("scoring", "final"),
    [("app", 500 - 28 + 300), ("classic", sum(range(1, 29)) + 15 + 15 + 30), ("streak", 406 + 15 + 30 + 45 + 100)],
)
def test_win_through_the_env(scoring, final):
    env = make(scoring=scoring)
    _, info = env.reset(options={"deal": winnable_deal()})
    for i, slot in enumerate(CLEAR_ORDER):
        assert info["action_mask"][slot] == 1
        _, _, terminated, truncated, info = env.step(slot)
        assert terminated == (i == 27) and not truncated
    view = env.unwrapped.public_view()
    assert view["won"] is True and view["over"] is True
    assert view["tableau"] == [None] * 28 and view["stock_count"] == 23
    assert info["cleared"] == 28 and info["chain"] == 28 and info["longest_chain"] == 28
    assert info["score"] == final and info["moves"] == 28
    assert not info["action_mask"].any()
    with pytest.warns(UserWarning, match="after this episode ended"):
        _, _, terminated, _, info = env.step(DRAW)
    assert terminated and info["illegal_reason"] == "game_over"


def test_win_after_drawing_the_whole_stock_scores_749():
    env = make()
    env.reset(options={"deal": winnable_deal(draws_before=23)})
    for _ in range(23):
        _, _, terminated, _, info = env.step(DRAW)
        assert not terminated
    for slot in CLEAR_ORDER:
        _, _, terminated, _, info = env.step(slot)
    assert terminated and info["score"] == 749 and env.unwrapped.public_view()["won"]


def test_win_reward():
    env = make(reward="win")
    env.reset(options={"deal": winnable_deal(draws_before=2)})
    rewards = [env.step(a)[1] for a in [DRAW, DRAW, *CLEAR_ORDER]]
    assert rewards == [0.0] * 29 + [1.0]
    # a lost game never earns anything
    seed = first_seed(lambda b: [b.game.try_play(DRAW) for _ in range(23)] and b.game.over)
    env.reset(options={"deal_code": code_of(seed)})
    rewards = [env.step(DRAW)[1] for _ in range(23)]
    assert rewards == [0.0] * 23 and env.unwrapped.game.over and not env.unwrapped.game.won


@pytest.mark.parametrize("win_bonus", [10.0, 3.5])
def test_progress_reward(win_bonus):
    env = make(reward="progress", win_bonus=win_bonus)
    env.reset(options={"deal": winnable_deal(draws_before=1)})
    rewards = [env.step(a)[1] for a in [DRAW, *CLEAR_ORDER]]
    assert rewards == [0.0] + [1.0] * 27 + [1.0 + win_bonus]


def test_callable_reward_gets_score_change_progress_change_and_won():
    calls = []

    def reward(d_score, d_progress, won):
        calls.append((d_score, d_progress, won))
        return 0.25 * d_progress

    env = make(reward=reward, scoring="classic")
    env.reset(options={"deal": winnable_deal(draws_before=1)})
    rewards = [env.step(a)[1] for a in [DRAW, *CLEAR_ORDER]]
    assert calls[0] == (-5, 0, False)
    assert calls[1] == (1, 1, False) and calls[2] == (2, 1, False)
    assert calls[-1] == (28 + 30, 1, True)  # 28th of the chain, third apex
    assert rewards == [0.0] + [0.25] * 28


# --------------------------------------------------------------------------- options reach the game


def test_every_rule_and_scoring_option_reaches_the_game():
    scoring = TriPeaksPointScoring(name="mine", start=7, draw_points=-2)
    env = make(wrap=False, draw="when_stuck", faces="open", waste_start="empty", jokers=2, scoring=scoring)
    _, info = env.reset(seed=0)
    game = env.unwrapped.game
    assert game.rules == TriPeaksRules(wrap=False, draw="when_stuck", faces="open", waste_start="empty", jokers=2)
    assert game.scoring is scoring and info["score"] == 7
    assert info["deal_code"].startswith("TP1-C-")
    for name, preset in (("app", APP), ("classic", CLASSIC), ("streak", STREAK)):
        env = make(scoring=name)
        env.reset(seed=0)
        assert env.unwrapped.game.scoring == preset


def test_faces_open_shows_every_card():
    env = make(faces="open")
    env.reset(seed=3)
    base = env.unwrapped
    view = base.public_view()
    assert "??" not in view["tableau"]
    assert view["tableau"] == [card_text(c) for c in base.game.tableau]
    assert sorted(base.game.unseen_cards()) == sorted(base.game.stock)


def test_waste_start_empty():
    env = make(waste_start="empty")
    _, info = env.reset(seed=3)
    view = env.unwrapped.public_view()
    assert view["waste"] is None and view["stock_count"] == 24
    assert [int(x) for x in legal_actions(info["action_mask"])] == [*BOTTOM_SLOTS, DRAW]
    deal = TriPeaksDeal.from_seed(env.unwrapped.game.deal.code.seed)
    assert env.unwrapped.game.stock == (deal.waste, *deal.stock)


@pytest.mark.parametrize("jokers", [1, 2])
def test_jokers(jokers):
    env = make(jokers=jokers)
    _, info = env.reset(seed=6)
    game = env.unwrapped.game
    assert game.stock.count(JOKER) == jokers and game.stock_count == 23 + jokers
    first = game.stock.index(JOKER)
    for _ in range(first + 1):
        _, _, _, _, info = env.step(DRAW)
    assert env.unwrapped.public_view()["waste"] == "JK"
    assert [int(x) for x in legal_actions(info["action_mask"])] == [*BOTTOM_SLOTS, DRAW]


def test_draw_when_stuck_masks_the_draw_while_a_removal_is_legal():
    env = make(draw="when_stuck")
    rng = np.random.default_rng(0)
    seen_both = Counter()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = info["action_mask"]
            removal = mask[:DRAW].any()
            assert mask[DRAW] == (not removal and env.unwrapped.game.stock_count > 0)
            seen_both[bool(removal)] += 1
            _, _, terminated, truncated, info = env.step(int(rng.choice(legal_actions(mask))))
            done = terminated or truncated
    assert seen_both[True] > 20 and seen_both[False] > 20


@pytest.mark.filterwarnings("ignore:.*render_mode")
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"wrap": "yes"}, "wrap must be True or False"),
        ({"draw": "sometimes"}, "draw must be"),
        ({"faces": "closed"}, "faces must be"),
        ({"waste_start": "none"}, "waste_start must be"),
        ({"jokers": 3}, "jokers must be 0, 1 or 2"),
        ({"jokers": True}, "jokers must be 0, 1 or 2"),
        ({"scoring": "vegas"}, "unknown scoring 'vegas'"),
        ({"scoring": 5}, "scoring must be"),
        ({"reward": "money"}, "unknown reward 'money'"),
        ({"reward": 5}, "reward must be"),
        ({"obs_mode": "image"}, "unknown observation mode 'image'"),
        ({"illegal_action": "ignore"}, "unknown illegal_action 'ignore'"),
        ({"render_mode": "video"}, "unknown render_mode 'video'"),
    ],
)
def test_invalid_kwargs_raise_at_make(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make(**kwargs)


# --------------------------------------------------------------------------- observation layouts

RULE_SETS = [
    {},
    {"wrap": False, "draw": "when_stuck"},
    {"faces": "open", "scoring": "classic"},
    {"waste_start": "empty", "jokers": 1},
    {"jokers": 2, "scoring": "streak"},
    {"waste_start": "empty", "faces": "open", "jokers": 2, "wrap": False},
]


def test_documented_sizes():
    assert ob.FLAT_SIZE == 607 and ob.ORACLE_SIZE == 1551
    assert (ob.WASTE_OFFSET, ob.STOCK_OFFSET, ob.UNSEEN_OFFSET) == (532, 551, 552)
    assert (ob.JOKERS_OFFSET, ob.CHAIN_OFFSET, ob.CLEARED_OFFSET) == (604, 605, 606)
    assert (ob.ORACLE_TABLEAU_OFFSET, ob.ORACLE_STOCK_OFFSET) == (607, 607 + 28 * 17)
    assert make().observation_space == gym.spaces.Box(0.0, 1.0, (607,), np.float32)
    assert make(obs_mode="oracle").observation_space.shape == (1551,)
    space = make(obs_mode="oracle_dict").observation_space
    assert set(space.spaces) == {"tableau", "waste", "unseen", "counts", "hidden_tableau", "stock"}
    assert set(make(obs_mode="dict").observation_space.spaces) == {"tableau", "waste", "unseen", "counts"}


def _one_hot(vec):
    ones = np.flatnonzero(vec)
    assert len(ones) == 1 and vec[ones[0]] == 1.0, vec
    return int(ones[0])


def _exact(x, scale):
    value = float(x) * scale
    assert abs(value - round(value)) < 1e-4, (x, scale)
    return round(value)


def decode_flat(obs):
    """The public facts a flat observation holds, read back through the documented offsets."""
    assert obs.shape == (ob.FLAT_SIZE,) and obs.dtype == np.float32
    tableau = []
    for s in range(28):
        row = obs[ob.SLOT_SIZE * s : ob.SLOT_SIZE * (s + 1)]
        if row[1] == 1.0:
            assert row.sum() == 1.0
            tableau.append(None)
        elif row[0] == 1.0:
            assert row.sum() == 1.0
            tableau.append("??")
        else:
            tableau.append(card_text(_one_hot(row[15:19]) * 13 + _one_hot(row[2:15])))
    w = obs[ob.WASTE_OFFSET : ob.WASTE_OFFSET + 19]
    if w[18] == 1.0:
        assert w.sum() == 1.0
        waste = None
    elif w[17] == 1.0:
        assert w.sum() == 1.0
        waste = "JK"
    else:
        assert w.sum() == 2.0
        waste = card_text(_one_hot(w[13:17]) * 13 + _one_hot(w[0:13]))
    unseen_block = obs[ob.UNSEEN_OFFSET : ob.JOKERS_OFFSET]
    assert set(np.unique(unseen_block)) <= {0.0, 1.0}
    return {
        "tableau": tableau,
        "waste": waste,
        "stock_count": _exact(obs[ob.STOCK_OFFSET], 26),
        "unseen": sorted(np.flatnonzero(unseen_block).tolist()),
        "unseen_jokers": _exact(obs[ob.JOKERS_OFFSET], 2),
        "chain": _exact(obs[ob.CHAIN_OFFSET], 28),
        "cleared": _exact(obs[ob.CLEARED_OFFSET], 28),
    }


def _code_text(code, face_down, gone):
    if code == face_down:
        return "??"
    if code == gone:
        return None
    return card_text(code)


def decode_dict(obs):
    counts = obs["counts"]
    assert obs["tableau"].shape == (28,) and obs["unseen"].shape == (52,) and obs["unseen"].dtype == np.int8
    return {
        "tableau": [_code_text(int(c), 52, 53) for c in obs["tableau"]],
        "waste": None if obs["waste"] == 53 else card_text(int(obs["waste"])),
        "stock_count": _exact(counts[0], 26),
        "unseen": sorted(np.flatnonzero(obs["unseen"]).tolist()),
        "unseen_jokers": _exact(counts[3], 2),
        "chain": _exact(counts[1], 28),
        "cleared": _exact(counts[2], 28),
    }


def facts_of(game):
    """The same facts, from the game itself."""
    view = game.public_view()
    unseen = game.unseen_cards()
    return {
        "tableau": view["tableau"],
        "waste": view["waste"],
        "stock_count": view["stock_count"],
        "unseen": sorted(c for c in unseen if c != JOKER),
        "unseen_jokers": unseen.count(JOKER),
        "chain": view["chain"],
        "cleared": view["cleared"],
    }


def decode_oracle(obs):
    tab = obs[ob.ORACLE_TABLEAU_OFFSET : ob.ORACLE_STOCK_OFFSET].reshape(28, ob.ORACLE_SLOT_SIZE)
    stock = obs[ob.ORACLE_STOCK_OFFSET :].reshape(ob.MAX_STOCK, ob.ORACLE_STOCK_SIZE)
    cards = [None if not row.any() else _one_hot(row[13:17]) * 13 + _one_hot(row[0:13]) for row in tab]
    rest = []
    for row in stock:
        if not row.any():
            break
        if row[17] == 1.0:
            assert row.sum() == 1.0
            rest.append(JOKER)
        else:
            assert row.sum() == 2.0
            rest.append(_one_hot(row[13:17]) * 13 + _one_hot(row[0:13]))
    assert not stock[len(rest) :].any()
    return cards, rest


def oracle_facts(game):
    cards = [None if game.removed >> s & 1 else c for s, c in enumerate(game.tableau)]
    return cards, list(game.stock[game.stock_pos :])


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_observations_decode_to_the_public_view_at_every_step(rules):
    envs = {mode: make(obs_mode=mode, **rules) for mode in ("flat", "dict", "oracle", "oracle_dict")}
    rng = np.random.default_rng(len(rules))
    steps = 0
    for seed in range(6):
        results = {mode: env.reset(seed=seed) for mode, env in envs.items()}
        done = False
        while True:
            game = envs["flat"].unwrapped.game
            facts = facts_of(game)
            obs = {mode: r[0] for mode, r in results.items()}
            assert decode_flat(obs["flat"]) == facts
            assert decode_dict(obs["dict"]) == facts
            assert decode_flat(obs["oracle"][: ob.FLAT_SIZE]) == facts
            assert np.array_equal(obs["oracle"][: ob.FLAT_SIZE], obs["flat"])
            assert decode_oracle(obs["oracle"]) == oracle_facts(game)
            for key in ("tableau", "waste", "unseen", "counts"):
                assert_same(obs["oracle_dict"][key], obs["dict"][key])
            hidden = [53 if c is None else c for c in oracle_facts(game)[0]]
            assert obs["oracle_dict"]["hidden_tableau"].tolist() == hidden
            rest = oracle_facts(game)[1]
            assert obs["oracle_dict"]["stock"].tolist() == rest + [53] * (26 - len(rest))
            # the face-down flags and the view agree with the game's own bit masks
            for s in range(28):
                if game.removed >> s & 1:
                    assert facts["tableau"][s] is None
                elif game.face_up >> s & 1:
                    assert facts["tableau"][s] == card_text(game.tableau[s])
                else:
                    assert facts["tableau"][s] == "??"
            if done:
                break
            info = results["flat"][-1]
            mask = info["action_mask"]
            action = int(rng.choice(legal_actions(mask))) if rng.random() < 0.9 else int(rng.integers(29))
            results = {mode: env.step(action) for mode, env in envs.items()}
            steps += 1
            done = results["flat"][2] or results["flat"][3]
            for r in results.values():
                assert_same(r[1:], results["flat"][1:])
    assert steps > 100


def test_unseen_cards_at_the_start():
    env = make(obs_mode="dict")
    obs, _ = env.reset(seed=8)
    game = env.unwrapped.game
    # 18 face-down cards and 23 stock cards: everything but the 10 bottom cards and the waste
    assert int(obs["unseen"].sum()) == 41
    shown = {game.tableau[s] for s in BOTTOM_SLOTS} | {game.waste[-1]}
    assert set(np.flatnonzero(obs["unseen"]).tolist()) == set(range(52)) - shown
    # drawing a card shows it: it leaves the unseen set
    obs, *_ = env.step(DRAW)
    assert obs["unseen"][game.stock[0]] == 0 and int(obs["unseen"].sum()) == 40


def test_unseen_with_empty_waste_start_and_jokers():
    env = make(obs_mode="dict", waste_start="empty", jokers=2)
    obs, _ = env.reset(seed=8)
    # the deal's waste card is the first stock card: unseen; and two jokers are unseen
    assert int(obs["unseen"].sum()) == 42 and obs["counts"][3] == 1.0
    assert obs["waste"] == 53


# --------------------------------------------------------------------------- public view and text


def test_public_view_is_json_and_complete():
    env = make()
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    done = False
    while not done:
        view = env.unwrapped.public_view()
        assert json.loads(json.dumps(view)) == view
        keys = {"tableau", "waste", "stock_count", "score", "moves", "cleared", "chain", "longest_chain"}
        assert keys | {"won", "over"} <= view.keys()
        assert len(view["tableau"]) == 28
        assert all(t is None or t == "??" or (isinstance(t, str) and len(t) == 2) for t in view["tableau"])
        for key in ("score", "moves", "cleared", "chain", "longest_chain"):
            assert view[key] == info[key]
        _, _, terminated, truncated, info = env.step(int(rng.choice(legal_actions(info["action_mask"]))))
        done = terminated or truncated


def test_ansi_shows_backs_never_hidden_cards_and_the_counters():
    env = make(render_mode="ansi")
    env.reset(seed=12)
    game = env.unwrapped.game
    text = env.render()
    assert text.count(CARD_BACK) == 18
    hidden = [game.tableau[s] for s in range(18)] + list(game.stock)
    for card in hidden:
        assert card_symbol(card) not in text
    for s in BOTTOM_SLOTS:
        assert card_symbol(game.tableau[s]) in text
    assert f"waste {card_symbol(game.waste[-1])}" in text
    assert "stock 23" in text and "score 500" in text and "moves 0" in text and "cleared 0/28" in text
    # after a win: no backs, the counters and the message
    env.reset(options={"deal": winnable_deal()})
    for slot in CLEAR_ORDER:
        env.step(slot)
    text = env.render()
    assert CARD_BACK not in text
    assert "score 772" in text and "cleared 28/28" in text and "chain 28 (longest 28)" in text
    assert "won" in text.lower()


def test_ansi_turns_cards_up_as_they_are_exposed():
    env = make(render_mode="ansi")
    env.reset(options={"deal": winnable_deal()})
    game = env.unwrapped.game
    for slot in CLEAR_ORDER[:12]:  # the bottom row, then row-3 cards 9 and 10
        env.step(slot)
    text = env.render()
    face_up = [s for s in range(28) if not game.removed >> s & 1 and game.face_up >> s & 1]
    assert face_up == [3, *range(11, 18)]  # slot 3 lies under 9 and 10 only
    assert text.count(CARD_BACK) == 8
    for s in (0, 1, 2, 4, 5, 6, 7, 8):
        assert card_symbol(game.tableau[s]) not in text
    assert card_symbol(game.tableau[3]) in text


# --------------------------------------------------------------------------- the user's guide runs


def test_environment_guide_examples_run(capsys):
    guide = Path(__file__).resolve().parents[2] / "docs" / "environments.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 8
    for block in blocks:
        exec(compile(block, str(guide), "exec"), {"__name__": "__guide__"})
    out = capsys.readouterr().out
    assert "TP1-C-AAAAAAB False" in out and "(268, 486, 3) uint8" in out
    assert "['remove ?? (slot 0)', 'remove 6S (slot 18)', 'draw']" in out
    assert "False True\n" in out and "invalid action 3.5 (float): want an integer 0..28" in out
    assert "1 -1.0 True game_over" in out
