"""The batch step of every batch env, written once: N games in arrays, stepped in one numba call.

:func:`step_all` is the loop that both batch envs run each step: it checks the actions, resets
the games that ended at the previous step (``autoreset_mode="next_step"``), plays every other
game's action or charges its illegal-action penalty, computes the rewards, terminations and
the time limit, and in ``same_step`` mode saves the final state of each game that ended and
deals its next game at once.  It counts the resets and raises the flags the Python side reads.

What is the game's comes in through the hooks below: pure-Python stubs that a game fills in
for its own state type (a ``typing.NamedTuple`` of arrays, row ``i`` of each being game
``i``) with :func:`plug_in`, which makes each of the game's functions a
``numba.extending.overload`` of its stub answering for that type only (``getattr(state,
"instance_class", None)``).  Each game's ``batch_kernels.py`` plugs its hooks in when it is
imported, which its ``batch.py`` does before any step: the driver compiles once per state
type, and numba caches it like any kernel.  The hooks:

- :func:`play_rows`: play the legal actions of the games ``io.ints[I_ROWS, :count]``, updating
  their flat observations and masks; per game the points scored, the cards gained (the
  ``progress`` reward), whether the game is won and whether no action is legal now go to the
  rows ``I_POINTS``, ``I_PROGRESS``, ``B_WON`` and ``B_STUCK``.  A rule of the game that
  truncates an episode sets ``B_CUT`` here (Forty Thieves: the repetition rule), and
  ``io.flags[FLAG_GAME]`` is the game's own flag;
- :func:`illegal_rows`: the reason codes of the illegal actions of the games
  ``io.ints[I_ROWS, start:]`` into ``I_REASONS`` (never 0), and ``B_STUCK``;
- :func:`deal_row`: deal game ``i`` from a deal seed;
- :func:`start_row`: the observation (flat modes), mask and the game's own bookkeeping of game
  ``i`` just dealt;
- :func:`save_final`: copy game ``i``'s state into the final state of a same_step reset (the
  game's type of it: what the final observation and info read).

The moves are played a batch at a time (one call of :func:`play_rows` and one of
:func:`illegal_rows` per step, each a loop in the game's module over arrays it takes out of
its state once): a numba function that takes a named tuple of arrays, when it is called or
inlined once per game, pays for counting references to every array in it, which would cost
more than the move.

The rest is shared and lives in :class:`BatchIO`: the step's outputs, the autoreset and seed
bookkeeping, the observation and mask buffers, the final observation, mask, reason and cut of a
same_step reset, the flags, and the options every batch env has (``cfg``: reward, illegal
policy, time limit, autoreset mode, observation mode; ``fcfg``: the penalty and the win bonus).

numba keys each cache entry on the file of the function it compiles: a cached :func:`step_all`
holds the hooks as they were when it compiled, so after a change to a game's hooks its entry
in this module's cache is stale until this file changes too (a fresh clone compiles anew).
"""

from __future__ import annotations

import inspect
from typing import Any, NamedTuple

import numpy as np
from numba import njit, typeof
from numba.extending import overload

# --- cfg entries (BatchIO.cfg)
C_REWARD, C_ILLEGAL, C_MAX_STEPS, C_AUTORESET, C_OBS = 0, 1, 2, 3, 4
NUM_CFG = 5
REWARD_SCORE, REWARD_WIN, REWARD_PROGRESS = 0, 1, 2
ILLEGAL_PENALIZE, ILLEGAL_RAISE, ILLEGAL_TERMINATE = 0, 1, 2
AUTORESET_NEXT_STEP, AUTORESET_SAME_STEP = 0, 1
OBS_FLAT, OBS_DICT, OBS_ORACLE, OBS_ORACLE_DICT = 0, 1, 2, 3
# --- fcfg entries
FC_PENALTY, FC_WIN_BONUS = 0, 1
# --- flags: a game used the last of its drawn-ahead deal seeds; an action was illegal; the game's own
FLAG_SEEDS_USED, FLAG_ILLEGAL, FLAG_GAME = 0, 1, 2
NUM_FLAGS = 3


