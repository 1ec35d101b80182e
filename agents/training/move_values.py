"""Values from playouts of the ``rollout`` agent's base policy, for training TriPeaks policies.

All three read a TriPeaks batch env (:class:`~solitaire_env.tripeaks.batch.TriPeaksVectorEnv`)
through its read-only public view (``batch.view()``, a
:class:`~solitaire_env.tripeaks.batch.TriPeaksBatchView` the numba functions take as ``v``)
and play the base policy (:mod:`agents.players.playouts`, weights :data:`agents.players.rollout.DEFAULT_POLICY`)
to the end of the game; a value counts the cards cleared from the position on, plus
``win_bonus`` when the board is cleared (the units of the env's ``progress`` reward):

- :func:`potentials`: ``Phi(s)``, the base policy's playout from each position **on the true
  deal** (0 for a cleared board): the potential of :class:`agents.training.shaping.PlayoutShaping`;
- :func:`action_values`: for every legal move, the move then the base policy, **on the true
  deal** (one sample of what the player does not know);
- :func:`sampled_action_values`: the same averaged over fillings of the places the player has
  not seen, drawn fairly from the unseen cards: what the ``rollout`` agent estimates, and the
  target of the warm start (:mod:`agents.training.pretrain`). It reads no hidden card:
  ``tests/agents/test_move_values.py`` checks it equals the rollout agent's kernel run on the public
  state's inputs.

The first two are training signals that use the hidden cards (the env knows them); no policy
input is made from them. Each is checked against the rules core in ``tests/agents/test_move_values.py``.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from agents.players import playouts as P
from agents.players.rollout import DEFAULT_POLICY
from solitaire_env.common.cards import JOKER
from solitaire_env.tripeaks.game import NUM_ACTIONS
from solitaire_env.tripeaks.rules import ALL_SLOTS, MAX_STOCK, NUM_SLOTS

__all__ = ["action_values", "fill_width", "potentials", "public_inputs", "sampled_action_values"]

#: Uniforms per filling without jokers (56 >= 18 + 24 unseen ranks; the random streams of the
#: estimate are those of this width).
FILL_WIDTH = 56


class Estimate(NamedTuple):
    """What :func:`sampled_action_values` estimates with, the same for every game: the draw
    rule, the base policy's ``params``, the ``win_bonus``, the ``uniforms`` of the fillings
    (games x samples x :func:`fill_width`) and ``min_legal``, the fewest legal moves of a game
    it values (the others are left NaN)."""

    when_stuck: bool
    params: np.ndarray
    win_bonus: float
    uniforms: np.ndarray
    min_legal: int


def fill_width(jokers: int) -> int:
    """The uniform numbers per filling of :func:`sampled_action_values` (one row for any position):
    the shuffle of the unseen ranks (at most 18 face-down slots and 24 stock cards) and, with
    jokers, one more per unseen stock place (where the jokers go, :func:`agents.players.playouts.fill_sample`)."""
    return FILL_WIDTH + (MAX_STOCK if jokers else 0)


def draws_when_stuck(batch_env: Any) -> bool:
    """Whether the batch env's rules allow a draw only when no removal is legal."""
    return bool(batch_env.rules.draw == "when_stuck")


@njit(cache=True, inline="always")
def _value(cleared, before, win_bonus):  # pragma: no cover - numba
    """A value in the units of the env's ``progress`` reward: the cards cleared after the
    ``before`` already removed, + ``win_bonus`` when the board is cleared."""
    return (cleared - before) + (win_bonus if cleared == NUM_SLOTS else 0.0)


@njit(cache=True, nogil=True)
def input_buffers(v):  # pragma: no cover - numba
    """The arrays :func:`public_inputs` fills, for any game of the batch env's view ``v``:
    ``(layout, stock_rank, unseen, ranks)``."""
    return (
        np.empty(NUM_SLOTS, np.int64),
        np.empty(v.stock.shape[1], np.int64),
        np.zeros(14, np.int64),
        np.empty(64, np.int64),
    )


