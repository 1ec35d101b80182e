"""Drawings of a game's public view: ``ansi`` text and ``rgb_array`` pictures.

Both work from ``public_view()`` alone (card texts, ``"??"`` for a face-down card,
``None`` for a removed one), so a drawing can never show a hidden card.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from solitaire_env.cards import SUIT_SYMBOLS, SUITS
from solitaire_env.tripeaks.rules import ROW_LENGTHS, ROW_STARTS

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

CARD_W, CARD_H = 40, 56
FELT = (22, 110, 60)
BACK = (40, 70, 160)
FACE = (250, 250, 245)
RED = (200, 30, 40)
BLACK = (20, 20, 20)


@lru_cache(maxsize=1)
def _font() -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=16)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _draw_card(draw: Any, x: int, y: int, text: str | None) -> None:
    if text is None:
        return
    box = (x, y, x + CARD_W - 1, y + CARD_H - 1)
    if text == "??":
        draw.rounded_rectangle(box, radius=4, fill=BACK, outline=FACE)
        return
    draw.rounded_rectangle(box, radius=4, fill=FACE, outline=BLACK)
    color = RED if text[-1] in RED_SUITS else BLACK
    label = "JK" if text == "JK" else ("10" if text[0] == "T" else text[0]) + SUIT_SYMBOLS[SUITS.index(text[1])]
    draw.text((x + 4, y + 3), label, fill=color, font=_font())


def tripeaks_rgb(view: dict[str, Any]) -> np.ndarray:
    """The TriPeaks board as an RGB picture (H, W, 3) uint8."""
    from PIL import Image, ImageDraw

    width, height = 10 * (CARD_W + 6) + 26, 4 * (CARD_H // 2) + CARD_H + 100
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    for row, (start, length) in enumerate(zip(ROW_STARTS, ROW_LENGTHS)):
        for s in range(start, start + length):
            x = 10 + _TP_COLS[s] * (CARD_W + 6) // 4 - (CARD_W + 6) // 2
            _draw_card(draw, x, 10 + row * (CARD_H // 2), view["tableau"][s])
    base_y = 10 + 3 * (CARD_H // 2) + CARD_H + 14
    if view["stock_count"]:
        _draw_card(draw, 10, base_y, "??")
    _draw_card(draw, 10 + CARD_W + 10, base_y, view["waste"])
    draw.text(
        (10 + 2 * (CARD_W + 10), base_y + 4),
        f"stock {view['stock_count']}  score {view['score']}  moves {view['moves']}",
        fill=FACE,
        font=_font(),
    )
    draw.text(
        (10 + 2 * (CARD_W + 10), base_y + 26),
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


def fortythieves_rgb(view: dict[str, Any]) -> np.ndarray:
    """The Forty Thieves board as an RGB picture (H, W, 3) uint8."""
    from PIL import Image, ImageDraw

    step_x, fan = CARD_W + 8, 18
    depth = max(16, max((len(c) for c in view["columns"]), default=0))
    width = 10 * step_x + 20
    height = 2 * CARD_H + 40 + (depth - 1) * fan + 30
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    for f, top in enumerate(view["foundations"]):
        x = 10 + f * step_x
        if top is None:
            draw.rounded_rectangle((x, 10, x + CARD_W - 1, 10 + CARD_H - 1), radius=4, outline=FACE)
            draw.text((x + 12, 26), view["foundation_suits"][f], fill=FACE, font=_font())
        else:
            _draw_card(draw, x, 10, top)
    if view["stock_count"]:
        _draw_card(draw, 10 + 8 * step_x, 10, "??")
    if view["waste"]:
        _draw_card(draw, 10 + 9 * step_x, 10, view["waste"][-1])
    top_y = CARD_H + 30
    for j, col in enumerate(view["columns"]):
        for i, card in enumerate(col):
            _draw_card(draw, 10 + j * step_x, top_y + i * fan, card)
    draw.text(
        (10, height - 24),
        f"stock {view['stock_count']}  waste {len(view['waste'])}  founded {view['founded']}/104  "
        f"score {view['score']}  moves {view['moves']}",
        fill=FACE,
        font=_font(),
    )
    return np.asarray(image, dtype=np.uint8)
