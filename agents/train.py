"""Training: MaskablePPO (sb3-contrib) on the numba batch env, from a validated YAML config.

    solitaire-env train --config configs/ppo_tripeaks_easy.yaml
    python -c "from agents.train import train; train('configs/ppo_smoke.yaml')"

One run, in order (every path under the config's ``out`` folder):

1. the deal codes: ``validation`` (evaluated while training) and ``test`` (evaluated at the end)
   are drawn like an evaluation run's (:func:`~solitaire_env.solvability.draw_codes`), and the
   training stream never deals one of them (the batch env's ``exclude_codes``);
2. MaskablePPO learns on :class:`~solitaire_env.sb3.SB3VecEnv` (``num_envs`` games) until
   ``timesteps`` env steps or ``minutes`` of wall time, whichever comes first, with a tqdm
   progress bar on stderr and TensorBoard logs in ``tensorboard/``;
3. every ``validation.every`` env steps, sb3-contrib's ``MaskableEvalCallback`` plays every
   validation deal once with masks (deterministic policy) and keeps the best model by mean
   reward in ``best_model.zip``;
4. at the end: ``model.zip`` (the last weights) and ``best_model.zip``, each with its sidecar
   JSON for the ``ppo`` agent; the ``test`` evaluation through the evaluation harness (the
   ``ppo`` agent on ``best_model.zip`` next to the config's comparison agents, same deal codes,
   paired McNemar tests) in ``test/``; ``metrics.json``; ``learning_curve.png``.

The run prints its settings at the start (one block on stderr).  Ctrl-C or SIGTERM during the
warm start or the learning stops at the next env step and saves ``model.zip``, its sidecar and
``metrics.json`` (``"interrupted": true``), then raises :class:`TrainingInterrupted` (the CLI
exits 130); the line it prints says how to resume.

The config keys, their defaults and the decisions behind them are in ``docs/training.md``.
Every bad value is a :class:`~agents.config.ConfigError`: all the mistakes of a config in one
error, one line each.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import GameName
from agents.config import (
    ENV_OPTIONS,
    RULE_LETTERS,
    ConfigError,
    EvalConfig,
    Problems,
    _game,
    _int,
    _rules,
    _str,
    agent_specs,
    load_config_file,
    require_rl,
)

__all__ = [
    "PPO_KEYS",
    "TRAIN_KEYS",
    "TrainConfig",
    "TrainResult",
    "TrainingInterrupted",
    "evaluate_model",
    "load_train_config",
    "train",
]

#: The keys of a training config.
TRAIN_KEYS = (
    "game",
    "rules",
    "env",
    "num_envs",
    "seed",
    "timesteps",
    "minutes",
    "ppo",
    "advice",
    "shaping",
    "pretrain",
    "validation",
    "test",
    "out",
    "resume",
)
#: The keys of its ``ppo`` block: MaskablePPO's keyword arguments, the policy and the network.
PPO_KEYS = (
    "policy",
    "features",
    "net_arch",
    "activation_fn",
    "learning_rate",
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "normalize_advantage",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "target_kl",
    "torch_threads",
)
_PPO_FLOATS = ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef", "max_grad_norm")
_PPO_INTS = ("n_steps", "batch_size", "n_epochs", "torch_threads")
_POLICIES = ("MlpPolicy", "MultiInputPolicy")
_ACTIVATIONS = ("tanh", "relu")
#: ``ppo.features``: what stands in front of the MLP (:mod:`agents.features`); ``none``: the observation
#: itself; ``afterstate``: the policy scores the position each move leads to (:mod:`agents.afterstate`).
_FEATURES = ("none", "chain", "afterstate")
#: ``advice``: the base policy's move appended to the observation (:mod:`agents.advice`).
_ADVICE = ("none", "base_policy")
#: ``shaping``: potential-based reward shaping during training (:mod:`agents.shaping`).
_SHAPING = ("none", "playout")
_VALIDATION_KEYS = ("deals", "seed", "every")
_TEST_KEYS = ("deals", "seed", "agents", "workers")
#: Env keywords of the batch env a training config may set (besides the rule options of
#: :data:`agents.config.ENV_OPTIONS`); ``wrap`` comes from ``rules``.
_TRAIN_ENV_OPTIONS = ("reward", "win_bonus", "obs_mode", "illegal_action", "illegal_penalty")


@dataclass(frozen=True)
class TrainConfig:
    """A validated training run (build it with :meth:`from_mapping` to get every check)."""

    game: GameName = "tripeaks"
    rules: str = "E"
    env: tuple[tuple[str, Any], ...] = ()
    num_envs: int = 256
    seed: int = 0
    timesteps: int = 1_000_000
    minutes: float | None = None
    ppo: tuple[tuple[str, Any], ...] = ()
    validation_deals: int = 200
    validation_seed: int = 1
    validation_every: int = 500_000
    test_deals: int = 1000
    test_seed: int = 0
    test_agents: tuple[Any, ...] = ()
    test_workers: int | None = None
    out: str = "runs/ppo"
    resume: str | None = None
    advice: str = "none"
    shaping: str = "none"
    pretrain: tuple[tuple[str, Any], ...] | None = None  # None: no warm start; (): one with the defaults
    source: str | None = field(default=None, compare=False)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The batch env's keywords (``wrap`` included, from ``rules``)."""
        kwargs = dict(self.env)
        if self.game == "tripeaks":
            kwargs["wrap"] = self.rules == "E"
        return kwargs

    @property
    def rule_kwargs(self) -> dict[str, Any]:
        """The keywords that change the game (what an evaluation run takes as ``env``)."""
        return {k: v for k, v in self.env if k in ENV_OPTIONS[self.game]}

    @property
    def ppo_kwargs(self) -> dict[str, Any]:
        return dict(self.ppo)

    def to_dict(self) -> dict[str, Any]:
        """The settings as a mapping :meth:`from_mapping` accepts (what ``metrics.json`` stores)."""
        return {
            "game": self.game,
            "rules": self.rules,
            "env": dict(self.env),
            "num_envs": self.num_envs,
            "seed": self.seed,
            "timesteps": self.timesteps,
            "minutes": self.minutes,
            "ppo": self.ppo_kwargs,
            "advice": self.advice,
            "shaping": self.shaping,
            "pretrain": None if self.pretrain is None else dict(self.pretrain),
            "validation": {
                "deals": self.validation_deals,
                "seed": self.validation_seed,
                "every": self.validation_every,
            },
            "test": {
                "deals": self.test_deals,
                "seed": self.test_seed,
                "agents": [a.to_dict() for a in self.test_agents],
                "workers": self.test_workers,
            },
            "out": self.out,
            "resume": self.resume,
        }

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str | None = None) -> TrainConfig:
        """Validate ``data`` (keys of :data:`TRAIN_KEYS`; absent keys take their defaults).

        Every mistake is found, not only the first: one :class:`ConfigError` names them all (one
        line each). A check that depends on another key (the env keywords on the game, the policy
        on the observation mode) is skipped while that key is wrong."""
        where = f"{source}: " if source else ""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}want a mapping of settings, got {type(data).__name__}")
        problems = Problems(where)
        check = problems.check
        check(_known, data, TRAIN_KEYS, "", "")
        get = data.get
        game, game_ok = check(_game, get("game"), "", fallback="tripeaks")
        rules, env_ok = "E", False
        env: dict[str, Any] = {}
        if game_ok:
            rules, _ = check(_rules, get("rules"), game, "", fallback=RULE_LETTERS[game][0])
            env, env_ok = check(_train_env, get("env"), game, "", fallback={})
        fits = game_ok and env_ok  # the checks of what goes with which game and env
        validation = _block(problems, get("validation"), "validation", _VALIDATION_KEYS)
        test = _block(problems, get("test"), "test", _TEST_KEYS)
        minutes = _number(get("minutes"))
        if minutes is not None and (
            isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 0 < minutes < math.inf
        ):
            problems.add(f"minutes: want a number of minutes > 0 (or null for no time limit), got {minutes!r}")
            minutes = None
        resume, _ = check(_str, get("resume"), "resume", "")
        if resume is not None and not (os.path.isfile(resume) or os.path.isfile(resume + ".zip")):
            problems.add(f"resume: model file {resume!r} not found")
        advice, shaping = _aids(problems, get("advice"), get("shaping"), game, env, fits)
        pretrain = _pretrain(problems, get("pretrain"), game, env, fits)
        if pretrain is not None and resume is not None:
            problems.add("pretrain: warm-starts a new policy; it does not go with resume")
        test_agents: tuple[Any, ...] = ()
        if test.get("agents") not in (None, []):
            test_agents = agent_specs(problems, test.get("agents"), "test.")

        def whole(value: Any, key: str, minimum: int, default: int | None) -> Any:
            return check(_whole, value, key, "", minimum, default, fallback=default)[0]

        config = cls(
            game=game,
            rules=rules,
            env=tuple(env.items()),
            num_envs=whole(get("num_envs"), "num_envs", 1, 256),
            seed=whole(get("seed"), "seed", 0, 0),
            timesteps=whole(get("timesteps"), "timesteps", 1, 1_000_000),
            minutes=None if minutes is None else float(minutes),
            ppo=tuple(_ppo(problems, get("ppo"), env, game, fits).items()),
            validation_deals=whole(validation.get("deals"), "validation.deals", 1, 200),
            validation_seed=whole(validation.get("seed"), "validation.seed", 0, 1),
            validation_every=whole(validation.get("every"), "validation.every", 1, 500_000),
            test_deals=whole(test.get("deals"), "test.deals", 0, 1000),
            test_seed=whole(test.get("seed"), "test.seed", 0, 0),
            test_agents=test_agents,
            test_workers=whole(test.get("workers"), "test.workers", 1, None),
            out=check(_str, get("out"), "out", "")[0] or "runs/ppo",
            resume=resume,
            advice=advice,
            shaping=shaping,
            pretrain=None if pretrain is None else tuple(pretrain.items()),
            source=source,
        )
        if (
            config.test_deals
            and config.validation_seed == config.test_seed
            and not any(p.startswith(("validation.seed", "test.seed")) for p in problems.found)
        ):
            problems.add(
                f"validation.seed and test.seed are both {config.test_seed}: the validation deals "
                "would be test deals; give them different seeds"
            )
        if fits:
            check(config.check_env)
        if game_ok:
            check(config.check_test_agents)  # the agents that parsed
        problems.raise_any()
        return config

    def check_env(self, where: str = "") -> None:
        """Make the batch env once: a bad env value fails here, naming the keyword (without the
        ``rl`` extra: the batch env itself, not its SB3 wrapper)."""
        from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
        from solitaire_env.tripeaks.batch import TriPeaksVectorEnv

        env_class = TriPeaksVectorEnv if self.game == "tripeaks" else FortyThievesVectorEnv
        try:
            env_class(1, **self.env_kwargs).close()
        except (ValueError, TypeError) as error:
            raise ConfigError(f"{where}env: {' '.join(str(error).split())}") from None

    def check_test_agents(self, where: str = "") -> None:
        """The comparison agents exist for the game and can be built (as an evaluation checks them)."""
        if self.test_agents:
            try:
                EvalConfig(game=self.game, rules=self.rules, agents=self.test_agents).check_agents()
            except ConfigError as error:
                problems = Problems(where)
                problems.take(error, "test: ")
                problems.raise_any()

    def describe(self) -> list[str]:
        """The settings of the run in a few lines (what a run prints at its start)."""
        limit = f"{self.timesteps:,} timesteps" + (
            f" or {self.minutes:g} minutes, whichever comes first" if self.minutes else ""
        )
        env = ", ".join(f"{k}={v}" for k, v in self.env_kwargs.items())
        ppo = ", ".join(f"{k}={v}" for k, v in self.ppo_kwargs.items())
        pretrain = "none" if self.pretrain is None else (", ".join(f"{k}={v}" for k, v in self.pretrain) or "defaults")
        agents = " ".join(a.key for a in self.test_agents) or "(none)"
        test = f"{self.test_deals} deals (seed {self.test_seed}), compared with {agents}" if self.test_deals else "none"
        return [
            f"game {self.game}, rules {self.rules}, {self.num_envs} envs, seed {self.seed}; {limit}",
            f"env: {env}",
            f"ppo: {ppo or '(MaskablePPO defaults)'}",
            f"advice {self.advice}; shaping {self.shaping}; pretrain {pretrain}",
            f"validation: {self.validation_deals} deals (seed {self.validation_seed}) every "
            f"{self.validation_every:,} steps; test: {test}",
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]


