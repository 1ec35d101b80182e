"""The Toy board from ``public_view()``: ``ansi`` text and an ``rgb_array`` picture."""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.common.render import CARD_H, CARD_W, counter_lines, draw_card, draw_counters, new_picture, symbol
from toygame.rules import NUM_PILES, NUM_RANKS


def toy_ansi(view: dict[str, Any]) -> str:
    """Four piles (bottom card first), then waste, stock, foundation and the counters."""
    lines = ["  " + "   ".join(f"pile {p + 1}" for p in range(NUM_PILES))]
    lines.append(("  " + "   ".join(" ".join(symbol(c) for c in pile).ljust(6) for pile in view["piles"])).rstrip())
    lines.append("")
    waste = symbol(view["waste"]) if view["waste"] else "--"
    found = symbol(view["foundation"]) if view["foundation"] else "--"
    lines.append(f"  waste {waste}   stock {view['stock_count']}   foundation {found}   redeals {view['redeals_left']}")
    lines.extend(counter_lines(view, f"stacked {view['stacked']}/{NUM_RANKS}"))
    return "\n".join(lines) + "\n"


def toy_rgb(view: dict[str, Any]) -> np.ndarray:
    """The board as an RGB picture (H, W, 3) uint8: the piles in a row, the talon below."""
    step = CARD_W + 10
    image, draw = new_picture(10 + NUM_PILES * step + 60, 2 * CARD_H + 90)
    for p, pile in enumerate(view["piles"]):
        for i, card in enumerate(pile):
            draw_card(draw, 10 + p * step, 10 + 18 * i, card)
    y = 10 + CARD_H + 30
    draw_card(draw, 10, y, "??" if view["stock_count"] else None)
    draw_card(draw, 10 + step, y, view["waste"])
    draw_card(draw, 10 + 3 * step, y, view["foundation"])
    draw_counters(draw, (10, y + CARD_H + 6), f"score {view['score']}  stacked {view['stacked']}/{NUM_RANKS}")
    return np.asarray(image, dtype=np.uint8)
