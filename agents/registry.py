"""Agents by name: :func:`make_agent` builds one, :func:`agent_names` lists them.

Every concrete :class:`~agents.base.Agent` subclass defined in the modules of ``AGENT_MODULES``
is registered under its ``name`` for each game in its ``games``; a name may stand for different
classes in different games (``"random"`` plays both).  Modules are imported on first use, so
``import agents`` stays light (no numba, no torch).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from agents.base import Agent, GameName

#: The modules that define agents (a missing optional one is skipped: see ``_load``).
AGENT_MODULES = (
    "agents.random",
    "agents.heuristics.tripeaks",
    "agents.heuristics.fortythieves",
    "agents.rollout",
    "agents.pimc",
    "agents.oracle",
    "agents.ppo",
)

_REGISTRY: dict[tuple[str, GameName], type[Agent]] = {}


class UnknownAgentError(ValueError):
    """An agent name that no registered agent has (for the game asked)."""


def _load() -> dict[tuple[str, GameName], type[Agent]]:
    if _REGISTRY:
        return _REGISTRY
    found: dict[tuple[str, GameName], type[Agent]] = {}
    for module_name in AGENT_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name == module_name:  # not written (yet): skip it
                continue
            raise
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, Agent)
                and not inspect.isabstract(obj)
                and obj.__module__ == module_name
            ):
                for game in obj.games:
                    key = (obj.name, game)
                    if key in found and found[key] is not obj:
                        raise RuntimeError(f"two agents named {obj.name!r} for {game}: {found[key]} and {obj}")
                    found[key] = obj
    _REGISTRY.update(found)
    return _REGISTRY


def agent_names(game: GameName) -> list[str]:
    """The registered agent names for a game, sorted."""
    return sorted(name for name, g in _load() if g == game)


def agent_class(name: str, game: GameName) -> type[Agent]:
    """The class registered as ``name`` for ``game``; :class:`UnknownAgentError` if none."""
    cls = _load().get((name, game))
    if cls is None:
        raise UnknownAgentError(f"unknown agent {name!r} for {game}; known: {', '.join(agent_names(game))}")
    return cls


def make_agent(name: str, game: GameName, seed: int = 0, **options: Any) -> Agent:
    """Build the agent ``name`` for ``game`` with its options (e.g. ``samples=200``)."""
    cls = agent_class(name, game)
    try:
        return cls(game, seed=seed, **options)
    except TypeError as error:
        raise UnknownAgentError(f"agent {name!r}: bad options {sorted(options)}: {error}") from None
