"""Deal codes, the package's own PRNG and shuffle, and the parsing helpers of deal strings.

The deals themselves live with their games (:class:`solitaire_env.tripeaks.deal.TriPeaksDeal`,
:class:`solitaire_env.fortythieves.deal.FortyThievesDeal`).

A deal code is ``<GAME>1-<RULE>-<SEED7>`` (``TP1-E-AAAAAAB``, ``FT1-N-QX4ZZ2A``): see
``docs/deals.md`` for the full contract.  The layout is a fixed function of (game,
seed): :class:`SplitMix64` seeded with ``(salt << 48) | seed`` drives a Fisher-Yates
shuffle of the ordered deck, and the shuffled deck fills tableau, waste and stock in
a documented order.  Neither numpy's nor Python's ``random`` is used, so a code deals
the same cards forever.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from solitaire_env.common.cards import JOKER, NUM_CARDS, CardError, card_text, parse_card
from solitaire_env.games import GAMES, GameCode, GameName, GameSpec, game_spec

__all__ = [
    "BASE32",
    "SEED_BITS",
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "GameCode",
    "GameName",
    "SplitMix64",
    "canonical_code",
    "check_counts",
    "deal_rng",
    "deal_sections",
    "decode_seed",
    "draw_codes",
    "encode_seed",
    "parse_deal_code",
    "random_code",
    "read_cards",
    "shuffle",
    "unchecked",
]

_D = TypeVar("_D")
MASK64 = (1 << 64) - 1
SEED_BITS = 35
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


class DealCodeError(ValueError):
    """A deal code (or a deal string) that cannot be read; the message says what is wrong."""


class DealStringError(DealCodeError):
    """A deal written card by card that cannot be read or is not a valid deal."""


# --------------------------------------------------------------------------- PRNG


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014): the package's only source of deal randomness."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` by rejection (no modulo bias)."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def _outputs_array(state: int, count: int) -> np.ndarray:
    """The next ``count`` outputs of SplitMix64 from ``state``, computed as one numpy array.

    SplitMix64 is counter-based (output k mixes ``state + k * golden``), so the whole run
    is a few vector operations; uint64 arithmetic wraps modulo 2**64 exactly as the scalar
    generator's masking does.
    """
    z = np.add(_STEPS[:count], np.uint64(state))
    tmp = np.empty_like(z)
    for shift, mix in ((_S30, _MIX1), (_S27, _MIX2)):
        np.right_shift(z, shift, out=tmp)
        np.bitwise_xor(z, tmp, out=z)
        np.multiply(z, mix, out=z)
    np.right_shift(z, _S31, out=tmp)
    np.bitwise_xor(z, tmp, out=z)
    return z


_STEPS = np.uint64(0x9E3779B97F4A7C15) * np.arange(1, 2 * NUM_CARDS + 1, dtype=np.uint64)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
#: ``_MAX_ACCEPTED[n]``: the largest output accepted when drawing below n (``SplitMix64.below``).
_MAX_ACCEPTED = np.array([0] + [(1 << 64) - (1 << 64) % n - 1 for n in range(1, 2 * NUM_CARDS + 1)], dtype=np.uint64)
#: No draw below any n <= 104 rejects an output at or under this value.
_NEVER_REJECTED = np.uint64(int(_MAX_ACCEPTED[2:].min()))
#: Bounds of the Fisher-Yates draws for the largest deck, n, n-1, .., 2 (a suffix serves smaller decks).
_BOUNDS_DESC = np.arange(2 * NUM_CARDS, 1, -1, dtype=np.uint64)


def shuffle(cards: list[int], rng: SplitMix64) -> list[int]:
    """Fisher-Yates in place: for i from n-1 down to 1, swap i with ``rng.below(i + 1)``.

    Same result as calling ``rng.below`` in the loop, with the generator's outputs and
    the swap indices computed as vectors; a rejection (chance about n / 2**64 per draw)
    falls back to the scalar generator from that draw on.
    """
    n = len(cards)
    if n < 2:
        return cards
    start = 0
    if n <= 2 * NUM_CARDS:
        z = _outputs_array(rng.state, n - 1)
        bounds = _BOUNDS_DESC[2 * NUM_CARDS - n :]
        start = n - 1
        if z.max() > _NEVER_REJECTED:  # only then can a draw be rejected: find the first one
            rejected = np.flatnonzero(z > _MAX_ACCEPTED[bounds])
            if len(rejected):
                start = int(rejected[0])
        for i, j in zip(range(n - 1, n - 1 - start, -1), (z[:start] % bounds[:start]).tolist()):
            cards[i], cards[j] = cards[j], cards[i]
        rng.state = (rng.state + start * 0x9E3779B97F4A7C15) & MASK64
    for i in range(n - 1 - start, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


_TWO64 = 1 << 64


def unchecked(cls: type[_D], **fields: object) -> _D:
    """Build a deal known to be valid (made by the package's own shuffle) without re-checking it."""
    deal = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(deal, name, value)
    return deal


def deal_rng(game: GameCode | GameName, seed: int) -> SplitMix64:
    """The deal stream of a game (by code letters or name) and a seed."""
    return SplitMix64((game_spec(game).salt << 48) | seed)


# --------------------------------------------------------------------------- codes


def encode_seed(seed: int) -> str:
    """SEED7 text of a 35-bit seed: base32 (RFC 4648 alphabet), big-endian, A = 0."""
    if not 0 <= seed < 1 << SEED_BITS:
        raise DealCodeError(f"seed {seed} is outside 0 .. 2**35 - 1")
    return "".join(BASE32[(seed >> (5 * (6 - i))) & 31] for i in range(7))


def decode_seed(text: str) -> int:
    seed = 0
    for ch in text:
        seed = seed * 32 + BASE32.index(ch)
    return seed


@dataclass(frozen=True)
class DealCode:
    """A parsed deal code; ``str()`` gives the canonical upper-case form."""

    game: GameCode
    rule: str
    seed: int

    def __str__(self) -> str:
        return f"{self.game}1-{self.rule}-{encode_seed(self.seed)}"

    @property
    def wrap(self) -> bool:
        """TriPeaks: whether K and A are adjacent (rule ``E``)."""
        return self.rule == "E"


_CODE_SHAPE = re.compile(r"^([A-Z]+)(\d*)-([A-Z0-9]*)-(.*)$")


def parse_deal_code(code: object) -> DealCode:
    """Read a deal code (case-insensitive, surrounding blanks ignored)."""
    if not isinstance(code, str):
        raise DealCodeError(f"a deal code is a string like 'TP1-E-AAAAAAB', not {type(code).__name__}")
    text = code.strip().upper()
    if not text:
        raise DealCodeError("empty deal code; want a code like 'TP1-E-AAAAAAB'")
    if text.count("-") != 2:
        raise DealCodeError(
            f"deal code {code.strip()!r} must have three parts separated by '-': GAME1-RULE-SEED7, like 'TP1-E-AAAAAAB'"
        )
    m = _CODE_SHAPE.match(text)
    if not m:
        raise DealCodeError(f"deal code {code.strip()!r} must start with a game and version, like 'TP1' or 'FT1'")
    game, version, rule, seed_text = m.groups()
    spec = next((g for g in GAMES if g.code == game), None)
    if spec is None:
        want = " or ".join(f"{g.code} ({g.title})" for g in GAMES)
        raise DealCodeError(f"deal code {code.strip()!r}: unknown game {game!r}; want {want}")
    if version != "1":
        raise DealCodeError(f"deal code {code.strip()!r}: unsupported version {version or '(none)'!r}; want {game}1")
    letters = spec.rule_letters
    if rule not in letters:
        want = rule_letters_text(spec)
        raise DealCodeError(f"deal code {code.strip()!r}: unknown rule {rule or '(none)'!r} for {game}; want {want}")
    if len(seed_text) != 7:
        raise DealCodeError(
            f"deal code {code.strip()!r}: the seed must be 7 characters, got {len(seed_text)} ({seed_text!r})"
        )
    bad = sorted({ch for ch in seed_text if ch not in BASE32})
    if bad:
        raise DealCodeError(
            f"deal code {code.strip()!r}: seed characters {''.join(bad)!r} are not in the base32 alphabet A-Z 2-7"
        )
    return DealCode(game, letters[rule], decode_seed(seed_text))


def rule_letters_text(spec: GameSpec) -> str:
    """The rule letters a game's codes take, in words: ``E (Easy), C (Classic) or N (legacy Easy)``."""
    if len(spec.rule_letters) == 1:
        return next(iter(spec.rule_letters))

    def short(letter: str) -> str:
        return spec.letter_names[letter].split(" (")[0]

    words = [f"{k} ({short(v)})" if k == v else f"{k} (legacy {short(v)})" for k, v in spec.rule_letters.items()]
    return ", ".join(words[:-1]) + " or " + words[-1]


def canonical_code(code: str) -> str:
    return str(parse_deal_code(code))


def random_code(game: GameCode | GameName, rule: str, rng: np.random.Generator) -> DealCode:
    """A code with a seed drawn from ``rng`` (an env's ``np_random``); ``game`` by code letters or name."""
    seed = int(rng.bit_generator.random_raw()) >> (64 - SEED_BITS)  # the top 35 bits of one raw draw
    spec = game_spec(game)
    return DealCode(spec.code, spec.rule_letters[rule], seed)


def draw_codes(n: int, seed: int, game: GameCode | GameName = "TP", rule: str = "E") -> list[str]:
    """``n`` canonical deal codes drawn from ``numpy.random.default_rng(seed)`` by :func:`random_code`.

    The same draw an env makes on ``reset(seed=seed)``: the first code of seed S is the code of
    ``env.reset(seed=S)``, and code k of a seed never depends on ``n``.  ``game`` by code
    letters (``"TP"``) or name (``"tripeaks"``).
    """
    if n < 0:
        raise ValueError(f"the number of deals must be >= 0, got {n!r}")
    rng = np.random.default_rng(seed)
    return [str(random_code(game, rule, rng)) for _ in range(n)]


# --------------------------------------------------------------------------- deal strings


def deal_sections(text: object, want: int, what: str) -> list[list[str]]:
    if not isinstance(text, str):
        raise DealStringError(f"a {what} deal string is text, not {type(text).__name__}")
    if not text.strip():
        raise DealStringError(f"empty {what} deal string")
    parts = [p.split() for p in text.split("|")]
    if len(parts) != want:
        raise DealStringError(f"a {what} deal string has {want} sections separated by ' | ', got {len(parts)}")
    return parts


def read_cards(tokens: list[str], section: str, allow_joker: bool) -> list[int]:
    out = []
    for i, tok in enumerate(tokens):
        try:
            out.append(parse_card(tok, allow_joker=allow_joker))
        except CardError as exc:
            raise DealStringError(f"{section}, card {i + 1}: {exc}") from None
    return out


def check_counts(cards: list[int], copies: int, what: str) -> None:
    counts = Counter(c for c in cards if c != JOKER)
    over = sorted(c for c, n in counts.items() if n > copies)
    if over:
        times = "once" if copies == 1 else f"{copies} times"
        listed = " ".join(card_text(c) for c in over)
        raise DealStringError(f"{what}: each card must appear exactly {times}; too many of {listed}")
    missing = sorted(c for c in range(NUM_CARDS) if counts[c] < copies)
    if missing:
        listed = " ".join(card_text(c) for c in missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise DealStringError(f"{what}: {len(missing)} card(s) missing: {listed}")
