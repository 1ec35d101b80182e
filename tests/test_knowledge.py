"""The knowledge objects: one public-information object per game, and a function of what is seen.

- Two games that differ only in cards never seen (two of them swapped) give equal knowledge,
  equal public states and equal public observations; a seen card that differs changes the
  knowledge.
- The knowledge says what the game's own public accessors say (legal moves, ``public_view``,
  unseen cards, ``all_known``).
- The observers (flat and dict, and the public part of the oracle modes), whose encoders are
  incremental and read the game directly, show exactly what the knowledge says: the
  observation is rebuilt here from the knowledge alone and compared, on thousands of random
  positions (with undos) of both games under several rule sets.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import solitaire_env.fortythieves.observe as ft_ob
import solitaire_env.tripeaks.observe as tp_ob
from agents.base import public_state
from solitaire_env.common.cards import JOKER, NUM_CARDS
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge, fortythieves_knowledge
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.hints import game_knowledge
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge, tripeaks_knowledge
from solitaire_env.tripeaks.rules import NUM_SLOTS, TriPeaksRules

Game = TriPeaksGame | FortyThievesGame
UNDO = -1

TP_RULES = [
    TriPeaksRules(),
    TriPeaksRules(waste_start="empty", undo_limit=3),
    TriPeaksRules(jokers=2, wrap=False),
    TriPeaksRules(jokers=1, draw="when_stuck", waste_start="empty"),
    TriPeaksRules(faces="open", jokers=1),
]
FT_RULES = [FortyThievesRules(), FortyThievesRules(foundation_return=False, undo_limit=4)]
RULE_SETS = [("tripeaks", r) for r in TP_RULES] + [("fortythieves", r) for r in FT_RULES]


def new_game(name: str, rules: Any, seed: int) -> Game:
    if name == "tripeaks":
        return TriPeaksGame(TriPeaksDeal.from_seed(seed, jokers=rules.jokers), rules)
    return FortyThievesGame(FortyThievesDeal.from_seed(seed), rules)


def walk(game: Game, rnd: random.Random, steps: int) -> Iterator[list[int]]:
    """Random legal moves and undos on ``game``; yields the operations so far after each one."""
    ops: list[int] = []
    yield ops
    for _ in range(steps):
        if ops and rnd.random() < 0.12:
            if game.undo():
                ops.append(UNDO)
                yield ops
            continue
        legal = game.legal_actions()
        if not legal:
            return
        action = rnd.choice(legal)
        game.play(action)
        ops.append(action)
        yield ops


def replay(game: Game, ops: list[int]) -> bool:
    """Play ``ops`` on ``game``; ``False`` as soon as one does not replay."""
    for op in ops:
        if op == UNDO:
            if not game.undo():
                return False
        elif game.try_play(op) is not None:
            return False
    return True


def places(game: Game) -> tuple[list[int], set[int]]:
    """Every card place of the deal (TriPeaks: the 28 slots, then the game's stock; Forty
    Thieves: the stock) and the indices of those never seen."""
    if isinstance(game, TriPeaksGame):
        cards = [*game.tableau, *game.stock]
        hidden = {s for s in range(NUM_SLOTS) if not game.seen_slots >> s & 1}
        hidden |= {NUM_SLOTS + p for p in range(game.stock_seen, len(game.stock))}
        return cards, hidden
    return list(game.stock), set(range(game.stock_seen, len(game.stock)))


def with_places(game: Game, cards: list[int]) -> Game:
    """A new game of ``game``'s rules and scoring whose deal has ``cards`` in its places."""
    if isinstance(game, TriPeaksGame):
        tableau, stock = tuple(cards[:NUM_SLOTS]), tuple(cards[NUM_SLOTS:])
        if game.rules.waste_start == "card":
            deal = TriPeaksDeal(tableau, game.deal.waste, stock)
        else:
            deal = TriPeaksDeal(tableau, stock[0], stock[1:])
        return TriPeaksGame(deal, game.rules, game.scoring)
    return FortyThievesGame(FortyThievesDeal(game.deal.columns, tuple(cards)), game.rules, game.scoring)


