"""numba kernels of the batch Forty Thieves env: N games in arrays, stepped in one call.

The rules are those of :class:`~solitaire_env.fortythieves.game.FortyThievesGame`, the deals
those of :meth:`~solitaire_env.common.deals.FortyThievesDeal.from_seed`, the observations those of
:class:`~solitaire_env.fortythieves.observe.FortyThievesObserver` and the repetition rule that
of :class:`~solitaire_env.fortythieves.env.FortyThievesEnv`; ``tests/generic/test_batch_equals_single.py``
checks all of them against the single env on thousands of random deals and actions.

The step itself is the shared driver's (:func:`solitaire_env.common.batch_driver.step_all`:
autoreset, rewards, illegal actions, the time limit, same_step resets); this module plugs
Forty Thieves' hooks into it for :class:`FortyThievesBatchState` (:func:`play_rows`,
:func:`illegal_rows`, :func:`deal_row`, :func:`start_row`, :func:`save_final`): playing a batch
of moves with the repetition rule (which truncates an episode through the driver's ``cut`` and
asks for larger tables through its game flag, ``FLAG_GAME``), the reasons of illegal moves,
dealing and starting a game, saving a final state.  The kernels below the hooks take the
arrays they need (the hooks take them out of the state once).

The state of game ``i`` is row ``i`` of the arrays of a :class:`FortyThievesBatchState`:

- ``st[i, F_*]``: the integers of the game (stock position, waste length, counters, the
  column lengths ``F_CLEN + j``, the foundation counts ``F_FND + f``, the bit mask of empty
  columns, the repetition table's bookkeeping...);
- ``cols[i, j, d]``: the card at depth ``d`` (0 = bottom) of column ``j``; ``waste[i]`` (bottom
  first); ``stock[i]`` (draw order);
- ``topped[i, c]``: bit mask of the columns whose top card is ``c`` (index 52: never set);
- ``srcbits[i, s]``: the legal destinations (11 bits) of source ``s``, i.e. what the mask row
  ``mask[i, 11 * s : 11 * s + 11]`` holds; the kernel rewrites only the entries that change;
- ``zh[i]``: the Zobrist position hash of the rules core (``FortyThievesGame.position_hash``);
- ``rep_keys[i]``, ``rep_counts[i]``, ``rep_epochs[i]``: an open-addressing hash table (linear
  probing, capacity a power of two) counting each position hash since the last draw, as the
  single env's ``_seen_positions`` dict does.  An entry is live only while its epoch equals
  ``st[i, F_REP_EPOCH]``, so emptying the table (a draw, a reset) is one increment.

Its ``cfg`` holds the rule option, the scoring and the repetition limit as integers (``C_*``);
the options every batch env has (reward, illegal-action policy, time limit...) are the driver's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solitaire_env.common import batch_driver as D
from solitaire_env.common.splitmix import below
from solitaire_env.fortythieves import game as _game
from solitaire_env.fortythieves import observe as _ob
from solitaire_env.fortythieves.kernels import (
    PARENT_ARRAY,
    REFUSE_ONTO_ACE,
    REFUSE_WRONG_RANK,
    REFUSE_WRONG_SUIT,
    column_refusal,
    foundation_card,
    foundation_for,
    source_dests,
)
from solitaire_env.fortythieves.kernels import (
    TO_FOUNDATION_BIT as TO_FOUNDATION_BIT,  # re-exported: the batch env reads it here
)
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    MAX_COLUMN,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    NUM_SOURCES,
    STOCK_SIZE,
    TOTAL_CARDS,
)
from solitaire_env.fortythieves.rules import FOUNDATION as FOUNDATION_DST
from solitaire_env.fortythieves.rules import WASTE as WASTE_SRC
from solitaire_env.games import game_spec

DECK_SIZE = TOTAL_CARDS
NONE = _ob.NONE  # dict-mode code of an empty position (52)

# --- st columns
F_STOCK_POS, F_WASTE_LEN, F_SCORE, F_MOVES, F_CHAIN, F_LONGEST, F_FOUNDED = 0, 1, 2, 3, 4, 5, 6
F_EMPTY, F_ANY_LEGAL, F_REP_N, F_REP_EPOCH, F_REP_POS = 7, 8, 9, 10, 11
F_CLEN = 12  # 10 column lengths
F_FND = F_CLEN + NUM_COLUMNS  # 8 foundation counts
NUM_FIELDS = F_FND + NUM_FOUNDATIONS

# --- cfg entries
C_RETURN, C_START, C_HAS_FLOOR, C_FLOOR = 0, 1, 2, 3
C_TO_FOUNDATION, C_WASTE_TO_COLUMN, C_FOUNDATION_TO_COLUMN, C_COLUMN_TO_COLUMN, C_DRAW_POINTS = 4, 5, 6, 7, 8
C_MAX_REPEATS = 9  # 0 = no repetition rule
NUM_CFG = 10

# --- illegal reason codes (index into REASON_NAMES; 0 = legal)
REASON_NAMES = (
    "",
    "wrong_suit",
    "wrong_rank",
    "onto_ace",
    "foundation_order",
    "nothing_to_move",
    "same_place",
    "return_not_allowed",
    "stock_empty",
    "game_over",
)
R_WRONG_SUIT, R_WRONG_RANK, R_ONTO_ACE, R_FOUNDATION_ORDER, R_NOTHING_TO_MOVE = 1, 2, 3, 4, 5
# the column refusals of the rule kernels are the first three reason codes
assert (R_WRONG_SUIT, R_WRONG_RANK, R_ONTO_ACE) == (REFUSE_WRONG_SUIT, REFUSE_WRONG_RANK, REFUSE_ONTO_ACE)
R_SAME_PLACE, R_RETURN_NOT_ALLOWED, R_STOCK_EMPTY, R_GAME_OVER = 6, 7, 8, 9
assert set(REASON_NAMES[1:]) == set(_game.REASONS)

# --- flat observation layout (solitaire_env.fortythieves.observe)
CARD_SIZE = _ob.CARD_SIZE
LENGTHS_OFF = _ob.LENGTHS_OFFSET
WASTE_OFF = _ob.WASTE_OFFSET
WASTE_TOP_OFF = _ob.WASTE_TOP_OFFSET
WASTE_SIZE_OFF = _ob.WASTE_SIZE_OFFSET
FOUNDATIONS_OFF = _ob.FOUNDATIONS_OFFSET
STOCK_OFF = _ob.STOCK_OFFSET
UNSEEN_OFF = _ob.UNSEEN_OFFSET
FLAT_SIZE = _ob.FLAT_SIZE
ORACLE_STOCK_OFF = _ob.ORACLE_STOCK_OFFSET
ORACLE_SIZE = _ob.ORACLE_SIZE

#: ``_LOW_BIT[m]``: the index of the lowest set bit of an 11-bit mask ``m`` (m > 0).
_LOW_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << NUM_DESTS)], dtype=np.int64)

# --- Zobrist keys of the rules core (the same numbers, as uint64)
_ZC = np.array(_game.ZOBRIST_COLUMN, dtype=np.uint64)
_ZW = np.array(_game.ZOBRIST_WASTE, dtype=np.uint64)
_ZF = np.array(_game.ZOBRIST_FOUNDATION, dtype=np.uint64)
_ZS = np.array(_game.ZOBRIST_STOCK, dtype=np.uint64)
_ZSTART = np.uint64(_game.ZOBRIST_START)

# --- deals: SplitMix64 as in solitaire_env.common.deals
_SALT = game_spec("FT").salt


class FortyThievesBatchState(NamedTuple):
    """The numba state of N Forty Thieves games: row ``i`` of each array is game ``i`` (the
    module docstring has the layout)."""

    #: ``(N, NUM_FIELDS)`` int64.
    st: np.ndarray
    #: ``(N, 10, MAX_COLUMN)``, ``(N, 64)``, ``(N, 64)`` int8: the columns, the waste, the stock.
    cols: np.ndarray
    waste: np.ndarray
    stock: np.ndarray
    #: ``(N, 53)`` int64: the columns topped by each card; ``(N, NUM_SOURCES)`` int64: each source's legal destinations.
    topped: np.ndarray
    srcbits: np.ndarray
    #: ``(N,)`` uint64: the position hashes.
    zh: np.ndarray
    #: ``(N, capacity)`` uint64, int32, int64: the repetition tables.
    rep_keys: np.ndarray
    rep_counts: np.ndarray
    rep_epochs: np.ndarray
    #: ``(104,)`` int8 and ``(1,)`` uint64 scratch: a deal and its generator.
    deck: np.ndarray
    rng: np.ndarray
    #: ``(NUM_CFG,)`` int64: the rule option, the scoring, the repetition limit.
    cfg: np.ndarray


class FortyThievesFinalState(NamedTuple):
    """The games a same_step step reset, as they ended (:func:`save_final`): what their final
    observation and info read, laid out as in :class:`FortyThievesBatchState`."""

    st: np.ndarray
    cols: np.ndarray
    waste: np.ndarray
    stock: np.ndarray


def new_final(rows: int) -> FortyThievesFinalState:
    """The final state of ``rows`` games."""
    return FortyThievesFinalState(
        st=np.zeros((rows, NUM_FIELDS), dtype=np.int64), cols=np.zeros((rows, NUM_COLUMNS, MAX_COLUMN), dtype=np.int8),
        waste=np.zeros((rows, STOCK_SIZE), dtype=np.int8), stock=np.zeros((rows, STOCK_SIZE), dtype=np.int8),
    )  # fmt: skip


@njit(cache=True)
def save_final(s: FortyThievesBatchState, final: FortyThievesFinalState, i: int) -> None:
    """Game ``i``'s state into row ``i`` of ``final``."""
    for j in range(NUM_COLUMNS):
        for d in range(MAX_COLUMN):
            final.cols[i, j, d] = s.cols[i, j, d]
    for p in range(STOCK_SIZE):
        final.waste[i, p] = s.waste[i, p]
        final.stock[i, p] = s.stock[i, p]
    for f in range(NUM_FIELDS):
        final.st[i, f] = s.st[i, f]


