"""agents.training.afterstate: the afterstates are the next observations (what is known of them), the
candidates cover every legal move, the policy trains, saves, loads and plays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
import torch
from gymnasium import spaces

from agents.players.scorers import afterstates
from agents.training.afterstate import AfterstatePolicy, TriPeaksAfterstateFeatures, afterstate_policy_kwargs
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.observe import (
    FLAT_SIZE,
    JOKERS_OFFSET,
    SLOT_SIZE,
    STOCK_OFFSET,
    UNSEEN_OFFSET,
    WASTE_OFFSET,
    TriPeaksObserver,
)
from solitaire_env.tripeaks.rules import DRAW, NUM_SLOTS

RULE_SETS = [("E", {}), ("C", {}), ("E", {"jokers": 2}), ("C", {"draw": "when_stuck", "waste_start": "empty"})]


def _positions(rule: str, rules: dict, n: int, seed: int):
    """(game before, obs before, legal mask, action, obs after, game after) along random games."""
    rng = np.random.default_rng(seed)
    for code in draw_codes(n, seed, "TP", rule):
        game = make_game(code, rules)
        observer = TriPeaksObserver("flat")
        obs = observer.encode(game).copy()
        while not game.over:
            legal = game.legal_actions()
            mask = np.zeros(DRAW + 1, dtype=bool)
            mask[legal] = True
            a = int(rng.choice(legal))
            before_face_up = game.face_up
            game.play(a)
            after = observer.encode(game).copy()
            yield obs, mask, a, after, before_face_up, game
            obs = after


@pytest.mark.parametrize(("rule", "rules"), RULE_SETS)
def test_afterstates_are_the_next_observations(rule: str, rules: dict) -> None:
    """A slot move's afterstate is the next observation with the newly turned cards still face
    down (and flagged); a draw's is the next observation with the waste top an expectation over
    the unseen cards.  The candidates include every legal move."""
    features = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32), wrap=rule == "E")
    other_rules = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32), wrap=rule != "E")
    checked = draws = turned = 0
    for obs, mask, a, after, before_face_up, game in _positions(rule, rules, 40, 5):
        o = torch.as_tensor(obs).unsqueeze(0)
        cand = features.candidates(o)[0].numpy()
        assert (cand | ~mask).all(), "a legal move is not a candidate"
        assert (other_rules.candidates(o)[0].numpy() | ~mask).all(), "a model of the other rules misses a move"
        got = afterstates(obs[None], np.array([0]), np.array([a]))[0]
        flat, turn, drawn = got[:FLAT_SIZE], got[FLAT_SIZE : FLAT_SIZE + NUM_SLOTS], got[-1]
        want = after.copy()
        if a < DRAW:
            new = [t for t in range(NUM_SLOTS) if game.face_up >> t & 1 and not before_face_up >> t & 1]
            assert sorted(np.flatnonzero(turn).tolist()) == new
            turned += len(new)
            for t in new:  # not known before the move: face down in the afterstate
                want[SLOT_SIZE * t : SLOT_SIZE * (t + 1)] = 0.0
                want[SLOT_SIZE * t] = 1.0
            want[UNSEEN_OFFSET:JOKERS_OFFSET] = obs[UNSEEN_OFFSET:JOKERS_OFFSET]
            want[JOKERS_OFFSET] = obs[JOKERS_OFFSET]
            np.testing.assert_allclose(flat, want, atol=1e-6)
            assert drawn == 0
        else:
            draws += 1
            assert drawn == 1 and not turn.any()
            waste = flat[WASTE_OFFSET : WASTE_OFFSET + 19]
            unseen = obs[UNSEEN_OFFSET:JOKERS_OFFSET].reshape(4, 13)
            total = unseen.sum() + 2 * obs[JOKERS_OFFSET]
            if total > 0:
                assert waste[:17].sum() + waste[17] == pytest.approx(2.0 - 2 * obs[JOKERS_OFFSET] / total, abs=1e-5)
                np.testing.assert_allclose(waste[:13], unseen.sum(axis=0) / total, atol=1e-6)
            assert flat[STOCK_OFFSET] == pytest.approx(after[STOCK_OFFSET], abs=1e-6)
            keep = np.r_[0:WASTE_OFFSET, STOCK_OFFSET + 1 : FLAT_SIZE]  # all but the waste top and the stock
            want[UNSEEN_OFFSET:JOKERS_OFFSET] = obs[UNSEEN_OFFSET:JOKERS_OFFSET]
            want[JOKERS_OFFSET] = obs[JOKERS_OFFSET]
            np.testing.assert_allclose(flat[keep], want[keep], atol=1e-6)  # the chain broken too
        checked += 1
    assert checked > 1000 and draws > 100 and turned > 100


def test_scores_only_for_candidates_and_trainable() -> None:
    """Non-candidates get 0; the scorer's gradient reaches every layer."""
    features = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (FLAT_SIZE + 29,), np.float32), wrap=True)
    obs = []
    for o, *_ in _positions("E", {}, 4, 2):
        obs.append(np.r_[o, np.eye(29, dtype=np.float32)[0]])
    batch = torch.as_tensor(np.array(obs[:64]))
    scores = features.scores(batch)
    cand = features.candidates(batch)
    assert (scores[~cand] == 0).all()
    scores.sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in features.scorer.parameters())


