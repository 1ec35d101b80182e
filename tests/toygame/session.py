"""Toy terminal play: keys 1-4 stack the top card of that pile, W the waste's top card, D draws
(or, with the stock empty, redeals); the keys every game shares are
:class:`solitaire_env.common.tty.Session`'s."""

from __future__ import annotations

import numpy as np

from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.tty import Session, hint_message
from solitaire_env.hints import hint
from toygame.deal import ToyDeal
from toygame.game import REASONS, ToyGame
from toygame.render import toy_ansi
from toygame.rules import DRAW, NUM_PILES, NUM_RANKS, REDEAL, WASTE, ToyRules


class ToySession(Session):
    TITLE = "Toy"
    DRAW = DRAW
    REASONS = REASONS
    KEYS_LINE = "keys: 1-4 a pile's card  W the waste's  D draw/redeal  U undo  H hint  N new  R restart  Q quit"
    HELP_TEXT = "1-4 stack that pile's top card, W the waste's; D draws, or redeals once the stock is empty"

    def __init__(self, deal: ToyDeal, rules: ToyRules, rng: np.random.Generator | None = None) -> None:
        self.rules = rules
        super().__init__(deal, rng)

    def _new_game(self, deal: ToyDeal) -> ToyGame:
        return ToyGame(deal, self.rules)

    def _random_deal(self) -> tuple[ToyDeal, DealCode]:
        code = random_code("TY", "S", self.rng)
        return ToyDeal.from_seed(code.seed, rule=code.rule), code

    def _game_key(self, key: str) -> bool:
        if key.isdigit() and 1 <= int(key) <= NUM_PILES:
            self._play(int(key) - 1)
        elif key == "w":
            self._play(WASTE)
        elif key == "d" and not self.game.stock_count and self.game.waste:
            self._play(REDEAL)
        else:
            return False
        return True

    def _describe(self, action: int) -> str:
        return self.game.action_name(action)

    def _played(self, action: int, what: str) -> str:
        return f"{what}" + (" (you won!)" if self.game.won else "")

    def _hint(self) -> str:
        h = hint(self.game)
        if h.action is None:
            return hint_message(h, "", "")
        key = str(h.action + 1) if h.action < NUM_PILES else "W" if h.action == WASTE else "D"
        return hint_message(h, self.game.action_name(h.action), key)

    def board(self) -> str:
        return toy_ansi(self.game.public_view())

    def rules_line(self) -> str:
        return f"rules: {self.rules.redeals} redeal(s)"

    def progress_text(self) -> str:
        return f"stacked {self.game.stacked}/{NUM_RANKS}"
