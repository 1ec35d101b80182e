"""The 48 symmetries of TriPeaks positions (agents/training/symmetry.py) against the rules core.

Each random game is played side by side with its image (the deal's suits renamed and, for the
mirror, its slots mirrored; the moves renumbered); at every step the image's observation must be
the original's under :func:`observation_index` and its legal moves the original's under
:func:`action_index`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.base import public_state
from agents.training.advice import public_advice
from agents.training.symmetry import (
    MIRROR_SLOT,
    SYMMETRIES,
    action_index,
    augment,
    observation_index,
    rename_suit,
    symmetry_tables,
)
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.observe import FLAT_SIZE, TriPeaksObserver
from solitaire_env.tripeaks.rules import COVERS, NUM_SLOTS, TriPeaksRules


def _image_deal(deal: TriPeaksDeal, mirror: bool, suits: tuple[int, ...]) -> TriPeaksDeal:
    moves = action_index(mirror)
    tableau = tuple(rename_suit(deal.tableau[int(moves[s])], suits) for s in range(NUM_SLOTS))
    return TriPeaksDeal(tableau, rename_suit(deal.waste, suits), tuple(rename_suit(c, suits) for c in deal.stock))


def _mask(game: TriPeaksGame) -> np.ndarray:
    bits = game.legal_mask()
    return np.array([bits >> a & 1 for a in range(NUM_SLOTS + 1)], dtype=bool)


def test_the_mirror_keeps_the_layout() -> None:
    assert sorted(MIRROR_SLOT) == list(range(NUM_SLOTS))
    assert all(MIRROR_SLOT[MIRROR_SLOT[s]] == s for s in range(NUM_SLOTS))
    assert MIRROR_SLOT[:3] == (2, 1, 0) and MIRROR_SLOT[18] == 27 and MIRROR_SLOT[9] == 17
    for s in range(NUM_SLOTS):
        assert sorted(MIRROR_SLOT[t] for t in COVERS[s]) == sorted(COVERS[MIRROR_SLOT[s]])


def test_there_are_48_distinct_permutations() -> None:
    obs, moves = symmetry_tables()
    assert obs.shape == (48, FLAT_SIZE) and moves.shape == (48, NUM_SLOTS + 1)
    assert len({row.tobytes() for row in obs}) == 48
    for row in obs:
        assert sorted(row) == list(range(FLAT_SIZE))
    assert (moves[:, NUM_SLOTS] == NUM_SLOTS).all()  # the draw stays
    with_advice, _ = symmetry_tables(FLAT_SIZE + NUM_SLOTS + 1)
    assert (with_advice[:, :FLAT_SIZE] == obs).all()
    assert (with_advice[:, FLAT_SIZE:] - FLAT_SIZE == moves).all()
    with pytest.raises(ValueError, match="flat observation"):
        observation_index(False, (0, 1, 2, 3), 100)


@pytest.mark.parametrize("rules", [TriPeaksRules(), TriPeaksRules(wrap=False), TriPeaksRules(jokers=2)])
def test_image_games_go_through_the_image_positions(rules: TriPeaksRules) -> None:
    rng = np.random.default_rng(7)
    observer = TriPeaksObserver("flat")
    checked = 0
    for seed in range(6):
        deal = TriPeaksDeal.from_seed(seed, jokers=rules.jokers)
        for mirror, suits in SYMMETRIES:
            index, moves = observation_index(mirror, suits), action_index(mirror)
            inverse = np.argsort(moves)  # the image of move a is inverse[a]
            game, image = TriPeaksGame(deal, rules), TriPeaksGame(_image_deal(deal, mirror, suits), rules)
            image_observer = TriPeaksObserver("flat")
            while not game.over:
                obs = np.array(observer.encode(game))
                assert np.array_equal(np.array(image_observer.encode(image)), obs[index])
                mask = _mask(game)
                assert np.array_equal(_mask(image), mask[moves])
                action = int(rng.choice(np.flatnonzero(mask)))
                game.play(action)
                image.play(int(inverse[action]))
                checked += 1
            assert image.won == game.won and image.score == game.score
    assert checked > 1000


def test_suit_renamings_keep_the_advice() -> None:
    """The base policy reads ranks only: the image of its move under a renaming of the suits
    is its move in the image position (the mirror is measured in docs/research_notes.md, not held)."""
    rng = np.random.default_rng(3)
    for seed in range(4):
        deal = TriPeaksDeal.from_seed(seed)
        for mirror, suits in SYMMETRIES[1:24]:
            game, image = TriPeaksGame(deal), TriPeaksGame(_image_deal(deal, mirror, suits))
            actions: list[int] = []
            while not game.over:
                advice = public_advice(public_state(game, actions))
                assert public_advice(public_state(image, actions)) == advice
                action = int(rng.choice(game.legal_actions()))
                game.play(action)
                image.play(action)
                actions.append(action)


def test_augment_moves_each_row_by_one_symmetry() -> None:
    rng = np.random.default_rng(0)
    width = FLAT_SIZE + NUM_SLOTS + 1
    obs_table, move_table = symmetry_tables(width)
    tables = (torch.as_tensor(obs_table), torch.as_tensor(move_table))
    observations = torch.as_tensor(rng.random((300, width)), dtype=torch.float32)
    mask = torch.as_tensor(rng.random((300, NUM_SLOTS + 1)) < 0.3)
    values = torch.as_tensor(rng.random((300, NUM_SLOTS + 1)), dtype=torch.float32)
    generator = torch.Generator().manual_seed(1)
    got_obs, got_mask, got_values = augment(tables, observations, mask, values, generator=generator)
    seen = set()
    for i in range(300):
        # the one symmetry whose permutation gives this row, the same for its moves
        (k,) = [k for k in range(48) if torch.equal(got_obs[i], observations[i, obs_table[k]])]
        seen.add(k)
        assert torch.equal(got_mask[i], mask[i, move_table[k]])
        assert torch.equal(got_values[i], values[i, move_table[k]])
    assert len(seen) > 40  # random ones, not one for all
