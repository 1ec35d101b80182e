"""KernelCall: the dispatcher's results, its path whenever the arguments may type otherwise."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from solitaire_env.common.kernel_call import KernelCall


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


@njit
def add_into(p, x, flag, n):
    """Add ``x`` (``n`` times, doubled when ``flag``) to ``p.a`` into ``p.b``; the types seen."""
    for i in range(p.a.size):
        p.b[i] = p.a[i] + (2 * x if flag else x) * n
    return p.b.sum()


def _pair(dtype: type = np.float64) -> Pair:
    return Pair(np.arange(4, dtype=dtype), np.zeros(4, dtype=dtype))


class Counting:
    """A dispatcher stand-in that counts the calls that take the dispatcher's path."""

    def __init__(self, dispatcher: object) -> None:
        self.dispatcher = dispatcher
        self.calls = 0

    def __call__(self, *args: object) -> object:
        self.calls += 1
        return self.dispatcher(*args)  # type: ignore[operator]

    @property
    def overloads(self) -> object:
        return self.dispatcher.overloads  # type: ignore[attr-defined]


def test_same_results_and_fast_path() -> None:
    slow = Counting(add_into)
    call = KernelCall(slow)
    p, q = _pair(), _pair()
    for n in (1, 2, 3, 1000, 10**12):
        for x in (0.5, 1.25):
            for flag in (False, True):
                expected = add_into(q, x, flag, n)
                assert call(p, x, flag, n) == expected
                np.testing.assert_array_equal(p.b, q.b)
    assert slow.calls == 1  # only the first call typed its arguments


def test_other_object_falls_back() -> None:
    slow = Counting(add_into)
    call = KernelCall(slow, size=1)
    p = _pair()
    call(p, 1.0, False, 1)
    call(p, 1.0, False, 2)
    assert slow.calls == 1
    other = _pair(np.int64)  # a new NamedTuple with arrays of another dtype: another overload
    assert call(other, 1.0, False, 1) == add_into(_pair(np.int64), 1.0, False, 1)
    np.testing.assert_array_equal(other.b, np.arange(4) + 1)
    assert slow.calls == 2
    call(other, 1.0, False, 3)
    assert slow.calls == 2
    call(p, 1.0, False, 1)  # forgotten (size 1): the dispatcher again
    assert slow.calls == 3
    call.forget()
    call(p, 1.0, False, 1)
    assert slow.calls == 4


def test_scalar_types_fall_back() -> None:
    p, q = _pair(), _pair()
    for args in ((1.0, False, 1), (1.0, 1, 1), (1, True, 1), (1.0, True, True)):
        add_into(q, *args)  # the four overloads, compiled before
    slow = Counting(add_into)
    call = KernelCall(slow, size=4)
    call(p, 1.0, False, 1)
    assert call(p, 1.0, 1, 1) == add_into(q, 1.0, 1, 1)  # an int where a bool was: another overload
    assert slow.calls == 2
    assert call(p, 1, True, 1) == add_into(q, 1, True, 1)  # an int where a float was
    assert slow.calls == 3
    assert call(p, 1.0, True, True) == add_into(q, 1.0, True, True)  # a bool where an int was
    assert slow.calls == 4
    assert call(p, 1.0, False, 5) == add_into(q, 1.0, False, 5)  # each remembered
    assert call(p, 2.0, 0, 5) == add_into(q, 2.0, 0, 5)
    assert call(p, 2.0, True, False) == add_into(q, 2.0, True, False)
    assert call(p, 3, False, 7) == add_into(q, 3, False, 7)
    assert slow.calls == 4


def test_new_overload_forgets() -> None:
    @njit
    def twice(x):
        return 2 * x

    slow = Counting(twice)
    call = KernelCall(slow)
    assert call(3) == 6  # the only overload (int64), remembered
    assert call(4) == 8 and slow.calls == 1
    twice.compile("float64(float64)")  # the dispatcher may now choose otherwise: not remembered
    assert call(4) == twice(4) and slow.calls == 2


def test_int_beyond_int64_falls_back() -> None:
    slow = Counting(add_into)
    call = KernelCall(slow)
    p, q = _pair(), _pair()
    call(p, 1.0, False, 1)
    big = 2**64 + 5  # no numba integer type: the dispatcher's own error
    with pytest.raises(OverflowError):
        add_into(q, 1.0, False, big)
    with pytest.raises(OverflowError):
        call(p, 1.0, False, big)
    assert slow.calls == 2  # the entry point could not unbox it: the dispatcher's path


def test_kwargs_and_lists_take_the_dispatcher() -> None:
    @njit
    def total(xs):
        s = 0
        for x in xs:
            s += x
        return s

    slow = Counting(total)
    call = KernelCall(slow)
    xs = [1, 2, 3]
    assert call(xs) == 6
    xs.append(4)  # a reflected list (its numba type follows its contents): never remembered
    assert call(xs) == 10
    assert slow.calls == 2
    assert KernelCall(add_into)(_pair(), 1.0, False, n=2) == add_into(_pair(), 1.0, False, 2)


def test_pickles_without_entries() -> None:
    call = KernelCall(add_into)
    call(_pair(), 1.0, False, 1)
    copy = pickle.loads(pickle.dumps(call))
    assert copy.dispatcher is add_into
    assert copy(_pair(), 1.0, False, 1) == add_into(_pair(), 1.0, False, 1)


_CACHED = """
from typing import NamedTuple
import numpy as np
from numba import njit
from solitaire_env.common.kernel_call import KernelCall

class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray

@njit(cache=True)
def scale(p, k):
    for i in range(p.a.size):
        p.b[i] = p.a[i] * k
    return p.b.sum()

p = Pair(np.arange(5.0), np.zeros(5))
call = KernelCall(scale)
out = [call(p, 3), call(p, 4), call(p, 5)]
assert out == [30.0, 40.0, 50.0], out
print(len(call._entries), scale.stats.cache_hits.most_common(), scale.stats.cache_misses.most_common())
"""


def test_cache_true_kernel_loaded_from_cache(tmp_path: object) -> None:
    import os
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "cached_kernel.py").write_text(textwrap.dedent(_CACHED))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(root), *sys.path])
    runs = [
        subprocess.run(
            [sys.executable, "-c", "import cached_kernel"], env=env, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0].startswith("1 [] [")  # compiled, remembered
    assert runs[1].startswith("1 [(") and runs[1].endswith("[]\n")  # loaded from the cache, remembered


@pytest.mark.parametrize("size", [1, 2])
def test_alternating_arguments(size: int) -> None:
    slow = Counting(add_into)
    call = KernelCall(slow, size=size)
    p, q = _pair(), _pair()
    for _ in range(5):
        call(p, 1.0, False, 1)
        call(q, 1.0, False, 1)
    assert slow.calls == (2 if size == 2 else 10)
