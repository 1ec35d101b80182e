"""A warm start for Forty Thieves policies: fit the move-feature policy to a teacher's moves.

The teacher (:data:`TEACHERS`) is the fair search agent of Forty Thieves, ``planner``
(:mod:`agents.players.planner`: it plans the moves up to each draw on sampled stock orders, at
some seconds a game), or the ``lookahead`` heuristic (a turn search at every move; the move
features read the same search at fewer positions). A policy without search can learn what it
does: this stage plays the teacher's games and fits the policy to them, before PPO.

1. **Collect.** ``games`` games of the training stream (random deals, the held-out codes
   excluded), each played by the teacher (``teacher_options``: by default a cheaper planner
   than the agent's defaults), in ``workers`` processes. With probability ``epsilon`` a move is a
   uniformly random legal move instead of the teacher's, so that the positions are not only
   the teacher's own; the label is always the teacher's move. Every position with more than one
   legal move is kept: its move features (:mod:`agents.training.move_features`, the legal rows
   only), the teacher's move, and the discounted return from it on (``gamma``: PPO's).
   Nothing hidden goes in: the teacher and the features read the public state only.
2. **Fit.** ``epochs`` passes: the policy's logits (the scorer's, over the legal moves) to the
   teacher's move (cross entropy), and the critic (its own copy of the features) to the return
   (so that PPO starts with a critic); the learning rate goes down in a straight line from
   ``learning_rate`` to ``final_learning_rate``.
3. **Check** after every epoch (when the run gives a validation): the weights of the best check
   (mean validation return) are the ones the warm start ends with.
4. **Lookahead bonus.** The fit runs without it; the checks and the policy it hands to PPO add
   ``lookahead_bonus`` to the score of the ``lookahead`` agent's move
   (:func:`~agents.training.move_policy.set_lookahead_bonus`; 0: none), so that the student
   leaves the lookahead's move only where it is sure of the teacher's other move.

``minutes`` bounds the collection's wall time (a guard: the budget is ``games``).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.training.move_features import MOVE_FEATURES, OBS_SIZE, POSITION_FEATURES

__all__ = [
    "IMITATION_KEYS",
    "TEACHERS",
    "ImitationSettings",
    "TeacherGames",
    "collect_games",
    "fit_policy",
    "run_imitation",
    "training_codes",
]

#: The agents a config may name as ``imitation.teacher``: the fair search agent and the best
#: heuristic (whose turn search the move features also read, at fewer positions).
TEACHERS = ("planner", "lookahead")
#: The keys of a training config's ``imitation`` block.
IMITATION_KEYS = (
    "teacher",
    "teacher_options",
    "games",
    "minutes",
    "workers",
    "epsilon",
    "tolerance",
    "epochs",
    "batch_size",
    "learning_rate",
    "final_learning_rate",
    "lookahead_bonus",
)
_ROWS = 210 * MOVE_FEATURES


#: The cheap planner the warm start's teacher is by default (its options).
_PLANNER_OPTIONS = {
    "samples": 4,
    "root_nodes": 5000,
    "eval_nodes": 5000,
    "endgame_nodes": 200_000,
    "endgame_searches": 2,
}


@dataclass(frozen=True)
class ImitationSettings:
    """The ``imitation`` block of a training config (see the module docstring)."""

    teacher: str = "planner"
    teacher_options: Mapping[str, Any] = field(default_factory=lambda: dict(_PLANNER_OPTIONS))
    games: int = 1000
    minutes: float = 40.0
    workers: int = 2
    epsilon: float = 0.0
    tolerance: float = 0.0
    epochs: int = 8
    batch_size: int = 512
    learning_rate: float = 1e-3
    final_learning_rate: float = 1e-4
    lookahead_bonus: float = 0.0

    def __post_init__(self) -> None:
        if self.teacher != "planner" and self.teacher_options == _PLANNER_OPTIONS:
            object.__setattr__(self, "teacher_options", {})  # the planner's defaults are not another teacher's


@dataclass
class TeacherGames:
    """The positions of the teacher's games: the legal rows of all positions one after another
    (``rows``, with their ``actions``), where position ``p``'s are ``start[p]:start[p + 1]``;
    ``position`` (the position's numbers), ``label`` (the teacher's move), ``ret`` (the
    discounted return from the position on); ``good`` marks the rows of the moves as good as the
    teacher's (its move, and with a ``tolerance`` the first moves of the plans it scored as well).
    ``games``, ``won`` and ``founded`` count the games."""

    rows: np.ndarray
    actions: np.ndarray
    good: np.ndarray
    start: np.ndarray
    position: np.ndarray
    label: np.ndarray
    ret: np.ndarray
    games: int
    won: int
    founded: int

    def __len__(self) -> int:
        return len(self.label)

    def join(self, other: TeacherGames) -> TeacherGames:
        """These positions and ``other``'s."""
        return TeacherGames(
            rows=np.concatenate([self.rows, other.rows]),
            actions=np.concatenate([self.actions, other.actions]),
            good=np.concatenate([self.good, other.good]),
            start=np.concatenate([self.start[:-1], other.start + self.start[-1]]),
            position=np.concatenate([self.position, other.position]),
            label=np.concatenate([self.label, other.label]),
            ret=np.concatenate([self.ret, other.ret]),
            games=self.games + other.games,
            won=self.won + other.won,
            founded=self.founded + other.founded,
        )

    def dense(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The observations (move features), legal masks and good-move masks of positions ``index``."""
        n = len(index)
        obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        mask = np.zeros((n, 210), dtype=bool)
        good = np.zeros((n, 210), dtype=bool)
        table = obs[:, :_ROWS].reshape(n, 210, MOVE_FEATURES)
        lo, hi = self.start[index], self.start[index + 1]
        counts = hi - lo
        owner = np.repeat(np.arange(n), counts)
        picks = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)]) if n else np.zeros(0, np.int64)
        table[owner, self.actions[picks]] = self.rows[picks]
        mask[owner, self.actions[picks]] = True
        good[owner, self.actions[picks]] = self.good[picks]
        obs[:, _ROWS:] = self.position[index]
        return obs, mask, good


# ---------------------------------------------------------------------- the teacher's games


def training_codes(seed: int, rule: str, exclude: Iterable[str]) -> Iterator[str]:
    """Random Forty Thieves deal codes (``numpy.random.default_rng([seed, 23])``), never one of
    ``exclude`` (the validation and test codes)."""
    from solitaire_env.common.deals import random_code

    held = frozenset(exclude)
    rng = np.random.default_rng([seed, 23])
    while True:
        code = str(random_code("fortythieves", rule, rng))
        if code not in held:
            yield code


_WORKER: dict[str, Any] = {}


def _init_worker(
    env_kwargs: dict[str, Any], teacher: str, options: dict[str, Any], epsilon: float, tolerance: float
) -> None:
    import gymnasium as gym

    import solitaire_env  # noqa: F401 (registers the envs)
    from agents.registry import make_agent
    from agents.training.move_features import MoveFeatures

    kwargs = {k: v for k, v in env_kwargs.items() if k not in ("autoreset_mode", "copy", "obs_mode")}
    _WORKER.update(
        env=gym.make("solitaire_env/FortyThieves-v0", obs_mode="flat", **kwargs),
        agent=make_agent(teacher, "fortythieves", seed=0, **options),
        features=MoveFeatures(),
        epsilon=float(epsilon),
        tolerance=float(tolerance),
    )


def _good_moves(agent: Any, move: int, turns: int) -> set[int]:
    """The teacher's move, and when it planned a new turn for it, the first moves of the plans
    that scored as well as the best: the same value, and at most ``tolerance`` cards a sample
    fewer founded on the searches' lines."""
    good = {move}
    tolerance = _WORKER["tolerance"]
    if tolerance <= 0 or agent.turns == turns or not agent.last_plans:
        return good
    best = agent.last_plans[0]
    for plan in agent.last_plans[1:]:
        if plan.value == best.value and best.founded - plan.founded <= tolerance * agent.samples:
            good.add(plan.moves[0])
    return good


def _student(weights: tuple[int, dict[str, Any], list[int]] | None) -> Any:
    """The student's scorer in this worker (made again only for new weights), or ``None``."""
    if weights is None:
        return None
    tag, state, arch = weights
    if _WORKER.get("student_tag") != tag:
        import torch
        from gymnasium import spaces

        from agents.training.move_policy import MoveFeaturesExtractor

        torch.set_num_threads(1)
        extractor = MoveFeaturesExtractor(spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32), scorer=arch)
        extractor.load_state_dict(state)
        extractor.eval()
        _WORKER["student"], _WORKER["student_tag"] = extractor, tag
    return _WORKER["student"]


