"""The TriPeaks Gymnasium environment (``solitaire_env/TriPeaks-v0``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from solitaire_env.deals import DealCode, DealStringError, TriPeaksDeal, random_code
from solitaire_env.env import RewardFn, SolitaireEnv
from solitaire_env.render import tripeaks_ansi, tripeaks_rgb
from solitaire_env.tripeaks.game import NUM_ACTIONS, TriPeaksGame
from solitaire_env.tripeaks.observe import TriPeaksObserver
from solitaire_env.tripeaks.rules import TriPeaksRules
from solitaire_env.tripeaks.scoring import Scoring, get_scoring


class TriPeaksEnv(SolitaireEnv):
    """TriPeaks: clear the 28 cards of three peaks onto a waste pile, one rank up or down.

    ## Action space
    ``Discrete(29)``: ``0..27`` removes the card in that slot (reading order: apexes 0-2,
    row 2 3-8, row 3 9-17, bottom row 18-27), ``28`` draws the top stock card.
    ``action_masks()`` (bool) and ``info["action_mask"]`` (int8) give the legal ones.

    ## Observation
    ``obs_mode="flat"`` (default): a ``Box(0, 1, (607,), float32)`` of every public fact;
    ``"dict"``: a ``Dict`` for ``MultiInputPolicy``; ``"oracle"`` / ``"oracle_dict"`` add the
    hidden cards (research only).  Layouts: ``docs/observations.md``.

    ## Rewards
    ``reward="score"`` (change in score under ``scoring``), ``"win"`` (1 on a win),
    ``"progress"`` (cards cleared, plus ``win_bonus`` on a win) or a callable
    ``(score change, cards change, won) -> float``.  An illegal action changes nothing and
    gives ``illegal_penalty`` (``illegal_action="penalize"``), raises (``"raise"``) or ends the
    episode (``"terminate"``).

    ## Episode end
    Terminated on a win (all 28 cleared) or a loss (stock empty, no removal legal).
    Registered with a 200-step limit that truncates (only illegal actions can reach it:
    a game has at most 28 removals and 26 draws).

    ## Arguments
    Rule options ``wrap``, ``draw``, ``faces``, ``waste_start``, ``jokers`` (see
    :class:`~solitaire_env.tripeaks.rules.TriPeaksRules`), ``scoring`` (``"app"``,
    ``"classic"``, ``"streak"`` or a :class:`~solitaire_env.tripeaks.scoring.Scoring`),
    ``reward``, ``win_bonus``, ``obs_mode``, ``illegal_action``, ``illegal_penalty``,
    ``render_mode`` (``"ansi"`` or ``"rgb_array"``).

    ``reset(options={"deal_code": "TP1-E-AAAAAAB"})`` replays a deal; the code's rule letter
    sets ``wrap`` for that episode.  ``reset(options={"deal": "<deal string>"})`` plays a deal
    written card by card under the env's own rules.  ``rules`` is the rule options in play
    (``game.rules``), ``configured_rules`` the ones the env was made with.
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
        scoring: str | Scoring = "app",
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
        if isinstance(deal, str):
            deal = TriPeaksDeal.parse(deal)
        elif not isinstance(deal, TriPeaksDeal):
            raise DealStringError(f"options['deal'] must be a TriPeaks deal string or TriPeaksDeal, got {deal!r}")
        return deal, TriPeaksGame(deal, self.configured_rules, self.scoring)

    def _random_code(self) -> DealCode:
        return random_code("TP", self.configured_rules.rule_letter, self.np_random)

    def _render_ansi(self, view: dict[str, Any]) -> str:
        return tripeaks_ansi(view)

    def _render_rgb(self, view: dict[str, Any]) -> np.ndarray:
        return tripeaks_rgb(view)