def _known(data: Mapping[str, Any], keys: Sequence[str], where: str, block: str) -> None:
    unknown = [k for k in data if k not in keys]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise ConfigError(
            f"{where}{block}unknown key{plural} {', '.join(map(repr, unknown))}; known: {', '.join(keys)}"
        )


def _block(problems: Problems, value: Any, name: str, keys: Sequence[str]) -> Mapping[str, Any]:
    """A block's mapping (its unknown keys recorded, its known ones kept for their checks)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.add(f"{name}: want a mapping with keys {', '.join(keys)}, got {value!r}")
        return {}
    problems.check(_known, value, keys, "", f"{name}: ")
    return {k: v for k, v in value.items() if k in keys}


def _number(value: Any) -> Any:
    """A number YAML 1.1 left as a string (``3e-4``, ``1e6``: no dot in the mantissa), as a number."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() and abs(number) < 2**63 else number
    return value


def _whole(value: Any, key: str, where: str, minimum: int, default: int | None) -> Any:
    """:func:`agents.config._int` (the evaluation config's check), after :func:`_number`."""
    return _int(_number(value), key, where, minimum=minimum, default=default)


def _train_env(value: Any, game: GameName, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}env: want a mapping of env keywords, got {value!r}")
    allowed = (*ENV_OPTIONS[game], *_TRAIN_ENV_OPTIONS)
    problems = Problems()
    for key in value:
        if key == "wrap":
            problems.add(f"{where}env: wrap comes from the deal codes' rule letter: set rules: E or C")
        elif key not in allowed:
            problems.add(f"{where}env: unknown {game} keyword {key!r}; allowed: {', '.join(allowed)}")
    mode = value.get("obs_mode", "flat")
    if isinstance(mode, str) and mode.startswith("oracle"):
        problems.add(f"{where}env: obs_mode {mode!r} shows hidden cards; a trained policy plays fair (flat or dict)")
    problems.raise_any()
    return dict(value)


