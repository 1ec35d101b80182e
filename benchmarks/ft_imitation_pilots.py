"""The pilots behind configs/ppo_fortythieves.yaml (docs/training.md, "Session 17").

Each step is a subcommand; every figure is on validation deals (seed 1), never the test deals:

    python benchmarks/ft_imitation_pilots.py collect --games 600 --seed 11 --out /tmp/ft/teacher.npz [--tolerance 2]
        [--teacher lookahead --teacher-options nodes=30000]
    python benchmarks/ft_imitation_pilots.py fit --data /tmp/ft/teacher.npz --epochs 6 --out /tmp/ft/bc [--good]
    python benchmarks/ft_imitation_pilots.py dagger --data /tmp/ft/teacher.npz --model /tmp/ft/bc.zip \
        --games 300 --out /tmp/ft/dag
    python benchmarks/ft_imitation_pilots.py ppo --model /tmp/ft/bc.zip --minutes 14 --out /tmp/ft/bc_ppo

``collect`` plays the cheap planner's games (the config's teacher) on training deals and saves
their positions; ``fit`` fits a new move policy to them (``--good``: to the set of moves the
teacher scored as well as its own, else to its move) and checks it on ``--deals`` validation
deals after each epoch; ``dagger`` lets a fitted policy play ``--games`` training games with the
teacher labelling its positions, then refits on both; ``ppo`` goes on with MaskablePPO (32 envs)
and checks every 40,960 steps.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

KW = {"reward": "progress", "win_bonus": 30}
FIELDS = ("rows", "actions", "good", "start", "position", "label", "ret")


def _held() -> list[str]:
    from solitaire_env.common.deals import draw_codes

    return draw_codes(300, 0, "fortythieves", "N") + draw_codes(200, 1, "fortythieves", "N")


def _load(path: str, good: bool) -> Any:
    from agents.training.imitation import TeacherGames

    p = dict(np.load(path))
    if not good:  # the teacher's own move only
        own = np.zeros(len(p["rows"]), bool)
        for a, b, label in zip(p["start"][:-1], p["start"][1:], p["label"]):
            own[a + int(np.flatnonzero(p["actions"][a:b] == label)[0])] = True
        p["good"] = own
    return TeacherGames(**{k: p[k] for k in FIELDS}, games=0, won=0, founded=0)


def _check(model: Any, deals: int) -> Any:
    from agents.training.evaluations import evaluate_model
    from solitaire_env.common.deals import draw_codes

    codes = draw_codes(deals, 1, "fortythieves", "N")

    def check() -> dict[str, float]:
        got = evaluate_model(model, codes, "fortythieves", KW)
        return {
            "win_rate": float(got["won"].mean()),
            "mean_reward": float(got["reward"].mean()),
            "founded": float(got["progress"].mean()),
        }

    return check


def main() -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=("collect", "fit", "dagger", "ppo"))
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--data")
    parser.add_argument("--model")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--good", action="store_true")
    parser.add_argument("--minutes", type=float, default=14.0)
    parser.add_argument("--lr", type=float, default=1e-4, help="ppo: the learning rate")
    parser.add_argument("--ent", type=float, default=0.003, help="ppo: the entropy coefficient")
    parser.add_argument("--teacher", default="planner", help="collect: planner or lookahead")
    parser.add_argument("--teacher-options", default="", help="collect: the teacher's options, as 'nodes=30000,...'")
    parser.add_argument("--bonus", type=float, default=0.0, help="fit, ppo: the policy's lookahead bonus")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO

    from agents.training.imitation import ImitationSettings, collect_games, fit_policy, training_codes
    from agents.training.move_envs import move_vec_env
    from agents.training.move_policy import MovePolicy, move_policy_kwargs, set_lookahead_bonus

    start = time.time()
    if args.step == "collect":
        options = {k: int(v) for k, v in (o.split("=") for o in args.teacher_options.split(",") if o)}
        settings = ImitationSettings(
            teacher=args.teacher, games=args.games, minutes=600, tolerance=args.tolerance,
            **({"teacher_options": options} if options else {}),
        )  # fmt: skip
        data = collect_games(training_codes(args.seed, "N", _held()), settings, KW, 0.995, args.seed)
        print(data.games, "games", len(data), "positions; won", data.won, "founded", data.founded / data.games)
        np.savez(args.out, **{k: getattr(data, k) for k in FIELDS})
    elif args.step == "fit":
        data = _load(args.data, args.good)
        env = move_vec_env(2, KW)
        model = MaskablePPO(
            MovePolicy, env, policy_kwargs=move_policy_kwargs([128, 128]), seed=0, device="cpu", gamma=0.995
        )
        settings = ImitationSettings(epochs=args.epochs, lookahead_bonus=args.bonus)
        fit_policy(model.policy, data, settings, 0, check=_check(model, args.deals))
        model.save(args.out)
    elif args.step == "dagger":
        data = _load(args.data, args.good)
        model = MaskablePPO.load(args.model, device="cpu")
        settings = ImitationSettings(epochs=args.epochs, learning_rate=3e-4, final_learning_rate=3e-5, minutes=600)
        student = (1, model.policy.features_extractor.state_dict(), [128, 128])
        more = collect_games(
            training_codes(args.seed, "N", _held()), settings, KW, 0.995, args.seed, games=args.games, student=student
        )
        print("student games", more.games, len(more), "won", more.won, "founded", more.founded / more.games)
        fit_policy(model.policy, data.join(more), settings, 0, check=_check(model, args.deals))
        model.save(args.out)
    else:
        from stable_baselines3.common.vec_env import VecMonitor

        env = VecMonitor(move_vec_env(32, KW, exclude=_held(), seed=5))
        model = MaskablePPO.load(
            args.model, env=env, device="cpu", learning_rate=args.lr, n_steps=64, batch_size=512, n_epochs=4,
            ent_coef=args.ent, gamma=0.995,
        )  # fmt: skip
        if args.bonus:
            set_lookahead_bonus(model.policy, args.bonus)
        check = _check(model, args.deals)
        print("start", check(), flush=True)
        while time.time() - start < args.minutes * 60:
            model.learn(40960, reset_num_timesteps=False)
            print(round(time.time() - start), model.num_timesteps, check(), flush=True)
        model.save(args.out)
    print(f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
