"""``solitaire-env train`` (MaskablePPO, :mod:`agents.training.train`, or expert iteration,
:mod:`agents.training.expert_iteration`) and ``solitaire-env export`` (a model's numpy policy)."""

from __future__ import annotations

import argparse
import os

from solitaire_env.cli_args import CLIError, VerbTable, arg, check_output, parse_positive, parse_seed

VERBS = VerbTable()
verb = VERBS.verb

TRAIN_EPILOG = """\
Trains MaskablePPO (sb3-contrib; pip install 'solitaire-env[rl]') on the numba batch env from
a YAML config (see configs/ppo_*.yaml and docs/training.md): until its timesteps or minutes,
whichever comes first; validation deals evaluated during training (MaskableEvalCallback, the
best model kept); then the test: the ppo agent on the best model next to the config's
comparison agents on the held-out test deals (paired McNemar tests).  The training stream never
deals a validation or test deal.  Writes to the out folder: model.zip, best_model.zip (each
with its sidecar JSON for the ppo agent), model.npz and best_model.npz (the numpy policies of the
afterstate and move-feature policies: they play without torch), metrics.json, learning_curve.png, evaluations.npz,
test/ (the evaluation's results) and tensorboard/ (tensorboard --logdir OUT/tensorboard).

examples:
  solitaire-env train --config configs/ppo_smoke.yaml
  solitaire-env train --config configs/ppo_tripeaks_easy.yaml
  solitaire-env train --config configs/ppo_tripeaks_easy.yaml --resume runs/ppo_tripeaks_easy/model.zip \\
      --timesteps 2000000 --out runs/ppo_tripeaks_easy_more
  solitaire-env eval --agents lookahead ppo:model=runs/ppo_tripeaks_easy/best_model.zip --deals 1000
"""


@verb(
    "train",
    "train MaskablePPO from a YAML config: validation while training, test on held-out deals, model + metrics",
    arg("--config", metavar="FILE", required=True, help="a YAML training config (see configs/ppo_*.yaml)"),
    arg(
        "--timesteps",
        type=parse_positive,
        metavar="N",
        help="override: env steps to train (with --resume: steps to add)",
    ),
    arg("--minutes", type=float, metavar="M", help="override: wall-clock limit of the learning, in minutes"),
    arg("--seed", type=parse_seed, metavar="N", help="override: the seed of the envs, the policy and PPO"),
    arg("--out", metavar="DIR", help="override: the output folder"),
    arg("--resume", metavar="MODEL", help="go on training this saved model (model.zip of an earlier run)"),
    arg("--test-deals", type=int, metavar="N", help="override: how many held-out test deals (0: no test)"),
    arg("--dry-run", action="store_true", help="validate the config, print what would run, and stop"),
    arg("--no-progress", action="store_true", help="no progress bar on stderr"),
    epilog=TRAIN_EPILOG,
)
def cmd_train(args: argparse.Namespace) -> int:
    from agents.training.expert_iteration import is_expert_iteration

    if is_expert_iteration(args.config):
        return _train_expert_iteration(args)
    try:
        from agents.training.train import TrainConfig, load_train_config, train
    except ImportError as error:  # pragma: no cover - the rl extra is missing
        raise CLIError(f"train needs the rl extra (pip install 'solitaire-env[rl]'): {error}") from None
    if args.minutes is not None and not 0 < args.minutes < float("inf"):
        raise CLIError(f"--minutes must be a finite number > 0, got {args.minutes}")
    if args.test_deals is not None and args.test_deals < 0:
        raise CLIError(f"--test-deals must be >= 0, got {args.test_deals}")
    config: TrainConfig = load_train_config(
        args.config, timesteps=args.timesteps, minutes=args.minutes, seed=args.seed, out=args.out, resume=args.resume
    )
    if args.test_deals is not None:
        raw = config.to_dict()
        raw["test"]["deals"] = args.test_deals
        config = TrainConfig.from_mapping(raw, source=args.config)
    if args.dry_run:
        print(config.dry_run_text(), end="")
        return 0
    result = train(config, progress=not args.no_progress)
    m = result.metrics
    best = m["best_validation"] or {}
    print(
        f"trained {m['timesteps_this_run']:,} steps in {m['learn_seconds']:.0f} s "
        f"({m['steps_per_second']:,.0f} steps/s, "
        f"stopped by {m['stopped_by']}); best validation mean return {best.get('mean_reward', float('nan')):.3f}"
        + (f", win rate {100 * best['win_rate']:.1f}%" if "win_rate" in best else "")
    )
    if "test" in m:
        print(m["test"]["table"], end="")
    for key in ("best_model", "best_model_numpy", "model", "model_numpy", "metrics", "learning_curve", "tensorboard"):
        if key in result.files:
            print(f"{key}: {result.files[key]}")
    return 0


