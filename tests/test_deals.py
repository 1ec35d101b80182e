"""Deal codes, the PRNG and shuffle, golden layouts and deal strings (SPEC section 2)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solitaire_env
from solitaire_env.common.cards import JOKER, NUM_CARDS, parse_card
from solitaire_env.common.deals import (
    BASE32,
    MASK64,
    DealCode,
    DealCodeError,
    DealStringError,
    SplitMix64,
    canonical_code,
    deal_rng,
    decode_seed,
    encode_seed,
    parse_deal_code,
    random_code,
    shuffle,
)
from solitaire_env.dealing import decode_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.games import game_spec
from solitaire_env.tripeaks.deal import TriPeaksDeal

# --------------------------------------------------------------------------- golden layouts
# Computed once from the code and pinned: a deal code must deal the same cards forever.
# If one of these fails, the deal generator changed; that breaks every published code.

GOLDEN = {
    "TP1-E-AAAAAAB": (
        "8S AD JC JS QS 4D 8H JD 6H KS KD KH 7D AH 9H 4S QD 7C 6S 4C 2H JH 2D 5C TD TH 5S 6D | 5H | "
        "8D AS 5D 2S AC QH 3H 9D 3C 8C 7H TS QC 9C 3S 9S TC 3D 7S 6C 2C KC 4H"
    ),
    "TP1-E-AAAAAAA": (
        "AH JH QD 5S 3S 8C 4C JS 7C 3D AD QC 7S 8H 9D TS 3H JD 9C 9S QS 5D AC 3C 4S 5H 2H TH | 6H | "
        "TC TD AS 4D 2C 4H 6D 8S 7D KC 5C 9H 2S JC 2D 7H KH QH KS 6C 6S KD 8D"
    ),
    "TP1-C-7777777": (
        "5H 7C KH TS 9H 3H 4D 7H 9C QC 7S AH QH 3D 4H 6S 8D 2D TH 8H QS 3S AS TC KS TD 8C 4C | 6D | "
        "AC KC 2C 4S 2H JD 8S 9D JH AD 5D 2S QD JS 6H JC 5C 6C 5S 9S 3C KD 7D"
    ),
    "TP1-E-QX4ZZ2A": (
        "6H 6C 5C 4H KC TS QH KS 8H 6D JD 3S 4D QS 6S 9D 5D JC 9S 7D AS 2H 2D 7C TD 7S 8D 5H | KH | "
        "QC 8C KD JS JH 2S 3H AC 7H 9H AH 5S 4S 3C AD QD TH 2C 9C 4C 8S TC 3D"
    ),
    "FT1-N-AAAAAAB": (
        "JC KS 7C 8C | AH 2S 6S AC | 7S TD QD 8S | KH 5H 2C TS | TC JD 2H AS | 2S 7H JH 8C | KC JS 9S 9S | "
        "TH 6H KD 3C | 8D JH 9D 3H | TC 7H 3C 9C | "
        "4C 7D QC AH 2H JC 4S 9H QH QS QH 5D KH KC 8S QS 4H 8D 4D 5S 3D QD 2C 5D AD 5S 8H 6D 9H TD 6D 3D "
        "4C KD 6C 6H KS 5H 5C 7D 4H JS AC JD 9C 3S 6S 4D TH 8H 2D TS 9D 3H 7C 6C 5C 4S 2D QC AD AS 3S 7S"
    ),
    "FT1-N-BCDEFGH": (
        "AH AD 7C 2C | 5D 8C QS 7H | 6H 9D KD 9S | 4S 6D 6H 5C | 8S 4C TC 7C | 7S KS 2H 7D | 4S JD 9C KC | "
        "8H TC AD 3C | JS AS JC 6C | JS 3H KD KC | "
        "9S 4C TS 5S 6S AS 3D QS 2D JC 6D 8D TD 6S 4D TH 7H 3S 2C JH 4H 5S TD AC QC 4D AH 9D 7S KS 8H TS "
        "3S 7D 2S JH 4H TH 2H 5D KH QD QH 3C 5H 5H 3H KH 6C JD 8S 2D 9H AC QH 3D 8D 5C QD 8C QC 2S 9C 9H"
    ),
}

GOLDEN_TP_AAAAAAB_TWO_JOKERS = (
    "8S AD JC JS QS 4D 8H JD 6H KS KD KH 7D AH 9H 4S QD 7C 6S 4C 2H JH 2D 5C TD TH 5S 6D | 5H | "
    "8D AS 5D 2S AC QH 3H JK 9D 3C 8C 7H TS QC 9C 3S 9S JK TC 3D 7S 6C 2C KC 4H"
)


@pytest.mark.parametrize("code", list(GOLDEN))
def test_golden_layouts(code):
    deal = decode_deal(code)
    assert str(deal) == GOLDEN[code]
    assert str(deal.code) == code
    assert deal.name == code


def test_golden_joker_layout():
    deal = decode_deal("TP1-E-AAAAAAB", jokers=2)
    assert str(deal) == GOLDEN_TP_AAAAAAB_TWO_JOKERS
    assert [i for i, c in enumerate(deal.stock) if c == JOKER] == [7, 17]
    one = decode_deal("TP1-E-AAAAAAB", jokers=1)
    assert [i for i, c in enumerate(one.stock) if c == JOKER] == [7]


def test_golden_deal_sizes():
    tp = decode_deal("TP1-E-AAAAAAB")
    assert isinstance(tp, TriPeaksDeal)
    assert (len(tp.tableau), len(tp.stock), tp.jokers) == (28, 23, 0)
    ft = decode_deal("FT1-N-AAAAAAB")
    assert isinstance(ft, FortyThievesDeal)
    assert [len(c) for c in ft.columns] == [4] * 10
    assert len(ft.stock) == 64


# --------------------------------------------------------------------------- PRNG and shuffle


def test_splitmix64_reference_values_for_seed_0():
    # The published SplitMix64 reference stream for state 0 (also Java's SplittableRandom(0)).
    rng = SplitMix64(0)
    assert [rng.next64() for _ in range(6)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
        0x1B39896A51A8749B,
        0x53CB9F0C747EA2EA,
    ]
    assert rng.state == (6 * 0x9E3779B97F4A7C15) & MASK64


def test_splitmix64_seed_is_masked_to_64_bits():
    a, b = SplitMix64(1 << 64 | 5), SplitMix64(5)
    assert [a.next64() for _ in range(3)] == [b.next64() for _ in range(3)]


def test_deal_rng_seeding_and_salts():
    assert game_spec("TP").salt == 0x5450 == int.from_bytes(b"TP", "big")
    assert game_spec("FT").salt == 0x4654 == int.from_bytes(b"FT", "big")
    assert deal_rng("TP", 1).state == (0x5450 << 48) | 1
    assert deal_rng("FT", 12345).state == (0x4654 << 48) | 12345


class _Scripted(SplitMix64):
    """A SplitMix64 whose outputs are given, to check the bounded draw's rejection."""

    __slots__ = ("values",)

    def __init__(self, values):
        super().__init__(0)
        self.values = list(values)

    def next64(self):
        return self.values.pop(0)


