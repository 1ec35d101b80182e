"""How well the warm start's teacher plays on its own: the move of highest fair value, every position.

    python scripts/teacher_values.py WIN_VALUE SAMPLES [SAMPLES ...]

plays the 1000 validation deals (seed 1, TriPeaks Easy) in the batch env, choosing in every
position the legal move with the highest value estimated over SAMPLES fillings of the unseen
cards (agents.training.move_values.sampled_action_values: the move, then the rollout agent's base policy to
the end; value = cards cleared + WIN_VALUE on a win).  SAMPLES 0 plays the base policy itself.
Prints: samples, win rate, seconds.  Figures in docs/training.md (session 5).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from agents.training.advice import batch_advice
from agents.training.move_values import sampled_action_values
from solitaire_env.sb3 import SB3VecEnv
from solitaire_env.solvability import draw_codes


def main(win_value: float, samples: list[int], deals: int = 1000) -> None:
    codes = draw_codes(deals, 1, "TP", "E")
    for k in samples:
        env = SB3VecEnv(deals, game="tripeaks", deal_codes=codes, reward="progress", win_bonus=30.0)
        env.reset()
        rng = np.random.default_rng(0)
        done = np.zeros(deals, dtype=bool)
        won = np.zeros(deals, dtype=bool)
        start = time.perf_counter()
        while not done.all():
            if k == 0:
                actions = batch_advice(env.env)
            else:
                values = sampled_action_values(env.env, win_value, k, rng, threads=2)
                actions = np.where(np.isnan(values), -np.inf, values).argmax(axis=1)
            mask = env.action_masks()
            actions = np.where(mask[np.arange(deals), actions], actions, mask.argmax(axis=1))  # finished rows
            _, _, dones, infos = env.step(actions)
            for i in np.flatnonzero(dones & ~done):
                done[i] = True
                won[i] = bool(infos[i]["is_success"])
        print(k, f"{won.mean():.3f}", round(time.perf_counter() - start, 1), flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]), [int(a) for a in sys.argv[2:]])
