"""The ``rollout`` agent (agents/players/rollout.py) and its numba playouts (agents/players/playouts.py).

- Every move the agent names is legal (``decide`` raises otherwise), in both games and under the
  TriPeaks rule options.
- Its choice depends on the public state only: the unseen cards permuted (``with_unseen``) give
  the same public state and the same move; the same seed gives the same moves.
- Differential tests of the numba playouts against the rules core: from random positions of
  random deals under every rule option (wrap, draw, waste_start, jokers), a playout's moves
  (the base policy's, and uniformly random ones) replay legally through ``TriPeaksGame`` and its
  outcome (cards cleared, won) is the game's; the kernel's legal moves are the game's at every
  step; the base policy's move on the real public state is the playout's first move; the
  sampler keeps the seen cards and puts jokers only in the stock; a rollout on the true filling
  is the recorded playout.  ``-m slow`` runs thousands of deals.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.base import decide, public_state
from agents.players import playouts as K
from agents.players.rollout import FortyThievesRollout, TriPeaksRollout, tripeaks_inputs
from agents.registry import agent_class, make_agent
from solitaire_env.common.cards import JOKER
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import DRAW

RULE_OPTIONS = [
    {"draw": d, "waste_start": w, "jokers": j}
    for d, w, j in itertools.product(("anytime", "when_stuck"), ("card", "empty"), (0, 1, 2))
]


def _rank(card: int) -> int:
    return 0 if card == JOKER else card % 13 + 1


def _random_tripeaks(rng: np.random.Generator, code_seed: int, index: int) -> tuple[TriPeaksGame, list[int]]:
    """A random deal under random rule options, after a random number of random legal moves."""
    rule = "E" if index % 2 == 0 else "C"
    code = draw_codes(1, code_seed * 100_003 + index, "TP", rule)[0]
    game = make_game(code, RULE_OPTIONS[index % len(RULE_OPTIONS)])
    actions: list[int] = []
    for _ in range(int(rng.integers(0, 45))):
        if game.over:
            break
        action = int(rng.choice(game.legal_actions()))
        game.play(action)
        actions.append(action)
    return game, actions


def _check_playouts(n: int, code_seed: int) -> int:
    """The differential test on ``n`` random positions; returns how many were checked."""
    rng = np.random.default_rng(code_seed)
    params_chain = K.policy_params()
    params_random = K.policy_params(mode=K.MODE_RANDOM)
    params_eps = K.policy_params(eps=300)  # the chain policy, 30 % random removals
    net_rng = np.random.default_rng(code_seed + 99)  # the learned policy's kernels, a random network
    params_net = K.net_params(
        K.net_array(net_rng.normal(size=(8, K.N_FEATURES)), net_rng.normal(size=8), net_rng.normal(size=8), 0.0)
    )
    checked = 0
    for index in range(n):
        game, actions = _random_tripeaks(rng, code_seed, index)
        if game.over:
            continue
        slot_rank = np.array([_rank(c) for c in game.tableau], dtype=np.int64)
        stock_key = np.array([_rank(c) for c in game.stock], dtype=np.int64)
        state = public_state(game, actions)
        x = tripeaks_inputs(state)
        for params in (params_chain, params_random, params_eps, params_net):
            noise = rng.random(K.MAX_MOVES)
            cleared, moves = K.playout_record(
                slot_rank,
                stock_key,
                game.removed,
                game.stock_pos,
                x["key"],
                x["known"],
                x["stock_seen"],
                x["unseen"],
                game.rules.wrap,
                game.rules.draw == "when_stuck",
                params,
                noise,
            )
            replay = game.copy()
            for step, move in enumerate(moves.tolist()):
                assert not replay.over, (index, step)
                reason = replay.try_play(move)
                assert reason is None, (index, step, move, reason)
            assert replay.over, index
            assert cleared == replay.cleared and (cleared == 28) == replay.won, index
            if params is params_chain or params is params_net:
                first = K.policy_move(
                    x["layout"],
                    x["removed"],
                    x["known"],
                    x["key"],
                    x["pos"],
                    len(x["stock"]),
                    x["unseen"],
                    x["wrap"],
                    x["when_stuck"],
                    params,
                )
                assert len(moves) and first == moves[0], index
        checked += 1
    return checked


def test_playout_differential() -> None:
    assert _check_playouts(300, 1) > 250


@pytest.mark.slow
def test_playout_differential_many() -> None:
    assert _check_playouts(4000, 2) > 3500


def test_random_playouts_see_every_legal_move() -> None:
    """The random mode's moves at every step are exactly the game's legal moves (sampled)."""
    rng = np.random.default_rng(7)
    params = K.policy_params(mode=K.MODE_RANDOM)
    for index in range(60):
        game, actions = _random_tripeaks(rng, 3, index)
        if game.over:
            continue
        x = tripeaks_inputs(public_state(game, actions))
        slot_rank = np.array([_rank(c) for c in game.tableau], dtype=np.int64)
        stock_key = np.array([_rank(c) for c in game.stock], dtype=np.int64)
        legal = set(game.legal_actions())
        seen = set()
        for pick in np.linspace(0.0, 0.999, 40):
            _, moves = K.playout_record(
                slot_rank,
                stock_key,
                game.removed,
                game.stock_pos,
                x["key"],
                x["known"],
                x["stock_seen"],
                x["unseen"],
                game.rules.wrap,
                game.rules.draw == "when_stuck",
                params,
                np.full(1, pick),
            )
            seen.add(int(moves[0]))
        assert seen == legal, index


def test_sampler_keeps_what_was_seen() -> None:
    rng = np.random.default_rng(11)
    for index in range(40):
        game, actions = _random_tripeaks(rng, 4, index)
        if game.over:
            continue
        x = tripeaks_inputs(public_state(game, actions))
        width = len(x["ranks"]) + x["places"] + 1
        slot_rank = np.empty(28, np.int64)
        stock_key = np.empty(len(x["stock"]), np.int64)
        want = sorted(_rank(c) for c in game.unseen_cards())
        for u in rng.random((20, width)):
            K.fill_sample(x["layout"], x["stock"], x["ranks"], x["n_jokers"], u, slot_rank, stock_key)
            seen_l = x["layout"] >= 0
            seen_s = x["stock"] >= 0
            assert np.array_equal(slot_rank[seen_l], x["layout"][seen_l])
            assert np.array_equal(stock_key[seen_s], x["stock"][seen_s])
            assert (slot_rank >= 1).all()  # no joker in the tableau
            filled = sorted([*slot_rank[~seen_l].tolist(), *stock_key[~seen_s].tolist()])
            assert filled == want


def test_rollout_on_the_true_filling_is_the_recorded_playout() -> None:
    """With the unseen ranks given in their true order and an identity shuffle, the sample is
    the real deal: each candidate's cards cleared equal the recorded playout after it."""
    rng = np.random.default_rng(13)
    checked = 0
    for index in range(80):
        # the chain policy, and with ``eps`` random removals driven by the noise columns
        params = K.policy_params(eps=300 if index % 2 else 0)
        game, actions = _random_tripeaks(rng, 5, index)
        if game.over or game.rules.jokers:
            continue
        state = public_state(game, actions)
        x = tripeaks_inputs(state)
        truth = [_rank(c) for s, c in enumerate(game.tableau) if x["layout"][s] < 0]
        truth += [_rank(c) for p, c in enumerate(game.stock) if x["stock"][p] < 0]
        ranks = np.array(truth, dtype=np.int64)
        width = len(ranks) + x["places"] + 1
        uniforms = np.full((1, width + K.MAX_MOVES), 0.999999)
        uniforms[0, width:] = rng.random(K.MAX_MOVES)
        noise = uniforms[0, width:].copy()
        paths = np.array(state.legal, dtype=np.int64).reshape(-1, 1)
        got_all = K.rollout_counts(
            x["layout"],
            x["stock"],
            ranks,
            0,
            uniforms,
            x["removed"],
            x["pos"],
            x["key"],
            x["known"],
            x["stock_seen"],
            x["unseen"],
            x["wrap"],
            x["when_stuck"],
            paths,
            np.ones(len(paths), dtype=np.int64),
            params,
        )
        slot_rank = np.array([_rank(c) for c in game.tableau], dtype=np.int64)
        stock_key = np.array([_rank(c) for c in game.stock], dtype=np.int64)
        for i, action in enumerate(state.legal):
            after = game.copy()
            after.play(action)
            y = tripeaks_inputs(public_state(after, [*actions, action]))
            got, _ = K.playout_record(
                slot_rank,
                stock_key,
                after.removed,
                after.stock_pos,
                y["key"],
                y["known"],
                y["stock_seen"],
                y["unseen"],
                after.rules.wrap,
                after.rules.draw == "when_stuck",
                params,
                noise,
            )
            assert got_all[0, i] == got, (index, action)
        # two moves: every legal second move after every legal first one
        seen, two = K.rollout_two(
            x["layout"],
            x["stock"],
            ranks,
            0,
            uniforms,
            x["removed"],
            x["pos"],
            x["key"],
            x["known"],
            x["stock_seen"],
            x["unseen"],
            x["wrap"],
            x["when_stuck"],
            paths[:, 0].copy(),
            params,
        )
        for i, action in enumerate(state.legal):
            after = game.copy()
            after.play(action)
            revealed = (after.seen_slots & ~game.seen_slots) | (1 << 40 if after.stock_seen > game.stock_seen else 0)
            assert (seen[0, i] != 0) == (revealed != 0), (index, action)
            if after.over:
                assert two[0, i, 29] == after.cleared and (two[0, i, :29] == -1).all()
                continue
            legal2 = set(after.legal_actions())
            assert {b for b in range(29) if two[0, i, b] >= 0} == legal2, (index, action)
            for b in legal2:
                again = after.copy()
                again.play(b)
                z = tripeaks_inputs(public_state(again, [*actions, action, b]))
                got, _ = K.playout_record(
                    slot_rank,
                    stock_key,
                    again.removed,
                    again.stock_pos,
                    z["key"],
                    z["known"],
                    z["stock_seen"],
                    z["unseen"],
                    again.rules.wrap,
                    again.rules.draw == "when_stuck",
                    params,
                    np.zeros(1),
                )
                assert two[0, i, b] == got, (index, action, b)
        checked += 1
    assert checked > 20


