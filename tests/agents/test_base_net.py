"""The learned base policy of the TriPeaks rollout agent (``MODE_NET``, agents/training/base_net.py).

- The kernels' network is the numpy one: the move in a real position is the argmax of
  ``w2 . relu(W1 x + b1) + b2`` over :func:`position_features`' rows (the first on ties), and the
  feature rows are the legal moves (removals ascending, then the draw when allowed).
- Playouts with the network replay legally through the rules core and end where the game does
  (the differential test of tests/agents/test_agents_rollout.py runs a random network too).
- The ``base`` and ``rollout`` agents with a network are fair: permuting the unseen cards never
  changes their move; their games replay exactly.
- Bad networks and files get one clear error; the fit learns a rule that the values follow.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide, public_state
from agents.players import playouts as K
from agents.players.net_file import load_net, save_net, split_net
from agents.players.rollout import DEFAULT_POLICY, TriPeaksBase, TriPeaksRollout, tripeaks_position
from agents.registry import make_agent
from agents.training.base_net import Positions, collect, fit
from solitaire_env.common.cards import JOKER
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.rules import DRAW


def _random_net(seed: int, hidden: int = 8) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w1 = rng.normal(size=(hidden, K.N_FEATURES))
    return K.net_array(w1, rng.normal(size=hidden), rng.normal(size=hidden), float(rng.normal()))


def _forward(net: np.ndarray, feats: np.ndarray) -> np.ndarray:
    w1, b1, w2, b2 = split_net(net)
    return np.maximum(feats @ w1.T + b1, 0.0) @ w2 + b2


@pytest.fixture(scope="module")
def net_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("net") / "net.npz"
    save_net(path, _random_net(3))
    return str(path)


def _random_positions(n: int, seed: int, options: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    for index in range(n):
        code = draw_codes(1, 900 + index, "TP", "E" if index % 2 else "C")[0]
        game = make_game(code, options or {})
        actions: list[int] = []
        for _ in range(int(rng.integers(0, 40))):
            if game.over:
                break
            a = int(rng.choice(game.legal_actions()))
            game.play(a)
            actions.append(a)
        if not game.over:
            yield game, actions


@pytest.mark.parametrize("options", [{}, {"draw": "when_stuck"}, {"jokers": 2, "waste_start": "empty"}])
def test_features_are_the_legal_moves_and_the_move_is_the_numpy_argmax(options: dict[str, object]) -> None:
    chain = K.policy_params(**DEFAULT_POLICY)
    checked = 0
    for seed in range(3):
        net = _random_net(seed)
        params = K.net_params(net, **DEFAULT_POLICY)
        for game, actions in _random_positions(60, 10 + seed, options):
            state = public_state(game, actions)
            x = tripeaks_position(state)
            feats, moves = K.position_features(x, chain)
            removals = [a for a in state.legal if a != DRAW]
            if not removals:
                assert len(moves) == 0
                continue
            assert list(moves) == sorted(removals) + ([DRAW] if DRAW in state.legal else [])
            assert feats.shape == (len(moves), K.N_FEATURES)
            # column 1 marks the hand-written policy's removal when it picks among the removals
            base = int(K.position_move(x, chain))
            assert feats[list(moves).index(base), 1] == 1.0 and feats[:, 1].sum() == 1.0
            assert list(feats[:, 0]) == [float(m == DRAW) for m in moves]
            scores = _forward(net, feats)
            assert int(K.position_move(x, params)) == int(moves[int(np.argmax(scores))])
            checked += 1
    assert checked > 50


def test_net_agents_ignore_the_unseen_order(net_file: str) -> None:
    rng = np.random.default_rng(4)
    agents = [TriPeaksBase(net=net_file), TriPeaksRollout(seed=1, samples=40, net=net_file)]
    checked = 0
    for game, actions in _random_positions(16, 77, {"jokers": 1}):
        state = public_state(game, actions)
        unseen = list(state.unseen)
        places = sum(1 for c in state.layout if c is None)
        for _ in range(2):
            while True:
                cards = [int(c) for c in rng.permutation(unseen)]
                if JOKER not in cards[:places]:
                    break
            state2 = public_state(state.with_unseen(cards), actions)
            assert state2.fingerprint() == state.fingerprint()
            for agent in agents:
                assert agent.act(state2) == agent.act(state)
        checked += 1
    assert checked >= 8


def test_net_agents_replay_exactly_and_differ_from_the_hand_written_policy(net_file: str) -> None:
    codes = draw_codes(6, 5, "TP", "E")
    lines = []
    for _ in range(2):
        agent = make_agent("rollout", "tripeaks", seed=2, samples=30, net=net_file)
        runs = []
        for code in codes:
            game, actions = make_game(code), []
            while not game.over:
                a = decide(agent, game, actions)
                game.play(a)
                actions.append(a)
            runs.append(actions)
        lines.append(runs)
    assert lines[0] == lines[1]
    base_net, base = make_agent("base", net=net_file), make_agent("base")
    differs = 0
    for code in draw_codes(10, 6, "TP", "E"):
        plays = []
        for agent in (base_net, base):
            game, actions = make_game(code), []
            while not game.over:
                a = decide(agent, game, actions)
                game.play(a)
                actions.append(a)
            plays.append(actions)
        differs += plays[0] != plays[1]
    assert differs > 0  # the network is a policy of its own (a random one here)


def test_bad_networks_and_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="takes 20 inputs"):
        K.net_array(np.zeros((4, 3)), np.zeros(4), np.zeros(4), 0.0)
    with pytest.raises(ValueError, match="net_array"):
        K.net_params(np.zeros(7))
    bad = tmp_path / "bad.npz"
    bad.write_text("not a file of numbers")
    with pytest.raises(ValueError, match="not a base-policy network file"):
        load_net(bad)
    with pytest.raises(ValueError, match="not a base-policy network file"):
        load_net(tmp_path / "missing.npz")
    np.savez(tmp_path / "short.npz", net=np.array([20.0, 4.0, 1.0]))
    with pytest.raises(ValueError, match="net_array"):
        load_net(tmp_path / "short.npz")


def test_fit_learns_what_the_values_follow() -> None:
    rng = np.random.default_rng(0)
    n = 600
    feats = rng.random((n, K.MAX_CANDIDATES, K.N_FEATURES)).astype(np.float32)
    count = rng.integers(2, 6, size=n)
    values = (10.0 * feats[:, :, 4] - 10.0 * feats[:, :, 7]).astype(np.float32)
    data = Positions(feats, values, count)
    net = fit(data, hidden=8, epochs=200, batch_size=128, temperature=1.0, seed=1)
    hit = 0
    for i in range(n):
        k = int(count[i])
        hit += int(np.argmax(_forward(net, feats[i, :k].astype(np.float64)))) == int(np.argmax(values[i, :k]))
    assert hit / n > 0.9


def test_collect_labels_positions_with_a_choice() -> None:
    teacher = TriPeaksRollout(seed=0, samples=20)
    data, won = collect(draw_codes(2, 3, "TP", "E"), teacher)
    assert len(won) == 2 and len(data) > 10
    assert (data.count >= 2).all() and (data.count <= K.MAX_CANDIDATES).all()
    pad = np.arange(K.MAX_CANDIDATES)[None, :] >= data.count[:, None]
    assert (data.values[pad] == 0).all() and (data.features[pad] == 0).all()
    assert (data.values <= 58.0).all() and (data.values >= 0).all()  # cards, a win = 30 + 28