def _aids(
    problems: Problems, advice: Any, shaping: Any, game: GameName, env: Mapping[str, Any], fits: bool
) -> tuple[str, str]:
    """The ``advice`` and ``shaping`` keys (TriPeaks only; see docs/training.md); ``fits``: the game
    and env are valid, so whether these go with them can be checked."""
    advice = "none" if advice is None else advice
    shaping = "none" if shaping is None else shaping
    if advice not in _ADVICE:
        problems.add(f"advice: want one of {', '.join(_ADVICE)}, got {advice!r}")
        advice = "none"
    if shaping not in _SHAPING:
        problems.add(f"shaping: want one of {', '.join(_SHAPING)}, got {shaping!r}")
        shaping = "none"
    if fits and advice != "none" and (game != "tripeaks" or env.get("obs_mode", "flat") != "flat"):
        problems.add(f"advice: {advice} is for TriPeaks with flat observations (game tripeaks, obs_mode flat)")
    if fits and shaping != "none" and (game != "tripeaks" or env.get("reward", "score") != "progress"):
        problems.add(
            f"shaping: {shaping} is for TriPeaks with reward progress (its potential counts cards and the win bonus)"
        )
    return advice, shaping


def _pretrain(
    problems: Problems, value: Any, game: GameName, env: Mapping[str, Any], fits: bool
) -> dict[str, Any] | None:
    """The ``pretrain`` block (:mod:`agents.pretrain`): absent or null for none, ``{}`` for the defaults."""
    from agents.pretrain import PRETRAIN_KEYS, PRETRAIN_LOSSES

    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.add(f"pretrain: want a mapping of warm-start settings (or null), got {value!r}")
        return None
    problems.check(_known, value, PRETRAIN_KEYS, "", "pretrain: ")
    if fits and (game != "tripeaks" or env.get("reward", "score") != "progress"):
        problems.add("pretrain: is for TriPeaks with reward progress (the move values count cards and the win bonus)")
    out = {k: _number(v) for k, v in value.items() if k in PRETRAIN_KEYS}
    for key in ("samples", "steps", "epochs", "replay", "batch_size", "threads", "critic_every"):
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            problems.add(f"pretrain.{key}: want a whole number >= 1, got {v!r}")
    for key in ("minutes", "temperature", "learning_rate", "final_learning_rate"):
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < math.inf):
            problems.add(f"pretrain.{key}: want a number > 0, got {v!r}")
    if out.get("loss", "squared") not in PRETRAIN_LOSSES:
        problems.add(f"pretrain.loss: want one of {', '.join(PRETRAIN_LOSSES)}, got {out['loss']!r}")
    average = out.get("average")
    if average is not None and (
        isinstance(average, bool) or not isinstance(average, int | float) or not 0 < average < 1
    ):
        problems.add(f"pretrain.average: want a decay between 0 and 1 (such as 0.998), got {average!r}")
    if not isinstance(out.get("symmetry", False), bool):
        problems.add(f"pretrain.symmetry: want true or false, got {out['symmetry']!r}")
    eps = out.get("epsilon")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, int | float) or not 0 <= eps <= 1):
        problems.add(f"pretrain.epsilon: want a number from 0 to 1, got {eps!r}")
    return out


