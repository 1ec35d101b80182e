"""The hint (docs/hints.md): one move worth trying, and a verdict that never peeks.

:func:`hint` answers with a :class:`Hint`: a suggested env action, a verdict (``"winnable"``,
``"unwinnable"`` or ``"unknown"``), a line, a short reason and the action in words.

* **Every card known** (``game.all_known``: every face-down card was turned and every stock card
  drawn at least once, undo included): the full-information solver runs from the position.
  ``solved`` gives ``"winnable"`` and its winning line; ``unsolvable`` (an exhausted search)
  gives ``"unwinnable"`` and the line that clears / founds the most cards; ``intractable`` (the
  budget ran out) gives ``"unknown"`` and the normal advice below, never ``"unwinnable"``.
* **Some card unseen**: the verdict is ``"unknown"`` and the move comes from what the player
  has seen.  TriPeaks: a heuristic (below).  It cannot read hidden cards: each game's knowledge
  (:func:`game_knowledge`: ``tripeaks_knowledge``, ``fortythieves_knowledge``) copies the seen
  facts out of the game (every never-seen card becomes a placeholder, ``0``), and the heuristics read nothing but
  that copy.  Forty Thieves (only the stock's order is unseen): the fair planner's move
  (:mod:`solitaire_env.fortythieves.planning`, the ``planner`` agent's turn search: the plan up to
  the next draw that does best on sampled stock orders), its plan as ``line``; a safe foundation
  move or the only legal move is given at once.  The samples are drawn from the public position
  (:func:`~solitaire_env.fortythieves.planning.public_rng`) and replace the stock's true order,
  which is never read.  It takes a few tenths of a second (docs/hints.md gives the figures);
  ``plan=False`` gives the heuristic's move at once instead.  Either way the answer is the same
  whatever the unseen cards are.

The heuristics (also usable as agents through :func:`public_move`):

* TriPeaks: :func:`solitaire_env.tripeaks.advice.tripeaks_advice`;
* Forty Thieves: :func:`solitaire_env.fortythieves.advice.fortythieves_advice`
  (the heuristics and their order of preference are described there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from solitaire_env.common.budget import StoppedBy, search_budget
from solitaire_env.games import spec_of
from solitaire_env.solving import RulesArgument, as_game

__all__ = [
    "REASON_BUDGET",
    "REASON_HIDDEN",
    "REASON_NO_WIN",
    "REASON_OVER",
    "REASON_PLAN",
    "REASON_WIN",
    "REASON_WON",
    "Hint",
    "Verdict",
    "game_knowledge",
    "hint",
    "public_advice",
    "public_move",
]

Verdict = Literal["winnable", "unwinnable", "unknown"]

REASON_WON = "the game is won"
REASON_WIN = "every card is known and a winning line was found"
REASON_NO_WIN = "every card is known and no line wins from here"
REASON_BUDGET = "the search ran out of budget: normal advice"
REASON_HIDDEN = "cards are still hidden: advice from what you have seen"
REASON_PLAN = "cards are still hidden: the plan to the next draw that did best on sampled stock orders"
REASON_OVER = "no move is legal: the game is over"


@dataclass(frozen=True)
class Hint:
    """What :func:`hint` says about a position.

    - ``action``: the env action worth trying, or ``None`` when no move is legal.
    - ``verdict``: ``"winnable"`` (a winning line was found with every card known, or the game
      is already won), ``"unwinnable"`` (every card is known and an exhausted search found no
      win), or ``"unknown"`` (cards are still hidden, or the search ran out of budget).
    - ``line``: env actions from the position: the winning line when winnable, the line that
      clears / founds the most cards when unwinnable, the plan up to and including the next draw
      when the Forty Thieves planner chose the move (:data:`REASON_PLAN`), else empty.
    - ``reason``: a short sentence saying why (one of the ``REASON_*`` constants).
    - ``name``: ``action`` in words (``game.action_name``), or ``"no move"``.
    - ``nodes``: positions the solver expanded (0 when it did not run; with the planner, its
      searches on the sampled stock orders).
    - ``stopped_by``: what ended the search (:mod:`solitaire_env.common.budget`): the
      full-information search's ``"won"``, ``"proved"``, ``"nodes"`` or ``"seconds"``; the
      planner's ``"nodes"`` (every search ran to its end or its node budget) or ``"seconds"``
      (the time budget left searches out); ``None`` when no search ran (a heuristic's move, a
      won game, no legal move).
    """

    action: int | None
    verdict: Verdict
    line: tuple[int, ...]
    reason: str
    name: str
    nodes: int = 0
    stopped_by: StoppedBy | None = None


# ---------------------------------------------------------------------- the hint


def game_knowledge(game: Any) -> Any:
    """The public information of ``game`` (its plugin's ``knowledge``: ``TriPeaksKnowledge``,
    ``FortyThievesKnowledge``): what the player has seen, never a hidden card."""
    return spec_of(game).plugin.knowledge(game)


def public_advice(k: Any) -> int | None:
    """The heuristic's move from a knowledge object (``None`` when it has none)."""
    return spec_of(k).plugin.advice(k)