def swappable(cards: list[int], i: int, j: int) -> bool:
    """Two places whose cards differ and may trade places (a joker never goes to the tableau)."""
    if cards[i] == cards[j]:
        return False
    return not (JOKER in (cards[i], cards[j]) and min(i, j) < NUM_SLOTS)  # Forty Thieves has no joker


def swapped(game: Game, rnd: random.Random, *, seen: bool) -> Game | None:
    """``game``'s deal with two places swapped: two never-seen ones, or (``seen``) a seen one
    with a never-seen one; ``None`` when there is no such pair."""
    cards, hidden = places(game)
    first = [i for i in range(len(cards)) if i not in hidden] if seen else sorted(hidden)
    pairs = [(i, j) for i in first for j in sorted(hidden) if i != j and swappable(cards, i, j)]
    if not pairs:
        return None
    i, j = rnd.choice(pairs)
    cards[i], cards[j] = cards[j], cards[i]
    return with_places(game, cards)


# ---------------------------------------------------------------- hidden cards


@pytest.mark.parametrize(("name", "rules"), RULE_SETS)
def test_games_that_differ_only_in_unseen_cards_have_equal_knowledge(name: str, rules: Any) -> None:
    rnd = random.Random(20)
    checked = 0
    for seed in range(25):
        game = new_game(name, rules, seed)
        for n, ops in enumerate(walk(game, rnd, 120)):
            if n % 4:
                continue
            other = swapped(game, rnd, seen=False)
            if other is None:
                continue
            assert replay(other, ops), "moves on seen cards always replay"
            assert places(other)[0] != places(game)[0]  # really another deal
            k = game_knowledge(game)
            assert game_knowledge(other) == k
            assert public_state(other, ops).fingerprint() == public_state(game, ops).fingerprint()
            for mode in ("flat", "dict"):
                observer = (tp_ob.TriPeaksObserver if name == "tripeaks" else ft_ob.FortyThievesObserver)(mode)
                a, b = observer.encode(game), observer.encode(other)
                if mode == "flat":
                    assert np.array_equal(a, b)
                else:
                    assert a.keys() == b.keys() and all(np.array_equal(a[key], b[key]) for key in a)
            checked += 1
    assert checked >= 100


@pytest.mark.parametrize(("name", "rules"), RULE_SETS)
def test_a_seen_card_that_differs_changes_the_knowledge(name: str, rules: Any) -> None:
    rnd = random.Random(21)
    checked = 0
    for seed in range(25):
        game = new_game(name, rules, seed)
        for n, ops in enumerate(walk(game, rnd, 120)):
            if n % 4:
                continue
            other = swapped(game, rnd, seen=True)
            if other is None or not replay(other, ops):
                continue  # the changed card made a move illegal: the games differ in sight anyway
            assert game_knowledge(other) != game_knowledge(game)
            checked += 1
    assert checked >= 50


@pytest.mark.parametrize(("name", "rules"), RULE_SETS)
def test_the_knowledge_says_what_the_game_says(name: str, rules: Any) -> None:
    rnd = random.Random(22)
    for seed in range(12):
        game = new_game(name, rules, seed)
        for _ in walk(game, rnd, 150):
            k = game_knowledge(game)
            assert k.legal_mask == game.legal_mask()
            assert k.legal == tuple(game.legal_actions())
            assert k.view() == game.public_view()
            assert k.unseen_cards == tuple(sorted(game.unseen_cards()))
            assert k.all_known == game.all_known and k.won == game.won and k.over == game.over
            assert k.rules == game.rules and k.scoring == game.scoring
            assert k.stock_left == game.stock_count
            drawn = game.stock[: game.stock_seen]
            assert k.stock == (*drawn, *[None] * (len(game.stock) - game.stock_seen))
            if isinstance(k, TriPeaksKnowledge):
                assert isinstance(game, TriPeaksGame)
                seen = game.seen_slots
                assert k.layout == tuple(c if seen >> s & 1 else None for s, c in enumerate(game.tableau))
                assert k.ranks == tuple(0 if c is None else c % 13 + 1 for c in k.layout)
                unseen = [0] * 14
                for c in k.unseen_cards:
                    unseen[0 if c == JOKER else c % 13 + 1] += 1
                assert k.unseen == tuple(unseen)
                assert k.first_waste == (game.deal.waste if rules.waste_start == "card" else None)
            else:
                assert isinstance(game, FortyThievesGame) and isinstance(k, FortyThievesKnowledge)
                assert k.layout == tuple(c for col in game.deal.columns for c in col)
                assert k.columns == tuple(map(tuple, game.columns)) and k.waste == tuple(game.waste)
                assert k.first_waste is None


