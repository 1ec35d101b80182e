"""TriPeaks layout tables and rule options.

Slots 0..27 in reading order: row 1 (the three apexes) 0-2, row 2 3-8, row 3 9-17,
row 4 (the bottom row) 18-27.  Apex ``p`` is covered by row-2 cards ``2p, 2p+1``;
row-2 card ``i`` by row-3 cards ``i + i//2, i + i//2 + 1``; row-3 card ``j`` by bottom
cards ``j, j+1`` (indices within their rows).  Everything here is a constant table or a
frozen value, shared by the game, the observers, the solver and the hints, and the pure
rule primitives (:func:`follows`, :func:`accept_masks`, :func:`newly_exposed`,
:func:`exposed_slots`, :func:`draw_allowed`, :func:`legal_bits`): every TriPeaks rule is
written here once in Python; :mod:`solitaire_env.tripeaks.kernels` holds their numba twins
(the only other copy), and ``tests/tripeaks/test_tripeaks_kernels.py`` ties the two together.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

NUM_SLOTS = 28
ALL_SLOTS = (1 << NUM_SLOTS) - 1
ROW_STARTS = (0, 3, 9, 18)
ROW_LENGTHS = (3, 6, 9, 10)
APEX_SLOTS = (0, 1, 2)
BOTTOM_SLOTS = tuple(range(18, 28))
BOTTOM_MASK = sum(1 << s for s in BOTTOM_SLOTS)
DRAW = NUM_SLOTS  # env action 28
#: Env actions: 0..27 remove the card of that slot, 28 draws.
NUM_ACTIONS = NUM_SLOTS + 1
#: Cards in the deck (card ids 0..51); the joker is card id 52 (:data:`solitaire_env.common.cards.JOKER`).
DECK_SIZE = 52
#: Ranks A..K (1..13); a waste *key* is a rank, or 0 for an empty waste or a joker (accepts any rank).
NUM_RANKS = 13
#: Waste keys 0..13 (0: empty waste or joker).
NUM_KEYS = NUM_RANKS + 1
#: Cards of the deal's stock with the waste card on the waste (52 - 28 - 1).
DEAL_STOCK = DECK_SIZE - NUM_SLOTS - 1
#: The most stock cards a game can have: the deal's 23, the waste card (``waste_start="empty"``)
#: and two jokers.
MAX_STOCK = DEAL_STOCK + 1 + 2


def _covering() -> tuple[tuple[int, ...], ...]:
    cover: list[tuple[int, ...]] = []
    for p in range(3):
        cover.append((3 + 2 * p, 3 + 2 * p + 1))
    for i in range(6):
        cover.append((9 + i + i // 2, 9 + i + i // 2 + 1))
    for j in range(9):
        cover.append((18 + j, 18 + j + 1))
    cover.extend(() for _ in range(10))
    return tuple(cover)


#: ``COVERED_BY[s]``: the slots whose cards lie on slot ``s``.
COVERED_BY: tuple[tuple[int, ...], ...] = _covering()
#: ``COVER_MASK[s]``: bit mask of ``COVERED_BY[s]``.
COVER_MASK: tuple[int, ...] = tuple(sum(1 << c for c in cs) for cs in COVERED_BY)
#: ``COVERS[s]``: the slots that slot ``s`` lies on (inverse of ``COVERED_BY``).
COVERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(NUM_SLOTS) if s in COVERED_BY[t]) for s in range(NUM_SLOTS)
)
#: Row (0..3) of each slot.
ROW_OF: tuple[int, ...] = tuple(r for r, n in enumerate(ROW_LENGTHS) for _ in range(n))


def _peak_slots(p: int) -> tuple[int, ...]:
    """The six upper cards of peak ``p``: its apex, two row-2 and three row-3 cards."""
    return (p, 3 + 2 * p, 4 + 2 * p, 9 + 3 * p, 10 + 3 * p, 11 + 3 * p)


#: The app's peak groups for its +100 bonus: left 9, centre 9, right 10 cards.
PEAK_GROUPS: tuple[tuple[int, ...], ...] = (
    (*_peak_slots(0), 18, 19, 20),
    (*_peak_slots(1), 21, 22, 23),
    (*_peak_slots(2), 24, 25, 26, 27),
)
PEAK_GROUP_MASKS: tuple[int, ...] = tuple(sum(1 << s for s in g) for g in PEAK_GROUPS)
#: Peak group (0..2) of each slot.
GROUP_OF: tuple[int, ...] = tuple(
    next(g for g, slots in enumerate(PEAK_GROUPS) if s in slots) for s in range(NUM_SLOTS)
)

DrawPolicy = Literal["anytime", "when_stuck"]
Faces = Literal["standard", "open"]
WasteStart = Literal["card", "empty"]


@dataclass(frozen=True)
class TriPeaksRules:
    """The rule options (docs/tripeaks_rules.md; defaults first).

    - ``wrap``: K and A are adjacent (the ``E`` rule of deal codes; ``C`` is ``False``).
    - ``draw``: ``"anytime"``, or ``"when_stuck"`` (traditional: only when no removal is legal).
    - ``faces``: ``"standard"`` (18 face down) or ``"open"`` (all 28 face up from the start).
    - ``waste_start``: ``"card"`` (the deal's waste card starts the waste) or ``"empty"``
      (that card is the first stock card instead, so the stock has 24; the first play may be
      any exposed card).
    - ``jokers``: 0, 1 or 2 jokers shuffled into the stock; a joker on the waste accepts any rank.
    - ``undo_limit``: ``None`` for unlimited undo, else how many moves can be undone.
    """

    wrap: bool = True
    draw: DrawPolicy = "anytime"
    faces: Faces = "standard"
    waste_start: WasteStart = "card"
    jokers: int = 0
    undo_limit: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.wrap, bool):
            raise ValueError(f"wrap must be True or False, got {self.wrap!r}")
        if self.draw not in ("anytime", "when_stuck"):
            raise ValueError(f"draw must be 'anytime' or 'when_stuck', got {self.draw!r}")
        if self.faces not in ("standard", "open"):
            raise ValueError(f"faces must be 'standard' or 'open', got {self.faces!r}")
        if self.waste_start not in ("card", "empty"):
            raise ValueError(f"waste_start must be 'card' or 'empty', got {self.waste_start!r}")
        if self.jokers not in (0, 1, 2) or isinstance(self.jokers, bool):
            raise ValueError(f"jokers must be 0, 1 or 2, got {self.jokers!r}")
        if self.undo_limit is not None and (
            isinstance(self.undo_limit, bool) or not isinstance(self.undo_limit, int) or self.undo_limit < 0
        ):
            raise ValueError(f"undo_limit must be None or a whole number >= 0, got {self.undo_limit!r}")

    @property
    def rule_letter(self) -> str:
        """The deal-code rule letter these rules correspond to (``E`` wraps, ``C`` does not)."""
        return "E" if self.wrap else "C"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- rule primitives
# Each has a numba twin of the same name in solitaire_env.tripeaks.kernels.


def card_key(card: int | None) -> int:
    """The waste key a card makes: its rank 1..13, or 0 for a joker or no card (empty waste)."""
    if card is None or card < 0 or card >= DECK_SIZE:
        return 0
    return card % NUM_RANKS + 1


def follows(key: int, rank: int, wrap: bool) -> bool:
    """Whether a card of ``rank`` (1..13) may be played on waste key ``key``: one rank above or
    below, K-A adjacent only with ``wrap``; key 0 (an empty waste or a joker) takes any rank.
    Rank 0 (a card not known) follows nothing but key 0."""
    if key == 0:
        return True
    if rank == 0:
        return False
    diff = abs(key - rank)
    return diff == 1 or (wrap and diff == NUM_RANKS - 1)


#: ``FOLLOWERS[wrap][key]``: the ranks 1..13 that :func:`follows` waste key ``key`` (0..13), made
#: from :func:`follows` once.
FOLLOWERS = tuple(
    tuple(tuple(r for r in range(1, NUM_RANKS + 1) if follows(key, r, w)) for key in range(NUM_KEYS))
    for w in (False, True)
)

#: A rank index that no slot holds (:func:`accept_masks` pads a key with one follower with it).
_NO_RANK = NUM_RANKS + 1
#: ``_FOLLOWER_PAIRS[wrap][key - 1]``: :data:`FOLLOWERS` of keys 1..13 as two rank indices each
#: (a rank has at most two neighbours; a missing one is :data:`_NO_RANK`), so that an env reset
#: builds its accept masks with 13 lookups.
_FOLLOWER_PAIRS = tuple(tuple((*ranks, _NO_RANK, _NO_RANK)[:2] for ranks in by_key[1:]) for by_key in FOLLOWERS)
assert all(len(ranks) <= 2 for by_key in FOLLOWERS for ranks in by_key[1:])


#: Bits 1..13 of a rank set (bit ``r``: rank ``r``).
RANK_BITS = ((1 << NUM_RANKS) - 1) << 1


def near_ranks(rank_set: int, wrap: bool) -> int:
    """The rank set (bit ``r``: rank ``r``, 1..13) of the ranks that :func:`follows` some rank
    of ``rank_set`` (bits other than 1..13 are ignored)."""
    return sum(
        1 << q
        for q in range(1, NUM_RANKS + 1)
        if any(follows(r, q, wrap) for r in range(1, NUM_RANKS + 1) if rank_set >> r & 1)
    )


def adjacent_ranks(rank: int, wrap: bool) -> tuple[int, ...]:
    """Ranks that may be played on a waste card of ``rank`` (1..13), lower one first."""
    down = rank - 1 if rank > 1 else NUM_RANKS
    up = rank + 1 if rank < NUM_RANKS else 1
    return tuple(r for r in (down, up) if follows(rank, r, wrap))


def accept_masks(slot_ranks: tuple[int, ...] | list[int], wrap: bool) -> tuple[int, ...]:
    """``accept[k]`` for waste keys ``k = 0..13``: the bit mask of the slots whose rank may be
    played on key ``k`` (:func:`follows`).  ``slot_ranks[s]``: rank of slot ``s``'s card, 0
    where it is not known (such a slot is only in ``accept[0]``, which is every slot)."""
    by_rank = [0] * (_NO_RANK + 1)
    for slot, rank in enumerate(slot_ranks):
        by_rank[rank] |= 1 << slot
    return (ALL_SLOTS, *[by_rank[a] | by_rank[b] for a, b in _FOLLOWER_PAIRS[bool(wrap)]])


def newly_exposed(removed: int, slot: int) -> int:
    """The slots that removing ``slot`` exposes, given ``removed`` (the removed-slot mask after
    the removal, ``slot`` included): those ``slot`` lay on whose covering cards are now all
    removed.  A card is exposed when every card covering it is removed."""
    out = 0
    for cover, bit in _UNCOVER[slot]:
        if removed & cover == cover:
            out |= bit
    return out


#: ``_UNCOVER[s]``: ``(COVER_MASK[t], 1 << t)`` for each slot ``t`` in ``COVERS[s]`` (what
#: :func:`newly_exposed` tests, paired once so that a move does no indexing or shifting).
_UNCOVER: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((COVER_MASK[t], 1 << t) for t in COVERS[s]) for s in range(NUM_SLOTS)
)


def exposed_slots(removed: int) -> int:
    """The exposed slots of a removed-slot mask: not removed, every covering card removed."""
    out = 0
    for s in range(NUM_SLOTS):
        if not removed >> s & 1 and removed & COVER_MASK[s] == COVER_MASK[s]:
            out |= 1 << s
    return out


def remove_slot(removed: int, exposed: int, slot: int) -> tuple[int, int]:
    """``(removed, exposed)`` after removing the exposed card of ``slot``."""
    bit = 1 << slot
    removed |= bit
    return removed, (exposed & ~bit) | newly_exposed(removed, slot)


def draw_allowed(stock_left: int, removable: int, when_stuck: bool) -> bool:
    """Whether a draw is legal: a card is left in the stock and, under ``draw="when_stuck"``,
    no removal is legal (``removable``: mask of the legal removals)."""
    return stock_left > 0 and not (when_stuck and removable)


#: ``DRAW_BITS[when_stuck][stock_left > 0][removable != 0]``: the draw's bit of the legal mask
#: (``1 << DRAW``) where :func:`draw_allowed` allows it, else 0; made from it once (the env's
#: step reads it through :func:`legal_bits` instead of calling it).
DRAW_BITS = tuple(
    tuple(tuple((1 << DRAW) * draw_allowed(left, removable, bool(stuck)) for removable in (0, 1)) for left in (0, 1))
    for stuck in (0, 1)
)

#: ``CARD_KEYS[card]``: :func:`card_key` of every card id, the joker (52) last; the game's hot path
#: indexes it.
CARD_KEYS = tuple(card_key(card) for card in range(DECK_SIZE + 1))


def legal_bits(removed: int, removable: int, stock_left: int, when_stuck: bool) -> int:
    """The legal-action mask (bit 28 = draw) of a position: nothing once all 28 are removed."""
    if removed == ALL_SLOTS:
        return 0
    return removable | DRAW_BITS[when_stuck][stock_left > 0][removable != 0]
