"""Agent specs: an agent by registry name and constructor options, written ``NAME`` or
``NAME:KEY=VALUE,...`` on the command line (values typed as in YAML) or as a mapping with ``name``
in a config (:class:`AgentSpec`, :func:`parse_agent_spec`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from agents.settings import ConfigError

__all__ = ["AgentSpec", "parse_agent_spec"]


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