def test_plans_are_legal_lines() -> None:
    rng = np.random.default_rng(17)
    for index in range(80):
        game, actions = _random_tripeaks(rng, 6, index)
        if game.over:
            continue
        state = public_state(game, actions)
        x = tripeaks_inputs(state)
        paths, lengths = K.plan_paths(
            x["layout"],
            x["removed"],
            x["known"],
            x["key"],
            x["pos"],
            len(x["stock"]),
            x["when_stuck"],
            x["wrap"],
            24,
            64,
        )
        assert set(paths[:, 0].tolist()) == set(state.legal)
        for path, n in zip(paths, lengths):
            line = game.copy()
            for step, action in enumerate(path[:n].tolist()):
                assert line.try_play(action) is None
                if step < n - 1:  # every move but the last keeps to known cards and reveals nothing
                    assert action != DRAW
                    assert line.seen_slots == game.seen_slots


def _play(agent: object, game: TriPeaksGame, limit: int = 200) -> list[int]:
    actions: list[int] = []
    while not game.over and len(actions) < limit:
        action = decide(agent, game, actions)  # type: ignore[arg-type]
        game.play(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("options", [{}, {"draw": "when_stuck", "jokers": 2}, {"waste_start": "empty", "jokers": 1}])
@pytest.mark.parametrize("rule", ["E", "C"])
def test_tripeaks_games_are_legal(rule: str, options: dict[str, object]) -> None:
    for extra in ({"plans": 16}, {"depth": 2}, {"samples": 20, "max_samples": 80}, {"eps": 0, "clear_weight": 0.1}):
        agent = TriPeaksRollout("tripeaks", seed=3, **{"samples": 40, **extra})  # type: ignore[arg-type]
        code = draw_codes(1, 21, "TP", rule)[0]
        game = make_game(code, options)
        _play(agent, game)
        assert game.over


def test_same_seed_same_choices() -> None:
    code = draw_codes(1, 5, "TP", "E")[0]
    runs = []
    for _ in range(2):
        agent = TriPeaksRollout("tripeaks", seed=9, samples=60, depth=2)
        runs.append(_play(agent, make_game(code)))
    assert runs[0] == runs[1]


def _permuted_unseen(state: object, rng: np.random.Generator) -> list[int]:
    """The unseen cards permuted, jokers kept in stock places (a deal never has one in the tableau)."""
    unseen = list(state.unseen)  # type: ignore[attr-defined]
    layout_places = sum(1 for c in state.layout if c is None)  # type: ignore[attr-defined]
    while True:
        cards = [int(c) for c in rng.permutation(unseen)]
        if JOKER not in cards[:layout_places]:
            return cards


@pytest.mark.parametrize("options", [{}, {"jokers": 2, "waste_start": "empty"}])
def test_tripeaks_choice_ignores_the_unseen_order(options: dict[str, object]) -> None:
    rng = np.random.default_rng(23)
    agents = [
        TriPeaksRollout("tripeaks", seed=1, samples=80),
        TriPeaksRollout("tripeaks", seed=1, samples=40, max_samples=160),
        TriPeaksRollout("tripeaks", seed=1, samples=80, plans=8),
        TriPeaksRollout("tripeaks", seed=1, samples=60, depth=2),
        TriPeaksRollout("tripeaks", seed=1, samples=80, eps=0),
        TriPeaksRollout("tripeaks", seed=1, samples=80, eps=300, clear_weight=0.5),
    ]
    checked = 0
    for index in range(12):
        code = draw_codes(1, 700 + index, "TP", "E" if index % 2 else "C")[0]
        game = make_game(code, options)
        actions: list[int] = []
        for _ in range(int(rng.integers(0, 30))):
            if game.over:
                break
            action = int(rng.choice(game.legal_actions()))
            game.play(action)
            actions.append(action)
        if game.over:
            continue
        state = public_state(game, actions)
        for _ in range(2):
            other = state.with_unseen(_permuted_unseen(state, rng))
            state2 = public_state(other, actions)
            assert state2.fingerprint() == state.fingerprint()
            for agent in agents:
                assert agent.act(state2) == agent.act(state)
        checked += 1
    assert checked >= 6


def test_fortythieves_rollout() -> None:
    """Legal moves for a stretch of a game, the same move for permuted unseen cards, and the same
    moves for the same seed."""
    rng = np.random.default_rng(29)
    code = draw_codes(1, 3, "FT", "N")[0]
    lines = []
    for _ in range(2):
        agent = FortyThievesRollout("fortythieves", seed=4, samples=1, horizon=8, candidates=4)
        game = make_game(code)
        actions: list[int] = []
        while not game.over and len(actions) < 40:
            action = decide(agent, game, actions)
            game.play(action)
            actions.append(action)
        lines.append(actions)
    assert lines[0] == lines[1]
    state = public_state(game, actions)
    agent = FortyThievesRollout("fortythieves", seed=4, samples=2, horizon=8)
    for _ in range(2):
        other = state.with_unseen([int(c) for c in rng.permutation(list(state.unseen))])
        assert agent.act(public_state(other, actions)) == agent.act(state)


def test_registered_for_both_games() -> None:
    assert agent_class("rollout", "tripeaks") is TriPeaksRollout
    assert agent_class("rollout", "fortythieves") is FortyThievesRollout
    agent = make_agent("rollout", "tripeaks", seed=2, samples=10)
    assert isinstance(agent, TriPeaksRollout) and agent.samples == 10
    with pytest.raises(ValueError):
        TriPeaksRollout("tripeaks", samples=0)
