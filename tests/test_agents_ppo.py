"""The ``ppo`` agent: a tiny MaskablePPO trained here, saved with its sidecar, loaded by name."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym
from conftest import random_position

import solitaire_env  # noqa: F401
from agents.base import decide, public_state
from agents.ppo import read_sidecar, sidecar_path, write_sidecar
from agents.registry import make_agent
from solitaire_env.solver.stats import draw_codes, make_game

ENV_KWARGS = {"obs_mode": "flat", "reward": "progress"}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MaskablePPO trained for 256 steps on TriPeaks-v0, saved with its sidecar."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    env = ActionMasker(gym.make("solitaire_env/TriPeaks-v0", **ENV_KWARGS), lambda e: e.unwrapped.action_masks())
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=256)
    path = tmp_path_factory.mktemp("ppo") / "tiny.zip"
    model.save(str(path))
    write_sidecar(path, "tripeaks", ENV_KWARGS)
    env.close()
    return path


def test_sidecar_round_trip(model_path: Path) -> None:
    assert sidecar_path(model_path) == model_path.with_suffix(".json")
    data = read_sidecar(model_path)
    assert data is not None and data["game"] == "tripeaks" and data["env_kwargs"] == ENV_KWARGS
    assert json.loads(model_path.with_suffix(".json").read_text())["env_kwargs"]["obs_mode"] == "flat"


def test_plays_a_full_masked_episode(model_path: Path) -> None:
    agent = make_agent("ppo", "tripeaks", model=str(model_path))
    assert agent.env_kwargs["obs_mode"] == "flat"  # type: ignore[attr-defined]
    for code in draw_codes(2, 1, "TP", "E"):
        game = make_game(code)
        actions: list[int] = []
        while not game.over:
            action = decide(agent, game, actions)  # raises on an illegal action
            assert game.legal_mask() >> action & 1
            game.play(action)
            actions.append(action)
        assert len(actions) <= 54


def test_the_observation_is_the_envs(model_path: Path) -> None:
    """The agent's observation of the public state equals the env's own observation."""
    agent = make_agent("ppo", "tripeaks", model=str(model_path))
    env = gym.make("solitaire_env/TriPeaks-v0", **ENV_KWARGS)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        state = public_state(env.unwrapped.game, env.unwrapped.actions)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(agent.observation(state), obs)  # type: ignore[attr-defined]
        if not state.legal:
            break
        obs, *_ = env.step(int(rng.choice(state.legal)))


def test_choice_ignores_unseen_card_order(model_path: Path) -> None:
    agents = [
        make_agent("ppo", "tripeaks", model=str(model_path)),
        make_agent("ppo", "tripeaks", model=str(model_path), deterministic=False, seed=5),
    ]
    rng = np.random.default_rng(1)
    for i, code in enumerate(draw_codes(4, 2, "TP", "E")):
        game, actions = random_position(code, 3 + 2 * i, seed=i)
        state = public_state(game, actions)  # type: ignore[arg-type]
        if not state.legal:
            continue
        for _ in range(3):
            cards = list(state.unseen)
            rng.shuffle(cards)
            other = public_state(state.with_unseen(cards), actions)
            for agent in agents:
                assert agent.act(other) == agent.act(state)


def test_options_override_and_mismatches(model_path: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dict"):
        make_agent("ppo", "tripeaks", model=str(model_path), obs_mode="dict")  # the model takes flat
    with pytest.raises(ValueError, match="hidden cards"):
        make_agent("ppo", "tripeaks", model=str(model_path), obs_mode="oracle")
    with pytest.raises(ValueError, match="trained on tripeaks"):
        make_agent("ppo", "fortythieves", model=str(model_path))
    # no sidecar: the options say the env kwargs (flat by default)
    bare = tmp_path / "bare.zip"
    bare.write_bytes(model_path.read_bytes())
    agent = make_agent("ppo", "tripeaks", model=str(bare))
    assert agent.env_kwargs == {}  # type: ignore[attr-defined]
    # SB3 style: the path without ".zip"
    assert make_agent("ppo", "tripeaks", model=str(tmp_path / "bare")).model_path == bare  # type: ignore[attr-defined]


def test_missing_or_unreadable_model(tmp_path: Path) -> None:
    missing = tmp_path / "nope.zip"
    with pytest.raises(FileNotFoundError, match=r"nope\.zip"):
        make_agent("ppo", "tripeaks", model=str(missing))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match=r"junk\.zip"):
        make_agent("ppo", "tripeaks", model=str(junk))
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"junk\.json"):
        make_agent("ppo", "tripeaks", model=str(junk))
    with pytest.raises(ValueError, match="model="):
        make_agent("ppo", "tripeaks")
