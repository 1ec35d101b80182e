"""Cards: ids, text forms and parsing (SPEC section 2)."""

from __future__ import annotations

import pytest

from solitaire_env.common.cards import (
    JOKER,
    JOKER_TEXT,
    NUM_CARDS,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    CardError,
    card_id,
    card_symbol,
    card_text,
    parse_card,
    rank_of,
    suit_of,
)


def test_constants():
    assert SUITS == "CDHS"
    assert RANKS == "A23456789TJQK"
    assert SUIT_SYMBOLS == "♣♦♥♠"
    assert NUM_CARDS == 52
    assert JOKER == 52
    assert JOKER_TEXT == "JK"


@pytest.mark.parametrize(
    ("rank", "suit", "cid", "text"),
    [
        (1, 0, 0, "AC"),
        (13, 0, 12, "KC"),
        (1, 1, 13, "AD"),
        (10, 2, 35, "TH"),
        (1, 3, 39, "AS"),
        (12, 3, 50, "QS"),
        (13, 3, 51, "KS"),
    ],
)
def test_card_id_formula(rank, suit, cid, text):
    assert card_id(rank, suit) == cid == suit * 13 + rank - 1
    assert rank_of(cid) == rank
    assert suit_of(cid) == suit
    assert card_text(cid) == text
    assert parse_card(text) == cid


def test_every_id_round_trips_through_text_and_symbol():
    texts = [card_text(c) for c in range(NUM_CARDS)]
    assert len(set(texts)) == 52
    for c in range(NUM_CARDS):
        assert parse_card(card_text(c)) == c
        assert parse_card(card_symbol(c)) == c
        assert card_id(rank_of(c), suit_of(c)) == c
    assert texts[:13] == ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]
    assert texts[13::13] == ["AD", "AH", "AS"]


def test_card_symbol():
    assert card_symbol(35) == "T♥"
    assert card_symbol(0) == "A♣"
    assert card_symbol(13) == "A♦"
    assert card_symbol(51) == "K♠"
    assert card_symbol(JOKER) == "JK"


def test_joker_text():
    assert card_text(JOKER) == "JK"
    assert parse_card("JK", allow_joker=True) == JOKER
    assert parse_card(" jk ", allow_joker=True) == JOKER


@pytest.mark.parametrize(
    ("token", "cid"),
    [
        ("TH", 35),
        ("10H", 35),
        ("10h", 35),
        ("th", 35),
        ("tH", 35),
        ("T♥", 35),
        ("t♥", 35),
        ("10♥", 35),
        ("  TH\n", 35),
        ("AS", 39),
        ("as", 39),
        ("A♠", 39),
        ("A♣", 0),
        ("a♣", 0),
        ("2♦", 14),
        ("K♠", 51),
        ("QD", 24),
        ("jc", 10),
        ("9s", 47),
    ],
)
def test_parse_card_accepts(token, cid):
    assert parse_card(token) == cid


@pytest.mark.parametrize(
    ("token", "word"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("X", "too short"),
        ("T", "too short"),
        ("1H", "no rank"),
        ("11H", "no rank"),
        ("0H", "no rank"),
        ("TTH", "no rank"),
        ("1OH", "no rank"),
        ("AC♣", "no rank"),
        ("TX", "no suit"),
        ("HT", "no suit"),
        ("10", "no suit"),
        ("ZZ", "no suit"),
        ("JK", "joker"),
        ("jk", "joker"),
    ],
)
def test_parse_card_rejects(token, word):
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert word in str(info.value)


@pytest.mark.parametrize("token", [None, 35, b"TH"])
def test_parse_card_rejects_non_text(token):
    with pytest.raises(CardError):
        parse_card(token)  # type: ignore[arg-type]


def test_card_error_is_value_error():
    assert issubclass(CardError, ValueError)
    with pytest.raises(ValueError):
        parse_card("QQ")


@pytest.mark.parametrize(("rank", "suit"), [(0, 0), (14, 0), (1, -1), (1, 4), (-3, 2)])
def test_card_id_rejects_out_of_range(rank, suit):
    with pytest.raises(CardError):
        card_id(rank, suit)


@pytest.mark.parametrize("cid", [-1, 53, 104])
def test_card_text_and_symbol_reject_bad_ids(cid):
    with pytest.raises(CardError):
        card_text(cid)
    with pytest.raises(CardError):
        card_symbol(cid)
