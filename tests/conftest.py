"""Shared helpers of the environment tests: deal strings, random play and deep comparison.

Test modules import these with ``from conftest import ...`` (pytest puts ``tests/`` on
``sys.path``).  The hypothesis profile ``solitaire_env`` turns the per-example deadline
off: a shared, noisy machine must not make a property test flaky.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings

from solitaire_env.cards import card_id, card_text

settings.register_profile(
    "solitaire_env",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "solitaire_env"))

TRIPEAKS_ID = "solitaire_env/TriPeaks-v0"

#: An order in which the 28 slots can be removed one after the other: each card is exposed
#: when its turn comes (bottom row, then row 3, row 2, the apexes).
CLEAR_ORDER = (*range(18, 28), *range(9, 18), *range(3, 9), *range(3))


def deal_string(tableau: list[int], waste: int, stock: list[int]) -> str:
    """The TriPeaks deal string of card ids: 28 tableau cards in slot order | waste | stock."""
    assert len(tableau) == 28
    return " | ".join(" ".join(card_text(c) for c in part) for part in (tableau, [waste], stock))


def winnable_deal(draws_before: int = 0) -> str:
    """A deal cleared in one chain by removing the slots in :data:`CLEAR_ORDER`.

    The waste starts on an ace; the removals go 2, 3, ..., K, Q, ..., A, 2, 3, 4, 5, so every
    step is one rank away and the deal wins with or without K-A wrapping.  With
    ``draws_before`` > 0 the stock starts with that many cards ending in an ace, so that the
    winning line is ``draws_before`` draws followed by the 28 removals (the waste then starts
    on a king).
    """
    ranks = [*range(2, 14), *range(12, 0, -1), 2, 3, 4, 5]
    assert len(ranks) == 28
    used: Counter[int] = Counter()

    def take(rank: int) -> int:
        card = card_id(rank, used[rank])
        used[rank] += 1
        return card

    waste = take(1) if draws_before == 0 else take(13)
    tableau = [0] * 28
    for slot, rank in zip(CLEAR_ORDER, ranks):
        tableau[slot] = take(rank)
    head = []
    if draws_before:
        last = take(1)  # the last card drawn before the removals is an ace
        fillers = sorted(set(range(52)) - set(tableau) - {waste, last})
        head = [*fillers[: draws_before - 1], last]
    rest = sorted(set(range(52)) - set(tableau) - {waste} - set(head))
    return deal_string(tableau, waste, head + rest)


def legal_actions(mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(mask)


def random_masked_episode(env: Any, rng: np.random.Generator, **reset_kwargs: Any) -> list[tuple[Any, ...]]:
    """Play random legal actions until the episode ends; the list of every reset/step result."""
    obs, info = env.reset(**reset_kwargs)
    out: list[tuple[Any, ...]] = [(obs, info)]
    done = False
    while not done:
        action = int(rng.choice(legal_actions(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, obs, reward, terminated, truncated, info))
        done = terminated or truncated
    return out


def assert_same(a: Any, b: Any, path: str = "") -> None:
    """Deep equality of observations, infos and views: arrays by value, shape and dtype."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), path
        assert a.dtype == b.dtype and a.shape == b.shape, path
        assert np.array_equal(a, b), path
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{path}: {sorted(a)} != {sorted(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"