#: The rows of ``BatchIO.bools`` (per env): the step's termination and truncation; truncated
#: by a rule of the game (Forty Thieves: the repetition rule); the episode ended at the last step
#: (next_step mode: reset at this one); reset in this step; :func:`play_rows`' win and stuck
#: (no action is legal, also after an illegal action); the cut of a same_step final state.
B_TERMINATED, B_TRUNCATED, B_CUT, B_AUTORESET, B_DID_RESET, B_WON, B_STUCK, B_FINAL_CUT = range(8)
NUM_BOOLS = 8
#: The rows of ``BatchIO.ints`` (per env): the illegal-action reason code (0: legal) and that
#: of a same_step final state; the envs reset in this step, in order (``[:resets]``); the steps
#: of the episode so far (the time limit's count); the games whose actions :func:`play_rows`
#: (from the front) and :func:`illegal_rows` (from the back) take; :func:`play_rows`' points and
#: cards gained (the progress reward); the next of the seeds drawn ahead.
I_REASONS, I_FINAL_REASONS, I_RESET_ROWS, I_ELAPSED, I_ROWS, I_POINTS, I_PROGRESS, I_SEED_POS = range(8)
NUM_INTS = 8


class BatchIO(NamedTuple):
    """The arrays of a batch step that are the same for every game; column ``i`` (of ``bools``
    and ``ints``) or row ``i`` (of the others) is env ``i``.

    The per-env flags and counts are the rows of two arrays (``B_*``, ``I_*``): every array a
    numba call takes from Python costs a tenth of a microsecond to pass.  ``final_obs`` and
    ``final_mask`` have one row per env in same_step mode (one row otherwise: unused).
    """

    #: ``(N,)`` float64: the step's rewards.
    rewards: np.ndarray
    #: ``(NUM_BOOLS, N)`` bool and ``(NUM_INTS, N)`` int64: the ``B_*`` and ``I_*`` rows.
    bools: np.ndarray
    ints: np.ndarray
    #: ``(N, block)`` int64: the random deal seeds drawn ahead (``ints[I_SEED_POS, i]``: the next to deal).
    seeds: np.ndarray
    #: ``(N, width)`` float32: the flat observations (one column in the dict modes).
    obs: np.ndarray
    #: ``(N, num_actions)`` int8: the action masks.
    mask: np.ndarray
    #: The last observation and mask of the envs a same_step step reset.
    final_obs: np.ndarray
    final_mask: np.ndarray
    #: ``(NUM_FLAGS,)`` bool: the ``FLAG_*`` flags, set by the kernels, cleared by the Python side.
    flags: np.ndarray
    #: ``(NUM_CFG,)`` int64 and ``(2,)`` float64: the shared options (``C_*``, ``FC_*``).
    cfg: np.ndarray
    fcfg: np.ndarray


def new_io(num_envs: int, seed_block: int, obs_width: int, num_actions: int, same_step: bool) -> BatchIO:
    """The zeroed :class:`BatchIO` of ``num_envs`` envs (``cfg`` and ``fcfg`` left 0)."""
    n = num_envs
    m = n if same_step else 1  # final_obs and final_mask serve same_step mode only
    ints = np.zeros((NUM_INTS, n), dtype=np.int64)
    ints[I_SEED_POS] = seed_block
    return BatchIO(
        rewards=np.zeros(n, dtype=np.float64), bools=np.zeros((NUM_BOOLS, n), dtype=np.bool_), ints=ints,
        seeds=np.zeros((n, seed_block), dtype=np.int64), obs=np.zeros((n, obs_width), dtype=np.float32),
        mask=np.zeros((n, num_actions), dtype=np.int8), final_obs=np.zeros((m, obs_width), dtype=np.float32),
        final_mask=np.zeros((m, num_actions), dtype=np.int8), flags=np.zeros(NUM_FLAGS, dtype=np.bool_),
        cfg=np.zeros(NUM_CFG, dtype=np.int64), fcfg=np.zeros(2, dtype=np.float64),
    )  # fmt: skip


