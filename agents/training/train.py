"""Training: MaskablePPO (sb3-contrib) on the numba batch env, from a validated YAML config.

    solitaire-env train --config configs/ppo_tripeaks_easy.yaml
    python -c "from agents.training.train import train; train('configs/ppo_smoke.yaml')"

One run, in order (every path under the config's ``out`` folder), each step a function here:

1. :func:`_setup`: the deal codes, ``validation`` (evaluated while training) and ``test``
   (evaluated at the end), drawn like an evaluation run's
   (:func:`~solitaire_env.common.deals.draw_codes`); the training stream never deals one of them
   (the batch env's ``exclude_codes``); the envs (:class:`~solitaire_env.sb3.SB3VecEnv`,
   ``num_envs`` games, with the config's shaping and advice), the model (new, or the one to
   resume) and the callbacks;
2. :func:`_learn`: the warm start (a ``pretrain`` block, :mod:`agents.training.pretrain`), then MaskablePPO
   until ``timesteps`` env steps or ``minutes`` of wall time, whichever comes first, with a tqdm
   progress bar on stderr and TensorBoard logs in ``tensorboard/``; every ``validation.every``
   env steps, sb3-contrib's ``MaskableEvalCallback`` plays every validation deal once with masks
   (deterministic policy) and keeps the best model by mean reward in ``best_model.zip``;
3. :func:`_save`: a last validation, ``model.zip`` (the last weights) and ``best_model.zip``,
   each with its sidecar JSON for the ``ppo`` agent, and ``metrics.json``;
4. :func:`_test`: the ``test`` evaluation through the evaluation harness (the ``ppo`` agent on
   ``best_model.zip`` next to the config's comparison agents, same deal codes, paired McNemar
   tests) in ``test/``; ``learning_curve.png``; ``metrics.json`` again, with the test.

The run prints its settings at the start (one block on stderr).  Ctrl-C or SIGTERM during the
warm start or the learning stops at the next env step and saves ``model.zip``, its sidecar and
``metrics.json`` (``"interrupted": true``), then raises :class:`TrainingInterrupted` (the CLI
exits 130); the line it prints says how to resume.

The parts that stand alone live in their own modules (their names are importable from here too):
:mod:`agents.training.config` (:class:`TrainConfig`, :func:`load_train_config`),
:mod:`agents.training.evaluations` (the deal codes, :func:`evaluate_model`, the test),
:mod:`agents.training.callbacks` (the validations, the stop and the progress bar inside the learning),
:mod:`agents.training.signals` (signals, :class:`TrainingInterrupted`, the resume line) and
:mod:`agents.training.outputs` (:class:`TrainResult`, the models, their sidecars, ``metrics.json``,
the learning curve).

The config keys, their defaults and the decisions behind them are in ``docs/training.md``.
Every bad value is a :class:`~agents.settings.ConfigError`: all the mistakes of a config in one
error, one line each.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.extras import require_rl
from agents.settings import ConfigError
from agents.training.config import PPO_KEYS, TRAIN_KEYS, TrainConfig, load_train_config
from agents.training.evaluations import deal_sets, evaluate_model, progress_comparison, run_test, validation_rows
from agents.training.outputs import TrainResult, model_paths, plot_curve, save_models, write_metrics
from agents.training.signals import StopSignals, TrainingInterrupted, interrupted

__all__ = [
    "PPO_KEYS",
    "TRAIN_KEYS",
    "TrainConfig",
    "TrainResult",
    "TrainingInterrupted",
    "deal_sets",
    "evaluate_model",
    "load_train_config",
    "progress_comparison",
    "train",
]


def _policy_kwargs(ppo: dict[str, Any], rules: str) -> dict[str, Any]:
    import torch

    kwargs: dict[str, Any] = {}
    if ppo.get("features") == "afterstate":
        from agents.training.afterstate import afterstate_policy_kwargs

        kwargs.update(afterstate_policy_kwargs(wrap=rules == "E", net_arch=ppo.get("net_arch")))
    elif ppo.get("features") == "moves":
        from agents.training.move_policy import move_policy_kwargs

        kwargs.update(move_policy_kwargs(net_arch=ppo.get("net_arch")))
    elif ppo.get("features") == "chain":
        from agents.training.features import chain_policy_kwargs

        kwargs.update(chain_policy_kwargs(wrap=rules == "E"))
    if "net_arch" in ppo and ppo.get("features") not in ("afterstate", "moves"):
        kwargs["net_arch"] = ppo["net_arch"]
    if "activation_fn" in ppo:
        kwargs["activation_fn"] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo["activation_fn"]]
    return kwargs


def train(
    config: TrainConfig | Mapping[str, Any] | str,
    *,
    progress: bool = True,
    log: Any = None,
) -> TrainResult:
    """Run a training config (a :class:`TrainConfig`, a mapping, or a YAML path); see the module docstring.

    ``progress`` shows a tqdm bar on stderr; ``log`` is a ``print``-like function for the run's
    few lines of news (default: print to stderr).

    Without the ``rl`` extra: :class:`~agents.extras.MissingExtraError` before anything is made.
    Ctrl-C or SIGTERM during the warm start or the learning stops the run at the next env step;
    it saves ``model.zip``, its sidecar and ``metrics.json`` (``"interrupted": true``), logs one
    line saying so and how to resume, and raises :class:`TrainingInterrupted`.  A run that fails
    before it wrote a file removes the out folder it created.
    """
    if isinstance(config, str):
        config = load_train_config(config)
    elif not isinstance(config, TrainConfig):
        config = TrainConfig.from_mapping(config)
    require_rl("train", tensorboard=True)
    out = Path(config.out)
    created = not out.exists()
    try:
        return _run(config, progress, log)
    except BaseException:
        if created and out.is_dir() and not any(p.is_file() for p in out.rglob("*")):
            shutil.rmtree(out, ignore_errors=True)  # a run that made nothing leaves nothing
        raise


def _say(*args: Any) -> None:
    from tqdm import tqdm

    tqdm.write(" ".join(map(str, args)), file=sys.stderr)


@dataclass
class _Run:
    """One run's parts, made by :func:`_setup` and carried through the steps."""

    config: TrainConfig
    say: Any
    threads: int  # torch's intra-op threads
    validation_codes: list[str]
    test_codes: list[str]
    monitor: Any  # VecMonitor over the training SB3VecEnv: its episode returns are the env's own
    env: Any  # what the model learns on: the monitor, with the shaping and the advice
    eval_env: Any  # the validation env (with the advice)
    model: Any
    start_steps: int  # the model's timesteps before this run (a resumed model's)
    stop: StopSignals
    evaluation: Any  # the MaskableEvalCallback
    watch: Any  # the Watch callback
    pretrained: dict[str, Any] | None = None  # the warm start's report
    phase: str = "pretrain"  # "learning" once PPO started; "final validation" if stopped there
    learn_seconds: float = 0.0

    @property
    def out(self) -> Path:
        return Path(self.config.out)


