"""The heuristic agents of ``agents.players.heuristics``: legal moves, public information only, and the
behaviour each one promises (a seeded loop over positions reached by random play)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import ft_random_positions

from agents.base import Agent, decide, public_state
from agents.players.heuristics import fortythieves as ft_agents
from agents.players.heuristics import tripeaks as tp_agents
from agents.registry import agent_names, make_agent
from solitaire_env.common.cards import JOKER, card_id
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FOUNDATION, NUM_DESTS
from solitaire_env.solvability import draw_codes, make_game
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import DRAW as TP_DRAW
from solitaire_env.tripeaks.rules import TriPeaksRules

TP_NAMES = ["random_stuck", "reveal_first", "longest_chain", "peaks_even", "hint", "lookahead"]
FT_NAMES = ["safe_foundation", "hint", "free_column", "evaluate", "lookahead"]

#: TriPeaks rule variants the positions are drawn from (deal code letter, extra rule options).
TP_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("E", {}),
    ("C", {}),
    ("E", {"jokers": 2}),
    ("C", {"draw": "when_stuck"}),
    ("E", {"waste_start": "empty"}),
    ("E", {"faces": "open"}),
]


def _classes(module: Any) -> dict[str, type[Agent]]:
    return {
        obj.name: obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Agent)
        and obj.__module__ == module.__name__
        and obj.name != "agent"
    }


def test_registered() -> None:
    assert set(_classes(tp_agents)) == set(TP_NAMES)
    assert set(_classes(ft_agents)) == set(FT_NAMES)
    assert set(TP_NAMES) <= set(agent_names("tripeaks"))
    assert set(FT_NAMES) <= set(agent_names("fortythieves"))
    with pytest.raises(ValueError):
        make_agent("peaks_even", "fortythieves")


def _tp_positions(count: int, seed: int) -> list[tuple[TriPeaksGame, list[int]]]:
    """TriPeaks positions reached by random legal play (a random number of steps) from deals of
    every rule variant; never a finished game."""
    rng = np.random.default_rng(seed)
    out = []
    codes = {rule: draw_codes(count, seed, "TP", rule) for rule in "EC"}
    for i in range(count):
        rule, extra = TP_VARIANTS[i % len(TP_VARIANTS)]
        game = make_game(codes[rule][i], extra)
        actions: list[int] = []
        for _ in range(int(rng.integers(0, 45))):
            legal = game.legal_actions()
            if not legal or game.over:
                break
            removals = [a for a in legal if a != TP_DRAW]
            # mostly removals, so that face-down cards turn up and the positions vary
            pool = removals if removals and rng.random() < 0.8 else legal
            action = int(rng.choice(pool))
            game.play(action)
            actions.append(action)
        if game.over:
            game = make_game(codes[rule][i], extra)
            actions = []
        out.append((game, actions))
    return out


@pytest.fixture(scope="module")
def tp_positions() -> list[tuple[TriPeaksGame, list[int]]]:
    return _tp_positions(60, 11)


@pytest.fixture(scope="module")
def ft_positions() -> list[tuple[FortyThievesGame, list[int]]]:
    return ft_random_positions(40, 12)


def _permuted(state: Any, rng: np.random.Generator) -> list[int]:
    """The unseen cards in a random order that keeps jokers out of the tableau's places."""
    cards = list(state.unseen)
    rng.shuffle(cards)
    if state.game == "tripeaks":
        places = sum(c is None for c in state.layout)
        jokers = [c for c in cards if c == JOKER]
        plain = [c for c in cards if c != JOKER]
        rest = plain[places:]
        for joker in jokers:
            rest.insert(int(rng.integers(len(rest) + 1)), joker)
        cards = plain[:places] + rest
    return cards


