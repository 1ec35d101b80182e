"""The batch envs' next-step autoreset and the masks of envs awaiting their reset step.

docs/vector.md decides: an env whose episode ended in the last step (next_step mode) keeps the
finished game's mask (all False when the game is over, as ``SyncVectorEnv`` reports it), and
the coming step resets it whatever action it is sent.  These tests run the documentation's
example loop itself (extracted from the markdown, so the page cannot go stale), check the
decision for every game of ``solitaire_env.games``, the package's sampler on all-False rows,
and that sb3-contrib's masked distribution stays finite on such a row.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env  # noqa: F401  (registers the env ids)
from solitaire_env.games import ENV_IDS, GAMES, TRIPEAKS

#: The env id docs/vector.md's example makes (the test swaps in each game's).
TRIPEAKS_ID = TRIPEAKS.env_id
DOC = Path(__file__).resolve().parent.parent / "docs" / "vector.md"


def doc_example() -> str:
    """The first Python block of docs/vector.md: the batch-env example loop."""
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert blocks, "docs/vector.md has no python block"
    return str(blocks[0])


def action_masks(env: Any) -> np.ndarray:
    """The batch env's ``action_masks()`` (what MaskablePPO reads)."""
    return np.asarray(env.unwrapped.action_masks())


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What the documented loop does: a uniformly random legal action per row, 0 for a row with none."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_the_documented_loop_runs_for_every_game(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = doc_example()
    assert code.count(f'"{TRIPEAKS_ID}"') == 1, "the example should make the TriPeaks batch env once"
    assert "for _ in range(" in code and "env.step(" in code, "the example should be a loop of steps"
    code = code.replace(f'"{TRIPEAKS_ID}"', f'"{ENV_IDS[game]}"')
    namespace: dict[str, Any] = {"__name__": "docs_vector_example"}
    exec(compile(code, str(DOC), "exec"), namespace)
    env = namespace["env"]
    try:
        assert env.num_envs == 1024
        assert namespace["episodes"] >= 500, namespace["episodes"]  # many episodes ended (and were reset)
        assert "episodes ended" in capsys.readouterr().out
    finally:
        env.close()


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_an_env_awaiting_its_reset_step(game: str, illegal_action: str) -> None:
    """A game over leaves an all-False mask (info and action_masks()); the next step resets that
    env whatever it is sent (here action 0, illegal in a finished game): reward 0, no illegal
    reason, no raise, and a fresh mask with a legal move."""
    env = gym.make_vec(ENV_IDS[game], num_envs=64, illegal_action=illegal_action)
    try:
        _, info = env.reset(seed=3)
        rng = np.random.default_rng(3)
        awaiting = np.zeros(64, dtype=bool)
        game_over = np.zeros(64, dtype=bool)
        seen_empty = 0
        for _ in range(3000):
            masks = action_masks(env)
            assert masks.dtype == np.bool_
            assert np.array_equal(masks, info["action_mask"].astype(bool))
            empty = ~masks.any(axis=1)
            # only a game that is over has no legal move, and then its env awaits its reset
            assert np.array_equal(empty, game_over), np.flatnonzero(empty ^ game_over)
            seen_empty += int(empty.sum())
            actions = random_legal(masks, rng)
            actions[awaiting] = 0  # ignored: these envs are reset by this step
            _, rewards, terminated, truncated, info = env.step(actions)
            if awaiting.any():
                assert not terminated[awaiting].any() and not truncated[awaiting].any()
                assert np.all(rewards[awaiting] == 0.0)
                if "illegal_reason" in info:
                    assert not info["_illegal_reason"][awaiting].any()
                assert info["action_mask"][awaiting].any(axis=1).all()  # the new game has a move
            awaiting = terminated | truncated
            # with illegal actions never sent, terminated means the game is over
            game_over = terminated.copy()
            if seen_empty >= 20:
                break
        assert seen_empty >= 20, seen_empty
    finally:
        env.close()


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_same_step_masks_are_never_all_false(game: str) -> None:
    env = gym.make_vec(ENV_IDS[game], num_envs=64, autoreset_mode="same_step")
    try:
        env.reset(seed=5)
        rng = np.random.default_rng(5)
        ended = 0
        for _ in range(400):
            masks = action_masks(env)
            assert masks.any(axis=1).all()
            _, _, terminated, truncated, _ = env.step(random_legal(masks, rng))
            ended += int((terminated | truncated).sum())
        assert ended >= 20, ended
    finally:
        env.close()


@pytest.mark.parametrize("game", tuple(g.name for g in GAMES))
def test_the_package_sampler_takes_all_false_rows(game: str) -> None:
    from solitaire_env.tripeaks.batch_kernels import sample_legal

    width = int(gym.make(ENV_IDS[game]).unwrapped.num_actions)  # the game's number of actions
    rng = np.random.default_rng(width)
    masks = (rng.random((500, width)) < 0.1).astype(np.int8)
    masks[::7] = 0  # envs awaiting their reset step
    out = np.full(500, -1, dtype=np.int64)
    sample_legal(masks, np.array([7], dtype=np.uint64), out)
    empty = ~masks.any(axis=1)
    assert np.all(out[empty] == 0)
    assert np.all(masks[np.flatnonzero(~empty), out[~empty]] == 1)


def test_maskable_distribution_is_finite_on_an_all_false_row() -> None:
    """sb3-contrib's MaskableCategorical on a batch with an all-False mask row: no NaN in
    probabilities, samples, log-probabilities, entropy or gradients."""
    th = pytest.importorskip("torch")
    distributions = pytest.importorskip("sb3_contrib.common.maskable.distributions")
    generator = th.Generator().manual_seed(0)
    logits = th.randn(4, 29, generator=generator, requires_grad=True)
    masks = th.ones(4, 29, dtype=th.bool)
    masks[1] = False  # awaiting its reset step
    masks[2] = False
    masks[2, 28] = True  # only the draw
    dist = distributions.MaskableCategorical(logits=logits, masks=masks)
    assert th.isfinite(dist.probs).all()
    actions = dist.sample()
    assert ((actions >= 0) & (actions < 29)).all()
    log_prob = dist.log_prob(actions)
    entropy = dist.entropy()
    assert th.isfinite(log_prob).all() and th.isfinite(entropy).all()
    (log_prob.sum() + entropy.sum()).backward()
    assert logits.grad is not None and th.isfinite(logits.grad).all()
    assert int(actions[2]) == 28
