"""The position set of the hint benchmark: positions along a reference player's episodes.

A :class:`Position` is a deal code, the rule options beyond the code's letter and the actions
played from the deal: replaying them through the rules core (:func:`position_game`) gives the
same position in any process, so one position set scores every heuristic.

:func:`sample_positions` plays a reference agent (any registered agent, :func:`agents.make_agent`)
on each deal code through the rules core and keeps the positions where the player has a choice
(two legal moves or more), every ``every``-th of them from the first, at most ``per_deal`` per
deal.  An episode ends when the game is over, after the env's step limit, or (Forty Thieves) at a
position's third occurrence, as in the env.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from agents.base import Agent, Game, decide
from solitaire_env.common.deals import parse_deal_code
from solitaire_env.dealing import make_game
from solitaire_env.games import game_spec

__all__ = ["Position", "position_game", "sample_positions"]

#: A Forty Thieves episode ends at a position's third occurrence (the env's ``max_repeats``).
MAX_REPEATS = 3


class Position(NamedTuple):
    """A position: ``deal`` (a deal code), ``rules`` (rule options beyond the code's letter, as
    sorted ``(name, value)`` pairs) and ``actions`` (env actions from the deal)."""

    deal: str
    rules: tuple[tuple[str, Any], ...]
    actions: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "rules": dict(self.rules), "actions": list(self.actions)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Position:
        """The inverse of :meth:`to_json`; a malformed entry raises ``ValueError`` saying what."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a position is an object with deal, rules and actions, got {data!r}")
        deal, rules, actions = data.get("deal"), data.get("rules", {}), data.get("actions")
        if not isinstance(deal, str):
            raise ValueError(f"a position's deal must be a deal code string, got {deal!r}")
        if not isinstance(rules, Mapping):
            raise ValueError(f"a position's rules must be an object of rule options, got {rules!r}")
        if not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
            raise ValueError(f"a position's actions must be a list of whole numbers, got {actions!r}")
        position = cls(deal, tuple(sorted(rules.items())), tuple(actions))
        position_game(position)  # the code parses and every action is legal, or ValueError
        return position


def position_game(position: Position) -> Game:
    """The position's game: the deal under its rules, its actions replayed through the rules core.
    An action that is not legal where it is played raises ``ValueError``."""
    game = make_game(position.deal, dict(position.rules))
    for i, action in enumerate(position.actions):
        if not game.legal_mask() >> action & 1:
            raise ValueError(
                f"{position.deal}: action {i} ({action}) is not legal there ({game.illegal_reason(action)})"
            )
        game.play(action)
    return game


def _episode(agent: Agent, game: Game, max_steps: int) -> Iterable[tuple[Game, tuple[int, ...]]]:
    """The positions of one episode of ``agent`` from ``game`` (changed in place), with the
    actions that led to each, the first before any move."""
    actions: list[int] = []
    seen: Counter[int] = Counter()
    agent.reset()
    while not game.over and len(actions) < max_steps:
        key = getattr(game, "position_hash", None)  # the games that can repeat a position have one
        if key is not None:
            seen[key] += 1
            if seen[key] >= MAX_REPEATS:
                return
        yield game, tuple(actions)
        action = decide(agent, game, actions)
        game.play(action)
        actions.append(action)


def sample_positions(
    deals: Iterable[str],
    reference: Agent,
    *,
    rules: Mapping[str, Any] | None = None,
    every: int = 1,
    per_deal: int | None = None,
) -> list[Position]:
    """The positions with a choice along ``reference``'s episode on each deal, in deal order.

    ``every``: keep every ``every``-th position with two legal moves or more (from the first);
    ``per_deal``: at most this many per deal (``None``: no cap).  ``rules``: rule options beyond
    the codes' letters, the same for every deal.
    """
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every must be a whole number >= 1, got {every!r}")
    if per_deal is not None and (isinstance(per_deal, bool) or not isinstance(per_deal, int) or per_deal < 1):
        raise ValueError(f"per_deal must be None or a whole number >= 1, got {per_deal!r}")
    options = tuple(sorted((rules or {}).items()))
    out: list[Position] = []
    for code in deals:
        spec = game_spec(parse_deal_code(code).game)
        if spec.name != reference.game:
            raise ValueError(f"deal {code} is {spec.name} but the reference agent plays {reference.game}")
        game = make_game(code, dict(options))
        kept = choices = 0
        for position, actions in _episode(reference, game, spec.max_episode_steps):
            if len(position.legal_actions()) < 2:
                continue
            choices += 1
            if (choices - 1) % every:
                continue
            out.append(Position(str(code), options, actions))
            kept += 1
            if per_deal is not None and kept >= per_deal:
                break
    return out
