"""The TriPeaks hint heuristic: a move from what the player knows (a :class:`TriPeaksKnowledge`).

* TriPeaks: draw when no removal is legal.  Otherwise, for each legal removal, search the
  chains of removals that start with it using known cards only (a card that turns face up
  without having been seen counts as revealed, and the chain cannot use it); prefer (a) the
  removal that turns a face-down card up at once, then (b) the one whose best chain clears the
  most cards, then reveals the most, then (c) ends on a waste rank that the most unseen cards can
  follow and keeps the most K/A bridges (with wrap) on the board; upper slots first on a tie.

It reads nothing but the knowledge, so its answer is the same whatever the unseen cards are.
"""

from __future__ import annotations

from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge
from solitaire_env.tripeaks.rules import DRAW, NUM_RANKS, NUM_SLOTS, exposed_slots, follows

__all__ = ["CHAIN_BUDGET", "tripeaks_advice"]

#: How many chain positions the TriPeaks heuristic looks at per hint (a fixed bound, so the
#: answer depends on the seen cards only, never on time).
CHAIN_BUDGET = 20_000


def _removals(k: TriPeaksKnowledge, removed: int, key: int) -> list[int]:
    """Known exposed cards playable on ``key``: the removals a chain can continue with."""
    exposed = exposed_slots(removed)
    return [s for s in range(NUM_SLOTS) if exposed >> s & 1 and k.ranks[s] and follows(key, k.ranks[s], k.wrap)]


def _outs(k: TriPeaksKnowledge, key: int) -> int:
    """Unseen cards that could follow a waste key (0 = anything: every unseen card)."""
    if key == 0:
        return sum(k.unseen)
    return k.unseen[0] + sum(k.unseen[r] for r in range(1, NUM_RANKS + 1) if follows(key, r, k.wrap))


def tripeaks_advice(k: TriPeaksKnowledge) -> int | None:
    """The hint heuristic's move from a TriPeaks knowledge (see the module docstring): an env
    action, or ``None`` when the game is won or no move is legal."""
    if k.won:
        return None
    first = _removals(k, k.removed, k.key)
    if not first:
        return DRAW if k.stock_left else None
    unknown = sum(1 << s for s in range(NUM_SLOTS) if not k.ranks[s])
    bridge_slots = sum(1 << s for s in range(NUM_SLOTS) if k.wrap and k.ranks[s] in (1, NUM_RANKS))
    memo: dict[tuple[int, int], tuple[int, int, int, int]] = {}

    def stop_here(removed: int, key: int) -> tuple[int, int, int, int]:
        """How good it is to end a chain here: (cards cleared, face-down cards revealed,
        unseen cards that can follow the waste, K/A bridges left on the board)."""
        return (
            (removed & ~k.removed).bit_count(),
            (exposed_slots(removed) & unknown).bit_count(),
            _outs(k, key),
            (bridge_slots & ~removed).bit_count(),
        )

    def best(removed: int, key: int) -> tuple[int, int, int, int]:
        """The best place to end a chain that has reached ``(removed, key)``."""
        state = (removed, key)
        got = memo.get(state)
        if got is not None:
            return got
        value = stop_here(removed, key)
        memo[state] = value
        if len(memo) < CHAIN_BUDGET:  # a fixed bound: beyond it a state counts as a chain's end
            for s in _removals(k, removed, key):
                value = max(value, best(removed | 1 << s, k.ranks[s]))
            memo[state] = value
        return value

    exposed0 = exposed_slots(k.removed)
    scored = []
    for s in first:
        after = k.removed | 1 << s
        reveals_now = (exposed_slots(after) & ~exposed0 & unknown).bit_count()
        # (a) turns a face-down card up, (b) the longest known chain (then its reveals),
        # (c) the most unseen cards that can follow its end, then K/A bridges kept; upper slots first
        scored.append(((reveals_now, *best(after, k.ranks[s])), -s, s))
    return max(scored)[2]
