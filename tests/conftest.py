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

from solitaire_env.common.cards import NUM_CARDS, card_id, card_text, parse_card
from solitaire_env.fortythieves.deal import FortyThievesDeal

settings.register_profile(
    "solitaire_env",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "solitaire_env"))

TRIPEAKS_ID = "solitaire_env/TriPeaks-v0"
FORTYTHIEVES_ID = "solitaire_env/FortyThieves-v0"

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


# --------------------------------------------------------------------------- Forty Thieves


def ft_cards(text: str) -> list[int]:
    """Card ids of a blank-separated list of card texts (``"AS 2H"``)."""
    return [parse_card(tok) for tok in text.split()]


def ft_deal_string(columns: list[list[int]], stock: list[int]) -> str:
    """The Forty Thieves deal string of card ids: 10 columns bottom to top | the stock in draw order."""
    assert len(columns) == 10
    return " | ".join(" ".join(card_text(c) for c in part) for part in (*columns, stock))


def ft_deal(columns: list[str], stock_head: str = "") -> FortyThievesDeal:
    """A hand-made deal: ``columns`` are 10 texts of 4 cards (bottom to top); the stock starts
    with ``stock_head`` (drawn first) and goes on with every other card of the two decks in id order."""
    assert len(columns) == 10
    cols = [ft_cards(text) for text in columns]
    assert all(len(col) == 4 for col in cols), columns
    head = ft_cards(stock_head)
    left = Counter({c: 2 for c in range(NUM_CARDS)})
    left.subtract([*[c for col in cols for c in col], *head])
    assert min(left.values()) >= 0, "a card more than twice"
    return FortyThievesDeal.parse(ft_deal_string(cols, [*head, *sorted(left.elements())]))


#: Where each foundation source / destination is in an action (``src * 11 + dst``).
FT_WASTE, FT_FOUNDATION, FT_DRAW = 10, 10, 209


def ft_move(src: int, dst: int) -> int:
    return src * 11 + dst


def ft_example_win() -> tuple[FortyThievesDeal, list[int]]:
    """Seed 004's example score, made real: a deal and a 197-move line that founds all 104 cards
    with exactly 29 waste-to-column moves and no foundation return (app score 1040 + 29 * 5 = 1185).

    Columns 1-8 hold K Q J T (bottom to top) of the foundation suits S H D C S H D C; columns 9
    and 10 hold 9C 9D 9H 9S.  The stock is A..8 of every suit twice, ordered so that: for S, H,
    D, C the 8 down to the 2 are drawn and laid on column 9's top nine (28 waste-to-column moves),
    the ace is drawn and founded, then column 9 is founded up to its nine; then 8S goes on column
    10's 9S (the 29th), AS..7S, AH..8H, AD..8D and AC..8C are founded straight from the waste and
    column 10 after them; last the 32 cards of columns 1-8 are founded.
    """
    suits = "SHDC"
    columns = [f"K{s} Q{s} J{s} T{s}" for s in suits * 2] + ["9C 9D 9H 9S"] * 2
    stock = [f"{r}{s}" for s in suits for r in "8765432A"]
    stock += ["8S", *(f"{r}S" for r in "A234567")]
    stock += [f"{r}{s}" for s in "HDC" for r in "A2345678"]
    deal = ft_deal(columns, " ".join(stock))
    assert len(deal.stock) == 64 and " ".join(stock) == " ".join(card_text(c) for c in deal.stock)
    line: list[int] = []
    for _ in suits:  # column 9 (index 8)
        for _ in range(7):
            line += [FT_DRAW, ft_move(FT_WASTE, 8)]
        line += [FT_DRAW, ft_move(FT_WASTE, FT_FOUNDATION)]
        line += [ft_move(8, FT_FOUNDATION)] * 8
    line += [FT_DRAW, ft_move(FT_WASTE, 9)]  # 8S on column 10's 9S
    line += [FT_DRAW, ft_move(FT_WASTE, FT_FOUNDATION)] * 7 + [ft_move(9, FT_FOUNDATION)] * 2
    for _ in "HDC":
        line += [FT_DRAW, ft_move(FT_WASTE, FT_FOUNDATION)] * 8 + [ft_move(9, FT_FOUNDATION)]
    for j in range(8):
        line += [ft_move(j, FT_FOUNDATION)] * 4
    assert len(line) == 197
    return deal, line


# A position for the move rules.  Column tops (1..10): 8S 7S 8H AS 7S 9S 6S KH 5S AH.
# Column 5 holds the same-suit run 8S 7S; column 10 (4H 3H 2H AH) empties into the foundations
# in four moves.  The stock starts with 6H QD 8D.
FT_MOVE_COLUMNS = [
    "2C 3C 4C 8S",
    "5C 6C 8H 7S",
    "7C 8C 9C 8H",
    "TC JC 9S AS",
    "QC KC 8S 7S",
    "2D 3D 4D 9S",
    "5D 6D 7D 6S",
    "8D 9D TD KH",
    "JD QD KD 5S",
    "4H 3H 2H AH",
]
FT_MOVE_DEAL = ft_deal(FT_MOVE_COLUMNS, "6H QD 8D")
FT_EMPTY_COLUMN_10 = [ft_move(9, FT_FOUNDATION)] * 4  # AH 2H 3H 4H to the hearts foundation: column 10 is empty

# No move but the draws: every column top is a two or a 4C, the aces lie at the bottom, and the
# last stock card is KS (no empty column for it).
FT_STUCK_COLUMNS = [
    "AC KC QC 2C",
    "AC KC QC 2C",
    "AD KD QD 2D",
    "AD KD QD 2D",
    "AH KH QH 2H",
    "AH KH QH 2H",
    "AS JC JC 2S",
    "AS JD JD 2S",
    "JH JH 5C 4C",
    "5C 9C 9C 4C",
]
FT_STUCK_DEAL = ft_deal(FT_STUCK_COLUMNS)


def random_position(code: str, moves: int, seed: int) -> tuple[Any, list[int]]:
    """The rules-core game of a deal code after up to ``moves`` random legal moves, and the moves."""
    from solitaire_env.solvability import make_game

    game = make_game(code)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    for _ in range(moves):
        if game.over:
            break
        action = int(rng.choice(game.legal_actions()))
        game.play(action)
        actions.append(action)
    return game, actions


def ft_random_positions(count: int, seed: int) -> list[tuple[Any, list[int]]]:
    """Forty Thieves positions reached by random legal play, foundation moves preferred (the
    game and its actions; every fourth deal without foundation returns; a finished game is
    replaced by its deal's start)."""
    from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
    from solitaire_env.fortythieves.rules import FOUNDATION, NUM_DESTS
    from solitaire_env.solvability import draw_codes, make_game

    rng = np.random.default_rng(seed)
    out = []
    for i, code in enumerate(draw_codes(count, seed, "FT", "N")):
        game = make_game(code, {"foundation_return": i % 4 != 3})
        actions: list[int] = []
        for _ in range(int(rng.integers(0, 160))):
            legal = game.legal_actions()
            if not legal:
                break
            found = [a for a in legal if a != FT_DRAW and a % NUM_DESTS == FOUNDATION]
            action = int(rng.choice(found if found and rng.random() < 0.7 else legal))
            game.play(action)
            actions.append(action)
        if game.over:
            game = make_game(code)
            actions = []
        out.append((game, actions))
    return out
