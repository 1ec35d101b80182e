"""The one way this package starts worker processes: a pool of fresh interpreters.

:func:`process_pool` uses multiprocessing's ``spawn`` start method on every platform.  With
``fork`` (Linux's default) a worker is a copy of the parent, including the locks that the
parent's other threads held at that moment (numba's compiler, torch's and OpenMP's thread pools,
Ray's and tqdm's threads), and a worker that touches one waits forever.  That happened: in a
fresh clone (numba's cache empty, so every worker compiles) a ``solve --deals N --workers 2``
in the test suite hung with one worker dead and the other asleep on a futex (a CI run that
timed out at the same test was most likely this).  A spawned worker imports what it needs and
loads numba's cache itself.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any

__all__ = ["START_METHOD", "process_pool"]

START_METHOD = "spawn"


def process_pool(
    workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = (), **kwargs: Any
) -> Pool:
    """A :class:`multiprocessing.pool.Pool` of ``workers`` spawned processes (see the module
    docstring); ``initializer(*initargs)`` runs once in each."""
    return multiprocessing.get_context(START_METHOD).Pool(workers, initializer=initializer, initargs=initargs, **kwargs)
