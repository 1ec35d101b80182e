"""The training run's evaluations: its deal codes, its model in the batch env, its test.

- :func:`deal_sets`: the validation and test deal codes, drawn as an evaluation run draws them;
- :func:`evaluate_model`: every deal code played once in the batch env with the model's
  deterministic masked policy (the warm start's checks, the test's ``batch_check``);
- :func:`validation_rows`: the rows of ``metrics.json``'s ``validation`` from sb3-contrib's
  ``MaskableEvalCallback``;
- :func:`run_test`: the test through the evaluation harness (:func:`agents.evaluation.harness.evaluate`):
  the ``ppo`` agent on the best model next to the comparison agents, paired tests, and
  :func:`progress_comparison` (cards cleared or founded per game, paired sign tests).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import GameName
from agents.evaluation.config import EvalConfig
from agents.evaluation.specs import AgentSpec
from agents.training.config import TrainConfig
from agents.training.game_features import for_game
from solitaire_env.games import game_spec

__all__ = ["deal_sets", "evaluate_model", "progress_comparison", "run_test", "takes_advice", "validation_rows"]


def deal_sets(config: TrainConfig) -> tuple[list[str], list[str]]:
    """The validation and test deal codes (the test codes are an evaluation run's: same seed, same codes)."""
    from solitaire_env.common.deals import draw_codes

    game = game_spec(config.game).code
    validation = draw_codes(config.validation.deals, config.validation.seed, game, config.rules)
    test = draw_codes(config.test.deals, config.test.seed, game, config.rules)
    return validation, test


def evaluate_model(
    model: Any, codes: Sequence[str], game: GameName = "tripeaks", env_kwargs: Mapping[str, Any] | None = None
) -> dict[str, np.ndarray]:
    """Play each deal code once in the batch env with the model's deterministic masked policy.

    Returns per-deal arrays (in the order of ``codes``): ``won``, ``progress`` (cards cleared,
    TriPeaks; cards founded, Forty Thieves), ``score`` and ``reward`` (the episode's return).
    The same policy and observations as the ``ppo`` agent, so the two give the same games (a
    model whose observations hold the advice, :mod:`agents.training.advice`, gets it here too).
    """
    from solitaire_env.sb3 import SB3VecEnv

    n = len(codes)
    if n == 0:
        return {k: np.zeros(0) for k in ("won", "progress", "score", "reward")}
    kwargs = {k: v for k, v in (env_kwargs or {}).items() if k not in ("autoreset_mode", "copy")}
    from agents.training.move_features import takes_move_features

    inner: Any
    if for_game("moves", game) and takes_move_features(model.observation_space):
        from agents.training.move_envs import move_vec_env

        inner = move_vec_env(n, kwargs, codes=list(codes))
    else:
        inner = SB3VecEnv(n, game=game, deal_codes=list(codes), **kwargs)
    env: Any = inner
    if takes_advice(model, game):
        from agents.training.advice_env import AdviceObservation

        env = AdviceObservation(inner)
    progress_key = game_spec(game).progress_key
    obs = env.reset()
    done = np.zeros(n, dtype=bool)
    out = {
        "won": np.zeros(n, dtype=bool),
        "progress": np.zeros(n, dtype=np.int64),
        "score": np.zeros(n, dtype=np.int64),
        "reward": np.zeros(n, dtype=np.float64),
    }
    try:
        while not done.all():
            actions, _ = model.predict(obs, action_masks=inner.action_masks(), deterministic=True)
            obs, rewards, dones, infos = env.step(actions)
            out["reward"][~done] += rewards[~done]
            for i in np.flatnonzero(dones & ~done):
                done[i] = True
                out["won"][i] = bool(infos[i]["is_success"])
                out["progress"][i] = infos[i][progress_key]
                out["score"][i] = infos[i]["score"]
    finally:
        env.close()
    return out


def takes_advice(model: Any, game: GameName) -> bool:
    """Whether a TriPeaks model's observations are the flat ones followed by the advice."""
    from solitaire_env.tripeaks.observe import FLAT_SIZE
    from solitaire_env.tripeaks.rules import NUM_ACTIONS

    shape = getattr(model.observation_space, "shape", None)
    return for_game("advice", game) and shape == (FLAT_SIZE + NUM_ACTIONS,)  # the advice: one per action


def validation_rows(evaluation: Any) -> list[dict[str, Any]]:
    """One row per validation of the evaluation callback: its timesteps, mean return and, when
    the env reported successes, win rate."""
    rows = []
    successes = evaluation.evaluations_successes
    for k, (steps, results) in enumerate(zip(evaluation.evaluations_timesteps, evaluation.evaluations_results)):
        row: dict[str, Any] = {"timesteps": int(steps), "mean_reward": float(np.mean(results))}
        if k < len(successes):
            row["win_rate"] = float(np.mean(successes[k]))
        rows.append(row)
    return rows


def run_test(config: TrainConfig, best_path: Path, test_codes: Sequence[str], say: Any) -> dict[str, Any]:
    """The test: the ``ppo`` agent on ``best_path`` next to the config's comparison agents on the
    test codes, through the evaluation harness (files in ``<out>/test``); then the same policy on
    the same deals in the batch env, a check of the harness's games (``batch_check``)."""
    from sb3_contrib import MaskablePPO

    from agents.evaluation.harness import evaluate

    ppo_spec = AgentSpec("ppo", (("model", str(best_path)),))
    eval_config = EvalConfig.from_mapping(
        {
            "game": config.game,
            "rules": config.rules,
            "env": config.rule_kwargs,
            "deals": config.test.deals,
            "seed": config.test.seed,
            "agents": [ppo_spec.to_dict(), *(a.to_dict() for a in config.test.agents)],
            "workers": config.test.workers,
            "out": str(Path(config.out) / "test"),
        }
    )
    agents = ", ".join(a.key for a in eval_config.agents)
    say(f"test: {config.test.deals} held-out deals (seed {config.test.seed}), agents: {agents}")
    result = evaluate(eval_config, progress=False)
    got: dict[str, Any] = {
        "summary": result.summary(),
        "pairs": result.pairs(),
        "agent": ppo_spec.key,
        "table": result.table(),
        "progress": progress_comparison(result.episodes, ppo_spec.key),
    }
    best = MaskablePPO.load(str(best_path), device="cpu")
    batch = evaluate_model(best, test_codes, config.game, config.env_kwargs)
    got["batch_check"] = {
        "wins": int(batch["won"].sum()),
        "mean_progress": float(batch["progress"].mean()),
        "mean_score": float(batch["score"].mean()),
    }
    return got


def _mean_interval(values: np.ndarray) -> list[float]:
    """The mean and its 95 % interval (normal approximation: the runs here have 100+ deals)."""
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return [mean, mean - half, mean + half]


def progress_comparison(episodes: Mapping[str, Sequence[Any]], subject: str) -> dict[str, Any]:
    """Cards cleared (TriPeaks) or founded (Forty Thieves) per game of every agent, with 95 %
    intervals, and of ``subject`` against each other agent on the same deals: the mean paired
    difference with its interval and an exact sign test (deals where one made more progress than
    the other; ties dropped), the counterpart for progress of the McNemar test on wins."""
    from agents.evaluation.harness import mcnemar_exact

    mine = np.array([e.progress for e in episodes[subject]], dtype=np.float64)
    out: dict[str, Any] = {"per_agent": {}, "paired": {}}
    for key, rows in episodes.items():
        values = np.array([e.progress for e in rows], dtype=np.float64)
        out["per_agent"][key] = dict(zip(("mean", "ci95_low", "ci95_high"), _mean_interval(values)))
        if key != subject:
            diff = mine - values
            more, less = int((diff > 0).sum()), int((diff < 0).sum())
            mean, low, high = _mean_interval(diff)
            out["paired"][key] = {
                "mean_difference": mean,
                "ci95": [low, high],
                "deals_more": more,
                "deals_less": less,
                "sign_test_p": mcnemar_exact(more, less),
            }
    return out
