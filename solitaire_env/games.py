"""The one table of games: every place that lists the games reads it.

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

:func:`decode_deal` and :func:`make_game` go through the table, so a third game is one more row
(and its folder).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from typing import TypeAlias

    from solitaire_env.common.deals import DealCode
    from solitaire_env.fortythieves.deal import FortyThievesDeal
    from solitaire_env.tripeaks.deal import TriPeaksDeal

    Deal: TypeAlias = TriPeaksDeal | FortyThievesDeal

__all__ = [
    "ENV_IDS",
    "FORTYTHIEVES",
    "FORTYTHIEVES_MAX_STEPS",
    "GAMES",
    "GAME_CODES",
    "GAME_NAMES",
    "TRIPEAKS",
    "TRIPEAKS_MAX_STEPS",
    "GameCode",
    "GameName",
    "GameSpec",
    "code_letter",
    "deal_string_spec",
    "decode_deal",
    "game_name",
    "game_spec",
    "make_game",
]

#: A game's name: what agents, configs, records and ``evaluate(game=...)`` take.
GameName = Literal["tripeaks", "fortythieves"]
#: The two letters that start a game's deal codes (``DealCode.game``).
GameCode = Literal["TP", "FT"]

#: Step limit of the registered TriPeaks env (a game has at most 54 legal moves).
TRIPEAKS_MAX_STEPS = 200
#: Step limit of the registered Forty Thieves env (the game itself can go on forever).
FORTYTHIEVES_MAX_STEPS = 1000


def _load(path: str) -> Any:
    """The object ``"package.module:name"`` names (imported now)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class GameSpec:
    """One game's row of the table (see the module docstring)."""

    #: The code letters of its deal codes (``TP1-E-AAAAAAB``).
    code: GameCode
    #: Its name (agents, configs, records).
    name: GameName
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
    #: The rule options that change the cards dealt (passed to the deal, not only the rules).
    deal_options: tuple[str, ...]
    #: The ``gym.make`` keywords an evaluation config may set (its ``env:`` block).
    env_options: tuple[str, ...]
    #: The word of the counter that says how far a game got (``info[progress_key]``).
    progress_key: str
    #: ``|``-separated sections of its deal string (how a deal string names its game), and what they hold.
    deal_sections: int
    deal_layout: str
    #: Where the classes live (``"module:name"``), imported on first use.
    deal_path: str
    rules_path: str
    game_path: str
    env_path: str
    batch_path: str

    @property
    def default_rule(self) -> str:
        """The canonical rule letter of a code when none is asked for (the first one)."""
        return next(iter(self.letter_options))

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
        """The numba batch env (importing it loads numba)."""
        return _load(self.batch_path)

    @property
    def rule_options(self) -> dict[str, Any]:
        """The rule options and their defaults, read from the rules class (where they are declared)."""
        return {f.name: f.default for f in dataclasses.fields(self.rules_class)}

    @property
    def entry_point(self) -> str:
        """The env's Gymnasium ``entry_point``."""
        return self.env_path

    @property
    def vector_entry_point(self) -> str:
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
    deal_options=("jokers",),
    env_options=("draw", "faces", "waste_start", "jokers", "scoring", "max_episode_steps"),
    progress_key="cleared",
    deal_sections=3,
    deal_layout="28 tableau | waste | stock",
    deal_path="solitaire_env.tripeaks.deal:TriPeaksDeal",
    rules_path="solitaire_env.tripeaks.rules:TriPeaksRules",
    game_path="solitaire_env.tripeaks.game:TriPeaksGame",
    env_path="solitaire_env.tripeaks.env:TriPeaksEnv",
    batch_path="solitaire_env.tripeaks.batch:TriPeaksVectorEnv",
)

FORTYTHIEVES = GameSpec(
    code="FT",
    name="fortythieves",
    title="Forty Thieves",
    env_id="solitaire_env/FortyThieves-v0",
    max_episode_steps=FORTYTHIEVES_MAX_STEPS,
    rule_letters=MappingProxyType({"N": "N"}),
    letter_options=MappingProxyType({"N": MappingProxyType({})}),
    deal_options=(),
    env_options=("foundation_return", "scoring", "max_repeats", "max_episode_steps"),
    progress_key="founded",
    deal_sections=11,
    deal_layout="10 columns | stock",
    deal_path="solitaire_env.fortythieves.deal:FortyThievesDeal",
    rules_path="solitaire_env.fortythieves.rules:FortyThievesRules",
    game_path="solitaire_env.fortythieves.game:FortyThievesGame",
    env_path="solitaire_env.fortythieves.env:FortyThievesEnv",
    batch_path="solitaire_env.fortythieves.batch:FortyThievesVectorEnv",
)

