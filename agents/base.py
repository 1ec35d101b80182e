"""The Agent interface: a public state in, an env action out.

Hidden cards stay out of reach by construction.  :func:`public_state` is the one function that
reads a game on behalf of an agent, and it does so only through the game's knowledge function
(``tripeaks_knowledge`` / ``fortythieves_knowledge``, :func:`solitaire_env.hints.game_knowledge`),
which copies out only what the player has seen: the tableau / column cards that were ever face
up, the stock cards that were ever drawn, the waste, the counters, the legal moves and the
rules.  The :class:`PublicState` it returns is that knowledge object plus the actions played,
and holds no reference to the game.  No agent but the oracle gets the game: :func:`decide` hands the game itself
only to an agent whose class says ``sees_hidden = True`` (the oracle, labelled as an upper
bound wherever it appears).  The evaluation loop also hands every agent what the env returned
at that position (:class:`EnvOutput`: observation, info, mask) through
:meth:`Agent.act_observed`, which by default ignores it and calls :meth:`Agent.act`.

Sampling agents draw the unseen cards with :meth:`PublicState.determinize`, which deals the
seen cards where they were seen, the unseen ones shuffled into the places never seen, and
replays the actions played so far through the rules core: a full game consistent with
everything the player knows.  Their random generators are seeded by :meth:`PublicState.rng`,
from the agent's seed and a fingerprint of the public information only, so an agent's choice
never depends on the order of the cards it has not seen.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from solitaire_env.common.cards import JOKER
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.knowledge import FortyThievesKnowledge
from solitaire_env.games import GameName, game_spec, spec_of
from solitaire_env.hints import game_knowledge
from solitaire_env.tripeaks.game import TriPeaksGame
from solitaire_env.tripeaks.knowledge import TriPeaksKnowledge

Game = TriPeaksGame | FortyThievesGame

__all__ = [
    "Agent",
    "EnvOutput",
    "Game",
    "GameName",
    "PublicState",
    "decide",
    "env_output",
    "game_name",
    "observe",
    "public_state",
]


def game_name(game: Game) -> GameName:
    """The name of the game ``game`` is of (``"tripeaks"``, ``"fortythieves"``)."""
    try:
        return spec_of(game).name
    except TypeError:
        raise TypeError(f"not a solitaire_env game: {type(game).__name__}") from None


def _values(x: Any) -> Any:
    """``x`` as plain values for a fingerprint: a dataclass as its fields' (name, value) pairs,
    an enum as its value, anything else as itself (its class name never enters)."""
    if is_dataclass(x) and not isinstance(x, type):
        return tuple((f.name, _values(getattr(x, f.name))) for f in fields(x))
    if isinstance(x, Enum):
        return x.value
    if isinstance(x, (tuple, list)):
        return tuple(_values(v) for v in x)
    if type(x).__repr__ is object.__repr__:
        return type(x).__qualname__  # a custom object without a repr: its address is not stable
    return x


@dataclass(frozen=True, eq=False)
class PublicState:
    """Everything a player knows about a position, and nothing more: the game's knowledge
    object plus the actions played since the deal.

    - ``knowledge``: the one public-information object of the position
      (:class:`~solitaire_env.tripeaks.knowledge.TriPeaksKnowledge` /
      :class:`~solitaire_env.fortythieves.knowledge.FortyThievesKnowledge`), made by the game's
      knowledge function; every other attribute but ``actions`` is read from it.
    - ``actions``: the env actions played since the deal, in order.
    - ``game``: ``"tripeaks"`` or ``"fortythieves"``; ``rules``, ``scoring``: the game's rule
      options and scoring (public, frozen objects).
    - ``legal``: the legal env actions, ascending (a tuple of ints); ``mask``: the same as a
      bool array of the action space's size.
    - ``view``: the dict the renderers draw (equal to ``game.public_view()``).
    - ``layout``: the deal's tableau (TriPeaks: 28 slots in slot order) or columns (Forty
      Thieves: 40 cards, column by column, bottom to top) as dealt, with ``None`` where the
      card was never seen (TriPeaks face-down cards never turned; Forty Thieves deals every
      column card face up, so none).
    - ``stock``: the game's stock in draw order (TriPeaks with ``waste_start="empty"``: the
      deal's waste card first), ``None`` where never drawn.
    - ``unseen``: the cards never seen, sorted (a multiset: Forty Thieves has two decks).
    - ``first_waste``: TriPeaks with ``waste_start="card"``: the deal's waste card (face up
      from the start); else ``None``.
    """

    knowledge: TriPeaksKnowledge | FortyThievesKnowledge = field(repr=False)
    actions: tuple[int, ...]
    legal: tuple[int, ...] = field(init=False)
    mask: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        k = self.knowledge
        legal = k.legal
        mask = np.zeros(k.num_actions, dtype=bool)
        mask[list(legal)] = True
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "mask", mask)

    @property
    def game(self) -> GameName:
        return spec_of(self.knowledge).name

    @property
    def rules(self) -> Any:
        return self.knowledge.rules

    @property
    def scoring(self) -> Any:
        return self.knowledge.scoring

    @property
    def view(self) -> dict[str, Any]:
        return self.knowledge.view()

    @property
    def layout(self) -> tuple[int | None, ...]:
        return self.knowledge.layout

    @property
    def stock(self) -> tuple[int | None, ...]:
        return self.knowledge.stock

    @property
    def unseen(self) -> tuple[int, ...]:
        return self.knowledge.unseen_cards

    @property
    def first_waste(self) -> int | None:
        return self.knowledge.first_waste

    @property
    def all_known(self) -> bool:
        """Every card has been seen: a full-information position."""
        return not self.unseen

    def fingerprint(self) -> int:
        """A stable 64-bit hash of the public information (the same in every process, and the
        same when a class is renamed: rules and scoring enter by their fields' values)."""
        rules, scoring = _values(self.rules), _values(self.scoring)
        text = repr((self.game, rules, scoring, self.actions, self.layout, self.stock, self.unseen))
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")

    def rng(self, seed: int = 0) -> np.random.Generator:
        """A generator seeded by ``seed`` and the public information only."""
        return np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, self.fingerprint()])

    def determinize(self, rng: np.random.Generator) -> Game:
        """A full game consistent with what the player knows: the unseen cards shuffled into the
        places never seen, then the actions replayed through the rules core."""
        # jokers lie only in the stock (never in the tableau): deal the layout's unseen places
        # from the other cards, then shuffle what is left, jokers included, into the stock's
        others = [c for c in self.unseen if c != JOKER]
        rng.shuffle(others)
        n_layout = self.layout.count(None)
        rest = others[n_layout:] + [JOKER] * (len(self.unseen) - len(others))
        rng.shuffle(rest)
        return self.with_unseen(others[:n_layout] + rest)

    def with_unseen(self, cards: list[int] | tuple[int, ...]) -> Game:
        """The full game whose never-seen places hold ``cards`` in order (layout places first,
        then stock places), with the actions replayed."""
        if sorted(cards) != list(self.unseen):
            raise ValueError("cards must be a permutation of the unseen cards")
        it = iter(cards)
        layout = [next(it) if c is None else c for c in self.layout]
        stock = [next(it) if c is None else c for c in self.stock]
        spec = game_spec(self.game)
        deal = spec.deal_class.from_places(layout, stock, self.first_waste)
        game: Game = spec.game_class(deal, self.rules, self.scoring)
        for action in self.actions:
            reason = game.try_play(action)
            if reason is not None:  # cannot happen for a state made by public_state()
                raise ValueError(f"action {action} does not replay: {reason}")
        return game


