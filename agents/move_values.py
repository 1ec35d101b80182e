"""Values from playouts of the ``rollout`` agent's base policy, for training TriPeaks policies.

All three read a TriPeaks batch env (:class:`~solitaire_env.tripeaks.batch.TriPeaksVectorEnv`)
through its read-only public view (``batch.view()``, a
:class:`~solitaire_env.tripeaks.batch.TriPeaksBatchView` the numba functions take as ``v``)
and play the base policy (:mod:`agents._playout`, weights :data:`agents.rollout.DEFAULT_POLICY`)
to the end of the game; a value counts the cards cleared from the position on, plus
``win_bonus`` when the board is cleared (the units of the env's ``progress`` reward):

- :func:`potentials`: ``Phi(s)``, the base policy's playout from each position **on the true
  deal** (0 for a cleared board): the potential of :class:`agents.shaping.PlayoutShaping`;
- :func:`action_values`: for every legal move, the move then the base policy, **on the true
  deal** (one sample of what the player does not know);
- :func:`sampled_action_values`: the same averaged over fillings of the places the player has
  not seen, drawn fairly from the unseen cards: what the ``rollout`` agent estimates, and the
  target of the warm start (:mod:`agents.pretrain`). It reads no hidden card:
  ``tests/test_move_values.py`` checks it equals the rollout agent's kernel run on the public
  state's inputs.

The first two are training signals that use the hidden cards (the env knows them); no policy
input is made from them. Each is checked against the rules core in ``tests/test_move_values.py``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numba import njit

from agents import _playout as P
from agents.rollout import DEFAULT_POLICY
from solitaire_env.common.cards import JOKER
from solitaire_env.tripeaks.game import NUM_ACTIONS
from solitaire_env.tripeaks.rules import ALL_SLOTS, MAX_STOCK, NUM_SLOTS

__all__ = ["action_values", "fill_width", "potentials", "public_inputs", "sampled_action_values"]

#: Uniforms per filling without jokers (56 >= 18 + 24 unseen ranks; the random streams of the
#: estimate are those of this width).
FILL_WIDTH = 56


def fill_width(jokers: int) -> int:
    """The uniform numbers per filling of :func:`sampled_action_values` (one row for any position):
    the shuffle of the unseen ranks (at most 18 face-down slots and 24 stock cards) and, with
    jokers, one more per unseen stock place (where the jokers go, :func:`agents._playout.fill_sample`)."""
    return FILL_WIDTH + (MAX_STOCK if jokers else 0)


def draws_when_stuck(batch_env: Any) -> bool:
    """Whether the batch env's rules allow a draw only when no removal is legal."""
    return bool(batch_env.rules.draw == "when_stuck")


@njit(cache=True)
def _inputs(i, v, slot_rank, stock_key, unseen, ranks):  # pragma: no cover - numba
    """Game ``i`` of the batch env as a playout position on its true cards: :func:`public_inputs`
    (``unseen``: what the player has not seen, by rank; 0 = jokers), then the true ranks in
    ``slot_rank`` and ``stock_key`` where the player knows none; returns
    ``(removed, known, n_stock, stock_seen, pos, key, wrap)``."""
    removed, known, n_stock, stock_seen, _, _ = public_inputs(i, v, slot_rank, stock_key, unseen, ranks)
    for s in range(NUM_SLOTS):  # then the true ranks where the player knows none
        slot_rank[s] = np.int64(v.tableau[i, s]) % 13 + 1
    for k in range(stock_seen, n_stock):
        c = np.int64(v.stock[i, k])
        stock_key[k] = 0 if c == JOKER else c % 13 + 1
    return (
        removed,
        known,
        n_stock,
        stock_seen,
        np.int64(v.stock_pos[i]),
        np.int64(v.waste_key[i]),
        v.wrap[i] != 0,
    )


@njit(cache=True)
def _potentials(v, when_stuck, params, win_bonus, out):  # pragma: no cover - numba
    slot_rank = np.empty(NUM_SLOTS, np.int64)
    stock_key = np.empty(v.stock.shape[1], np.int64)
    unseen = np.zeros(14, np.int64)
    ranks = np.empty(64, np.int64)
    noise = np.zeros(1, np.float64)
    accept = np.empty(14, np.int64)
    record = np.zeros(0, np.int64)
    st_r = np.empty(32, np.int64)
    st_e = np.empty(32, np.int64)
    st_m = np.empty(32, np.int64)
    for i in range(v.removed.shape[0]):
        if np.int64(v.removed[i]) == ALL_SLOTS:
            out[i] = 0.0
            continue
        removed, known, n_stock, stock_seen, pos, key, wrap = _inputs(i, v, slot_rank, stock_key, unseen, ranks)
        P.accept_masks(slot_rank, wrap, accept)
        exposed = P.exposed_of(removed)
        cleared, _ = P._playout(
            slot_rank,
            stock_key[:n_stock],
            accept,
            removed,
            exposed,
            known | exposed,
            pos,
            stock_seen,
            key,
            unseen,
            wrap,
            when_stuck,
            params,
            noise,
            record,
            st_r,
            st_e,
            st_m,
        )
        out[i] = (cleared - P._popcount(removed)) + (win_bonus if cleared == NUM_SLOTS else 0.0)


