"""The drawings (common/render.py and each game's render.py): suits in
rgb_array frames, and text for a stream.

The frames draw suits as vector pips, so swapping two suits in a deal must change the picture
exactly where the swapped cards are in sight, on any machine (no font has to have the suit
glyphs).  Text written to a stream falls back to suit letters when the stream's encoding has no
suit symbols.
"""

from __future__ import annotations

import io

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common import render as common_render
from solitaire_env.common.render import BLACK, CARD_H, CARD_W, RED, fallback_table, text_for, write_text
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.render import FT_FAN, fortythieves_ansi, fortythieves_card_xy
from solitaire_env.tripeaks.render import TP_WASTE_XY, tripeaks_ansi, tripeaks_card_xy

TP_ID, FT_ID = "solitaire_env/TriPeaks-v0", "solitaire_env/FortyThieves-v0"
SWAPS = [("H", "D"), ("C", "S")]


def swapped(deal_string: str, a: str, b: str) -> str:
    """The deal string with suits ``a`` and ``b`` exchanged (ranks hold no suit letters)."""
    return deal_string.translate(str.maketrans(a + b, b + a))


def frame(env_id: str, deal_string: str) -> tuple[np.ndarray, dict]:
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(options={"deal": deal_string})
    return env.render(), env.unwrapped.public_view()


def tp_visible_cards(view: dict) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Face-up cards of a TriPeaks opening and the box of each in sight: the bottom row and the waste."""
    cards = []
    for slot in range(18, 28):
        x, y = tripeaks_card_xy(slot)
        cards.append((view["tableau"][slot], (x, y, x + CARD_W, y + CARD_H)))
    x, y = TP_WASTE_XY
    cards.append((view["waste"], (x, y, x + CARD_W, y + CARD_H)))
    return cards


def ft_visible_cards(view: dict) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Every card of the Forty Thieves columns and the part of it in sight (the fan's strip; all of the top card)."""
    cards = []
    for j, column in enumerate(view["columns"]):
        for i, card in enumerate(column):
            x, y = fortythieves_card_xy(j, i)
            bottom = y + (CARD_H if i == len(column) - 1 else FT_FAN)
            cards.append((card, (x, y, x + CARD_W, bottom)))
    return cards


def assert_swap_shows(before: np.ndarray, after: np.ndarray, cards: list, suits: tuple[str, str]) -> None:
    """Each card of a swapped suit looks different; every other pixel of the frame is the same."""
    assert before.shape == after.shape
    outside = np.ones(before.shape[:2], dtype=bool)
    n_swapped = 0
    for text, (x0, y0, x1, y1) in cards:
        if text[1] in suits:
            n_swapped += 1
            assert not np.array_equal(before[y0:y1, x0:x1], after[y0:y1, x0:x1]), f"{text} looks the same"
            outside[y0:y1, x0:x1] = False
    for text, (x0, y0, x1, y1) in cards:
        if text[1] not in suits:
            assert np.array_equal(before[y0:y1, x0:x1], after[y0:y1, x0:x1]), f"{text} changed"
    assert n_swapped >= 3
    assert np.array_equal(before[outside], after[outside])


@pytest.mark.parametrize("suits", SWAPS)
def test_tripeaks_frame_tells_the_suits_apart(suits: tuple[str, str]) -> None:
    deal_string = str(decode_deal("TP1-E-AAAAAAB"))
    before, view = frame(TP_ID, deal_string)
    after, view_after = frame(TP_ID, swapped(deal_string, *suits))
    assert [c[0][1] for c in tp_visible_cards(view)] != [c[0][1] for c in tp_visible_cards(view_after)]
    assert_swap_shows(before, after, tp_visible_cards(view), suits)


@pytest.mark.parametrize("suits", SWAPS)
def test_fortythieves_frame_tells_the_suits_apart(suits: tuple[str, str]) -> None:
    deal_string = str(decode_deal("FT1-N-AAAAAAB"))
    before, view = frame(FT_ID, deal_string)
    after, _ = frame(FT_ID, swapped(deal_string, *suits))
    assert_swap_shows(before, after, ft_visible_cards(view), suits)


def _near(pixels: np.ndarray, color: tuple[int, int, int], tol: int = 40) -> int:
    return int((np.abs(pixels.astype(int) - np.array(color)).max(axis=-1) <= tol).sum())


