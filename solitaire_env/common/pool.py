"""The one way this package starts worker processes: a pool of fresh interpreters.

:func:`process_pool` uses multiprocessing's ``spawn`` start method on every platform.  With
``fork`` (Linux's default) a worker is a copy of the parent, including the locks that the
parent's other threads held at that moment (numba's compiler, torch's and OpenMP's thread pools,
Ray's and tqdm's threads), and a worker that touches one waits forever.  That happened: in a
fresh clone (numba's cache empty, so every worker compiles) a ``solve --deals N --workers 2``
in the test suite hung with one worker dead and the other asleep on a futex (a CI run that
timed out at the same test was most likely this).  A spawned worker imports what it needs and
loads numba's cache itself.

A spawned worker first re-imports the caller's main script (as ``__mp_main__``).  A script that
starts a pool at its top level, without an ``if __name__ == "__main__":`` guard, makes each worker
try to start a pool of its own while it is still bootstrapping: the worker dies, and
multiprocessing's pool starts another, forever, at almost no CPU.  :func:`process_pool` waits
until a worker has answered once; when workers die before that, it stops the pool and raises
:class:`WorkerStartError`, whose one line names the cause and the two fixes.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any

__all__ = ["START_METHOD", "WorkerStartError", "process_pool"]

START_METHOD = "spawn"


#: How long to wait between looks at the workers while the pool starts.
_POLL_SECONDS = 0.05

WORKER_START_MESSAGE = (
    "the worker processes died while starting: a spawned worker re-runs the main script, so start the "
    'work under `if __name__ == "__main__":` (or pass workers=1)'
)


class WorkerStartError(RuntimeError):
    """The pool's workers died before any of them could run a task (see the module docstring)."""


def _ready() -> bool:
    return True


def _await_first_worker(pool: Pool, workers: int) -> None:
    """Return once a worker has run a task; raise :class:`WorkerStartError` when workers die first.

    multiprocessing replaces a dead worker silently, so a worker that dies while it starts is seen
    as a worker process that exited with an error, or as more worker processes than ``workers``.
    """
    answer = pool.apply_async(_ready)
    seen: set[int | None] = set()
    while not answer.ready():
        processes = list(getattr(pool, "_pool", []))
        seen.update(p.pid for p in processes)
        died = any(p.exitcode not in (None, 0) for p in processes)
        if died or len(seen) > workers:
            pool.terminate()
            raise WorkerStartError(WORKER_START_MESSAGE)
        answer.wait(_POLL_SECONDS)
    answer.get()


def process_pool(
    workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = (), **kwargs: Any
) -> Pool:
    """A :class:`multiprocessing.pool.Pool` of ``workers`` spawned processes (see the module
    docstring); ``initializer(*initargs)`` runs once in each.  Returns once a worker has started;
    raises :class:`WorkerStartError` when the workers die while starting."""
    pool = multiprocessing.get_context(START_METHOD).Pool(workers, initializer=initializer, initargs=initargs, **kwargs)
    _await_first_worker(pool, workers)
    return pool
