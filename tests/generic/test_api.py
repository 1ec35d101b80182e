"""The Gymnasium API contract of SPEC section 5, run over every env that games.py registers.

Every test here is generic: it only uses what every env of the package has (``num_actions``,
``action_masks()``, ``action_name()``, ``public_view()``, ``game``, the info keys).  The envs
come from :data:`solitaire_env.games.GAMES`: a game added there is tested here with no edit.
"""

from __future__ import annotations

import json
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same, legal_actions, random_masked_episode
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env import DealCodeError
from solitaire_env.common.env import InvalidActionError
from solitaire_env.games import GAMES, GameSpec, game_spec

ENV_IDS = [g.env_id for g in GAMES]
OBS_MODES = ("flat", "dict", "oracle", "oracle_dict")
RENDER_MODES = (None, "ansi", "rgb_array")
#: The counters every game reports in every info, besides its own progress counter
#: (``GameSpec.progress_key``: TriPeaks ``cleared``, Forty Thieves ``founded``).
COMMON_INFO_KEYS = {"deal_code", "action_mask", "score", "moves", "cleared", "chain", "longest_chain"}


def spec_of(env_id: str) -> GameSpec:
    return next(g for g in GAMES if g.env_id == env_id)


def required_info_keys(env_id: str) -> set[str]:
    return COMMON_INFO_KEYS | {spec_of(env_id).progress_key}


def check_info(env: gym.Env, info: dict, env_id: str, illegal: bool = False) -> None:
    base = env.unwrapped
    assert required_info_keys(env_id) <= info.keys()
    assert ("illegal_reason" in info) is illegal
    mask = info["action_mask"]
    assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (base.num_actions,)
    assert set(np.unique(mask)) <= {0, 1}
    bools = base.action_masks()
    assert bools.dtype == np.bool_ and bools.shape == (base.num_actions,)
    assert np.array_equal(bools, mask.astype(bool))
    assert isinstance(info["deal_code"], str) and info["deal_code"]
    assert info["score"] == base.game.score and info["moves"] == base.game.moves
    assert info[spec_of(env_id).progress_key] == getattr(base.game, spec_of(env_id).progress_key)
    json.dumps(base.public_view())