@pytest.mark.parametrize("name", TP_NAMES)
def test_tripeaks_legal_and_blind_to_unseen_cards(name: str, tp_positions: list[Any]) -> None:
    rng = np.random.default_rng(5)
    for game, actions in tp_positions:
        state = public_state(game, actions)
        agent = make_agent(name, "tripeaks", seed=3)
        action = agent.act(state)
        assert action in state.legal, (name, action, state.legal)
        assert decide(make_agent(name, "tripeaks", seed=3), game, actions) == action
        for _ in range(2):
            other = state.with_unseen(_permuted(state, rng))
            assert make_agent(name, "tripeaks", seed=3).act(public_state(other, actions)) == action, name


@pytest.mark.parametrize("name", FT_NAMES)
def test_fortythieves_legal_and_blind_to_unseen_cards(name: str, ft_positions: list[Any]) -> None:
    rng = np.random.default_rng(6)
    agent = make_agent(name, "fortythieves", seed=3)  # one agent for every position: it must resync
    for game, actions in ft_positions:
        state = public_state(game, actions)
        action = agent.act(state)
        assert action in state.legal, (name, action)
        other = state.with_unseen(_permuted(state, rng))
        assert make_agent(name, "fortythieves", seed=3).act(public_state(other, actions)) == action, name


def test_random_stuck_draws_only_when_stuck(tp_positions: list[Any]) -> None:
    seen_draw = seen_removal = False
    for game, actions in tp_positions:
        state = public_state(game, actions)
        removals = [a for a in state.legal if a != TP_DRAW]
        for seed in range(3):
            action = make_agent("random_stuck", "tripeaks", seed=seed).act(state)
            if removals:
                assert action in removals
                seen_removal = True
            else:
                assert action == TP_DRAW
                seen_draw = True
    assert seen_draw and seen_removal


def test_random_stuck_varies_with_its_seed(tp_positions: list[Any]) -> None:
    choices = set()
    for game, actions in tp_positions:
        state = public_state(game, actions)
        if sum(a != TP_DRAW for a in state.legal) >= 3:
            choices.add(tuple(make_agent("random_stuck", "tripeaks", seed=s).act(state) for s in range(8)))
    assert any(len(set(c)) > 1 for c in choices)


def _tp_deal(ranks: dict[int, int], waste_rank: int) -> TriPeaksDeal:
    """A TriPeaks deal with the given ranks in the given slots and the waste card; the other
    cards in id order (suits chosen so that each card is used once)."""
    used: dict[int, int] = {}

    def take(rank: int) -> int:
        used[rank] = used.get(rank, 0) + 1
        return card_id(rank, used[rank] - 1)

    waste = take(waste_rank)
    fixed = {slot: take(rank) for slot, rank in ranks.items()}
    rest = iter(sorted(set(range(52)) - set(fixed.values()) - {waste}))
    tableau = tuple(fixed[s] if s in fixed else next(rest) for s in range(28))
    return TriPeaksDeal(tableau, waste, tuple(rest))


def test_reveal_first_prefers_a_revealing_removal() -> None:
    # waste 5; slot 26 is a 6, slots 18 and 27 are 7s.  After 26 goes, removing 27 turns slot
    # 17 up (it lay under 26 and 27), removing 18 turns nothing up (19 still lies on slot 9).
    deal = _tp_deal({26: 6, 18: 7, 27: 7, 19: 1, 20: 1, 21: 1, 22: 9, 23: 9, 24: 9, 25: 9}, 5)
    game = TriPeaksGame(deal, TriPeaksRules(wrap=False))
    game.play(26)
    state = public_state(game, [26])
    assert set(a for a in state.legal if a != TP_DRAW) == {18, 27}
    assert make_agent("reveal_first", "tripeaks").act(state) == 27
    assert make_agent("peaks_even", "tripeaks").act(state) == 27
    # the hint and the lookahead also turn the card up first
    assert make_agent("hint", "tripeaks").act(state) == 27
    assert make_agent("lookahead", "tripeaks").act(state) == 27


