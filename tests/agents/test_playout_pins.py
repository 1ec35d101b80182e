"""Pinned values of the ``rollout`` agent's playouts and the move values on fixed seeds.

The playout kernels (:mod:`agents.players.playouts`) and their callers (:mod:`agents.players.rollout`,
:mod:`agents.training.move_values`, :mod:`agents.training.advice`) are refactored from time to time; these
numbers were recorded before such a change and must stay bit-exact after it (the same random
streams, the same samples, the same values).  The agents' streams are seeded by
:meth:`agents.base.PublicState.fingerprint`, so the rollout pins move only when what it reads moves.
Each pin is a SHA-256 digest of the result's bytes (plus a readable sum), computed through the public entry points only.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from agents.base import public_state
from agents.players.rollout import TriPeaksRollout
from agents.training.advice import batch_advice, public_advice
from agents.training.move_values import action_values, potentials, sampled_action_values
from solitaire_env.sb3 import SB3VecEnv
from solitaire_env.solvability import draw_codes, make_game

#: (rule letter, rule options) of the pinned positions.
RULES = {
    "easy": ("E", {}),
    "classic_2_jokers": ("C", {"jokers": 2}),
    "stuck_empty_1_joker": ("E", {"draw": "when_stuck", "waste_start": "empty", "jokers": 1}),
}
#: The rollout agents pinned: options of TriPeaksRollout.
AGENTS = {
    "plain": {"samples": 64},
    "plans": {"samples": 48, "plans": 12, "nodes": 64},
    "eps": {"samples": 48, "eps": 80},
    "random": {"samples": 32, "mode": 1, "eps": 1},
    "racing": {"samples": 16, "max_samples": 64, "z": 1.0},
}


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _positions() -> list[tuple[str, object, list[int]]]:
    """A few positions of fixed deals after fixed random legal moves (the game is not over)."""
    rng = np.random.default_rng(20)
    out = []
    for rule, options in RULES.values():
        for code in draw_codes(3, 5, "TP", rule):
            game, actions = make_game(code, options), []
            for _ in range(int(rng.integers(0, 20))):
                if game.over:
                    break
                a = int(rng.choice(game.legal_actions()))
                game.play(a)
                actions.append(a)
            if not game.over:
                out.append((code, game, actions))
    return out


def rollout_pins() -> dict[str, str]:
    out = {}
    positions = _positions()
    for name, options in AGENTS.items():
        agent = TriPeaksRollout(seed=3, **options)
        parts = []
        for _, game, actions in positions:
            state = public_state(game, actions)
            paths, counts, wins, cleared = agent.evaluate(state)
            parts += [paths, counts, wins, cleared]
        out[name] = _digest(*parts)
    two = TriPeaksRollout(seed=4, samples=24, depth=2)
    out["depth2"] = _digest(*[np.asarray(two.evaluate_two(public_state(g, a))) for _, g, a in positions])
    out["advice"] = _digest(np.array([public_advice(public_state(g, a)) for _, g, a in positions]))
    out["act"] = _digest(
        np.array([TriPeaksRollout(seed=5, samples=40).act(public_state(g, a)) for _, g, a in positions])
    )
    return out


def value_pins() -> dict[str, str]:
    out = {}
    for name, (rule, options) in RULES.items():
        codes = draw_codes(12, 8, "TP", rule)
        env = SB3VecEnv(len(codes), game="tripeaks", deal_codes=codes, **options)
        env.reset()
        rng = np.random.default_rng(1)
        parts: list[np.ndarray] = []
        for step in range(14):
            if step % 3 == 0:
                parts.append(potentials(env.env, 30.0))
                parts.append(action_values(env.env, 30.0))
                parts.append(batch_advice(env.env))
                parts.append(sampled_action_values(env.env, 30.0, 8, np.random.default_rng(step)))
                parts.append(sampled_action_values(env.env, 30.0, 6, np.random.default_rng(step), skip_forced=True))
            mask = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            env.step(actions)
        out[name] = _digest(*parts)
    return out


ROLLOUT_PINS: dict[str, str] = {
    "plain": "7e053167b35ca3a9",
    "plans": "4960a76a2e24b854",
    "eps": "42aa5958baa22398",
    "random": "03b02a1d8f065429",
    "racing": "bf879b2ce77bd83e",
    "depth2": "74c241ed8c5272fe",
    "advice": "eb6bde1a087d1a91",
    "act": "13874102d7802b15",
}
VALUE_PINS: dict[str, str] = {
    "easy": "9d531250507082ba",
    "classic_2_jokers": "277b47456e18e8f1",
    "stuck_empty_1_joker": "42ba7d6e228b5e4d",
}


def test_rollout_values_are_pinned() -> None:
    assert rollout_pins() == ROLLOUT_PINS


def test_move_values_are_pinned() -> None:
    assert value_pins() == VALUE_PINS
