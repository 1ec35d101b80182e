"""Deal codes, the package's own PRNG and shuffle, and deals written card by card.

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
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from solitaire_env.common.cards import JOKER, NUM_CARDS, CardError, card_text, parse_card
from solitaire_env.games import GAMES, GameCode, GameName, game_spec

__all__ = [
    "BASE32",
    "GAME_SALT",
    "RULE_LETTERS",
    "SEED_BITS",
    "Deal",
    "DealCode",
    "DealCodeError",
    "DealStringError",
    "FortyThievesDeal",
    "GameCode",
    "GameName",
    "SplitMix64",
    "TriPeaksDeal",
    "canonical_code",
    "deal_rng",
    "decode_deal",
    "decode_seed",
    "draw_codes",
    "encode_seed",
    "parse_deal_code",
    "random_code",
    "shuffle",
]

_D = TypeVar("_D")
MASK64 = (1 << 64) - 1
SEED_BITS = 35
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
#: Salt per game (its code letters in ASCII), so that the games draw different streams from one seed.
GAME_SALT: dict[str, int] = {g.code: g.salt for g in GAMES}  # 0x5450 "TP", 0x4654 "FT"
#: Rule letters each game accepts, and the canonical letter each is read as (from :mod:`solitaire_env.games`).
RULE_LETTERS: dict[str, dict[str, str]] = {g.code: dict(g.rule_letters) for g in GAMES}
TABLEAU_SLOTS = 28
FT_COLUMNS = 10
FT_COLUMN_DEPTH = 4


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


def _unchecked(cls: type[_D], **fields: object) -> _D:
    """Build a deal known to be valid (made by the package's own shuffle) without re-checking it."""
    deal = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(deal, name, value)
    return deal


def deal_rng(game: GameCode | GameName, seed: int) -> SplitMix64:
    """The deal stream of a game (by code letters or name) and a seed."""
    salt = GAME_SALT.get(game)
    return SplitMix64(((game_spec(game).salt if salt is None else salt) << 48) | seed)


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
    if game not in GAME_SALT:
        want = " or ".join(f"{g.code} ({g.title})" for g in GAMES)
        raise DealCodeError(f"deal code {code.strip()!r}: unknown game {game!r}; want {want}")
    if version != "1":
        raise DealCodeError(f"deal code {code.strip()!r}: unsupported version {version or '(none)'!r}; want {game}1")
    letters = RULE_LETTERS[game]
    if rule not in letters:
        want = "E (Easy), C (Classic) or N (legacy Easy)" if game == "TP" else "N"
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
    return DealCode(game, letters[rule], decode_seed(seed_text))  # type: ignore[arg-type]


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


def _sections(text: object, want: int, what: str) -> list[list[str]]:
    if not isinstance(text, str):
        raise DealStringError(f"a {what} deal string is text, not {type(text).__name__}")
    if not text.strip():
        raise DealStringError(f"empty {what} deal string")
    parts = [p.split() for p in text.split("|")]
    if len(parts) != want:
        raise DealStringError(f"a {what} deal string has {want} sections separated by ' | ', got {len(parts)}")
    return parts


def _read_cards(tokens: list[str], section: str, allow_joker: bool) -> list[int]:
    out = []
    for i, tok in enumerate(tokens):
        try:
            out.append(parse_card(tok, allow_joker=allow_joker))
        except CardError as exc:
            raise DealStringError(f"{section}, card {i + 1}: {exc}") from None
    return out


def _check_counts(cards: list[int], copies: int, what: str) -> None:
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


@dataclass(frozen=True)
class TriPeaksDeal:
    """A TriPeaks deal: 28 tableau cards in slot order, the waste card, the stock in draw order.

    ``str()`` is the deal string ``<28 cards> | <waste> | <stock>``; :meth:`parse` reads
    one back.  Jokers (``JK``) may stand in the stock or on the waste, never in the tableau.
    """

    tableau: tuple[int, ...]
    waste: int
    stock: tuple[int, ...]
    code: DealCode | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.tableau) != TABLEAU_SLOTS:
            raise DealStringError(f"tableau: want 28 cards in slot order, got {len(self.tableau)}")
        if JOKER in self.tableau:
            raise DealStringError("tableau: a joker (JK) may only be in the stock or on the waste")
        cards = [*self.tableau, self.waste, *self.stock]
        jokers = cards.count(JOKER)
        if jokers > 2:
            raise DealStringError(f"at most 2 jokers, got {jokers}")
        _check_counts(cards, 1, "TriPeaks deal")
        if len(cards) != NUM_CARDS + jokers:
            raise DealStringError(f"TriPeaks deal: want 52 cards (+ jokers), got {len(cards)}")

    @property
    def jokers(self) -> int:
        return (self.waste == JOKER) + self.stock.count(JOKER)

    @classmethod
    def from_seed(cls, seed: int, *, jokers: int = 0, rule: str = "E") -> TriPeaksDeal:
        """Deal of a seed: shuffled deck d, tableau d[0:28], waste d[28], stock d[29:52].

        With jokers, each joker is then inserted into the stock at ``rng.below(len + 1)``
        drawn from the same stream, so the tableau and waste never change with the option.
        """
        if jokers not in (0, 1, 2):
            raise ValueError(f"jokers must be 0, 1 or 2, got {jokers!r}")
        rng = deal_rng("TP", seed)
        deck = shuffle(list(range(NUM_CARDS)), rng)
        stock = deck[29:]
        for _ in range(jokers):
            stock.insert(rng.below(len(stock) + 1), JOKER)
        code = DealCode("TP", RULE_LETTERS["TP"][rule], seed)
        return _unchecked(cls, tableau=tuple(deck[:28]), waste=deck[28], stock=tuple(stock), code=code)

    @classmethod
    def parse(cls, text: str) -> TriPeaksDeal:
        tableau, waste, stock = _sections(text, 3, "TriPeaks")
        if len(tableau) != TABLEAU_SLOTS:
            raise DealStringError(f"tableau section: want 28 cards in slot order, got {len(tableau)}")
        if len(waste) != 1:
            raise DealStringError(f"waste section: want exactly 1 card, got {len(waste)}")
        return cls(
            tuple(_read_cards(tableau, "tableau", False)),
            _read_cards(waste, "waste", True)[0],
            tuple(_read_cards(stock, "stock", True)),
        )

    def __str__(self) -> str:
        return " | ".join(" ".join(card_text(c) for c in part) for part in (self.tableau, (self.waste,), self.stock))

    @property
    def name(self) -> str:
        """The deal code if the deal came from one, else the deal string."""
        return str(self.code) if self.code is not None else str(self)