#: Every game, in the order the package lists them.
GAMES: tuple[GameSpec, ...] = (TRIPEAKS, FORTYTHIEVES)
#: The names and the code letters, in that order.
GAME_NAMES: tuple[GameName, ...] = tuple(g.name for g in GAMES)
GAME_CODES: tuple[GameCode, ...] = tuple(g.code for g in GAMES)
#: Each game's registered env id, by name.
ENV_IDS: Mapping[GameName, str] = MappingProxyType({g.name: g.env_id for g in GAMES})


def _key(text: str) -> str:
    return text.strip().lower().replace("-", "").replace("_", "").replace(" ", "")


_BY_KEY: dict[str, GameSpec] = {_key(k): g for g in GAMES for k in (g.name, g.code, g.title)}
_EXACT: dict[str, GameSpec] = {k: g for g in GAMES for k in (g.name, g.code)}  # the fast path


def game_spec(game: object) -> GameSpec:
    """The row of a game given by name (``"tripeaks"``), code letters (``"TP"``), title
    (``"Forty Thieves"``) or row; case, blanks, ``-`` and ``_`` do not matter.

    Raises ``ValueError`` naming the games for anything else.
    """
    if isinstance(game, GameSpec):
        return game
    spec = (_EXACT.get(game) or _BY_KEY.get(_key(game))) if isinstance(game, str) else None
    if spec is None:
        want = ", ".join(f"{g.name} ({g.code})" for g in GAMES)
        raise ValueError(f"unknown game {game!r}; want one of {want}")
    return spec


def code_letter(game: object) -> GameCode:
    """The deal-code letters of a game given by name or letters: ``code_letter("tripeaks") == "TP"``."""
    return game_spec(game).code


def game_name(game: object) -> GameName:
    """The name of a game given by name or letters: ``game_name("FT") == "fortythieves"``."""
    return game_spec(game).name


def deal_string_spec(text: str) -> GameSpec:
    """The game a deal string is of, by its number of ``|``-separated sections.

    Raises :class:`~solitaire_env.DealStringError` (saying what each game's string holds) for
    any other number.
    """
    sections = text.count("|") + 1
    for spec in GAMES:
        if spec.deal_sections == sections:
            return spec
    from solitaire_env.common.deals import DealStringError

    shapes = [f"{g.deal_sections} ({g.title}: {g.deal_layout})" for g in GAMES]
    shapes[0] = shapes[0].replace(" (", " sections (", 1)
    raise DealStringError(f"a deal string has {' or '.join(shapes)} separated by '|', got {sections}")


def decode_deal(code: str | DealCode, *, jokers: int = 0) -> Deal:
    """The deal a code stands for (``jokers`` applies to the games whose deal it changes: TriPeaks)."""
    from solitaire_env.common.deals import DealCode, parse_deal_code

    parsed = code if isinstance(code, DealCode) else parse_deal_code(code)
    spec = game_spec(parsed.game)
    options = {"jokers": jokers} if "jokers" in spec.deal_options else {}
    deal: Deal = spec.deal_class.from_seed(parsed.seed, rule=parsed.rule, **options)
    return deal


def make_game(code: str | DealCode, rules: Mapping[str, Any] | None = None) -> Any:
    """The rules-core game a deal code deals, under extra rule options.

    The code's rule letter sets its options (TriPeaks ``E``/``C``: ``wrap``); ``rules`` may hold
    the game's other rule options (TriPeaks ``jokers``, ``draw``, ``waste_start``, ``faces``;
    Forty Thieves ``foundation_return``).  Options that change the cards (``jokers``) go to the
    deal as well.
    """
    from solitaire_env.common.deals import DealCode, parse_deal_code

    options = dict(rules or {})
    parsed = code if isinstance(code, DealCode) else parse_deal_code(code)
    spec = game_spec(parsed.game)
    dealt = {k: options[k] for k in spec.deal_options if k in options}
    deal = spec.deal_class.from_seed(parsed.seed, rule=parsed.rule, **dealt)
    return spec.game_class(deal, spec.rules_class(**spec.letter_options[parsed.rule], **options))
