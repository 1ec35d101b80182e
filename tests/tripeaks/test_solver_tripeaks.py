"""The exact TriPeaks solver (numba) against the pure-Python reference, and its contract (SPEC 6).

The default run checks random deals (codes drawn by :func:`~solitaire_env.solvability.draw_codes`):
the first 20 codes of seed 0 under Easy and under Classic (the head of the 1000-deal benchmark
set), and 10 codes each for ``draw="when_stuck"``, ``waste_start="empty"``, ``jokers=1`` and
``jokers=2`` (seeds 1-4, every other deal under Classic).  The fast solver's verdict must equal
:func:`~solitaire_env.tripeaks.reference_solver.reference_solvable`'s, it must never be ``intractable``
at the default budget, and every line it returns replays through the rules core and through
the env (``gym.make``, reset with the deal code or the deal string).  The reference is slow
(up to ~10 s for an unsolvable Classic deal), so its verdicts are computed once per module,
in worker processes.

``-m slow`` adds the acceptance-size check: 2000 deals each for Easy and Classic (the first
2000 codes of seed 0, which contain the fixed 1000-deal set).
"""

from __future__ import annotations

import functools
import os
import signal
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env
from solitaire_env.common.budget import DEFAULT_MAX_NODES
from solitaire_env.common.deals import DealCode, parse_deal_code
from solitaire_env.common.pool import process_pool
from solitaire_env.common.result import SolveResult
from solitaire_env.dealing import decode_deal
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.reference_solver import reference_solvable
from solitaire_env.tripeaks.rules import DRAW, TriPeaksRules
from solitaire_env.tripeaks.solver import solve_tripeaks

TRIPEAKS_ID = "solitaire_env/TriPeaks-v0"
#: An Easy deal the solver proves unsolvable after ~186,000 nodes (a "hard" deal).
HARD_UNSOLVABLE = "TP1-E-UMH6XT6"


@dataclass(frozen=True)
class Case:
    group: str
    index: int
    code: str
    rules: tuple[tuple[str, Any], ...] = ()

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.rules)

    @property
    def wrap(self) -> bool:
        return parse_deal_code(self.code).wrap

    def game(self) -> TriPeaksGame:
        game = make_game(self.code, self.options)
        assert isinstance(game, TriPeaksGame)
        return game

    def __str__(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.rules)
        return f"{self.group}[{self.index}] {self.code}" + (f" ({extra})" if extra else "")


#: group: (number of deals, seed of the codes, rule letter or "mixed", rule options)
GROUPS: dict[str, tuple[int, int, str, dict[str, Any]]] = {
    "easy": (20, 0, "E", {}),
    "classic": (20, 0, "C", {}),
    "when_stuck": (10, 1, "mixed", {"draw": "when_stuck"}),
    "waste_empty": (10, 2, "mixed", {"waste_start": "empty"}),
    "jokers1": (10, 3, "mixed", {"jokers": 1}),
    "jokers2": (10, 4, "mixed", {"jokers": 2}),
}


def group_cases(group: str) -> list[Case]:
    n, seed, letter, options = GROUPS[group]
    cases = []
    for i, code in enumerate(draw_codes(n, seed, "TP", "E" if letter == "mixed" else letter)):
        if letter == "mixed" and i % 2:  # every other deal under Classic
            code = str(DealCode("TP", "C", parse_deal_code(code).seed))
        cases.append(Case(group, i, code, tuple(sorted(options.items()))))
    return cases


ALL_CASES = [case for group in GROUPS for case in group_cases(group)]


#: Time limit of one reference search (seconds) in the slow test: a search past it gives no
#: verdict (``None``), which the test counts and reports.  The plain DFS keeps every visited
#: state in a Python set (30 s of search hold about 3 GB); in a first 2000-deal Classic run
#: without these guards, a long-lived worker grew past 12 GB and was killed by the OOM killer,
#: hence the limit and the recycled workers.
REFERENCE_SECONDS = 30


