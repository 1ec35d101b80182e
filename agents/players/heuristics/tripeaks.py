"""TriPeaks heuristic agents: public information only, deterministic.

Each agent reads only the position's knowledge object (``state.knowledge``, a
:class:`~solitaire_env.tripeaks.knowledge.TriPeaksKnowledge`: the ranks of the slots ever seen,
the removed slots, the waste key, the stock count, the counts of the ranks never seen and the
legal moves); none of them can see a face-down card or the stock order.  Only
``random_stuck`` uses randomness, from :meth:`PublicState.rng` (seeded by the agent's seed and
the public information).

- ``random_stuck``: a uniformly random legal removal; draw only when no removal is legal (the
  seed tip "draw only when stuck", and nothing else: a baseline).
- ``reveal_first``: greedy, the removal that turns the most face-down cards up at once
  ("reveal face-down cards first"), upper slots first; draw only when stuck.
- ``longest_chain``: the removal that starts the longest chain of known removals ("look for
  long chains before drawing"), upper slots first; draw only when stuck.
- ``peaks_even``: reveal first, then the removal in the peak with the most face-down cards
  left ("break the three peaks evenly", "do not leave the middle peak for last").
- ``hint``: the hint's advice (:func:`solitaire_env.hints.tripeaks_advice`: reveal now,
  the longest known chain, the most unseen cards that can follow its end, K/A bridges).
- ``lookahead``: the chain planner that looks one stock draw ahead: it lists the positions its
  known removals can reach before the next draw (and the draw now), and plays towards the one
  with the most cards expected to be cleared after the next draw (an expectation over the
  ranks of the unseen cards: "count the cards that can still follow", "a long chain is worth
  more than a draw saved").  See :class:`LookaheadAgent`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any, cast

from agents.base import Agent, PublicState
from solitaire_env.tripeaks.advice import tripeaks_advice
from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge
from solitaire_env.tripeaks.rules import (
    ALL_SLOTS,
    COVERS,
    DRAW,
    GROUP_OF,
    NUM_KEYS,
    NUM_RANKS,
    NUM_SLOTS,
    PEAK_GROUP_MASKS,
    RANK_BITS,
    exposed_slots,
    follows,
    newly_exposed,
    remove_slot,
)

__all__ = [
    "HintAgent",
    "LongestChainAgent",
    "LookaheadAgent",
    "PeaksEvenAgent",
    "RandomStuckAgent",
    "RevealFirstAgent",
]

#: ``_ADJACENT[wrap][key]``: bit ``r`` set when a card of rank ``r`` may be played on a waste
#: key ``key`` (1..13; key 0, an empty waste or a joker, takes every rank).
_ADJACENT: dict[bool, tuple[int, ...]] = {
    wrap: tuple(sum(1 << r for r in range(1, NUM_RANKS + 1) if follows(key, r, wrap)) for key in range(NUM_KEYS))
    for wrap in (True, False)
}
_ANY_RANK = RANK_BITS


def _above(slot: int) -> int:
    """The slots ``slot``'s card keeps covered, directly or through other cards."""
    out = 0
    for t in COVERS[slot]:
        out |= 1 << t | _above(t)
    return out


#: ``_HOLDS[s]``: how many cards slot ``s``'s card keeps covered (directly or not): 0 for an
#: apex, up to 6 for a bottom card.
_HOLDS: tuple[int, ...] = tuple(_above(s).bit_count() for s in range(NUM_SLOTS))


def _unknown_mask(k: TriPeaksKnowledge) -> int:
    """Slots whose card the player has never seen."""
    return sum(1 << s for s in range(NUM_SLOTS) if not k.ranks[s])


def _removal_actions(k: TriPeaksKnowledge) -> list[int]:
    """The legal removals (every legal action but the draw)."""
    return [a for a in k.legal if a != DRAW]


def _reveals_now(k: TriPeaksKnowledge, slot: int, unknown: int) -> int:
    """Face-down (never seen) cards that removing ``slot`` turns up at once."""
    removed = k.removed | 1 << slot
    return (newly_exposed(removed, slot) & unknown).bit_count()


def _chain_lengths(k: TriPeaksKnowledge, budget: int = 5000) -> Callable[[int], int]:
    """``length(slot)``: the most known cards a chain starting with the removal of ``slot`` can
    clear (the slot included), searched over known cards with a fixed node budget."""
    unknown = _unknown_mask(k)
    known = ~unknown
    ranks = k.ranks
    adjacent = _ADJACENT[k.wrap]
    memo: dict[tuple[int, int], int] = {}

    def longest(removed: int, exposed: int, key: int) -> int:
        state = (removed, key)
        got = memo.get(state)
        if got is not None:
            return got
        memo[state] = 0
        best = 0
        if len(memo) < budget:
            ok = adjacent[key] if key else _ANY_RANK
            e = exposed & known
            while e:
                low = e & -e
                e ^= low
                s = low.bit_length() - 1
                if ok >> ranks[s] & 1:
                    best = max(best, 1 + longest(*remove_slot(removed, exposed, s), ranks[s]))
        memo[state] = best
        return best

    exposed0 = exposed_slots(k.removed)

    def length(slot: int) -> int:
        return 1 + longest(*remove_slot(k.removed, exposed0, slot), k.ranks[slot])

    return length


