"""SplitMix64 in numba, as :class:`solitaire_env.common.deals.SplitMix64` (shared by the batch envs' kernels).

A generator's state is a one-element uint64 array.  :func:`below` draws uniformly in
``[0, n)`` by rejection exactly as ``SplitMix64.below``, so the kernels deal the same cards
as the rules core (tests compare them on thousands of seeds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: ``REST[n]`` = 2**64 mod n, for the rejection test of :func:`below` (n <= 104, two decks)
REST = np.array([0] + [(1 << 64) % n for n in range(1, 105)], dtype=np.uint64)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def next64(state: np.ndarray) -> np.uint64:
    s = state[0] + _GOLDEN
    state[0] = s
    z = (s ^ (s >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def below(state: np.ndarray, n: int) -> int:
    """SplitMix64.below: uniform in [0, n) by rejection (n <= 104)."""
    un = np.uint64(n)
    rest = REST[n]
    limit = np.uint64(0) - rest  # 2**64 - rest (0 stands for 2**64 when rest is 0)
    while True:
        x = next64(state)
        if rest == 0 or x < limit:
            return int(x % un)
