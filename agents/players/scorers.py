"""The published policies' networks in numpy: what the ``ppo`` agent plays without torch.

Both policies that README publishes are *scorers*: one shared multilayer perceptron gives each
move a number, and the move's logit is that number.

- **TriPeaks, afterstates** (:mod:`agents.training.afterstate`): the scorer reads the public
  position each move that can be legal leads to (:func:`afterstate_inputs`).
- **Forty Thieves, move features** (:mod:`agents.training.move_policy`): the scorer reads each
  legal move's row of the move features and the position's numbers (:func:`move_inputs`);
  the ``lookahead`` agent's move gets a bonus.

The scorer inputs are built here, in numpy, and only here: the torch policies build theirs with
these functions too (their inputs need no gradient), and add only the network.
:class:`ScorerNet` is the network in numpy, read from a ``.npz`` file that
:func:`agents.training.export.export_policy` writes from a trained ``model.zip``.

The file holds ``kind`` (``"afterstate"`` or ``"moves"``), ``game``, ``env_kwargs`` (JSON),
``advice`` (``""`` or ``"base_policy"``), ``wrap``, ``bonus`` and the layers ``w0, b0, w1, b1,
...`` (a ReLU between two layers; the last gives one number).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from solitaire_env.common.cards import SUITS
from solitaire_env.fortythieves.rules import NUM_ACTIONS as FT_ACTIONS
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
from solitaire_env.tripeaks.rules import COVERED_BY, COVERS, DRAW, MAX_STOCK, NUM_ACTIONS, NUM_RANKS, NUM_SLOTS, follows

__all__ = [
    "KINDS",
    "PAIRS",
    "SLOT_FACE_DOWN",
    "SLOT_RANK",
    "SLOT_REMOVED",
    "WASTE_EMPTY",
    "WASTE_JOKER",
    "ScorerNet",
    "adjacency",
    "afterstate_inputs",
    "afterstates",
    "candidates",
    "move_inputs",
    "rank_relations",
]

#: The kinds of scorer a policy file may hold.
KINDS = ("afterstate", "moves")
#: Places in a slot block of the flat TriPeaks observation: 0 face down, 1 removed, 2..14 rank
#: one-hot, 15..18 suit (solitaire_env.tripeaks.observe).
SLOT_FACE_DOWN, SLOT_REMOVED, SLOT_RANK = 0, 1, 2
#: Places in the waste block: 0..12 rank one-hot, 13..16 suit, 17 joker, 18 empty.
WASTE_JOKER = NUM_RANKS + len(SUITS)
WASTE_EMPTY = WASTE_JOKER + 1
#: The slot pairs ``s < t`` of the ``linked`` relations (378).
PAIRS = np.triu_indices(NUM_SLOTS, k=1)


def adjacency(wrap: bool) -> np.ndarray:
    """The 13 x 13 matrix of ranks one apart (A..K; with ``wrap`` K-A too)."""
    ranks = range(1, NUM_RANKS + 1)
    return np.array([[1.0 if follows(r, q, wrap) else 0.0 for q in ranks] for r in ranks], dtype=np.float32)


_ADJ = {True: adjacency(True), False: adjacency(False)}


def _cover_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``covered_by[s]``: the (up to 2) slots on slot s, padded with 28 (a column that is always
    "removed"); ``under[s, k]`` / ``other[s, k]``: the k-th slot that slot s lies on and that
    slot's other cover (padded with 28)."""
    width = max(len(slots) for slots in (*COVERED_BY, *COVERS))
    covered_by = np.full((NUM_SLOTS, width), NUM_SLOTS, dtype=np.int64)
    under = np.full((NUM_SLOTS, width), NUM_SLOTS, dtype=np.int64)
    other = np.full((NUM_SLOTS, width), NUM_SLOTS, dtype=np.int64)
    for s in range(NUM_SLOTS):
        covered_by[s, : len(COVERED_BY[s])] = COVERED_BY[s]
        for k, t in enumerate(COVERS[s]):
            under[s, k] = t
            rest = [c for c in COVERED_BY[t] if c != s]
            other[s, k] = rest[0] if rest else NUM_SLOTS
    return covered_by, under, other


