"""``solitaire-env train`` with an expert-iteration config (agents/training/expert_iteration.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.players.net_file import load_net
from agents.players.rollout import PUBLISHED_NETS, published_net
from agents.registry import make_agent
from agents.settings import ConfigError
from agents.training.expert_iteration import is_expert_iteration, load_ei_config
from solitaire_env.cli import main

SMOKE = """\
method: expert_iteration
game: tripeaks
rules: {rules}
seed: 2
workers: 1
rounds: [2, 2]
teacher: {{samples: 10}}
fit: {{hidden: 4, epochs: 2}}
validation: {{deals: 12, seed: 1, rollout_deals: 2}}
test: {{deals: 6, seed: 0, agents: ["rollout:samples=10"]}}
out: {out}
"""


@pytest.mark.parametrize("rules", ["E", "C"])
def test_a_small_run_writes_every_round_and_the_test(
    tmp_path: Path, rules: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "ei.yaml"
    out = tmp_path / "run"
    config.write_text(SMOKE.format(rules=rules, out=out))
    assert main(["train", "--config", str(config)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert [r["round"] for r in metrics["rounds"]] == [1, 2]
    assert metrics["rounds"][0]["teacher"] == "rollout:samples=10"
    assert metrics["rounds"][1]["teacher"] == "rollout:samples=10,net=round_1"
    assert metrics["rounds"][1]["fitted_on"] == metrics["rounds"][0]["positions"] + metrics["rounds"][1]["positions"]
    for r in metrics["rounds"]:
        assert r["validation_base_net"]["deals"] == 12 and r["validation_rollout_net"]["deals"] == 2
    net = load_net(out / "net.npz")
    assert np.array_equal(net, load_net(out / "round_2" / "net.npz"))
    assert len(metrics["test"]["summary"]) == 3 and (out / "test").is_dir()
    assert "rollout_net" in capsys.readouterr().out
    # the same config again gives the same network (the budget is in games and epochs)
    out2 = tmp_path / "again"
    assert main(["train", "--config", str(config), "--out", str(out2), "--test-deals", "0"]) == 0
    assert np.array_equal(load_net(out2 / "net.npz"), net)


def test_config_mistakes_are_named_together(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(
        "method: expert_iteration\nrules: X\nrounds: [0]\nfit: {data: some, lr: 1}\n"
        "validation: {seed: 2}\nbogus: 1\nminutes: -1\n"
    )
    with pytest.raises(ConfigError) as error:
        load_ei_config(str(config))
    text = str(error.value)
    for piece in (
        "rules: want one of E, C",
        "rounds[0]",
        "fit.data",
        "unknown key 'lr'",
        "unknown key 'bogus'",
        "minutes",
        "must differ",
    ):
        assert piece in text, piece
    assert main(["train", "--config", str(config)]) == 2


def test_dry_run_and_ppo_options_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "ei.yaml"
    config.write_text(SMOKE.format(rules="E", out=tmp_path / "run"))
    assert is_expert_iteration(str(config)) and not is_expert_iteration(str(tmp_path / "missing.yaml"))
    assert main(["train", "--config", str(config), "--dry-run"]) == 0
    assert "rounds: (2, 2)" in capsys.readouterr().out and not (tmp_path / "run").exists()
    assert main(["train", "--config", str(config), "--timesteps", "5"]) == 2
    assert "expert-iteration config" in capsys.readouterr().err


def test_the_published_networks_load_and_play_their_rules() -> None:
    for wrap in (True, False):
        assert Path(published_net(wrap)).name == PUBLISHED_NETS[wrap]
        load_net(published_net(wrap))
    agent = make_agent("base_net")
    from agents.base import decide
    from solitaire_env.solvability import draw_codes, make_game

    for code in (draw_codes(1, 3, "TP", "E")[0], draw_codes(1, 3, "TP", "C")[0]):
        game, actions = make_game(code), []
        while not game.over:
            a = decide(agent, game, actions)
            game.play(a)
            actions.append(a)
    assert set(agent._by_wrap) == {True, False}  # one network per rule, loaded once
