"""Drawings of a game's public view: ``ansi`` text and ``rgb_array`` pictures.

Both work from ``public_view()`` alone (card texts, ``"??"`` for a face-down card,
``None`` for a removed one), so a drawing can never show a hidden card.

The pictures draw each suit as a vector pip (ImageDraw polygons and ellipses), so they read
the same on any machine whatever fonts it has; ranks use Pillow's default font.  The text
drawings use the suit symbols ``♣♦♥♠`` and ``░░`` backs; :func:`write_text` writes such text
to a stream, with letters (``C D H S``, ``##``) where the stream's encoding lacks the symbols
(:func:`fallback_table` makes that one decision for every printer: ``deal``, ``play``).
"""

from __future__ import annotations

import math
import sys
from functools import lru_cache
from typing import IO, Any

import numpy as np

from solitaire_env.common.cards import SUIT_SYMBOLS, SUITS
from solitaire_env.tripeaks.rules import ROW_LENGTHS, ROW_OF, ROW_STARTS

CARD_BACK = "░░"
RED_SUITS = "DH"


def symbol(text: str | None) -> str:
    """``"TH"`` -> ``"T♥"``; ``"??"`` -> a card back; ``None`` -> blank."""
    if text is None:
        return "  "
    if text == "??":
        return CARD_BACK
    if text == "JK":
        return "JK"
    return text[0] + SUIT_SYMBOLS[SUITS.index(text[1])]


