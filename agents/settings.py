"""The shared base of the configs (eval, hint-bench, train, expert iteration): pydantic models.

:class:`Settings` is a frozen model that refuses unknown keys; :func:`validate` makes one from a
mapping or raises one :class:`ConfigError` (a ``ValueError``) naming every mistake, one line each,
with its dotted path (``ppo.learning_rate: want a number >= 0, got -1``): pydantic's errors told
in short words, an unknown key with "did you mean" its nearest known key.  The number types give
those words (and their bounds to the JSON Schema); :func:`load_config_file` reads a YAML file.
"""

from __future__ import annotations

import difflib
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, NoReturn, TypeVar

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    Strict,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from solitaire_env.games import GAMES, GameName, game_spec

__all__ = ["ConfigError", "Env", "Flag", "Folder", "Fraction", "Game", "NonNegative",
           "OptWhole1", "PathStr", "Positive", "Rules", "Settings", "Whole0", "Whole1", "config_error", "env_problems",
           "fail", "load_config_file", "raise_all", "ray_only", "real", "rule_letter", "validate", "whole"]  # fmt: skip

#: The env keywords an evaluation may set, per game, and each game's rule letters (the first is
#: the default): read from the table of games (:mod:`solitaire_env.games`).


class ConfigError(ValueError):
    """A bad setting: where, what, what is allowed.  ``problems`` holds every mistake found (each
    without the file's name); the message is one line for one, one line per mistake for several."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems) or (message,)


def fail(text: str) -> NoReturn:
    """Inside a validator: one mistake, ``text`` as it is to be read (after the key's path)."""
    raise PydanticCustomError("config", "{text}", {"text": text})


def raise_all(texts: Sequence[str | tuple[str, str]]) -> None:
    """Inside a validator: several mistakes of one key (or of a key of its block: ``(key, text)``), one line each."""
    if texts:
        pairs = [t if isinstance(t, tuple) else ((), t) for t in texts]
        kind = [PydanticCustomError("config", "{text}", {"text": t}) for _, t in pairs]
        details: Any = [{"type": e, "loc": (k,) if k else (), "input": None} for e, (k, _) in zip(kind, pairs)]
        raise ValidationError.from_exception_data("config", details)


class Settings(BaseModel):
    """A block of settings: frozen, every key checked, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    _source: str | None = PrivateAttr(None)

    @property
    def source(self) -> str | None:
        """The file (and flags) the settings came from, for messages."""
        return self._source

    def given(self) -> dict[str, Any]:
        """The keys set to something (not null), as a mapping."""
        return self.model_dump(exclude_none=True)

    @model_validator(mode="before")
    @classmethod
    def _null_block(cls, data: Any) -> Any:
        return {} if data is None else data  # a block written ``ppo:`` (null): its defaults


M = TypeVar("M", bound=Settings)


def validate(model: type[M], data: Any, source: str | None = None, **context: Any) -> M:
    """``model`` from ``data``, or one :class:`ConfigError` naming every mistake (``source``, the
    file, starts the message).  ``context`` reaches the validators (``deep``: also build what the
    settings name, such as the env and the agents)."""
    where = f"{source}: " if source else ""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}want a mapping of settings, got {type(data).__name__}")
    try:
        config = model.model_validate(dict(data), context={"deep": True, **context})
    except ValidationError as error:
        raise config_error([_explain(model, e) for e in error.errors()], where) from None
    config._source = source
    return config


def config_error(found: Sequence[str], where: str = "") -> ConfigError:
    """One error naming every mistake of ``found`` (``where``, such as ``"x.yaml: "``, starts it)."""
    found = list(dict.fromkeys(found))
    if len(found) == 1:
        return ConfigError(where + found[0], found)
    return ConfigError(
        "\n".join([f"{where}{len(found)} mistakes:", *(f"  {k}. {t}" for k, t in enumerate(found, 1))]), found
    )


_SAY = {"dict_type": "want a mapping", "model_type": "want a mapping", "model_attributes_type": "want a mapping",
        "bool_type": "want true or false", "string_type": "want a string", "list_type": "want a list",
        "tuple_type": "want a list", "too_short": "want a non-empty list", "int_type": "want a whole number",
        "float_type": "want a number", "missing": "want a value"}  # fmt: skip


def _explain(model: type[BaseModel], error: Any) -> str:
    """One of pydantic's errors as a line: the dotted path (``loc``), then a short message."""
    loc, kind = list(error["loc"]), error["type"]
    if kind == "config":
        text = error["ctx"]["text"]
    elif kind == "extra_forbidden":
        key, known = loc.pop(), _keys_at(model, loc)
        close = difflib.get_close_matches(str(key), known, n=1)
        text = f"unknown key {key!r}; " + (f"did you mean {close[0]!r}?" if close else f"known: {', '.join(known)}")
    elif kind == "literal_error":
        want = error["ctx"]["expected"].replace("'", "").replace(" or ", ", ")
        text = f"want one of {want}, got {error['input']!r}"
    else:
        msg = _SAY.get(kind) or " ".join(str(error["msg"]).split()).lower()
        text = f"{msg}, got {error['input']!r}"
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return f"{path}: {text}" if path else text


def _keys_at(model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """The keys of the block at ``loc`` (a model's fields), or none if it is not a block."""
    current: Any = model
    for part in loc:
        field = current.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            return []
        args = [field.annotation, *typing.get_args(field.annotation)]
        current = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if current is None:
            return []
    return list(current.model_fields)


def _number(value: Any) -> Any:
    """A number YAML 1.1 left as a string (``3e-4``, ``1e6``: no dot in the mantissa), as a number."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() and abs(number) < 2**63 else number
    return value


def whole(minimum: int) -> BeforeValidator:
    def check(value: Any) -> Any:
        value = _number(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
            fail(f"want a whole number >= {minimum}, got {value!r}")
        return value

    return BeforeValidator(check)


def real(ok: Callable[[float], bool], want: str) -> BeforeValidator:
    def check(value: Any) -> Any:
        value = _number(value)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not ok(value)
        ):
            fail(f"want {want}, got {value!r}")
        return value

    return BeforeValidator(check)


def _text(value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        fail(f"want a path (a string), got {value!r}")
    return value


#: Whole numbers >= 0 or >= 1, numbers > 0, >= 0 or from 0 to 1 (each may be null where the
#: field's default is), a strict true / false, a path.
Whole0 = Annotated[int, Field(ge=0), whole(0)]
Whole1 = Annotated[int, Field(ge=1), whole(1)]
OptWhole1 = Annotated[int | None, Field(ge=1), whole(1)]
Positive = Annotated[float | None, Field(gt=0), real(lambda v: v > 0, "a number > 0")]
NonNegative = Annotated[float | None, Field(ge=0), real(lambda v: v >= 0, "a number >= 0")]
Fraction = Annotated[float | None, Field(ge=0, le=1), real(lambda v: 0 <= v <= 1, "a number from 0 to 1")]
Flag = Annotated[bool, Strict()]
PathStr = Annotated[str | None, BeforeValidator(_text)]
Folder = Annotated[str, BeforeValidator(_text)]


def _game(value: Any) -> GameName:
    try:
        return game_spec(value).name
    except (ValueError, TypeError, AttributeError):
        fail(f"want {' or '.join(f'{g.name} ({g.code.lower()})' for g in GAMES)}, got {value!r}")


Game = Annotated[
    GameName,
    BeforeValidator(_game),
    WithJsonSchema({"enum": [n for g in GAMES for n in (g.name, g.code.lower())], "type": "string"}),
]
Rules = Annotated[str, WithJsonSchema({"enum": ["E", "C", "N"], "type": "string"})]
Env = Annotated[dict[str, Any], BeforeValidator(lambda v: {} if v is None else v)]


def rule_letter(value: Any, info: ValidationInfo) -> str:
    """The game's rule letter (its default for none); nothing to check while the game is wrong."""
    game = info.data.get("game")
    letters = tuple(game_spec(game).letter_options) if game else (GAMES[0].default_rule,)
    if value is None or game is None:
        return letters[0]
    if not isinstance(value, str) or value.strip().upper() not in letters:
        spec = game_spec(game)
        words = [f"{k} ({v.split(' (')[0]})" if len(letters) > 1 else k for k, v in spec.letter_names.items()]
        fail(f"the {game} rule letter is {' or '.join(words)}, got {value!r}")
    return value.strip().upper()


def ray_only(address: str | None, info: ValidationInfo) -> str | None:
    """The ``ray_address`` validator: it applies to ``backend: ray`` only."""
    if address is not None and info.data.get("backend", "ray") != "ray":
        fail(f"applies to backend ray only (backend is {info.data['backend']})")
    return address


def env_problems(env: Mapping[str, Any], game: GameName, allowed: Sequence[str]) -> list[str]:
    """The env keywords that are not ``allowed`` for ``game``, one line each."""
    found = []
    for key in env:
        if key == "wrap":
            found.append("wrap comes from the deal codes' rule letter: set rules: E or C")
        elif key not in allowed:
            other = next((g.name for g in GAMES if g.name != game and key in g.env_options), None)
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
            found.append(f"unknown {game} keyword {key!r}{f' (a {other} option)' if other else ''}{hint}")
    return found


def load_config_file(path: str) -> dict[str, Any]:
    """The mapping of a YAML config file (not yet validated: see :meth:`EvalConfig.from_mapping`)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{path}: not valid YAML{at}: {' '.join(str(problem).split())}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: want a mapping of settings (key: value lines), got {type(data).__name__}")
    return data
