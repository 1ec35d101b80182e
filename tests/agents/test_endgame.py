"""The exact fair values of :mod:`agents.players.endgame` (expectimax over the unseen cards).

Three checks that can each fail on their own:

- a Python twin, written over the rules core's pure functions (:mod:`solitaire_env.tripeaks.rules`)
  with a dict for memo, gives the same value for every legal move on late positions of random
  play, under every rule option that changes the search (K-A wrap, draws only when stuck, an
  empty waste at the start, jokers in the stock);
- no fair player beats one who sees every card: each value is at most the mean, over every
  filling of the unseen places, of the exact solver's verdict, and equal to it when one card is
  unseen (where it lies is then forced);
- the values are a function of what was seen: the unseen cards' places never enter.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from agents.base import public_state
from agents.players.endgame import fair_values, new_table
from agents.players.rollout import tripeaks_position
from solitaire_env import solve
from solitaire_env.dealing import make_game
from solitaire_env.solvability import draw_codes
from solitaire_env.tripeaks import rules as R

TABLE = new_table(16)


def _values(x, max_nodes: int = 200_000) -> tuple[list[int], list[float], int]:
    m, v, nodes = fair_values(
        x.layout, x.removed, x.key, x.unseen, len(x.stock) - x.pos, x.wrap, x.when_stuck, max_nodes, TABLE
    )
    return m.tolist(), v.tolist(), int(nodes)


def _twin(x) -> dict[int, float]:
    """The expectimax in plain Python over the rules core (no transposition of its own but a
    dict; ranks as tuples)."""
    wrap, when_stuck = bool(x.wrap), bool(x.when_stuck)
    ranks0 = tuple(int(r) if r > 0 else 0 for r in x.layout)

    @cache
    def value(removed: int, key: int, ranks: tuple[int, ...], counts: tuple[int, ...], stock: int) -> float:
        if removed == R.ALL_SLOTS:
            return 1.0
        exposed = R.exposed_slots(removed)
        moves = [s for s in range(R.NUM_SLOTS) if exposed >> s & 1 and R.follows(key, ranks[s], wrap)]
        best = 0.0
        for s in moves:
            best = max(best, removal(removed, s, ranks, counts, stock))
        mask = sum(1 << s for s in moves)
        if R.draw_allowed(stock, mask, when_stuck):
            best = max(best, draw(removed, ranks, counts, stock))
        return best

    def removal(removed: int, s: int, ranks: tuple[int, ...], counts: tuple[int, ...], stock: int) -> float:
        exposed = R.exposed_slots(removed)
        r2, e2 = R.remove_slot(removed, exposed, s)
        new = [t for t in range(R.NUM_SLOTS) if (e2 & ~exposed) >> t & 1 and ranks[t] == 0]
        return turn_up(r2, ranks[s], new, ranks, counts, stock)

    def turn_up(
        removed: int, key: int, new: list[int], ranks: tuple[int, ...], counts: tuple[int, ...], stock: int
    ) -> float:
        if not new:
            return value(removed, key, ranks, counts, stock)
        t, rest = new[0], new[1:]
        total = sum(counts[1:])
        ev = 0.0
        for r in range(1, R.NUM_KEYS):
            if counts[r]:
                c2 = (*counts[:r], counts[r] - 1, *counts[r + 1 :])
                r2 = (*ranks[:t], r, *ranks[t + 1 :])
                ev += counts[r] / total * turn_up(removed, key, rest, r2, c2, stock)
        return ev

    def draw(removed: int, ranks: tuple[int, ...], counts: tuple[int, ...], stock: int) -> float:
        jokers, others = counts[0], sum(counts[1:])
        ev = 0.0
        for r in range(R.NUM_KEYS):
            if counts[r]:
                p = jokers / stock if r == 0 else (1 - jokers / stock) * counts[r] / others
                c2 = (*counts[:r], counts[r] - 1, *counts[r + 1 :])
                ev += p * value(removed, r, ranks, c2, stock - 1)
        return ev

    counts0 = tuple(int(c) for c in x.unseen)
    stock0 = len(x.stock) - x.pos
    exposed = R.exposed_slots(x.removed)
    out = {}
    for s in range(R.NUM_SLOTS):
        if exposed >> s & 1 and R.follows(x.key, ranks0[s], wrap):
            out[s] = removal(x.removed, s, ranks0, counts0, stock0)
    moves = sum(1 << s for s in out)
    if R.draw_allowed(stock0, moves, when_stuck):
        out[R.DRAW] = draw(x.removed, ranks0, counts0, stock0)
    return out


def _late_positions(rule: str, rules: dict, n_deals: int, seed: int, small: int):
    """Public states of random play, from the move where the search fits in ``small`` positions."""
    rng = np.random.default_rng(seed)
    for code in draw_codes(n_deals, seed, "TP", rule):
        game = make_game(code, rules=rules or None)
        actions: list[int] = []
        while not game.over:
            legal = game.legal_actions()
            state = public_state(game, actions)
            x = tripeaks_position(state)
            _, _, nodes = _values(x, small)
            if 0 <= nodes <= small:
                yield state, x
            # mostly removals (random play that draws at every turn ends in a few moves)
            removals = [a for a in legal if a != R.DRAW]
            pool = removals if removals and rng.random() < 0.85 else legal
            a = int(pool[int(rng.integers(len(pool)))])
            game.play(a)
            actions.append(a)


@pytest.mark.parametrize(
    ("rule", "rules"),
    [
        ("E", {}),
        ("C", {}),
        ("E", {"draw": "when_stuck"}),
        ("C", {"waste_start": "empty"}),
        ("E", {"jokers": 1}),
        ("C", {"jokers": 2}),
    ],
)
def test_kernel_equals_its_python_twin(rule: str, rules: dict) -> None:
    checked = with_chance = 0
    for _, x in _late_positions(rule, rules, 40, 31, 400):
        moves, values, _ = _values(x)
        twin = _twin(x)
        assert moves == list(twin), (x, moves, list(twin))
        np.testing.assert_allclose(values, [twin[m] for m in moves], rtol=0, atol=1e-12)
        checked += 1
        with_chance += any(0.0 < v < 1.0 for v in values)
    assert checked >= 60 and with_chance >= 10, (checked, with_chance)


def test_no_fair_value_beats_full_information() -> None:
    """Each move's fair value is at most its mean solver verdict over every filling of the unseen
    places (equal when a single card is unseen)."""
    checked = equal = fractional = 0
    for state, x in _late_positions("E", {}, 30, 7, 2000):
        if not 1 <= len(state.unseen) <= 5:
            continue
        moves, values, _ = _values(x)
        # one filling per sequence of ranks (suits never matter): each such sequence stands for
        # as many fillings as any other, so their mean is the mean over every filling
        fillings: dict[tuple[int, ...], tuple[int, ...]] = {}
        for cards in itertools.permutations(state.unseen):
            fillings.setdefault(tuple(c % 13 for c in cards), cards)
        for move, v in zip(moves, values):
            wins = 0
            for cards in fillings.values():
                game = state.with_unseen(list(cards))
                game.play(move)
                wins += game.won or solve(game).status == "solved"
            bound = wins / len(fillings)
            assert v <= bound + 1e-12, (state.unseen, move, v, bound)
            if len(state.unseen) == 1:
                assert v == pytest.approx(bound, abs=1e-12)
                equal += 1
            fractional += 0.0 < v < 1.0
            checked += 1
    assert checked >= 30 and equal >= 3 and fractional >= 5, (checked, equal, fractional)


def test_values_read_only_what_was_seen() -> None:
    """Two games that differ only in where the unseen cards lie give the same values."""
    rng = np.random.default_rng(5)
    checked = 0
    for state, x in _late_positions("E", {}, 12, 3, 5000):
        if len(state.unseen) < 2:
            continue
        cards = list(state.unseen)
        rng.shuffle(cards)
        other = tripeaks_position(public_state(state.with_unseen(cards), list(state.actions)))
        assert _values(x) == _values(other)
        checked += 1
    assert checked >= 20


def test_budget_and_face_down_limits_return_no_values() -> None:
    game = make_game("TP1-E-AAAAAAB")
    x = tripeaks_position(public_state(game, []))
    moves, values, nodes = _values(x, 10)
    assert moves == [] and values == [] and nodes == -1  # 18 face-down cards: past MAX_FACE_DOWN
    for _state, x in _late_positions("E", {}, 5, 11, 100_000):
        full = _values(x)
        if full[2] > 3:
            moves, values, nodes = _values(x, full[2] - 1)
            assert moves == [] and values == [] and nodes == full[2]
            return
    pytest.fail("no position needed more than 3 nodes")
