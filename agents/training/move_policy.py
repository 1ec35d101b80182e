"""A Forty Thieves policy that scores each legal move's row of move features with one network.

The observation is :mod:`agents.training.move_features`' table: 210 rows (one per action, zero
for an illegal one) and the position's numbers. One shared multilayer perceptron (the *scorer*)
maps a legal row, followed by the position's numbers, to the move's logit; what the moves have in
common is learned once, as in the TriPeaks afterstate policy (:mod:`agents.training.afterstate`).
The critic reads its own copy of these features (the scores of its own scorer, the position's
numbers and the rows' mean and maximum over the legal moves) through its own layers, so that the
value loss never moves the actor's scorer.

The *lookahead bonus* (:func:`set_lookahead_bonus`, a buffer saved with the model, 0 unless set)
is added to the score of the ``lookahead`` agent's move (the row whose
:data:`~agents.training.move_features.LOOKAHEAD_ROW` is 1). A policy fitted to a stronger
teacher's moves then leaves the lookahead's move only where it is sure: half of another plan is
worse than either plan (docs/research_notes.md).

Use: ``MaskablePPO(MovePolicy, env)``, or in a training config ``ppo: {features: moves}``
(:mod:`agents.training.train`), where ``net_arch`` is the scorer's layers and the critic's.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.players.scorers import move_inputs
from agents.training.move_features import LOOKAHEAD_ROW, MOVE_FEATURES, OBS_SIZE, POSITION_FEATURES
from agents.training.score_policy import ScorePolicy
from solitaire_env.fortythieves.rules import NUM_ACTIONS

__all__ = ["MoveFeaturesExtractor", "MovePolicy", "lookahead_bonus", "move_policy_kwargs", "set_lookahead_bonus"]

_ROWS = NUM_ACTIONS * MOVE_FEATURES


class MoveFeaturesExtractor(BaseFeaturesExtractor):
    """The 210 moves' scores (0 for an illegal move), then the position's numbers and the legal
    rows' mean and maximum (the critic's input)."""

    lookahead_bonus: torch.Tensor  # a buffer: see the module docstring

    def __init__(self, observation_space: spaces.Box, scorer: tuple[int, ...] | list[int] = (128, 128)) -> None:
        if observation_space.shape != (OBS_SIZE,):
            raise ValueError(f"MoveFeaturesExtractor reads the move features ({OBS_SIZE},), got {observation_space}")
        super().__init__(observation_space, NUM_ACTIONS + POSITION_FEATURES + 2 * MOVE_FEATURES)
        layers: list[nn.Module] = []
        width = MOVE_FEATURES + POSITION_FEATURES
        for n in scorer:
            layers += [nn.Linear(width, int(n)), nn.ReLU()]
            width = int(n)
        self.head = nn.Linear(width, 1)
        self.scorer = nn.Sequential(*layers, self.head)
        self.register_buffer("lookahead_bonus", torch.zeros(()))

    def _load_from_state_dict(self, state_dict: Any, prefix: str, *args: Any, **kwargs: Any) -> None:
        # a model saved before the bonus existed has none: 0, what it played with
        state_dict.setdefault(prefix + "lookahead_bonus", torch.zeros(()))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def scores(self, observations: torch.Tensor) -> torch.Tensor:
        """(B, 210): each legal move's score, 0 for the others (only the legal rows are run; their
        inputs: :func:`agents.players.scorers.move_inputs`, what the numpy policy plays)."""
        b, a, inputs = move_inputs(observations.detach().cpu().numpy(), MOVE_FEATURES)
        chosen = torch.as_tensor(inputs)
        got = self.scorer(chosen).squeeze(1)
        got = got + self.lookahead_bonus * chosen[:, LOOKAHEAD_ROW]
        out = torch.zeros(observations.shape[0], NUM_ACTIONS, dtype=got.dtype)
        return out.index_put((torch.as_tensor(b), torch.as_tensor(a)), got)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        batch = observations.shape[0]
        rows = observations[:, :_ROWS].reshape(batch, NUM_ACTIONS, MOVE_FEATURES)
        legal = rows[:, :, :1]
        count = legal.sum(dim=1).clamp(min=1.0)
        mean = rows.sum(dim=1) / count
        top = rows.masked_fill(legal < 0.5, -1.0).max(dim=1).values
        return torch.cat([self.scores(observations), observations[:, _ROWS:], mean, top], dim=1)


class MovePolicy(ScorePolicy):
    """A MaskablePPO policy whose logits are :class:`MoveFeaturesExtractor`'s scores.

    ``net_arch``: the critic's layers (the actor has none of its own); the scorer's layers are
    ``features_extractor_kwargs["scorer"]``. The critic has its own copy of the extractor: with
    one shared, PPO's value loss (returns of tens of cards) flows into the move scores, and it
    wrecked a warm-started policy in 40,000 steps (30.7 cards founded a game on validation deals
    before, 11.9 after)."""

    extractor = MoveFeaturesExtractor
    default_arch: ClassVar[list[int]] = [128, 128]
    share = False


def move_policy_kwargs(net_arch: list[int] | None = None) -> dict[str, Any]:
    """``policy_kwargs`` for :class:`MovePolicy`: ``net_arch`` for the scorer and the critic."""
    arch = [128, 128] if net_arch is None else [int(n) for n in net_arch]
    return {"features_extractor_kwargs": {"scorer": arch}, "net_arch": arch}


def set_lookahead_bonus(policy: nn.Module, bonus: float) -> None:
    """Set the lookahead bonus of every :class:`MoveFeaturesExtractor` in ``policy`` (the actor's
    and the critic's copy)."""
    if not bonus >= 0 or bonus == float("inf"):
        raise ValueError(f"the lookahead bonus: want a finite number >= 0, got {bonus!r}")
    for module in policy.modules():
        if isinstance(module, MoveFeaturesExtractor):
            module.lookahead_bonus.fill_(float(bonus))


def lookahead_bonus(policy: nn.Module) -> float:
    """The lookahead bonus of ``policy``'s actor (0 for a policy without move features)."""
    for module in policy.modules():
        if isinstance(module, MoveFeaturesExtractor):
            return float(module.lookahead_bonus)
    return 0.0
