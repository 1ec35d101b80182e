"""What the batch environments share: options, seeding, deal codes, infos, autoreset, the step.

:class:`BatchEnv` is the Python side of a Gymnasium ``VectorEnv`` whose ``num_envs`` games live
in arrays and are stepped by one numba call; a game's subclass (``TriPeaksVectorEnv``,
``FortyThievesVectorEnv``) makes its state (a ``NamedTuple`` of arrays, its ``batch_kernels``'
``...BatchState``), its deals, observations and infos, and fills in the hooks below.  The
keywords every batch env takes are named once (:class:`BatchKeywords`), and checked and held
once, in :class:`BatchOptions`; the step's
shared arrays are a :class:`~solitaire_env.common.batch_driver.BatchIO`, and the step itself is
the numba driver of :mod:`solitaire_env.common.batch_driver`, the same for every game.

Code outside the batch env (training code: :mod:`agents.training.advice`, :mod:`agents.training.move_values`,
:mod:`agents.training.shaping`) reads a batch's games through its ``view()``: a ``NamedTuple`` of
read-only numpy views of the state arrays, named in the game's words (one row per env); numba
functions take it as one argument and read its fields by name.  The kernels' private layout
(``_st`` and its ``F_*`` columns) stays inside the game's ``batch.py`` / ``batch_kernels.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solitaire_env.common import batch_driver as D
from solitaire_env.common.deals import BASE32, SEED_BITS, DealCode, DealCodeError, parse_deal_code
from solitaire_env.common.env import ILLEGAL_POLICIES, IllegalActionError, SolitaireEnv
from solitaire_env.common.observer import OBS_MODES

_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
_BASE32 = np.frombuffer(BASE32.encode(), dtype=np.uint8)
_SHIFTS = np.array([5 * (6 - k) for k in range(7)], dtype=np.int64)
#: The reset options: one deal for every env or one per env, as a code or a deal string.
_RESET_OPTIONS = ("deal_code", "deal_codes", "deal", "deals")


def code_names(seeds: np.ndarray, prefix: str) -> np.ndarray:
    """Deal codes ``<prefix><SEED7>`` (``prefix`` 6 characters, e.g. ``"TP1-C-"``) of an int64
    array of seeds, as an object array of str."""
    seeds = np.asarray(seeds, dtype=np.int64).ravel()
    text = np.empty((len(seeds), 13), dtype=np.uint8)
    text[:, :6] = np.frombuffer(prefix.encode(), dtype=np.uint8)
    text[:, 6:] = _BASE32[(seeds[:, None] >> _SHIFTS) & 31]
    return text.view("S13").ravel().astype("U13").astype(object)


def reason_tables(
    kernel_reasons: tuple[str, ...] | list[str], messages: dict[str, str]
) -> tuple[np.ndarray, np.ndarray]:
    """Object arrays from a kernel's reason code to its name and message (code 0, legal: ``None``)."""
    names = np.array([None, *kernel_reasons[1:]], dtype=object)
    texts = np.array([None, *(messages[r] for r in kernel_reasons[1:])], dtype=object)
    return names, texts


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written (the array itself stays writable)."""
    view = array.view()
    view.flags.writeable = False
    return view


def _draw_seeds(generator: np.random.Generator, count: int) -> np.ndarray:
    """The next ``count`` random deal seeds of ``generator``, as ``random_code`` draws them
    (the top 35 bits of one raw draw each), an int64 array."""
    raw = generator.bit_generator.random_raw(count)
    return (np.asarray(raw, dtype=np.uint64) >> np.uint64(64 - SEED_BITS)).astype(np.int64)


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_set)`` for a sorted, non-empty ``sorted_set``, by binary search
    (no sort of the set on every call)."""
    at = np.searchsorted(sorted_set, values)
    return sorted_set[np.minimum(at, len(sorted_set) - 1)] == values


