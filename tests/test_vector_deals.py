"""Which deals the batch envs deal: ``exclude_codes`` (every game, also through ``make_vec`` and
``SB3VecEnv``), ``SB3VecEnv(deal_codes=...)`` for fixed evaluation deals, and ``is_success``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import ft_example_win

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.deals import DealCodeError, parse_deal_code
from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
from solitaire_env.games import GAMES, game_spec
from solitaire_env.solvability import draw_codes, solve_code
from solitaire_env.tripeaks.batch import TriPeaksVectorEnv


def batch_env(game: str) -> tuple[Any, str, int, str]:
    """A game's batch env class, registered id, seed block and a deal code of another game."""
    spec = game_spec(game)
    env_class = spec.batch_class
    other = GAMES[(GAMES.index(spec) + 1) % len(GAMES)]
    assert other is not spec, "a code of another game needs a second game"
    return env_class, spec.env_id, env_class._seed_block, f"{other.code}1-{other.default_rule}-AAAAAAB"


def dealt_codes(env: Any, episodes: int, seed: int | None = 0) -> list[list[str]]:
    """The first ``episodes`` random deal codes of each env of a batch env made with
    ``max_episode_steps=1`` and ``autoreset_mode="same_step"`` (one step, one episode)."""
    _, info = env.reset(seed=seed)
    codes = [[str(c)] for c in info["deal_code"]]
    for _ in range(episodes - 1):
        _, _, terminated, truncated, info = env.step(env.action_masks().argmax(axis=1))
        assert (terminated | truncated).all()
        for i, code in enumerate(info["deal_code"]):
            codes[i].append(str(code))
    return codes


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_excluded_codes_are_skipped_and_the_rest_keep_their_order(game: str) -> None:
    env_class, _, block, _ = batch_env(game)
    kwargs = {"max_episode_steps": 1, "autoreset_mode": "same_step"}
    episodes = block + 60  # across a refill of the seed block
    seen = dealt_codes(env_class(3, **kwargs), episodes + episodes // 2)
    # every 5th code of env 0, env 1's codes around the end of its first block (a run of
    # excluded seeds at a block's end: the refill must draw again, maybe more than once), and
    # env 2's first code
    excluded = set(seen[0][::5]) | set(seen[1][block - 6 : block + 3]) | {seen[2][0]}
    env = env_class(3, exclude_codes=sorted(excluded), **kwargs)
    assert env.num_excluded == len(excluded)
    got = dealt_codes(env, episodes)
    for i in range(3):
        assert not excluded & set(got[i])
        kept = [c for c in seen[i] if c not in excluded]
        assert len(kept) >= episodes and got[i] == kept[:episodes]
    # reset(seed=...) again: the same stream, still without the excluded codes
    assert dealt_codes(env, 20) == [g[:20] for g in got]


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_nothing_changes_without_exclusions(game: str) -> None:
    env_class, env_id, _, _ = batch_env(game)
    kwargs = {"max_episode_steps": 1, "autoreset_mode": "same_step"}
    seen = dealt_codes(env_class(2, **kwargs), 30, seed=4)
    for exclude in (None, [], ()):
        env = env_class(2, exclude_codes=exclude, **kwargs)
        assert env.num_excluded == 0 and env._excluded is None
        assert dealt_codes(env, 30, seed=4) == seen
    # an excluded code this env would never draw changes nothing either
    other = env_class(2, exclude_codes=[seen[0][0].replace(seen[0][0][-7:], "AAAAAAA")], **kwargs)
    assert dealt_codes(other, 30, seed=4) == seen
    # the option goes through gym.make_vec
    made = gym.make_vec(env_id, num_envs=2, exclude_codes=[seen[0][1]], **kwargs)
    got = dealt_codes(made, 29, seed=4)
    assert got[0] == [c for c in seen[0] if c != seen[0][1]] and got[1] == seen[1][:29]


def test_injected_deals_are_played_even_if_excluded() -> None:
    code = "TP1-E-ABCDEFG"
    env = TriPeaksVectorEnv(2, exclude_codes=[code])
    _, info = env.reset(seed=0, options={"deal_code": code})
    assert list(info["deal_code"]) == [code, code]
    env = FortyThievesVectorEnv(1, exclude_codes=["FT1-N-ABCDEFG"])
    _, info = env.reset(options={"deal_codes": ["ft1-n-abcdefg"]})
    assert list(info["deal_code"]) == ["FT1-N-ABCDEFG"]


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_bad_exclusions_raise(game: str) -> None:
    env_class, _, _, other_game = batch_env(game)
    with pytest.raises(DealCodeError, match="is for game"):
        env_class(2, exclude_codes=[other_game])
    with pytest.raises(DealCodeError, match="three parts"):
        env_class(2, exclude_codes=["not a code"])
    with pytest.raises(DealCodeError, match="not int"):
        env_class(2, exclude_codes=[17])
    with pytest.raises(ValueError, match="iterable of deal codes"):
        env_class(2, exclude_codes="TP1-E-AAAAAAB")


def test_tripeaks_exclusions_must_be_of_the_envs_rule_letter() -> None:
    with pytest.raises(DealCodeError, match=r"rule letter C.*wrap=True.*TP1-E-"):
        TriPeaksVectorEnv(1, exclude_codes=["TP1-E-AAAAAAB", "TP1-C-AAAAAAC"])
    with pytest.raises(DealCodeError, match=r"rule letter E.*wrap=False.*TP1-C-"):
        TriPeaksVectorEnv(1, wrap=False, exclude_codes=["TP1-E-AAAAAAB"])
    assert TriPeaksVectorEnv(1, wrap=False, exclude_codes=["TP1-C-AAAAAAB"]).num_excluded == 1
    # the legacy letter N reads as E; the same code twice counts once
    assert TriPeaksVectorEnv(1, exclude_codes=["TP1-N-AAAAAAB", "tp1-e-aaaaaab"]).num_excluded == 1
    # Classic codes drawn as the evaluation draws them are excluded from a Classic env
    codes = draw_codes(50, 3, "TP", "C")
    env = TriPeaksVectorEnv(4, wrap=False, exclude_codes=codes, max_episode_steps=1, autoreset_mode="same_step")
    assert env.num_excluded == 50
    assert all(c.startswith("TP1-C-") for row in dealt_codes(env, 5) for c in row)


# --------------------------------------------------------------------------- SB3VecEnv


@pytest.fixture
def needs_sb3() -> None:
    pytest.importorskip("sb3_contrib")


@pytest.mark.usefixtures("needs_sb3")
def test_sb3_vec_env_passes_exclude_codes() -> None:
    from solitaire_env.sb3 import SB3VecEnv

    plain = SB3VecEnv(2, max_episode_steps=1)
    plain.seed(9)
    first = plain.env.reset(seed=9)[1]["deal_code"]
    env = SB3VecEnv(2, max_episode_steps=1, exclude_codes=[first[0]])
    env.seed(9)
    env.reset()
    assert env.env.num_excluded == 1 and env.env.deal_codes()[0] != first[0]
    assert env.env.deal_codes()[1] == first[1]


@pytest.mark.usefixtures("needs_sb3")
def test_sb3_deal_codes_start_every_reset() -> None:
    from solitaire_env.sb3 import SB3VecEnv

    codes = draw_codes(3, 5, "FT", "N")
    env = SB3VecEnv(3, game="fortythieves", deal_codes=[c.lower() for c in codes], max_episode_steps=2)
    assert env.deal_codes == codes
    for seed in (None, 1, None):
        if seed is not None:
            env.seed(seed)
        env.reset()
        assert env.env.deal_codes() == codes
        for _ in range(3):  # episodes end; the automatic resets deal random codes
            env.step(np.zeros(3, dtype=np.int64))
        assert env.env.deal_codes() != codes
    # set_options wins for the one reset it is given to
    env.set_options({"deal_code": codes[0]})
    env.reset()
    assert env.env.deal_codes() == [codes[0]] * 3
    env.reset()
    assert env.env.deal_codes() == codes


@pytest.mark.usefixtures("needs_sb3")
def test_sb3_deal_codes_are_checked() -> None:
    from solitaire_env.sb3 import SB3VecEnv

    with pytest.raises(ValueError, match="one code per env"):
        SB3VecEnv(3, deal_codes=draw_codes(2, 0, "TP", "E"))
    with pytest.raises(ValueError, match="list of 2 deal codes"):
        SB3VecEnv(2, deal_codes="TP1-E-AAAAAAB")
    with pytest.raises(DealCodeError, match="is for game FT"):
        SB3VecEnv(2, deal_codes=["TP1-E-AAAAAAB", "FT1-N-AAAAAAB"])
    with pytest.raises(DealCodeError):
        SB3VecEnv(1, game="fortythieves", deal_codes=["nope"])


@pytest.mark.usefixtures("needs_sb3")
def test_evaluate_policy_plays_each_code_once_per_evaluation() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import VecMonitor

    from solitaire_env.sb3 import SB3VecEnv

    codes = draw_codes(4, 21, "TP", "E")
    env = VecMonitor(SB3VecEnv(4, deal_codes=codes, reward="progress"))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, seed=0, device="cpu")
    for _ in range(2):
        played: dict[int, str] = {}
        successes: list[Any] = []

        def record(
            local: dict[str, Any], _globals: dict[str, Any], played: Any = played, successes: Any = successes
        ) -> None:
            if local["done"]:
                i, info = local["i"], local["info"]
                assert i not in played  # one counted episode per env
                played[i] = info["deal_code"]
                successes.append(info.get("is_success"))
                assert info["is_success"] == (info["cleared"] == 28)

        rewards, lengths = evaluate_policy(model, env, n_eval_episodes=4, callback=record, return_episode_rewards=True)
        assert len(rewards) == 4 and len(lengths) == 4  # type: ignore[arg-type]
        assert [played[i] for i in range(4)] == codes
        assert all(isinstance(s, bool) for s in successes)
        for _ in range(5):  # the env goes on past the evaluation: random deals after the episodes
            env.step(np.array([m.argmax() for m in env.env_method("action_masks")]))