def _ppo(problems: Problems, value: Any, env: Mapping[str, Any], game: GameName, fits: bool) -> dict[str, Any]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        problems.add(f"ppo: want a mapping of MaskablePPO settings, got {value!r}")
        return {}
    problems.check(_known, value, PPO_KEYS, "", "ppo: ")
    out = {k: v for k, v in value.items() if k in PPO_KEYS}
    for key in (*_PPO_FLOATS, *_PPO_INTS, "target_kl"):
        if key in out:
            out[key] = _number(out[key])
    for key in _PPO_FLOATS:
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or not math.isfinite(v)):
            problems.add(f"ppo.{key}: want a number >= 0, got {v!r}")
    for key in _PPO_INTS:
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            problems.add(f"ppo.{key}: want a whole number >= 1, got {v!r}")
    target_kl = out.get("target_kl")
    if target_kl is not None and (
        isinstance(target_kl, bool) or not isinstance(target_kl, int | float) or target_kl <= 0
    ):
        problems.add(f"ppo.target_kl: want a number > 0 or null, got {target_kl!r}")
    if "normalize_advantage" in out and not isinstance(out["normalize_advantage"], bool):
        problems.add(f"ppo.normalize_advantage: want true or false, got {out['normalize_advantage']!r}")
    want_policy = "MultiInputPolicy" if env.get("obs_mode") == "dict" else "MlpPolicy"
    policy = out.setdefault("policy", want_policy)
    if policy not in _POLICIES:
        problems.add(f"ppo.policy: want one of {', '.join(_POLICIES)}, got {policy!r}")
    elif fits and policy != want_policy:
        problems.add(f"ppo.policy: obs_mode {env.get('obs_mode', 'flat')!r} needs {want_policy}, got {policy!r}")
    arch = out.get("net_arch")
    if arch is not None and not _net_arch(arch):
        problems.add(f"ppo.net_arch: want a list of layer sizes ([256, 256]) or {{pi: [...], vf: [...]}}, got {arch!r}")
    features = out.get("features")
    if features is not None and features not in _FEATURES:
        problems.add(f"ppo.features: want one of {', '.join(_FEATURES)} or null, got {features!r}")
    if fits and features in ("chain", "afterstate") and (game != "tripeaks" or env.get("obs_mode", "flat") != "flat"):
        problems.add(f"ppo.features: {features} reads the flat TriPeaks observation (game tripeaks, obs_mode flat)")
    if features == "afterstate" and isinstance(arch, Mapping):
        problems.add("ppo.net_arch: with features afterstate, a list of layer sizes (the scorer's and the critic's)")
    act = out.get("activation_fn")
    if act is not None and act not in _ACTIVATIONS:
        problems.add(f"ppo.activation_fn: want one of {', '.join(_ACTIVATIONS)}, got {act!r}")
    return out


def _net_arch(arch: Any) -> bool:
    def sizes(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in v)

    if isinstance(arch, Mapping):
        return set(arch) == {"pi", "vf"} and all(sizes(v) for v in arch.values())
    return sizes(arch)


