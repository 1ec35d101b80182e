"""Policy features for TriPeaks: the rank relations of the visible cards, computed from the flat observation.

A multilayer perceptron on the flat observation (``docs/observations.md``) has to learn by
itself which two cards are one rank apart: a relation between 13-value one-hots of 29 places
(28 slots and the waste), which it learns slowly. :class:`TriPeaksChainFeatures` hands it over:
a fixed (not learned) bilinear map of the observation, appended to it:

- ``playable[s]``: the face-up card of slot ``s`` is one rank from the waste top (or the waste
  top is a joker): 28 values;
- ``linked[s, t]`` (``s < t``): the face-up cards of slots ``s`` and ``t`` are one rank apart,
  i.e. one can follow the other in a chain: 378 values.

"One rank apart" follows the rules: with ``wrap`` (Easy) K and A are adjacent too. The features
use only the observation, so they show nothing the observation does not (the policy plays
fair); they are part of the policy (SB3 saves the class and its ``wrap`` with the model).

Use: ``MaskablePPO("MlpPolicy", env, policy_kwargs={"features_extractor_class":
TriPeaksChainFeatures, "features_extractor_kwargs": {"wrap": True}})``, or in a training config
``ppo: {features: chain}`` (:mod:`agents.training.train`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from solitaire_env.common.cards import SUITS
from solitaire_env.tripeaks.observe import FLAT_SIZE, SLOT_SIZE, WASTE_OFFSET
from solitaire_env.tripeaks.rules import NUM_ACTIONS, NUM_RANKS, NUM_SLOTS, follows

__all__ = ["TriPeaksChainFeatures", "adjacency", "rank_relations"]

#: Places in a slot block of the flat observation: 0 face down, 1 removed, 2..14 rank one-hot,
#: 15..18 suit (solitaire_env.tripeaks.observe).
SLOT_FACE_DOWN, SLOT_REMOVED, SLOT_RANK = 0, 1, 2
#: Places in the waste block: 0..12 rank one-hot, 13..16 suit, 17 joker, 18 empty.
WASTE_JOKER = NUM_RANKS + len(SUITS)
WASTE_EMPTY = WASTE_JOKER + 1
_RANK_START = SLOT_RANK
_WASTE_JOKER = WASTE_JOKER


def adjacency(wrap: bool) -> np.ndarray:
    """The 13 x 13 matrix of ranks one apart (A..K; with ``wrap`` K-A too)."""
    ranks = range(1, NUM_RANKS + 1)
    return np.array([[1.0 if follows(r, q, wrap) else 0.0 for q in ranks] for r in ranks], dtype=np.float32)


def rank_relations(
    observations: torch.Tensor, adj: torch.Tensor, pair_s: torch.Tensor, pair_t: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``playable`` (B, 28) and ``linked`` (B, 378) of flat observations (the module docstring);
    ``adj`` is :func:`adjacency`, ``pair_s`` / ``pair_t`` the slot pairs ``s < t``."""
    batch = observations.shape[0]
    slots = observations[:, : NUM_SLOTS * SLOT_SIZE].reshape(batch, NUM_SLOTS, SLOT_SIZE)
    ranks = slots[:, :, _RANK_START : _RANK_START + NUM_RANKS]  # (B, 28, 13), zero unless face up
    waste = observations[:, WASTE_OFFSET : WASTE_OFFSET + NUM_RANKS]  # (B, 13)
    joker = observations[:, WASTE_OFFSET + _WASTE_JOKER : WASTE_OFFSET + _WASTE_JOKER + 1]  # (B, 1)
    near = ranks @ adj  # (B, 28, 13): the ranks one apart from each slot's card
    playable = torch.einsum("bsr,br->bs", near, waste) + joker * ranks.sum(dim=2)
    linked = torch.einsum("bsr,btr->bst", near, ranks)[:, pair_s, pair_t]
    return playable, linked


class TriPeaksChainFeatures(BaseFeaturesExtractor):
    """The flat TriPeaks observation followed by ``playable`` (28) and ``linked`` (378); see the module docstring.

    An observation longer than the flat one (the flat one followed by :mod:`agents.training.advice`'s
    one-hot) is passed on whole, the features appended after it."""

    def __init__(self, observation_space: spaces.Box, wrap: bool = True) -> None:
        shape = observation_space.shape
        if shape not in ((FLAT_SIZE,), (FLAT_SIZE + NUM_ACTIONS,)):
            raise ValueError(
                f"TriPeaksChainFeatures reads the flat TriPeaks observation ({FLAT_SIZE},), or it followed "
                f"by the advice ({FLAT_SIZE + NUM_ACTIONS},), got {observation_space}"
            )
        pairs = np.triu_indices(NUM_SLOTS, k=1)
        super().__init__(observation_space, shape[0] + NUM_SLOTS + len(pairs[0]))
        self.wrap = bool(wrap)
        self.register_buffer("adj", torch.as_tensor(adjacency(self.wrap)))
        self.register_buffer("pair_s", torch.as_tensor(pairs[0], dtype=torch.long))
        self.register_buffer("pair_t", torch.as_tensor(pairs[1], dtype=torch.long))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        playable, linked = rank_relations(observations, self.adj, self.pair_s, self.pair_t)  # type: ignore[arg-type]
        return torch.cat([observations, playable, linked], dim=1)

    def extra_repr(self) -> str:
        return f"wrap={self.wrap}"


def chain_policy_kwargs(wrap: bool) -> dict[str, Any]:
    """``policy_kwargs`` that put :class:`TriPeaksChainFeatures` in front of the MLP."""
    return {"features_extractor_class": TriPeaksChainFeatures, "features_extractor_kwargs": {"wrap": bool(wrap)}}
