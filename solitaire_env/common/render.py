"""What the drawings of every game share: card symbols, colours, the vector pips, one card
on a picture, the counters under a text board, and text for a stream.

The games draw their boards with these (:mod:`solitaire_env.tripeaks.render`,
:mod:`solitaire_env.fortythieves.render`; :mod:`solitaire_env.render` gathers the public names).
Both kinds of drawing work from ``public_view()`` alone (card texts, ``"??"`` for a face-down
card, ``None`` for a removed one), so a drawing can never show a hidden card.

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

from solitaire_env.common.cards import SUIT_SYMBOLS, SUITS

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


def counter_lines(view: dict[str, Any], progress: str) -> list[str]:
    """The lines under a text board: score, moves, ``progress`` (``"cleared 3/28"``), the chain,
    then ``You won!`` or ``No more moves.`` when the game has ended."""
    lines = [
        f"  score {view['score']}  moves {view['moves']}  {progress}"
        f"  chain {view['chain']} (longest {view['longest_chain']})"
    ]
    if view.get("won"):
        lines.append("  You won!")
    elif view.get("over"):
        lines.append("  No more moves.")
    return lines


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
PIP_SCALE = 4

#: Each suit's pip on a unit square (y down): ("ellipse", cx, cy, r) and ("polygon", points).
PIP_SHAPES: dict[str, tuple[tuple[Any, ...], ...]] = {
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

    big = size * PIP_SCALE
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    for shape in PIP_SHAPES[suit]:
        if shape[0] == "ellipse":
            _, cx, cy, r = shape
            draw.ellipse(((cx - r) * big, (cy - r) * big, (cx + r) * big, (cy + r) * big), fill=255)
        else:
            draw.polygon([(px * big, py * big) for px, py in shape[1]], fill=255)
    return mask.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=1)
def font() -> Any:
    """Pillow's default font at 16 px (Pillow >= 10.1 with FreeType), else its small bitmap
    font (Pillow 10.0, or no FreeType): ASCII only, which is all the ranks and counters need."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=16)
    except (TypeError, ImportError, OSError):  # Pillow 10.0 has no size; no FreeType
        return ImageFont.load_default()


@lru_cache(maxsize=1)
def rank_dy() -> int:
    """How far above the text origin the top of a rank is, so ranks start 3 px below a card's edge."""
    return int(font().getbbox("A")[1])


def mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    """The colour a fraction ``t`` of the way from ``a`` to ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def suit_color(suit: str) -> tuple[int, int, int]:
    """Red for diamonds and hearts, black for clubs and spades."""
    return RED if suit in RED_SUITS else BLACK


def new_picture(width: int, height: int) -> tuple[Any, Any]:
    """A felt-green picture of ``width`` x ``height`` and its ImageDraw."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), FELT)
    return image, ImageDraw.Draw(image)


def draw_pip(draw: Any, x: int, y: int, suit: str, size: int, color: tuple[int, int, int]) -> None:
    """The pip of ``suit`` (:func:`pip_mask`) with its top left corner at (x, y)."""
    draw.bitmap((x, y), pip_mask(suit, size), fill=color)


def draw_counters(draw: Any, xy: tuple[int, int], text: str) -> None:
    """A line of counters in the card-face colour, in :func:`font`."""
    draw.text(xy, text, fill=FACE, font=font())


def draw_card(draw: Any, x: int, y: int, text: str | None) -> None:
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
        rank, suit, color = "JK", "*", JOKER_COLOR
    else:
        rank, suit = ("10" if text[0] == "T" else text[0]), text[1]
        color = suit_color(suit)
    draw.text((x + 3, y + 3 - rank_dy()), rank, fill=color, font=font())
    draw_pip(draw, x + CARD_W - 2 - SMALL_PIP, y + 3, suit, SMALL_PIP, color)
    draw_pip(draw, x + (CARD_W - BIG_PIP) // 2, y + CARD_H - BIG_PIP - 8, suit, BIG_PIP, color)


def draw_empty_pile(draw: Any, x: int, y: int, suit: str | None) -> None:
    """An empty place (a foundation of ``suit``): an outline, the suit's pip faded into the felt."""
    draw.rounded_rectangle((x, y, x + CARD_W - 1, y + CARD_H - 1), radius=4, outline=FACE)
    if suit is not None:
        faded = mix(FELT, suit_color(suit) if suit in RED_SUITS else FACE, 0.45)
        draw_pip(draw, x + (CARD_W - BIG_PIP) // 2, y + (CARD_H - BIG_PIP) // 2, suit, BIG_PIP, faded)


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
