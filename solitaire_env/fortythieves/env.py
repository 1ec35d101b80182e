"""The Forty Thieves Gymnasium environment (``solitaire_env/FortyThieves-v0``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.deals import DealCode, DealStringError, FortyThievesDeal, random_code
from solitaire_env.env import RewardFn, SolitaireEnv
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.observe import FortyThievesObserver
from solitaire_env.fortythieves.rules import NUM_ACTIONS, FortyThievesRules, FortyThievesScoring, get_scoring
from solitaire_env.render import fortythieves_ansi, fortythieves_rgb


class FortyThievesEnv(SolitaireEnv):
    """Forty Thieves (Quarante Voleurs): build 8 foundations from two decks, one card at a time.

    ## Action space
    ``Discrete(210)``: ``src * 11 + dst`` moves the top card of ``src`` (0-9 a column, 10 the
    waste, 11-18 a foundation, left to right) to ``dst`` (0-9 a column, 10 the foundations: the
    leftmost foundation of the card's suit that accepts it); ``209`` draws a stock card.
    ``action_masks()`` (bool) and ``info["action_mask"]`` (int8) give the legal ones;
    ``action_name(a)`` says one in words.

    ## Observation
    ``obs_mode="flat"`` (default): ``Box(0, 1, (3897,), float32)`` of every public fact (all
    columns, the whole waste, the foundations, the stock count and the cards not seen yet);
    ``"dict"`` for ``MultiInputPolicy``; ``"oracle"`` / ``"oracle_dict"`` add the stock order.
    Layouts: ``docs/observations.md``.

    ## Rewards
    ``reward="score"`` (change in the app score: +10 to a foundation, +5 waste to column, -15
    foundation to column, floor 0), ``"win"`` (1 on a win), ``"progress"`` (cards founded in the
    step, negative when one goes back, plus ``win_bonus`` on a win) or a callable.

    ## Episode end
    Terminated when all 104 cards are founded, or when no move is legal.  Truncated (never
    terminated) by the registered 1000-step limit, and when a position (columns, waste,
    foundations, stock position) occurs for the ``max_repeats``-th time (default 3,
    ``info["truncated_reason"] == "repetition"``): going round in circles decides nothing, so
    the episode is cut, not scored as lost.
    """

    game_letters = "FT"
    game: FortyThievesGame

    def __init__(
        self,
        *,
        foundation_return: bool = True,
        scoring: str | FortyThievesScoring = "app",
        reward: str | RewardFn = "score",
        win_bonus: float = 10.0,
        obs_mode: str = "flat",
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        max_repeats: int | None = 3,
        render_mode: str | None = None,
    ) -> None:
        #: the rule options this env was made with, and those in play (always the same here: a
        #: Forty Thieves code's rule letter changes no rule; both names exist as in TriPeaks)
        self.configured_rules = self.rules = FortyThievesRules(foundation_return=foundation_return)
        self.scoring = get_scoring(scoring)
        if max_repeats is not None and (isinstance(max_repeats, bool) or not isinstance(max_repeats, int)):
            raise ValueError(f"max_repeats must be a whole number >= 2 or None, got {max_repeats!r}")
        if max_repeats is not None and max_repeats < 2:
            raise ValueError(f"max_repeats must be a whole number >= 2 or None, got {max_repeats!r}")
        self.max_repeats = max_repeats
        self._repeat_limit = max_repeats or 0
        #: how often each position (by its hash) occurred since the last draw
        self._seen_positions: dict[int, int] = {}
        self._positions_stock_pos = 0
        super().__init__(
            num_actions=NUM_ACTIONS,
            observer=FortyThievesObserver(obs_mode),
            reward=reward,
            win_bonus=win_bonus,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )
        if max_repeats is not None:
            self._check_truncation = self._repetition

    def _repetition(self) -> str | None:
        game = self.game
        if game.stock_pos != self._positions_stock_pos:
            # the stock position never goes back (the env has no undo): older positions cannot recur
            self._seen_positions.clear()
            self._positions_stock_pos = game.stock_pos
        key, positions = game.position_hash, self._seen_positions
        seen = positions[key] = positions.get(key, 0) + 1
        return "repetition" if seen >= self._repeat_limit else None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = super().reset(seed=seed, options=options)
        self.rules = self.game.rules
        self._seen_positions = {self.game.position_hash: 1}
        self._positions_stock_pos = self.game.stock_pos
        return obs, info

    def _deal_from_code(self, code: DealCode) -> tuple[Any, Any]:
        deal = FortyThievesDeal.from_seed(code.seed)
        return deal, FortyThievesGame(deal, self.configured_rules, self.scoring)

    def _deal_from_text(self, deal: Any) -> tuple[Any, Any]:
        if isinstance(deal, str):
            deal = FortyThievesDeal.parse(deal)
        elif not isinstance(deal, FortyThievesDeal):
            raise DealStringError(f"options['deal'] must be a Forty Thieves deal string or deal, got {deal!r}")
        return deal, FortyThievesGame(deal, self.configured_rules, self.scoring)

    def _random_code(self) -> DealCode:
        return random_code("FT", "N", self.np_random)

    def _render_ansi(self, view: dict[str, Any]) -> str:
        return fortythieves_ansi(view)

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        return fortythieves_rgb(view)
