"""The ``solitaire-env`` command: ``deal`` and ``play`` (SPEC section 8), and the play session.

Most runs call :func:`solitaire_env.cli.main` in-process; a few go through
``python -m solitaire_env`` in a subprocess to prove the module entry point, the exit
status and that an error is one line with no traceback.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from solitaire_env.cards import card_symbol
from solitaire_env.cli import VERBS, main
from solitaire_env.deals import FortyThievesDeal, TriPeaksDeal, decode_deal
from solitaire_env.play import (
    PlaySession,
    _hint_text,
    decode_keys,
    line_keys,
    normalize_key,
    run_lines,
)
from solitaire_env.tripeaks.rules import DRAW, ROW_OF, TriPeaksRules

CODE = "TP1-E-AAAAAAB"
BACK = "░░"
CARD = re.compile(r"[A2-9TJQK][♣♦♥♠]|JK")
ERROR_PREFIX = "solitaire-env: error: "


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_module(*argv: str, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "solitaire_env", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env=env,
    )


def assert_one_line_error(status: int, out: str, err: str) -> None:
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(ERROR_PREFIX), err
    assert len(lines[0]) > len(ERROR_PREFIX) + 5
    assert "Traceback" not in err


def board_rows(out: str) -> list[str]:
    """The four rows of the peaks: the lines after the blank line following the board's title."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("board at the start", "FULL DEAL"))) + 2
    return lines[start : start + 4]


# --------------------------------------------------------------------------- deal


def test_verbs_registered() -> None:
    assert {"deal", "play"} <= set(VERBS)


def test_deal_shows_code_rules_and_opening_board(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "deal", CODE)
    assert status == 0 and err == ""
    assert f"code:   {CODE}" in out
    assert "Easy" in out
    rows = board_rows(out)
    text = "\n".join(rows)
    assert text.count(BACK) == 18
    assert len(CARD.findall(text)) == 10
    deal = decode_deal(CODE)
    assert isinstance(deal, TriPeaksDeal)
    assert CARD.findall(rows[3]) == [card_symbol(c) for c in deal.tableau[18:]]
    assert out.count(BACK) == 18  # nothing else is drawn face down, nothing hidden is shown
    assert "waste 5♥" in out and "stock 23" in out


def test_deal_classic_and_canonical_form(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "  tp1-c-aaaaaab ")
    assert status == 0
    assert "code:   TP1-C-AAAAAAB" in out and "Classic" in out
    status, out, _ = run(capsys, "deal", "tp1-n-aaaaaab")
    assert status == 0
    assert "code:   TP1-E-AAAAAAB" in out and "read from 'tp1-n-aaaaaab'" in out and "Easy" in out