def test_below_rejects_the_biased_tail():
    # 2**64 % 3 == 1, so the last value 2**64 - 1 is rejected and the next one is used.
    assert _Scripted([MASK64, 5]).below(3) == 2
    assert _Scripted([MASK64 - 1]).below(3) == (MASK64 - 1) % 3
    # n a power of two: nothing is rejected.
    assert _Scripted([MASK64]).below(8) == 7
    assert _Scripted([7]).below(1) == 0


@given(st.integers(0, MASK64), st.integers(1, 1000))
@settings(max_examples=200, deadline=None)
def test_below_is_in_range(seed, n):
    rng = SplitMix64(seed)
    for _ in range(5):
        assert 0 <= rng.below(n) < n


def test_shuffle_is_fisher_yates_from_the_top():
    rng = SplitMix64(42)
    check = SplitMix64(42)
    cards = list(range(10))
    expected = list(range(10))
    for i in range(9, 0, -1):
        j = check.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert shuffle(cards, rng) is cards
    assert cards == expected
    assert rng.state == check.state


GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def reference_shuffle(cards, rng):
    """Fisher-Yates exactly as documented, one scalar ``below`` per step."""
    for i in range(len(cards) - 1, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _unxorshift(x, s):
    y = x
    for _ in range(64 // s + 1):
        y = x ^ (y >> s)
    return y


def inverse_mix(z):
    """The SplitMix64 state increment whose output is ``z`` (the mix function is a bijection)."""
    z = _unxorshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK64
    z = _unxorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK64
    return _unxorshift(z, 30)


def state_with_output(k, value):
    """A state whose output number ``k`` (0-based) is ``value``."""
    return (inverse_mix(value) - (k + 1) * GOLDEN_GAMMA) & MASK64


def test_state_with_output():
    rng = SplitMix64(state_with_output(3, 12345))
    assert [rng.next64() for _ in range(4)][3] == 12345


@given(st.integers(0, MASK64), st.integers(0, 130))
@settings(max_examples=300, deadline=None)
def test_shuffle_is_a_permutation_for_any_seed(seed, n):
    cards = list(range(n))
    rng = SplitMix64(seed)
    out = shuffle(list(cards), rng)
    assert sorted(out) == cards
    ref = SplitMix64(seed)
    assert out == reference_shuffle(list(cards), ref)
    assert rng.state == ref.state


@pytest.mark.parametrize(("n", "k"), [(3, 0), (52, 0), (52, 5), (52, 49), (104, 0), (104, 41), (104, 101)])
def test_shuffle_rejection_matches_the_reference(n, k):
    # Output k is 2**64 - 1: always rejected when the bound n - k is not a power of two.
    assert (n - k) & (n - k - 1)
    seed = state_with_output(k, MASK64)
    rng, ref = SplitMix64(seed), SplitMix64(seed)
    out = shuffle(list(range(n)), rng)
    assert out == reference_shuffle(list(range(n)), ref)
    assert rng.state == ref.state
    assert rng.state == (seed + n * GOLDEN_GAMMA) & MASK64  # n - 1 draws and one rejected


@pytest.mark.parametrize("n", [0, 1, 2, 104, 105])
def test_shuffle_small_and_large(n):
    rng, ref = SplitMix64(99), SplitMix64(99)
    assert shuffle(list(range(n)), rng) == reference_shuffle(list(range(n)), ref)
    assert rng.state == ref.state == (99 + max(n - 1, 0) * GOLDEN_GAMMA) & MASK64


def test_shuffle_of_two_decks_is_a_permutation():
    deck = list(range(52)) * 2
    out = shuffle(list(deck), SplitMix64(7))
    assert Counter(out) == Counter(deck)


# --------------------------------------------------------------------------- fill order


@pytest.mark.parametrize("seed", [0, 1, 2, 999, 2**35 - 1])
def test_tripeaks_fill_order(seed):
    d = shuffle(list(range(52)), SplitMix64((0x5450 << 48) | seed))
    deal = TriPeaksDeal.from_seed(seed)
    assert deal.tableau == tuple(d[:28])
    assert deal.waste == d[28]
    assert deal.stock == tuple(d[29:])


@pytest.mark.parametrize("seed", [0, 1, 2, 999, 2**35 - 1])
def test_forty_thieves_fill_order(seed):
    d = shuffle(list(range(52)) * 2, SplitMix64((0x4654 << 48) | seed))
    deal = FortyThievesDeal.from_seed(seed)
    for c in range(10):
        assert deal.columns[c] == tuple(d[4 * c : 4 * c + 4])
    assert deal.stock == tuple(d[40:])


def test_games_draw_different_streams_from_one_seed():
    tp = TriPeaksDeal.from_seed(1)
    ft = FortyThievesDeal.from_seed(1)
    assert list(tp.tableau[:4]) != list(ft.columns[0])


# --------------------------------------------------------------------------- seeds and codes


@pytest.mark.parametrize(
    ("text", "seed"),
    [
        ("AAAAAAA", 0),
        ("AAAAAAB", 1),
        ("AAAAAA7", 31),
        ("AAAAABA", 32),
        ("BAAAAAA", 32**6),
        ("7777777", 2**35 - 1),
        ("QX4ZZ2A", 17981826880),
        ("BCDEFGH", 1144132807),
    ],
)
def test_seed_text(text, seed):
    assert decode_seed(text) == seed
    assert encode_seed(seed) == text


def test_base32_alphabet_is_rfc4648():
    assert BASE32 == "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def test_seed_round_trip_over_random_seeds():
    rnd = random.Random(20240601)
    for _ in range(2000):
        seed = rnd.randrange(2**35)
        text = encode_seed(seed)
        assert len(text) == 7
        assert set(text) <= set(BASE32)
        assert decode_seed(text) == seed


@given(st.integers(0, 2**35 - 1))
def test_seed_round_trip_property(seed):
    assert decode_seed(encode_seed(seed)) == seed


@pytest.mark.parametrize("seed", [-1, 2**35, 2**40])
def test_encode_seed_out_of_range(seed):
    with pytest.raises(DealCodeError, match="seed"):
        encode_seed(seed)


@pytest.mark.parametrize(
    ("code", "canonical", "game", "rule", "seed"),
    [
        ("TP1-E-AAAAAAB", "TP1-E-AAAAAAB", "TP", "E", 1),
        ("tp1-e-aaaaaab", "TP1-E-AAAAAAB", "TP", "E", 1),
        ("  Tp1-c-QX4zz2a \n", "TP1-C-QX4ZZ2A", "TP", "C", 17981826880),
        ("TP1-N-AAAAAAB", "TP1-E-AAAAAAB", "TP", "E", 1),
        ("tp1-n-7777777", "TP1-E-7777777", "TP", "E", 2**35 - 1),
        ("\tFT1-N-BCDEFGH", "FT1-N-BCDEFGH", "FT", "N", 1144132807),
        ("ft1-n-aaaaaaa", "FT1-N-AAAAAAA", "FT", "N", 0),
    ],
)
def test_parse_deal_code(code, canonical, game, rule, seed):
    parsed = parse_deal_code(code)
    assert parsed == DealCode(game, rule, seed)
    assert str(parsed) == canonical
    assert canonical_code(code) == canonical


def test_rule_letter_sets_wrap():
    assert parse_deal_code("TP1-E-AAAAAAB").wrap is True
    assert parse_deal_code("TP1-N-AAAAAAB").wrap is True
    assert parse_deal_code("TP1-C-AAAAAAB").wrap is False


@pytest.mark.parametrize("seed_text", ["AAAAAAB", "AAAAAAA", "QX4ZZ2A", "7777777", "BCDEFGH"])
def test_rule_letter_never_changes_the_cards(seed_text):
    easy = decode_deal(f"TP1-E-{seed_text}")
    classic = decode_deal(f"TP1-C-{seed_text}")
    legacy = decode_deal(f"tp1-n-{seed_text.lower()}")
    assert easy == classic == legacy
    assert str(easy) == str(classic) == str(legacy)
    assert str(easy.code) == f"TP1-E-{seed_text}"
    assert str(classic.code) == f"TP1-C-{seed_text}"
    assert str(legacy.code) == f"TP1-E-{seed_text}"


def test_decode_deal_accepts_a_parsed_code():
    code = parse_deal_code("TP1-C-AAAAAAB")
    assert decode_deal(code) == decode_deal("TP1-C-AAAAAAB")


def test_random_code():
    import numpy as np

    a = random_code("TP", "N", np.random.default_rng(5))
    b = random_code("TP", "N", np.random.default_rng(5))
    assert a == b
    assert a.rule == "E"
    assert 0 <= a.seed < 2**35
    assert parse_deal_code(str(a)) == a
    f = random_code("FT", "N", np.random.default_rng(6))
    assert str(f).startswith("FT1-N-")


def test_errors_are_exported_and_value_errors():
    assert solitaire_env.DealCodeError is DealCodeError
    assert solitaire_env.DealStringError is DealStringError
    assert issubclass(DealCodeError, ValueError)
    assert issubclass(DealStringError, DealCodeError)


# Each malformed code and a word its message must contain (the message says what is wrong).
BAD_CODES = [
    ("", "empty"),
    ("   ", "empty"),
    ("TP1", "three parts"),
    ("TP1-E", "three parts"),
    ("TP1-E-AAAAAAB-X", "three parts"),
    ("TP1_E_AAAAAAB", "three parts"),
    ("TP1E-AAAAAAB", "three parts"),
    ("TP1-E-AAA-AAAB", "three parts"),
    ("1TP-E-AAAAAAB", "game and version"),
    ("T P1-E-AAAAAAB", "game and version"),
    ("TP1.0-E-AAAAAAB", "game and version"),
    ("--", "game and version"),
    ("XX1-E-AAAAAAB", "unknown game"),
    ("TR1-E-AAAAAAB", "unknown game"),
    ("TPX1-E-AAAAAAB", "unknown game"),
    ("TP-E-AAAAAAB", "version"),
    ("TP2-E-AAAAAAB", "version"),
    ("TP01-E-AAAAAAB", "version"),
    ("FT0-N-AAAAAAB", "version"),
    ("TP1--AAAAAAB", "rule"),
    ("TP1-X-AAAAAAB", "rule"),
    ("TP1-EE-AAAAAAB", "rule"),
    ("TP1-E1-AAAAAAB", "rule"),
    ("TP1-1-AAAAAAB", "rule"),
    ("FT1-E-AAAAAAB", "rule"),
    ("FT1-C-AAAAAAB", "rule"),
    ("TP1-E-", "7 characters"),
    ("TP1-E-AAAAAA", "7 characters"),
    ("TP1-E-AAAAAABA", "7 characters"),
    ("TP1-E-AAA AAAB", "7 characters"),
    ("TP1-E-AAAAAA\tB", "7 characters"),
    ("TP1-E-AAAAAA1", "base32"),
    ("TP1-E-AAAAAA0", "base32"),
    ("TP1-E-AAAAAA8", "base32"),
    ("TP1-E-AAAAAA9", "base32"),
    ("TP1-E-AAAAAA=", "base32"),
    ("TP1-E-AAAAA!B", "base32"),
    ("TP1-E-ÄAAAAAB", "base32"),
]


def test_bad_codes_are_distinct_and_many():
    assert len({code for code, _ in BAD_CODES}) == len(BAD_CODES) >= 25


@pytest.mark.parametrize(("code", "word"), BAD_CODES)
def test_malformed_deal_codes(code, word):
    with pytest.raises(DealCodeError) as info:
        parse_deal_code(code)
    assert word in str(info.value)
    assert not isinstance(info.value, DealStringError)
    with pytest.raises(ValueError):
        decode_deal(code)


@pytest.mark.parametrize("code", [None, 1, 1.5, b"TP1-E-AAAAAAB", ["TP1-E-AAAAAAB"]])
def test_non_string_deal_codes(code):
    with pytest.raises(DealCodeError, match="string"):
        parse_deal_code(code)


def test_bad_code_message_quotes_the_code_as_typed():
    with pytest.raises(DealCodeError, match="'tp1-q-aaaaaab'"):
        parse_deal_code("  tp1-q-aaaaaab  ")


# --------------------------------------------------------------------------- deal strings


def _rnd_seeds(n, salt):
    rnd = random.Random(salt)
    return [0, 1, 2**35 - 1, *(rnd.randrange(2**35) for _ in range(n))]


def test_tripeaks_deal_string_round_trip():
    for seed in _rnd_seeds(150, 1):
        for jokers in (0, 1, 2):
            deal = TriPeaksDeal.from_seed(seed, jokers=jokers)
            text = str(deal)
            back = TriPeaksDeal.parse(text)
            assert back == deal
            assert str(back) == text
            assert back.code is None
            assert back.name == text
            assert back.jokers == jokers


def test_forty_thieves_deal_string_round_trip():
    for seed in _rnd_seeds(60, 2):
        deal = FortyThievesDeal.from_seed(seed)
        text = str(deal)
        back = FortyThievesDeal.parse(text)
        assert back == deal
        assert str(back) == text
        assert back.name == text
        assert Counter(c for col in back.columns for c in col) + Counter(back.stock) == Counter(list(range(52)) * 2)


def test_deal_string_accepts_other_spellings():
    deal = decode_deal("TP1-E-AAAAAAB")
    text = str(deal).lower().replace("th", "10♥").replace("as", "a♠")
    text = "  " + text.replace(" | ", "|\n") + "\n"
    assert TriPeaksDeal.parse(text) == deal


def test_deal_string_section_layout():
    text = GOLDEN["TP1-E-AAAAAAB"]
    tableau, waste, stock = text.split(" | ")
    assert len(tableau.split()) == 28
    assert waste == "5H"
    assert len(stock.split()) == 23
    deal = TriPeaksDeal.parse(text)
    assert deal.tableau[0] == parse_card("8S")
    assert deal.tableau[27] == parse_card("6D")
    assert deal.stock[0] == parse_card("8D")
    assert deal.stock[-1] == parse_card("4H")


@pytest.mark.parametrize("jokers", [1, 2])
def test_jokers_only_change_the_stock(jokers):
    for seed in _rnd_seeds(40, 3):
        plain = TriPeaksDeal.from_seed(seed)
        joked = TriPeaksDeal.from_seed(seed, jokers=jokers)
        assert joked.tableau == plain.tableau
        assert joked.waste == plain.waste
        assert joked.jokers == jokers
        assert joked.stock.count(JOKER) == jokers
        assert len(joked.stock) == 23 + jokers
        assert tuple(c for c in joked.stock if c != JOKER) == plain.stock


def test_joker_count_is_checked():
    with pytest.raises(ValueError, match="jokers"):
        TriPeaksDeal.from_seed(1, jokers=3)


def test_decode_deal_jokers():
    assert decode_deal("TP1-E-AAAAAAB", jokers=1).jokers == 1


# A valid TriPeaks deal string split into its sections, to break in one way per case.
_TP = GOLDEN["TP1-E-AAAAAAB"]
_T, _W, _S = (part.split() for part in _TP.split(" | "))


def _tp(tableau, waste, stock):
    return " ".join(tableau) + " | " + " ".join(waste) + " | " + " ".join(stock)


BAD_TRIPEAKS_STRINGS = [
    ("", "empty"),
    ("   \n", "empty"),
    (_tp([*_T[:-1], _T[0]], _W, _S), "too many of 8S"),  # duplicated card (and 6D missing)
    (_tp(_T, _W, _S[:-1]), "missing: 4H"),  # 51 cards
    (_tp(_T, _W, [*_S, "AS"]), "too many of AS"),  # 53 cards
    (_tp(_T[:-1], _W, [*_S, _T[-1]]), "28 cards"),  # 27 in the tableau
    (_tp([*_T, _W[0]], [_S[0]], _S[1:]), "28 cards"),  # 29 in the tableau
    (_tp(_T, [*_W, _S[0]], _S[1:]), "exactly 1 card"),  # waste with 2 cards
    (_tp(_T, [], [*_W, *_S]), "exactly 1 card"),  # empty waste
    (_tp(["JK", *_T[1:]], _W, [*_S, _T[0]]), "joker"),  # joker in the tableau
    (_tp(_T, _W, [*_S, "JK", "JK", "JK"]), "at most 2 jokers"),
    (_tp(_T, _W, ["XX", *_S[1:]]), "stock, card 1"),  # bad token
    (_tp(["1H", *_T[1:]], _W, _S), "tableau, card 1"),
    (_tp(_T, ["5Z"], _S), "waste, card 1"),
    (" ".join(_T) + " | " + " ".join(_W + _S), "3 sections"),
    (_TP + " | ", "3 sections"),
    (" ".join(_T + _W + _S), "3 sections"),
]


def test_bad_tripeaks_strings_are_many():
    assert len({s for s, _ in BAD_TRIPEAKS_STRINGS}) == len(BAD_TRIPEAKS_STRINGS) >= 12


@pytest.mark.parametrize(("text", "word"), BAD_TRIPEAKS_STRINGS)
def test_malformed_tripeaks_deal_strings(text, word):
    with pytest.raises(DealStringError) as info:
        TriPeaksDeal.parse(text)
    assert word in str(info.value)


def test_tripeaks_deal_string_not_text():
    with pytest.raises(DealStringError, match="text"):
        TriPeaksDeal.parse(None)  # type: ignore[arg-type]


def test_tripeaks_deal_constructor_checks():
    deal = decode_deal("TP1-E-AAAAAAB")
    with pytest.raises(DealStringError, match="joker"):
        TriPeaksDeal((JOKER, *deal.tableau[1:]), deal.waste, (*deal.stock, deal.tableau[0]))
    with pytest.raises(DealStringError, match="28"):
        TriPeaksDeal(deal.tableau[:27], deal.waste, deal.stock)


def test_joker_may_start_the_waste():
    deal = TriPeaksDeal.parse(_tp(_T, ["JK"], [*_W, *_S]))
    assert deal.waste == JOKER
    assert deal.jokers == 1
    assert len(deal.stock) == 24


_FT = GOLDEN["FT1-N-AAAAAAB"]
_FT_PARTS = [part.split() for part in _FT.split(" | ")]
_COLS, _FS = _FT_PARTS[:10], _FT_PARTS[10]
_TWICE_IN_STOCK = next(c for c, n in Counter(_FS).items() if n == 2)


def _ft(cols, stock):
    return " | ".join(" ".join(p) for p in [*cols, stock])


BAD_FORTY_THIEVES_STRINGS = [
    ("", "empty"),
    (_ft(_COLS, [*_FS[:-1], _TWICE_IN_STOCK]), f"too many of {_TWICE_IN_STOCK}"),  # a card three times
    (_ft(_COLS, _FS[:-1]), "missing"),  # 103 cards
    (_ft(_COLS, [*_FS, "AS"]), "too many of AS"),  # 105 cards
    (_ft([_COLS[0][:3], *_COLS[1:]], [_COLS[0][3], *_FS]), "column 1: want 4 cards"),
    (_ft([*_COLS[:9], [*_COLS[9], _FS[0]]], _FS[1:]), "column 10: want 4 cards"),
    (_ft(_COLS, [*_FS[:-1], "JK"]), "joker"),
    (_ft(_COLS, [*_FS[:-1], "ZZ"]), "stock, card 64"),
    (_ft([["QQ", *_COLS[0][1:]], *_COLS[1:]], _FS), "column 1, card 1"),
    (" | ".join(" ".join(p) for p in [*_COLS[:9], _COLS[9] + _FS]), "11 sections"),
    (_FT + " | ", "11 sections"),
]


@pytest.mark.parametrize(("text", "word"), BAD_FORTY_THIEVES_STRINGS)
def test_malformed_forty_thieves_deal_strings(text, word):
    with pytest.raises(DealStringError) as info:
        FortyThievesDeal.parse(text)
    assert word in str(info.value)


def test_forty_thieves_constructor_checks():
    deal = decode_deal("FT1-N-AAAAAAB")
    with pytest.raises(DealStringError, match="10 columns"):
        FortyThievesDeal(deal.columns[:9], deal.stock)
    with pytest.raises(DealStringError, match="joker"):
        FortyThievesDeal(deal.columns, (*deal.stock[:-1], JOKER))
    with pytest.raises(DealStringError, match="missing"):
        FortyThievesDeal(deal.columns, ())


def test_deal_string_errors_are_deal_code_errors():
    with pytest.raises(DealCodeError):
        TriPeaksDeal.parse("nonsense")
    with pytest.raises(ValueError):
        FortyThievesDeal.parse("nonsense")


def test_num_cards_in_tripeaks_deal():
    deal = decode_deal("TP1-E-QX4ZZ2A")
    assert sorted([*deal.tableau, deal.waste, *deal.stock]) == list(range(NUM_CARDS))
