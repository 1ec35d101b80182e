"""Numba kernels of the ``rollout`` agent: TriPeaks playouts on ranks.

Suits never matter for TriPeaks play, so a position is, for a playout, the rank of each of the
28 slots (1..13), the ranks of the stock in draw order (0 for a joker), the removed-slot mask,
the exposed-slot mask, the stock position and the waste key (the waste top's rank, 0 when
anything may be played: an empty waste or a joker).  Like the exact solver
(:mod:`solitaire_env.tripeaks.solver`) a playout keeps ``accept[key]``, the slots whose rank may
be played on each waste key, and walks the cover tables with bit tricks.

What travels together travels as one value:

- :class:`Position`: a position as its player knows it (ranks of the places seen, -1 for the
  others, the unseen cards, the rules); the kernels the callers use take one
  (:func:`sample_counts`, :func:`sample_two`, :func:`position_move`, :func:`position_plans`);
  ``agents.players.rollout.tripeaks_position`` builds it from a public state and
  ``agents.training.move_values.public_inputs`` from a batch env's view;
- :class:`Kit`: what a playout reads besides its position: a filled deal (the ranks of every
  slot and stock card, and their accept masks), the rules, the policy parameters, the noise, the
  record and the chain search's scratch stack (:func:`new_kit`, :func:`blank_kit`);
- :class:`Policy`: what the base policy reads to choose a move (a filled deal's ranks and accept
  masks, the rule ``wrap``, the parameters, the scratch stack, the K/A bridges), made once per
  playout from its kit (:func:`policy_of`) and given to :func:`_choose` and the functions it calls;
- a *state*, the tuple ``(removed, exposed, known, pos, stock_seen, key)`` a playout moves
  through (:func:`start`, :func:`_apply`).

The base policy of a playout is *fair*: it reads the rank of a slot only once the slot is face
up in the playout (``known``), never a stock card before it is drawn, and counts the cards still
unseen by rank.  Its rule (:func:`_choose`): draw only when no removal is legal; otherwise, for
each legal removal, search the chains of removals of known cards that start with it (at most
``budget`` chain positions, ``depth`` removals deep) and score the best place to end one;
score by weights (:func:`policy_params`) the face-down cards the removal turns up at once plus
the best chain end (cards cleared, face-down cards turned up, face-down cards left with one
cover, unseen cards the known board can take, unseen cards that can follow the waste, K/A
bridges kept); the lowest slot wins ties.  With ``eps`` (per mille) and noise, a removal is
instead uniformly random that often (:func:`sample_counts` takes the noise from its uniforms).

:func:`sample_counts` is what the agent calls once per decision: it fills ``samples`` copies
of the unseen places with the unseen ranks (:func:`fill_sample`: jokers only in the stock),
plays every candidate line (a legal move, or a plan from :func:`position_plans`) in each and the
base policy after it to the end, and returns the cards cleared per sample and candidate.
:func:`sample_two` tries every second move after every first one (depth 2).
:func:`playout_record` plays one playout from a full position and records its moves
(:func:`kit_playout`), and :func:`position_move` is the base policy's move in a real position
(the differential tests replay both through the rules core); :func:`rollout_counts`,
:func:`rollout_two`, :func:`policy_move` and :func:`plan_paths` are :func:`sample_counts`,
:func:`sample_two`, :func:`position_move` and :func:`position_plans` with the position's fields as
separate arguments (plain Python: a kernel takes at most 8).
The ``stop`` weights (a linear rule to draw instead of playing) are off by default.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solitaire_env.tripeaks.kernels import (
    COVER,
    accept_masks,
    bit_index,
    draw_allowed,
    exposed_slots,
    near_ranks,
    popcount,
    remove_slot,
)
from solitaire_env.tripeaks.rules import ALL_SLOTS, BOTTOM_MASK, DRAW, NUM_KEYS, NUM_RANKS, NUM_SLOTS, RANK_BITS

#: The rule primitives under the names the other agents' modules call them by (the kernels
#: themselves live in :mod:`solitaire_env.tripeaks.kernels`).
exposed_of = exposed_slots
_popcount = popcount
#: The slots above the bottom row (0..17), the only ones that start face down.
UPPER_MASK = ALL_SLOTS & ~BOTTOM_MASK
#: ``sample_two``'s column for "the game ended with the candidate" (after the 29 actions).
ENDED = DRAW + 1
#: Scratch stack size of the chain search (deeper than any chain of 28 removals).
STACK = 32

#: Policy parameters (an int64 array, see :func:`policy_params`).
(P_MODE, P_BUDGET, P_DEPTH, P_NOW, P_CLEAR, P_REVEAL, P_OUTS, P_BRIDGE, P_FOLLOW, P_CATCH) = range(10)
(P_STOP, P_S_T, P_S_CLEAR, P_S_REVEAL, P_S_NOW, P_S_CATCH, P_S_STOCK, P_S_LEFT, P_HALF, P_EPS) = range(10, 20)
N_PARAMS = 20
#: ``P_MODE`` values: the chain policy, or uniformly random legal moves (tests only).
MODE_CHAIN, MODE_RANDOM = 0, 1
#: ``P_MODE``: the learned base policy (:func:`_net_choose`); its network's weights follow the
#: ``N_PARAMS`` integers of the parameters, as float64 bit patterns (:func:`net_params`).
MODE_NET = 2
#: The learned base policy's inputs per candidate move (:func:`_move_features`).
N_FEATURES = 20
#: The most candidates of a decision (every exposed slot is at most 10 of them, and the draw).
MAX_CANDIDATES = 11
MAX_MOVES = 128  # a game has at most 28 removals and 53 draws


def policy_params(
    *,
    mode: int = MODE_CHAIN,
    budget: int = 48,
    depth: int = 28,
    now: int = 1 << 40,
    clear: int = 1 << 30,
    reveal: int = 1 << 20,
    outs: int = 1 << 10,
    bridge: int = 1,
    follow: int = 0,
    catch: int = 0,
    stop: int = 0,
    s_t: int = 0,
    s_clear: int = 0,
    s_reveal: int = 0,
    s_now: int = 0,
    s_catch: int = 0,
    s_stock: int = 0,
    s_left: int = 0,
    half: int = 0,
    eps: int = 0,
) -> np.ndarray:
    """The base policy's parameters as the kernels take them.

    ``budget``: chain positions searched per candidate removal (0: no search, lowest slot);
    ``depth``: removals deep; the weights score a chain's end: ``now`` per face-down card the
    removal itself turns up, ``clear`` per card the chain clears, ``reveal`` per face-down card
    it turns up, ``outs`` per unseen card that can follow its last rank, ``bridge`` per K or A
    left on the board (wrap only), ``follow`` per known card playable on its last rank.
    ``eps``: per mille of the chain policy's removals played uniformly at random instead (only
    where the kernel is given noise: :func:`sample_counts` with ``MAX_MOVES`` uniforms per
    sample after those of the filling).
    """
    values: tuple[int, ...] = (mode, budget, depth, now, clear, reveal, outs, bridge, follow, catch)
    values += (stop, s_t, s_clear, s_reveal, s_now, s_catch, s_stock, s_left, half, eps)
    return np.array(values, dtype=np.int64)


class Position(NamedTuple):
    """A TriPeaks position as its player knows it, in the kernels' terms (ranks only).

    ``layout`` (28) and ``stock`` (the game's stock in draw order) are ranks with -1 for the
    places never seen (0 in ``stock``: a joker); ``ranks`` the unseen non-joker ranks and
    ``n_jokers`` the unseen jokers; ``removed``, ``pos`` (cards drawn), ``key`` (waste key),
    ``known`` (slots seen), ``stock_seen`` (stock cards seen), ``unseen`` (unseen count per rank,
    0 = jokers), and the rules ``wrap`` and ``when_stuck``.  Numba takes it as one argument.
    """

    layout: np.ndarray
    stock: np.ndarray
    ranks: np.ndarray
    n_jokers: int
    removed: int
    pos: int
    key: int
    known: int
    stock_seen: int
    unseen: np.ndarray
    wrap: bool
    when_stuck: bool


class Kit(NamedTuple):
    """What a playout reads besides its state: a filled deal (``slot_rank``: the 28 ranks,
    ``stock_key``: the stock's keys in draw order, its length the stock's; ``accept``: their
    accept masks, :func:`set_accept`), the rules, the policy ``params``, ``noise`` (uniform
    numbers for the random moves), ``record`` (the moves played are written into it when it is
    not empty) and ``stack``, the chain search's scratch (3 rows).  A playout writes only to
    ``record`` and ``stack`` (and to the ``unseen`` counts it is given)."""

    slot_rank: np.ndarray
    stock_key: np.ndarray
    accept: np.ndarray
    wrap: bool
    when_stuck: bool
    params: np.ndarray
    noise: np.ndarray
    record: np.ndarray
    stack: np.ndarray


class Policy(NamedTuple):
    """What the base policy reads to choose a move, besides the state and the unseen counts: a
    filled deal's ``slot_rank`` and ``accept`` (a kit's, or :func:`_known_deal`'s), the rule
    ``wrap``, the ``params``, the chain search's scratch ``stack`` and ``bridges``
    (:func:`_bridges`).  Made once per playout (:func:`policy_of`); it holds the arrays of the
    kit, so passing it costs what passing those arrays does."""

    slot_rank: np.ndarray
    accept: np.ndarray
    wrap: bool
    params: np.ndarray
    stack: np.ndarray
    bridges: int


@njit(cache=True, inline="always")
def new_kit(slot_rank, stock_key, wrap, when_stuck, params, noise, record):
    """A kit on these ranks (fill them, then :func:`set_accept`), with new masks and stack."""
    return Kit(
        slot_rank,
        stock_key,
        np.empty(NUM_KEYS, np.int64),
        wrap,
        when_stuck,
        params,
        noise,
        record,
        np.empty((3, STACK), np.int64),
    )


@njit(cache=True, inline="always")
def blank_kit(n_stock, wrap, when_stuck, params):
    """A kit with new, unfilled ranks for ``n_stock`` stock cards, no noise and no record."""
    slot_rank = np.empty(NUM_SLOTS, np.int64)
    stock_key = np.empty(n_stock, np.int64)
    return new_kit(slot_rank, stock_key, wrap, when_stuck, params, np.zeros(1), np.zeros(0, np.int64))


@njit(cache=True, inline="always")
def for_game(kit, n_stock, wrap):
    """The same buffers for a game of ``n_stock`` stock cards and rule ``wrap`` (``kit``'s
    ``stock_key`` has room for at least ``n_stock``)."""
    return Kit(
        kit.slot_rank,
        kit.stock_key[:n_stock],
        kit.accept,
        wrap,
        kit.when_stuck,
        kit.params,
        kit.noise,
        kit.record,
        kit.stack,
    )


@njit(cache=True, inline="always")
def set_accept(kit):
    """Fill the kit's accept masks from its slot ranks (after the ranks are filled)."""
    accept_masks(kit.slot_rank, kit.wrap, kit.accept)


@njit(cache=True, inline="always")
def policy_of(slot_rank, accept, wrap, params, stack):
    """The :class:`Policy` of a filled deal (its ranks and accept masks) and these parameters."""
    return Policy(slot_rank, accept, wrap, params, stack, _bridges(slot_rank, wrap, params))


@njit(cache=True, inline="always")
def start(removed, known, pos, stock_seen, key):
    """The state a playout starts from: ``(removed, exposed, known, pos, stock_seen, key)``,
    the exposed slots (and the removed ones) counted as known."""
    exposed = exposed_of(removed)
    return (removed, exposed, known | removed | exposed, pos, stock_seen, key)


@njit(cache=True, inline="always")
def start_of(x):
    """:func:`start` of a :class:`Position`."""
    return start(x.removed, x.known, x.pos, x.stock_seen, x.key)


@njit(cache=True, inline="always")
def _pop_bit(mask):
    """``(mask without its lowest set bit, that bit's index)`` (``mask`` not 0)."""
    low = mask & -mask
    return mask ^ low, bit_index(low)


@njit(cache=True, inline="always")
def _copy(unseen, work):
    """Copy the counts by rank ``unseen`` into ``work``."""
    for r in range(NUM_KEYS):
        work[r] = unseen[r]


@njit(cache=True, inline="always")
def _sum_ranks(ranks, unseen):
    """The unseen cards of the ranks in the bit set ``ranks`` (bit r: rank r), jokers added."""
    total = unseen[0]
    while ranks:
        ranks, r = _pop_bit(ranks)
        total += unseen[r]
    return total


@njit(cache=True, inline="always")
def _outs(key, unseen, wrap):
    """Unseen cards that may be played on waste key ``key`` (jokers count; key 0: all)."""
    if key == 0:  # an empty waste or a joker: every rank follows (kernels.follows)
        return _sum_ranks(RANK_BITS, unseen)
    return _sum_ranks(near_ranks(np.int64(1) << key, wrap), unseen)


@njit(cache=True, inline="always")
def _end_value(end, known, slot_rank, accept, unseen, bridges, wrap, params):
    """How good it is to end a chain at ``end``, ``(removed, exposed, key, cleared)`` (see
    :func:`policy_params`); the other arguments are a :class:`Policy`'s fields, taken out of it
    once per chain search (a field read in the search's loop would cost its reference count)."""
    removed, exposed, key, cleared = end
    value = params[P_CLEAR] * cleared + params[P_REVEAL] * popcount(exposed & ~known)
    value += params[P_OUTS] * _outs(key, unseen, wrap)
    if params[P_BRIDGE] != 0:
        value += params[P_BRIDGE] * popcount(bridges & known & ~removed)
    if params[P_FOLLOW] != 0:
        value += params[P_FOLLOW] * popcount(exposed & known & accept[key])
    if params[P_CATCH] != 0:
        value += params[P_CATCH] * _catch(exposed & known, slot_rank, unseen, wrap)
    if params[P_HALF] != 0:
        value += params[P_HALF] * _half(removed, exposed, known)
    return value


@njit(cache=True, inline="always")
def _half(removed, exposed, known):
    """Face-down cards left with one cover."""
    half = 0
    hidden = ~(known | removed | exposed) & UPPER_MASK
    while hidden:
        hidden, h = _pop_bit(hidden)
        left = COVER[h] & ~removed
        if left & (left - 1) == 0:
            half += 1
    return half


@njit(cache=True, inline="always")
def _catch(board, slot_rank, unseen, wrap):
    """Unseen cards that could be played on one of the ``board`` slots (jokers count)."""
    ranks = np.int64(0)
    while board:
        board, s = _pop_bit(board)
        ranks |= np.int64(1) << slot_rank[s]
    return _sum_ranks(near_ranks(ranks, wrap), unseen)


@njit(cache=True, inline="always")
def _bridges(slot_rank, wrap, params):
    """The aces and kings of the tableau (with ``wrap`` and a ``bridge`` weight only; a policy
    reads them only while known)."""
    bridges = np.int64(0)
    if wrap and params[P_BRIDGE] != 0:
        for s in range(NUM_SLOTS):
            if slot_rank[s] == 1 or slot_rank[s] == NUM_RANKS:
                bridges |= np.int64(1) << s
    return bridges


@njit(cache=True, inline="always")
def _nth_move(moves, pick):
    """The slot of the ``pick``-th set bit of ``moves`` (lowest first); the draw past the last."""
    while moves:
        moves, s = _pop_bit(moves)
        if pick == 0:
            return s
        pick -= 1
    return DRAW


@njit(cache=True, inline="always")
def _chain(policy, removed, exposed, known, unseen, s):
    """The base policy's look at removal ``s`` (a :class:`Policy`'s): a depth-first search of
    the chains of known cards that start with it (``budget`` positions, ``depth`` removals
    deep), each chain end valued by :func:`_end_value`.  Returns ``(score, top_r, top_e, top_k, top_c, deep, now)``:
    the removal's score (``now`` weighted plus the best end's value), the best end (removed and
    exposed masks, waste key, cards the chain clears), the longest chain and the face-down
    cards the removal itself turns up."""
    slot_rank, accept, wrap, params, stack, bridges = policy
    budget = params[P_BUDGET]
    max_depth = params[P_DEPTH]
    r1, e1 = remove_slot(removed, exposed, s)
    k1 = slot_rank[s]
    now = popcount(e1 & ~exposed & ~known)
    top = _end_value((r1, e1, k1, np.int64(1)), known, slot_rank, accept, unseen, bridges, wrap, params)
    top_r, top_e, top_k, top_c = r1, e1, k1, np.int64(1)
    deep = np.int64(1)  # the longest chain of known cards after s
    nodes = 0
    d = 0
    stack[0, 0] = r1
    stack[1, 0] = e1
    stack[2, 0] = e1 & known & accept[k1] if max_depth > 1 else 0
    while d >= 0 and nodes < budget:
        m = stack[2, d]
        if m == 0:
            d -= 1
            continue
        stack[2, d], t = _pop_bit(m)
        r2, e2 = remove_slot(stack[0, d], stack[1, d], t)
        k2 = slot_rank[t]
        nodes += 1
        v = _end_value((r2, e2, k2, np.int64(d + 2)), known, slot_rank, accept, unseen, bridges, wrap, params)
        if v > top:
            top = v
            top_r, top_e, top_k, top_c = r2, e2, k2, np.int64(d + 2)
        if d + 2 > deep:
            deep = np.int64(d + 2)
        if d + 2 < max_depth:
            d += 1
            stack[0, d] = r2
            stack[1, d] = e2
            stack[2, d] = e2 & known & accept[k2]
    return params[P_NOW] * now + top, top_r, top_e, top_k, top_c, deep, now


@njit(cache=True, inline="always")
def _lowest_only(moves, can_draw, params):
    """Whether the chain policy plays the lowest legal removal (``moves`` not 0) without a
    search: a single removal and no ``stop`` rule to weigh against the draw, or no budget."""
    return (moves & (moves - 1) == 0 and not (can_draw and params[P_STOP] != 0)) or params[P_BUDGET] <= 0


@njit(cache=True)
def _choose(policy, state, unseen, can_draw, stock_left):
    """The base policy's move when some removal is legal: a removal, or a draw (``stop``).
    ``policy`` is a :class:`Policy` (a whole kit would cost a reference count per array and
    call)."""
    slot_rank, accept, wrap, params, _, _ = policy
    removed, exposed, known, _, _, key = state
    moves = exposed & accept[key]
    if _lowest_only(moves, can_draw, params):
        return bit_index(moves & -moves)
    stop = can_draw and params[P_STOP] != 0
    best_score = np.int64(-(1 << 62))
    best = -1
    best_r = best_e = best_c = best_now = np.int64(0)
    rest = moves
    while rest:
        rest, s = _pop_bit(rest)
        score, top_r, top_e, _, _, deep, now = _chain(policy, removed, exposed, known, unseen, s)
        if score > best_score:
            best_score = score
            best = s
            best_r, best_e, best_c, best_now = top_r, top_e, deep, now
    if stop and best_r != ALL_SLOTS:
        # draw instead when the best chain is worth too little (a linear rule)
        gain = params[P_S_CLEAR] * best_c + params[P_S_REVEAL] * popcount(best_e & ~known)
        gain += params[P_S_NOW] * best_now
        if params[P_S_CATCH] != 0:
            after = _catch(best_e & known, slot_rank, unseen, wrap)
            before = _catch(exposed & known, slot_rank, unseen, wrap)
            gain += params[P_S_CATCH] * (after - before)
        gain += params[P_S_STOCK] * stock_left + params[P_S_LEFT] * (NUM_SLOTS - popcount(removed))
        if gain < params[P_S_T]:
            return DRAW
    return best


@njit(cache=True, inline="always")
def _move_features(policy, state, unseen, can_draw, stock_left, feats, moves_out):
    """The learned base policy's inputs (``policy``: a :class:`Policy`): one row of ``feats`` per
    candidate (the legal removals, lowest slot first, then the draw when ``can_draw``), its move
    in ``moves_out``; returns how many.  Like the base policy it reads known slots and the unseen
    counts only.  Columns:

    0 the draw; 1 the base policy's removal (:func:`_choose` without ``stop``); 2 face-down cards
    the removal turns up; then at the end of its best chain of known cards (:func:`_chain`):
    3 cards the chain clears / 10, 4 face-down cards turned up, 5 the share of the unseen cards
    that can follow its last rank, 6 the share the known board can take, 7 face-down cards left
    with one cover / 5; 8 the longest chain / 10; after the removal alone: 9 the share of the
    unseen cards that can follow it, 10 known cards that can follow it; 11 a bottom-row slot,
    12 an apex, 13 a K or an A (with K-A wrap).  The same for every candidate: 14 stock left / 24,
    15 cards cleared / 28, 16 legal removals / 4, 17 face-down cards / 18, 18 the share of the
    unseen cards that can follow the waste, 19 a draw is allowed."""
    slot_rank, accept, wrap, _, _, _ = policy
    removed, exposed, known, _, _, key = state
    moves = exposed & accept[key]
    total = 0
    for r in range(NUM_KEYS):
        total += unseen[r]
    inv = 1.0 / max(total, 1)
    g14 = stock_left / 24.0
    g15 = popcount(removed) / 28.0
    g16 = popcount(moves) / 4.0
    g17 = popcount(~(known | removed | exposed) & UPPER_MASK) / 18.0
    g18 = _outs(key, unseen, wrap) * inv
    g19 = 1.0 if can_draw else 0.0
    n = 0
    best = -1
    best_score = np.int64(-(1 << 62))
    rest = moves
    while rest:
        rest, s = _pop_bit(rest)
        score, top_r, top_e, top_k, top_c, deep, now = _chain(policy, removed, exposed, known, unseen, s)
        _, e1 = remove_slot(removed, exposed, s)
        k1 = slot_rank[s]
        feats[n, 0] = 0.0
        feats[n, 1] = 0.0
        feats[n, 2] = now
        feats[n, 3] = top_c / 10.0
        feats[n, 4] = popcount(top_e & ~known)
        feats[n, 5] = _outs(top_k, unseen, wrap) * inv
        feats[n, 6] = _catch(top_e & known, slot_rank, unseen, wrap) * inv
        feats[n, 7] = _half(top_r, top_e, known) / 5.0
        feats[n, 8] = deep / 10.0
        feats[n, 9] = _outs(k1, unseen, wrap) * inv
        feats[n, 10] = popcount(e1 & known & accept[k1])
        feats[n, 11] = 1.0 if BOTTOM_MASK >> s & 1 else 0.0
        feats[n, 12] = 1.0 if s < 3 else 0.0
        feats[n, 13] = 1.0 if wrap and (k1 == 1 or k1 == NUM_RANKS) else 0.0
        moves_out[n] = s
        if score > best_score:
            best_score = score
            best = n
        n += 1
    if best >= 0:
        feats[best, 1] = 1.0
    if can_draw:
        for j in range(14):
            feats[n, j] = 0.0
        feats[n, 0] = 1.0
        moves_out[n] = DRAW
        n += 1
    for c in range(n):
        feats[c, 14] = g14
        feats[c, 15] = g15
        feats[c, 16] = g16
        feats[c, 17] = g17
        feats[c, 18] = g18
        feats[c, 19] = g19
    return n


@njit(cache=True, inline="always")
def _net_of(params):
    """The network in ``params`` as the kernels score with it: ``(wt, b1, w2, b2, z)``, ``wt``
    the transposed first layer (inputs x hidden, a contiguous copy: the loop over the hidden
    units then vectorises) and ``z`` scratch of the hidden width; empty when ``params`` holds
    no network."""
    if params[P_MODE] != MODE_NET:
        return np.empty((0, 0)), np.empty(0), np.empty(0), 0.0, np.empty(0)
    net = params[N_PARAMS:].view(np.float64)
    n_in = int(net[0])
    hidden = int(net[1])
    b1 = 2 + hidden * n_in
    w2 = b1 + hidden
    wt = np.empty((n_in, hidden))
    for h in range(hidden):
        for i in range(n_in):
            wt[i, h] = net[2 + h * n_in + i]
    return wt, net[b1:w2].copy(), net[w2 : w2 + hidden].copy(), net[w2 + hidden], np.empty(hidden)


@njit(cache=True, inline="always")
def _net_score(net, feats, c):
    """The network's score of candidate row ``c``: ``w2 . relu(W1 x + b1) + b2``, from
    :func:`_net_of`'s arrays ``net``.

    Each hidden unit sums ``b1``, then its inputs in their order (an input of 0 adds nothing),
    so the score is bit for bit the row-by-row sum's; but the units are summed side by side, one
    input at a time, so their additions do not wait on one another."""
    wt, b1, w2, b2, z = net
    n_in, hidden = wt.shape
    for h in range(hidden):
        z[h] = b1[h]
    for i in range(n_in):
        xi = feats[c, i]
        if xi != 0.0:
            for h in range(hidden):
                z[h] += wt[i, h] * xi
    acc = b2
    for h in range(hidden):
        if z[h] > 0.0:
            acc += w2[h] * z[h]
    return acc


@njit(cache=True)
def _net_choose(policy, state, unseen, can_draw, stock_left, feats, moves_out, net):
    """The learned base policy's move when some removal is legal: the candidate the network
    scores highest (the first on ties: lower slots, the draw last); ``net`` is :func:`_net_of`
    of the :class:`Policy`'s ``params``."""
    n = _move_features(policy, state, unseen, can_draw, stock_left, feats, moves_out)
    best = 0
    best_score = -np.inf
    for c in range(n):
        v = _net_score(net, feats, c)
        if v > best_score:
            best_score = v
            best = c
    return moves_out[best]


@njit(cache=True, inline="always")
def _apply(action, slot_rank, stock_key, state, unseen):
    """Play ``action`` in a filled deal (a kit's ranks) from ``state``, updating what the player knows
    (``unseen`` is changed); returns ``(state, seen)``, ``seen`` the ranks it turned up (each
    rank + 1, in base 15; 0: nothing new)."""
    removed, exposed, known, pos, stock_seen, key = state
    seen = np.int64(0)
    if action == DRAW:
        key = stock_key[pos]
        if pos >= stock_seen:
            unseen[key] -= 1
            stock_seen = pos + 1
            seen = key + 1
        pos += 1
    else:
        removed, exposed = remove_slot(removed, exposed, action)
        new = exposed & ~known
        known |= new
        while new:
            new, s = _pop_bit(new)
            r = slot_rank[s]
            unseen[r] -= 1
            seen = seen * 15 + r + 1
        key = slot_rank[action]
    return (removed, exposed, known, pos, stock_seen, key), seen


@njit(cache=True)
def _playout(kit, state, unseen):
    """Play the base policy from ``state`` to the end of the game (``unseen`` is changed).

    Returns ``(cleared, moves)``; with a ``kit.record`` (an array of ``MAX_MOVES``) the moves
    are written into it.  ``kit.noise`` holds uniform numbers for the random mode (tests) and,
    with ``MAX_MOVES`` of them, for the ``eps`` removals.
    """
    slot_rank, stock_key, accept, wrap, when_stuck, params, noise, record, stack = kit  # locals for the loop
    n_stock = stock_key.shape[0]
    policy = policy_of(slot_rank, accept, wrap, params, stack)
    n = 0
    net_mode = params[P_MODE] == MODE_NET
    feats = np.empty((MAX_CANDIDATES if net_mode else 1, N_FEATURES))
    moves_out = np.empty(MAX_CANDIDATES, np.int64)
    net = _net_of(params)
    removed, exposed, known, pos, stock_seen, key = state
    while removed != ALL_SLOTS:
        moves = exposed & accept[key]
        can_draw = draw_allowed(n_stock - pos, moves, when_stuck)
        if moves == 0 and not can_draw:
            break
        if params[P_MODE] == MODE_RANDOM:
            count = popcount(moves) + (1 if can_draw else 0)
            pick = int(noise[n % noise.shape[0]] * count)
            action = _nth_move(moves, min(pick, count - 1))
        elif moves == 0:
            action = DRAW
        elif params[P_EPS] > 0 and noise.shape[0] >= MAX_MOVES and noise[n] * 1000.0 < params[P_EPS]:
            # epsilon-greedy: a uniformly random removal (the same uniform, rescaled, picks it)
            count = popcount(moves)
            pick = int(noise[n] * 1000.0 / params[P_EPS] * count)
            action = _nth_move(moves, min(pick, count - 1))
        elif net_mode:
            state = (removed, exposed, known, pos, stock_seen, key)
            action = _net_choose(policy, state, unseen, can_draw, n_stock - pos, feats, moves_out, net)
        elif _lowest_only(moves, can_draw, params):  # _choose's answer, without the call
            action = bit_index(moves & -moves)
        else:
            state = (removed, exposed, known, pos, stock_seen, key)
            action = _choose(policy, state, unseen, can_draw, n_stock - pos)
        if record.shape[0] > 0:
            record[n] = action
        n += 1
        # the move, as in :func:`_apply` but written out: an inlined call costs the reference
        # counts of its three arrays at every move, the hottest loop of all
        if action == DRAW:
            key = stock_key[pos]
            if pos >= stock_seen:
                unseen[key] -= 1
                stock_seen = pos + 1
            pos += 1
        else:
            removed, exposed = remove_slot(removed, exposed, action)
            new = exposed & ~known
            known |= new
            while new:
                new, s = _pop_bit(new)
                unseen[slot_rank[s]] -= 1
            key = slot_rank[action]
    return popcount(removed), n


@njit(cache=True)
def kit_playout(kit, state, unseen):
    """One playout in a kit whose ranks are filled (its accept masks are set here) from
    ``state``; ``unseen`` is not changed.  Returns ``(cleared, moves)``, the moves played (the
    kit's ``record`` holds room for them)."""
    set_accept(kit)
    cleared, n = _playout(kit, state, unseen.copy())
    return cleared, kit.record[:n].copy()


def playout_record(slot_rank, stock_key, removed, pos, key, known, stock_seen, unseen, wrap, when_stuck, params, noise):
    """One playout from a full position (``slot_rank`` and ``stock_key``: every card's rank);
    returns ``(cleared, moves)`` (the env actions played): :func:`kit_playout` in a new kit."""
    record = np.zeros(MAX_MOVES, np.int64)
    stack = np.empty((3, STACK), np.int64)
    kit = Kit(slot_rank, stock_key, np.empty(NUM_KEYS, np.int64), wrap, when_stuck, params, noise, record, stack)
    return kit_playout(kit, start(removed, known, pos, stock_seen, key), unseen)


@njit(cache=True, inline="always")
def _known_deal(x):
    """A real position's ranks as a playout's: ``(slot_rank, accept, state)`` of
    :class:`Position` ``x``, rank 0 (plays on nothing but a key of 0) where never seen and the
    accept masks over the known slots only."""
    slot_rank = np.empty(NUM_SLOTS, np.int64)  # no kit: no stock card, noise or record is read
    for s in range(NUM_SLOTS):
        slot_rank[s] = x.layout[s] if x.layout[s] > 0 else 0
    accept = np.empty(NUM_KEYS, np.int64)
    accept_masks(slot_rank, x.wrap, accept)
    state = start(x.removed, x.known, x.pos, np.int64(0), x.key)
    for r in range(NUM_KEYS):
        accept[r] &= state[2]
    return slot_rank, accept, state


def _seen_position(layout, removed, known, key, pos, n_stock, unseen, wrap, when_stuck):
    """A :class:`Position` of these fields for the kernels that read of the stock its length
    only (:func:`position_move`, :func:`position_plans`): ``n_stock`` places, none seen."""
    stock = np.full(n_stock, -1, np.int64)
    return Position(layout, stock, np.zeros(0, np.int64), 0, removed, pos, key, known, 0, unseen, wrap, when_stuck)


@njit(cache=True)
def position_move(x, params):
    """The base policy's move in :class:`Position` ``x`` (it reads known slots only, and of the
    stock its length), the learned one's in ``MODE_NET``.  ``-1`` when no move is legal."""
    slot_rank, accept, state = _known_deal(x)
    n_stock = x.stock.shape[0]
    exposed = state[1]
    moves = exposed & accept[x.key]
    can_draw = draw_allowed(n_stock - x.pos, moves, x.when_stuck)
    if moves == 0:
        return DRAW if can_draw else -1
    policy = policy_of(slot_rank, accept, x.wrap, params, np.empty((3, STACK), np.int64))
    if params[P_MODE] == MODE_NET:
        feats = np.empty((MAX_CANDIDATES, N_FEATURES))
        moves_out = np.empty(MAX_CANDIDATES, np.int64)
        return _net_choose(policy, state, x.unseen, can_draw, n_stock - x.pos, feats, moves_out, _net_of(params))
    return _choose(policy, state, x.unseen, can_draw, n_stock - x.pos)


def policy_move(layout, removed, known, key, pos, n_stock, unseen, wrap, when_stuck, params):
    """:func:`position_move` with the position's fields as separate arguments (``layout``:
    ranks, -1 where never seen; ``n_stock`` the stock's length)."""
    x = _seen_position(layout, removed, known, key, pos, n_stock, unseen, wrap, when_stuck)
    return position_move(x, params)


@njit(cache=True)
def position_features(x, params):
    """The learned base policy's inputs in a :class:`Position` (:func:`_move_features`):
    ``(features, moves)``, one row per candidate (none when no removal is legal: the draw, or
    nothing, is then the only move)."""
    slot_rank, accept, state = _known_deal(x)
    n_stock = x.stock.shape[0]
    feats = np.zeros((MAX_CANDIDATES, N_FEATURES))
    moves_out = np.zeros(MAX_CANDIDATES, np.int64)
    moves = state[1] & accept[x.key]
    if moves == 0:
        return feats[:0], moves_out[:0]
    can_draw = draw_allowed(n_stock - x.pos, moves, x.when_stuck)
    policy = policy_of(slot_rank, accept, x.wrap, params, np.empty((3, STACK), np.int64))
    n = _move_features(policy, state, x.unseen, can_draw, n_stock - x.pos, feats, moves_out)
    return feats[:n], moves_out[:n]


def net_array(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float) -> np.ndarray:
    """A one-hidden-layer network as the kernels read it: ``[inputs, hidden, W1 (hidden x
    inputs, by rows), b1, w2, b2]`` (float64)."""
    w1 = np.asarray(w1, dtype=np.float64)
    hidden, n_in = w1.shape
    if n_in != N_FEATURES or np.shape(b1) != (hidden,) or np.shape(w2) != (hidden,):
        raise ValueError(f"a base-policy network takes {N_FEATURES} inputs: W1 (h, {N_FEATURES}), b1 (h,), w2 (h,)")
    parts = [np.array([n_in, hidden], dtype=np.float64), w1.ravel(), np.asarray(b1, np.float64)]
    parts += [np.asarray(w2, np.float64), np.array([b2], dtype=np.float64)]
    return np.concatenate(parts)


def net_params(net: np.ndarray, **policy: int) -> np.ndarray:
    """The parameters of the learned base policy: :func:`policy_params` in ``MODE_NET`` (the
    chain search's weights, which pick each removal's best chain, from ``policy``), followed by
    the network :func:`net_array` as float64 bit patterns."""
    net = np.ascontiguousarray(net, dtype=np.float64)
    if net.ndim != 1 or net.shape[0] < 2 or net.shape[0] != 3 + int(net[1]) * (int(net[0]) + 2):
        raise ValueError("net_params() takes a network from net_array()")
    if int(net[0]) != N_FEATURES:
        raise ValueError(f"the network takes {int(net[0])} inputs, the kernels give {N_FEATURES}")
    return np.concatenate([policy_params(**{**policy, "mode": MODE_NET}), net.view(np.int64)])


@njit(cache=True)
def fill_columns(stock, ranks):
    """The uniform numbers one filling of a position takes (:func:`fill_sample`): one per unseen
    rank and per unseen stock place (``stock`` ranks, -1 where unseen), and one more."""
    width = ranks.shape[0] + 1
    for p in range(stock.shape[0]):
        if stock[p] < 0:
            width += 1
    return width


@njit(cache=True)
def fill_sample(layout, stock, ranks, n_jokers, u, slot_rank, stock_key):
    """Fill one sample: ``layout`` / ``stock`` ranks with -1 where unseen; ``ranks`` the unseen
    non-joker ranks; ``u`` uniform numbers (at least ``len(ranks) + unseen stock places``).
    The jokers go to unseen stock places only (a deal never has one in the tableau)."""
    n = ranks.shape[0]
    perm = ranks.copy()
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = int(u[i] * (i + 1))
        if j > i:
            j = i
        perm[i], perm[j] = perm[j], perm[i]
    next_rank = 0
    for s in range(NUM_SLOTS):
        if layout[s] < 0:
            slot_rank[s] = perm[next_rank]
            next_rank += 1
        else:
            slot_rank[s] = layout[s]
    # the unseen stock places: which hold the jokers (a uniform choice)
    places = 0
    for p in range(stock.shape[0]):
        if stock[p] < 0:
            places += 1
    jokers_left = n_jokers
    places_left = places
    k = n
    for p in range(stock.shape[0]):
        if stock[p] < 0:
            if jokers_left > 0 and u[k] * places_left < jokers_left:
                stock_key[p] = 0
                jokers_left -= 1
            else:
                stock_key[p] = perm[next_rank]
                next_rank += 1
            places_left -= 1
            k += 1
        else:
            stock_key[p] = stock[p]


@njit(cache=True, inline="always")
def _fill(kit, x, u):
    """Fill the kit's deal with one sample of the unseen places of :class:`Position` ``x``."""
    fill_sample(x.layout, x.stock, x.ranks, x.n_jokers, u, kit.slot_rank, kit.stock_key)
    set_accept(kit)


@njit(cache=True)
def position_plans(x, max_plans, max_nodes):
    """The plans from :class:`Position` ``x`` (it reads the known slots, and of the stock its
    length): the lines of removals of known cards that end in a draw, in a
    removal that turns a face-down card up, or at the end of the game.  Every plan keeps to what
    the player knows until its last move, so any of them can be carried out as a whole.

    Breadth first (shorter plans first, lower slots first), each position reached once (a
    position reached by two lines keeps the first); at most ``max_plans`` plans and
    ``max_nodes`` positions expanded, but every legal first move gets its one-move plan.
    Returns ``(paths, lengths)``: ``paths[i, :lengths[i]]`` is plan ``i``'s env actions.
    """
    layout, removed, known, key, pos = x.layout, x.removed, x.known, x.key, x.pos
    n_stock, when_stuck, wrap = x.stock.shape[0], x.when_stuck, x.wrap
    known_rank = np.empty(NUM_SLOTS, np.int64)  # rank 0 (plays on nothing) where never seen
    for s in range(NUM_SLOTS):
        known_rank[s] = layout[s] if layout[s] > 0 else 0
    accept = np.empty(NUM_KEYS, np.int64)  # over the known slots only
    accept_masks(known_rank, wrap, accept)
    cap = max_nodes + 1
    q_removed = np.empty(cap, np.int64)
    q_exposed = np.empty(cap, np.int64)
    q_key = np.empty(cap, np.int64)
    q_parent = np.empty(cap, np.int64)  # index of the parent node, -1 for the root
    q_action = np.empty(cap, np.int64)
    q_depth = np.empty(cap, np.int64)
    max_out = max_plans + 32
    out_node = np.empty(max_out, np.int64)  # the node a plan leaves from
    out_last = np.empty(max_out, np.int64)  # the plan's last action
    n_out = 0
    _, exposed0, known0, _, _, _ = start(removed, known, pos, np.int64(0), key)
    q_removed[0] = removed
    q_exposed[0] = exposed0
    q_key[0] = key
    q_parent[0] = -1
    q_action[0] = -1
    q_depth[0] = 0
    n_nodes = 1
    head = 0
    while head < n_nodes:
        node = head
        head += 1
        r0 = q_removed[node]
        e0 = q_exposed[node]
        k0 = q_key[node]
        moves = e0 & accept[k0]
        root = node == 0
        if n_out >= max_plans and not root:
            if q_depth[node] == 1 and n_out < max_out:  # a first move keeps its one-move plan
                out_node[n_out] = 0
                out_last[n_out] = q_action[node]
                n_out += 1
            continue
        if draw_allowed(n_stock - pos, moves, when_stuck):
            out_node[n_out] = node
            out_last[n_out] = DRAW
            n_out += 1
        while moves:
            moves, s = _pop_bit(moves)
            r1, e1 = remove_slot(r0, e0, s)
            k1 = layout[s]
            stop = r1 == ALL_SLOTS or (e1 & ~known0) != 0 or ((e1 & accept[k1]) == 0 and pos >= n_stock)
            if not stop:  # an inner node, unless already reached or out of room
                seen = False
                for other in range(1, n_nodes):
                    if q_removed[other] == r1 and q_key[other] == k1:
                        seen = True
                        break
                if seen and not root:
                    continue
                if seen or n_nodes >= cap or n_out >= max_plans:
                    stop = True  # the one-move plan of a first move
            if stop:
                if n_out < max_out:
                    out_node[n_out] = node
                    out_last[n_out] = s
                    n_out += 1
                continue
            q_removed[n_nodes] = r1
            q_exposed[n_nodes] = e1
            q_key[n_nodes] = k1
            q_parent[n_nodes] = node
            q_action[n_nodes] = s
            q_depth[n_nodes] = q_depth[node] + 1
            n_nodes += 1
    # a first move whose lines all ran into positions reached before (or out of room) keeps
    # its one-move plan
    covered = np.int64(0)
    for i in range(n_out):
        node = out_node[i]
        if node == 0:
            covered |= np.int64(1) << out_last[i]
        else:
            while q_parent[node] > 0:
                node = q_parent[node]
            covered |= np.int64(1) << q_action[node]
    for node in range(1, n_nodes):
        if q_depth[node] == 1 and not covered >> q_action[node] & 1 and n_out < max_out:
            out_node[n_out] = 0
            out_last[n_out] = q_action[node]
            n_out += 1
    longest = 1
    for i in range(n_out):
        if q_depth[out_node[i]] + 1 > longest:
            longest = q_depth[out_node[i]] + 1
    paths = np.full((n_out, longest), -1, np.int64)
    lengths = np.empty(n_out, np.int64)
    for i in range(n_out):
        node = out_node[i]
        d = q_depth[node]
        lengths[i] = d + 1
        paths[i, d] = out_last[i]
        while node > 0:
            d -= 1
            paths[i, d] = q_action[node]
            node = q_parent[node]
    return paths, lengths


def plan_paths(layout, removed, known, key, pos, n_stock, when_stuck, wrap, max_plans, max_nodes):
    """:func:`position_plans` with the position's fields as separate arguments (``layout``:
    ranks, -1 where never seen; ``n_stock`` the stock's length; ``when_stuck`` before ``wrap``)."""
    x = _seen_position(layout, removed, known, key, pos, n_stock, np.zeros(NUM_KEYS, np.int64), wrap, when_stuck)
    return position_plans(x, max_plans, max_nodes)


@njit(cache=True)
def sample_counts(x, uniforms, paths, lengths, params):
    """The cards cleared (28: a win) by each plan (``paths[i, :lengths[i]]``, env actions)
    followed by the base policy, in each sample of :class:`Position` ``x``: an
    ``(samples, plans)`` int8 array (one row of ``uniforms`` per sample; the same samples for
    every plan).  A row's first :func:`fill_columns` numbers fill the sample; with
    ``MAX_MOVES`` more they are the playouts' noise (``eps``, the same for every plan)."""
    n_samples = uniforms.shape[0]
    n_plans = paths.shape[0]
    cleared = np.zeros((n_samples, n_plans), np.int8)
    width = fill_columns(x.stock, x.ranks)
    noisy = uniforms.shape[1] >= width + MAX_MOVES
    slot_rank = np.empty(NUM_SLOTS, np.int64)
    stock_key = np.empty(x.stock.shape[0], np.int64)
    noise = np.zeros(MAX_MOVES if noisy else 1)
    kit = new_kit(slot_rank, stock_key, x.wrap, x.when_stuck, params, noise, np.zeros(0, np.int64))
    work = np.empty(NUM_KEYS, np.int64)
    state0 = start_of(x)
    unseen = x.unseen
    for i in range(n_samples):
        _fill(kit, x, uniforms[i])
        if noisy:
            for j in range(MAX_MOVES):
                noise[j] = uniforms[i, width + j]
        for c in range(n_plans):
            _copy(unseen, work)
            state = state0
            for j in range(lengths[c]):
                state = _apply(paths[c, j], slot_rank, stock_key, state, work)[0]
            cleared[i, c] = _playout(kit, state, work)[0]
    return cleared


@njit(cache=True)
def sample_two(x, uniforms, candidates, params):
    """Two moves, then the base policy, in the samples of :class:`Position` ``x``: for each
    sample ``i`` and candidate ``c``, ``seen[i, c]`` is what the candidate turned up (see
    :func:`_apply`) and ``cleared[i, c, b]`` the cards cleared when the env action ``b`` is
    played next and the base policy after it (-1: ``b`` is not legal then; ``b = 29``: the game
    ended with the candidate).  The player picks ``b`` knowing ``seen`` only: see
    ``TriPeaksRollout``.  Returns ``(seen, cleared)``."""
    n_samples = uniforms.shape[0]
    n_cand = candidates.shape[0]
    cleared = np.full((n_samples, n_cand, ENDED + 1), -1, np.int8)
    seen_out = np.zeros((n_samples, n_cand), np.int64)
    n_stock = x.stock.shape[0]
    kit = blank_kit(n_stock, x.wrap, x.when_stuck, params)
    slot_rank, stock_key, accept = kit.slot_rank, kit.stock_key, kit.accept
    work1 = np.empty(NUM_KEYS, np.int64)
    work2 = np.empty(NUM_KEYS, np.int64)
    state0 = start_of(x)
    unseen = x.unseen
    when_stuck = x.when_stuck
    for i in range(n_samples):
        _fill(kit, x, uniforms[i])
        for c in range(n_cand):
            _copy(unseen, work1)
            state1, seen = _apply(candidates[c], slot_rank, stock_key, state0, work1)
            seen_out[i, c] = seen
            removed1, exposed1, _, pos1, _, key1 = state1
            moves = exposed1 & accept[key1]
            can_draw = draw_allowed(n_stock - pos1, moves, when_stuck)
            if removed1 == ALL_SLOTS or (moves == 0 and not can_draw):
                cleared[i, c, ENDED] = popcount(removed1)
                continue
            if can_draw:
                moves |= np.int64(1) << DRAW
            while moves:
                moves, b = _pop_bit(moves)
                _copy(work1, work2)
                cleared[i, c, b] = _playout(kit, _apply(b, slot_rank, stock_key, state1, work2)[0], work2)[0]
    return seen_out, cleared


def rollout_counts(layout, stock, ranks, n_jokers, uniforms, *rest):
    """:func:`sample_counts` with the :class:`Position`'s fields as separate arguments:
    ``(layout, stock, ranks, n_jokers, uniforms, removed, pos, key, known, stock_seen, unseen,
    wrap, when_stuck, paths, lengths, params)``."""
    return sample_counts(Position(layout, stock, ranks, n_jokers, *rest[:8]), uniforms, *rest[8:])


def rollout_two(layout, stock, ranks, n_jokers, uniforms, *rest):
    """:func:`sample_two` with the :class:`Position`'s fields as separate arguments:
    ``(layout, stock, ranks, n_jokers, uniforms, removed, pos, key, known, stock_seen, unseen,
    wrap, when_stuck, candidates, params)``."""
    return sample_two(Position(layout, stock, ranks, n_jokers, *rest[:8]), uniforms, *rest[8:])


assert DRAW == NUM_SLOTS  # the draw bit sits just above the slot bits
