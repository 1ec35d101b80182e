"""The Forty Thieves env specifics: spaces and actions, rewards, illegal-action policies, the
observation layouts decoded back at every step, the public view, the text drawing and the end of
an episode (win, dead end, the repetition rule, the step limit)."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import (
    FORTYTHIEVES_ID,
    FT_DRAW,
    FT_EMPTY_COLUMN_10,
    FT_FOUNDATION,
    FT_MOVE_DEAL,
    FT_STUCK_DEAL,
    FT_WASTE,
    assert_same,
    ft_deal,
    ft_example_win,
    ft_move,
    legal_actions,
)

import solitaire_env
from solitaire_env.common.cards import card_text
from solitaire_env.common.env import IllegalActionError
from solitaire_env.fortythieves import observe as ob
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.env import FortyThievesEnv
from solitaire_env.fortythieves.game import REASONS, FortyThievesGame
from solitaire_env.fortythieves.rules import FOUNDATION_SUITS, FortyThievesRules, FortyThievesScoring

EXAMPLE_DEAL, EXAMPLE_LINE = ft_example_win()
MOVE_DEAL, STUCK_DEAL, EMPTY_COLUMN_10 = FT_MOVE_DEAL, FT_STUCK_DEAL, FT_EMPTY_COLUMN_10


def make(**kwargs):
    return gym.make(FORTYTHIEVES_ID, **kwargs)


def found(src):
    return ft_move(src, FT_FOUNDATION)


def back(f, dst):
    return ft_move(11 + f, dst)


def start(env, deal=MOVE_DEAL):
    return env.reset(options={"deal": str(deal)})


# --------------------------------------------------------------------------- spaces and actions


def test_registration_and_spaces():
    env = make()
    assert env.spec.id == FORTYTHIEVES_ID
    assert env.spec.max_episode_steps == solitaire_env.FORTYTHIEVES_MAX_STEPS == 1000
    assert isinstance(env.unwrapped, FortyThievesEnv)
    assert env.action_space == gym.spaces.Discrete(210)
    assert env.unwrapped.num_actions == 210
    assert env.observation_space == gym.spaces.Box(0.0, 1.0, (3897,), np.float32)
    assert make(obs_mode="oracle").observation_space == gym.spaces.Box(0.0, 1.0, (4985,), np.float32)
    dict_space = make(obs_mode="dict").observation_space
    assert set(dict_space.spaces) == {"columns", "waste", "foundations", "unseen", "counts"}
    assert dict_space["columns"] == gym.spaces.MultiDiscrete(np.full((10, 16), 53))
    assert dict_space["waste"] == gym.spaces.MultiDiscrete(np.full(64, 53))
    assert dict_space["foundations"] == gym.spaces.MultiDiscrete(np.full(8, 14))
    assert dict_space["unseen"] == gym.spaces.MultiDiscrete(np.full(52, 3))
    assert dict_space["counts"] == gym.spaces.Box(0.0, 1.0, (2,), np.float32)
    oracle_dict = make(obs_mode="oracle_dict").observation_space
    assert set(oracle_dict.spaces) == set(dict_space.spaces) | {"stock"}
    assert oracle_dict["stock"] == gym.spaces.MultiDiscrete(np.full(64, 53))


def test_documented_offsets():
    assert ob.CARD_SIZE == 17 and ob.NONE == 52
    assert (ob.COLUMNS_OFFSET, ob.LENGTHS_OFFSET, ob.WASTE_OFFSET, ob.WASTE_TOP_OFFSET) == (0, 2720, 2730, 3818)
    assert (ob.WASTE_SIZE_OFFSET, ob.FOUNDATIONS_OFFSET, ob.STOCK_OFFSET, ob.UNSEEN_OFFSET) == (3835, 3836, 3844, 3845)
    assert (ob.FLAT_SIZE, ob.ORACLE_STOCK_OFFSET, ob.ORACLE_SIZE) == (3897, 3897, 4985)


def test_action_names_in_words():
    env = make()
    start(env)
    base = env.unwrapped
    assert base.action_name(209) == "draw"
    assert base.action_name(np.int64(11)) == "move 7S from column 2 to column 1"
    assert base.action_name(found(9)) == "move AH from column 10 to foundation"
    assert base.action_name(ft_move(FT_WASTE, 3)) == "move the top card from waste to column 4"
    assert base.action_name(back(7, 0)) == "move the top card from foundation 8 to column 1"
    env.step(found(9))
    env.step(FT_DRAW)
    assert base.action_name(back(1, 9)) == "move AH from foundation 2 to column 10"
    assert base.action_name(ft_move(FT_WASTE, 0)) == "move 6H from waste to column 1"
    names = [base.action_name(a) for a in range(210)]
    assert len(set(names)) == 210  # every action has its own name
    with pytest.raises(ValueError, match=r"0\.\.209"):
        base.action_name(210)


def test_mask_at_the_start():
    env = make()
    _, info = start(env)
    assert np.flatnonzero(info["action_mask"]).tolist() == [5, 11, 43, 44, 67, 70, 94, 109, 209]
    assert info["action_mask"].dtype == np.int8
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))


def test_info_keys():
    env = make()
    _, info = start(env)
    assert set(info) == {"deal_code", "action_mask", "score", "moves", "cleared", "founded", "chain", "longest_chain"}
    _, _, _, _, info = env.step(found(9))
    assert (info["score"], info["moves"], info["founded"], info["cleared"], info["chain"]) == (10, 1, 1, 1, 1)
    env.step(FT_DRAW)
    _, _, _, _, info = env.step(ft_move(1, 0))
    assert (info["chain"], info["longest_chain"], info["moves"]) == (1, 1, 3)  # a draw resets the chain


def test_kwargs_reach_the_game():
    env = make(foundation_return=False, scoring=FortyThievesScoring(name="x", to_foundation=3))
    start(env)
    game = env.unwrapped.game
    assert game.rules.foundation_return is False and game.scoring.to_foundation == 3
    _, reward, _, _, info = env.step(found(9))
    assert reward == 3.0 and info["score"] == 3
    assert not env.unwrapped.action_masks()[11 * 11 : 209].any()
    _, reward, _, _, info = env.step(back(1, 9))
    assert info["illegal_reason"] == "return_not_allowed" and reward == -1.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"foundation_return": "yes"}, "foundation_return"),
        ({"scoring": "classic"}, "scoring"),
        ({"max_repeats": 1}, "max_repeats"),
        ({"max_repeats": True}, "max_repeats"),
        ({"max_repeats": 2.5}, "max_repeats"),
        ({"obs_mode": "pixels"}, "observation mode"),
        ({"reward": "fun"}, "reward"),
        ({"illegal_action": "ignore"}, "illegal_action"),
    ],
)
def test_invalid_kwargs_raise_at_make(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make(**kwargs)


# --------------------------------------------------------------------------- rewards


def run_line(env, line, deal=EXAMPLE_DEAL):
    start(env, deal)
    return [env.step(a) for a in line]


def test_score_reward_of_the_example_win():
    env = make()
    results = run_line(env, EXAMPLE_LINE)
    rewards = [r[1] for r in results]
    assert sum(rewards) == 1185.0
    assert sorted(set(rewards)) == [0.0, 5.0, 10.0]
    assert rewards.count(5.0) == 29 and rewards.count(10.0) == 104
    assert all(isinstance(r, float) for r in rewards)
    *_, (_, _, terminated, truncated, info) = results
    assert (terminated, truncated) == (True, False)
    assert all(not r[2] and not r[3] for r in results[:-1])
    assert (info["score"], info["founded"], info["moves"]) == (1185, 104, 197)
    assert not info["action_mask"].any() and "truncated_reason" not in info
    assert env.unwrapped.game.won
    # the game is over: any action is game_over, terminated, and costs the penalty (and warns)
    with pytest.warns(UserWarning, match="after this episode ended"):
        _, reward, terminated, truncated, info = env.step(FT_DRAW)
    assert info["illegal_reason"] == "game_over" and terminated and not truncated and reward == -1.0


def test_score_reward_follows_the_floor():
    env = make()
    start(env)
    rewards = [env.step(a)[1] for a in [*EMPTY_COLUMN_10, back(1, 9), back(1, 9), back(1, 9), back(1, 9), found(9)]]
    assert rewards == [10.0, 10.0, 10.0, 10.0, -15.0, -15.0, -10.0, 0.0, 10.0]


def test_win_reward():
    env = make(reward="win")
    rewards = [r[1] for r in run_line(env, EXAMPLE_LINE)]
    assert rewards == [0.0] * 196 + [1.0]
    start(env)
    assert env.step(ft_move(0, 0))[1] == -0.01


@pytest.mark.parametrize("win_bonus", [10.0, 0.0, 2.5])
def test_progress_reward(win_bonus):
    env = make(reward="progress", win_bonus=win_bonus)
    rewards = [r[1] for r in run_line(env, EXAMPLE_LINE)]
    assert sum(rewards) == 104 + win_bonus
    assert rewards[-1] == 1.0 + win_bonus
    start(env)
    rewards = [env.step(a)[1] for a in [found(9), ft_move(1, 0), FT_DRAW, back(1, 9)]]
    assert rewards == [1.0, 0.0, 0.0, -1.0]  # a card going back costs one
    assert env.step(ft_move(0, 0))[1] == -0.1


def test_callable_reward():
    calls = []

    def reward(d_score, d_progress, won):
        calls.append((d_score, d_progress, won))
        return 0.5

    env = make(reward=reward)
    results = run_line(env, EXAMPLE_LINE)
    assert all(r[1] == 0.5 for r in results)
    assert calls[0] == (0, 0, False)  # a draw
    assert calls[1] == (5, 0, False)  # the 8S to column 9
    assert calls[-1] == (10, 1, True)
    start(env)
    assert env.step(ft_move(0, 0))[1] == -0.1


# --------------------------------------------------------------------------- illegal actions


def full(env):
    base = env.unwrapped
    return base.game.state_dict(), base.public_view(), base.action_masks().copy()


@pytest.mark.parametrize(("reward", "penalty"), [("score", -1.0), ("win", -0.01), ("progress", -0.1)])
def test_penalize_changes_nothing(reward, penalty):
    env = make(reward=reward)
    obs, info = start(env)
    before = full(env)
    obs2, r, terminated, truncated, info2 = env.step(ft_move(1, 2))  # 7S on 8H
    assert (r, terminated, truncated) == (penalty, False, False)
    assert info2["illegal_reason"] == "wrong_suit" and info2["illegal_message"] == REASONS["wrong_suit"]
    assert_same(obs2, obs)
    assert_same(full(env), before)
    assert {k: v for k, v in info2.items() if not k.startswith("illegal")}.keys() == info.keys()
    # the next legal step has no illegal keys
    _, _, _, _, info3 = env.step(found(9))
    assert "illegal_reason" not in info3 and "illegal_message" not in info3


def test_custom_penalty():
    env = make(illegal_penalty=-3.0)
    start(env)
    assert env.step(ft_move(1, 2))[1] == -3.0


def test_raise_policy():
    env = make(illegal_action="raise")
    start(env)
    before = full(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(ft_move(8, 3))
    assert info.value.reason == "onto_ace"
    assert str(info.value) == "illegal action: onto_ace: nothing can be placed on an ace"
    assert_same(full(env), before)


def test_terminate_policy():
    env = make(illegal_action="terminate")
    start(env)
    before = full(env)
    _, reward, terminated, truncated, info = env.step(found(0))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_reason"] == "foundation_order"
    assert_same(full(env), before)


def test_every_reason_is_reachable_through_the_env():
    seen = set()

    def check(env, action, reason):
        before = full(env)
        _, _, _, _, info = env.step(action)
        assert info["illegal_reason"] == reason and info["illegal_message"] == REASONS[reason]
        assert_same(full(env), before)
        seen.add(reason)

    env = make()
    start(env)
    check(env, ft_move(1, 2), "wrong_suit")
    check(env, ft_move(1, 5), "wrong_rank")
    check(env, ft_move(8, 3), "onto_ace")
    check(env, found(0), "foundation_order")
    check(env, ft_move(FT_WASTE, 0), "nothing_to_move")
    check(env, ft_move(3, 3), "same_place")
    for _ in range(64):
        env.step(FT_DRAW)
    check(env, FT_DRAW, "stock_empty")
    off = make(foundation_return=False)
    start(off)
    off.step(found(9))
    check(off, back(1, 9), "return_not_allowed")
    run_line(env, EXAMPLE_LINE)
    with pytest.warns(UserWarning, match="after this episode ended"):
        check(env, found(0), "game_over")
    assert seen == set(REASONS)


# --------------------------------------------------------------------------- observations decoded


def _card(block):
    """The card a 17-value block holds (None when it is all zero)."""
    if not block.any():
        return None
    ones = np.flatnonzero(block)
    assert len(ones) == 2 and set(block[ones].tolist()) == {1.0}, block
    rank, suit = ones
    assert rank < 13 <= suit < 17
    return card_text((suit - 13) * 13 + rank)


def _exact(x, scale):
    value = float(x) * scale
    assert abs(value - round(value)) < 1e-5, (x, scale)
    return round(value)


def _tops(counts):
    return [None if n == 0 else card_text(FOUNDATION_SUITS[f] * 13 + n - 1) for f, n in enumerate(counts)]


def decode_flat(obs):
    """The public facts of a flat observation, read back through the documented offsets."""
    assert obs.shape == (ob.FLAT_SIZE,) and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    columns = []
    for j in range(10):
        length = _exact(obs[ob.LENGTHS_OFFSET + j], 16)
        blocks = [_card(obs[(16 * j + i) * 17 : (16 * j + i + 1) * 17]) for i in range(16)]
        assert None not in blocks[:length] and blocks[length:] == [None] * (16 - length)
        columns.append(blocks[:length])
    waste_size = _exact(obs[ob.WASTE_SIZE_OFFSET], 64)
    waste = [_card(obs[ob.WASTE_OFFSET + 17 * p : ob.WASTE_OFFSET + 17 * (p + 1)]) for p in range(64)]
    assert None not in waste[:waste_size] and waste[waste_size:] == [None] * (64 - waste_size)
    waste_top = _card(obs[ob.WASTE_TOP_OFFSET : ob.WASTE_TOP_OFFSET + 17])
    assert waste_top == (waste[waste_size - 1] if waste_size else None)
    counts = [_exact(x, 13) for x in obs[ob.FOUNDATIONS_OFFSET : ob.FOUNDATIONS_OFFSET + 8]]
    unseen = [_exact(x, 2) for x in obs[ob.UNSEEN_OFFSET : ob.FLAT_SIZE]]
    return {
        "columns": columns,
        "waste": waste[:waste_size],
        "foundations": _tops(counts),
        "founded": sum(counts),
        "stock_count": _exact(obs[ob.STOCK_OFFSET], 64),
        "unseen": unseen,
    }


def decode_dict(obs):
    columns = obs["columns"]
    assert columns.shape == (10, 16) and columns.dtype == np.int64
    cols = []
    for row in columns.tolist():
        n = row.index(52) if 52 in row else 16
        assert row[n:] == [52] * (16 - n)
        cols.append([card_text(c) for c in row[:n]])
    waste = obs["waste"].tolist()
    n = waste.index(52) if 52 in waste else 64
    assert waste[n:] == [52] * (64 - n)
    stock_count = _exact(obs["counts"][0], 64)
    assert _exact(obs["counts"][1], 64) == n
    return {
        "columns": cols,
        "waste": [card_text(c) for c in waste[:n]],
        "foundations": _tops(obs["foundations"].tolist()),
        "founded": int(obs["foundations"].sum()),
        "stock_count": stock_count,
        "unseen": obs["unseen"].tolist(),
    }


def facts_of(game):
    view = game.public_view()
    unseen = [0] * 52
    for c in game.unseen_cards():
        unseen[c] += 1
    return {
        "columns": view["columns"],
        "waste": view["waste"],
        "foundations": view["foundations"],
        "founded": view["founded"],
        "stock_count": view["stock_count"],
        "unseen": unseen,
    }


def decode_oracle_stock(obs):
    blocks = [_card(obs[ob.ORACLE_STOCK_OFFSET + 17 * p : ob.ORACLE_STOCK_OFFSET + 17 * (p + 1)]) for p in range(64)]
    return blocks


@pytest.mark.parametrize("kwargs", [{}, {"foundation_return": False}, {"max_repeats": None, "max_episode_steps": 120}])
def test_observations_decode_to_the_public_view_at_every_step(kwargs):
    envs = {mode: make(obs_mode=mode, **kwargs) for mode in ("flat", "dict", "oracle", "oracle_dict")}
    rng = np.random.default_rng(len(kwargs))
    steps = 0
    for seed in range(8):
        results = {mode: env.reset(seed=seed) for mode, env in envs.items()}
        done = False
        while True:
            game = envs["flat"].unwrapped.game
            facts = facts_of(game)
            obs = {mode: r[0] for mode, r in results.items()}
            assert decode_flat(obs["flat"]) == facts
            assert decode_dict(obs["dict"]) == facts
            assert np.array_equal(obs["oracle"][: ob.FLAT_SIZE], obs["flat"])
            drawn = game.stock_pos
            want = [None] * drawn + [card_text(c) for c in game.stock[drawn:]]
            assert decode_oracle_stock(obs["oracle"]) == want
            for key in ("columns", "waste", "foundations", "unseen", "counts"):
                assert_same(obs["oracle_dict"][key], obs["dict"][key])
            assert obs["oracle_dict"]["stock"].tolist() == [52] * drawn + list(game.stock[drawn:])
            for mode, env in envs.items():
                assert env.observation_space.contains(obs[mode]), mode
            if done:
                break
            mask = results["flat"][-1]["action_mask"]
            action = int(rng.choice(legal_actions(mask))) if rng.random() < 0.9 else int(rng.integers(210))
            results = {mode: env.step(action) for mode, env in envs.items()}
            steps += 1
            done = results["flat"][2] or results["flat"][3]
            for r in results.values():
                assert_same(r[1:], results["flat"][1:])
    assert steps > 300


def test_observation_along_the_example_win():
    """The longest piles and the full waste: every step of the 197-move win decodes exactly."""
    env = make()
    obs, _ = start(env, EXAMPLE_DEAL)
    assert decode_flat(obs)["unseen"] == [2 if c % 13 < 8 else 0 for c in range(52)]
    for a in EXAMPLE_LINE:
        obs, *_ = env.step(a)
        assert decode_flat(obs) == facts_of(env.unwrapped.game)
    assert decode_flat(obs)["founded"] == 104 and not obs[: ob.FOUNDATIONS_OFFSET].any()
    assert np.allclose(obs[ob.FOUNDATIONS_OFFSET : ob.STOCK_OFFSET], 1.0)


def test_observation_with_a_full_waste_and_a_long_column():
    # the longest column (4 dealt cards, a king on top, then Q..A of its suit: 16) and a 53-card waste
    columns = ["AC AD AH KS", "AC AD AH 6C", "2C 2D 2H 7C", "2C 2D 2H 7C", "3C 3D 3H 8C"]
    columns += ["3C 3D 3H 8C", "4C 4D 4H 9C", "4C 4D 4H 9C", "5C 5D 5H 6C", "5C 5D 5H AS"]
    deal = ft_deal(columns, "QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S")
    env = make(obs_mode="flat")
    dict_env = make(obs_mode="dict")
    obs, _ = start(env, deal)
    start(dict_env, deal)
    for _ in range(11):
        env.step(FT_DRAW)
        obs, *_ = env.step(ft_move(FT_WASTE, 0))  # QS .. 2S onto column 1's KS
        dict_env.step(FT_DRAW)
        dict_obs, *_ = dict_env.step(ft_move(FT_WASTE, 0))
    for _ in range(53):
        obs, *_ = env.step(FT_DRAW)
        dict_obs, *_ = dict_env.step(FT_DRAW)
    obs, *_ = env.step(ft_move(9, 0))  # the AS on the 2S: 16 cards
    dict_obs, *_ = dict_env.step(ft_move(9, 0))
    game = env.unwrapped.game
    assert len(game.columns[0]) == 16 and len(game.waste) == 53 and game.stock_count == 0
    assert decode_flat(obs) == facts_of(game) == decode_dict(dict_obs)
    assert obs[ob.LENGTHS_OFFSET] == 1.0 and obs[ob.STOCK_OFFSET] == 0.0
    assert decode_flat(obs)["unseen"] == [0] * 52


def test_unseen_cards_at_the_start():
    env = make()
    obs, _ = env.reset(options={"deal_code": "FT1-N-AAAAAAB"})
    game = env.unwrapped.game
    unseen = decode_flat(obs)["unseen"]
    assert sum(unseen) == 64
    for c in range(52):
        assert unseen[c] == list(game.stock).count(c)
        assert unseen[c] + sum(col.count(c) for col in game.columns) == 2


# --------------------------------------------------------------------------- public view and drawing


def test_public_view_keys_and_json():
    env = make()
    start(env)
    for a in [found(9), FT_DRAW, FT_DRAW]:
        env.step(a)
    view = env.unwrapped.public_view()
    assert set(view) == {
        "game",
        "columns",
        "waste",
        "foundations",
        "foundation_suits",
        "stock_count",
        "score",
        "moves",
        "cleared",
        "founded",
        "chain",
        "longest_chain",
        "won",
        "over",
    }
    assert view["game"] == "fortythieves"
    assert view["columns"][9] == ["4H", "3H", "2H"] and view["columns"][0] == ["2C", "3C", "4C", "8S"]
    assert view["waste"] == ["6H", "QD"]
    assert view["foundations"] == [None, "AH", None, None, None, None, None, None]
    assert view["foundation_suits"] == list("SHDCSHDC")
    assert (view["stock_count"], view["score"], view["moves"], view["founded"]) == (62, 10, 3, 1)
    assert json.loads(json.dumps(view)) == view
    view["columns"][0].append("KS")  # a copy: writing into it changes nothing
    assert env.unwrapped.public_view()["columns"][0] == ["2C", "3C", "4C", "8S"]


def test_ansi_drawing():
    env = make(render_mode="ansi")
    start(env)
    lines = env.render().splitlines()
    assert lines[0] == "  foundations  ·S  ·H  ·D  ·C  ·S  ·H  ·D  ·C"
    assert lines[1] == "  stock 64   waste (0) --"
    assert lines[3] == "   1   2   3   4   5   6   7   8   9  10"
    assert lines[4] == "  2♣  5♣  7♣  T♣  Q♣  2♦  5♦  8♦  J♦  4♥"
    assert lines[7] == "  8♠  7♠  8♥  A♠  7♠  9♠  6♠  K♥  5♠  A♥"
    assert lines[9] == "  score 0  moves 0  founded 0/104  chain 0 (longest 0)"
    for a in [*EMPTY_COLUMN_10, *[FT_DRAW] * 7]:
        env.step(a)
    text = env.render()
    assert "  foundations  ·S  4♥  ·D  ·C" in text
    assert "  stock 57   waste (7) … Q♦ 8♦ A♣ A♣ 2♣ 3♣" in text  # the last six waste cards, top last
    assert "score 40  moves 11  founded 4/104" in text
    run_line(env, EXAMPLE_LINE)
    assert env.render().splitlines()[-1] == "  You won!"
    start(env, STUCK_DEAL)
    for _ in range(64):
        env.step(FT_DRAW)
    assert env.render().splitlines()[-1] == "  No more moves."


def test_rgb_drawing():
    env = make(render_mode="rgb_array")
    start(env)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    run_line(env, EXAMPLE_LINE[:60])
    assert env.render().shape == frame.shape


# --------------------------------------------------------------------------- end of an episode


def back_and_forth(env, n):
    """7S from column 5 to column 1's 8S and back, ``n`` times; the step results."""
    out = []
    for i in range(n):
        out.append(env.step(ft_move(4, 0) if i % 2 == 0 else ft_move(0, 4)))
    return out


