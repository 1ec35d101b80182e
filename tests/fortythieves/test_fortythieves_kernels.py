"""The numba rule kernels of Forty Thieves against their pure-Python twins and the rules core.

:mod:`solitaire_env.fortythieves.kernels` is the only numba copy of the rules and
:mod:`solitaire_env.fortythieves.rules` the only Python one; the game
(:class:`~solitaire_env.fortythieves.game.FortyThievesGame`) is built on the Python one.  Every
primitive is compared on every card pair (where that is small) and on thousands of positions
from random play (many seeds, both ``foundation_return`` settings): the legal mask, builds-on,
the column refusals, the foundation that takes a card, the safe foundation move, the
foundation's top card.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from solitaire_env.fortythieves import kernels as NK
from solitaire_env.fortythieves import rules as R
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    NUM_SOURCES,
    WASTE,
    FortyThievesRules,
)

SEEDS = range(30)
STEPS = 160


@njit(cache=False)  # never cached: numba's cache misses edits of the kernels it inlines
def _foundation_table(heights: np.ndarray) -> np.ndarray:
    """``foundation_for`` and ``is_safe`` of every card, computed inside numba: (52, 2)."""
    out = np.empty((52, 2), dtype=np.int64)
    for c in range(52):
        out[c, 0] = NK.foundation_for(heights, c)
        out[c, 1] = 1 if NK.is_safe(heights, c) else 0
    return out


@njit(cache=False)  # never cached: numba's cache misses edits of the kernels it inlines
def _pair_table() -> np.ndarray:
    """``builds_on`` and ``column_refusal`` of every (card, top) pair inside numba, top -1 = empty."""
    out = np.empty((52, 53, 2), dtype=np.int64)
    for c in range(52):
        for t in range(-1, 52):
            out[c, t + 1, 0] = 1 if t >= 0 and NK.builds_on(c, t) else 0
            out[c, t + 1, 1] = NK.column_refusal(c, t)
    return out


def _positions(foundation_return: bool) -> list[FortyThievesGame]:
    """Positions of random play (foundation moves preferred half of the time, so that the
    foundations grow; sometimes an undo), copies of the game at every step."""
    out = []
    for seed in SEEDS:
        rng = random.Random(seed * 2 + foundation_return)
        rules = FortyThievesRules(foundation_return=foundation_return)
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)
        for _ in range(STEPS):
            out.append(game.copy())
            legal = game.legal_actions()
            if not legal:
                break
            if rng.random() < 0.05 and game.can_undo:
                game.undo()
                continue
            found = [a for a in legal if a != DRAW and a % NUM_DESTS == FOUNDATION]
            game.play(rng.choice(found) if found and rng.random() < 0.5 else rng.choice(legal))
    return out


@pytest.fixture(scope="module", params=[True, False], ids=["return", "no_return"])
def positions(request: pytest.FixtureRequest) -> list[FortyThievesGame]:
    return _positions(request.param)


def _movable(game: FortyThievesGame) -> list[tuple[int, int]]:
    """``(source, its top card)`` of every source a card may leave now (none once won)."""
    if game.won:
        return []
    out = []
    for src in range(NUM_SOURCES):
        card = game.source_card(src)
        if card is not None and (src < FIRST_FOUNDATION_SRC or game.rules.foundation_return):
            out.append((src, card))
    return out


def _kernel_mask(game: FortyThievesGame) -> int:
    """The legal mask assembled from the numba ``source_dests`` of every source."""
    heights = np.array(game.foundations, dtype=np.int64)
    empty = sum(1 << j for j in range(NUM_COLUMNS) if not game.columns[j])
    bits = 0
    for src, card in _movable(game):
        parent = int(NK.PARENT_ARRAY[card])
        parents = sum(1 << j for j in range(NUM_COLUMNS) if game.columns[j] and game.columns[j][-1] == parent)
        bits |= NK.source_dests(src, card, empty, parents, heights) << (src * NUM_DESTS)
    return bits | (1 << DRAW if game.stock_count and not game.won else 0)


def _python_mask(game: FortyThievesGame) -> int:
    """The legal mask assembled from the pure-Python primitives of ``rules``."""
    bits = 0
    for src, card in _movable(game):
        for dst in range(NUM_COLUMNS):
            col = game.columns[dst]
            if dst != src and R.column_accepts(card, col[-1] if col else None):
                bits |= 1 << (src * NUM_DESTS + dst)
        if src < FIRST_FOUNDATION_SRC and R.foundation_for(game.foundations, card) is not None:
            bits |= 1 << (src * NUM_DESTS + FOUNDATION)
    return bits | (1 << DRAW if game.stock_count and not game.won else 0)


def test_the_positions_cover_the_rules(positions: list[FortyThievesGame]) -> None:
    """The random positions reach what the primitives decide: founded cards, empty columns,
    safe and unsafe foundation moves, foundation returns."""
    assert len(positions) > 3000
    assert max(g.founded for g in positions) >= 12
    assert any(not col for g in positions for col in g.columns)
    safe = unsafe = 0
    for g in positions:
        for src in range(WASTE + 1):
            card = g.source_card(src)
            if card is not None and R.foundation_for(g.foundations, card) is not None:
                if R.is_safe(g.foundations, card):
                    safe += 1
                else:
                    unsafe += 1
    assert safe > 100 and unsafe > 100
    if positions[0].rules.foundation_return:
        assert any(g.legal_mask() >> ((FIRST_FOUNDATION_SRC + f) * NUM_DESTS + d) & 1
                   for g in positions for f in range(NUM_FOUNDATIONS) for d in range(NUM_COLUMNS))  # fmt: skip


def test_legal_mask_kernel_python_and_game(positions: list[FortyThievesGame]) -> None:
    for game in positions:
        mask = game.legal_mask()
        assert _kernel_mask(game) == mask, game
        assert _python_mask(game) == mask, game


def test_foundation_for_and_is_safe(positions: list[FortyThievesGame]) -> None:
    for game in positions:
        fnd = game.foundations
        table = _foundation_table(np.array(fnd, dtype=np.int64))
        for card in range(52):
            f = R.foundation_for(fnd, card)
            assert f == game.foundation_for(card)
            assert table[card, 0] == (-1 if f is None else f)
            safe = R.is_safe(fnd, card)
            assert bool(table[card, 1]) == safe
            # the rule in words: both copies of the rank below founded (for an ace: always)
            suit, rank = divmod(card, 13)
            copies_below = sum(1 for g in R.SUIT_FOUNDATIONS[suit] if fnd[g] >= rank)
            assert safe == (copies_below == 2 and f is not None)
            if f is not None:
                assert fnd[f] == rank and all(fnd[g] != rank for g in R.SUIT_FOUNDATIONS[suit] if g < f)


def test_foundation_card_is_the_games_foundation_top(positions: list[FortyThievesGame]) -> None:
    for game in positions[::7]:
        for f in range(NUM_FOUNDATIONS):
            n = game.foundations[f]
            if n:
                assert R.foundation_card(f, n) == NK.foundation_card(f, n) == game.foundation_top(f)
                assert game.source_card(FIRST_FOUNDATION_SRC + f) == R.foundation_card(f, n)


def test_builds_on_and_refusals_on_every_pair() -> None:
    table = _pair_table()
    for card in range(52):
        for top in range(-1, 52):
            py_top = None if top < 0 else top
            builds = top >= 0 and R.builds_on(card, top)
            refusal = R.column_refusal(card, py_top)
            assert bool(table[card, top + 1, 0]) == builds
            assert NK.REFUSALS[table[card, top + 1, 1]] == (refusal or "")
            assert R.column_accepts(card, py_top) == (refusal is None) == (top < 0 or builds)
            # in words: same suit, one rank lower; nothing on an ace; an empty column takes any card
            if top >= 0:
                assert builds == (top // 13 == card // 13 and top % 13 == card % 13 + 1)
    assert not any(R.builds_on(card, ace) for card in range(52) for ace in (0, 13, 26, 39))


def test_column_moves_agree_with_the_games_reasons(positions: list[FortyThievesGame]) -> None:
    """``builds_on`` / ``column_refusal`` (both twins) decide every column move as the game's
    ``illegal_reason`` does."""
    for game in positions[::3]:
        if game.won:
            continue
        for src in range(NUM_SOURCES):
            card = game.source_card(src)
            if card is None or (src >= FIRST_FOUNDATION_SRC and not game.rules.foundation_return):
                continue
            for dst in range(NUM_COLUMNS):
                if dst == src:
                    continue
                col = game.columns[dst]
                top = col[-1] if col else None
                want = game.illegal_reason(src * NUM_DESTS + dst)
                assert R.column_refusal(card, top) == want
                assert NK.REFUSALS[NK.column_refusal(card, -1 if top is None else top)] == (want or "")
                assert R.column_accepts(card, top) == (want is None)
