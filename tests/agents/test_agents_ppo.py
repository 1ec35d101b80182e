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
from agents.players.ppo import read_sidecar, sidecar_path, write_sidecar
from agents.registry import make_agent
from solitaire_env.solvability import draw_codes, make_game

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


def test_fast_path_picks_what_predict_picks(model_path: Path) -> None:
    """The agent's policy call (no distribution objects) gives ``model.predict``'s action and
    the masked distribution's probabilities, on 600 states of its own play from random starts."""
    import torch

    agent = make_agent("ppo", "tripeaks", model=str(model_path))
    sampler = make_agent("ppo", "tripeaks", model=str(model_path), deterministic=False, seed=3)
    model = agent.model  # type: ignore[attr-defined]
    policy = model.policy
    checked = 0
    for i, code in enumerate(draw_codes(30, 11, "TP", "E")):
        game, actions = random_position(code, i % 25, seed=i)
        while not game.over and checked < 600:
            state = public_state(game, actions)
            obs = agent.observation(state)  # type: ignore[attr-defined]
            expected, _ = model.predict(obs, action_masks=state.mask, deterministic=True)
            assert agent.act(state) == int(expected)
            assert int(agent.masked_probs(obs, state.mask).argmax()) == int(expected)  # type: ignore[attr-defined]
            tensor, _ = policy.obs_to_tensor(obs)
            with torch.no_grad():
                dist = policy.get_distribution(tensor, action_masks=state.mask[None, :]).distribution
            assert torch.equal(agent.masked_probs(obs, state.mask), dist.probs)  # type: ignore[attr-defined]
            want = dist.probs[0].numpy().astype(np.float64)
            want[~state.mask] = 0.0
            np.testing.assert_array_equal(sampler.probabilities(state), want / want.sum())  # type: ignore[attr-defined]
            checked += 1
            action = agent.act(state)
            game.play(action)
            actions.append(action)
    assert checked == 600


@pytest.mark.parametrize("case", range(6))
def test_greedy_ties_and_near_ties_match_the_distribution(model_path: Path, case: int) -> None:
    """Logits with exact ties, near ties and far leads: ``greedy`` picks the mode of
    sb3-contrib's masked distribution (what ``predict(deterministic=True)`` returns)."""
    import torch
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    agent = make_agent("ppo", "tripeaks", model=str(model_path))
    rng = np.random.default_rng(case)
    obs = np.zeros(agent.observer.space.shape, dtype=np.float32)  # type: ignore[attr-defined]
    for _ in range(200):
        logits = rng.normal(0, [0.01, 1, 10, 100, 1e-6, 3][case], 29).astype(np.float32)
        best = int(rng.integers(29))
        other = int(rng.integers(29))
        logits[other] = logits[best] + np.float32(rng.choice([0.0, 1e-7, -1e-7, 1e-5, 1e-3]))
        mask = rng.random(29) < 0.5
        mask[[best, other]] = True
        tensor = torch.as_tensor(logits[None, :])
        agent.logits = lambda _obs, t=tensor: t  # type: ignore[attr-defined]
        dist = MaskableCategoricalDistribution(29).proba_distribution(tensor)
        dist.apply_masking(mask[None, :])
        assert agent.greedy(obs, mask) == int(dist.mode()[0])  # type: ignore[attr-defined]


def test_torch_threads_option(model_path: Path) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        make_agent("ppo", "tripeaks", model=str(model_path), torch_threads=None)
        assert torch.get_num_threads() == before
        make_agent("ppo", "tripeaks", model=str(model_path))
        assert torch.get_num_threads() == 1
        with pytest.raises(ValueError, match="torch_threads"):
            make_agent("ppo", "tripeaks", model=str(model_path), torch_threads=0)
    finally:
        torch.set_num_threads(before)


def test_evaluation_workers_forked_after_torch_threads_do_not_hang(model_path: Path, tmp_path: Path) -> None:
    """torch's OpenMP pool does not survive fork: a worker forked from a process that ran a
    multi-threaded torch operation hung in its first torch call (the evaluation builds every
    agent once in the parent).  The agent goes down to one thread before touching torch."""
    import subprocess
    import sys

    script = f"""
import torch
torch.set_num_threads(2)
torch.randn(512, 512) @ torch.randn(512, 512)  # the parent's OpenMP pool now has threads
torch.linalg.qr(torch.randn(64, 64))
from agents.evaluation.harness import evaluate
result = evaluate(game="tripeaks", deals=2, workers=2, agents=["ppo:model={model_path}"], write=False)
print("games", len(next(iter(result.episodes.values()))))
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "games 2" in done.stdout


def test_act_observed_reads_the_envs_observation(model_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the env's output of the model's observation mode, the agent takes the env's
    observation (it builds no game from the public state) and picks :meth:`act`'s move; with
    another observation mode it falls back to :meth:`act`."""
    from agents.base import EnvOutput, env_output

    agent = make_agent("ppo", "tripeaks", model=str(model_path))
    env = gym.make("solitaire_env/TriPeaks-v0", **ENV_KWARGS)
    rng = np.random.default_rng(4)
    checked = 0
    for code in draw_codes(6, 2, "TP", "E"):
        obs, info = env.reset(options={"deal_code": code})
        done = False
        while not done:
            state = public_state(env.unwrapped.game, env.unwrapped.actions)  # type: ignore[attr-defined]
            expected = agent.act(state)
            with monkeypatch.context() as patch:
                patch.setattr(agent, "observation", lambda _state: pytest.fail("rebuilt the observation"))
                assert agent.act_observed(state, env_output(env, obs, info)) == expected  # type: ignore[attr-defined]
            other = EnvOutput(observation=None, info=info, obs_mode="dict")  # not the model's: act() decides
            assert agent.act_observed(state, other) == expected  # type: ignore[attr-defined]
            checked += 1
            action = expected if rng.random() < 0.7 else int(rng.choice(state.legal))
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert checked > 50
    env.close()
