"""Terminal play of TriPeaks and Forty Thieves: pure, testable sessions and two front ends.

A session holds a game, a cursor, a pending key sequence and a status message.
``handle(key)`` applies one key (a key *name*: ``"d"``, ``"left"``, ``"enter"``, ``"7"`` ...)
and returns ``False`` when the player quits; ``screen()`` draws the board (the game's public
view through :mod:`solitaire_env.render`), the cursor, the deal code and the message.
:class:`Session` is what both games share: the key loop (U undo, N new deal, R restart,
D draw, H hint, Esc close, ? help, Q quit), the status line, the end-of-game exits, the
screen's frame and the summary; each game adds its cursor, its board and its own keys.

* :class:`PlaySession` (TriPeaks, seed 001's keys): arrows move between the cards that can
  be removed now, Enter or Space removes the card under the cursor, or a slot number then
  Enter.
* :class:`FortyThievesSession` (seed 004's conveniences): ← → move a cursor over the
  sources (columns 1-10, the waste, the foundations when cards may come back from them),
  Enter is the app's double click on the cursor's card and Space its tap; typed moves name
  a source (``1``-``9``, ``0`` = column 10, ``w`` waste, ``f`` and 1-8 a foundation) then a
  destination (a column key, or ``f`` the foundations): ``3 5``, ``w f``, ``f2 7``.

Front ends: :func:`run_tty` reads single keys from a terminal (cbreak mode, arrow escape
sequences decoded) and redraws the screen after each; :func:`run_lines` reads key names,
one or more per line, from any text stream (pipes, tests, CI) and prints the screen
after each line.  :func:`run` picks one.  Both print through :func:`write`: every line within
80 columns (:func:`fit` breaks longer ones), suit letters instead of symbols on a stream whose
encoding has none, and the summary line at the end, also on Ctrl-C.
"""

from __future__ import annotations

import io
import os
import re
import select
import signal
import sys
from collections.abc import Iterable, Iterator
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, ClassVar

import numpy as np

from solitaire_env.common.cards import card_text
from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.fortythieves import game as ft_game
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.fortythieves.rules import (
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    TOTAL_CARDS,
    WASTE,
    FortyThievesRules,
    FortyThievesScoring,
)
from solitaire_env.fortythieves.rules import get_scoring as ft_get_scoring
from solitaire_env.hints import Hint, hint
from solitaire_env.render import fortythieves_ansi, symbol, tripeaks_ansi, tripeaks_columns, write_text
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import REASONS, TriPeaksGame
from solitaire_env.tripeaks.rules import DRAW, NUM_SLOTS, ROW_OF, TriPeaksRules
from solitaire_env.tripeaks.scoring import Scoring, get_scoring

if TYPE_CHECKING:
    from solitaire_env.games import Deal

#: The widest line a session prints (screens, summaries, echoed input): longer lines are
#: broken by :func:`fit`.
WIDTH = 80

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
#: Every key name a session understands (after :func:`normalize_key`).
KEY_NAMES = frozenset(
    {"u", "h", "n", "d", "r", "q", "?", "left", "right", "up", "down", "enter", "space", "esc", "backspace", "w", "f"}
    | set("0123456789")
)
_ALIASES = {
    "return": "enter",
    "\n": "enter",
    "\r": "enter",
    " ": "space",
    "escape": "esc",
    "bs": "backspace",
    "quit": "q",
    "exit": "q",
    "undo": "u",
    "hint": "h",
    "new": "n",
    "draw": "d",
    "restart": "r",
    "help": "?",
    "waste": "w",
    "foundation": "f",
}
_COLS = tripeaks_columns()


#: The exits offered with an "unwinnable" hint (seed 001: undo, hint, the same deal, another deal).
HINT_EXITS = "exits: U undo · H hint · R replay same deal · N new deal"


def hint_message(h: Hint, what: str, keys: str) -> str:
    """The status line of a hint: the move in words and the keys that play it, the verdict and
    the reason: ``hint: remove 6♠ (slot 18) [Enter] · unknown: cards are still hidden: ...``."""
    move = f"{what} [{keys}]" if h.action is not None else "no move"
    if h.verdict == "unwinnable":
        best = f"; best try: {move}" if h.action is not None else ""
        return f"hint: unwinnable: {h.reason}{best}; {HINT_EXITS}"
    if h.verdict == "winnable":
        if h.action is None:
            return f"hint: {h.reason}"
        return f"hint: {move} · winnable: {h.reason} ({len(h.line)} moves)"
    return f"hint: {move} · unknown: {h.reason}"


