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

from solitaire_env.cli import VERBS, main
from solitaire_env.common.cards import NUM_CARDS, card_symbol, card_text
from solitaire_env.common.deals import parse_deal_code
from solitaire_env.common.tty import Session, decode_keys, normalize_key, run_lines
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import REASONS as FT_REASONS
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.fortythieves.session import FortyThievesSession, ft_line_keys
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.rules import DRAW, ROW_OF, TriPeaksRules
from solitaire_env.tripeaks.session import PlaySession, line_keys
from solitaire_env.tripeaks.session import hint_text as _hint_text

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
    assert {"deal", "play", "solve"} <= set(VERBS)


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


FT_CODE = "FT1-N-AAAAAAB"


def ft_board_rows(out: str) -> list[list[str]]:
    """The rows of the Forty Thieves columns (cards as symbols): the lines after the ``1 2 .. 10`` header."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == [str(j) for j in range(1, 11)])
    rows = []
    for line in lines[header + 1 :]:
        if not line.strip():
            break
        rows.append(CARD.findall(line))
    return rows


def test_deal_forty_thieves_shows_code_and_opening_board(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "deal", FT_CODE)
    assert status == 0 and err == ""
    assert f"code:   {FT_CODE}\n" in out
    assert "game:   Forty Thieves" in out
    deal = FortyThievesDeal.from_seed(parse_deal_code(FT_CODE).seed)
    rows = ft_board_rows(out)
    assert len(rows) == 4 and all(len(row) == 10 for row in rows)
    for j, column in enumerate(deal.columns):  # bottom to top, all face up
        assert [row[j] for row in rows] == [card_symbol(c) for c in column]
    assert "stock 64" in out and "waste (0) --" in out
    foundations = next(line for line in out.splitlines() if "foundations" in line)
    assert CARD.findall(foundations) == [] and foundations.count("·") == 8
    assert BACK not in out
    assert len(CARD.findall(out)) == 40  # nothing of the stock is shown
    assert "HIDDEN" not in out


def test_deal_forty_thieves_open_lists_the_stock_as_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "ft1-n-aaaaaab", "--open")
    assert status == 0
    assert f"code:   {FT_CODE}  (read from 'ft1-n-aaaaaab')" in out
    deal = decode_deal(FT_CODE)
    assert isinstance(deal, FortyThievesDeal)
    head, hidden = out.split("HIDDEN", 1)
    assert "not what the player sees" in hidden.splitlines()[0] and "draw order" in hidden.splitlines()[0]
    assert len(CARD.findall(head)) == 40
    assert CARD.findall(hidden) == [card_symbol(c) for c in deal.stock]
    assert len(deal.stock) == 64


def test_deal_forty_thieves_string_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "ft1-n-aaaaaab", "--string")
    assert status == 0 and out.count("\n") == 1
    assert out.count("|") == 10
    parsed = FortyThievesDeal.parse(out)
    assert parsed == decode_deal(FT_CODE)
    text = out.strip()
    status, again, _ = run(capsys, "deal", "--string-in", text, "--string")
    assert status == 0 and again == out


def test_deal_forty_thieves_string_input(capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]) -> None:
    text = str(decode_deal(FT_CODE))
    for argv in (["deal", text], ["deal", "--string-in", text], ["deal", "--game", "ft", "--string-in", text]):
        status, out, _ = run(capsys, *argv)
        assert status == 0
        assert "code:   none (a deal string)" in out and "game:   Forty Thieves" in out
        assert ft_board_rows(out) == ft_board_rows(run(capsys, "deal", FT_CODE)[1])
    path = os.path.join(tmp_path, "ft.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("TC", "10c") + "\n")
    status, out, _ = run(capsys, "deal", "--file", path, "--string")
    assert status == 0 and out.strip() == text


def test_deal_forty_thieves_random(capsys: pytest.CaptureFixture[str]) -> None:
    outs = [run(capsys, "deal", "--game", "ft", "--seed", str(s), "--string")[1] for s in (7, 7, 8)]
    assert outs[0] == outs[1] != outs[2]
    assert all(FortyThievesDeal.parse(o) for o in outs)
    status, out, _ = run(capsys, "deal", "--game", "FortyThieves", "--seed", "7")
    assert status == 0 and re.search(r"code:   FT1-N-[A-Z2-7]{7}", out)
    status, out, _ = run(capsys, "deal", "--seed", "7")  # no --game: TriPeaks
    assert status == 0 and "game:   TriPeaks" in out


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


def _ft_string() -> str:
    return str(decode_deal(FT_CODE))


MALFORMED_FT_CODES = [
    "FT1-N-AAAAAA",  # seed too short
    "FT1-N-AAAAAAB8",  # seed too long
    "FT1-C-AAAAAAB",  # FT has rule N only
    "FT2-N-AAAAAAB",  # unknown version
    "FT1-N-AAAA0AB",  # 0 is not base32
    "FT-N-AAAAAAB",  # no version
]


@pytest.mark.parametrize("code", MALFORMED_FT_CODES)
def test_malformed_ft_codes_are_one_line_errors(capsys: pytest.CaptureFixture[str], code: str) -> None:
    assert_one_line_error(*run(capsys, "deal", code))
    assert_one_line_error(*run(capsys, "play", code))


MALFORMED_FT_STRINGS = [
    _ft_string().replace(" | ", " ", 1),  # 10 sections
    _ft_string() + " | AS",  # 12 sections
    _ft_string().replace("JC KS 7C 8C", "JC KS 7C", 1),  # a column of 3
    _ft_string().replace("JC KS 7C 8C", "JC KS 7C 8C 9C", 1),  # a column of 5
    _ft_string().replace("JC", "JK", 1),  # no jokers in Forty Thieves
    _ft_string().replace("JC", "ZZ", 1),  # not a card
    _ft_string().replace("JC", "QC", 1),  # three QC, one JC
    _ft_string().rsplit(" ", 1)[0],  # 103 cards
]


@pytest.mark.parametrize("text", MALFORMED_FT_STRINGS)
def test_malformed_ft_deal_strings_are_one_line_errors(capsys: pytest.CaptureFixture[str], text: str) -> None:
    assert_one_line_error(*run(capsys, "deal", "--string-in", text))
    assert_one_line_error(*run(capsys, "deal", "--game", "ft", "--string-in", text))
    assert_one_line_error(*run(capsys, "play", "--string-in", text))


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
        # options of the other game, and a --game that contradicts the deal
        ["deal", FT_CODE, "--jokers", "1"],
        ["deal", FT_CODE, "--jokers", "0"],
        ["deal", FT_CODE, "--rules", "C"],
        ["deal", "--game", "ft", "--rules", "E"],
        ["deal", "--string-in", _ft_string(), "--jokers", "1"],
        ["deal", "--game", "tp", FT_CODE],
        ["deal", "--game", "ft", CODE],
        ["deal", "--game", "ft", "--string-in", _good_string()],
        ["deal", "--game", "solitaire"],
        ["play", FT_CODE, "--draw", "anytime"],
        ["play", FT_CODE, "--faces", "open"],
        ["play", FT_CODE, "--waste-start", "empty"],
        ["play", FT_CODE, "--scoring", "classic"],
        ["play", CODE, "--foundation-return", "off"],
        ["play", "--foundation-return", "off"],
        ["play", FT_CODE, "--foundation-return", "maybe"],
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
    assert "Forty Thieves" in out and "--game" in out and "--foundation-return" in out and "f2 7" in out
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
    assert "hint: " in proc.stdout
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


def play_on_a_terminal(argv: list[str], key_chunks: list[bytes]) -> tuple[int | None, str, bool]:
    """Run ``play`` on a pseudo-terminal, type ``key_chunks`` one after the other; return the
    exit status, everything written to the terminal and whether its mode was restored."""
    import termios

    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solitaire_env", "play", *argv],
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
        for keys in key_chunks:
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
    return proc.returncode, out.decode("utf-8", "replace"), after == before


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_module_play_on_a_terminal_restores_it() -> None:
    status, text, restored = play_on_a_terminal([CODE], [b"\x1b[C", b"\x1b[C", b"\r", b"u", b"q"])
    assert status == 0, text
    assert "removed 6♦ (slot 27)" in text
    assert "undid the last move" in text
    assert "\x1b[?1049l" in text  # left the alternate screen
    assert restored  # the terminal's mode is restored
    assert "Traceback" not in text


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_module_play_forty_thieves_on_a_terminal() -> None:
    # a source key then a destination key: 2 f; the cursor: right, Enter (double click); undo; quit
    chunks = [b"2", b"f", b"\x1b[C", b"\r", b"u", b"q"]
    status, text, restored = play_on_a_terminal([FT_CODE], chunks)
    assert status == 0, text
    assert "Forty Thieves  FT1-N-AAAAAAB" in text
    assert "move from column 2 (A♣) to _" in text
    assert "moved A♣ from column 2 to the foundations" in text
    assert "moved 8♠ from column 3 to column 7" in text
    assert "undid the last move" in text
    assert "\x1b[?1049l" in text and restored and "Traceback" not in text
    assert text.endswith(f"{FT_CODE}: unfinished, founded 1/104, score 10, moves 2\r\n")


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
    assert s.message == _hint_text(s.game) and s.message.startswith("hint: ")
    assert "hint: " in s.screen()
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


# --------------------------------------------------------------------------- Forty Thieves play

#: A hand-made deal (bottom to top): 7♠ (column 1) goes on 8♠ (column 2), A♥ (column 3) to a
#: foundation, 2♥ (column 10) takes the A♥ back from its foundation; 5♦ (column 4) takes nothing.
FT_COLUMNS = [
    "KC QC JC 7S",
    "KD QD JD 8S",
    "KH QH JH AH",
    "KS QS JS 5D",
    "9C 9D 9H 9S",
    "TC TD TH TS",
    "6C 6D 6H 6S",
    "5C 4C 4D 4H",
    "3C 3D 3H 3S",
    "2C 2D 2S 2H",
]
#: The first stock cards: 2♥ (a tap sends it to the foundation after A♥), then 6♠ (on 7♠).
FT_STOCK_FIRST = ["2H", "6S"]


def ft_deal_string(columns: list[str], stock_first: list[str]) -> str:
    """A valid Forty Thieves deal string: these columns, the stock starting with these cards."""
    left = {card_text(c): 2 for c in range(NUM_CARDS)}
    for card in " ".join(columns).split() + stock_first:
        left[card] -= 1
    stock = stock_first + [card for card in sorted(left) for _ in range(left[card])]
    return " | ".join([*columns, " ".join(stock)])


def ft_session(text: str | None = None, **rules: bool) -> FortyThievesSession:
    deal = FortyThievesDeal.parse(text or ft_deal_string(FT_COLUMNS, FT_STOCK_FIRST))
    return FortyThievesSession(deal, FortyThievesRules(**rules), rng=np.random.default_rng(0))


def ft_state(s: FortyThievesSession) -> dict[str, object]:
    """The position and score (not the move counter, which undo never decrements)."""
    state = s.game.state_dict()
    for key in ("moves", "history", "stock_seen"):
        del state[key]
    return state


def keys(s: Session, *names: str) -> None:
    for name in names:
        assert s.handle(name)


def test_ft_session_screen() -> None:
    s = ft_session()
    screen = s.screen()
    assert screen.startswith("Forty Thieves  deal string (no code)\n")
    assert "[7♠]" in screen  # the cursor starts on column 1
    assert "cursor: 7♠ on column 1: Enter (double click) to column 2, Space (tap) nowhere" in screen
    assert "stock 64" in screen and "founded 0/104" in screen
    assert "keys:" in screen and "double-click" in screen
    assert s.summary().startswith(ft_deal_string(FT_COLUMNS, FT_STOCK_FIRST) + ": unfinished, founded 0/104")
    coded = FortyThievesSession(FortyThievesDeal.from_seed(1), rng=np.random.default_rng(0))
    assert coded.screen().startswith(f"Forty Thieves  {FT_CODE}\n")  # a code's deal shows its code


def test_ft_session_draw() -> None:
    s = ft_session()
    s.handle("d")
    assert s.game.stock_count == 63 and [card_text(c) for c in s.game.waste] == ["2H"]
    assert s.message == "drew 2♥, 63 left in the stock"
    assert "waste (1)" in s.screen()


def test_ft_session_typed_column_move() -> None:
    s = ft_session()
    keys(s, "1")
    assert "move from column 1 (7♠)" in s.message  # selected: waiting for the destination
    keys(s, "2")
    assert [card_text(c) for c in s.game.columns[1]] == ["KD", "QD", "JD", "8S", "7S"]
    assert [card_text(c) for c in s.game.columns[0]] == ["KC", "QC", "JC"]
    assert s.message == "moved 7♠ from column 1 to column 2"
    assert s.game.score == 0 and s.game.moves == 1
    assert s.pending == ""


def test_ft_session_double_click_to_a_foundation() -> None:
    s = ft_session()
    keys(s, "right", "right")
    assert s.cursor == 2 and "[A♥]" in s.screen()
    keys(s, "enter")
    assert s.game.foundations == [0, 1, 0, 0, 0, 0, 0, 0]  # the first hearts foundation
    assert s.message == "moved A♥ from column 3 to the foundations"
    assert s.game.score == 10
    assert s.cursor == 2 and "[J♥]" in s.screen()  # the cursor stays on its column
    # Enter on a card with a column to go to: the longest column that takes it
    keys(s, "left", "left")
    assert s.cursor == 0
    keys(s, "enter")
    assert card_text(s.game.columns[1][-1]) == "7S"


def test_ft_session_tap() -> None:
    s = ft_session()
    keys(s, "3", "space")  # a source key selects; Space taps it
    assert s.game.foundations[1] == 1
    keys(s, "d", "w", "space")  # 2♥ from the waste: to the foundation
    assert s.game.foundations[1] == 2 and s.game.waste == []
    keys(s, "d", "w", "space")  # 6♠ from the waste: no foundation, so a column (on 7♠)
    assert card_text(s.game.columns[0][-1]) == "6S" and s.game.score == 25
    keys(s, "1", "space")  # a column card a foundation does not take: a tap does nothing
    assert card_text(s.game.columns[0][-1]) == "6S"
    assert "tap" in s.message and "6♠" in s.message


def test_ft_session_undo_restores() -> None:
    s = ft_session()
    before = ft_state(s)
    keys(s, "1", "2", "3", "f", "d", "w", "f", "d", "w", "2")  # 7♠ on 8♠, A♥ and 2♥ founded, 6♠ on 7♠
    assert s.game.moves == 6 and s.game.score == 25
    for _ in range(6):
        keys(s, "u")
        assert s.message == "undid the last move"
    assert ft_state(s) == before
    assert s.game.moves == 6
    keys(s, "u")
    assert s.message == "nothing to undo"


def test_ft_session_foundation_return() -> None:
    s = ft_session()
    keys(s, "3", "f")
    assert s.game.score == 10
    keys(s, "left", "left", "left")  # column 3, 2, 1, then around to the last source: foundation 2
    assert s.cursor == 12 and "[A♥]" in s.screen()
    keys(s, "f", "2", "0")  # foundation 2 back to column 10, on 2♥
    assert card_text(s.game.columns[9][-1]) == "AH" and s.game.foundations[1] == 0
    assert s.message == "moved A♥ from foundation 2 to column 10"
    assert s.game.score == 0  # 10 - 15, floored at 0
    off = ft_session(foundation_return=False)
    keys(off, "3", "f", "left", "left", "left")
    assert off.cursor == 9  # the foundations are not visited (nor the empty waste): column 10
    keys(off, "f", "2", "0")
    assert FT_REASONS["return_not_allowed"] in off.message
    assert off.game.foundations[1] == 1


def test_ft_session_illegal_moves_show_reason_and_change_nothing() -> None:
    s = ft_session()
    before = ft_state(s), s.game.moves
    for typed, reason in (
        (["1", "4"], "wrong_suit"),  # 7♠ on 5♦
        (["9", "3"], "onto_ace"),  # 3♠ on A♥
        (["1", "1"], "same_place"),
        (["1", "f"], "foundation_order"),
        (["w", "f"], "nothing_to_move"),  # the waste is empty
        (["f", "1", "4"], "nothing_to_move"),  # foundation 1 is empty
        (["4", "2"], "wrong_suit"),
    ):
        keys(s, *typed)
        assert s.message.endswith(FT_REASONS[reason]), (typed, s.message)
        assert s.message.startswith("can't move")
        assert FT_REASONS[reason] in s.screen()
        assert (ft_state(s), s.game.moves) == before
    keys(s, "10")  # not a key name: only the pipe front end reads the token "10" (as "0")
    assert "unknown key" in s.message
    keys(s, "f", "9")
    assert "1-8" in s.message and s.pending == "f"
    keys(s, "esc")
    assert s.pending == "" and s.message == ""
    keys(s, "4", "enter")  # 5♦ has nowhere to go
    assert "nowhere to go" in s.message
    assert (ft_state(s), s.game.moves) == before


def test_ft_session_wrong_rank_and_empty_stock() -> None:
    s = ft_session()
    keys(s, "6", "2")  # T♠ on 8♠
    assert s.message.endswith(FT_REASONS["wrong_rank"])
    for _ in range(64):
        s.handle("d")
    assert s.game.stock_count == 0
    moves = s.game.moves
    keys(s, "d")
    assert s.message == f"can't draw: {FT_REASONS['stock_empty']}" and s.game.moves == moves


def test_ft_session_backspace_new_deal_restart_help_quit() -> None:
    s = ft_session()
    keys(s, "f", "2", "backspace")
    assert s.pending == "f"
    keys(s, "backspace")
    assert s.pending == ""
    keys(s, "1", "2", "r")
    assert s.game.moves == 0 and s.message == "restarted the same deal"
    keys(s, "n")
    assert re.fullmatch(r"new deal FT1-N-[A-Z2-7]{7}", s.message)
    assert s.deal_name == s.message.split()[-1] and s.game.stock_count == 64
    keys(s, "?")
    assert "double click" in s.message
    keys(s, "h")
    assert "hint: " in s.message
    keys(s, "up")
    assert "← →" in s.message
    assert s.handle("q") is False and not s.running


def test_ft_session_play_to_a_win_by_typed_moves() -> None:
    columns = ["KS QS JS TS", "KH QH JH TH", "KD QD JD TD", "KC QC JC TC"] * 2 + ["9S 9H 9D 9C"] * 2
    stock = [f"{r}{suit}" for suit in "SHDC" for r in "A2345678"] * 2
    s = ft_session(ft_deal_string(columns, stock))
    while not s.game.over:
        to_foundation = [a for a in s.game.legal_actions() if a % 11 == 10]
        if not to_foundation:
            keys(s, "d")
            continue
        src = to_foundation[0] // 11
        keys(s, "w" if src == 10 else str((src + 1) % 10), "f")
    assert s.game.won
    screen = s.screen()
    assert "You won!" in screen and "N new deal" in screen and "R replay same deal" in screen
    assert s.cursor is None
    keys(s, "d")
    assert FT_REASONS["game_over"] in s.message
    assert s.summary().endswith(": won, founded 104/104, score 1040, moves 168\n")
    keys(s, "r")
    assert s.game.founded == 0 and "exits" not in s.screen()


def test_ft_line_keys() -> None:
    assert ft_line_keys("3 5") == ["3", "5"]
    assert ft_line_keys("W F\n") == ["w", "f"]
    assert ft_line_keys("f2 7") == ["f", "2", "7"]
    assert ft_line_keys("10 f") == ["0", "f"]
    assert ft_line_keys("35 d enter left") == ["3", "5", "d", "enter", "left"]
    assert ft_line_keys("  ") == []


def test_ft_run_lines() -> None:
    s = ft_session()
    out = io.StringIO()
    assert run_lines(s, ["1 2\n", "3 f\n", "10 4\n", "q\n", "d\n"], out) == 0
    text = out.getvalue()
    assert text.count("Forty Thieves  ") == 4  # the start, then three lines before q
    assert "--- 1 2" in text and "--- 10 4" in text and "--- d" not in text
    assert "can't move 2♥ from column 10 to column 4" in text
    assert text.endswith(": unfinished, founded 1/104, score 10, moves 2\n")


def test_module_play_forty_thieves_piped_until_eof() -> None:
    script = "2 f\nd\nw 4\n3 enter\nleft\nspace\nu\n10 f\nf4 1\nfoo\n"
    proc = run_module("play", "ft1-n-aaaaaab", stdin=script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.count(f"Forty Thieves  {FT_CODE}") == 11  # the start, then one screen per line
    for line in script.splitlines():
        assert f"\n--- {line}\n" in proc.stdout
    assert "moved A♣ from column 2 to the foundations" in proc.stdout
    assert "drew 4♣, 63 left in the stock" in proc.stdout
    flat = " ".join(proc.stdout.split())  # a long message is broken over lines at 80 columns
    assert "can't move 4♣ from the waste to column 4: " + FT_REASONS["wrong_suit"] in flat
    assert "moved 8♠ from column 3 to column 7" in proc.stdout  # the double click
    assert "tap: 6♠ on column 2" in proc.stdout
    assert "can't move 9♣ from column 10 to the foundations: " + FT_REASONS["foundation_order"] in flat
    assert "can't move A♣ from foundation 4 to column 1: " + FT_REASONS["wrong_rank"] in flat
    assert "unknown key 'foo'" in proc.stdout
    # 2 f, d and 3 enter are three moves; u took the last back (undo never decrements the counter)
    assert proc.stdout.endswith(f"{FT_CODE}: unfinished, founded 1/104, score 10, moves 3\n")


def test_module_play_forty_thieves_random_seeded() -> None:
    proc = run_module("play", "--game", "ft", "--seed", "5", stdin="n\nq\nd\n")
    assert proc.returncode == 0, proc.stderr
    codes = re.findall(r"Forty Thieves  (FT1-N-[A-Z2-7]{7})", proc.stdout)
    assert len(codes) == 2 and codes[0] != codes[1]
    assert "--- d" not in proc.stdout


# --------------------------------------------------------------------------- solve

#: An Easy deal the solver proves unsolvable (about 186,000 nodes, a fraction of a second).
UNSOLVABLE_CODE = "TP1-E-UMH6XT6"


def solve_output_line(out: str) -> list[int]:
    """The actions of the ``winning line`` / ``best line`` of ``solve``'s output."""
    m = re.search(r"^(?:winning|best) line \((\d+) actions\): (.*)$", out, re.M)
    assert m, out
    line = [] if m.group(2) == "(empty)" else [int(a) for a in m.group(2).split()]
    assert len(line) == int(m.group(1))
    return line


