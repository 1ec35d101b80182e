"""An afterstate policy for TriPeaks: one network scores the position each legal move leads to.

A multilayer perceptron that maps the flat observation to 29 logits must learn the worth of
"remove the card of slot 12" separately from that of "remove the card of slot 13", from the
few positions where each was legal. Here the policy scores *afterstates* instead (as
TD-Gammon did): for each move that can be legal, the public position it leads to, before any
face-down card is turned, is built from the observation by the rules, and one shared network
(the *scorer*) gives it a number; the move's logit is that number. What the moves have in
common is learned once.

The afterstate of a move, from the flat observation (``docs/environments.md``):

- **remove slot s**: the slot is removed, its card is the waste top, the chain and the cleared
  count go up by one; the slots the card lay on whose last cover it was are marked *about to be
  turned* (their cards are not known yet: 28 flags);
- **draw**: the waste top becomes the *expected* unseen card (the waste's rank, suit and joker
  places hold the shares of the unseen cards: a distribution, not a card), one card less in the
  stock, the chain is broken; a flag says "drawn".

Each afterstate is followed by the rank relations of :mod:`agents.training.features` (which face-up
cards would fit the new waste top, which pairs can follow each other) and, when the model takes
advice (:mod:`agents.training.advice`), a flag "this is the base policy's move". Only the moves that can
be legal (face-up uncovered cards one rank from the waste top, K and A adjacent whatever the
rules, or any with a joker or an empty waste; the draw while the stock lasts) are scored; the
others get logit 0 and are masked anyway.
Nothing hidden is used: every input is the observation or a fixed function of it.

The critic reads the observation with the rank relations (as ``features: chain``) and the
moves' scores, through its own MLP.

Use: ``MaskablePPO(AfterstatePolicy, env, policy_kwargs={"features_extractor_kwargs": {"wrap":
True}})``, or in a training config ``ppo: {features: afterstate}`` (:mod:`agents.training.train`), where
``net_arch`` is the scorer's layers and the critic's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.players.scorers import (
    COVER_TABLES,
    PAIRS,
    SLOT_FACE_DOWN,
    SLOT_RANK,
    SLOT_REMOVED,
    WASTE_EMPTY,
    WASTE_JOKER,
    adjacency,
    afterstate_inputs,
    candidates,
)
from agents.training.features import rank_relations
from agents.training.score_policy import ScorePolicy
from solitaire_env.common.cards import SUITS
from solitaire_env.tripeaks.observe import (
    CHAIN_OFFSET,
    CLEARED_OFFSET,
    FLAT_SIZE,
    JOKERS_OFFSET,
    SLOT_SIZE,
    STOCK_OFFSET,
    UNSEEN_OFFSET,
    WASTE_OFFSET,
)
from solitaire_env.tripeaks.rules import DRAW, MAX_STOCK, NUM_ACTIONS, NUM_RANKS, NUM_SLOTS

__all__ = ["AfterstatePolicy", "TriPeaksAfterstateFeatures", "afterstate_policy_kwargs"]

_PAIRS = PAIRS
_WASTE_JOKER, _WASTE_EMPTY = WASTE_JOKER, WASTE_EMPTY  # places in the waste block: rank, suit, joker, empty
_NUM_SUITS = len(SUITS)
#: The scorer's input: the afterstate (607), about-to-turn flags (28), drawn, advised,
#: playable (28) and linked pairs (378).
SCORER_INPUT = FLAT_SIZE + NUM_SLOTS + 2 + NUM_SLOTS + len(_PAIRS[0])


_TURN_COLUMN = FLAT_SIZE  # the scorer input's blocks: afterstate, about-to-turn flags, drawn, advised, ...
_DRAWN_COLUMN = _TURN_COLUMN + NUM_SLOTS
_ADVISED_COLUMN = _DRAWN_COLUMN + 1
_PLAYABLE_COLUMN = _ADVISED_COLUMN + 1
_LINKED_COLUMN = _PLAYABLE_COLUMN + NUM_SLOTS


def _factor_columns() -> tuple[np.ndarray, np.ndarray]:
    """The scorer input's columns that a move's afterstate changes (:meth:`TriPeaksAfterstateFeatures.scores`).

    ``slot_columns[s]`` (28, 47): the columns of slot s's own block (19) and of its linked pairs
    with each slot t (28, in slot order; t = s points at a column its weight 0 leaves alone).
    ``shared_columns`` (80): the waste top (19), stock, chain, cleared, the about-to-turn flags
    (28), drawn, advised, and the playable flags (28), in that order."""
    pair_index = np.zeros((NUM_SLOTS, NUM_SLOTS), dtype=np.int64)
    pair_index[_PAIRS] = np.arange(len(_PAIRS[0]))
    pair_index += pair_index.T
    slot_columns = np.array(
        [[*range(s * SLOT_SIZE, (s + 1) * SLOT_SIZE), *(_LINKED_COLUMN + pair_index[s])] for s in range(NUM_SLOTS)],
        dtype=np.int64,
    )
    shared_columns = np.array(
        [
            *range(WASTE_OFFSET, WASTE_OFFSET + SLOT_SIZE),
            STOCK_OFFSET,
            CHAIN_OFFSET,
            CLEARED_OFFSET,
            *range(_TURN_COLUMN, _TURN_COLUMN + NUM_SLOTS),
            _DRAWN_COLUMN,
            _ADVISED_COLUMN,
            *range(_PLAYABLE_COLUMN, _PLAYABLE_COLUMN + NUM_SLOTS),
        ],
        dtype=np.int64,
    )
    return slot_columns, shared_columns


class TriPeaksAfterstateFeatures(BaseFeaturesExtractor):
    """The 29 moves' afterstate scores, followed by the observation's rank-relation features
    (for the critic); see the module docstring."""

    def __init__(
        self, observation_space: spaces.Box, wrap: bool = True, scorer: tuple[int, ...] | list[int] = (256, 256)
    ) -> None:
        shape = observation_space.shape
        if shape not in ((FLAT_SIZE,), (FLAT_SIZE + NUM_ACTIONS,)):
            raise ValueError(
                f"TriPeaksAfterstateFeatures reads the flat TriPeaks observation ({FLAT_SIZE},), or it "
                f"followed by the advice ({FLAT_SIZE + NUM_ACTIONS},), got {observation_space}"
            )
        self.with_advice = shape[0] > FLAT_SIZE
        super().__init__(observation_space, NUM_ACTIONS + shape[0] + NUM_SLOTS + len(_PAIRS[0]))
        self.wrap = bool(wrap)
        covered_by, under, other = COVER_TABLES
        self.register_buffer("adj", torch.as_tensor(adjacency(self.wrap)))
        self.register_buffer("pair_s", torch.as_tensor(_PAIRS[0], dtype=torch.long))
        self.register_buffer("pair_t", torch.as_tensor(_PAIRS[1], dtype=torch.long))
        self.register_buffer("covered_by", torch.as_tensor(covered_by))
        self.register_buffer("under", torch.as_tensor(under))
        self.register_buffer("other", torch.as_tensor(other))
        slot_columns, shared_columns = _factor_columns()  # the factored first layer's tables (not saved)
        self.register_buffer("slot_columns", torch.as_tensor(slot_columns), persistent=False)
        self.register_buffer("shared_columns", torch.as_tensor(shared_columns), persistent=False)
        layers: list[nn.Module] = []
        width = SCORER_INPUT
        for n in scorer:
            layers += [nn.Linear(width, int(n)), nn.ReLU()]
            width = int(n)
        self.head = nn.Linear(width, 1)
        self.scorer = nn.Sequential(*layers, self.head)

    # ------------------------------------------------------------------ pieces

    def candidates(self, flat: torch.Tensor) -> torch.Tensor:
        """(B, 29) bool: the moves that can be legal in each observation (a superset of the mask;
        :func:`agents.players.scorers.candidates`)."""
        return torch.as_tensor(candidates(flat.detach().cpu().numpy()))

    def scores_direct(self, observations: torch.Tensor) -> torch.Tensor:
        """(B, 29): the scorer's number for each move that can be legal, 0 for the others, computed
        the plain way: each afterstate's scorer input built whole
        (:func:`agents.players.scorers.afterstate_inputs`, what the numpy policy plays) and run
        through the network. :meth:`scores` is the same numbers, faster; this is what
        tests/agents/test_afterstate.py checks it against."""
        rows, moves, inputs = afterstate_inputs(observations.detach().cpu().numpy(), self.wrap)
        got = self.scorer(torch.as_tensor(inputs)).squeeze(1)
        out = torch.zeros(observations.shape[0], NUM_ACTIONS, dtype=got.dtype)
        return out.index_put((torch.as_tensor(rows), torch.as_tensor(moves)), got)

    def scores(self, observations: torch.Tensor) -> torch.Tensor:
        """(B, 29): the scorer's number for each move that can be legal, 0 for the others.

        The same numbers as :meth:`scores_direct`, with the scorer's first layer factored. An
        afterstate differs from its observation in a few places only: the moved slot's block and
        its linked pairs, the waste top, the stock, chain and cleared counts, the about-to-turn,
        drawn and advised flags, and the playable flags. So the first layer is applied once per
        position to the observation and its linked pairs, and each move adds what it changes:
        its slot's 47 columns (block and linked pairs, the moves grouped slot by slot) and 80
        shared ones (:func:`_factor_columns`). ``python benchmarks/afterstate_fit.py`` times it against
        the plain way (the figures: docs/training.md).
        """
        flat = observations[:, :FLAT_SIZE]
        batch = flat.shape[0]
        rows, moves = torch.nonzero(self.candidates(observations), as_tuple=True)
        n = len(rows)
        first: nn.Linear = self.scorer[0]
        weight = first.weight  # (H, 1043)
        slots = flat[:, : NUM_SLOTS * SLOT_SIZE].reshape(batch, NUM_SLOTS, SLOT_SIZE)
        ranks = slots[:, :, SLOT_RANK : SLOT_RANK + NUM_RANKS]  # (B, 28, 13), zero unless face up
        adj: torch.Tensor = self.adj
        near = ranks @ adj
        linked_all = torch.einsum("bsr,btr->bst", near, ranks)  # (B, 28, 28), symmetric
        linked = linked_all[:, self.pair_s, self.pair_t]
        base = flat @ weight[:, :FLAT_SIZE].t() + linked @ weight[:, _LINKED_COLUMN:].t()
        if first.bias is not None:
            base = base + first.bias
        # what each move changes (the columns of _factor_columns)
        slot_moves = moves < DRAW
        is_draw = (~slot_moves).to(flat.dtype)
        slot = moves.clamp(max=NUM_SLOTS - 1)
        old_block = slots[rows, slot] * slot_moves.unsqueeze(1)  # (N, 19), zero for the draw
        old_waste = flat[rows, WASTE_OFFSET : WASTE_OFFSET + SLOT_SIZE]
        # the new waste top: the removed card (rank, suit), or the draw's expected unseen card
        new_waste = torch.zeros(n, SLOT_SIZE, dtype=flat.dtype)
        new_waste[:, :_WASTE_JOKER] = old_block[:, SLOT_RANK:SLOT_SIZE]
        unseen = flat[:, UNSEEN_OFFSET:JOKERS_OFFSET].reshape(batch, _NUM_SUITS, NUM_RANKS)
        jokers = flat[:, JOKERS_OFFSET] * 2.0
        total = (unseen.sum(dim=(1, 2)) + jokers).clamp(min=1.0).unsqueeze(1)
        # (B, 18): the expected unseen card's rank, suit and joker shares (the draw's waste top)
        drawn_all = torch.cat([unseen.sum(dim=1), unseen.sum(dim=2), jokers.unsqueeze(1)], dim=1) / total
        new_waste[:, :_WASTE_EMPTY] += drawn_all.index_select(0, rows) * is_draw.unsqueeze(1)
        chain = flat[rows, CHAIN_OFFSET]
        stock = flat[rows, STOCK_OFFSET]
        slot_f = slot_moves.to(flat.dtype)
        removed_mark = torch.zeros(n, SLOT_SIZE, dtype=flat.dtype)
        removed_mark[:, SLOT_REMOVED] = slot_f
        face_down = torch.cat([slots[:, :, SLOT_FACE_DOWN], torch.zeros(batch, 1, dtype=flat.dtype)], dim=1)  # (B, 29)
        removed = torch.cat([slots[:, :, SLOT_REMOVED], torch.ones(batch, 1, dtype=flat.dtype)], dim=1)
        under: torch.Tensor = self.under[slot]
        other: torch.Tensor = self.other[slot]
        rows2 = rows.unsqueeze(1)
        # slot ``other`` is removed in the afterstate too if it is the moved slot itself (never:
        # the other cover of a slot under s is not s), so the observation's flags hold
        turning = face_down[rows2, under] * removed[rows2, other] * slot_f.unsqueeze(1)  # (N, 2)
        advised = observations[rows, FLAT_SIZE + moves] if self.with_advice else torch.zeros(n, dtype=flat.dtype)
        # the afterstate's playable flags: after a slot move, the face-up cards (the removed one
        # gone) one rank from the removed card, i.e. the moved slot's row of ``linked_all``; after
        # the draw, those one rank from the expected unseen card, or all of them under a joker
        link_rows = linked_all[rows, slot] * slot_f.unsqueeze(1)  # (N, 28), zero for the draw
        face_up = ranks.sum(dim=2)
        by_draw = (near @ drawn_all[:, :NUM_RANKS].unsqueeze(2)).squeeze(2) + drawn_all[:, -1:] * face_up  # (B, 28)
        playable = link_rows + by_draw.index_select(0, rows) * is_draw.unsqueeze(1)
        # the moved slot's own columns (its block and its linked pairs), slot by slot: the first
        # layer's weights of slot s's 47 columns are ``weight[:, slot_columns[s]]``
        own = torch.cat([removed_mark - old_block, -link_rows], dim=1)  # (N, 47)
        slot_weights = weight.t()[self.slot_columns]  # (28, 47, H)
        pre = base.index_select(0, rows)
        i = torch.nonzero(slot_moves).squeeze(1)
        if len(i):
            order = i[torch.argsort(moves[i], stable=True)]
            counts = torch.bincount(moves[order], minlength=NUM_SLOTS).tolist()
            parts = [chunk @ slot_weights[s] for s, chunk in enumerate(torch.split(own[order], counts)) if counts[s]]
            pre = pre.index_add(0, order, torch.cat(parts))
        # the other columns it changes: the waste top, the counts, the flags
        turn = torch.zeros(n, NUM_SLOTS + 1, dtype=flat.dtype)
        turn.scatter_add_(1, under, turning)
        shared = torch.cat(
            [
                new_waste - old_waste,
                (((stock - 1.0 / MAX_STOCK).clamp(min=0.0) - stock) * is_draw).unsqueeze(1),  # stock
                (slot_f / NUM_SLOTS - is_draw * chain).unsqueeze(1),  # chain: +1 card, or broken
                (slot_f / NUM_SLOTS).unsqueeze(1),  # cleared
                turn[:, :NUM_SLOTS],
                is_draw.unsqueeze(1),
                advised.unsqueeze(1),
                playable,
            ],
            dim=1,
        )
        pre = pre + shared @ weight[:, self.shared_columns].t()
        got = self.scorer[1:](pre).squeeze(1)
        out = torch.zeros(batch, NUM_ACTIONS, dtype=got.dtype)
        return out.index_put((rows, moves), got)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        playable, linked = rank_relations(observations[:, :FLAT_SIZE], self.wrap)
        return torch.cat([self.scores(observations), observations, playable, linked], dim=1)

    def extra_repr(self) -> str:
        return f"wrap={self.wrap}, advice={self.with_advice}"


class AfterstatePolicy(ScorePolicy):
    """A MaskablePPO policy whose logits are :class:`TriPeaksAfterstateFeatures`' scores.

    ``net_arch``: the critic's layers (the actor has none of its own: ``pi=[]``); the scorer's
    layers are ``features_extractor_kwargs["scorer"]``."""

    extractor = TriPeaksAfterstateFeatures


def afterstate_policy_kwargs(wrap: bool, net_arch: list[int] | None = None) -> dict[str, Any]:
    """``policy_kwargs`` for :class:`AfterstatePolicy`: ``net_arch`` for the scorer and the critic."""
    arch = [256, 256] if net_arch is None else [int(n) for n in net_arch]
    return {"features_extractor_kwargs": {"wrap": bool(wrap), "scorer": arch}, "net_arch": arch}
