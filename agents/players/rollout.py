"""``rollout``: Monte Carlo policy rollouts over samples of the unseen cards.

At each decision the agent draws ``samples`` fillings of the places it has never seen (the
unseen cards shuffled into them; the same samples for every candidate move, drawn from
:meth:`~agents.base.PublicState.rng`), plays each candidate move in each sample followed by a
fair base policy to the end of the game, and picks the move that wins most often (ties: most
cards cleared, then removals before the draw, then the lower action).  Its choice depends on
the public state only, so permuting the unseen cards never changes it.

TriPeaks (:class:`TriPeaksRollout`): the playouts run in numba on ranks only
(:mod:`agents.players.playouts`), from inputs built straight from the public state (no
:meth:`~agents.base.PublicState.determinize`, which replays the game: far too slow per sample).
The base policy reads only what is face up in the playout: it draws when no removal is legal and
otherwise picks the removal whose chain of known cards scores best (face-down cards turned up
at once, then at the chain's end: face-down cards turned up, face-down cards left with one
cover, unseen cards the remaining board catches, unseen cards that follow the waste, K/A
bridges).  With ``eps`` > 0 (per mille, default 0) that many of its removals in the playouts
are uniformly random instead, from the same public random numbers as the samples.  Options
(:class:`TriPeaksRollout`): ``samples``, ``max_samples`` and ``z`` (racing), ``depth`` (2: the
next move chosen by rollouts too), ``plans`` (whole plans of known-card removals),
``clear_weight`` (cards cleared in the root's value), and the base policy's weights.  Measured
figures: docs/results.md.

Forty Thieves (:class:`FortyThievesRollout`): plain Python, few samples, truncated playouts of
the hint heuristic (see its docstring).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from agents.base import Agent, GameName, PublicState
from solitaire_env.common.cards import JOKER
from solitaire_env.fortythieves.advice import fortythieves_advice
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge, fortythieves_knowledge
from solitaire_env.fortythieves.rules import DRAW as FT_DRAW
from solitaire_env.fortythieves.rules import (
    FIRST_FOUNDATION_SRC,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_DESTS,
    WASTE,
    builds_on,
    is_safe,
)
from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge

if TYPE_CHECKING:
    from agents.players.playouts import Position

__all__ = [
    "DEFAULT_POLICY",
    "PUBLISHED_NETS",
    "FortyThievesRollout",
    "TriPeaksBase",
    "TriPeaksBaseNet",
    "TriPeaksRollout",
    "TriPeaksRolloutNet",
    "base_params",
    "published_net",
    "tripeaks_inputs",
    "tripeaks_position",
]

#: The TriPeaks base policy's weights (tuned on 20 000 seed-1 Easy deals by the base policy's
#: own win rate, then checked on seed 2: see docs/research_notes.md).  ``eps``: per mille of the
#: playouts' removals played at random; 0 (``eps=50`` gained 1-2 points on seed 1 but was within
#: noise of 0 on the published seed-0 deals, so the published figures stay those of ``eps=0``).
DEFAULT_POLICY: dict[str, int] = {
    "now": 1000,
    "clear": 0,
    "reveal": 1201,
    "outs": 10,
    "bridge": 1,
    "catch": 20,
    "half": 1,
    "eps": 0,
}


def _rank(card: int | None) -> int:
    """A card's rank 1..13 (0 for a joker, -1 for a card never seen)."""
    if card is None:
        return -1
    return 0 if card == JOKER else card % 13 + 1


def tripeaks_position(state: PublicState) -> Position:
    """The kernel inputs of a TriPeaks public state, ranks only, -1 where never seen: an
    :class:`agents.players.playouts.Position` (its fields say what they hold)."""
    from agents.players.playouts import Position  # numba: imported with the kernels, not with the package

    k = cast(TriPeaksKnowledge, state.knowledge)
    return Position(
        layout=np.array([_rank(c) for c in state.layout], dtype=np.int64),
        stock=np.array([_rank(c) for c in state.stock], dtype=np.int64),
        ranks=np.array([_rank(c) for c in state.unseen if c != JOKER], dtype=np.int64),
        n_jokers=sum(1 for c in state.unseen if c == JOKER),
        removed=k.removed,
        pos=len(state.stock) - k.stock_left,
        key=k.key,
        known=sum(1 << s for s, c in enumerate(state.layout) if c is not None),
        stock_seen=sum(1 for c in state.stock if c is not None),
        unseen=np.array(k.unseen, dtype=np.int64),
        wrap=k.wrap,
        when_stuck=k.when_stuck,
    )


