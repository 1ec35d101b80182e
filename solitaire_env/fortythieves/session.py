"""Forty Thieves terminal play (the app's conveniences): the session the ``play`` verb runs,
and the app's tap and double-click targets.

:class:`FortyThievesSession`: ← → move a cursor over the sources (columns 1-10, the waste,
the foundations when cards may come back from them), Enter is the app's double click on the
cursor's card (:func:`double_click_action`) and Space its tap (:func:`tap_action`); typed
moves name a source (``1``-``9``, ``0`` = column 10, ``w`` waste, ``f`` and 1-8 a foundation)
then a destination (a column key, or ``f`` the foundations): ``3 5``, ``w f``, ``f2 7``.  The
keys every game shares and the front ends are in :mod:`solitaire_env.common.tty`.
"""

from __future__ import annotations

import re

import numpy as np

from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.render import symbol
from solitaire_env.common.tty import Session, bracket, hint_message, rule_words
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import REASONS, FortyThievesGame
from solitaire_env.fortythieves.render import fortythieves_ansi
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    TOTAL_CARDS,
    WASTE,
    FortyThievesRules,
    FortyThievesScoring,
    builds_on,
    get_scoring,
)
from solitaire_env.hints import hint

#: The key summary shown under the Forty Thieves board (two lines, within :data:`WIDTH`).
FT_KEYS_LINE = (
    "keys: left/right cursor  Enter double-click  Space tap  moves 3 5 · w f · f2 7\n"
    "      D draw  U undo  H hint  N new deal  R restart  Esc close  ? help  Q quit"
)
#: The longer Forty Thieves help shown by ``?``.
FT_HELP_TEXT = (
    "←/→ move the cursor over columns 1-10, the waste and the foundations; Enter = double click "
    "(to a foundation, else the longest column that takes it, else an empty one); Space = tap "
    "(to a foundation, and the waste card also to a column); or type a source (1-9, 0 = column 10, "
    "w waste, f1-f8 a foundation) then a destination (1-9, 0, f = foundation): 3 5, w f, f2 7; "
    "Backspace/Esc cancel; D draw, U undo, H hint, N new deal, R restart this deal, Q quit"
)


def ft_rules_text(rules: FortyThievesRules, scoring: FortyThievesScoring) -> str:
    """The Forty Thieves rule options in words."""
    back = "cards may come back from the foundations" if rules.foundation_return else "no foundation return"
    return rule_words([back], rules.undo_limit, scoring.name)


# ---------------------------------------------------------------------- the app's tap and double click


def accepting_columns(game: FortyThievesGame, card: int, exclude: int) -> tuple[list[int], list[int]]:
    """The columns (but ``exclude``) that take ``card``: those it builds on, and the empty ones."""
    building, empty = [], []
    for j, col in enumerate(game.columns):
        if j == exclude:
            continue
        if not col:
            empty.append(j)
        elif builds_on(card, col[-1]):
            building.append(j)
    return building, empty


def tap_action(game: FortyThievesGame, src: int) -> int | None:
    """Where a tap sends the top card of ``src`` (as in the app): a foundation; for the waste card,
    a foundation, else a column (one it builds on, else an empty one, leftmost first)."""
    card = game.source_card(src)
    if card is None or game.won:
        return None
    if src < FIRST_FOUNDATION_SRC and game.foundation_for(card) is not None:
        return src * NUM_DESTS + FOUNDATION
    if src == WASTE:
        building, empty = accepting_columns(game, card, -1)
        for j in building + empty:
            return src * NUM_DESTS + j
    return None


def double_click_action(game: FortyThievesGame, src: int) -> int | None:
    """Where a double click sends the top card of ``src`` (as in the app): a foundation, else the
    longest column that accepts it (leftmost on a tie), else an empty column."""
    card = game.source_card(src)
    if card is None or game.won:
        return None
    if src >= FIRST_FOUNDATION_SRC and not game.rules.foundation_return:
        return None
    if src < FIRST_FOUNDATION_SRC and game.foundation_for(card) is not None:
        return src * NUM_DESTS + FOUNDATION
    building, empty = accepting_columns(game, card, src if src < NUM_COLUMNS else -1)
    if building:
        longest = max(building, key=lambda j: (len(game.columns[j]), -j))
        return src * NUM_DESTS + longest
    if empty:
        return src * NUM_DESTS + empty[0]
    return None


# ---------------------------------------------------------------------- Forty Thieves

#: Sources in cursor order: columns 0-9, the waste, foundations 11-18.
FT_SOURCES = tuple(range(FIRST_FOUNDATION_SRC + NUM_FOUNDATIONS))


def ft_place(src: int) -> str:
    """A source in words: ``"column 3"``, ``"the waste"``, ``"foundation 2"``."""
    if src < NUM_COLUMNS:
        return f"column {src + 1}"
    if src == WASTE:
        return "the waste"
    return f"foundation {src - FIRST_FOUNDATION_SRC + 1}"


