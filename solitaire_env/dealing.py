"""The operations over the table of games that deal cards: a deal from its code, the game a deal
string is of, and the rules-core game of a code under rule options.

They read the rows of :mod:`solitaire_env.games` (the table imports nothing of the package; this
module is where the table meets the deals).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from solitaire_env.common.deals import DealCode, DealStringError, parse_deal_code
from solitaire_env.games import GAMES, GameSpec, deal_string_spec, game_spec

if TYPE_CHECKING:
    from solitaire_env.games import Deal

__all__ = ["deal_string_game", "decode_deal", "make_game"]


def deal_string_game(text: str) -> GameSpec:
    """The game a deal string is of, by its number of ``|``-separated sections.

    Raises :class:`~solitaire_env.DealStringError` (saying what each game's string holds) for
    any other number.
    """
    spec = deal_string_spec(text)
    if spec is not None:
        return spec
    shapes = [f"{g.deal_sections} ({g.title}: {g.deal_layout})" for g in GAMES]
    shapes[0] = shapes[0].replace(" (", " sections (", 1)
    sections = text.count("|") + 1
    raise DealStringError(f"a deal string has {' or '.join(shapes)} separated by '|', got {sections}")


def decode_deal(code: str | DealCode, *, jokers: int = 0) -> Deal:
    """The deal a code stands for (``jokers`` applies to the games whose deal it changes: TriPeaks)."""
    parsed = code if isinstance(code, DealCode) else parse_deal_code(code)
    spec = game_spec(parsed.game)
    options = {"jokers": jokers} if "jokers" in spec.deal_options else {}
    deal: Deal = spec.deal_class.from_seed(parsed.seed, rule=parsed.rule, **options)
    return deal


def make_game(code: str | DealCode, rules: Mapping[str, Any] | None = None) -> Any:
    """The rules-core game a deal code deals, under extra rule options.

    The code's rule letter sets its options (TriPeaks ``E``/``C``: ``wrap``); ``rules`` may hold
    the game's other rule options (TriPeaks ``jokers``, ``draw``, ``waste_start``, ``faces``;
    Forty Thieves ``foundation_return``).  Options that change the cards (``jokers``) go to the
    deal as well.
    """
    options = dict(rules or {})
    parsed = code if isinstance(code, DealCode) else parse_deal_code(code)
    spec = game_spec(parsed.game)
    dealt = {k: options[k] for k in spec.deal_options if k in options}
    deal = spec.deal_class.from_seed(parsed.seed, rule=parsed.rule, **dealt)
    return spec.game_class(deal, spec.rules_class(**spec.letter_options[parsed.rule], **options))
