"""The Agent interface: public states copy seen cards only, determinize consistently, seed publicly."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.base import Agent, PublicState, decide, public_state
from agents.registry import AgentOptionError, UnknownAgentError, agent_names, agent_options, make_agent
from solitaire_env.common.cards import JOKER
from solitaire_env.fortythieves.env import FortyThievesEnv
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.solvability import draw_codes
from solitaire_env.tripeaks.env import TriPeaksEnv
from solitaire_env.tripeaks.game import TriPeaksGame


def positions(game: str, n: int, **rules: object) -> list[tuple[object, list[int]]]:
    """(game, actions) after a random number of random legal moves, for n deals."""
    out = []
    codes = draw_codes(n, 7, "TP", "E") if game == "tripeaks" else draw_codes(n, 7, "FT", "N")
    for i, code in enumerate(codes):
        env = TriPeaksEnv(**rules) if game == "tripeaks" else FortyThievesEnv(**rules)
        env.reset(options={"deal_code": code})
        g, rnd, actions = env.game, random.Random(i), []
        for _ in range(rnd.randrange(0, 40)):
            legal = g.legal_actions()
            if not legal:
                break
            a = rnd.choice(legal)
            g.play(a)
            actions.append(a)
        out.append((g, actions))
    return out


@pytest.mark.parametrize(
    ("game", "rules"),
    [("tripeaks", {}), ("tripeaks", {"waste_start": "empty"}), ("tripeaks", {"jokers": 2}), ("fortythieves", {})],
)
def test_the_true_unseen_cards_rebuild_the_game_and_samples_agree_on_what_is_seen(game: str, rules: dict) -> None:
    for g, actions in positions(game, 25, **rules):
        state = public_state(g, actions)
        assert sorted(g.unseen_cards()) == list(state.unseen)
        assert state.with_unseen(g.unseen_cards()).state_dict() == g.state_dict()
        for k in range(4):
            sample = state.determinize(np.random.default_rng(k))
            assert sample.legal_mask() == g.legal_mask()
            assert sample.public_view() == g.public_view()
            assert public_state(sample, actions).fingerprint() == state.fingerprint()


def test_the_fingerprint_reads_values_not_class_names() -> None:
    """Renaming a rules or scoring class leaves the agents' random streams alone; a changed
    value changes them."""
    from dataclasses import fields, make_dataclass, replace

    from solitaire_env.tripeaks.scoring import APP

    renamed_type = make_dataclass("SomeOtherName", [(f.name, f.type) for f in fields(APP)], frozen=True)
    renamed = renamed_type(**{f.name: getattr(APP, f.name) for f in fields(APP)})
    g, actions = positions("tripeaks", 1)[0]
    base = public_state(g, actions)
    prints = [
        PublicState(base.knowledge._replace(scoring=scoring), base.actions).fingerprint()
        for scoring in (APP, renamed, replace(APP, draw_points=-2))
    ]
    assert prints[0] == base.fingerprint() == prints[1] != prints[2]


def test_jokers_are_only_sampled_into_the_stock() -> None:
    for g, actions in positions("tripeaks", 20, jokers=2):
        state = public_state(g, actions)
        for k in range(5):
            sample = state.determinize(np.random.default_rng(k))
            assert JOKER not in sample.tableau
    env = TriPeaksEnv(jokers=2)
    env.reset(options={"deal_code": "TP1-E-AAAAAAB"})
    state = public_state(env.game, [])
    assert state.unseen.count(JOKER) == 2 and state.layout.count(None) == 18
    jokers_first = sorted(state.unseen, reverse=True)  # JOKER (52) sorts last: put them first
    with pytest.raises(ValueError, match="joker"):
        state.with_unseen(jokers_first)


def test_a_public_state_holds_no_hidden_card() -> None:
    for g, actions in positions("tripeaks", 20):
        state = public_state(g, actions)
        hidden = set(g.unseen_cards())
        known = {c for c in state.layout if c is not None} | {c for c in state.stock if c is not None}
        assert not hidden & known
        assert "game" not in vars(state) or state.game == "tripeaks"  # a name, not the game object
        # no game object anywhere: not among the state's values nor its knowledge object's
        values = [*vars(state).values(), *state.knowledge._asdict().values()]
        assert all(not callable(getattr(v, "legal_mask", None)) for v in values)
        assert not any(isinstance(v, TriPeaksGame | FortyThievesGame) for v in values)


def test_decide_refuses_an_illegal_choice() -> None:
    class Stubborn(Agent):
        name = "stubborn_test_agent"

        def act(self, state: PublicState) -> int:
            return 28 if 28 not in state.legal else next(a for a in range(28) if a not in state.legal)

    g, actions = positions("tripeaks", 1)[0]
    with pytest.raises(ValueError, match="illegal"):
        decide(Stubborn("tripeaks"), g, actions)


def test_registry_names_and_errors() -> None:
    assert "random" in agent_names("tripeaks") and "random" in agent_names("fortythieves")
    assert "agent" not in agent_names("tripeaks")  # no helper base class registers itself
    with pytest.raises(UnknownAgentError, match="no_such_agent"):
        make_agent("no_such_agent", "tripeaks")
    with pytest.raises(AgentOptionError, match="bad options"):
        make_agent("random", "tripeaks", no_such_option=1)


def test_a_bad_option_names_the_agent_the_option_and_the_valid_options() -> None:
    with pytest.raises(AgentOptionError) as info:
        make_agent("lookahead", "tripeaks", bogus=1, top=2)
    text = str(info.value)
    assert text == (
        "agent 'lookahead': bad options ['bogus']: no such option; "
        "it takes block, reveal, cover, top, budget, inner_budget"
    )
    assert isinstance(info.value, ValueError) and "unexpected keyword" not in text
    with pytest.raises(
        AgentOptionError, match="agent 'random': bad options \\['a', 'b'\\]: no such options; it takes no"
    ):
        make_agent("random", "tripeaks", b=1, a=2)
    assert agent_options("lookahead") == {
        "block": 0.2,
        "reveal": 0.5,
        "cover": 1.0,
        "top": 6,
        "budget": 2000,
        "inner_budget": 3000,
    }


def test_the_rollout_options_include_its_base_policy_weights() -> None:
    """TriPeaksRollout passes **policy on to _playout.policy_params: those are options too."""
    with pytest.raises(AgentOptionError) as info:
        make_agent("rollout", bogus=1)  # the game defaults to TriPeaks
    text = str(info.value)
    assert text.startswith("agent 'rollout': bad options ['bogus']: no such option; it takes samples, ")
    assert ", eps" in text and "unexpected keyword" not in text
    assert {"samples", "depth", "budget", "eps"} <= set(agent_options("rollout", "tripeaks"))
    agent = make_agent("rollout", samples=10, eps=5, z=2)  # an int is fine for a float option
    assert agent.policy["eps"] == 5 and agent.z == 2.0
    assert set(agent_options("rollout", "fortythieves")) == {"samples", "horizon", "candidates", "endgame_nodes"}


@pytest.mark.parametrize(
    ("name", "game", "options", "message"),
    [
        (
            "rollout",
            "tripeaks",
            {"samples": "abc"},
            "agent 'rollout': bad options ['samples']: samples must be int, got 'abc' (str)",
        ),
        ("rollout", "tripeaks", {"eps": 0.5}, "eps must be int, got 0.5 (float)"),
        ("oracle", "tripeaks", {"max_nodes": True}, "max_nodes must be int or None, got True (bool)"),
        ("pimc", "fortythieves", {"tiebreak": 3}, "tiebreak must be str, got 3 (int)"),
        ("lookahead", "tripeaks", {"reveal": "x"}, "reveal must be float, got 'x' (str)"),
        ("ppo", "tripeaks", {"env_kwargs": [1]}, "env_kwargs must be dict or None, got [1] (list)"),
    ],
)
def test_a_bad_option_value_type_is_one_line(name: str, game: str, options: dict, message: str) -> None:
    with pytest.raises(AgentOptionError) as info:
        make_agent(name, game, **options)  # type: ignore[arg-type]
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_unknown_names_and_games() -> None:
    with pytest.raises(
        UnknownAgentError, match="unknown agent 'peaks_even' for fortythieves \\(it plays tripeaks only\\); known: "
    ):
        make_agent("peaks_even", "fortythieves")
    with pytest.raises(ValueError, match="game: want 'tripeaks' or 'fortythieves', got 'tp'"):
        make_agent("random", "tp")  # type: ignore[arg-type]
    assert set(agent_names()) == set(agent_names("tripeaks")) | set(agent_names("fortythieves"))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("rollout:bogus=1", "agent 'rollout': bad options ['bogus']: no such option; it takes samples, "),
        ("rollout:samples=abc", "samples must be int, got 'abc' (str)"),
    ],
)
def test_the_cli_reports_a_bad_agent_option_in_one_line(
    capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    from solitaire_env.cli import main

    assert main(["eval", "--agents", spec, "--deals", "2", "--dry-run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err
    assert "unexpected keyword" not in err and "Traceback" not in err
