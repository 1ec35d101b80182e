"""Evaluation settings: agent specs and :class:`EvalConfig`, a pydantic model validated from YAML or flags.

The keys, their defaults and meanings are the models' fields (their descriptions are in the JSON
Schema ``docs/schemas/eval.schema.json``, see ``scripts/write_schemas.py``); the ``solitaire-env
eval`` flags override a file's values.  The shared pieces of the three configs (eval, hint-bench,
train) live here: :class:`Settings` (a frozen model refusing unknown keys), the number types, and
:func:`validate`, which turns pydantic's errors into one :class:`ConfigError` (a ``ValueError``)
naming every mistake, one line each, with its dotted path (``ppo.learning_rate: want ...``); an
unknown key gets "did you mean" its nearest known key.

:func:`require_rl` is the one place that imports the ``rl`` extra (torch, stable-baselines3,
sb3-contrib, tensorboard) for training and the ``ppo`` agent: without it, a
:class:`MissingExtraError` (a ``ValueError`` and an ``ImportError``) with one line naming
``pip install 'solitaire-env[rl]'``.
"""

from __future__ import annotations

import difflib
import importlib
import math
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NoReturn, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    Strict,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError

from solitaire_env.games import ENV_IDS, GAMES, GameCode, GameName, game_spec

__all__ = [
    "CONFIG_KEYS",
    "ENV_OPTIONS",
    "AgentSpec",
    "ConfigError",
    "EvalConfig",
    "MissingExtraError",
    "Settings",
    "load_config_file",
    "parse_agent_spec",
    "require_rl",
    "validate",
]

#: The env keywords an evaluation may set, per game, and each game's rule letters (the first is
#: the default): read from the table of games (:mod:`solitaire_env.games`; ``ENV_IDS`` is its own).
ENV_OPTIONS: dict[GameName, tuple[str, ...]] = {g.name: g.env_options for g in GAMES}
RULE_LETTERS: dict[GameName, tuple[str, ...]] = {g.name: tuple(g.letter_options) for g in GAMES}
#: Agent options that name a model file (checked to exist before anything runs).
MODEL_OPTIONS = ("model", "model_path", "checkpoint")


