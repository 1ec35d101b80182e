"""Toy's row of the table of games (:mod:`solitaire_env.games`)."""

from __future__ import annotations

from types import MappingProxyType

from solitaire_env.games import GameSpec

TOY = GameSpec(
    code="TY",
    name="toy",
    title="Toy",
    env_id="solitaire_env/Toy-v0",
    max_episode_steps=100,
    rule_letters=MappingProxyType({"S": "S"}),
    letter_options=MappingProxyType({"S": MappingProxyType({})}),
    letter_names=MappingProxyType({"S": "the toy's"}),
    deal_options=(),
    env_options=("redeals", "max_episode_steps"),
    progress_key="stacked",
    deal_sections=5,
    deal_layout="4 piles | stock",
    package="toygame",
    deal_path="toygame.deal:ToyDeal",
    rules_path="toygame.rules:ToyRules",
    game_path="toygame.game:ToyGame",
    env_path="toygame.env:ToyEnv",
    batch_path=None,
    plugin_path="toygame.plugin",
)
