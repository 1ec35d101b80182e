"""The heuristics the hint benchmark scores, by name: a registered agent or user code.

- ``NAME`` or ``NAME:KEY=VALUE,...``: the registered agent (:func:`agents.make_agent`; the same
  spec as ``solitaire-env eval --agents``), asked for its move at each position with
  :func:`agents.base.decide` (only the oracle sees the game);
- ``MODULE:FUNCTION`` (no ``=`` after the colon): user code, ``FUNCTION(state)`` taking the
  :class:`~agents.base.PublicState` and returning a legal env action.

Every position is asked about on its own: the agent is reset first (no memory of another
position), and a move that is not legal raises ``ValueError`` naming the heuristic.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agents.base import Game, GameName, decide, public_state
from agents.evaluation.specs import parse_agent_spec
from agents.hintbench.positions import Position, position_game
from agents.registry import make_agent

__all__ = ["Heuristic", "heuristic", "heuristic_choices", "heuristic_name"]


@dataclass(frozen=True)
class Heuristic:
    """A heuristic's name (as given) and how it picks a move in a game reached by actions."""

    name: str
    choose: Callable[[Game, tuple[int, ...]], int]


def _user_function(text: str) -> Callable[..., int]:
    module_name, _, function_name = text.partition(":")
    try:
        module = importlib.import_module(module_name.strip())
    except ImportError as error:
        raise ValueError(f"heuristic {text!r}: cannot import module {module_name.strip()!r} ({error})") from None
    name = function_name.strip()
    function = getattr(module, name, None)
    if not callable(function):
        raise ValueError(f"heuristic {text!r}: module {module_name.strip()!r} has no function {name!r}")
    return function


def _is_user_code(text: str) -> bool:
    _, colon, rest = text.partition(":")
    return bool(colon) and "=" not in rest


def heuristic_name(spec: str) -> str:
    """How tables and files name the heuristic ``spec`` (without building it)."""
    text = spec.strip()
    return text if _is_user_code(text) else parse_agent_spec(text, "heuristic").key


def heuristic(spec: str, game: GameName, seed: int = 0) -> Heuristic:
    """The heuristic ``spec`` names (see the module docstring) for ``game``."""
    text = spec.strip()
    if _is_user_code(text):
        function = _user_function(text)
        return Heuristic(text, lambda g, actions: int(function(public_state(g, actions))))
    parsed = parse_agent_spec(text, "heuristic")
    agent = make_agent(parsed.name, game, seed=seed, **parsed.kwargs)

    def choose(g: Game, actions: tuple[int, ...]) -> int:
        agent.reset()
        return decide(agent, g, actions)

    return Heuristic(parsed.key, choose)


def heuristic_choices(h: Heuristic, positions: Sequence[Position]) -> list[int]:
    """``h``'s move at each position (each replayed from its deal)."""
    out = []
    for i, position in enumerate(positions):
        game = position_game(position)
        action = int(h.choose(game, position.actions))
        if not game.legal_mask() >> action & 1:
            raise ValueError(f"heuristic {h.name!r} chose illegal move {action} at position {i} ({position.deal})")
        out.append(action)
    return out