def public_move(game: Any) -> int | None:
    """The heuristic's move from what the player has seen (``None`` when it has none).

    The same whatever the unseen cards are: it reads the game only through
    :func:`game_knowledge`.  The move is always legal.
    """
    try:
        k = game_knowledge(game)
    except TypeError:
        raise TypeError(f"public_move() takes a game, not {type(game).__name__}") from None
    action = public_advice(k)
    if action is not None and not k.legal_mask >> action & 1:  # pragma: no cover - a bug if it happens
        raise AssertionError(f"the heuristic suggested an illegal move {action} ({game.action_name(action)})")
    return action


def _make(
    game: Any,
    action: int | None,
    verdict: Verdict,
    reason: str,
    line: tuple[int, ...] = (),
    nodes: int = 0,
    stopped_by: StoppedBy | None = None,
) -> Hint:
    name = game.action_name(action) if action is not None else "no move"
    return Hint(action, verdict, tuple(line), reason, name, nodes, stopped_by)


def _plan(game: Any, max_nodes: int | None, max_seconds: float | None) -> Hint | None:
    """The game's planner's move with cards unseen (``None``: the game has no planner)."""
    if not game.legal_mask():
        return _make(game, None, "unknown", REASON_OVER)
    found = spec_of(game).plugin.plan(game, max_nodes=max_nodes, max_seconds=max_seconds)
    if found is None:
        return None
    moves, nodes, stop = found
    if stop is None:  # a forced move: no search ran
        return _make(game, moves[0], "unknown", REASON_HIDDEN)
    return _make(game, moves[0], "unknown", REASON_PLAN, moves, nodes, stop)


def hint(
    game: Any,
    *,
    rules: RulesArgument = None,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    plan: bool = True,
) -> Hint:
    """One move worth trying from ``game``'s position, and whether the position can be won.

    ``game`` is a rules-core game, :class:`~solitaire_env.tripeaks.game.TriPeaksGame` or
    :class:`~solitaire_env.fortythieves.game.FortyThievesGame` (e.g. ``env.unwrapped.game``), or
    a deal code, a deal string or a deal (its starting position; a code's rule letter sets the
    K-A wrap, ``rules`` the other rule options: see :func:`solitaire_env.solving.as_game`).
    The budget (:mod:`solitaire_env.common.budget`): when every card is known, the solver's
    ``max_nodes`` and ``max_seconds``, whichever runs out first (one alone is the only limit;
    neither: :data:`~solitaire_env.common.budget.DEFAULT_MAX_NODES` nodes).  Forty Thieves with
    cards unseen: ``max_nodes`` is each of the planner's searches' budget (``None``: the
    ``planner`` agent's, :data:`~solitaire_env.fortythieves.planning.DEFAULT_PLANNING`) and
    ``max_seconds`` the whole turn search's (``None``: no time limit).  ``stopped_by`` says
    what ended the search.
    ``plan``: Forty Thieves with cards unseen, the planner's move (``True``) or the heuristic's
    (``False``, instant).  The game is not changed.

    The verdict is ``"unwinnable"`` only when every card is known and the solver exhausted the
    search; a spent budget and hidden cards both give ``"unknown"`` with the heuristic's move.
    """
    game = as_game(game, rules=rules, caller="hint")
    budget = search_budget(max_nodes, max_seconds)
    if game.won:
        return _make(game, None, "winnable", REASON_WON)
    if not isinstance(plan, bool):
        raise TypeError(f"plan must be True or False, got {plan!r}")
    if not game.all_known:
        # cards are hidden: public advice only (the solver, an oracle, is never given the
        # true unseen cards; the planner searches sampled stock orders in their place)
        planned = _plan(game, max_nodes, max_seconds) if plan else None
        if planned is not None:
            return planned
        action = public_move(game)
        return _make(game, action, "unknown", REASON_HIDDEN if action is not None else REASON_OVER)
    result = spec_of(game).plugin.hint_search(game, max_nodes=budget.nodes, max_seconds=budget.seconds)
    stop = result.stopped_by
    if result.status == "solved":
        line = tuple(result.line)
        return _make(game, line[0] if line else None, "winnable", REASON_WIN, line, result.nodes, stop)
    if result.status == "unsolvable":
        line = tuple(result.line)
        action = line[0] if line else public_move(game)
        return _make(game, action, "unwinnable", REASON_NO_WIN, line, result.nodes, stop)
    action = public_move(game)
    reason = REASON_BUDGET if action is not None else REASON_OVER
    return _make(game, action, "unknown", reason, (), result.nodes, stop)
