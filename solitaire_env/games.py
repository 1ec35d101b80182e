"""The one table of games: every place that lists the games, or needs something of one game, reads it.

Each :class:`GameSpec` row says, for one game: the code letters of its deal codes (``TP``), its
name (``tripeaks``: what agents, configs, records and ``evaluate(game=...)`` take), its title
(``TriPeaks``), its registered env id, its deal-code rule letters and the rule options each
letter sets, the step limit of the registered env, the number of ``|``-separated sections of its
deal string, and where its deal, rules, game, env and batch-env classes live.  The classes are
imported on first use, so reading the table (and ``import solitaire_env``) stays cheap and
numba-free.

One vocabulary: a game's *name* is a :data:`GameName` (``"tripeaks"`` / ``"fortythieves"``), the
two letters of its deal codes a :data:`GameCode` (``"TP"`` / ``"FT"``).  :func:`game_spec`
accepts either (and the titles, in any case), so every function that takes a game keeps taking
both; :func:`code_letter` and :func:`game_name` convert.

:data:`GAMES` is a live view of the registered rows: :func:`register_game` adds one (and its env
id to Gymnasium), so a third game is one more row and its folder; nothing outside the folders of
the games asks which game it has.  Code that holds a game, a deal, rules or a knowledge object
finds its row with :func:`spec_of`, and asks the row's :attr:`GameSpec.plugin` (the
:class:`~solitaire_env.common.plugin.GamePlugin` operations of that game: solve, hint, text,
drawing, terminal session) for what differs.

The operations over the table that deal cards (:func:`decode_deal`, :func:`make_game`) live in
:mod:`solitaire_env.dealing`; this module imports nothing of the package at run time.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias, cast, overload

if TYPE_CHECKING:
    from solitaire_env.common.plugin import GamePlugin
    from solitaire_env.fortythieves.deal import FortyThievesDeal
    from solitaire_env.tripeaks.deal import TriPeaksDeal

    Deal: TypeAlias = TriPeaksDeal | FortyThievesDeal

__all__ = [
    "ENV_IDS",
    "FORTYTHIEVES",
    "FORTYTHIEVES_MAX_STEPS",
    "GAMES",
    "TRIPEAKS",
    "TRIPEAKS_MAX_STEPS",
    "GameCode",
    "GameName",
    "GameSpec",
    "deal_string_spec",
    "game_spec",
    "register_game",
    "spec_of",
]

#: A game's name (``"tripeaks"``, ``"fortythieves"``, or a registered game's): how the API names
#: a game (agents, configs, records, ``evaluate(game=...)``).
GameName: TypeAlias = str
#: The two letters that start a game's deal codes (``DealCode.game``: ``"TP"``, ``"FT"``):
#: accepted at the edges (deal codes, the command line) and read as the game there.
GameCode: TypeAlias = str

#: Step limit of the registered TriPeaks env (a game has at most 54 legal moves).
TRIPEAKS_MAX_STEPS = 200
#: Step limit of the registered Forty Thieves env (the game itself can go on forever).
FORTYTHIEVES_MAX_STEPS = 1000


def _load(path: str) -> Any:
    """The object ``"package.module:name"`` names, or the module ``"package.module"`` (imported now)."""
    module, _, name = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded


@dataclass(frozen=True)
class GameSpec:
    """One game's row of the table (see the module docstring)."""

    #: The code letters of its deal codes (``TP1-E-AAAAAAB``).
    code: str
    #: Its name (agents, configs, records).
    name: str
    #: How the text calls it.
    title: str
    #: Its registered Gymnasium env id.
    env_id: str
    #: Step limit of the registered env (``max_episode_steps``).
    max_episode_steps: int
    #: Deal-code rule letters accepted -> the canonical letter each is read as.
    rule_letters: Mapping[str, str]
    #: Canonical rule letter -> the rule options it sets (``E``: ``wrap=True``).
    letter_options: Mapping[str, Mapping[str, Any]]
    #: Canonical rule letter -> what it is called (``E``: ``Easy (K and A are adjacent)``).
    letter_names: Mapping[str, str]
    #: The rule options that change the cards dealt (passed to the deal, not only the rules).
    deal_options: tuple[str, ...]
    #: The ``gym.make`` keywords an evaluation config may set (its ``env:`` block).
    env_options: tuple[str, ...]
    #: The word of the counter that says how far a game got (``info[progress_key]``).
    progress_key: str
    #: ``|``-separated sections of its deal string (how a deal string names its game), and what they hold.
    deal_sections: int
    deal_layout: str
    #: The package that holds the game (its folder): :func:`spec_of` finds a row by it.
    package: str
    #: Where the classes live (``"module:name"``), imported on first use.
    deal_path: str
    rules_path: str
    game_path: str
    env_path: str
    batch_path: str | None
    #: The module of the game's :class:`~solitaire_env.common.plugin.GamePlugin` operations.
    plugin_path: str

    @property
    def default_rule(self) -> str:
        """The canonical rule letter of a code when none is asked for (the first one)."""
        return next(iter(self.letter_options))

    def rule_letter(self, rules: object) -> str:
        """The canonical rule letter whose options a rules object has (TriPeaks ``wrap=False``: ``C``)."""
        for letter, options in self.letter_options.items():
            if all(getattr(rules, k) == v for k, v in options.items()):
                return letter
        raise ValueError(f"no {self.title} rule letter has the options of {rules!r}")

    @property
    def salt(self) -> int:
        """The deal stream's salt: the code letters read as a big-endian number (``"TP"`` -> 0x5450)."""
        return int.from_bytes(self.code.encode("ascii"), "big")

    @property
    def deal_class(self) -> Any:
        return _load(self.deal_path)

    @property
    def rules_class(self) -> Any:
        return _load(self.rules_path)

    @property
    def game_class(self) -> Any:
        return _load(self.game_path)

    @property
    def env_class(self) -> Any:
        return _load(self.env_path)

    @property
    def batch_class(self) -> Any:
        """The numba batch env (importing it loads numba); ``None`` for a game without one."""
        return None if self.batch_path is None else _load(self.batch_path)

    @property
    def plugin(self) -> GamePlugin:
        """The game's operations (solve, hint, text, drawing, session): its plugin module."""
        return cast("GamePlugin", _load(self.plugin_path))

    @property
    def rule_options(self) -> dict[str, Any]:
        """The rule options and their defaults, read from the rules class (where they are declared)."""
        return {f.name: f.default for f in dataclasses.fields(self.rules_class)}

    @property
    def entry_point(self) -> str:
        """The env's Gymnasium ``entry_point``."""
        return self.env_path

    @property
    def vector_entry_point(self) -> str | None:
        """The batch env's Gymnasium ``vector_entry_point``."""
        return self.batch_path


