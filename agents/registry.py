"""Agents by name: :func:`make_agent` builds one, :func:`agent_names` lists them.

Every concrete :class:`~agents.base.Agent` subclass defined in the modules of ``AGENT_MODULES``
is registered under its ``name`` for each game in its ``games``; a name may stand for different
classes in different games (``"random"`` plays both).  Modules are imported on first use, so
``import agents`` stays light (no numba, no torch).

An agent's options are its constructor's keyword parameters after ``game`` and ``seed``
(:func:`agent_options`); :func:`make_agent` checks the names and the values' types against
that signature before building the agent (:class:`AgentOptionError`, one line).
"""

from __future__ import annotations

import importlib
import inspect
import numbers
import types
import typing
from typing import Any

from agents.base import Agent
from solitaire_env.games import GAMES, GameName

#: The modules that define agents (a missing optional one is skipped: see ``_load``).
AGENT_MODULES = (
    "agents.players.random",
    "agents.players.heuristics.tripeaks",
    "agents.players.heuristics.fortythieves",
    "agents.players.rollout",
    "agents.players.pimc",
    "agents.players.planner",
    "agents.players.oracle",
    "agents.players.ppo",
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


#: Agents whose constructor passes its ``**keywords`` on to another function: the class's
#: qualified name -> ``"module:function"`` of that function, whose keyword parameters are then
#: the agent's further options (the TriPeaks rollout's base-policy weights).
FORWARDED_OPTIONS = {
    "agents.players.rollout.TriPeaksRollout": "agents.players.playouts:policy_params",
    "agents.players.rollout.TriPeaksBase": "agents.players.playouts:policy_params",
    "agents.players.rollout.TriPeaksBaseNet": "agents.players.playouts:policy_params",
    "agents.players.rollout.TriPeaksRolloutNet": "agents.players.playouts:policy_params",
}


class AgentOptionError(ValueError):
    """An option an agent does not take, or a value of the wrong type (the message names the
    agent, the option and what the agent takes)."""


def _check_game(game: object) -> GameName:
    """``game`` if it is a game's name (``"tripeaks"``; agents take names, not code letters)."""
    names = [g.name for g in GAMES]
    if game not in names:
        raise ValueError(f"game: want {' or '.join(map(repr, names))}, got {game!r}")
    return game


def agent_names(game: GameName | None = None) -> list[str]:
    """The registered agent names for a game, sorted (``None``: for either game)."""
    if game is None:
        return sorted({name for name, _ in _load()})
    _check_game(game)
    return sorted(name for name, g in _load() if g == game)


def agent_class(name: str, game: GameName = "tripeaks") -> type[Agent]:
    """The class registered as ``name`` for ``game``; :class:`UnknownAgentError` if none."""
    _check_game(game)
    cls = _load().get((name, game))
    if cls is None:
        other = [g.name for g in GAMES if g.name != game and (name, g.name) in _load()]
        plays = f" (it plays {other[0]} only)" if other else ""
        raise UnknownAgentError(f"unknown agent {name!r} for {game}{plays}; known: {', '.join(agent_names(game))}")
    return cls


def _hints(function: Any) -> dict[str, Any]:
    """The resolved annotations of ``function`` ({} when they cannot be resolved)."""
    try:
        return typing.get_type_hints(function)
    except Exception:  # an annotation that names something not importable: no type checks
        return {}


def _forwarded(cls: type[Agent]) -> Any:
    """The function ``cls`` passes its ``**keywords`` to (:data:`FORWARDED_OPTIONS`), or ``None``."""
    forward = FORWARDED_OPTIONS.get(f"{cls.__module__}.{cls.__qualname__}")
    if forward is None:
        return None
    module_name, _, function_name = forward.partition(":")
    return getattr(importlib.import_module(module_name), function_name)


def _option_table(cls: type[Agent]) -> tuple[dict[str, tuple[Any, Any]], bool]:
    """``({option: (type, default)}, open_ended)``: the keyword options of ``cls``'s constructor
    beyond ``game`` and ``seed`` (type ``typing.Any`` when unannotated, default ``None`` when
    there is none), and whether it also takes keywords that cannot be listed (a ``**keywords``
    not in :data:`FORWARDED_OPTIONS`)."""
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    hints = _hints(cls.__init__)
    table: dict[str, tuple[Any, Any]] = {}
    open_ended = False

    def add(param: inspect.Parameter, hint: Any) -> None:
        default = None if param.default is inspect.Parameter.empty else param.default
        table.setdefault(param.name, (hint, default))

    params = list(inspect.signature(cls).parameters.values())
    for i, param in enumerate(params):
        if (i == 0 and param.kind is not inspect.Parameter.VAR_KEYWORD) or param.name == "seed":
            continue  # the game (passed first, positionally) and the seed are not options
        if param.kind in named:
            add(param, hints.get(param.name, Any))
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            function = _forwarded(cls)
            if function is None:
                open_ended = True
                continue
            inner = _hints(function)
            for p in inspect.signature(function).parameters.values():
                if p.kind in named:
                    add(p, inner.get(p.name, hints.get(param.name, Any)))
    return table, open_ended


def agent_options(name: str, game: GameName = "tripeaks") -> dict[str, Any]:
    """The options of agent ``name`` (keyword -> its default), from its constructor signature
    (and, for the TriPeaks rollout, its base policy's weights: :data:`FORWARDED_OPTIONS`)."""
    table, _ = _option_table(agent_class(name, game))
    return {key: default for key, (_, default) in table.items()}


def _type_text(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join(_type_text(a) for a in args)
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in args)
    if hint is type(None) or hint is None:
        return "None"
    if origin is not None:
        return getattr(origin, "__name__", str(hint))
    return getattr(hint, "__name__", str(hint))


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the annotated type (only simple annotations are checked; an int
    passes for a float; a bool is not a number here)."""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, a) for a in args)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if hint is type(None) or hint is None:
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if isinstance(origin, type):
        return isinstance(value, origin)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # a construct we do not check (a type variable, a protocol ...)


def check_options(name: str, game: GameName, options: dict[str, Any]) -> None:
    """Raise :class:`AgentOptionError` for an option agent ``name`` does not take (naming the
    options it does take) or a value of the wrong type (naming the type it wants)."""
    cls = agent_class(name, game)
    table, open_ended = _option_table(cls)
    if not open_ended:
        bad = sorted(k for k in options if k not in table)
        if bad:
            takes = f"it takes {', '.join(table)}" if table else "it takes no options"
            raise AgentOptionError(
                f"agent {name!r}: bad options {bad}: no such option{'s' if len(bad) > 1 else ''}; {takes}"
            )
    for key, value in options.items():
        hint = table[key][0] if key in table else Any
        if not _fits(value, hint):
            raise AgentOptionError(
                f"agent {name!r}: bad options [{key!r}]: {key} must be {_type_text(hint)}, "
                f"got {value!r} ({type(value).__name__})"
            )


def make_agent(name: str, game: GameName = "tripeaks", seed: int = 0, **options: Any) -> Agent:
    """Build the agent ``name`` for ``game`` with its options (e.g. ``samples=200``).

    An unknown name raises :class:`UnknownAgentError` (listing the known names); an option the
    agent does not take, or a value of the wrong type, :class:`AgentOptionError` (naming the
    options the agent takes, from its constructor signature: :func:`agent_options`).
    """
    cls = agent_class(name, game)
    check_options(name, game, options)
    try:
        return cls(game, seed=seed, **options)
    except TypeError as error:
        if not options:
            raise
        raise AgentOptionError(f"agent {name!r}: bad options {sorted(options)}: {error}") from None