def test_the_knowledge_functions_and_public_states_agree() -> None:
    game = new_game("tripeaks", TriPeaksRules(), 3)
    assert game_knowledge(game) == tripeaks_knowledge(game)
    ft = new_game("fortythieves", FortyThievesRules(), 3)
    assert game_knowledge(ft) == fortythieves_knowledge(ft)
    for g in (game, ft):
        state = public_state(g, [])
        k = state.knowledge
        assert state.legal == k.legal and list(np.flatnonzero(state.mask)) == list(k.legal)
        assert (state.layout, state.stock, state.unseen, state.first_waste) == (
            k.layout,
            k.stock,
            k.unseen_cards,
            k.first_waste,
        )
        assert state.rules is g.rules and state.view == g.public_view() and state.game == k.game
    with pytest.raises(TypeError):
        game_knowledge("TP1-E-AAAAAAB")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the observers


def tripeaks_flat(k: TriPeaksKnowledge) -> np.ndarray:
    """The public flat observation (docs/environments.md), made from the knowledge alone."""
    buf = np.zeros(tp_ob.FLAT_SIZE, np.float32)
    for s in range(NUM_SLOTS):
        at = tp_ob.SLOT_SIZE * s
        card = k.layout[s]
        if k.removed >> s & 1:
            buf[at + 1] = 1.0
        elif k.face_up >> s & 1:
            assert card is not None
            buf[at + 2 + card % 13] = buf[at + 15 + card // 13] = 1.0
        else:
            buf[at] = 1.0
    top = k.waste_top
    if top is None:
        buf[tp_ob.WASTE_OFFSET + 18] = 1.0
    elif top == JOKER:
        buf[tp_ob.WASTE_OFFSET + 17] = 1.0
    else:
        buf[tp_ob.WASTE_OFFSET + top % 13] = buf[tp_ob.WASTE_OFFSET + 13 + top // 13] = 1.0
    buf[tp_ob.STOCK_OFFSET] = k.stock_left / tp_ob.MAX_STOCK
    for card in k.unseen_cards:
        if card != JOKER:
            buf[tp_ob.UNSEEN_OFFSET + card] = 1.0
    buf[tp_ob.JOKERS_OFFSET] = k.unseen_cards.count(JOKER) / 2
    buf[tp_ob.CHAIN_OFFSET] = k.chain / NUM_SLOTS
    buf[tp_ob.CLEARED_OFFSET] = k.cleared / NUM_SLOTS
    return buf


def tripeaks_dict(k: TriPeaksKnowledge) -> dict[str, np.ndarray]:
    """The public dict observation, made from the knowledge alone."""
    tableau = []
    for s in range(NUM_SLOTS):
        card = k.layout[s]
        if k.removed >> s & 1:
            tableau.append(tp_ob.REMOVED)
        elif k.face_up >> s & 1:
            assert card is not None
            tableau.append(card)
        else:
            tableau.append(tp_ob.FACE_DOWN)
    unseen = np.zeros(NUM_CARDS, np.int8)
    unseen[[c for c in k.unseen_cards if c != JOKER]] = 1
    counts = [
        k.stock_left / tp_ob.MAX_STOCK,
        k.chain / NUM_SLOTS,
        k.cleared / NUM_SLOTS,
        k.unseen_cards.count(JOKER) / 2,
    ]
    return {
        "tableau": np.array(tableau),
        "waste": np.array(tp_ob.WASTE_EMPTY if k.waste_top is None else k.waste_top),
        "unseen": unseen,
        "counts": np.array(counts, np.float32),
    }


def fortythieves_flat(k: FortyThievesKnowledge) -> np.ndarray:
    """The public flat observation (docs/environments.md), made from the knowledge alone."""
    buf = np.zeros(ft_ob.FLAT_SIZE, np.float32)

    def put(at: int, card: int) -> None:
        buf[at + card % 13] = buf[at + 13 + card // 13] = 1.0

    for j, col in enumerate(k.columns):
        for i, card in enumerate(col):
            put(ft_ob.CARD_SIZE * (16 * j + i), card)
        buf[ft_ob.LENGTHS_OFFSET + j] = len(col) / 16
    for p, card in enumerate(k.waste):
        put(ft_ob.WASTE_OFFSET + ft_ob.CARD_SIZE * p, card)
    if k.waste_top is not None:
        put(ft_ob.WASTE_TOP_OFFSET, k.waste_top)
    buf[ft_ob.WASTE_SIZE_OFFSET] = len(k.waste) / 64
    for f, n in enumerate(k.foundations):
        buf[ft_ob.FOUNDATIONS_OFFSET + f] = n / 13
    buf[ft_ob.STOCK_OFFSET] = k.stock_left / 64
    for card in k.unseen_cards:
        buf[ft_ob.UNSEEN_OFFSET + card] += 0.5
    return buf


def fortythieves_dict(k: FortyThievesKnowledge) -> dict[str, np.ndarray]:
    """The public dict observation, made from the knowledge alone."""
    columns = np.full((10, 16), ft_ob.NONE)
    for j, col in enumerate(k.columns):
        columns[j, : len(col)] = col
    waste = np.full(64, ft_ob.NONE)
    waste[: len(k.waste)] = k.waste
    return {
        "columns": columns,
        "waste": waste,
        "foundations": np.array(k.foundations),
        "unseen": np.bincount(np.array(k.unseen_cards, dtype=np.int64), minlength=NUM_CARDS),
        "counts": np.array([k.stock_left / 64, len(k.waste) / 64], np.float32),
    }


@pytest.mark.parametrize(("name", "rules"), RULE_SETS)
def test_the_observers_show_what_the_knowledge_says(name: str, rules: Any) -> None:
    rnd = random.Random(23)
    tp = name == "tripeaks"
    make = tp_ob.TriPeaksObserver if tp else ft_ob.FortyThievesObserver
    size = tp_ob.FLAT_SIZE if tp else ft_ob.FLAT_SIZE
    positions = 0
    for seed in range(10 if tp else 6):
        game = new_game(name, rules, seed)
        observers = {
            mode: make(mode) for mode in ("flat", "dict", "oracle", "oracle_dict")
        }  # one per game: incremental
        for _ in walk(game, rnd, 200):
            k = game_knowledge(game)
            flat = tripeaks_flat(k) if isinstance(k, TriPeaksKnowledge) else fortythieves_flat(k)
            want = tripeaks_dict(k) if isinstance(k, TriPeaksKnowledge) else fortythieves_dict(k)
            assert np.array_equal(observers["flat"].encode(game), flat)
            assert np.array_equal(observers["oracle"].encode(game)[:size], flat)
            for mode in ("dict", "oracle_dict"):
                obs = observers[mode].encode(game)
                assert set(want) <= set(obs)
                for key, value in want.items():
                    assert np.array_equal(obs[key], value), (mode, key)
                    assert np.asarray(obs[key]).dtype == value.dtype, (mode, key)
            positions += 1
    assert positions >= 500