class _TriPeaksAgent(Agent):
    """A TriPeaks heuristic: :meth:`choose` picks among the legal removals (never empty), and
    :meth:`act` draws when no removal is legal."""

    games = ("tripeaks",)

    def act(self, state: PublicState) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        removals = _removal_actions(k)
        if not removals:
            return DRAW
        return self.choose(state, removals)

    @abstractmethod
    def choose(self, state: PublicState, removals: list[int]) -> int:
        """One of ``removals`` (the legal removals, never empty)."""


class RandomStuckAgent(_TriPeaksAgent):
    """``random_stuck``: a uniformly random legal removal; draw only when none is legal."""

    name = "random_stuck"

    def choose(self, state: PublicState, removals: list[int]) -> int:
        return removals[int(state.rng(self.seed).integers(len(removals)))]


class RevealFirstAgent(_TriPeaksAgent):
    """``reveal_first``: the removal that turns the most face-down cards up now (upper slots
    first on a tie); draw only when no removal is legal."""

    name = "reveal_first"

    def choose(self, state: PublicState, removals: list[int]) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        unknown = _unknown_mask(k)
        return max(removals, key=lambda s: (_reveals_now(k, s, unknown), -s))


class LongestChainAgent(_TriPeaksAgent):
    """``longest_chain``: the removal that starts the longest chain of known removals (upper
    slots first on a tie); draw only when no removal is legal."""

    name = "longest_chain"

    def choose(self, state: PublicState, removals: list[int]) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        length = _chain_lengths(k)
        return max(removals, key=lambda s: (length(s), -s))


class PeaksEvenAgent(_TriPeaksAgent):
    """``peaks_even``: reveal first; then the removal in the peak that has the most face-down
    cards left, so that the three peaks come down evenly; then the longer known chain, upper
    slots first.  Draw only when no removal is legal."""

    name = "peaks_even"

    def choose(self, state: PublicState, removals: list[int]) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        unknown = _unknown_mask(k)
        hidden = [(mask & unknown).bit_count() for mask in PEAK_GROUP_MASKS]
        length = _chain_lengths(k)

        def peak_hidden(slot: int) -> int:
            # a card counts for its own peak and for the peaks of the cards it lies on
            return max(hidden[g] for g in (GROUP_OF[slot], *(GROUP_OF[t] for t in COVERS[slot])))

        return max(removals, key=lambda s: (_reveals_now(k, s, unknown), peak_hidden(s), length(s), -s))


class HintAgent(_TriPeaksAgent):
    """``hint``: the hint's public advice (:func:`~solitaire_env.hints.tripeaks_advice`)."""

    name = "hint"

    def choose(self, state: PublicState, removals: list[int]) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        action = tripeaks_advice(k)  # a removal whenever one is legal
        return removals[0] if action is None or action == DRAW else action