TRIPEAKS = GameSpec(
    code="TP",
    name="tripeaks",
    title="TriPeaks",
    env_id="solitaire_env/TriPeaks-v0",
    max_episode_steps=TRIPEAKS_MAX_STEPS,
    rule_letters=MappingProxyType({"E": "E", "C": "C", "N": "E"}),
    letter_options=MappingProxyType({"E": MappingProxyType({"wrap": True}), "C": MappingProxyType({"wrap": False})}),
    letter_names=MappingProxyType({"E": "Easy (K and A are adjacent)", "C": "Classic (K and A are not adjacent)"}),
    deal_options=("jokers",),
    env_options=("draw", "faces", "waste_start", "jokers", "scoring", "max_episode_steps"),
    progress_key="cleared",
    deal_sections=3,
    deal_layout="28 tableau | waste | stock",
    package="solitaire_env.tripeaks",
    deal_path="solitaire_env.tripeaks.deal:TriPeaksDeal",
    rules_path="solitaire_env.tripeaks.rules:TriPeaksRules",
    game_path="solitaire_env.tripeaks.game:TriPeaksGame",
    env_path="solitaire_env.tripeaks.env:TriPeaksEnv",
    batch_path="solitaire_env.tripeaks.batch:TriPeaksVectorEnv",
    plugin_path="solitaire_env.tripeaks.plugin",
)

FORTYTHIEVES = GameSpec(
    code="FT",
    name="fortythieves",
    title="Forty Thieves",
    env_id="solitaire_env/FortyThieves-v0",
    max_episode_steps=FORTYTHIEVES_MAX_STEPS,
    rule_letters=MappingProxyType({"N": "N"}),
    letter_options=MappingProxyType({"N": MappingProxyType({})}),
    letter_names=MappingProxyType({"N": "the app's"}),
    deal_options=(),
    env_options=("foundation_return", "scoring", "max_repeats", "max_episode_steps"),
    progress_key="founded",
    deal_sections=11,
    deal_layout="10 columns | stock",
    package="solitaire_env.fortythieves",
    deal_path="solitaire_env.fortythieves.deal:FortyThievesDeal",
    rules_path="solitaire_env.fortythieves.rules:FortyThievesRules",
    game_path="solitaire_env.fortythieves.game:FortyThievesGame",
    env_path="solitaire_env.fortythieves.env:FortyThievesEnv",
    batch_path="solitaire_env.fortythieves.batch:FortyThievesVectorEnv",
    plugin_path="solitaire_env.fortythieves.plugin",
)