@dataclass(frozen=True)
class BatchOptions:
    """The keywords that every batch env takes, checked (:meth:`check`); the game's own
    keywords (rules, scoring...) are its env's.

    ``illegal_penalty`` is the reward's default when none was given, ``max_episode_steps`` a
    very large number for no limit, and ``render_mode`` (which must be ``None``) is not kept.
    """

    num_envs: int
    reward: str
    win_bonus: float
    obs_mode: str
    illegal_action: str
    illegal_penalty: float
    max_episode_steps: int
    autoreset_mode: AutoresetMode
    copy: bool
    #: The deal codes the random deals skip, as given (the game's env parses them).
    exclude_codes: Iterable[Any] | None

    @classmethod
    def check(cls, num_envs: int, keywords: Mapping[str, Any], *, owner: str, max_episode_steps: int) -> BatchOptions:
        """The options from ``num_envs`` and the shared ``keywords`` a batch env was given (the
        rest at :data:`BATCH_DEFAULTS`, and ``max_episode_steps`` at the game's), or a
        ``TypeError`` for a keyword no batch env takes (``owner`` names the env's class) and a
        ``ValueError`` that names the first bad value."""
        for name in keywords:
            if name not in BATCH_DEFAULTS:
                raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
        kw: dict[str, Any] = {**BATCH_DEFAULTS, "max_episode_steps": max_episode_steps, **keywords}
        reward, obs_mode, illegal_action = kw["reward"], kw["obs_mode"], kw["illegal_action"]
        autoreset_mode, steps, illegal_penalty = kw["autoreset_mode"], kw["max_episode_steps"], kw["illegal_penalty"]
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        if kw["render_mode"] is not None:
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
        if autoreset_mode not in _AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be 'next_step' or 'same_step', got {autoreset_mode!r}")
        if steps is None:
            steps = 1 << 62
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"max_episode_steps must be a whole number >= 1 or None, got {steps!r}")
        if illegal_penalty is None:
            illegal_penalty = SolitaireEnv.DEFAULT_PENALTY[reward]
        return cls(
            num_envs=int(num_envs), reward=reward, win_bonus=float(kw["win_bonus"]), obs_mode=obs_mode,
            illegal_action=illegal_action, illegal_penalty=float(illegal_penalty), max_episode_steps=steps,
            autoreset_mode=_AUTORESET_MODES[autoreset_mode], copy=bool(kw["copy"]), exclude_codes=kw["exclude_codes"],
        )  # fmt: skip

    @property
    def same_step(self) -> bool:
        """Whether an episode that ends is reset in the same step (``autoreset_mode="same_step"``)."""
        return self.autoreset_mode == AutoresetMode.SAME_STEP


class BatchKeywords(TypedDict, total=False):
    """The keywords that every batch env takes besides ``num_envs`` and its game's own (rules,
    scoring): a batch env constructor's ``**options``.  Their defaults are
    :data:`BATCH_DEFAULTS`; ``max_episode_steps`` defaults to the game's registered limit."""

    reward: str
    win_bonus: float
    obs_mode: str
    illegal_action: str
    illegal_penalty: float | None
    max_episode_steps: int | None
    autoreset_mode: str | AutoresetMode
    copy: bool
    render_mode: str | None
    exclude_codes: Iterable[str] | None


#: The defaults of :class:`BatchKeywords` (``max_episode_steps``: the game's own).
BATCH_DEFAULTS: dict[str, Any] = {
    "reward": "score", "win_bonus": 10.0, "obs_mode": "flat", "illegal_action": "penalize", "illegal_penalty": None,
    "max_episode_steps": None, "autoreset_mode": "next_step", "copy": True, "render_mode": None, "exclude_codes": None,
}  # fmt: skip


