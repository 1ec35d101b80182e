"""Where evaluation episodes run: this process, a local process pool, or a Ray cluster.

The work is split by deal.  A :class:`DealWorker` holds one env and the run's agents (built
once per worker) and plays every agent on each deal it is given; the backends of
:mod:`solitaire_env.common.backends` (a local process pool or Ray actors) run the workers.

Each move, the agent gets the public state and what the env returned there (observation, info,
mask: :class:`agents.base.EnvOutput`, through :func:`agents.base.decide`).

An episode's agent is seeded from the evaluation seed and the deal code (:func:`agent_seed`),
so its result depends on neither the backend, the number of workers nor the number of deals.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass
from typing import Any

from agents.base import Agent, GameName, decide, env_output
from agents.evaluation.specs import AgentSpec
from solitaire_env.common.backends import Chunk

__all__ = ["DealWorker", "EpisodeResult", "WorkerSetup", "agent_seed"]


def agent_seed(eval_seed: int, code: str) -> int:
    """The seed of every agent on deal ``code`` in a run seeded ``eval_seed`` (63 bits, stable)."""
    digest = hashlib.blake2b(f"{eval_seed}:{code}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


@dataclass(frozen=True)
class EpisodeResult:
    """One agent on one deal: the outcome, the counters and (if recorded) the actions.

    ``progress`` is the cards cleared (TriPeaks) or founded (Forty Thieves); ``moves`` the
    game's move counter; ``steps`` the env steps; ``truncated_reason`` is ``None`` for an
    episode that ended by the rules, ``"repetition"`` (Forty Thieves) or ``"step_limit"``
    (Gymnasium's ``TimeLimit``).  ``seconds`` is the wall time of the episode in its worker,
    ``cpu_seconds`` the worker process's CPU time over it (every thread of the process).
    """

    agent: str
    index: int
    code: str
    seed: int
    won: bool
    score: int
    progress: int
    longest_chain: int
    moves: int
    steps: int
    truncated_reason: str | None
    seconds: float
    cpu_seconds: float = 0.0
    actions: tuple[int, ...] | None = None
    rules: dict[str, Any] | None = None

    def outcome(self) -> tuple[Any, ...]:
        """Everything but the time (what must be the same in every run of the same config)."""
        times = ("seconds", "cpu_seconds")
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in times)


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs to build its env and agents (picklable)."""

    game: GameName
    env_id: str
    env_kwargs: tuple[tuple[str, Any], ...]
    agents: tuple[AgentSpec, ...]
    seed: int
    keep_actions: bool = False


class DealWorker:
    """One env and the run's agents; :meth:`play` plays every agent on each deal of a chunk."""

    def __init__(self, setup: WorkerSetup) -> None:
        import gymnasium as gym

        import solitaire_env  # noqa: F401  (registers the envs)
        from agents.registry import make_agent

        self.setup = setup
        self.env = gym.make(setup.env_id, **dict(setup.env_kwargs))
        self.agents: list[tuple[str, Agent]] = [
            (spec.key, make_agent(spec.name, setup.game, setup.seed, **spec.kwargs)) for spec in setup.agents
        ]

    def play(self, chunk: Chunk) -> list[EpisodeResult]:
        out = []
        for index, code in chunk:
            seed = agent_seed(self.setup.seed, code)
            for key, agent in self.agents:
                out.append(self.episode(key, agent, index, code, seed))
        return out

    def episode(self, key: str, agent: Agent, index: int, code: str, seed: int) -> EpisodeResult:
        """Play ``agent`` (reseeded with ``seed``) on ``code`` until terminated or truncated."""
        env = self.env
        start = time.perf_counter()
        cpu = time.process_time()
        obs, info = env.reset(options={"deal_code": code})
        agent.seed = seed
        agent.reset()
        base: Any = env.unwrapped
        terminated = truncated = False
        steps = 0
        while not (terminated or truncated):
            try:
                action = decide(agent, base.game, base.actions, env_output(env, obs, info))
            except ValueError as error:
                raise RuntimeError(f"agent {key!r} on deal {code} (seed {seed}), step {steps}: {error}") from None
            obs, _, terminated, truncated, info = env.step(action)
            steps += 1
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
        reason = info.get("truncated_reason", "step_limit") if truncated else None
        game = base.game
        keep = self.setup.keep_actions
        return EpisodeResult(
            agent=key,
            index=index,
            code=code,
            seed=seed,
            won=bool(game.won),
            score=int(info["score"]),
            progress=int(game.progress),
            longest_chain=int(info["longest_chain"]),
            moves=int(info["moves"]),
            steps=steps,
            truncated_reason=reason,
            seconds=seconds,
            cpu_seconds=cpu,
            actions=tuple(base.actions) if keep else None,
            rules=dataclasses.asdict(game.rules) if keep else None,
        )

    def close(self) -> None:
        self.env.close()