class GameTable(Sequence[GameSpec]):
    """The registered rows, in the order they were registered (a live view: it grows with
    :func:`register_game`)."""

    def __init__(self) -> None:
        self._rows: list[GameSpec] = []
        self._by_key: dict[str, GameSpec] = {}
        self._exact: dict[str, GameSpec] = {}
        self._by_class: dict[type, GameSpec] = {}  # spec_of's answers, by class

    @overload
    def __getitem__(self, index: int) -> GameSpec: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[GameSpec]: ...
    def __getitem__(self, index: int | slice) -> GameSpec | Sequence[GameSpec]:
        return self._rows[index]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[GameSpec]:
        return iter(self._rows)

    def __repr__(self) -> str:
        return f"GameTable({', '.join(g.name for g in self._rows)})"

    def _add(self, spec: GameSpec) -> None:
        for field in ("code", "name", "title", "env_id", "deal_sections", "salt", "package"):
            clash = [g for g in self._rows if getattr(g, field) == getattr(spec, field)]
            if clash:
                raise ValueError(f"game {spec.name!r}: its {field} is already {clash[0].name!r}'s")
        self._rows.append(spec)
        self._by_class.clear()
        for k in (spec.name, spec.code, spec.title):
            self._by_key[_key(k)] = spec
            self._exact[k] = spec


def _key(text: str) -> str:
    return text.strip().lower().replace("-", "").replace("_", "").replace(" ", "")


#: Every registered game, in the order the package lists them (TriPeaks, Forty Thieves, then
#: any game a plug-in registers).
GAMES = GameTable()


class _EnvIds(Mapping[str, str]):
    """Each registered game's env id, by name (a live view of :data:`GAMES`)."""

    def __getitem__(self, name: str) -> str:
        for g in GAMES:
            if g.name == name:
                return g.env_id
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter([g.name for g in GAMES])

    def __len__(self) -> int:
        return len(GAMES)


#: Each registered game's env id, by name.
ENV_IDS: Mapping[str, str] = _EnvIds()


def register_game(spec: GameSpec) -> GameSpec:
    """Add a game's row to the table and its env id to Gymnasium's registry.

    Raises ``ValueError`` when its code, name, title, env id, deal-string sections or package is
    another game's.  Returns the row.
    """
    from gymnasium.envs.registration import register, registry

    GAMES._add(spec)
    if spec.env_id not in registry:
        register(
            id=spec.env_id,
            entry_point=spec.entry_point,
            vector_entry_point=spec.vector_entry_point,
            max_episode_steps=spec.max_episode_steps,
        )
    return spec


def game_spec(game: object) -> GameSpec:
    """The row of a game given by name (``"tripeaks"``), code letters (``"TP"``), title
    (``"Forty Thieves"``) or row; case, blanks, ``-`` and ``_`` do not matter.

    Raises ``ValueError`` naming the games for anything else.
    """
    if isinstance(game, GameSpec):
        return game
    spec = (GAMES._exact.get(game) or GAMES._by_key.get(_key(game))) if isinstance(game, str) else None
    if spec is None:
        want = ", ".join(f"{g.name} ({g.code})" for g in GAMES)
        raise ValueError(f"unknown game {game!r}; want one of {want}")
    return spec


def spec_of(thing: object) -> GameSpec:
    """The row of the game a game, deal, rules, knowledge, env or session object is of (by the
    package its class is defined in).  Raises ``TypeError`` for an object of no game."""
    known = GAMES._by_class.get(type(thing))
    if known is not None:
        return known
    for cls in type(thing).__mro__:
        module = cls.__module__
        for g in GAMES:
            if module == g.package or module.startswith(g.package + "."):
                GAMES._by_class[type(thing)] = g
                return g
    games = " or ".join(g.title for g in GAMES)
    raise TypeError(f"not a {games} object: {type(thing).__name__}")


def deal_string_spec(text: str) -> GameSpec | None:
    """The game a deal string is of, by its number of ``|``-separated sections (``None`` when
    no game's string has that many)."""
    sections = text.count("|") + 1
    for spec in GAMES:
        if spec.deal_sections == sections:
            return spec
    return None


register_game(TRIPEAKS)
register_game(FORTYTHIEVES)