# --------------------------------------------------------------------------- the game's hooks


def play_rows(state: Any, io: BatchIO, actions: np.ndarray, count: int, mode: int) -> None:
    """Play the legal actions of the games ``io.ints[I_ROWS, :count]`` (observation mode ``mode``, ``OBS_*``)."""
    raise NotImplementedError


def illegal_rows(state: Any, io: BatchIO, actions: np.ndarray, start: int) -> None:
    """The reasons why the actions of the games ``io.ints[I_ROWS, start:]`` are illegal."""
    raise NotImplementedError


def deal_row(state: Any, i: int, seed: int) -> None:
    """Deal game ``i`` from the deal seed ``seed`` (the game's own deal stream)."""
    raise NotImplementedError


def start_row(state: Any, obs: np.ndarray, mask: np.ndarray, i: int, mode: int) -> None:
    """The observation (flat modes), mask and the game's bookkeeping of game ``i`` just dealt."""
    raise NotImplementedError


def save_final(state: Any, final: Any, i: int) -> None:
    """Copy game ``i`` of ``state`` into row ``i`` of ``final`` (the game's final state) before its reset."""
    raise NotImplementedError


#: The hooks a game plugs in, by name.
HOOKS = {f.__name__: f for f in (play_rows, illegal_rows, deal_row, start_row, save_final)}


def plug_in(state_class: type, **hooks: Any) -> None:
    """Make the game's numba functions ``hooks`` (one per name of :data:`HOOKS`, each taking
    the stub's parameters) the driver's hooks for a state of type ``state_class``.

    Each becomes a ``numba.extending.overload`` of its stub that answers only for that type
    (the game's function is compiled anew for the driver)."""
    if set(hooks) != set(HOOKS):
        raise TypeError(f"plug_in wants the hooks {sorted(HOOKS)}, got {sorted(hooks)}")
    for name, function in hooks.items():
        _overload(HOOKS[name], state_class, function)


def _overload(stub: Any, state_class: type, function: Any) -> None:
    py_func = getattr(function, "py_func", function)
    signature = inspect.signature(py_func)
    if len(signature.parameters) != len(inspect.signature(stub).parameters):
        raise TypeError(f"{py_func.__name__} must take the parameters of {stub.__name__}{inspect.signature(stub)}")

    def typer(*args: Any) -> Any:
        return py_func if getattr(args[0], "instance_class", None) is state_class else None

    typer.__signature__ = signature  # type: ignore[attr-defined]  # numba checks it against py_func's
    # a hook declared inline="always" is inlined into the driver
    overload(stub, inline=getattr(function, "targetoptions", {}).get("inline", "never"))(typer)


# --------------------------------------------------------------------------- the driver


@njit(cache=True)
def start_all(state: Any, io: BatchIO) -> None:
    """:func:`start_row` every game just dealt."""
    mode = io.cfg[C_OBS]
    for i in range(io.mask.shape[0]):
        start_row(state, io.obs, io.mask, i, mode)


@njit(cache=True, inline="always")
def _restart(state: Any, io: BatchIO, i: int, resets: int, mode: int) -> None:
    """Deal env ``i`` its next random deal and start it; it is the ``resets``-th reset of the step."""
    ints = io.ints
    pos = ints[I_SEED_POS, i]
    deal_row(state, i, io.seeds[i, pos])
    ints[I_SEED_POS, i] = pos + 1
    if pos + 1 == io.seeds.shape[1]:
        io.flags[FLAG_SEEDS_USED] = True
    start_row(state, io.obs, io.mask, i, mode)
    ints[I_ELAPSED, i] = 0
    ints[I_RESET_ROWS, resets] = i
    io.bools[B_DID_RESET, i] = True