def _student_move(student: Any, x: np.ndarray, legal: Any) -> int:
    import torch

    with torch.no_grad():
        scores = student.scores(torch.as_tensor(x[None]))[0].numpy()
    moves = list(legal)
    return int(moves[int(np.argmax(scores[moves]))])


def _teacher_game(task: tuple[str, int, float, Any]) -> dict[str, Any]:
    """One game of deal ``code``: the teacher's moves, or with a student's weights the student's
    (labelled by the teacher); random ones with probability epsilon."""
    from agents.base import observe

    code, seed, gamma, weights = task
    env, agent, features = _WORKER["env"], _WORKER["agent"], _WORKER["features"]
    student = _student(weights)
    rng = np.random.default_rng(seed)
    env.reset(options={"deal_code": code})
    agent.reset()
    features.reset()
    rows: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    goods: list[np.ndarray] = []
    counts: list[int] = []
    positions: list[np.ndarray] = []
    labels: list[int] = []
    steps: list[int] = []
    rewards: list[float] = []
    done = False
    info: dict[str, Any] = {}
    while not done:
        state = observe(env)
        legal = state.legal
        turns = getattr(agent, "turns", 0)
        move = agent.act(state)
        if len(legal) > 1:  # (the features catch up on the moves between two calls)
            x = features(state)
            good = _good_moves(agent, move, turns)
            table = x[:_ROWS].reshape(210, MOVE_FEATURES)
            legal_idx = np.asarray(legal, dtype=np.int16)
            rows.append(table[legal_idx].astype(np.float32))
            actions.append(legal_idx)
            goods.append(np.isin(legal_idx, list(good)))
            counts.append(len(legal))
            positions.append(x[_ROWS:].copy())
            labels.append(move)
            steps.append(len(rewards))
        if len(legal) > 1 and rng.random() < _WORKER["epsilon"]:
            move = int(rng.choice(legal))
        elif student is not None and len(legal) > 1:
            move = _student_move(student, x, legal)
        _, reward, terminated, truncated, info = env.step(move)
        rewards.append(float(reward))
        done = terminated or truncated
    ret = np.zeros(len(rewards) + 1)
    for t in range(len(rewards) - 1, -1, -1):
        ret[t] = rewards[t] + gamma * ret[t + 1]
    return {
        "rows": np.concatenate(rows) if rows else np.zeros((0, MOVE_FEATURES), np.float32),
        "actions": np.concatenate(actions) if actions else np.zeros(0, np.int16),
        "good": np.concatenate(goods) if goods else np.zeros(0, bool),
        "counts": np.asarray(counts, dtype=np.int64),
        "position": np.asarray(positions, dtype=np.float32).reshape(-1, POSITION_FEATURES),
        "label": np.asarray(labels, dtype=np.int64),
        "ret": ret[np.asarray(steps, dtype=np.int64)].astype(np.float32),
        "won": bool(env.unwrapped.game.won),
        "founded": int(info.get("founded", 0)),
    }