@pytest.fixture(params=ENV_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    return request.param


# --------------------------------------------------------------------------- registration


def test_every_env_of_the_package_is_in_the_table() -> None:
    """The registry's envs of the package are exactly the table's, with the table's entry points,
    so the tests over :data:`ENV_IDS` cover every env the package registers."""
    ours = {env_id: spec for env_id, spec in gym.registry.items() if env_id.startswith("solitaire_env/")}
    assert sorted(ours) == sorted(ENV_IDS)
    for env_id, spec in ours.items():
        row = spec_of(env_id)
        assert game_spec(row.name) is row
        assert spec.entry_point == row.entry_point
        assert spec.vector_entry_point == row.vector_entry_point
        assert spec.max_episode_steps == row.max_episode_steps
        env = gym.make(env_id)
        env.reset(seed=0)
        assert isinstance(env.unwrapped, row.env_class)
        assert isinstance(env.unwrapped.game, row.game_class)
        assert env.unwrapped.game.deal.__class__ is row.deal_class


# --------------------------------------------------------------------------- checkers


@pytest.mark.parametrize("render_mode", RENDER_MODES)
@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_gymnasium_check_env(env_id: str, obs_mode: str, render_mode: str | None) -> None:
    env = gym.make(env_id, obs_mode=obs_mode, render_mode=render_mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(env.unwrapped, skip_render_check=False)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_sb3_check_env_without_warnings(env_id: str, obs_mode: str) -> None:
    env = gym.make(env_id, obs_mode=obs_mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(env.unwrapped, warn=True)
    assert [str(w.message) for w in caught] == []


def test_maskable_ppo_reads_the_masks(env_id: str) -> None:
    """sb3-contrib's MaskablePPO finds ``action_masks`` through the wrappers and trains a few steps."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = gym.make(env_id)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=32)
    vec = model.get_env()
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (1, env.unwrapped.num_actions) and masks.dtype == np.bool_
    assert np.array_equal(masks[0], vec.envs[0].unwrapped.action_masks())


# --------------------------------------------------------------------------- spaces, info, masks


@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_info_mask_and_space_at_every_step(env_id: str, obs_mode: str) -> None:
    env = gym.make(env_id, obs_mode=obs_mode)
    base = env.unwrapped
    assert env.action_space == gym.spaces.Discrete(base.num_actions)
    rng = np.random.default_rng(1)
    steps = 0
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        check_info(env, info, env_id)
        done = False
        while not done:
            mask = base.action_masks()
            if rng.random() < 0.2 and not mask.all():  # an illegal action now and then
                action = int(rng.choice(np.flatnonzero(~mask)))
                illegal = True
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
                illegal = False
            assert isinstance(base.action_name(action), str) and base.action_name(action)
            obs, reward, terminated, truncated, info = env.step(action)
            steps += 1
            assert env.observation_space.contains(obs)
            assert isinstance(reward, float)
            assert isinstance(terminated, bool) and isinstance(truncated, bool)
            check_info(env, info, env_id, illegal=illegal)
            if illegal:
                assert info["illegal_reason"] in base.game.REASONS
                assert info["illegal_message"] == base.game.REASONS[info["illegal_reason"]]
            done = terminated or truncated
    assert steps > 50


def test_info_arrays_are_not_shared(env_id: str) -> None:
    """Each info's mask is its own array: changing one never changes another or the env."""
    env = gym.make(env_id)
    _, info0 = env.reset(seed=3)
    before = info0["action_mask"].copy()
    action = int(legal_actions(info0["action_mask"])[0])
    _, _, _, _, info1 = env.step(action)
    info0["action_mask"][:] = 1
    info1["action_mask"][:] = 1
    assert not env.unwrapped.action_masks().all()
    assert not before.all()


@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_returned_observations_are_not_shared(env_id: str, obs_mode: str) -> None:
    """Writing into a returned observation changes nothing the env returns later."""
    env, twin = gym.make(env_id, obs_mode=obs_mode), gym.make(env_id, obs_mode=obs_mode)

    def scribble(obs):
        for part in obs.values() if isinstance(obs, dict) else [obs]:
            if isinstance(part, np.ndarray):
                part[...] = 1 - part

    rng = np.random.default_rng(7)
    result, twin_result = env.reset(seed=7), twin.reset(seed=7)
    for _ in range(12):
        info = result[-1]
        if not info["action_mask"].any():
            break
        action = int(rng.choice(legal_actions(info["action_mask"])))
        scribble(result[0])
        result, twin_result = env.step(action), twin.step(action)
        assert_same(result, twin_result)


# --------------------------------------------------------------------------- determinism, codes


@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_identical_trajectories_for_identical_seeds_and_actions(env_id: str, obs_mode: str) -> None:
    env_a, env_b = gym.make(env_id, obs_mode=obs_mode), gym.make(env_id, obs_mode=obs_mode)
    codes = set()
    for seed in range(25):
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        run_a = random_masked_episode(env_a, rng_a, seed=seed)
        run_b = random_masked_episode(env_b, rng_b, seed=seed)
        assert_same(run_a, run_b)
        codes.add(run_a[0][1]["deal_code"])
    assert len(codes) == 25  # different seeds, different deals


def test_reset_without_seed_continues_the_seeded_stream(env_id: str) -> None:
    env_a, env_b = gym.make(env_id), gym.make(env_id)
    env_a.reset(seed=11)
    env_b.reset(seed=11)
    codes_a = [env_a.reset()[1]["deal_code"] for _ in range(5)]
    codes_b = [env_b.reset()[1]["deal_code"] for _ in range(5)]
    assert codes_a == codes_b and len(set(codes_a)) == 5


@pytest.mark.parametrize("obs_mode", ("flat", "dict"))
def test_deal_code_reproduces_the_episode(env_id: str, obs_mode: str) -> None:
    env = gym.make(env_id, obs_mode=obs_mode)
    for seed in range(15):
        first = random_masked_episode(env, np.random.default_rng(seed), seed=seed)
        code = first[0][1]["deal_code"]
        replay = random_masked_episode(env, np.random.default_rng(seed), options={"deal_code": code})
        assert_same(first, replay)
        # the code survives lower case and blanks, and a different reset seed does not matter
        again = random_masked_episode(
            env, np.random.default_rng(seed), seed=seed + 1000, options={"deal_code": f"  {code.lower()} "}
        )
        assert_same(first, again)


def test_bad_deal_code_raises_and_keeps_the_episode(env_id: str) -> None:
    env = gym.make(env_id)
    _, info = env.reset(seed=5)
    view = env.unwrapped.public_view()
    for bad in ("", "XX1-E-AAAAAAA", "TP1-E-AAAA", "TP1-E-AAAAAA1", 17):
        with pytest.raises(DealCodeError):
            env.reset(options={"deal_code": bad})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seed": 3})
    # a seed given with a bad code does not reseed: the random stream stays where it was
    stream = env.unwrapped.np_random.bit_generator.state
    with pytest.raises(DealCodeError):
        env.reset(seed=9, options={"deal_code": "TP1-E-AAAA"})
    assert env.unwrapped.np_random.bit_generator.state == stream
    assert env.unwrapped.public_view() == view
    action = int(legal_actions(info["action_mask"])[0])
    _, _, _, _, info2 = env.step(action)
    assert "illegal_reason" not in info2 and info2["moves"] == 1


# --------------------------------------------------------------------------- episode end


def test_random_masked_episodes_always_end(env_id: str) -> None:
    env = gym.make(env_id)
    limit = env.spec.max_episode_steps
    assert limit is not None
    for seed in range(40):
        run = random_masked_episode(env, np.random.default_rng(seed), seed=seed)
        last = run[-1]
        assert last[3] or last[4]
        assert len(run) - 1 <= limit
        if last[3]:  # terminated: the game is over, nothing is legal any more
            assert not env.unwrapped.action_masks().any()
            assert env.unwrapped.game.over


def test_illegal_actions_are_truncated_by_the_time_limit(env_id: str) -> None:
    env = gym.make(env_id)
    limit = env.spec.max_episode_steps
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    for step in range(1, limit + 1):
        _, reward, terminated, truncated, info = env.step(illegal)
        assert not terminated
        assert truncated == (step == limit)
        assert info["moves"] == 0 and "illegal_reason" in info
        assert reward == env.unwrapped.illegal_penalty < 0


# --------------------------------------------------------------------------- pickling


@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_pickle_round_trip(env_id: str, obs_mode: str) -> None:
    env = gym.make(env_id, obs_mode=obs_mode, render_mode="ansi")
    obs, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(3):  # pickle mid-episode
        obs, _, _, _, info = env.step(int(rng.choice(legal_actions(info["action_mask"]))))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped is not env.unwrapped
    assert clone.unwrapped.public_view() == env.unwrapped.public_view()
    assert clone.render() == env.render()
    done = False
    while not done:
        action = int(rng.choice(legal_actions(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        result = clone.step(action)
        assert_same((obs, reward, terminated, truncated, info), result)
        assert clone.render() == env.render()
        done = terminated or truncated
    # a pickled fresh env resets and seeds like the original
    fresh = pickle.loads(pickle.dumps(gym.make(env_id, obs_mode=obs_mode)))
    assert_same(fresh.reset(seed=4), gym.make(env_id, obs_mode=obs_mode).reset(seed=4))


# --------------------------------------------------------------------------- rendering


def test_render_modes(env_id: str) -> None:
    text_env = gym.make(env_id, render_mode="ansi")
    rgb_env = gym.make(env_id, render_mode="rgb_array")
    _, info = text_env.reset(seed=0)
    rgb_env.reset(seed=0)
    rng = np.random.default_rng(0)
    shapes = set()
    for _ in range(6):
        text = text_env.render()
        frame = rgb_env.render()
        assert isinstance(text, str) and text.endswith("\n") and len(text.splitlines()) >= 4
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] > 50 and frame.shape[1] > 50
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 2  # a picture, not a blank
        shapes.add(frame.shape)
        if not info["action_mask"].any():
            break
        action = int(rng.choice(legal_actions(info["action_mask"])))
        _, _, _, _, info = text_env.step(action)
        rgb_env.step(action)
    assert len(shapes) == 1  # every frame has the same size (video recorders need that)


def test_render_without_mode_warns_and_returns_none(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


@pytest.mark.filterwarnings("ignore:.*render_mode")
def test_step_before_reset_and_bad_actions(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for bad in (-1, env.num_actions):
        with pytest.raises(ValueError, match="outside"):
            env.step(bad)
    with pytest.raises(ValueError, match="unknown render_mode"):
        gym.make(env_id, render_mode="video")
    with pytest.raises(ValueError, match="observation mode"):
        gym.make(env_id, obs_mode="pixels")
    with pytest.raises(ValueError, match="reward"):
        gym.make(env_id, reward="fun")
    with pytest.raises(ValueError, match="illegal_action"):
        gym.make(env_id, illegal_action="ignore")


# --------------------------------------------------------------------------- step input


def _legal_and_state(env: gym.Env) -> tuple[int, dict]:
    base = env.unwrapped
    return int(np.flatnonzero(base.action_masks())[0]), base.public_view()


@pytest.mark.parametrize("illegal_action", ["penalize", "raise", "terminate"])
def test_step_rejects_what_is_not_an_integer_action(env_id: str, illegal_action: str) -> None:
    """A float, a string, a bool, an array that is not a 0-d integer array: one clear line, whatever
    the illegal-action policy, and nothing changes (the episode goes on)."""
    env = gym.make(env_id, illegal_action=illegal_action)
    env.reset(seed=4)
    base = env.unwrapped
    legal, view = _legal_and_state(env)
    bad_actions = [
        float(legal),
        legal + 0.5,
        str(legal),
        True,
        False,
        np.True_,
        np.float32(legal),
        np.array(float(legal)),
        np.array(legal, dtype=np.bool_),
        np.array([legal]),
        np.array([[legal]]),
        np.array([legal, legal]),
        np.arange(100),
        [legal],
        None,
    ]
    for bad in bad_actions:
        with pytest.raises(InvalidActionError, match=r"^invalid action .*want an integer 0\.\.") as caught:
            env.step(bad)
        assert isinstance(caught.value, ValueError)
        assert "\n" not in str(caught.value), str(caught.value)
        assert base.public_view() == view and base.actions == []
    with pytest.raises(InvalidActionError, match=r"action\.item\(\)"):  # a one-element array: the hint
        env.step(np.array([legal]))
    for bad in (-1, base.num_actions, np.int64(base.num_actions), np.array(-3), 2**70):
        with pytest.raises(InvalidActionError, match=f"outside 0\\.\\.{base.num_actions - 1}$"):
            env.step(bad)
    assert base.public_view() == view
    _, _, _, _, info = env.step(legal)
    assert "illegal_reason" not in info and info["moves"] == 1


def test_step_accepts_python_and_numpy_integer_scalars(env_id: str) -> None:
    """Python ints, numpy integer scalars of any width and 0-d integer arrays step exactly alike."""
    kinds = [
        int,
        np.int64,
        np.int32,
        np.int16,
        np.uint8,
        np.uint64,
        lambda a: np.array(a),
        lambda a: np.array(a, dtype=np.uint16),
    ]
    envs = [gym.make(env_id) for _ in kinds]
    results = [env.reset(seed=6) for env in envs]
    rng = np.random.default_rng(6)
    for _ in range(30):
        mask = results[0][-1]["action_mask"]
        if not mask.any():
            break
        # mostly legal actions, some illegal ones (the same penalty path for every kind)
        action = int(rng.choice(legal_actions(mask))) if rng.random() < 0.8 else int(rng.integers(len(mask)))
        results = [env.step(kind(action)) for env, kind in zip(envs, kinds)]
        for other in results[1:]:
            assert_same(other, results[0])
    assert all(env.unwrapped.actions == envs[0].unwrapped.actions for env in envs)
    assert all(type(a) is int for a in envs[0].unwrapped.actions)


# --------------------------------------------------------------------------- stepping after the end


def _play_to_termination(env: gym.Env, seed: int) -> dict:
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        _, _, terminated, truncated, info = env.step(int(rng.choice(legal_actions(info["action_mask"]))))
        if terminated:
            return info
        if truncated:  # a Forty Thieves repetition: try the next deal
            seed += 1000
            _, info = env.reset(seed=seed)


def test_step_after_termination_warns_once_per_episode(env_id: str) -> None:
    """As Gymnasium's own envs do (CartPole): one warning, the step is played as usual (a finished
    game takes no move: an illegal action, terminated again), no warning again until a reset."""
    env = gym.make(env_id)
    base = env.unwrapped
    for seed in (0, 1):  # twice: a reset re-arms the warning
        _play_to_termination(env, seed)
        view = base.public_view()
        with pytest.warns(UserWarning, match="after this episode ended") as caught:
            _, reward, terminated, truncated, info = env.step(0)
        assert len(caught) == 1 and "reset()" in str(caught[0].message)
        assert terminated and not truncated and "illegal_reason" in info
        assert reward == base.illegal_penalty and base.public_view() == view
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            env.step(base.num_actions - 1)
            env.step(0)
        assert [str(w.message) for w in again] == []


def test_no_warning_while_an_episode_runs(env_id: str) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(5):
            random_masked_episode(env, np.random.default_rng(seed), seed=seed)
            _, info = env.reset(seed=seed)
            for _ in range(3):  # illegal actions do not end an episode (by default)
                env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
            env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert [str(w.message) for w in caught] == []


def test_step_after_an_illegal_action_terminated_warns(env_id: str) -> None:
    """``illegal_action="terminate"`` ends the episode: the next step warns, and is played as usual."""
    env = gym.make(env_id, illegal_action="terminate")
    _, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, _, terminated, _, _ = env.step(illegal)
    assert terminated
    with pytest.warns(UserWarning, match="after this episode ended"):
        _, _, _, _, info = env.step(legal)
    assert "illegal_reason" not in info and info["moves"] == 1