def test_longest_chain_and_lookahead_follow_the_longer_chain() -> None:
    # waste 5: the 4 in slot 18 ends its chain at once, the 6 in slot 24 goes on to the 7 and
    # the 8 in slots 26 and 27 (nothing is revealed on either path before the chain ends)
    deal = _tp_deal({18: 4, 24: 6, 26: 7, 27: 8, 19: 11, 20: 11, 21: 11, 22: 11, 23: 12, 25: 12}, 5)
    state = public_state(TriPeaksGame(deal, TriPeaksRules(wrap=False)), [])
    assert set(a for a in state.legal if a != TP_DRAW) == {18, 24}
    assert make_agent("longest_chain", "tripeaks").act(state) == 24
    assert make_agent("lookahead", "tripeaks").act(state) == 24
    assert make_agent("hint", "tripeaks").act(state) == 24


def test_lookahead_draws_when_no_removal_is_legal() -> None:
    deal = _tp_deal({s: (9, 11, 6)[s % 3] if s < 27 else 12 for s in range(18, 28)}, 2)
    state = public_state(TriPeaksGame(deal, TriPeaksRules(wrap=False)), [])
    assert state.legal == (TP_DRAW,)
    for name in TP_NAMES:
        assert make_agent(name, "tripeaks").act(state) == TP_DRAW


def test_fortythieves_agents_found_an_exposed_ace_first() -> None:
    for code in draw_codes(30, 21, "FT", "N"):
        game = make_game(code)
        aces = [j for j, col in enumerate(game.columns) if col[-1] % 13 == 0]
        if aces:
            break
    else:  # pragma: no cover - the codes above have one
        raise AssertionError("no deal with an ace on top")
    state = public_state(game, [])
    for name in FT_NAMES:
        action = make_agent(name, "fortythieves").act(state)
        src, dst = divmod(action, NUM_DESTS)
        assert dst == FOUNDATION and src in aces, name


@pytest.mark.parametrize("name", FT_NAMES)
def test_fortythieves_agents_do_not_go_round_in_circles(name: str) -> None:
    """No position comes back between two draws while the stock has cards, and a game ends
    (by the repetition rule) soon after the stock runs out."""
    for code in draw_codes(3, 7, "FT", "N"):
        game = make_game(code)
        agent = make_agent(name, "fortythieves")
        actions: list[int] = []
        seen = {game.position_hash: 1}
        stock_pos = game.stock_pos
        while not game.over and len(actions) < 1000:
            action = decide(agent, game, actions)
            game.play(action)
            actions.append(action)
            if game.stock_pos != stock_pos:
                seen, stock_pos = {}, game.stock_pos
            seen[game.position_hash] = seen.get(game.position_hash, 0) + 1
            if seen[game.position_hash] >= 3:
                break
            if game.stock_count:
                assert seen[game.position_hash] == 1, (name, code, len(actions))
        assert len(actions) < 1000, (name, code)
        assert game.stock_count == 0 or game.won, (name, code)


def test_tripeaks_lookahead_wins_sometimes() -> None:
    wins = 0
    for code in draw_codes(20, 1, "TP", "E"):
        game = make_game(code)
        agent = make_agent("lookahead", "tripeaks")
        actions: list[int] = []
        while not game.over:
            action = decide(agent, game, actions)
            game.play(action)
            actions.append(action)
        wins += game.won
    assert wins >= 5  # about half the Easy deals; a broken planner wins few


def test_options_and_bad_games() -> None:
    agent = make_agent("lookahead", "tripeaks", top=2, reveal=0.0)
    assert isinstance(agent, tp_agents.LookaheadAgent) and agent.top == 2
    assert isinstance(make_agent("evaluate", "fortythieves", dig=0), ft_agents.EvaluateAgent)
    with pytest.raises(ValueError):
        tp_agents.RevealFirstAgent("fortythieves")
    with pytest.raises(ValueError):
        ft_agents.EvaluateAgent("tripeaks")
