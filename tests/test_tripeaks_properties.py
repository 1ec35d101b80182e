"""Property tests of TriPeaks: hundreds of random deals, rule options and move sequences each.

(a) cards are conserved, (b) nothing hidden leaks into what an agent gets, (c) undo is exact,
(d) the mask is exactly the set of moves the rules core accepts, (e) identical seeds and actions
give identical trajectories, (f) an illegal action changes nothing.
"""

from __future__ import annotations

import copy
from collections import Counter

import gymnasium as gym
import numpy as np
from conftest import TRIPEAKS_ID, assert_same, deal_string
from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_env.common.cards import JOKER
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import NUM_ACTIONS, TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

SEEDS = st.integers(0, 2**35 - 1)
#: Random choices that pick the moves: mostly a legal move, now and then any action at all.
CHOICES = st.lists(st.integers(0, 2**20), min_size=10, max_size=90)
RULES = st.fixed_dictionaries(
    {
        "wrap": st.booleans(),
        "draw": st.sampled_from(["anytime", "when_stuck"]),
        "faces": st.sampled_from(["standard", "open"]),
        "waste_start": st.sampled_from(["card", "empty"]),
        "jokers": st.integers(0, 2),
    }
)
SCORINGS = st.sampled_from(["app", "classic", "streak"])
MANY = settings(max_examples=250, deadline=None)


def pick(mask_bits: int, choice: int, allow_illegal: bool = True) -> int:
    """The action a choice stands for: one in eight is any action, the others a legal one."""
    legal = [a for a in range(NUM_ACTIONS) if mask_bits >> a & 1]
    if (allow_illegal and choice % 8 == 0) or not legal:
        return (choice >> 3) % NUM_ACTIONS
    return legal[(choice >> 3) % len(legal)]


def bits_of(mask: np.ndarray) -> int:
    return sum(1 << int(a) for a in np.flatnonzero(mask))


def new_game(seed: int, rules: dict, scoring: str = "app", **extra) -> TriPeaksGame:
    deal = TriPeaksDeal.from_seed(seed, jokers=rules["jokers"])
    return TriPeaksGame(deal, TriPeaksRules(**rules, **extra), scoring)


def full_state(game: TriPeaksGame) -> dict:
    """Every mutable part of a game (history included), deep-copied."""
    state = copy.deepcopy(game.state_dict())
    assert {"removed", "exposed", "face_up", "stock_pos", "waste", "seen_slots", "_history"} <= state.keys()
    return state


UNDO_FIELDS = ("removed", "exposed", "face_up", "stock_pos", "waste", "score", "chain", "longest_chain")


def undo_state(game: TriPeaksGame) -> tuple:
    return (
        *(copy.copy(getattr(game, f)) for f in UNDO_FIELDS),
        game.apexes_removed,
        game.legal_mask(),
        {k: v for k, v in game.public_view().items() if k != "moves"},
    )


# --------------------------------------------------------------------------- (a) conservation


@MANY
@given(seed=SEEDS, rules=RULES, choices=CHOICES)
def test_cards_are_conserved(seed, rules, choices):
    game = new_game(seed, rules)
    deal = game.deal
    want = Counter([*deal.tableau, deal.waste, *deal.stock])
    assert sum(want.values()) == 52 + rules["jokers"] and want[JOKER] == rules["jokers"]
    for choice in choices:
        if choice % 5 == 1:
            game.undo()
        else:
            game.try_play(pick(game.legal_mask(), choice))
        on_table = [c for s, c in enumerate(game.tableau) if not game.removed >> s & 1]
        have = Counter(on_table) + Counter(game.waste) + Counter(game.stock[game.stock_pos :])
        assert have == want
        assert len(on_table) == 28 - game.cleared
        assert game.stock_count + len(game.waste) + len(on_table) == 52 + rules["jokers"]


# --------------------------------------------------------------------------- (b) no leak


def _deal_index_of_stock(rules: dict, pos: int) -> int:
    """Index in the deal string's card list (tableau, waste, stock) of the game's stock card ``pos``."""
    return (29 if rules["waste_start"] == "card" else 28) + pos


