"""The Forty Thieves flat observer's incremental updates against its definition.

The observer rewrites only the piles a move touched; these tests rebuild the vector from
the layout's definition (docs/environments.md) at every step of random games with undos,
double moves between encodings and a bounded undo history, and demand equality.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import solitaire_env.fortythieves.observe as ob
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import NUM_ACTIONS, FortyThievesRules


def encode_by_definition(game: FortyThievesGame, oracle: bool) -> np.ndarray:
    buf = np.zeros(ob.ORACLE_SIZE if oracle else ob.FLAT_SIZE, np.float32)

    def put(at: int, card: int) -> None:
        buf[at + card % 13] = 1.0
        buf[at + 13 + card // 13] = 1.0

    for j, col in enumerate(game.columns):
        for i, card in enumerate(col):
            put((16 * j + i) * 17, card)
        buf[ob.LENGTHS_OFFSET + j] = len(col) / 16
    for p, card in enumerate(game.waste):
        put(ob.WASTE_OFFSET + 17 * p, card)
    if game.waste:
        put(ob.WASTE_TOP_OFFSET, game.waste[-1])
    buf[ob.WASTE_SIZE_OFFSET] = len(game.waste) / 64
    for f, n in enumerate(game.foundations):
        buf[ob.FOUNDATIONS_OFFSET + f] = n / 13
    buf[ob.STOCK_OFFSET] = (64 - game.stock_pos) / 64
    for card in game.stock[game.stock_seen :]:
        buf[ob.UNSEEN_OFFSET + card] += 0.5
    if oracle:
        for p in range(game.stock_pos, 64):
            put(ob.ORACLE_STOCK_OFFSET + 17 * p, game.stock[p])
    return buf


@pytest.mark.parametrize("mode", ["flat", "oracle"])
def test_incremental_encoding_equals_the_definition(mode: str) -> None:
    rnd = random.Random(5)
    for seed in range(40):
        rules = FortyThievesRules(undo_limit=None if seed % 4 else 5, foundation_return=seed % 3 > 0)
        game = FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)
        observer = ob.FortyThievesObserver(mode)
        for _ in range(200):
            vector = observer.encode(game)
            assert np.array_equal(vector, encode_by_definition(game, mode == "oracle"))
            assert np.array_equal(vector, ob.FortyThievesObserver(mode).encode(game))
            if not game.legal_mask():
                break
            r = rnd.random()
            if r < 0.1 and game.can_undo:
                game.undo()
                continue
            for _ in range(1 if r < 0.9 else 2):  # sometimes two moves between encodings
                mask = game.legal_mask()
                if not mask:
                    break
                legal = [a for a in range(NUM_ACTIONS) if mask >> a & 1]
                founding = [a for a in legal if a % 11 == 10 and a < 209]
                returning = [a for a in legal if 121 <= a < 209]
                if founding and rnd.random() < 0.5:
                    game.play(rnd.choice(founding))
                elif returning and rnd.random() < 0.2:
                    game.play(rnd.choice(returning))
                else:
                    game.play(rnd.choice(legal))
