"""The Forty Thieves board drawn from ``public_view()``: ``ansi`` text and an ``rgb_array``
picture (the shared pieces are in :mod:`solitaire_env.common.render`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.common.render import (
    CARD_H,
    CARD_W,
    counter_lines,
    draw_card,
    draw_counters,
    draw_empty_pile,
    new_picture,
    symbol,
)
from solitaire_env.fortythieves.rules import NUM_COLUMNS, NUM_FOUNDATIONS, TOTAL_CARDS


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
        "  " + "  ".join(f"{j + 1:>2}" for j in range(NUM_COLUMNS)),
    ]
    depth = max((len(c) for c in view["columns"]), default=0)
    for i in range(max(depth, 1)):
        cells = [symbol(col[i]) if i < len(col) else "  " for col in view["columns"]]
        lines.append(("  " + "  ".join(cells)).rstrip())
    lines.append("")
    lines.extend(counter_lines(view, f"founded {view['founded']}/{TOTAL_CARDS}"))
    return "\n".join(lines) + "\n"


#: Horizontal step between Forty Thieves columns; vertical step of a column's fan; top of the columns.
FT_STEP_X, FT_FAN, FT_TOP = CARD_W + 8, 18, CARD_H + 30
#: The places of the top row after the foundations (0-7) in :func:`fortythieves_pile_xy`.
STOCK_PLACE, WASTE_PLACE = NUM_FOUNDATIONS, NUM_FOUNDATIONS + 1


def fortythieves_card_xy(column: int, index: int) -> tuple[int, int]:
    """Top left corner of card ``index`` (0 = bottom) of ``column`` (0-9) in :func:`fortythieves_rgb`."""
    return 10 + column * FT_STEP_X, FT_TOP + index * FT_FAN


def fortythieves_pile_xy(place: int) -> tuple[int, int]:
    """Top left corner of the top row's piles: foundations 0-7, the stock 8, the waste 9."""
    return 10 + place * FT_STEP_X, 10


def fortythieves_rgb(view: dict[str, Any]) -> np.ndarray:
    """The Forty Thieves board as an RGB picture (H, W, 3) uint8."""
    depth = max(16, max((len(c) for c in view["columns"]), default=0))
    height = 2 * CARD_H + 40 + (depth - 1) * FT_FAN + 30
    image, draw = new_picture(NUM_COLUMNS * FT_STEP_X + 20, height)
    for f, top in enumerate(view["foundations"]):
        if top is None:
            draw_empty_pile(draw, *fortythieves_pile_xy(f), view["foundation_suits"][f])
        else:
            draw_card(draw, *fortythieves_pile_xy(f), top)
    if view["stock_count"]:
        draw_card(draw, *fortythieves_pile_xy(STOCK_PLACE), "??")
    if view["waste"]:
        draw_card(draw, *fortythieves_pile_xy(WASTE_PLACE), view["waste"][-1])
    for j, col in enumerate(view["columns"]):
        for i, card in enumerate(col):
            draw_card(draw, *fortythieves_card_xy(j, i), card)
    draw_counters(
        draw,
        (10, height - 24),
        f"stock {view['stock_count']}  waste {len(view['waste'])}  founded {view['founded']}/{TOTAL_CARDS}  "
        f"score {view['score']}  moves {view['moves']}",
    )
    return np.asarray(image, dtype=np.uint8)
