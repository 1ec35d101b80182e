"""agents.training.move_values and agents.training.shaping: the playout values against the rules core, the fair
estimate against the rollout agent's kernel, the shaped rewards."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from vector_helpers import tripeaks_lockstep

from agents.base import public_state
from agents.players import playouts as P
from agents.players.rollout import DEFAULT_POLICY
from agents.training.move_values import action_values, potentials
from agents.training.shaping import PlayoutShaping
from solitaire_env.sb3 import SB3VecEnv
from solitaire_env.solvability import draw_codes
from solitaire_env.tripeaks.rules import ALL_SLOTS

PARAMS = P.policy_params(**DEFAULT_POLICY)


def _rank(card: int) -> int:
    return 0 if card == 52 else card % 13 + 1


def reference_potential(game, actions, win_bonus: float) -> float:
    """Phi from the rules core: the base policy's playout on the game's true cards, replayed."""
    if game.removed == ALL_SLOTS:
        return 0.0
    k = public_state(game, actions).knowledge
    layout = np.array([_rank(c) for c in game.tableau], dtype=np.int64)
    stock = np.array([_rank(c) for c in game.stock], dtype=np.int64)
    _, moves = P.playout_record(
        layout,
        stock,
        game.removed,
        game.stock_pos,
        k.key,
        game.seen_slots,
        game.stock_seen,
        np.array(k.unseen, dtype=np.int64),
        k.wrap,
        k.when_stuck,
        PARAMS,
        np.zeros(1),
    )
    copy = game.copy()
    before = copy.cleared
    for a in moves:
        copy.play(int(a))  # raises if the playout made an illegal move
    assert copy.over  # the playout plays to the end of the game
    return (copy.cleared - before) + (win_bonus if copy.won else 0.0)


@pytest.mark.parametrize(
    ("rule", "env_kwargs"),
    [("E", {}), ("C", {}), ("E", {"jokers": 2}), ("C", {"draw": "when_stuck", "waste_start": "empty"})],
)
def test_potential_matches_the_rules_core(rule: str, env_kwargs: dict) -> None:
    codes = draw_codes(40, 7, "TP", rule)
    checked = 0
    for env, games, actions, live in tripeaks_lockstep(codes, env_kwargs):
        phi = potentials(env.env, 30.0)
        for i in np.flatnonzero(live):
            assert phi[i] == pytest.approx(reference_potential(games[i], actions[i], 30.0)), (codes[i], actions[i])
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize(("rule", "env_kwargs"), [("E", {}), ("C", {"jokers": 1, "draw": "when_stuck"})])
def test_action_values_match_the_rules_core(rule: str, env_kwargs: dict) -> None:
    """Q(s, a) = the card a clears (0 or 1) + Phi of the position after a (+ the bonus on a win)."""
    codes = draw_codes(30, 11, "TP", rule)
    checked = 0
    for env, games, actions, live in tripeaks_lockstep(codes, env_kwargs, seed=2):
        q = action_values(env.env, 30.0)
        mask = env.action_masks()
        for i in np.flatnonzero(live):
            assert np.array_equal(~np.isnan(q[i]), mask[i])
            for a in np.flatnonzero(mask[i]):
                after = games[i].copy()
                after.play(int(a))
                want = (after.cleared - games[i].cleared) + reference_potential(after, [*actions[i], int(a)], 30.0)
                if after.won:
                    want += 30.0
                assert q[i, a] == pytest.approx(want), (codes[i], actions[i], a)
                checked += 1
    assert checked > 1000


def test_potential_of_the_start_is_the_base_policy_game() -> None:
    """From the deal, Phi is what the base policy alone scores on that deal (cleared + bonus if won)."""
    codes = draw_codes(200, 3, "TP", "E")
    env = SB3VecEnv(len(codes), game="tripeaks", deal_codes=codes)
    env.reset()
    phi = potentials(env.env, 30.0)
    wins = int((phi >= 30.0).sum())
    assert 0 < wins < len(codes)  # the base policy wins about half of Easy deals
    assert np.all((phi >= 0) & (phi <= 28 + 30.0))


def test_shaped_rewards_telescope() -> None:
    """The shaped return of an episode is its return minus Phi(s_0) (gamma = 1)."""
    n = 16
    codes = draw_codes(n, 5, "TP", "E")
    inner = SB3VecEnv(n, game="tripeaks", deal_codes=codes, reward="progress", win_bonus=30.0)
    env = PlayoutShaping(inner, gamma=1.0)
    env.reset()
    start = env.potential.copy()
    raw = inner  # a second, unshaped copy of the same games
    twin = SB3VecEnv(n, game="tripeaks", deal_codes=codes, reward="progress", win_bonus=30.0)
    twin.reset()
    rng = np.random.default_rng(1)
    shaped_sum = np.zeros(n)
    plain_sum = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    while not done.all():
        mask = raw.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, shaped, dones, _ = env.step(acts)
        _, plain, _, _ = twin.step(acts)
        shaped_sum[~done] += shaped[~done]
        plain_sum[~done] += plain[~done]
        done |= dones
    np.testing.assert_allclose(shaped_sum, plain_sum - start, atol=1e-4)
    assert np.abs(shaped_sum).max() > 0  # a random policy does worse than the base policy


def test_shaping_needs_a_tripeaks_env() -> None:
    env = SB3VecEnv(2, game="fortythieves")
    with pytest.raises(ValueError, match="TriPeaks SB3VecEnv"):
        PlayoutShaping(env, gamma=0.99)
    with pytest.raises(ValueError, match="progress"):
        PlayoutShaping(SB3VecEnv(2, game="tripeaks", reward="score"), gamma=0.99)


def test_sampled_values_are_the_rollout_agents_estimate() -> None:
    """The fair estimate from the batch env's arrays equals the rollout agent's kernel run on the
    public state's inputs (ranks of seen places only) with the same random numbers: it reads
    nothing hidden.  And it averages fillings: with many samples it is close to the mean."""
    from agents.players.rollout import tripeaks_inputs
    from agents.training.move_values import fill_width, sampled_action_values

    samples = 8
    codes = draw_codes(24, 13, "TP", "E")
    checked = 0
    for step, (env, games, actions, live) in enumerate(tripeaks_lockstep(codes, {"jokers": 1}, seed=4, max_steps=40)):
        got = sampled_action_values(env.env, 30.0, samples, np.random.default_rng(step))
        uniforms = np.random.default_rng(step).random((len(codes), samples, fill_width(1)))
        mask = env.action_masks()
        for i in np.flatnonzero(live):
            x = tripeaks_inputs(public_state(games[i], actions[i]))
            legal = np.flatnonzero(mask[i])
            cleared = P.rollout_counts(
                x["layout"],
                x["stock"],
                np.sort(x["ranks"]),
                x["n_jokers"],
                uniforms[i],
                x["removed"],
                x["pos"],
                x["key"],
                x["known"],
                x["stock_seen"],
                x["unseen"],
                x["wrap"],
                x["when_stuck"],
                legal.reshape(-1, 1),
                np.ones(len(legal), dtype=np.int64),
                PARAMS,
            ).astype(np.int64)
            before = games[i].cleared
            want = ((cleared - before) + 30.0 * (cleared == 28)).mean(axis=0)
            np.testing.assert_allclose(got[i, legal], want)
            assert np.isnan(got[i, ~mask[i]]).all()
            checked += 1
    assert checked > 300
    two = sampled_action_values(env.env, 30.0, samples, np.random.default_rng(99), threads=2)
    one = sampled_action_values(env.env, 30.0, samples, np.random.default_rng(99))
    np.testing.assert_array_equal(two, one)  # threads split the games, nothing else


def test_sampled_values_skip_forced_leaves_only_the_single_move_games_out() -> None:
    """``skip_forced``: the games with one legal move are NaN, every other game's values are the
    same numbers as without it (the same random numbers per game)."""
    from agents.training.move_values import sampled_action_values

    codes = draw_codes(24, 14, "TP", "E")
    forced = chosen = 0
    for step, (env, _games, _actions, live) in enumerate(tripeaks_lockstep(codes, {}, seed=5, max_steps=40)):
        full = sampled_action_values(env.env, 30.0, 4, np.random.default_rng(step))
        some = sampled_action_values(env.env, 30.0, 4, np.random.default_rng(step), threads=2, skip_forced=True)
        n_legal = env.action_masks().sum(axis=1)
        for i in np.flatnonzero(live):
            if n_legal[i] == 1:
                assert np.isnan(some[i]).all() and not np.isnan(full[i]).all()
                forced += 1
            else:
                np.testing.assert_array_equal(some[i], full[i])
                chosen += 1
    assert forced > 50 and chosen > 50