def tripeaks_columns() -> list[int]:
    """Text column of each slot's card: bottom card i at 4i, each upper card centred on its covers."""
    cols = [0] * 28
    for i in range(10):
        cols[18 + i] = 4 * i + 2
    for j in range(9):
        cols[9 + j] = 4 * j + 4
    for i in range(6):
        cols[3 + i] = 4 * (i + i // 2) + 6
    for p in range(3):
        cols[p] = 12 * p + 8
    return cols


_TP_COLS = tripeaks_columns()


def tripeaks_ansi(view: dict[str, Any]) -> str:
    """The TriPeaks board in text: four rows of the peaks, then waste, stock and counters."""
    lines = []
    for start, length in zip(ROW_STARTS, ROW_LENGTHS):
        line = [" "] * 44
        for s in range(start, start + length):
            c = _TP_COLS[s]
            line[c : c + 2] = list(symbol(view["tableau"][s]))
        lines.append("".join(line).rstrip())
    lines.append("")
    waste = symbol(view["waste"]) if view["waste"] is not None else "--"
    lines.append(f"  waste {waste}   stock {view['stock_count']:2d}")
    lines.append(
        f"  score {view['score']}  moves {view['moves']}  cleared {view['cleared']}/28"
        f"  chain {view['chain']} (longest {view['longest_chain']})"
    )
    if view.get("won"):
        lines.append("  You won!")
    elif view.get("over"):
        lines.append("  No more moves.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- pictures
#
# The suits are vector pips (polygons and ellipses drawn with ImageDraw, supersampled for
# smooth edges), not font glyphs: Pillow's default font has no suit symbols, and no font
# on the machine is needed.  Ranks are drawn with Pillow's default font (ASCII).

CARD_W, CARD_H = 40, 56
FELT = (22, 110, 60)
BACK = (40, 70, 160)
FACE = (250, 250, 245)
RED = (200, 30, 40)
BLACK = (20, 20, 20)
JOKER_COLOR = (120, 40, 160)
#: Height in pixels of the pip beside the rank (top right corner) and of the one in the middle.
SMALL_PIP, BIG_PIP = 12, 22
#: Supersampling factor of the pip masks.
_PIP_SCALE = 4

#: Each suit's pip on a unit square (y down): ("ellipse", cx, cy, r) and ("polygon", points).
_PIP_SHAPES: dict[str, tuple[tuple[Any, ...], ...]] = {
    # diamond: a rhombus
    "D": (("polygon", ((0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5))),),
    # heart: two lobes on top, a point at the bottom
    "H": (
        ("ellipse", 0.27, 0.3, 0.24),
        ("ellipse", 0.73, 0.3, 0.24),
        ("polygon", ((0.045, 0.38), (0.955, 0.38), (0.5, 0.98))),
    ),
    # spade: a point on top, two lobes below it, a stem
    "S": (
        ("polygon", ((0.5, 0.0), (0.05, 0.52), (0.95, 0.52))),
        ("ellipse", 0.28, 0.57, 0.23),
        ("ellipse", 0.72, 0.57, 0.23),
        ("polygon", ((0.5, 0.55), (0.3, 1.0), (0.7, 1.0))),
    ),
    # club: three round leaves, a stem
    "C": (
        ("ellipse", 0.5, 0.24, 0.22),
        ("ellipse", 0.25, 0.6, 0.22),
        ("ellipse", 0.75, 0.6, 0.22),
        ("ellipse", 0.5, 0.55, 0.12),
        ("polygon", ((0.5, 0.5), (0.3, 1.0), (0.7, 1.0))),
    ),
    # the joker's star
    "*": (
        (
            "polygon",
            tuple(
                (
                    0.5 + (0.5 if k % 2 == 0 else 0.2) * math.sin(k * math.pi / 5),
                    0.53 - (0.5 if k % 2 == 0 else 0.2) * math.cos(k * math.pi / 5),
                )
                for k in range(10)
            ),
        ),
    ),
}


@lru_cache(maxsize=32)
def pip_mask(suit: str, size: int) -> Any:
    """The pip of ``suit`` (``C D H S``, or ``*`` the joker's star) as a ``size`` x ``size``
    greyscale mask (PIL image, mode ``L``, 255 = ink), drawn at 4x and scaled down."""
    from PIL import Image, ImageDraw

    big = size * _PIP_SCALE
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    for shape in _PIP_SHAPES[suit]:
        if shape[0] == "ellipse":
            _, cx, cy, r = shape
            draw.ellipse(((cx - r) * big, (cy - r) * big, (cx + r) * big, (cy + r) * big), fill=255)
        else:
            draw.polygon([(px * big, py * big) for px, py in shape[1]], fill=255)
    return mask.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=1)
def _font() -> Any:
    """Pillow's default font at 16 px (Pillow >= 10.1 with FreeType), else its small bitmap
    font (Pillow 10.0, or no FreeType): ASCII only, which is all the ranks and counters need."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=16)
    except (TypeError, ImportError, OSError):  # Pillow 10.0 has no size; no FreeType
        return ImageFont.load_default()


@lru_cache(maxsize=1)
def _rank_dy() -> int:
    """How far above the text origin the top of a rank is, so ranks start 3 px below a card's edge."""
    return int(_font().getbbox("A")[1])


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def suit_color(suit: str) -> tuple[int, int, int]:
    """Red for diamonds and hearts, black for clubs and spades."""
    return RED if suit in RED_SUITS else BLACK


def _pip(draw: Any, x: int, y: int, suit: str, size: int, color: tuple[int, int, int]) -> None:
    draw.bitmap((x, y), pip_mask(suit, size), fill=color)


def _draw_card(draw: Any, x: int, y: int, text: str | None) -> None:
    """One card with its top left corner at (x, y): a back for ``"??"``, nothing for ``None``,
    else the rank top left, a small pip top right (both within the top 18 px, which stay in
    sight when cards overlap) and a big pip in the lower half."""
    if text is None:
        return
    box = (x, y, x + CARD_W - 1, y + CARD_H - 1)
    if text == "??":
        draw.rounded_rectangle(box, radius=4, fill=BACK, outline=FACE)
        return
    draw.rounded_rectangle(box, radius=4, fill=FACE, outline=BLACK)
    if text == "JK":
        draw.text((x + 3, y + 3 - _rank_dy()), "JK", fill=JOKER_COLOR, font=_font())
        _pip(draw, x + CARD_W - 2 - SMALL_PIP, y + 3, "*", SMALL_PIP, JOKER_COLOR)
        _pip(draw, x + (CARD_W - BIG_PIP) // 2, y + CARD_H - BIG_PIP - 8, "*", BIG_PIP, JOKER_COLOR)
        return
    suit = text[1]
    color = suit_color(suit)
    rank = "10" if text[0] == "T" else text[0]
    draw.text((x + 3, y + 3 - _rank_dy()), rank, fill=color, font=_font())
    _pip(draw, x + CARD_W - 2 - SMALL_PIP, y + 3, suit, SMALL_PIP, color)
    _pip(draw, x + (CARD_W - BIG_PIP) // 2, y + CARD_H - BIG_PIP - 8, suit, BIG_PIP, color)


def _draw_empty_pile(draw: Any, x: int, y: int, suit: str | None) -> None:
    """An empty place (a foundation of ``suit``): an outline, the suit's pip faded into the felt."""
    draw.rounded_rectangle((x, y, x + CARD_W - 1, y + CARD_H - 1), radius=4, outline=FACE)
    if suit is not None:
        faded = _mix(FELT, suit_color(suit) if suit in RED_SUITS else FACE, 0.45)
        _pip(draw, x + (CARD_W - BIG_PIP) // 2, y + (CARD_H - BIG_PIP) // 2, suit, BIG_PIP, faded)


#: Horizontal step between TriPeaks bottom cards; vertical step between the rows of the peaks.
TP_STEP_X, TP_STEP_Y = CARD_W + 6, CARD_H // 2


def tripeaks_card_xy(slot: int) -> tuple[int, int]:
    """Top left corner of the card of ``slot`` in :func:`tripeaks_rgb`."""
    return 10 + _TP_COLS[slot] * TP_STEP_X // 4 - TP_STEP_X // 2, 10 + ROW_OF[slot] * TP_STEP_Y


#: Top left corners of the TriPeaks stock and waste cards.
TP_STOCK_XY = (10, 10 + 3 * TP_STEP_Y + CARD_H + 14)
TP_WASTE_XY = (10 + CARD_W + 10, TP_STOCK_XY[1])


def tripeaks_rgb(view: dict[str, Any]) -> np.ndarray:
    """The TriPeaks board as an RGB picture (H, W, 3) uint8."""
    from PIL import Image, ImageDraw

    width, height = 10 * TP_STEP_X + 26, 4 * TP_STEP_Y + CARD_H + 100
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    for start, length in zip(ROW_STARTS, ROW_LENGTHS):
        for s in range(start, start + length):
            _draw_card(draw, *tripeaks_card_xy(s), view["tableau"][s])
    if view["stock_count"]:
        _draw_card(draw, *TP_STOCK_XY, "??")
    _draw_card(draw, *TP_WASTE_XY, view["waste"])
    text_x, base_y = 10 + 2 * (CARD_W + 10), TP_STOCK_XY[1]
    draw.text(
        (text_x, base_y + 4),
        f"stock {view['stock_count']}  score {view['score']}  moves {view['moves']}",
        fill=FACE,
        font=_font(),
    )
    draw.text(
        (text_x, base_y + 26),
        f"cleared {view['cleared']}/28  chain {view['chain']}",
        fill=FACE,
        font=_font(),
    )
    return np.asarray(image, dtype=np.uint8)


# ---------------------------------------------------------------------- Forty Thieves


def fortythieves_ansi(view: dict[str, Any]) -> str:
    """The Forty Thieves board in text: foundations, stock and waste, then the 10 columns."""
    fnd = "  ".join(
        symbol(t) if t is not None else f"·{s}" for t, s in zip(view["foundations"], view["foundation_suits"])
    )
    waste = view["waste"]
    shown = " ".join(symbol(c) for c in waste[-6:]) if waste else "--"
    more = "… " if len(waste) > 6 else ""
    lines = [
        f"  foundations  {fnd}",
        f"  stock {view['stock_count']:2d}   waste ({len(waste)}) {more}{shown}",
        "",
        "  " + "  ".join(f"{j + 1:>2}" for j in range(10)),
    ]
    depth = max((len(c) for c in view["columns"]), default=0)
    for i in range(max(depth, 1)):
        cells = [symbol(col[i]) if i < len(col) else "  " for col in view["columns"]]
        lines.append(("  " + "  ".join(cells)).rstrip())
    lines.append("")
    lines.append(
        f"  score {view['score']}  moves {view['moves']}  founded {view['founded']}/104"
        f"  chain {view['chain']} (longest {view['longest_chain']})"
    )
    if view.get("won"):
        lines.append("  You won!")
    elif view.get("over"):
        lines.append("  No more moves.")
    return "\n".join(lines) + "\n"


#: Horizontal step between Forty Thieves columns; vertical step of a column's fan; top of the columns.
FT_STEP_X, FT_FAN, FT_TOP = CARD_W + 8, 18, CARD_H + 30


def fortythieves_card_xy(column: int, index: int) -> tuple[int, int]:
    """Top left corner of card ``index`` (0 = bottom) of ``column`` (0-9) in :func:`fortythieves_rgb`."""
    return 10 + column * FT_STEP_X, FT_TOP + index * FT_FAN


def fortythieves_pile_xy(place: int) -> tuple[int, int]:
    """Top left corner of the top row's piles: foundations 0-7, the stock 8, the waste 9."""
    return 10 + place * FT_STEP_X, 10


def fortythieves_rgb(view: dict[str, Any]) -> np.ndarray:
    """The Forty Thieves board as an RGB picture (H, W, 3) uint8."""
    from PIL import Image, ImageDraw

    depth = max(16, max((len(c) for c in view["columns"]), default=0))
    width = 10 * FT_STEP_X + 20
    height = 2 * CARD_H + 40 + (depth - 1) * FT_FAN + 30
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    for f, top in enumerate(view["foundations"]):
        if top is None:
            _draw_empty_pile(draw, *fortythieves_pile_xy(f), view["foundation_suits"][f])
        else:
            _draw_card(draw, *fortythieves_pile_xy(f), top)
    if view["stock_count"]:
        _draw_card(draw, *fortythieves_pile_xy(8), "??")
    if view["waste"]:
        _draw_card(draw, *fortythieves_pile_xy(9), view["waste"][-1])
    for j, col in enumerate(view["columns"]):
        for i, card in enumerate(col):
            _draw_card(draw, *fortythieves_card_xy(j, i), card)
    draw.text(
        (10, height - 24),
        f"stock {view['stock_count']}  waste {len(view['waste'])}  founded {view['founded']}/104  "
        f"score {view['score']}  moves {view['moves']}",
        fill=FACE,
        font=_font(),
    )
    return np.asarray(image, dtype=np.uint8)


# ---------------------------------------------------------------------- text for a stream

#: ASCII stand-ins for the symbols the text drawings and the play screens use: suit letters,
#: ``#`` for a card back, ``-`` for the dot of an empty foundation and the separators.
ASCII_SYMBOLS: dict[str, str] = {
    **dict(zip(SUIT_SYMBOLS, SUITS)),
    CARD_BACK[0]: "#",
    "·": "-",
    "…": "...",
    "←": "Left",
    "→": "Right",
    "↑": "Up",
    "↓": "Down",
}


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except (UnicodeError, LookupError):
        return False
    return True


@lru_cache(maxsize=16)
def fallback_table(encoding: str | None) -> dict[int, str]:
    """The one decision on symbols for text written in ``encoding`` (``None``: a ``str`` sink
    such as ``io.StringIO``, which takes anything), as a :meth:`str.translate` table.

    Empty when ``encoding`` can write the suit symbols ``♣♦♥♠`` (UTF-8, cp437 ...) and the other
    symbols; when it cannot write the four suits, every symbol becomes its ASCII stand-in
    (:data:`ASCII_SYMBOLS`: suits as the letters ``C D H S``, backs as ``##``), so suits never mix
    symbols and letters; otherwise only the symbols it cannot write are replaced.
    """
    if encoding is None:
        return {}
    suits_fit = _encodes(SUIT_SYMBOLS, encoding)
    return {ord(c): a for c, a in ASCII_SYMBOLS.items() if not suits_fit or not _encodes(c, encoding)}


def text_for(text: str, encoding: str | None) -> str:
    """``text`` as it can be written in ``encoding``: symbols replaced by :func:`fallback_table`,
    and any other character the encoding lacks (a typed one, say) as ``?``; never an error."""
    text = text.translate(fallback_table(encoding))
    if encoding is None:
        return text
    try:
        return text.encode(encoding, "replace").decode(encoding)
    except LookupError:  # an encoding Python does not know: plain ASCII is safe
        return text.encode("ascii", "replace").decode("ascii")


def write_text(text: str, stream: IO[str] | None = None) -> None:
    """Write ``text`` (a board, a screen) to ``stream`` (default ``sys.stdout``) in a form its
    encoding can carry: the suit symbols when it can, else letters (see :func:`fallback_table`)."""
    out = sys.stdout if stream is None else stream
    out.write(text_for(text, getattr(out, "encoding", None)))
