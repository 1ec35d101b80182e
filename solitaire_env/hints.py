"""The hint (SPEC section 6, seed 001): one move worth trying, and a verdict that never peeks.

:func:`hint` answers with a :class:`Hint`: a suggested env action, a verdict (``"winnable"``,
``"unwinnable"`` or ``"unknown"``), a line, a short reason and the action in words.

* **Every card known** (``game.all_known``: every face-down card was turned and every stock card
  drawn at least once, undo included): the full-information solver runs from the position.
  ``solved`` gives ``"winnable"`` and its winning line; ``unsolvable`` (an exhausted search)
  gives ``"unwinnable"`` and the line that clears / founds the most cards; ``intractable`` (the
  budget ran out) gives ``"unknown"`` and the normal advice below, never ``"unwinnable"``.
* **Some card unseen**: the verdict is ``"unknown"`` and the move comes from a heuristic that
  reads only what the player has seen.  It cannot read hidden cards: :func:`tripeaks_knowledge`
  and :func:`fortythieves_knowledge` copy the seen facts out of the game (every never-seen card
  becomes a placeholder, ``0``), and the heuristics read nothing but that copy.  So the answer is
  the same whatever the unseen cards are.

The heuristics (also usable as agents through :func:`public_move`):

* TriPeaks: draw when no removal is legal.  Otherwise, for each legal removal, search the
  chains of removals that start with it using known cards only (a card that turns face up
  without having been seen counts as revealed, and the chain cannot use it); prefer (a) the
  removal that turns a face-down card up at once, then (b) the one whose best chain clears the
  most cards, then reveals the most, then (c) ends on a waste rank that the most unseen cards can
  follow and keeps the most K/A bridges (with wrap) on the board; upper slots first on a tie.
* Forty Thieves: a safe foundation move (both copies of the rank below are founded), else any
  foundation move, else the waste card onto a build, else a column move that frees a card (the
  card under it is not its natural parent, or its column empties), else a draw; with the stock
  empty, the waste card to an empty column; and when none of these is legal, any legal move
  (a last resort, so that a move is named whenever one exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from solitaire_env.common.cards import JOKER, rank_of
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.fortythieves.rules import (
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    WASTE,
    builds_on,
    foundation_for,
    is_safe,
)
from solitaire_env.solving import RulesArgument, as_game
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import DRAW, NUM_RANKS, NUM_SLOTS, exposed_slots, follows

__all__ = [
    "DEFAULT_MAX_NODES_FORTYTHIEVES",
    "DEFAULT_MAX_NODES_TRIPEAKS",
    "REASON_BUDGET",
    "REASON_HIDDEN",
    "REASON_NO_WIN",
    "REASON_OVER",
    "REASON_WIN",
    "REASON_WON",
    "FortyThievesKnowledge",
    "Hint",
    "TriPeaksKnowledge",
    "Verdict",
    "fortythieves_advice",
    "fortythieves_knowledge",
    "hint",
    "public_move",
    "tripeaks_advice",
    "tripeaks_knowledge",
]

Verdict = Literal["winnable", "unwinnable", "unknown"]

#: Node budget of the TriPeaks solver when :func:`hint` is given none (its own default).
DEFAULT_MAX_NODES_TRIPEAKS = 1_000_000
#: Node budget of the Forty Thieves solver when :func:`hint` is given none: about a second or
#: two of search, so that a hint stays interactive (the solver's own default is larger).
DEFAULT_MAX_NODES_FORTYTHIEVES = 20_000

REASON_WON = "the game is won"
REASON_WIN = "every card is known and a winning line was found"
REASON_NO_WIN = "every card is known and no line wins from here"
REASON_BUDGET = "the search ran out of budget: normal advice"
REASON_HIDDEN = "cards are still hidden: advice from what you have seen"
REASON_OVER = "no move is legal: the game is over"

#: How many chain positions the TriPeaks heuristic looks at per hint (a fixed bound, so the
#: answer depends on the seen cards only, never on time).
CHAIN_BUDGET = 20_000


@dataclass(frozen=True)
class Hint:
    """What :func:`hint` says about a position.

    - ``action``: the env action worth trying, or ``None`` when no move is legal.
    - ``verdict``: ``"winnable"`` (a winning line was found with every card known, or the game
      is already won), ``"unwinnable"`` (every card is known and an exhausted search found no
      win), or ``"unknown"`` (cards are still hidden, or the search ran out of budget).
    - ``line``: env actions from the position: the winning line when winnable, the line that
      clears / founds the most cards when unwinnable, else empty.
    - ``reason``: a short sentence saying why (one of the ``REASON_*`` constants).
    - ``name``: ``action`` in words (``game.action_name``), or ``"no move"``.
    - ``nodes``: positions the solver expanded (0 when it did not run).
    """

    action: int | None
    verdict: Verdict
    line: tuple[int, ...]
    reason: str
    name: str
    nodes: int = 0


# ---------------------------------------------------------------------- knowledge (public copies)


@dataclass(frozen=True)
class TriPeaksKnowledge:
    """What a TriPeaks player knows: the only input of the TriPeaks heuristic.

    ``ranks[s]``: the rank (1..13) of slot ``s``'s card if the player has ever seen it (face up
    now, removed, or face up before an undo), else ``0`` (never seen: a placeholder).
    ``removed``: removed slots.  ``key``: the waste top's rank, ``0`` when anything may be
    played on it (an empty waste or a joker).  ``stock_left``: cards left to draw.
    ``unseen[r]``: how many cards of rank ``r`` were never seen (``r = 0``: jokers), counted
    from the seen cards (the deck is 4 of each rank plus the rule's jokers).
    """

    ranks: tuple[int, ...]
    removed: int
    key: int
    stock_left: int
    unseen: tuple[int, ...]
    wrap: bool
    when_stuck: bool
    won: bool


def tripeaks_knowledge(game: TriPeaksGame) -> TriPeaksKnowledge:
    """The public copy of a TriPeaks game: the one place where the heuristic touches the game.

    It reads a tableau card only where ``seen_slots`` says the player has seen it, and
    otherwise only public state (removed slots, the waste top, the stock count, the rules and
    the list of seen cards).
    """
    seen = game.seen_slots
    ranks = tuple(rank_of(game.tableau[s]) if seen >> s & 1 else 0 for s in range(NUM_SLOTS))
    counts = [game.rules.jokers] + [4] * 13
    for card in game.seen_cards():
        counts[0 if card == JOKER else rank_of(card)] -= 1
    top = game.waste_top
    return TriPeaksKnowledge(
        ranks=ranks,
        removed=game.removed,
        key=0 if top is None or top == JOKER else rank_of(top),
        stock_left=game.stock_count,
        unseen=tuple(counts),
        wrap=game.rules.wrap,
        when_stuck=game.rules.draw == "when_stuck",
        won=game.won,
    )


@dataclass(frozen=True)
class FortyThievesKnowledge:
    """What a Forty Thieves player sees: the only input of the Forty Thieves heuristic.

    Columns (bottom to top), the waste top (``None`` if empty), the foundation heights, the
    number of stock cards left, the ``foundation_return`` rule and ``legal_mask``, the rules
    core's legal moves (bit ``a`` for action ``a``: a function of the public position).  The
    stock order is hidden and not part of it.
    """

    columns: tuple[tuple[int, ...], ...]
    waste_top: int | None
    foundations: tuple[int, ...]
    stock_left: int
    foundation_return: bool
    won: bool
    legal_mask: int


def fortythieves_knowledge(game: FortyThievesGame) -> FortyThievesKnowledge:
    """The public copy of a Forty Thieves game (everything but the stock, which it never reads)."""
    return FortyThievesKnowledge(
        columns=tuple(tuple(col) for col in game.columns),
        waste_top=game.waste[-1] if game.waste else None,
        foundations=tuple(game.foundations),
        stock_left=game.stock_count,
        foundation_return=game.rules.foundation_return,
        won=game.won,
        legal_mask=game.legal_mask(),
    )


# ---------------------------------------------------------------------- TriPeaks heuristic


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


# ---------------------------------------------------------------------- Forty Thieves heuristic

# The rules are those of solitaire_env.fortythieves.rules (builds_on, foundation_for, is_safe);
# the legal moves those of the rules core (the knowledge's legal_mask).


def _ft_foundation_ok(k: FortyThievesKnowledge, card: int) -> bool:
    return foundation_for(k.foundations, card) is not None


def fortythieves_advice(k: FortyThievesKnowledge) -> int | None:
    """The heuristic move from a Forty Thieves knowledge (see the module docstring); ``None``
    when the game is won or no move is legal.  It reads nothing but ``k``."""
    if k.won:
        return None
    cols = k.columns
    empty = [j for j in range(NUM_COLUMNS) if not cols[j]]

    def under_key(j: int) -> tuple[int, int]:
        """How good uncovering column ``j``'s second card is (smaller is better)."""
        col = cols[j]
        if len(col) < 2:
            return (1, 0)  # the column empties
        under = col[-2]
        return (0 if _ft_foundation_ok(k, under) else 2, under % 13)

    # 1-2. foundation moves: safe ones first, the waste before the columns
    sources = ([WASTE] if k.waste_top is not None else []) + [j for j in range(NUM_COLUMNS) if cols[j]]
    founding = []
    for src in sources:
        card = k.waste_top if src == WASTE else cols[src][-1]
        assert card is not None
        if _ft_foundation_ok(k, card):
            order = (0, 0, 0) if src == WASTE else (0, *under_key(src))
            founding.append((not is_safe(k.foundations, card), *order, src))
    if founding:
        return min(founding)[-1] * NUM_DESTS + FOUNDATION
    # 3. the waste card onto a build (the longest column first)
    if k.waste_top is not None:
        builds = [j for j in range(NUM_COLUMNS) if cols[j] and builds_on(k.waste_top, cols[j][-1])]
        if builds:
            return WASTE * NUM_DESTS + max(builds, key=lambda j: (len(cols[j]), -j))
    # 4. a column move that frees a card
    freeing = []
    for j in range(NUM_COLUMNS):
        col = cols[j]
        if not col:
            continue
        card = col[-1]
        natural = len(col) > 1 and builds_on(card, col[-2])
        if natural:
            continue  # moving it only swaps one build for another
        for d in range(NUM_COLUMNS):
            if d != j and cols[d] and builds_on(card, cols[d][-1]):
                freeing.append((under_key(j), -len(cols[d]), j, d))
        if empty and len(col) > 1 and _ft_foundation_ok(k, col[-2]):
            freeing.append(((0, col[-2] % 13), 1, j, empty[0]))  # to an empty column, to found the card under
    if freeing:
        _, _, src, dst = min(freeing)
        return src * NUM_DESTS + dst
    # 5. draw
    if k.stock_left:
        return FT_DRAW
    # the stock is out: the waste card into an empty column brings the next waste card up
    if k.waste_top is not None and empty:
        return WASTE * NUM_DESTS + empty[0]
    # nothing that makes progress: any legal move still is one (a card to an empty column,
    # onto another build, then back from a foundation), so that a move is named while one exists
    rest = _ft_other_moves(k)
    return rest[0] if rest else None


def _ft_other_moves(k: FortyThievesKnowledge) -> list[int]:
    """The legal moves (of ``k.legal_mask``, the rules core's) the steps above never suggest, in
    the order of a last resort: a column card that is not on its natural parent to an empty
    column; a card off its natural parent (onto another build or an empty column); a
    foundation card back down; a lone card to another empty column (each kind in action
    order).  Once the stock is out these can cycle: an agent playing :func:`public_move` needs
    a step limit (the envs have one)."""
    cols = k.columns
    to_empty: list[int] = []
    onto: list[int] = []
    back: list[int] = []
    alone: list[int] = []
    m = k.legal_mask & ~(1 << FT_DRAW)
    while m:
        low = m & -m
        m ^= low
        action = low.bit_length() - 1
        src, dst = divmod(action, NUM_DESTS)
        if src == WASTE or dst == FOUNDATION:
            continue  # the steps above see to the waste and the foundations
        if src >= FIRST_FOUNDATION_SRC:
            back.append(action)
            continue
        col = cols[src]
        if cols[dst]:
            onto.append(action)
        elif len(col) == 1:
            alone.append(action)
        elif builds_on(col[-1], col[-2]):
            onto.append(action)  # it only breaks a build: as pointless as a swap
        else:
            to_empty.append(action)
    return to_empty + onto + back + alone


#: The old private name (kept for code that still imports it).


# ---------------------------------------------------------------------- the hint


def public_move(game: TriPeaksGame | FortyThievesGame) -> int | None:
    """The heuristic's move from what the player has seen (``None`` when it has none).

    The same whatever the unseen cards are: it reads the game only through
    :func:`tripeaks_knowledge` / :func:`fortythieves_knowledge`.  The move is always legal.
    """
    if isinstance(game, TriPeaksGame):
        action = tripeaks_advice(tripeaks_knowledge(game))
    elif isinstance(game, FortyThievesGame):
        action = fortythieves_advice(fortythieves_knowledge(game))
    else:
        raise TypeError(f"public_move() takes a TriPeaks or Forty Thieves game, not {type(game).__name__}")
    if action is not None and not game.legal_mask() >> action & 1:  # pragma: no cover - a bug if it happens
        raise AssertionError(f"the heuristic suggested an illegal move {action} ({game.action_name(action)})")
    return action


def _solve(game: TriPeaksGame | FortyThievesGame, max_nodes: int | None) -> Any:
    if isinstance(game, TriPeaksGame):
        from solitaire_env.tripeaks.solver import solve_tripeaks

        budget = DEFAULT_MAX_NODES_TRIPEAKS if max_nodes is None else max_nodes
        return solve_tripeaks(game, max_nodes=budget, maximise_cleared=True)
    from solitaire_env.fortythieves.solver import solve_fortythieves

    return solve_fortythieves(game, max_nodes=DEFAULT_MAX_NODES_FORTYTHIEVES if max_nodes is None else max_nodes)


def _make(
    game: TriPeaksGame | FortyThievesGame,
    action: int | None,
    verdict: Verdict,
    reason: str,
    line: tuple[int, ...] = (),
    nodes: int = 0,
) -> Hint:
    name = game.action_name(action) if action is not None else "no move"
    return Hint(action, verdict, tuple(line), reason, name, nodes)


def hint(game: Any, *, rules: RulesArgument = None, max_nodes: int | None = None) -> Hint:
    """One move worth trying from ``game``'s position, and whether the position can be won.

    ``game`` is a :class:`~solitaire_env.tripeaks.game.TriPeaksGame` or a
    :class:`~solitaire_env.fortythieves.game.FortyThievesGame` (e.g. ``env.unwrapped.game``), or
    a deal code, a deal string or a deal (its starting position; a code's rule letter sets the
    K-A wrap, ``rules`` the other rule options: see :func:`solitaire_env.solving.as_game`).
    ``max_nodes`` is the solver's node budget, used only when every card is known (``None``:
    :data:`DEFAULT_MAX_NODES_TRIPEAKS` / :data:`DEFAULT_MAX_NODES_FORTYTHIEVES`).  The game is
    not changed.

    The verdict is ``"unwinnable"`` only when every card is known and the solver exhausted the
    search; a spent budget and hidden cards both give ``"unknown"`` with the heuristic's move.
    """
    game = as_game(game, rules=rules, caller="hint")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"max_nodes must be a whole number >= 1, got {max_nodes!r}")
    if game.won:
        return _make(game, None, "winnable", REASON_WON)
    if not game.all_known:
        # cards are hidden: public advice only (the solver, an oracle, is not consulted)
        action = public_move(game)
        return _make(game, action, "unknown", REASON_HIDDEN if action is not None else REASON_OVER)
    result = _solve(game, max_nodes)
    if result.status == "solved":
        line = tuple(result.line)
        return _make(game, line[0] if line else None, "winnable", REASON_WIN, line, result.nodes)
    if result.status == "unsolvable":
        line = tuple(result.line)
        action = line[0] if line else public_move(game)
        return _make(game, action, "unwinnable", REASON_NO_WIN, line, result.nodes)
    action = public_move(game)
    return _make(game, action, "unknown", REASON_BUDGET if action is not None else REASON_OVER, (), result.nodes)