def _run(config: TrainConfig, progress: bool, log: Any) -> TrainResult:
    """:func:`train` of a validated config (the ``rl`` extra checked)."""
    run = _setup(config, log or _say, progress)
    _announce(run)
    with run.stop:
        _learn(run)
        result = _save(run)
        _test(run, result)
    return result


def _setup(config: TrainConfig, say: Any, progress: bool) -> _Run:
    """Everything before the learning: the deal codes, the envs, the model, the callbacks; the
    out folder is made only once the model is (a model to resume is read before any file is written)."""
    from agents.training.callbacks import Watch, validation_callback

    ppo, policy, policy_kwargs, threads = _ppo_settings(config)
    validation_codes, test_codes = deal_sets(config)
    if config.resume:
        _check_resume(config.resume, config.game)
    monitor, env, eval_env = _envs(config, validation_codes, test_codes, gamma=float(ppo.get("gamma", 0.99)))
    model = _model(config, policy, policy_kwargs, ppo, env)
    start_steps = model.num_timesteps
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    stop = StopSignals()
    evaluation = validation_callback(eval_env, len(validation_codes), config.validation.every, config.num_envs, out)
    watch = Watch(evaluation, stop, config.timesteps, start_steps, progress)
    watch.minutes = config.minutes
    return _Run(
        config,
        say,
        threads,
        validation_codes,
        test_codes,
        monitor,
        env,
        eval_env,
        model,
        start_steps,
        stop,
        evaluation,
        watch,
    )


