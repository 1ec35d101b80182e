"""The training config: :class:`TrainConfig`, validated from YAML or from a mapping.

:func:`load_train_config` reads a YAML file (with the command line's overrides) and
:meth:`TrainConfig.from_mapping` checks every key: all the mistakes of a config in one
:class:`~agents.evaluation.config.ConfigError`, one line each.  A check that depends on another key (the env
keywords on the game, the policy on the observation mode) is skipped while that key is wrong.
The keys, their defaults and the decisions behind them are in ``docs/training.md``; the run
itself is :mod:`agents.training.train`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import GameName
from agents.evaluation.config import (
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
)

__all__ = ["PPO_KEYS", "TRAIN_KEYS", "TrainConfig", "load_train_config"]


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
    "imitation",
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
#: ``ppo.features``: what stands in front of the MLP (:mod:`agents.training.features`); ``none``: the observation
#: itself; ``afterstate``: the policy scores the position each move leads to (:mod:`agents.training.afterstate`);
#: ``moves`` (Forty Thieves): the policy scores each legal move's row of move features
#: (:mod:`agents.training.move_policy`).
_FEATURES = ("none", "chain", "afterstate", "moves")
#: ``advice``: the base policy's move appended to the observation (:mod:`agents.training.advice`).
_ADVICE = ("none", "base_policy")
#: ``shaping``: potential-based reward shaping during training (:mod:`agents.training.shaping`).
_SHAPING = ("none", "playout")
_VALIDATION_KEYS = ("deals", "seed", "every")
_TEST_KEYS = ("deals", "seed", "agents", "workers")
#: Env keywords of the batch env a training config may set (besides the rule options of
#: :data:`agents.evaluation.config.ENV_OPTIONS`); ``wrap`` comes from ``rules``.
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
    imitation: tuple[tuple[str, Any], ...] | None = None  # Forty Thieves: the warm start on the planner's moves
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
            "imitation": None if self.imitation is None else dict(self.imitation),
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
        problems.check(_known, data, TRAIN_KEYS, "", "")
        game, rules, env, game_ok, fits = _game_and_env(problems, data)
        config = cls(source=source, **_settings(problems, data, game, rules, env, fits))
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
            problems.check(config.check_env)
        if game_ok:
            problems.check(config.check_test_agents)  # the agents that parsed
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
            f"advice {self.advice}; shaping {self.shaping}; pretrain {pretrain}"
            + ("" if self.imitation is None else f"; imitation {dict(self.imitation)}"),
            f"validation: {self.validation_deals} deals (seed {self.validation_seed}) every "
            f"{self.validation_every:,} steps; test: {test}",
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]

    def dry_run_text(self) -> str:
        """The settings in a few lines, each ending in a newline: what ``solitaire-env train
        --dry-run`` prints once the config has passed its checks (the first line says so).
        :meth:`describe` is the shorter block a run prints at its start."""
        limit = f"{self.timesteps:,} timesteps" + (f" or {self.minutes:g} minutes" if self.minutes else "")
        pretrain = "none" if self.pretrain is None else dict(self.pretrain) or "the defaults"
        agents = " ".join(a.key for a in self.test_agents) or "(none)"
        if self.test_deals:
            test = f"test: {self.test_deals} deals (seed {self.test_seed}), compared with: {agents}"
        else:
            test = "test: none (test.deals is 0)"
        lines = [
            f"config ok: {self.game}, rules {self.rules}, {self.num_envs} envs, {limit}, seed {self.seed}",
            f"env: {dict(self.env) or '(defaults)'}",
            f"ppo: {self.ppo_kwargs or '(defaults)'}",
            f"advice: {self.advice}; shaping: {self.shaping}; pretrain: {pretrain}"
            + ("" if self.imitation is None else f"; imitation: {dict(self.imitation)}"),
            f"validation: {self.validation_deals} deals (seed {self.validation_seed}) "
            f"every {self.validation_every:,} steps",
            test,
            f"out: {self.out}" + (f"; resume: {self.resume}" if self.resume else ""),
        ]
        return "".join(f"{line}\n" for line in lines)


def _known(data: Mapping[str, Any], keys: Sequence[str], where: str, block: str) -> None:
    unknown = [k for k in data if k not in keys]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise ConfigError(
            f"{where}{block}unknown key{plural} {', '.join(map(repr, unknown))}; known: {', '.join(keys)}"
        )


def _game_and_env(problems: Problems, data: Mapping[str, Any]) -> tuple[GameName, str, dict[str, Any], bool, bool]:
    """``game``, ``rules`` and ``env``, whether the game is valid, and whether the game and env both
    are (``fits``: then the checks of what goes with which game and env can run)."""
    check = problems.check
    game, game_ok = check(_game, data.get("game"), "", fallback="tripeaks")
    rules, env_ok = "E", False
    env: dict[str, Any] = {}
    if game_ok:
        rules, _ = check(_rules, data.get("rules"), game, "", fallback=RULE_LETTERS[game][0])
        env, env_ok = check(_train_env, data.get("env"), game, "", fallback={})
    return game, rules, env, game_ok, game_ok and env_ok


def _settings(
    problems: Problems, data: Mapping[str, Any], game: GameName, rules: str, env: dict[str, Any], fits: bool
) -> dict[str, Any]:
    """The keyword arguments of :class:`TrainConfig` but ``source``, every mistake recorded in
    ``problems`` (in the order of the keys' checks)."""
    check, get = problems.check, data.get
    validation = _block(problems, get("validation"), "validation", _VALIDATION_KEYS)
    test = _block(problems, get("test"), "test", _TEST_KEYS)
    minutes = _minutes(problems, get("minutes"))
    resume, _ = check(_str, get("resume"), "resume", "")
    if resume is not None and not (os.path.isfile(resume) or os.path.isfile(resume + ".zip")):
        problems.add(f"resume: model file {resume!r} not found")
    advice, shaping = _aids(problems, get("advice"), get("shaping"), game, env, fits)
    pretrain = _pretrain(problems, get("pretrain"), game, env, fits)
    if pretrain is not None and resume is not None:
        problems.add("pretrain: warm-starts a new policy; it does not go with resume")
    imitation = _imitation(problems, get("imitation"), game, get("ppo"), fits)
    if imitation is not None and resume is not None:
        problems.add("imitation: warm-starts a new policy; it does not go with resume")
    test_agents: tuple[Any, ...] = ()
    if test.get("agents") not in (None, []):
        test_agents = agent_specs(problems, test.get("agents"), "test.")

    def whole(value: Any, key: str, minimum: int, default: int | None) -> Any:
        return check(_whole, value, key, "", minimum, default, fallback=default)[0]

    return {
        "game": game,
        "rules": rules,
        "env": tuple(env.items()),
        "num_envs": whole(get("num_envs"), "num_envs", 1, 256),
        "seed": whole(get("seed"), "seed", 0, 0),
        "timesteps": whole(get("timesteps"), "timesteps", 1, 1_000_000),
        "minutes": minutes,
        "ppo": tuple(_ppo(problems, get("ppo"), env, game, fits).items()),
        "validation_deals": whole(validation.get("deals"), "validation.deals", 1, 200),
        "validation_seed": whole(validation.get("seed"), "validation.seed", 0, 1),
        "validation_every": whole(validation.get("every"), "validation.every", 1, 500_000),
        "test_deals": whole(test.get("deals"), "test.deals", 0, 1000),
        "test_seed": whole(test.get("seed"), "test.seed", 0, 0),
        "test_agents": test_agents,
        "test_workers": whole(test.get("workers"), "test.workers", 1, None),
        "out": check(_str, get("out"), "out", "")[0] or "runs/ppo",
        "resume": resume,
        "advice": advice,
        "shaping": shaping,
        "pretrain": None if pretrain is None else tuple(pretrain.items()),
        "imitation": None if imitation is None else tuple(imitation.items()),
    }


def _minutes(problems: Problems, value: Any) -> float | None:
    """The ``minutes`` key: a number of minutes > 0, or None (no time limit)."""
    minutes = _number(value)
    if minutes is not None and (
        isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 0 < minutes < math.inf
    ):
        problems.add(f"minutes: want a number of minutes > 0 (or null for no time limit), got {minutes!r}")
        return None
    return None if minutes is None else float(minutes)


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
    """:func:`agents.evaluation.config._int` (the evaluation config's check), after :func:`_number`."""
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


def _warm_start_block(problems: Problems, value: Any, block: str, keys: Sequence[str]) -> bool:
    """Whether a warm-start block is given and a mapping (its unknown keys are named)."""
    if value is None:
        return False
    if not isinstance(value, Mapping):
        problems.add(f"{block}: want a mapping of warm-start settings (or null), got {value!r}")
        return False
    problems.check(_known, value, keys, "", f"{block}: ")
    return True


def _block_numbers(
    problems: Problems, out: Mapping[str, Any], block: str, whole: Sequence[str], positive: Sequence[str]
) -> None:
    """A block's whole numbers >= 1 (``whole``) and numbers > 0 (``positive``)."""
    for key in whole:
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            problems.add(f"{block}.{key}: want a whole number >= 1, got {v!r}")
    for key in positive:
        v = out.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < math.inf):
            problems.add(f"{block}.{key}: want a number > 0, got {v!r}")


def _pretrain(
    problems: Problems, value: Any, game: GameName, env: Mapping[str, Any], fits: bool
) -> dict[str, Any] | None:
    """The ``pretrain`` block (:mod:`agents.training.pretrain`): absent or null for none, ``{}`` for the defaults."""
    from agents.training.pretrain import PRETRAIN_KEYS, PRETRAIN_LOSSES

    if not _warm_start_block(problems, value, "pretrain", PRETRAIN_KEYS):
        return None
    if fits and (game != "tripeaks" or env.get("reward", "score") != "progress"):
        problems.add("pretrain: is for TriPeaks with reward progress (the move values count cards and the win bonus)")
    out = {k: _number(v) for k, v in value.items() if k in PRETRAIN_KEYS}
    _block_numbers(
        problems,
        out,
        "pretrain",
        ("samples", "steps", "epochs", "replay", "batch_size", "threads", "critic_every"),
        ("minutes", "temperature", "learning_rate", "final_learning_rate"),
    )
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


def _imitation(problems: Problems, value: Any, game: GameName, ppo: Any, fits: bool) -> dict[str, Any] | None:
    """The ``imitation`` block (:mod:`agents.training.imitation`): absent or null for none."""
    from agents.training.imitation import IMITATION_KEYS, TEACHERS

    if not _warm_start_block(problems, value, "imitation", IMITATION_KEYS):
        return None
    features = ppo.get("features") if isinstance(ppo, Mapping) else None
    if fits and (game != "fortythieves" or features != "moves"):
        problems.add("imitation: is for Forty Thieves with ppo.features moves (the teacher is a Forty Thieves agent)")
    out = {k: (_number(v) if k != "teacher_options" else v) for k, v in value.items() if k in IMITATION_KEYS}
    teacher = out.get("teacher", "planner")
    if teacher not in TEACHERS:
        problems.add(f"imitation.teacher: want one of {', '.join(TEACHERS)}, got {teacher!r}")
        teacher = None
    options = out.get("teacher_options")
    if options is not None and not (
        isinstance(options, Mapping)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in options.values())
    ):
        problems.add(f"imitation.teacher_options: want a mapping of the teacher's numeric options, got {options!r}")
    elif options is not None:
        if teacher is not None:
            from agents.registry import make_agent

            try:
                make_agent(teacher, "fortythieves", **options)
            except (TypeError, ValueError) as error:
                problems.add(f"imitation.teacher_options: {error}")
        out["teacher_options"] = dict(options)
    _block_numbers(
        problems,
        out,
        "imitation",
        ("games", "workers", "epochs", "batch_size"),
        ("minutes", "learning_rate", "final_learning_rate"),
    )
    eps = out.get("epsilon")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, int | float) or not 0 <= eps <= 1):
        problems.add(f"imitation.epsilon: want a number from 0 to 1, got {eps!r}")
    bonus = out.get("lookahead_bonus")
    if bonus is not None and (
        isinstance(bonus, bool) or not isinstance(bonus, int | float) or not 0 <= bonus < math.inf
    ):
        problems.add(f"imitation.lookahead_bonus: want a number >= 0, got {bonus!r}")
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
    if fits and features == "moves" and (game != "fortythieves" or env.get("obs_mode", "flat") != "flat"):
        problems.add(
            "ppo.features: moves is for Forty Thieves with flat observations (game fortythieves, obs_mode flat)"
        )
    if features in ("afterstate", "moves") and isinstance(arch, Mapping):
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