def load_train_config(path: str, **overrides: Any) -> TrainConfig:
    """Read and validate a YAML training config; ``overrides`` (not ``None``) replace its keys."""
    data = load_config_file(path)
    if not data:  # a default run is a million steps of hours: never by accident
        raise ConfigError(
            f"{path}: the config is empty; a training config sets at least game, timesteps or minutes "
            "(see configs/ppo_smoke.yaml and docs/training.md)"
        )
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)
    # a bad value may come from the command line: say so in the message's "where"
    source = f"{path} (with --{', --'.join(k.replace('_', '-') for k in given)})" if given else path
    return TrainConfig.from_mapping(data, source=source)


# --------------------------------------------------------------------------- deal codes


def deal_sets(config: TrainConfig) -> tuple[list[str], list[str]]:
    """The validation and test deal codes (the test codes are an evaluation run's: same seed, same codes)."""
    from solitaire_env.common.deals import draw_codes
    from solitaire_env.games import code_letter

    game = code_letter(config.game)
    validation = draw_codes(config.validation_deals, config.validation_seed, game, config.rules)
    test = draw_codes(config.test_deals, config.test_seed, game, config.rules)
    return validation, test


# --------------------------------------------------------------------------- evaluation in the batch env


def evaluate_model(
    model: Any, codes: Sequence[str], game: GameName = "tripeaks", env_kwargs: Mapping[str, Any] | None = None
) -> dict[str, np.ndarray]:
    """Play each deal code once in the batch env with the model's deterministic masked policy.

    Returns per-deal arrays (in the order of ``codes``): ``won``, ``progress`` (cards cleared,
    TriPeaks; cards founded, Forty Thieves), ``score`` and ``reward`` (the episode's return).
    The same policy and observations as the ``ppo`` agent, so the two give the same games (a
    model whose observations hold the advice, :mod:`agents.advice`, gets it here too).
    """
    from solitaire_env.sb3 import SB3VecEnv

    n = len(codes)
    if n == 0:
        return {k: np.zeros(0) for k in ("won", "progress", "score", "reward")}
    kwargs = {k: v for k, v in (env_kwargs or {}).items() if k not in ("autoreset_mode", "copy")}
    inner = SB3VecEnv(n, game=game, deal_codes=list(codes), **kwargs)
    env: Any = inner
    if _takes_advice(model, game):
        from agents.advice import AdviceObservation

        env = AdviceObservation(inner)
    progress_key = "cleared" if game == "tripeaks" else "founded"
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


def _takes_advice(model: Any, game: GameName) -> bool:
    """Whether a TriPeaks model's observations are the flat ones followed by the advice."""
    from solitaire_env.tripeaks.observe import FLAT_SIZE

    shape = getattr(model.observation_space, "shape", None)
    return game == "tripeaks" and shape == (FLAT_SIZE + 29,)


# --------------------------------------------------------------------------- the run


@dataclass
class TrainResult:
    """What a run made: the folder, the files, and the metrics written to ``metrics.json``."""

    out: Path
    files: dict[str, str]
    metrics: dict[str, Any]


def _policy_kwargs(ppo: dict[str, Any], rules: str) -> dict[str, Any]:
    import torch

    kwargs: dict[str, Any] = {}
    if ppo.get("features") == "afterstate":
        from agents.afterstate import afterstate_policy_kwargs

        kwargs.update(afterstate_policy_kwargs(wrap=rules == "E", net_arch=ppo.get("net_arch")))
    elif ppo.get("features") == "chain":
        from agents.features import chain_policy_kwargs

        kwargs.update(chain_policy_kwargs(wrap=rules == "E"))
    if "net_arch" in ppo and ppo.get("features") != "afterstate":
        kwargs["net_arch"] = ppo["net_arch"]
    if "activation_fn" in ppo:
        kwargs["activation_fn"] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo["activation_fn"]]
    return kwargs


class TrainingInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT) or SIGTERM after it saved what it had: ``result`` holds the
    files (``model.zip`` and its sidecar, ``metrics.json`` with ``"interrupted": true``).  A
    ``KeyboardInterrupt``, so the CLI exits 130."""

    def __init__(self, result: TrainResult, message: str) -> None:
        super().__init__(message)
        self.result = result


class _StopSignals:
    """SIGINT and SIGTERM while a run is on (installed in the main thread only).

    While ``graceful`` (the warm start and the learning), the first signal only asks for a stop,
    which the run checks at every env step (:meth:`__call__`); a second one, or any signal once
    learning is over, raises ``KeyboardInterrupt`` at once, except while ``saving`` (the files
    are written whole).  A process forked from the run (an evaluation worker) gets the default
    behaviour back."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.graceful = True
        self.saving = False
        self._pid = os.getpid()
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(sig) is not signal.SIG_IGN:  # a signal the caller ignores stays ignored
                    self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._old.clear()

    def __call__(self) -> bool:
        return self.name is not None

    def note(self, default: str = "SIGINT") -> None:
        """A ``KeyboardInterrupt`` that came without our handler (not the main thread)."""
        self.name = self.name or default

    def _handle(self, signum: int, frame: Any) -> None:
        if os.getpid() != self._pid:  # a forked worker: what it would do without this handler
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        again = self.name is not None
        self.name = self.name or signal.Signals(signum).name
        if self.saving:
            return
        if again or not self.graceful:
            raise KeyboardInterrupt