def _tp_hint(game: TriPeaksGame) -> tuple[Hint, str]:
    """The hint for a TriPeaks position and its status line (seed 001)."""
    h = hint(game)
    if h.action is None or h.action == DRAW:
        return h, hint_message(h, "draw", "D")
    view = game.public_view()["tableau"][h.action]
    return h, hint_message(h, f"remove {symbol(view)} (slot {h.action})", "Enter")


def _hint_text(game: TriPeaksGame) -> str:
    """The hint line for the position of ``game`` (see :func:`solitaire_env.hints.hint`)."""
    return _tp_hint(game)[1]


def normalize_key(key: str) -> str:
    """A key name as :meth:`Session.handle` reads it: lower case, aliases resolved."""
    if key in _ALIASES:
        return _ALIASES[key]
    name = key.strip().lower()
    return _ALIASES.get(name, name)


#: Where :func:`fit` prefers to break a long line: after the first of these the line has.
_BREAKS = ("; ", ", ", ": ")


def _fit_line(line: str, width: int) -> list[str]:
    """One line as lines of at most ``width`` columns: broken after the first kind of
    :data:`_BREAKS` the line has (``"; "``, else ``", "``, else ``": "``) where it can, else between
    words (a word longer than a line is cut); continuation lines are indented two columns more
    than the line (past the ``> `` of the message line)."""
    if len(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    more = (indent + ("    " if body.startswith("> ") else "  "))[: width // 2]

    def wrap(text: str, first: str) -> list[str]:
        """``text`` word by word, the first line going on from ``first``; a word longer than a
        line is cut."""
        lines, current = [], first
        for word in text.split():
            while word:
                gap = "" if not current.strip() or current.endswith(" ") else " "
                if len(current + gap + word) <= width:
                    current, word = current + gap + word, ""
                elif current.strip() and len(more + word) <= width:  # on the next line
                    lines.append(current.rstrip())
                    current = more
                else:  # longer than a line: as much as fits here, the rest on the next line
                    room = width - len(current + gap)
                    if room > 0:
                        lines.append(current + gap + word[:room])
                        word = word[room:]
                    else:
                        lines.append(current.rstrip())
                    current = more
        lines.append(current.rstrip())
        return [line for line in lines if line.strip()] or [first.rstrip()]

    sep = next((b for b in _BREAKS if b in body), None)
    if sep is None:
        return wrap(body, indent)
    parts = [p + sep for p in body.split(sep)]
    parts[-1] = parts[-1][: -len(sep)]
    out: list[str] = []
    current = indent
    for part in parts:
        if len((current + part).rstrip()) <= width:
            current += part
        elif len((more + part).rstrip()) <= width:  # fits a line of its own: start one
            if current.strip():
                out.append(current.rstrip())
            current = more + part
        else:  # too long for any line: fill this line and the next ones word by word
            if len(current) > width - 8:  # (hardly any room left on this one)
                out.append(current.rstrip())
                current = more
            *done, current = wrap(part.rstrip(), current)
            out.extend(done)
            current += " " if part.endswith(" ") else ""
    if current.strip():
        out.append(current.rstrip())
    return out


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with every line at most ``width`` columns (see :func:`_fit_line`); a final
    newline is kept."""
    lines = text.split("\n")
    return "\n".join(part for line in lines for part in _fit_line(line, width))


def rules_text(rules: TriPeaksRules, scoring: Scoring) -> str:
    """The rule options in words: ``"Easy (K-A adjacent), draw anytime, app scoring"``."""
    parts = ["Easy (K-A adjacent)" if rules.wrap else "Classic (K-A not adjacent)", f"draw {rules.draw}"]
    if rules.faces == "open":
        parts.append("all cards face up")
    if rules.waste_start == "empty":
        parts.append("empty waste at start")
    if rules.jokers:
        parts.append(f"{rules.jokers} joker{'s' if rules.jokers > 1 else ''}")
    if rules.undo_limit is not None:
        parts.append(f"undo limit {rules.undo_limit}")
    parts.append(f"{scoring.name} scoring")
    return ", ".join(parts)


def ft_rules_text(rules: FortyThievesRules, scoring: FortyThievesScoring) -> str:
    """The Forty Thieves rule options in words."""
    back = "cards may come back from the foundations" if rules.foundation_return else "no foundation return"
    parts = [back]
    if rules.undo_limit is not None:
        parts.append(f"undo limit {rules.undo_limit}")
    parts.append(f"{scoring.name} scoring")
    return ", ".join(parts)


def _bracket(line: str, x: int) -> str:
    """``line`` with the two-character card at text column ``x`` in brackets: ``[6♠]``."""
    line = line.ljust(x + 3)
    return (line[: x - 1] + "[" + line[x : x + 2] + "]" + line[x + 3 :]).rstrip()


# ---------------------------------------------------------------------- the shared session


class Session:
    """What the TriPeaks and Forty Thieves sessions share.

    The key loop (:meth:`handle`: a game's own keys first, then U undo, N new deal,
    R restart, D draw, H hint, Esc close, ? help, Q quit), the status message, the
    end-of-game exits, the screen's frame and the summary line.  A game's session sets the
    class constants and fills in the hooks (``_new_game``, ``_random_deal``, ``_game_key``,
    ``_fix_cursor``, ``_describe``, ``_played``, ``board``, ``cursor_line``, ``rules_line``,
    ``progress_text``, ``line_keys``).
    """

    #: Title at the top of the screen.
    TITLE: ClassVar[str] = ""
    #: The draw action of the game.
    DRAW: ClassVar[int] = -1
    #: The game's reason messages of illegal moves.
    REASONS: ClassVar[dict[str, str]] = {}
    KEYS_LINE: ClassVar[str] = ""
    HELP_TEXT: ClassVar[str] = ""

    game: Any

    def __init__(self, deal: Deal, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()
        self.message = ""
        self.pending = ""
        self.running = True
        self.cursor: int | None = None
        self._start(deal)

    # ------------------------------------------------------------------ state

    @property
    def deal_name(self) -> str:
        """The deal code, or the deal string for a deal written card by card."""
        name: str = self.game.deal.name
        return name

    @property
    def header_name(self) -> str:
        """The deal code, or ``deal string (no code)`` (the summary line gives the whole string)."""
        return str(self.game.deal.code) if self.game.deal.code is not None else "deal string (no code)"

    def _start(self, deal: Deal) -> None:
        self.game = self._new_game(deal)
        self.cursor = None
        self.pending = ""
        self._fix_cursor()

    # ------------------------------------------------------------------ hooks

    def _new_game(self, deal: Any) -> Any:
        raise NotImplementedError

    def _random_deal(self) -> tuple[Deal, DealCode]:
        """A new random deal for key N, drawn from ``self.rng``, and its code."""
        raise NotImplementedError

    def _game_key(self, key: str) -> bool:
        """Apply a key of the game's own (cursor, selection); ``False`` if it is not one."""
        return False

    def _fix_cursor(self) -> None:
        """Put the cursor back on a card it can be on after the position changed."""

    def _describe(self, action: int) -> str:
        """The action in words, before it is played: ``"draw"``, ``"remove 6♠ (slot 18)"``."""
        raise NotImplementedError

    def _played(self, action: int, what: str) -> str:
        """The status message after ``action`` (described as ``what``) was played."""
        raise NotImplementedError

    def _hint(self) -> str:
        return "hint: not available"

    def board(self) -> str:
        """The board with the cursor drawn on it."""
        raise NotImplementedError

    def cursor_line(self) -> str | None:
        """The line under the board naming the cursor's card, or ``None``."""
        return None

    def rules_line(self) -> str:
        raise NotImplementedError

    def progress_text(self) -> str:
        """Progress for the summary: ``"cleared 3/28"``."""
        raise NotImplementedError

    def line_keys(self, line: str) -> list[str]:
        """Key names in one line of :func:`run_lines` input."""
        return line.split()

    # ------------------------------------------------------------------ keys

    def handle(self, key: str) -> bool:
        """Apply one key; ``False`` when the player quits (``q``), else ``True``."""
        key = normalize_key(key)
        if self._game_key(key):
            return True
        self.pending = ""
        if key == "d":
            self._play(self.DRAW)
        elif key == "u":
            if self.game.undo():
                self.message = "undid the last move"
                self._fix_cursor()
            else:
                self.message = "nothing to undo"
        elif key == "h":
            self.message = self._hint()
        elif key == "n":
            deal, code = self._random_deal()
            self._start(deal)
            self.message = f"new deal {code}"
        elif key == "r":
            self._start(self.game.deal)
            self.message = "restarted the same deal"
        elif key == "esc":
            self.message = ""
        elif key == "?":
            self.message = self.HELP_TEXT
        elif key == "q":
            self.running = False
            return False
        else:
            self.message = f"unknown key {key!r}; press ? for help"
        return True

    def _play(self, action: int) -> bool:
        """Play ``action``: the status message says what happened, or the game's reason why not."""
        what = self._describe(action)
        reason = self.game.try_play(action)
        if reason is not None:
            self.message = f"can't {what}: {self.REASONS[reason]}"
            return False
        self.message = self._played(action, what)
        self._fix_cursor()
        return True

    # ------------------------------------------------------------------ drawing

    def end_line(self) -> str | None:
        """The exits offered at the end of a game, or ``None`` while it goes on."""
        if self.game.won:
            return "  exits: N new deal · R replay same deal · U undo · Q quit"
        if self.game.over:
            return "  exits: U undo the last move · R replay same deal · N new deal · Q quit"
        return None

    def screen(self) -> str:
        """Everything the player sees: header with the deal code, board, cursor, exits, message, keys."""
        out = [f"{self.TITLE}  {self.header_name}", f"  {self.rules_line()}", ""]
        out.append(self.board().rstrip("\n"))
        cursor = self.cursor_line()
        if cursor:
            out.append(cursor)
        end = self.end_line()
        if end:
            out.append(end)
        out.append(f"  > {self.message}" if self.message else "  >")
        out.extend(f"  {line}" for line in self.KEYS_LINE.split("\n"))
        return fit("\n".join(out) + "\n")

    def summary(self) -> str:
        """One line for the end of the session (the front ends print it through :func:`fit`, which
        breaks the long deal string of a deal without a code over lines)."""
        g = self.game
        state = "won" if g.won else "no more moves" if g.over else "unfinished"
        return f"{self.deal_name}: {state}, {self.progress_text()}, score {g.score}, moves {g.moves}\n"


# ---------------------------------------------------------------------- TriPeaks


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
        scoring: str | Scoring = "app",
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
        return sorted(slots, key=lambda s: (_COLS[s], ROW_OF[s]))

    def _fix_cursor(self) -> None:
        """Keep the cursor on its card if still removable, else move it to the nearest removable one."""
        slots = self.removable_slots()
        if not slots:
            self.cursor = None
        elif self.cursor not in slots:
            if self.cursor is None:
                self.cursor = slots[0]
            else:
                c0, r0 = _COLS[self.cursor], ROW_OF[self.cursor]
                self.cursor = min(slots, key=lambda s: (abs(_COLS[s] - c0) + 4 * abs(ROW_OF[s] - r0), s))

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
        h, text = _tp_hint(self.game)
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
            i = slots.index(cur)
            self.cursor = slots[(i + (1 if key == "right" else -1)) % len(slots)]
            return
        row = ROW_OF[cur]
        rows = [ROW_OF[s] for s in slots]
        target_rows = [r for r in rows if (r < row if key == "up" else r > row)]
        if not target_rows:
            self.message = f"no removable card further {key}"
            return
        target = max(target_rows) if key == "up" else min(target_rows)
        self.cursor = min((s for s in slots if ROW_OF[s] == target), key=lambda s: (abs(_COLS[s] - _COLS[cur]), s))

    # ------------------------------------------------------------------ drawing

    def board(self) -> str:
        """The ansi board with the cursor's card in brackets: ``[6♠]``."""
        lines = tripeaks_ansi(self.game.public_view()).split("\n")
        if self.cursor is not None:
            row = ROW_OF[self.cursor]
            lines[row] = _bracket(lines[row], _COLS[self.cursor])
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
        return f"cleared {self.game.cleared}/28"

    def line_keys(self, line: str) -> list[str]:
        return line_keys(line)


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


def _ft_key(index: int, *, dest: bool = False) -> str:
    """The key(s) that type a source (or, with ``dest``, a destination): ``3``, ``0``, ``w``, ``f2``, ``f``."""
    if index < NUM_COLUMNS:
        return str((index + 1) % 10)
    if dest:
        return "f"
    if index == WASTE:
        return "w"
    return f"f{index - FIRST_FOUNDATION_SRC + 1}"


def _ft_dest(dst: int) -> str:
    return "the foundations" if dst == FOUNDATION else f"column {dst + 1}"


class FortyThievesSession(Session):
    """One Forty Thieves play session (seed 004): a cursor over the sources, the app's double
    click (Enter) and tap (Space), and typed moves: a source key then a destination key.

    Source keys: ``1``-``9`` and ``0`` (column 10), ``w`` (the waste), ``f`` then ``1``-``8``
    (a foundation).  Destination keys: a column key or ``f`` (the foundations).  A source key
    selects that source (and puts the cursor on its card); Enter or Space then acts on it.
    ``rng`` draws the codes of new deals (key ``n``).
    """

    TITLE = "Forty Thieves"
    DRAW = FT_DRAW
    REASONS = ft_game.REASONS
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
        self.scoring = ft_get_scoring(scoring)
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
        sources = self.cursor_sources()
        if not sources:
            self.cursor = None
        elif self.cursor not in sources:
            c0 = self.cursor if self.cursor is not None else 0
            self.cursor = min(sources, key=lambda s: (abs(s - c0), s))

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
                i = sources.index(self.cursor)
                self.cursor = sources[(i + (1 if key == "right" else -1)) % len(sources)]
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
        action = self.game.double_click_action(src) if double else self.game.tap_action(src)
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
        the keys that type it (seed 004's app has no hint; this package offers one anyway)."""
        h = hint(self.game)
        if h.action is None or h.action == self.DRAW:
            return hint_message(h, "draw", "D")
        src, dst = divmod(h.action, NUM_DESTS)
        if src in self.cursor_sources():
            self.cursor = src
        return hint_message(h, self._describe(h.action), f"type {_ft_key(src)} {_ft_key(dst, dest=True)}")

    def _describe(self, action: int) -> str:
        if action == self.DRAW:
            return "draw"
        src, dst = divmod(action, NUM_DESTS)
        card = self.game.source_card(src)
        if card is None:
            return f"move from {ft_place(src)} to {_ft_dest(dst)}"
        return f"move {symbol(card_text(card))} from {ft_place(src)} to {_ft_dest(dst)}"

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
            lines[row] = _bracket(lines[row], x)
        elif src == WASTE:
            i = next(i for i, line in enumerate(lines) if re.search(r"\bwaste \(\d+\)", line))
            lines[i] = _bracket(lines[i], len(lines[i].rstrip()) - 2)
        else:
            i = next(i for i, line in enumerate(lines) if line.lstrip().startswith("foundations"))
            x = [m.start() for m in re.finditer(r"\S+", lines[i])][1 + src - FIRST_FOUNDATION_SRC]
            lines[i] = _bracket(lines[i], x)
        return "\n".join(lines)

    def _where(self, action: int | None) -> str:
        if action is None:
            return "nowhere"
        return f"to {_ft_dest(action % NUM_DESTS)}"

    def cursor_line(self) -> str | None:
        src = self.cursor
        if src is None:
            return None if self.game.over else "  cursor: none, no card to move: D draws"
        dbl = self._where(self.game.double_click_action(src))
        tap = self._where(self.game.tap_action(src))
        return f"  cursor: {self._card(src)} on {ft_place(src)}: Enter (double click) {dbl}, Space (tap) {tap}"

    def rules_line(self) -> str:
        return ft_rules_text(self.rules, self.scoring)

    def progress_text(self) -> str:
        return f"founded {self.game.founded}/{TOTAL_CARDS}"

    def line_keys(self, line: str) -> list[str]:
        return ft_line_keys(line)


# ---------------------------------------------------------------------- front ends


def line_keys(line: str) -> list[str]:
    """TriPeaks key names in one input line: tokens split on blanks; a number is that slot then Enter."""
    keys: list[str] = []
    for token in line.split():
        if token.isdigit():
            keys.extend([*token, "enter"])
        else:
            keys.append(token)
    return keys


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


def write(out: IO[str], text: str) -> None:
    """Write ``text`` to ``out`` as the player sees it: lines within :data:`WIDTH` (:func:`fit`),
    and in a form the stream's encoding can carry (suit letters on an ASCII terminal:
    :func:`solitaire_env.render.write_text`)."""
    write_text(fit(text), out)


def run_lines(session: Session, lines: Iterable[str], out: IO[str]) -> int:
    """Play from key names, one or more a line; print the screen at the start and after each line.

    Stops at ``q`` or at the end of the input; returns the exit status (0).  On Ctrl-C the
    summary line is printed too, and :class:`KeyboardInterrupt` raised again (the CLI exits 130).
    """
    try:
        write(out, session.screen())
        out.flush()
        for line in lines:
            keys = session.line_keys(line)
            if not keys:
                continue
            write(out, f"\n--- {' '.join(line.split())}\n")
            for key in keys:
                if not session.handle(key):
                    write(out, session.summary())
                    return 0
            write(out, session.screen())
            out.flush()
    except KeyboardInterrupt:
        write(out, "\n" + session.summary())
        out.flush()
        raise
    write(out, session.summary())
    return 0


_ESCAPES = {
    "[A": "up",
    "[B": "down",
    "[C": "right",
    "[D": "left",
    "OA": "up",
    "OB": "down",
    "OC": "right",
    "OD": "left",
    "[3~": "backspace",
}
_CONTROL = {"\r": "enter", "\n": "enter", " ": "space", "\x7f": "backspace", "\x08": "backspace", "\x04": "q"}


def decode_keys(read: Any, ready: Any) -> Iterator[str]:
    """Key names from a byte source: ``read(n)`` returns bytes (b"" at end), ``ready()`` tells
    whether more bytes are waiting (to tell a lone Esc from an arrow's escape sequence)."""
    while True:
        b = read(1)
        if not b:
            return
        if b == b"\x1b":
            seq = b""
            while ready() and len(seq) < 8:
                seq += read(1)
                if len(seq) >= 2 and (seq[-1:].isalpha() or seq[-1:] == b"~"):
                    break
            yield _ESCAPES.get(seq.decode("ascii", "replace"), "esc") if seq else "esc"
            continue
        if b[0] >= 0x80:  # a multi-byte UTF-8 character: read the rest of it
            need = 1 if b[0] < 0xE0 else 2 if b[0] < 0xF0 else 3
            b += read(need)
        ch = b.decode("utf-8", "replace")
        if ch == "\x03":
            raise KeyboardInterrupt
        yield _CONTROL.get(ch, ch.lower())


def run_tty(session: Session, fd: int, out: IO[str]) -> int:
    """Play on a terminal: single keys in cbreak mode, the screen redrawn after each key.

    The terminal (mode, screen buffer, cursor) is restored on every exit: ``q``, end of
    input, Ctrl-C (raised again as :class:`KeyboardInterrupt`), SIGTERM or SIGHUP.
    """
    import termios
    import tty

    def _stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    old_attrs = termios.tcgetattr(fd)
    old_handlers = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        try:
            tty.setcbreak(fd)
            out.write("\x1b[?1049h\x1b[?25l")  # alternate screen, hide the cursor
            keys = decode_keys(lambda n: os.read(fd, n), lambda: bool(select.select([fd], [], [], 0.05)[0]))
            while True:
                out.write("\x1b[H\x1b[2J")  # cursor home, clear the screen
                write(out, session.screen())
                out.flush()
                key = next(keys, None)
                if key is None or not session.handle(key):
                    break
        finally:
            out.write("\x1b[?25h\x1b[?1049l")  # cursor back, normal screen
            out.flush()
            termios.tcsetattr(fd, termios.TCSADRAIN, old_attrs)
            for sig, handler in old_handlers.items():
                signal.signal(sig, handler)
    except KeyboardInterrupt:  # Ctrl-C: the summary on the normal screen, then exit 130
        write(out, session.summary())
        out.flush()
        raise
    write(out, session.summary())
    return 0


def run(session: Session, *, lines: bool = False) -> int:
    """Play on the terminal if stdin and stdout are both one (and ``lines`` is false), else by lines.

    Output goes through :func:`write` (80 columns, suit letters where the output encoding has
    no suit symbols); input that stdin's encoding cannot decode reads as ``?`` (an unknown key),
    not an error.
    """
    if isinstance(sys.stdin, io.TextIOWrapper) and sys.stdin.errors == "strict":
        sys.stdin.reconfigure(errors="replace")
    if not lines and sys.stdin.isatty() and sys.stdout.isatty():
        return run_tty(session, sys.stdin.fileno(), sys.stdout)
    return run_lines(session, sys.stdin, sys.stdout)