@njit(cache=True, nogil=True)
def public_inputs(i, v, when_stuck, buffers):  # pragma: no cover - numba
    """Game ``i`` of the batch env's view ``v`` as its player knows it: an
    :class:`agents.players.playouts.Position` on the arrays of ``buffers`` (:func:`input_buffers`):
    ``layout`` (slot ranks, -1 never seen), ``stock`` (-1 not drawn yet; 0 a joker), ``ranks``
    (the unseen non-joker ranks) and ``unseen`` (unseen cards by rank, 0 = jokers)."""
    layout, stock_rank, unseen, ranks = buffers
    removed = np.int64(v.removed[i])
    known = np.int64(v.seen[i]) | removed
    for k in range(14):
        unseen[k] = 0
    n_ranks = 0
    for s in range(NUM_SLOTS):
        r = np.int64(v.tableau[i, s]) % 13 + 1
        if (known >> s) & 1:
            layout[s] = r
        else:
            layout[s] = -1
            unseen[r] += 1
            ranks[n_ranks] = r
            n_ranks += 1
    n_stock = np.int64(v.stock_len[i])
    stock_seen = np.int64(v.stock_seen[i])
    n_jokers = 0
    for k in range(n_stock):
        c = np.int64(v.stock[i, k])
        r = 0 if c == JOKER else c % 13 + 1
        if k < stock_seen:
            stock_rank[k] = r
        else:
            stock_rank[k] = -1
            unseen[r] += 1
            if r == 0:
                n_jokers += 1
            else:
                ranks[n_ranks] = r
                n_ranks += 1
    return P.Position(
        layout,
        stock_rank[:n_stock],
        ranks[:n_ranks],
        n_jokers,
        removed,
        np.int64(v.stock_pos[i]),
        np.int64(v.waste_key[i]),
        known,
        stock_seen,
        unseen,
        v.wrap[i] != 0,
        when_stuck,
    )


@njit(cache=True)
def _true_start(i, v, buffers, kit):  # pragma: no cover - numba
    """Game ``i`` of the batch env as a playout on its true cards: :func:`public_inputs`
    (``unseen``: what the player has not seen, by rank), then the true ranks of every slot and
    stock card in ``kit``'s buffers; returns ``(the game's kit, its start state, unseen)``."""
    x = public_inputs(i, v, kit.when_stuck, buffers)
    kit = P.for_game(kit, x.stock.shape[0], x.wrap)
    for s in range(NUM_SLOTS):
        kit.slot_rank[s] = np.int64(v.tableau[i, s]) % 13 + 1
    for k in range(x.stock.shape[0]):
        c = np.int64(v.stock[i, k])
        kit.stock_key[k] = 0 if c == JOKER else c % 13 + 1
    P.set_accept(kit)
    return kit, P.start_of(x), x.unseen


@njit(cache=True)
def _potentials(v, when_stuck, params, win_bonus, out):  # pragma: no cover - numba
    buffers = input_buffers(v)
    kit = P.blank_kit(v.stock.shape[1], False, when_stuck, params)
    for i in range(v.removed.shape[0]):
        if np.int64(v.removed[i]) == ALL_SLOTS:
            out[i] = 0.0
            continue
        game, state, unseen = _true_start(i, v, buffers, kit)
        cleared, _ = P._playout(game, state, unseen)
        out[i] = _value(cleared, P._popcount(state[0]), win_bonus)


@njit(cache=True)
def _action_values(v, when_stuck, params, win_bonus, out):  # pragma: no cover - numba
    """``out[i, a]``: for each legal action ``a`` of game ``i`` (``v.legal[i]``), the cards
    cleared by ``a`` and then by the base policy on the true cards, + ``win_bonus`` if that wins;
    NaN where ``a`` is not legal."""
    buffers = input_buffers(v)
    kit = P.blank_kit(v.stock.shape[1], False, when_stuck, params)
    work = np.zeros(14, np.int64)
    for i in range(v.removed.shape[0]):
        out[i, :] = np.nan
        legal = np.int64(v.legal[i])
        if legal == 0:
            continue
        game, state, unseen = _true_start(i, v, buffers, kit)
        before = P._popcount(state[0])
        for a in range(NUM_ACTIONS):
            if not (legal >> a) & 1:
                continue
            P._copy(unseen, work)
            after = P._apply(a, game.slot_rank, game.stock_key, state, work)[0]
            cleared = P._popcount(after[0])
            if after[0] != ALL_SLOTS:
                cleared = P._playout(game, after, work)[0]
            out[i, a] = _value(cleared, before, win_bonus)


