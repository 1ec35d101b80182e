"""The packed inputs of the playout kernels (:class:`agents.players.playouts.Position`).

A position reaches the kernels through one of two builders: ``tripeaks_position`` from a public
state (the ``rollout`` agent, ``public_advice``) and ``public_inputs`` from a batch env's view
(``move_values``, ``batch_advice``).  They must build the same position, field by field; and the
kernels that take a position must give what their spelled-out twins give.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from vector_helpers import tripeaks_lockstep

from agents.base import public_state
from agents.players import playouts as P
from agents.players.rollout import DEFAULT_POLICY, tripeaks_position
from agents.training.move_values import draws_when_stuck, input_buffers, public_inputs
from solitaire_env.solvability import draw_codes

PARAMS = P.policy_params(**DEFAULT_POLICY)


def _fields(x: P.Position) -> dict[str, object]:
    """The position's fields as plain values (``ranks`` sorted: their order is the builder's)."""
    out: dict[str, object] = {}
    for name, value in x._asdict().items():
        if isinstance(value, np.ndarray):
            value = sorted(value.tolist()) if name == "ranks" else value.tolist()
        else:
            value = bool(value) if name in ("wrap", "when_stuck") else int(value)
        out[name] = value
    return out


@pytest.mark.parametrize(
    ("rule", "env_kwargs"),
    [("E", {}), ("C", {"jokers": 2}), ("E", {"draw": "when_stuck", "waste_start": "empty", "jokers": 1})],
)
def test_batch_position_is_the_public_position(rule: str, env_kwargs: dict) -> None:
    codes = draw_codes(24, 21, "TP", rule)
    checked = 0
    for env, games, actions, live in tripeaks_lockstep(codes, env_kwargs, seed=2, max_steps=30):
        view = env.env.view()
        buffers = input_buffers(view)
        when_stuck = draws_when_stuck(env.env)
        for i in np.flatnonzero(live):
            got = _fields(public_inputs(int(i), view, when_stuck, buffers))
            want = _fields(tripeaks_position(public_state(games[i], actions[i])))
            assert got == want, (codes[i], actions[i])
            checked += 1
    assert checked > 400


def test_position_kernels_are_their_spelled_out_twins() -> None:
    """Also the order of the rules (``plan_paths`` takes ``when_stuck`` before ``wrap``): Easy
    deals (wrap, draws at any time), where the two rules differ."""
    codes = draw_codes(12, 22, "TP", "E")
    rng = np.random.default_rng(5)
    checked = 0
    options = {"jokers": 1}
    for _env, games, actions, live in tripeaks_lockstep(codes, options, seed=3, max_steps=25):
        for i in np.flatnonzero(live):
            x = tripeaks_position(public_state(games[i], actions[i]))
            spelled = (x.layout, x.removed, x.known, x.key, x.pos, len(x.stock))
            move = P.policy_move(*spelled, x.unseen, x.wrap, x.when_stuck, PARAMS)
            assert P.position_move(x, PARAMS) == move
            paths, lengths = P.plan_paths(*spelled, x.when_stuck, x.wrap, 8, 32)
            got_paths, got_lengths = P.position_plans(x, 8, 32)
            assert np.array_equal(got_paths, paths) and np.array_equal(got_lengths, lengths)
            uniforms = rng.random((6, P.fill_columns(x.stock, x.ranks)))
            args = (x.layout, x.stock, x.ranks, x.n_jokers, uniforms, *x[4:])
            assert np.array_equal(
                P.rollout_counts(*args, paths, lengths, PARAMS), P.sample_counts(x, uniforms, paths, lengths, PARAMS)
            )
            cands = paths[:, 0].copy()
            for a, b in zip(P.rollout_two(*args, cands, PARAMS), P.sample_two(x, uniforms, cands, PARAMS)):
                assert np.array_equal(a, b)
            checked += 1
    assert checked > 100