EXPORT_EPILOG = """\
Writes the numpy policy of a trained MaskablePPO model: the scorer network of a ppo.features:
afterstate (TriPeaks) or ppo.features: moves (Forty Thieves) policy and what its inputs need, read
from MODEL and its sidecar JSON.  The ppo agent plays the .npz with numpy, without torch
(ppo:model=FILE.npz); the packaged policies that the ppo agent plays without a model are such
files.  train writes model.npz and best_model.npz itself; export is for a model.zip from
elsewhere.  Other policies (MlpPolicy, features: chain) play through torch only.

examples:
  solitaire-env export runs/ppo_tripeaks_easy/best_model.zip
  solitaire-env export runs/ppo_fortythieves/best_model.zip --out ft.npz
  solitaire-env eval --agents ppo:model=ft.npz --game ft --deals 200
"""


@verb(
    "export",
    "write a trained model.zip as a numpy policy (.npz) that the ppo agent plays without torch",
    arg("model", metavar="MODEL", help="a model.zip that train wrote (its sidecar JSON beside it)"),
    arg("--out", metavar="FILE", help="the .npz to write (default: MODEL with .npz for .zip)"),
    epilog=EXPORT_EPILOG,
)
def cmd_export(args: argparse.Namespace) -> int:
    from agents.training.export import export_policy, numpy_path

    out = args.out if args.out is not None else str(numpy_path(args.model))
    check_output("--out", out)
    try:
        path = export_policy(args.model, out)
    except (FileNotFoundError, ValueError) as error:  # a missing rl extra too (MissingExtraError)
        raise CLIError(str(error)) from None
    print(f"numpy policy: {path} ({path.stat().st_size:,} bytes)")
    return 0


def _train_expert_iteration(args: argparse.Namespace) -> int:
    """``train`` with a ``method: expert_iteration`` config (agents/training/expert_iteration.py)."""
    from dataclasses import replace

    from agents.training.expert_iteration import load_ei_config, run_expert_iteration

    for name in ("timesteps", "resume"):
        if getattr(args, name) is not None:
            raise CLIError(f"--{name} is for MaskablePPO configs; {args.config} is an expert-iteration config")
    config = load_ei_config(args.config, out=args.out, seed=args.seed)
    if args.minutes is not None:
        if not 0 < args.minutes < float("inf"):
            raise CLIError(f"--minutes must be a finite number > 0, got {args.minutes}")
        config = replace(config, minutes=float(args.minutes))
    if args.test_deals is not None:
        if args.test_deals < 0:
            raise CLIError(f"--test-deals must be >= 0, got {args.test_deals}")
        config = replace(config, test={**config.test, "deals": args.test_deals})
    if args.dry_run:
        print(f"expert iteration of the TriPeaks rollout agent's base policy ({config.source})")
        for key, value in vars(config).items():
            if key != "source":
                print(f"  {key}: {value}")
        return 0
    metrics = run_expert_iteration(config, say=print)
    print(f"net: {metrics['net']}\nmetrics: {os.path.join(config.out, 'metrics.json')}")
    return 0