@njit(cache=True, nogil=True)
def _sampled_values(v, estimate, lo, hi, out):  # pragma: no cover - numba
    """Like :func:`_action_values` for games ``lo`` to ``hi - 1``, averaged over
    ``uniforms.shape[1]`` fair fillings of the unseen places (what the ``rollout`` agent
    estimates, the unseen ranks in increasing order) instead of the true deal; games with
    fewer than ``min_legal`` legal moves are left NaN (``estimate``: an :class:`Estimate`).
    Without the GIL: threads may run disjoint ranges."""
    when_stuck, params, win_bonus, uniforms, min_legal = estimate
    buffers = input_buffers(v)
    paths = np.zeros((NUM_ACTIONS, 1), np.int64)
    lengths = np.ones(NUM_ACTIONS, np.int64)
    for i in range(lo, hi):
        out[i, :] = np.nan
        legal = np.int64(v.legal[i])
        if legal == 0:
            continue
        n_legal = 0
        for a in range(NUM_ACTIONS):
            if (legal >> a) & 1:
                paths[n_legal, 0] = a
                n_legal += 1
        if n_legal < min_legal:
            continue
        x = public_inputs(i, v, when_stuck, buffers)
        x.ranks.sort()
        before = P._popcount(x.removed)
        cleared = P.sample_counts(x, uniforms[i], paths[:n_legal], lengths[:n_legal], params)
        n_samples = cleared.shape[0]
        for c in range(n_legal):
            total = 0.0
            for j in range(n_samples):
                total += _value(np.int64(cleared[j, c]), before, win_bonus)
            out[i, paths[c, 0]] = total / n_samples


def sampled_action_values(
    batch_env: Any,
    win_bonus: float,
    samples: int,
    rng: np.random.Generator,
    params: np.ndarray | None = None,
    threads: int = 1,
    skip_forced: bool = False,
) -> np.ndarray:
    """``(num_envs, 29)``: :func:`action_values` estimated fairly, over ``samples`` fillings of
    the places the player has not seen (drawn from ``rng``) instead of the true deal.
    ``threads`` > 1 splits the games between that many threads (the kernel runs without the GIL;
    the result does not depend on it). With ``skip_forced``, games with a single legal move are
    left NaN (there is nothing to choose; the warm start does not fit them): the other games'
    values are the same numbers, from the same random numbers."""
    if params is None:
        params = P.policy_params(**DEFAULT_POLICY)
    n = batch_env.num_envs
    out = np.zeros((n, NUM_ACTIONS), dtype=np.float64)
    uniforms = rng.random((n, samples, fill_width(batch_env.rules.jokers)))
    min_legal = 2 if skip_forced else 1
    args = (batch_env.view(), Estimate(draws_when_stuck(batch_env), params, float(win_bonus), uniforms, min_legal))
    if threads <= 1 or n < 2:
        _sampled_values(*args, 0, n, out)
        return out
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, n, min(threads, n) + 1).astype(int)
    with ThreadPoolExecutor(len(bounds) - 1) as pool:
        jobs = [pool.submit(_sampled_values, *args, int(a), int(b), out) for a, b in itertools.pairwise(bounds)]
        for job in jobs:
            job.result()
    return out


def potentials(batch_env: Any, win_bonus: float, params: np.ndarray | None = None) -> np.ndarray:
    """``Phi`` of every game of a TriPeaks batch env (:class:`~solitaire_env.tripeaks.batch.TriPeaksVectorEnv`),
    from its current state arrays; 0 for a cleared board (see the module docstring)."""
    if params is None:
        params = P.policy_params(**DEFAULT_POLICY)
    out = np.zeros(batch_env.num_envs, dtype=np.float64)
    when_stuck = draws_when_stuck(batch_env)
    _potentials(batch_env.view(), when_stuck, params, float(win_bonus), out)
    return out


def action_values(batch_env: Any, win_bonus: float, params: np.ndarray | None = None) -> np.ndarray:
    """``(num_envs, 29)``: for every game of a TriPeaks batch env and every legal action, the
    cards that action and then the base policy clear on the true cards, + ``win_bonus`` on a
    win (``Q(s, a)`` of the base policy, one sample: the true deal); NaN for illegal actions."""
    if params is None:
        params = P.policy_params(**DEFAULT_POLICY)
    out = np.zeros((batch_env.num_envs, NUM_ACTIONS), dtype=np.float64)
    when_stuck = draws_when_stuck(batch_env)
    _action_values(batch_env.view(), when_stuck, params, float(win_bonus), out)
    return out
