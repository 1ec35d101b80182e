"""Statistics shared by the solvability runs and the agents' evaluation: the Wilson score interval."""

from __future__ import annotations

import math

__all__ = ["wilson"]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share ``k / n`` (``z = 1.96``: 95%); ``(0, 1)`` when ``n == 0``.

    Unlike the normal approximation it stays inside [0, 1] and is honest at 0 and n (0 of
    1000 gives (0, 0.0038), not (0, 0)).
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"want 0 <= k <= n, got k={k!r}, n={n!r}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo, hi = centre - half, centre + half
    # exact at the ends (the formula gives them up to rounding)
    return (0.0 if k == 0 else max(0.0, lo)), (1.0 if k == n else min(1.0, hi))