def test_repetition_truncates_on_the_third_occurrence():
    env = make()
    start(env)
    results = back_and_forth(env, 4)
    # the start position occurs at the reset, after step 2 and after step 4: the third time
    for _, reward, terminated, truncated, info in results[:3]:
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert "truncated_reason" not in info
    _, reward, terminated, truncated, info = results[3]
    assert (terminated, truncated) == (False, True)
    assert info["truncated_reason"] == "repetition"
    assert info["action_mask"].any() and not env.unwrapped.game.over


def test_repetition_through_an_empty_column():
    env = make()
    start(env)
    for a in EMPTY_COLUMN_10:
        assert not env.step(a)[3]
    results = [env.step(ft_move(4, 9) if i % 2 == 0 else ft_move(9, 4)) for i in range(4)]
    assert [r[3] for r in results] == [False, False, False, True]
    assert [r[2] for r in results] == [False] * 4
    assert results[3][-1]["truncated_reason"] == "repetition"


def test_repetition_counts_positions_not_scores():
    # found a card, send it back, found it again: the same position (the score went down by 5)
    env = make()
    start(env)
    results = [env.step(a) for a in (found(9), back(1, 9), found(9), back(1, 9))]
    assert [r[3] for r in results] == [False, False, False, True]
    assert results[-1][-1]["score"] == 0


