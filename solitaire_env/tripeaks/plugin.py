"""What the rest of the package asks of TriPeaks: the
:class:`~solitaire_env.common.plugin.GamePlugin` operations (solve, hint, the command line's
words and drawing, the terminal session), for the row of :mod:`solitaire_env.games`."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, Any

from solitaire_env.common.cards import card_text, parse_card
from solitaire_env.common.render import symbol
from solitaire_env.games import TRIPEAKS
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.render import tripeaks_ansi
from solitaire_env.tripeaks.rules import DRAW, NUM_SLOTS, TriPeaksRules

if TYPE_CHECKING:
    import numpy as np

    from solitaire_env.common.plugin import Plan
    from solitaire_env.common.result import SolveResult
    from solitaire_env.common.tty import Session
    from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge

DRAW_ACTION = DRAW
PROGRESS_TOTAL = NUM_SLOTS
PROGRESS_VERBS = ("cleared", "clears")
WARM_UP_NODES = 1
CLI_OPTIONS = (
    ("rules", "--rules"),
    ("jokers", "--jokers"),
    ("draw", "--draw"),
    ("faces", "--faces"),
    ("waste_start", "--waste-start"),
)

_REMOVE = re.compile(r"remove\s+(\S+)(?:\s*\(\s*slot\s+(\d+)\s*\))?", re.IGNORECASE)


def forced_rules(deal: TriPeaksDeal) -> dict[str, tuple[Any, str]]:
    """A deal's jokers, and its code's rule letter (``wrap``)."""
    forced: dict[str, tuple[Any, str]] = {"jokers": (deal.jokers, f"it has {deal.jokers} joker(s)")}
    if deal.code is not None:
        letter = "E (K and A adjacent)" if deal.code.wrap else "C (K and A not adjacent)"
        forced["wrap"] = (deal.code.wrap, f"its rule letter is {letter}")
    return forced


def solve(game: TriPeaksGame, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
    from solitaire_env.tripeaks.solver import solve_tripeaks

    return solve_tripeaks(game, max_nodes=max_nodes, max_seconds=max_seconds)


def hint_search(game: TriPeaksGame, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
    from solitaire_env.tripeaks.solver import solve_tripeaks

    return solve_tripeaks(game, max_nodes=max_nodes, max_seconds=max_seconds, maximise_cleared=True)


def knowledge(game: TriPeaksGame) -> TriPeaksKnowledge:
    from solitaire_env.tripeaks.knowledge import tripeaks_knowledge

    return tripeaks_knowledge(game)


def advice(knowledge: TriPeaksKnowledge) -> int | None:
    from solitaire_env.tripeaks.advice import tripeaks_advice

    return tripeaks_advice(knowledge)


def plan(game: TriPeaksGame, *, max_nodes: int | None, max_seconds: float | None) -> Plan | None:
    """No planner: with cards unseen the hint is the heuristic's move."""
    return None


def board(view: dict[str, Any]) -> str:
    return tripeaks_ansi(view)


def deal_lines(deal: TriPeaksDeal, letter: str, *, full: bool) -> list[str]:
    """Rules, jokers and the board at the start as the player sees it; with ``full``, every card
    face up, the waste and the stock in draw order, labelled as not what the player sees."""
    lines = [f"rules:  {TRIPEAKS.letter_names[letter]}"]
    if deal.jokers:
        lines.append(f"jokers: {deal.jokers} in the stock")
    rules = TriPeaksRules(wrap=letter == "E", jokers=deal.jokers, faces="open" if full else "standard")
    drawn = tripeaks_ansi(TriPeaksGame(deal, rules).public_view()).split("\n")
    lines.append("")
    if full:
        lines.append("FULL DEAL: every card face up, including the 18 that start face down (not what the player sees)")
        lines.append("")
        lines.extend(drawn[:4])
        lines.append("")
        lines.append(f"  waste {symbol(card_text(deal.waste))}")
        stock = " ".join(symbol(card_text(c)) for c in deal.stock)
        lines.append(f"  stock ({len(deal.stock)} cards, in draw order): {stock}")
    else:
        lines.append("board at the start, as the player sees it:")
        lines.append("")
        lines.extend(drawn[:6])
    return lines


def rules_text(game: TriPeaksGame, letter: str) -> str:
    rules = game.rules
    extra = [f"draw {rules.draw}"] if rules.draw != "anytime" else []
    extra += ["all cards face up"] if rules.faces != "standard" else []
    extra += [f"waste start {rules.waste_start}"] if rules.waste_start != "card" else []
    extra += [f"{rules.jokers} joker(s)"] if rules.jokers else []
    return TRIPEAKS.letter_names[letter] + (f"; {', '.join(extra)}" if extra else "")


def move_forms() -> str:
    return "'draw', or 'remove <card> (slot <n>)'"


def parse_move(game: TriPeaksGame, words: str) -> int | None:
    """``remove <card>`` (the first face-up one) or ``remove <card> (slot <n>)``."""
    m = _REMOVE.fullmatch(words)
    if m is None:
        return None
    card_word, slot_word = m.groups()
    card = None if card_word == "??" else parse_card(card_word)
    if slot_word is not None:
        slot = int(slot_word)
        if slot >= NUM_SLOTS:
            raise ValueError(f"no slot {slot}: slots are 0-27")
        up = game.face_up >> slot & 1 and not game.removed >> slot & 1
        if card is not None and up and game.tableau[slot] != card:
            raise ValueError(f"slot {slot} holds {card_text(game.tableau[slot])}, not {card_text(card)}")
        return slot
    if card is None:
        raise ValueError("'remove ??' needs its slot: 'remove ?? (slot <n>)'")
    showing = game.face_up & ~game.removed
    slots = [i for i in range(NUM_SLOTS) if showing >> i & 1 and game.tableau[i] == card]
    if not slots:
        raise ValueError(f"{card_text(card)} is not a face-up card of the board")
    return slots[0]


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--jokers``, ``--draw`` and ``--waste-start`` where given, as rule options."""
    names = ("jokers", "draw", "waste_start")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def rules_of_args(args: argparse.Namespace, deal: TriPeaksDeal, letter: str) -> TriPeaksRules:
    """The rule ``letter``, the deal's own jokers, ``--faces`` where the verb has it and the
    :func:`rule_options`; the other options' defaults."""
    options = rule_options(args)
    options["jokers"] = deal.jokers
    if getattr(args, "faces", None) is not None:
        options["faces"] = args.faces
    return TriPeaksRules(wrap=letter == "E", **options)


def check_args(args: argparse.Namespace) -> None:
    """Every TriPeaks option value is one of the command line's own choices."""


def session(deal: TriPeaksDeal, rules: TriPeaksRules, args: argparse.Namespace, rng: np.random.Generator) -> Session:
    from solitaire_env.tripeaks.session import PlaySession

    return PlaySession(deal, rules, getattr(args, "scoring", None) or "app", rng=rng)