def _ppo_settings(config: TrainConfig) -> tuple[dict[str, Any], Any, dict[str, Any], int]:
    """The config's ``ppo`` block split into MaskablePPO's keywords, the policy (a name or
    :class:`~agents.training.afterstate.AfterstatePolicy`), its ``policy_kwargs`` and torch's threads (set here)."""
    import torch

    ppo = config.ppo_kwargs
    threads = int(ppo.pop("torch_threads", 2))
    torch.set_num_threads(threads)
    policy: Any = ppo.pop("policy", "MlpPolicy")
    policy_kwargs = _policy_kwargs(ppo, config.rules)
    if ppo.get("features") == "afterstate":
        from agents.training.afterstate import AfterstatePolicy

        policy = AfterstatePolicy
    elif ppo.get("features") == "moves":
        from agents.training.move_policy import MovePolicy

        policy = MovePolicy
    for key in ("features", "net_arch", "activation_fn"):
        ppo.pop(key, None)
    return ppo, policy, policy_kwargs, threads


def _check_resume(resume: str, game: str) -> None:
    """The model to go on from is of the config's game (when its sidecar says)."""
    from agents.players.ppo import read_sidecar

    sidecar = read_sidecar(resume)
    if sidecar is not None and sidecar["game"] != game:
        raise ConfigError(f"resume: the model {resume} was trained on {sidecar['game']}, not {game}")


def _envs(
    config: TrainConfig, validation_codes: list[str], test_codes: list[str], gamma: float
) -> tuple[Any, Any, Any]:
    """The training env's monitor, the env the model learns on (the monitor inside the shaping and
    the advice: its episode returns are the env's own, unshaped) and the validation env."""
    from stable_baselines3.common.vec_env import VecMonitor

    from solitaire_env.sb3 import SB3VecEnv

    env_kwargs = config.env_kwargs
    if config.ppo.features == "moves":  # single envs with the move features (agents.training.move_envs)
        from agents.training.move_envs import move_vec_env

        monitor = VecMonitor(
            move_vec_env(config.num_envs, env_kwargs, exclude=validation_codes + test_codes, seed=config.seed)
        )
        eval_moves = VecMonitor(move_vec_env(len(validation_codes), env_kwargs, codes=validation_codes))
        return monitor, monitor, eval_moves
    monitor = VecMonitor(
        SB3VecEnv(config.num_envs, game=config.game, exclude_codes=validation_codes + test_codes, **env_kwargs)
    )
    monitor.seed(config.seed)
    env: Any = monitor
    if config.shaping == "playout":
        from agents.training.shaping import PlayoutShaping

        env = PlayoutShaping(env, gamma=gamma)
    eval_env: Any = VecMonitor(
        SB3VecEnv(len(validation_codes), game=config.game, deal_codes=validation_codes, **env_kwargs)
    )
    if config.advice == "base_policy":
        from agents.training.advice_env import AdviceObservation

        env = AdviceObservation(env)
        eval_env = AdviceObservation(eval_env)
    return monitor, env, eval_env


