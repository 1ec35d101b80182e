"""A MaskablePPO policy whose logits are one score per action from its features extractor.

Both scorer policies (TriPeaks' :class:`~agents.training.afterstate.AfterstatePolicy` and Forty
Thieves' :class:`~agents.training.move_policy.MovePolicy`) are this: the features extractor
scores every move with one shared network and puts the scores first in its output; the actor
has no layers of its own (its head takes those columns); ``net_arch`` is the critic's layers.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

__all__ = ["FirstColumns", "ScorePolicy"]


class FirstColumns(nn.Module):
    """The action head: the features' first ``n`` columns (the scores)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, : self.n]


class ScorePolicy(MaskableActorCriticPolicy):
    """Logits = the features extractor's first columns; the extractor's ``head`` (its scorer's
    last layer) starts near zero, so that the first moves are near uniform, as SB3's action net.

    Subclasses name their extractor (``extractor``), the critic's default layers
    (``default_arch``) and whether the critic shares the extractor (``share``)."""

    extractor: ClassVar[type[nn.Module]]
    default_arch: ClassVar[list[int]] = [256, 256]
    share: ClassVar[bool] = True

    def __init__(
        self, observation_space: spaces.Space[Any], action_space: spaces.Space[Any], *args: Any, **kwargs: Any
    ) -> None:
        arch = kwargs.pop("net_arch", None)
        vf = list(arch) if isinstance(arch, (list, tuple)) else list(self.default_arch)
        kwargs["net_arch"] = {"pi": [], "vf": vf}
        kwargs.setdefault("features_extractor_class", self.extractor)
        kwargs.setdefault("share_features_extractor", self.share)
        super().__init__(observation_space, action_space, *args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = FirstColumns(int(self.action_space.n))  # type: ignore[attr-defined]
        head: Any = self.features_extractor.head
        nn.init.orthogonal_(head.weight, gain=0.01)
        nn.init.zeros_(head.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
