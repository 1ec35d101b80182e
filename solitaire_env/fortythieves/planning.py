"""Fair search for Forty Thieves: the plan of a turn, scored on sampled stock orders.

Every card but the stock's order is in sight, and nothing new is seen until the next draw: the
moves a player makes before drawing lead to a position known in advance, whatever the stock
holds.  So a player decides once per *turn*, and the choice is a *plan*: moves that end with
the draw.  :func:`plan_turn` chooses one from what the player sees:

1. ``samples`` orders of the unseen stock cards (:func:`sampled_stocks`, from a generator the
   caller seeds with public information only);
2. the candidate plans: drawing at once; the hint heuristic's moves until it draws
   (:func:`hint_plan`); and, in each sample, the moves of the full-information search's line up
   to its first draw (``root_nodes`` positions).  Plans that end in the same position are one;
3. every candidate is scored on *every* sample: the plan is played, the draw shows the sample's
   card, and the search (``eval_nodes`` positions) gives ``solved`` 1, ``unsolvable`` 0,
   ``intractable`` the ``intractable`` weight (0.5: unknown), with the cards founded on its
   best line as the tie-break.

The plans are public, so each one is judged against all the samples at once: the search's
clairvoyance (strategy fusion) enters only after the next draw, not in the moves of the turn,
as it would if every move were chosen by determinized search.  The answer depends on the
public position and the generator only: the true order of the unseen cards is never read (the
samples replace it).

:func:`endgame_line`: once the stock is out every card is known, and the full-information
search's line is the plan.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solitaire_env.common.result import SolveResult
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import fortythieves_knowledge
from solitaire_env.fortythieves.rules import DRAW, FIRST_FOUNDATION_SRC, FOUNDATION, NUM_DESTS, TOTAL_CARDS, is_safe

__all__ = [
    "DEFAULT_PLANNING",
    "MAX_HINT_PLAN",
    "Plan",
    "endgame_line",
    "forced_move",
    "founds_safely",
    "hint_plan",
    "plan_turn",
    "policy_plan",
    "public_rng",
    "sampled_stocks",
    "shorten_line",
]

#: The longest plan taken from the hint heuristic before it draws (it may go back and forth).
MAX_HINT_PLAN = 60

#: :func:`plan_turn`'s settings of the ``planner`` agent and of the hint (chosen on validation
#: deals: docs/research_notes.md).
DEFAULT_PLANNING: dict[str, int | float] = {
    "samples": 8,
    "root_nodes": 20_000,
    "eval_nodes": 20_000,
    "intractable": 0.5,
}

#: The order in which the sources of equally scored plans are preferred.
_SOURCES = {"hint": 0, "draw": 1, "search": 2, "branch": 3, "base": 4}


@dataclass(frozen=True)
class Plan:
    """A turn's moves (the last one the draw), where it came from (``"draw"``, ``"hint"``,
    ``"search"``, ``"branch"`` or ``"base"``), its value summed over the samples and the cards founded on the searches'
    best lines, summed too."""

    moves: tuple[int, ...]
    source: str
    value: float = 0.0
    founded: int = 0


def _solve(game: FortyThievesGame, nodes: int) -> SolveResult:
    from solitaire_env.fortythieves.solver import solve_fortythieves  # numba: loaded on first use

    return solve_fortythieves(game, max_nodes=nodes)


def public_rng(game: FortyThievesGame, seed: int = 0) -> np.random.Generator:
    """A generator seeded by ``seed`` and the public position only: the columns, the waste, the
    foundations, the stock's position and size, the stock cards ever drawn, the rules.  The
    same in every process; the order of the never-drawn stock cards does not enter it."""
    public = (
        tuple(map(tuple, game.columns)),
        tuple(game.waste),
        tuple(game.foundations),
        game.stock_pos,
        len(game.stock),
        tuple(game.stock[: game.stock_seen]),
        repr(game.rules),
    )
    digest = hashlib.blake2b(repr(public).encode(), digest_size=8).digest()
    return np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, int.from_bytes(digest, "little")])


def forced_move(game: FortyThievesGame) -> int | None:
    """A move to play without a search: the only legal one, or the hint heuristic's move when it
    founds a card safely (both copies of the rank below founded: the solver forces it too);
    ``None`` otherwise."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    move = fortythieves_advice(fortythieves_knowledge(game))
    return move if move is not None and founds_safely(game, move) else None