def _model(config: TrainConfig, policy: Any, policy_kwargs: dict[str, Any], ppo: dict[str, Any], env: Any) -> Any:
    """The MaskablePPO model: the one to resume (``config.resume``) on ``env``, or a new one."""
    from sb3_contrib import MaskablePPO

    tb_dir = str(Path(config.out) / "tensorboard")
    if config.resume:
        try:
            return MaskablePPO.load(config.resume, env=env, device="cpu", tensorboard_log=tb_dir, **ppo)
        except Exception as error:  # not a model file, or another observation / action space
            text = " ".join(str(error).split()).removeprefix("Error: ")
            raise ConfigError(f"resume: cannot go on from {config.resume}: {text}") from None
    return MaskablePPO(
        policy,
        env,
        seed=config.seed,
        device="cpu",
        tensorboard_log=tb_dir,
        policy_kwargs=policy_kwargs or None,
        verbose=0,
        **ppo,
    )


def _announce(run: _Run) -> None:
    """The run's settings, one block on stderr (through ``say``)."""
    config, model, say = run.config, run.model, run.say
    head = f"resuming {config.resume} at {run.start_steps:,} timesteps" if config.resume else "a new policy"
    rate = model.learning_rate
    say(f"training MaskablePPO ({head}):")
    for line in config.describe():
        say(f"  {line}")
    say(
        f"  each update: {model.n_steps} steps x {config.num_envs} envs = {model.n_steps * config.num_envs:,} "
        f"env steps, batch_size {model.batch_size}, n_epochs {model.n_epochs}, learning_rate "
        f"{f'{rate:g}' if isinstance(rate, int | float) else 'a schedule'}, gamma {model.gamma:g}, "
        f"ent_coef {float(model.ent_coef):g}, torch_threads {run.threads}"
    )


def _learn(run: _Run) -> None:
    """The warm start (with a ``pretrain`` block), then PPO, until a limit or a stop; a second
    signal (or one without our handler) ends the step at once.  Then signals stop at once."""
    from stable_baselines3.common.callbacks import CallbackList

    config, stop = run.config, run.stop
    learn_start = time.perf_counter()
    try:
        if config.pretrain is not None:
            _pretrain(run)
        if config.imitation is not None:
            _imitate(run)
        if not stop():
            run.phase = "learning"
            learn_start = time.perf_counter()
            run.model.learn(
                total_timesteps=config.timesteps,
                callback=CallbackList([run.watch, run.evaluation]),
                reset_num_timesteps=not config.resume,
                tb_log_name="ppo",
            )
    except KeyboardInterrupt:  # a second signal, or no handler (not the main thread)
        stop.note()
    run.learn_seconds = time.perf_counter() - learn_start if run.phase == "learning" else 0.0
    stop.graceful = False
    run.env.close()


def _pretrain(run: _Run) -> None:
    """The warm start (:func:`agents.training.pretrain.run_pretrain`) within the run's ``minutes``; PPO then
    has what is left of them, and starts with a validation of the warm-started policy."""
    from agents.training.pretrain import PretrainSettings, run_pretrain

    config, model, say = run.config, run.model, run.say
    settings = PretrainSettings(**(config.pretrain.given() if config.pretrain else {}))
    if config.minutes is not None:
        settings = PretrainSettings(**{**settings.__dict__, "minutes": min(settings.minutes, config.minutes)})
    say(f"pretrain: {settings.minutes:g} minutes, fitting the policy to the rollout agent's move values")

    def check() -> dict[str, float]:
        got = evaluate_model(model, run.validation_codes, config.game, config.env_kwargs)
        return {"win_rate": float(got["won"].mean()), "mean_reward": float(got["reward"].mean())}

    run.pretrained = run_pretrain(
        model, run.monitor.venv, run.env, settings, config.seed, check=check, say=say, stop=run.stop
    )
    run.watch.warm_started = True
    if run.watch.minutes is not None:
        run.watch.minutes = max(run.watch.minutes - run.pretrained["seconds"] / 60.0, 0.0)


