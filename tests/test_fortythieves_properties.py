"""Property tests of Forty Thieves: hundreds of random deals, rule options and move sequences each.

(a) the 104 cards are conserved, (b) nothing hidden leaks into what an agent gets, (c) undo is
exact, (d) the mask is exactly the set of moves the rules core accepts, (e) identical seeds and
actions give identical trajectories, (f) an illegal action changes nothing.
"""

from __future__ import annotations

import copy
from collections import Counter

import gymnasium as gym
import numpy as np
from conftest import FORTYTHIEVES_ID, assert_same, ft_deal_string
from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FOUNDATION_SUITS, NUM_ACTIONS, FortyThievesRules

SEEDS = st.integers(0, 2**35 - 1)
#: Random choices that pick the moves: mostly a legal move, now and then any action at all.
CHOICES = st.lists(st.integers(0, 2**20), min_size=10, max_size=120)
RETURN = st.booleans()  # the foundation_return option
MANY = settings(max_examples=200, deadline=None)


def pick(mask_bits: int, choice: int, allow_illegal: bool = True) -> int:
    """The action a choice stands for: one in eight is any action, the others a legal one."""
    legal = [a for a in range(NUM_ACTIONS) if mask_bits >> a & 1]
    if (allow_illegal and choice % 8 == 0) or not legal:
        return (choice >> 3) % NUM_ACTIONS
    return legal[(choice >> 3) % len(legal)]


def bits_of(mask: np.ndarray) -> int:
    return sum(1 << int(a) for a in np.flatnonzero(mask))


def new_game(seed: int, foundation_return: bool = True, undo_limit: int | None = None) -> FortyThievesGame:
    rules = FortyThievesRules(foundation_return=foundation_return, undo_limit=undo_limit)
    return FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)


def cards_in_play(game: FortyThievesGame) -> Counter:
    """Columns + waste + foundations (expanded) + what is left in the stock."""
    have = Counter(c for col in game.columns for c in col)
    have.update(game.waste)
    for f, n in enumerate(game.foundations):
        have.update(FOUNDATION_SUITS[f] * 13 + r for r in range(n))
    have.update(game.stock[game.stock_pos :])
    return have


# --------------------------------------------------------------------------- (a) conservation


@MANY
@given(seed=SEEDS, foundation_return=RETURN, choices=CHOICES)
def test_cards_are_conserved(seed, foundation_return, choices):
    game = new_game(seed, foundation_return)
    deal = game.deal
    want = Counter([*(c for col in deal.columns for c in col), *deal.stock])
    assert want == Counter({c: 2 for c in range(52)})
    hashes = {game.position_key(): game.position_hash}
    for choice in choices:
        if choice % 6 == 1:
            game.undo()
        else:
            game.try_play(pick(game.legal_mask(), choice))
        assert cards_in_play(game) == want
        # the incremental position hash (the repetition rule's key) is a function of the position
        assert hashes.setdefault(game.position_key(), game.position_hash) == game.position_hash
        assert sum(map(len, game.columns)) + len(game.waste) + game.founded + game.stock_count == 104
        assert all(len(col) <= 16 for col in game.columns)
        assert all(0 <= n <= 13 for n in game.foundations)
        assert len(game.waste) <= game.stock_pos <= game.stock_seen <= 64
    assert len(set(hashes.values())) == len(hashes)  # and different positions hash apart


# --------------------------------------------------------------------------- (b) no leak


def _play(deal_text: str, foundation_return: bool, actions: list[int]) -> tuple[list, FortyThievesGame]:
    """Everything an agent gets, at reset and after every action, in flat and dict modes."""
    flat = gym.make(FORTYTHIEVES_ID, obs_mode="flat", render_mode="ansi", foundation_return=foundation_return)
    rich = gym.make(FORTYTHIEVES_ID, obs_mode="dict", render_mode="rgb_array", foundation_return=foundation_return)
    record = []

    def seen(results, i):
        out = []
        for env, result in zip((flat, rich), results):
            *head, info = result
            base = env.unwrapped
            assert info["deal_code"] == str(FortyThievesDeal.parse(deal_text))
            info = {k: v for k, v in info.items() if k != "deal_code"}
            out.append((head, info, base.public_view(), base.action_masks()))
        out.append([flat.unwrapped.action_name(a) for a in range(NUM_ACTIONS)])
        out.append(flat.render())
        if i == 0 or i == len(actions):  # pictures are slow: the first and the last
            out.append(rich.render())
        return out

    results = (flat.reset(options={"deal": deal_text}), rich.reset(options={"deal": deal_text}))
    record.append(seen(results, 0))
    for i, action in enumerate(actions, 1):
        record.append(seen((flat.step(action), rich.step(action)), i))
    return record, flat.unwrapped.game


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, foundation_return=RETURN, choices=st.lists(st.integers(0, 2**20), max_size=50), data=st.data())
def test_nothing_hidden_leaks(seed, foundation_return, choices, data):
    deal = FortyThievesDeal.from_seed(seed)
    # choose the actions by playing the original deal
    env = gym.make(FORTYTHIEVES_ID, foundation_return=foundation_return)
    _, info = env.reset(options={"deal": str(deal)})
    actions = []
    for choice in choices:
        # draw more often than uniform play would, to see deeper into the stock
        bits = bits_of(info["action_mask"])
        actions.append(209 if choice % 4 == 0 and bits >> 209 & 1 else pick(bits, choice))
        _, _, terminated, truncated, info = env.step(actions[-1])
        if terminated or truncated:
            break
    game = env.unwrapped.game
    drawn = game.stock_seen
    assert drawn == game.stock_pos  # the env has no undo
    # permute the stock positions never drawn, arbitrarily
    rest = data.draw(st.permutations(list(deal.stock[drawn:])))
    assert sorted(rest) == sorted(game.unseen_cards())
    other = ft_deal_string([list(c) for c in deal.columns], [*deal.stock[:drawn], *rest])

    original, game_a = _play(str(deal), foundation_return, actions)
    changed, game_b = _play(other, foundation_return, actions)
    assert_same(original, changed)
    assert game_a.stock_seen == game_b.stock_seen == drawn


