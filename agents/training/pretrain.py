"""A warm start for TriPeaks policies: fit the policy's logits to the rollout agent's move values.

The ``rollout`` agent scores each legal move by playing it, then the fair
base policy to the end, in many fillings of the cards it has not seen, and plays the best. Its
values are a function of the public state that an MLP can be fitted to: this stage does that,
before PPO (or instead of it), in the training run's time budget.

One round:

1. **Collect.** ``steps`` moves of the training envs (the batch env: random deals, held-out codes
   excluded), played by the current policy (its most probable legal move; with probability
   ``epsilon`` a uniformly random legal move instead, so that the positions are not only the
   policy's own). In every position with more than one legal move, the values of all the legal
   moves are estimated like the rollout agent does (:func:`agents.training.move_values.sampled_action_values`:
   ``samples`` fillings of the unseen places, each move followed by the base policy; value = cards
   cleared + ``win_bonus`` on a win), in ``threads`` threads. Nothing hidden goes in: the
   fillings are drawn from what the player has not seen (tests/agents/test_move_values.py checks the
   estimate is the rollout agent's kernel run on the public state's inputs).
2. **Fit.** ``epochs`` passes over the last ``replay`` rounds' positions: the legal logits, minus
   their mean, are fitted to the values, minus their mean, divided by ``temperature`` (squared
   error; ``loss: squared``, the default), or, with ``loss: cross_entropy``, the policy's move
   probabilities to the softmax of values / ``temperature`` (:func:`policy_loss`); either way the
   most probable move is the move of highest estimated value. The value head is
   fitted to the best move's value (the return of playing on), so that PPO starts with a critic;
   with ``critic_every: k`` only on every k-th batch (the others fit the logits alone, without
   running the critic, which makes them cheaper: ``docs/training.md`` has by how much).
3. **Check** (when the run gives a validation, every ``every`` seconds and at the end): the
   weights of the best check (mean validation return, as the evaluation callback ranks models)
   are the ones the warm start ends with.

With ``average`` (a decay per optimizer step, such as 0.998), an exponential moving average of
the weights is kept as well (torch's ``AveragedModel``) and checked next to them on the same deals;
the best check of either is what the warm start ends with.

With ``symmetry: true``, each position of a fit batch is taken under a random one of the 48
symmetries of TriPeaks (the suits renamed, the layout mirrored: :mod:`agents.training.symmetry`), its
legal moves and values renumbered with it: the same positions, seen 48 ways, at no cost in labels.

The learning rate is ``learning_rate`` throughout, or, with ``final_learning_rate``, goes down in
a straight line to it over the warm start's ``minutes`` (set at each round's fit): the fitted
weights then settle instead of wandering from check to check.

The policy stays a MaskablePPO policy: the rest of the run (PPO, validation, the saved model,
the ``ppo`` agent) does not know it was warm-started.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PRETRAIN_KEYS", "PRETRAIN_LOSSES", "PretrainSettings", "policy_loss", "run_pretrain"]

#: The keys of a training config's ``pretrain`` block.
PRETRAIN_KEYS = (
    "minutes",
    "samples",
    "steps",
    "epsilon",
    "temperature",
    "epochs",
    "replay",
    "batch_size",
    "learning_rate",
    "final_learning_rate",
    "threads",
    "loss",
    "average",
    "symmetry",
    "critic_every",
)

#: The values of the ``loss`` key.
PRETRAIN_LOSSES = ("squared", "cross_entropy")


@dataclass(frozen=True)
class PretrainSettings:
    """The ``pretrain`` block of a training config (see the module docstring)."""

    minutes: float = 10.0
    samples: int = 32
    steps: int = 16
    epsilon: float = 0.1
    temperature: float = 4.0
    epochs: int = 2
    replay: int = 8
    batch_size: int = 4096
    learning_rate: float = 3e-4
    final_learning_rate: float | None = None
    threads: int = 2
    loss: str = "squared"
    average: float | None = None
    symmetry: bool = False
    critic_every: int = 1

    def rate(self, elapsed: float) -> float:
        """The learning rate ``elapsed`` seconds into the warm start: ``learning_rate`` throughout,
        or, with ``final_learning_rate``, a straight line from one to the other over ``minutes``."""
        if self.final_learning_rate is None:
            return self.learning_rate
        done = min(max(elapsed / (self.minutes * 60.0), 0.0), 1.0)
        return self.learning_rate + (self.final_learning_rate - self.learning_rate) * done


def policy_loss(logits: Any, mask: Any, values: Any, temperature: float, loss: str = "squared") -> Any:
    """The fit of a batch's logits to its move values (``mask``: 1 for the legal moves, as floats).

    ``squared``: the legal logits minus their mean against the values minus their mean, divided
    by ``temperature`` (squared error over the legal moves). ``cross_entropy``: the policy's move
    probabilities against the softmax of values / ``temperature`` over the legal moves (so the
    moves near the best weigh most; a move far below the best hardly counts)."""
    import torch

    if loss == "cross_entropy":
        legal = mask > 0
        log_p = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
        target = torch.softmax((values / temperature).masked_fill(~legal, -1e9), dim=1)
        return -(target * log_p * mask).sum(dim=1).mean()
    count = mask.sum(dim=1, keepdim=True)
    centred = logits - (logits * mask).sum(dim=1, keepdim=True) / count
    target = (values - (values * mask).sum(dim=1, keepdim=True) / count) / temperature
    return (((centred - target) ** 2) * mask).sum() / mask.sum()


def run_pretrain(
    model: Any,
    inner: Any,
    env: Any,
    settings: PretrainSettings,
    seed: int,
    check: Callable[[], dict[str, float]] | None = None,
    every: float = 300.0,
    say: Callable[..., None] = print,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Warm-start ``model``'s policy for ``settings.minutes`` (module docstring).

    ``inner`` is the TriPeaks ``SB3VecEnv`` and ``env`` the env chain the model reads (``inner``
    itself, or wrappers over it such as the advice); ``check`` (optional) is called every
    ``every`` seconds and at the end and returns figures to log (a validation). ``stop``
    (optional) is asked before every move of the envs and every fit: once it says ``True`` the
    warm start ends at once, without the last check, keeping the weights it has
    (``"interrupted": true``). Returns what happened: rounds, positions, seconds, and the
    ``check`` rows.
    """
    import torch
    from stable_baselines3.common.utils import update_learning_rate

    from agents.training import symmetry
    from agents.training.afterstate import TriPeaksAfterstateFeatures
    from agents.training.move_values import sampled_action_values

    policy = model.policy
    win_bonus = float(inner.env.win_bonus)  # the value of a win, in the reward's units
    actor = [
        *policy.features_extractor.parameters(),
        *policy.mlp_extractor.policy_net.parameters(),
        *policy.action_net.parameters(),
    ]
    critic = [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]
    optimizer = torch.optim.Adam(actor + critic, lr=settings.learning_rate)
    rng = np.random.default_rng(seed)
    history: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    rows: list[dict[str, float]] = []
    start = time.perf_counter()
    last_check = start
    rounds = positions = batches = 0
    loss_value = float("nan")
    rate = settings.learning_rate
    obs = env.reset()
    policy.set_training_mode(False)
    tables: Any = None  # the symmetries' gather indices (``symmetry``)
    if settings.symmetry:
        tables = tuple(torch.as_tensor(t) for t in symmetry.symmetry_tables(int(np.asarray(obs).shape[1])))

    averaged: Any = None  # the moving average of the weights (``average``)
    if settings.average is not None:
        from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

        averaged = AveragedModel(policy, multi_avg_fn=get_ema_multi_avg_fn(settings.average))
    # the best check's mean reward, its weights, its time, whether they were the averaged ones
    best: list[Any] = [-math.inf, None, None, False]

    def keep_best(now: float) -> None:
        assert check is not None
        row: dict[str, Any] = {"seconds": round(now - start, 1), "positions": positions, **check()}
        own = copy.deepcopy(policy.state_dict())  # a copy: loading the average below writes into the live tensors
        candidates = [(row["mean_reward"], own, False)]
        if averaged is not None:  # the averaged weights checked on the same deals, then put back
            policy.load_state_dict(averaged.module.state_dict())
            row.update({f"averaged_{k}": v for k, v in check().items()})
            candidates.append((row["averaged_mean_reward"], copy.deepcopy(averaged.module.state_dict()), True))
            policy.load_state_dict(own)
        for reward, weights, is_average in candidates:
            if reward > best[0]:
                best[:] = [reward, weights, row["seconds"], is_average]
        rows.append(row)
        say(f"pretrain: {row}")

    def logits_and_values(o: Any) -> tuple[Any, Any]:
        features = policy.extract_features(o, policy.pi_features_extractor)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        return policy.action_net(latent_pi), policy.value_net(latent_vf)

    def logits_only(o: Any) -> Any:
        """The policy's logits without the critic (the afterstate policy's are its scores)."""
        extractor = policy.pi_features_extractor
        if isinstance(extractor, TriPeaksAfterstateFeatures):
            return extractor.scores(o.float())
        features = policy.extract_features(o, extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features))

    stopped = stop if stop is not None else (lambda: False)
    while not stopped() and (rounds == 0 or time.perf_counter() - start < settings.minutes * 60):  # one round at least
        got_obs, got_mask, got_q = [], [], []
        for _ in range(settings.steps):
            if stopped():
                break
            q = sampled_action_values(
                inner.env, win_bonus, settings.samples, rng, threads=settings.threads, skip_forced=True
            )
            mask = inner.action_masks()
            with torch.no_grad():
                logits = logits_only(torch.as_tensor(obs))
            scores = logits.numpy().copy()
            scores[~mask] = -np.inf
            actions = scores.argmax(axis=1)
            explore = np.flatnonzero(rng.random(len(actions)) < settings.epsilon)
            for i in explore:
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
            keep = mask.sum(axis=1) > 1
            got_obs.append(np.asarray(obs)[keep])
            got_mask.append(mask[keep])
            got_q.append(np.nan_to_num(q[keep]))
            obs, _, _, _ = env.step(actions)
        if stopped():
            break
        history.append((np.concatenate(got_obs), np.concatenate(got_mask), np.concatenate(got_q)))
        del history[: -settings.replay]
        positions += len(history[-1][0])
        rounds += 1
        o_all = torch.as_tensor(np.concatenate([h[0] for h in history]))
        m_all = torch.as_tensor(np.concatenate([h[1] for h in history]))
        q_all = torch.as_tensor(np.concatenate([h[2] for h in history]), dtype=torch.float32)
        policy.set_training_mode(True)
        rate = settings.rate(time.perf_counter() - start)
        update_learning_rate(optimizer, rate)
        for _ in range(settings.epochs):
            order = torch.randperm(len(o_all))
            for k in range(0, len(o_all), settings.batch_size):
                if stopped():  # between two optimizer steps: the weights are whole
                    break
                idx = order[k : k + settings.batch_size]
                ob, mb, qb = o_all[idx], m_all[idx].float(), q_all[idx]
                if tables is not None:
                    ob, mb, qb = symmetry.augment(tables, ob, mb, qb)
                batches += 1
                if batches % settings.critic_every == 0:  # the value head too, on every critic_every-th batch
                    logits, values = logits_and_values(ob)
                    fit_loss = policy_loss(logits, mb, qb, settings.temperature, settings.loss)
                    top = torch.where(mb > 0, qb, torch.full_like(qb, -1e9)).max(dim=1).values
                    value_loss = ((values.squeeze(1) - top) ** 2).mean()
                    loss = fit_loss + 0.01 * value_loss
                else:
                    fit_loss = policy_loss(logits_only(ob), mb, qb, settings.temperature, settings.loss)
                    loss = fit_loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if averaged is not None:
                    averaged.update_parameters(policy)
                loss_value = float(fit_loss.item())
        policy.set_training_mode(False)
        now = time.perf_counter()
        if check is not None and now - last_check >= every and not stopped():
            last_check = now
            keep_best(now)
    seconds = time.perf_counter() - start
    if check is not None and not stopped():
        keep_best(time.perf_counter())
        if best[1] is not None:  # the best check's weights (a copy: the last check's own, unchanged, if it was best)
            policy.load_state_dict(best[1])
            which = "averaged weights" if best[3] else "weights"
            say(f"pretrain: kept the {which} of the check at {best[2]:g} s (the best validation)")
    return {
        "rounds": rounds,
        "positions": positions,
        "seconds": round(seconds, 1),
        "last_policy_loss": loss_value,
        "last_learning_rate": rate,
        "checks": rows,
        "kept_check_seconds": best[2] if check is not None and not stopped() else None,
        "kept_averaged": bool(best[3]) and not stopped(),
        "interrupted": stopped(),
    }