class _ReferenceTimeout(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _ReferenceTimeout


def reference_limited(game: TriPeaksGame, seconds: int = REFERENCE_SECONDS) -> bool | None:
    """:func:`reference_solvable`, or ``None`` past ``seconds``."""
    if not hasattr(signal, "SIGALRM"):
        return reference_solvable(game)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    try:
        return reference_solvable(game)
    except _ReferenceTimeout:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def reference_verdicts(games: Sequence[TriPeaksGame], seconds: int = REFERENCE_SECONDS) -> list[bool | None]:
    """The reference's verdict of every game, in worker processes (all cores; a worker is
    replaced every 20 deals, which gives the memory of a large search back)."""
    func = functools.partial(reference_limited, seconds=seconds)
    workers = min(os.cpu_count() or 1, len(games))
    if workers <= 1:
        return [func(game) for game in games]
    with process_pool(workers, maxtasksperchild=20) as pool:
        return pool.map(func, games, chunksize=1)


@pytest.fixture(scope="module")
def verdicts() -> dict[Case, tuple[SolveResult, bool | None]]:
    """Every default case: (the fast solver's result, the reference's verdict)."""
    reference = reference_verdicts([case.game() for case in ALL_CASES], seconds=600)  # no limit in practice
    return {case: (solitaire_env.solve(case.game()), ref) for case, ref in zip(ALL_CASES, reference)}


def play_line(game: TriPeaksGame, line: Iterable[int]) -> TriPeaksGame:
    """A copy of ``game`` after ``line``, every move of which must be legal."""
    g = game.copy()
    for i, action in enumerate(line):
        reason = g.try_play(action)
        assert reason is None, f"move {i} ({action}) is illegal: {reason}"
    return g


def env_for(case: Case) -> gym.Env[Any, Any]:
    return gym.make(TRIPEAKS_ID, wrap=case.wrap, **case.options)


def env_reset_options(case: Case) -> dict[str, str]:
    """Reset with the deal code (even cases) or the deal string (odd cases)."""
    return {"deal_code": case.code} if case.index % 2 == 0 else {"deal": str(case.game().deal)}


def replay_in_env(case: Case, line: Sequence[int], prefix: Sequence[int] = ()) -> dict[str, Any]:
    """Step ``prefix`` then ``line`` in a fresh env of the case; the info after the last step."""
    env = env_for(case)
    try:
        _, info = env.reset(options=env_reset_options(case))
        terminated = truncated = False
        steps = [*prefix, *line]
        for i, action in enumerate(steps):
            assert not (terminated or truncated), f"the episode ended before move {i}"
            assert info["action_mask"][action] == 1, f"move {i} ({action}) is masked out"
            _, _, terminated, truncated, info = env.step(action)
            assert "illegal_reason" not in info, info.get("illegal_reason")
        info["terminated"] = terminated
        info["won"] = env.unwrapped.game.won  # type: ignore[attr-defined]
        return info
    finally:
        env.close()


# --------------------------------------------------------------------------- against the reference


@pytest.mark.parametrize("group", list(GROUPS))
def test_verdicts_match_the_reference(group: str, verdicts: dict[Case, tuple[SolveResult, bool | None]]) -> None:
    rows = [(case, *verdicts[case]) for case in ALL_CASES if case.group == group]
    assert len(rows) == GROUPS[group][0]
    intractable = [str(case) for case, result, _ in rows if result.status == "intractable"]
    assert not intractable, f"intractable at the default budget: {intractable}"
    undecided = [str(case) for case, _, ref in rows if ref is None]
    assert not undecided, f"the reference gave no verdict within its limits: {undecided}"
    wrong = [f"{case}: {result.status}, reference {ref}" for case, result, ref in rows if result.solved != ref]
    assert not wrong, wrong
    assert all(result.nodes <= DEFAULT_MAX_NODES for _, result, _ in rows)


@pytest.mark.parametrize("group", list(GROUPS))
def test_lines_replay_in_the_core_and_the_env(
    group: str, verdicts: dict[Case, tuple[SolveResult, bool | None]]
) -> None:
    """A winning line wins through the rules core and through the env; an unsolvable deal's
    best line clears exactly ``best`` cards in both."""
    for case in (c for c in ALL_CASES if c.group == group):
        result, _ = verdicts[case]
        game = case.game()
        after = play_line(game, result.line)
        assert after.cleared == result.best, case
        if result.solved:
            assert after.won and result.best == 28, case
            info = replay_in_env(case, result.line)
            assert info["terminated"] and info["won"] and info["cleared"] == 28, case
        else:
            assert result.status == "unsolvable", case
            assert not after.won and result.best < 28, case
            info = replay_in_env(case, result.line)
            assert info["cleared"] == result.best and not info["won"], case


@pytest.mark.slow
@pytest.mark.parametrize("letter", ["E", "C"])
def test_acceptance_2000_deals_against_the_reference(letter: str) -> None:
    """The first 2000 codes of seed 0 (they hold the 1000-deal benchmark set): every verdict
    equals the reference's, none intractable at the default budget."""
    codes = draw_codes(2000, 0, "TP", letter)
    games = [make_game(code) for code in codes]
    assert all(game.rules.wrap == (letter == "E") for game in games)
    solitaire_env.solve(games[0], max_nodes=1)  # load the compiled solver before timing
    start = time.perf_counter()
    fast = [solitaire_env.solve(game) for game in games]
    fast_seconds = time.perf_counter() - start
    start = time.perf_counter()
    reference = reference_verdicts(games)
    ref_seconds = time.perf_counter() - start
    solved = sum(r.solved for r in fast)
    unsolvable = sum(r.status == "unsolvable" for r in fast)
    undecided = [(code, r.status, r.nodes) for code, r, ref in zip(codes, fast, reference) if ref is None]
    print(
        f"\n{letter}: {len(codes)} deals, solved {solved}, unsolvable {unsolvable}, "
        f"intractable {len(codes) - solved - unsolvable}; reference: solvable {reference.count(True)}, "
        f"unsolvable {reference.count(False)}, no verdict within {REFERENCE_SECONDS} s "
        f"{len(undecided)} {undecided}; "
        f"max nodes {max(r.nodes for r in fast):,} (budget {DEFAULT_MAX_NODES:,}); "
        f"fast {fast_seconds:.1f} s (1 process), reference {ref_seconds:.1f} s "
        f"({min(os.cpu_count() or 1, len(codes))} processes)"
    )
    wrong = [
        f"{code}: {r.status} vs {ref}"
        for code, r, ref in zip(codes, fast, reference)
        if ref is not None and r.solved != ref
    ]
    assert not wrong, wrong
    assert all(r.status != "intractable" for r in fast)
    assert len(undecided) <= len(codes) // 100, undecided  # at most 1% left unchecked
    for code, game, r in zip(codes, games, fast):
        if r.solved:
            assert play_line(game, r.line).won, code


# --------------------------------------------------------------------------- the contract


def hard_game() -> TriPeaksGame:
    deal = decode_deal(HARD_UNSOLVABLE)
    assert isinstance(deal, TriPeaksDeal)
    return TriPeaksGame(deal, TriPeaksRules(wrap=True))


def test_spent_budget_is_intractable_never_unsolvable() -> None:
    game = hard_game()
    full = solitaire_env.solve(game)
    assert full.status == "unsolvable" and full.nodes > 100_000
    for budget in (1, 2, 1000, full.nodes - 1):
        result = solitaire_env.solve(game, max_nodes=budget)
        assert result.status == "intractable", budget
        assert result.nodes == budget  # it stops at the first node past the budget, not expanded
        assert play_line(game, result.line).cleared == result.best  # its best line so far
    exact = solitaire_env.solve(game, max_nodes=full.nodes)  # just enough: the search ends
    assert exact.status == "unsolvable" and exact.nodes == full.nodes and exact.best == full.best
    # a solvable deal on a spent budget: intractable too
    easy = TriPeaksGame(decode_deal("TP1-C-AAAAAAB"), TriPeaksRules(wrap=False))  # type: ignore[arg-type]
    assert solitaire_env.solve(easy).solved
    assert solitaire_env.solve(easy, max_nodes=1).status == "intractable"
    with pytest.raises(ValueError, match="max_nodes"):
        solve_tripeaks(easy, max_nodes=0)


def test_solve_leaves_the_game_unchanged() -> None:
    game = hard_game()
    rng = np.random.default_rng(3)
    for _ in range(6):
        game.play(int(rng.choice(game.legal_actions())))
    game.undo()
    before = game.state_dict()
    history = list(game._history)
    solitaire_env.solve(game)
    solitaire_env.solve(game, max_nodes=5)
    assert game.state_dict() == before and list(game._history) == history
    assert game.undo()  # the history still works


def test_solving_from_mid_game_positions() -> None:
    """Play some random moves (and an undo), then solve: the verdict equals the reference's
    from that position, and the line replays from there, in the core and in the env."""
    rng = np.random.default_rng(11)
    outcomes = set()
    codes = draw_codes(6, 201, "TP", "E") + draw_codes(6, 202, "TP", "C")
    cases = [Case("mid", i, code) for i, code in enumerate(codes)]
    for case in cases:
        game = case.game()
        prefix: list[int] = []
        for _ in range(int(rng.integers(3, 12))):
            if game.over:
                break
            action = int(rng.choice(game.legal_actions()))
            game.play(action)
            prefix.append(action)
        if len(prefix) > 2:  # an undo on the way: the position is what counts
            game.undo()
            prefix.pop()
        result = solitaire_env.solve(game)
        assert result.status != "intractable", case
        assert result.solved == reference_solvable(game), case
        after = play_line(game, result.line)
        assert after.cleared == result.best
        assert after.won == result.solved
        if result.solved:
            info = replay_in_env(case, result.line, prefix)
            assert info["terminated"] and info["won"], case
        outcomes.add(result.status)
    assert outcomes == {"solved", "unsolvable"}  # both verdicts were met from mid-game


def test_finished_positions() -> None:
    game = TriPeaksGame(decode_deal("TP1-E-AAAAAAB"))  # type: ignore[arg-type]
    result = solitaire_env.solve(game)
    won = play_line(game, result.line)
    again = solitaire_env.solve(won)
    assert again.solved and again.line == () and again.best == 28
    lost = hard_game()
    while not lost.over:  # draw out the stock: lost once nothing is playable
        lost.play(DRAW if lost.legal_mask() >> DRAW & 1 else lost.legal_actions()[0])
    assert lost.lost
    dead = solitaire_env.solve(lost)
    assert dead.status == "unsolvable" and dead.line == () and dead.best == lost.cleared


def test_faces_open_gives_the_same_result() -> None:
    """The solver sees every card either way: faces='open' changes nothing it returns."""
    statuses = set()
    for code in draw_codes(8, 301, "TP", "E") + draw_codes(8, 302, "TP", "C"):
        deal = decode_deal(code)
        assert isinstance(deal, TriPeaksDeal)
        wrap = parse_deal_code(code).wrap
        standard = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=wrap)))
        opened = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=wrap, faces="open")))
        same = ("status", "line", "nodes", "best")
        assert [getattr(opened, k) for k in same] == [getattr(standard, k) for k in same], code
        statuses.add(standard.status)
    assert statuses == {"solved", "unsolvable"}