def founds_safely(game: FortyThievesGame, action: int) -> bool:
    """Whether ``action`` is a foundation move whose card has both copies of the rank below
    founded (aces always): the move the solver forces."""
    if action == DRAW or action % NUM_DESTS != FOUNDATION:
        return False
    card = game.source_card(action // NUM_DESTS)
    return card is not None and is_safe(game.foundations, card)


def sampled_stocks(game: FortyThievesGame, rng: np.random.Generator, n: int) -> list[FortyThievesGame]:
    """``n`` copies of ``game`` whose never-drawn stock cards are shuffled by ``rng``: the
    result does not depend on the order those cards have in ``game``'s stock (it is sorted first)."""
    seen = tuple(game.stock[: game.stock_seen])
    unseen = sorted(game.stock[game.stock_seen :])
    out = []
    for _ in range(n):
        rest = list(unseen)
        rng.shuffle(rest)
        out.append(game.with_stock(seen + tuple(rest)))
    return out


def policy_plan(
    game: FortyThievesGame, choose: Callable[[FortyThievesGame], int | None], most: int = MAX_HINT_PLAN
) -> tuple[int, ...]:
    """The moves ``choose`` (a move for a position, ``None`` or the draw to stop) makes from
    ``game`` until it would draw, has no move, repeats a position or has made ``most`` moves
    (the draw not included; ``game`` is not changed)."""
    work = game.copy()
    seen = {work.position_hash}
    moves: list[int] = []
    move = choose(work)
    while move is not None and move != DRAW and len(moves) < most:
        work.play(move)
        if work.position_hash in seen:
            break
        seen.add(work.position_hash)
        moves.append(move)
        move = choose(work)
    return tuple(moves)


def hint_plan(game: FortyThievesGame) -> tuple[int, ...]:
    """The hint heuristic's moves from ``game`` until it would draw, has no move, repeats a
    position or has made :data:`MAX_HINT_PLAN` moves (the draw not included)."""
    return policy_plan(game, lambda work: fortythieves_advice(fortythieves_knowledge(work)))


def _before_draw(line: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """The moves of ``line`` before its first draw."""
    out = []
    for a in line:
        if a == DRAW:
            break
        out.append(int(a))
    return tuple(out)


def plan_turn(
    game: FortyThievesGame,
    rng: np.random.Generator,
    *,
    samples: int = 8,
    root_nodes: int = 20_000,
    eval_nodes: int = 20_000,
    intractable: float = 0.5,
    branch: int = 0,
    stats: dict[str, int] | None = None,
    extra: tuple[tuple[int, ...], ...] = (),
    deadline: float | None = None,
) -> list[Plan]:
    """The candidate plans of the turn from ``game``'s position, best first (module docstring;
    the defaults are :data:`DEFAULT_PLANNING`'s).

    The stock must not be out (then :func:`endgame_line`).  ``game`` is not changed; its
    never-drawn stock cards are read only as a set.  Best: the highest value, then the most
    cards founded, then the hint's plan, the draw, the search's; then the shorter.  ``branch``:
    also the plans that start with each of the first ``branch`` other legal moves (in action
    order, foundation returns left out) and go on with the hint's plan.  ``extra``: more
    candidates from the caller (the moves before the draw, source ``"base"``; one that is not
    legal from the position is left out).  ``deadline`` (a ``time.perf_counter()`` reading):
    once it has passed, the searches left are not run and count as intractable.  ``stats``, if
    given, gets ``searches``, ``nodes`` (the positions the searches expanded) and ``skipped``
    (the searches the deadline left out) added.
    """
    if game.stock_pos >= len(game.stock):
        raise ValueError("plan_turn: the stock is out (every card is known: use endgame_line)")
    stocks = sampled_stocks(game, rng, samples)
    count = {"searches": 0, "nodes": 0, "skipped": 0}

    def search(work: FortyThievesGame, nodes: int) -> SolveResult:
        if deadline is not None and time.perf_counter() >= deadline:
            count["skipped"] += 1
            return SolveResult("intractable", (), 0, work.founded, stopped_by="seconds")
        result = _solve(work, nodes)
        count["searches"] += 1
        count["nodes"] += result.nodes
        return result

    plans: dict[int, tuple[tuple[int, ...], str]] = {}  # position before the draw -> plan
    wins: set[tuple[int, int]] = set()  # (plan's position, sample) with a win already found

    def offer(moves: tuple[int, ...], source: str) -> int | None:
        work = game.copy()
        for a in moves:
            if work.try_play(a) is not None:
                return None
        if work.illegal_reason(DRAW) is not None:
            return None
        key = work.position_hash
        plans.setdefault(key, ((*moves, DRAW), source))
        return key

    offer((), "draw")
    offer(hint_plan(game), "hint")
    for moves in extra:
        offer(tuple(moves), "base")
    if branch:
        tried = 0
        for a in game.legal_actions():
            if tried >= branch:
                break
            if a == DRAW or a // NUM_DESTS >= FIRST_FOUNDATION_SRC:
                continue
            work = game.copy()
            work.play(a)
            if offer((a, *hint_plan(work)), "branch") is not None:
                tried += 1
    if root_nodes:
        for i, sample in enumerate(stocks):
            result = search(sample, root_nodes)
            key = offer(_before_draw(result.line), "search")
            if key is not None and result.status == "solved" and DRAW in result.line:
                wins.add((key, i))
    scored = []
    for key, (moves, source) in plans.items():
        value = 0.0
        founded = 0
        for i, sample in enumerate(stocks):
            if (key, i) in wins:
                value += 1.0
                founded += TOTAL_CARDS
                continue
            work = sample.copy()
            for a in moves:
                work.play(a)  # a plan ends with a draw, and a draw never wins: search
            result = search(work, eval_nodes)
            value += 1.0 if result.status == "solved" else intractable if result.status == "intractable" else 0.0
            founded += result.best
        scored.append(Plan(moves, source, value, founded))
    scored.sort(key=lambda p: (-p.value, -p.founded, _SOURCES[p.source], len(p.moves)))
    if stats is not None:
        for name, n in count.items():
            stats[name] = stats.get(name, 0) + n
    return scored


def endgame_line(game: FortyThievesGame, nodes: int) -> tuple[int, ...]:
    """With the stock out: the full-information search's line (``nodes`` positions) if it wins
    or founds more cards than the position has, else ``()``; shortened (:func:`shorten_line`:
    the search's lines wander, and the env ends an episode after 1000 steps)."""
    result = _solve(game, nodes)
    if result.solved or result.best > game.founded:
        return shorten_line(game, tuple(result.line))
    return ()


def shorten_line(game: FortyThievesGame, line: tuple[int, ...]) -> tuple[int, ...]:
    """The shortest line from ``game``'s position to the position ``line`` ends in that goes
    through the positions of ``line`` only, one legal move at a time: a move that reaches a
    later position of the line directly skips the moves between (and a position met twice
    cuts the loop).  ``line`` must be legal; ``game`` is not changed."""
    work = game.copy()
    hashes = [work.position_hash]
    for a in line:
        work.play(a)
        hashes.append(work.position_hash)
    last = {h: i for i, h in enumerate(hashes)}  # each position's last place on the line
    # best[i]: the fewest moves to reach position i; how[i]: (the position before, the move)
    best = [0] + [len(line) + 1] * len(line)
    how: list[tuple[int, int]] = [(-1, -1)] * (len(line) + 1)
    work = game.copy()
    undo = work.rules.undo_limit is None  # else each move is tried on a copy
    for i in range(len(line) + 1):
        if i:
            work.play(line[i - 1])
        for a in work.legal_actions():
            if undo:
                work.play(a)
                j = last.get(work.position_hash, -1)
                work.undo()
            else:
                after = work.copy()
                after.play(a)
                j = last.get(after.position_hash, -1)
            if j > i and best[i] + 1 < best[j]:
                best[j], how[j] = best[i] + 1, (i, a)
        # a later place of the same position costs nothing more
        j = last[hashes[i]]
        if j > i and best[i] < best[j]:
            best[j], how[j] = best[i], (i, -1)
    out: list[int] = []
    j = len(line)
    while j > 0:
        i, a = how[j]
        if a >= 0:
            out.append(a)
        j = i
    return tuple(reversed(out))