def test_solve_one_deal(capsys: pytest.CaptureFixture[str]) -> None:
    from solitaire_env.tripeaks.game import TriPeaksGame

    status, out, err = run(capsys, "solve", CODE)
    assert status == 0 and err == ""
    assert f"code:    {CODE}" in out and "Easy" in out
    assert re.search(r"^verdict: solved: a winning line of \d+ moves$", out, re.M)
    assert re.search(r"^nodes:   [\d,]+ \(budget 1,000,000 nodes\)$", out, re.M)
    assert "stopped: won (a winning line was found)" in out
    assert re.search(r"^time:    [\d.]+ ms$", out, re.M)
    line = solve_output_line(out)
    deal = decode_deal(CODE)
    assert isinstance(deal, TriPeaksDeal)
    game = TriPeaksGame(deal)
    words = re.findall(r"^ +(\d+)\. (.*)$", out, re.M)
    assert [int(i) for i, _ in words] == list(range(1, len(line) + 1))
    for action, (_, name) in zip(line, words):
        assert name.startswith(game.action_name(action))
        game.play(action)
        if action == DRAW:
            assert name == f"draw ({card_text(game.waste[-1])})"
    assert game.won
    assert out.endswith("after the line: won, 28/28 cleared\n")
    assert "??" not in out  # every removed card is face up when it is removed