COVER_TABLES = _cover_tables()


def rank_relations(flat: np.ndarray, wrap: bool) -> tuple[np.ndarray, np.ndarray]:
    """``playable`` (B, 28) and ``linked`` (B, 378) of flat observations (B, 607+):
    :mod:`agents.training.features` says what they mean."""
    batch = flat.shape[0]
    slots = flat[:, : NUM_SLOTS * SLOT_SIZE].reshape(batch, NUM_SLOTS, SLOT_SIZE)
    ranks = slots[:, :, SLOT_RANK : SLOT_RANK + NUM_RANKS]  # zero unless face up
    waste = flat[:, WASTE_OFFSET : WASTE_OFFSET + NUM_RANKS]
    joker = flat[:, WASTE_OFFSET + WASTE_JOKER : WASTE_OFFSET + WASTE_JOKER + 1]
    near = ranks @ _ADJ[bool(wrap)]  # (B, 28, 13): the ranks one apart from each slot's card
    playable = np.einsum("bsr,br->bs", near, waste) + joker * ranks.sum(axis=2)
    linked = np.einsum("bsr,btr->bst", near, ranks)[:, PAIRS[0], PAIRS[1]]
    return playable.astype(flat.dtype), linked.astype(flat.dtype)


def _floats(observations: np.ndarray) -> np.ndarray:
    """Observations as a float array (float32 unless they are float64 already)."""
    array = np.asarray(observations)
    return array if array.dtype in (np.float32, np.float64) else array.astype(np.float32)


def candidates(flat: np.ndarray) -> np.ndarray:
    """(B, 29) bool: the TriPeaks moves that can be legal in each flat observation (a superset
    of the mask: face-up uncovered cards one rank from the waste top, K and A adjacent whatever
    the rules, or any under a joker or an empty waste; the draw while the stock lasts)."""
    batch = flat.shape[0]
    slots = flat[:, : NUM_SLOTS * SLOT_SIZE].reshape(batch, NUM_SLOTS, SLOT_SIZE)
    removed = np.concatenate([slots[:, :, SLOT_REMOVED], np.ones((batch, 1), flat.dtype)], axis=1)
    exposed = removed[:, COVER_TABLES[0]].prod(axis=2) > 0.5
    ranks = slots[:, :, SLOT_RANK : SLOT_RANK + NUM_RANKS]
    face_up = ranks.sum(axis=2) > 0.5
    waste = flat[:, WASTE_OFFSET : WASTE_OFFSET + NUM_RANKS]
    fits = np.einsum("bsr,br->bs", ranks @ _ADJ[True], waste) > 0.5
    anything = (flat[:, WASTE_OFFSET + WASTE_JOKER] + flat[:, WASTE_OFFSET + WASTE_EMPTY] > 0.5)[:, None]
    slots_ok = face_up & exposed & (fits | anything)
    draw_ok = (flat[:, STOCK_OFFSET] > 0)[:, None]
    return np.concatenate([slots_ok, draw_ok], axis=1)


