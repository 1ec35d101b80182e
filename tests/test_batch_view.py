"""The batch envs' public view (``batch.view()``): read-only, and the same state as the rules core.

Each env of a batch is stepped in lockstep with a single env on the same deal code and the same
(random legal) actions; after every step the view's arrays must say what the single env's game
says (cards, stock, masks, counters), until that env's episode ends.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import solitaire_env  # noqa: F401  (registers the envs)
from solitaire_env.fortythieves.batch import FortyThievesBatchView, FortyThievesVectorEnv
from solitaire_env.tripeaks.batch import TriPeaksBatchView, TriPeaksVectorEnv


def _tripeaks_check(view: TriPeaksBatchView, i: int, game: Any) -> None:
    assert view.tableau[i].tolist() == list(game.tableau)
    n = int(view.stock_len[i])
    assert n == len(game.stock)
    assert view.stock[i, :n].tolist() == list(game.stock)
    assert (view.stock[i, n:] == -1).all()
    assert int(view.stock_pos[i]) == game.stock_pos
    assert int(view.stock_seen[i]) == game.stock_seen
    top = game.waste[-1] if game.waste else -1
    assert int(view.waste[i]) == top
    assert int(view.waste_key[i]) == (0 if top < 0 or top == 52 else top % 13 + 1)
    assert int(view.removed[i]) == game.removed
    assert int(view.exposed[i]) == game.exposed
    assert int(view.face_up[i]) == game.face_up
    assert int(view.seen[i]) == game.seen_slots
    assert int(view.legal[i]) == game.legal_mask()
    assert int(view.wrap[i]) == int(game.rules.wrap)
    counters = game.counters()
    for key in ("score", "moves", "cleared", "chain", "longest_chain"):
        assert int(getattr(view, key)[i]) == counters[key], key


def _fortythieves_check(view: FortyThievesBatchView, i: int, game: Any) -> None:
    empty = 0
    for j, column in enumerate(game.columns):
        assert int(view.column_len[i, j]) == len(column)
        assert view.columns[i, j, : len(column)].tolist() == column
        assert (view.columns[i, j, len(column) :] == -1).all()
        empty |= (not column) << j
    assert int(view.empty_columns[i]) == empty
    assert int(view.waste_len[i]) == len(game.waste)
    assert view.waste[i, : len(game.waste)].tolist() == game.waste
    assert view.stock[i].tolist() == list(game.stock)
    assert int(view.stock_pos[i]) == game.stock_pos
    assert view.foundations[i].tolist() == list(game.foundations)
    counters = game.counters()
    for key in ("score", "moves", "founded", "chain", "longest_chain"):
        assert int(getattr(view, key)[i]) == counters[key], key


CASES = [
    ("solitaire_env/TriPeaks-v0", TriPeaksVectorEnv, {}, "TP1-E-", _tripeaks_check),
    (
        "solitaire_env/TriPeaks-v0",
        TriPeaksVectorEnv,
        {"wrap": False, "jokers": 2, "waste_start": "empty", "draw": "when_stuck"},
        "TP1-C-",
        _tripeaks_check,
    ),
    ("solitaire_env/FortyThieves-v0", FortyThievesVectorEnv, {}, "FT1-N-", _fortythieves_check),
]


@pytest.mark.parametrize(("env_id", "batch_class", "kwargs", "prefix", "check"), CASES)
def test_view_is_the_state_of_each_game(env_id: str, batch_class: Any, kwargs: dict, prefix: str, check: Any) -> None:
    n = 6
    codes = [f"{prefix}AAAAA{a}{b}" for a, b in zip("ABCDEF", "QRSTUV")]
    batch = batch_class(n, **kwargs)
    batch.reset(options={"deal_codes": codes})
    singles = [gym.make(env_id, **kwargs) for _ in range(n)]
    for env, code in zip(singles, codes):
        env.reset(options={"deal_code": code})
    live = np.ones(n, dtype=bool)
    rng = np.random.default_rng(5)
    for _ in range(80):
        view = batch.view()
        for i in np.flatnonzero(live):
            check(view, int(i), singles[i].unwrapped.game)
        mask = batch.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask], dtype=np.int64)
        _, _, terminated, truncated, _ = batch.step(actions)
        for i in np.flatnonzero(live):
            _, _, term, trunc, _ = singles[i].step(int(actions[i]))
            assert (term, trunc) == (bool(terminated[i]), bool(truncated[i]))
        view = batch.view()
        for i in np.flatnonzero(live):
            check(view, int(i), singles[i].unwrapped.game)
        live &= ~(terminated | truncated)
        if not live.any():
            break


@pytest.mark.parametrize("batch_class", [TriPeaksVectorEnv, FortyThievesVectorEnv])
def test_view_is_read_only_and_follows_the_env(batch_class: Any) -> None:
    batch = batch_class(3)
    batch.reset(seed=1)
    view = batch.view()
    for name, array in view._asdict().items():
        assert isinstance(array, np.ndarray), name
        assert not array.flags.writeable, name
        with pytest.raises(ValueError):
            array[...] = 0
    moves_before = view.moves.copy()
    mask = batch.action_masks()
    batch.step(np.array([int(np.flatnonzero(row)[0]) for row in mask]))  # the env still writes its arrays
    assert (view.moves == moves_before + 1).all()  # a view, not a copy: it shows the new state
    assert (batch.view().moves == view.moves).all()


SECTIONS = (
    "Description",
    "Action Space",
    "Observation Space",
    "Starting State",
    "Rewards",
    "Episode End",
    "Information",
    "Arguments",
    "Version History",
)


def test_the_env_classes_carry_the_gymnasium_docstring_sections() -> None:
    """The four env classes document themselves as Gymnasium's toy_text envs do, in that order."""
    from solitaire_env.fortythieves.env import FortyThievesEnv
    from solitaire_env.tripeaks.env import TriPeaksEnv

    for cls in (TriPeaksEnv, FortyThievesEnv, TriPeaksVectorEnv, FortyThievesVectorEnv):
        doc = cls.__doc__ or ""
        at = [doc.find(f"\n    ## {section}\n") for section in SECTIONS]
        assert all(k >= 0 for k in at), (cls.__name__, [s for s, k in zip(SECTIONS, at) if k < 0])
        assert at == sorted(at), cls.__name__
