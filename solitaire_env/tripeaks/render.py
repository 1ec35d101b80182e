"""The TriPeaks board drawn from ``public_view()``: ``ansi`` text and an ``rgb_array`` picture
(the shared pieces are in :mod:`solitaire_env.common.render`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.common.render import (
    CARD_H,
    CARD_W,
    counter_lines,
    draw_card,
    draw_counters,
    new_picture,
    symbol,
)
from solitaire_env.tripeaks.rules import NUM_SLOTS, ROW_LENGTHS, ROW_OF, ROW_STARTS


def tripeaks_columns() -> list[int]:
    """Text column of each slot's card: bottom card i at 4i, each upper card centred on its covers."""
    cols = [0] * NUM_SLOTS
    for i in range(10):
        cols[18 + i] = 4 * i + 2
    for j in range(9):
        cols[9 + j] = 4 * j + 4
    for i in range(6):
        cols[3 + i] = 4 * (i + i // 2) + 6
    for p in range(3):
        cols[p] = 12 * p + 8
    return cols


#: :func:`tripeaks_columns` (read-only: the text column of each slot's card).
COLUMNS: tuple[int, ...] = tuple(tripeaks_columns())


def tripeaks_ansi(view: dict[str, Any]) -> str:
    """The TriPeaks board in text: four rows of the peaks, then waste, stock and counters."""
    lines = []
    for start, length in zip(ROW_STARTS, ROW_LENGTHS):
        line = [" "] * 44
        for s in range(start, start + length):
            c = COLUMNS[s]
            line[c : c + 2] = list(symbol(view["tableau"][s]))
        lines.append("".join(line).rstrip())
    lines.append("")
    waste = symbol(view["waste"]) if view["waste"] is not None else "--"
    lines.append(f"  waste {waste}   stock {view['stock_count']:2d}")
    lines.extend(counter_lines(view, f"cleared {view['cleared']}/{NUM_SLOTS}"))
    return "\n".join(lines) + "\n"


#: Horizontal step between TriPeaks bottom cards; vertical step between the rows of the peaks.
TP_STEP_X, TP_STEP_Y = CARD_W + 6, CARD_H // 2


def tripeaks_card_xy(slot: int) -> tuple[int, int]:
    """Top left corner of the card of ``slot`` in :func:`tripeaks_rgb`."""
    return 10 + COLUMNS[slot] * TP_STEP_X // 4 - TP_STEP_X // 2, 10 + ROW_OF[slot] * TP_STEP_Y


#: Top left corners of the TriPeaks stock and waste cards.
TP_STOCK_XY = (10, 10 + 3 * TP_STEP_Y + CARD_H + 14)
TP_WASTE_XY = (10 + CARD_W + 10, TP_STOCK_XY[1])


def tripeaks_rgb(view: dict[str, Any]) -> np.ndarray:
    """The TriPeaks board as an RGB picture (H, W, 3) uint8."""
    image, draw = new_picture(10 * TP_STEP_X + 26, 4 * TP_STEP_Y + CARD_H + 100)
    for s in range(NUM_SLOTS):
        draw_card(draw, *tripeaks_card_xy(s), view["tableau"][s])
    if view["stock_count"]:
        draw_card(draw, *TP_STOCK_XY, "??")
    draw_card(draw, *TP_WASTE_XY, view["waste"])
    text_x, base_y = 10 + 2 * (CARD_W + 10), TP_STOCK_XY[1]
    draw_counters(
        draw, (text_x, base_y + 4), f"stock {view['stock_count']}  score {view['score']}  moves {view['moves']}"
    )
    draw_counters(draw, (text_x, base_y + 26), f"cleared {view['cleared']}/{NUM_SLOTS}  chain {view['chain']}")
    return np.asarray(image, dtype=np.uint8)
