"""The symmetries of a TriPeaks position, to multiply a learner's data (``pretrain.symmetry``).

Two changes of a TriPeaks deal leave the game the same game:

- **the suits**: the rules read ranks only (a card fits the waste top by rank; the scorings
  count cards, chains and peaks), so renaming the suits (any of the 24 permutations of C D H S)
  maps every legal move to the same move and every outcome to the same outcome;
- **the mirror**: the layout of the three peaks is symmetric left to right (slot s and
  :data:`MIRROR_SLOT` ``[s]`` lie at mirror places, and each covers the mirror images of the
  cards the other covers), so the mirrored deal, played with the mirrored moves, goes through
  the mirrored positions.

So the 48 combinations map a position, its legal moves and their values to another position
with the same legal moves (renumbered) and the same values. The flat observation
(``docs/environments.md``) changes by a fixed permutation of its entries: slot blocks move with
the mirror, and the suit places of the slots, of the waste and of the unseen cards follow the
renaming. :func:`observation_index` gives that permutation as a gather index (``new =
old[index]``), :func:`action_index` the moves' (the draw stays), and :func:`augment` applies a
random one of the 48 to each row of a batch (observations, legal masks, move values).

One caveat, for the base policy of the ``rollout`` agent (the advice of ``agents/training/advice.py``, and
the playouts behind the move values the warm start fits): it reads ranks only, so a renaming of
the suits changes nothing for it; but where it breaks a tie between moves it rates the same, or
cuts its search of chains short, it goes in slot order, which the mirror reverses. So in a
mirrored position the advice is the image of the original advice, which the base policy itself
may not give there (docs/training.md measures how often, in its section on the symmetries).

``tests/agents/test_symmetry.py`` plays random games of the rules core side by side with their images
under all 48 and checks the observations and legal moves against these permutations.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np

from solitaire_env.common.cards import JOKER, RANKS, SUITS
from solitaire_env.tripeaks.observe import FLAT_SIZE, SLOT_SIZE, UNSEEN_OFFSET, WASTE_OFFSET
from solitaire_env.tripeaks.rules import DRAW, NUM_ACTIONS, NUM_RANKS, NUM_SLOTS, ROW_LENGTHS, ROW_STARTS

__all__ = [
    "MIRROR_SLOT",
    "SYMMETRIES",
    "action_index",
    "augment",
    "observation_index",
    "rename_suit",
    "symmetry_tables",
]

NUM_SUITS = len(SUITS)
assert len(RANKS) == NUM_RANKS

#: ``MIRROR_SLOT[s]``: the slot at the mirror place of slot ``s`` (its own row, read backwards).
MIRROR_SLOT: tuple[int, ...] = tuple(
    2 * start + length - 1 - s for start, length in zip(ROW_STARTS, ROW_LENGTHS) for s in range(start, start + length)
)

#: The 48 symmetries: (mirror or not, the suit renaming ``suits[old suit] = new suit``).
SYMMETRIES: tuple[tuple[bool, tuple[int, ...]], ...] = tuple(
    (mirror, suits) for mirror in (False, True) for suits in permutations(range(NUM_SUITS))
)

# places inside a slot block / the waste block: rank one-hot, then the four suits
_WASTE_SUIT = NUM_RANKS
_SLOT_SUIT = 2 + NUM_RANKS  # after face down, removed and the 13 ranks


def rename_suit(card: int, suits: tuple[int, ...]) -> int:
    """Card id ``card`` with its suit renamed (``suit * 13 + rank - 1``); a joker (52) stays."""
    if card == JOKER:
        return card
    return suits[card // NUM_RANKS] * NUM_RANKS + card % NUM_RANKS


def action_index(mirror: bool) -> np.ndarray:
    """(29,) gather index of the moves: ``new[a] = old[index[a]]`` (the mirror is its own inverse)."""
    slots = list(MIRROR_SLOT) if mirror else list(range(NUM_SLOTS))
    return np.array([*slots, DRAW], dtype=np.int64)


def observation_index(mirror: bool, suits: tuple[int, ...], width: int = FLAT_SIZE) -> np.ndarray:
    """(width,) gather index of a flat observation (``width`` 607, or 636 with the advice after
    it): ``new = old[index]`` is the observation of the image position."""
    if width not in (FLAT_SIZE, FLAT_SIZE + NUM_ACTIONS):
        raise ValueError(f"want the flat observation's width ({FLAT_SIZE}) or it with the advice, got {width}")
    index = np.arange(width, dtype=np.int64)
    source_suit = [suits.index(v) for v in range(NUM_SUITS)]  # the old suit now called v
    moves = action_index(mirror)
    for s in range(NUM_SLOTS):  # new slot s holds what old slot moves[s] held
        old = SLOT_SIZE * int(moves[s])
        index[SLOT_SIZE * s : SLOT_SIZE * (s + 1)] = np.arange(old, old + SLOT_SIZE)
        for v in range(NUM_SUITS):
            index[SLOT_SIZE * s + _SLOT_SUIT + v] = old + _SLOT_SUIT + source_suit[v]
    for v in range(NUM_SUITS):
        index[WASTE_OFFSET + _WASTE_SUIT + v] = WASTE_OFFSET + _WASTE_SUIT + source_suit[v]
        for r in range(NUM_RANKS):
            index[UNSEEN_OFFSET + v * NUM_RANKS + r] = UNSEEN_OFFSET + source_suit[v] * NUM_RANKS + r
    if width > FLAT_SIZE:  # the advice: a one-hot over the moves
        index[FLAT_SIZE:] = FLAT_SIZE + moves
    return index


def symmetry_tables(width: int = FLAT_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """The gather indices of all 48 symmetries: observations (48, width), moves (48, 29)."""
    obs = np.stack([observation_index(m, s, width) for m, s in SYMMETRIES])
    moves = np.stack([action_index(m) for m, _ in SYMMETRIES])
    return obs, moves


def augment(tables: tuple[Any, Any], observations: Any, *per_move: Any, generator: Any = None) -> tuple[Any, ...]:
    """Each row of a batch (torch tensors) under a uniformly random one of the 48 symmetries.

    ``tables``: :func:`symmetry_tables` as torch tensors; ``per_move``: (B, 29) tensors (legal
    masks, move values) renumbered with the moves. Returns the observations, then ``per_move``."""
    import torch

    obs_table, move_table = tables
    pick = torch.randint(len(obs_table), (observations.shape[0],), generator=generator)
    out = [torch.gather(observations, 1, obs_table[pick])]
    moves = move_table[pick]
    out += [torch.gather(x, 1, moves) for x in per_move]
    return tuple(out)
