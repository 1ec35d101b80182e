"""The batch TriPeaks environment: N games stepped by one numba call per step.

``gym.make_vec("solitaire_env/TriPeaks-v0", num_envs=1024)`` makes a
:class:`TriPeaksVectorEnv` (the registered ``vector_entry_point``); ``vectorization_mode="sync"``
still gives Gymnasium's ``SyncVectorEnv`` over single envs.  Both return the same
observations, rewards, terminations, truncations and infos for the same seeds and actions
(``tests/generic/test_batch_equals_single.py`` checks this on thousands of deals for every rule option).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from solitaire_env.common import batch as base
from solitaire_env.common.batch import BatchEnv, BatchKeywords, BatchOptions
from solitaire_env.common.batch_driver import FLAG_ILLEGAL
from solitaire_env.common.deals import DealStringError
from solitaire_env.common.env import as_deal, parse_game_code
from solitaire_env.games import TRIPEAKS_MAX_STEPS
from solitaire_env.tripeaks import batch_kernels as K
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import REASONS
from solitaire_env.tripeaks.observe import TriPeaksObserver
from solitaire_env.tripeaks.rules import TriPeaksRules
from solitaire_env.tripeaks.scoring import TriPeaksPointScoring, TriPeaksScoring, get_scoring

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: Random deal seeds drawn ahead per env (the kernel takes one per reset).
SEED_BLOCK = 256
_INFO_FIELDS = (
    ("score", K.F_SCORE),
    ("moves", K.F_MOVES),
    ("cleared", K.F_CLEARED),
    ("chain", K.F_CHAIN),
    ("longest_chain", K.F_LONGEST),
)
_INFO_KEYS = tuple(key for key, _ in _INFO_FIELDS)
_INFO_KEY_PAIRS = tuple((key, f"_{key}") for key in _INFO_KEYS)
_INFO_COLUMNS = np.array([field for _, field in _INFO_FIELDS])
assert len(_INFO_KEYS) == K.NUM_COUNTERS


class TriPeaksBatchView(NamedTuple):
    """The games of a :class:`TriPeaksVectorEnv`, read-only (``batch.view()``): row ``i`` of each
    array is env ``i``.  These are views of the env's state, not copies: they show the state
    after the latest ``reset`` / ``step`` (take a new view or ``.copy()`` to keep one), and
    writing to them raises ``ValueError``.

    The view holds the *whole* state, hidden cards included (the env knows the deal): training
    signals may read them, a policy input must not (``seen`` and ``stock_seen`` say what the
    player has seen).  Bit masks have bit ``s`` for slot ``s`` (0..27, reading order).  A
    ``NamedTuple`` of arrays, so a numba function takes it as one argument (``view.removed[i]``).
    The rule options of every env are ``batch.rules`` (a
    :class:`~solitaire_env.tripeaks.rules.TriPeaksRules`), except the K-A rule, which a deal
    code may set per env (``wrap``); the reward is ``batch.reward_mode`` and ``batch.win_bonus``.
    """

    #: ``(N, 28)`` int8: the card id of each slot as dealt (removed and face-down ones included).
    tableau: np.ndarray
    #: ``(N, 26)`` int8: the stock in draw order (52: a joker), ``-1`` past ``stock_len``.
    stock: np.ndarray
    #: ``(N,)``: how many cards the stock was dealt (``stock[i, :stock_len[i]]``).
    stock_len: np.ndarray
    #: ``(N,)``: how many stock cards have been drawn (the next draw is ``stock[i, stock_pos[i]]``).
    stock_pos: np.ndarray
    #: ``(N,)``: how many stock cards the player has seen (drawn at least once).
    stock_seen: np.ndarray
    #: ``(N,)``: the waste's top card (-1: an empty waste; 52: a joker).
    waste: np.ndarray
    #: ``(N,)``: the waste's key: its rank 1..13, 0 for an empty waste or a joker (accepts any rank).
    waste_key: np.ndarray
    #: ``(N,)`` bit masks: the removed slots.
    removed: np.ndarray
    #: ``(N,)`` bit masks: the exposed slots (no card covering them is left), removed ones included.
    exposed: np.ndarray
    #: ``(N,)`` bit masks: the face-up slots.
    face_up: np.ndarray
    #: ``(N,)`` bit masks: the slots whose card the player has seen (face up now or before).
    seen: np.ndarray
    #: ``(N,)`` bit masks of the legal actions (bit 28: the draw); 0 once the game is over.
    legal: np.ndarray
    #: ``(N,)``: 1 when K and A are adjacent in this env's game (the deal code's rule letter), else 0.
    wrap: np.ndarray
    #: ``(N,)``: the counters of the info: score, moves, cards cleared, current and longest chain.
    score: np.ndarray
    moves: np.ndarray
    cleared: np.ndarray
    chain: np.ndarray
    longest_chain: np.ndarray


def code_names(seeds: np.ndarray, letter: str) -> np.ndarray:
    """Deal codes ``TP1-<letter>-<SEED7>`` of an int64 array of seeds, as an object array of str."""
    return base.code_names(seeds, f"TP1-{letter}-")


def _scoring_config(scoring: TriPeaksScoring) -> list[int]:
    if not isinstance(scoring, TriPeaksPointScoring):
        raise ValueError(
            f"the batch env plays the scoring presets and TriPeaksPointScoring objects, not {type(scoring).__name__}; "
            "use the single env (gym.make) or express the scoring as a TriPeaksPointScoring"
        )
    floor = scoring.floor
    return [
        scoring.start,
        floor is not None,
        0 if floor is None else floor,
        scoring.removal_points,
        scoring.chain_points,
        scoring.draw_points,
        *scoring.apex_points,
        scoring.group_points,
        scoring.clear_points,
    ]


class TriPeaksVectorEnv(BatchEnv):
    """``num_envs`` TriPeaks games in arrays, stepped together by numba.

    ## Description
    The game of :class:`~solitaire_env.tripeaks.env.TriPeaksEnv` (its docstring has the rules),
    ``num_envs`` times over: the same observations, rewards, terminations, truncations and
    infos as Gymnasium's ``SyncVectorEnv`` over single envs made with
    ``gym.make("solitaire_env/TriPeaks-v0", ...)`` for the same seeds and actions, in one
    numba call per step.  Made by ``gym.make_vec("solitaire_env/TriPeaks-v0", num_envs=N)``.

    ## Action Space
    ``MultiDiscrete([29] * N)`` (``single_action_space``: ``Discrete(29)``): an ``(N,)`` int array,
    per env ``0..27`` removes the card in that slot and ``28`` draws.  ``action_masks()`` returns
    the ``(N, 29)`` bool array of legal actions, ``info["action_mask"]`` the same as int8.

    ## Observation Space
    The single env's space, batched: ``obs_mode="flat"`` an ``(N, 607)`` float32 array;
    ``"dict"`` a dict of ``(N, ...)`` arrays; ``"oracle"`` / ``"oracle_dict"`` add the hidden
    cards.  Layouts: ``docs/environments.md``.

    ## Starting State
    Each env starts as the single env does (bottom row face up, one waste card, 23 in the
    stock, by the rule options), on its own deal (see Deals).

    ## Rewards
    A float64 ``(N,)`` array, per env the single env's reward (``reward="score"``, ``"win"`` or
    ``"progress"``; no callable) and illegal-action penalty.

    ## Episode End
    Per env, as the single env: terminated on a win or a loss (or an illegal action with
    ``illegal_action="terminate"``), truncated after ``max_episode_steps`` steps.  A finished
    env is reset automatically (``autoreset_mode``, see Arguments) with its next deal.

    ## Information
    Gymnasium's vector infos: per key an ``(N,)`` array and a ``_key`` bool mask of the envs
    that have it: ``score``, ``moves``, ``cleared``, ``chain``, ``longest_chain``,
    ``deal_code``, ``action_mask`` (``(N, 29)`` int8) and, when an action was illegal,
    ``illegal_reason`` and ``illegal_message``.  With ``autoreset_mode="same_step"``, also
    ``final_obs`` and ``final_info`` of the envs that ended in the step.

    ## Arguments
    The single env's keywords (``wrap``, ``draw``, ``faces``, ``waste_start``, ``jokers``,
    ``scoring``, ``reward``, ``win_bonus``, ``obs_mode``, ``illegal_action``,
    ``illegal_penalty``) and:

    - ``max_episode_steps`` (200, as registered): truncate an episode after this many steps;
    - ``autoreset_mode``: ``"next_step"`` (Gymnasium's default: the step after an episode ends
      resets that game and ignores its action) or ``"same_step"`` (the game is reset in the
      step that ends it; its last observation and info go to ``info["final_obs"]`` and
      ``info["final_info"]``; what stable-baselines3 expects);
    - ``copy``: return a copy of the observation buffer (default, as ``SyncVectorEnv``);
      ``False`` returns the buffer itself, which the next step overwrites.

    Not supported (a clear error): a reward callable and a scoring that is not a
    :class:`~solitaire_env.tripeaks.scoring.TriPeaksPointScoring` (numba cannot call them), and
    rendering (replay a deal code in the single env to draw it).

    ## Deals
    Every episode's deal code is in ``info["deal_code"]``; a random episode of env ``i`` draws
    its code from a generator seeded exactly as ``SyncVectorEnv`` seeds its ``i``-th single env
    (``reset(seed=s)`` gives env ``i`` the seed ``s + i``), so the batch env deals the same codes.
    ``reset(options=...)`` takes ``{"deal_code": code}`` or ``{"deal": deal string}`` (every env
    the same, as ``SyncVectorEnv`` passes options) or ``{"deal_codes": [N codes]}`` /
    ``{"deals": [N deal strings]}`` (one per env).

    ``exclude_codes``: deal codes the random deals never deal (to keep held-out evaluation
    deals out of training).  Each must be a TriPeaks code of this env's rule letter (``E`` with
    ``wrap=True``, ``C`` with ``wrap=False``; the legacy ``N`` reads as ``E``), else a
    ``DealCodeError``: a code of the other letter could never be dealt, so it is a mistake.
    An excluded code drawn from an env's generator is skipped (the next draw takes its place):
    the env deals ``SyncVectorEnv``'s codes in the same order, minus the excluded ones.  Deals
    given in ``reset(options=...)`` are played even if excluded.

    ## State view
    ``view()`` returns the games' state as read-only arrays named in the game's words
    (:class:`TriPeaksBatchView`: tableau, stock, waste, the removed / exposed / face-up / seen
    masks, the legal actions, the counters), what training code reads
    (:mod:`agents.training.move_values`, :mod:`agents.training.advice`, :mod:`agents.training.shaping`); ``rules``,
    ``scoring``, ``reward_mode`` and ``win_bonus`` are the options in play.

    ## Version History
    * v0: Initial version.
    """

    _seed_block = SEED_BLOCK
    _reason_names, _reason_messages = base.reason_tables(K.REASON_NAMES, REASONS)

    def __init__(
        self,
        num_envs: int = 1,
        *,
        wrap: bool = True,
        draw: str = "anytime",
        faces: str = "standard",
        waste_start: str = "card",
        jokers: int = 0,
        scoring: str | TriPeaksScoring = "app",
        **options: Unpack[BatchKeywords],
    ) -> None:
        checked = BatchOptions.check(num_envs, options, owner=type(self).__name__, max_episode_steps=TRIPEAKS_MAX_STEPS)
        self.rules = TriPeaksRules(wrap=wrap, draw=draw, faces=faces, waste_start=waste_start, jokers=jokers)  # type: ignore[arg-type]
        self.scoring = get_scoring(scoring)
        super().__init__(checked)
        self._exclude("TP", self.rules.rule_letter, f"wrap={self.rules.wrap}")
        n = self.num_envs

        cfg = np.zeros(K.NUM_CFG, dtype=np.int64)
        cfg[K.C_WHEN_STUCK] = self.rules.draw == "when_stuck"
        cfg[K.C_OPEN] = self.rules.faces == "open"
        cfg[K.C_WASTE_EMPTY] = self.rules.waste_start == "empty"
        cfg[K.C_JOKERS] = self.rules.jokers
        cfg[K.C_START : K.C_CLEAR + 1] = _scoring_config(self.scoring)
        cfg[K.C_WRAP] = self.rules.wrap
        self._make_spaces(
            TriPeaksObserver(self.obs_mode).space, K.NUM_ACTIONS, K.ORACLE_SIZE if self._oracle else K.FLAT_SIZE
        )
        state = K.new_state(n, cfg)
        self._set_state(state, K.new_final(self._final_rows()))
        self._st, self._tab, self._stock, self._counters = state.st, state.tab, state.stock, state.counters
        self._final_st = self._final_state.st
        self._dict_arrays: dict[str, np.ndarray] = {}
        if not self._flat:
            self._dict_arrays = self._new_dict_arrays(n)
            self._final_dict = self._new_dict_arrays(self._final_rows())
            self._dict_out = K.TriPeaksDictObs(**self._dict_arrays)
            self._final_dict_out = K.TriPeaksDictObs(**self._final_dict)

    # ------------------------------------------------------------------ public view

    def view(self) -> TriPeaksBatchView:
        """The games' state as read-only arrays named in the game's words (:class:`TriPeaksBatchView`)."""
        st = self._st
        ro = base.read_only
        return TriPeaksBatchView(
            tableau=ro(self._tab), stock=ro(self._stock), stock_len=ro(st[:, K.F_STOCK_LEN]),
            stock_pos=ro(st[:, K.F_STOCK_POS]), stock_seen=ro(st[:, K.F_STOCK_SEEN]), waste=ro(st[:, K.F_WASTE]),
            waste_key=ro(st[:, K.F_KEY]), removed=ro(st[:, K.F_REMOVED]), exposed=ro(st[:, K.F_EXPOSED]),
            face_up=ro(st[:, K.F_FACE_UP]), seen=ro(st[:, K.F_SEEN]), legal=ro(st[:, K.F_LEGAL]),
            wrap=ro(st[:, K.F_WRAP]), score=ro(st[:, K.F_SCORE]), moves=ro(st[:, K.F_MOVES]),
            cleared=ro(st[:, K.F_CLEARED]), chain=ro(st[:, K.F_CHAIN]), longest_chain=ro(st[:, K.F_LONGEST]),
        )  # fmt: skip

    # ------------------------------------------------------------------ helpers

    def _new_dict_arrays(self, n: int) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {
            "tableau": np.zeros((n, K.NUM_SLOTS), dtype=np.int64),
            "waste": np.zeros(n, dtype=np.int64),
            "unseen": np.zeros((n, 52), dtype=np.int8),
            "counts": np.zeros((n, 4), dtype=np.float32),
        }
        # the kernel writes these only in the oracle modes
        arrays["hidden_tableau"] = np.zeros((n, K.NUM_SLOTS), dtype=np.int64)
        arrays["stock"] = np.zeros((n, K.MAX_STOCK), dtype=np.int64)
        return arrays

    def _dict_obs(self, arrays: dict[str, np.ndarray], rows: Any = slice(None)) -> dict[str, np.ndarray]:
        keys = ("tableau", "waste", "unseen", "counts", "hidden_tableau", "stock") if self._oracle else (
            "tableau", "waste", "unseen", "counts")  # fmt: skip
        return {k: arrays[k][rows].copy() for k in keys}

    def _observation(self) -> Any:
        if self._flat:
            return self._obs.copy() if self.copy else self._obs
        K.encode_dict(np.arange(self.num_envs), self._state, self._dict_out, self._oracle)
        if self.copy:
            return self._dict_obs(self._dict_arrays)
        return {k: v for k, v in self._dict_arrays.items() if self._oracle or k not in ("hidden_tableau", "stock")}

    def _encode_final(self, rows: np.ndarray) -> None:
        K.encode_dict(rows, self._final_state, self._final_dict_out, self._oracle)

    def _final_dict_obs(self, i: int) -> dict[str, Any]:
        one = self._dict_obs(self._final_dict, slice(i, i + 1))
        return {k: (int(v[0]) if k == "waste" else v[0]) for k, v in one.items()}

    def _code_names(self, seeds: np.ndarray) -> np.ndarray:
        return code_names(seeds, self.rules.rule_letter)

    def _info(
        self, counters: np.ndarray, mask: np.ndarray, names: np.ndarray, reasons: np.ndarray, rows: Any, illegal: bool
    ) -> dict[str, Any]:
        """The vector info (arrays + ``_key`` masks) of every env (``rows`` None) or of the envs
        selected by the bool array ``rows``; ``counters`` as :func:`~tripeaks_kernels.write_counters`
        lays them out; ``illegal``: whether any ``reasons`` may be non-zero."""
        everyone = rows is None
        # one presence array shared by every key (SyncVectorEnv makes one per key)
        present = np.ones(self.num_envs, dtype=np.bool_) if everyone else rows.copy()
        counters = counters.copy()
        if not everyone:
            counters[:, ~rows] = 0
        info: dict[str, Any] = {}
        for k, (key, present_key) in enumerate(_INFO_KEY_PAIRS):
            info[key] = counters[k]
            info[present_key] = present
        self._deal_info(info, present, mask, names, reasons, rows, illegal)
        return info

    def _reset_info(self) -> dict[str, Any]:
        return self._info(self._counters, self._mask, self._names, self._reasons, None, False)

    def _step_info(self) -> dict[str, Any]:
        return self._info(self._counters, self._mask, self._names, self._reasons, None, bool(self._flags[FLAG_ILLEGAL]))

    def _same_step_infos(self, done: np.ndarray, final_names: np.ndarray) -> tuple[dict[str, Any], dict[str, Any]]:
        reasons = np.where(done, 0, self._reasons)
        illegal = bool(self._flags[FLAG_ILLEGAL])
        info = self._info(self._counters, self._mask, self._names, reasons, None, illegal)
        final_counters = self._final_st[:, _INFO_COLUMNS].T.astype(np.int64)
        final_info = self._info(final_counters, self._final_mask, final_names, self._final_reasons, done, illegal)
        return info, final_info

    # ------------------------------------------------------------------ deals

    def _check_deal(self, deal: Any) -> TriPeaksDeal:
        """``deal`` (a deal string is parsed) if it is a TriPeaks deal with the rules' jokers."""
        deal = as_deal(deal, TriPeaksDeal, "a deal must be a TriPeaks deal string or TriPeaksDeal")
        if deal.jokers != self.rules.jokers:
            raise DealStringError(f"the deal has {deal.jokers} joker(s) but the rules ask for {self.rules.jokers}")
        return deal

    def _check_options(self, codes: list[Any] | None, deals: list[Any] | None) -> tuple[Any, Any]:
        if codes is not None:
            for code in codes:
                parse_game_code(code, "TP")
        if deals is not None:
            deals = [TriPeaksDeal.parse(d) if isinstance(d, str) else d for d in deals]  # every string first
            deals = [self._check_deal(d) for d in deals]
        return codes, deals

    def _start_code(self, i: int, code: Any) -> str:
        parsed = parse_game_code(code, "TP")
        self._reset_from_seed(i, parsed.seed, int(parsed.wrap))
        return str(parsed)

    def _start_deal(self, i: int, deal: Any) -> str:
        deal = self._check_deal(deal)
        self._tab[i] = deal.tableau
        rest = [deal.waste, *deal.stock]
        self._state.rest[: len(rest)] = rest
        K.start_game(self._state, i, len(rest), int(self.rules.wrap))
        return str(deal)

    def _reset_from_seed(self, i: int, seed: int, wrap: int) -> None:
        K.reset_from_seed(self._state, i, seed, wrap)

    def _deal_seed(self, i: int, seed: int) -> None:
        self._reset_from_seed(i, seed, int(self.rules.wrap))

    # ------------------------------------------------------------------ kernels

    def _illegal(self, i: int, action: int) -> tuple[str, str]:
        state = self._state
        reason = K.REASON_NAMES[K.reason_of(i, action, state.st, state.accept, state.cfg)]
        return reason, REASONS[reason]
