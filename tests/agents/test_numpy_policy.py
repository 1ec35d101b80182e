"""The numpy policies: an exported ``model.zip`` plays as the torch policy did, and the published
``.npz`` files agree with the torch scorer that holds their weights."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym
import torch
from conftest import ft_random_positions, random_position

import solitaire_env  # noqa: F401
from agents.base import public_state
from agents.players.ppo import PUBLISHED_POLICIES, published_policy, write_sidecar
from agents.players.scorers import ScorerNet
from agents.registry import make_agent
from solitaire_env.solvability import draw_codes

ENV_KWARGS = {"obs_mode": "flat", "reward": "progress"}


def _randomise(policy: Any, seed: int) -> None:
    """Weights large enough that the moves' scores are far apart (a fresh scorer's head starts near 0)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in policy.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.2)


@pytest.fixture(scope="module")
def afterstate_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from agents.training.afterstate import AfterstatePolicy, afterstate_policy_kwargs

    env = ActionMasker(gym.make("solitaire_env/TriPeaks-v0", **ENV_KWARGS), lambda e: e.unwrapped.action_masks())
    model = MaskablePPO(AfterstatePolicy, env, policy_kwargs=afterstate_policy_kwargs(True, [32, 16]), seed=0)
    _randomise(model.policy, 1)
    path = tmp_path_factory.mktemp("afterstate") / "model.zip"
    model.save(str(path))
    write_sidecar(path, "tripeaks", ENV_KWARGS)
    return path


@pytest.fixture(scope="module")
def move_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sb3_contrib import MaskablePPO

    from agents.training.move_envs import move_vec_env
    from agents.training.move_policy import MovePolicy, move_policy_kwargs, set_lookahead_bonus

    env = move_vec_env(1, {"reward": "progress"}, codes=draw_codes(1, 3, "FT", "N"))
    model = MaskablePPO(MovePolicy, env, n_steps=8, batch_size=8, policy_kwargs=move_policy_kwargs([16]), seed=0)
    _randomise(model.policy, 2)
    set_lookahead_bonus(model.policy, 0.5)
    path = tmp_path_factory.mktemp("moves") / "model.zip"
    model.save(str(path))
    write_sidecar(path, "fortythieves", {"obs_mode": "flat", "reward": "progress"})
    return path


def _tp_states(n: int) -> list[Any]:
    states = []
    for i, code in enumerate(draw_codes(n, 11, "TP", "E")):
        game, actions = random_position(code, i % 30, i)
        if not game.over:
            states.append(public_state(game, actions))
    return states


def _ft_states(n: int) -> list[Any]:
    return [public_state(g, a) for g, a in ft_random_positions(n, 12) if not g.over]


def test_an_exported_afterstate_policy_plays_as_the_torch_one(afterstate_model: Path, tmp_path: Path) -> None:
    from agents.training.export import export_policy

    out = export_policy(afterstate_model, tmp_path / "p.npz")
    net = ScorerNet.load(out)
    assert (net.kind, net.game, net.wrap, net.advice, net.env_kwargs) == (
        "afterstate",
        "tripeaks",
        True,
        None,
        ENV_KWARGS,
    )
    torch_agent = make_agent("ppo", "tripeaks", model=str(afterstate_model))
    numpy_agent = make_agent("ppo", "tripeaks", model=str(out))
    states = _tp_states(300)
    for state in states:
        obs = torch_agent.observation(state)  # type: ignore[attr-defined]
        want = torch_agent.logits(obs)[0].numpy()  # type: ignore[attr-defined]
        np.testing.assert_allclose(net.logits(obs), want, rtol=1e-4, atol=1e-4 * (1 + float(np.abs(want).max())))
    same = sum(torch_agent.act(s) == numpy_agent.act(s) for s in states)
    assert same >= len(states) - 1 and len(states) > 250


def test_an_exported_move_policy_plays_as_the_torch_one(move_model: Path, tmp_path: Path) -> None:
    from agents.training.export import export_policy

    net = ScorerNet.load(export_policy(move_model, tmp_path / "m.npz"))
    assert (net.kind, net.game, net.bonus) == ("moves", "fortythieves", 0.5)
    torch_agent = make_agent("ppo", "fortythieves", model=str(move_model))
    numpy_agent = make_agent("ppo", "fortythieves", model=str(tmp_path / "m.npz"))
    states = _ft_states(60)
    same = sum(torch_agent.act(s) == numpy_agent.act(s) for s in states)
    assert same == len(states)