def base_params(net: str | None, policy: dict[str, int]) -> np.ndarray:
    """The playouts' base-policy parameters: the hand-written policy with weights ``policy``, or
    with ``net`` (a :func:`agents.players.net_file.save_net` file) the learned one, whose chain
    search uses those weights."""
    from agents.players.playouts import net_params, policy_params

    if net is None:
        return policy_params(**policy)
    from agents.players.net_file import load_net

    return net_params(load_net(net), **policy)


class TriPeaksBase(Agent):
    """The rollout agent's base policy played alone, without search: the hand-written chain
    policy (:data:`DEFAULT_POLICY`), or with ``net`` (a file of
    :func:`agents.players.net_file.save_net`) the learned one (``MODE_NET`` of
    :mod:`agents.players.playouts`).  Fair: it reads the public state only."""

    name = "base"
    games = ("tripeaks",)

    def __init__(self, game: GameName = "tripeaks", seed: int = 0, *, net: str | None = None, **policy: int) -> None:
        super().__init__(game, seed)
        from agents.players import playouts as _playout  # numba: imported with the agent, not with the package

        self._kernels = _playout
        self.net = net
        self.policy = {**DEFAULT_POLICY, **policy}
        self.params = base_params(net, self.policy)
        self._by_wrap: dict[bool, np.ndarray] = {}

    def params_for(self, state: PublicState) -> np.ndarray:
        """The policy's parameters in ``state`` (the same in every state here)."""
        return self.params

    def act(self, state: PublicState) -> int:
        legal = state.legal
        if len(legal) == 1:
            return legal[0]
        return int(self._kernels.position_move(tripeaks_position(state), self.params_for(state)))


def tripeaks_inputs(state: PublicState) -> dict[str, Any]:
    """:func:`tripeaks_position` as a dict, with ``places`` (the unseen stock places) added."""
    x = tripeaks_position(state)
    return {**x._asdict(), "places": int((x.stock < 0).sum())}