def test_solve_unsolvable_and_intractable_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", UNSOLVABLE_CODE)
    assert status == 0
    m = re.search(r"^verdict: unsolvable: .* the best line found clears (\d+) of 28$", out, re.M)
    assert m, out
    best = int(m.group(1))
    assert f"after the line: not won, {best}/28 cleared" in out
    assert len(solve_output_line(out)) > 0
    status, out, _ = run(capsys, "solve", UNSOLVABLE_CODE.lower(), "--max-nodes", "100")
    assert status == 0
    assert "verdict: intractable: the node budget was spent (100 nodes) before a verdict" in out
    assert "nodes:   100 (budget 100 nodes)" in out and "stopped: nodes (the node budget was spent)" in out
    assert "unsolvable" not in out


def test_solve_deal_string_and_rule_options(capsys: pytest.CaptureFixture[str]) -> None:
    from solitaire_env.tripeaks.game import TriPeaksGame

    classic = "TP1-C-AAAAAAB"
    text = str(decode_deal(classic))
    _, by_code, _ = run(capsys, "solve", classic)
    status, by_string, _ = run(capsys, "solve", "--rules", "c", "--string-in", text)
    assert status == 0 and "code:    none (a deal string)" in by_string and "Classic" in by_string
    assert by_code.split("\nnodes:")[0].split("verdict:")[1] == by_string.split("\nnodes:")[0].split("verdict:")[1]
    assert solve_output_line(by_code) == solve_output_line(by_string)
    status, out, _ = run(capsys, "solve", CODE, "--draw", "when_stuck", "--jokers", "1", "--waste-start", "empty")
    assert status == 0
    assert "rules:   Easy (K and A are adjacent); draw when_stuck, waste start empty, 1 joker(s)" in out
    deal = decode_deal(CODE, jokers=1)
    assert isinstance(deal, TriPeaksDeal)
    game = TriPeaksGame(deal, TriPeaksRules(draw="when_stuck", waste_start="empty", jokers=1))
    for action in solve_output_line(out):
        assert game.try_play(action) is None
    assert game.won == ("verdict: solved" in out)


