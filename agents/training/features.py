"""Policy features for TriPeaks: the rank relations of the visible cards, computed from the flat observation.

A multilayer perceptron on the flat observation (``docs/environments.md``) has to learn by
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

from agents.players.scorers import adjacency
from agents.players.scorers import rank_relations as numpy_relations
from solitaire_env.tripeaks.observe import FLAT_SIZE
from solitaire_env.tripeaks.rules import NUM_ACTIONS, NUM_SLOTS

__all__ = ["TriPeaksChainFeatures", "rank_relations"]


def rank_relations(observations: torch.Tensor, wrap: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``playable`` (B, 28) and ``linked`` (B, 378) of flat observations (the module docstring),
    from :func:`agents.players.scorers.rank_relations` (a fixed map: no gradient flows through)."""
    playable, linked = numpy_relations(observations.detach().cpu().numpy(), wrap)
    return torch.as_tensor(playable), torch.as_tensor(linked)


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
        playable, linked = rank_relations(observations, self.wrap)
        return torch.cat([observations, playable, linked], dim=1)

    def extra_repr(self) -> str:
        return f"wrap={self.wrap}"


def chain_policy_kwargs(wrap: bool) -> dict[str, Any]:
    """``policy_kwargs`` that put :class:`TriPeaksChainFeatures` in front of the MLP."""
    return {"features_extractor_class": TriPeaksChainFeatures, "features_extractor_kwargs": {"wrap": bool(wrap)}}