@dataclass(frozen=True)
class FortyThievesDeal:
    """A Forty Thieves deal: 10 columns of 4 (bottom to top), then the stock in draw order."""

    columns: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    code: DealCode | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.columns) != FT_COLUMNS:
            raise DealStringError(f"want 10 columns, got {len(self.columns)}")
        for i, col in enumerate(self.columns):
            if len(col) != FT_COLUMN_DEPTH:
                raise DealStringError(f"column {i + 1}: want 4 cards, got {len(col)}")
        cards = [c for col in self.columns for c in col] + list(self.stock)
        if JOKER in cards:
            raise DealStringError("Forty Thieves has no jokers")
        _check_counts(cards, 2, "Forty Thieves deal")
        if len(cards) != 2 * NUM_CARDS:
            raise DealStringError(f"Forty Thieves deal: want 104 cards, got {len(cards)}")

    @classmethod
    def from_seed(cls, seed: int, *, rule: str = "N") -> FortyThievesDeal:
        """Deal of a seed: shuffled two-deck d, column c = d[4c:4c+4] bottom to top, stock d[40:]."""
        deck = shuffle(list(range(NUM_CARDS)) * 2, deal_rng("FT", seed))
        cols = tuple(tuple(deck[4 * c : 4 * c + 4]) for c in range(FT_COLUMNS))
        code = DealCode("FT", RULE_LETTERS["FT"][rule], seed)
        return _unchecked(cls, columns=cols, stock=tuple(deck[40:]), code=code)

    @classmethod
    def parse(cls, text: str) -> FortyThievesDeal:
        parts = _sections(text, FT_COLUMNS + 1, "Forty Thieves")
        cols = []
        for i, tokens in enumerate(parts[:FT_COLUMNS]):
            if len(tokens) != FT_COLUMN_DEPTH:
                raise DealStringError(f"column {i + 1}: want 4 cards bottom to top, got {len(tokens)}")
            cols.append(tuple(_read_cards(tokens, f"column {i + 1}", False)))
        return cls(tuple(cols), tuple(_read_cards(parts[-1], "stock", False)))

    def __str__(self) -> str:
        return " | ".join(" ".join(card_text(c) for c in part) for part in (*self.columns, self.stock))

    @property
    def name(self) -> str:
        return str(self.code) if self.code is not None else str(self)


Deal = TriPeaksDeal | FortyThievesDeal


def decode_deal(code: str | DealCode, *, jokers: int = 0) -> Deal:
    """The deal a code stands for (``jokers`` applies to TriPeaks only); see :func:`solitaire_env.games.decode_deal`."""
    from solitaire_env.games import decode_deal as _decode_deal

    return _decode_deal(code, jokers=jokers)
