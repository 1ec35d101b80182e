"""One Gymnasium environment class over any game of the package.

:class:`SolitaireEnv` holds everything the games share: deal codes and deal strings in
``reset``, the action mask, the reward functions, the illegal-action policy, the info
dict and rendering.  A game's env (``tripeaks/env.py``) only says how to deal, how to
build its rules-core game and which observer to use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from solitaire_env.common.deals import DealCode, DealCodeError, DealStringError, parse_deal_code


class Game(Protocol):
    """What the env needs of a rules-core game."""

    score: int
    moves: int

    def legal_mask(self) -> int:
        """Bit mask of the legal actions; 0 exactly when the game is over."""
        ...

    def try_play(self, action: int) -> str | None: ...
    def action_name(self, action: int) -> str: ...
    def counters(self) -> dict[str, int]: ...
    def public_view(self) -> dict[str, Any]: ...
    @property
    def won(self) -> bool: ...
    @property
    def over(self) -> bool: ...
    @property
    def progress(self) -> int: ...


class DealType(Protocol):
    """A game's deal class: :func:`as_deal` reads a deal string with its ``parse``."""

    @classmethod
    def parse(cls, text: str) -> Any: ...


DealT = TypeVar("DealT", bound=DealType)


def parse_game_code(code: Any, game: str) -> DealCode:
    """The deal code ``code`` parsed (:func:`~solitaire_env.common.deals.parse_deal_code`);
    :class:`~solitaire_env.common.deals.DealCodeError` if it is not a code of ``game`` (its letters)."""
    parsed = parse_deal_code(code)
    if parsed.game != game:
        raise DealCodeError(f"deal code {parsed} is for game {parsed.game}, this env plays {game}")
    return parsed


def as_deal(deal: Any, deal_type: type[DealT], expected: str) -> DealT:
    """``deal`` as a ``deal_type``: a deal string parsed, a ``deal_type`` as it is; anything else
    raises :class:`~solitaire_env.common.deals.DealStringError` ``"<expected>, got <deal>"``."""
    if isinstance(deal, str):
        return deal_type.parse(deal)
    if not isinstance(deal, deal_type):
        raise DealStringError(f"{expected}, got {deal!r}")
    return deal


#: A reward function: (score change, progress change, won) -> reward.
RewardFn = Callable[[int, int, bool], float]
ILLEGAL_POLICIES = ("penalize", "raise", "terminate")