def test_solve_takes_a_deal_or_a_game() -> None:
    deal = decode_deal("TP1-E-AAAAAAC")
    assert isinstance(deal, TriPeaksDeal)
    from_deal = solitaire_env.solve(deal)
    from_game = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=True)))
    assert (from_deal.status, from_deal.line, from_deal.nodes) == (from_game.status, from_game.line, from_game.nodes)
    assert from_deal.seconds >= 0
    with pytest.raises(TypeError):
        solitaire_env.solve(42)  # neither a game nor a deal (a deal code is accepted since the api change)


def test_solving_a_deal_uses_its_code_rule_letter() -> None:
    """solve(deal) plays a deal made from a code under that code's wrap rule."""
    for letter, wrap in (("E", True), ("C", False)):
        deal = decode_deal(f"TP1-{letter}-AAAAAAD")
        expected = solitaire_env.solve(TriPeaksGame(deal, TriPeaksRules(wrap=wrap)))
        got = solitaire_env.solve(deal)
        assert (got.status, got.line) == (expected.status, expected.line)


# --------------------------------------------------------------------------- the pruning rule


def _rank_state(tableau: list[int], stock: list[int]) -> tuple[int, int, int, int, int, int]:
    """``_dead``'s inputs for tableau and stock rank lists (0: a joker)."""
    tab_mask = 0
    for r in tableau:
        tab_mask |= 1 << r
    stock_mask = 0
    for r in stock:
        stock_mask |= 1 << r
    odd = sum(r % 2 for r in tableau)
    return (
        tab_mask,
        odd,
        len(tableau),
        stock_mask,
        sum(1 for r in stock if r % 2),
        sum(1 for r in stock if r and r % 2 == 0),
    )