@pytest.mark.parametrize(("max_repeats", "cut"), [(2, 2), (3, 4), (5, 8)])
def test_max_repeats(max_repeats, cut):
    env = make(max_repeats=max_repeats)
    start(env)
    results = back_and_forth(env, cut)
    assert [r[3] for r in results] == [False] * (cut - 1) + [True]
    assert env.unwrapped.max_repeats == max_repeats


def test_max_repeats_none_disables_the_rule_and_the_step_limit_still_ends_the_episode():
    env = make(max_repeats=None)
    start(env)
    results = back_and_forth(env, 1000)
    assert not any(r[2] for r in results)
    assert [i for i, r in enumerate(results, 1) if r[3]] == [1000]  # the registered TimeLimit
    assert all("truncated_reason" not in r[-1] for r in results)
    short = make(max_repeats=None, max_episode_steps=20)
    start(short)
    assert [r[3] for r in back_and_forth(short, 20)] == [False] * 19 + [True]


def test_a_reset_forgets_the_positions_seen():
    env = make()
    start(env)
    back_and_forth(env, 3)
    start(env)
    assert [r[3] for r in back_and_forth(env, 4)] == [False, False, False, True]


def test_illegal_steps_do_not_count_as_repetitions():
    env = make()
    start(env)
    for _ in range(10):
        _, _, terminated, truncated, info = env.step(ft_move(1, 2))
        assert not terminated and not truncated and info["illegal_reason"] == "wrong_suit"


