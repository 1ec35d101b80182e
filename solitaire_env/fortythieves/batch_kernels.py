"""numba kernels of the batch Forty Thieves env: N games in arrays, stepped in one call.

The rules are those of :class:`~solitaire_env.fortythieves.game.FortyThievesGame`, the deals
those of :meth:`~solitaire_env.common.deals.FortyThievesDeal.from_seed`, the observations those of
:class:`~solitaire_env.fortythieves.observe.FortyThievesObserver` and the repetition rule that
of :class:`~solitaire_env.fortythieves.env.FortyThievesEnv`; ``tests/generic/test_batch_equals_single.py``
checks all of them against the single env on thousands of random deals and actions.

State of game ``i`` is row ``i`` of a few arrays:

- ``st[i, F_*]``: the integers of the game (stock position, waste length, counters, the step
  count of the time limit, the column lengths ``F_CLEN + j``, the foundation counts
  ``F_FND + f``, the bit mask of empty columns, the repetition table's bookkeeping...);
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

``cfg`` holds the rule option, the scoring, the reward, the illegal-action policy and the
episode limits as integers (``C_*``), ``fcfg`` the two float options.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solitaire_env.common.deals import GAME_SALT
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

DECK_SIZE = TOTAL_CARDS
NONE = _ob.NONE  # dict-mode code of an empty position (52)

# --- st columns
F_STOCK_POS, F_WASTE_LEN, F_SCORE, F_MOVES, F_CHAIN, F_LONGEST, F_FOUNDED, F_ELAPSED = 0, 1, 2, 3, 4, 5, 6, 7
F_EMPTY, F_ANY_LEGAL, F_REP_N, F_REP_EPOCH, F_REP_POS = 8, 9, 10, 11, 12
F_CLEN = 13  # 10 column lengths
F_FND = F_CLEN + NUM_COLUMNS  # 8 foundation counts
NUM_FIELDS = F_FND + NUM_FOUNDATIONS

# --- cfg entries
C_RETURN, C_START, C_HAS_FLOOR, C_FLOOR = 0, 1, 2, 3
C_TO_FOUNDATION, C_WASTE_TO_COLUMN, C_FOUNDATION_TO_COLUMN, C_COLUMN_TO_COLUMN, C_DRAW_POINTS = 4, 5, 6, 7, 8
C_REWARD, C_ILLEGAL, C_MAX_STEPS, C_AUTORESET, C_OBS, C_MAX_REPEATS = 9, 10, 11, 12, 13, 14
NUM_CFG = 15  # C_MAX_REPEATS: 0 = no repetition rule
REWARD_SCORE, REWARD_WIN, REWARD_PROGRESS = 0, 1, 2
ILLEGAL_PENALIZE, ILLEGAL_RAISE, ILLEGAL_TERMINATE = 0, 1, 2
AUTORESET_NEXT_STEP, AUTORESET_SAME_STEP = 0, 1
OBS_FLAT, OBS_DICT, OBS_ORACLE, OBS_ORACLE_DICT = 0, 1, 2, 3
FC_PENALTY, FC_WIN_BONUS = 0, 1

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
_SALT = GAME_SALT["FT"]


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
    i: int,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    obs: np.ndarray,
    oracle: bool,
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
    rows: np.ndarray,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    d_columns: np.ndarray,
    d_waste: np.ndarray,
    d_foundations: np.ndarray,
    d_unseen: np.ndarray,
    d_counts: np.ndarray,
    d_stock: np.ndarray,
    oracle: bool,
) -> None:
    """The dict observation (FortyThievesObserver._dict) of the games in ``rows``, into their rows."""
    for i in rows:
        for j in range(NUM_COLUMNS):
            n = st[i, F_CLEN + j]
            for d in range(MAX_COLUMN):
                d_columns[i, j, d] = cols[i, j, d] if d < n else NONE
        wlen = st[i, F_WASTE_LEN]
        for p in range(STOCK_SIZE):
            d_waste[i, p] = waste[i, p] if p < wlen else NONE
        for f in range(NUM_FOUNDATIONS):
            d_foundations[i, f] = st[i, F_FND + f]
        for c in range(52):
            d_unseen[i, c] = 0
        pos = st[i, F_STOCK_POS]
        for p in range(pos, STOCK_SIZE):
            d_unseen[i, stock[i, p]] += 1
        d_counts[i, 0] = (STOCK_SIZE - pos) / STOCK_SIZE
        d_counts[i, 1] = wlen / STOCK_SIZE
        if oracle:
            for p in range(STOCK_SIZE):
                d_stock[i, p] = stock[i, p] if p >= pos else NONE


# --------------------------------------------------------------------------- game


@njit(cache=True)
def start_game(
    i: int,
    deck: np.ndarray,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    zh: np.ndarray,
    cfg: np.ndarray,
) -> None:
    """Game ``i`` from ``deck`` (104 cards: the 10 columns bottom to top, then the stock)."""
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
        stock[i, p] = deck[4 * NUM_COLUMNS + p]
        waste[i, p] = -1
    for f in range(NUM_FOUNDATIONS):
        st[i, F_FND + f] = 0
    zh[i] = z
    st[i, F_STOCK_POS] = 0
    st[i, F_WASTE_LEN] = 0
    st[i, F_SCORE] = cfg[C_START]
    st[i, F_MOVES] = 0
    st[i, F_CHAIN] = 0
    st[i, F_LONGEST] = 0
    st[i, F_FOUNDED] = 0
    st[i, F_ELAPSED] = 0
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
    for s in range(NUM_SOURCES):
        d = 0
        if playing and (s < FIRST_FOUNDATION_SRC or cfg[C_RETURN]):
            c = _source_card(i, s, st, cols, waste)
            if c >= 0:
                d = source_dests(s, c, empty, topped[i, PARENT_ARRAY[c]], st[i, F_FND : F_FND + NUM_FOUNDATIONS])
        any_legal |= d
        diff = srcbits[i, s] ^ d
        if diff:
            srcbits[i, s] = d
            base = NUM_DESTS * s
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
    for s in range(NUM_SOURCES):
        srcbits[i, s] = 0
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
def _play(
    i: int,
    a: int,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    zh: np.ndarray,
    cfg: np.ndarray,
    obs: np.ndarray,
    flat: bool,
    oracle: bool,
) -> None:
    """Play the legal action ``a`` in game ``i`` (and update its flat observation if ``flat``)."""
    st[i, F_MOVES] += 1
    z = zh[i]
    if a == DRAW:
        p = st[i, F_STOCK_POS]
        card = np.int64(stock[i, p])
        wlen = st[i, F_WASTE_LEN]
        z ^= _ZW[wlen * 52 + card] ^ _ZS[p] ^ _ZS[p + 1]
        waste[i, wlen] = card
        st[i, F_WASTE_LEN] = wlen + 1
        st[i, F_STOCK_POS] = p + 1
        st[i, F_CHAIN] = 0
        points = cfg[C_DRAW_POINTS]
        if flat:
            if wlen:
                _put(obs, i, WASTE_TOP_OFF, waste[i, wlen - 1], 0.0)
            _put(obs, i, WASTE_OFF + CARD_SIZE * wlen, card, 1.0)
            _put(obs, i, WASTE_TOP_OFF, card, 1.0)
            obs[i, WASTE_SIZE_OFF] = (wlen + 1) / STOCK_SIZE
            obs[i, STOCK_OFF] = (STOCK_SIZE - p - 1) / STOCK_SIZE
            obs[i, UNSEEN_OFF + card] -= 0.5
            if oracle:
                _put(obs, i, ORACLE_STOCK_OFF + CARD_SIZE * p, card, 0.0)
    else:
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
            points = cfg[C_TO_FOUNDATION]
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
                points = cfg[C_WASTE_TO_COLUMN]
            elif src_f >= 0:
                points = cfg[C_FOUNDATION_TO_COLUMN]
            else:
                points = cfg[C_COLUMN_TO_COLUMN]
        chain = st[i, F_CHAIN] + 1
        st[i, F_CHAIN] = chain
        if chain > st[i, F_LONGEST]:
            st[i, F_LONGEST] = chain
    zh[i] = z
    score = st[i, F_SCORE] + points
    if cfg[C_HAS_FLOOR] and score < cfg[C_FLOOR]:
        score = cfg[C_FLOOR]
    st[i, F_SCORE] = score


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
def rehash(
    st: np.ndarray,
    old_keys: np.ndarray,
    old_counts: np.ndarray,
    old_epochs: np.ndarray,
    new_keys: np.ndarray,
    new_counts: np.ndarray,
    new_epochs: np.ndarray,
) -> None:
    """Move every live entry of the repetition tables into larger ones."""
    cap_mask = new_keys.shape[1] - 1
    for i in range(st.shape[0]):
        epoch = st[i, F_REP_EPOCH]
        for k in range(old_keys.shape[1]):
            if old_epochs[i, k] == epoch:
                key = old_keys[i, k]
                m = np.int64(key & np.uint64(cap_mask))
                while new_epochs[i, m] == epoch:
                    m = (m + 1) & cap_mask
                new_epochs[i, m] = epoch
                new_keys[i, m] = key
                new_counts[i, m] = old_counts[i, k]


# --------------------------------------------------------------------------- reset and step


@njit(cache=True)
def begin(
    i: int,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    srcbits: np.ndarray,
    zh: np.ndarray,
    rep_keys: np.ndarray,
    rep_counts: np.ndarray,
    rep_epochs: np.ndarray,
    cfg: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    flat: bool,
    oracle: bool,
) -> None:
    """The observation (flat modes), mask and repetition table of game ``i`` just dealt."""
    if flat:
        encode_flat(i, st, cols, waste, stock, obs, oracle)
    write_mask(i, st, cols, waste, topped, srcbits, mask, cfg)
    if cfg[C_MAX_REPEATS]:
        _clear_positions(i, st)
        _count_position(i, st, zh, rep_keys, rep_counts, rep_epochs)


@njit(cache=True)
def deal_seed(
    i: int,
    seed: int,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    zh: np.ndarray,
    cfg: np.ndarray,
    deck: np.ndarray,
    rng: np.ndarray,
) -> None:
    """Deal game ``i`` from a seed (``deck`` and ``rng`` are scratch arrays)."""
    deal_from_seed(seed, deck, rng)
    start_game(i, deck, st, cols, waste, stock, topped, zh, cfg)


@njit(cache=True)
def start_all(
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    srcbits: np.ndarray,
    zh: np.ndarray,
    rep_keys: np.ndarray,
    rep_counts: np.ndarray,
    rep_epochs: np.ndarray,
    cfg: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    flat: bool,
    oracle: bool,
) -> None:
    """:func:`begin` every game just dealt."""
    for i in range(st.shape[0]):
        begin(i, st, cols, waste, stock, topped, srcbits, zh, rep_keys, rep_counts, rep_epochs, cfg, obs, mask,
              flat, oracle)  # fmt: skip


@njit(cache=True)
def step_all(
    actions: np.ndarray,
    st: np.ndarray,
    cols: np.ndarray,
    waste: np.ndarray,
    stock: np.ndarray,
    topped: np.ndarray,
    srcbits: np.ndarray,
    zh: np.ndarray,
    rep_keys: np.ndarray,
    rep_counts: np.ndarray,
    rep_epochs: np.ndarray,
    cfg: np.ndarray,
    fcfg: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    reasons: np.ndarray,
    cut: np.ndarray,
    autoreset: np.ndarray,
    did_reset: np.ndarray,
    seeds: np.ndarray,
    seed_pos: np.ndarray,
    final_obs: np.ndarray,
    final_st: np.ndarray,
    final_cols: np.ndarray,
    final_waste: np.ndarray,
    final_stock: np.ndarray,
    final_mask: np.ndarray,
    final_reasons: np.ndarray,
    final_cut: np.ndarray,
    deck: np.ndarray,
    rng: np.ndarray,
    reset_rows: np.ndarray,
    flags: np.ndarray,
) -> int:
    """One step of every game; returns how many games were reset (listed in ``reset_rows``),
    or ``-(i + 1)`` without changing anything if action ``i`` is outside 0..209.

    ``flags[0]`` is set when a game has used the last of its drawn-ahead deal seeds,
    ``flags[1]`` when a repetition table is half full (the caller grows them before the next step).
    ``cut[i]``: the episode was truncated by the repetition rule.

    ``autoreset_mode`` next_step: a game that ended at the previous step is reset now and its
    action ignored (reward 0).  same_step: a game that ends now is reset at once, and its last
    observation, state, mask and reasons are saved in ``final_*`` first.
    """
    n = st.shape[0]
    mode = cfg[C_OBS]
    flat = mode % 2 == 0  # OBS_FLAT (0) or OBS_ORACLE (2)
    oracle = mode == OBS_ORACLE
    same_step = cfg[C_AUTORESET] == AUTORESET_SAME_STEP
    penalty = fcfg[FC_PENALTY]
    max_repeats = cfg[C_MAX_REPEATS]
    max_steps = cfg[C_MAX_STEPS]
    reward_mode = cfg[C_REWARD]
    half = rep_keys.shape[1] // 2
    for i in range(n):
        if actions[i] < 0 or actions[i] >= NUM_ACTIONS:
            return -(i + 1)
    resets = 0
    block = seeds.shape[1]
    for i in range(n):
        did_reset[i] = False
        reasons[i] = 0
        cut[i] = False
        if autoreset[i]:  # next_step mode: the game ended at the last step
            deal_seed(i, seeds[i, seed_pos[i]], st, cols, waste, stock, topped, zh, cfg, deck, rng)
            seed_pos[i] += 1
            if seed_pos[i] == block:
                flags[0] = True
            begin(i, st, cols, waste, stock, topped, srcbits, zh, rep_keys, rep_counts, rep_epochs, cfg, obs, mask,
                  flat, oracle)  # fmt: skip
            reset_rows[resets] = i
            rewards[i] = 0.0
            terminated[i] = False
            truncated[i] = False
            autoreset[i] = False
            did_reset[i] = True
            resets += 1
            continue
        a = actions[i]
        st[i, F_ELAPSED] += 1
        if mask[i, a]:
            old_score = st[i, F_SCORE]
            old_founded = st[i, F_FOUNDED]
            _play(i, a, st, cols, waste, stock, topped, zh, cfg, obs, flat, oracle)
            legal = refresh_mask(i, st, cols, waste, topped, srcbits, mask, cfg)
            won = st[i, F_FOUNDED] == TOTAL_CARDS
            if reward_mode == REWARD_SCORE:
                rewards[i] = st[i, F_SCORE] - old_score
            elif reward_mode == REWARD_WIN:
                rewards[i] = 1.0 if won else 0.0
            else:
                rewards[i] = (st[i, F_FOUNDED] - old_founded) + (fcfg[FC_WIN_BONUS] if won else 0.0)
            terminated[i] = not legal
            if legal and max_repeats:
                if st[i, F_STOCK_POS] != st[i, F_REP_POS]:
                    # the stock position never goes back: older positions cannot recur
                    _clear_positions(i, st)
                if _count_position(i, st, zh, rep_keys, rep_counts, rep_epochs) >= max_repeats:
                    cut[i] = True
                if st[i, F_REP_N] >= half:
                    flags[1] = True
        else:
            reasons[i] = reason_of(i, a, st, cols, waste, cfg)
            rewards[i] = penalty
            terminated[i] = cfg[C_ILLEGAL] == ILLEGAL_TERMINATE or not st[i, F_ANY_LEGAL]
        truncated[i] = cut[i] or st[i, F_ELAPSED] >= max_steps
        if terminated[i] or truncated[i]:
            if same_step:
                if flat:
                    for k in range(obs.shape[1]):
                        final_obs[i, k] = obs[i, k]
                for j in range(NUM_COLUMNS):
                    for d in range(MAX_COLUMN):
                        final_cols[i, j, d] = cols[i, j, d]
                for p in range(STOCK_SIZE):
                    final_waste[i, p] = waste[i, p]
                    final_stock[i, p] = stock[i, p]
                for f in range(NUM_FIELDS):
                    final_st[i, f] = st[i, f]
                for k in range(NUM_ACTIONS):
                    final_mask[i, k] = mask[i, k]
                final_reasons[i] = reasons[i]
                final_cut[i] = cut[i]
                deal_seed(i, seeds[i, seed_pos[i]], st, cols, waste, stock, topped, zh, cfg, deck, rng)
                seed_pos[i] += 1
                if seed_pos[i] == block:
                    flags[0] = True
                begin(i, st, cols, waste, stock, topped, srcbits, zh, rep_keys, rep_counts, rep_epochs, cfg, obs,
                      mask, flat, oracle)  # fmt: skip
                reset_rows[resets] = i
                did_reset[i] = True
                resets += 1
            else:
                autoreset[i] = True
    return resets
