"""Evaluation settings: agent specs and :class:`EvalConfig`, a pydantic model validated from YAML
or from the ``solitaire-env eval`` flags (which override a file's values).  Each key's meaning is
its field's description (also in ``docs/schemas/eval.schema.json``); every mistake of a config is
named in one :class:`~agents.settings.ConfigError` (:func:`agents.settings.validate`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer, WithJsonSchema, field_validator
from pydantic_core.core_schema import ValidationInfo

from agents import settings as cfg
from agents.evaluation.specs import AgentSpec
from agents.extras import MissingExtraError
from agents.settings import ConfigError
from solitaire_env.games import ENV_IDS, GameCode, GameName, game_spec

__all__ = ["CONFIG_KEYS", "EvalConfig", "agent_problems"]
#: Agent options that name a model file (checked to exist before anything runs).
MODEL_OPTIONS = ("model", "model_path", "checkpoint")


def _agent(value: Any) -> AgentSpec:
    try:
        return AgentSpec.parse(value, where="")
    except ConfigError as error:
        cfg.fail(str(error))


def _agents(value: Any) -> Any:
    value = [] if value is None else [value] if isinstance(value, (str, Mapping)) else value
    if not isinstance(value, Sequence):
        cfg.fail(f"want a list of agents, got {value!r}")
    return value


def _once(specs: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
    keys = [s.key for s in specs]
    if twice := sorted({k for k in keys if keys.count(k) > 1}):
        cfg.fail(f"{', '.join(map(repr, twice))} listed twice")
    return specs


_MAPPING = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
_AGENT_SCHEMA = {"anyOf": [{"type": "string", "description": "NAME or NAME:KEY=VALUE,..."}, _MAPPING]}
Agent = Annotated[AgentSpec, BeforeValidator(_agent), PlainSerializer(AgentSpec.to_dict), WithJsonSchema(_AGENT_SCHEMA)]
#: A list of agents: names (``random``), CLI-style specs (``rollout:samples=200``) or mappings
#: (``{name: rollout, samples: 200}``), none twice.
AgentList = Annotated[tuple[Agent, ...], BeforeValidator(_agents), AfterValidator(_once)]
Agents = Annotated[AgentList, Field(min_length=1)]


class EvalConfig(cfg.Settings):
    """A validated evaluation run (:meth:`from_mapping` makes one with every check)."""

    game: cfg.Game = Field("tripeaks", description="tripeaks (tp) or fortythieves (ft)")
    rules: cfg.Rules = Field(None, validate_default=True, description="the deal codes' rule letter: TriPeaks E (Easy, "
                         "K-A adjacent, the default) or C (Classic); Forty Thieves N")  # fmt: skip
    env: cfg.Env = Field({}, description="gym.make keywords that change the game: TriPeaks draw, faces, waste_start, "
                     "jokers, scoring; Forty Thieves foundation_return, scoring, max_repeats; "
                     "both max_episode_steps")  # fmt: skip
    deals: cfg.Whole1 = Field(100, description="how many deal codes: the first drawn from seed (deals.draw_codes)")
    seed: cfg.Whole0 = Field(0, description="the seed of the deal codes and of the agents")
    workers: cfg.OptWhole1 = Field(None, description="worker processes or Ray actors (null: all cores)")
    backend: Literal["process", "ray"] = Field("process", description="a local process pool, or a Ray cluster")
    ray_address: cfg.PathStr = Field(
        None, description="backend ray: the cluster to join (default RAY_ADDRESS or local)"
    )
    record: cfg.PathStr = Field(None, description="a folder for one JSON record per episode (see replay)")
    out: cfg.PathStr = Field(None, description="a folder for results.json, summary.csv, pairs.csv and episodes.csv")
    plot: cfg.PathStr = Field(None, description="an image file of the win rates (its extension names the format)")
    compare: Literal["best", "all"] = Field("best", description="paired tests: each agent against the best, or all")
    agents: Agents = Field((AgentSpec("random"),), description="the agents: NAME, NAME:KEY=VALUE,... or a mapping "
                           "with name and options")  # fmt: skip

    _rules = field_validator("rules", mode="before")(cfg.rule_letter)

    @field_validator("env")
    @classmethod
    def _env(cls, env: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if "game" not in info.data:
            return env
        cfg.raise_all(cfg.env_problems(env, info.data["game"], game_spec(info.data["game"]).env_options))
        if (info.context or {}).get("deep"):  # make the env once: a bad value fails here, naming the keyword
            import gymnasium as gym

            import solitaire_env  # noqa: F401  (registers the envs)

            try:
                gym.make(ENV_IDS[info.data["game"]], **env).close()
            except (ValueError, TypeError) as error:
                cfg.fail(" ".join(str(error).split()))
        return env

    _ray = field_validator("ray_address")(cfg.ray_only)

    @field_validator("agents")
    @classmethod
    def _agents(cls, agents: tuple[AgentSpec, ...], info: ValidationInfo) -> tuple[AgentSpec, ...]:
        if "game" in info.data and (info.context or {}).get("check_agents"):
            cfg.raise_all(agent_problems(info.data["game"], agents))
        return agents

    @classmethod
    def from_mapping(cls, data: Any, source: str | None = None, *, check_agents: bool = True) -> EvalConfig:
        """Validate ``data`` (absent keys take their defaults).  ``check_agents`` also looks every
        agent up in the registry, checks its model file (if an option names one) and builds it
        once, so that an unknown name, a bad option or a missing file fails here, before any work."""
        return cfg.validate(cls, data, source, check_agents=check_agents)

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
            raise cfg.config_error(found, where)

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
