"""Where evaluation episodes run: this process, a local process pool, or a Ray cluster.

The work is split by deal.  A :class:`DealWorker` holds one env and the run's agents (built
once per worker) and plays every agent on each deal it is given; the backends only differ in
where the workers live and how chunks of deals reach them:

- :func:`run_local`: ``workers == 1`` plays in this process; more start a
  :class:`multiprocessing.pool.Pool` whose initializer builds one :class:`DealWorker` per
  process.
- :func:`run_ray`: one Ray actor per worker (``num_cpus=1`` each; default: every CPU of the
  cluster), chunks handed out as actors become free.  It joins a running Ray instance if there
  is one (``ray.init`` was called, or ``address`` / ``RAY_ADDRESS`` names a cluster), else
  starts a local one for the run.

Each move, the agent gets the public state and what the env returned there (observation, info,
mask: :class:`agents.base.EnvOutput`, through :func:`agents.base.decide`).

An episode's agent is seeded from the evaluation seed and the deal code (:func:`agent_seed`),
so its result depends on neither the backend, the number of workers nor the number of deals.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agents.base import Agent, GameName, decide, env_output
from agents.evaluation.specs import AgentSpec
from solitaire_env.common.pool import process_pool

__all__ = ["DealWorker", "EpisodeResult", "WorkerSetup", "agent_seed", "chunks", "run_local", "run_ray"]

#: A chunk of work: (deal index, deal code) pairs.
Chunk = list[tuple[int, str]]


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


def chunks(codes: Sequence[str], workers: int, *, most: int = 16) -> list[Chunk]:
    """The deals, numbered, in consecutive chunks: about 8 per worker, at most ``most`` deals each."""
    size = max(1, min(most, len(codes) // max(1, workers * 8)))
    numbered = list(enumerate(codes))
    return [numbered[i : i + size] for i in range(0, len(numbered), size)]


OnChunk = Callable[[list[Any]], None]
#: What the backends run: a class built once per worker from a picklable setup, whose
#: ``play(chunk)`` returns a list of results and ``close()`` frees it (:class:`DealWorker`;
#: the hint benchmark's worker is another).
WorkerClass = Callable[[Any], Any]

# --------------------------------------------------------------------------- local processes

_WORKER: Any = None
_WORKER_ERROR: str | None = None


def _init_worker(worker_class: WorkerClass, setup: Any) -> None:
    # an initializer that raises makes the pool start new workers forever: keep the error
    # and raise it with the first chunk instead
    global _WORKER, _WORKER_ERROR
    try:
        _WORKER = worker_class(setup)
    except Exception as error:
        _WORKER_ERROR = f"a worker could not build its env and agents: {type(error).__name__}: {error}"


def _play_chunk(chunk: Chunk) -> list[Any]:
    if _WORKER is None:
        raise RuntimeError(_WORKER_ERROR or "the pool initializer did not run")
    results: list[Any] = _WORKER.play(chunk)
    return results


def run_local(
    setup: Any, work: list[Chunk], workers: int, on_chunk: OnChunk, *, worker_class: WorkerClass = DealWorker
) -> None:
    """Play every chunk: in this process (``workers == 1``) or in a pool of ``workers`` processes,
    each with one ``worker_class(setup)``."""
    if workers <= 1:
        worker = worker_class(setup)
        try:
            for chunk in work:
                on_chunk(worker.play(chunk))
        finally:
            worker.close()
        return
    with process_pool(workers, initializer=_init_worker, initargs=(worker_class, setup)) as pool:
        for results in pool.imap_unordered(_play_chunk, work):
            on_chunk(results)


# --------------------------------------------------------------------------- Ray


class RayUnavailableError(RuntimeError):
    """``backend: ray`` without the ``ray`` package."""


def import_ray() -> Any:
    """The ``ray`` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(
            "backend ray needs the ray package: pip install 'solitaire-env[ray]' (or pip install 'ray>=2.9')"
        ) from None
    return ray


def run_ray(
    setup: Any,
    work: list[Chunk],
    workers: int | None,
    on_chunk: OnChunk,
    *,
    address: str | None = None,
    worker_class: WorkerClass = DealWorker,
) -> int:
    """Play every chunk on Ray actors (one ``worker_class(setup)``, by default a
    :class:`DealWorker`, each); returns the number of actors.

    Joins the running Ray instance if this process already called ``ray.init``; else calls
    ``ray.init(address)`` (``None``: ``RAY_ADDRESS`` or a new local instance) and shuts it
    down afterwards.  ``workers`` defaults to the cluster's CPUs and is capped by them.
    """
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        import logging

        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
        started = True
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        n = max(1, min(workers or cpus, cpus, len(work)))
        actor_class = ray.remote(num_cpus=1)(worker_class)
        actors = [actor_class.remote(setup) for _ in range(n)]
        pending: dict[Any, Any] = {}
        queue: Iterator[Chunk] = iter(work)

        def submit(actor: Any) -> None:
            chunk = next(queue, None)
            if chunk is not None:
                pending[actor.play.remote(chunk)] = actor

        for actor in actors:  # two chunks in flight per actor: no idle gap between chunks
            submit(actor)
            submit(actor)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                actor = pending.pop(ref)
                try:
                    rows = ray.get(ref)
                except ray.exceptions.RayError as error:  # the remote traceback: keep its last line
                    lines = [line for line in str(error).splitlines() if line.strip()]
                    raise RuntimeError(f"a Ray worker failed: {lines[-1].strip() if lines else error!r}") from None
                on_chunk(rows)
                submit(actor)
        for actor in actors:
            ray.kill(actor)
        return n
    finally:
        if started:
            ray.shutdown()
