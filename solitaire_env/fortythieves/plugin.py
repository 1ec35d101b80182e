"""What the rest of the package asks of Forty Thieves: the
:class:`~solitaire_env.common.plugin.GamePlugin` operations (solve, hint and its planner, the
command line's words and drawing, the terminal session), for the row of :mod:`solitaire_env.games`."""

from __future__ import annotations

import argparse
import re
import time
from typing import TYPE_CHECKING, Any

from solitaire_env.common.cards import card_text, parse_card
from solitaire_env.common.render import symbol
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.render import fortythieves_ansi
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    TOTAL_CARDS,
    WASTE,
    FortyThievesRules,
)

if TYPE_CHECKING:
    import numpy as np

    from solitaire_env.common.budget import StoppedBy
    from solitaire_env.common.plugin import Plan
    from solitaire_env.common.result import SolveResult
    from solitaire_env.common.tty import Session
    from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge

DRAW_ACTION = DRAW
PROGRESS_TOTAL = TOTAL_CARDS
PROGRESS_VERBS = ("founded", "founds")
#: Enough nodes to reach the beam, so that its kernels are loaded too.
WARM_UP_NODES = 3000
CLI_OPTIONS = (("foundation_return", "--foundation-return"),)
#: Stock cards per line in ``deal --open``.
STOCK_PER_LINE = 16

_PLACE = r"column\s+\d+|waste|foundation(?:\s+\d+)?"
_MOVE = re.compile(rf"move\s+(.+?)\s+from\s+({_PLACE})\s+to\s+({_PLACE})", re.IGNORECASE)


def forced_rules(deal: FortyThievesDeal) -> dict[str, tuple[Any, str]]:
    """A deal decides no rule option."""
    return {}


def solve(game: FortyThievesGame, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
    from solitaire_env.fortythieves.solver import solve_fortythieves

    return solve_fortythieves(game, max_nodes=max_nodes, max_seconds=max_seconds)


hint_search = solve


def knowledge(game: FortyThievesGame) -> FortyThievesKnowledge:
    from solitaire_env.fortythieves.knowledge import fortythieves_knowledge

    return fortythieves_knowledge(game)


def advice(knowledge: FortyThievesKnowledge) -> int | None:
    from solitaire_env.fortythieves.advice import fortythieves_advice

    return fortythieves_advice(knowledge)


def plan(game: FortyThievesGame, *, max_nodes: int | None, max_seconds: float | None) -> Plan | None:
    """The fair planner's plan up to the next draw (the ``planner`` agent's turn search on
    sampled stock orders, drawn from the public position); a forced move (a safe foundation
    move, the only legal move) at once, with no search (``stopped_by`` ``None``)."""
    from solitaire_env.fortythieves.planning import DEFAULT_PLANNING, forced_move, plan_turn, public_rng

    move = forced_move(game)
    if move is not None:
        return (move,), 0, None
    nodes = max_nodes if max_nodes is not None else int(DEFAULT_PLANNING["root_nodes"])
    stats: dict[str, int] = {}
    plans = plan_turn(
        game, public_rng(game), samples=int(DEFAULT_PLANNING["samples"]), root_nodes=nodes,
        eval_nodes=nodes if max_nodes is not None else int(DEFAULT_PLANNING["eval_nodes"]),
        intractable=float(DEFAULT_PLANNING["intractable"]), stats=stats,
        deadline=None if max_seconds is None else time.perf_counter() + max_seconds,
    )  # fmt: skip
    stop: StoppedBy = "seconds" if stats["skipped"] else "nodes"
    return tuple(plans[0].moves), stats["nodes"], stop


def board(view: dict[str, Any]) -> str:
    return fortythieves_ansi(view)


def deal_lines(deal: FortyThievesDeal, letter: str, *, full: bool) -> list[str]:
    """Rules and the opening board (all 10 columns face up, stock count, empty waste and
    foundations); with ``full``, the stock in draw order too, labelled as hidden information."""
    lines = ["rules:  N, the app's: 2 decks, 10 columns of 4 face up, a 64-card stock drawn once"]
    drawn = fortythieves_ansi(FortyThievesGame(deal).public_view()).rstrip("\n").split("\n")
    counters = max(i for i, line in enumerate(drawn) if not line.strip())  # the blank line before the counters
    lines += ["", "board at the start, as the player sees it:", "", *drawn[:counters]]
    if full:
        lines += [
            "",
            f"HIDDEN: the stock, face down, in draw order ({len(deal.stock)} cards; not what the player sees):",
        ]
        for i in range(0, len(deal.stock), STOCK_PER_LINE):
            part = deal.stock[i : i + STOCK_PER_LINE]
            cards = " ".join(symbol(card_text(c)) for c in part)
            lines.append(f"  {i + 1:>2}-{i + len(part):<2}  {cards}")
    return lines


def rules_text(game: FortyThievesGame, letter: str) -> str:
    return f"N (the app's); foundation return {'on' if game.rules.foundation_return else 'off'}"


def move_forms() -> str:
    return "'draw', or 'move <card> from <place> to <place>'"


def _place(text: str, *, dest: bool) -> int:
    """A place of an action name: ``column 3``, ``waste``, ``foundation 2`` (a source),
    ``foundation`` (the destination)."""
    words = text.lower().split()
    if words[0] == "column" and 1 <= int(words[1]) <= NUM_COLUMNS:
        return int(words[1]) - 1
    if dest:
        if words == ["foundation"]:
            return FOUNDATION
        raise ValueError(f"a move goes to 'column 1'-'column 10' or 'foundation', not {text!r}")
    if words == ["waste"]:
        return WASTE
    if words[0] == "foundation" and len(words) == 2 and 1 <= int(words[1]) <= 8:
        return FIRST_FOUNDATION_SRC + int(words[1]) - 1
    raise ValueError(
        f"a move comes from 'column 1'-'column 10', 'waste' or 'foundation 1'-'foundation 8', not {text!r}"
    )


def parse_move(game: FortyThievesGame, words: str) -> int | None:
    """``move <card> from <place> to <place>`` (``the top card`` for any card)."""
    m = _MOVE.fullmatch(words)
    if m is None:
        return None
    card_word, src_word, dst_word = m.groups()
    src, dst = _place(src_word, dest=False), _place(dst_word, dest=True)
    if card_word.lower() != "the top card":
        card = parse_card(card_word)
        top = game.source_card(src)
        if top is not None and top != card:
            raise ValueError(f"the card on top of {src_word.lower()} is {card_text(top)}, not {card_text(card)}")
    return src * NUM_DESTS + dst


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--foundation-return on|off`` where given, as a rule option."""
    value = getattr(args, "foundation_return", None)
    return {} if value is None else {"foundation_return": value == "on"}


def rules_of_args(args: argparse.Namespace, deal: FortyThievesDeal, letter: str) -> FortyThievesRules:
    """The :func:`rule_options`; the defaults for the other options."""
    return FortyThievesRules(**rule_options(args))


def check_args(args: argparse.Namespace) -> None:
    """Forty Thieves has the app's scoring only."""
    scoring = getattr(args, "scoring", None)
    if scoring not in (None, "app"):
        raise ValueError(f"--scoring {scoring} is a TriPeaks preset; Forty Thieves has app scoring only")


def session(
    deal: FortyThievesDeal, rules: FortyThievesRules, args: argparse.Namespace, rng: np.random.Generator
) -> Session:
    from solitaire_env.fortythieves.session import FortyThievesSession

    return FortyThievesSession(deal, rules, rng=rng)
