"""The afterstate policy's fit step: the plain scorer (every afterstate built and scored whole,
``scores_direct``) against the factored one (``scores``), with and without the critic.

One step = the warm start's fit of one batch of 4096 TriPeaks Easy positions (those with more than
one legal move, from random games, advice appended): forward, backward, Adam. The variants run
interleaved, 9 rounds, medians and the ratio to the plain full step:

    python benchmarks/afterstate_fit.py
"""

import statistics
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.training.advice_env import AdviceObservation
from agents.training.afterstate import AfterstatePolicy, afterstate_policy_kwargs
from solitaire_env.sb3 import SB3VecEnv

torch.set_num_threads(2)
inner = SB3VecEnv(256, game="tripeaks", reward="progress", win_bonus=30, wrap=True)
env = AdviceObservation(inner)
model = MaskablePPO(AfterstatePolicy, env, seed=0, device="cpu", policy_kwargs=afterstate_policy_kwargs(True))
rng = np.random.default_rng(0)
obs, got = env.reset(), []
while sum(len(o) for o in got) < 4096:
    mask = inner.action_masks()
    got.append(np.asarray(obs)[mask.sum(axis=1) > 1])
    obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
batch = torch.as_tensor(np.concatenate(got)[:4096])
policy = model.policy
extractor = policy.features_extractor
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-4)


def fit(loss: torch.Tensor) -> None:
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def full_step() -> None:  # the actor and the critic, as the warm start's critic batches and PPO
    features = policy.extract_features(batch, policy.pi_features_extractor)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    fit((policy.action_net(latent_pi) ** 2).mean() + (policy.value_net(latent_vf) ** 2).mean())


def plain_full() -> None:
    extractor.scores = extractor.scores_direct  # type: ignore[method-assign]
    try:
        full_step()
    finally:
        del extractor.scores


def factored_full() -> None:
    full_step()


def factored_actor() -> None:  # the warm start's batches between critic batches (``critic_every``)
    fit((extractor.scores(batch) ** 2).mean())


variants = [plain_full, factored_full, factored_actor]
times: dict[str, list[float]] = {v.__name__: [] for v in variants}
for v in variants:
    v()  # warm up
for _ in range(9):
    for v in variants:
        t = time.perf_counter()
        v()
        times[v.__name__].append(time.perf_counter() - t)
base = statistics.median(times["plain_full"])
candidates = int(extractor.candidates(batch).sum())
print(f"batch: 4096 positions, {candidates} scored moves; medians of 9 interleaved rounds")
for name, ts in times.items():
    median = statistics.median(ts)
    print(f"{name:15s} {1000 * median:7.1f} ms   plain_full / this = {base / median:.2f}")