@njit(cache=True)
def step_all(state: Any, final: Any, io: BatchIO, actions: np.ndarray) -> int:
    """One step of every game; returns how many games were reset (``io.ints[I_RESET_ROWS]``
    lists them), or ``-(i + 1)`` without changing anything if action ``i`` is outside the
    action space.

    ``autoreset_mode`` next_step: a game that ended at the previous step is reset now and its
    action ignored (reward 0).  same_step: a game that ends now is reset at once, and its last
    observation, state, mask, reason and cut are saved first (``final``, ``io.final_*``).
    """
    n = io.rewards.shape[0]
    cfg = io.cfg
    mode = cfg[C_OBS]
    same_step = cfg[C_AUTORESET] == AUTORESET_SAME_STEP
    reward_mode = cfg[C_REWARD]
    max_steps = cfg[C_MAX_STEPS]
    terminate_illegal = cfg[C_ILLEGAL] == ILLEGAL_TERMINATE
    penalty = io.fcfg[FC_PENALTY]
    win_bonus = io.fcfg[FC_WIN_BONUS]
    num_actions = io.mask.shape[1]
    for i in range(n):
        if actions[i] < 0 or actions[i] >= num_actions:
            return -(i + 1)
    rewards, mask, b, k = io.rewards, io.mask, io.bools, io.ints
    terminated, truncated, cut, autoreset = b[B_TERMINATED], b[B_TRUNCATED], b[B_CUT], b[B_AUTORESET]
    did_reset = b[B_DID_RESET]
    reasons, elapsed, rows, points, progress = k[I_REASONS], k[I_ELAPSED], k[I_ROWS], k[I_POINTS], k[I_PROGRESS]
    won, stuck = b[B_WON], b[B_STUCK]
    resets = 0
    count = 0  # legal actions, rows[:count]
    start = n  # illegal ones, rows[start:]
    for i in range(n):
        did_reset[i] = False
        reasons[i] = 0
        cut[i] = False
        if autoreset[i]:  # next_step mode: the game ended at the last step
            _restart(state, io, i, resets, mode)
            rewards[i] = 0.0
            terminated[i] = False
            truncated[i] = False
            autoreset[i] = False
            resets += 1
        else:
            elapsed[i] += 1
            if mask[i, actions[i]]:
                rows[count] = i
                count += 1
            else:
                start -= 1
                rows[start] = i
    if count:
        play_rows(state, io, actions, count, mode)
    if start < n:
        illegal_rows(state, io, actions, start)
        io.flags[FLAG_ILLEGAL] = True
    for i in range(n):
        if did_reset[i]:
            continue
        if reasons[i] == 0:
            if reward_mode == REWARD_SCORE:
                rewards[i] = points[i]
            elif reward_mode == REWARD_WIN:
                rewards[i] = 1.0 if won[i] else 0.0
            else:
                rewards[i] = progress[i] + (win_bonus if won[i] else 0.0)
            terminated[i] = stuck[i]
        else:
            rewards[i] = penalty
            terminated[i] = terminate_illegal or stuck[i]
        truncated[i] = cut[i] or elapsed[i] >= max_steps
        if terminated[i] or truncated[i]:
            if same_step:
                if mode % 2 == 0:  # OBS_FLAT (0) or OBS_ORACLE (2): a flat observation
                    for c in range(io.obs.shape[1]):
                        io.final_obs[i, c] = io.obs[i, c]
                for c in range(num_actions):
                    io.final_mask[i, c] = mask[i, c]
                k[I_FINAL_REASONS, i] = reasons[i]
                b[B_FINAL_CUT, i] = cut[i]
                save_final(state, final, i)
                _restart(state, io, i, resets, mode)
                resets += 1
            else:
                autoreset[i] = True
    return resets


def bind_step(state: Any, final: Any, io: BatchIO) -> Any:
    """:func:`step_all` compiled (or loaded from the cache) for these types, as a function of
    ``(state, final, io, actions)`` that skips numba's dispatch on each call: the argument types
    of a batch env never change, and reading the types of some 25 arrays in named tuples costs
    a few microseconds a call.  ``actions`` must then be a C-contiguous int64 array."""
    actions = np.zeros(io.rewards.shape[0], dtype=np.int64)
    compile_for = getattr(step_all, "compile", None)
    if compile_for is None:  # numba's JIT is off: a plain function
        return step_all
    return compile_for(tuple(typeof(value) for value in (state, final, io, actions)))
