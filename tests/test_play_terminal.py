"""Terminal play (common/tty.py and each game's session.py) as a terminal shows it: 80 columns, the summary on
Ctrl-C, and suit letters on an ASCII-only terminal (also for ``deal``)."""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_env.common.cards import card_text
from solitaire_env.common.tty import WIDTH, Session, fit, run_lines
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.fortythieves.session import FT_KEYS_LINE, FortyThievesSession
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.rules import TriPeaksRules
from solitaire_env.tripeaks.session import KEYS_LINE, PlaySession

TP_CODE, FT_CODE = "TP1-E-AAAAAAB", "FT1-N-AAAAAAB"
#: Keys that bring up every kind of line: help, hints, selections, illegal moves, the cursor
#: on the waste and on the foundations, draws, undo, unknown keys, a new deal.
TP_SCRIPT = ["?", "h", "right", "enter", "h", "d", "d", "0", "27", "5 0", "12", "h", "up", "u", "foo", "?", "n", "h"]
FT_SCRIPT = [
    "?",
    "h",
    "2",
    "esc",
    "2 f",
    "d",
    "w 4",
    "f",
    "f1",
    "esc",
    "4 2",
    "10 f",
    "f1 1",
    "up",
    "left left left",
    "enter",
    "space",
    "foo",
    "h",
    "?",
]


def all_lines(session: Session, script: list[str]) -> str:
    out = io.StringIO()
    assert run_lines(session, [line + "\n" for line in script], out) == 0
    return out.getvalue()


def assert_fits(text: str) -> None:
    too_wide = [line for line in text.splitlines() if len(line) > 80]
    assert not too_wide, too_wide


