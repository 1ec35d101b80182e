"""The base policy's move as an input of a learned TriPeaks policy ("advice").

A multilayer perceptron on the flat observation does not search: it cannot see which chain of
known cards is longest, which removal turns the most cards up, or how many unseen cards can
still follow. The ``rollout`` agent's base policy (:func:`agents.players.playouts.policy_move`, weights
:data:`agents.players.rollout.DEFAULT_POLICY`) searches those chains and counts those cards (its win
rate alone: docs/research_notes.md). With advice, the policy's observation is the flat
observation followed by a one-hot of the base policy's move in this position (29 values: the 28
slots and the draw; all zero when no move is legal), and what the policy learns is when to
follow it and when to play something else.

The advice is a function of the public state only: :func:`policy_move` reads a slot's rank only
once the slot has been seen, and counts the unseen cards by rank. It is computed two ways, which
``tests/agents/test_advice.py`` checks give the same move on thousands of positions:

- :func:`public_advice` from a :class:`~agents.base.PublicState` (what the ``ppo`` agent does at
  play time: it never has the hidden cards), through :func:`agents.players.rollout.tripeaks_position`;
- :func:`batch_advice` from a TriPeaks batch env's public view (``batch.view()``), for training: it hands the
  kernel the ranks of the seen slots only (``-1`` elsewhere; :func:`agents.training.move_values.public_inputs`),
  the same inputs.

:class:`agents.training.advice_env.AdviceObservation` is an SB3 ``VecEnvWrapper`` that appends the advice to a TriPeaks
:class:`~solitaire_env.sb3.SB3VecEnv`'s flat observations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.base import PublicState
from agents.players import playouts as P
from agents.players.rollout import DEFAULT_POLICY, tripeaks_position
from agents.training.move_values import draws_when_stuck, input_buffers, public_inputs
from solitaire_env.tripeaks.game import NUM_ACTIONS
from solitaire_env.tripeaks.rules import ALL_SLOTS

__all__ = ["ADVICE_SIZE", "batch_advice", "public_advice", "with_advice"]

#: The advice's length: one per action (28 slots and the draw).
ADVICE_SIZE = NUM_ACTIONS
_PARAMS = P.policy_params(**DEFAULT_POLICY)


@njit(cache=True)
def _batch_moves(v, when_stuck, params, out):  # pragma: no cover - numba
    buffers = input_buffers(v)
    for i in range(v.removed.shape[0]):
        x = public_inputs(i, v, when_stuck, buffers)
        out[i] = -1 if x.removed == ALL_SLOTS else P.position_move(x, params)


def batch_advice(batch_env: Any) -> np.ndarray:
    """The base policy's move in every game of a TriPeaks batch env (-1: no legal move)."""
    out = np.zeros(batch_env.num_envs, dtype=np.int64)
    _batch_moves(batch_env.view(), draws_when_stuck(batch_env), _PARAMS, out)
    return out


def public_advice(state: PublicState) -> int:
    """The base policy's move in a public TriPeaks state (-1: no legal move)."""
    return int(P.position_move(tripeaks_position(state), _PARAMS))


def with_advice(obs: np.ndarray, moves: np.ndarray | int) -> np.ndarray:
    """``obs`` (one flat observation or a batch of them) with the one-hot advice appended."""
    obs = np.asarray(obs, dtype=np.float32)
    batch = obs.reshape(-1, obs.shape[-1])
    moves = np.asarray(moves, dtype=np.int64).reshape(-1)
    out = np.zeros((batch.shape[0], batch.shape[1] + ADVICE_SIZE), dtype=np.float32)
    out[:, : batch.shape[1]] = batch
    rows = np.flatnonzero(moves >= 0)
    out[rows, batch.shape[1] + moves[rows]] = 1.0
    return out if obs.ndim > 1 else out[0]