class IllegalActionError(ValueError):
    """Raised by ``step`` for an illegal action when ``illegal_action="raise"``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"illegal action: {reason}: {message}")
        self.reason = reason


class InvalidActionError(ValueError):
    """Raised by ``step`` for an action that is not a member of the action space, whatever
    ``illegal_action`` says: anything but a Python int, a numpy integer scalar or a 0-d integer
    array (so no float, string, bool or array of another shape), or an integer out of range."""


MASK_CHUNK = 15
MASK_CACHE_SIZE = 4096
#: A large action space's mask array is patched bit by bit when at most this many actions changed
#: (the usual step); more, and it is unpacked from the mask's bytes.
MASK_PATCH_BITS = 12


def _describe(action: Any) -> str:
    """A short one-line description of a bad action, for error messages."""
    text = " ".join(repr(action).split())
    text = text if len(text) <= 40 else text[:37] + "..."
    if isinstance(action, np.ndarray):
        return f"{text} (an array of shape {action.shape}, dtype {action.dtype})"
    return f"{text} ({type(action).__name__})"


def _mask_tables(n: int) -> tuple[np.ndarray, ...]:
    """Lookup tables turning a mask of up to 30 bits into an int8 array, 15 bits at a time."""
    tables = []
    for lo in range(0, 2 * MASK_CHUNK, MASK_CHUNK):
        width = max(0, min(MASK_CHUNK, n - lo))
        tables.append(((np.arange(1 << width)[:, None] >> np.arange(width)) & 1).astype(np.int8))
    return tuple(tables)


class SolitaireEnv(gym.Env[Any, np.int64]):
    """Base class: a game env with masks, deal codes, rewards and an illegal-action policy."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012
    game_letters: ClassVar[str]
    #: Rewards per mode, and the default illegal-action penalty of each.
    REWARDS: ClassVar[tuple[str, ...]] = ("score", "win", "progress")
    DEFAULT_PENALTY: ClassVar[dict[str, float]] = {"score": -1.0, "win": -0.01, "progress": -0.1}

    def __init__(
        self,
        *,
        num_actions: int,
        observer: Any,
        reward: str | RewardFn = "score",
        win_bonus: float = 10.0,
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(reward, str) and reward not in self.REWARDS:
            raise ValueError(f"unknown reward {reward!r}; want one of {', '.join(self.REWARDS)} or a callable")
        if not isinstance(reward, str) and not callable(reward):
            raise ValueError(f"reward must be a name or a callable, got {reward!r}")
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(f"unknown illegal_action {illegal_action!r}; want one of {', '.join(ILLEGAL_POLICIES)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; want 'ansi', 'rgb_array' or None")
        self.num_actions = num_actions
        self.action_space = spaces.Discrete(num_actions)
        self.observer = observer
        self._encode = observer.encoder
        self.observation_space = observer.space
        self.reward_mode = reward
        self.win_bonus = float(win_bonus)
        self.illegal_action = illegal_action
        if illegal_penalty is None:
            illegal_penalty = self.DEFAULT_PENALTY[reward] if isinstance(reward, str) else -0.1
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        #: up to 30 actions: cached lookups; more: patch the changed bits (or unpack the mask's bytes)
        self._mask_bytes = 0 if num_actions <= 2 * MASK_CHUNK else (num_actions + 7) // 8
        self._tables = _mask_tables(num_actions) if not self._mask_bytes else ()
        self._mask_cache: dict[int, np.ndarray] = {}
        self.game: Any = None
        #: the legal actions played since the last reset, in order (what an agent's public
        #: state replays: :func:`agents.base.observe`)
        self.actions: list[int] = []
        self.deal_name = ""
        #: the int8 array of the legal mask ``_bits``: the env's own, never handed out (each
        #: info gets a copy; a table path's array is shared with the cache and never written)
        self._bits = 0
        self._mask = np.zeros(num_actions, dtype=np.int8)
        #: 0 while an episode runs; 1 when it ended (terminated, or truncated by the env);
        #: 2 once the step after its end was warned about
        self._ended = 0

    # ------------------------------------------------------------------ game hooks

    #: A game whose play can go round in circles sets this to a method returning a reason
    #: to truncate the episode after a legal step (or ``None`` to go on).
    _check_truncation: Callable[[], str | None] | None = None

    def _deal_from_code(self, code: DealCode) -> tuple[Any, Any]:
        """(deal, game) for a deal code."""
        raise NotImplementedError

    def _deal_from_text(self, deal: Any) -> tuple[Any, Any]:
        """(deal, game) for a deal string or deal object."""
        raise NotImplementedError

    def _random_code(self) -> DealCode:
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers

    def _mask_array(self, bits: int) -> np.ndarray:
        """The int8 array of an action bit mask (a new array each call)."""
        if self._mask_bytes:  # a large action space: unpack the bytes of the mask
            raw = np.frombuffer(bits.to_bytes(self._mask_bytes, "little"), np.uint8)
            return np.unpackbits(raw, bitorder="little", count=self.num_actions).view(np.int8)
        return self._cached_mask(bits).copy()

    def _cached_mask(self, bits: int) -> np.ndarray:
        """The int8 array of a small action space's mask, from the cache (do not write into it)."""
        cached = self._mask_cache.get(bits)
        if cached is None:
            if len(self._mask_cache) >= MASK_CACHE_SIZE:
                self._mask_cache.clear()
            tables = self._tables
            cached = self._mask_cache[bits] = np.concatenate((tables[0][bits & 0x7FFF], tables[1][bits >> MASK_CHUNK]))
        return cached

    def _set_mask(self, bits: int) -> None:
        """Make ``_mask`` the array of ``bits``: a small space from the cache; a large one by
        writing the bits that changed since ``_bits`` into the env's own array."""
        if not self._mask_bytes:
            self._mask = self._cached_mask(bits)
        else:
            diff = bits ^ self._bits
            if diff.bit_count() > MASK_PATCH_BITS:
                self._mask = self._mask_array(bits)
            else:
                mask = self._mask
                while diff:
                    low = diff & -diff
                    mask[low.bit_length() - 1] = 1 if bits & low else 0
                    diff ^= low
        self._bits = bits

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = self.game.counters()
        info["deal_code"] = self.deal_name
        info["action_mask"] = self._mask.copy()
        return info

    def _action_index(self, action: Any) -> int:
        """``action`` as an index of the action space, or :class:`InvalidActionError`: what
        ``action_space.contains`` accepts (a Python int, a numpy integer scalar, a 0-d integer
        array), but no bool."""
        scalar = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if scalar or (isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"):
            a = int(action)
        else:
            hint = ""
            if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
                hint = "; pass a scalar, e.g. action.item()"
            raise InvalidActionError(
                f"invalid action {_describe(action)}: want an integer 0..{self.num_actions - 1} "
                f"(a Python int, a numpy integer or a 0-d integer array){hint}"
            )
        if not 0 <= a < self.num_actions:
            raise InvalidActionError(f"invalid action {a}: outside 0..{self.num_actions - 1}")
        return a

    def _warn_ended(self) -> None:
        """Warn (once per episode) that ``step`` was called after the episode ended."""
        if self._ended == 1:
            gym.logger.warn(
                "step() called after this episode ended (it returned terminated or truncated = True); "
                "call reset() to start a new one. Until then each step is played on the same game as usual: "
                "a game that is over takes no move (every action is illegal); after a truncation or an "
                "illegal_action='terminate' end, the game goes on and legal moves are played."
            )
            self._ended = 2

    def _reward(self, d_score: int, d_progress: int, won: bool) -> float:
        mode = self.reward_mode
        if mode == "score":
            return float(d_score)
        if mode == "win":
            return 1.0 if won else 0.0
        if mode == "progress":
            return d_progress + (self.win_bonus if won else 0.0)
        return float(mode(d_score, d_progress, won))  # type: ignore[operator]

    # ------------------------------------------------------------------ gym API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode: ``options={"deal_code": ...}`` or ``{"deal": ...}``, else a random code.

        A random episode draws its seed from ``np_random`` (seeded by ``seed``) and reports
        its code in ``info["deal_code"]``, so every episode can be replayed.  Bad options raise
        before anything changes: the running episode and ``np_random`` stay as they were.
        """
        options = options or {}
        unknown = set(options) - {"deal_code", "deal"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; want 'deal_code' or 'deal'")
        if "deal_code" in options and "deal" in options:
            raise ValueError("give either options['deal_code'] or options['deal'], not both")
        if "deal_code" in options:
            deal, game = self._deal_from_code(parse_game_code(options["deal_code"], self.game_letters))
        elif "deal" in options:
            deal, game = self._deal_from_text(options["deal"])
        super().reset(seed=seed)
        if not options:
            deal, game = self._deal_from_code(self._random_code())
        self.game = game

        self.deal = deal
        self.actions = []
        # a hand-made deal plays under the env's rules: name it by its cards, never by a code
        # whose rule letter could disagree with them
        self.deal_name = str(deal) if "deal" in options else deal.name
        self._bits = bits = self.game.legal_mask()
        self._mask = self._mask_array(bits) if self._mask_bytes else self._cached_mask(bits)
        self._ended = 0
        return self._encode(self.game), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action``: a Python int, a numpy integer or a 0-d integer array in range (anything
        else raises :class:`InvalidActionError`).  After the episode ended (a terminated step, or
        the env's own truncation) the first step warns once, then is played as usual: a game that is
        over takes no move, and a truncated game goes on (the warning says both)."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        # a Python int in range is the usual action: anything else goes through the full check
        a = action if type(action) is int and 0 <= action < self.num_actions else self._action_index(action)
        if self._ended:
            self._warn_ended()
        score = game.score
        if self.reward_mode == "score":
            reason = game.try_play(a)
            if reason is not None:
                return self._illegal_step(reason)
            reward = float(game.score - score)
        else:
            progress = game.progress
            reason = game.try_play(a)
            if reason is not None:
                return self._illegal_step(reason)
            reward = self._reward(game.score - score, game.progress - progress, game.won)
        self.actions.append(a)
        bits = game.legal_mask()  # no legal move <=> the game is over (Game protocol)
        if self._mask_bytes:
            self._set_mask(bits)
        else:  # a small action space: the array from the cache (inlined: the usual step)
            mask = self._mask_cache.get(bits)
            self._mask = self._cached_mask(bits) if mask is None else mask
            self._bits = bits
        info: dict[str, Any] = game.counters()
        info["deal_code"] = self.deal_name
        info["action_mask"] = self._mask.copy()
        if not bits:
            if not self._ended:
                self._ended = 1
            return self._encode(game), reward, True, False, info
        if self._check_truncation is not None:
            cut = self._check_truncation()
            if cut is not None:
                info["truncated_reason"] = cut
                if not self._ended:
                    self._ended = 1
                return self._encode(game), reward, False, True, info
        return self._encode(game), reward, False, False, info

    def _illegal_step(self, reason: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The step of an illegal action (which changed nothing), by the ``illegal_action`` policy."""
        game = self.game
        message = game.REASONS[reason]
        if self.illegal_action == "raise":
            raise IllegalActionError(reason, message)
        info = self._info()
        info["illegal_reason"] = reason
        info["illegal_message"] = message
        terminated = self.illegal_action == "terminate" or game.over
        if terminated and not self._ended:
            self._ended = 1
        return self._encode(game), self.illegal_penalty, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as a bool array (what sb3-contrib's MaskablePPO reads)."""
        if self.game is None:
            return np.zeros(self.num_actions, dtype=bool)
        # from the game, not from the array handed out in info (a caller may write into that)
        bits = self.game.legal_mask()
        if bits != self._bits:  # the game was played outside step (through env.game)
            self._set_mask(bits)
        return self._mask.astype(bool)

    def action_name(self, action: int) -> str:
        """An action in words, e.g. ``"remove 7S (slot 13)"`` or ``"draw"``."""
        return str(self.game.action_name(int(action)))

    def public_view(self) -> dict[str, Any]:
        """Everything the player sees, as a JSON-serialisable dict."""
        return dict(self.game.public_view())

    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "ansi":
            return self._render_ansi(self.public_view())
        return self._render_rgb(self.public_view())

    def _render_ansi(self, view: dict[str, Any]) -> str:
        raise NotImplementedError

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError
