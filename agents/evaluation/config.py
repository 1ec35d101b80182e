"""Evaluation settings: agent specs and :class:`EvalConfig`, validated from YAML or from a dict.

An evaluation run is described by a mapping with these keys (a YAML file in ``configs/``, or
the ``solitaire-env eval`` flags, which override the file's values):

- ``game``: ``tripeaks`` (``tp``) or ``fortythieves`` (``ft``); default ``tripeaks``.
- ``rules``: the deal codes' rule letter: TriPeaks ``E`` (Easy, K-A adjacent, the default) or
  ``C`` (Classic); Forty Thieves ``N``.
- ``env``: env keywords (``gym.make`` arguments) that change the game: TriPeaks ``draw``,
  ``faces``, ``waste_start``, ``jokers``, ``scoring``; Forty Thieves ``foundation_return``,
  ``scoring``, ``max_repeats``; both ``max_episode_steps``.
- ``deals`` (default 100) and ``seed`` (default 0): the deal codes are the first ``deals``
  codes drawn from ``seed`` (:func:`solitaire_env.common.deals.draw_codes`).
- ``agents``: a list of agent specs: a name (``random``), a CLI-style spec
  (``rollout:samples=200``) or a mapping (``{name: rollout, samples: 200}``).
- ``workers`` (default: all cores), ``backend`` (``process`` or ``ray``), ``ray_address``,
  ``record`` (a folder for episode records), ``out`` (a folder for JSON and CSV), ``plot`` (an
  image file), ``compare`` (``best`` or ``all``: which pairs get a McNemar test).

Every problem is a :class:`ConfigError` (a ``ValueError``) that says where (the file) and what
(the key, the value, what is allowed): one line for one mistake; a config with several mistakes
gets one error naming them all, one line each (its ``problems``), not only the first.

:func:`require_rl` is the one place that imports the ``rl`` extra (torch, stable-baselines3,
sb3-contrib, tensorboard) for training and the ``ppo`` agent: without it, a
:class:`MissingExtraError` (a ``ValueError`` and an ``ImportError``) with one line naming
``pip install 'solitaire-env[rl]'``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from solitaire_env.games import ENV_IDS, GAMES, GameCode, GameName, game_spec

__all__ = [
    "CONFIG_KEYS",
    "ENV_OPTIONS",
    "AgentSpec",
    "ConfigError",
    "EvalConfig",
    "MissingExtraError",
    "Problems",
    "agent_specs",
    "load_config_file",
    "parse_agent_spec",
    "require_rl",
]

#: The keys an evaluation config may have.
CONFIG_KEYS = (
    "game",
    "rules",
    "env",
    "deals",
    "seed",
    "agents",
    "workers",
    "backend",
    "ray_address",
    "record",
    "out",
    "plot",
    "compare",
)
BACKENDS = ("process", "ray")
COMPARE = ("best", "all")
#: The env keywords an evaluation may set, per game (the rest do not change what it measures:
#: rewards and observations are not what an agent reads).
#: All read from the table of games (:mod:`solitaire_env.games`; ``ENV_IDS`` is its own, re-exported).
ENV_OPTIONS: dict[GameName, tuple[str, ...]] = {g.name: g.env_options for g in GAMES}
#: The deal-code letters of each game, and its rule letters (the first is the default).
CODE_GAME: dict[GameName, str] = {g.name: g.code for g in GAMES}
RULE_LETTERS: dict[GameName, tuple[str, ...]] = {g.name: tuple(g.letter_options) for g in GAMES}
#: Agent options that name a model file (checked to exist before anything runs).
MODEL_OPTIONS = ("model", "model_path", "checkpoint")


class ConfigError(ValueError):
    """A bad setting: where, what, what is allowed.  ``problems`` holds every mistake found (each
    without the file's name); the message is one line for one, one line per mistake for several."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems) or (message,)


class Problems:
    """The mistakes of one config, collected so that one :class:`ConfigError` names them all.

    ``where`` (``"configs/x.yaml: "``) starts the message; the problems themselves are stored
    without it (``"num_envs: want a whole number >= 1, got 0"``)."""

    def __init__(self, where: str = "") -> None:
        self.where = where
        self.found: list[str] = []

    def add(self, text: str) -> None:
        if text not in self.found:  # the same missing extra for two agents: once
            self.found.append(text)

    def take(self, error: ConfigError, prefix: str = "") -> None:
        for text in error.problems:
            self.add(prefix + text)

    def check(self, fn: Callable[..., Any], *args: Any, fallback: Any = None, **kwargs: Any) -> tuple[Any, bool]:
        """``(fn(*args, **kwargs), True)``, or ``(fallback, False)`` with its mistakes recorded."""
        try:
            return fn(*args, **kwargs), True
        except ConfigError as error:
            self.take(error)
            return fallback, False

    def error(self) -> ConfigError:
        found = self.found
        if len(found) == 1:
            return ConfigError(f"{self.where}{found[0]}", found)
        head = f"{self.where}{len(found)} mistakes:" if self.where else f"{len(found)} mistakes:"
        return ConfigError("\n".join([head, *(f"  {k}. {text}" for k, text in enumerate(found, 1))]), found)

    def raise_any(self) -> None:
        if self.found:
            raise self.error()


class MissingExtraError(ValueError, ImportError):
    """An optional dependency is not installed: one line naming the pip command.  A ``ValueError``
    (the CLI prints it as its one-line error) and an ``ImportError`` (``except ImportError`` still
    catches it)."""


#: The modules of the ``rl`` extra, by the name pip knows them under.
RL_MODULES = (("torch", "torch"), ("stable_baselines3", "stable-baselines3"), ("sb3_contrib", "sb3-contrib"))


def require_rl(what: str, *, tensorboard: bool = False) -> None:
    """Import the ``rl`` extra's modules (and, with ``tensorboard``, what SB3 logs with), or raise
    :class:`MissingExtraError`: ``{what} needs the rl extra: pip install 'solitaire-env[rl]' (...)``."""
    missing: list[str] = []
    for module, package in RL_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing.append(_missing(package, module, error))
    if tensorboard and not missing:
        try:  # what stable-baselines3's TensorBoard logger imports (it fails only when learning starts)
            importlib.import_module("torch.utils.tensorboard")
        except ImportError as error:
            missing.append(_missing("tensorboard", "tensorboard", error))
    if missing:
        raise MissingExtraError(f"{what} needs the rl extra: pip install 'solitaire-env[rl]' ({'; '.join(missing)})")


def _missing(package: str, module: str, error: ImportError) -> str:
    name = getattr(error, "name", None) or ""
    if isinstance(error, ModuleNotFoundError) and (name == module or name.startswith(module + ".")):
        return f"{package} is not installed"
    return f"{package} does not import: {' '.join(str(error).split())}"


def _scalar(text: str) -> Any:
    """A CLI option value with YAML's types: ``200`` an int, ``0.5`` a float, ``true`` a bool."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (int, float, bool, str)) or value is None else text


@dataclass(frozen=True)
class AgentSpec:
    """An agent by registry name and constructor options (``rollout`` with ``samples=200``)."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def key(self) -> str:
        """How tables, files and records name it: ``random``, ``rollout:samples=200``."""
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_text(v)}" for k, v in self.options)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.kwargs}

    @classmethod
    def parse(cls, value: Any, where: str = "agents") -> AgentSpec:
        """A spec from a string (``name`` or ``name:key=value,key=value``) or a mapping with ``name``."""
        if isinstance(value, AgentSpec):
            return value
        if isinstance(value, str):
            return parse_agent_spec(value, where)
        if isinstance(value, Mapping):
            if "name" not in value:
                raise ConfigError(f"{where}: an agent mapping needs a 'name' key, got {dict(value)!r}")
            name = value["name"]
            if not isinstance(name, str) or not name.strip():
                raise ConfigError(f"{where}: the agent name must be a string, got {name!r}")
            options = []
            for k, v in value.items():
                if k == "name":
                    continue
                if not isinstance(k, str):
                    raise ConfigError(f"{where}: agent {name!r}: option names must be strings, got {k!r}")
                if not _plain(v):
                    raise ConfigError(
                        f"{where}: agent {name!r}: option {k!r} must be a number, a boolean, a string, "
                        f"or a list or mapping of them, got {v!r}"
                    )
                options.append((k, v))
            return cls(name.strip(), tuple(options))
        raise ConfigError(f"{where}: an agent is a name, 'name:key=value,...' or a mapping with 'name', got {value!r}")


def _plain(value: Any) -> bool:
    """A value a record can store as JSON: None, bool, int, float, str, or lists / mappings of them."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def parse_agent_spec(text: str, where: str = "--agents") -> AgentSpec:
    """``random`` or ``rollout:samples=200,depth=3`` (values typed as in YAML)."""
    name, sep, rest = text.strip().partition(":")
    name = name.strip()
    if not name:
        raise ConfigError(f"{where}: empty agent name in {text!r}; want NAME or NAME:KEY=VALUE,...")
    options: list[tuple[str, Any]] = []
    if sep:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ConfigError(f"{where}: bad agent option {part.strip()!r} in {text!r}; want NAME:KEY=VALUE,...")
            if key in dict(options):
                raise ConfigError(f"{where}: option {key!r} given twice in {text!r}")
            options.append((key, _scalar(value.strip())))
    return AgentSpec(name, tuple(options))


@dataclass(frozen=True)
class EvalConfig:
    """A validated evaluation run (build it with :meth:`from_mapping` to get every check)."""

    game: GameName = "tripeaks"
    rules: str = "E"
    env: tuple[tuple[str, Any], ...] = ()
    deals: int = 100
    seed: int = 0
    agents: tuple[AgentSpec, ...] = (AgentSpec("random"),)
    workers: int | None = None
    backend: str = "process"
    ray_address: str | None = None
    record: str | None = None
    out: str | None = None
    plot: str | None = None
    compare: str = "best"
    source: str | None = field(default=None, compare=False)

    @property
    def env_id(self) -> str:
        return ENV_IDS[self.game]

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The ``gym.make`` keywords of every episode (without ``wrap``: a code's letter sets it)."""
        return dict(self.env)

    @property
    def code_game(self) -> GameCode:
        return game_spec(self.game).code

    def dry_run_text(self) -> str:
        """The settings in a few lines, each ending in a newline: what ``solitaire-env eval
        --dry-run`` prints once the config has passed its checks (the first line says so)."""
        lines = [
            f"config ok: {self.game}, rules {self.rules}, {self.deals} deals from seed {self.seed}",
            f"agents: {' '.join(a.key for a in self.agents)}",
            f"env: {self.env_kwargs or '(defaults)'}; backend {self.backend}; workers {self.workers or 'all'}",
        ]
        lines += [f"{key}: {getattr(self, key)}" for key in ("out", "record", "plot") if getattr(self, key) is not None]
        return "".join(f"{line}\n" for line in lines)

    def to_dict(self) -> dict[str, Any]:
        """The settings as a mapping :meth:`from_mapping` accepts (what results files store)."""
        return {
            "game": self.game,
            "rules": self.rules,
            "env": self.env_kwargs,
            "deals": self.deals,
            "seed": self.seed,
            "agents": [a.to_dict() for a in self.agents],
            "workers": self.workers,
            "backend": self.backend,
            "ray_address": self.ray_address,
            "record": self.record,
            "out": self.out,
            "plot": self.plot,
            "compare": self.compare,
        }

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any], source: str | None = None, *, check_agents: bool = True
    ) -> EvalConfig:
        """Validate ``data`` (keys of :data:`CONFIG_KEYS`; absent keys take their defaults).

        ``check_agents`` also looks every agent up in the registry, checks its model file (if
        an option names one) and builds it once, so that an unknown name, a bad option or a
        missing file fails here in one line, before any work starts.
        """
        where = f"{source}: " if source else ""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}want a mapping of settings, got {type(data).__name__}")
        problems = Problems(where)
        unknown = [k for k in data if k not in CONFIG_KEYS]
        if unknown:
            problems.add(
                f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(CONFIG_KEYS)}"
            )
        get = data.get
        check = problems.check
        game, game_ok = check(_game, get("game"), "", fallback="tripeaks")
        rules, env_ok = "E", False
        env: dict[str, Any] = {}
        if game_ok:  # the rule letters and env keywords are the game's
            rules, _ = check(_rules, get("rules"), game, "", fallback=RULE_LETTERS[game][0])
            env, env_ok = check(_env, get("env"), game, "", fallback={})
        deals, _ = check(_int, get("deals"), "deals", "", minimum=1, default=100, fallback=100)
        seed, _ = check(_int, get("seed"), "seed", "", minimum=0, default=0, fallback=0)
        agents = agent_specs(problems, get("agents"))
        workers, _ = check(_int, get("workers"), "workers", "", minimum=1, default=None)
        backend, backend_ok = check(_choice, get("backend"), "backend", BACKENDS, "", fallback=BACKENDS[0])
        compare, _ = check(_choice, get("compare"), "compare", COMPARE, "", fallback=COMPARE[0])
        paths = {k: check(_str, get(k), k, "")[0] for k in ("ray_address", "record", "out", "plot")}
        if paths["ray_address"] is not None and backend_ok and backend != "ray":
            problems.add(f"ray_address applies to backend ray only (backend is {backend})")
        config = cls(
            game=game,
            rules=rules,
            env=tuple(env.items()),
            deals=deals,
            seed=seed,
            agents=agents,
            workers=workers,
            backend=backend,
            compare=compare,
            source=source,
            **paths,
        )
        if env_ok:
            check(config.check_env)
        if game_ok and agents and check_agents:  # the agents that parsed
            check(config.check_agents)
        problems.raise_any()
        return config

    def check_env(self, where: str = "") -> None:
        """Make the env once: a bad env value fails here, naming the keyword."""
        import gymnasium as gym

        import solitaire_env  # noqa: F401  (registers the envs)

        try:
            env = gym.make(self.env_id, **self.env_kwargs)
        except (ValueError, TypeError) as error:
            raise ConfigError(f"{where}env: {' '.join(str(error).split())}") from None
        env.close()

    def check_agents(self, where: str = "") -> None:
        """Every agent is registered for the game, its model file exists and it can be built
        (every problem of every agent named in one :class:`ConfigError`)."""
        from agents.registry import UnknownAgentError, agent_class, agent_names, make_agent

        problems = Problems(where)
        unknown = []
        for spec in self.agents:
            try:
                agent_class(spec.name, self.game)
            except UnknownAgentError:
                unknown.append(spec.name)
        if unknown:
            plural = "s" if len(unknown) > 1 else ""
            problems.add(
                f"unknown agent{plural} {', '.join(map(repr, unknown))} for {self.game}; "
                f"known: {', '.join(agent_names(self.game)) or '(none)'}"
            )
        for spec in self.agents:
            if spec.name in unknown:
                continue
            model_ok = True
            for key, value in spec.options:
                if key in MODEL_OPTIONS:
                    if not isinstance(value, str):
                        problems.add(f"agent {spec.key!r}: {key} must be a file path, got {value!r}")
                        model_ok = False
                    elif not (os.path.isfile(value) or os.path.isfile(value + ".zip")):
                        problems.add(f"agent {spec.name!r}: model file {value!r} not found")
                        model_ok = False
            if not model_ok:
                continue
            try:
                make_agent(spec.name, self.game, 0, **spec.kwargs)
            except MissingExtraError as error:  # the same line for every agent that needs the extra
                problems.add(" ".join(str(error).split()))
            except OSError as error:
                what = f"{error.filename}: {error.strerror}" if error.strerror else str(error)
                problems.add(f"agent {spec.key!r}: {' '.join(what.split())}")
            except (ValueError, TypeError) as error:
                text = " ".join(str(error).split())
                problems.add(text if spec.name in text else f"agent {spec.key!r}: {text}")
        problems.raise_any()


def _game(value: Any, where: str) -> GameName:
    if value is None:
        return "tripeaks"
    try:
        return game_spec(value).name
    except ValueError:
        want = " or ".join(f"{g.name} ({g.code.lower()})" for g in GAMES)
        raise ConfigError(f"{where}game: want {want}, got {value!r}") from None


def _rules(value: Any, game: GameName, where: str) -> str:
    letters = RULE_LETTERS[game]
    if value is None:
        return letters[0]
    if not isinstance(value, str) or value.strip().upper() not in letters:
        want = "E (Easy) or C (Classic)" if game == "tripeaks" else "N"
        raise ConfigError(f"{where}rules: the {game} rule letter is {want}, got {value!r}")
    return value.strip().upper()


def _env(value: Any, game: GameName, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}env: want a mapping of env keywords, got {value!r}")
    allowed = ENV_OPTIONS[game]
    problems = Problems()
    for key in value:
        if key == "wrap":
            problems.add(f"{where}env: wrap comes from the deal codes' rule letter: set rules: E or C")
        elif key not in allowed:
            other = next((g for g, keys in ENV_OPTIONS.items() if g != game and key in keys), None)
            note = f" (a {other} option)" if other else ""
            problems.add(f"{where}env: unknown {game} keyword {key!r}{note}; allowed: {', '.join(allowed)}")
    problems.raise_any()
    return dict(value)


