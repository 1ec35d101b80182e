"""The batch TriPeaks environment: N games stepped by one numba call per step.

``gym.make_vec("solitaire_env/TriPeaks-v0", num_envs=1024)`` makes a
:class:`TriPeaksVectorEnv` (the registered ``vector_entry_point``); ``vectorization_mode="sync"``
still gives Gymnasium's ``SyncVectorEnv`` over single envs.  Both return the same
observations, rewards, terminations, truncations and infos for the same seeds and actions
(``tests/test_vector_tripeaks.py`` checks this on thousands of deals for every rule option).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solitaire_env.deals import BASE32, SEED_BITS, DealCodeError, DealStringError, TriPeaksDeal, parse_deal_code
from solitaire_env.env import ILLEGAL_POLICIES, SolitaireEnv
from solitaire_env.tripeaks.game import REASONS
from solitaire_env.tripeaks.observe import OBS_MODES, TriPeaksObserver
from solitaire_env.tripeaks.rules import TriPeaksRules
from solitaire_env.tripeaks.scoring import PointScoring, Scoring, get_scoring
from solitaire_env.vector import tripeaks_kernels as K

#: Random deal seeds drawn ahead per env (the kernel takes one per reset).
SEED_BLOCK = 256
_AUTORESET = {"next_step": K.AUTORESET_NEXT_STEP, "same_step": K.AUTORESET_SAME_STEP}
_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
_INFO_FIELDS = (
    ("score", K.F_SCORE),
    ("moves", K.F_MOVES),
    ("cleared", K.F_CLEARED),
    ("chain", K.F_CHAIN),
    ("longest_chain", K.F_LONGEST),
)
_INFO_KEYS = tuple(key for key, _ in _INFO_FIELDS)
_INFO_KEY_PAIRS = tuple((key, f"_{key}") for key in _INFO_KEYS)
_REASON_NAMES = np.array([None, *K.REASON_NAMES[1:]], dtype=object)
_REASON_MESSAGES = np.array([None, *(REASONS[r] for r in K.REASON_NAMES[1:])], dtype=object)
_INFO_COLUMNS = np.array([field for _, field in _INFO_FIELDS])
_BASE32 = np.frombuffer(BASE32.encode(), dtype=np.uint8)
_SHIFTS = np.array([5 * (6 - k) for k in range(7)], dtype=np.int64)


def code_names(seeds: np.ndarray, letter: str) -> np.ndarray:
    """Deal codes ``TP1-<letter>-<SEED7>`` of an int64 array of seeds, as an object array of str."""
    seeds = np.asarray(seeds, dtype=np.int64).ravel()
    text = np.empty((len(seeds), 13), dtype=np.uint8)
    text[:, :6] = np.frombuffer(f"TP1-{letter}-".encode(), dtype=np.uint8)
    text[:, 6:] = _BASE32[(seeds[:, None] >> _SHIFTS) & 31]
    return text.view("S13").ravel().astype("U13").astype(object)


def _scoring_config(scoring: Scoring) -> list[int]:
    if not isinstance(scoring, PointScoring):
        raise ValueError(
            f"the batch env plays the scoring presets and PointScoring objects, not {type(scoring).__name__}; "
            "use the single env (gym.make) or express the scoring as a PointScoring"
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


class TriPeaksVectorEnv(VectorEnv):
    """``num_envs`` TriPeaks games in arrays, stepped together by numba.

    The same game, observations, rewards and infos as ``num_envs`` single envs made with
    ``gym.make("solitaire_env/TriPeaks-v0", ...)`` (:class:`~solitaire_env.tripeaks.env.TriPeaksEnv`
    documents them), with Gymnasium's vector conventions: actions an ``(N,)`` int array,
    rewards float64, infos as arrays with ``_key`` masks.

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
    :class:`~solitaire_env.tripeaks.scoring.PointScoring` (numba cannot call them), and
    rendering (replay a deal code in the single env to draw it).

    ## Deals
    Every episode's deal code is in ``info["deal_code"]``; a random episode of env ``i`` draws
    its code from a generator seeded exactly as ``SyncVectorEnv`` seeds its ``i``-th single env
    (``reset(seed=s)`` gives env ``i`` the seed ``s + i``), so the batch env deals the same codes.
    ``reset(options=...)`` takes ``{"deal_code": code}`` or ``{"deal": deal string}`` (every env
    the same, as ``SyncVectorEnv`` passes options) or ``{"deal_codes": [N codes]}`` /
    ``{"deals": [N deal strings]}`` (one per env).

    ``action_masks()`` returns the ``(N, 29)`` bool array of legal actions.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        *,
        wrap: bool = True,
        draw: str = "anytime",
        faces: str = "standard",
        waste_start: str = "card",
        jokers: int = 0,
        scoring: str | Scoring = "app",
        reward: str = "score",
        win_bonus: float = 10.0,
        obs_mode: str = "flat",
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        max_episode_steps: int | None = 200,
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
        if isinstance(autoreset_mode, AutoresetMode):
            autoreset_mode = {v: k for k, v in _AUTORESET_MODES.items()}.get(autoreset_mode, str(autoreset_mode))
        if autoreset_mode not in _AUTORESET:
            raise ValueError(f"autoreset_mode must be 'next_step' or 'same_step', got {autoreset_mode!r}")
        if max_episode_steps is None:
            max_episode_steps = 1 << 62
        if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int) or max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be a whole number >= 1 or None, got {max_episode_steps!r}")
        self.rules = TriPeaksRules(wrap=wrap, draw=draw, faces=faces, waste_start=waste_start, jokers=jokers)  # type: ignore[arg-type]
        self.scoring = get_scoring(scoring)
        n = self.num_envs = int(num_envs)
        self.obs_mode = obs_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        if illegal_penalty is None:
            illegal_penalty = SolitaireEnv.DEFAULT_PENALTY[reward]
        self.illegal_penalty = float(illegal_penalty)
        self.win_bonus = float(win_bonus)
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = _AUTORESET_MODES[autoreset_mode]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.copy = bool(copy)
        self.render_mode = None

        cfg = np.zeros(K.NUM_CFG, dtype=np.int64)
        cfg[K.C_WHEN_STUCK] = self.rules.draw == "when_stuck"
        cfg[K.C_OPEN] = self.rules.faces == "open"
        cfg[K.C_WASTE_EMPTY] = self.rules.waste_start == "empty"
        cfg[K.C_JOKERS] = self.rules.jokers
        cfg[K.C_START : K.C_CLEAR + 1] = _scoring_config(self.scoring)
        cfg[K.C_REWARD] = SolitaireEnv.REWARDS.index(reward)
        cfg[K.C_ILLEGAL] = ILLEGAL_POLICIES.index(illegal_action)
        cfg[K.C_MAX_STEPS] = max_episode_steps
        cfg[K.C_AUTORESET] = _AUTORESET[autoreset_mode]
        cfg[K.C_OBS] = OBS_MODES.index(obs_mode)
        cfg[K.C_WRAP] = self.rules.wrap
        self._cfg = cfg
        self._fcfg = np.array([self.illegal_penalty, self.win_bonus], dtype=np.float64)

        observer = TriPeaksObserver(obs_mode)
        self.single_observation_space = observer.space
        self.observation_space = batch_space(observer.space, n)
        self.single_action_space = spaces.Discrete(K.NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, n)
        self._flat = obs_mode in ("flat", "oracle")
        self._oracle = obs_mode.startswith("oracle")

        self._st = np.zeros((n, K.NUM_FIELDS), dtype=np.int64)
        self._tab = np.zeros((n, K.NUM_SLOTS), dtype=np.int8)
        self._stock = np.full((n, K.MAX_STOCK), -1, dtype=np.int8)
        self._accept = np.zeros((n, 15), dtype=np.int32)
        width = K.ORACLE_SIZE if self._oracle else K.FLAT_SIZE
        self._obs = np.zeros((n, width if self._flat else 1), dtype=np.float32)
        self._mask = np.zeros((n, K.NUM_ACTIONS), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._reasons = np.zeros(n, dtype=np.int64)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._did_reset = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros_like(self._obs)
        self._final_st = np.zeros_like(self._st)
        self._final_tab = np.zeros_like(self._tab)
        self._final_stock = np.zeros_like(self._stock)
        self._final_mask = np.zeros_like(self._mask)
        self._final_reasons = np.zeros_like(self._reasons)
        self._rest = np.zeros(K.MAX_STOCK + 1, dtype=np.int64)
        self._counters = np.zeros((len(_INFO_KEYS), n), dtype=np.int64)  # the info's counters, kept by the kernels
        self._flags = np.zeros(
            2, dtype=np.bool_
        )  # set by the kernel: [0] a seed block is used up, [1] an illegal action
        self._seeds = np.zeros((n, SEED_BLOCK), dtype=np.int64)
        self._seed_pos = np.full(n, SEED_BLOCK, dtype=np.int64)
        self._names_ahead = np.full((n, SEED_BLOCK), None, dtype=object)
        self._names = np.full(n, None, dtype=object)
        self._generators: list[np.random.Generator | None] = [None] * n
        self._dict_arrays: dict[str, np.ndarray] = {}
        if not self._flat:
            self._dict_arrays = self._new_dict_arrays()
            self._final_dict = self._new_dict_arrays()
        self._started = False

    # ------------------------------------------------------------------ helpers

    def _new_dict_arrays(self) -> dict[str, np.ndarray]:
        n = self.num_envs
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

    def _encode_dict(
        self, rows: np.ndarray, st: np.ndarray, tab: np.ndarray, stock: np.ndarray, out: dict[str, np.ndarray]
    ) -> None:
        K.encode_dict(
            rows, st, tab, stock, out["tableau"], out["waste"], out["unseen"], out["counts"],
            out["hidden_tableau"], out["stock"], self._oracle,
        )  # fmt: skip

    def _dict_obs(self, arrays: dict[str, np.ndarray], rows: Any = slice(None)) -> dict[str, np.ndarray]:
        keys = ("tableau", "waste", "unseen", "counts", "hidden_tableau", "stock") if self._oracle else (
            "tableau", "waste", "unseen", "counts")  # fmt: skip
        return {k: arrays[k][rows].copy() for k in keys}

    def _observation(self) -> Any:
        if self._flat:
            return self._obs.copy() if self.copy else self._obs
        self._encode_dict(np.arange(self.num_envs), self._st, self._tab, self._stock, self._dict_arrays)
        if self.copy:
            return self._dict_obs(self._dict_arrays)
        return {k: v for k, v in self._dict_arrays.items() if self._oracle or k not in ("hidden_tableau", "stock")}

    def _refill(self, rows: Any) -> None:
        """Draw the next block of random deal seeds (and their codes) of the envs in ``rows``."""
        letter = self.rules.rule_letter
        for i in rows:
            generator = self._generators[i]
            assert generator is not None
            raw = generator.bit_generator.random_raw(SEED_BLOCK)
            self._seeds[i] = (np.asarray(raw, dtype=np.uint64) >> np.uint64(64 - SEED_BITS)).astype(np.int64)
            self._names_ahead[i] = code_names(self._seeds[i], letter)
            self._seed_pos[i] = 0

    def _info(
        self, counters: np.ndarray, mask: np.ndarray, names: np.ndarray, reasons: np.ndarray, rows: Any, illegal: bool
    ) -> dict[str, Any]:
        """The vector info (arrays + ``_key`` masks) of every env (``rows`` None) or of the envs
        selected by the bool array ``rows``; ``counters`` as :func:`~tripeaks_kernels.write_counters`
        lays them out; ``illegal``: whether any ``reasons`` may be non-zero."""
        n = self.num_envs
        everyone = rows is None
        # one presence array shared by every key (SyncVectorEnv makes one per key)
        present = np.ones(n, dtype=np.bool_) if everyone else rows.copy()
        counters = counters.copy()
        if not everyone:
            counters[:, ~rows] = 0
        info: dict[str, Any] = {}
        for k, (key, present_key) in enumerate(_INFO_KEY_PAIRS):
            info[key] = counters[k]
            info[present_key] = present
        if everyone:
            info["deal_code"] = names.copy()
            info["action_mask"] = mask.copy()
        else:
            codes = np.full(n, None, dtype=object)
            codes[rows] = names[rows]
            info["deal_code"] = codes
            info["action_mask"] = np.where(rows[:, None], mask, 0).astype(np.int8)
        info["_deal_code"] = present
        info["_action_mask"] = present
        if illegal:
            flagged = reasons != 0 if everyone else (reasons != 0) & rows
            if flagged.any():
                codes = np.where(flagged, reasons, 0)
                info["illegal_reason"] = _REASON_NAMES[codes]
                info["_illegal_reason"] = flagged
                info["illegal_message"] = _REASON_MESSAGES[codes]
                info["_illegal_message"] = flagged.copy()
        return info

    # ------------------------------------------------------------------ deals

    def _start_code(self, i: int, code: Any) -> str:
        parsed = parse_deal_code(code)
        if parsed.game != "TP":
            raise DealCodeError(f"deal code {parsed} is for game {parsed.game}, this env plays TP")
        K.reset_from_seed(
            i, parsed.seed, int(parsed.wrap), self._st, self._tab, self._stock, self._accept, self._cfg, self._rest
        )
        return str(parsed)

    def _start_deal(self, i: int, deal: Any) -> str:
        if isinstance(deal, str):
            deal = TriPeaksDeal.parse(deal)
        elif not isinstance(deal, TriPeaksDeal):
            raise DealStringError(f"a deal must be a TriPeaks deal string or TriPeaksDeal, got {deal!r}")
        if deal.jokers != self.rules.jokers:
            raise DealStringError(f"the deal has {deal.jokers} joker(s) but the rules ask for {self.rules.jokers}")
        self._tab[i] = deal.tableau
        rest = np.array([deal.waste, *deal.stock], dtype=np.int64)
        K.start_game(
            i, self._st, self._tab, self._stock, self._accept, self._cfg, rest, len(rest), int(self.rules.wrap)
        )
        return str(deal)

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
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [None if seed is None else seed + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"a list of seeds must have num_envs={n} entries, got {len(seeds)}")
        if isinstance(seed, int):
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        options = dict(options or {})
        allowed = {"deal_code", "deal", "deal_codes", "deals"}
        unknown = set(options) - allowed
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; want one of {sorted(allowed)}")
        if sum(k in options for k in ("deal_code", "deal_codes", "deal", "deals")) > 1:
            raise ValueError("give one of options 'deal_code', 'deal_codes', 'deal', 'deals'")
        codes = self._per_env(options, "deal_codes", "deal_code")
        deals = self._per_env(options, "deals", "deal")
        # validate every injected deal before touching any state
        if codes is not None:
            for code in codes:
                parsed = parse_deal_code(code)
                if parsed.game != "TP":
                    raise DealCodeError(f"deal code {parsed} is for game {parsed.game}, this env plays TP")
        if deals is not None:
            deals = [TriPeaksDeal.parse(d) if isinstance(d, str) else d for d in deals]
            for d in deals:
                if not isinstance(d, TriPeaksDeal):
                    raise DealStringError(f"a deal must be a TriPeaks deal string or TriPeaksDeal, got {d!r}")
                if d.jokers != self.rules.jokers:
                    raise DealStringError(f"the deal has {d.jokers} joker(s) but the rules ask for {self.rules.jokers}")

        # env i's generator is seeded anew from its seed; without one it goes on with its stream
        # (from entropy the first time), as a single env's reset does
        for i, s in enumerate(seeds):
            if s is not None or self._generators[i] is None:
                self._generators[i] = seeding.np_random(None if s is None else int(s))[0]
                self._refill([i])
        for i in range(n):
            if codes is not None:
                self._names[i] = self._start_code(i, codes[i])
            elif deals is not None:
                self._names[i] = self._start_deal(i, deals[i])
            else:
                if self._seed_pos[i] >= SEED_BLOCK:
                    self._refill([i])
                K.reset_from_seed(
                    i,
                    int(self._seeds[i, self._seed_pos[i]]),
                    int(self.rules.wrap),
                    self._st,
                    self._tab,
                    self._stock,
                    self._accept,
                    self._cfg,
                    self._rest,
                )
                self._names[i] = self._names_ahead[i, self._seed_pos[i]]
                self._seed_pos[i] += 1
        K.start_all(
            self._st, self._tab, self._stock, self._accept, self._cfg, self._obs, self._mask, self._counters,
            self._flat, self._oracle,
        )  # fmt: skip
        self._autoreset[:] = False
        self._reasons[:] = 0
        self._flags[:] = False
        self._terminated[:] = False
        self._truncated[:] = False
        self._started = True
        return self._observation(), self._info(self._counters, self._mask, self._names, self._reasons, None, False)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.dtype != np.int64 or acts.shape != (self.num_envs,):
            if acts.shape != (self.num_envs,) or not (
                np.issubdtype(acts.dtype, np.integer) or np.all(np.mod(acts, 1) == 0)
            ):
                raise ValueError(
                    f"actions must be {self.num_envs} whole numbers (shape ({self.num_envs},)), got {actions!r}"
                )
            acts = acts.astype(np.int64)
        if self.illegal_action == "raise":
            live = ~self._autoreset
            illegal = live & (self._mask[np.arange(self.num_envs), acts] == 0)
            if illegal.any():
                from solitaire_env.env import IllegalActionError

                i = int(np.flatnonzero(illegal)[0])
                reason = K.REASON_NAMES[K.reason_of(i, int(acts[i]), self._st, self._accept, self._cfg)]
                raise IllegalActionError(reason, f"env {i}: {REASONS[reason]}")
        if self._flags[0]:
            self._refill(np.flatnonzero(self._seed_pos >= SEED_BLOCK))
            self._flags[0] = False
        self._flags[1] = False
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        resets = K.step_all(
            acts, self._st, self._tab, self._stock, self._accept, self._cfg, self._fcfg, self._obs, self._mask,
            self._rewards, self._terminated, self._truncated, self._reasons, self._autoreset, self._did_reset,
            self._seeds, self._seed_pos, self._final_obs, self._final_st, self._final_tab, self._final_stock,
            self._final_mask, self._final_reasons, self._counters, self._flags,
        )  # fmt: skip
        if resets < 0:  # nothing was changed
            bad = int(acts[-resets - 1])
            raise ValueError(f"action {bad!r} is outside 0..{K.NUM_ACTIONS - 1}")
        final_names = self._names
        if resets:
            rows = np.flatnonzero(self._did_reset)
            if same_step:
                final_names = self._names.copy()
            self._names[rows] = self._names_ahead[rows, self._seed_pos[rows] - 1]
        if same_step and resets:
            done = self._did_reset
            reasons = np.where(done, 0, self._reasons)
            illegal = bool(self._flags[1])
            info = self._info(self._counters, self._mask, self._names, reasons, None, illegal)
            final_counters = self._final_st[:, _INFO_COLUMNS].T
            final_info = self._info(final_counters, self._final_mask, final_names, self._final_reasons, done, illegal)
            final_obs = np.full(self.num_envs, None, dtype=object)
            done_rows = np.flatnonzero(done)
            if self._flat:
                for i in done_rows.tolist():
                    final_obs[i] = self._final_obs[i].copy()
            else:
                self._encode_dict(done_rows, self._final_st, self._final_tab, self._final_stock, self._final_dict)
                for i in done_rows.tolist():
                    one = self._dict_obs(self._final_dict, slice(i, i + 1))
                    final_obs[i] = {k: (int(v[0]) if k == "waste" else v[0]) for k, v in one.items()}
            info["final_obs"] = final_obs
            info["_final_obs"] = done.copy()
            info["final_info"] = final_info
            info["_final_info"] = done.copy()
        else:
            info = self._info(self._counters, self._mask, self._names, self._reasons, None, bool(self._flags[1]))
        return (
            self._observation(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """Legal actions of every env, an ``(N, 29)`` bool array (what MaskablePPO reads)."""
        return self._mask.astype(np.bool_)

    def deal_codes(self) -> list[str]:
        """The deal code (or deal string) of each env's current episode."""
        return [str(name) for name in self._names]