class TriPeaksRollout(Agent):
    """Rollouts of a fair numba base policy over fillings of the unseen places.

    - ``samples``: fillings per decision (default 1000: about 0.3 s of one core per Easy game).
    - ``max_samples``: with more than ``samples``, batches of ``samples`` are drawn until one
      move leads every other by ``z`` standard deviations of the paired difference in wins (a
      move that far behind is dropped), at most ``max_samples`` in all (default: one batch).
    - ``depth``: 1 scores each legal move; 2 also tries every move after it, chosen from what
      the first one turned up (:meth:`evaluate_two`; about 2.5 times the time).
    - ``plans``: 0 scores single moves; ``n`` > 0 scores up to ``n`` plans of known-card
      removals that end in a draw or a reveal (:func:`agents.players.playouts.plan_paths`), searched
      within ``nodes`` positions.
    - ``clear_weight``: > 0 ranks the candidates by ``wins + clear_weight * cleared / 28``
      (sums over the samples) before the other tie-breaks (default 0: wins first).
    - other keywords: the base policy's weights (:func:`agents.players.playouts.policy_params`;
      defaults :data:`DEFAULT_POLICY`), among them ``eps``, the per mille of the playouts'
      removals played at random (not with ``depth=2``).
    """

    name = "rollout"
    games = ("tripeaks",)

    def __init__(
        self,
        game: GameName = "tripeaks",
        seed: int = 0,
        *,
        samples: int = 1000,
        max_samples: int | None = None,
        z: float = 2.5,
        depth: int = 1,
        plans: int = 0,
        nodes: int = 256,
        clear_weight: float = 0.0,
        net: str | None = None,
        **policy: int,
    ) -> None:
        super().__init__(game, seed)
        from agents.players import playouts as _playout  # numba: imported with the agent, not with the package

        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples!r}")
        self._kernels = _playout
        self.samples = int(samples)
        self.max_samples = self.samples if max_samples is None else max(int(max_samples), self.samples)
        self.z = float(z)
        if depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2, got {depth!r}")
        self.depth = int(depth)
        self.plans = int(plans)
        self.nodes = int(nodes)
        self.clear_weight = float(clear_weight)
        self.policy = {**DEFAULT_POLICY, **policy}
        self.net = net
        self.params = base_params(net, self.policy)
        self._by_wrap: dict[bool, np.ndarray] = {}

    def params_for(self, state: PublicState) -> np.ndarray:
        """The playouts' base-policy parameters in ``state`` (the same in every state here)."""
        return self.params

    def candidates(self, state: PublicState, x: Position | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(paths, lengths)``: the candidates, as lines of env actions (``paths[i, :lengths[i]]``)."""
        if self.plans <= 0:
            return np.array(state.legal, dtype=np.int64).reshape(-1, 1), np.ones(len(state.legal), dtype=np.int64)
        x = tripeaks_position(state) if x is None else x
        paths, lengths = self._kernels.position_plans(x, self.plans, self.nodes)
        return paths, lengths

    def evaluate(self, state: PublicState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(paths, samples, wins, cleared)``: the candidates, how many samples each got, and
        their wins and cards cleared (sums) in them.  Batches of ``samples`` fillings are
        drawn until one candidate leads every other by ``z`` standard deviations of their paired
        difference in wins (a candidate that far behind the leader is dropped), or
        ``max_samples`` is reached."""
        x = tripeaks_position(state)
        paths, lengths = self.candidates(state, x)
        n = len(paths)
        counts = np.zeros(n, dtype=np.int64)
        cleared = np.zeros(n, dtype=np.int64)
        wins = np.zeros(n, dtype=np.int64)
        alive = np.arange(n)
        rng = state.rng(self.seed)
        width = self._kernels.fill_columns(x.stock, x.ranks)
        if self.policy.get("eps", 0) > 0:
            width += self._kernels.MAX_MOVES  # the playouts' noise
        outcomes: list[np.ndarray] = []  # per batch: did each alive candidate win, per sample
        drawn = 0
        while True:
            batch = min(self.samples, self.max_samples - drawn)
            got = self._kernels.sample_counts(
                x, rng.random((batch, width)), paths[alive], lengths[alive], self.params_for(state)
            )
            drawn += batch
            counts[alive] += batch
            cleared[alive] += got.sum(axis=0, dtype=np.int64)
            won = got == 28
            wins[alive] += won.sum(axis=0)
            outcomes.append(won)
            if len(alive) == 1 or drawn >= self.max_samples:
                break
            table = np.concatenate(outcomes, axis=0)  # samples x alive
            lead = max(range(len(alive)), key=lambda i: (wins[alive[i]], cleared[alive[i]]))
            keep = []
            for i in range(len(alive)):
                if i == lead:
                    keep.append(i)
                    continue
                ahead = int(table[:, lead].sum()) - int(table[:, i].sum())
                discordant = int((table[:, lead] != table[:, i]).sum())
                if ahead <= self.z * np.sqrt(discordant + 1.0):
                    keep.append(i)
            if len(keep) < len(alive):
                alive = alive[keep]
                outcomes = [o[:, keep] for o in outcomes]
            if len(alive) == 1:
                break
        return paths, counts, wins, cleared

    def evaluate_two(self, state: PublicState) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, cleared)`` of each legal move when the next move is chosen by rollouts too.

        In each sample every legal move is played, then every move legal after it, then the base
        policy.  The second move may depend only on what the first turned up (the ranks of the
        cards it revealed or drew), so the samples of a first move are grouped by that, and in
        each group the best second move is chosen on one half of the samples and scored on the
        other (and the other way round): a choice fitted to the noise of its own samples would
        flatter the moves that turn up most.
        """
        x = tripeaks_position(state)
        cands = np.array(state.legal, dtype=np.int64)
        uniforms = state.rng(self.seed).random((self.samples, self._kernels.fill_columns(x.stock, x.ranks)))
        seen, got = self._kernels.sample_two(x, uniforms, cands, self.params_for(state))
        won = got == 28
        valid = got >= 0
        cleared_all = np.where(valid, got, 0).astype(np.int64)
        half = np.arange(self.samples) % 2 == 0
        wins = np.zeros(len(cands), dtype=np.int64)
        cleared = np.zeros(len(cands), dtype=np.int64)
        # second moves in order of preference on ties: removals (upper slots first), the draw, the end
        prefer = -np.arange(30, dtype=np.int64)
        for c in range(len(cands)):
            for value in np.unique(seen[:, c]):
                group = seen[:, c] == value
                for pick, score in ((group & half, group & ~half), (group & ~half, group & half)):
                    if not score.any():
                        continue
                    if not pick.any():
                        pick = score
                    ok = valid[pick, c, :].any(axis=0)
                    key = np.lexsort((prefer, cleared_all[pick, c, :].sum(axis=0), won[pick, c, :].sum(axis=0), ok))
                    b = int(key[-1])
                    wins[c] += int(won[score, c, b].sum())
                    cleared[c] += int(cleared_all[score, c, b].sum())
        return wins, cleared

    def act(self, state: PublicState) -> int:
        legal = state.legal
        if len(legal) == 1:
            return legal[0]
        if self.depth == 2:
            wins2, cleared2 = self.evaluate_two(state)
            best2 = max(range(len(legal)), key=lambda i: (wins2[i], cleared2[i], legal[i] != 28, -legal[i]))
            return legal[best2]
        paths, counts, wins, cleared = self.evaluate(state)
        most = counts.max()

        def order(i: int) -> tuple[bool, float, int, int, bool, int, int]:
            # the candidates still in the race (every sample), the best value (wins, plus
            # ``clear_weight`` times the share of the 28 cards cleared), most wins, most cleared,
            # removals before the draw, lower slots first
            return (
                bool(counts[i] == most),
                float(wins[i] + self.clear_weight * cleared[i] / 28.0) if self.clear_weight else 0.0,
                int(wins[i]),
                int(cleared[i]),
                bool(paths[i, 0] != 28),
                -int(paths[i, 0]),
                -i,
            )

        best = max(range(len(paths)), key=order)
        return int(paths[best, 0])


#: The published learned base policies (agents/players/data/), by the rules' K-A wrap: Easy
#: (wrap) and Classic (no wrap); made by ``solitaire-env train --config
#: configs/ei_tripeaks_easy.yaml`` and ``configs/ei_tripeaks_classic.yaml`` (docs/training.md).
PUBLISHED_NETS = {True: "tripeaks_easy_base.npz", False: "tripeaks_classic_base.npz"}


def published_net(wrap: bool) -> str:
    """The path of the published learned base policy for rules with (or without) K-A wrap."""
    from pathlib import Path

    return str(Path(__file__).with_name("data") / PUBLISHED_NETS[bool(wrap)])


class _PublishedNet:
    """The learned base policy of the rules being played: ``net`` if given, else the published
    network of the state's rules (:data:`PUBLISHED_NETS`), loaded once per rule."""

    net: str | None
    policy: dict[str, int]
    _by_wrap: dict[bool, np.ndarray]

    def params_for(self, state: PublicState) -> np.ndarray:
        wrap = bool(state.rules.wrap)
        got = self._by_wrap.get(wrap)
        if got is None:
            got = base_params(self.net or published_net(wrap), self.policy)
            self._by_wrap[wrap] = got
        return got