class BatchEnv(VectorEnv):
    """The shared part of the batch envs (see the subclasses for the documentation)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    #: Random deal seeds drawn ahead per env (the kernel takes one per reset).
    _seed_block: ClassVar[int]
    #: Reason code -> name / message arrays (see :func:`reason_tables`).
    _reason_names: ClassVar[np.ndarray]
    _reason_messages: ClassVar[np.ndarray]

    def __init__(self, options: BatchOptions) -> None:
        """Keep the checked options every batch env takes."""
        self.options = options
        self.num_envs = options.num_envs
        self.obs_mode = options.obs_mode
        self._obs_index = OBS_MODES.index(options.obs_mode)
        self.reward_mode = options.reward
        self.illegal_action = options.illegal_action
        self.illegal_penalty = options.illegal_penalty
        self.win_bonus = options.win_bonus
        self.max_episode_steps = options.max_episode_steps
        self.autoreset_mode = options.autoreset_mode
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.copy = options.copy
        self.render_mode = None
        self._flat = options.obs_mode in ("flat", "oracle")
        self._oracle = options.obs_mode.startswith("oracle")
        n = self.num_envs
        self._names_ahead = np.full((n, self._seed_block), None, dtype=object)
        self._names = np.full(n, None, dtype=object)
        self._generators: list[np.random.Generator | None] = [None] * n
        #: The seeds of the excluded deal codes, sorted and unique (``None``: nothing excluded).
        self._excluded: np.ndarray | None = None
        self._started = False

    def _exclude(self, game: str, rule: str, what: str) -> None:
        """Keep the seeds of the options' ``exclude_codes`` (deal codes of ``game`` with rule letter
        ``rule``, the codes this env deals) out of the random deals; ``what`` names the env's rules
        in errors."""
        codes = self.options.exclude_codes
        if codes is None:
            return
        if isinstance(codes, str | DealCode) or not isinstance(codes, Iterable):
            raise ValueError(f"exclude_codes must be an iterable of deal codes (or None), got {codes!r}")
        seeds = []
        for code in codes:
            parsed = parse_deal_code(str(code) if isinstance(code, DealCode) else code)
            if parsed.game != game:
                raise DealCodeError(
                    f"exclude_codes: deal code {parsed} is for game {parsed.game}, this env plays {game}"
                )
            if parsed.rule != rule:
                raise DealCodeError(
                    f"exclude_codes: deal code {parsed} has rule letter {parsed.rule}, but this env ({what}) deals "
                    f"{game}1-{rule}-... codes, so it could never deal it; pass the codes of this env's rules"
                )
            seeds.append(parsed.seed)
        if seeds:
            self._excluded = np.unique(np.array(seeds, dtype=np.int64))

    @property
    def num_excluded(self) -> int:
        """How many distinct deal codes the random deals skip (``exclude_codes``)."""
        return 0 if self._excluded is None else len(self._excluded)

    def _make_spaces(self, single_observation_space: spaces.Space[Any], num_actions: int, flat_width: int) -> None:
        """The spaces, and the step's shared arrays (:class:`~solitaire_env.common.batch_driver.BatchIO`)."""
        n = self.num_envs
        self.single_observation_space = single_observation_space
        self.observation_space = batch_space(single_observation_space, n)
        self.single_action_space = spaces.Discrete(num_actions)
        self.action_space = batch_space(self.single_action_space, n)
        io = self._io = D.new_io(
            n, self._seed_block, flat_width if self._flat else 1, num_actions, self.options.same_step
        )
        io.cfg[D.C_REWARD] = SolitaireEnv.REWARDS.index(self.reward_mode)
        io.cfg[D.C_ILLEGAL] = ILLEGAL_POLICIES.index(self.illegal_action)
        io.cfg[D.C_MAX_STEPS] = self.max_episode_steps
        io.cfg[D.C_AUTORESET] = D.AUTORESET_SAME_STEP if self.options.same_step else D.AUTORESET_NEXT_STEP
        io.cfg[D.C_OBS] = self._obs_index
        io.fcfg[D.FC_PENALTY] = self.illegal_penalty
        io.fcfg[D.FC_WIN_BONUS] = self.win_bonus
        b, k = io.bools, io.ints
        self._rewards, self._terminated, self._truncated = io.rewards, b[D.B_TERMINATED], b[D.B_TRUNCATED]
        self._cut, self._autoreset, self._did_reset = b[D.B_CUT], b[D.B_AUTORESET], b[D.B_DID_RESET]
        self._final_cut, self._reasons, self._final_reasons = b[D.B_FINAL_CUT], k[D.I_REASONS], k[D.I_FINAL_REASONS]
        self._seeds, self._seed_pos, self._flags = io.seeds, k[D.I_SEED_POS], io.flags
        self._obs, self._mask, self._final_obs, self._final_mask = io.obs, io.mask, io.final_obs, io.final_mask

    def _set_state(self, state: Any, final: Any = None) -> None:
        """Play on the game's numba state ``state`` (new, or with arrays replaced by larger ones of
        the same types); ``final``, given with the first state, is where a same_step step saves
        the games it resets (the game's final state type, ``_final_rows()`` rows).  The first state
        also binds the driver's step to these types
        (:func:`~solitaire_env.common.batch_driver.bind_step`): they never change after that."""
        if final is not None:
            self._final_state = final
            self._step_all = D.bind_step(state, final, self._io)
        self._state = state

    def _final_rows(self) -> int:
        """How many rows the final state has: one per env in same_step mode, else one (unused)."""
        return self._final_obs.shape[0]

    # ------------------------------------------------------------------ hooks

    def _code_names(self, seeds: np.ndarray) -> np.ndarray:
        """The deal codes of an array of random deal seeds (see :func:`code_names`)."""
        raise NotImplementedError

    def _check_options(self, codes: list[Any] | None, deals: list[Any] | None) -> tuple[Any, Any]:
        """Check every injected deal code / deal (one per env, or ``None``) before any state is
        touched; return them as ``_start_code`` / ``_start_deal`` take them."""
        raise NotImplementedError

    def _start_code(self, i: int, code: Any) -> str:
        """Deal the checked deal code ``code`` to env ``i``; return its name."""
        raise NotImplementedError

    def _start_deal(self, i: int, deal: Any) -> str:
        """Deal the checked deal ``deal`` to env ``i``; return its name."""
        raise NotImplementedError

    def _deal_seed(self, i: int, seed: int) -> None:
        """Deal the random deal of ``seed`` to env ``i``."""
        raise NotImplementedError

    def _reset_info(self) -> dict[str, Any]:
        """The info of a reset."""
        raise NotImplementedError

    def _illegal(self, i: int, action: int) -> tuple[str, str]:
        """Why ``action`` is illegal in env ``i``: the reason's name and message."""
        raise NotImplementedError

    def _before_step(self) -> None:
        """Housekeeping of the game's flag (``io.flags[FLAG_GAME]``) before a step."""

    def _step_info(self) -> dict[str, Any]:
        """The info of a step (no same_step autoreset in it)."""
        raise NotImplementedError

    def _same_step_infos(self, done: np.ndarray, final_names: np.ndarray) -> tuple[dict[str, Any], dict[str, Any]]:
        """The info of a same_step step that reset the envs ``done``, and their final info."""
        raise NotImplementedError

    def _observation(self) -> Any:
        """The batch observation (a copy unless ``copy=False``)."""
        raise NotImplementedError

    def _encode_final(self, rows: np.ndarray) -> None:
        """Encode the final dict observations of the envs ``rows`` (dict observation modes)."""
        raise NotImplementedError

    def _final_dict_obs(self, i: int) -> dict[str, Any]:
        """Env ``i``'s final dict observation, after :meth:`_encode_final`."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers

    def _refill(self, rows: Any) -> None:
        """Draw the next block of random deal seeds (and their codes) of the envs in ``rows``.

        With ``exclude_codes``, the excluded seeds are dropped from the block and the rest moves
        up, the gap filled by further draws from the same generator (until none is excluded):
        the env deals the single env's stream of codes minus the excluded ones, in order."""
        block = self._seed_block
        excluded = self._excluded
        for i in rows:
            generator = self._generators[i]
            if generator is None:  # never seeded: from entropy, as a single env's first reset()
                generator = self._generators[i] = seeding.np_random(None)[0]
            seeds = _draw_seeds(generator, block)
            if excluded is not None:
                seeds = seeds[~_member(seeds, excluded)]
                while len(seeds) < block:
                    more = _draw_seeds(generator, block - len(seeds))
                    seeds = np.concatenate([seeds, more[~_member(more, excluded)]])
            self._seeds[i] = seeds
            self._names_ahead[i] = self._code_names(self._seeds[i])
            self._seed_pos[i] = 0

    def _per_env(self, options: dict[str, Any], many: str, one: str) -> list[Any] | None:
        if many in options:
            values = list(options[many])
            if len(values) != self.num_envs:
                raise ValueError(f"options[{many!r}] must have one entry per env ({self.num_envs}), got {len(values)}")
            return values
        if one in options:
            return [options[one]] * self.num_envs
        return None

    def _deal_info(
        self,
        info: dict[str, Any],
        present: np.ndarray,
        mask: np.ndarray,
        names: np.ndarray,
        reasons: np.ndarray,
        rows: np.ndarray | None,
        illegal: bool,
    ) -> None:
        """Add the deal codes, action masks and illegal-action reasons of every env (``rows``
        None) or of the envs selected by the bool array ``rows`` to a vector ``info``;
        ``present``: the ``_key`` mask of every key; ``illegal``: whether any ``reasons`` may be
        non-zero."""
        everyone = rows is None
        if rows is None:
            info["deal_code"] = names.copy()
            info["action_mask"] = mask.copy()
        else:
            codes = np.full(self.num_envs, None, dtype=object)
            codes[rows] = names[rows]
            info["deal_code"] = codes
            info["action_mask"] = np.where(rows[:, None], mask, 0).astype(np.int8)
        info["_deal_code"] = present
        info["_action_mask"] = present
        if illegal:
            flagged = reasons != 0 if everyone else (reasons != 0) & rows
            if flagged.any():
                codes = np.where(flagged, reasons, 0)
                info["illegal_reason"] = self._reason_names[codes]
                info["_illegal_reason"] = flagged
                info["illegal_message"] = self._reason_messages[codes]
                info["_illegal_message"] = flagged.copy()

    def _final_observations(self, done: np.ndarray) -> np.ndarray:
        """The final observations of the envs ``done`` (an object array, ``None`` elsewhere)."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        done_rows = np.flatnonzero(done)
        if self._flat:
            for i in done_rows.tolist():
                final_obs[i] = self._final_obs[i].copy()
        else:
            self._encode_final(done_rows)
            for i in done_rows.tolist():
                final_obs[i] = self._final_dict_obs(i)
        return final_obs

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
        unknown = set(options) - set(_RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; want one of {sorted(_RESET_OPTIONS)}")
        if sum(k in options for k in _RESET_OPTIONS) > 1:
            raise ValueError("give one of options 'deal_code', 'deal_codes', 'deal', 'deals'")
        # validate every injected deal before touching any state
        codes, deals = self._check_options(
            self._per_env(options, "deal_codes", "deal_code"), self._per_env(options, "deals", "deal")
        )
        # env i's generator: seeded anew from its seed; without one, it goes on with its stream
        # (from entropy the first time), as a single env's reset does
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
            if codes is not None:
                self._names[i] = self._start_code(i, codes[i])
            elif deals is not None:
                self._names[i] = self._start_deal(i, deals[i])
            else:
                if self._seed_pos[i] >= self._seed_block:
                    self._refill([i])
                self._deal_seed(i, int(self._seeds[i, self._seed_pos[i]]))
                self._names[i] = self._names_ahead[i, self._seed_pos[i]]
                self._seed_pos[i] += 1
        D.start_all(self._state, self._io)
        self._io.ints[D.I_ELAPSED] = 0
        self._autoreset[:] = False
        self._reasons[:] = 0
        self._flags[:] = False
        self._terminated[:] = False
        self._truncated[:] = False
        self._started = True
        return self._observation(), self._reset_info()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        acts = np.asarray(actions)
        if acts.dtype != np.int64 or acts.shape != (n,):
            if acts.shape != (n,) or not (
                np.issubdtype(acts.dtype, np.integer)
                or (np.issubdtype(acts.dtype, np.number) and np.all(np.mod(acts, 1) == 0))
            ):
                raise ValueError(f"actions must be {n} whole numbers (shape ({n},)), got {actions!r}")
            acts = acts.astype(np.int64)
        flags = acts.flags
        if not (flags.c_contiguous and flags.aligned):  # what the bound step takes
            acts = np.require(acts, np.int64, ["C", "A"])
        num_actions = self._mask.shape[1]
        if self.illegal_action == "raise":
            outside = (acts < 0) | (acts >= num_actions)
            if outside.any():
                raise ValueError(f"action {int(acts[np.flatnonzero(outside)[0]])} is outside 0..{num_actions - 1}")
            live = ~self._autoreset
            illegal = live & (self._mask[np.arange(n), acts] == 0)
            if illegal.any():
                i = int(np.flatnonzero(illegal)[0])
                reason, message = self._illegal(i, int(acts[i]))
                raise IllegalActionError(reason, f"env {i}: {message}")
        if self._flags[D.FLAG_SEEDS_USED]:
            self._refill(np.flatnonzero(self._seed_pos >= self._seed_block))
            self._flags[D.FLAG_SEEDS_USED] = False
        self._flags[D.FLAG_ILLEGAL] = False
        self._before_step()
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        resets = self._step_all(self._state, self._final_state, self._io, acts)
        if resets < 0:  # nothing was changed
            bad = int(acts[-resets - 1])
            raise ValueError(f"action {bad!r} is outside 0..{num_actions - 1}")
        final_names = self._names
        if resets:
            rows = self._io.ints[D.I_RESET_ROWS, :resets]
            if same_step:
                final_names = self._names.copy()
            self._names[rows] = self._names_ahead[rows, self._seed_pos[rows] - 1]
        if same_step and resets:
            done = self._did_reset
            info, final_info = self._same_step_infos(done, final_names)
            info["final_obs"] = self._final_observations(done)
            info["_final_obs"] = done.copy()
            info["final_info"] = final_info
            info["_final_info"] = done.copy()
        else:
            info = self._step_info()
        return (
            self._observation(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """Legal actions of every env, an ``(N, num_actions)`` bool array (what MaskablePPO reads)."""
        return self._mask.astype(np.bool_)

    def deal_codes(self) -> list[str]:
        """The deal code (or deal string) of each env's current episode."""
        return [str(name) for name in self._names]