class LookaheadAgent(_TriPeaksAgent):
    """``lookahead``: play towards the end of a known chain that leaves the best next draw.

    1. List every position the known removals can reach from here before the next draw (a
       depth-first search over face-up exposed cards, ``budget`` positions at most).  Each
       position gets a static value: each card cleared counts 1, plus ``block`` for every card
       it kept covered (a bottom card holds up to 6, an apex none: "clear the cards that hold
       the most", which also brings down the peaks evenly); plus ``reveal`` per face-down card
       turned up (its rank is unknown: half a card); plus ``cover`` times the chance that the
       next stock card follows a known exposed card (from the counts of the ranks never seen:
       "count the cards that can still follow").
    2. For the ``top`` best of them, and for drawing now, the value after the next draw: the
       expectation, over the rank of the next stock card (each unseen card equally likely), of
       the best static value a known chain from that card reaches.  This looks one draw ahead:
       it keeps the exposed cards that the next card is likely to continue, and it stops a chain
       early (or draws at once) when that leaves more to clear after the draw.
    3. Play the first removal of a chain to the best position, preferring one that turns a
       face-down card up at once (then the upper slot); or draw if drawing now scored best.

    Options (keyword arguments): ``block`` (0.2), ``reveal`` (0.5), ``cover`` (1.0), ``top``
    (6), ``budget`` (2000 chain positions), ``inner_budget`` (3000 positions for the searches
    after a draw).  Fixed budgets keep the move a function of the public state, never of time.
    """

    name = "lookahead"

    def __init__(
        self,
        game: Any,
        seed: int = 0,
        *,
        block: float = 0.2,
        reveal: float = 0.5,
        cover: float = 1.0,
        top: int = 6,
        budget: int = 2000,
        inner_budget: int = 3000,
    ) -> None:
        super().__init__(game, seed)
        self.block = float(block)
        self.reveal = float(reveal)
        self.cover = float(cover)
        self.top = int(top)
        self.budget = int(budget)
        self.inner_budget = int(inner_budget)

    def choose(self, state: PublicState, removals: list[int]) -> int:
        k = cast(TriPeaksKnowledge, state.knowledge)
        ranks = k.ranks
        removed0 = k.removed
        exposed0 = exposed_slots(removed0)
        unknown = _unknown_mask(k)
        known = ~unknown
        adjacent = _ADJACENT[k.wrap]
        follow_ranks = [adjacent[r] if r else 0 for r in ranks]  # ranks that may follow each known slot
        rank_bit = [1 << r for r in ranks]
        unseen = k.unseen
        total = sum(unseen)
        chance = [unseen[r] / total if total else 0.0 for r in range(14)]  # of the next stock card
        worth = [1.0 + self.block * held for held in _HOLDS]  # of clearing each slot
        reveal_w, cover_w = self.reveal, self.cover

        def covered_ranks(exposed: int) -> int:
            """Ranks the next stock card may have to follow a known exposed card."""
            out = 0
            e = exposed & known
            while e:
                low = e & -e
                out |= follow_ranks[low.bit_length() - 1]
                e ^= low
            return out

        cover_cache: dict[int, float] = {}
        static_cache: dict[int, float] = {}

        def static(removed: int, exposed: int) -> float:
            value = static_cache.get(removed)
            if value is not None:
                return value
            cov = covered_ranks(exposed)
            p = cover_cache.get(cov)
            if p is None:
                p = chance[0] if cov else 0.0  # a joker follows anything
                c = cov
                while c:
                    low = c & -c
                    p += chance[low.bit_length() - 1]
                    c ^= low
                cover_cache[cov] = p
            cleared = 0.0
            c = removed & ~removed0
            while c:
                low = c & -c
                cleared += worth[low.bit_length() - 1]
                c ^= low
            value = cleared + reveal_w * (exposed & unknown).bit_count() + cover_w * p
            static_cache[removed] = value
            return value

        def children(removed: int, exposed: int, key: int) -> list[tuple[int, int, int, int]]:
            """The known removals from ``(removed, exposed, key)``: (slot, removed, exposed, key)."""
            ok = adjacent[key] if key else _ANY_RANK
            out = []
            e = exposed & known
            while e:
                low = e & -e
                e ^= low
                s = low.bit_length() - 1
                if ok & rank_bit[s]:
                    out.append((s, *remove_slot(removed, exposed, s), ranks[s]))
            return out

        # 1. the positions known chains reach, with the first removals that lead to each
        reach: dict[tuple[int, int], tuple[int, set[int]]] = {}

        def visit(removed: int, exposed: int, key: int, first: int) -> None:
            got = reach.get((removed, key))
            if got is not None:
                got[1].add(first)
                return
            reach[(removed, key)] = (exposed, {first})
            if len(reach) >= self.budget:
                return
            for _, nr, ne, nk in children(removed, exposed, key):
                visit(nr, ne, nk, first)

        for slot in removals:
            nr, ne = remove_slot(removed0, exposed0, slot)
            visit(nr, ne, ranks[slot], slot)

        ranked = sorted(
            ((static(rm, ex), rm, key, ex) for (rm, key), (ex, _) in reach.items()),
            key=lambda item: (-item[0], item[1], item[2]),
        )
        candidates = [(rm, key, ex) for _, rm, key, ex in ranked[: self.top]]
        if k.legal_mask >> DRAW & 1:  # not while a removal is legal under draw="when_stuck"
            candidates.append((removed0, -1, exposed0))  # draw now

        # 2. the value after the next draw
        memo: dict[tuple[int, int], float] = {}

        def best(removed: int, exposed: int, key: int) -> float:
            got = memo.get((removed, key))
            if got is not None:
                return got
            value = static(removed, exposed)
            memo[(removed, key)] = value
            if len(memo) < self.inner_budget:
                for _, nr, ne, nk in children(removed, exposed, key):
                    value = max(value, best(nr, ne, nk))
                memo[(removed, key)] = value
            return value

        def after_draw(removed: int, exposed: int) -> float:
            if not k.stock_left or not total or removed == ALL_SLOTS:
                return static(removed, exposed)
            cov = covered_ranks(exposed)
            here = static(removed, exposed)
            value = chance[0] * best(removed, exposed, 0) if unseen[0] else 0.0
            for r in range(1, NUM_RANKS + 1):
                if unseen[r]:
                    value += chance[r] * (best(removed, exposed, r) if cov >> r & 1 else here)
            return value

        choice = max(candidates, key=lambda c: after_draw(c[0], c[2]))  # the first best on a tie
        if choice[1] < 0:
            return DRAW
        firsts = reach[(choice[0], choice[1])][1]
        # 3. the first removal: one that turns a face-down card up at once, then the upper slot
        return max(firsts, key=lambda s: (_reveals_now(k, s, unknown), -s))
