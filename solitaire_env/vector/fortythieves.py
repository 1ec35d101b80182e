"""The batch Forty Thieves environment: N games stepped by one numba call per step.

``gym.make_vec("solitaire_env/FortyThieves-v0", num_envs=1024)`` makes a
:class:`FortyThievesVectorEnv` (the registered ``vector_entry_point``); ``vectorization_mode="sync"``
still gives Gymnasium's ``SyncVectorEnv`` over single envs.  Both return the same
observations, rewards, terminations, truncations and infos for the same seeds and actions
(``tests/test_vector_fortythieves.py`` checks this on thousands of episodes for every option).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solitaire_env import FORTYTHIEVES_MAX_STEPS
from solitaire_env.deals import BASE32, SEED_BITS, DealCodeError, DealStringError, FortyThievesDeal, parse_deal_code
from solitaire_env.env import ILLEGAL_POLICIES, IllegalActionError, SolitaireEnv
from solitaire_env.fortythieves.game import REASONS
from solitaire_env.fortythieves.observe import OBS_MODES, FortyThievesObserver
from solitaire_env.fortythieves.rules import FortyThievesRules, FortyThievesScoring, get_scoring
from solitaire_env.vector import fortythieves_kernels as K

#: Random deal seeds drawn ahead per env (the kernel takes one per reset).
SEED_BLOCK = 64
#: Starting capacity of each env's repetition table (doubled when one gets half full).
REPEAT_TABLE_START = 64
_AUTORESET = {"next_step": K.AUTORESET_NEXT_STEP, "same_step": K.AUTORESET_SAME_STEP}
_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
_INFO_FIELDS = (
    ("score", K.F_SCORE),
    ("moves", K.F_MOVES),
    ("cleared", K.F_FOUNDED),
    ("founded", K.F_FOUNDED),
    ("chain", K.F_CHAIN),
    ("longest_chain", K.F_LONGEST),
)
_DICT_KEYS = ("columns", "waste", "foundations", "unseen", "counts")
_BASE32 = np.frombuffer(BASE32.encode(), dtype=np.uint8)
_SHIFTS = np.array([5 * (6 - k) for k in range(7)], dtype=np.int64)
_REASON_NAMES = np.array([None, *K.REASON_NAMES[1:]], dtype=object)
_REASON_MESSAGES = np.array([None, *(REASONS[r] for r in K.REASON_NAMES[1:])], dtype=object)


def code_names(seeds: np.ndarray) -> np.ndarray:
    """Deal codes ``FT1-N-<SEED7>`` of an int64 array of seeds, as an object array of str."""
    seeds = np.asarray(seeds, dtype=np.int64).ravel()
    text = np.empty((len(seeds), 13), dtype=np.uint8)
    text[:, :6] = np.frombuffer(b"FT1-N-", dtype=np.uint8)
    text[:, 6:] = _BASE32[(seeds[:, None] >> _SHIFTS) & 31]
    return text.view("S13").ravel().astype("U13").astype(object)


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


class FortyThievesVectorEnv(VectorEnv):
    """``num_envs`` Forty Thieves games in arrays, stepped together by numba.

    The same game, observations, rewards and infos as ``num_envs`` single envs made with
    ``gym.make("solitaire_env/FortyThieves-v0", ...)`` (:class:`~solitaire_env.fortythieves.env.FortyThievesEnv`
    documents them), with Gymnasium's vector conventions: actions an ``(N,)`` int array,
    rewards float64, infos as arrays with ``_key`` masks.

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

    ``action_masks()`` returns the ``(N, 210)`` bool array of legal actions.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        *,
        foundation_return: bool = True,
        scoring: str | FortyThievesScoring = "app",
        reward: str = "score",
        win_bonus: float = 10.0,
        obs_mode: str = "flat",
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        max_repeats: int | None = 3,
        max_episode_steps: int | None = FORTYTHIEVES_MAX_STEPS,
        autoreset_mode: str | AutoresetMode = "next_step",
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError("the batch env does not render; replay info['deal_code'] in the single env to draw it")
        if not isinstance(reward, str):
            raise ValueError("the batch env takes a reward name ('score', 'win', 'progress'), not a callable")
        if reward not in SolitaireEnv.REWARDS:
            raise ValueError(f"unknown reward {reward!r}; want one of {', '.join(SolitaireEnv.REWARDS)}")
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(f"unknown illegal_action {illegal_action!r}; want one of {', '.join(ILLEGAL_POLICIES)}")
        if obs_mode not in OBS_MODES:
            raise ValueError(f"unknown observation mode {obs_mode!r}; want one of {', '.join(OBS_MODES)}")
        if max_repeats is not None and (
            isinstance(max_repeats, bool) or not isinstance(max_repeats, int) or max_repeats < 2
        ):
            raise ValueError(f"max_repeats must be a whole number >= 2 or None, got {max_repeats!r}")
        if isinstance(autoreset_mode, AutoresetMode):
            autoreset_mode = {v: k for k, v in _AUTORESET_MODES.items()}.get(autoreset_mode, str(autoreset_mode))
        if autoreset_mode not in _AUTORESET:
            raise ValueError(f"autoreset_mode must be 'next_step' or 'same_step', got {autoreset_mode!r}")
        if max_episode_steps is None:
            max_episode_steps = 1 << 62
        if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int) or max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be a whole number >= 1 or None, got {max_episode_steps!r}")
        self.rules = FortyThievesRules(foundation_return=foundation_return)
        self.scoring = get_scoring(scoring)
        n = self.num_envs = int(num_envs)
        self.obs_mode = obs_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        if illegal_penalty is None:
            illegal_penalty = SolitaireEnv.DEFAULT_PENALTY[reward]
        self.illegal_penalty = float(illegal_penalty)
        self.win_bonus = float(win_bonus)
        self.max_repeats = max_repeats
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = _AUTORESET_MODES[autoreset_mode]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.copy = bool(copy)
        self.render_mode = None

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
        cfg[K.C_REWARD] = SolitaireEnv.REWARDS.index(reward)
        cfg[K.C_ILLEGAL] = ILLEGAL_POLICIES.index(illegal_action)
        cfg[K.C_MAX_STEPS] = max_episode_steps
        cfg[K.C_AUTORESET] = _AUTORESET[autoreset_mode]
        cfg[K.C_OBS] = OBS_MODES.index(obs_mode)
        cfg[K.C_MAX_REPEATS] = 0 if max_repeats is None else max_repeats
        self._cfg = cfg
        self._fcfg = np.array([self.illegal_penalty, self.win_bonus], dtype=np.float64)

        observer = FortyThievesObserver(obs_mode)
        self.single_observation_space = observer.space
        self.observation_space = batch_space(observer.space, n)
        self.single_action_space = spaces.Discrete(K.NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, n)
        self._flat = obs_mode in ("flat", "oracle")
        self._oracle = obs_mode.startswith("oracle")

        self._st = np.zeros((n, K.NUM_FIELDS), dtype=np.int64)
        self._cols = np.full((n, K.NUM_COLUMNS, K.MAX_COLUMN), -1, dtype=np.int8)
        self._waste = np.full((n, K.STOCK_SIZE), -1, dtype=np.int8)
        self._stock = np.full((n, K.STOCK_SIZE), -1, dtype=np.int8)
        self._topped = np.zeros((n, 53), dtype=np.int64)
        self._srcbits = np.zeros((n, K.NUM_SOURCES), dtype=np.int64)
        self._zh = np.zeros(n, dtype=np.uint64)
        cap = REPEAT_TABLE_START if max_repeats is not None else 1
        self._rep_keys = np.zeros((n, cap), dtype=np.uint64)
        self._rep_counts = np.zeros((n, cap), dtype=np.int32)
        self._rep_epochs = np.zeros((n, cap), dtype=np.int64)
        width = K.ORACLE_SIZE if self._oracle else K.FLAT_SIZE
        self._obs = np.zeros((n, width if self._flat else 1), dtype=np.float32)
        self._mask = np.zeros((n, K.NUM_ACTIONS), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._reasons = np.zeros(n, dtype=np.int64)
        self._cut = np.zeros(n, dtype=np.bool_)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._did_reset = np.zeros(n, dtype=np.bool_)
        same_step = autoreset_mode == "same_step"
        m = n if same_step else 1  # the final_* buffers serve same_step mode only
        self._final_obs = np.zeros((m, self._obs.shape[1]), dtype=np.float32)
        self._final_st = np.zeros((m, K.NUM_FIELDS), dtype=np.int64)
        self._final_cols = np.zeros((m, K.NUM_COLUMNS, K.MAX_COLUMN), dtype=np.int8)
        self._final_waste = np.zeros((m, K.STOCK_SIZE), dtype=np.int8)
        self._final_stock = np.zeros((m, K.STOCK_SIZE), dtype=np.int8)
        self._final_mask = np.zeros((m, K.NUM_ACTIONS), dtype=np.int8)
        self._final_reasons = np.zeros(m, dtype=np.int64)
        self._final_cut = np.zeros(m, dtype=np.bool_)
        self._deck = np.zeros(K.DECK_SIZE, dtype=np.int8)
        self._rng = np.zeros(1, dtype=np.uint64)
        self._reset_rows = np.zeros(n, dtype=np.int64)  # the kernel lists the envs it reset
        self._flags = np.zeros(2, dtype=np.bool_)  # [a seed block ran out, a repetition table is half full]
        self._seeds = np.zeros((n, SEED_BLOCK), dtype=np.int64)
        self._seed_pos = np.full(n, SEED_BLOCK, dtype=np.int64)
        self._names_ahead = np.full((n, SEED_BLOCK), None, dtype=object)
        self._names = np.full(n, None, dtype=object)
        self._generators: list[np.random.Generator | None] = [None] * n
        self._dict_arrays: dict[str, np.ndarray] = {}
        self._final_dict: dict[str, np.ndarray] = {}
        if not self._flat:
            self._dict_arrays = self._new_dict_arrays(n)
            self._final_dict = self._new_dict_arrays(m)
        self._started = False

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

    def _encode_dict(
        self,
        rows: np.ndarray,
        st: np.ndarray,
        cols: np.ndarray,
        waste: np.ndarray,
        stock: np.ndarray,
        out: dict[str, np.ndarray],
    ) -> None:
        K.encode_dict(
            rows, st, cols, waste, stock, out["columns"], out["waste"], out["foundations"], out["unseen"],
            out["counts"], out["stock"], self._oracle,
        )  # fmt: skip

    def _observation(self) -> Any:
        if self._flat:
            return self._obs.copy() if self.copy else self._obs
        self._encode_dict(np.arange(self.num_envs), self._st, self._cols, self._waste, self._stock, self._dict_arrays)
        if self.copy:
            return {k: self._dict_arrays[k].copy() for k in self._dict_keys}
        return {k: self._dict_arrays[k] for k in self._dict_keys}

    def _refill(self, rows: Any) -> None:
        """Draw the next block of random deal seeds (and their codes) of the envs in ``rows``."""
        for i in rows:
            generator = self._generators[i]
            if generator is None:  # never seeded: from entropy, as a single env's first reset()
                generator = self._generators[i] = seeding.np_random(None)[0]
            raw = generator.bit_generator.random_raw(SEED_BLOCK)
            self._seeds[i] = (np.asarray(raw, dtype=np.uint64) >> np.uint64(64 - SEED_BITS)).astype(np.int64)
            self._names_ahead[i] = code_names(self._seeds[i])
            self._seed_pos[i] = 0

    def _grow_tables(self) -> None:
        """Double the repetition tables until none is half full."""
        while int(self._st[:, K.F_REP_N].max()) >= self._rep_keys.shape[1] // 2:
            n, cap = self._rep_keys.shape[0], 2 * self._rep_keys.shape[1]
            keys = np.zeros((n, cap), dtype=np.uint64)
            counts = np.zeros((n, cap), dtype=np.int32)
            epochs = np.zeros((n, cap), dtype=np.int64)
            K.rehash(self._st, self._rep_keys, self._rep_counts, self._rep_epochs, keys, counts, epochs)
            self._rep_keys, self._rep_counts, self._rep_epochs = keys, counts, epochs

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
        everyone = rows is None
        # one presence array shared by every key (SyncVectorEnv makes one per key)
        present = np.ones(n, dtype=np.bool_) if rows is None else rows.copy()
        for key, field in _INFO_FIELDS:
            info[key] = st[:, field].copy() if rows is None else np.where(rows, st[:, field], 0)
            info[f"_{key}"] = present
        if rows is None:
            info["deal_code"] = names.copy()
            info["action_mask"] = mask.copy()
        else:
            codes = np.full(n, None, dtype=object)
            codes[rows] = names[rows]
            info["deal_code"] = codes
            info["action_mask"] = np.where(rows[:, None], mask, 0).astype(np.int8)
        info["_deal_code"] = present
        info["_action_mask"] = present
        illegal = reasons != 0 if everyone else (reasons != 0) & rows
        if illegal.any():
            codes = np.where(illegal, reasons, 0)
            info["illegal_reason"] = _REASON_NAMES[codes]
            info["_illegal_reason"] = illegal.copy()
            info["illegal_message"] = _REASON_MESSAGES[codes]
            info["_illegal_message"] = illegal.copy()
        was_cut = cut.copy() if everyone else cut & rows
        if was_cut.any():
            reason = np.full(n, None, dtype=object)
            reason[was_cut] = "repetition"
            info["truncated_reason"] = reason
            info["_truncated_reason"] = was_cut
        return info

    # ------------------------------------------------------------------ deals

    def _check_code(self, code: Any) -> str:
        parsed = parse_deal_code(code)
        if parsed.game != "FT":
            raise DealCodeError(f"deal code {parsed} is for game {parsed.game}, this env plays FT")
        return str(parsed)

    @staticmethod
    def _check_deal(deal: Any) -> FortyThievesDeal:
        if isinstance(deal, str):
            deal = FortyThievesDeal.parse(deal)
        elif not isinstance(deal, FortyThievesDeal):
            raise DealStringError(f"a deal must be a Forty Thieves deal string or FortyThievesDeal, got {deal!r}")
        return deal

    def _deal_seed(self, i: int, seed: int) -> None:
        K.deal_seed(
            i, seed, self._st, self._cols, self._waste, self._stock, self._topped, self._zh, self._cfg, self._deck,
            self._rng,
        )  # fmt: skip

    def _per_env(self, options: dict[str, Any], many: str, one: str) -> list[Any] | None:
        if many in options:
            values = list(options[many])
            if len(values) != self.num_envs:
                raise ValueError(f"options[{many!r}] must have one entry per env ({self.num_envs}), got {len(values)}")
            return values
        if one in options:
            return [options[one]] * self.num_envs
        return None

    # ------------------------------------------------------------------ gym API

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start every game: a random code each (from ``seed``), or the deals in ``options``."""
        n = self.num_envs
        if seed is None or isinstance(seed, int | np.integer):
            seeds: list[int | None] = [None if seed is None else int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"a list of seeds must have num_envs={n} entries, got {len(seeds)}")
        for s in seeds:
            if s is not None and (isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0):
                raise ValueError(f"a seed must be a whole number >= 0 or None, got {s!r}")
        options = dict(options or {})
        allowed = {"deal_code", "deal", "deal_codes", "deals"}
        unknown = set(options) - allowed
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; want one of {sorted(allowed)}")
        if sum(k in options for k in allowed) > 1:
            raise ValueError("give one of options 'deal_code', 'deal_codes', 'deal', 'deals'")
        codes = self._per_env(options, "deal_codes", "deal_code")
        deals = self._per_env(options, "deals", "deal")
        # validate every injected deal before touching any state
        names = [self._check_code(c) for c in codes] if codes is not None else None
        checked = [self._check_deal(d) for d in deals] if deals is not None else None
        # env i's generator: seeded anew from its seed; without one, it goes on with its stream
        fresh = {
            i: seeding.np_random(None if s is None else int(s))[0]
            for i, s in enumerate(seeds)
            if s is not None or self._generators[i] is None
        }
        if isinstance(seed, int | np.integer):
            self._np_random, self._np_random_seed = seeding.np_random(int(seed))
        for i, generator in fresh.items():
            self._generators[i] = generator
            self._refill([i])
        for i in range(n):
            if names is not None:
                self._deal_seed(i, parse_deal_code(names[i]).seed)
                self._names[i] = names[i]
            elif checked is not None:
                deal = checked[i]
                deck = np.array([c for col in deal.columns for c in col] + list(deal.stock), dtype=np.int8)
                K.start_game(i, deck, self._st, self._cols, self._waste, self._stock, self._topped, self._zh, self._cfg)
                self._names[i] = str(deal)
            else:
                if self._seed_pos[i] >= SEED_BLOCK:
                    self._refill([i])
                self._deal_seed(i, int(self._seeds[i, self._seed_pos[i]]))
                self._names[i] = self._names_ahead[i, self._seed_pos[i]]
                self._seed_pos[i] += 1
        K.start_all(
            self._st, self._cols, self._waste, self._stock, self._topped, self._srcbits, self._zh, self._rep_keys,
            self._rep_counts, self._rep_epochs, self._cfg, self._obs, self._mask, self._flat, self._oracle,
        )  # fmt: skip
        self._autoreset[:] = False
        self._flags[:] = False
        self._terminated[:] = False
        self._truncated[:] = False
        self._started = True
        zeros = np.zeros(n, dtype=np.int64)
        return self._observation(), self._info(self._st, self._mask, self._names, zeros, zeros != 0, None)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.dtype != np.int64 or acts.shape != (self.num_envs,):
            if acts.shape != (self.num_envs,) or not (
                np.issubdtype(acts.dtype, np.integer)
                or (np.issubdtype(acts.dtype, np.number) and np.all(np.mod(acts, 1) == 0))
            ):
                raise ValueError(
                    f"actions must be {self.num_envs} whole numbers (shape ({self.num_envs},)), got {actions!r}"
                )
            acts = acts.astype(np.int64)
        if self.illegal_action == "raise":
            outside = (acts < 0) | (acts >= K.NUM_ACTIONS)
            if outside.any():
                raise ValueError(f"action {int(acts[np.flatnonzero(outside)[0]])} is outside 0..{K.NUM_ACTIONS - 1}")
            live = ~self._autoreset
            illegal = live & (self._mask[np.arange(self.num_envs), acts] == 0)
            if illegal.any():
                i = int(np.flatnonzero(illegal)[0])
                reason = K.REASON_NAMES[K.reason_of(i, int(acts[i]), self._st, self._cols, self._waste, self._cfg)]
                raise IllegalActionError(reason, f"env {i}: {REASONS[reason]}")
        if self._flags[0]:
            self._refill(np.flatnonzero(self._seed_pos >= SEED_BLOCK))
            self._flags[0] = False
        if self._flags[1]:
            self._grow_tables()
            self._flags[1] = False
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        resets = K.step_all(
            acts, self._st, self._cols, self._waste, self._stock, self._topped, self._srcbits, self._zh,
            self._rep_keys, self._rep_counts, self._rep_epochs, self._cfg, self._fcfg, self._obs, self._mask,
            self._rewards, self._terminated, self._truncated, self._reasons, self._cut, self._autoreset,
            self._did_reset, self._seeds, self._seed_pos, self._final_obs, self._final_st, self._final_cols,
            self._final_waste, self._final_stock, self._final_mask, self._final_reasons, self._final_cut,
            self._deck, self._rng, self._reset_rows, self._flags,
        )  # fmt: skip
        if resets < 0:  # nothing was changed
            bad = int(acts[-resets - 1])
            raise ValueError(f"action {bad!r} is outside 0..{K.NUM_ACTIONS - 1}")
        final_names = self._names
        if resets:
            rows = self._reset_rows[:resets]
            if same_step:
                final_names = self._names.copy()
            self._names[rows] = self._names_ahead[rows, self._seed_pos[rows] - 1]
        if same_step and resets:
            done = self._did_reset
            reasons = np.where(done, 0, self._reasons)
            info = self._info(self._st, self._mask, self._names, reasons, self._cut & ~done, None)
            final_info = self._info(
                self._final_st, self._final_mask, final_names, self._final_reasons, self._final_cut, done
            )
            final_obs = np.full(self.num_envs, None, dtype=object)
            done_rows = np.flatnonzero(done)
            if self._flat:
                for i in done_rows.tolist():
                    final_obs[i] = self._final_obs[i].copy()
            else:
                self._encode_dict(
                    done_rows, self._final_st, self._final_cols, self._final_waste, self._final_stock, self._final_dict
                )
                for i in done_rows.tolist():
                    final_obs[i] = {k: self._final_dict[k][i].copy() for k in self._dict_keys}
            info["final_obs"] = final_obs
            info["_final_obs"] = done.copy()
            info["final_info"] = final_info
            info["_final_info"] = done.copy()
        else:
            info = self._info(self._st, self._mask, self._names, self._reasons, self._cut, None)
        return (
            self._observation(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """Legal actions of every env, an ``(N, 210)`` bool array (what MaskablePPO reads)."""
        return self._mask.astype(np.bool_)

    def deal_codes(self) -> list[str]:
        """The deal code (or deal string) of each env's current episode."""
        return [str(name) for name in self._names]
