"""The Forty Thieves move features, their policy, envs and the imitation warm start."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import public_state
from agents.players.heuristics.fortythieves import EvaluateAgent, LookaheadAgent
from agents.training.move_features import LOOKAHEAD_NODES, MOVE_FEATURES, OBS_SIZE, POSITION_FEATURES, MoveFeatures
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.rules import DRAW, FOUNDATION, NUM_ACTIONS, NUM_DESTS
from tests.conftest import ft_random_positions

_ROWS = NUM_ACTIONS * MOVE_FEATURES


@pytest.fixture(scope="module")
def positions() -> list[Any]:
    return ft_random_positions(60, 31)


def _table(x: np.ndarray) -> np.ndarray:
    return x[:_ROWS].reshape(NUM_ACTIONS, MOVE_FEATURES)


def test_rows_say_what_each_legal_move_does(positions: list[Any]) -> None:
    for game, actions in positions:
        state = public_state(game, actions)
        x = MoveFeatures()(state)
        assert x.shape == (OBS_SIZE,) and x.dtype == np.float32
        table = _table(x)
        assert sorted(np.flatnonzero(table[:, 0])) == sorted(state.legal)
        assert not table[[a for a in range(NUM_ACTIONS) if a not in state.legal]].any()  # illegal rows are zero
        if not state.legal:
            continue
        choice = EvaluateAgent("fortythieves").act(state)
        assert list(np.flatnonzero(table[:, 7])) == [choice]
        hint = fortythieves_advice(state.knowledge)
        assert list(np.flatnonzero(table[:, 8])) == ([] if hint is None else [hint])
        lookahead = LookaheadAgent("fortythieves", nodes=LOOKAHEAD_NODES)
        assert list(np.flatnonzero(table[:, 21])) == [lookahead.act(state)]
        assert lookahead.last_search is not None
        _, root, through = lookahead.last_search
        tried = [a for a in state.legal if through[a] > -np.inf]
        assert list(np.flatnonzero(table[:, 22])) == sorted(tried)
        for a in tried:  # the best score through the move, less the position's own, / 10
            assert table[a, 23] == pytest.approx((through[a] - root) / 10, abs=1e-5)
        assert DRAW not in tried  # the search never draws
        if len(state.legal) > 1:
            assert tried  # it tries the moves of the turn
        for a in state.legal:
            row = table[a]
            assert row[1] == (a == DRAW)
            if a != DRAW and a % NUM_DESTS == FOUNDATION:
                assert row[2] == 1 and row[11] >= 0.25  # a card founded at least
        assert x[_ROWS] == pytest.approx(sum(game.foundations) / 104)
        assert x[_ROWS + 1] == pytest.approx(game.stock_count / 64)


def test_blind_to_the_order_of_the_unseen_stock(positions: list[Any]) -> None:
    rng = np.random.default_rng(4)
    for game, actions in positions[:40]:
        state = public_state(game, actions)
        want = MoveFeatures()(state)
        cards = list(state.unseen)
        rng.shuffle(cards)
        other = state.with_unseen(cards)
        got = MoveFeatures()(public_state(other, actions))
        np.testing.assert_array_equal(got, want)


def test_one_maker_follows_a_game_and_starts_over_for_another(positions: list[Any]) -> None:
    features = MoveFeatures()
    for game, actions in positions[:10]:
        fresh = MoveFeatures()(public_state(game, actions))
        np.testing.assert_array_equal(features(public_state(game, actions)), fresh)
    with pytest.raises(TypeError, match="Forty Thieves"):
        from solitaire_env.solvability import draw_codes, make_game

        features(public_state(make_game(draw_codes(1, 0, "TP", "E")[0]), []))


def test_scorer_scores_each_legal_row(positions: list[Any]) -> None:
    torch = pytest.importorskip("torch")
    from gymnasium import spaces

    from agents.training.move_policy import MoveFeaturesExtractor

    extractor = MoveFeaturesExtractor(spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32), scorer=(16,))
    obs = np.stack([MoveFeatures()(public_state(g, a)) for g, a in positions[:8]])
    t = torch.as_tensor(obs)
    with torch.no_grad():
        scores = extractor.scores(t)
        features = extractor(t)
    assert features.shape == (8, NUM_ACTIONS + POSITION_FEATURES + 2 * MOVE_FEATURES)
    for i in range(8):
        table = _table(obs[i])
        for a in range(NUM_ACTIONS):
            if table[a, 0]:
                row = torch.as_tensor(np.concatenate([table[a], obs[i, _ROWS:]]))[None]
                with torch.no_grad():
                    assert float(scores[i, a]) == pytest.approx(float(extractor.scorer(row)), abs=1e-5)
            else:
                assert float(scores[i, a]) == 0.0
    with pytest.raises(ValueError, match="move features"):
        MoveFeaturesExtractor(spaces.Box(0, 1, (10,), np.float32))


def test_the_lookahead_bonus_adds_to_the_lookahead_move_alone(positions: list[Any]) -> None:
    torch = pytest.importorskip("torch")
    from gymnasium import spaces

    from agents.training.move_features import LOOKAHEAD_ROW
    from agents.training.move_policy import MoveFeaturesExtractor, lookahead_bonus, set_lookahead_bonus

    space = spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)
    extractor = MoveFeaturesExtractor(space, scorer=(16,))
    obs = torch.as_tensor(np.stack([MoveFeatures()(public_state(g, a)) for g, a in positions[:8]]))
    with torch.no_grad():
        plain = extractor.scores(obs)
        set_lookahead_bonus(extractor, 3.0)
        bonus = extractor.scores(obs)
    assert lookahead_bonus(extractor) == 3.0
    table = obs[:, :_ROWS].reshape(8, NUM_ACTIONS, MOVE_FEATURES)
    ahead = (table[:, :, LOOKAHEAD_ROW] > 0.5) & (table[:, :, 0] > 0.5)
    assert int(ahead.sum()) >= 1
    assert torch.allclose(bonus - plain, 3.0 * ahead.float(), atol=1e-5)
    # the bonus is saved with the weights; weights saved before it existed load with none
    again = MoveFeaturesExtractor(space, scorer=(16,))
    again.load_state_dict(extractor.state_dict())
    assert lookahead_bonus(again) == 3.0
    old = {k: v for k, v in extractor.state_dict().items() if k != "lookahead_bonus"}
    again.load_state_dict(old)
    assert lookahead_bonus(again) == 0.0
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="lookahead bonus"):
            set_lookahead_bonus(extractor, bad)
    assert lookahead_bonus(extractor) == 3.0


def test_envs_deal_their_codes_and_never_a_held_out_one() -> None:
    from agents.training.move_envs import MoveFeaturesEnv, move_vec_env
    from solitaire_env.common.deals import draw_codes

    codes = draw_codes(3, 5, "fortythieves", "N")
    env = MoveFeaturesEnv({"reward": "progress"}, codes=codes)
    for code in codes + codes[:1]:
        obs, info = env.reset()
        assert info["deal_code"] == code and obs.shape == (OBS_SIZE,)
    # a stream that starts on a held-out deal skips it
    first = MoveFeaturesEnv({}, seed=9)
    _, info = first.reset()
    held = info["deal_code"]
    skip = MoveFeaturesEnv({}, seed=9, exclude=[held])
    _, info = skip.reset()
    assert info["deal_code"] != held
    # an episode's end says whether it was won
    done = False
    while not done:
        mask = env.action_masks()
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        done = terminated or truncated
    assert info["is_success"] is False
    vec = move_vec_env(2, {}, codes=codes[:2])
    assert vec.reset().shape == (2, OBS_SIZE)
    with pytest.raises(ValueError, match="one per env"):
        move_vec_env(2, {}, codes=codes)


def test_teacher_games_hold_the_teachers_moves_and_returns() -> None:
    from agents.training.imitation import ImitationSettings, collect_games, training_codes

    settings = ImitationSettings(
        games=2,
        workers=1,
        epsilon=0.2,
        teacher_options={"samples": 1, "root_nodes": 200, "eval_nodes": 200, "endgame_nodes": 0},
    )
    codes = training_codes(0, "N", [])
    first = next(training_codes(0, "N", []))
    assert next(training_codes(0, "N", [first])) != first  # a held-out code is never dealt
    data = collect_games(codes, settings, {"reward": "progress", "win_bonus": 30}, 0.9, seed=1)
    assert data.games == 2 and len(data) > 20
    obs, mask, good = data.dense(np.arange(len(data)))
    assert mask[np.arange(len(data)), data.label].all()  # the label is a legal move
    assert good[np.arange(len(data)), data.label].all() and not (good & ~mask).any()
    assert (mask.sum(axis=1) > 1).all()  # positions with a choice only
    assert np.array_equal(obs[:, :_ROWS].reshape(len(data), NUM_ACTIONS, MOVE_FEATURES)[:, :, 0] > 0, mask)
    assert (
        np.isfinite(data.ret).all() and data.ret.max() > 1
    )  # discounted cards founded from here on (-1 one taken back)
    again = collect_games(training_codes(0, "N", []), settings, {"reward": "progress", "win_bonus": 30}, 0.9, seed=1)
    assert np.array_equal(again.label, data.label) and np.array_equal(again.rows, data.rows)  # reproducible