def _imitate(run: _Run) -> None:
    """The Forty Thieves warm start (:func:`agents.training.imitation.run_imitation`); PPO then has
    what is left of the run's ``minutes``."""
    from agents.training.imitation import ImitationSettings, run_imitation, training_codes

    config, model, say = run.config, run.model, run.say
    settings = ImitationSettings(**(config.imitation.given() if config.imitation else {}))

    def check() -> dict[str, float]:
        got = evaluate_model(model, run.validation_codes, config.game, config.env_kwargs)
        return {
            "win_rate": float(got["won"].mean()),
            "mean_reward": float(got["reward"].mean()),
            "founded": float(got["progress"].mean()),
        }

    codes = training_codes(config.seed, config.rules, run.validation_codes + run.test_codes)
    run.pretrained = run_imitation(
        model, codes, settings, config.env_kwargs, config.seed, check=check, say=say, stop=run.stop
    )
    run.watch.warm_started = True
    if run.watch.minutes is not None:
        run.watch.minutes = max(run.watch.minutes - run.pretrained["seconds"] / 60.0, 0.0)


def _save(run: _Run) -> TrainResult:
    """After the learning: a last validation, the models with their sidecars and ``metrics.json``
    (the run is then complete but for its test: resumable from here).  A stopped run raises
    :class:`TrainingInterrupted` here, after saving."""
    from agents.training.callbacks import validate_now

    evaluation, stop = run.evaluation, run.stop
    # a last validation at the final weights (unless the last step just made one)
    if not stop() and (
        not evaluation.evaluations_timesteps or evaluation.evaluations_timesteps[-1] != run.model.num_timesteps
    ):
        try:
            validate_now(evaluation)
        except KeyboardInterrupt:
            stop.note()
            run.phase = "final validation"
    run.watch.close()
    run.eval_env.close()
    metrics = _metrics(run)
    stop.saving = True  # the files are written whole; a signal now is only noted
    files = save_models(run.model, run.config, stop)
    metrics["files"] = files
    result = TrainResult(out=run.out, files=files, metrics=metrics)
    if stop():
        raise interrupted(result, run.config, stop.name or "SIGINT", run.phase, run.say)
    write_metrics(run.out, metrics)
    stop.saving = False
    return result


def _metrics(run: _Run) -> dict[str, Any]:
    """``metrics.json`` of the learning (the files and the test are added to it)."""
    config, model, stop = run.config, run.model, run.stop
    steps = model.num_timesteps - run.start_steps
    validation = validation_rows(run.evaluation)
    return {
        "config": config.to_dict(),
        "source": config.source,
        "timesteps": int(model.num_timesteps),
        "timesteps_this_run": int(steps),
        "learn_seconds": round(run.learn_seconds, 1),
        "steps_per_second": round(steps / run.learn_seconds, 1) if run.learn_seconds > 0 else None,
        "stopped_by": "interrupt" if stop() else run.watch.stopped_by,
        "interrupted": stop(),
        "torch_threads": run.threads,
        "validation": validation,
        "best_validation": max(validation, key=lambda r: r["mean_reward"]) if validation else None,
        "training_curve": run.watch.curve,
        "pretrain": run.pretrained,
    }


def _test(run: _Run, result: TrainResult) -> None:
    """The test (the ``ppo`` agent on the best model next to the comparison agents, on the test
    codes), the learning curve, and ``metrics.json`` with them.  Stopped here, the run raises
    :class:`TrainingInterrupted` (the learning was complete: ``stopped_by`` stays what ended it)."""
    config, stop, out = run.config, run.stop, run.out
    metrics, files = result.metrics, result.files
    try:
        if config.test.deals:
            metrics["test"] = run_test(config, model_paths(out)[1], run.test_codes, run.say)
            files["test"] = str(out / "test")
        curve_path = plot_curve(metrics, out / "learning_curve.png", config)
        if curve_path is not None:
            files["learning_curve"] = str(curve_path)
    except KeyboardInterrupt:
        stop.note()
        stop.saving = True
        metrics.pop("test", None)
        files.pop("test", None)
        metrics["interrupted"] = True
        raise interrupted(result, config, stop.name or "SIGINT", "test", run.say) from None
    stop.saving = True
    write_metrics(out, metrics)