def _play(deal_text: str, rules: dict, scoring: str, actions: list[int]) -> list:
    """Everything an agent gets, at reset and after every action, in flat and dict modes."""
    flat = gym.make(TRIPEAKS_ID, obs_mode="flat", render_mode="ansi", scoring=scoring, **rules)
    rich = gym.make(TRIPEAKS_ID, obs_mode="dict", render_mode="rgb_array", scoring=scoring, **rules)
    record = []

    def seen(results, i):
        out = []
        for env, result in zip((flat, rich), results):
            *head, info = result
            base = env.unwrapped
            assert info["deal_code"] == str(TriPeaksDeal.parse(deal_text))
            info = {k: v for k, v in info.items() if k != "deal_code"}
            out.append((head, info, base.public_view(), base.action_masks()))
            out.append([base.action_name(a) for a in range(NUM_ACTIONS)])
        out.append(flat.render())
        if i == 0 or i == len(actions) or i % 16 == 0:  # pictures are slow: a few per episode
            out.append(rich.render())
        return out

    results = (flat.reset(options={"deal": deal_text}), rich.reset(options={"deal": deal_text}))
    record.append(seen(results, 0))
    for i, action in enumerate(actions, 1):
        record.append(seen((flat.step(action), rich.step(action)), i))
    return record, flat.unwrapped.game


@MANY
@given(seed=SEEDS, rules=RULES, scoring=SCORINGS, choices=CHOICES, data=st.data())
def test_nothing_hidden_leaks(seed, rules, scoring, choices, data):
    deal = TriPeaksDeal.from_seed(seed, jokers=rules["jokers"])
    # choose the actions by playing the original deal
    env = gym.make(TRIPEAKS_ID, scoring=scoring, **rules)
    _, info = env.reset(options={"deal": str(deal)})
    actions = []
    for choice in choices:
        actions.append(pick(bits_of(info["action_mask"]), choice))
        _, _, terminated, truncated, info = env.step(actions[-1])
        if terminated or truncated:
            break
    game = env.unwrapped.game
    # the positions never seen, and the cards in them
    cards = [*deal.tableau, deal.waste, *deal.stock]
    hidden = [s for s in range(28) if not game.seen_slots >> s & 1]
    hidden += [_deal_index_of_stock(rules, p) for p in range(game.stock_seen, len(game.stock))]
    assert sorted(Counter(cards[i] for i in hidden).elements()) == sorted(game.unseen_cards())
    # permute them arbitrarily (a joker may only go where a stock card was)
    jokers = [cards[i] for i in hidden].count(JOKER)
    joker_spots = data.draw(st.permutations([i for i in hidden if i >= 28]))[:jokers]
    others = data.draw(st.permutations([cards[i] for i in hidden if cards[i] != JOKER]))
    permuted = list(cards)
    fill = iter(others)
    for i in hidden:
        permuted[i] = JOKER if i in joker_spots else next(fill)
    assert Counter(permuted) == Counter(cards)
    other_deal = deal_string(permuted[:28], permuted[28], permuted[29:])

    original, game_a = _play(str(deal), rules, scoring, actions)
    changed, game_b = _play(other_deal, rules, scoring, actions)
    assert_same(original, changed)
    assert game_b.seen_slots == game_a.seen_slots and game_b.stock_seen == game_a.stock_seen


# --------------------------------------------------------------------------- (c) undo


@MANY
@given(
    seed=SEEDS,
    rules=RULES,
    scoring=SCORINGS,
    choices=CHOICES,
    undo_limit=st.one_of(st.none(), st.integers(0, 4)),
)
def test_undo_is_exact(seed, rules, scoring, choices, undo_limit):
    game = new_game(seed, rules, scoring, undo_limit=undo_limit)
    start = undo_state(game)
    snapshots: list[tuple] = []
    moves, seen_slots, stock_seen = 0, game.seen_slots, game.stock_seen
    for choice in choices:
        if choice % 3 == 0:
            undone = game.undo()
            assert undone == bool(snapshots)  # snapshots holds at most undo_limit moves
            if undone:
                assert undo_state(game) == snapshots.pop()
        else:
            before = undo_state(game)
            if game.try_play(pick(game.legal_mask(), choice, allow_illegal=False)) is None:
                snapshots.append(before)
                if undo_limit is not None:
                    snapshots = snapshots[-undo_limit:] if undo_limit else []
                moves += 1
        assert game.moves == moves  # undo never decrements moves
        assert game.seen_slots & seen_slots == seen_slots and game.seen_slots >= seen_slots
        assert game.stock_seen >= stock_seen
        assert game.face_up & ~game.removed & ~game.seen_slots == 0  # what is face up has been seen
        seen_slots, stock_seen = game.seen_slots, game.stock_seen
    if undo_limit is None:
        while game.undo():
            pass
        assert undo_state(game) == start
        assert game.moves == moves and game.seen_slots == seen_slots and game.stock_seen == stock_seen
        assert not game.can_undo


