"""The hint benchmark: position sets, both labels, scores and paired comparisons."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents import make_agent
from agents.base import public_state
from agents.hintbench.heuristics import heuristic, heuristic_choices
from agents.hintbench.labels import FairValue, MoveLabel, PositionLabels, fair_values, label_position, truth_labels
from agents.hintbench.positions import Position, position_game, sample_positions
from agents.hintbench.scoring import compare, score_choices
from solitaire_env.common.deals import draw_codes
from solitaire_env.tripeaks.reference_solver import reference_solvable

#: A TriPeaks Easy position (found by a random player) where one move keeps the game winnable
#: and the other loses it: playing slot 14 is a blunder, drawing (28) is not.
BLUNDER = Position(
    "TP1-E-IUIL36E",
    (),
    (28, 21, 18, 28, 28, 28, 20, 22, 28, 28, 28, 28, 28, 27, 28, 11, 25, 12, 28, 24, 28, 23, 19, 28),
)
NODES = 200_000


def _labels(positions: list[Position], samples: int = 6) -> list[PositionLabels]:
    return [label_position(p, samples=samples, max_nodes=NODES) for p in positions]


def _positions(n: int = 4, every: int = 5, per_deal: int = 3) -> list[Position]:
    return sample_positions(draw_codes(n, 7, "TP", "E"), make_agent("hint", "tripeaks"), every=every, per_deal=per_deal)


# --------------------------------------------------------------------------- the known blunder


def test_a_known_blunder_is_labelled_and_scored_as_one() -> None:
    game = position_game(BLUNDER)
    assert game.legal_actions() == [14, 28]
    # the labels, checked against the plain pure-Python search (not the numba solver)
    for action, winnable in ((14, False), (28, True)):
        child = game.copy()
        child.play(action)
        assert reference_solvable(child) is winnable
    assert truth_labels(game, NODES) == {14: "loss", 28: "win"}
    labels = label_position(BLUNDER, samples=8, max_nodes=NODES)
    assert labels.truth == "win"
    blunder = score_choices("plays 14", [labels], [14])
    fine = score_choices("draws", [labels], [28])
    assert blunder.blunders == (True,) and blunder.blunder_rate == 1.0 and blunder.full_agreement == 0.0
    assert fine.blunders == (False,) and fine.blunder_rate == 0.0 and fine.full_agreement == 1.0
    oracle = heuristic("oracle", "tripeaks")
    assert heuristic_choices(oracle, [BLUNDER]) == [28]


# --------------------------------------------------------------------------- fair values never peek


def test_fair_values_do_not_depend_on_the_unseen_cards() -> None:
    """The permutation test: a game with the unseen cards dealt otherwise (same public state)
    gets the same fair values, move for move."""
    checked = 0
    for position in [*_positions(3), BLUNDER]:
        game = position_game(position)
        state = public_state(game, position.actions)
        if not state.unseen:
            continue
        other = state.determinize(np.random.default_rng(99))
        assert other.deal != game.deal  # the hidden cards differ
        other_state = public_state(other, position.actions)
        assert other_state.fingerprint() == state.fingerprint()
        assert fair_values(other_state, 5, NODES) == fair_values(state, 5, NODES)
        checked += 1
    assert checked >= 3


def test_fair_values_change_with_what_is_seen() -> None:
    """The fair values do read the public state: another seed of samples or another position
    gives other counts (so the permutation test above can fail)."""
    positions = _positions(3)
    values = [fair_values(public_state(position_game(p), p.actions), 8, NODES) for p in positions]
    assert len({tuple(sorted(v.items())) for v in values}) > 1


# --------------------------------------------------------------------------- sanity: the oracle


def test_the_oracle_never_blunders_and_always_agrees_with_full_information() -> None:
    positions = [*_positions(6, every=3, per_deal=4), BLUNDER]
    labels = _labels(positions, samples=3)
    oracle = score_choices("oracle", labels, heuristic_choices(heuristic("oracle", "tripeaks"), positions))
    assert oracle.blunder_counted > 0 and oracle.blunder_count == 0
    assert oracle.full_counted > 0 and oracle.full_agreement == 1.0
    rand = score_choices("random", labels, heuristic_choices(heuristic("random", "tripeaks"), positions))
    assert rand.positions == oracle.positions == len(positions)


# --------------------------------------------------------------------------- scoring arithmetic


def _made(values: dict[int, tuple[int, int, int]], truths: dict[int, str]) -> PositionLabels:
    moves = tuple(MoveLabel(a, truths[a], FairValue(*values[a])) for a in sorted(values))  # type: ignore[arg-type]
    return PositionLabels(BLUNDER, moves, 10)


def test_regret_agreement_and_blunders_by_hand() -> None:
    a = _made({1: (8, 2, 0), 2: (5, 5, 0), 3: (8, 1, 1)}, {1: "win", 2: "loss", 3: "unknown"})
    assert a.best_value == 8 / 9 and a.best_moves == (3,) and a.truth == "win"
    assert a.regret(1) == pytest.approx(8 / 9 - 0.8) and a.regret(3) == 0.0
    b = _made({1: (0, 0, 4), 2: (3, 1, 0)}, {1: "loss", 2: "loss"})
    assert b.truth == "loss" and a.move(2).fair.interval[0] < 0.5 < a.move(2).fair.interval[1]
    s = score_choices("x", [a, b], [2, 1])
    assert s.blunders == (True, None)  # a blunder at the winnable position; none at the lost one
    assert s.regrets[0] == pytest.approx(8 / 9 - 0.5) and s.regrets[1] is None  # move 1 has no value
    assert (s.fair_agree, s.fair_counted) == (0, 2) and (s.full_agree, s.full_counted) == (1, 2)
    assert s.worst(1) == [0]
    with pytest.raises(ValueError, match="not legal"):
        score_choices("x", [a], [7])
    with pytest.raises(ValueError, match="2 choices for 1 positions"):
        score_choices("x", [a], [1, 2])


def test_the_paired_comparison_by_hand() -> None:
    # move 1 is worth 0.9 everywhere, move 2 k/10: "bad" (always 2) is worse for k < 9, ties at
    # k = 9 and is better at k = 10
    labels = [_made({1: (9, 1, 0), 2: (k, 10 - k, 0)}, {1: "win", 2: "win"}) for k in range(11)]
    good = score_choices("good", labels, [1] * 11)
    bad = score_choices("bad", labels, [2] * 11)
    c = compare(bad, good)
    assert (c.positions, c.a_better, c.b_better) == (11, 1, 9)
    regret_bad = [max(0.9, k / 10) - k / 10 for k in range(11)]
    regret_good = [max(0.9, k / 10) - 0.9 for k in range(11)]
    assert c.mean_difference[0] == pytest.approx((sum(regret_bad) - sum(regret_good)) / 11)
    assert c.mean_difference[1] < c.mean_difference[0] < c.mean_difference[2]
    assert c.p_value == pytest.approx(2 * (1 + 10) / 2**10)  # 1 of 10 untied pairs, two-sided
    same = compare(good, good)
    assert same.a_better == same.b_better == 0 and same.p_value == 1.0
    assert math.isclose(same.mean_difference[0], 0.0)


# --------------------------------------------------------------------------- position sets


def test_positions_are_choices_along_the_reference_episode() -> None:
    codes = draw_codes(3, 1, "TP", "E")
    ref = make_agent("random", "tripeaks", seed=3)
    everything = sample_positions(codes, ref)
    assert everything == sample_positions(codes, make_agent("random", "tripeaks", seed=3))  # reproducible
    for p in everything:
        assert len(position_game(p).legal_actions()) >= 2
    # every 2nd, at most 4 a deal: a subsequence of the full set, deal by deal
    some = sample_positions(codes, make_agent("random", "tripeaks", seed=3), every=2, per_deal=4)
    for code in codes:
        full = [p for p in everything if p.deal == code]
        assert [p for p in some if p.deal == code] == full[::2][:4]


def test_forty_thieves_positions_and_undecided_labels() -> None:
    codes = draw_codes(1, 0, "FT", "N")
    positions = sample_positions(codes, make_agent("hint", "fortythieves"), every=10, per_deal=2)
    assert positions and all(p.deal.startswith("FT1-N-") for p in positions)
    labels = label_position(positions[0], samples=2, max_nodes=20)
    assert {m.truth for m in labels.moves} == {"unknown"}  # 20 nodes decide nothing: never guessed
    s = score_choices("hint", [labels], heuristic_choices(heuristic("hint", "fortythieves"), positions[:1]))
    assert s.blunders == (None,) and s.blunder_counted == 0 and math.isnan(s.blunder_rate)


def test_positions_round_trip_through_json_and_bad_ones_are_refused() -> None:
    text = json.dumps(BLUNDER.to_json())
    assert Position.from_json(json.loads(text)) == BLUNDER
    with_rules = Position("TP1-E-IUIL36E", (("draw", "when_stuck"),), ())
    assert Position.from_json(with_rules.to_json()) == with_rules
    for bad, match in (
        ({"deal": 5, "actions": []}, "deal code string"),
        ({"deal": "TP1-E-IUIL36E", "actions": [1.5]}, "whole numbers"),
        ({"deal": "TP1-E-IUIL36E", "rules": [], "actions": []}, "rule options"),
        ({"deal": "TP1-E-IUIL36E", "actions": [0]}, "action 0 .0. is not legal"),
        ("TP1-E-IUIL36E", "an object"),
    ):
        with pytest.raises(ValueError, match=match):
            Position.from_json(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Position.from_json({"deal": "XX1-E-AAAA", "actions": []})


def test_bad_sampling_arguments_are_refused() -> None:
    ref = make_agent("random", "tripeaks")
    for kwargs in ({"every": 0}, {"every": True}, {"per_deal": 0}):
        with pytest.raises(ValueError):
            sample_positions(["TP1-E-IUIL36E"], ref, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reference agent plays tripeaks"):
        sample_positions(draw_codes(1, 0, "FT", "N"), ref)
    with pytest.raises(ValueError, match="samples"):
        fair_values(public_state(position_game(BLUNDER), BLUNDER.actions), 0, NODES)


# --------------------------------------------------------------------------- heuristics by name


def test_user_code_as_module_function(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "my_hints.py").write_text("def last_move(state):\n    return state.legal[-1]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    h = heuristic("my_hints:last_move", "tripeaks")
    assert h.name == "my_hints:last_move"
    assert heuristic_choices(h, [BLUNDER]) == [28]
    with pytest.raises(ValueError, match="cannot import module"):
        heuristic("no_such_module_xyz:f", "tripeaks")
    with pytest.raises(ValueError, match="has no function 'nope'"):
        heuristic("my_hints:nope", "tripeaks")
    (tmp_path / "bad_hints.py").write_text("def zero(state):\n    return 0\n")
    with pytest.raises(ValueError, match="chose illegal move 0"):
        heuristic_choices(heuristic("bad_hints:zero", "tripeaks"), [BLUNDER])
    assert heuristic("rollout:samples=3", "tripeaks").name == "rollout:samples=3"


# --------------------------------------------------------------------------- backends


def _run(**kwargs: object) -> object:
    from agents.hintbench.config import HintBenchConfig
    from agents.hintbench.run import run_hint_bench

    settings = {"deals": 4, "per_deal": 2, "every": 3, "samples": 3, "heuristics": ["random", "hint"], **kwargs}
    return run_hint_bench(HintBenchConfig.from_mapping(settings), progress=False)


def test_the_result_does_not_depend_on_the_workers_or_the_backend() -> None:
    one = _run(workers=1)
    two = _run(workers=2)
    assert one.labels and one.labels == two.labels  # type: ignore[attr-defined]
    assert [s.choices for s in one.scores] == [s.choices for s in two.scores]  # type: ignore[attr-defined]
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'solitaire-env[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = _run(workers=2, backend="ray")
    finally:
        ray.shutdown()
    assert [s.choices for s in remote.scores] == [s.choices for s in one.scores]  # type: ignore[attr-defined]
    assert remote.labels == one.labels  # type: ignore[attr-defined]