class TriPeaksBaseNet(_PublishedNet, TriPeaksBase):
    """The learned base policy played alone, without search (about 2 ms a game): ``base`` with
    the published network of the rules played (or ``net``)."""

    name = "base_net"


class TriPeaksRolloutNet(_PublishedNet, TriPeaksRollout):
    """``rollout`` with the learned base policy in its playouts: the published network of the
    rules played (or ``net``).  The same options as ``rollout``."""

    name = "rollout_net"


# ---------------------------------------------------------------------- Forty Thieves


def _ft_value(game: FortyThievesGame) -> float:
    """A playout's score: cards founded, and a little for empty columns and a short waste."""
    empty = sum(1 for col in game.columns if not col)
    return game.founded + 0.5 * empty - 0.02 * len(game.waste)


class FortyThievesRollout(Agent):
    """Truncated rollouts of the hint heuristic (plain Python: few samples, short playouts).

    A safe foundation move (both copies of the rank below founded) is played at once.  Once the
    stock is out every card is known: the agent then follows the line of the full-information
    search (:func:`~solitaire_env.fortythieves.solver.solve_fortythieves`, ``endgame_nodes``
    positions, once per game) that founds the most cards, and the heuristic's moves after it.  Otherwise the
    candidates are the heuristic's move, the draw and the other productive moves (foundation
    moves, the waste card to a column, a column card that is not on its natural parent to
    another column), at most ``candidates`` of them; each is played in ``samples`` fillings of
    the stock followed by ``horizon`` heuristic moves, and scored by cards founded (plus a
    little for empty columns and a short waste, :func:`_ft_value`).  The heuristic's move wins
    ties.
    """

    name = "rollout"
    games = ("fortythieves",)

    def __init__(
        self,
        game: GameName = "fortythieves",
        seed: int = 0,
        *,
        samples: int = 2,
        horizon: int = 30,
        candidates: int = 6,
        endgame_nodes: int = 20_000,
    ) -> None:
        super().__init__(game, seed)
        if samples < 1 or horizon < 0 or candidates < 1 or endgame_nodes < 0:
            raise ValueError("samples and candidates must be >= 1, horizon and endgame_nodes >= 0")
        self.samples = int(samples)
        self.horizon = int(horizon)
        self.candidates = int(candidates)
        self.endgame_nodes = int(endgame_nodes)
        # the endgame line being followed: (the deal's layout, the actions it starts after, the line)
        self._endgame: tuple[tuple[int | None, ...], tuple[int, ...], tuple[int, ...]] | None = None

    def reset(self) -> None:
        self._endgame = None

    def _endgame_move(self, state: PublicState) -> int | None:
        """With the stock out every card is known: follow the line of the full-information
        search (``endgame_nodes`` positions, once per game) that founds the most cards."""
        if self.endgame_nodes == 0:
            return None
        memo = self._endgame
        if memo is not None and memo[0] == state.layout and state.actions[: len(memo[1])] == memo[1]:
            done = len(state.actions) - len(memo[1])
            line = memo[2]
            if state.actions[len(memo[1]) :] == line[:done] and done < len(line):
                return line[done]
            return None  # the line is played out (or left): the heuristic goes on
        from solitaire_env.fortythieves.solver import solve_fortythieves

        game = cast(FortyThievesGame, state.with_unseen([]))
        result = solve_fortythieves(game, max_nodes=self.endgame_nodes)
        line = tuple(result.line) if result.best > game.founded or result.solved else ()
        self._endgame = (state.layout, state.actions, line)
        return line[0] if line else None

    def candidate_moves(self, state: PublicState) -> list[int]:
        """The moves worth a rollout, the heuristic's first."""
        k = cast(FortyThievesKnowledge, state.knowledge)
        first = fortythieves_advice(k)
        out = [] if first is None else [first]
        rest_draw = [FT_DRAW] if FT_DRAW in state.legal else []
        found, others = [], []
        for a in state.legal:
            if a == FT_DRAW:
                continue
            src, dst = divmod(a, NUM_DESTS)
            if src >= FIRST_FOUNDATION_SRC:
                continue  # foundation returns: rarely worth it
            if dst == FOUNDATION:
                found.append(a)
            elif src == WASTE:
                others.append(a)
            elif src < NUM_COLUMNS:
                col = k.columns[src]
                if len(col) > 1 and builds_on(col[-1], col[-2]):
                    continue  # off its natural parent: only swaps one build for another
                if len(col) == 1 and not k.columns[dst]:
                    continue  # a lone card to an empty column
                others.append(a)
        for a in rest_draw + found + others:
            if a not in out:
                out.append(a)
        return out[: self.candidates]

    def act(self, state: PublicState) -> int:
        legal = state.legal
        if len(legal) == 1:
            return legal[0]
        k = cast(FortyThievesKnowledge, state.knowledge)
        first = fortythieves_advice(k)
        if first is None:  # cannot happen while a move is legal
            return legal[0]
        src, dst = divmod(first, NUM_DESTS)
        if first != FT_DRAW and dst == FOUNDATION:
            card = k.waste_top if src == WASTE else k.columns[src][-1]
            if card is not None and is_safe(k.foundations, card):
                return first
        if k.stock_left == 0:
            move = self._endgame_move(state)
            return first if move is None or move not in legal else move
        cands = self.candidate_moves(state)
        if len(cands) == 1:
            return cands[0]
        rng = state.rng(self.seed)
        totals = [0.0] * len(cands)
        for _ in range(self.samples):
            fill = list(state.unseen)
            rng.shuffle(fill)
            base = cast(FortyThievesGame, state.with_unseen(fill))
            for i, a in enumerate(cands):
                game = base.copy()
                game.play(a)
                for _ in itertools.repeat(None, self.horizon):
                    move = fortythieves_advice(fortythieves_knowledge(game))
                    if move is None:
                        break
                    game.play(move)
                totals[i] += _ft_value(game)
        best = max(range(len(cands)), key=lambda i: (totals[i], i == 0, -i))
        return cands[best]