def test_solve_forty_thieves_small_budget(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", FT_CODE, "--max-nodes", "50")
    assert status == 0, err
    assert f"code:    {FT_CODE}" in out and "game:    Forty Thieves" in out
    assert re.search(r"^verdict: (solved|unsolvable|intractable)", out, re.M)
    assert re.search(r"/104 founded$", out, re.M)


def test_solve_many_deals_table_and_json(capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]) -> None:
    import json

    from solitaire_env.solvability import draw_codes

    path = os.path.join(tmp_path, "results.json")
    argv = ["solve", "--deals", "6", "--seed", "0", "--rules", "C", "--workers", "2", "--json", path]
    status, out, err = run(capsys, *argv)
    assert status == 0
    assert "solving" in err and "6/6" in err  # the tqdm bar, on stderr
    assert "6 deals: codes TP1-C-UMH6XT6 ... drawn from numpy default_rng(0)" in out
    assert "2 worker process(es)" in out
    table = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    n = {s: int(table[s][1]) for s in ("solved", "unsolvable", "intractable")}
    assert sum(n.values()) == 6 and table["all"][1] == "6"
    assert "95% CI (Wilson)" in out and re.search(r"^wall time [\d.]+ s", out, re.M)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert [row["code"] for row in data["results"]] == draw_codes(6, 0, "TP", "C")
    assert data["seed"] == 0 and data["rule"] == "C" and data["max_nodes"] == 1_000_000
    assert data["summary"]["solved"]["count"] == n["solved"]
    for row in data["results"]:
        assert set(row) >= {"code", "status", "nodes", "seconds", "best"}
        _, single, _ = run(capsys, "solve", row["code"])
        assert f"verdict: {row['status']}" in single  # the same verdict as a single solve
    # one worker, no bar: the same rows
    status, out1, err1 = run(
        capsys, "solve", "--deals", "6", "--seed", "0", "--rules", "C", "--workers", "1", "--no-progress"
    )
    assert status == 0 and err1 == ""

    def figures(text: str) -> list[list[str]]:  # every column but the time
        verdicts = ("solved", "unsolvable", "intractable", "all")
        return [line.split()[:-1] for line in text.splitlines() if line.startswith(verdicts)]

    assert figures(out1) == figures(out) and len(figures(out)) == 4