def collect_games(
    codes: Iterable[str],
    settings: ImitationSettings,
    env_kwargs: Mapping[str, Any],
    gamma: float,
    seed: int,
    stop: Callable[[], bool] | None = None,
    say: Callable[..., None] = print,
    games: int | None = None,
    student: tuple[int, dict[str, Any], list[int]] | None = None,
    minutes: float | None = None,
) -> TeacherGames:
    """Play ``games`` (default ``settings.games``) teacher games on ``codes`` (an iterable: the
    training stream) in ``settings.workers`` processes, until ``minutes`` (default
    ``settings.minutes``) have passed or ``stop()``. With ``student`` (a tag, the weights of a
    :class:`~agents.training.move_policy.MoveFeaturesExtractor` and its scorer's layers), the
    student plays and the teacher labels its positions."""
    import multiprocessing

    stopped = stop if stop is not None else (lambda: False)
    start = time.perf_counter()
    deadline = start + (settings.minutes if minutes is None else minutes) * 60.0
    rng = np.random.default_rng(seed)
    it = iter(codes)
    count = settings.games if games is None else games
    tasks = ((next(it), int(rng.integers(2**63)), float(gamma), student) for _ in range(count))
    played: list[dict[str, Any]] = []
    init = (dict(env_kwargs), settings.teacher, dict(settings.teacher_options), settings.epsilon, settings.tolerance)
    if settings.workers <= 1:
        _init_worker(*init)
        for task in tasks:
            if stopped() or time.perf_counter() > deadline:
                break
            played.append(_teacher_game(task))
    else:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(settings.workers, initializer=_init_worker, initargs=init) as pool:
            for game in pool.imap(_teacher_game, tasks):  # in order: the same games whatever the timing
                played.append(game)
                if len(played) % 100 == 0:
                    say(f"imitation: {len(played)} games, {time.perf_counter() - start:.0f} s")
                if stopped() or time.perf_counter() > deadline:
                    pool.terminate()
                    break
    return _gather(played)


