"""numba kernels of the batch TriPeaks env: N games in arrays, stepped in one call.

The rules are those of :class:`~solitaire_env.tripeaks.game.TriPeaksGame`, the deals those of
:meth:`~solitaire_env.common.deals.TriPeaksDeal.from_seed` and the observations those of
:class:`~solitaire_env.tripeaks.observe.TriPeaksObserver`; ``tests/generic/test_batch_equals_single.py``
checks all three against the rules core on thousands of random deals and actions.

The step itself is the shared driver's (:func:`solitaire_env.common.batch_driver.step_all`:
autoreset, rewards, illegal actions, the time limit, same_step resets); this module plugs
TriPeaks' hooks into it for :class:`TriPeaksBatchState` (:func:`play_rows`,
:func:`illegal_rows`, :func:`deal_row`, :func:`start_row`, :func:`save_final`): playing a batch
of moves, the reasons of illegal ones, dealing and starting a game, saving a final state.  The
kernels below the hooks take the arrays they need (the hooks take them out of the state once).

The state of game ``i`` is row ``i`` of the arrays of a :class:`TriPeaksBatchState`:

- ``st[i, F_*]``: the integers of the game (bit masks over the 28 slots, stock position,
  waste top, counters, the legal-action bits...);
- ``tab[i]``: the card of each slot; ``stock[i]``: the stock in draw order (52 = joker);
- ``accept[i, k]``: the slots playable on a waste key ``k`` (0 = empty waste or joker, else
  the rank), as in the rules core;
- ``counters[:, i]``: the info's counters (:func:`write_counters`).

Its ``cfg`` holds the rule options and the scoring as integers (``C_*``); the options every
batch env has (reward, illegal-action policy, time limit...) are the driver's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solitaire_env.common import batch_driver as D
from solitaire_env.common.cards import JOKER, SUITS, rank_of, suit_of
from solitaire_env.common.splitmix import below, next64
from solitaire_env.games import game_spec
from solitaire_env.tripeaks import kernels as R
from solitaire_env.tripeaks.observe import (
    CHAIN_OFFSET,
    CLEARED_OFFSET,
    FACE_DOWN,
    FLAT_SIZE,
    JOKERS_OFFSET,
    ORACLE_SIZE,
    ORACLE_SLOT_SIZE,
    ORACLE_STOCK_OFFSET,
    ORACLE_STOCK_SIZE,
    ORACLE_TABLEAU_OFFSET,
    REMOVED,
    SLOT_SIZE,
    STOCK_NONE,
    STOCK_OFFSET,
    UNSEEN_OFFSET,
    WASTE_EMPTY,
    WASTE_OFFSET,
)
from solitaire_env.tripeaks.rules import (
    APEX_SLOTS,
    BOTTOM_MASK,
    DEAL_STOCK,
    DECK_SIZE,
    DRAW,
    GROUP_OF,
    MAX_STOCK,
    NUM_ACTIONS,
    NUM_RANKS,
    NUM_SLOTS,
    PEAK_GROUP_MASKS,
)

ALL = R.ALL_SLOTS
BOTTOM = BOTTOM_MASK
#: The salt of the TriPeaks deal stream ("TP" as a big-endian number: 0x5450).
DEAL_SALT = game_spec("TP").salt

# --- st columns
F_REMOVED, F_EXPOSED, F_FACE_UP, F_SEEN = 0, 1, 2, 3
F_STOCK_POS, F_STOCK_SEEN, F_STOCK_LEN = 4, 5, 6
F_WASTE, F_KEY, F_FIRST_WASTE = 7, 8, 9  # waste top (-1 empty); key; the deal's waste card if seen at start (-1)
F_SCORE, F_MOVES, F_CHAIN, F_LONGEST, F_APEXES = 10, 11, 12, 13, 14
F_WRAP, F_JOKERS_UNSEEN, F_CLEARED, F_LEGAL = 15, 16, 17, 18  # F_LEGAL: the legal-action bits
NUM_FIELDS = 19

# --- cfg entries
C_WHEN_STUCK, C_OPEN, C_WASTE_EMPTY, C_JOKERS = 0, 1, 2, 3
C_START, C_HAS_FLOOR, C_FLOOR, C_REMOVAL, C_CHAIN_POINTS, C_DRAW_POINTS = 4, 5, 6, 7, 8, 9
C_APEX1, C_APEX2, C_APEX3, C_GROUP, C_CLEAR = 10, 11, 12, 13, 14
C_WRAP = 15  # the env's own wrap rule (random deals)
NUM_CFG = 16
#: The info's counters, in the order of the rows of ``counters`` (:func:`write_counters`).
NUM_COUNTERS = 5

# --- illegal reason codes (index into REASON_NAMES; 0 = legal)
REASON_NAMES = ("", "not_adjacent", "covered", "face_down", "removed", "stock_empty", "draw_not_allowed", "game_over")
R_NOT_ADJACENT, R_COVERED, R_FACE_DOWN, R_REMOVED, R_STOCK_EMPTY, R_DRAW_NOT_ALLOWED, R_GAME_OVER = 1, 2, 3, 4, 5, 6, 7

# --- flat observation layout (solitaire_env.tripeaks.observe)
WASTE_OFF = WASTE_OFFSET
STOCK_OFF = STOCK_OFFSET
UNSEEN_OFF = UNSEEN_OFFSET
JOKERS_OFF = JOKERS_OFFSET
CHAIN_OFF = CHAIN_OFFSET
CLEARED_OFF = CLEARED_OFFSET
ORACLE_TAB_OFF = ORACLE_TABLEAU_OFFSET
ORACLE_STOCK_OFF = ORACLE_STOCK_OFFSET
NUM_SUITS = len(SUITS)  # C D H S
#: Places within a slot block: [0] face down, [1] removed, ranks from 2, suits from 15.
SLOT_FACE_DOWN, SLOT_REMOVED, SLOT_RANK = 0, 1, 2
SLOT_SUIT = SLOT_RANK + NUM_RANKS
#: Places within a waste / oracle-stock block: ranks from 0, suits from 13, joker 17, empty 18.
CARD_SUIT = NUM_RANKS
CARD_JOKER = CARD_SUIT + NUM_SUITS
CARD_EMPTY = CARD_JOKER + 1
#: An oracle slot block: rank and suit (17 places).
ORACLE_SLOT = ORACLE_SLOT_SIZE
#: An oracle stock block: rank, suit and joker (18 places).
ORACLE_CARD = ORACLE_STOCK_SIZE
#: Dict-mode codes beyond the card ids 0..51 (``solitaire_env.tripeaks.observe``).
FACE_DOWN_CODE = FACE_DOWN
REMOVED_CODE = REMOVED
WASTE_EMPTY_CODE = WASTE_EMPTY
STOCK_NONE_CODE = STOCK_NONE
#: Removing a slot below this is removing an apex (the apexes are slots 0, 1, 2).
NUM_APEXES = len(APEX_SLOTS)
assert tuple(range(NUM_APEXES)) == APEX_SLOTS
assert SLOT_SIZE == SLOT_SUIT + NUM_SUITS and ORACLE_SLOT == CARD_JOKER and ORACLE_CARD == CARD_EMPTY
assert FLAT_SIZE == ORACLE_TAB_OFF and ORACLE_SIZE == ORACLE_STOCK_OFF + MAX_STOCK * ORACLE_CARD
assert NUM_ACTIONS <= 36  # update_mask finds a bit by its power of two mod 37

_GROUP_MASK = np.array([PEAK_GROUP_MASKS[GROUP_OF[s]] for s in range(NUM_SLOTS)], dtype=np.int64)

#: ``k / MAX_STOCK`` and ``k / NUM_SLOTS`` as float32, as the observer stores them (no division in the step)
_OVER_MAX_STOCK = (np.arange(MAX_STOCK + 1) / MAX_STOCK).astype(np.float32)
_OVER_SLOTS = (np.arange(NUM_SLOTS + 1) / NUM_SLOTS).astype(np.float32)
#: rank index (0..12) and suit index (0..3) of each card id (no division in the step)
_RANK0 = np.array([rank_of(c) - 1 for c in range(DECK_SIZE + 1)], dtype=np.int64)
_SUIT = np.array([suit_of(c) for c in range(DECK_SIZE + 1)], dtype=np.int64)
#: ``_BIT_OF_MOD37[(1 << k) % 37] == k`` for k < 36 (the one copy: ``tripeaks.kernels``)
_BIT_OF_MOD37 = R.BIT_OF_MOD37


class TriPeaksBatchState(NamedTuple):
    """The numba state of N TriPeaks games: row ``i`` of each array is game ``i`` (the module
    docstring has the layout)."""

    #: ``(N, NUM_FIELDS)`` int32 (a smaller working set than int64: 2-4 % a step).
    st: np.ndarray
    #: ``(N, 28)`` int8 and ``(N, MAX_STOCK)`` int8: the cards of the slots and of the stock.
    tab: np.ndarray
    stock: np.ndarray
    #: ``(N, 15)`` int32: the slots playable on each waste key.
    accept: np.ndarray
    #: ``(NUM_COUNTERS, N)`` int64: the info's counters.
    counters: np.ndarray
    #: ``(MAX_STOCK + 1,)`` int64 scratch: a deal's waste card then stock.
    rest: np.ndarray
    #: ``(NUM_CFG,)`` int64: the rule options and the scoring.
    cfg: np.ndarray


class TriPeaksFinalState(NamedTuple):
    """The games a same_step step reset, as they ended (:func:`save_final`): what their final
    observation and info read, laid out as in :class:`TriPeaksBatchState`."""

    st: np.ndarray
    tab: np.ndarray
    stock: np.ndarray


def new_final(rows: int) -> TriPeaksFinalState:
    """The final state of ``rows`` games."""
    return TriPeaksFinalState(
        st=np.zeros((rows, NUM_FIELDS), dtype=np.int32), tab=np.zeros((rows, NUM_SLOTS), dtype=np.int8),
        stock=np.zeros((rows, MAX_STOCK), dtype=np.int8),
    )  # fmt: skip


@njit(cache=True)
def save_final(s: TriPeaksBatchState, final: TriPeaksFinalState, i: int) -> None:
    """Game ``i``'s state into row ``i`` of ``final``."""
    for k in range(NUM_SLOTS):
        final.tab[i, k] = s.tab[i, k]
    for k in range(MAX_STOCK):
        final.stock[i, k] = s.stock[i, k]
    for f in range(NUM_FIELDS):
        final.st[i, f] = s.st[i, f]


