"""The pieces both games share (common/ and the game helpers each side calls): the deal-code
and deal checks of the single and batch envs, the observers' modes and buffers, the legal-action
lists, the Forty Thieves counters and ``max_repeats`` check."""

from __future__ import annotations

import numpy as np
import pytest

from solitaire_env.common.bits import set_bits
from solitaire_env.common.deals import DealCodeError, DealStringError
from solitaire_env.common.env import as_deal, parse_game_code
from solitaire_env.common.observer import OBS_MODES
from solitaire_env.fortythieves.batch import FortyThievesVectorEnv
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.env import FortyThievesEnv, check_max_repeats
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import fortythieves_knowledge
from solitaire_env.fortythieves.observe import FLAT_SIZE as FT_FLAT
from solitaire_env.fortythieves.observe import ORACLE_SIZE as FT_ORACLE
from solitaire_env.fortythieves.observe import FortyThievesObserver
from solitaire_env.tripeaks.batch import TriPeaksVectorEnv
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.env import TriPeaksEnv
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.knowledge import tripeaks_knowledge
from solitaire_env.tripeaks.observe import FLAT_SIZE as TP_FLAT
from solitaire_env.tripeaks.observe import ORACLE_SIZE as TP_ORACLE
from solitaire_env.tripeaks.observe import TriPeaksObserver

TP_CODE = "TP1-E-AAAAAAB"
FT_CODE = "FT1-N-AAAAAAB"


# --------------------------------------------------------------------------- bits


@pytest.mark.parametrize("seed", range(5))
def test_set_bits_lists_the_set_bits_ascending(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for width in (1, 29, 64, 210):
        for _ in range(50):
            mask = sum(1 << k for k in range(width) if rng.random() < 0.3)
            assert set_bits(mask) == [k for k in range(width) if mask >> k & 1]
    assert set_bits(0) == []


def test_legal_actions_and_knowledge_legal_follow_the_mask() -> None:
    for game in (TriPeaksGame(TriPeaksDeal.from_seed(3)), FortyThievesGame(FortyThievesDeal.from_seed(3))):
        rng = np.random.default_rng(0)
        for _ in range(40):
            mask = game.legal_mask()
            if not mask:
                break
            expected = [a for a in range(game.legal_mask().bit_length()) if mask >> a & 1]
            assert game.legal_actions() == expected
            knowledge = tripeaks_knowledge(game) if isinstance(game, TriPeaksGame) else fortythieves_knowledge(game)
            assert knowledge.legal == tuple(expected)
            game.play(int(rng.choice(expected)))


# --------------------------------------------------------------------------- deal codes and deals


def test_parse_game_code_keeps_its_game_and_rejects_the_other() -> None:
    assert str(parse_game_code(TP_CODE, "TP")) == TP_CODE
    assert str(parse_game_code(FT_CODE, "FT")) == FT_CODE
    with pytest.raises(DealCodeError, match=f"deal code {FT_CODE} is for game FT, this env plays TP"):
        parse_game_code(FT_CODE, "TP")


@pytest.mark.parametrize(
    ("make", "other"),
    [
        (lambda: TriPeaksEnv(), FT_CODE),
        (lambda: FortyThievesEnv(), TP_CODE),
        (lambda: TriPeaksVectorEnv(2), FT_CODE),
        (lambda: FortyThievesVectorEnv(2), TP_CODE),
    ],
)
def test_every_env_rejects_the_other_games_code_alike(make, other) -> None:  # type: ignore[no-untyped-def]
    env = make()
    key = "deal_codes" if hasattr(env, "num_envs") else "deal_code"
    value = [other] * env.num_envs if key == "deal_codes" else other
    with pytest.raises(DealCodeError, match=r"deal code \S+ is for game \w\w, this env plays \w\w"):
        env.reset(options={key: value})


def test_as_deal_parses_passes_and_rejects() -> None:
    deal = TriPeaksDeal.from_seed(1)
    assert as_deal(str(deal), TriPeaksDeal, "want") == deal
    assert as_deal(deal, TriPeaksDeal, "want") is deal
    with pytest.raises(DealStringError, match=r"^want a TriPeaks deal, got 42$"):
        as_deal(42, TriPeaksDeal, "want a TriPeaks deal")
    with pytest.raises(DealStringError, match="got FortyThievesDeal"):
        as_deal(FortyThievesDeal.from_seed(1), TriPeaksDeal, "want")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: TriPeaksEnv(), "options['deal'] must be a TriPeaks deal string or TriPeaksDeal, got 42"),
        (lambda: FortyThievesEnv(), "options['deal'] must be a Forty Thieves deal string or deal, got 42"),
        (lambda: TriPeaksVectorEnv(1), "a deal must be a TriPeaks deal string or TriPeaksDeal, got 42"),
        (lambda: FortyThievesVectorEnv(1), "a deal must be a Forty Thieves deal string or FortyThievesDeal, got 42"),
    ],
)
def test_a_deal_of_the_wrong_type_names_what_each_env_wants(make, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DealStringError) as caught:
        make().reset(options={"deal": 42})
    assert str(caught.value) == message


