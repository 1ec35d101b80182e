"""Terminal play of TriPeaks: a pure, testable :class:`PlaySession` and two front ends.

:class:`PlaySession` holds a :class:`~solitaire_env.tripeaks.game.TriPeaksGame`, a cursor
over the cards that can be removed now, a pending slot number typed with digits and a
status message.  ``handle(key)`` applies one key (a key *name*: ``"d"``, ``"left"``,
``"enter"``, ``"7"`` ...) and returns ``False`` when the player quits; ``screen()``
draws the board (the game's public view through :func:`~solitaire_env.render.tripeaks_ansi`),
the cursor, the deal code and the message.  Keys follow seed 001: U undo, H hint,
N new deal, D draw, arrows move between removable cards, Enter or Space removes the card
under the cursor, Esc closes the message; R restarts the same deal and Q quits.

Front ends: :func:`run_tty` reads single keys from a terminal (cbreak mode, arrow escape
sequences decoded) and redraws the screen after each; :func:`run_lines` reads key names,
one or more per line, from any text stream (pipes, tests, CI) and prints the screen
after each line.  :func:`run` picks one.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from collections.abc import Iterable, Iterator
from types import FrameType
from typing import IO, Any

import numpy as np

from solitaire_env.deals import TriPeaksDeal, random_code
from solitaire_env.render import symbol, tripeaks_ansi, tripeaks_columns
from solitaire_env.tripeaks.game import REASONS, TriPeaksGame
from solitaire_env.tripeaks.rules import DRAW, NUM_SLOTS, ROW_OF, TriPeaksRules
from solitaire_env.tripeaks.scoring import Scoring, get_scoring

#: One-line key summary shown under the board.
KEYS_LINE = "keys: ←→↑↓ move  Enter/Space remove  D draw  U undo  H hint  N new deal  R restart  Esc close  Q quit"
#: The longer help shown by ``?``.
HELP_TEXT = (
    "←/→ next removable card left/right, ↑/↓ one up/down a row; Enter or Space removes it; "
    "or type a slot number (0-27, 28 = draw) and Enter; D draw, U undo, H hint, N new deal, "
    "R restart this deal, Esc close, Q quit"
)
#: Every key name :meth:`PlaySession.handle` understands (after :func:`normalize_key`).
KEY_NAMES = frozenset(
    {"u", "h", "n", "d", "r", "q", "?", "left", "right", "up", "down", "enter", "space", "esc", "backspace"}
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
}
_COLS = tripeaks_columns()


def _hint_text(game: TriPeaksGame) -> str:
    """The hint line for the position of ``game`` (the hint engine arrives in a later issue)."""
    return "hint: not available yet"


def normalize_key(key: str) -> str:
    """A key name as :meth:`PlaySession.handle` reads it: lower case, aliases resolved."""
    if key in _ALIASES:
        return _ALIASES[key]
    name = key.strip().lower()
    return _ALIASES.get(name, name)


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


class PlaySession:
    """One terminal play session: the game, a cursor over removable cards, a message line.

    ``deal`` is played under ``rules`` (for a deal from a code, pass rules whose ``wrap``
    matches the code's rule letter).  ``rng`` draws the codes of new deals (key ``n``).
    """

    def __init__(
        self,
        deal: TriPeaksDeal,
        rules: TriPeaksRules | None = None,
        scoring: str | Scoring = "app",
        rng: np.random.Generator | None = None,
    ) -> None:
        self.rules = rules if rules is not None else TriPeaksRules()
        self.scoring = get_scoring(scoring)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.message = ""
        self.pending = ""
        self.running = True
        self.cursor: int | None = None
        self.game = TriPeaksGame(deal, self.rules, self.scoring)
        self._fix_cursor()

    # ------------------------------------------------------------------ state

    @property
    def deal_name(self) -> str:
        """The deal code, or the deal string for a deal written card by card."""
        return self.game.deal.name

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

    def _start(self, deal: TriPeaksDeal) -> None:
        self.game = TriPeaksGame(deal, self.rules, self.scoring)
        self.cursor = None
        self.pending = ""
        self._fix_cursor()

    # ------------------------------------------------------------------ keys

    def handle(self, key: str) -> bool:
        """Apply one key; ``False`` when the player quits (``q``), else ``True``."""
        key = normalize_key(key)
        if key.isdigit() and len(key) == 1:
            self.pending = (self.pending + key)[-2:]
            self.message = f"slot {self.pending}_  (Enter removes it, Esc cancels)"
            return True
        if key == "backspace":
            self.pending = self.pending[:-1]
            self.message = f"slot {self.pending}_  (Enter removes it, Esc cancels)" if self.pending else ""
            return True
        pending, self.pending = self.pending, ""
        if key in ("enter", "space"):
            if pending:
                self._play_slot_number(int(pending))
            elif self.cursor is not None:
                self._play(self.cursor)
            elif self.game.over:
                self.message = REASONS["game_over"]
            else:
                self.message = "no card can be removed now: press D to draw"
        elif key in ("left", "right", "up", "down"):
            self._move(key)
        elif key == "d":
            self._play(DRAW)
        elif key == "u":
            if self.game.undo():
                self.message = "undid the last move"
                self._fix_cursor()
            else:
                self.message = "nothing to undo"
        elif key == "h":
            self.message = _hint_text(self.game)
        elif key == "n":
            code = random_code("TP", self.rules.rule_letter, self.rng)
            self._start(TriPeaksDeal.from_seed(code.seed, jokers=self.rules.jokers, rule=code.rule))
            self.message = f"new deal {code}"
        elif key == "r":
            self._start(self.game.deal)
            self.message = "restarted the same deal"
        elif key == "esc":
            self.message = ""
        elif key == "?":
            self.message = HELP_TEXT
        elif key == "q":
            self.running = False
            return False
        else:
            self.message = f"unknown key {key!r}; press ? for help"
        return True

    def _play_slot_number(self, number: int) -> None:
        if number > DRAW:
            self.message = f"no slot {number}: slots are 0-27 (28 draws)"
            return
        if number != DRAW:
            self.cursor = number if number in self.removable_slots() else self.cursor
        self._play(number)

    def _play(self, action: int) -> None:
        if action == DRAW:
            what = "draw"
        else:
            view = self.game.public_view()["tableau"][action]
            what = f"remove slot {action}" if view in (None, "??") else f"remove {symbol(view)} (slot {action})"
        reason = self.game.try_play(action)
        if reason is not None:
            self.message = f"can't {what}: {REASONS[reason]}"
            return
        game = self.game
        if action == DRAW:
            self.message = f"drew {symbol(game.public_view()['waste'])}, {game.stock_count} left in the stock"
        else:
            self.message = f"{what.replace('remove', 'removed', 1)}, chain {game.chain}"
        self._fix_cursor()

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
            row, col = ROW_OF[self.cursor], _COLS[self.cursor]
            line = lines[row].ljust(col + 3)
            lines[row] = (line[: col - 1] + "[" + line[col : col + 2] + "]" + line[col + 3 :]).rstrip()
        return "\n".join(lines)

    def end_line(self) -> str | None:
        """The exits offered at the end of a game, or ``None`` while it goes on."""
        if self.game.won:
            return "  exits: N new deal · R replay same deal · U undo · Q quit"
        if self.game.over:
            return "  exits: U undo the last move · R replay same deal · N new deal · Q quit"
        return None

    def screen(self) -> str:
        """Everything the player sees: header with the deal code, board, cursor, exits, message, keys."""
        out = [f"TriPeaks  {self.deal_name}", f"  {rules_text(self.rules, self.scoring)}", ""]
        out.append(self.board().rstrip("\n"))
        if self.cursor is not None:
            out.append(f"  cursor: {self._card(self.cursor)} (slot {self.cursor}): Enter or Space removes it")
        elif not self.game.over:
            out.append("  cursor: none, no card can be removed: D draws")
        end = self.end_line()
        if end:
            out.append(end)
        out.append(f"  > {self.message}" if self.message else "  >")
        out.append(f"  {KEYS_LINE}")
        return "\n".join(out) + "\n"

    def summary(self) -> str:
        """One line for the end of the session."""
        g = self.game
        state = "won" if g.won else "no more moves" if g.over else "unfinished"
        return f"{self.deal_name}: {state}, cleared {g.cleared}/28, score {g.score}, moves {g.moves}\n"


# ---------------------------------------------------------------------- front ends


def line_keys(line: str) -> list[str]:
    """Key names in one input line: tokens split on blanks; a number is that slot then Enter."""
    keys: list[str] = []
    for token in line.split():
        if token.isdigit():
            keys.extend([*token, "enter"])
        else:
            keys.append(token)
    return keys


def run_lines(session: PlaySession, lines: Iterable[str], out: IO[str]) -> int:
    """Play from key names, one or more a line; print the screen at the start and after each line.

    Stops at ``q`` or at the end of the input; returns the exit status (0).
    """
    out.write(session.screen())
    for line in lines:
        keys = line_keys(line)
        if not keys:
            continue
        out.write(f"\n--- {' '.join(line.split())}\n")
        for key in keys:
            if not session.handle(key):
                out.write(session.summary())
                return 0
        out.write(session.screen())
        out.flush()
    out.write(session.summary())
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


def run_tty(session: PlaySession, fd: int, out: IO[str]) -> int:
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
        tty.setcbreak(fd)
        out.write("\x1b[?1049h\x1b[?25l")  # alternate screen, hide the cursor
        keys = decode_keys(lambda n: os.read(fd, n), lambda: bool(select.select([fd], [], [], 0.05)[0]))
        while True:
            out.write("\x1b[H\x1b[2J" + session.screen())
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
    out.write(session.summary())
    return 0


def run(session: PlaySession, *, lines: bool = False) -> int:
    """Play on the terminal if stdin and stdout are both one (and ``lines`` is false), else by lines."""
    if not lines and sys.stdin.isatty() and sys.stdout.isatty():
        return run_tty(session, sys.stdin.fileno(), sys.stdout)
    return run_lines(session, sys.stdin, sys.stdout)