def test_red_suits_are_red_and_black_suits_black() -> None:
    image, view = frame(TP_ID, str(decode_deal("TP1-E-AAAAAAB")))
    seen = set()
    for text, (x0, y0, x1, y1) in tp_visible_cards(view):
        card = image[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2]  # inside the card's dark outline
        red, black = _near(card, RED), _near(card, BLACK)
        if text[1] in "HD":
            assert red > 100 and black == 0, text
        else:
            assert red == 0 and black > 100, text
        seen.add(text[1])
    assert seen == set("CDHS")


def test_each_suit_has_its_own_pip() -> None:
    masks = {s: np.asarray(common_render.pip_mask(s, 22)) for s in "CDHS*"}
    for s, m in masks.items():
        assert m.shape == (22, 22) and m.max() > 200 and m.min() == 0, s  # ink on a clear ground
    names = sorted(masks)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert np.abs(masks[a].astype(int) - masks[b].astype(int)).sum() > 22 * 22 * 8, (a, b)


def test_frames_draw_without_a_sized_font(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pillow 10.0 has no ``size`` argument (TypeError), a Pillow without FreeType cannot load the
    sized font (ImportError): the pictures then use the bitmap font, still with their pips."""
    from PIL import ImageFont

    real = ImageFont.load_default

    for error in (TypeError, ImportError):

        def old_pillow(size: float | None = None, _error: type[Exception] = error) -> object:
            if size is not None:
                raise _error("no size")
            return real()

        monkeypatch.setattr(ImageFont, "load_default", old_pillow)
        common_render.font.cache_clear()
        common_render.rank_dy.cache_clear()
        try:
            deal_string = str(decode_deal("TP1-E-AAAAAAB"))
            before, view = frame(TP_ID, deal_string)
            after, _ = frame(TP_ID, swapped(deal_string, "H", "D"))
            assert_swap_shows(before, after, tp_visible_cards(view), ("H", "D"))
        finally:
            common_render.font.cache_clear()
            common_render.rank_dy.cache_clear()


# --------------------------------------------------------------------------- text for a stream


def test_ansi_render_keeps_the_symbols() -> None:
    env = gym.make(TP_ID, render_mode="ansi")
    env.reset(options={"deal_code": "TP1-E-AAAAAAB"})
    text = env.render()
    assert "6♠" in text and "░░" in text


def test_text_for_an_ascii_stream_uses_letters() -> None:
    board = tripeaks_ansi(decode_view("TP1-E-AAAAAAB"))
    assert "6♠" in board
    for encoding in ("ascii", "ANSI_X3.4-1968", "latin-1", "no-such-codec"):
        text = text_for(board, encoding)
        assert text.isascii(), encoding
        assert "6S  4C  2H  JH  2D" in text and "##  ##" in text
        assert len(text.splitlines()[3]) == len(board.splitlines()[3])  # the columns stay in place
    ft = fortythieves_ansi(decode_view("FT1-N-AAAAAAB"))
    text = text_for(ft, "ascii")
    assert text.isascii() and "-S  -H  -D  -C" in text and "JC  AH  7S  KH" in text
    assert text_for("← → … x", "ascii") == "Left Right ... x"
    assert text_for("typed é", "ascii") == "typed ?"  # anything else: no error


def test_text_for_unicode_streams_keeps_the_symbols() -> None:
    board = tripeaks_ansi(decode_view("TP1-E-AAAAAAB"))
    for encoding in (None, "utf-8", "UTF-8", "utf-16"):
        assert text_for(board, encoding) == board
        assert fallback_table(encoding) == {}
    # Shift_JIS-2004 has the suits but no shade block: only the backs fall back
    assert text_for("6♠ ░░ … ←", "shift_jis_2004") == "6♠ ## … ←"
    # cp437 has the shade block but (in Python's codec) no suits: all symbols fall back, never a mix
    assert text_for("6♠ ░░ ·S", "cp437") == "6S ## -S"


def test_write_text_follows_the_stream_encoding() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    write_text("8♦ ░░\n", stream)
    stream.flush()
    assert raw.getvalue() == b"8D ##\n"
    sio = io.StringIO()
    write_text("8♦ ░░\n", sio)
    assert sio.getvalue() == "8♦ ░░\n"


def decode_view(code: str) -> dict:
    env_id = TP_ID if code.startswith("TP") else FT_ID
    env = gym.make(env_id)
    env.reset(options={"deal_code": code})
    return env.unwrapped.public_view()