def test_solve_many_budget_and_single_json(capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]) -> None:
    import json

    status, out, _ = run(capsys, "solve", "--deals", "3", "--seed", "0", "--max-nodes", "1", "--workers", "1")
    assert status == 0
    assert re.search(r"^intractable +3 +100\.00%", out, re.M)  # a spent budget is never 'unsolvable'
    assert re.search(r"^unsolvable +0 ", out, re.M)
    path = os.path.join(tmp_path, "one.json")
    status, out, _ = run(capsys, "solve", CODE, "--json", path)
    assert status == 0
    with open(path, encoding="utf-8") as f:
        (row,) = json.load(f)["results"]
    assert row["code"] == CODE and row["status"] == "solved" and row["line"] == solve_output_line(out)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--deals", "0"],
        ["solve", "--deals", "-3"],
        ["solve", "--deals", "many"],
        ["solve", "--deals", "2", "--workers", "0"],
        ["solve", CODE, "--max-nodes", "0"],
        ["solve", CODE, "--max-nodes", "1e6"],
        ["solve", CODE, "--deals", "5"],
        ["solve", CODE, "--workers", "2"],
        ["solve", CODE, "--rules", "C"],
        ["solve", "TP1-E-AAAAAA"],
        ["solve", "--deals", "2", "--game", "ft", "--rules", "C"],
        ["solve", "--deals", "2", "--foundation-return", "off"],
        ["solve", FT_CODE, "--jokers", "1"],
        ["solve", FT_CODE, "--draw", "when_stuck"],
        ["solve", "--deals", "2", "--seed", "-1"],
        ["solve", "--deals", "2", "--json", os.path.join(__file__, "results.json")],  # under a file
        ["solve", CODE, "--json", os.path.join(__file__, "results.json")],
        ["solve", CODE, "--json", os.path.dirname(__file__)],  # a folder
    ],
)
def test_solve_bad_input_is_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert_one_line_error(*run(capsys, *argv))


