"""The Toy Gymnasium environment (``solitaire_env/Toy-v0``): a :class:`SolitaireEnv` as the
package's games' envs are.

``Discrete(7)``: 0..3 the top card of that pile to the foundation, 4 the waste's top card to
the foundation, 5 redeal (the stock is empty: the waste turned over), 6 draw.  Rewards,
illegal actions, masks, deal codes (``TY1-S-AAAAAAB``) and deal strings are the base class's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.env import RewardFn, SolitaireEnv, as_deal
from toygame.deal import ToyDeal
from toygame.game import ToyGame
from toygame.observe import ToyObserver
from toygame.render import toy_ansi, toy_rgb
from toygame.rules import NUM_ACTIONS, ToyRules


class ToyEnv(SolitaireEnv):
    game_letters = "TY"
    game: ToyGame

    def __init__(
        self,
        *,
        redeals: int = 1,
        reward: str | RewardFn = "score",
        win_bonus: float = 10.0,
        obs_mode: str = "flat",
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.rules = ToyRules(redeals=redeals)
        super().__init__(
            num_actions=NUM_ACTIONS,
            observer=ToyObserver(obs_mode),
            reward=reward,
            win_bonus=win_bonus,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    def _deal_from_code(self, code: DealCode) -> tuple[Any, Any]:
        deal = ToyDeal.from_seed(code.seed, rule=code.rule)
        return deal, ToyGame(deal, self.rules)

    def _deal_from_text(self, deal: Any) -> tuple[Any, Any]:
        deal = as_deal(deal, ToyDeal, "options['deal'] must be a Toy deal string or ToyDeal")
        return deal, ToyGame(deal, self.rules)

    def _random_code(self) -> DealCode:
        return random_code("TY", "S", self.np_random)

    def _render_ansi(self, view: dict[str, Any]) -> str:
        return toy_ansi(view)

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        return toy_rgb(view)