# --------------------------------------------------------------------------- (d) mask


@MANY
@given(seed=SEEDS, rules=RULES, choices=CHOICES)
def test_mask_is_the_set_of_moves_the_core_accepts(seed, rules, choices):
    env = gym.make(TRIPEAKS_ID, **rules)
    _, info = env.reset(options={"deal": str(TriPeaksDeal.from_seed(seed, jokers=rules["jokers"]))})
    game = env.unwrapped.game
    for choice in [*choices, None]:
        mask = info["action_mask"]
        bits = game.legal_mask()
        assert bits_of(mask) == bits
        assert np.array_equal(env.unwrapped.action_masks(), mask.astype(bool))
        for a in range(NUM_ACTIONS):
            reason = game.illegal_reason(a)
            other = game.copy()
            assert (other.try_play(a) is None) == (reason is None) == bool(bits >> a & 1)
        if not bits:
            assert game.over and all(game.illegal_reason(a) == "game_over" for a in range(NUM_ACTIONS))
        if choice is None:
            break
        _, _, terminated, truncated, info = env.step(pick(bits, choice))
        assert terminated == game.over
        if terminated or truncated:
            break


# --------------------------------------------------------------------------- (e) determinism


@MANY
@given(
    seed=SEEDS,
    rules=RULES,
    scoring=SCORINGS,
    obs_mode=st.sampled_from(["flat", "dict", "oracle", "oracle_dict"]),
    reward=st.sampled_from(["score", "win", "progress"]),
    choices=CHOICES,
)
def test_identical_seeds_and_actions_give_identical_trajectories(seed, rules, scoring, obs_mode, reward, choices):
    kwargs = dict(rules, scoring=scoring, obs_mode=obs_mode, reward=reward)
    env_a, env_b = gym.make(TRIPEAKS_ID, **kwargs), gym.make(TRIPEAKS_ID, **kwargs)
    first_a, first_b = env_a.reset(seed=seed), env_b.reset(seed=seed)
    assert_same(first_a, first_b)
    info = first_a[1]
    for choice in choices:
        action = pick(bits_of(info["action_mask"]), choice)
        result = env_a.step(action)
        assert_same(result, env_b.step(action))
        info = result[-1]
        if result[2] or result[3]:
            break
    assert env_a.unwrapped.public_view() == env_b.unwrapped.public_view()


# --------------------------------------------------------------------------- (f) illegal actions


@MANY
@given(seed=SEEDS, rules=RULES, scoring=SCORINGS, choices=CHOICES, obs_mode=st.sampled_from(["flat", "dict"]))
def test_an_illegal_action_changes_nothing(seed, rules, scoring, choices, obs_mode):
    env = gym.make(TRIPEAKS_ID, scoring=scoring, obs_mode=obs_mode, **rules)
    obs, info = env.reset(options={"deal": str(TriPeaksDeal.from_seed(seed, jokers=rules["jokers"]))})
    base = env.unwrapped
    game = base.game
    for choice in choices:
        bits = bits_of(info["action_mask"])
        illegal = [a for a in range(NUM_ACTIONS) if not bits >> a & 1]
        if choice % 3 == 0 and illegal:
            action = illegal[(choice >> 2) % len(illegal)]
            reason = game.illegal_reason(action)
            state, view, mask = full_state(game), base.public_view(), base.action_masks()
            # the rules core: nothing changes, the reason is reported
            copy_game = game.copy()
            assert copy_game.try_play(action) == reason is not None
            assert full_state(copy_game) == state
            # the env: same observation, view, mask and counters, and the penalty
            obs2, reward, terminated, truncated, info2 = env.step(action)
            assert_same(obs2, obs)
            assert full_state(game) == state
            assert base.public_view() == view and np.array_equal(base.action_masks(), mask)
            assert reward == -1.0 and info2["illegal_reason"] == reason
            assert terminated == (reason == "game_over") and not truncated
            assert info2.keys() - info.keys() <= {"illegal_reason", "illegal_message"}
            assert info.keys() - info2.keys() <= {"illegal_reason", "illegal_message"}
            for key in ("score", "moves", "cleared", "chain", "longest_chain", "deal_code"):
                assert info2[key] == info[key]
            assert np.array_equal(info2["action_mask"], info["action_mask"])
            info = info2
        else:
            if not bits:
                break
            obs, _, terminated, truncated, info = env.step(pick(bits, choice, allow_illegal=False))
            if terminated or truncated:
                break