class ConfigError(ValueError):
    """A bad setting: where, what, what is allowed.  ``problems`` holds every mistake found (each
    without the file's name); the message is one line for one, one line per mistake for several."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems) or (message,)


def _fail(text: str) -> NoReturn:
    """Inside a validator: one mistake, ``text`` as it is to be read (after the key's path)."""
    raise PydanticCustomError("config", "{text}", {"text": text})


def _raise_all(texts: Sequence[str | tuple[str, str]]) -> None:
    """Inside a validator: several mistakes of one key (or of a key of its block: ``(key, text)``), one line each."""
    if texts:
        pairs = [t if isinstance(t, tuple) else ((), t) for t in texts]
        details: Any = [{"type": PydanticCustomError("config", "{text}", {"text": t}), "loc": (k,) if k else (), "input": None}
                        for k, t in pairs]  # fmt: skip
        raise ValidationError.from_exception_data("config", details)


class Settings(BaseModel):
    """A block of settings: frozen, every key checked, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    _source: str | None = PrivateAttr(None)

    @property
    def source(self) -> str | None:
        """The file (and flags) the settings came from, for messages."""
        return self._source

    def given(self) -> dict[str, Any]:
        """The keys set to something (not null), as a mapping."""
        return self.model_dump(exclude_none=True)


M = TypeVar("M", bound=Settings)


def validate(model: type[M], data: Any, source: str | None = None, **context: Any) -> M:
    """``model`` from ``data``, or one :class:`ConfigError` naming every mistake (``source``, the
    file, starts the message).  ``context`` reaches the validators (``deep``: also build what the
    settings name, such as the env and the agents)."""
    where = f"{source}: " if source else ""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}want a mapping of settings, got {type(data).__name__}")
    try:
        config = model.model_validate(dict(data), context={"deep": True, **context})
    except ValidationError as error:
        raise config_error([_explain(model, e) for e in error.errors()], where) from None
    config._source = source
    return config


def config_error(found: Sequence[str], where: str = "") -> ConfigError:
    """One error naming every mistake of ``found`` (``where``, such as ``"x.yaml: "``, starts it)."""
    found = list(dict.fromkeys(found))
    if len(found) == 1:
        return ConfigError(where + found[0], found)
    return ConfigError(
        "\n".join([f"{where}{len(found)} mistakes:", *(f"  {k}. {t}" for k, t in enumerate(found, 1))]), found
    )


_SAY = {"dict_type": "want a mapping", "model_type": "want a mapping", "model_attributes_type": "want a mapping",
        "bool_type": "want true or false", "string_type": "want a string", "list_type": "want a list",
        "tuple_type": "want a list", "too_short": "want a non-empty list", "int_type": "want a whole number", "float_type": "want a number"}  # fmt: skip


def _explain(model: type[BaseModel], error: Any) -> str:
    """One of pydantic's errors as a line: the dotted path (``loc``), then a short message."""
    loc, kind = list(error["loc"]), error["type"]
    if kind == "config":
        text = error["ctx"]["text"]
    elif kind == "extra_forbidden":
        key, known = loc.pop(), _keys_at(model, loc)
        close = difflib.get_close_matches(str(key), known, n=1)
        text = f"unknown key {key!r}; " + (f"did you mean {close[0]!r}?" if close else f"known: {', '.join(known)}")
    elif kind == "literal_error":
        want = error["ctx"]["expected"].replace("'", "").replace(" or ", ", ")
        text = f"want one of {want}, got {error['input']!r}"
    else:
        msg = _SAY.get(kind) or " ".join(str(error["msg"]).split()).lower()
        text = f"{msg}, got {error['input']!r}"
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return f"{path}: {text}" if path else text


def _keys_at(model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """The keys of the block at ``loc`` (a model's fields), or none if it is not a block."""
    current: Any = model
    for part in loc:
        field = current.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            return []
        args = [field.annotation, *typing.get_args(field.annotation)]
        current = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if current is None:
            return []
    return list(current.model_fields)


def _number(value: Any) -> Any:
    """A number YAML 1.1 left as a string (``3e-4``, ``1e6``: no dot in the mantissa), as a number."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() and abs(number) < 2**63 else number
    return value


def _whole(minimum: int) -> BeforeValidator:
    def check(value: Any) -> Any:
        value = _number(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
            _fail(f"want a whole number >= {minimum}, got {value!r}")
        return value

    return BeforeValidator(check)


def _real(ok: Callable[[float], bool], want: str) -> BeforeValidator:
    def check(value: Any) -> Any:
        value = _number(value)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not ok(value)
        ):
            _fail(f"want {want}, got {value!r}")
        return value

    return BeforeValidator(check)


def _text(value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        _fail(f"want a path (a string), got {value!r}")
    return value


#: Whole numbers >= 0 or >= 1, numbers > 0, >= 0 or from 0 to 1 (each may be null where the
#: field's default is), a strict true / false, a path.
Whole0 = Annotated[int, Field(ge=0), _whole(0)]
Whole1 = Annotated[int, Field(ge=1), _whole(1)]
OptWhole1 = Annotated[int | None, Field(ge=1), _whole(1)]
Positive = Annotated[float | None, Field(gt=0), _real(lambda v: v > 0, "a number > 0")]
NonNegative = Annotated[float | None, Field(ge=0), _real(lambda v: v >= 0, "a number >= 0")]
Fraction = Annotated[float | None, Field(ge=0, le=1), _real(lambda v: 0 <= v <= 1, "a number from 0 to 1")]
Flag = Annotated[bool, Strict()]
PathStr = Annotated[str | None, BeforeValidator(_text)]
Folder = Annotated[str, BeforeValidator(_text)]


def _game(value: Any) -> GameName:
    try:
        return game_spec(value).name
    except (ValueError, TypeError, AttributeError):
        _fail(f"want {' or '.join(f'{g.name} ({g.code.lower()})' for g in GAMES)}, got {value!r}")


Game = Annotated[
    GameName,
    BeforeValidator(_game),
    WithJsonSchema({"enum": [n for g in GAMES for n in (g.name, g.code.lower())], "type": "string"}),
]
Rules = Annotated[str, WithJsonSchema({"enum": ["E", "C", "N"], "type": "string"})]
Env = Annotated[dict[str, Any], BeforeValidator(lambda v: {} if v is None else v)]


def _rules(value: Any, info: ValidationInfo) -> str | None:
    """The game's rule letter (its default for none); nothing to check while the game is wrong."""
    if "game" not in info.data:
        return None
    game, letters = info.data["game"], RULE_LETTERS[info.data["game"]]
    if value is None:
        return letters[0]
    if not isinstance(value, str) or value.strip().upper() not in letters:
        _fail(f"the {game} rule letter is {'E (Easy) or C (Classic)' if game == 'tripeaks' else 'N'}, got {value!r}")
    return value.strip().upper()


def env_problems(env: Mapping[str, Any], game: GameName, allowed: Sequence[str]) -> list[str]:
    """The env keywords that are not ``allowed`` for ``game``, one line each."""
    found = []
    for key in env:
        if key == "wrap":
            found.append("wrap comes from the deal codes' rule letter: set rules: E or C")
        elif key not in allowed:
            other = next((g for g, keys in ENV_OPTIONS.items() if g != game and key in keys), None)
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
            found.append(f"unknown {game} keyword {key!r}{f' (a {other} option)' if other else ''}{hint}")
    return found


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
        return self.name + (":" + ",".join(f"{k}={_show(v)}" for k, v in self.options) if self.options else "")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.kwargs}

    @classmethod
    def parse(cls, value: Any, where: str = "agents") -> AgentSpec:
        """A spec from a string (``name`` or ``name:key=value,key=value``) or a mapping with ``name``."""
        at = f"{where}: " if where else ""
        if isinstance(value, AgentSpec):
            return value
        if isinstance(value, str):
            return parse_agent_spec(value, where)
        if not isinstance(value, Mapping):
            raise ConfigError(f"{at}an agent is a name, 'name:key=value,...' or a mapping with 'name', got {value!r}")
        if "name" not in value:
            raise ConfigError(f"{at}an agent mapping needs a 'name' key, got {dict(value)!r}")
        name = value["name"]
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{at}the agent name must be a string, got {name!r}")
        for k, v in value.items():
            if not isinstance(k, str):
                raise ConfigError(f"{at}agent {name!r}: option names must be strings, got {k!r}")
            if not _plain(v):
                raise ConfigError(f"{at}agent {name!r}: option {k!r} must be a number, a boolean, a string, "
                                  f"or a list or mapping of them, got {v!r}")  # fmt: skip
        return cls(name.strip(), tuple((k, v) for k, v in value.items() if k != "name"))


def _plain(value: Any) -> bool:
    """A value a record can store as JSON: None, bool, int, float, str, or lists / mappings of them."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return isinstance(value, Mapping) and all(isinstance(k, str) and _plain(v) for k, v in value.items())


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def parse_agent_spec(text: str, where: str = "--agents") -> AgentSpec:
    """``random`` or ``rollout:samples=200,depth=3`` (values typed as in YAML)."""
    at = f"{where}: " if where else ""
    name, sep, rest = text.strip().partition(":")
    if not name.strip():
        raise ConfigError(f"{at}empty agent name in {text!r}; want NAME or NAME:KEY=VALUE,...")
    options: dict[str, Any] = {}
    for part in rest.split(",") if sep else ():
        key, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not key:
            raise ConfigError(f"{at}bad agent option {part.strip()!r} in {text!r}; want NAME:KEY=VALUE,...")
        if key in options:
            raise ConfigError(f"{at}option {key!r} given twice in {text!r}")
        options[key] = _scalar(value)
    return AgentSpec(name.strip(), tuple(options.items()))


def _agent(value: Any) -> AgentSpec:
    try:
        return AgentSpec.parse(value, where="")
    except ConfigError as error:
        _fail(str(error))


def _agents(value: Any) -> Any:
    value = [] if value is None else [value] if isinstance(value, (str, Mapping)) else value
    if not isinstance(value, Sequence):
        _fail(f"want a non-empty list of agents, got {value!r}")
    return value


def _once(specs: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
    keys = [s.key for s in specs]
    if twice := sorted({k for k in keys if keys.count(k) > 1}):
        _fail(f"{', '.join(map(repr, twice))} listed twice")
    return specs


_MAPPING = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
_AGENT_SCHEMA = {"anyOf": [{"type": "string", "description": "NAME or NAME:KEY=VALUE,..."}, _MAPPING]}
Agent = Annotated[AgentSpec, BeforeValidator(_agent), PlainSerializer(AgentSpec.to_dict), WithJsonSchema(_AGENT_SCHEMA)]
#: A list of agents: names (``random``), CLI-style specs (``rollout:samples=200``) or mappings
#: (``{name: rollout, samples: 200}``), none twice.
AgentList = Annotated[tuple[Agent, ...], BeforeValidator(_agents), AfterValidator(_once)]
Agents = Annotated[AgentList, Field(min_length=1)]


class EvalConfig(Settings):
    """A validated evaluation run (:meth:`from_mapping` makes one with every check)."""

    game: Game = Field("tripeaks", description="tripeaks (tp) or fortythieves (ft)")
    rules: Rules = Field(None, validate_default=True, description="the deal codes' rule letter: TriPeaks E (Easy, "
                         "K-A adjacent, the default) or C (Classic); Forty Thieves N")  # fmt: skip
    env: Env = Field({}, description="gym.make keywords that change the game: TriPeaks draw, faces, waste_start, "
                     "jokers, scoring; Forty Thieves foundation_return, scoring, max_repeats; "
                     "both max_episode_steps")  # fmt: skip
    deals: Whole1 = Field(100, description="how many deal codes: the first drawn from seed (common.deals.draw_codes)")
    seed: Whole0 = Field(0, description="the seed of the deal codes and of the agents")
    workers: OptWhole1 = Field(None, description="worker processes or Ray actors (null: all cores)")
    backend: Literal["process", "ray"] = Field("process", description="a local process pool, or a Ray cluster")
    ray_address: PathStr = Field(None, description="backend ray: the cluster to join (default: RAY_ADDRESS or local)")
    record: PathStr = Field(None, description="a folder for one JSON record per episode (see replay)")
    out: PathStr = Field(None, description="a folder for results.json, summary.csv, pairs.csv and episodes.csv")
    plot: PathStr = Field(None, description="an image file of the win rates (its extension names the format)")
    compare: Literal["best", "all"] = Field("best", description="paired tests: each agent against the best, or all")
    agents: Agents = Field((AgentSpec("random"),), description="the agents: NAME, NAME:KEY=VALUE,... or a mapping "
                           "with name and options")  # fmt: skip

    _rules = field_validator("rules", mode="before")(_rules)

    @field_validator("env")
    @classmethod
    def _env(cls, env: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if "game" not in info.data:
            return env
        _raise_all(env_problems(env, info.data["game"], ENV_OPTIONS[info.data["game"]]))
        if (info.context or {}).get("deep"):  # make the env once: a bad value fails here, naming the keyword
            import gymnasium as gym

            import solitaire_env  # noqa: F401  (registers the envs)

            try:
                gym.make(ENV_IDS[info.data["game"]], **env).close()
            except (ValueError, TypeError) as error:
                _fail(" ".join(str(error).split()))
        return env

    @field_validator("ray_address")
    @classmethod
    def _ray(cls, address: str | None, info: ValidationInfo) -> str | None:
        if address is not None and info.data.get("backend", "ray") != "ray":
            _fail(f"applies to backend ray only (backend is {info.data['backend']})")
        return address

    @field_validator("agents")
    @classmethod
    def _agents(cls, agents: tuple[AgentSpec, ...], info: ValidationInfo) -> tuple[AgentSpec, ...]:
        if "game" in info.data and (info.context or {}).get("check_agents"):
            _raise_all(agent_problems(info.data["game"], agents))
        return agents

    @classmethod
    def from_mapping(cls, data: Any, source: str | None = None, *, check_agents: bool = True) -> EvalConfig:
        """Validate ``data`` (absent keys take their defaults).  ``check_agents`` also looks every
        agent up in the registry, checks its model file (if an option names one) and builds it
        once, so that an unknown name, a bad option or a missing file fails here, before any work."""
        return validate(cls, data, source, check_agents=check_agents)

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

    def check_agents(self, where: str = "") -> None:
        """Every agent is registered for the game, its model file exists and it can be built
        (every problem of every agent named in one :class:`ConfigError`)."""
        if found := agent_problems(self.game, self.agents):
            raise config_error(found, where)

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
        return self.model_dump(mode="json")


#: The keys an evaluation config may have.
CONFIG_KEYS = tuple(EvalConfig.model_fields)


def agent_problems(game: GameName, agents: Sequence[AgentSpec]) -> list[str]:
    """What is wrong with ``agents`` for ``game`` (unknown names, missing model files, options
    their constructor refuses, a missing extra), one line each."""
    from agents.registry import UnknownAgentError, agent_class, agent_names, make_agent

    found, unknown = [], []
    for spec in agents:
        try:
            agent_class(spec.name, game)
        except UnknownAgentError:
            unknown.append(spec.name)
    if unknown:
        found.append(f"unknown agent{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for {game}; "
                     f"known: {', '.join(agent_names(game)) or '(none)'}")  # fmt: skip
    for spec in agents:
        models = [(k, v) for k, v in spec.options if k in MODEL_OPTIONS]
        bad = [f"agent {spec.key!r}: {k} must be a file path, got {v!r}" for k, v in models if not isinstance(v, str)]
        bad += [f"agent {spec.name!r}: model file {v!r} not found" for k, v in models
                if isinstance(v, str) and not (os.path.isfile(v) or os.path.isfile(v + ".zip"))]  # fmt: skip
        found += bad
        if spec.name in unknown or bad:
            continue
        try:
            make_agent(spec.name, game, 0, **spec.kwargs)
        except MissingExtraError as error:  # the same line for every agent that needs the extra
            found.append(" ".join(str(error).split()))
        except OSError as error:
            what = f"{error.filename}: {error.strerror}" if error.strerror else str(error)
            found.append(f"agent {spec.key!r}: {' '.join(what.split())}")
        except (ValueError, TypeError) as error:
            text = " ".join(str(error).split())
            found.append(text if spec.name in text else f"agent {spec.key!r}: {text}")
    return list(dict.fromkeys(found))


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
