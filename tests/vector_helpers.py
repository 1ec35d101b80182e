"""What the batch-env tests of both games share."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same(a: Any, b: Any, path: str = "") -> None:
    """Recursive equality of vector-env outputs: dicts, arrays (object arrays element-wise), scalars."""
    if isinstance(a, dict) or isinstance(b, dict):
        assert isinstance(a, dict) and isinstance(b, dict), path
        assert set(a) == set(b), f"{path}: keys differ: {sorted(set(a) ^ set(b))}"
        for key in a:
            assert_same(a[key], b[key], f"{path}/{key}")
        return
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}.{k}")
        return
    if isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, path
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{k}]")
        return
    if a is None or b is None or isinstance(a, str):
        assert a == b, f"{path}: {a!r} != {b!r}"
        return
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    assert a_arr.shape == b_arr.shape, f"{path}: shape {a_arr.shape} != {b_arr.shape}"
    assert a_arr.dtype == b_arr.dtype or a_arr.dtype.kind == b_arr.dtype.kind, f"{path}: {a_arr.dtype} vs {b_arr.dtype}"
    assert np.array_equal(a_arr, b_arr), f"{path}: {a_arr} != {b_arr}"
