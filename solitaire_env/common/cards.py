"""Cards: ids, ranks, suits, and their text forms.

A card id is ``suit * 13 + (rank - 1)`` with suits in the order clubs, diamonds,
hearts, spades (``C D H S``) and ranks ``A=1 .. K=13``, so ids run 0..51.
``JOKER`` (52) is the TriPeaks joker of the ``jokers`` rule option; Forty Thieves
uses two copies of every id 0..51.

Text form: rank ``A 2-9 T J Q K`` followed by suit ``C D H S`` (``"TH"``, ``"AS"``,
``"JK"`` for the joker).  :func:`parse_card` also accepts ``10H``, lower case and the
suit symbols ``♣ ♦ ♥ ♠``.
"""

from __future__ import annotations

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANKS = "A23456789TJQK"
JOKER = 52
JOKER_TEXT = "JK"
NUM_CARDS = 52


class CardError(ValueError):
    """A card token that cannot be read."""


def card_id(rank: int, suit: int) -> int:
    """Id of the card of ``rank`` (1..13) and ``suit`` (0..3, C D H S)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise CardError(f"no card with rank {rank} and suit {suit}")
    return suit * 13 + rank - 1


def rank_of(card: int) -> int:
    """Rank 1..13 of a card id (A=1, K=13)."""
    return card % 13 + 1


def suit_of(card: int) -> int:
    """Suit index 0..3 (C D H S) of a card id."""
    return card // 13


def card_text(card: int) -> str:
    """Two-character text form: ``"TH"``, ``"AS"``; ``"JK"`` for the joker."""
    if card == JOKER:
        return JOKER_TEXT
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"no card with id {card}")
    return RANKS[card % 13] + SUITS[card // 13]


def card_symbol(card: int) -> str:
    """Text form with the suit symbol: ``"T♥"``; ``"JK"`` for the joker."""
    if card == JOKER:
        return JOKER_TEXT
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"no card with id {card}")
    return RANKS[card % 13] + SUIT_SYMBOLS[card // 13]


_SUIT_BY_CHAR = {c: i for i, c in enumerate(SUITS)} | {c: i for i, c in enumerate(SUIT_SYMBOLS)}


def parse_card(token: str, *, allow_joker: bool = False) -> int:
    """Read one card token (``"TH"``, ``"10h"``, ``"t♥"``, ``"JK"``) into its id."""
    if not isinstance(token, str):
        raise CardError(f"a card token is text like 'TH', not {type(token).__name__}")
    text = token.strip().upper()
    if not text:
        raise CardError("empty card token")
    if text == JOKER_TEXT:
        if allow_joker:
            return JOKER
        raise CardError("a joker (JK) is not allowed here")
    if len(text) < 2:
        raise CardError(f"card {token!r} is too short: want a rank and a suit, like 'TH'")
    rank_text, suit_char = text[:-1], text[-1]
    suit = _SUIT_BY_CHAR.get(suit_char)
    if suit is None:
        raise CardError(f"card {token!r} has no suit: the last character must be one of C D H S ♣ ♦ ♥ ♠")
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS:
        raise CardError(f"card {token!r} has no rank: want one of A 2-9 T (or 10) J Q K")
    return card_id(RANKS.index(rank_text) + 1, suit)