def test_policy_plays_saves_and_loads(tmp_path) -> None:
    from sb3_contrib import MaskablePPO

    from agents.players.ppo import PpoAgent
    from solitaire_env.sb3 import SB3VecEnv

    env = SB3VecEnv(8, game="tripeaks")
    model = MaskablePPO(
        AfterstatePolicy,
        env,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs=afterstate_policy_kwargs(True, [32]),
    )
    model.learn(256)
    obs = torch.as_tensor(np.array([o for o, *_ in _positions("E", {}, 2, 1)]))
    policy = model.policy
    with torch.no_grad():  # the policy's logits are the scorer's numbers (what the warm start fits alone)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs)))
        torch.testing.assert_close(logits, policy.features_extractor.scores(obs))
    path = tmp_path / "model.zip"
    model.save(path)
    agent = PpoAgent("tripeaks", model=path, env_kwargs={})
    game = make_game(draw_codes(1, 0, "TP", "E")[0])
    from agents.base import public_state

    moves: list[int] = []
    while not game.over:
        a = agent.act(public_state(game, moves))
        assert a in game.legal_actions()
        game.play(a)
        moves.append(a)


@pytest.mark.parametrize(("rule", "rules"), RULE_SETS)
@pytest.mark.parametrize("advice", [True, False])
def test_factored_scores_are_the_plain_ones(rule: str, rules: dict, advice: bool) -> None:
    """:meth:`scores` (the first layer factored over what each move changes) gives the numbers and
    the gradients of :meth:`scores_direct` (every afterstate built and scored whole), on thousands
    of positions of random games, with random weights large enough that every input column counts.

    Both are computed in float64: the two paths add the same terms in different orders, and in
    float32 that difference reached 0.3 on a few of 65,536 gradient elements on one CPU,
    while in float64 it stays below 1e-9 of the largest value on any CPU. A real error (a column
    left out, a flag on the wrong move) moves values by whole weights (~0.1 and more), far above the
    tolerance: ``test_factored_scores_catch_a_planted_error`` shows it."""
    width = FLAT_SIZE + 29 if advice else FLAT_SIZE
    features = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (width,), np.float32), wrap=rule == "E")
    features.double()
    generator = torch.Generator().manual_seed(3)
    for p in features.scorer.parameters():
        p.data = torch.randn(p.shape, generator=generator, dtype=torch.float64) * 0.1
    rng = np.random.default_rng(4)
    rows = []
    for obs, mask, *_ in _positions(rule, rules, 30, 6):
        advised = np.zeros(29, dtype=np.float32)
        advised[rng.choice(np.flatnonzero(mask))] = 1.0
        rows.append(np.r_[obs, advised] if advice else obs)
    batch = torch.as_tensor(np.array(rows), dtype=torch.float64)
    assert len(batch) > 1000
    _assert_same_scores_and_gradients(features, batch)


def _assert_same_scores_and_gradients(features: TriPeaksAfterstateFeatures, batch: torch.Tensor) -> None:
    """The factored scores and their gradients equal the plain ones, to float64 rounding."""
    want, got = features.scores_direct(batch), features.scores(batch)
    assert want.dtype == torch.float64
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9 * float(want.detach().abs().max()))
    assert float(want.detach().abs().max()) > 1.0  # numbers worth comparing
    weights = list(features.scorer.parameters())
    grads_want = torch.autograd.grad((want**2).sum(), weights)
    grads_got = torch.autograd.grad((features.scores(batch) ** 2).sum(), weights)
    for g, w in zip(grads_got, grads_want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-9, atol=1e-9 * float(w.abs().max()))


def _swap(columns: torch.Tensor, a: int, b: int) -> torch.Tensor:
    out = columns.clone()
    out[a], out[b] = columns[b], columns[a]
    return out


@pytest.mark.parametrize(
    "plant",
    [
        # chain and cleared change alike after a removal (+1/28 each) and differ only on a draw
        "swap_chain_cleared",
        # two neighbouring about-to-turn flags: differs only where a move turns a card
        "swap_turn_flags",
        # one slot's own block column pointed at its neighbour's (a slot move's old card)
        "shift_slot_column",
    ],
)
def test_factored_scores_catch_a_planted_error(plant: str) -> None:
    """The comparison above fails on small planted errors in the factored path, so its float64
    tolerance is tight enough to matter (each plant leaves most numbers unchanged)."""
    features = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32), wrap=True)
    features.double()
    generator = torch.Generator().manual_seed(3)
    for p in features.scorer.parameters():
        p.data = torch.randn(p.shape, generator=generator, dtype=torch.float64) * 0.1
    batch = torch.as_tensor(np.array([obs for obs, *_ in _positions("E", {"jokers": 1}, 8, 6)]), dtype=torch.float64)
    _assert_same_scores_and_gradients(features, batch)  # the unplanted scorer passes on these
    shared: torch.Tensor = features.shared_columns  # type: ignore[assignment]
    if plant == "swap_chain_cleared":
        features.shared_columns = _swap(shared, SLOT_SIZE + 1, SLOT_SIZE + 2)
    elif plant == "swap_turn_flags":
        features.shared_columns = _swap(shared, SLOT_SIZE + 3 + 3, SLOT_SIZE + 3 + 4)
    else:
        slot_columns: torch.Tensor = features.slot_columns  # type: ignore[assignment]
        planted = slot_columns.clone()
        planted[20, 1] = planted[21, 1]  # the "removed" mark of slot 20 lands on slot 21
        features.slot_columns = planted
    with pytest.raises(AssertionError):
        _assert_same_scores_and_gradients(features, batch)
