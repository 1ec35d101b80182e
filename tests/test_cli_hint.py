"""``solitaire-env hint``: the hint for a deal after some moves.

The verb must say what :func:`solitaire_env.hint` says for the position that ``--moves`` reach
through the rules core, for both games; a bad or illegal move is one line naming its place.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import solitaire_env
from solitaire_env.cli import VERBS, main
from solitaire_env.common.deals import parse_deal_code
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.hints import REASON_PLAN, public_move
from solitaire_env.text import parse_move
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

TP = "TP1-E-AAAAAAB"
FT = "FT1-N-AAAAAAB"
ERROR_PREFIX = "solitaire-env: error: "
#: TP1-E-AAAAAAB's bottom row, slots 18-27: 6S 4C 2H JH 2D 5C TD TH 5S 6D; the waste is 5H.
#: FT1-N-AAAAAAB: column 2's top card is AC (action 1 * 11 + 10 = 21 founds it).


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def error_line(status: int, out: str, err: str) -> str:
    assert status == 2, (status, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX) and "Traceback" not in err, err
    return lines[0]


def tp_game(code: str = TP, **rules: object) -> TriPeaksGame:
    deal = decode_deal(parse_deal_code(code))
    return TriPeaksGame(deal, TriPeaksRules(wrap=code.split("-")[1] == "E", **rules))  # type: ignore[arg-type]


def ft_game(code: str = FT) -> FortyThievesGame:
    return FortyThievesGame(decode_deal(parse_deal_code(code)))  # type: ignore[arg-type]


def field(out: str, label: str) -> str:
    """The value of the line ``<label>: value`` (labels are padded to 9 columns)."""
    m = re.search(rf"^{label}: +(.*)$", out, re.M)
    assert m, (label, out)
    return m.group(1)


def expected(game: TriPeaksGame | FortyThievesGame) -> tuple[str, str]:
    """The hint and verdict lines the verb must print for ``game``'s position."""
    h = solitaire_env.hint(game)
    move = f"{h.action} = {h.name}" if h.action is not None else f"no move: {h.reason}"
    return move, f"{h.verdict}: {h.reason}"


def test_hint_is_a_verb_listed_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert "hint" in VERBS
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "hint" in out
    status, out, _ = run(capsys, "hint", "--help")
    assert status == 0 and "--moves" in out and "action_name" in out
    line = error_line(*run(capsys, "shuffle"))
    assert "deal, play, solve, hint, eval, hint-bench, replay, train, export, bench" in line


def test_tripeaks_hint_at_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "hint", TP)
    assert status == 0 and err == ""
    assert field(out, "code") == TP and field(out, "game") == "TriPeaks"
    assert field(out, "moves") == "none: the position at the start of the deal"
    assert "  6♠  4♣  2♥  J♥  2♦  5♣  T♦  T♥  5♠  6♦" in out and "waste 5♥   stock 23" in out  # the board
    move, verdict = expected(tp_game())
    assert field(out, "hint") == move == "18 = remove 6S (slot 18)"
    assert field(out, "verdict") == verdict and verdict.startswith("unknown: ")


def test_tripeaks_hint_after_moves_by_number_and_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    game = tp_game()
    for action in (27, 26, 28):
        assert game.try_play(action) is None
    move, verdict = expected(game)
    for moves in ("27,26,28", "remove 6D (slot 27), remove 5S, draw", " 27 ,remove 5s (slot 26),28"):
        status, out, err = run(capsys, "hint", TP, "--moves", moves)
        assert status == 0 and err == "", (moves, err)
        assert field(out, "moves") == "3 played: 27 26 28"
        assert "  1. remove 6D (slot 27)\n  2. remove 5S (slot 26)\n  3. draw (8D)\n" in out
        assert "score 497  moves 3  cleared 2/28" in out  # the board is the position after the moves
        assert (field(out, "hint"), field(out, "verdict")) == (move, verdict)


def test_the_printed_hint_can_be_appended_to_the_moves(capsys: pytest.CaptureFixture[str]) -> None:
    moves = "27"
    for i in range(4):
        status, out, _ = run(capsys, "hint", TP, "--moves", moves)
        assert status == 0 and field(out, "moves").startswith(f"{i + 1} played: 27")
        number, name = field(out, "hint").split(" = ")
        moves += f",{name if i % 2 else number}"  # the name as printed, or the number, is a move --moves reads


def test_tripeaks_rule_options_reach_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    draws = ",".join(["28"] * 23)  # every stock card seen, and with open faces every card is known
    status, out, _ = run(capsys, "hint", TP, "--faces", "open", "--moves", draws)
    assert status == 0 and "all cards face up" in field(out, "rules")
    game = tp_game(faces="open")
    for _ in range(23):
        assert game.try_play(28) is None
    assert game.all_known
    move, verdict = expected(game)
    assert field(out, "hint") == move and field(out, "verdict").startswith(verdict)
    assert verdict.startswith("unwinnable: ") and "gets furthest" in out and "nodes" in out  # the solver ran
    status, out, _ = run(capsys, "hint", TP, "--draw", "when_stuck")
    assert status == 0 and "draw when_stuck" in field(out, "rules")


def test_tripeaks_won_game_has_no_move(capsys: pytest.CaptureFixture[str]) -> None:
    line = "18 23 19 26 27 17 28 28 20 28 28 28 22 13 28 9 28 28 24 14 25 21 16 10 28 15 28 12 6 28 8 28 3 28 11"
    line += " 4 7 28 0 28 5 28 28 2 28 28 28 28 1"  # solve TP1-C-AAAAAAB's winning line
    status, out, _ = run(capsys, "hint", "TP1-C-AAAAAAB", "--moves", line.replace(" ", ","))
    assert status == 0
    assert field(out, "hint") == "no move: the game is won" and field(out, "verdict").startswith("winnable")