def test_export_refuses_a_policy_that_is_no_scorer(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from agents.training.export import export_policy

    env = ActionMasker(gym.make("solitaire_env/TriPeaks-v0", **ENV_KWARGS), lambda e: e.unwrapped.action_masks())
    path = tmp_path / "mlp.zip"
    MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}).save(str(path))
    with pytest.raises(ValueError, match="only the scorer policies"):
        export_policy(path)
    with pytest.raises(FileNotFoundError):
        export_policy(tmp_path / "none.zip")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a policy file"):
        ScorerNet.load(tmp_path / "junk.npz")


def _torch_scores(net: ScorerNet, observations: np.ndarray) -> np.ndarray:
    """The torch policy's scores of the observations, from a scorer that holds ``net``'s weights
    (the extractor the training runs: the factored afterstate scores, the move scores)."""
    from gymnasium import spaces

    from agents.training.afterstate import TriPeaksAfterstateFeatures
    from agents.training.move_features import OBS_SIZE
    from agents.training.move_policy import MoveFeaturesExtractor, set_lookahead_bonus

    widths = [w.shape[0] for w, _ in net.layers[:-1]]
    if net.kind == "afterstate":
        size = observations.shape[1]
        extractor: Any = TriPeaksAfterstateFeatures(spaces.Box(0.0, 1.0, (size,), np.float32), net.wrap, widths)
    else:
        extractor = MoveFeaturesExtractor(spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), widths)
        set_lookahead_bonus(extractor, net.bonus)
    linear = [m for m in extractor.scorer if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for m, (w, b) in zip(linear, net.layers, strict=True):
            m.weight.copy_(torch.as_tensor(w))
            m.bias.copy_(torch.as_tensor(b))
        return extractor.scores(torch.as_tensor(observations)).numpy()


@pytest.mark.parametrize(("game", "rule"), sorted(PUBLISHED_POLICIES))
def test_the_published_policies_agree_with_torch(game: str, rule: str) -> None:
    """On 1,000 positions of each game, the numpy policy picks the torch policy's action on at
    least 999 (a tie broken the other way by rounding is all that may differ)."""
    path = published_policy(game, rule)
    agent = make_agent("ppo", game, model=str(path))  # type: ignore[arg-type]
    net = ScorerNet.load(path)
    if game == "tripeaks":
        states = []
        for i, code in enumerate(draw_codes(1100, 21, "TP", rule)):
            g, actions = random_position(code, i % 40, i)
            if not g.over:
                states.append(public_state(g, actions))
    else:
        states = _ft_states(1100)
    states = states[:1000]
    assert len(states) == 1000
    observations = np.array([agent.observation(s) for s in states], dtype=np.float32)  # type: ignore[attr-defined]
    scores = _torch_scores(net, observations)
    same = 0
    for state, obs, row in zip(states, observations, scores, strict=True):
        legal = np.flatnonzero(state.mask)
        same += int(legal[int(np.argmax(row[legal]))]) == net.greedy(obs, state.mask)
    assert same >= 999, same


def test_without_a_model_the_agent_plays_the_published_policy_of_the_rules() -> None:
    agent = make_agent("ppo", "tripeaks")
    for rule, wrap in (("E", True), ("C", False)):
        game, actions = random_position(draw_codes(1, 5, "TP", rule)[0], 3, 0)
        state = public_state(game, actions)
        assert state.mask[agent.act(state)]
        net = agent.net_for(state)  # type: ignore[attr-defined]
        assert net.wrap == wrap and net.kind == "afterstate"
    ft = make_agent("ppo", "fortythieves")
    game, actions = ft_random_positions(1, 4)[0]
    assert public_state(game, actions).mask[ft.act(public_state(game, actions))]


NO_TORCH = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"):
            raise ImportError(f"{name} is blocked: the core install has no torch")
sys.meta_path.insert(0, Block())
from agents.base import public_state
from agents.registry import make_agent
from solitaire_env.solvability import make_game
for game, code, model in (("tripeaks", "TP1-E-AAAAAAB", sys.argv[1]), ("fortythieves", "FT1-N-AAAAAAC", sys.argv[2])):
    agent = make_agent("ppo", game, model=model)
    g = make_game(code)
    moves = []
    for _ in range(5):
        a = agent.act(public_state(g, moves))
        g.play(a)
        moves.append(a)
    print(game, "played", moves)
assert "torch" not in sys.modules
"""


def test_numpy_policies_play_without_torch(afterstate_model: Path, move_model: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    from agents.training.export import export_policy

    tp = export_policy(afterstate_model, tmp_path / "tp.npz")
    ft = export_policy(move_model, tmp_path / "ft.npz")
    script = tmp_path / "no_torch.py"
    script.write_text(NO_TORCH)
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, str(script), str(tp), str(ft)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": root},
    )
    assert done.returncode == 0, done.stderr
    assert "tripeaks played" in done.stdout and "fortythieves played" in done.stdout
