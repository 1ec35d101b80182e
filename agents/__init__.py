"""Agents for solitaire_env games, and the evaluation harness.

What a user reaches for is offered here::

    import agents

    agents.agent_names("tripeaks")                       # ['hint', 'longest_chain', ...]
    agent = agents.make_agent("rollout", "tripeaks", samples=200)
    result = agents.evaluate(game="tripeaks", deals=100, agents=["random", "hint"])
    print(result.table())

- :func:`make_agent`, :func:`agent_names`, :func:`agent_options`, :func:`agent_class`,
  :class:`UnknownAgentError`, :class:`AgentOptionError` (``agents.registry``);
- :func:`evaluate` (the function ``solitaire-env eval`` calls), :class:`EvalConfig`,
  :class:`EvalResult` (``agents.evaluation.harness``, ``agents.evaluation.config``);
- the interface: :class:`Agent`, :class:`PublicState`, :func:`public_state`, :func:`observe`,
  :func:`decide` (``agents.base``).

Every name is imported on first use (module ``__getattr__``), so ``import agents`` imports
nothing heavy: no torch, no numba, not even ``solitaire_env``.  ``agents.evaluate`` is the
function, also after ``import agents.evaluate`` elsewhere; reach the module's other names with
``from agents.evaluation.harness import ...``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.base import Agent, EnvOutput, PublicState, decide, env_output, observe, public_state
    from agents.evaluation.config import EvalConfig
    from agents.evaluation.harness import EvalResult, evaluate
    from agents.registry import (
        AgentOptionError,
        UnknownAgentError,
        agent_class,
        agent_names,
        agent_options,
        make_agent,
    )

#: Name -> the module that defines it (imported when the name is first used).
_LAZY = {
    "Agent": "agents.base",
    "PublicState": "agents.base",
    "decide": "agents.base",
    "observe": "agents.base",
    "public_state": "agents.base",
    "EnvOutput": "agents.base",
    "env_output": "agents.base",
    "make_agent": "agents.registry",
    "agent_names": "agents.registry",
    "agent_options": "agents.registry",
    "agent_class": "agents.registry",
    "UnknownAgentError": "agents.registry",
    "AgentOptionError": "agents.registry",
    "evaluate": "agents.evaluation.harness",
    "EvalResult": "agents.evaluation.harness",
    "EvalConfig": "agents.evaluation.config",
}

__all__ = [
    "Agent",
    "AgentOptionError",
    "EnvOutput",
    "EvalConfig",
    "EvalResult",
    "PublicState",
    "UnknownAgentError",
    "agent_class",
    "agent_names",
    "agent_options",
    "decide",
    "env_output",
    "evaluate",
    "make_agent",
    "observe",
    "public_state",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