@pytest.mark.parametrize(
    ("tableau", "stock", "key", "wrap", "dead"),
    [
        ([4, 6], [], 5, False, True),  # 4 on the 5, then nothing takes the 6: two evens, one odd head
        ([4, 5, 6], [], 5, False, False),  # 5-4-5-6
        ([4, 6], [7], 5, False, False),  # two odd heads: 5-4, 7-6
        ([4, 6, 8], [7], 5, False, True),  # three evens, two odd heads: 5-4, 7-6 (or 7-8), one left
        ([4, 6, 8], [7, 9], 5, False, False),  # 5-4, 7-6, 9-8
        ([4, 5, 6, 8], [7], 5, False, False),  # parity allows it (5-4-5-6, 7-8)
        ([2, 4], [], 3, False, True),  # 3-2 or 3-4, then the other needs a 3
        ([9], [], 5, False, True),  # no 8 or 10 anywhere
        ([9], [10], 5, False, False),
        ([1], [], 13, False, True),  # no wrap: an ace needs a two
        ([1], [], 13, True, False),  # wrap: the king takes the ace
        ([13], [], 5, True, True),  # wrap: a king needs a queen or an ace
        ([2, 4], [], 3, True, False),  # wrap: no parity test, and the rank test lets the one 3 serve both
        ([13, 13], [], 1, True, False),  # a necessary condition only: one ace for two kings passes
        ([4, 6], [], 0, False, False),  # a joker on the waste: nothing is decided
        ([4, 6], [0], 5, False, False),  # a joker left in the stock
    ],
)
def test_dead_position_rule(tableau: list[int], stock: list[int], key: int, wrap: bool, dead: bool) -> None:
    from solitaire_env.tripeaks.solver import _dead

    assert bool(_dead(*_rank_state(tableau, stock), key, wrap)) == dead


