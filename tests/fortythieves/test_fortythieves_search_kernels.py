"""The numba Forty Thieves search (:mod:`solitaire_env.fortythieves.search_kernels`, driven by
:mod:`solitaire_env.fortythieves.solver`) against its pure-Python twin
(:mod:`solitaire_env.fortythieves.python_solver`) and against a plain search with no pruning.

- the move order: ``search_kernels.ordered_moves`` equals ``python_solver.ordered_moves`` move
  for move on thousands of positions from random play (both rule options, every kind of ``last``);
- the depth-first search: ``solver.depth_first`` equals ``python_solver._search`` (status, line,
  nodes, best count, best line) over many budgets, with and without draws;
- the whole solver: ``solve_fortythieves`` equals ``solve_fortythieves_python`` (status, line,
  nodes, best) at the node schedule;
- the canonical keys: blind to the order of the columns and of a suit's two foundations, to
  nothing else; the incremental keys of ``play``/``undo`` equal keys made from scratch;
- the transposition table: growth and a new stamp change no result;
- the budgets: ``max_seconds`` stops a search as ``intractable``, bad budgets are refused;
- every ``solved`` line wins (on the game and through the env);
- verdicts: ``solved``/``unsolvable`` agree with a plain exhaustive search on positions it can finish.
"""

from __future__ import annotations

import functools
import math
import random

import gymnasium as gym
import numpy as np
import pytest
from conftest import FORTYTHIEVES_ID

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.fortythieves import python_solver as P
from solitaire_env.fortythieves import search_kernels as K
from solitaire_env.fortythieves import solver as S
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import (
    DRAW,
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    NUM_FOUNDATIONS,
    PARTNER,
    WASTE,
    FortyThievesRules,
    foundation_card,
)

RULES = {"return": FortyThievesRules(), "no_return": FortyThievesRules(foundation_return=False)}
RULE_IDS = list(RULES)


# --------------------------------------------------------------------------- helpers


def new_game(seed: int, rules: str = "return") -> FortyThievesGame:
    return FortyThievesGame(FortyThievesDeal.from_seed(seed), RULES[rules])


