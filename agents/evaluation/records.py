"""Episode records (one JSON file per episode) and their replay.

A record holds everything needed to play the episode again and check it: the package
version, the game, the deal code (or the deal string of a hand-made deal), the env's id and
every keyword it was made with (the rule options among them, the resolved rules beside them),
the agent (name, options, seed), the actions, the final score and the outcome (won, cards
cleared / founded, moves, longest chain, env steps, truncated reason).

:class:`Replayer` plays a record's actions in a fresh env and raises :class:`ReplayMismatch`
at the first difference: an action that is not legal, an episode that ends too early or not
at all, another score or outcome, other rules.  A file that is not a record (bad JSON, a
missing or mistyped field) is a :class:`RecordError`.  A record made by another version of
the package replays with a warning (an error with ``strict``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from solitaire_env import __version__
from solitaire_env.games import ENV_IDS as ENV_IDS  # the old import path of the table's env ids
from solitaire_env.games import GAMES, game_spec

__all__ = [
    "PROGRESS_KEY",
    "RECORD_FORMAT",
    "RecordError",
    "ReplayMismatch",
    "ReplayReport",
    "Replayer",
    "episode_record",
    "find_records",
    "load_record",
    "record_filename",
    "record_text",
    "write_record",
]

RECORD_FORMAT = "solitaire_env.episode/1"
#: The outcome's name for the cards that left the layout, per game (from the table of games;
#: ``ENV_IDS`` is the table's, re-exported).
PROGRESS_KEY: dict[str, str] = {g.name: g.progress_key for g in GAMES}
_GAME_NAMES = " or ".join(g.name for g in GAMES)


class RecordError(ValueError):
    """A file that is not a valid episode record (unreadable, bad JSON, a bad field)."""


class ReplayMismatch(Exception):
    """The replay of a record differs from it (the message says where and how)."""


def episode_record(
    result: Any,
    *,
    game: str,
    env_kwargs: dict[str, Any],
    agent: dict[str, Any],
    eval_seed: int | None = None,
    label: str = "",
) -> dict[str, Any]:
    """The record of an :class:`~agents.evaluation.backends.EpisodeResult` played with its actions kept.

    ``agent`` is the spec as a mapping (``{"name": "rollout", "samples": 200}``).
    """
    if result.actions is None:
        raise ValueError("the episode was played without keeping its actions")
    options = {k: v for k, v in agent.items() if k != "name"}
    return {
        "format": RECORD_FORMAT,
        "version": __version__,
        "game": game,
        "env_id": game_spec(game).env_id,
        "deal_code": result.code,
        "env_kwargs": dict(env_kwargs),
        "rules": result.rules,
        "agent": {"name": agent["name"], "options": options, "seed": result.seed, "label": label},
        "eval_seed": eval_seed,
        "deal_index": result.index,
        "actions": list(result.actions),
        "score": result.score,
        "outcome": {
            "won": result.won,
            PROGRESS_KEY[game]: result.progress,
            "moves": result.moves,
            "longest_chain": result.longest_chain,
            "steps": result.steps,
            "truncated_reason": result.truncated_reason,
        },
        "seconds": round(result.seconds, 6),
    }


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "agent"


def record_filename(agent_key: str, index: int, deal: str) -> str:
    """``<agent>/<index>-<code>.json`` (the agent's spec made file-name safe)."""
    return os.path.join(_safe(agent_key), f"{index:05d}-{_safe(deal)}.json")


def write_record(directory: str | os.PathLike[str], agent_key: str, record: dict[str, Any]) -> Path:
    """Write ``record`` under ``directory`` (see :func:`record_filename`); returns the path."""
    deal = record.get("deal_code") or "deal"
    path = Path(directory) / record_filename(agent_key, int(record.get("deal_index") or 0), str(deal))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(record), encoding="utf-8")
    return path


def record_text(record: dict[str, Any]) -> str:
    """The JSON text of a record: one field a line, the actions on one line."""
    marker = "\x00actions\x00"
    text = json.dumps({**record, "actions": marker}, indent=1)
    return text.replace(json.dumps(marker), json.dumps(record["actions"])) + "\n"