def public_state(game: Game, actions: list[int] | tuple[int, ...]) -> PublicState:
    """The public state of ``game``, reached from its deal by ``actions``: the game's knowledge
    object (:func:`~solitaire_env.hints.game_knowledge`, the only function that reads a game
    for an agent: it copies seen cards only) and the actions."""
    return PublicState(knowledge=game_knowledge(game), actions=tuple(actions))


@dataclass(frozen=True, eq=False)
class EnvOutput:
    """What the env returned for the current position (its last ``reset`` or ``step``).

    - ``observation``: the observation, as the env returned it (read it before the next step:
      the env may reuse the buffer);
    - ``info``: the info (``action_mask``, ``score``, ``deal_code``...);
    - ``obs_mode``: the env's observation mode (``"flat"``, ``"dict"``...), so that an agent can
      tell whether ``observation`` is the one it was trained on;
    - ``mask``: the legal actions as a bool array (``info["action_mask"]``).

    Made from what the env shows the player: an agent that reads it sees nothing the
    :class:`PublicState` does not hold (the ``oracle`` observation modes are the exception, and an
    agent must check ``obs_mode`` before it uses an observation).
    """

    observation: Any = field(repr=False)
    info: dict[str, Any] = field(repr=False)
    obs_mode: str

    @property
    def mask(self) -> np.ndarray:
        return np.asarray(self.info["action_mask"], dtype=bool)