def _int(value: Any, key: str, where: str, *, minimum: int, default: int | None) -> Any:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{where}{key}: want a whole number >= {minimum}, got {value!r}")
    return value


def _choice(value: Any, key: str, choices: Sequence[str], where: str) -> str:
    if value is None:
        return choices[0]
    if value not in choices:
        raise ConfigError(f"{where}{key}: want one of {', '.join(choices)}, got {value!r}")
    return str(value)


def _str(value: Any, key: str, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}{key}: want a path (a string), got {value!r}")
    return value


def _agents(value: Any, where: str) -> tuple[AgentSpec, ...]:
    """The ``agents`` list (every bad spec named); ``where`` starts the key (``"test."``)."""
    problems = Problems()
    specs = agent_specs(problems, value, where)
    problems.raise_any()
    return specs


def agent_specs(problems: Problems, value: Any, where: str = "") -> tuple[AgentSpec, ...]:
    """The specs of an ``agents`` value that parse (the others' mistakes go to ``problems``)."""
    if value is None:
        return (AgentSpec("random"),)
    if isinstance(value, (str, Mapping)):
        value = [value]
    if not isinstance(value, Sequence) or not value:
        problems.add(f"{where}agents: want a non-empty list of agents, got {value!r}")
        return ()
    specs = []
    for v in value:
        spec, ok = problems.check(AgentSpec.parse, v, f"{where}agents")
        if ok:
            specs.append(spec)
    keys = [s.key for s in specs]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        problems.add(f"{where}agents: {', '.join(map(repr, twice))} listed twice")
    return tuple(specs)


def load_config_file(path: str) -> dict[str, Any]:
    """The mapping of a YAML config file (not yet validated: see :meth:`EvalConfig.from_mapping`)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{path}: not valid YAML{at}: {' '.join(str(problem).split())}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: want a mapping of settings (key: value lines), got {type(data).__name__}")
    return data