def _gather(games: list[dict[str, Any]]) -> TeacherGames:
    """The games' positions as one :class:`TeacherGames`."""
    counts = np.concatenate([g["counts"] for g in games]) if games else np.zeros(0, np.int64)
    start_idx = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=start_idx[1:])
    return TeacherGames(
        rows=np.concatenate([g["rows"] for g in games]) if games else np.zeros((0, MOVE_FEATURES), np.float32),
        actions=np.concatenate([g["actions"] for g in games]).astype(np.int64) if games else np.zeros(0, np.int64),
        good=np.concatenate([g["good"] for g in games]) if games else np.zeros(0, bool),
        start=start_idx,
        position=np.concatenate([g["position"] for g in games])
        if games
        else np.zeros((0, POSITION_FEATURES), np.float32),
        label=np.concatenate([g["label"] for g in games]) if games else np.zeros(0, np.int64),
        ret=np.concatenate([g["ret"] for g in games]) if games else np.zeros(0, np.float32),
        games=len(games),
        won=sum(g["won"] for g in games),
        founded=sum(g["founded"] for g in games),
    )


# ---------------------------------------------------------------------- the fit


def fit_policy(
    policy: Any,
    data: TeacherGames,
    settings: ImitationSettings,
    seed: int,
    check: Callable[[], dict[str, float]] | None = None,
    say: Callable[..., None] = print,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Fit a :class:`~agents.training.move_policy.MovePolicy` to the teacher's moves and returns
    (module docstring); returns the epochs' losses and checks."""
    import torch

    from agents.training.move_policy import set_lookahead_bonus

    stopped = stop if stop is not None else (lambda: False)
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    gen = np.random.default_rng(seed)
    n = len(data)
    steps_total = max(settings.epochs * math.ceil(n / settings.batch_size), 1)
    step = 0
    rows: list[dict[str, Any]] = []
    best: list[Any] = [-math.inf, None, None]
    extractor = policy.features_extractor
    for epoch in range(settings.epochs):
        if stopped() or n == 0:
            break
        set_lookahead_bonus(policy, 0.0)  # the fit is to the teacher's moves as they are
        policy.set_training_mode(True)
        order = gen.permutation(n)
        total = agree = 0.0
        value_total = 0.0
        for k in range(0, n, settings.batch_size):
            if stopped():
                break
            index = order[k : k + settings.batch_size]
            obs_np, mask_np, good_np = data.dense(index)
            obs = torch.as_tensor(obs_np)
            mask = torch.as_tensor(mask_np)
            good = torch.as_tensor(good_np)
            target = torch.as_tensor(data.ret[index])
            rate = settings.learning_rate + (settings.final_learning_rate - settings.learning_rate) * step / steps_total
            for group in optimizer.param_groups:
                group["lr"] = rate
            logits = extractor.scores(obs).masked_fill(~mask, -1e9)
            # the probability of the good moves (the teacher's alone, without a tolerance)
            loss_pi = (logits.logsumexp(dim=1) - logits.masked_fill(~good, -1e9).logsumexp(dim=1)).mean()
            values = policy.predict_values(obs).squeeze(1)  # the critic's own features (MovePolicy)
            loss_v = ((values - target) ** 2).mean()
            loss = loss_pi + 0.001 * loss_v
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            total += float(loss_pi.item()) * len(index)
            value_total += float(loss_v.item()) * len(index)
            agree += float(good[torch.arange(len(index)), logits.argmax(dim=1)].sum().item())
        policy.set_training_mode(False)
        row: dict[str, Any] = {
            "epoch": epoch + 1,
            "policy_loss": round(total / n, 4),
            "value_loss": round(value_total / n, 2),
            "agreement": round(agree / n, 4),
        }
        set_lookahead_bonus(policy, settings.lookahead_bonus)
        if check is not None and not stopped():
            row.update(check())
            if row["mean_reward"] > best[0]:
                best[:] = [row["mean_reward"], copy.deepcopy(policy.state_dict()), epoch + 1]
        rows.append(row)
        say(f"imitation: {row}")
    if best[1] is not None and not stopped():
        policy.load_state_dict(best[1])
        say(f"imitation: kept the weights of epoch {best[2]} (the best validation)")
    set_lookahead_bonus(policy, settings.lookahead_bonus)
    return {"epochs": rows, "kept_epoch": best[2]}


def run_imitation(
    model: Any,
    codes: Iterable[str],
    settings: ImitationSettings,
    env_kwargs: Mapping[str, Any],
    seed: int,
    check: Callable[[], dict[str, float]] | None = None,
    say: Callable[..., None] = print,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """The whole warm start of ``model`` (a MaskablePPO with a :class:`~agents.training.move_policy.MovePolicy`):
    collect, fit, check; returns what happened."""
    start = time.perf_counter()
    say(
        f"imitation: {settings.games} games of the {settings.teacher} teacher ({dict(settings.teacher_options)}), "
        f"{settings.workers} workers, at most {settings.minutes:g} minutes"
    )
    data = collect_games(codes, settings, env_kwargs, float(model.gamma), seed, stop=stop, say=say)
    collected = time.perf_counter() - start
    say(
        f"imitation: {data.games} games, {len(data)} positions in {collected:.0f} s; the teacher won "
        f"{data.won} and founded {data.founded / max(data.games, 1):.2f} cards a game"
    )
    fit = fit_policy(model.policy, data, settings, seed, check=check, say=say, stop=stop)
    return {
        "games": data.games,
        "positions": len(data),
        "teacher_wins": data.won,
        "teacher_founded": round(data.founded / max(data.games, 1), 2),
        "collect_seconds": round(collected, 1),
        "seconds": round(time.perf_counter() - start, 1),
        **fit,
    }