def ft_key(index: int, *, dest: bool = False) -> str:
    """The key(s) that type a source (or, with ``dest``, a destination): ``3``, ``0``, ``w``, ``f2``, ``f``."""
    if index < NUM_COLUMNS:
        return str((index + 1) % 10)
    if dest:
        return "f"
    if index == WASTE:
        return "w"
    return f"f{index - FIRST_FOUNDATION_SRC + 1}"


def ft_dest(dst: int) -> str:
    return "the foundations" if dst == FOUNDATION else f"column {dst + 1}"


class FortyThievesSession(Session):
    """One Forty Thieves play session: a cursor over the sources, the app's double
    click (Enter) and tap (Space), and typed moves: a source key then a destination key.

    Source keys: ``1``-``9`` and ``0`` (column 10), ``w`` (the waste), ``f`` then ``1``-``8``
    (a foundation).  Destination keys: a column key or ``f`` (the foundations).  A source key
    selects that source (and puts the cursor on its card); Enter or Space then acts on it.
    ``rng`` draws the codes of new deals (key ``n``).
    """

    TITLE = "Forty Thieves"
    DRAW = DRAW
    REASONS = REASONS
    KEYS_LINE = FT_KEYS_LINE
    HELP_TEXT = FT_HELP_TEXT

    game: FortyThievesGame

    def __init__(
        self,
        deal: FortyThievesDeal,
        rules: FortyThievesRules | None = None,
        scoring: str | FortyThievesScoring = "app",
        rng: np.random.Generator | None = None,
    ) -> None:
        self.rules = rules if rules is not None else FortyThievesRules()
        self.scoring = get_scoring(scoring)
        super().__init__(deal, rng)

    def _new_game(self, deal: FortyThievesDeal) -> FortyThievesGame:
        return FortyThievesGame(deal, self.rules, self.scoring)

    def _random_deal(self) -> tuple[FortyThievesDeal, DealCode]:
        code = random_code("FT", "N", self.rng)
        return FortyThievesDeal.from_seed(code.seed), code

    # ------------------------------------------------------------------ cursor

    def cursor_sources(self) -> list[int]:
        """Sources the cursor visits, in screen order: columns with a card, the waste if it has
        one, then (when cards may come back from them) the foundations with a card."""
        game = self.game
        if game.won:
            return []
        last = FIRST_FOUNDATION_SRC + NUM_FOUNDATIONS if self.rules.foundation_return else FIRST_FOUNDATION_SRC
        return [s for s in range(last) if game.source_card(s) is not None]

    def _fix_cursor(self) -> None:
        """Keep the cursor on its source if it still has a card, else move it to the nearest one."""
        self._keep_cursor(self.cursor_sources(), lambda s, c: abs(s - c))

    def _card(self, src: int) -> str:
        card = self.game.source_card(src)
        return symbol(card_text(card)) if card is not None else "--"

    # ------------------------------------------------------------------ keys

    def _pending_src(self) -> int | None:
        """The source the typed keys have selected, or ``None`` (nothing, or ``f`` without its number)."""
        p = self.pending
        if p.isdigit():
            return (int(p) - 1) % 10
        if p == "w":
            return WASTE
        if len(p) == 2 and p[0] == "f":
            return FIRST_FOUNDATION_SRC + int(p[1]) - 1
        return None

    def _select(self, pending: str) -> None:
        self.pending = pending
        src = self._pending_src()
        if src is None:
            self.message = "from foundation f_: type its number 1-8 (Esc cancels)"
            return
        if src in self.cursor_sources():
            self.cursor = src
        self.message = (
            f"move from {ft_place(src)} ({self._card(src)}) to _: a column 1-9, 0 = 10, or f the foundations; "
            "Enter double-clicks, Space taps, Esc cancels"
        )

    def _game_key(self, key: str) -> bool:
        pending = self.pending
        src = self._pending_src()
        if len(key) == 1 and key.isdigit():
            if pending == "f":
                if key in "12345678":
                    self._select("f" + key)
                else:
                    self.message = "foundations are numbered 1-8 (Esc cancels)"
            elif src is not None:
                self.pending = ""
                self._play(src * NUM_DESTS + (int(key) - 1) % 10)
            else:
                self._select(key)
            return True
        if key == "f":
            if src is not None:
                self.pending = ""
                self._play(src * NUM_DESTS + FOUNDATION)
            elif pending == "f":
                self.message = "from foundation f_: type its number 1-8 (Esc cancels)"
            else:
                self._select("f")
            return True
        if key == "w":
            self._select("w")
            return True
        if key == "backspace":
            if len(pending) == 2:
                self._select(pending[0])
            else:
                self.pending = ""
                self.message = ""
            return True
        if key in ("enter", "space"):
            self.pending = ""
            if pending == "f":
                self.message = "type the foundation's number 1-8, then where it goes"
                return True
            target = src if src is not None else self.cursor
            self._convenience(target, double=key == "enter")
            return True
        if key in ("left", "right"):
            self.pending = ""
            sources = self.cursor_sources()
            if self.cursor is None or not sources:
                self.message = "no card to move" + ("" if self.game.over else ": press D to draw")
            else:
                self._step_cursor(sources, key)
            return True
        if key in ("up", "down"):
            self.pending = ""
            self.message = "← → move the cursor (columns 1-10, the waste, the foundations)"
            return True
        return False

    def _convenience(self, src: int | None, *, double: bool) -> None:
        """The app's double click (``double``) or tap on the top card of ``src``."""
        name = "double click" if double else "tap"
        if self.game.won:
            self.message = self.REASONS["game_over"]
            return
        if src is None:
            self.message = "no card to move" + ("" if self.game.over else ": press D to draw")
            return
        if self.game.source_card(src) is None:
            self.message = f"can't {name} {ft_place(src)}: {self.REASONS['nothing_to_move']}"
            return
        action = double_click_action(self.game, src) if double else tap_action(self.game, src)
        if action is None:
            self.message = f"{name}: {self._card(src)} on {ft_place(src)} {self._nowhere(src, double)}"
            return
        self._play(action)

    def _nowhere(self, src: int, double: bool) -> str:
        if src >= FIRST_FOUNDATION_SRC and not self.rules.foundation_return:
            return f"stays: {self.REASONS['return_not_allowed']}"
        if double:
            return "has nowhere to go: no foundation or column takes it"
        if src == WASTE:
            return "has nowhere to go: no foundation or column takes it"
        if src >= FIRST_FOUNDATION_SRC:
            return "stays: a tap does not move foundation cards (Enter, or type f<n> and a column)"
        return "can't go to a foundation yet (a tap only sends column cards to the foundations)"

    def _hint(self) -> str:
        """Hint: the cursor goes to the suggested move's source; the line names the move and
        the keys that type it (the app has no hint; this package offers one anyway)."""
        h = hint(self.game)
        if h.action is None or h.action == self.DRAW:
            return hint_message(h, "draw", "D")
        src, dst = divmod(h.action, NUM_DESTS)
        if src in self.cursor_sources():
            self.cursor = src
        return hint_message(h, self._describe(h.action), f"type {ft_key(src)} {ft_key(dst, dest=True)}")

    def _describe(self, action: int) -> str:
        if action == self.DRAW:
            return "draw"
        src, dst = divmod(action, NUM_DESTS)
        card = self.game.source_card(src)
        if card is None:
            return f"move from {ft_place(src)} to {ft_dest(dst)}"
        return f"move {symbol(card_text(card))} from {ft_place(src)} to {ft_dest(dst)}"

    def _played(self, action: int, what: str) -> str:
        game = self.game
        if action == self.DRAW:
            return f"drew {symbol(card_text(game.waste[-1]))}, {game.stock_count} left in the stock"
        return what.replace("move", "moved", 1)

    # ------------------------------------------------------------------ drawing

    def board(self) -> str:
        """The ansi board with the cursor's card in brackets: ``[6♠]``."""
        lines = fortythieves_ansi(self.game.public_view()).split("\n")
        src = self.cursor
        if src is None:
            return "\n".join(lines)
        if src < NUM_COLUMNS:
            header = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s*1\s+2\s.*\s10", line))
            x = [m.end() - 2 for m in re.finditer(r"\d+", lines[header])][src]
            row = header + len(self.game.columns[src])
            lines[row] = bracket(lines[row], x)
        elif src == WASTE:
            i = next(i for i, line in enumerate(lines) if re.search(r"\bwaste \(\d+\)", line))
            lines[i] = bracket(lines[i], len(lines[i].rstrip()) - 2)
        else:
            i = next(i for i, line in enumerate(lines) if line.lstrip().startswith("foundations"))
            x = [m.start() for m in re.finditer(r"\S+", lines[i])][1 + src - FIRST_FOUNDATION_SRC]
            lines[i] = bracket(lines[i], x)
        return "\n".join(lines)

    def _where(self, action: int | None) -> str:
        if action is None:
            return "nowhere"
        return f"to {ft_dest(action % NUM_DESTS)}"

    def cursor_line(self) -> str | None:
        src = self.cursor
        if src is None:
            return None if self.game.over else "  cursor: none, no card to move: D draws"
        dbl = self._where(double_click_action(self.game, src))
        tap = self._where(tap_action(self.game, src))
        return f"  cursor: {self._card(src)} on {ft_place(src)}: Enter (double click) {dbl}, Space (tap) {tap}"

    def rules_line(self) -> str:
        return ft_rules_text(self.rules, self.scoring)

    def progress_text(self) -> str:
        return f"founded {self.game.founded}/{TOTAL_CARDS}"

    def line_keys(self, line: str) -> list[str]:
        return ft_line_keys(line)


_FT_MOVE_TOKEN = re.compile(r"(?:[0-9wf])+", re.IGNORECASE)


def ft_line_keys(line: str) -> list[str]:
    """Forty Thieves key names in one input line: tokens split on blanks; ``10`` is column 10
    (key ``0``); a token of move keys is its characters (``f2`` -> ``f``, ``2``; ``35`` ->
    ``3``, ``5``); any other token is a key name (``d``, ``enter``, ``left`` ...)."""
    keys: list[str] = []
    for token in line.split():
        if token == "10":
            keys.append("0")
        elif _FT_MOVE_TOKEN.fullmatch(token):
            keys.extend(token.lower())
        else:
            keys.append(token)
    return keys
