"""TriPeaks terminal play: the session the ``play`` verb runs.

:class:`PlaySession`: arrows move between the cards that can be removed now, Enter or Space
removes the card under the cursor, or a slot number then Enter; the keys every game shares
(D draw, U undo, H hint, N new deal, R restart, Esc, ?, Q) and the front ends are in
:mod:`solitaire_env.common.tty`.
"""

from __future__ import annotations

import numpy as np

from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.render import symbol
from solitaire_env.common.tty import Session, bracket, hint_message, rule_words
from solitaire_env.hints import Hint, hint
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import REASONS, TriPeaksGame
from solitaire_env.tripeaks.render import COLUMNS, tripeaks_ansi
from solitaire_env.tripeaks.rules import DRAW, NUM_SLOTS, ROW_OF, TriPeaksRules
from solitaire_env.tripeaks.scoring import TriPeaksScoring, get_scoring

#: The key summary shown under the TriPeaks board (two lines, within :data:`WIDTH`).
KEYS_LINE = (
    "keys: arrows pick a card  Enter/Space remove it  or a slot number 0-27 Enter\n"
    "      D draw  U undo  H hint  N new deal  R restart  Esc close  ? help  Q quit"
)
#: The longer TriPeaks help shown by ``?``.
HELP_TEXT = (
    "←/→ next removable card left/right, ↑/↓ one up/down a row; Enter or Space removes it; "
    "or type a slot number (0-27, 28 = draw) and Enter; D draw, U undo, H hint, N new deal, "
    "R restart this deal, Esc close, Q quit"
)


def tp_hint(game: TriPeaksGame) -> tuple[Hint, str]:
    """The hint for a TriPeaks position and its status line."""
    h = hint(game)
    if h.action is None or h.action == DRAW:
        return h, hint_message(h, "draw", "D")
    view = game.public_view()["tableau"][h.action]
    return h, hint_message(h, f"remove {symbol(view)} (slot {h.action})", "Enter")


def hint_text(game: TriPeaksGame) -> str:
    """The hint line for the position of ``game`` (see :func:`solitaire_env.hints.hint`)."""
    return tp_hint(game)[1]


def rules_text(rules: TriPeaksRules, scoring: TriPeaksScoring) -> str:
    """The rule options in words: ``"Easy (K-A adjacent), draw anytime, app scoring"``."""
    parts = ["Easy (K-A adjacent)" if rules.wrap else "Classic (K-A not adjacent)", f"draw {rules.draw}"]
    if rules.faces == "open":
        parts.append("all cards face up")
    if rules.waste_start == "empty":
        parts.append("empty waste at start")
    if rules.jokers:
        parts.append(f"{rules.jokers} joker{'s' if rules.jokers > 1 else ''}")
    return rule_words(parts, rules.undo_limit, scoring.name)


