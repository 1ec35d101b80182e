"""Where a run's chunks of work run: this process, a local process pool, or a Ray cluster.

A run splits its work into chunks of (index, deal code) pairs (:func:`chunks`).  A worker class
is built once per worker from a picklable setup; its ``play(chunk)`` returns a list of results
and ``close()`` frees it (evaluation's ``DealWorker``, the hint benchmark's ``HintWorker``,
``solve``'s :class:`~solitaire_env.solve_runs.SolveWorker`).  The backends differ only in where
the workers live:

- :func:`run_local`: ``workers == 1`` plays in this process; more start a
  :class:`multiprocessing.pool.Pool` whose initializer builds one worker per process.
- :func:`run_ray`: one Ray actor per worker (``num_cpus=1`` each; default: every CPU of the
  cluster), chunks handed out as actors become free.  It joins a running Ray instance if there
  is one (``ray.init`` was called, or ``address`` / ``RAY_ADDRESS`` names a cluster), else
  starts a local one for the run.

Results reach ``on_chunk`` as each chunk finishes, in the order chunks finish.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from solitaire_env.common.pool import process_pool

__all__ = ["Chunk", "RayUnavailableError", "chunks", "import_ray", "run_local", "run_ray"]

#: A chunk of work: (deal index, deal code) pairs.
Chunk = list[tuple[int, str]]


def chunks(codes: Sequence[str], workers: int, *, most: int = 16) -> list[Chunk]:
    """The deals, numbered, in consecutive chunks: about 8 per worker, at most ``most`` deals each."""
    size = max(1, min(most, len(codes) // max(1, workers * 8)))
    numbered = list(enumerate(codes))
    return [numbered[i : i + size] for i in range(0, len(numbered), size)]


OnChunk = Callable[[list[Any]], None]
#: What the backends run: a class built once per worker from a picklable setup, whose
#: ``play(chunk)`` returns a list of results and ``close()`` frees it.
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


def run_local(setup: Any, work: list[Chunk], workers: int, on_chunk: OnChunk, *, worker_class: WorkerClass) -> None:
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
    worker_class: WorkerClass,
) -> int:
    """Play every chunk on Ray actors (one ``worker_class(setup)`` each); returns the number of
    actors.

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
