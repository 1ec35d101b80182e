"""The TriPeaks Gymnasium environment (``solitaire_env/TriPeaks-v0``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from solitaire_env.common.deals import DealCode, random_code
from solitaire_env.common.env import RewardFn, SolitaireEnv, as_deal
from solitaire_env.tripeaks.deal import TriPeaksDeal
from solitaire_env.tripeaks.game import NUM_ACTIONS, TriPeaksGame
from solitaire_env.tripeaks.observe import TriPeaksObserver
from solitaire_env.tripeaks.render import tripeaks_ansi, tripeaks_rgb
from solitaire_env.tripeaks.rules import TriPeaksRules
from solitaire_env.tripeaks.scoring import TriPeaksScoring, get_scoring


class TriPeaksEnv(SolitaireEnv):
    """TriPeaks: clear the 28 cards of three peaks onto a waste pile, one rank up or down.

    ## Description
    Three overlapping peaks of 28 cards are dealt in four rows: slots 0-2 are the apexes, 3-8
    row 2, 9-17 row 3 and 18-27 the bottom row (reading order).  A card is exposed when every
    card covering it has been removed; a face-down card turns face up the moment it is exposed.
    An exposed card can be removed onto the waste when its rank is one above or below the
    waste's top card (K and A are adjacent only with ``wrap=True``; a joker on the waste, or an
    empty waste, accepts any rank); it becomes the new top.  A draw moves the top stock card
    onto the waste, one pass, no redeal.  The game is won when all 28 cards are removed and
    lost when the stock is empty and no removal is legal.  Deals come from deal codes
    (``TP1-E-AAAAAAB``: ``docs/deals.md``), so every episode can be replayed.

    ## Action Space
    ``Discrete(29)``: ``0..27`` removes the card in that slot, ``28`` draws the top stock card.
    ``action_masks()`` (bool) and ``info["action_mask"]`` (int8) give the legal ones;
    ``action_name(a)`` names one in words.

    ## Observation Space
    ``obs_mode="flat"`` (default): ``Box(0, 1, (607,), float32)``: per slot whether it is face
    down or removed and the rank and suit of a face-up card, the waste's top card, the stock
    count, the cards not seen yet, the jokers not seen yet, the chain and the cards cleared.
    ``"dict"``: a ``Dict`` of the same facts (``tableau``, ``waste``, ``unseen``, ``counts``) for
    ``MultiInputPolicy``.  Both show every public fact and nothing hidden: they are the same
    whatever the face-down cards and the stock order are.  ``"oracle"`` / ``"oracle_dict"`` add
    the face-down cards and the stock order (research only).  Layouts: ``docs/environments.md``.

    ## Starting State
    The bottom row (slots 18-27) face up and 18 cards face down (all 28 face up with
    ``faces="open"``); one card on the waste and 23 in the stock (``waste_start="empty"``: an
    empty waste and 24 in the stock), plus ``jokers`` jokers shuffled into the stock.  The
    score starts at the scoring's start (500 for ``"app"``, 0 for the others); moves, chain
    and cleared at 0.

    ## Rewards
    ``reward="score"`` (default): the change in score under ``scoring``; ``"win"``: 1 on the
    winning move, else 0; ``"progress"``: the cards removed in the step, plus ``win_bonus`` on
    the winning move; or a callable ``(score change, cards change, won) -> float``.  An illegal
    action changes nothing and, with ``illegal_action="penalize"`` (default), gives
    ``illegal_penalty`` (default -1 for ``"score"``, -0.01 for ``"win"``, -0.1 for
    ``"progress"`` and a callable).

    ## Episode End
    Terminated on a win (all 28 removed) or a loss (the stock is empty and no removal is
    legal), and on an illegal action with ``illegal_action="terminate"``.  Truncated by the
    registered 200-step limit (Gymnasium's ``TimeLimit``); only illegal actions can reach it,
    since a game has at most 28 removals and 26 draws.  A ``step`` after the end warns once
    and is played as usual (a finished game takes no move).

    ## Information
    Every ``reset`` and ``step`` info holds ``score``, ``moves`` (removals and draws),
    ``cleared`` (cards removed, 0..28), ``chain`` (removals since the last draw),
    ``longest_chain``, ``deal_code`` (the deal string for a hand-made deal) and
    ``action_mask`` (int8, 29 values); after an illegal action also ``illegal_reason`` (a stable
    code: ``not_adjacent``, ``covered``, ``face_down``, ``removed``, ``stock_empty``,
    ``draw_not_allowed``, ``game_over``) and ``illegal_message``.

    ## Arguments
    ```python
    gym.make("solitaire_env/TriPeaks-v0", wrap=True, draw="anytime", faces="standard",
             waste_start="card", jokers=0, scoring="app", reward="score", win_bonus=10.0,
             obs_mode="flat", illegal_action="penalize", illegal_penalty=None, render_mode=None)
    ```
    - ``wrap``, ``draw`` (``"anytime"`` / ``"when_stuck"``: draw only when no removal is legal),
      ``faces`` (``"standard"`` / ``"open"``), ``waste_start`` (``"card"`` / ``"empty"``),
      ``jokers`` (0, 1, 2): the rule options (:class:`~solitaire_env.tripeaks.rules.TriPeaksRules`).
    - ``scoring``: ``"app"`` (start 500, -1 a removal or a draw, +100 for emptying a peak
      group, never below 0), ``"classic"`` (the k-th removal of a chain scores k, -5 a draw,
      apexes 15/15/30), ``"streak"`` (k for the k-th removal of a chain, apexes 15/30/45,
      +100 for clearing all 28), or a :class:`~solitaire_env.tripeaks.scoring.TriPeaksScoring`.
    - ``reward``, ``win_bonus``, ``illegal_action`` (``"penalize"``, ``"raise"``:
      :class:`~solitaire_env.common.env.IllegalActionError`, ``"terminate"``), ``illegal_penalty``:
      see Rewards; ``obs_mode``: see Observation Space; ``render_mode``: ``"ansi"`` (text with
      card symbols) or ``"rgb_array"`` (a picture), face-down cards drawn as backs.

    ``reset(options={"deal_code": "TP1-E-AAAAAAB"})`` replays a deal; the code's rule letter
    sets ``wrap`` for that episode.  ``reset(options={"deal": "<deal string>"})`` plays a deal
    written card by card under the env's own rules.  Without options, ``reset(seed=...)`` draws
    a random code from ``np_random`` and reports it.  ``rules`` is the rule options in play
    (``game.rules``), ``configured_rules`` the ones the env was made with.

    ## Version History
    * v0: Initial version.
    """

    game_letters = "TP"
    game: TriPeaksGame

    def __init__(
        self,
        *,
        wrap: bool = True,
        draw: str = "anytime",
        faces: str = "standard",
        waste_start: str = "card",
        jokers: int = 0,
        scoring: str | TriPeaksScoring = "app",
        reward: str | RewardFn = "score",
        win_bonus: float = 10.0,
        obs_mode: str = "flat",
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        #: the rule options this env was made with (``gym.make`` keywords)
        self.configured_rules = TriPeaksRules(wrap=wrap, draw=draw, faces=faces, waste_start=waste_start, jokers=jokers)  # type: ignore[arg-type]
        #: the rule options in play: the configured ones, but for ``wrap`` after a reset with a deal
        #: code, whose rule letter sets it for that episode
        self.rules = self.configured_rules
        self.scoring = get_scoring(scoring)
        super().__init__(
            num_actions=NUM_ACTIONS,
            observer=TriPeaksObserver(obs_mode),
            reward=reward,
            win_bonus=win_bonus,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = super().reset(seed=seed, options=options)
        self.rules = self.game.rules  # what this episode plays by (a code's letter sets wrap)
        return obs, info

    def _deal_from_code(self, code: DealCode) -> tuple[Any, Any]:
        own = self.configured_rules
        deal = TriPeaksDeal.from_seed(code.seed, jokers=own.jokers, rule=code.rule)
        rules = own if code.wrap == own.wrap else replace(own, wrap=code.wrap)
        return deal, TriPeaksGame(deal, rules, self.scoring)

    def _deal_from_text(self, deal: Any) -> tuple[Any, Any]:
        deal = as_deal(deal, TriPeaksDeal, "options['deal'] must be a TriPeaks deal string or TriPeaksDeal")
        return deal, TriPeaksGame(deal, self.configured_rules, self.scoring)

    def _random_code(self) -> DealCode:
        return random_code("TP", self.configured_rules.rule_letter, self.np_random)

    def _render_ansi(self, view: dict[str, Any]) -> str:
        return tripeaks_ansi(view)

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        return tripeaks_rgb(view)