def random_move(game: FortyThievesGame, rng: random.Random) -> int | None:
    """A random legal move, foundation moves and draws favoured (so that play gets somewhere)."""
    actions = game.legal_actions()
    if not actions:
        return None
    founding = [a for a in actions if a != DRAW and a % NUM_DESTS == FOUNDATION and a // NUM_DESTS <= WASTE]
    x = rng.random()
    if founding and x < 0.5:
        return rng.choice(founding)
    if DRAW in actions and x < 0.65:
        return DRAW
    return rng.choice(actions)


def random_play(game: FortyThievesGame, rng: random.Random, moves: int) -> list[tuple[FortyThievesGame, int]]:
    """Up to ``moves`` random moves from ``game`` (changed); every position on the way (copies),
    each with where its last move put the card (the ``last`` the search would pass)."""
    out = [(game.copy(), -1)]
    for _ in range(moves):
        a = random_move(game, rng)
        if a is None:
            break
        last = P._moved_to(game, a)
        game.play(a)
        out.append((game.copy(), last))
    return out


@functools.cache
def arrays() -> K.SearchArrays:
    """A private set of search arrays (not the solver's)."""
    return K.SearchArrays(table_bits=12)


def numba_start(sa: K.SearchArrays, game: FortyThievesGame) -> None:
    sa.next_stamp()
    S.load_position(sa, game)
    K.start(sa.search, game.rules.foundation_return, game.founded, False)


def numba_moves(game: FortyThievesGame, last: int) -> list[int]:
    sa = arrays()
    numba_start(sa, game)
    out = np.zeros(K.MAX_MOVES, np.int16)
    n = K.ordered_moves(sa.position, last, game.rules.foundation_return, out, sa.scratch)
    return out[:n].tolist()


def keys_of(game: FortyThievesGame) -> tuple[int, int]:
    sa = arrays()
    numba_start(sa, game)
    k1, k2 = K.position_keys(sa.position)
    return int(k1), int(k2)


def canonical(game: FortyThievesGame) -> tuple:
    """The position up to the order of the columns and of a suit's two foundations (exact)."""
    f = game.foundations
    return (
        tuple(sorted(map(tuple, game.columns))),
        tuple(game.waste),
        game.stock_pos,
        tuple(tuple(sorted((f[i], f[PARTNER[i]]))) for i in range(4)),
    )


def python_search(game: FortyThievesGame, limit: int, *, draws: bool = True, best: int | None = None):
    work = P._work_copy(game)
    b = P._Best(work.founded if best is None else best)
    status, line, nodes = P._search(work, limit, b, draws=draws)
    assert work.position_key() == game.position_key()  # (undo keeps the move counter)
    return status, line, nodes, b.founded, tuple(b.line)


def numba_search(game: FortyThievesGame, limit: int, *, draws: bool = True, best: int | None = None):
    status, line, nodes, founded, to_best, _ = S.depth_first(game, limit, draws=draws, best=best)
    return status, line, nodes, founded, to_best


def replays_to_win(game: FortyThievesGame, line: tuple[int, ...]) -> bool:
    g = game.copy()
    return all(g.try_play(a) is None for a in line) and g.won


def env_replays_to_win(deal: FortyThievesDeal, rules: str, line: tuple[int, ...]) -> bool:
    """The line played through the env from the deal's code: every step legal, ``terminated``
    with all 104 cards founded at the last step only (tests/fortythieves/test_fortythieves_solver.py)."""
    env = gym.make(FORTYTHIEVES_ID, foundation_return=RULES[rules].foundation_return)
    env.reset(options={"deal_code": str(deal.code)})
    terminated, info = False, {}
    for k, action in enumerate(line):
        _, _, terminated, truncated, info = env.step(action)
        assert "illegal_reason" not in info, (k, action)
        assert not truncated
        assert terminated == (k == len(line) - 1)
    env.close()
    return terminated and info["founded"] == 104


def plain_win(game: FortyThievesGame, limit: int) -> bool | None:
    """A plain exhaustive depth-first search, no pruning at all: every legal action, exact
    positions (``position_key``) in a visited set.  Whether a win is reachable; ``None`` when
    more than ``limit`` positions were reached."""
    g = game.copy()
    if g.won:
        return True
    seen = {g.position_key()}
    stack = [g.legal_actions()]
    tried = [0]
    while stack:
        i = tried[-1]
        if i == len(stack[-1]):
            stack.pop()
            tried.pop()
            if stack:
                g.undo()
            continue
        tried[-1] = i + 1
        assert g.try_play(stack[-1][i]) is None
        if g.won:
            return True
        key = g.position_key()
        if key in seen:
            g.undo()
            continue
        if len(seen) >= limit:
            return None
        seen.add(key)
        stack.append(g.legal_actions())
        tried.append(0)
    return False


def solve_key(r):
    return r.status, r.line, r.nodes, r.best


# --------------------------------------------------------------------------- 1. the move order


def test_ordered_moves_equal_the_python_move_order():
    kinds = {"positions": 0, "lasts": 0, "returns": 0, "forced": 0, "draw": 0, "founded_last_cut": 0}
    for rules in RULE_IDS:
        for seed in range(24):
            rng = random.Random(1000 * seed + len(rules))
            for game, real_last in random_play(new_game(seed, rules), rng, 110):
                tops = [foundation_card(f, n) for f, n in enumerate(game.foundations) if n]
                lasts = {-1, real_last, rng.randrange(NUM_COLUMNS), 100 + rng.randrange(52)}
                if tops:
                    lasts.add(100 + rng.choice(tops))
                kinds["positions"] += 1
                for last in lasts:
                    want = P.ordered_moves(game, last)
                    assert numba_moves(game, last) == want, (seed, rules, last, game)
                    kinds["lasts"] += 1
                    kinds["returns"] += any(a != DRAW and a // NUM_DESTS >= FIRST_FOUNDATION_SRC for a in want)
                    kinds["forced"] += len(want) == 1 and want[0] != DRAW
                    kinds["draw"] += DRAW in want
                    if last >= 100 and want != P.ordered_moves(game, -1):
                        kinds["founded_last_cut"] += 1
                # the root's moves as start() orders them
                sa = arrays()
                assert sa.moves[0, : sa.nmov[0]].tolist() == P.ordered_moves(game, -1)
    assert kinds["positions"] >= 2000, kinds
    # the positions reach every kind of move order (else the comparison proves little)
    assert min(kinds.values()) >= 20, kinds


# --------------------------------------------------------------------------- 2. the depth-first search


def search_positions(rules: str) -> list[FortyThievesGame]:
    """Deal starts and positions from random play."""
    out = [new_game(seed, rules) for seed in (0, 2, 5, 11)]
    for seed in (3, 8, 13, 21):
        rng = random.Random(seed)
        played = random_play(new_game(seed, rules), rng, 40 + 20 * (seed % 3))
        out.append(played[-1][0])
    return out


@pytest.mark.parametrize("rules", RULE_IDS)
def test_depth_first_equals_the_python_search(rules):
    statuses = set()
    for i, game in enumerate(search_positions(rules)):
        for limit in (0, 1, 2, 50, 2000) + ((20_000,) if i % 3 == 0 else ()):
            want = python_search(game, limit)
            assert numba_search(game, limit) == want, (i, limit)
            statuses.add(want[0])
        for limit in (50, 2000):
            want = python_search(game, limit, draws=False)
            assert numba_search(game, limit, draws=False) == want, (i, limit, "no draws")
            statuses.add(want[0])
        want = python_search(game, 500, best=game.founded + 2)
        assert numba_search(game, 500, best=game.founded + 2) == want, (i, "best")
    assert statuses == {"solved", "unsolvable", "intractable"}


# --------------------------------------------------------------------------- 3. the whole solver


@functools.cache
def solved_pair(seed: int, rules: str, nodes: int):
    game = new_game(seed, rules)
    return game, P.solve_fortythieves_python(game, max_nodes=nodes), S.solve_fortythieves(game, max_nodes=nodes)


def check_solver_pairs(seeds, rules: str, nodes: int) -> set[str]:
    statuses = set()
    for seed in seeds:
        _, want, got = solved_pair(seed, rules, nodes)
        assert solve_key(got) == solve_key(want), seed
        statuses.add(want.status)
    return statuses


def test_solver_equals_the_python_solver_on_deals():
    statuses = check_solver_pairs(range(10), "return", 20_000)
    assert statuses >= {"solved", "intractable"}


def test_solver_equals_the_python_solver_on_played_positions():
    statuses = set()
    for rules in RULE_IDS:
        for seed in (4, 9):
            game = random_play(new_game(seed, rules), random.Random(seed), 60)[-1][0]
            for nodes in (1, 1500, 10_000):
                want = P.solve_fortythieves_python(game, max_nodes=nodes)
                got = S.solve_fortythieves(game, max_nodes=nodes)
                assert solve_key(got) == solve_key(want), (rules, seed, nodes)
                statuses.add(want.status)
    assert "intractable" in statuses


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_IDS)
def test_solver_equals_the_python_solver_many(rules):
    check_solver_pairs(range(20, 80), rules, 20_000)
    check_solver_pairs(range(6), rules, 60_000)
    for seed in range(30):
        game = random_play(new_game(seed, rules), random.Random(seed), 30 + 3 * seed)[-1][0]
        want = P.solve_fortythieves_python(game, max_nodes=20_000)
        assert solve_key(S.solve_fortythieves(game, max_nodes=20_000)) == solve_key(want), seed


# --------------------------------------------------------------------------- 4. the canonical keys


def played_positions(seed: int, moves: int = 120) -> list[FortyThievesGame]:
    return [g for g, _ in random_play(new_game(seed), random.Random(seed), moves)]


def test_keys_ignore_the_order_of_the_columns():
    rng = random.Random(5)
    for seed in range(6):
        for game in played_positions(seed)[::7]:
            key = keys_of(game)
            for _ in range(3):
                other = game.copy()
                other.columns = [list(c) for c in rng.sample(game.columns, NUM_COLUMNS)]
                assert keys_of(other) == key


def test_keys_ignore_the_order_of_a_suits_foundations():
    base = new_game(0)
    for f in range(4):
        one, two = base.copy(), base.copy()
        one.foundations = [0] * NUM_FOUNDATIONS
        two.foundations = [0] * NUM_FOUNDATIONS
        one.foundations[f], two.foundations[PARTNER[f]] = 3, 3
        assert keys_of(one) == keys_of(two)
    swapped = 0
    for seed in range(8):
        for game in played_positions(seed)[::5]:
            f = game.foundations
            for i in range(4):
                if f[i] != f[PARTNER[i]]:
                    other = game.copy()
                    other.foundations = list(f)
                    other.foundations[i], other.foundations[PARTNER[i]] = f[PARTNER[i]], f[i]
                    assert keys_of(other) == keys_of(game)
                    swapped += 1
    assert swapped >= 20


def test_keys_tell_apart_what_the_canonical_position_tells_apart():
    """Within a deal: equal keys exactly for equal canonical positions (over random play, every
    legal move of each position and arbitrary one-card moves between piles)."""
    rng = random.Random(11)
    changed = 0
    for seed in range(6):
        by_key: dict[tuple[int, int], tuple] = {}
        for game in played_positions(seed, 150):
            key, canon = keys_of(game), canonical(game)
            assert by_key.setdefault(key, canon) == canon
            for a in game.legal_actions():
                child = game.copy()
                child.play(a)
                same = canonical(child) == canon
                assert (keys_of(child) == key) == same, (seed, a)
                changed += not same
            for _ in range(4):  # one card moved anywhere (not necessarily a legal move)
                piles = [*game.columns, game.waste]
                src = rng.choice([i for i, p in enumerate(piles) if p])
                dst = rng.choice([i for i, p in enumerate(piles) if i != src and len(p) < 15])
                other = game.copy()
                other.columns = [list(c) for c in game.columns]
                other.waste = list(game.waste)
                piles = [*other.columns, other.waste]
                piles[dst].append(piles[src].pop())
                same = canonical(other) == canon
                assert (keys_of(other) == key) == same, (seed, src, dst)
                changed += not same
    assert changed >= 1000


def test_two_equal_columns_do_not_cancel():
    game = new_game(7)
    for card in (0, 12, 25, 51):
        pair, empty = game.copy(), game.copy()
        pair.columns = [[card], [card], *(list(c) for c in game.columns[2:])]
        empty.columns = [[], [], *(list(c) for c in game.columns[2:])]
        assert keys_of(pair) != keys_of(empty)
    # two columns of two equal cards each, vs the same cards without those columns
    pair, empty = game.copy(), game.copy()
    pair.columns = [[5, 30], [5, 30], *(list(c) for c in game.columns[2:])]
    empty.columns = [[], [], *(list(c) for c in game.columns[2:])]
    assert keys_of(pair) != keys_of(empty)


def test_keys_keep_which_cards_share_a_column():
    game = new_game(7)
    one, two = game.copy(), game.copy()
    rest = [list(c) for c in game.columns[2:]]
    one.columns = [[1, 2], [3, 4], *rest]
    two.columns = [[1, 4], [3, 2], *rest]  # same cards at the same depths, other columns
    assert keys_of(one) != keys_of(two)


def test_incremental_keys_equal_keys_from_scratch():
    fresh = K.SearchArrays(table_bits=8)
    for rules in RULE_IDS:
        for seed in range(8):
            rng = random.Random(seed)
            game = new_game(seed, rules)
            sa = arrays()
            numba_start(sa, game)
            pos = sa.position
            done: list[tuple[int, int]] = []
            for _ in range(250):
                if done and rng.random() < 0.3:
                    a, f = done.pop()
                    K.undo(a, f, pos)
                    assert game.undo()
                else:
                    a = random_move(game, rng)
                    if a is None:
                        continue
                    done.append((a, K.play(a, pos)))
                    game.play(a)
                fresh.next_stamp()
                S.load_position(fresh, game)
                K.start(fresh.search, game.rules.foundation_return, game.founded, False)
                assert K.position_keys(sa.position) == K.position_keys(fresh.position)
                for name in ("clen", "tops", "topped", "fnd", "ch", "wh"):
                    assert np.array_equal(getattr(sa, name), getattr(fresh, name)), name
                for s in (K.S_WLEN, K.S_POS, K.S_EMPTY, K.S_FOUNDED):
                    assert sa.sc[s] == fresh.sc[s]


def test_child_keys_equal_the_keys_after_the_move():
    """The search looks a child up before it plays the move (``child_keys``): for every legal
    move of positions along random games, the keys it predicts are those after ``play``."""
    checked = 0
    for rules in RULE_IDS:
        for seed in range(6):
            rng = random.Random(seed)
            game = new_game(seed, rules)
            sa = arrays()
            numba_start(sa, game)
            pos = sa.position
            for _ in range(120):
                for a in game.legal_actions():
                    predicted = K.child_keys(a, pos)
                    before = K.position_keys(pos)
                    f = K.play(a, pos)
                    assert predicted == K.position_keys(pos), (rules, seed, a)
                    K.undo(a, f, pos)
                    assert K.position_keys(pos) == before
                    checked += 1
                a = random_move(game, rng)
                if a is None:
                    break
                K.play(a, pos)
                game.play(a)
    assert checked > 3000


# --------------------------------------------------------------------------- 5. the table


def table_cases() -> list[FortyThievesGame]:
    return [new_game(0), new_game(3, "no_return"), played_positions(9, 40)[-1]]


def test_table_growth_changes_nothing(monkeypatch):
    cases = table_cases()
    dfs = [S.depth_first(g, 20_000) for g in cases]
    solved = [S.solve_fortythieves(g, max_nodes=20_000) for g in cases]
    monkeypatch.setattr(S, "TABLE_BITS", 8)
    sizes = []
    for g, want_dfs, want in zip(cases, dfs, solved):
        monkeypatch.setattr(S._Search, "arrays", None)
        assert S.depth_first(g, 20_000) == want_dfs
        sizes.append(S._Search.arrays["dfs"].table.shape[0])
        monkeypatch.setattr(S._Search, "arrays", None)
        got = S.solve_fortythieves(g, max_nodes=20_000)
        assert solve_key(got) == solve_key(want)
        assert got.extra["stored"] == want.extra["stored"]
    assert min(sizes) >= 256 * 4**3  # grown three times at least


@pytest.mark.parametrize("small", [False, True], ids=["default table", "small table"])
def test_a_new_search_sees_nothing_of_the_last(monkeypatch, small):
    if small:
        monkeypatch.setattr(S, "TABLE_BITS", 8)
        monkeypatch.setattr(S._Search, "arrays", None)
    a, b = table_cases()[:2]
    first = S.depth_first(a, 5_000)
    assert S.depth_first(a, 5_000) == first
    other = S.depth_first(b, 5_000)
    assert S.depth_first(a, 5_000) == first
    assert S.depth_first(b, 5_000) == other
    assert solve_key(S.solve_fortythieves(a, max_nodes=5_000)) == solve_key(S.solve_fortythieves(a, max_nodes=5_000))


# --------------------------------------------------------------------------- 6. the budgets


@pytest.mark.parametrize("seconds", [1e-9, 1e-6, 1e-3])
def test_tiny_max_seconds_is_intractable(seconds):
    game = new_game(0)  # not decided in 100,000 positions
    result = S.solve_fortythieves(game, max_nodes=10**9, max_seconds=seconds)
    assert result.status == "intractable"
    assert result.stopped_by == "seconds"
    assert replays_to_win(game, result.line) is False
    status, line, nodes, *_, stop = S.depth_first(game, 10**9, max_seconds=seconds)
    assert (status, line, stop) == ("intractable", (), "seconds")
    assert nodes <= S.SLICE_NODES + 1


@pytest.mark.parametrize("bad", [0, -1, 0.0, math.nan, -math.inf, True, "1", [1]])
def test_bad_max_seconds_is_refused(bad):
    with pytest.raises(ValueError, match=r"max_seconds must be a finite number > 0, got "):
        S.solve_fortythieves(new_game(0), max_nodes=100, max_seconds=bad)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_bad_max_nodes_is_refused(bad):
    with pytest.raises(ValueError, match=r"max_nodes must be a whole number >= 1, got "):
        S.solve_fortythieves(new_game(0), max_nodes=bad)
    with pytest.raises(ValueError, match=r"max_nodes must be a whole number >= 1, got "):
        S.solve_fortythieves(new_game(0), max_nodes=bad, max_seconds=1.0)


# --------------------------------------------------------------------------- 7. solved lines win


def test_solved_lines_win_on_the_game_and_through_the_env():
    wins = 0
    for seed in range(20):
        game, want, got = solved_pair(seed, "return", 20_000)
        for r in (want, got):
            if r.status == "solved":
                assert replays_to_win(game, r.line)
                assert env_replays_to_win(game.deal, "return", r.line)
                wins += 1
    for seed in (2, 5, 14):
        for rules in RULE_IDS:
            game = new_game(seed, rules)
            for r in (S.solve_fortythieves(game, max_nodes=60_000), S.solve_fortythieves(game, max_seconds=0.5)):
                if r.status == "solved":
                    assert replays_to_win(game, r.line)
                    assert env_replays_to_win(game.deal, rules, r.line)
                    wins += 1
            status, line, *_ = S.depth_first(game, 50_000)
            if status == "solved":
                assert replays_to_win(game, line)
                wins += 1
    assert wins >= 8


# --------------------------------------------------------------------------- 8. verdicts


PLAIN_LIMIT = 4_000


def end_positions(count: int, seed0: int) -> list[FortyThievesGame]:
    """Positions near the end of random play: 0-3 stock cards left."""
    out = []
    seed = seed0
    while len(out) < count:
        rng = random.Random(seed)
        game = new_game(seed % 200, RULE_IDS[seed % 2])
        left = rng.randrange(4)
        for _ in range(2000):
            if game.stock_count <= left:
                break
            a = random_move(game, rng)
            if a is None:
                break
            game.play(a)
        if game.stock_count <= left:
            out.append(game)
        seed += 1
    return out


#: Deals that the pure-Python solver wins at 20,000 nodes (a witness independent of the numba code).
SOLVED_DEALS = {"return": (2, 5, 11, 26, 52), "no_return": (2, 11, 26, 49, 52, 57)}


@functools.cache
def winning_line(seed: int, rules: str) -> tuple[int, ...] | None:
    r = P.solve_fortythieves_python(new_game(seed, rules), max_nodes=20_000)
    return r.line if r.status == "solved" else None


def suffix_positions(count: int, seed0: int) -> list[FortyThievesGame]:
    """The solved line of a deal, backed up K moves, then j random moves."""
    out = []
    seed = seed0
    while len(out) < count:
        rng = random.Random(seed)
        rules = RULE_IDS[seed % 2]
        deal_seed = SOLVED_DEALS[rules][(seed // 2) % len(SOLVED_DEALS[rules])]
        line = winning_line(deal_seed, rules)
        assert line is not None, (deal_seed, rules)
        seed += 1
        game = new_game(deal_seed, rules)
        for a in line[: len(line) - rng.randrange(2, 21)]:
            game.play(a)
        for _ in range(rng.randrange(4)):
            a = random_move(game, rng)
            if a is not None:
                game.play(a)
        out.append(game)
    return out


def check_verdicts(positions: list[FortyThievesGame]) -> dict[str, int]:
    counts = {"True": 0, "False": 0, "plain gave up": 0, "intractable": 0}
    for game in positions:
        plain = plain_win(game, PLAIN_LIMIT)
        if plain is None:
            counts["plain gave up"] += 1
            continue
        result = S.solve_fortythieves(game, max_nodes=2_000_000)
        if result.status == "intractable":
            counts["intractable"] += 1
            continue
        counts[str(plain)] += 1
        assert result.status == ("solved" if plain else "unsolvable"), (plain, result.status, game)
        if plain:
            assert replays_to_win(game, result.line)
    decided = counts["True"] + counts["False"]
    assert counts["intractable"] <= 0.05 * (decided + counts["intractable"]), counts
    return counts


def test_verdicts_agree_with_a_plain_search():
    counts = check_verdicts(end_positions(80, 0) + suffix_positions(80, 0))
    print("verdicts", counts)
    assert counts["True"] >= 20 and counts["False"] >= 20, counts
    assert counts["True"] + counts["False"] >= 100, counts


@pytest.mark.slow
def test_verdicts_agree_with_a_plain_search_many():
    # the soundness check at scale: at least 2,000 positions that the plain search decides
    counts = check_verdicts(end_positions(1300, 1000) + suffix_positions(1600, 1000))
    print("verdicts", counts)
    assert counts["True"] >= 300 and counts["False"] >= 300, counts
    assert counts["True"] + counts["False"] >= 2000, counts