def test_no_legal_action_is_terminal_never_truncated():
    env = make(max_repeats=2)
    start(env, STUCK_DEAL)
    results = [env.step(FT_DRAW) for _ in range(64)]
    assert [r[2] for r in results] == [False] * 63 + [True]
    assert not any(r[3] for r in results)
    assert not env.unwrapped.action_masks().any() and not env.unwrapped.game.won
    # after the end every action is illegal and terminated again (with a warning)
    with pytest.warns(UserWarning, match="after this episode ended"):
        _, reward, terminated, truncated, info = env.step(ft_move(0, 1))
    assert (reward, terminated, truncated, info["illegal_reason"]) == (-1.0, True, False, "wrong_rank")


def test_random_episodes_end_and_are_reproducible_from_the_code():
    env = make()
    ends = set()
    for seed in range(30):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        code = info["deal_code"]
        assert code.startswith("FT1-N-") and len(code) == 13
        actions = []
        done = False
        while not done:
            actions.append(int(rng.choice(legal_actions(info["action_mask"]))))
            obs, _, terminated, truncated, info = env.step(actions[-1])
            done = terminated or truncated
        ends.add("terminated" if terminated else info.get("truncated_reason", "limit"))
        twin = make()
        twin_obs, _ = twin.reset(options={"deal_code": code})
        for a in actions:
            twin_obs, *_ = twin.step(a)
        assert np.array_equal(twin_obs, obs)
        assert twin.unwrapped.public_view() == env.unwrapped.public_view()
    assert ends == {"terminated", "repetition"}