@njit(cache=True)
def _action_values(v, when_stuck, params, win_bonus, out):  # pragma: no cover - numba
    """``out[i, a]``: for each legal action ``a`` of game ``i`` (``v.legal[i]``), the cards
    cleared by ``a`` and then by the base policy on the true cards, + ``win_bonus`` if that wins;
    NaN where ``a`` is not legal."""
    slot_rank = np.empty(NUM_SLOTS, np.int64)
    stock_key = np.empty(v.stock.shape[1], np.int64)
    unseen = np.zeros(14, np.int64)
    ranks = np.empty(64, np.int64)
    work = np.zeros(14, np.int64)
    noise = np.zeros(1, np.float64)
    accept = np.empty(14, np.int64)
    record = np.zeros(0, np.int64)
    st_r = np.empty(32, np.int64)
    st_e = np.empty(32, np.int64)
    st_m = np.empty(32, np.int64)
    for i in range(v.removed.shape[0]):
        out[i, :] = np.nan
        legal = np.int64(v.legal[i])
        if legal == 0:
            continue
        removed, known, n_stock, stock_seen, pos, key, wrap = _inputs(i, v, slot_rank, stock_key, unseen, ranks)
        P.accept_masks(slot_rank, wrap, accept)
        exposed = P.exposed_of(removed)
        known |= exposed
        before = P._popcount(removed)
        for a in range(NUM_ACTIONS):
            if not (legal >> a) & 1:
                continue
            work[:] = unseen
            r2, e2, k2, p2, s2, key2, _ = P._apply(
                a, slot_rank, stock_key, removed, exposed, known, pos, stock_seen, key, work
            )
            cleared = P._popcount(r2)
            if r2 != ALL_SLOTS:
                cleared, _ = P._playout(
                    slot_rank,
                    stock_key[:n_stock],
                    accept,
                    r2,
                    e2,
                    k2,
                    p2,
                    s2,
                    key2,
                    work,
                    wrap,
                    when_stuck,
                    params,
                    noise,
                    record,
                    st_r,
                    st_e,
                    st_m,
                )
            out[i, a] = (cleared - before) + (win_bonus if cleared == NUM_SLOTS else 0.0)


@njit(cache=True, nogil=True)
def public_inputs(i, v, layout, stock_rank, unseen, ranks):  # pragma: no cover - numba
    """Game ``i`` of the batch env's view ``v`` as its player knows it, in the rollout kernels' terms: fills
    ``layout`` (slot ranks, -1 never seen), ``stock_rank`` (-1 not drawn yet; 0 a joker),
    ``unseen`` (unseen cards by rank, 0 = jokers) and ``ranks[:n_ranks]`` (the unseen non-joker
    ranks); returns ``(removed, known, n_stock, stock_seen, n_ranks, n_jokers)``."""
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
    return removed, known, n_stock, stock_seen, n_ranks, n_jokers


@njit(cache=True, nogil=True)
def _sampled_values(  # pragma: no cover
    v, when_stuck, params, win_bonus, uniforms, min_legal, lo, hi, out
):
    """Like :func:`_action_values` for games ``lo`` to ``hi - 1``, averaged over
    ``uniforms.shape[1]`` fair fillings of the unseen places (what the ``rollout`` agent
    estimates) instead of the true deal; games with fewer than ``min_legal`` legal moves are
    left NaN.  Without the GIL: threads may run disjoint ranges."""
    layout = np.empty(NUM_SLOTS, np.int64)
    stock_rank = np.empty(v.stock.shape[1], np.int64)
    unseen = np.zeros(14, np.int64)
    ranks_buf = np.empty(64, np.int64)
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
        removed, known, n_stock, stock_seen, n_ranks, n_jokers = public_inputs(
            i, v, layout, stock_rank, unseen, ranks_buf
        )
        before = P._popcount(removed)
        cleared = P.rollout_counts(
            layout,
            stock_rank[:n_stock],
            np.sort(ranks_buf[:n_ranks]),
            n_jokers,
            uniforms[i],
            removed,
            np.int64(v.stock_pos[i]),
            np.int64(v.waste_key[i]),
            known,
            stock_seen,
            unseen,
            v.wrap[i] != 0,
            when_stuck,
            paths[:n_legal],
            lengths[:n_legal],
            params,
        )
        n_samples = cleared.shape[0]
        for c in range(n_legal):
            total = 0.0
            for j in range(n_samples):
                got = np.int64(cleared[j, c])
                total += (got - before) + (win_bonus if got == NUM_SLOTS else 0.0)
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
    when_stuck = draws_when_stuck(batch_env)
    min_legal = 2 if skip_forced else 1
    args = (batch_env.view(), when_stuck, params, float(win_bonus), uniforms, min_legal)
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
