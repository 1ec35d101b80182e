"""The batch Forty Thieves environment: N games stepped by one numba call per step.

``gym.make_vec("solitaire_env/FortyThieves-v0", num_envs=1024)`` makes a
:class:`FortyThievesVectorEnv` (the registered ``vector_entry_point``); ``vectorization_mode="sync"``
still gives Gymnasium's ``SyncVectorEnv`` over single envs.  Both return the same
observations, rewards, terminations, truncations and infos for the same seeds and actions
(``tests/generic/test_batch_equals_single.py`` checks this on thousands of episodes for every option).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from solitaire_env import FORTYTHIEVES_MAX_STEPS
from solitaire_env.common import batch as base
from solitaire_env.common.batch import BatchEnv, BatchKeywords, BatchOptions
from solitaire_env.common.batch_driver import FLAG_GAME
from solitaire_env.common.deals import parse_deal_code
from solitaire_env.common.env import as_deal, parse_game_code
from solitaire_env.fortythieves import batch_kernels as K
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.env import check_max_repeats
from solitaire_env.fortythieves.game import REASONS
from solitaire_env.fortythieves.observe import FortyThievesObserver
from solitaire_env.fortythieves.rules import FortyThievesRules, FortyThievesScoring, get_scoring

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: Random deal seeds drawn ahead per env (the kernel takes one per reset).
SEED_BLOCK = 64
#: Starting capacity of each env's repetition table (doubled when one gets half full).
REPEAT_TABLE_START = 64
_INFO_FIELDS = (
    ("score", K.F_SCORE),
    ("moves", K.F_MOVES),
    ("cleared", K.F_FOUNDED),
    ("founded", K.F_FOUNDED),
    ("chain", K.F_CHAIN),
    ("longest_chain", K.F_LONGEST),
)
_DICT_KEYS = ("columns", "waste", "foundations", "unseen", "counts")


class FortyThievesBatchView(NamedTuple):
    """The games of a :class:`FortyThievesVectorEnv`, read-only (``batch.view()``): row ``i`` of
    each array is env ``i``.  These are views of the env's state, not copies: they show the
    state after the latest ``reset`` / ``step`` (take a new view or ``.copy()`` to keep one), and
    writing to them raises ``ValueError``.

    The view holds the whole state, the stock's order included (hidden from the player:
    ``stock[i, stock_pos[i]:]`` has never been drawn).  A ``NamedTuple`` of arrays, so a numba
    function takes it as one argument.  The rule options are ``batch.rules`` (a
    :class:`~solitaire_env.fortythieves.rules.FortyThievesRules`), the reward
    ``batch.reward_mode`` and ``batch.win_bonus``.
    """

    #: ``(N, 10, depth)`` int8: ``columns[i, j, d]`` the card at depth ``d`` (0 = bottom) of
    #: column ``j``; ``-1`` at and past ``column_len[i, j]``.
    columns: np.ndarray
    #: ``(N, 10)``: the number of cards in each column.
    column_len: np.ndarray
    #: ``(N, 64)`` int8: the waste, bottom first (``waste[i, :waste_len[i]]``).
    waste: np.ndarray
    #: ``(N,)``: the number of cards on the waste.
    waste_len: np.ndarray
    #: ``(N, 64)`` int8: the stock in draw order, the whole deal's (``stock[i, stock_pos[i]:]`` is still to draw).
    stock: np.ndarray
    #: ``(N,)``: how many stock cards have been drawn.
    stock_pos: np.ndarray
    #: ``(N, 8)``: the cards on each foundation, left to right (suits S, H, D, C, S, H, D, C;
    #: ``k`` cards: Ace to rank ``k``).
    foundations: np.ndarray
    #: ``(N,)`` bit masks: bit ``j`` set when column ``j`` is empty.
    empty_columns: np.ndarray
    #: ``(N,)``: the counters of the info: score, moves, cards founded, current and longest chain.
    score: np.ndarray
    moves: np.ndarray
    founded: np.ndarray
    chain: np.ndarray
    longest_chain: np.ndarray


def code_names(seeds: np.ndarray) -> np.ndarray:
    """Deal codes ``FT1-N-<SEED7>`` of an int64 array of seeds, as an object array of str."""
    return base.code_names(seeds, "FT1-N-")


def _scoring_config(scoring: FortyThievesScoring) -> list[int]:
    values = [
        scoring.start,
        0 if scoring.floor is None else scoring.floor,
        scoring.to_foundation,
        scoring.waste_to_column,
        scoring.foundation_to_column,
        scoring.column_to_column,
        scoring.draw,
    ]
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        raise ValueError(f"the batch env plays whole-number scorings, got {scoring!r}")
    return [int(v) for v in values]


class FortyThievesVectorEnv(BatchEnv):
    """``num_envs`` Forty Thieves games in arrays, stepped together by numba.

    ## Description
    The game of :class:`~solitaire_env.fortythieves.env.FortyThievesEnv` (its docstring has the
    rules), ``num_envs`` times over: the same observations, rewards, terminations, truncations
    and infos as Gymnasium's ``SyncVectorEnv`` over single envs made with
    ``gym.make("solitaire_env/FortyThieves-v0", ...)`` for the same seeds and actions, in one
    numba call per step.  Made by ``gym.make_vec("solitaire_env/FortyThieves-v0", num_envs=N)``.

    ## Action Space
    ``MultiDiscrete([210] * N)`` (``single_action_space``: ``Discrete(210)``): an ``(N,)`` int
    array, per env ``src * 11 + dst`` (a card move) or ``209`` (a draw).  ``action_masks()``
    returns the ``(N, 210)`` bool array of legal actions, ``info["action_mask"]`` the same as int8.

    ## Observation Space
    The single env's space, batched: ``obs_mode="flat"`` an ``(N, 3897)`` float32 array;
    ``"dict"`` a dict of ``(N, ...)`` arrays; ``"oracle"`` / ``"oracle_dict"`` add the stock
    order.  Layouts: ``docs/environments.md``.

    ## Starting State
    Each env starts as the single env does (10 columns of 4 face-up cards, 64 in the stock,
    empty waste and foundations), on its own deal (see Deals).

    ## Rewards
    A float64 ``(N,)`` array, per env the single env's reward (``reward="score"``, ``"win"`` or
    ``"progress"``; no callable) and illegal-action penalty.

    ## Episode End
    Per env, as the single env: terminated when all 104 cards are founded or no move is legal
    (or an illegal action with ``illegal_action="terminate"``); truncated after
    ``max_episode_steps`` steps or by the repetition rule (below).  A finished env is reset
    automatically (``autoreset_mode``, see Arguments) with its next deal.

    ## Information
    Gymnasium's vector infos: per key an ``(N,)`` array and a ``_key`` bool mask of the envs
    that have it: ``score``, ``moves``, ``cleared``, ``founded``, ``chain``,
    ``longest_chain``, ``deal_code``, ``action_mask`` (``(N, 210)`` int8), when an action was
    illegal ``illegal_reason`` and ``illegal_message``, and ``truncated_reason``
    (``"repetition"``) for the envs the repetition rule cut.  With
    ``autoreset_mode="same_step"``, also ``final_obs`` and ``final_info`` of the envs that
    ended in the step.

    ## Arguments
    The single env's keywords (``foundation_return``, ``scoring``, ``reward``, ``win_bonus``,
    ``obs_mode``, ``illegal_action``, ``illegal_penalty``, ``max_repeats``) and:

    - ``max_episode_steps`` (1000, ``FORTYTHIEVES_MAX_STEPS`` as registered): truncate an episode after this many steps;
    - ``autoreset_mode``: ``"next_step"`` (Gymnasium's default: the step after an episode ends
      resets that game and ignores its action) or ``"same_step"`` (the game is reset in the
      step that ends it; its last observation and info go to ``info["final_obs"]`` and
      ``info["final_info"]``; what stable-baselines3 expects);
    - ``copy``: return a copy of the observation buffer (default, as ``SyncVectorEnv``);
      ``False`` returns the buffer itself, which the next step overwrites.

    The repetition rule is the single env's: an episode is truncated (``info["truncated_reason"]
    == "repetition"``) when a position (by its Zobrist hash) occurs for the ``max_repeats``-th
    time since the last draw; each env counts positions in its own open-addressing hash table.

    Not supported (a clear error): a reward callable (numba cannot call it) and rendering
    (replay a deal code in the single env to draw it).

    ## Deals
    Every episode's deal code is in ``info["deal_code"]``; a random episode of env ``i`` draws
    its code from a generator seeded exactly as ``SyncVectorEnv`` seeds its ``i``-th single env
    (``reset(seed=s)`` gives env ``i`` the seed ``s + i``; ``reset()`` without a seed goes on with
    each env's generator), so the batch env deals the same codes.
    ``reset(options=...)`` takes ``{"deal_code": code}`` or ``{"deal": deal string}`` (every env
    the same, as ``SyncVectorEnv`` passes options) or ``{"deal_codes": [N codes]}`` /
    ``{"deals": [N deal strings]}`` (one per env).

    ``exclude_codes``: deal codes (``FT1-N-...``; anything else is a ``DealCodeError``) the
    random deals never deal, to keep held-out evaluation deals out of training.  An excluded
    code drawn from an env's generator is skipped (the next draw takes its place): the env deals
    ``SyncVectorEnv``'s codes in the same order, minus the excluded ones.  Deals given in
    ``reset(options=...)`` are played even if excluded.

    ## State view
    ``view()`` returns the games' state as read-only arrays named in the game's words
    (:class:`FortyThievesBatchView`: columns, waste, stock, foundations, the empty columns, the
    counters); ``rules``, ``scoring``, ``reward_mode`` and ``win_bonus`` are the options in play.

    ## Version History
    * v0: Initial version.
    """

    _seed_block = SEED_BLOCK
    _reason_names, _reason_messages = base.reason_tables(K.REASON_NAMES, REASONS)

    def __init__(
        self,
        num_envs: int = 1,
        *,
        foundation_return: bool = True,
        scoring: str | FortyThievesScoring = "app",
        max_repeats: int | None = 3,
        **options: Unpack[BatchKeywords],
    ) -> None:
        checked = BatchOptions.check(
            num_envs, options, owner=type(self).__name__, max_episode_steps=FORTYTHIEVES_MAX_STEPS
        )
        check_max_repeats(max_repeats)
        self.rules = FortyThievesRules(foundation_return=foundation_return)
        self.scoring = get_scoring(scoring)
        super().__init__(checked)
        self._exclude("FT", "N", "Forty Thieves")
        n = self.num_envs
        self.max_repeats = max_repeats

        cfg = np.zeros(K.NUM_CFG, dtype=np.int64)
        cfg[K.C_RETURN] = self.rules.foundation_return
        start, floor, to_f, w_to_c, f_to_c, c_to_c, draw = _scoring_config(self.scoring)
        cfg[K.C_START] = start
        cfg[K.C_HAS_FLOOR] = self.scoring.floor is not None
        cfg[K.C_FLOOR] = floor
        cfg[K.C_TO_FOUNDATION] = to_f
        cfg[K.C_WASTE_TO_COLUMN] = w_to_c
        cfg[K.C_FOUNDATION_TO_COLUMN] = f_to_c
        cfg[K.C_COLUMN_TO_COLUMN] = c_to_c
        cfg[K.C_DRAW_POINTS] = draw
        cfg[K.C_MAX_REPEATS] = 0 if max_repeats is None else max_repeats
        self._make_spaces(
            FortyThievesObserver(self.obs_mode).space, K.NUM_ACTIONS, K.ORACLE_SIZE if self._oracle else K.FLAT_SIZE
        )
        m = self._final_rows()
        self._keep_state(K.new_state(n, cfg, REPEAT_TABLE_START if max_repeats is not None else 1), K.new_final(m))
        self._dict_arrays: dict[str, np.ndarray] = {}
        self._final_dict: dict[str, np.ndarray] = {}
        if not self._flat:
            self._dict_arrays = self._new_dict_arrays(n)
            self._final_dict = self._new_dict_arrays(m)
            self._dict_out = K.FortyThievesDictObs(**self._dict_arrays)
            self._final_dict_out = K.FortyThievesDictObs(**self._final_dict)

    def _keep_state(self, state: K.FortyThievesBatchState, final: K.FortyThievesFinalState | None = None) -> None:
        """Play on ``state`` (new, with its ``final`` state, or with grown repetition tables)."""
        self._set_state(state, final)
        self._st, self._cols, self._waste, self._stock = state.st, state.cols, state.waste, state.stock
        self._zh, self._rep_keys, self._rep_counts = state.zh, state.rep_keys, state.rep_counts
        self._final_st = self._final_state.st

    # ------------------------------------------------------------------ public view

    def view(self) -> FortyThievesBatchView:
        """The games' state as read-only arrays named in the game's words (:class:`FortyThievesBatchView`)."""
        st = self._st
        ro = base.read_only
        return FortyThievesBatchView(
            columns=ro(self._cols), column_len=ro(st[:, K.F_CLEN : K.F_CLEN + K.NUM_COLUMNS]), waste=ro(self._waste),
            waste_len=ro(st[:, K.F_WASTE_LEN]), stock=ro(self._stock), stock_pos=ro(st[:, K.F_STOCK_POS]),
            foundations=ro(st[:, K.F_FND : K.F_FND + K.NUM_FOUNDATIONS]), empty_columns=ro(st[:, K.F_EMPTY]),
            score=ro(st[:, K.F_SCORE]), moves=ro(st[:, K.F_MOVES]), founded=ro(st[:, K.F_FOUNDED]),
            chain=ro(st[:, K.F_CHAIN]), longest_chain=ro(st[:, K.F_LONGEST]),
        )  # fmt: skip

    # ------------------------------------------------------------------ helpers

    def _new_dict_arrays(self, n: int) -> dict[str, np.ndarray]:
        return {
            "columns": np.zeros((n, K.NUM_COLUMNS, K.MAX_COLUMN), dtype=np.int64),
            "waste": np.zeros((n, K.STOCK_SIZE), dtype=np.int64),
            "foundations": np.zeros((n, K.NUM_FOUNDATIONS), dtype=np.int64),
            "unseen": np.zeros((n, 52), dtype=np.int64),
            "counts": np.zeros((n, 2), dtype=np.float32),
            "stock": np.zeros((n, K.STOCK_SIZE), dtype=np.int64),  # written in oracle_dict mode only
        }

    @property
    def _dict_keys(self) -> tuple[str, ...]:
        return (*_DICT_KEYS, "stock") if self._oracle else _DICT_KEYS

    def _observation(self) -> Any:
        if self._flat:
            return self._obs.copy() if self.copy else self._obs
        K.encode_dict(np.arange(self.num_envs), self._state, self._dict_out, self._oracle)
        if self.copy:
            return {k: self._dict_arrays[k].copy() for k in self._dict_keys}
        return {k: self._dict_arrays[k] for k in self._dict_keys}

    def _encode_final(self, rows: np.ndarray) -> None:
        K.encode_dict(rows, self._final_state, self._final_dict_out, self._oracle)

    def _final_dict_obs(self, i: int) -> dict[str, Any]:
        return {k: self._final_dict[k][i].copy() for k in self._dict_keys}

    def _code_names(self, seeds: np.ndarray) -> np.ndarray:
        return code_names(seeds)

    def _grow_tables(self) -> None:
        """Double the repetition tables until none is half full."""
        while int(self._st[:, K.F_REP_N].max()) >= self._rep_keys.shape[1] // 2:
            grown = K.grown(self._state)
            K.rehash(self._state, grown)
            self._keep_state(grown)

    def _info(
        self,
        st: np.ndarray,
        mask: np.ndarray,
        names: np.ndarray,
        reasons: np.ndarray,
        cut: np.ndarray,
        rows: np.ndarray | None,
    ) -> dict[str, Any]:
        """The vector info of the envs selected by the bool array ``rows`` (all if ``None``):
        arrays + ``_key`` masks."""
        n = self.num_envs
        info: dict[str, Any] = {}
        # one presence array shared by every key (SyncVectorEnv makes one per key)
        present = np.ones(n, dtype=np.bool_) if rows is None else rows.copy()
        for key, field in _INFO_FIELDS:
            info[key] = st[:, field].copy() if rows is None else np.where(rows, st[:, field], 0)
            info[f"_{key}"] = present
        self._deal_info(info, present, mask, names, reasons, rows, True)
        was_cut = cut.copy() if rows is None else cut & rows
        if was_cut.any():
            reason = np.full(n, None, dtype=object)
            reason[was_cut] = "repetition"
            info["truncated_reason"] = reason
            info["_truncated_reason"] = was_cut
        return info

    def _reset_info(self) -> dict[str, Any]:
        zeros = np.zeros(self.num_envs, dtype=np.int64)
        return self._info(self._st, self._mask, self._names, zeros, zeros != 0, None)

    def _step_info(self) -> dict[str, Any]:
        return self._info(self._st, self._mask, self._names, self._reasons, self._cut, None)

    def _same_step_infos(self, done: np.ndarray, final_names: np.ndarray) -> tuple[dict[str, Any], dict[str, Any]]:
        reasons = np.where(done, 0, self._reasons)
        info = self._info(self._st, self._mask, self._names, reasons, self._cut & ~done, None)
        final_info = self._info(
            self._final_st, self._final_mask, final_names, self._final_reasons, self._final_cut, done
        )
        return info, final_info

    # ------------------------------------------------------------------ deals

    def _check_options(self, codes: list[Any] | None, deals: list[Any] | None) -> tuple[Any, Any]:
        names = [str(parse_game_code(c, "FT")) for c in codes] if codes is not None else None
        expected = "a deal must be a Forty Thieves deal string or FortyThievesDeal"
        checked = [as_deal(d, FortyThievesDeal, expected) for d in deals] if deals is not None else None
        return names, checked

    def _start_code(self, i: int, code: Any) -> str:
        self._deal_seed(i, parse_deal_code(code).seed)
        return str(code)

    def _start_deal(self, i: int, deal: Any) -> str:
        deck = np.array([c for col in deal.columns for c in col] + list(deal.stock), dtype=np.int8)
        K.start_game(self._state, i, deck)
        return str(deal)

    def _deal_seed(self, i: int, seed: int) -> None:
        K.deal_row(self._state, i, seed)

    # ------------------------------------------------------------------ kernels

    def _illegal(self, i: int, action: int) -> tuple[str, str]:
        state = self._state
        reason = K.REASON_NAMES[K.reason_of(i, action, state.st, state.cols, state.waste, state.cfg)]
        return reason, REASONS[reason]

    def _before_step(self) -> None:
        if self._flags[FLAG_GAME]:  # a repetition table is half full
            self._grow_tables()
            self._flags[FLAG_GAME] = False