def new_state(num_envs: int, cfg: np.ndarray) -> TriPeaksBatchState:
    """The state arrays of ``num_envs`` games (not dealt yet)."""
    n = num_envs
    return TriPeaksBatchState(
        st=np.zeros((n, NUM_FIELDS), dtype=np.int32), tab=np.zeros((n, NUM_SLOTS), dtype=np.int8),
        stock=np.full((n, MAX_STOCK), -1, dtype=np.int8), accept=np.zeros((n, 15), dtype=np.int32),
        counters=np.zeros((NUM_COUNTERS, n), dtype=np.int64), rest=np.zeros(MAX_STOCK + 1, dtype=np.int64), cfg=cfg,
    )  # fmt: skip


class TriPeaksDictObs(NamedTuple):
    """The dict observation's arrays of N games (:func:`encode_dict`), named as its keys."""

    tableau: np.ndarray
    waste: np.ndarray
    unseen: np.ndarray
    counts: np.ndarray
    #: written in the oracle modes only
    hidden_tableau: np.ndarray
    stock: np.ndarray


# --------------------------------------------------------------------------- deals


@njit(cache=True)
def deal_from_seed(seed: int, jokers: int, tableau: np.ndarray, rest: np.ndarray) -> int:
    """TriPeaksDeal.from_seed: tableau into ``tableau`` (28), waste then stock into ``rest``.

    Returns the number of cards written to ``rest`` (1 + 23 + jokers).
    """
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64((DEAL_SALT << 48) | seed)
    deck = np.arange(DECK_SIZE)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = below(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for s in range(NUM_SLOTS):
        tableau[s] = deck[s]
    rest[0] = deck[NUM_SLOTS]
    n = DEAL_STOCK
    for k in range(DEAL_STOCK):
        rest[1 + k] = deck[NUM_SLOTS + 1 + k]
    for _ in range(jokers):
        pos = below(state, n + 1)
        for k in range(n, pos, -1):
            rest[1 + k] = rest[k]
        rest[1 + pos] = JOKER
        n += 1
    return 1 + n


# --------------------------------------------------------------------------- game


@njit(cache=True, inline="always")  # inlined into the deal of a reset: one call less
def start_game(s: TriPeaksBatchState, i: int, n_rest: int, wrap: int) -> None:
    """Game ``i`` from its tableau (already in ``s.tab[i]``) and ``s.rest[:n_rest]`` = waste card then stock."""
    st, tab, stock, cfg, rest = s.st, s.tab, s.stock, s.cfg, s.rest
    slot_rank = np.empty(NUM_SLOTS, dtype=np.int64)
    for k in range(NUM_SLOTS):
        slot_rank[k] = R.card_key(tab[i, k])
    R.accept_masks(slot_rank, wrap, s.accept[i])
    if cfg[C_WASTE_EMPTY]:
        for k in range(n_rest):
            stock[i, k] = rest[k]
        st[i, F_STOCK_LEN] = n_rest
        st[i, F_WASTE] = -1
        st[i, F_FIRST_WASTE] = -1
    else:
        for k in range(1, n_rest):
            stock[i, k - 1] = rest[k]
        st[i, F_STOCK_LEN] = n_rest - 1
        st[i, F_WASTE] = rest[0]
        st[i, F_FIRST_WASTE] = rest[0]
    for k in range(st[i, F_STOCK_LEN], MAX_STOCK):
        stock[i, k] = -1
    jokers = 0
    for k in range(st[i, F_STOCK_LEN]):
        if stock[i, k] == JOKER:
            jokers += 1
    st[i, F_JOKERS_UNSEEN] = jokers
    st[i, F_KEY] = R.card_key(st[i, F_WASTE])
    st[i, F_REMOVED] = 0
    st[i, F_EXPOSED] = BOTTOM
    face_up = ALL if cfg[C_OPEN] else BOTTOM
    st[i, F_FACE_UP] = face_up
    st[i, F_SEEN] = face_up
    st[i, F_STOCK_POS] = 0
    st[i, F_STOCK_SEEN] = 0
    st[i, F_SCORE] = cfg[C_START]
    st[i, F_MOVES] = 0
    st[i, F_CHAIN] = 0
    st[i, F_LONGEST] = 0
    st[i, F_APEXES] = 0
    st[i, F_CLEARED] = 0
    st[i, F_WRAP] = wrap


@njit(cache=True, inline="always")
def legal_bits(i: int, st: np.ndarray, accept: np.ndarray, cfg: np.ndarray) -> int:
    """TriPeaksGame.legal_mask of game ``i``."""
    removable = st[i, F_EXPOSED] & accept[i, st[i, F_KEY]]
    return R.legal_bits(st[i, F_REMOVED], removable, st[i, F_STOCK_LEN] - st[i, F_STOCK_POS], cfg[C_WHEN_STUCK])


@njit(cache=True)
def reason_of(i: int, a: int, st: np.ndarray, accept: np.ndarray, cfg: np.ndarray) -> int:
    """TriPeaksGame.illegal_reason of an action known to be illegal."""
    removable = st[i, F_EXPOSED] & accept[i, st[i, F_KEY]]
    if st[i, F_REMOVED] == ALL or (st[i, F_STOCK_POS] == st[i, F_STOCK_LEN] and not removable):
        return R_GAME_OVER
    if a == DRAW:
        if st[i, F_STOCK_POS] == st[i, F_STOCK_LEN]:
            return R_STOCK_EMPTY
        return R_DRAW_NOT_ALLOWED
    bit = 1 << a
    if st[i, F_REMOVED] & bit:
        return R_REMOVED
    if not st[i, F_FACE_UP] & bit:
        return R_FACE_DOWN
    if not st[i, F_EXPOSED] & bit:
        return R_COVERED
    return R_NOT_ADJACENT


@njit(cache=True, inline="always")
def _play(
    i: int, a: int, st: np.ndarray, tab: np.ndarray, stock: np.ndarray, cfg: np.ndarray, obs: np.ndarray, mode: int
) -> int:
    """Play the legal action ``a`` in game ``i`` (and update its flat observation, row ``i`` of ``obs``,
    in the flat observation modes ``mode``); returns the cards the move cleared (0 or 1)."""
    flat = mode % 2 == 0  # OBS_FLAT (0) or OBS_ORACLE (2)
    oracle = mode == D.OBS_ORACLE
    st[i, F_MOVES] += 1
    old_waste = st[i, F_WASTE]
    if a == DRAW:
        pos = st[i, F_STOCK_POS]
        card = stock[i, pos]
        st[i, F_STOCK_POS] = pos + 1
        newly_seen_card = pos + 1 > st[i, F_STOCK_SEEN]
        if newly_seen_card:
            st[i, F_STOCK_SEEN] = pos + 1
            if card == JOKER:
                st[i, F_JOKERS_UNSEEN] -= 1
        st[i, F_CHAIN] = 0
        points = cfg[C_DRAW_POINTS]
        cleared = 0
        if flat:
            if newly_seen_card:
                if card == JOKER:
                    obs[i, JOKERS_OFF] -= 0.5
                else:
                    obs[i, UNSEEN_OFF + card] = 0.0
            if oracle:
                _oracle_stock(i, st, stock, obs)
    else:
        bit = 1 << a
        removed = st[i, F_REMOVED] | bit
        st[i, F_REMOVED] = removed
        exposed = st[i, F_EXPOSED] & ~bit
        card = tab[i, a]
        if flat:
            base = SLOT_SIZE * a
            obs[i, base + SLOT_RANK + _RANK0[card]] = 0.0
            obs[i, base + SLOT_SUIT + _SUIT[card]] = 0.0
            obs[i, base + SLOT_REMOVED] = 1.0
            if oracle:
                for k in range(ORACLE_SLOT):
                    obs[i, ORACLE_TAB_OFF + ORACLE_SLOT * a + k] = 0.0
        turned = R.newly_exposed(removed, a)
        exposed |= turned
        while turned:
            tb = turned & -turned
            turned ^= tb
            t = R.bit_index(tb)
            was_up = st[i, F_FACE_UP] & tb
            st[i, F_FACE_UP] |= tb
            if flat and not was_up:
                c = tab[i, t]
                base = SLOT_SIZE * t
                obs[i, base + SLOT_FACE_DOWN] = 0.0
                obs[i, base + SLOT_RANK + _RANK0[c]] = 1.0
                obs[i, base + SLOT_SUIT + _SUIT[c]] = 1.0
            if not st[i, F_SEEN] & tb:
                st[i, F_SEEN] |= tb
                if flat:
                    obs[i, UNSEEN_OFF + tab[i, t]] = 0.0
        st[i, F_EXPOSED] = exposed
        chain = st[i, F_CHAIN] + 1
        st[i, F_CHAIN] = chain
        if chain > st[i, F_LONGEST]:
            st[i, F_LONGEST] = chain
        points = cfg[C_REMOVAL]
        if cfg[C_CHAIN_POINTS]:
            points += chain
        if a < NUM_APEXES:
            apex = st[i, F_APEXES] + 1
            st[i, F_APEXES] = apex
            points += cfg[C_APEX1 + apex - 1]
        group = _GROUP_MASK[a]
        if removed & group == group:
            points += cfg[C_GROUP]
        if removed == ALL:
            points += cfg[C_CLEAR]
        cleared = 1
        st[i, F_CLEARED] += 1
    st[i, F_WASTE] = card
    st[i, F_KEY] = R.card_key(card)
    score = st[i, F_SCORE] + points
    if cfg[C_HAS_FLOOR] and score < cfg[C_FLOOR]:
        score = cfg[C_FLOOR]
    st[i, F_SCORE] = score
    if flat:
        _waste_cell(obs, i, old_waste, 0.0)
        _waste_cell(obs, i, card, 1.0)
        _counts(i, st, obs)
    return cleared


# --------------------------------------------------------------------------- observations


@njit(cache=True, inline="always")
def _waste_cell(obs: np.ndarray, i: int, card: int, value: float) -> None:
    if card < 0:
        obs[i, WASTE_OFF + CARD_EMPTY] = value
    elif card == JOKER:
        obs[i, WASTE_OFF + CARD_JOKER] = value
    else:
        obs[i, WASTE_OFF + _RANK0[card]] = value
        obs[i, WASTE_OFF + CARD_SUIT + _SUIT[card]] = value


@njit(cache=True, inline="always")
def _counts(i: int, st: np.ndarray, obs: np.ndarray) -> None:
    obs[i, STOCK_OFF] = _OVER_MAX_STOCK[st[i, F_STOCK_LEN] - st[i, F_STOCK_POS]]
    obs[i, CHAIN_OFF] = _OVER_SLOTS[st[i, F_CHAIN]]
    obs[i, CLEARED_OFF] = _OVER_SLOTS[st[i, F_CLEARED]]


@njit(cache=True)
def _oracle_stock(i: int, st: np.ndarray, stock: np.ndarray, obs: np.ndarray) -> None:
    for k in range(MAX_STOCK * ORACLE_CARD):
        obs[i, ORACLE_STOCK_OFF + k] = 0.0
    pos = st[i, F_STOCK_POS]
    for k in range(st[i, F_STOCK_LEN] - pos):
        c = stock[i, pos + k]
        base = ORACLE_STOCK_OFF + ORACLE_CARD * k
        if c == JOKER:
            obs[i, base + CARD_JOKER] = 1.0
        else:
            obs[i, base + _RANK0[c]] = 1.0
            obs[i, base + CARD_SUIT + _SUIT[c]] = 1.0


@njit(cache=True)
def encode_flat(i: int, st: np.ndarray, tab: np.ndarray, stock: np.ndarray, obs: np.ndarray, oracle: bool) -> None:
    """The whole flat (or oracle) observation of game ``i`` into ``obs``."""
    obs[i, :] = 0.0
    removed, face_up, seen = st[i, F_REMOVED], st[i, F_FACE_UP], st[i, F_SEEN]
    for c in range(DECK_SIZE):
        obs[i, UNSEEN_OFF + c] = 1.0
    for k in range(NUM_SLOTS):
        base = SLOT_SIZE * k
        bit = 1 << k
        c = tab[i, k]
        if removed & bit:
            obs[i, base + SLOT_REMOVED] = 1.0
        elif face_up & bit:
            obs[i, base + SLOT_RANK + _RANK0[c]] = 1.0
            obs[i, base + SLOT_SUIT + _SUIT[c]] = 1.0
        else:
            obs[i, base + SLOT_FACE_DOWN] = 1.0
        if seen & bit:
            obs[i, UNSEEN_OFF + c] = 0.0
        if oracle and not removed & bit:
            obs[i, ORACLE_TAB_OFF + ORACLE_SLOT * k + _RANK0[c]] = 1.0
            obs[i, ORACLE_TAB_OFF + ORACLE_SLOT * k + CARD_SUIT + _SUIT[c]] = 1.0
    first = st[i, F_FIRST_WASTE]
    if first >= 0 and first != JOKER:
        obs[i, UNSEEN_OFF + first] = 0.0
    for k in range(st[i, F_STOCK_SEEN]):
        c = stock[i, k]
        if c != JOKER:
            obs[i, UNSEEN_OFF + c] = 0.0
    obs[i, JOKERS_OFF] = st[i, F_JOKERS_UNSEEN] / 2
    _waste_cell(obs, i, st[i, F_WASTE], 1.0)
    _counts(i, st, obs)
    if oracle:
        _oracle_stock(i, st, stock, obs)


@njit(cache=True)
def encode_dict(
    rows: np.ndarray, s: TriPeaksBatchState | TriPeaksFinalState, out: TriPeaksDictObs, oracle: bool
) -> None:
    """The dict observation (TriPeaksObserver._dict) of the games in ``rows`` of a state or a
    final state, into their rows of ``out``."""
    st, tab, stock = s.st, s.tab, s.stock
    for i in rows:
        removed, face_up, seen = st[i, F_REMOVED], st[i, F_FACE_UP], st[i, F_SEEN]
        for c in range(DECK_SIZE):
            out.unseen[i, c] = 1
        for k in range(NUM_SLOTS):
            bit = 1 << k
            c = tab[i, k]
            if removed & bit:
                out.tableau[i, k] = REMOVED_CODE
            elif face_up & bit:
                out.tableau[i, k] = c
            else:
                out.tableau[i, k] = FACE_DOWN_CODE
            if seen & bit:
                out.unseen[i, c] = 0
            if oracle:
                out.hidden_tableau[i, k] = REMOVED_CODE if removed & bit else c
        first = st[i, F_FIRST_WASTE]
        if first >= 0 and first != JOKER:
            out.unseen[i, first] = 0
        for k in range(st[i, F_STOCK_SEEN]):
            c = stock[i, k]
            if c != JOKER:
                out.unseen[i, c] = 0
        waste = st[i, F_WASTE]
        out.waste[i] = WASTE_EMPTY_CODE if waste < 0 else waste
        out.counts[i, 0] = (st[i, F_STOCK_LEN] - st[i, F_STOCK_POS]) / MAX_STOCK
        out.counts[i, 1] = st[i, F_CHAIN] / NUM_SLOTS
        out.counts[i, 2] = st[i, F_CLEARED] / NUM_SLOTS
        out.counts[i, 3] = st[i, F_JOKERS_UNSEEN] / 2
        if oracle:
            pos = st[i, F_STOCK_POS]
            for k in range(MAX_STOCK):
                out.stock[i, k] = stock[i, pos + k] if pos + k < st[i, F_STOCK_LEN] else STOCK_NONE_CODE


@njit(cache=True)
def write_mask(i: int, bits: int, st: np.ndarray, mask: np.ndarray) -> None:
    """Set game ``i``'s legal bits and its mask row (all of it)."""
    st[i, F_LEGAL] = bits
    for a in range(NUM_ACTIONS):
        mask[i, a] = (bits >> a) & 1


@njit(cache=True, inline="always")
def update_mask(i: int, bits: int, st: np.ndarray, mask: np.ndarray) -> None:
    """Set game ``i``'s legal bits and write only the mask entries that changed."""
    diff = st[i, F_LEGAL] ^ bits
    st[i, F_LEGAL] = bits
    while diff:
        low = diff & -diff
        a = _BIT_OF_MOD37[low % 37]
        mask[i, a] = (bits >> a) & 1
        diff ^= low


# --------------------------------------------------------------------------- reset and start


@njit(cache=True)
def reset_from_seed(s: TriPeaksBatchState, i: int, seed: int, wrap: int) -> None:
    """Deal game ``i`` from a deal seed, with the K-A rule ``wrap``."""
    n_rest = deal_from_seed(seed, s.cfg[C_JOKERS], s.tab[i], s.rest)
    start_game(s, i, n_rest, wrap)


@njit(cache=True, inline="always")
def write_counters(i: int, st: np.ndarray, counters: np.ndarray) -> None:
    """Column ``i`` of ``counters``: score, moves, cleared, chain, longest chain (the info's counters)."""
    counters[0, i] = st[i, F_SCORE]
    counters[1, i] = st[i, F_MOVES]
    counters[2, i] = st[i, F_CLEARED]
    counters[3, i] = st[i, F_CHAIN]
    counters[4, i] = st[i, F_LONGEST]


# --------------------------------------------------------------------------- the driver's hooks


@njit(cache=True)
def play_rows(s: TriPeaksBatchState, io: D.BatchIO, actions: np.ndarray, count: int, mode: int) -> None:
    """Play the legal actions of the games ``io.ints[I_ROWS, :count]``: their observations, masks
    and counters, and what the driver reads of each move (points, cards cleared, win, stuck)."""
    st, tab, stock, accept, counters, cfg = s.st, s.tab, s.stock, s.accept, s.counters, s.cfg
    obs, mask, rows = io.obs, io.mask, io.ints[D.I_ROWS]
    points, progress, won, stuck = io.ints[D.I_POINTS], io.ints[D.I_PROGRESS], io.bools[D.B_WON], io.bools[D.B_STUCK]
    for k in range(count):
        i = rows[k]
        old_score = st[i, F_SCORE]
        progress[i] = _play(i, actions[i], st, tab, stock, cfg, obs, mode)
        bits = legal_bits(i, st, accept, cfg)
        update_mask(i, bits, st, mask)
        write_counters(i, st, counters)
        points[i] = st[i, F_SCORE] - old_score
        won[i] = st[i, F_REMOVED] == ALL
        stuck[i] = bits == 0


@njit(cache=True)
def illegal_rows(s: TriPeaksBatchState, io: D.BatchIO, actions: np.ndarray, start: int) -> None:
    """The reasons of the illegal actions of the games ``io.ints[I_ROWS, start:]``; a game is
    stuck when the reason is that it is over."""
    st, accept, cfg = s.st, s.accept, s.cfg
    rows, reasons, stuck = io.ints[D.I_ROWS], io.ints[D.I_REASONS], io.bools[D.B_STUCK]
    for k in range(start, rows.shape[0]):
        i = rows[k]
        reason = reason_of(i, actions[i], st, accept, cfg)
        reasons[i] = reason
        stuck[i] = reason == R_GAME_OVER


@njit(cache=True)
def deal_row(s: TriPeaksBatchState, i: int, seed: int) -> None:
    """Deal game ``i`` from a deal seed, with the env's K-A rule."""
    reset_from_seed(s, i, seed, s.cfg[C_WRAP])


@njit(cache=True)
def start_row(s: TriPeaksBatchState, obs: np.ndarray, mask: np.ndarray, i: int, mode: int) -> None:
    """The observation (flat modes), mask and counters of game ``i`` just dealt."""
    st = s.st
    if mode % 2 == 0:  # OBS_FLAT (0) or OBS_ORACLE (2)
        encode_flat(i, st, s.tab, s.stock, obs, mode == D.OBS_ORACLE)
    write_mask(i, legal_bits(i, st, s.accept, s.cfg), st, mask)
    write_counters(i, st, s.counters)


D.plug_in(
    TriPeaksBatchState, play_rows=play_rows, illegal_rows=illegal_rows, deal_row=deal_row, start_row=start_row,
    save_final=save_final,
)  # fmt: skip


# --------------------------------------------------------------------------- agents


@njit(cache=True)
def sample_legal(mask: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """A random legal action per row of ``mask`` into ``out`` (0 for a row with none).

    SplitMix64 ``state``; the pick is ``(x >> 32) * count >> 32``, uniform within 2**-32 (no
    division: this is the benchmarks' random agent, not a deal generator).
    """
    legal = np.empty(mask.shape[1], dtype=np.int64)
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):  # branch-free: write every action, keep the legal ones
            legal[count] = a
            count += mask[i, a] != 0
        if count == 0:
            out[i] = 0
        else:
            x = next64(state) >> np.uint64(32)
            out[i] = legal[int((x * np.uint64(count)) >> np.uint64(32))]
