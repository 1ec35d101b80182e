"""The table of games (solitaire_env/games.py) is the one list of games, and what reads it agrees."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys

import gymnasium as gym
import pytest

import solitaire_env
from solitaire_env import games
from solitaire_env.common.deals import DealStringError, draw_codes, parse_deal_code
from solitaire_env.dealing import deal_string_game, decode_deal, make_game
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import FortyThievesRules
from solitaire_env.games import ENV_IDS, GAMES, game_spec
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.rules import TriPeaksRules

SPECS = pytest.mark.parametrize("spec", GAMES, ids=[g.name for g in GAMES])


def test_rows_are_distinct_and_the_derived_lists_follow_them() -> None:
    for field in ("code", "name", "title", "env_id", "deal_sections", "salt"):
        values = [getattr(g, field) for g in GAMES]
        assert len(set(values)) == len(values), field
    assert tuple(g.name for g in GAMES) == ("tripeaks", "fortythieves")
    assert tuple(g.code for g in GAMES) == ("TP", "FT")
    assert dict(ENV_IDS) == {"tripeaks": "solitaire_env/TriPeaks-v0", "fortythieves": "solitaire_env/FortyThieves-v0"}
    assert {g.code: g.salt for g in GAMES} == {"TP": 0x5450, "FT": 0x4654}  # what every golden layout was dealt with
    assert {g.code: dict(g.rule_letters) for g in GAMES} == {"TP": {"E": "E", "C": "C", "N": "E"}, "FT": {"N": "N"}}


@SPECS
def test_registered_env_is_the_tables(spec: games.GameSpec) -> None:
    registered = gym.spec(spec.env_id)
    assert registered.entry_point == spec.entry_point == spec.env_path
    assert registered.vector_entry_point == spec.vector_entry_point == spec.batch_path
    assert registered.max_episode_steps == spec.max_episode_steps
    assert {solitaire_env.TRIPEAKS_MAX_STEPS, solitaire_env.FORTYTHIEVES_MAX_STEPS} == {200, 1000}


@SPECS
def test_classes_rule_options_and_env_options(spec: games.GameSpec) -> None:
    deal = spec.deal_class.from_seed(5)
    assert spec.deal_class.__name__.endswith("Deal") and deal.code.game == spec.code
    assert spec.deal_class.parse(str(deal)) == deal
    assert str(deal).count("|") + 1 == spec.deal_sections
    assert games.deal_string_spec(str(deal)) is spec
    defaults = {f.name: f.default for f in dataclasses.fields(spec.rules_class)}
    assert spec.rule_options == defaults
    for letter, options in spec.letter_options.items():
        assert set(options) <= set(defaults) and spec.rule_letters[letter] == letter
    assert set(spec.deal_options) <= set(defaults)
    takes = {*inspect.signature(spec.env_class).parameters, "max_episode_steps"}  # gym.make's own
    assert set(spec.env_options) <= takes, set(spec.env_options) - takes
    assert isinstance(spec.game_class(deal, spec.rules_class()), spec.game_class)


def test_batch_classes_are_the_vector_envs() -> None:
    from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
    from solitaire_env.tripeaks.batch import TriPeaksVectorEnv

    assert [g.batch_class for g in GAMES] == [TriPeaksVectorEnv, FortyThievesVectorEnv]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("tripeaks", "tripeaks"),
        ("TP", "tripeaks"),
        (" tp ", "tripeaks"),
        ("TriPeaks", "tripeaks"),
        ("fortythieves", "fortythieves"),
        ("FT", "fortythieves"),
        ("Forty Thieves", "fortythieves"),
        ("forty-thieves", "fortythieves"),
        ("forty_thieves", "fortythieves"),
    ],
)
def test_game_spec_takes_names_codes_and_titles(text: str, name: str) -> None:
    assert game_spec(text).name == game_spec(text).name == name
    assert games.game_spec(text).code == game_spec(name).code
    assert game_spec(game_spec(text)) is game_spec(text)


@pytest.mark.parametrize("bad", ["klondike", "", "T P1", None, 3])
def test_game_spec_rejects_other_games(bad: object) -> None:
    with pytest.raises(ValueError, match="tripeaks \\(TP\\), fortythieves \\(FT\\)"):
        game_spec(bad)


def test_deal_string_of_no_game() -> None:
    assert games.deal_string_spec("AS | 2S") is None
    with pytest.raises(DealStringError, match=r"3 sections .* or 11 .* got 2"):
        deal_string_game("AS | 2S")


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-C-QX4ZZ2A", "tp1-n-AAAAAAH", "FT1-N-AAAAAAB", "FT1-N-QX4ZZ2A"])
@pytest.mark.parametrize("jokers", [0, 2])
def test_decode_deal_through_the_table_deals_what_the_deal_classes_deal(code: str, jokers: int) -> None:
    parsed = parse_deal_code(code)
    want: object
    if parsed.game == "TP":
        want = TriPeaksDeal.from_seed(parsed.seed, jokers=jokers, rule=parsed.rule)
        plain: object = TriPeaksDeal.from_seed(parsed.seed, rule=parsed.rule)
    else:
        want = plain = FortyThievesDeal.from_seed(parsed.seed)  # jokers do not apply
    for got in (solitaire_env.decode_deal(code, jokers=jokers), decode_deal(code, jokers=jokers)):
        assert got == want and got.code == parsed
    assert decode_deal(parsed) == plain


def _state(game: object) -> tuple[object, ...]:
    return (type(game), game.deal, game.rules, game.legal_mask(), game.public_view())  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("code", "rules"),
    [
        ("TP1-E-AAAAAAB", {}),
        ("TP1-C-AAAAAAB", {"jokers": 2, "draw": "when_stuck"}),
        ("TP1-N-BCDEFGH", {"waste_start": "empty", "faces": "open"}),
        ("FT1-N-AAAAAAB", {}),
        ("FT1-N-BCDEFGH", {"foundation_return": False}),
    ],
)
def test_make_game_builds_the_game_the_code_and_options_mean(code: str, rules: dict[str, object]) -> None:
    parsed = parse_deal_code(code)
    want: object
    if parsed.game == "TP":
        deal = TriPeaksDeal.from_seed(parsed.seed, jokers=rules.get("jokers", 0), rule=parsed.rule)  # type: ignore[arg-type]
        want = TriPeaksGame(deal, TriPeaksRules(wrap=parsed.wrap, **rules))  # type: ignore[arg-type]
    else:
        want = FortyThievesGame(FortyThievesDeal.from_seed(parsed.seed), FortyThievesRules(**rules))  # type: ignore[arg-type]
    assert _state(make_game(code, rules)) == _state(want)
    assert _state(solitaire_env.make_game(parsed, rules)) == _state(want)


def test_old_import_paths_are_the_new_names() -> None:
    import agents.evaluation.config
    import agents.evaluation.harness
    import agents.evaluation.records
    from solitaire_env import solvability as stats
    from solitaire_env.common import statistics

    assert stats.make_game is make_game
    assert stats.draw_codes is draw_codes
    assert stats.wilson is agents.evaluation.harness.wilson is statistics.wilson
    assert agents.evaluation.config.ENV_IDS is agents.evaluation.records.ENV_IDS is ENV_IDS


def test_games_are_taken_by_name_or_code_letters() -> None:
    from agents.evaluation.config import EvalConfig

    assert draw_codes(4, 3, "tripeaks", "C") == draw_codes(4, 3, "TP", "C")
    assert draw_codes(2, 3, "fortythieves", "N") == draw_codes(2, 3, "FT", "N")
    for given, name, code in (("tp", "tripeaks", "TP"), ("Forty Thieves", "fortythieves", "FT")):
        config = EvalConfig.from_mapping({"game": given})
        assert (config.game, config.code_game, config.env_id) == (name, code, ENV_IDS[name])  # type: ignore[index]


def test_reading_the_table_stays_cheap() -> None:
    script = (
        "import sys, solitaire_env\n"
        "from solitaire_env.games import GAMES\n"
        "[(g.rule_options, g.deal_class, g.game_class, g.env_class) for g in GAMES]\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