@pytest.mark.usefixtures("needs_sb3")
def test_maskable_eval_callback_logs_successes_on_the_fixed_codes(tmp_path: Any) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from solitaire_env.sb3 import SB3VecEnv

    codes = draw_codes(4, 22, "TP", "E")
    train = VecMonitor(SB3VecEnv(4, exclude_codes=codes, reward="progress"))
    evaluation = VecMonitor(SB3VecEnv(4, deal_codes=codes, reward="progress"))
    callback = MaskableEvalCallback(evaluation, n_eval_episodes=4, eval_freq=8, log_path=str(tmp_path), verbose=0)
    model = MaskablePPO("MlpPolicy", train, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64, callback=callback)
    assert len(callback.evaluations_successes) >= 2
    assert all(len(s) == 4 and all(isinstance(x, bool) for x in s) for s in callback.evaluations_successes)
    assert all(len(r) == 4 for r in callback.evaluations_results)


@pytest.mark.usefixtures("needs_sb3")
def test_is_success_marks_won_episodes() -> None:
    from solitaire_env.sb3 import SB3VecEnv

    # TriPeaks: a solved code's winning line in env 0, random play in env 1
    for code in draw_codes(20, 8, "TP", "E"):
        result = solve_code(code)
        if result.solved:
            break
    assert result.solved
    line = list(result.line)  # type: ignore[attr-defined]
    env = SB3VecEnv(2, deal_codes=[code, code], reward="progress")
    env.reset()
    rng = np.random.default_rng(0)
    ended: list[dict[str, Any]] = []
    for t, action in enumerate(line):
        masks = env.action_masks()
        other = int(rng.choice(np.flatnonzero(masks[1])))
        _, _, dones, infos = env.step(np.array([action, other]))
        assert dones[0] == (t == len(line) - 1)
        ended += [infos[i] for i in np.flatnonzero(dones)]
    won = [info for info in ended if info["deal_code"] == code and info["cleared"] == 28]
    assert won and all(info["is_success"] is True for info in won)
    assert all(info["is_success"] == (info["cleared"] == 28) for info in ended)
    assert any(info["is_success"] is False for info in ended) or len(ended) == 1

    # Forty Thieves: a 197-move winning line (founded == 104)
    deal, ft_line = ft_example_win()
    ft = SB3VecEnv(1, game="fortythieves", reward="progress")
    ft.set_options({"deal": str(deal)})
    ft.reset()
    for t, action in enumerate(ft_line):
        _, _, dones, infos = ft.step(np.array([action]))
        assert dones[0] == (t == len(ft_line) - 1)
    assert infos[0]["founded"] == 104 and infos[0]["is_success"] is True
    ft.step(np.array([0]))
    for _ in range(200):  # a random-play loss (or a repetition / step-limit cut) is not a success
        _, _, dones, infos = ft.step(np.array([int(np.flatnonzero(ft.action_masks()[0])[0])]))
        if dones[0]:
            assert infos[0]["is_success"] is (infos[0]["founded"] == 104)
            break


@pytest.mark.usefixtures("needs_sb3")
def test_deal_codes_parse_as_canonical() -> None:
    from solitaire_env.sb3 import SB3VecEnv

    env = SB3VecEnv(1, deal_codes=[" tp1-n-aaaaaab "])
    assert env.deal_codes == [str(parse_deal_code("TP1-E-AAAAAAB"))]
