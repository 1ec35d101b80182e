"""Terminal play of TriPeaks and Forty Thieves: what the ``play`` verb calls, in one place.

The pieces live with their owners: the key loop, the session base, 80-column layout and the
front ends in :mod:`solitaire_env.common.tty`; each game's session (its cursor, its keys, its
screen) in :mod:`solitaire_env.tripeaks.session` (:class:`PlaySession`, seed 001's keys) and
:mod:`solitaire_env.fortythieves.session` (:class:`FortyThievesSession`, seed 004's
conveniences).  This module gathers their public names; :func:`run` plays a session on the
terminal (single keys) or by lines (pipes, tests, CI).
"""

from __future__ import annotations

from solitaire_env.common.tty import (
    HINT_EXITS,
    KEY_NAMES,
    WIDTH,
    Session,
    bracket,
    decode_keys,
    fit,
    hint_message,
    normalize_key,
    run,
    run_lines,
    run_tty,
    write,
)
from solitaire_env.fortythieves.session import (
    FT_HELP_TEXT,
    FT_KEYS_LINE,
    FT_SOURCES,
    FortyThievesSession,
    double_click_action,
    ft_dest,
    ft_key,
    ft_line_keys,
    ft_place,
    ft_rules_text,
    tap_action,
)
from solitaire_env.tripeaks.session import HELP_TEXT, KEYS_LINE, PlaySession, hint_text, line_keys, rules_text
from solitaire_env.tripeaks.session import hint_text as _hint_text

__all__ = [
    "FT_HELP_TEXT",
    "FT_KEYS_LINE",
    "FT_SOURCES",
    "HELP_TEXT",
    "HINT_EXITS",
    "KEYS_LINE",
    "KEY_NAMES",
    "WIDTH",
    "FortyThievesSession",
    "PlaySession",
    "Session",
    "_hint_text",
    "bracket",
    "decode_keys",
    "double_click_action",
    "fit",
    "ft_dest",
    "ft_key",
    "ft_line_keys",
    "ft_place",
    "ft_rules_text",
    "hint_message",
    "hint_text",
    "line_keys",
    "normalize_key",
    "rules_text",
    "run",
    "run_lines",
    "run_tty",
    "tap_action",
    "write",
]