def afterstates(flat: np.ndarray, rows: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """The afterstates of ``moves`` in observations ``flat[rows]``: (N, 607 + 28 + 1) (the flat
    afterstate, the about-to-turn flags, the drawn flag); :mod:`agents.training.afterstate`."""
    after = flat[rows, :FLAT_SIZE].copy()
    n = after.shape[0]
    slot_moves = moves < DRAW
    turn = np.zeros((n, NUM_SLOTS + 1), dtype=flat.dtype)
    drawn = (~slot_moves).astype(flat.dtype)[:, None]
    _, under_table, other_table = COVER_TABLES
    i = np.flatnonzero(slot_moves)  # remove slot s
    if len(i):
        s = moves[i]
        blocks = after[i, : NUM_SLOTS * SLOT_SIZE].reshape(len(i), NUM_SLOTS, SLOT_SIZE).copy()
        card = blocks[np.arange(len(i)), s]  # (k, 19): its rank and suit
        waste = np.zeros((len(i), SLOT_SIZE), dtype=flat.dtype)
        waste[:, :WASTE_JOKER] = card[:, SLOT_RANK:SLOT_SIZE]
        after[i, WASTE_OFFSET : WASTE_OFFSET + SLOT_SIZE] = waste
        removed_block = np.zeros(SLOT_SIZE, dtype=flat.dtype)
        removed_block[SLOT_REMOVED] = 1.0
        blocks[np.arange(len(i)), s] = removed_block
        after[i, : NUM_SLOTS * SLOT_SIZE] = blocks.reshape(len(i), -1)
        after[i, CHAIN_OFFSET] += 1.0 / NUM_SLOTS
        after[i, CLEARED_OFFSET] += 1.0 / NUM_SLOTS
        removed = np.concatenate([blocks[:, :, SLOT_REMOVED], np.ones((len(i), 1), flat.dtype)], axis=1)
        face_down = np.concatenate([blocks[:, :, SLOT_FACE_DOWN], np.zeros((len(i), 1), flat.dtype)], axis=1)
        under, other = under_table[s], other_table[s]
        ar = np.arange(len(i))[:, None]
        turning = face_down[ar, under] * removed[ar, other]  # (k, 2)
        flags = np.zeros((len(i), NUM_SLOTS + 1), dtype=flat.dtype)
        np.add.at(flags, (np.repeat(np.arange(len(i)), under.shape[1]), under.reshape(-1)), turning.reshape(-1))
        turn[i] = flags
    j = np.flatnonzero(~slot_moves)  # the draw
    if len(j):
        unseen = after[j, UNSEEN_OFFSET:JOKERS_OFFSET].reshape(len(j), len(SUITS), NUM_RANKS)
        jokers = after[j, JOKERS_OFFSET] * 2.0
        total = np.maximum(unseen.sum(axis=(1, 2)) + jokers, 1.0)[:, None]
        waste = np.zeros((len(j), SLOT_SIZE), dtype=flat.dtype)
        waste[:, :NUM_RANKS] = unseen.sum(axis=1) / total
        waste[:, NUM_RANKS:WASTE_JOKER] = unseen.sum(axis=2) / total
        waste[:, WASTE_JOKER] = jokers / total[:, 0]
        after[j, WASTE_OFFSET : WASTE_OFFSET + SLOT_SIZE] = waste
        after[j, STOCK_OFFSET] = np.maximum(after[j, STOCK_OFFSET] - 1.0 / MAX_STOCK, 0.0)
        after[j, CHAIN_OFFSET] = 0.0
    return np.concatenate([after, turn[:, :NUM_SLOTS], drawn], axis=1)


def afterstate_inputs(observations: np.ndarray, wrap: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, moves, inputs)``: for each move that can be legal (:func:`candidates`) in the
    observations (B, 607, or 607 + 29 with the advice's one-hot), its observation's row, the
    move, and the scorer's input (N, 1043): the afterstate, the about-to-turn flags, the drawn
    flag, the advised flag, and the afterstate's ``playable`` and ``linked`` relations (in the
    observations' float type)."""
    observations = _floats(observations)
    rows, moves = np.nonzero(candidates(observations))
    after = afterstates(observations, rows, moves)
    if observations.shape[1] > FLAT_SIZE:
        advised = observations[rows, FLAT_SIZE + moves][:, None]
    else:
        advised = np.zeros((len(rows), 1), dtype=observations.dtype)
    playable, linked = rank_relations(after[:, :FLAT_SIZE], wrap)
    return rows, moves, np.concatenate([after, advised, playable, linked], axis=1).astype(observations.dtype)


def move_inputs(observations: np.ndarray, move_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, moves, inputs)``: for each legal move of the Forty Thieves move features (B, 210
    rows of ``move_features`` numbers, then the position's), its observation's row, the move,
    and the scorer's input: the move's row followed by the position's numbers."""
    observations = _floats(observations)
    batch = observations.shape[0]
    size = FT_ACTIONS * move_features
    table = observations[:, :size].reshape(batch, FT_ACTIONS, move_features)
    rows, moves = np.nonzero(table[:, :, 0] > 0.5)
    return rows, moves, np.concatenate([table[rows, moves], observations[rows, size:]], axis=1)


@dataclass
class ScorerNet:
    """A published policy's scorer in numpy (see the module docstring for the file)."""

    kind: str
    game: str
    layers: list[tuple[np.ndarray, np.ndarray]]
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    advice: str | None = None
    wrap: bool = True
    bonus: float = 0.0
    move_features: int = 0
    lookahead_row: int = 0

    @classmethod
    def load(cls, path: str | Path) -> ScorerNet:
        """The policy in ``path`` (a ``.npz`` file); one ``ValueError`` naming the file if it is not one."""
        try:
            with np.load(path, allow_pickle=False) as data:
                n = int(data["layers"])
                layers = [(data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)) for i in range(n)]
                net = cls(
                    kind=str(data["kind"]),
                    game=str(data["game"]),
                    layers=layers,
                    env_kwargs=json.loads(str(data["env_kwargs"])),
                    advice=str(data["advice"]) or None,
                    wrap=bool(data["wrap"]),
                    bonus=float(data["bonus"]),
                    move_features=int(data["move_features"]),
                    lookahead_row=int(data["lookahead_row"]),
                )
        except (OSError, KeyError, ValueError) as error:
            raise ValueError(f"{path} is not a policy file of solitaire_env: {error}") from None
        if net.kind not in KINDS:
            raise ValueError(f"{path}: unknown policy kind {net.kind!r}; want one of {', '.join(KINDS)}")
        return net

    def save(self, path: str | Path) -> Path:
        """Write the policy to ``path`` (``.npz``, compressed); returns the path."""
        arrays: dict[str, Any] = {
            "kind": np.array(self.kind),
            "game": np.array(self.game),
            "env_kwargs": np.array(json.dumps(self.env_kwargs, sort_keys=True)),
            "advice": np.array(self.advice or ""),
            "wrap": np.array(self.wrap),
            "bonus": np.array(self.bonus, dtype=np.float64),
            "move_features": np.array(self.move_features),
            "lookahead_row": np.array(self.lookahead_row),
            "layers": np.array(len(self.layers)),
        }
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        out = Path(path)
        with out.open("wb") as f:
            np.savez_compressed(f, **arrays)
        return out

    def run(self, inputs: np.ndarray) -> np.ndarray:
        """The network on the scorer inputs (N, width): one number each."""
        x = inputs.astype(np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w.T + b
            if i < last:
                x = np.maximum(x, 0.0)
        return x[:, 0]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's logits of one observation: each scored move's number, 0 for the others."""
        obs = np.asarray(observation, dtype=np.float32).reshape(1, -1)
        if self.kind == "afterstate":
            _, moves, inputs = afterstate_inputs(obs, self.wrap)
            out = np.zeros(NUM_ACTIONS, dtype=np.float32)
        else:
            _, moves, inputs = move_inputs(obs, self.move_features)
            out = np.zeros(FT_ACTIONS, dtype=np.float32)
        scores = self.run(inputs)
        if self.kind == "moves" and self.bonus:
            scores = scores + np.float32(self.bonus) * inputs[:, self.lookahead_row]
        out[moves] = scores
        return out

    def greedy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The legal action of the highest logit (the lowest index on a tie)."""
        logits = self.logits(observation)
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(logits[legal]))])