def train(
    config: TrainConfig | Mapping[str, Any] | str,
    *,
    progress: bool = True,
    log: Any = None,
) -> TrainResult:
    """Run a training config (a :class:`TrainConfig`, a mapping, or a YAML path); see the module docstring.

    ``progress`` shows a tqdm bar on stderr; ``log`` is a ``print``-like function for the run's
    few lines of news (default: print to stderr).

    Without the ``rl`` extra: :class:`~agents.config.MissingExtraError` before anything is made.
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


def _run(config: TrainConfig, progress: bool, log: Any) -> TrainResult:
    """:func:`train` of a validated config (the ``rl`` extra checked)."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.ppo import write_sidecar
    from solitaire_env.sb3 import SB3VecEnv

    say = log or _say
    out = Path(config.out)
    ppo = config.ppo_kwargs
    threads = int(ppo.pop("torch_threads", 2))
    torch.set_num_threads(threads)
    policy: Any = ppo.pop("policy", "MlpPolicy")
    policy_kwargs = _policy_kwargs(ppo, config.rules)
    if ppo.get("features") == "afterstate":
        from agents.afterstate import AfterstatePolicy

        policy = AfterstatePolicy
    ppo.pop("features", None)
    ppo.pop("net_arch", None)
    ppo.pop("activation_fn", None)

    validation_codes, test_codes = deal_sets(config)
    env_kwargs = config.env_kwargs
    tb_dir = out / "tensorboard"
    if config.resume:  # the model to go on from is read before anything is written
        from agents.ppo import read_sidecar

        sidecar = read_sidecar(config.resume)
        if sidecar is not None and sidecar["game"] != config.game:
            raise ConfigError(f"resume: the model {config.resume} was trained on {sidecar['game']}, not {config.game}")
    monitor = VecMonitor(
        SB3VecEnv(config.num_envs, game=config.game, exclude_codes=validation_codes + test_codes, **env_kwargs)
    )
    monitor.seed(config.seed)
    env: Any = monitor  # the monitor inside: its episode returns are the env's own, unshaped
    if config.shaping == "playout":
        from agents.shaping import PlayoutShaping

        env = PlayoutShaping(env, gamma=float(ppo.get("gamma", 0.99)))
    eval_env: Any = VecMonitor(
        SB3VecEnv(len(validation_codes), game=config.game, deal_codes=validation_codes, **env_kwargs)
    )
    if config.advice == "base_policy":
        from agents.advice import AdviceObservation

        env = AdviceObservation(env)
        eval_env = AdviceObservation(eval_env)
    if config.resume:
        try:
            model = MaskablePPO.load(config.resume, env=env, device="cpu", tensorboard_log=str(tb_dir), **ppo)
        except Exception as error:  # not a model file, or another observation / action space
            text = " ".join(str(error).split()).removeprefix("Error: ")
            raise ConfigError(f"resume: cannot go on from {config.resume}: {text}") from None
    else:
        model = MaskablePPO(
            policy,
            env,
            seed=config.seed,
            device="cpu",
            tensorboard_log=str(tb_dir),
            policy_kwargs=policy_kwargs or None,
            verbose=0,
            **ppo,
        )
    start_steps = model.num_timesteps
    out.mkdir(parents=True, exist_ok=True)
    curve: list[dict[str, float]] = []
    pretrained: dict[str, Any] | None = None
    ppo_minutes = config.minutes
    stop = _StopSignals()

    class Watch(BaseCallback):
        """The stop (signals, time limit), the progress bar and the training curve (mean episode
        return per rollout)."""

        def __init__(self) -> None:
            super().__init__()
            self.start = time.perf_counter()
            self.stopped_by = "timesteps"
            self.bar: Any = None
            self.shown = 0  # the validations the bar has shown

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            if pretrained is not None:  # the warm-started policy is a candidate for the best model too
                evaluation.n_calls = evaluation.eval_freq - 1
                evaluation.on_step()
                evaluation.n_calls = 0
            # env steps against the configured timesteps; a time limit is said in the description
            self.bar = tqdm(
                total=config.timesteps,
                unit="step",
                unit_scale=True,
                desc="training" if ppo_minutes is None else f"training (at most {ppo_minutes:.3g} min)",
                disable=not progress,
                file=sys.stderr,
            )
            self.show()

        def show(self) -> None:
            """The steps so far and the newest validation's mean return on the bar."""
            if self.bar is None:
                return
            self.bar.n = min(self.bar.total, self.model.num_timesteps - start_steps)
            self.shown = len(evaluation.evaluations_timesteps)
            if self.shown:
                self.bar.set_postfix({"validation_return": f"{evaluation.last_mean_reward:.2f}"}, refresh=False)
            self.bar.refresh()

        def close(self) -> None:
            if self.bar is not None:
                self.show()
                self.bar.close()
                self.bar = None

        def _on_rollout_end(self) -> None:
            buffer = self.model.ep_info_buffer
            if buffer:
                curve.append(
                    {
                        "timesteps": float(self.num_timesteps),
                        "seconds": time.perf_counter() - self.start,
                        "episode_return": float(np.mean([e["r"] for e in buffer])),
                        "episode_length": float(np.mean([e["l"] for e in buffer])),
                    }
                )

        def _on_step(self) -> bool:
            if stop():
                self.stopped_by = "interrupt"
                return False
            if self.n_calls % 16 == 0 or len(evaluation.evaluations_timesteps) != self.shown:
                self.show()
            if ppo_minutes is not None and time.perf_counter() - self.start >= 60.0 * ppo_minutes:
                self.stopped_by = "minutes"
                return False
            return True

    evaluation = MaskableEvalCallback(
        eval_env,
        n_eval_episodes=len(validation_codes),
        eval_freq=max(1, config.validation_every // config.num_envs),
        best_model_save_path=str(out),
        log_path=str(out),
        deterministic=True,
        warn=False,
        verbose=0,
    )
    watch = Watch()
    head = f"resuming {config.resume} at {start_steps:,} timesteps" if config.resume else "a new policy"
    rate = model.learning_rate
    say(f"training MaskablePPO ({head}):")
    for line in config.describe():
        say(f"  {line}")
    say(
        f"  each update: {model.n_steps} steps x {config.num_envs} envs = {model.n_steps * config.num_envs:,} "
        f"env steps, batch_size {model.batch_size}, n_epochs {model.n_epochs}, learning_rate "
        f"{f'{rate:g}' if isinstance(rate, int | float) else 'a schedule'}, gamma {model.gamma:g}, "
        f"ent_coef {float(model.ent_coef):g}, torch_threads {threads}"
    )
    phase = "pretrain"
    learn_start = time.perf_counter()
    with stop:
        try:
            if config.pretrain is not None:
                from agents.pretrain import PretrainSettings, run_pretrain

                settings = PretrainSettings(**dict(config.pretrain))
                if config.minutes is not None:
                    settings = PretrainSettings(
                        **{**settings.__dict__, "minutes": min(settings.minutes, config.minutes)}
                    )
                say(f"pretrain: {settings.minutes:g} minutes, fitting the policy to the rollout agent's move values")

                def check() -> dict[str, float]:
                    got = evaluate_model(model, validation_codes, config.game, env_kwargs)
                    return {"win_rate": float(got["won"].mean()), "mean_reward": float(got["reward"].mean())}

                pretrained = run_pretrain(
                    model, monitor.venv, env, settings, config.seed, check=check, say=say, stop=stop
                )
                if ppo_minutes is not None:
                    ppo_minutes = max(ppo_minutes - pretrained["seconds"] / 60.0, 0.0)
            if not stop():
                phase = "learning"
                learn_start = time.perf_counter()
                model.learn(
                    total_timesteps=config.timesteps,
                    callback=CallbackList([watch, evaluation]),
                    reset_num_timesteps=not config.resume,
                    tb_log_name="ppo",
                )
        except KeyboardInterrupt:  # a second signal, or no handler (not the main thread)
            stop.note()
        learn_seconds = time.perf_counter() - learn_start if phase == "learning" else 0.0
        stop.graceful = False
        env.close()

        # a last validation at the final weights (unless the last step just made one), then the models
        if not stop() and (
            not evaluation.evaluations_timesteps or evaluation.evaluations_timesteps[-1] != model.num_timesteps
        ):
            try:
                evaluation.n_calls = evaluation.eval_freq - 1
                evaluation.on_step()
            except KeyboardInterrupt:
                stop.note()
                phase = "final validation"
        watch.close()
        eval_env.close()
        model_path = out / "model.zip"
        best_path = out / "best_model.zip"
        sidecar_kwargs = dict(env_kwargs)
        advice = None if config.advice == "none" else config.advice
        steps = model.num_timesteps - start_steps
        validation = _validation_rows(evaluation, config.game)
        metrics: dict[str, Any] = {
            "config": config.to_dict(),
            "source": config.source,
            "timesteps": int(model.num_timesteps),
            "timesteps_this_run": int(steps),
            "learn_seconds": round(learn_seconds, 1),
            "steps_per_second": round(steps / learn_seconds, 1) if learn_seconds > 0 else None,
            "stopped_by": "interrupt" if stop() else watch.stopped_by,
            "interrupted": stop(),
            "torch_threads": threads,
            "validation": validation,
            "best_validation": max(validation, key=lambda r: r["mean_reward"]) if validation else None,
            "training_curve": curve,
            "pretrain": pretrained,
        }
        files: dict[str, str] = {}
        metrics["files"] = files
        stop.saving = True  # the files are written whole; a signal now is only noted
        model.save(str(model_path))
        files["model"] = str(model_path)
        files["model_sidecar"] = str(write_sidecar(model_path, config.game, sidecar_kwargs, advice=advice))
        if not stop() and not best_path.exists():  # no validation beat -inf: cannot happen, but keep it usable
            model.save(str(best_path))
        if best_path.exists():
            files["best_model"] = str(best_path)
            files["best_model_sidecar"] = str(write_sidecar(best_path, config.game, sidecar_kwargs, advice=advice))
        files["tensorboard"] = str(tb_dir)
        if (out / "evaluations.npz").exists():
            files["evaluations"] = str(out / "evaluations.npz")
        files["metrics"] = str(out / "metrics.json")
        result = TrainResult(out=out, files=files, metrics=metrics)
        if stop():
            raise _interrupted(result, config, stop.name or "SIGINT", phase, say)
        _write_metrics(out, metrics)  # the run is complete but for its test: resumable from here
        stop.saving = False

        # the test: the ppo agent on the best model next to the comparison agents, on the test codes
        try:
            if config.test_deals:
                metrics["test"] = _test(config, best_path, out, say)
                files["test"] = str(out / "test")
                # the same policy on the same deals in the batch env: a check of the harness's games
                best = MaskablePPO.load(str(best_path), device="cpu")
                batch = evaluate_model(best, test_codes, config.game, env_kwargs)
                metrics["test"]["batch_check"] = {
                    "wins": int(batch["won"].sum()),
                    "mean_progress": float(batch["progress"].mean()),
                    "mean_score": float(batch["score"].mean()),
                }
            curve_path = _plot(metrics, out / "learning_curve.png", config)
            if curve_path is not None:
                files["learning_curve"] = str(curve_path)
        except KeyboardInterrupt:
            stop.note()
            stop.saving = True
            metrics.pop("test", None)
            files.pop("test", None)
            metrics["interrupted"] = True  # the learning was complete: stopped_by stays what ended it
            raise _interrupted(result, config, stop.name or "SIGINT", "test", say) from None
        stop.saving = True
        _write_metrics(out, metrics)
    return result


def _write_metrics(out: Path, metrics: dict[str, Any]) -> None:
    path = out / "metrics.json"
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(metrics, indent=2) + "\n")
    os.replace(part, path)  # never half a file


