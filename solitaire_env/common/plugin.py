"""What the rest of the package asks of a game: the :class:`GamePlugin` protocol.

Every game's folder has a ``plugin`` module that implements it (module-level constants and
functions), and its row of :mod:`solitaire_env.games` names that module
(:attr:`~solitaire_env.games.GameSpec.plugin`).  The top-level modules (``solving``, ``hints``,
``text``, ``deal_args``, ``solvability``) and the command line call these and never ask which game
they have.  A game's objects (game, deal, rules, knowledge) are typed ``Any`` here: each game's
module works on its own classes.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from solitaire_env.common.budget import StoppedBy
    from solitaire_env.common.result import SolveResult
    from solitaire_env.common.tty import Session

__all__ = ["GamePlugin", "Plan"]

#: A plan of moves found with cards unseen: (the moves, positions searched, what stopped the
#: search: ``None`` for a forced move, found with no search).
Plan = tuple[tuple[int, ...], int, "StoppedBy | None"]


class GamePlugin(Protocol):
    """The operations of one game (its ``plugin`` module)."""

    #: The env action that draws from the stock: the highest action number; a draw puts the
    #: drawn card on ``game.waste[-1]`` (the command line's words rely on both).
    DRAW_ACTION: int
    #: The cards a won game has cleared / founded (``game.progress`` at a win).
    PROGRESS_TOTAL: int
    #: The progress verb, done and now: ``("cleared", "clears")``.
    PROGRESS_VERBS: tuple[str, str]
    #: The node budget that loads every compiled search kernel of the game's solver.
    WARM_UP_NODES: int
    #: The command-line options of this game only: (attribute, option).
    CLI_OPTIONS: tuple[tuple[str, str], ...]

    def forced_rules(self, deal: Any) -> dict[str, tuple[Any, str]]:
        """The rule options a deal decides, each with why (a code's rule letter, its jokers)."""

    def solve(self, game: Any, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
        """The full-information search of ``game``'s position."""

    def hint_search(self, game: Any, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
        """The search a hint runs when every card is known (its unsolvable line goes furthest)."""

    def knowledge(self, game: Any) -> Any:
        """What the player has seen of ``game`` (never a hidden card)."""

    def advice(self, knowledge: Any) -> int | None:
        """The heuristic's move from a knowledge object (``None`` when it has none)."""

    def plan(self, game: Any, *, max_nodes: int | None, max_seconds: float | None) -> Plan | None:
        """A planner's move with cards unseen, or ``None`` when the game has no planner (the
        heuristic's move is then the hint)."""

    def board(self, view: dict[str, Any]) -> str:
        """The board of a public view (``game.public_view()``) in ANSI text."""

    def deal_lines(self, deal: Any, letter: str, *, full: bool) -> list[str]:
        """What ``deal`` prints after the code and game lines: rules, board, with ``full`` every card."""

    def rules_text(self, game: Any, letter: str) -> str:
        """The rules ``game`` plays by, in one line (after ``rules:``)."""

    def move_forms(self) -> str:
        """The forms a move may be typed in: ``'draw', or 'remove <card> (slot <n>)'``."""

    def parse_move(self, game: Any, words: str) -> int | None:
        """The env action a move's words name (``None`` when they are not a move's form)."""

    def rule_options(self, args: argparse.Namespace) -> dict[str, Any]:
        """The rule options the command line's options give (as ``make_game`` takes them)."""

    def rules_of_args(self, args: argparse.Namespace, deal: Any, letter: str) -> Any:
        """The rules a deal is played by under the command line's options."""

    def check_args(self, args: argparse.Namespace) -> None:
        """Refuse an option value this game does not take (a ``ValueError``)."""

    def session(self, deal: Any, rules: Any, args: argparse.Namespace, rng: np.random.Generator) -> Session:
        """The terminal session of ``play``."""
