"""agents.training.advice: the base policy's move from the batch env's arrays == from the public state; the wrapper."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from vector_helpers import tripeaks_lockstep

from agents.base import public_state
from agents.training.advice import ADVICE_SIZE, batch_advice, public_advice, with_advice
from agents.training.advice_env import AdviceObservation
from solitaire_env.sb3 import SB3VecEnv
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.observe import FLAT_SIZE


@pytest.mark.parametrize(
    ("rule", "env_kwargs"),
    [("E", {}), ("C", {}), ("E", {"jokers": 2}), ("C", {"draw": "when_stuck", "waste_start": "empty"})],
)
def test_batch_advice_is_the_public_advice(rule: str, env_kwargs: dict) -> None:
    """Same move from the env's arrays (true cards at hand) and from the public state (no hidden
    cards at all): the advice reads nothing hidden.  Also: it is always a legal move."""
    codes = draw_codes(60, 9, "TP", rule)
    checked = 0
    for env, games, actions, live in tripeaks_lockstep(codes, env_kwargs):
        moves = batch_advice(env.env)
        mask = env.action_masks()
        for i in np.flatnonzero(live):
            want = public_advice(public_state(games[i], actions[i]))
            assert moves[i] == want, (codes[i], actions[i])
            assert mask[i, moves[i]]
            checked += 1
    assert checked > 2000


def test_advice_depends_on_public_cards_only() -> None:
    """Shuffling the never-seen cards of a position does not change the advice."""
    rng = np.random.default_rng(3)
    for code in draw_codes(40, 4, "TP", "E"):
        game, actions = make_game(code), []
        for _ in range(int(rng.integers(0, 25))):
            if game.over:
                break
            a = int(rng.choice(game.legal_actions()))
            game.play(a)
            actions.append(a)
        if game.over:
            continue
        state = public_state(game, actions)
        unseen = list(state.unseen)
        for _ in range(3):
            rng.shuffle(unseen)
            other = state.with_unseen(unseen)
            assert public_advice(public_state(other, actions)) == public_advice(state)


def test_wrapper_appends_the_one_hot() -> None:
    codes = draw_codes(8, 2, "TP", "E")
    inner = SB3VecEnv(8, game="tripeaks", deal_codes=codes)
    env = AdviceObservation(inner)
    assert env.observation_space.shape == (FLAT_SIZE + ADVICE_SIZE,)
    obs = env.reset()
    moves = batch_advice(inner.env)
    assert np.array_equal(obs[:, FLAT_SIZE:].argmax(1), moves)
    assert np.all(obs[:, FLAT_SIZE:].sum(1) == 1)
    obs2, _, _, _ = env.step(moves)
    assert obs2.shape == (8, FLAT_SIZE + ADVICE_SIZE)
    assert np.array_equal(with_advice(obs[0, :FLAT_SIZE], moves[0]), obs[0])
    with pytest.raises(ValueError, match="flat observations"):
        AdviceObservation(SB3VecEnv(2, game="tripeaks", obs_mode="dict"))
