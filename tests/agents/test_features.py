"""agents/training/features.py: the chain features say what the rules say about the visible cards."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

import gymnasium as gym  # noqa: E402

import solitaire_env  # noqa: E402, F401
from agents.players.scorers import (  # noqa: E402
    SLOT_FACE_DOWN,
    SLOT_RANK,
    SLOT_REMOVED,
    WASTE_EMPTY,
    WASTE_JOKER,
    adjacency,
)
from agents.training.features import TriPeaksChainFeatures  # noqa: E402
from solitaire_env.common.cards import JOKER, rank_of, suit_of  # noqa: E402
from solitaire_env.tripeaks.deal import TriPeaksDeal  # noqa: E402
from solitaire_env.tripeaks.game import TriPeaksGame  # noqa: E402
from solitaire_env.tripeaks.observe import FLAT_SIZE, SLOT_SIZE, WASTE_OFFSET, TriPeaksObserver  # noqa: E402
from solitaire_env.tripeaks.rules import NUM_RANKS, NUM_SLOTS, TriPeaksRules  # noqa: E402


def test_adjacency_follows_the_wrap_rule() -> None:
    easy, classic = adjacency(True), adjacency(False)
    assert easy[0, 12] == easy[12, 0] == 1 and classic[0, 12] == classic[12, 0] == 0
    assert (easy == easy.T).all() and np.trace(easy) == 0
    assert easy.sum() == 26 and classic.sum() == 24


@pytest.mark.parametrize(("wrap", "jokers"), [(True, 0), (False, 0), (True, 2)])
def test_playable_is_the_legal_removals(wrap: bool, jokers: int) -> None:
    """Over random episodes: playable[s] == 1 exactly for the legal removals (standard faces:
    a face-up card is an exposed one), and linked[s, t] == 1 exactly for face-up cards one rank apart."""
    env = gym.make("solitaire_env/TriPeaks-v0", wrap=wrap, jokers=jokers)
    features = TriPeaksChainFeatures(env.observation_space, wrap=wrap)
    pairs = np.transpose(np.triu_indices(NUM_SLOTS, k=1))
    rng = np.random.default_rng(7)
    checked = 0
    torch.set_num_threads(1)  # tiny tensors: threads only add waiting
    for episode in range(12):
        obs, _ = env.reset(seed=episode)
        done = False
        while not done:
            out = features(torch.as_tensor(obs[None])).numpy()[0]
            assert out.shape == (FLAT_SIZE + NUM_SLOTS + len(pairs),)
            assert np.array_equal(out[:FLAT_SIZE], obs)
            game = env.unwrapped.game
            mask = env.unwrapped.action_masks()
            playable = out[FLAT_SIZE : FLAT_SIZE + NUM_SLOTS]
            waste_empty = obs[532 + 18] == 1
            if not waste_empty:
                assert np.array_equal(playable > 0.5, mask[:NUM_SLOTS]), (episode, playable, mask)
            linked = out[FLAT_SIZE + NUM_SLOTS :]
            up = [s for s in range(NUM_SLOTS) if game.face_up >> s & 1 and not game.removed >> s & 1]
            for k, (s, t) in enumerate(pairs):
                expect = 0
                if s in up and t in up:
                    d = abs(game.tableau[s] % 13 - game.tableau[t] % 13)
                    expect = int(d == 1 or (wrap and d == 12))
                assert linked[k] == expect
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            checked += 1
    assert checked > 300


def test_layout_places_are_the_observers() -> None:
    """The places the features (and agents.training.afterstate) read in a slot block and in the waste
    block are where the observer writes face down, removed, the rank, a joker and an empty waste."""
    rules = TriPeaksRules(jokers=2, waste_start="empty")
    rng = np.random.default_rng(3)
    seen = {"face_down": 0, "removed": 0, "face_up": 0, "joker": 0, "empty": 0, "card": 0}
    for seed in range(20):
        game = TriPeaksGame(TriPeaksDeal.from_seed(seed, jokers=2), rules)
        observer = TriPeaksObserver("flat")
        while True:
            obs = observer.encode(game)
            for s in range(NUM_SLOTS):
                block = obs[SLOT_SIZE * s : SLOT_SIZE * (s + 1)]
                if game.removed >> s & 1:
                    kind, place, ones = "removed", SLOT_REMOVED, 1
                elif game.face_up >> s & 1:
                    kind, place, ones = "face_up", SLOT_RANK + rank_of(game.tableau[s]) - 1, 2
                else:
                    kind, place, ones = "face_down", SLOT_FACE_DOWN, 1
                assert block[place] == 1 and block.sum() == ones, (seed, s, kind)
                seen[kind] += 1
            waste = obs[WASTE_OFFSET : WASTE_OFFSET + SLOT_SIZE]
            top = game.waste_top
            if top is None:
                assert waste[WASTE_EMPTY] == 1 and waste.sum() == 1
                seen["empty"] += 1
            elif top == JOKER:
                assert waste[WASTE_JOKER] == 1 and waste.sum() == 1
                seen["joker"] += 1
            else:
                assert waste[rank_of(top) - 1] == waste[NUM_RANKS + suit_of(top)] == 1 and waste.sum() == 2
                seen["card"] += 1
            actions = game.legal_actions()
            if not actions:
                break
            game.play(int(rng.choice(actions)))
    assert min(seen.values()) > 0, seen


def test_refuses_other_observations() -> None:
    env = gym.make("solitaire_env/FortyThieves-v0")
    with pytest.raises(ValueError, match="flat TriPeaks observation"):
        TriPeaksChainFeatures(env.observation_space)