def words(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- 80 columns


def test_fit_breaks_long_lines_and_keeps_every_word() -> None:
    line = "  > " + "; ".join(f"part {i} of a long message, with a comma" for i in range(6))
    text = fit(line + "\nshort\n")
    assert_fits(text)
    assert text.endswith("short\n") and len(text.splitlines()) > 2
    assert words(text) == words(line + " short")
    assert text.splitlines()[1].startswith("      part")  # continuation lines indented past the "> "
    long_word = "x" * 200
    assert_fits(fit(long_word))
    assert fit(long_word).replace("\n", "").replace(" ", "") == long_word
    assert fit("  fits as it is") == "  fits as it is"


def test_keys_lines_fit() -> None:
    assert WIDTH == 80
    for keys in (KEYS_LINE, FT_KEYS_LINE):
        for line in keys.split("\n"):
            assert len("  " + line) <= 80, line
        assert keys.startswith("keys:")
        for key in ("D draw", "U undo", "H hint", "N new deal", "R restart", "? help", "Q quit"):
            assert key in keys


def test_tripeaks_play_fits_80_columns() -> None:
    rules = TriPeaksRules(draw="anytime", faces="open", waste_start="empty", jokers=2, undo_limit=10)
    for session in (
        PlaySession(TriPeaksDeal.from_seed(1), rng=np.random.default_rng(0)),
        PlaySession(TriPeaksDeal.from_seed(1, jokers=2), rules, "classic", rng=np.random.default_rng(0)),
    ):
        text = all_lines(session, TP_SCRIPT)
        assert_fits(text)
        assert "keys: arrows" in text and "hint: " in text and "slot number" in text
        assert "unknown key 'foo'" in text
    # a deal without a code: the summary carries the whole deal string, over several lines
    deal = TriPeaksDeal.parse(str(decode_deal(TP_CODE)))
    session = PlaySession(deal, rng=np.random.default_rng(0))
    text = all_lines(session, ["d", "q"])
    assert_fits(text)
    summary = text.split("--- q\n")[-1]
    assert len(summary.splitlines()) > 1
    assert words(summary) == words(session.summary())
    assert TriPeaksDeal.parse(summary.split(":")[0]) == deal  # the wrapped deal string still reads back


def test_fortythieves_play_fits_80_columns() -> None:
    session = FortyThievesSession(FortyThievesDeal.from_seed(1), rng=np.random.default_rng(0))
    text = all_lines(session, FT_SCRIPT)
    assert_fits(text)
    assert "keys: left/right" in text and "hint: move" in text and "double click" in text
    assert words("can't move 5♦ from column 4 to column 2: a card goes on the next higher card") not in words(text)
    assert "cursor: " in text and "foundation 1" in text
    # the lines broken by fit lose no word: the long messages are all there
    flat = words(text)
    assert "move from column 2 (A♣) to _: a column 1-9, 0 = 10, or f the foundations;" in flat
    assert "foundations are built up in suit from the ace" in flat
    assert "Enter = double click (to a foundation, else the longest column that takes it" in flat
    no_return = FortyThievesSession(
        FortyThievesDeal.from_seed(2), FortyThievesRules(foundation_return=False), rng=np.random.default_rng(0)
    )
    assert_fits(all_lines(no_return, FT_SCRIPT))


# --------------------------------------------------------------------------- Ctrl-C


def interrupted_after(lines: list[str]):  # type: ignore[no-untyped-def]
    yield from lines
    raise KeyboardInterrupt


def test_run_lines_prints_the_summary_on_ctrl_c() -> None:
    session = PlaySession(TriPeaksDeal.from_seed(1), rng=np.random.default_rng(0))
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        run_lines(session, interrupted_after(["18\n", "d\n"]), out)
    assert out.getvalue().endswith(f"\n{TP_CODE}: unfinished, cleared 1/28, score 498, moves 2\n")
    ft = FortyThievesSession(FortyThievesDeal.from_seed(1), rng=np.random.default_rng(0))
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        run_lines(ft, interrupted_after(["2 f\n"]), out)
    assert out.getvalue().endswith(f"\n{FT_CODE}: unfinished, founded 1/104, score 10, moves 1\n")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test run in the background may ignore it


def read_until(fd: int, marker: bytes, seen: bytes, count: int, deadline: float) -> bytes:
    """Read from ``fd`` until ``marker`` has appeared ``count`` times (or the deadline passes)."""
    while seen.count(marker) < count and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_module_play_piped_prints_the_summary_on_ctrl_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "solitaire_env", "play", TP_CODE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        preexec_fn=_default_sigint,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        deadline = time.monotonic() + 60
        out = read_until(proc.stdout.fileno(), b"Q quit\n", b"", 1, deadline)
        proc.stdin.write(b"d\n")
        proc.stdin.flush()
        out = read_until(proc.stdout.fileno(), b"Q quit\n", out, 2, deadline)
        assert out.count(b"Q quit\n") == 2, out
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    assert (out + rest).decode().endswith(f"{TP_CODE}: unfinished, cleared 0/28, score 499, moves 1\n")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_module_play_on_a_terminal_prints_the_summary_on_ctrl_c() -> None:
    import fcntl
    import termios

    master, slave = os.openpty()

    def own_terminal() -> None:  # the pty is the child's controlling terminal, so ^C is SIGINT
        _default_sigint()
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        [sys.executable, "-m", "solitaire_env", "play", FT_CODE],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "TERM": "xterm"},
        preexec_fn=own_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        out = read_until(master, b"Q quit", b"", 1, deadline)
        os.write(master, b"2")
        out = read_until(master, b"Q quit", out, 2, deadline)
        os.write(master, b"f")
        out = read_until(master, b"Q quit", out, 3, deadline)
        assert out.count(b"Q quit") == 3, out
        os.write(master, b"\x03")  # Ctrl-C
        proc.wait(timeout=60)
        out = read_until(master, b"moves 1\r\n", out, 1, time.monotonic() + 10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        os.close(slave)
    text = out.decode("utf-8", "replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert "\x1b[?1049l" in text  # the terminal was restored before the summary
    assert text.endswith(f"\x1b[?1049l{FT_CODE}: unfinished, founded 1/104, score 10, moves 1\r\n")


# --------------------------------------------------------------------------- ASCII-only terminals


def run_ascii(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "solitaire_env", *argv],
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )


def test_module_deal_on_an_ascii_terminal_uses_letters() -> None:
    proc = run_ascii("deal", TP_CODE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii() and proc.stderr == b""
    deal = decode_deal(TP_CODE)
    bottom = "  ".join(card_text(c) for c in deal.tableau[18:])  # 6S  4C  2H ...
    text = proc.stdout.decode("ascii")
    assert bottom in text and "##  ##" in text and f"waste {card_text(deal.waste)}" in text
    proc = run_ascii("deal", FT_CODE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii() and proc.stderr == b""
    ft = decode_deal(FT_CODE)
    text = proc.stdout.decode("ascii")
    assert "  ".join(card_text(col[0]) for col in ft.columns) in text  # the bottom row of the columns
    assert "-S  -H  -D  -C" in text


def test_module_play_on_an_ascii_terminal_uses_letters() -> None:
    proc = run_ascii("play", TP_CODE, stdin="h\nd\n?\n18\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii() and proc.stderr == b""
    text = proc.stdout.decode("ascii")
    assert "6S  4C  2H  JH" in text and "##" in text and "hint: remove 6S (slot 18)" in text
    assert "Left/Right next removable card" in text
    assert text.endswith(f"{TP_CODE}: unfinished, cleared 0/28, score 499, moves 1\n")
    proc = run_ascii("play", FT_CODE, stdin="h\n2 f\nd\n←\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii() and proc.stderr == b""
    text = proc.stdout.decode("ascii")
    assert "hint: move AS from column 5 to the foundations" in text and "moved AC from column 2" in text
    assert "unknown key" in text  # a key the ASCII stdin cannot read is an unknown key, not an error
    assert text.endswith(f"{FT_CODE}: unfinished, founded 1/104, score 10, moves 2\n")


def test_run_lines_on_an_ascii_stream() -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    session = FortyThievesSession(FortyThievesDeal.from_seed(1), rng=np.random.default_rng(0))
    run_lines(session, ["2\n", "q\n"], out)
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert "move from column 2 (AC) to _" in text and "[AC]" in text and "-S  -H" in text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.text("abc♠", min_size=1, max_size=20), st.sampled_from([" ", " ", "; ", ", ", ": ", " · "])),
        max_size=40,
    ),
    st.sampled_from(["", "  ", "  > ", "    "]),
    st.integers(30, 100),
)
def test_fit_property(pieces: list[tuple[str, str]], prefix: str, width: int) -> None:
    line = prefix + "".join(word + sep for word, sep in pieces)
    text = fit(line, width)
    assert all(len(part) <= width for part in text.split("\n"))
    assert words(text) == words(line)  # no word lost, none cut (every word fits a line)
