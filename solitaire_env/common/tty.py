"""The terminal play loop every game shares: key names, the session base, 80 columns, the
two front ends.

A session holds a game, a cursor, a pending key sequence and a status message.
``handle(key)`` applies one key (a key *name*: ``"d"``, ``"left"``, ``"enter"``, ``"7"`` ...)
and returns ``False`` when the player quits; ``screen()`` draws the board, the cursor, the deal
code and the message.  :class:`Session` is what every game's session shares: the key loop
(U undo, N new deal, R restart, D draw, H hint, Esc close, ? help, Q quit), the status line,
the end-of-game exits, the screen's frame and the summary; each game's session
(:mod:`solitaire_env.tripeaks.session`, :mod:`solitaire_env.fortythieves.session`) adds its
cursor, its board and its own keys.

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
import select
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import FrameType
from typing import IO, Any, ClassVar, Protocol

import numpy as np

from solitaire_env.common.deals import DealCode
from solitaire_env.common.render import write_text

#: The widest line a session prints (screens, summaries, echoed input): longer lines are
#: broken by :func:`fit`.
WIDTH = 80

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


class HintLike(Protocol):
    """What :func:`hint_message` reads of a hint (:class:`solitaire_env.hints.Hint`)."""

    @property
    def action(self) -> int | None: ...
    @property
    def verdict(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def line(self) -> Sequence[int]: ...


#: The exits offered with an "unwinnable" hint (undo, hint, the same deal, another deal).
HINT_EXITS = "exits: U undo · H hint · R replay same deal · N new deal"


def hint_message(h: HintLike, what: str, keys: str) -> str:
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


def rule_words(parts: list[str], undo_limit: int | None, scoring_name: str) -> str:
    """A game's rule options in words: ``parts``, then the undo limit (if any) and the scoring."""
    if undo_limit is not None:
        parts = [*parts, f"undo limit {undo_limit}"]
    return ", ".join([*parts, f"{scoring_name} scoring"])


def bracket(line: str, x: int) -> str:
    """``line`` with the two-character card at text column ``x`` in brackets: ``[6♠]``."""
    line = line.ljust(x + 3)
    return (line[: x - 1] + "[" + line[x : x + 2] + "]" + line[x + 3 :]).rstrip()


# ---------------------------------------------------------------------- the shared session


class Session:
    """What every game's session shares (TriPeaks, Forty Thieves).

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

    def __init__(self, deal: Any, rng: np.random.Generator | None = None) -> None:
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

    def _start(self, deal: Any) -> None:
        self.game = self._new_game(deal)
        self.cursor = None
        self.pending = ""
        self._fix_cursor()

    # ------------------------------------------------------------------ hooks

    def _new_game(self, deal: Any) -> Any:
        raise NotImplementedError

    def _random_deal(self) -> tuple[Any, DealCode]:
        """A new random deal for key N, drawn from ``self.rng``, and its code."""
        raise NotImplementedError

    def _game_key(self, key: str) -> bool:
        """Apply a key of the game's own (cursor, selection); ``False`` if it is not one."""
        return False

    def _fix_cursor(self) -> None:
        """Put the cursor back on a card it can be on after the position changed."""

    def _keep_cursor(self, stops: list[int], distance: Callable[[int, int], int]) -> None:
        """Keep the cursor on its stop if it is one of ``stops`` (the places it may be on, in
        screen order), else move it to the nearest by ``distance(stop, cursor)`` (the first on a
        tie), or to the first stop if it had none; no stops: no cursor."""
        if not stops:
            self.cursor = None
        elif self.cursor not in stops:
            c0 = self.cursor
            self.cursor = stops[0] if c0 is None else min(stops, key=lambda s: (distance(s, c0), s))

    def _step_cursor(self, stops: list[int], key: str) -> None:
        """Move the cursor to the next of ``stops`` (``key`` ``"right"``) or the one before, round."""
        assert self.cursor is not None
        i = stops.index(self.cursor)
        self.cursor = stops[(i + (1 if key == "right" else -1)) % len(stops)]

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


def write(out: IO[str], text: str) -> None:
    """Write ``text`` to ``out`` as the player sees it: lines within :data:`WIDTH` (:func:`fit`),
    and in a form the stream's encoding can carry (suit letters on an ASCII terminal:
    :func:`solitaire_env.common.render.write_text`)."""
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
