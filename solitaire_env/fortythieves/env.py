"""The Forty Thieves Gymnasium environment (``solitaire_env/FortyThieves-v0``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.env import RewardFn, SolitaireEnv, as_deal
from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.observe import FortyThievesObserver
from solitaire_env.fortythieves.render import fortythieves_ansi, fortythieves_rgb
from solitaire_env.fortythieves.rules import NUM_ACTIONS, FortyThievesRules, FortyThievesScoring, get_scoring


def check_max_repeats(max_repeats: int | None) -> int | None:
    """``max_repeats`` (the repetition cut of the single and the batch env) if it is a whole
    number >= 2 or ``None``; else ``ValueError``."""
    if max_repeats is not None and (
        isinstance(max_repeats, bool) or not isinstance(max_repeats, int) or max_repeats < 2
    ):
        raise ValueError(f"max_repeats must be a whole number >= 2 or None, got {max_repeats!r}")
    return max_repeats


class FortyThievesEnv(SolitaireEnv):
    """Forty Thieves (Quarante Voleurs): build 8 foundations from two decks, one card at a time.

    ## Description
    Two decks (104 cards): 10 columns of 4 cards, all face up, a stock of 64 face-down cards
    drawn one at a time onto the waste (one pass), and 8 foundations with fixed suits S, H, D,
    C, S, H, D, C (left to right), each built from the ace up to the king in its suit.  One card
    moves at a time: the top card of a column, of the waste or (``foundation_return=True``) of
    a foundation.  On a column a card goes on the next higher card of its suit; nothing goes
    on an ace; an empty column takes any card.  The game is won when all 104 cards are on the
    foundations.  Deals come from deal codes (``FT1-N-AAAAAAB``: ``docs/deals.md``), so every
    episode can be replayed.

    ## Action Space
    ``Discrete(210)``: ``src * 11 + dst`` moves the top card of ``src`` (0-9 a column, 10 the
    waste, 11-18 a foundation, left to right) to ``dst`` (0-9 a column, 10 the foundations: the
    leftmost foundation of the card's suit that accepts it); ``209`` draws a stock card.
    ``action_masks()`` (bool) and ``info["action_mask"]`` (int8) give the legal ones;
    ``action_name(a)`` names one in words.

    ## Observation Space
    ``obs_mode="flat"`` (default): ``Box(0, 1, (3897,), float32)``: every card of every column,
    the column lengths, the whole waste and its top card, the waste size, the cards on each
    foundation, the stock count and the copies of each card not seen yet (still in the stock).
    ``"dict"``: a ``Dict`` of the same facts (``columns``, ``waste``, ``foundations``,
    ``unseen``, ``counts``) for ``MultiInputPolicy``.  Both show every public fact and nothing
    hidden: they are the same whatever the order of the undrawn stock is.  ``"oracle"`` /
    ``"oracle_dict"`` add the stock order (research only).  Layouts: ``docs/environments.md``.

    ## Starting State
    The 10 columns of 4 face-up cards, 64 cards in the stock, an empty waste and empty
    foundations; the score starts at the scoring's start (0 for ``"app"``), moves and chain at 0.

    ## Rewards
    ``reward="score"`` (default): the change in score under ``scoring`` (``"app"``: +10 a card
    to a foundation, +5 waste to column, -15 foundation to column, 0 otherwise, never below 0);
    ``"win"``: 1 on the winning move, else 0; ``"progress"``: the cards founded in the step (-1
    when one goes back to a column), plus ``win_bonus`` on the winning move; or a callable
    ``(score change, founded change, won) -> float``.  An illegal action changes nothing and,
    with ``illegal_action="penalize"`` (default), gives ``illegal_penalty`` (default -1 for
    ``"score"``, -0.01 for ``"win"``, -0.1 for ``"progress"`` and a callable).

    ## Episode End
    Terminated when all 104 cards are founded, when no move is legal, and on an illegal action
    with ``illegal_action="terminate"``.  Truncated (never terminated) by the registered
    1000-step limit (Gymnasium's ``TimeLimit``), and when a position (columns, waste,
    foundations, stock position) occurs for the ``max_repeats``-th time since the last draw
    (default 3, ``info["truncated_reason"] == "repetition"``): going round in circles decides
    nothing, so the episode is cut, not scored as lost.  A ``step`` after the end warns once
    and is played as usual.

    ## Information
    Every ``reset`` and ``step`` info holds ``score``, ``moves``, ``founded`` (cards on the
    foundations, 0..104; also as ``cleared``, the name both games share), ``chain`` (moves
    since the last draw), ``longest_chain``, ``deal_code`` (the deal string for a hand-made
    deal) and ``action_mask`` (int8, 210 values); after an illegal action also
    ``illegal_reason`` (``wrong_suit``, ``wrong_rank``, ``onto_ace``, ``foundation_order``,
    ``nothing_to_move``, ``same_place``, ``return_not_allowed``, ``stock_empty``,
    ``game_over``) and ``illegal_message``; on a repetition cut, ``truncated_reason``.

    ## Arguments
    ```python
    gym.make("solitaire_env/FortyThieves-v0", foundation_return=True, scoring="app",
             reward="score", win_bonus=10.0, obs_mode="flat", illegal_action="penalize",
             illegal_penalty=None, max_repeats=3, render_mode=None)
    ```
    - ``foundation_return``: whether a foundation's top card may go back to a column
      (:class:`~solitaire_env.fortythieves.rules.FortyThievesRules`).
    - ``scoring``: ``"app"`` or a :class:`~solitaire_env.fortythieves.rules.FortyThievesScoring`.
    - ``reward``, ``win_bonus``, ``illegal_action`` (``"penalize"``, ``"raise"``:
      :class:`~solitaire_env.common.env.IllegalActionError`, ``"terminate"``), ``illegal_penalty``:
      see Rewards; ``obs_mode``: see Observation Space.
    - ``max_repeats``: the repetition cut (a whole number >= 2), ``None`` for none.
    - ``render_mode``: ``"ansi"`` (text with card symbols) or ``"rgb_array"`` (a picture).

    ``reset(options={"deal_code": "FT1-N-AAAAAAB"})`` replays a deal,
    ``reset(options={"deal": "<deal string>"})`` plays a deal written card by card; without
    options, ``reset(seed=...)`` draws a random code from ``np_random`` and reports it.

    ## Version History
    * v0: Initial version.
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
        self.max_repeats = check_max_repeats(max_repeats)
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
        deal = as_deal(deal, FortyThievesDeal, "options['deal'] must be a Forty Thieves deal string or deal")
        return deal, FortyThievesGame(deal, self.configured_rules, self.scoring)

    def _random_code(self) -> DealCode:
        return random_code("FT", "N", self.np_random)

    def _render_ansi(self, view: dict[str, Any]) -> str:
        return fortythieves_ansi(view)

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        return fortythieves_rgb(view)