def env_output(env: Any, observation: Any, info: dict[str, Any]) -> EnvOutput:
    """The :class:`EnvOutput` of what ``env`` (a solitaire_env env, maybe wrapped) just returned."""
    return EnvOutput(observation=observation, info=info, obs_mode=str(env.unwrapped.observer.mode))


def observe(env: Any) -> PublicState:
    """The public state of a solitaire_env env's current episode (``env`` may be wrapped)."""
    inner = env.unwrapped
    return public_state(inner.game, inner.actions)


class Agent(ABC):
    """A policy for one game: :meth:`act` maps a :class:`PublicState` to a legal env action.

    Subclasses set ``name`` (the registry name) and ``games`` (the games they play).  An agent
    is built with a ``seed`` (sampling agents mix it with the public fingerprint) and may keep
    state between moves of an episode; :meth:`reset` starts a new episode.
    """

    name: ClassVar[str] = "agent"
    games: ClassVar[tuple[GameName, ...]] = ("tripeaks", "fortythieves")
    #: Only the oracle: :func:`decide` gives it the game itself (hidden cards included).
    sees_hidden: ClassVar[bool] = False
    #: A label for tables ("upper bound" for the oracle).
    label: ClassVar[str] = ""

    def __init__(self, game: GameName, seed: int = 0) -> None:
        if game not in self.games:
            raise ValueError(f"agent {self.name!r} does not play {game} (it plays {', '.join(self.games)})")
        self.game = game
        self.seed = int(seed)

    def reset(self) -> None:  # noqa: B027 (optional hook)
        """A new episode starts (the default keeps no episode state)."""

    @abstractmethod
    def act(self, state: PublicState) -> int:
        """A legal action of ``state`` (``state.legal`` is never empty when called)."""

    def act_observed(self, state: PublicState, output: EnvOutput) -> int:
        """A legal action of ``state``, given also what the env returned there (``output``).

        The evaluation loop calls this one.  The default ignores ``output`` and returns
        :meth:`act`; an agent whose input is the env's observation (``ppo``) overrides it to
        skip recomputing that observation."""
        return self.act(state)

    def act_full(self, game: Game, actions: tuple[int, ...]) -> int:
        """Only for ``sees_hidden`` agents: an action from the full game."""
        raise NotImplementedError(f"agent {self.name!r} does not see hidden cards")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seed={self.seed})"


def decide(agent: Agent, game: Game, actions: list[int] | tuple[int, ...], output: EnvOutput | None = None) -> int:
    """The agent's action in ``game``: the oracle reads the game, every other agent only its
    public state, plus ``output`` (what the env returned there, :meth:`Agent.act_observed`) when
    given.  Raises ``ValueError`` if the agent names an illegal action."""
    if agent.sees_hidden:
        action = int(agent.act_full(game, tuple(actions)))
    elif output is None:
        action = int(agent.act(public_state(game, actions)))
    else:
        action = int(agent.act_observed(public_state(game, actions), output))
    if not game.legal_mask() >> action & 1:
        raise ValueError(f"agent {agent.name!r} chose illegal action {action} ({game.illegal_reason(action)})")
    return action