def _interrupted(result: TrainResult, config: TrainConfig, name: str, phase: str, say: Any) -> TrainingInterrupted:
    """Mark and write the metrics of an interrupted run, say what was saved and how to go on."""
    metrics, files = result.metrics, result.files
    metrics["interrupted_by"] = name
    metrics["interrupted_in"] = phase
    _write_metrics(result.out, metrics)
    model, out = files["model"], result.out
    saved = f"saved {model} (its sidecar {Path(files['model_sidecar']).name})" + (
        ", best_model.zip" if "best_model" in files else ""
    )
    source = (config.source or "").split(" (with --")[0]
    cfg = source if source and os.path.isfile(source) else "CONFIG.yaml"
    if phase == "test":
        best = files.get("best_model", model)
        again = f"test it with: solitaire-env eval --agents ppo:model={best} --deals {config.test_deals}"
        again += f" --seed {config.test_seed} --rules {config.rules}"
        what = "during the test"
    else:
        left = config.timesteps - int(metrics["timesteps_this_run"])
        more = f" --timesteps {left}" if 0 < left < config.timesteps else ""
        note = " (without the config's pretrain block)" if config.pretrain is not None else ""
        again = f"resume with: solitaire-env train --config {cfg}{note} --resume {model}{more} --out {out}-resumed"
        what = f"at {metrics['timesteps']:,} timesteps"
    message = f"interrupted by {name} {what}: {saved} and {out / 'metrics.json'}; {again}"
    say(message)
    return TrainingInterrupted(result, message)