def test_solve_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", "--help")
    assert status == 0
    for text in ("--deals", "--workers", "--max-nodes", "--json", "Wilson", "default_rng", "exit status is 0"):
        assert text in out, text


def test_module_solve_many_and_errors() -> None:
    proc = run_module("solve", "--deals", "4", "--seed", "3", "--workers", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert re.search(r"^all +4 +100\.00%", proc.stdout, re.M)
    proc = run_module("solve", "--deals", "x")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- solver statistics


def test_wilson_interval() -> None:
    from solitaire_env.solvability import wilson

    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(9718, 10000)
    assert lo < 0.9718 < hi and hi - lo < 0.007
    lo99, hi99 = wilson(50, 100, z=2.576)
    assert lo99 < wilson(50, 100)[0] and hi99 > wilson(50, 100)[1]
    for bad in ((3, 2), (-1, 5), (0, -1)):
        with pytest.raises(ValueError):
            wilson(*bad)


def test_draw_codes_match_env_reset_seeds() -> None:
    import gymnasium as gym

    from solitaire_env.solvability import draw_codes

    codes = draw_codes(5, 42, "TP", "C")
    assert draw_codes(3, 42, "TP", "C") == codes[:3]  # the k-th code does not depend on N
    assert all(re.fullmatch(r"TP1-C-[A-Z2-7]{7}", c) for c in codes) and len(set(codes)) == 5
    assert [c[6:] for c in draw_codes(5, 42, "TP", "E")] == [c[6:] for c in codes]  # the letter only
    env = gym.make("solitaire_env/TriPeaks-v0", wrap=False)
    _, info = env.reset(seed=42)
    assert info["deal_code"] == codes[0]  # what env.reset(seed=42) deals
    assert draw_codes(2, 42, "FT", "N")[0].startswith("FT1-N-")


def test_solvability_rows_and_summary_table() -> None:
    from solitaire_env.solvability import DealResult, draw_codes, solvability, summary_table

    codes = draw_codes(4, 9, "TP", "E")
    rows = solvability(codes, workers=1)
    assert [r.code for r in rows] == codes and all(isinstance(r, DealResult) for r in rows)
    twice = solvability(codes, workers=2, max_nodes=1_000_000)
    assert [(r.status, r.nodes, r.line) for r in twice] == [(r.status, r.nodes, r.line) for r in rows]
    assert solvability([], workers=2) == []
    jokers = solvability(codes[:2], workers=1, rules={"jokers": 2, "draw": "when_stuck"})
    assert all(r.status != "intractable" for r in jokers)
    with pytest.raises(ValueError):
        solvability(codes, workers=0)
    with pytest.raises(ValueError):
        solvability(codes, max_nodes=0)
    fake = [
        DealResult("A", "solved", 10, 28, 0.001),
        DealResult("B", "solved", 30, 28, 0.003),
        DealResult("C", "unsolvable", 500, 20, 0.05),
        DealResult("D", "intractable", 1001, 12, 0.1),
    ]
    table = summary_table(fake, wall_seconds=2.0)
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["verdict", "deals", "share"]
    assert lines[2].split()[:3] == ["solved", "2", "50.00%"]
    assert "[15.00%, 85.00%]" in lines[2]
    assert lines[2].split()[-3:] == ["20", "30", "2.00"]  # mean nodes, max nodes, mean ms
    assert lines[3].split()[:3] == ["unsolvable", "1", "25.00%"]
    assert lines[4].split()[:3] == ["intractable", "1", "25.00%"]
    assert lines[5].split() == ["all", "4", "100.00%", "385", "1,001", "38.50"]
    assert lines[6] == "wall time 2.0 s (500.00 ms per deal)"
    assert summary_table([]).splitlines()[2].split()[:3] == ["solved", "0", "0.00%"]


def test_solvability_run_is_the_library_half_of_solve_deals(capsys: pytest.CaptureFixture[str]) -> None:
    """``SolvabilityRun`` from Python: the header ``solve --deals`` prints, the worker count
    capped by the deals, the default budget, the solving and the JSON record of its rows."""
    from solitaire_env.common.budget import DEFAULT_MAX_NODES
    from solitaire_env.solvability import SolvabilityRun, draw_codes, solve_code

    many = SolvabilityRun("TP", "C", 2, seed=3, rules={"draw": "when_stuck"}, max_nodes=500, workers=8)
    codes = many.codes()
    assert codes == draw_codes(2, 3, "TP", "C") and many.processes == 2 and many.budget.nodes == 500
    assert many.header(codes).splitlines() == [
        "TriPeaks, rules C: Classic (K and A are not adjacent); draw when_stuck",
        f"2 deals: codes {codes[0]} ... drawn from numpy default_rng(3) by random_code; "
        "budget 500 nodes per deal; 2 worker process(es)",
    ]
    assert SolvabilityRun("FT", "N", 1).budget.nodes == DEFAULT_MAX_NODES
    one = SolvabilityRun("TP", "C", 2, seed=3, rules={"draw": "when_stuck"}, max_nodes=500, workers=1)
    rows, wall = one.solve(codes)
    assert isinstance(wall, float)
    expected = [solve_code(c, 500, {"draw": "when_stuck"}) for c in codes]
    assert [(r.code, r.status, r.nodes) for r in rows] == [(e.code, e.status, e.nodes) for e in expected]
    record = many.to_json(rows, wall)
    assert (record["max_nodes"], record["workers"], record["rules"]) == (500, 2, {"draw": "when_stuck"})
    assert [r["code"] for r in record["results"]] == codes and record["summary"]["deals"] == 2
    argv = ("--deals", "2", "--seed", "3", "--rules", "C", "--draw", "when_stuck", "--max-nodes", "500")
    status, out, _ = run(capsys, "solve", *argv, "--workers", "1", "--no-progress")
    assert status == 0 and out.startswith(one.header(codes) + "\n")


def test_deal_args_work_without_the_command_line() -> None:
    """``deal_args`` from Python on a plain namespace: the deal, its rule letter, the rules and
    the game the options make; an option of the other game is a one-line ValueError."""
    import argparse

    from solitaire_env.deal_args import game_for, load_deal, rule_options
    from solitaire_env.fortythieves.game import FortyThievesGame
    from solitaire_env.tripeaks.game import TriPeaksGame

    def ns(**given: object) -> argparse.Namespace:
        names = ("code", "string_in", "file", "game", "seed", "rules", "jokers", "draw", "faces", "waste_start")
        return argparse.Namespace(**{**dict.fromkeys((*names, "foundation_return")), **given})

    args = ns(code=" tp1-c-aaaaaab ", jokers=1, draw="when_stuck", faces="open")
    deal, letter = load_deal(args)
    assert (str(deal.code), letter, deal.jokers) == ("TP1-C-AAAAAAB", "C", 1)
    assert deal == decode_deal("TP1-C-AAAAAAB", jokers=1)
    assert rule_options(args, "TP") == {"jokers": 1, "draw": "when_stuck"}
    game = game_for(args, deal, letter)
    assert isinstance(game, TriPeaksGame)
    assert game.rules == TriPeaksRules(wrap=False, draw="when_stuck", faces="open", jokers=1)
    ft = ns(game="FT", seed=5, foundation_return="off")
    deal, letter = load_deal(ft)
    assert letter == "N" and isinstance(deal, FortyThievesDeal)
    game = game_for(ft, deal, letter)
    assert isinstance(game, FortyThievesGame) and game.rules == FortyThievesRules(foundation_return=False)
    with pytest.raises(ValueError, match=r"^--draw applies to TriPeaks only, and FT1-N-AAAAAAB is a Forty Thieves"):
        load_deal(ns(code="FT1-N-AAAAAAB", draw="anytime"))