def new_state(num_envs: int, cfg: np.ndarray, capacity: int) -> FortyThievesBatchState:
    """The state arrays of ``num_envs`` games (not dealt yet), with repetition tables of ``capacity``."""
    n = num_envs
    return FortyThievesBatchState(
        st=np.zeros((n, NUM_FIELDS), dtype=np.int64), cols=np.full((n, NUM_COLUMNS, MAX_COLUMN), -1, dtype=np.int8),
        waste=np.full((n, STOCK_SIZE), -1, dtype=np.int8), stock=np.full((n, STOCK_SIZE), -1, dtype=np.int8),
        topped=np.zeros((n, 53), dtype=np.int64), srcbits=np.zeros((n, NUM_SOURCES), dtype=np.int64),
        zh=np.zeros(n, dtype=np.uint64), rep_keys=np.zeros((n, capacity), dtype=np.uint64),
        rep_counts=np.zeros((n, capacity), dtype=np.int32), rep_epochs=np.zeros((n, capacity), dtype=np.int64),
        deck=np.zeros(DECK_SIZE, dtype=np.int8), rng=np.zeros(1, dtype=np.uint64), cfg=cfg,
    )  # fmt: skip


def grown(state: FortyThievesBatchState) -> FortyThievesBatchState:
    """``state`` with empty repetition tables of twice the capacity (:func:`rehash` fills them)."""
    n, cap = state.rep_keys.shape[0], 2 * state.rep_keys.shape[1]
    return state._replace(
        rep_keys=np.zeros((n, cap), dtype=np.uint64),
        rep_counts=np.zeros((n, cap), dtype=np.int32),
        rep_epochs=np.zeros((n, cap), dtype=np.int64),
    )


