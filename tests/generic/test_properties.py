"""Property tests of every game games.py registers: hundreds of random deals, rule options and
move sequences each, written once against the game contract (``legal_mask``, ``illegal_reason``,
``try_play``, ``undo``, ``copy``, ``state_dict``, ``public_view``, ``unseen_cards``, the counters).

(a) cards are conserved, (b) nothing hidden leaks into what an agent gets, (c) undo is exact,
(d) the mask is exactly the set of moves the rules core accepts, (e) identical seeds and actions
give identical trajectories, (f) an illegal action changes nothing.

What differs between the games is one small :class:`Adapter` per game, keyed by the game's name
(its rule options, where its cards are, what its player has seen, its own invariants); the games
themselves come from :data:`solitaire_env.games.GAMES`, and a game without an adapter fails.
The cases only one game has stay in ``tests/test_<game>_properties.py`` (the Forty Thieves
position hash).
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same, deal_string, ft_deal_string
from hypothesis import given, settings
from hypothesis import strategies as st

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.common.cards import JOKER
from solitaire_env.fortythieves import rules as ft_rules
from solitaire_env.games import GAMES, GameSpec, game_spec

SEEDS = st.integers(0, 2**35 - 1)


def choices(max_size: int, min_size: int = 10) -> st.SearchStrategy[list[int]]:
    """Random choices that pick the moves: mostly a legal move, now and then any action at all."""
    return st.lists(st.integers(0, 2**20), min_size=min_size, max_size=max_size)


# --------------------------------------------------------------------------- the adapters


@dataclass(frozen=True)
class Adapter:
    """What the generic properties must be told about one game."""

    #: The game's rule options (keywords of its rules class and of its env).
    rules: st.SearchStrategy[dict[str, Any]]
    #: Its named scorings.
    scorings: tuple[str, ...]
    examples: int
    #: The random move sequences.
    choices: st.SearchStrategy[list[int]]
    #: Every card a deal holds / every card of a game (wherever it is now), with multiplicity.
    cards_dealt: Callable[[Any], Counter[int]]
    cards_in_play: Callable[[Any], Counter[int]]
    #: What the player has seen (it only grows; undo keeps it).
    seen: Callable[[Any], frozenset[tuple[str, int]]]
    #: The game's own invariants of a position (asserted after every move and undo).
    check: Callable[[Any], None]
    #: The game's own facts about a legal mask (``game``, its bits, the rule options).
    check_mask: Callable[[Any, int, dict[str, Any]], None]
    #: The deal string of a deal whose cards never seen in ``game`` are permuted at random
    #: (``deal``, ``game``, the rule options, hypothesis ``data``).
    hidden_variant: Callable[[Any, Any, dict[str, Any], Any], str]
    #: The move sequences of the no-leak test, and an action it plays more often (to see deeper).
    leak_choices: st.SearchStrategy[list[int]]
    favoured: int | None
    #: Fields of the game, beyond the common ones, that undo restores exactly.
    undo_fields: tuple[str, ...]
    #: Keys ``state_dict()`` must hold (it is what the illegal-action test compares).
    state_keys: frozenset[str]
    #: Extra env options of the mask test.
    mask_env: dict[str, Any] = field(default_factory=dict)


# TriPeaks ------------------------------------------------------------------


def _tp_dealt(deal: Any) -> Counter[int]:
    return Counter([*deal.tableau, deal.waste, *deal.stock])


def _tp_on_table(game: Any) -> list[int]:
    return [c for s, c in enumerate(game.tableau) if not game.removed >> s & 1]


def _tp_in_play(game: Any) -> Counter[int]:
    return Counter(_tp_on_table(game)) + Counter(game.waste) + Counter(game.stock[game.stock_pos :])


def _tp_seen(game: Any) -> frozenset[tuple[str, int]]:
    slots = {("slot", s) for s in range(28) if game.seen_slots >> s & 1}
    return frozenset(slots | {("stock", p) for p in range(game.stock_seen)})


def _tp_check(game: Any) -> None:
    jokers = game.rules.jokers
    dealt = _tp_dealt(game.deal)
    assert sum(dealt.values()) == 52 + jokers and dealt[JOKER] == jokers
    on_table = _tp_on_table(game)
    assert len(on_table) == 28 - game.cleared
    assert game.stock_count + len(game.waste) + len(on_table) == 52 + jokers
    assert game.face_up & ~game.removed & ~game.seen_slots == 0  # what is face up has been seen


def _tp_hidden_variant(deal: Any, game: Any, rules: dict[str, Any], data: Any) -> str:
    # the positions never seen (index in the deal string's card list: tableau, waste, stock)
    cards = [*deal.tableau, deal.waste, *deal.stock]
    first_stock = 29 if rules["waste_start"] == "card" else 28
    hidden = [s for s in range(28) if not game.seen_slots >> s & 1]
    hidden += [first_stock + p for p in range(game.stock_seen, len(game.stock))]
    assert sorted(Counter(cards[i] for i in hidden).elements()) == sorted(game.unseen_cards())
    # permute them arbitrarily (a joker may only go where a stock card was)
    jokers = [cards[i] for i in hidden].count(JOKER)
    joker_spots = data.draw(st.permutations([i for i in hidden if i >= 28]))[:jokers]
    others = data.draw(st.permutations([cards[i] for i in hidden if cards[i] != JOKER]))
    permuted = list(cards)
    fill = iter(others)
    for i in hidden:
        permuted[i] = JOKER if i in joker_spots else next(fill)
    assert Counter(permuted) == Counter(cards)
    return deal_string(permuted[:28], permuted[28], permuted[29:])


TRIPEAKS = Adapter(
    rules=st.fixed_dictionaries(
        {
            "wrap": st.booleans(),
            "draw": st.sampled_from(["anytime", "when_stuck"]),
            "faces": st.sampled_from(["standard", "open"]),
            "waste_start": st.sampled_from(["card", "empty"]),
            "jokers": st.integers(0, 2),
        }
    ),
    scorings=("app", "classic", "streak"),
    examples=100,
    choices=choices(90),
    cards_dealt=_tp_dealt,
    cards_in_play=_tp_in_play,
    seen=_tp_seen,
    check=_tp_check,
    check_mask=lambda game, bits, rules: None,
    hidden_variant=_tp_hidden_variant,
    leak_choices=choices(90),
    favoured=None,
    undo_fields=("removed", "exposed", "face_up", "apexes_removed"),
    state_keys=frozenset({"removed", "exposed", "face_up", "stock_pos", "waste", "seen_slots", "_history"}),
)


# Forty Thieves -------------------------------------------------------------


def _ft_dealt(deal: Any) -> Counter[int]:
    return Counter([*(c for col in deal.columns for c in col), *deal.stock])


def _ft_in_play(game: Any) -> Counter[int]:
    """Columns + waste + foundations (expanded) + what is left in the stock."""
    have = Counter(c for col in game.columns for c in col)
    have.update(game.waste)
    for f, n in enumerate(game.foundations):
        have.update(ft_rules.FOUNDATION_SUITS[f] * 13 + r for r in range(n))
    have.update(game.stock[game.stock_pos :])
    return have


def _ft_check(game: Any) -> None:
    assert _ft_dealt(game.deal) == Counter({c: 2 for c in range(52)})
    assert sum(map(len, game.columns)) + len(game.waste) + game.founded + game.stock_count == 104
    assert all(len(col) <= 16 for col in game.columns)
    assert all(0 <= n <= 13 for n in game.foundations)
    assert len(game.waste) <= game.stock_pos <= game.stock_seen <= 64  # seen stays seen
    assert game.unseen_cards() == list(game.stock[game.stock_seen :])


def _ft_check_mask(game: Any, bits: int, rules: dict[str, Any]) -> None:
    if not rules["foundation_return"]:
        assert not any(bits >> a & 1 for a in range(ft_rules.FIRST_FOUNDATION_SRC * ft_rules.NUM_DESTS, ft_rules.DRAW))
    assert bool(bits >> ft_rules.DRAW & 1) == (game.stock_count > 0)


def _ft_hidden_variant(deal: Any, game: Any, rules: dict[str, Any], data: Any) -> str:
    drawn = game.stock_seen
    assert drawn == game.stock_pos  # the env has no undo
    # permute the stock positions never drawn, arbitrarily
    rest = data.draw(st.permutations(list(deal.stock[drawn:])))
    assert sorted(rest) == sorted(game.unseen_cards())
    return ft_deal_string([list(c) for c in deal.columns], [*deal.stock[:drawn], *rest])


FORTYTHIEVES = Adapter(
    rules=st.fixed_dictionaries({"foundation_return": st.booleans()}),
    scorings=("app",),
    examples=80,
    choices=choices(120),
    cards_dealt=_ft_dealt,
    cards_in_play=_ft_in_play,
    seen=lambda game: frozenset(("stock", p) for p in range(game.stock_seen)),
    check=_ft_check,
    check_mask=_ft_check_mask,
    hidden_variant=_ft_hidden_variant,
    leak_choices=choices(50, min_size=0),
    favoured=ft_rules.DRAW,
    undo_fields=("columns", "foundations"),
    state_keys=frozenset({"columns", "waste", "stock_pos", "stock_seen", "foundations", "history"}),
    mask_env={"max_repeats": None},  # the mask of every position, repetitions or not
)

#: One adapter per game name; :func:`test_every_game_has_an_adapter` keeps it complete.
ADAPTERS: dict[str, Adapter] = {"tripeaks": TRIPEAKS, "fortythieves": FORTYTHIEVES}


def adapter(name: str) -> Adapter:
    if name not in ADAPTERS:
        pytest.fail(f"games.py registers {name!r} but tests/generic/test_properties.py has no adapter for it")
    return ADAPTERS[name]


def test_every_game_has_an_adapter() -> None:
    assert sorted(ADAPTERS) == sorted(tuple(g.name for g in GAMES))


# --------------------------------------------------------------------------- shared helpers


@functools.cache
def num_actions(name: str) -> int:
    return int(gym.make(game_spec(name).env_id).unwrapped.num_actions)


def pick(n: int, mask_bits: int, choice: int, allow_illegal: bool = True) -> int:
    """The action a choice stands for: one in eight is any action, the others a legal one."""
    legal = [a for a in range(n) if mask_bits >> a & 1]
    if (allow_illegal and choice % 8 == 0) or not legal:
        return (choice >> 3) % n
    return legal[(choice >> 3) % len(legal)]


def bits_of(mask: np.ndarray) -> int:
    return sum(1 << int(a) for a in np.flatnonzero(mask))


def new_deal(spec: GameSpec, seed: int, rules: dict[str, Any]) -> Any:
    return spec.deal_class.from_seed(seed, **{k: rules[k] for k in spec.deal_options if k in rules})


def new_game(spec: GameSpec, seed: int, rules: dict[str, Any], scoring: str = "app", **extra: Any) -> Any:
    return spec.game_class(new_deal(spec, seed, rules), spec.rules_class(**rules, **extra), scoring)


def full_state(ad: Adapter, game: Any) -> dict[str, Any]:
    """Every mutable part of a game (history included), deep-copied."""
    state = copy.deepcopy(game.state_dict())
    assert ad.state_keys <= state.keys()
    return state


#: What undo restores in every game (the adapter adds the game's own fields).
UNDO_FIELDS = ("stock_pos", "waste", "score", "chain", "longest_chain")


def undo_state(ad: Adapter, game: Any) -> tuple[Any, ...]:
    return (
        *(copy.deepcopy(getattr(game, f)) for f in (*UNDO_FIELDS, *ad.undo_fields)),
        game.legal_mask(),
        {k: v for k, v in game.public_view().items() if k != "moves"},
    )


#: The counters an illegal action leaves alone (besides the game's progress counter).
COUNTERS = ("score", "moves", "cleared", "chain", "longest_chain", "deal_code")

GAME = pytest.mark.parametrize("name", tuple(g.name for g in GAMES))


# --------------------------------------------------------------------------- (a) conservation


@GAME
def test_cards_are_conserved(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)

    @settings(max_examples=ad.examples, deadline=None)
    @given(seed=SEEDS, rules=ad.rules, choices=ad.choices)
    def run(seed: int, rules: dict[str, Any], choices: list[int]) -> None:
        game = new_game(spec, seed, rules)
        want = ad.cards_dealt(game.deal)
        assert ad.cards_in_play(game) == want
        ad.check(game)
        for choice in choices:
            if choice % 5 == 1:
                game.undo()
            else:
                game.try_play(pick(num_actions(name), game.legal_mask(), choice))
            assert ad.cards_in_play(game) == want
            ad.check(game)

    run()


# --------------------------------------------------------------------------- (b) no leak


def _play(spec: GameSpec, deal_text: str, kwargs: dict[str, Any], actions: list[int]) -> tuple[list[Any], Any]:
    """Everything an agent gets, at reset and after every action, in flat and dict modes."""
    flat = gym.make(spec.env_id, obs_mode="flat", render_mode="ansi", **kwargs)
    rich = gym.make(spec.env_id, obs_mode="dict", render_mode="rgb_array", **kwargs)
    n = flat.unwrapped.num_actions
    record = []

    def seen(results: tuple[Any, ...], i: int) -> list[Any]:
        out: list[Any] = []
        for env, result in zip((flat, rich), results):
            *head, info = result
            base = env.unwrapped
            assert info["deal_code"] == str(spec.deal_class.parse(deal_text))
            info = {k: v for k, v in info.items() if k != "deal_code"}
            out.append((head, info, base.public_view(), base.action_masks()))
            out.append([base.action_name(a) for a in range(n)])
        out.append(flat.render())
        if i == 0 or i == len(actions) or i % 16 == 0:  # pictures are slow: a few per episode
            out.append(rich.render())
        return out

    results = (flat.reset(options={"deal": deal_text}), rich.reset(options={"deal": deal_text}))
    record.append(seen(results, 0))
    for i, action in enumerate(actions, 1):
        record.append(seen((flat.step(action), rich.step(action)), i))
    return record, flat.unwrapped.game


@GAME
def test_nothing_hidden_leaks(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)

    @settings(max_examples=ad.examples, deadline=None)
    @given(seed=SEEDS, rules=ad.rules, scoring=st.sampled_from(ad.scorings), choices=ad.leak_choices, data=st.data())
    def run(seed: int, rules: dict[str, Any], scoring: str, choices: list[int], data: Any) -> None:
        deal = new_deal(spec, seed, rules)
        kwargs = dict(rules, scoring=scoring)
        # choose the actions by playing the original deal
        env = gym.make(spec.env_id, **kwargs)
        _, info = env.reset(options={"deal": str(deal)})
        actions: list[int] = []
        for choice in choices:
            bits = bits_of(info["action_mask"])
            if ad.favoured is not None and choice % 4 == 0 and bits >> ad.favoured & 1:
                actions.append(ad.favoured)
            else:
                actions.append(pick(num_actions(name), bits, choice))
            _, _, terminated, truncated, info = env.step(actions[-1])
            if terminated or truncated:
                break
        game = env.unwrapped.game
        other_deal = ad.hidden_variant(deal, game, rules, data)

        original, game_a = _play(spec, str(deal), kwargs, actions)
        changed, game_b = _play(spec, other_deal, kwargs, actions)
        assert_same(original, changed)
        assert ad.seen(game_a) == ad.seen(game_b) == ad.seen(game)
        assert game_a.stock_seen == game_b.stock_seen == game.stock_seen

    run()


# --------------------------------------------------------------------------- (c) undo


@GAME
def test_undo_is_exact(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)

    @settings(max_examples=ad.examples, deadline=None)
    @given(
        seed=SEEDS,
        rules=ad.rules,
        scoring=st.sampled_from(ad.scorings),
        choices=ad.choices,
        undo_limit=st.one_of(st.none(), st.integers(0, 4)),
    )
    def run(seed: int, rules: dict[str, Any], scoring: str, choices: list[int], undo_limit: int | None) -> None:
        game = new_game(spec, seed, rules, scoring, undo_limit=undo_limit)
        start = undo_state(ad, game)
        snapshots: list[tuple[Any, ...]] = []
        moves, seen, stock_seen = 0, ad.seen(game), game.stock_seen
        for choice in choices:
            if choice % 3 == 0:
                undone = game.undo()
                assert undone == bool(snapshots)  # snapshots holds at most undo_limit moves
                if undone:
                    assert undo_state(ad, game) == snapshots.pop()
            else:
                before = undo_state(ad, game)
                if game.try_play(pick(num_actions(name), game.legal_mask(), choice, allow_illegal=False)) is None:
                    snapshots.append(before)
                    if undo_limit is not None:
                        snapshots = snapshots[-undo_limit:] if undo_limit else []
                    moves += 1
            assert game.moves == moves  # undo never decrements moves
            assert seen <= ad.seen(game) and game.stock_seen >= stock_seen  # seen stays seen
            seen, stock_seen = ad.seen(game), game.stock_seen
            ad.check(game)
        if undo_limit is None:
            while game.undo():
                pass
            assert undo_state(ad, game) == start
            assert game.moves == moves and ad.seen(game) == seen and game.stock_seen == stock_seen
            assert not game.can_undo

    run()


# --------------------------------------------------------------------------- (d) mask


@GAME
def test_mask_is_the_set_of_moves_the_core_accepts(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)

    @settings(max_examples=ad.examples, deadline=None)
    @given(seed=SEEDS, rules=ad.rules, choices=ad.choices)
    def run(seed: int, rules: dict[str, Any], choices: list[int]) -> None:
        env = gym.make(spec.env_id, **rules, **ad.mask_env)
        _, info = env.reset(options={"deal": str(new_deal(spec, seed, rules))})
        game = env.unwrapped.game
        n = env.unwrapped.num_actions
        for choice in [*choices, None]:
            mask = info["action_mask"]
            bits = game.legal_mask()
            assert bits_of(mask) == bits
            assert np.array_equal(env.unwrapped.action_masks(), mask.astype(bool))
            state = full_state(ad, game)
            for a in range(n):
                reason = game.illegal_reason(a)
                assert (reason is None) == bool(bits >> a & 1), (a, reason)
                if reason is None:  # accepted: play it on a copy
                    assert game.copy().try_play(a) is None
                else:  # refused with that reason, and nothing changed
                    assert reason in game.REASONS
                    assert game.try_play(a) == reason
            assert full_state(ad, game) == state
            ad.check_mask(game, bits, rules)
            if not bits:
                assert game.over and all(game.illegal_reason(a) == "game_over" for a in range(n))
            if choice is None:
                break
            _, _, terminated, truncated, info = env.step(pick(n, bits, choice))
            assert terminated == game.over
            if terminated or truncated:
                break

    run()


# --------------------------------------------------------------------------- (e) determinism


@GAME
def test_identical_seeds_and_actions_give_identical_trajectories(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)

    @settings(max_examples=ad.examples, deadline=None)
    @given(
        seed=SEEDS,
        rules=ad.rules,
        scoring=st.sampled_from(ad.scorings),
        obs_mode=st.sampled_from(["flat", "dict", "oracle", "oracle_dict"]),
        reward=st.sampled_from(["score", "win", "progress"]),
        choices=ad.choices,
    )
    def run(seed: int, rules: dict[str, Any], scoring: str, obs_mode: str, reward: str, choices: list[int]) -> None:
        kwargs = dict(rules, scoring=scoring, obs_mode=obs_mode, reward=reward)
        env_a, env_b = gym.make(spec.env_id, **kwargs), gym.make(spec.env_id, **kwargs)
        first_a, first_b = env_a.reset(seed=seed), env_b.reset(seed=seed)
        assert_same(first_a, first_b)
        info = first_a[1]
        for choice in choices:
            action = pick(num_actions(name), bits_of(info["action_mask"]), choice)
            result = env_a.step(action)
            assert_same(result, env_b.step(action))
            info = result[-1]
            if result[2] or result[3]:
                break
        assert env_a.unwrapped.public_view() == env_b.unwrapped.public_view()

    run()


# --------------------------------------------------------------------------- (f) illegal actions


@GAME
def test_an_illegal_action_changes_nothing(name: str) -> None:
    spec, ad = game_spec(name), adapter(name)
    counters = (*COUNTERS, spec.progress_key)

    @settings(max_examples=ad.examples, deadline=None)
    @given(
        seed=SEEDS,
        rules=ad.rules,
        scoring=st.sampled_from(ad.scorings),
        choices=ad.choices,
        obs_mode=st.sampled_from(["flat", "dict"]),
    )
    def run(seed: int, rules: dict[str, Any], scoring: str, choices: list[int], obs_mode: str) -> None:
        env = gym.make(spec.env_id, scoring=scoring, obs_mode=obs_mode, **rules)
        obs, info = env.reset(options={"deal": str(new_deal(spec, seed, rules))})
        base = env.unwrapped
        game = base.game
        n = base.num_actions
        for choice in choices:
            bits = bits_of(info["action_mask"])
            illegal = [a for a in range(n) if not bits >> a & 1]
            if choice % 3 == 0 and illegal:
                action = illegal[(choice >> 2) % len(illegal)]
                reason = game.illegal_reason(action)
                state, view, mask = full_state(ad, game), base.public_view(), base.action_masks()
                # the rules core: nothing changes, the reason is reported
                copy_game = game.copy()
                assert copy_game.try_play(action) == reason is not None
                assert full_state(ad, copy_game) == state
                # the env: same observation, view, mask and counters, and the penalty
                obs2, reward, terminated, truncated, info2 = env.step(action)
                assert_same(obs2, obs)
                assert full_state(ad, game) == state
                assert base.public_view() == view and np.array_equal(base.action_masks(), mask)
                assert reward == -1.0 and info2["illegal_reason"] == reason
                assert terminated == (not bits) == (reason == "game_over") and not truncated
                assert info2.keys() - info.keys() == {"illegal_reason", "illegal_message"}
                assert info.keys() <= info2.keys()
                for key in counters:
                    assert info2[key] == info[key]
                assert np.array_equal(info2["action_mask"], info["action_mask"])
                info = {k: v for k, v in info2.items() if not k.startswith("illegal")}
            else:
                if not bits:
                    break
                obs, _, terminated, truncated, info = env.step(pick(n, bits, choice, allow_illegal=False))
                if terminated or truncated:
                    break

    run()