def find_records(paths: Iterable[str]) -> list[Path]:
    """The files among ``paths``, and every ``*.json`` under the folders among them (sorted)."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            if not found:
                raise RecordError(f"{p}: no episode records (*.json) in this folder")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise RecordError(f"{p}: No such file or directory")
    return out


def _want(record: dict[str, Any], key: str, types: Any, what: str, where: dict[str, Any] | None = None) -> Any:
    src = record if where is None else where
    if key not in src:
        raise RecordError(f"missing field {key!r}")
    value = src[key]
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise RecordError(f"field {key!r} must be {what}, got {value!r}")
    if not isinstance(value, types):
        raise RecordError(f"field {key!r} must be {what}, got {value!r}")
    return value


def load_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check one record file (:class:`RecordError` if it is not one)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError("not a text file") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    check_record(record)
    assert isinstance(record, dict)
    return record


def check_record(record: Any) -> None:
    """Raise :class:`RecordError` unless ``record`` has every field of a record, well typed."""
    if not isinstance(record, dict):
        raise RecordError(f"want a JSON object, got {type(record).__name__}")
    fmt = _want(record, "format", str, "a string")
    if fmt.split("/")[0] != RECORD_FORMAT.split("/")[0]:
        raise RecordError(f"not an episode record (format {fmt!r}, want {RECORD_FORMAT!r})")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"unsupported record format {fmt!r}; this version reads {RECORD_FORMAT!r}")
    _want(record, "version", str, "a version string")
    game = _want(record, "game", str, _GAME_NAMES)
    if game not in PROGRESS_KEY:
        raise RecordError(f"field 'game' must be {_GAME_NAMES}, got {game!r}")
    if ("deal_code" in record) == ("deal" in record):
        raise RecordError("want exactly one of the fields 'deal_code' and 'deal'")
    _want(record, "deal_code" if "deal_code" in record else "deal", str, "a string")
    _want(record, "env_kwargs", dict, "an object of env keywords")
    actions = _want(record, "actions", list, "a list of actions")
    if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in actions):
        raise RecordError("field 'actions' must be a list of whole numbers >= 0")
    _want(record, "score", int, "a whole number")
    outcome = _want(record, "outcome", dict, "an object")
    for key, types, what in (
        ("won", bool, "true or false"),
        (PROGRESS_KEY[game], int, "a whole number"),
        ("moves", int, "a whole number"),
        ("longest_chain", int, "a whole number"),
        ("steps", int, "a whole number"),
        ("truncated_reason", (str, type(None)), "a string or null"),
    ):
        try:
            _want(record, key, types, what, outcome)
        except RecordError as error:
            raise RecordError(f"outcome: {error}") from None
    if "agent" in record:
        agent = _want(record, "agent", dict, "an object")
        _want(record, "name", str, "a string", agent)
        _want(record, "options", dict, "an object", agent)
        _want(record, "seed", int, "a whole number", agent)


@dataclass
class ReplayReport:
    """A record that replayed exactly: its path, its record, and any warnings (another version)."""

    path: str
    record: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


class Replayer:
    """Replays records in fresh envs (one env per env id and keywords, reset for each record).

    ``rerun_agent``: also rebuild the recorded agent with its options and seed and check that
    it chooses every recorded action (its own determinism).  ``strict``: a record of another
    package version is a :class:`ReplayMismatch` instead of a warning.
    """

    def __init__(self, *, rerun_agent: bool = False, strict: bool = False) -> None:
        self.rerun_agent = rerun_agent
        self.strict = strict
        self._envs: dict[str, Any] = {}

    def _env(self, record: dict[str, Any]) -> Any:
        import gymnasium as gym

        import solitaire_env  # noqa: F401  (registers the envs)

        want = game_spec(record["game"]).env_id
        env_id = record.get("env_id") or want
        if env_id != want:
            raise RecordError(f"field 'env_id' {env_id!r} does not match the game {record['game']!r}")
        key = json.dumps([env_id, record["env_kwargs"]], sort_keys=True)
        if key not in self._envs:
            try:
                self._envs[key] = gym.make(env_id, **record["env_kwargs"])
            except (TypeError, ValueError) as error:
                raise RecordError(f"env_kwargs: {' '.join(str(error).split())}") from None
        return self._envs[key]

    def replay(self, record: dict[str, Any], path: str = "") -> ReplayReport:
        """Replay one (checked) record; :class:`ReplayMismatch` at the first difference."""
        warnings = []
        if record["version"] != __version__:
            text = f"recorded with solitaire-env {record['version']}, replayed with {__version__}"
            if self.strict:
                raise ReplayMismatch(text)
            warnings.append(text)
        game_name = record["game"]
        env = self._env(record)
        options = {"deal_code": record["deal_code"]} if "deal_code" in record else {"deal": record["deal"]}
        try:
            env.reset(options=options)
        except ValueError as error:
            raise RecordError(" ".join(str(error).split())) from None
        base = env.unwrapped
        game = base.game
        if record.get("rules") is not None and asdict(game.rules) != record["rules"]:
            raise ReplayMismatch(f"rules differ: recorded {record['rules']}, replayed {asdict(game.rules)}")
        agent = self._agent(record) if self.rerun_agent else None
        actions = record["actions"]
        info: dict[str, Any] = {}
        terminated = truncated = False
        for i, action in enumerate(actions, 1):
            if terminated or truncated:
                raise ReplayMismatch(f"the episode ended after action {i - 1} of {len(actions)}")
            if agent is not None:
                from agents.base import decide

                chosen = decide(agent, game, base.actions)
                if chosen != action:
                    raise ReplayMismatch(
                        f"agent {agent.name!r} (seed {agent.seed}) chose {chosen} at step {i}, the record has {action}"
                    )
            if action >= base.num_actions or not game.legal_mask() >> action & 1:
                why = game.illegal_reason(action) if action < base.num_actions else "out of range"
                raise ReplayMismatch(f"action {i} of {len(actions)} ({action}) is illegal: {why}")
            _, _, terminated, truncated, info = env.step(action)
        if not (terminated or truncated):
            raise ReplayMismatch(f"the episode did not end after the {len(actions)} recorded actions")
        replayed = {
            "won": bool(game.won),
            PROGRESS_KEY[game_name]: int(game.progress),
            "moves": int(info["moves"]),
            "longest_chain": int(info["longest_chain"]),
            "steps": len(actions),
            "truncated_reason": info.get("truncated_reason", "step_limit") if truncated else None,
        }
        if int(info["score"]) != record["score"]:
            raise ReplayMismatch(f"score differs: recorded {record['score']}, replayed {info['score']}")
        for key, value in replayed.items():
            if record["outcome"][key] != value:
                raise ReplayMismatch(f"{key} differs: recorded {record['outcome'][key]!r}, replayed {value!r}")
        return ReplayReport(path, record, warnings)

    def _agent(self, record: dict[str, Any]) -> Any:
        from agents.registry import make_agent

        spec = record.get("agent")
        if spec is None:
            raise RecordError("no 'agent' field: cannot re-run the agent")
        try:
            agent = make_agent(spec["name"], record["game"], spec["seed"], **spec["options"])
        except (ValueError, TypeError, OSError) as error:
            raise RecordError(f"cannot re-run the agent: {' '.join(str(error).split())}") from None
        agent.seed = spec["seed"]
        agent.reset()
        return agent

    def replay_files(self, paths: Iterable[str | os.PathLike[str]]) -> Iterator[ReplayReport]:
        """Load and replay each file; errors carry the file name (``"<path>: <what>"``)."""
        for p in paths:
            try:
                record = load_record(p)
                yield self.replay(record, str(p))
            except RecordError as error:
                raise RecordError(f"{p}: {error}") from None
            except ReplayMismatch as error:
                raise ReplayMismatch(f"{p}: replay differs: {error}") from None

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()