class FortyThievesDictObs(NamedTuple):
    """The dict observation's arrays of N games (:func:`encode_dict`), named as its keys."""

    columns: np.ndarray
    waste: np.ndarray
    foundations: np.ndarray
    unseen: np.ndarray
    counts: np.ndarray
    #: written in the oracle_dict mode only
    stock: np.ndarray


# --------------------------------------------------------------------------- deals


@njit(cache=True)
def deal_from_seed(seed: int, deck: np.ndarray, state: np.ndarray) -> None:
    """FortyThievesDeal.from_seed into ``deck`` (104): columns ``deck[4c:4c+4]``, stock ``deck[40:]``.

    ``state``: a 1-element uint64 scratch array for the generator.
    """
    state[0] = np.uint64((_SALT << 48) | seed)
    for k in range(DECK_SIZE):
        deck[k] = k % 52
    for i in range(DECK_SIZE - 1, 0, -1):
        j = below(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


# --------------------------------------------------------------------------- observations


@njit(cache=True, inline="always")
def _put(obs: np.ndarray, i: int, at: int, card: int, value: float) -> None:
    obs[i, at + card % 13] = value
    obs[i, at + 13 + card // 13] = value


@njit(cache=True)
def encode_flat(
    i: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray, stock: np.ndarray, obs: np.ndarray, oracle: bool
) -> None:
    """The whole flat (or oracle) observation of game ``i`` into ``obs``."""
    obs[i, :] = 0.0
    for j in range(NUM_COLUMNS):
        n = st[i, F_CLEN + j]
        for d in range(n):
            _put(obs, i, CARD_SIZE * (MAX_COLUMN * j + d), cols[i, j, d], 1.0)
        obs[i, LENGTHS_OFF + j] = n / MAX_COLUMN
    wlen = st[i, F_WASTE_LEN]
    for p in range(wlen):
        _put(obs, i, WASTE_OFF + CARD_SIZE * p, waste[i, p], 1.0)
    if wlen:
        _put(obs, i, WASTE_TOP_OFF, waste[i, wlen - 1], 1.0)
    obs[i, WASTE_SIZE_OFF] = wlen / STOCK_SIZE
    for f in range(NUM_FOUNDATIONS):
        obs[i, FOUNDATIONS_OFF + f] = st[i, F_FND + f] / 13
    pos = st[i, F_STOCK_POS]
    obs[i, STOCK_OFF] = (STOCK_SIZE - pos) / STOCK_SIZE
    for p in range(pos, STOCK_SIZE):
        obs[i, UNSEEN_OFF + stock[i, p]] += 0.5
        if oracle:
            _put(obs, i, ORACLE_STOCK_OFF + CARD_SIZE * p, stock[i, p], 1.0)


@njit(cache=True)
def encode_dict(
    rows: np.ndarray, s: FortyThievesBatchState | FortyThievesFinalState, out: FortyThievesDictObs, oracle: bool
) -> None:
    """The dict observation (FortyThievesObserver._dict) of the games in ``rows`` of a state or a
    final state, into their rows of ``out``."""
    st, cols, waste, stock = s.st, s.cols, s.waste, s.stock
    for i in rows:
        for j in range(NUM_COLUMNS):
            n = st[i, F_CLEN + j]
            for d in range(MAX_COLUMN):
                out.columns[i, j, d] = cols[i, j, d] if d < n else NONE
        wlen = st[i, F_WASTE_LEN]
        for p in range(STOCK_SIZE):
            out.waste[i, p] = waste[i, p] if p < wlen else NONE
        for f in range(NUM_FOUNDATIONS):
            out.foundations[i, f] = st[i, F_FND + f]
        for c in range(52):
            out.unseen[i, c] = 0
        pos = st[i, F_STOCK_POS]
        for p in range(pos, STOCK_SIZE):
            out.unseen[i, stock[i, p]] += 1
        out.counts[i, 0] = (STOCK_SIZE - pos) / STOCK_SIZE
        out.counts[i, 1] = wlen / STOCK_SIZE
        if oracle:
            for p in range(STOCK_SIZE):
                out.stock[i, p] = stock[i, p] if p >= pos else NONE


# --------------------------------------------------------------------------- game


@njit(cache=True, inline="always")  # inlined into the deal of a reset: one call less
def start_game(s: FortyThievesBatchState, i: int, deck: np.ndarray) -> None:
    """Game ``i`` from ``deck`` (104 cards: the 10 columns bottom to top, then the stock)."""
    st, cols, topped = s.st, s.cols, s.topped
    for c in range(53):
        topped[i, c] = 0
    z = _ZSTART
    for j in range(NUM_COLUMNS):
        for d in range(4):
            c = deck[4 * j + d]
            cols[i, j, d] = c
            z ^= _ZC[(j * MAX_COLUMN + d) * 52 + c]
        for d in range(4, MAX_COLUMN):
            cols[i, j, d] = -1
        st[i, F_CLEN + j] = 4
        topped[i, deck[4 * j + 3]] |= 1 << j
    for p in range(STOCK_SIZE):
        s.stock[i, p] = deck[4 * NUM_COLUMNS + p]
        s.waste[i, p] = -1
    for f in range(NUM_FOUNDATIONS):
        st[i, F_FND + f] = 0
    s.zh[i] = z
    st[i, F_STOCK_POS] = 0
    st[i, F_WASTE_LEN] = 0
    st[i, F_SCORE] = s.cfg[C_START]
    st[i, F_MOVES] = 0
    st[i, F_CHAIN] = 0
    st[i, F_LONGEST] = 0
    st[i, F_FOUNDED] = 0
    st[i, F_EMPTY] = 0


@njit(cache=True, inline="always")
def _source_card(i: int, src: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray) -> int:
    """The top card of source ``src`` of game ``i``, -1 if none."""
    if src < NUM_COLUMNS:
        n = st[i, F_CLEN + src]
        return cols[i, src, n - 1] if n else -1
    if src == WASTE_SRC:
        n = st[i, F_WASTE_LEN]
        return waste[i, n - 1] if n else -1
    f = src - FIRST_FOUNDATION_SRC
    n = st[i, F_FND + f]
    return foundation_card(f, n) if n else -1


@njit(cache=True, inline="always")
def _foundation_for(i: int, card: int, st: np.ndarray) -> int:
    """The leftmost foundation of game ``i`` accepting ``card``, or -1 (the rule kernel)."""
    return foundation_for(st[i, F_FND : F_FND + NUM_FOUNDATIONS], card)


@njit(cache=True, inline="always")
def refresh_mask(
    i: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray, topped: np.ndarray, srcbits: np.ndarray,
    mask: np.ndarray, cfg: np.ndarray,
) -> bool:  # fmt: skip
    """Recompute game ``i``'s legal moves, write the mask entries that changed; True if any is legal."""
    playing = st[i, F_FOUNDED] != TOTAL_CARDS  # a won game offers nothing
    empty = st[i, F_EMPTY]
    any_legal = 0
    for src in range(NUM_SOURCES):
        d = 0
        if playing and (src < FIRST_FOUNDATION_SRC or cfg[C_RETURN]):
            c = _source_card(i, src, st, cols, waste)
            if c >= 0:
                d = source_dests(src, c, empty, topped[i, PARENT_ARRAY[c]], st[i, F_FND : F_FND + NUM_FOUNDATIONS])
        any_legal |= d
        diff = srcbits[i, src] ^ d
        if diff:
            srcbits[i, src] = d
            base = NUM_DESTS * src
            while diff:
                b = _LOW_BIT[diff]
                mask[i, base + b] = (d >> b) & 1
                diff &= diff - 1
    draw = playing and st[i, F_STOCK_POS] < STOCK_SIZE
    mask[i, DRAW] = 1 if draw else 0
    legal = any_legal != 0 or draw
    st[i, F_ANY_LEGAL] = legal
    return legal


@njit(cache=True)
def write_mask(
    i: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray, topped: np.ndarray, srcbits: np.ndarray,
    mask: np.ndarray, cfg: np.ndarray,
) -> bool:  # fmt: skip
    """Game ``i``'s whole mask row (a new game)."""
    for a in range(NUM_ACTIONS):
        mask[i, a] = 0
    for src in range(NUM_SOURCES):
        srcbits[i, src] = 0
    return refresh_mask(i, st, cols, waste, topped, srcbits, mask, cfg)


@njit(cache=True)
def reason_of(i: int, a: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray, cfg: np.ndarray) -> int:
    """FortyThievesGame.illegal_reason of an action known to be illegal (game_over when the rules
    would allow it but the game offers it not)."""
    if st[i, F_FOUNDED] == TOTAL_CARDS:
        return R_GAME_OVER
    if a == DRAW:
        return R_STOCK_EMPTY if st[i, F_STOCK_POS] >= STOCK_SIZE else R_GAME_OVER
    src = a // NUM_DESTS
    dst = a % NUM_DESTS
    if src >= FIRST_FOUNDATION_SRC and not cfg[C_RETURN]:
        return R_RETURN_NOT_ALLOWED
    card = _source_card(i, src, st, cols, waste)
    if card < 0:
        return R_NOTHING_TO_MOVE
    if dst == FOUNDATION_DST:
        if src >= FIRST_FOUNDATION_SRC:
            return R_SAME_PLACE
        return R_GAME_OVER if _foundation_for(i, card, st) >= 0 else R_FOUNDATION_ORDER
    if dst == src:
        return R_SAME_PLACE
    n = st[i, F_CLEN + dst]
    refusal = column_refusal(card, cols[i, dst, n - 1] if n else -1)
    return refusal if refusal else R_GAME_OVER


@njit(cache=True, inline="always")
def _retop_column(i: int, j: int, old: int, new: int, st: np.ndarray, topped: np.ndarray) -> None:
    """Column ``j``'s top went from card ``old`` to card ``new`` (-1: none)."""
    bit = 1 << j
    if old >= 0:
        topped[i, old] &= ~bit
    if new >= 0:
        topped[i, new] |= bit
        st[i, F_EMPTY] &= ~bit
    else:
        st[i, F_EMPTY] |= bit


@njit(cache=True, inline="always")
def _draw(i: int, st: np.ndarray, waste: np.ndarray, stock: np.ndarray, obs: np.ndarray, mode: int) -> np.uint64:
    """Draw in game ``i`` (and update its flat observation in the flat modes ``mode``); returns
    the change of its position hash (to xor in)."""
    p = st[i, F_STOCK_POS]
    card = np.int64(stock[i, p])
    wlen = st[i, F_WASTE_LEN]
    z = _ZW[wlen * 52 + card] ^ _ZS[p] ^ _ZS[p + 1]
    waste[i, wlen] = card
    st[i, F_WASTE_LEN] = wlen + 1
    st[i, F_STOCK_POS] = p + 1
    st[i, F_CHAIN] = 0
    if mode % 2 == 0:  # OBS_FLAT (0) or OBS_ORACLE (2)
        if wlen:
            _put(obs, i, WASTE_TOP_OFF, waste[i, wlen - 1], 0.0)
        _put(obs, i, WASTE_OFF + CARD_SIZE * wlen, card, 1.0)
        _put(obs, i, WASTE_TOP_OFF, card, 1.0)
        obs[i, WASTE_SIZE_OFF] = (wlen + 1) / STOCK_SIZE
        obs[i, STOCK_OFF] = (STOCK_SIZE - p - 1) / STOCK_SIZE
        obs[i, UNSEEN_OFF + card] -= 0.5
        if mode == D.OBS_ORACLE:
            _put(obs, i, ORACLE_STOCK_OFF + CARD_SIZE * p, card, 0.0)
    return z


@njit(cache=True, inline="always")
def _move(
    i: int, a: int, st: np.ndarray, cols: np.ndarray, waste: np.ndarray, topped: np.ndarray, obs: np.ndarray, mode: int
) -> tuple[np.uint64, int]:
    """Play the legal card move ``a`` in game ``i`` (and update its flat observation in the flat
    modes ``mode``); returns the change of its position hash (to xor in) and the ``C_*`` entry of
    the points the move scores."""
    flat = mode % 2 == 0  # OBS_FLAT (0) or OBS_ORACLE (2)
    z = np.uint64(0)
    src = a // NUM_DESTS
    dst = a % NUM_DESTS
    src_f = -1
    if src < NUM_COLUMNS:
        d = st[i, F_CLEN + src] - 1
        card = np.int64(cols[i, src, d])
        cols[i, src, d] = -1
        st[i, F_CLEN + src] = d
        z ^= _ZC[(src * MAX_COLUMN + d) * 52 + card]
        _retop_column(i, src, card, cols[i, src, d - 1] if d else -1, st, topped)
        if flat:
            _put(obs, i, CARD_SIZE * (MAX_COLUMN * src + d), card, 0.0)
            obs[i, LENGTHS_OFF + src] = d / MAX_COLUMN
    elif src == WASTE_SRC:
        wlen = st[i, F_WASTE_LEN] - 1
        card = np.int64(waste[i, wlen])
        waste[i, wlen] = -1
        st[i, F_WASTE_LEN] = wlen
        z ^= _ZW[wlen * 52 + card]
        if flat:
            _put(obs, i, WASTE_OFF + CARD_SIZE * wlen, card, 0.0)
            _put(obs, i, WASTE_TOP_OFF, card, 0.0)
            if wlen:
                _put(obs, i, WASTE_TOP_OFF, waste[i, wlen - 1], 1.0)
            obs[i, WASTE_SIZE_OFF] = wlen / STOCK_SIZE
    else:
        src_f = src - FIRST_FOUNDATION_SRC
        n = st[i, F_FND + src_f]
        card = foundation_card(src_f, n)
        st[i, F_FND + src_f] = n - 1
        st[i, F_FOUNDED] -= 1
        z ^= _ZF[src_f * 14 + n] ^ _ZF[src_f * 14 + n - 1]
        if flat:
            obs[i, FOUNDATIONS_OFF + src_f] = (n - 1) / 13
    if dst == FOUNDATION_DST:
        f = _foundation_for(i, card, st)
        n = st[i, F_FND + f]
        st[i, F_FND + f] = n + 1
        st[i, F_FOUNDED] += 1
        z ^= _ZF[f * 14 + n] ^ _ZF[f * 14 + n + 1]
        points = C_TO_FOUNDATION
        if flat:
            obs[i, FOUNDATIONS_OFF + f] = (n + 1) / 13
    else:
        d = st[i, F_CLEN + dst]
        z ^= _ZC[(dst * MAX_COLUMN + d) * 52 + card]
        cols[i, dst, d] = card
        st[i, F_CLEN + dst] = d + 1
        _retop_column(i, dst, cols[i, dst, d - 1] if d else -1, card, st, topped)
        if flat:
            _put(obs, i, CARD_SIZE * (MAX_COLUMN * dst + d), card, 1.0)
            obs[i, LENGTHS_OFF + dst] = (d + 1) / MAX_COLUMN
        if src == WASTE_SRC:
            points = C_WASTE_TO_COLUMN
        elif src_f >= 0:
            points = C_FOUNDATION_TO_COLUMN
        else:
            points = C_COLUMN_TO_COLUMN
    chain = st[i, F_CHAIN] + 1
    st[i, F_CHAIN] = chain
    if chain > st[i, F_LONGEST]:
        st[i, F_LONGEST] = chain
    return z, points


# --------------------------------------------------------------------------- repetition rule


@njit(cache=True, inline="always")
def _count_position(
    i: int, st: np.ndarray, zh: np.ndarray, rep_keys: np.ndarray, rep_counts: np.ndarray, rep_epochs: np.ndarray
) -> int:
    """Count game ``i``'s position once more in its table; returns how often it has occurred."""
    key = zh[i]
    epoch = st[i, F_REP_EPOCH]
    cap_mask = rep_keys.shape[1] - 1
    k = np.int64(key & np.uint64(cap_mask))
    while rep_epochs[i, k] == epoch:
        if rep_keys[i, k] == key:
            rep_counts[i, k] += 1
            return rep_counts[i, k]
        k = (k + 1) & cap_mask
    rep_epochs[i, k] = epoch
    rep_keys[i, k] = key
    rep_counts[i, k] = 1
    st[i, F_REP_N] += 1
    return 1


@njit(cache=True, inline="always")
def _clear_positions(i: int, st: np.ndarray) -> None:
    st[i, F_REP_EPOCH] += 1
    st[i, F_REP_N] = 0
    st[i, F_REP_POS] = st[i, F_STOCK_POS]


@njit(cache=True)
def rehash(old: FortyThievesBatchState, new: FortyThievesBatchState) -> None:
    """Move every live entry of ``old``'s repetition tables into ``new``'s (larger, empty ones)."""
    st = old.st
    cap_mask = new.rep_keys.shape[1] - 1
    for i in range(st.shape[0]):
        epoch = st[i, F_REP_EPOCH]
        for k in range(old.rep_keys.shape[1]):
            if old.rep_epochs[i, k] == epoch:
                key = old.rep_keys[i, k]
                m = np.int64(key & np.uint64(cap_mask))
                while new.rep_epochs[i, m] == epoch:
                    m = (m + 1) & cap_mask
                new.rep_epochs[i, m] = epoch
                new.rep_keys[i, m] = key
                new.rep_counts[i, m] = old.rep_counts[i, k]


# --------------------------------------------------------------------------- the driver's hooks


@njit(cache=True)
def play_rows(s: FortyThievesBatchState, io: D.BatchIO, actions: np.ndarray, count: int, mode: int) -> None:
    """Play the legal actions of the games ``io.ints[I_ROWS, :count]``: their observations, masks,
    position hashes and the repetition rule, and what the driver reads of each move (points,
    change of the founded cards, win, stuck).

    The rule cuts the episode (``B_CUT``) when the position occurs for the ``max_repeats``-th
    time since the last draw, and raises ``FLAG_GAME`` when a table is half full (the env grows
    the tables before the next step)."""
    st, cols, waste, stock, topped, srcbits, zh = s.st, s.cols, s.waste, s.stock, s.topped, s.srcbits, s.zh
    rep_keys, rep_counts, rep_epochs, cfg = s.rep_keys, s.rep_counts, s.rep_epochs, s.cfg
    obs, mask, rows, cut, flags = io.obs, io.mask, io.ints[D.I_ROWS], io.bools[D.B_CUT], io.flags
    points, progress, won, stuck = io.ints[D.I_POINTS], io.ints[D.I_PROGRESS], io.bools[D.B_WON], io.bools[D.B_STUCK]
    max_repeats = cfg[C_MAX_REPEATS]
    half = rep_keys.shape[1] // 2
    for k in range(count):
        i = rows[k]
        a = actions[i]
        old_score = st[i, F_SCORE]
        old_founded = st[i, F_FOUNDED]
        st[i, F_MOVES] += 1
        if a == DRAW:
            zh[i] ^= _draw(i, st, waste, stock, obs, mode)
            gained = cfg[C_DRAW_POINTS]
        else:
            z, entry = _move(i, a, st, cols, waste, topped, obs, mode)
            zh[i] ^= z
            gained = cfg[entry]
        score = st[i, F_SCORE] + gained
        if cfg[C_HAS_FLOOR] and score < cfg[C_FLOOR]:
            score = cfg[C_FLOOR]
        st[i, F_SCORE] = score
        legal = refresh_mask(i, st, cols, waste, topped, srcbits, mask, cfg)
        if legal and max_repeats:
            if st[i, F_STOCK_POS] != st[i, F_REP_POS]:
                # the stock position never goes back: older positions cannot recur
                _clear_positions(i, st)
            if _count_position(i, st, zh, rep_keys, rep_counts, rep_epochs) >= max_repeats:
                cut[i] = True
            if st[i, F_REP_N] >= half:
                flags[D.FLAG_GAME] = True
        points[i] = score - old_score
        progress[i] = st[i, F_FOUNDED] - old_founded
        won[i] = st[i, F_FOUNDED] == TOTAL_CARDS
        stuck[i] = not legal


@njit(cache=True)
def illegal_rows(s: FortyThievesBatchState, io: D.BatchIO, actions: np.ndarray, start: int) -> None:
    """The reasons of the illegal actions of the games ``io.ints[I_ROWS, start:]``; a game is stuck
    when no move was legal after its last one."""
    st, cols, waste, cfg = s.st, s.cols, s.waste, s.cfg
    rows, reasons, stuck = io.ints[D.I_ROWS], io.ints[D.I_REASONS], io.bools[D.B_STUCK]
    for k in range(start, rows.shape[0]):
        i = rows[k]
        reasons[i] = reason_of(i, actions[i], st, cols, waste, cfg)
        stuck[i] = not st[i, F_ANY_LEGAL]


@njit(cache=True)
def deal_row(s: FortyThievesBatchState, i: int, seed: int) -> None:
    """Deal game ``i`` from a deal seed."""
    deal_from_seed(seed, s.deck, s.rng)
    start_game(s, i, s.deck)


@njit(cache=True)
def start_row(s: FortyThievesBatchState, obs: np.ndarray, mask: np.ndarray, i: int, mode: int) -> None:
    """The observation (flat modes), mask and repetition table of game ``i`` just dealt."""
    st = s.st
    if mode % 2 == 0:  # OBS_FLAT (0) or OBS_ORACLE (2)
        encode_flat(i, st, s.cols, s.waste, s.stock, obs, mode == D.OBS_ORACLE)
    write_mask(i, st, s.cols, s.waste, s.topped, s.srcbits, mask, s.cfg)
    if s.cfg[C_MAX_REPEATS]:
        _clear_positions(i, st)
        _count_position(i, st, s.zh, s.rep_keys, s.rep_counts, s.rep_epochs)


D.plug_in(
    FortyThievesBatchState, play_rows=play_rows, illegal_rows=illegal_rows, deal_row=deal_row, start_row=start_row,
    save_final=save_final,
)  # fmt: skip