def test_forty_thieves_hint_at_the_start_and_after_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "hint", FT)
    assert status == 0 and err == "" and field(out, "game") == "Forty Thieves"
    assert (field(out, "hint"), field(out, "verdict")) == expected(ft_game())
    game = ft_game()
    for action in (21, 209, 209):
        assert game.try_play(action) is None
    move, verdict = expected(game)
    for moves in (
        "21,209,209",
        "move AC from column 2 to foundation,draw,draw",
        "move the top card from column 2 to foundation,209,draw",
    ):
        status, out, err = run(capsys, "hint", FT, "--moves", moves)
        assert status == 0 and err == "", (moves, err)
        assert field(out, "moves") == "3 played: 21 209 209"
        assert "  1. move AC from column 2 to foundation\n  2. draw (4C)\n  3. draw (7D)\n" in out
        assert "score 10  moves 3  founded 1/104" in out and "waste (2) 4♣ 7♦" in out
        assert (field(out, "hint"), field(out, "verdict")) == (move, verdict)
    status, out, _ = run(capsys, "hint", FT, "--foundation-return", "off")
    assert status == 0 and "foundation return off" in field(out, "rules")


def test_forty_thieves_hint_prints_the_planners_plan(capsys: pytest.CaptureFixture[str]) -> None:
    game = ft_game()
    for action in (54, 21):
        game.play(action)
    h = solitaire_env.hint(game)
    assert h.reason == REASON_PLAN and h.line[-1] == 209
    status, out, err = run(capsys, "hint", FT, "--moves", "54,21")
    assert status == 0 and err == ""
    assert field(out, "hint") == f"{h.action} = {h.name}"
    assert field(out, "plan") == f"{len(h.line)} moves to the next draw: {' '.join(map(str, h.line))}"
    assert field(out, "nodes").startswith(f"{h.nodes:,} (the planner's searches")
    status, out, err = run(capsys, "hint", FT, "--moves", "54,21", "--no-plan")
    assert status == 0 and "plan:" not in out and field(out, "hint").startswith(f"{public_move(game)} = ")


@pytest.mark.parametrize(
    ("code", "moves", "message"),
    [
        # illegal in the game: the move's place in the list, the move in words, the game's reason
        (TP, "27,5", "move 2 of 2 ('5'), remove ?? (slot 5), is illegal: this card is still face down (face_down)"),
        (
            TP,
            "20",
            "move 1 of 1 ('20'), remove 2H (slot 20), is illegal: rank must be one higher or lower (not_adjacent)",
        ),
        (TP, ",".join(["28"] * 24), "move 24 of 24 ('28'), draw, is illegal: no cards left to draw (stock_empty)"),
        (FT, "21,21", "move 2 of 2 ('21'), move 6S from column 2 to foundation, is illegal: foundations are built up"),
        (FT, "0", "move 1 of 1 ('0'), move 8C from column 1 to column 1, is illegal: the card is already there"),
        # not a move of the game
        (TP, "29", "move 1 of 1 ('29'): not a TriPeaks action: want an action number 0-28"),
        (TP, "jump", "move 1 of 1 ('jump'): want an action number 0-28, 'draw', or 'remove <card> (slot <n>)'"),
        (TP, "remove 7S (slot 18)", "slot 18 holds 6S, not 7S"),
        (TP, "remove KH", "KH is not a face-up card of the board"),
        (TP, "27,,28", "move 2 of 3 ('') is empty"),
        (FT, "210", "move 1 of 1 ('210'): not a Forty Thieves action: want an action number 0-209"),
        (FT, "move KC from column 2 to foundation", "the card on top of column 2 is AC, not KC"),
        (FT, "move AC from column 11 to foundation", "a move comes from 'column 1'-'column 10'"),
        (FT, "move AC from column 2 to waste", "a move goes to 'column 1'-'column 10' or 'foundation'"),
    ],
)
def test_a_bad_move_is_one_line(capsys: pytest.CaptureFixture[str], code: str, moves: str, message: str) -> None:
    line = error_line(*run(capsys, "hint", code, "--moves", moves))
    assert line.startswith(f"{ERROR_PREFIX}--moves: ") and message in line, line


def test_parse_move_reads_every_action_name() -> None:
    """Every legal action's name, as ``action_name`` prints it, reads back as that action."""
    for game in (tp_game(), ft_game()):
        mask = game.legal_mask()
        legal = [a for a in range(mask.bit_length()) if mask >> a & 1]
        assert legal
        for action in legal:
            assert parse_move(game, game.action_name(action)) == action
            assert parse_move(game, game.action_name(action).upper()) == action
            assert parse_move(game, str(action)) == action


def test_bad_options_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--foundation-return applies to Forty Thieves only" in error_line(
        *run(capsys, "hint", TP, "--foundation-return", "off")
    )
    assert "--faces applies to TriPeaks only" in error_line(*run(capsys, "hint", FT, "--faces", "open"))
    assert "deal code" in error_line(*run(capsys, "hint", "TP1-E-AAAAAA"))
    assert "--max-nodes" in error_line(*run(capsys, "hint", TP, "--max-nodes", "0"))


def test_module_entry_point_error_has_no_traceback() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "solitaire_env", "hint", FT, "--moves", "21,21"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )
    error_line(proc.returncode, proc.stdout, proc.stderr)