def _validation_rows(evaluation: Any, game: GameName) -> list[dict[str, Any]]:
    rows = []
    successes = evaluation.evaluations_successes
    for k, (steps, results) in enumerate(zip(evaluation.evaluations_timesteps, evaluation.evaluations_results)):
        row: dict[str, Any] = {"timesteps": int(steps), "mean_reward": float(np.mean(results))}
        if k < len(successes):
            row["win_rate"] = float(np.mean(successes[k]))
        rows.append(row)
    return rows


def _test(config: TrainConfig, best_path: Path, out: Path, say: Any) -> dict[str, Any]:
    from agents.config import AgentSpec
    from agents.evaluation import evaluate

    ppo_spec = AgentSpec("ppo", (("model", str(best_path)),))
    eval_config = EvalConfig.from_mapping(
        {
            "game": config.game,
            "rules": config.rules,
            "env": config.rule_kwargs,
            "deals": config.test_deals,
            "seed": config.test_seed,
            "agents": [ppo_spec.to_dict(), *(a.to_dict() for a in config.test_agents)],
            "workers": config.test_workers,
            "out": str(out / "test"),
        }
    )
    agents = ", ".join(a.key for a in eval_config.agents)
    say(f"test: {config.test_deals} held-out deals (seed {config.test_seed}), agents: {agents}")
    result = evaluate(eval_config, progress=False)
    return {
        "summary": result.summary(),
        "pairs": result.pairs(),
        "agent": ppo_spec.key,
        "table": result.table(),
        "progress": progress_comparison(result.episodes, ppo_spec.key),
    }


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
    from agents.evaluation import mcnemar_exact

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


def _plot(metrics: dict[str, Any], path: Path, config: TrainConfig) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    curve = metrics["training_curve"]
    validation = metrics["validation"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    if curve:
        left.plot([r["timesteps"] for r in curve], [r["episode_return"] for r in curve], lw=1)
    left.set_xlabel("env steps")
    left.set_ylabel("mean episode return (training, last 100 episodes)")
    left.grid(alpha=0.3)
    x = [r["timesteps"] for r in validation]
    if validation and "win_rate" in validation[0] and config.game == "tripeaks":
        right.plot(x, [100 * r.get("win_rate", 0.0) for r in validation], marker="o")
        right.set_ylabel(f"validation win rate, % ({config.validation_deals} deals)")
    else:
        right.plot(x, [r["mean_reward"] for r in validation], marker="o")
        right.set_ylabel(f"validation mean return ({config.validation_deals} deals)")
    right.set_xlabel("env steps")
    right.grid(alpha=0.3)
    fig.suptitle(f"MaskablePPO, {config.game} ({config.rules}): {config.source or config.out}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
