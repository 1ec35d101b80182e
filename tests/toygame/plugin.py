"""What the package asks of Toy: the :class:`~solitaire_env.common.plugin.GamePlugin`
operations, for its row (:data:`toygame.spec.TOY`)."""

from __future__ import annotations

import argparse
import re
from typing import Any

import numpy as np

from solitaire_env.common.cards import card_text, parse_card, rank_of
from solitaire_env.common.result import SolveResult
from solitaire_env.common.tty import Session
from toygame.deal import ToyDeal
from toygame.game import ToyGame
from toygame.knowledge import ToyKnowledge, toy_knowledge
from toygame.render import toy_ansi
from toygame.rules import DRAW, NUM_PILES, NUM_RANKS, REDEAL, WASTE, ToyRules
from toygame.solver import solve_toy

DRAW_ACTION = DRAW
PROGRESS_TOTAL = NUM_RANKS
PROGRESS_VERBS = ("stacked", "stacks")
WARM_UP_NODES = 1
CLI_OPTIONS: tuple[tuple[str, str], ...] = ()

_STACK = re.compile(r"stack\s+(\S+)\s+from\s+(?:pile\s+(\d)|the\s+waste)", re.IGNORECASE)


def forced_rules(deal: ToyDeal) -> dict[str, tuple[Any, str]]:
    """A deal decides no rule option."""
    return {}


def solve(game: ToyGame, *, max_nodes: int | None, max_seconds: float | None) -> SolveResult:
    return solve_toy(game, max_nodes=max_nodes, max_seconds=max_seconds)


hint_search = solve


def knowledge(game: ToyGame) -> ToyKnowledge:
    return toy_knowledge(game)


def advice(knowledge: ToyKnowledge) -> int | None:
    """A pile's card to the foundation (it may turn a card up), else the waste's, else draw,
    else redeal; ``None`` when no move is legal."""
    legal = knowledge.legal
    for action in (*range(NUM_PILES), WASTE, DRAW, REDEAL):
        if action in legal:
            return action
    return None


def plan(game: ToyGame, *, max_nodes: int | None, max_seconds: float | None) -> None:
    """No planner: with cards unseen the hint is the heuristic's move."""
    return None


def board(view: dict[str, Any]) -> str:
    return toy_ansi(view)


def deal_lines(deal: ToyDeal, letter: str, *, full: bool) -> list[str]:
    lines = ["rules:  S, the toy's: 4 piles of 2, a stock of 5, one redeal", ""]
    if full:
        lines.append("FULL DEAL: every card face up (not what the player sees)")
        lines += [f"  pile {p + 1}: {' '.join(card_text(c) for c in pile)}" for p, pile in enumerate(deal.piles)]
        lines.append(f"  stock (in draw order): {' '.join(card_text(c) for c in deal.stock)}")
    else:
        lines.append("board at the start, as the player sees it:")
        lines += ["", *toy_ansi(ToyGame(deal).public_view()).rstrip("\n").split("\n")]
    return lines


def rules_text(game: ToyGame, letter: str) -> str:
    return f"S (the toy's); {game.rules.redeals} redeal(s)"


def move_forms() -> str:
    return "'draw', 'redeal', or 'stack <card> from pile <n>' / 'stack <card> from the waste'"


def parse_move(game: ToyGame, words: str) -> int | None:
    if words.lower() == "redeal":
        return REDEAL
    m = _STACK.fullmatch(words)
    if m is None:
        return None
    card, pile = parse_card(m.group(1)), m.group(2)
    action = WASTE if pile is None else int(pile) - 1
    if not 0 <= action <= WASTE:
        raise ValueError(f"no pile {pile}: piles are 1-{NUM_PILES}")
    top = game.waste_top if action == WASTE else (game.piles[action][-1] if game.piles[action] else None)
    if top is not None and rank_of(top) != rank_of(card):
        raise ValueError(f"the top card there is {card_text(top)}, not {card_text(card)}")
    return action


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    return {}


def rules_of_args(args: argparse.Namespace, deal: ToyDeal, letter: str) -> ToyRules:
    return ToyRules()


def check_args(args: argparse.Namespace) -> None:
    scoring = getattr(args, "scoring", None)
    if scoring not in (None, "app"):
        raise ValueError(f"--scoring {scoring} is a TriPeaks preset; Toy has its own scoring only")


def session(deal: ToyDeal, rules: ToyRules, args: argparse.Namespace, rng: np.random.Generator) -> Session:
    from toygame.session import ToySession

    return ToySession(deal, rules, rng)