class PlaySession(Session):
    """One TriPeaks play session: the game, a cursor over removable cards, a message line.

    ``deal`` is played under ``rules`` (for a deal from a code, pass rules whose ``wrap``
    matches the code's rule letter).  ``rng`` draws the codes of new deals (key ``n``).
    """

    TITLE = "TriPeaks"
    DRAW = DRAW
    REASONS = REASONS
    KEYS_LINE = KEYS_LINE
    HELP_TEXT = HELP_TEXT

    game: TriPeaksGame

    def __init__(
        self,
        deal: TriPeaksDeal,
        rules: TriPeaksRules | None = None,
        scoring: str | TriPeaksScoring = "app",
        rng: np.random.Generator | None = None,
    ) -> None:
        self.rules = rules if rules is not None else TriPeaksRules()
        self.scoring = get_scoring(scoring)
        super().__init__(deal, rng)

    def _new_game(self, deal: TriPeaksDeal) -> TriPeaksGame:
        return TriPeaksGame(deal, self.rules, self.scoring)

    def _random_deal(self) -> tuple[TriPeaksDeal, DealCode]:
        code = random_code("TP", self.rules.rule_letter, self.rng)
        return TriPeaksDeal.from_seed(code.seed, jokers=self.rules.jokers, rule=code.rule), code

    def removable_slots(self) -> list[int]:
        """Slots whose card can be removed now, in screen order (left to right, then top down)."""
        mask = self.game.removable() if not self.game.over else 0
        slots = [s for s in range(NUM_SLOTS) if mask >> s & 1]
        return sorted(slots, key=lambda s: (COLUMNS[s], ROW_OF[s]))

    def _fix_cursor(self) -> None:
        """Keep the cursor on its card if still removable, else move it to the nearest removable one."""
        self._keep_cursor(
            self.removable_slots(), lambda s, c: abs(COLUMNS[s] - COLUMNS[c]) + 4 * abs(ROW_OF[s] - ROW_OF[c])
        )

    def _card(self, slot: int) -> str:
        """What the player sees of a slot, with the suit symbol (a back if face down)."""
        return symbol(self.game.public_view()["tableau"][slot])

    # ------------------------------------------------------------------ keys

    def _game_key(self, key: str) -> bool:
        if key.isdigit() and len(key) == 1:
            self.pending = (self.pending + key)[-2:]
            self.message = f"slot {self.pending}_  (Enter removes it, Esc cancels)"
            return True
        if key == "backspace":
            self.pending = self.pending[:-1]
            self.message = f"slot {self.pending}_  (Enter removes it, Esc cancels)" if self.pending else ""
            return True
        if key in ("enter", "space"):
            pending, self.pending = self.pending, ""
            if pending:
                self._play_slot_number(int(pending))
            elif self.cursor is not None:
                self._play(self.cursor)
            elif self.game.over:
                self.message = REASONS["game_over"]
            else:
                self.message = "no card can be removed now: press D to draw"
            return True
        if key in ("left", "right", "up", "down"):
            self.pending = ""
            self._move(key)
            return True
        return False

    def _hint(self) -> str:
        """Hint: the suggested card gets the cursor (so Enter plays it); the line names it."""
        h, text = tp_hint(self.game)
        if h.action is not None and h.action != DRAW:
            self.cursor = h.action
        return text

    def _play_slot_number(self, number: int) -> None:
        if number > DRAW:
            self.message = f"no slot {number}: slots are 0-27 (28 draws)"
            return
        if number != DRAW:
            self.cursor = number if number in self.removable_slots() else self.cursor
        self._play(number)

    def _describe(self, action: int) -> str:
        if action == DRAW:
            return "draw"
        view = self.game.public_view()["tableau"][action]
        return f"remove slot {action}" if view in (None, "??") else f"remove {symbol(view)} (slot {action})"

    def _played(self, action: int, what: str) -> str:
        game = self.game
        if action == DRAW:
            return f"drew {symbol(game.public_view()['waste'])}, {game.stock_count} left in the stock"
        return f"{what.replace('remove', 'removed', 1)}, chain {game.chain}"

    def _move(self, key: str) -> None:
        slots = self.removable_slots()
        if self.cursor is None or not slots:
            self.message = "no card can be removed now" + ("" if self.game.over else ": press D to draw")
            return
        cur = self.cursor
        if key in ("left", "right"):
            self._step_cursor(slots, key)
            return
        row = ROW_OF[cur]
        rows = [ROW_OF[s] for s in slots]
        target_rows = [r for r in rows if (r < row if key == "up" else r > row)]
        if not target_rows:
            self.message = f"no removable card further {key}"
            return
        target = max(target_rows) if key == "up" else min(target_rows)
        self.cursor = min((s for s in slots if ROW_OF[s] == target), key=lambda s: (abs(COLUMNS[s] - COLUMNS[cur]), s))

    # ------------------------------------------------------------------ drawing

    def board(self) -> str:
        """The ansi board with the cursor's card in brackets: ``[6♠]``."""
        lines = tripeaks_ansi(self.game.public_view()).split("\n")
        if self.cursor is not None:
            row = ROW_OF[self.cursor]
            lines[row] = bracket(lines[row], COLUMNS[self.cursor])
        return "\n".join(lines)

    def cursor_line(self) -> str | None:
        if self.cursor is not None:
            return f"  cursor: {self._card(self.cursor)} (slot {self.cursor}): Enter or Space removes it"
        if not self.game.over:
            return "  cursor: none, no card can be removed: D draws"
        return None

    def rules_line(self) -> str:
        return rules_text(self.rules, self.scoring)

    def progress_text(self) -> str:
        return f"cleared {self.game.cleared}/{NUM_SLOTS}"

    def line_keys(self, line: str) -> list[str]:
        return line_keys(line)


def line_keys(line: str) -> list[str]:
    """TriPeaks key names in one input line: tokens split on blanks; a number is that slot then Enter."""
    keys: list[str] = []
    for token in line.split():
        if token.isdigit():
            keys.extend([*token, "enter"])
        else:
            keys.append(token)
    return keys
