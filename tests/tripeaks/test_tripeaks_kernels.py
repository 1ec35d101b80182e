"""The TriPeaks rule primitives: each numba twin (solitaire_env/tripeaks/kernels.py) against
its Python twin (solitaire_env/tripeaks/rules.py), and both against TriPeaksGame.

The small domains are checked exhaustively (every key and rank, every rank set, with and
without the K-A wrap); the position primitives on the positions of random games played over
many seeds and every rule option (wrap, when_stuck, open faces, an empty waste start, jokers).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from solitaire_env.common.cards import JOKER, rank_of
from solitaire_env.tripeaks import kernels as K
from solitaire_env.tripeaks import rules as R
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import ALL_SLOTS, DRAW, NUM_KEYS, NUM_RANKS, NUM_SLOTS, TriPeaksRules

WRAPS = (True, False)


# ----------------------------------------------------------------------------- small domains


@pytest.mark.parametrize("wrap", WRAPS)
def test_follows_every_key_and_rank(wrap: bool) -> None:
    for key, rank in itertools.product(range(NUM_KEYS), range(NUM_KEYS)):
        py = R.follows(key, rank, wrap)
        assert K.follows(key, rank, wrap) == py, (key, rank, wrap)
        if key == 0:
            assert py  # an empty waste or a joker takes anything
        elif rank == 0:
            assert not py  # a card not known follows nothing else
        else:
            assert py == (rank in R.adjacent_ranks(key, wrap))
            assert py == (abs(key - rank) == 1 or (wrap and {key, rank} == {1, NUM_RANKS}))


@pytest.mark.parametrize("wrap", WRAPS)
def test_follows_is_symmetric_and_k_a_only_with_wrap(wrap: bool) -> None:
    for a, b in itertools.product(range(1, NUM_KEYS), repeat=2):
        assert R.follows(a, b, wrap) == R.follows(b, a, wrap)
    assert R.follows(NUM_RANKS, 1, wrap) == wrap and R.follows(1, NUM_RANKS, wrap) == wrap
    assert sum(len(R.adjacent_ranks(r, wrap)) for r in range(1, NUM_KEYS)) == (26 if wrap else 24)


@pytest.mark.parametrize("wrap", WRAPS)
def test_near_ranks_every_rank_set(wrap: bool) -> None:
    for bits in range(1 << NUM_RANKS):
        rank_set = bits << 1
        py = R.near_ranks(rank_set, wrap)
        assert K.near_ranks(np.int64(rank_set), wrap) == py, (rank_set, wrap)
        expected = 0
        for q in range(1, NUM_KEYS):
            if any(rank_set >> r & 1 and R.follows(r, q, wrap) for r in range(1, NUM_KEYS)):
                expected |= 1 << q
        assert py == expected
        # bits outside 1..13 (bit 0 stands for a joker elsewhere) are ignored by both
        noisy = rank_set | 1 | 1 << (NUM_RANKS + 1)
        assert R.near_ranks(noisy, wrap) == py == K.near_ranks(np.int64(noisy), wrap)


def test_bit_index_and_popcount() -> None:
    for k in range(63):
        assert K.bit_index(np.int64(1) << k) == k
    rng = random.Random(3)
    for _ in range(2000):
        x = rng.getrandbits(62)
        assert K.popcount(np.int64(x)) == x.bit_count()
    for k in range(36):
        assert K.BIT_OF_MOD37[(1 << k) % 37] == k


@pytest.mark.parametrize("wrap", WRAPS)
def test_accept_masks_on_random_rank_layouts(wrap: bool) -> None:
    rng = random.Random(11 + wrap)
    out = np.empty(NUM_KEYS, np.int64)
    for _ in range(500):
        ranks = [rng.choice(range(NUM_KEYS)) for _ in range(NUM_SLOTS)]  # 0: not known
        py = R.accept_masks(ranks, wrap)
        K.accept_masks(np.array(ranks, np.int64), wrap, out)
        assert tuple(out.tolist()) == py
        assert py[0] == ALL_SLOTS
        for key in range(1, NUM_KEYS):
            assert py[key] == sum(1 << s for s, r in enumerate(ranks) if R.follows(key, r, wrap))


def test_card_key_every_card() -> None:
    assert R.card_key(None) == R.card_key(-1) == R.card_key(JOKER) == 0  # no card, a joker
    assert K.card_key(-1) == K.card_key(JOKER) == 0
    for card in range(-1, JOKER + 2):  # no card (-1), every card id, the joker, one past it
        py = R.card_key(card)
        assert K.card_key(card) == py, card
        assert K.card_key(np.int64(card)) == py, card
        if 0 <= card < R.DECK_SIZE:
            assert py == rank_of(card) and 1 <= py <= NUM_RANKS


@pytest.mark.parametrize("stock_left", [0, 1, 5])
@pytest.mark.parametrize("removable", [0, 1, 1 << 27])
@pytest.mark.parametrize("when_stuck", [False, True])
@pytest.mark.parametrize("removed", [0, 5, ALL_SLOTS])
def test_draw_and_legal_bits_small(stock_left: int, removable: int, when_stuck: bool, removed: int) -> None:
    py_draw = R.draw_allowed(stock_left, removable, when_stuck)
    assert py_draw == (stock_left > 0 and not (when_stuck and removable))
    assert K.draw_allowed(stock_left, np.int64(removable), when_stuck) == py_draw
    py = R.legal_bits(removed, removable, stock_left, when_stuck)
    assert K.legal_bits(np.int64(removed), np.int64(removable), stock_left, when_stuck) == py
    assert py == (0 if removed == ALL_SLOTS else removable | (py_draw << DRAW))


# ----------------------------------------------------------------------------- random positions

RULE_OPTIONS = [
    TriPeaksRules(wrap=wrap, draw=draw, faces=faces, waste_start=waste, jokers=jokers)
    for wrap in WRAPS
    for draw in ("anytime", "when_stuck")
    for faces in ("standard", "open")
    for waste in ("card", "empty")
    for jokers in (0, 1, 2)
]


def _check_position(game: TriPeaksGame, accept: np.ndarray) -> None:
    """Every position primitive, both twins, against the game."""
    removed, exposed = game.removed, game.exposed
    assert R.exposed_slots(removed) == exposed == K.exposed_slots(np.int64(removed))
    key = R.card_key(game.waste_top)
    assert K.card_key(-1 if game.waste_top is None else game.waste_top) == key
    removable = exposed & int(accept[key])
    assert removable == game.removable()
    stock_left = game.stock_count
    when_stuck = game.rules.draw == "when_stuck"
    legal = game.legal_mask()
    assert R.legal_bits(removed, removable, stock_left, when_stuck) == legal
    assert K.legal_bits(np.int64(removed), np.int64(removable), stock_left, when_stuck) == legal
    if not game.won:
        draw = bool(legal >> DRAW & 1)
        assert R.draw_allowed(stock_left, removable, when_stuck) == draw
        assert K.draw_allowed(stock_left, np.int64(removable), when_stuck) == draw
    for s in range(NUM_SLOTS):  # what the game says of every removal is what the primitive says
        if removable >> s & 1:
            assert R.follows(key, game.tableau[s] % 13 + 1, game.rules.wrap)


def test_primitives_match_the_game_on_random_play() -> None:
    """Thousands of positions of random games: every option, many seeds."""
    positions = removals = 0
    accept = np.empty(NUM_KEYS, np.int64)
    for seed in range(240):
        rules = RULE_OPTIONS[seed % len(RULE_OPTIONS)]
        game = TriPeaksGame(TriPeaksDeal.from_seed(seed * 7919 + 1, jokers=rules.jokers), rules)
        ranks = [card % 13 + 1 for card in game.tableau]
        py_accept = R.accept_masks(ranks, rules.wrap)
        K.accept_masks(np.array(ranks, np.int64), rules.wrap, accept)
        assert tuple(accept.tolist()) == py_accept
        rng = random.Random(seed)
        while True:
            _check_position(game, accept)
            positions += 1
            actions = game.legal_actions()
            if not actions:
                break
            action = rng.choice(actions)
            before_removed, before_exposed = game.removed, game.exposed
            game.play(action)
            if action == DRAW:
                continue
            removals += 1
            turned = game.exposed & ~before_exposed
            assert R.newly_exposed(game.removed, action) == turned
            assert K.newly_exposed(np.int64(game.removed), action) == turned
            expected = (game.removed, game.exposed)
            assert R.remove_slot(before_removed, before_exposed, action) == expected
            got = K.remove_slot(np.int64(before_removed), np.int64(before_exposed), action)
            assert (int(got[0]), int(got[1])) == expected
    assert positions > 5000 and removals > 3000


def _random_removed(rng: random.Random) -> int:
    """A removed-slot mask a game can reach: exposed cards removed in a random order."""
    removed = 0
    for _ in range(rng.randrange(NUM_SLOTS + 1)):
        exposed = R.exposed_slots(removed)
        removed |= 1 << rng.choice([s for s in range(NUM_SLOTS) if exposed >> s & 1])
    return removed


def test_exposure_on_random_removed_masks() -> None:
    """Removal orders that random play with the rank rule seldom reaches."""
    rng = random.Random(5)
    for _ in range(3000):
        removed = _random_removed(rng)
        py = R.exposed_slots(removed)
        assert K.exposed_slots(np.int64(removed)) == py
        for s in range(NUM_SLOTS):
            if py >> s & 1:
                after = removed | 1 << s
                assert K.newly_exposed(np.int64(after), s) == R.newly_exposed(after, s)
                assert R.newly_exposed(after, s) == R.exposed_slots(after) & ~py