# --------------------------------------------------------------------------- the tables


def _stamped(table: np.ndarray, stamp: int) -> int:
    """How many entries of ``table`` the search of ``stamp`` stored."""
    return int(np.count_nonzero((table >> 38) == stamp))


def test_the_tables_a_search_passes_through_change_nothing_it_returns() -> None:
    """A search starts in the small table, moves to the middle one, then to the big one; each
    is an exact set, so results (status, line, nodes, best) equal a search that skips the
    middle table (how the solver searched before it had one)."""
    from solitaire_env.tripeaks import solver as st

    games = {
        "small": TriPeaksGame(decode_deal("TP1-E-AAAAAAB")),  # type: ignore[arg-type]  # 49 nodes
        "mid": make_game("TP1-C-UMH6XT6"),  # unsolvable in 35,592 nodes
        "big": hard_game(),  # unsolvable in 186,067 nodes
    }
    reached: dict[str, list[int]] = {}
    for name, game in games.items():
        with_mid = solitaire_env.solve(game)
        stamp = st._Table.stamp
        small, mid, big = st._Table.small, st._Table.mid, st._Table.big
        assert small is not None and mid is not None and big is not None
        reached[name] = [_stamped(t, stamp) for t in (small, mid, big)]
        st._Table.mid = np.zeros(1, dtype=np.int64)  # no larger than the small table: skipped
        try:
            without = solitaire_env.solve(game)
            assert _stamped(mid, st._Table.stamp) == 0
        finally:
            st._Table.mid = mid
        same = ("status", "line", "nodes", "best")
        assert [getattr(with_mid, k) for k in same] == [getattr(without, k) for k in same], name
        assert with_mid.status != "intractable"
    mid_limit = (1 << st.MID_TABLE_BITS) * 7 // 10
    assert reached["small"][1:] == [0, 0]  # a short search never leaves the small table
    assert 0 < reached["mid"][1] < mid_limit and reached["mid"][2] == 0
    assert reached["big"][1] == mid_limit and reached["big"][2] > mid_limit  # all of the middle one moved on