def test_deal_open_shows_all_cards(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", CODE, "--open")
    assert status == 0
    assert "FULL DEAL" in out
    assert BACK not in out
    rows = board_rows(out)
    deal = decode_deal(CODE)
    assert isinstance(deal, TriPeaksDeal)
    shown = [c for row in rows for c in CARD.findall(row)]
    assert len(shown) == 28
    assert shown == [card_symbol(c) for c in deal.tableau]
    assert len(CARD.findall(out)) == 52  # 28 + waste + 23 in the stock


def test_deal_string_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", CODE, "--string")
    assert status == 0
    assert out.count("\n") == 1
    parsed = TriPeaksDeal.parse(out)
    assert parsed == decode_deal(CODE)
    status, out, _ = run(capsys, "deal", CODE, "--string", "--jokers", "2")
    assert status == 0
    assert TriPeaksDeal.parse(out) == decode_deal(CODE, jokers=2)
    assert out.split().count("JK") == 2


def test_deal_reads_deal_strings(capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]) -> None:
    text = str(decode_deal(CODE))
    for argv in (["deal", text], ["deal", "--string-in", text]):
        status, out, _ = run(capsys, *argv)
        assert status == 0
        assert "code:   none (a deal string)" in out
        assert "\n".join(board_rows(out)).count(BACK) == 18
    # loose input (10h, lower case, symbols) comes back canonical
    loose = text.replace("TH", "10h").replace("5H", "5♥")
    status, out, _ = run(capsys, "deal", "--string-in", loose, "--string")
    assert status == 0 and out.strip() == text
    path = os.path.join(tmp_path, "deal.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    status, out, _ = run(capsys, "deal", "--file", path, "--string")
    assert status == 0 and out.strip() == text
    with open(path, "w", encoding="utf-8") as f:
        f.write("tp1-c-aaaaaab\n")
    status, out, _ = run(capsys, "deal", "--file", path)
    assert status == 0 and "TP1-C-AAAAAAB" in out


def test_deal_random_from_seed_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    outs = [run(capsys, "deal", "--seed", str(s), "--string")[1] for s in (7, 7, 8)]
    assert outs[0] == outs[1] != outs[2]
    status, out, _ = run(capsys, "deal", "--seed", "7", "--rules", "c")
    assert status == 0 and re.search(r"code:   TP1-C-[A-Z2-7]{7}", out)


def test_deal_forty_thieves(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "ft1-n-aaaaaab", "--string")
    assert status == 0
    assert FortyThievesDeal.parse(out) == decode_deal("FT1-N-AAAAAAB")
    status, out, _ = run(capsys, "deal", "--string-in", out.strip(), "--string")
    assert status == 0 and FortyThievesDeal.parse(out) == decode_deal("FT1-N-AAAAAAB")
    status, out, err = run(capsys, "deal", "FT1-N-AAAAAAB")
    assert_one_line_error(status, out, err)
    assert "Forty Thieves" in err and "not available yet" in err
    status, out, err = run(capsys, "play", "FT1-N-AAAAAAB")
    assert_one_line_error(status, out, err)


MALFORMED_CODES = [
    "",
    "   ",
    "TP1-E-AAAAAA",  # seed too short
    "TP1-E-AAAAAAAA",  # seed too long
    "TP1-E-AAAAAA1",  # 1 is not base32
    "TP1-X-AAAAAAB",  # unknown rule
    "TP2-E-AAAAAAB",  # unknown version
    "XX1-E-AAAAAAB",  # unknown game
    "TP1E-AAAAAAB",  # two parts
    "TP1-E-AAA-AAAB",  # four parts
    "FT1-E-AAAAAAB",  # Forty Thieves has rule N only
    "TP-E-AAAAAAB",  # no version
    "hello",
]


@pytest.mark.parametrize("code", MALFORMED_CODES)
def test_malformed_codes_are_one_line_errors(capsys: pytest.CaptureFixture[str], code: str) -> None:
    assert_one_line_error(*run(capsys, "deal", code))


def _good_string() -> str:
    return str(decode_deal(CODE))


MALFORMED_STRINGS = [
    "8S AD | 5H",  # two sections
    _good_string().replace("8S AD", "8S", 1),  # 27 tableau cards
    _good_string().replace("| 5H |", "| 5H 8D |", 1),  # two waste cards
    _good_string().replace("AD", "AS", 1),  # a card twice, one missing
    _good_string().replace("8S", "ZZ", 1),  # not a card
    _good_string().replace("8S", "JK", 1),  # joker in the tableau
    _good_string() + " 4H",  # 53 cards
    " | | ",  # empty sections
    "|".join(["AS"] * 11),  # looks like Forty Thieves, is not
]


@pytest.mark.parametrize("text", MALFORMED_STRINGS)
def test_malformed_deal_strings_are_one_line_errors(capsys: pytest.CaptureFixture[str], text: str) -> None:
    assert_one_line_error(*run(capsys, "deal", "--string-in", text))


@pytest.mark.parametrize(
    "argv",
    [
        ["frob"],
        [],
        ["--bogus"],
        ["deal", CODE, "--bogus"],
        ["deal", CODE, "extra"],
        ["deal", CODE, "--rules", "X"],
        ["deal", CODE, "--rules", "C"],  # contradicts the code
        ["deal", CODE, "--jokers", "3"],
        ["deal", "--seed", "abc"],
        ["deal", "--seed", "-1"],
        ["deal", CODE, "--open", "--string"],
        ["deal", CODE, "--string-in", _good_string()],  # two deals
        ["deal", "--file", "/nonexistent/deal.txt"],
        ["deal", "--string-in", _good_string(), "--jokers", "1"],
        ["play", CODE, "--draw", "sometimes"],
        ["play", CODE, "--scoring", "golf"],
        ["play", "TP1-E-AAAAAA"],
    ],
)
def test_bad_input_is_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert_one_line_error(*run(capsys, *argv))


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "deal" in out and "play" in out
    status, out, _ = run(capsys, "deal", "--help")
    assert status == 0 and "--open" in out and "--string" in out
    status, out, _ = run(capsys, "play", "--help")
    assert status == 0 and "--draw" in out and "Enter" in out
    status, out, _ = run(capsys, "--version")
    assert status == 0 and "solitaire-env" in out


# --------------------------------------------------------------------------- subprocess


def test_module_entry_point_deal() -> None:
    proc = run_module("deal", CODE, "--string")
    assert proc.returncode == 0, proc.stderr
    assert TriPeaksDeal.parse(proc.stdout) == decode_deal(CODE)


@pytest.mark.parametrize(
    "argv",
    [["deal", "TP1-E-AAAAAA"], ["deal", "--string-in", "AS | 2S"], ["nope"], ["deal", "--file", "/no/such/file"]],
)
def test_module_errors_are_one_line(argv: list[str]) -> None:
    proc = run_module(*argv)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(ERROR_PREFIX)


def test_module_play_piped_until_eof() -> None:
    proc = run_module("play", CODE, stdin="d\nright\nenter\nu\nh\nesc\n18\nfoo\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.count("TriPeaks  TP1-E-AAAAAAB") == 9  # the start, then one screen per line
    assert "hint: not available yet" in proc.stdout
    assert "unknown key 'foo'" in proc.stdout
    # d draws, right and enter find nothing to remove, u undoes the draw, 18 removes 6♠:
    # two moves (undo never decrements the counter)
    assert proc.stdout.endswith("TP1-E-AAAAAAB: unfinished, cleared 1/28, score 499, moves 2\n")


def test_module_play_random_seeded_and_quit() -> None:
    proc = run_module("play", "--seed", "5", "--rules", "C", stdin="n\nq\nd\n")
    assert proc.returncode == 0, proc.stderr
    codes = re.findall(r"TriPeaks  (TP1-C-[A-Z2-7]{7})", proc.stdout)
    assert len(codes) == 2 and codes[0] != codes[1]
    assert "--- d" not in proc.stdout  # nothing after q
    again = run_module("play", "--seed", "5", "--rules", "C", stdin="n\nq\n")
    assert re.findall(r"TriPeaks  (TP1-C-[A-Z2-7]{7})", again.stdout) == codes


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_module_play_on_a_terminal_restores_it() -> None:
    import termios

    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solitaire_env", "play", CODE],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "TERM": "xterm"},
    )
    out = b""

    def pump(seconds: float) -> None:
        nonlocal out
        import select

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    return

    try:
        deadline = time.monotonic() + 30
        while b"keys:" not in out and time.monotonic() < deadline:
            pump(0.2)
        for keys in (b"\x1b[C", b"\x1b[C", b"\r", b"u", b"q"):
            os.write(master, keys)
            pump(0.3)
        proc.wait(timeout=30)
        pump(0.3)
    finally:
        if proc.poll() is None:
            proc.kill()
        after = termios.tcgetattr(slave)
        os.close(master)
        os.close(slave)
    text = out.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "removed 6♦ (slot 27)" in text
    assert "undid the last move" in text
    assert "\x1b[?1049l" in text  # left the alternate screen
    assert after == before  # the terminal's mode is restored
    assert "Traceback" not in text


# --------------------------------------------------------------------------- play session


def session(code: str = CODE, **rules: object) -> PlaySession:
    deal = decode_deal(code, jokers=int(rules.get("jokers", 0)))  # type: ignore[call-overload]
    assert isinstance(deal, TriPeaksDeal)
    return PlaySession(deal, TriPeaksRules(**rules), rng=np.random.default_rng(0))  # type: ignore[arg-type]


def snapshot(s: PlaySession) -> dict[str, object]:
    view = s.game.public_view()
    del view["moves"]
    return view


def test_session_starts_with_cursor_on_first_removable_card() -> None:
    s = session()
    assert s.removable_slots() == [18, 19, 27]
    assert s.cursor == 18
    screen = s.screen()
    assert CODE in screen
    assert "[6♠]" in screen
    assert "cursor: 6♠ (slot 18)" in screen
    assert screen.count(BACK) == 18


def test_session_cursor_moves_left_and_right_and_wraps() -> None:
    s = session()
    assert s.handle("right") and s.cursor == 19
    s.handle("right")
    assert s.cursor == 27
    s.handle("right")
    assert s.cursor == 18
    s.handle("left")
    assert s.cursor == 27
    assert "[6♦]" in s.screen()


def test_session_remove_and_undo_restores_the_board() -> None:
    s = session()
    before = snapshot(s)
    s.handle("left")
    s.handle("enter")
    assert s.game.removed == 1 << 27
    assert s.game.public_view()["waste"] == "6D"
    assert "removed 6♦ (slot 27), chain 1" in s.message
    assert s.cursor == 26  # the nearest removable card (5 on a 6)
    s.handle("space")
    assert s.game.cleared == 2
    s.handle("u")
    s.handle("u")
    assert snapshot(s) == before
    assert s.game.moves == 2
    s.handle("u")
    assert s.message == "nothing to undo"


def test_session_draw() -> None:
    s = session()
    s.handle("D")
    assert s.game.stock_count == 22
    assert s.game.public_view()["waste"] == "8D"
    assert s.cursor is None  # nothing fits an 8 here
    assert "drew 8♦" in s.message
    assert "no card can be removed" in s.screen()
    s.handle("enter")
    assert "press D to draw" in s.message


def test_session_illegal_moves_show_reason_and_change_nothing() -> None:
    s = session()
    before = snapshot(s), s.game.moves
    for keys, reason in (
        (["2", "5", "enter"], "rank must be one higher or lower"),
        (["5", "enter"], "this card is still face down"),
        (["1", "2", "enter"], "this card is still face down"),
    ):
        for key in keys:
            s.handle(key)
        assert reason in s.message
        assert (snapshot(s), s.game.moves) == before
        assert reason in s.screen()
    s.handle("9")
    s.handle("9")
    s.handle("enter")
    assert "no slot 99" in s.message
    s.handle("1")
    s.handle("esc")  # cancels the slot number
    s.handle("enter")
    assert s.game.cleared == 1  # removed the cursor's card, not slot 1


def test_session_draw_when_stuck_reason() -> None:
    s = session(draw="when_stuck")
    s.handle("d")
    assert "draw only when stuck" in s.message
    assert s.game.stock_count == 23


def test_session_removed_slot_reason() -> None:
    s = session()
    s.handle("enter")  # 6♠, slot 18
    for key in ("1", "8", "enter"):
        s.handle(key)
    assert "already been removed" in s.message


def test_session_up_and_down_jump_rows() -> None:
    s = session()
    for key in ["enter"] * 6 + ["d", "d"]:
        s.handle(key)
    assert s.removable_slots() == [9, 20, 22]
    assert s.cursor == 9
    s.handle("down")
    assert s.cursor == 20 and ROW_OF[20] == 3
    s.handle("down")
    assert s.cursor == 20 and "further down" in s.message
    s.handle("up")
    assert s.cursor == 9


def test_session_hint_esc_help_and_unknown_key() -> None:
    s = session()
    s.handle("h")
    assert s.message == _hint_text(s.game) == "hint: not available yet"
    assert "hint: not available yet" in s.screen()
    s.handle("esc")
    assert s.message == ""
    s.handle("?")
    assert "slot number" in s.message
    s.handle("x")
    assert "unknown key 'x'" in s.message


def test_session_new_deal_and_restart() -> None:
    s = session()
    s.handle("enter")
    s.handle("n")
    assert s.deal_name != CODE and s.deal_name.startswith("TP1-E-")
    assert s.game.moves == 0 and s.message == f"new deal {s.deal_name}"
    other = session()
    other.handle("n")
    assert other.deal_name == s.deal_name  # the generator decides the new deals
    first = s.deal_name
    s.handle("d")
    s.handle("r")
    assert s.deal_name == first and s.game.moves == 0 and s.game.stock_count == 23
    assert "restarted" in s.message


def test_session_new_deal_keeps_rules() -> None:
    s = session(wrap=False, jokers=1)
    s.handle("n")
    assert s.deal_name.startswith("TP1-C-")
    assert s.game.deal.jokers == 1


def play_out(s: PlaySession) -> None:
    while not s.game.over:
        s.handle("enter" if s.cursor is not None else "d")


def test_session_end_of_game_exits() -> None:
    lost = session("TP1-E-AAAAAAB")
    play_out(lost)
    assert lost.game.lost
    screen = lost.screen()
    assert "No more moves" in screen
    for exit_ in ("U undo", "R replay same deal", "N new deal"):
        assert exit_ in screen
    lost.handle("d")
    assert "the game is over" in lost.message
    lost.handle("u")
    assert not lost.game.over and "exits" not in lost.screen()
    won = session("TP1-E-AAAAAAD")
    play_out(won)
    assert won.game.won
    assert "You won!" in won.screen() and "R replay same deal" in won.screen()
    won.handle("r")
    assert won.game.cleared == 0


def test_session_quit() -> None:
    s = session()
    assert s.handle("q") is False
    assert not s.running


def test_slot_28_draws() -> None:
    s = session()
    for key in ("2", "8", "enter"):
        s.handle(key)
    assert s.game.stock_count == 22 and s.game.waste[-1] == s.game.stock[0]
    assert DRAW == 28


# --------------------------------------------------------------------------- front ends


def test_key_names() -> None:
    assert normalize_key("Enter") == "enter"
    assert normalize_key("RETURN") == "enter"
    assert normalize_key(" ") == "space"
    assert normalize_key("U") == "u"
    assert normalize_key("Escape") == "esc"
    assert line_keys("18") == ["1", "8", "enter"]
    assert line_keys("  d  right enter\n") == ["d", "right", "enter"]
    assert line_keys("\n") == []


def test_run_lines_stops_at_eof_and_at_q() -> None:
    s = session()
    out = io.StringIO()
    assert run_lines(s, ["d\n", "\n", "u\n"], out) == 0
    text = out.getvalue()
    assert text.count("TriPeaks  ") == 3
    assert "--- d" in text and "--- u" in text
    assert text.endswith("unfinished, cleared 0/28, score 500, moves 1\n")
    s = session()
    out = io.StringIO()
    assert run_lines(s, ["enter q d\n", "d\n"], out) == 0
    assert s.game.cleared == 1 and s.game.stock_count == 23
    assert out.getvalue().count("TriPeaks  ") == 1


def test_decode_keys() -> None:
    data = io.BytesIO(b"\x1b[C\x1b[Dx\x1bOA\x1b[B\r\n \x7fU\xe2\x86\x90\x1b")

    def ready() -> bool:
        return data.tell() < len(data.getbuffer())

    keys = list(decode_keys(data.read, ready))
    assert keys == ["right", "left", "x", "up", "down", "enter", "enter", "space", "backspace", "u", "←", "esc"]
    with pytest.raises(KeyboardInterrupt):
        list(decode_keys(io.BytesIO(b"\x03").read, lambda: False))