# --------------------------------------------------------------------------- (c) undo


UNDO_FIELDS = ("columns", "waste", "stock_pos", "foundations", "score", "chain", "longest_chain")


def undo_state(game: FortyThievesGame) -> tuple:
    return (
        *(copy.deepcopy(getattr(game, f)) for f in UNDO_FIELDS),
        game.legal_mask(),
        {k: v for k, v in game.public_view().items() if k != "moves"},
    )


@MANY
@given(
    seed=SEEDS,
    foundation_return=RETURN,
    choices=CHOICES,
    undo_limit=st.one_of(st.none(), st.integers(0, 4)),
)
def test_undo_is_exact(seed, foundation_return, choices, undo_limit):
    game = new_game(seed, foundation_return, undo_limit)
    start = undo_state(game)
    snapshots: list[tuple] = []
    moves, stock_seen = 0, 0
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
        assert game.stock_seen >= stock_seen and game.stock_seen >= game.stock_pos  # seen stays seen
        stock_seen = game.stock_seen
        assert game.unseen_cards() == list(game.stock[stock_seen:])
    if undo_limit is None:
        while game.undo():
            pass
        assert undo_state(game) == start
        assert game.moves == moves and game.stock_seen == stock_seen
        assert not game.can_undo


# --------------------------------------------------------------------------- (d) mask


@MANY
@given(seed=SEEDS, foundation_return=RETURN, choices=CHOICES)
def test_mask_is_the_set_of_moves_the_core_accepts(seed, foundation_return, choices):
    env = gym.make(FORTYTHIEVES_ID, foundation_return=foundation_return, max_repeats=None)
    _, info = env.reset(options={"deal": str(FortyThievesDeal.from_seed(seed))})
    game = env.unwrapped.game
    for choice in [*choices, None]:
        mask = info["action_mask"]
        bits = game.legal_mask()
        assert bits_of(mask) == bits
        assert np.array_equal(env.unwrapped.action_masks(), mask.astype(bool))
        state = game.state_dict()
        for a in range(NUM_ACTIONS):
            reason = game.illegal_reason(a)
            assert (reason is None) == bool(bits >> a & 1), (a, reason)
            if reason is None:  # accepted: play it on a copy
                assert game.copy().try_play(a) is None
            else:  # refused with that reason, and nothing changed
                assert reason in game.REASONS
                assert game.try_play(a) == reason
        assert game.state_dict() == state
        if not foundation_return:
            assert not any(bits >> a & 1 for a in range(11 * 11, 209))
        assert bool(bits >> 209 & 1) == (game.stock_count > 0)
        if not bits:
            assert game.over
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
    foundation_return=RETURN,
    obs_mode=st.sampled_from(["flat", "dict", "oracle", "oracle_dict"]),
    reward=st.sampled_from(["score", "win", "progress"]),
    choices=CHOICES,
)
def test_identical_seeds_and_actions_give_identical_trajectories(seed, foundation_return, obs_mode, reward, choices):
    kwargs = dict(foundation_return=foundation_return, obs_mode=obs_mode, reward=reward)
    env_a, env_b = gym.make(FORTYTHIEVES_ID, **kwargs), gym.make(FORTYTHIEVES_ID, **kwargs)
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
@given(seed=SEEDS, foundation_return=RETURN, choices=CHOICES, obs_mode=st.sampled_from(["flat", "dict"]))
def test_an_illegal_action_changes_nothing(seed, foundation_return, choices, obs_mode):
    env = gym.make(FORTYTHIEVES_ID, foundation_return=foundation_return, obs_mode=obs_mode)
    obs, info = env.reset(options={"deal": str(FortyThievesDeal.from_seed(seed))})
    base = env.unwrapped
    game = base.game
    for choice in choices:
        bits = bits_of(info["action_mask"])
        illegal = [a for a in range(NUM_ACTIONS) if not bits >> a & 1]
        if choice % 3 == 0 and illegal:
            action = illegal[(choice >> 2) % len(illegal)]
            reason = game.illegal_reason(action)
            state, view, mask = game.state_dict(), base.public_view(), base.action_masks()
            obs2, reward, terminated, truncated, info2 = env.step(action)
            assert_same(obs2, obs)
            assert game.state_dict() == state
            assert base.public_view() == view and np.array_equal(base.action_masks(), mask)
            assert reward == -1.0 and info2["illegal_reason"] == reason is not None
            assert terminated == (not bits) and not truncated
            assert info2.keys() - info.keys() == {"illegal_reason", "illegal_message"}
            for key in ("score", "moves", "founded", "cleared", "chain", "longest_chain", "deal_code"):
                assert info2[key] == info[key]
            assert np.array_equal(info2["action_mask"], info["action_mask"])
            info = {k: v for k, v in info2.items() if not k.startswith("illegal")}
        else:
            if not bits:
                break
            obs, _, terminated, truncated, info = env.step(pick(bits, choice, allow_illegal=False))
            if terminated or truncated:
                break
