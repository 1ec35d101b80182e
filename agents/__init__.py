"""Agents for solitaire_env games, and the evaluation harness (SPEC section 7).

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
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
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

#: The module paths from before the agents moved into ``players/``, ``evaluation/`` and
#: ``training/`` (issue 20), and where each module is now.  ``import agents.rollout`` still works
#: and hands out the very module ``agents.players.rollout`` (one module object, so patching or
#: pickling through either path is the same); README's "Moved modules" lists them.
MOVED_MODULES = {
    "agents.random": "agents.players.random",
    "agents.heuristics": "agents.players.heuristics",
    "agents.heuristics.tripeaks": "agents.players.heuristics.tripeaks",
    "agents.heuristics.fortythieves": "agents.players.heuristics.fortythieves",
    "agents.rollout": "agents.players.rollout",
    "agents._playout": "agents.players.playouts",
    "agents.pimc": "agents.players.pimc",
    "agents.oracle": "agents.players.oracle",
    "agents.ppo": "agents.players.ppo",
    "agents.config": "agents.evaluation.config",
    "agents.backends": "agents.evaluation.backends",
    "agents.records": "agents.evaluation.records",
    "agents.train": "agents.training.train",
    "agents.train_config": "agents.training.config",
    "agents.train_callbacks": "agents.training.callbacks",
    "agents.train_eval": "agents.training.evaluations",
    "agents.train_outputs": "agents.training.outputs",
    "agents.train_signals": "agents.training.signals",
    "agents.pretrain": "agents.training.pretrain",
    "agents.afterstate": "agents.training.afterstate",
    "agents.features": "agents.training.features",
    "agents.advice": "agents.training.advice",
    "agents.shaping": "agents.training.shaping",
    "agents.move_values": "agents.training.move_values",
    "agents.symmetry": "agents.training.symmetry",
}
# (``agents.evaluation``, the old harness module, is now the package of that name; its names
# are still found there: see agents/evaluation/__init__.py.)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path of :data:`MOVED_MODULES` as the module at its new path."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED_MODULES[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is already imported."""


if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModuleFinder())

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