def test_tripeaks_batch_parses_every_deal_string_before_checking_jokers() -> None:
    """The order of the batch's deal checks: every string is read first, then each deal's type
    and jokers, so a bad string after a deal with the wrong jokers is the error reported."""
    env = TriPeaksVectorEnv(2)
    with_joker = TriPeaksDeal.from_seed(1, jokers=1)
    with pytest.raises(DealStringError) as caught:
        env.reset(options={"deals": [with_joker, "not a deal"]})
    assert "joker" not in str(caught.value)
    with pytest.raises(DealStringError, match="the deal has 1 joker"):
        env.reset(options={"deals": [with_joker, 42]})


# --------------------------------------------------------------------------- observers


@pytest.mark.parametrize(
    ("observer", "flat", "oracle"),
    [(TriPeaksObserver, TP_FLAT, TP_ORACLE), (FortyThievesObserver, FT_FLAT, FT_ORACLE)],
)
def test_observers_share_modes_buffer_and_flat_spaces(observer, flat, oracle) -> None:  # type: ignore[no-untyped-def]
    for mode in OBS_MODES:
        obs = observer(mode)
        assert obs.mode == mode and obs.oracle == mode.startswith("oracle")
        size = oracle if obs.oracle else flat
        assert obs._buf.shape == (size,) and obs._buf.dtype == np.float32
        if mode in ("flat", "oracle"):
            assert obs.space.shape == (size,) and obs.space.dtype == np.float32
        else:
            assert obs.space.__class__.__name__ == "Dict"
    with pytest.raises(
        ValueError, match="unknown observation mode 'pixels'; want one of flat, dict, oracle, oracle_dict"
    ):
        observer("pixels")


# --------------------------------------------------------------------------- Forty Thieves


@pytest.mark.parametrize("bad", [True, 1, 0, -3, 2.0, "3", np.int64(3)])
def test_max_repeats_is_checked_alike_by_the_single_and_the_batch_env(bad: object) -> None:
    message = f"max_repeats must be a whole number >= 2 or None, got {bad!r}"
    for make in (FortyThievesEnv, lambda **kw: FortyThievesVectorEnv(1, **kw)):
        with pytest.raises(ValueError) as caught:
            make(max_repeats=bad)
        assert str(caught.value) == message
    for good in (None, 2, 3, 50):
        assert check_max_repeats(good) == good


def test_fortythieves_counters_and_view_agree() -> None:
    game = FortyThievesGame(FortyThievesDeal.from_seed(7))
    rng = np.random.default_rng(1)
    for _ in range(60):
        legal = game.legal_actions()
        if not legal:
            break
        game.play(int(rng.choice(legal)))
    counters = game.counters()
    assert list(counters) == ["score", "moves", "cleared", "founded", "chain", "longest_chain"]
    assert counters["cleared"] == counters["founded"] == sum(game.foundations)
    view = game.public_view()
    assert list(view) == [
        "game", "columns", "waste", "foundations", "foundation_suits", "stock_count",
        *counters, "won", "over",
    ]  # fmt: skip
    assert {k: view[k] for k in counters} == counters
