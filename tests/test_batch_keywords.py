"""The keywords every batch env takes are named once (``BatchKeywords``, defaults in
``BATCH_DEFAULTS``) and reach each game's batch env as ``**options``: the defaults hold, a
keyword no batch env takes is a ``TypeError`` naming the env, and a bad value a ``ValueError``."""

from __future__ import annotations

import typing

import gymnasium as gym
import pytest

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.batch import BATCH_DEFAULTS, BatchKeywords
from solitaire_env.games import GAMES

BATCH_GAMES = tuple(g for g in GAMES if g.batch_path is not None)


def test_every_keyword_has_one_default() -> None:
    assert set(BATCH_DEFAULTS) == set(typing.get_type_hints(BatchKeywords))


@pytest.mark.parametrize("spec", BATCH_GAMES, ids=lambda g: g.code)
def test_the_defaults_and_the_games_step_limit(spec) -> None:
    env = spec.batch_class(2)
    assert (env.reward_mode, env.obs_mode, env.illegal_action, env.win_bonus) == ("score", "flat", "penalize", 10.0)
    assert env.max_episode_steps == spec.max_episode_steps
    assert env.autoreset_mode == gym.vector.AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("spec", BATCH_GAMES, ids=lambda g: g.code)
def test_shared_keywords_reach_the_env_through_make_vec(spec) -> None:
    env = gym.make_vec(
        spec.env_id, num_envs=2, vectorization_mode="vector_entry_point", reward="progress", max_episode_steps=7,
        autoreset_mode="same_step", illegal_penalty=-2.5, obs_mode="dict",
    )  # fmt: skip
    inner = env.unwrapped
    assert (inner.reward_mode, inner.max_episode_steps, inner.illegal_penalty) == ("progress", 7, -2.5)
    assert inner.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP and inner.obs_mode == "dict"
    assert spec.batch_class(2, max_episode_steps=None).max_episode_steps > 10**12


@pytest.mark.parametrize("spec", BATCH_GAMES, ids=lambda g: g.code)
def test_unknown_keywords_and_bad_values(spec) -> None:
    name = spec.batch_class.__name__
    with pytest.raises(TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'rewards'"):
        spec.batch_class(2, rewards="win")
    with pytest.raises(ValueError, match="unknown reward 'wins'"):
        spec.batch_class(2, reward="wins")
    with pytest.raises(ValueError, match="does not render"):
        spec.batch_class(2, render_mode="human")
