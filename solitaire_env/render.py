"""Drawings of a game's public view: ``ansi`` text and ``rgb_array`` pictures (the public names
in one place).

Each game draws its own board (:mod:`solitaire_env.tripeaks.render`,
:mod:`solitaire_env.fortythieves.render`) with the shared pieces of
:mod:`solitaire_env.common.render`: suit symbols, colours, the vector pips, one card, and
:func:`write_text` / :func:`text_for` / :func:`fallback_table` (text for a stream whose encoding
may lack the suit symbols).  All of them work from ``public_view()`` alone, so a drawing can
never show a hidden card.
"""

from __future__ import annotations

from solitaire_env.common.render import (
    ASCII_SYMBOLS,
    BACK,
    BIG_PIP,
    BLACK,
    CARD_BACK,
    CARD_H,
    CARD_W,
    FACE,
    FELT,
    JOKER_COLOR,
    RED,
    RED_SUITS,
    SMALL_PIP,
    fallback_table,
    pip_mask,
    suit_color,
    symbol,
    text_for,
    write_text,
)
from solitaire_env.fortythieves.render import (
    FT_FAN,
    FT_STEP_X,
    FT_TOP,
    fortythieves_ansi,
    fortythieves_card_xy,
    fortythieves_pile_xy,
    fortythieves_rgb,
)
from solitaire_env.tripeaks.render import (
    TP_STEP_X,
    TP_STEP_Y,
    TP_STOCK_XY,
    TP_WASTE_XY,
    tripeaks_ansi,
    tripeaks_card_xy,
    tripeaks_columns,
    tripeaks_rgb,
)

__all__ = [
    "ASCII_SYMBOLS",
    "BACK",
    "BIG_PIP",
    "BLACK",
    "CARD_BACK",
    "CARD_H",
    "CARD_W",
    "FACE",
    "FELT",
    "FT_FAN",
    "FT_STEP_X",
    "FT_TOP",
    "JOKER_COLOR",
    "RED",
    "RED_SUITS",
    "SMALL_PIP",
    "TP_STEP_X",
    "TP_STEP_Y",
    "TP_STOCK_XY",
    "TP_WASTE_XY",
    "fallback_table",
    "fortythieves_ansi",
    "fortythieves_card_xy",
    "fortythieves_pile_xy",
    "fortythieves_rgb",
    "pip_mask",
    "suit_color",
    "symbol",
    "text_for",
    "tripeaks_ansi",
    "tripeaks_card_xy",
    "tripeaks_columns",
    "tripeaks_rgb",
    "write_text",
]