# --------------------------------------------------------------------------- the fast paths against recomputation


def mask_by_the_rules(game):
    """The legal actions by the rules core's reason for each action: no mask tables involved."""
    mask = np.zeros(210, dtype=np.int8)
    if not game.won:
        for a in range(210):
            mask[a] = game.illegal_reason(a) is None
    return mask


def encode_by_definition(game, oracle=False):
    """The flat (or oracle) observation written from docs/environments.md's layout, position by position."""
    obs = np.zeros(ob.ORACLE_SIZE if oracle else ob.FLAT_SIZE, np.float32)

    def put(at, card):
        obs[at + card % 13] = obs[at + 13 + card // 13] = 1.0

    for j, col in enumerate(game.columns):
        for i, card in enumerate(col):
            put((16 * j + i) * 17, card)
        obs[ob.LENGTHS_OFFSET + j] = len(col) / 16
    for p, card in enumerate(game.waste):
        put(ob.WASTE_OFFSET + 17 * p, card)
    if game.waste:
        put(ob.WASTE_TOP_OFFSET, game.waste[-1])
    obs[ob.WASTE_SIZE_OFFSET] = len(game.waste) / 64
    obs[ob.FOUNDATIONS_OFFSET : ob.FOUNDATIONS_OFFSET + 8] = [n / 13 for n in game.foundations]
    obs[ob.STOCK_OFFSET] = (64 - game.stock_pos) / 64
    for card in game.stock[game.stock_seen :]:
        obs[ob.UNSEEN_OFFSET + card] += 0.5
    if oracle:
        for p in range(game.stock_pos, 64):
            put(ob.ORACLE_STOCK_OFFSET + 17 * p, game.stock[p])
    return obs


def app_points(action):
    """Seed 004's app scoring of a legal move, by its kind alone."""
    if action == FT_DRAW:
        return 0
    src, dst = divmod(action, 11)
    if dst == FT_FOUNDATION:
        return 10
    return 5 if src == FT_WASTE else -15 if src > FT_WASTE else 0


DIFFERENTIAL_CONFIGS = [
    {},
    {"foundation_return": False, "obs_mode": "oracle"},
    {"reward": "progress", "win_bonus": 2.5, "max_repeats": 2},
    {"reward": "win", "max_repeats": None, "max_episode_steps": 400},
]


@pytest.mark.parametrize("kwargs", DIFFERENTIAL_CONFIGS, ids=lambda k: ",".join(map(str, k.values())) or "default")
def test_every_step_equals_a_recomputation_from_scratch(kwargs):
    """The env keeps its mask, its observation and its tables up to date move by move; here each
    step's observation, mask, reward, flags and info are recomputed from scratch: the observation
    from the documented layout (and by a new observer's full encoding), the mask from the rules
    core's reason for every action, the score, counters, end and repetitions by this test's own
    bookkeeping."""
    env = make(**kwargs)
    base = env.unwrapped
    mode = kwargs.get("obs_mode", "flat")
    reward_mode = kwargs.get("reward", "score")
    max_repeats = kwargs.get("max_repeats", 3)
    limit = env.spec.max_episode_steps
    rng = np.random.default_rng(11)
    episodes = steps = 0
    ends = set()
    # without the repetition rule random play runs to the step limit: fewer episodes hold as many steps
    deals = 60 if max_repeats is not None else 20
    for seed in range(deals):
        obs, info = env.reset(seed=seed)
        game = base.game
        score = founded = moves = chain = longest = 0
        positions = {game.position_key(): 1}
        for t in range(1, limit + 1):
            mask = mask_by_the_rules(game)
            assert obs.dtype == np.float32 and np.array_equal(obs, encode_by_definition(game, mode == "oracle"))
            assert np.array_equal(obs, ob.FortyThievesObserver(mode).encode(game))  # a full encoding
            assert_same(info["action_mask"], mask)
            assert np.array_equal(base.action_masks(), mask.astype(bool))
            assert game.legal_mask() == sum(1 << a for a in np.flatnonzero(mask).tolist())
            counters = {"score": score, "moves": moves, "cleared": founded, "founded": founded}
            counters |= {"chain": chain, "longest_chain": longest, "deal_code": info["deal_code"]}
            assert {k: v for k, v in info.items() if k in counters} == counters
            if not mask.any():
                break
            legal = rng.random() < 0.9
            action = int(rng.choice(np.flatnonzero(mask))) if legal else int(rng.integers(210))
            legal = bool(mask[action])
            obs, reward, terminated, truncated, info = env.step(action)
            steps += 1
            if not legal:
                assert (reward, terminated) == (base.illegal_penalty, False)
                assert info["illegal_reason"] == game.illegal_reason(action)
                assert truncated == (t == limit)
                if truncated:
                    break
                continue
            assert "illegal_reason" not in info
            last_score, last_founded = score, founded
            score = max(0, score + app_points(action))
            src, dst = divmod(action, 11)
            founded += action != FT_DRAW and dst == FT_FOUNDATION
            founded -= action != FT_DRAW and src > FT_WASTE
            moves += 1
            chain = 0 if action == FT_DRAW else chain + 1
            longest = max(longest, chain)
            won = founded == 104
            want = {
                "score": float(score - last_score),
                "progress": founded - last_founded + (kwargs.get("win_bonus", 10.0) if won else 0.0),
                "win": 1.0 if won else 0.0,
            }
            assert type(reward) is float and reward == want[reward_mode]
            assert terminated == (not mask_by_the_rules(game).any())
            if action == FT_DRAW:
                positions = {}
            key = game.position_key()
            positions[key] = positions.get(key, 0) + 1
            repeated = max_repeats is not None and positions[key] >= max_repeats and not terminated
            assert (info.get("truncated_reason") == "repetition") == repeated
            assert truncated == (repeated or (t == limit and not terminated))
            if terminated or truncated:
                ends.add("terminated" if terminated else info.get("truncated_reason", "limit"))
                break
        episodes += 1
    assert episodes == deals and steps > 2000
    assert "terminated" in ends and len(ends) >= 2


def check_game_tables(game):
    """The rules core's incremental tables (legal mask, the foundations' next cards, the top-card
    tables) against their definitions."""
    mask = mask_by_the_rules(game)
    assert game.legal_mask() == sum(1 << a for a in np.flatnonzero(mask).tolist())
    for card in range(52):
        takers = [f for f in range(8) if FOUNDATION_SUITS[f] == card // 13 and game.foundations[f] == card % 13]
        assert game.foundation_for(card) == (takers[0] if takers else None)
        assert game._accepts[card] == (1 << FT_FOUNDATION if takers else 0)
    tops = [col[-1] if col else -1 for col in game.columns]
    assert game._tops[:10] == tops and game._tops[10] == (game.waste[-1] if game.waste else -1)
    assert game._tops[11:] == [game.foundation_top(f) if game.foundations[f] else -1 for f in range(8)]
    assert game._empty == sum(1 << j for j in range(10) if not game.columns[j])
    assert game._topped == [sum(1 << j for j in range(10) if tops[j] == c) for c in range(53)]
    return mask


def test_game_tables_follow_moves_undos_and_copies():
    """Through random moves (many to and from the foundations), undos and copies; a copy and
    its original go on independently."""
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(30):
        rules = FortyThievesRules(foundation_return=seed % 3 > 0, undo_limit=None if seed % 4 else 6)
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)
        original, kept = None, {}
        for _ in range(250):
            mask = check_game_tables(game)
            if original is not None:  # the game copied from: untouched by the copy's moves
                check_game_tables(original)
                assert original.state_dict() == kept
                original = None
            checked += 1
            r = rng.random()
            if r < 0.15 and game.can_undo:
                game.undo()
                continue
            if r < 0.2:  # play on from a copy
                original, game = game, game.copy()
                kept = original.state_dict()
            if not mask.any():
                break
            legal = np.flatnonzero(mask).tolist()
            founding = [a for a in legal if a % 11 == FT_FOUNDATION and a < FT_DRAW]
            returning = [a for a in legal if 121 <= a < FT_DRAW]
            pick = rng.random()
            if founding and pick < 0.4:
                game.play(int(rng.choice(founding)))
            elif returning and pick < 0.6:
                game.play(int(rng.choice(returning)))
            else:
                game.play(int(rng.choice(legal)))
    assert checked > 3000


def test_step_after_a_repetition_truncation_warns_once():
    env = make()
    start(env)
    assert back_and_forth(env, 4)[-1][3]  # truncated: the start position for the third time
    with pytest.warns(UserWarning, match="after this episode ended"):
        _, _, terminated, _, info = env.step(ft_move(4, 0))  # still played: the game goes on
    assert "illegal_reason" not in info and info["moves"] == 5 and not terminated
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        env.step(ft_move(0, 4))
    assert again == []
    start(env)
    with warnings.catch_warnings(record=True) as fresh:
        warnings.simplefilter("always")
        back_and_forth(env, 3)
    assert fresh == []


def test_forty_thieves_rules_in_play():
    env = make(foundation_return=False)
    base = env.unwrapped
    for options in ({"deal_code": "FT1-N-AAAAAAB"}, {"deal": str(MOVE_DEAL)}, None):
        env.reset(seed=0, options=options)
        assert base.rules == base.configured_rules == base.game.rules == FortyThievesRules(foundation_return=False)


# --------------------------------------------------------------------------- 1000 deals (slow)


def random_play_totals(deals: int, seed: int = 0) -> dict:
    """Uniformly random legal actions through ``gym.make`` on the deals FT1-N from ``seed``: how
    the episodes ended and the mean number of cards founded."""
    env = make()
    rng = np.random.default_rng(seed)
    totals = {"wins": 0, "no_legal_move": 0, "repetition": 0, "step_limit": 0, "founded": 0, "steps": 0}
    limit = env.spec.max_episode_steps
    for k in range(seed, seed + deals):
        _, info = env.reset(options={"deal_code": f"FT1-N-{solitaire_env.common.deals.encode_seed(k)}"})
        steps = 0
        while True:
            _, _, terminated, truncated, info = env.step(int(rng.choice(legal_actions(info["action_mask"]))))
            steps += 1
            assert "illegal_reason" not in info
            if terminated or truncated:
                break
        assert steps <= limit
        game = env.unwrapped.game
        if terminated:
            assert not truncated and not info["action_mask"].any() and game.over
            totals["wins" if game.won else "no_legal_move"] += 1
        elif "truncated_reason" in info:
            assert info["truncated_reason"] == "repetition" and not game.over
            totals["repetition"] += 1
        else:
            assert steps == limit
            totals["step_limit"] += 1
        totals["founded"] += info["founded"]
        totals["steps"] += steps
    assert totals["wins"] + totals["no_legal_move"] + totals["repetition"] + totals["step_limit"] == deals
    return totals


@pytest.mark.slow
def test_1000_random_deals_all_end():
    totals = random_play_totals(1000)
    print("\nFT1-N seeds 0..999, uniformly random legal actions:", totals)


def test_a_step_after_a_truncation_warns_and_plays_as_the_warning_says():
    """After the repetition rule truncates, the game is not over: the warning says the game goes
    on, and the next legal move is played (not refused as illegal)."""
    env = make()
    start(env)
    *_, (_, _, terminated, truncated, info) = back_and_forth(env, 4)
    assert (terminated, truncated) == (False, True)
    moves = info["moves"]
    with pytest.warns(UserWarning, match="after this episode ended") as caught:
        _, reward, terminated, _, info = env.step(ft_move(4, 0))
    message = str(caught[0].message)
    assert "truncation" in message and "legal moves are played" in message
    assert reward == 0.0 and "illegal_reason" not in info and info["moves"] == moves + 1 and not terminated
