"""The hint benchmark's settings, from a YAML file or the command line, checked before any work.

Keys (every one optional):

- ``game`` (``tripeaks`` / ``tp``, ``fortythieves`` / ``ft``; default tripeaks), ``rules`` (the
  deal codes' rule letter: TriPeaks ``E`` or ``C``, Forty Thieves ``N``), ``env`` (rule options
  beyond the letter: TriPeaks ``draw``, ``faces``, ``waste_start``, ``jokers``; Forty Thieves
  ``foundation_return``);
- ``deals`` (how many deal codes, default 50) and ``seed`` (of the codes, the reference player,
  the heuristics and the samples; default 0);
- ``reference`` (the agent whose episodes give the positions, default ``hint``), ``every``
  (keep every k-th position with a choice, default 1) and ``per_deal`` (at most this many
  positions a deal, default no cap);
- ``heuristics``: the heuristics to score (registered agents ``NAME`` / ``NAME:KEY=VALUE,...``,
  or user code ``MODULE:FUNCTION``; default ``random`` and ``hint``);
- ``decided_only`` (score only the positions where the solver decided every move's
  full-information label; default false: undecided labels are counted apart);
- ``samples`` (fair-value samples per position, default 20) and ``max_nodes`` (the solver's
  budget per search, default 200,000 TriPeaks / 100,000 Forty Thieves);
- ``workers``, ``backend`` (``process`` or ``ray``), ``ray_address``, ``out`` (a folder),
  ``plot`` (an image file), as for ``eval``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.evaluation.config import (
    ENV_OPTIONS,
    RULE_LETTERS,
    ConfigError,
    Problems,
    _choice,
    _env,
    _game,
    _int,
    _rules,
    _str,
)
from solitaire_env.games import GameName

__all__ = ["HINT_KEYS", "HintBenchConfig"]

HINT_KEYS = (
    "game",
    "rules",
    "env",
    "deals",
    "seed",
    "reference",
    "every",
    "per_deal",
    "heuristics",
    "decided_only",
    "samples",
    "max_nodes",
    "workers",
    "backend",
    "ray_address",
    "out",
    "plot",
)
#: The files ``out`` receives.
OUT_FILES = ("results.json", "summary.csv", "positions.json", "labels.csv")
#: Env keywords that are not rule options (they change nothing of a position's moves).
NOT_RULES = ("scoring", "max_episode_steps", "max_repeats")
DEFAULT_NODES: dict[GameName, int] = {"tripeaks": 200_000, "fortythieves": 100_000}
BACKENDS = ("process", "ray")


def _specs(value: Any, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if value is None:
        return default
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{key}: want a non-empty list of names (NAME, NAME:KEY=VALUE,... or MODULE:FUNCTION)")
    specs = tuple(v.strip() for v in value)
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        raise ConfigError(f"{key}: {', '.join(map(repr, twice))} listed twice")
    return specs


@dataclass(frozen=True)
class HintBenchConfig:
    """The checked settings of one hint-benchmark run (see the module docstring)."""

    game: GameName = "tripeaks"
    rules: str = "E"
    env: tuple[tuple[str, Any], ...] = ()
    deals: int = 50
    seed: int = 0
    reference: str = "hint"
    every: int = 1
    per_deal: int | None = None
    heuristics: tuple[str, ...] = ("random", "hint")
    decided_only: bool = False
    samples: int = 20
    max_nodes: int = 200_000
    workers: int | None = None
    backend: str = "process"
    ray_address: str | None = None
    out: str | None = None
    plot: str | None = None
    source: str | None = None

    @classmethod
    def from_mapping(cls, data: Any, *, source: str | None = None, build: bool = True) -> HintBenchConfig:
        """Check every setting (all mistakes in one :class:`ConfigError`); with ``build`` also make
        the first deal's game and every heuristic once, so that a bad one fails here."""
        where = f"{source}: " if source else ""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}want a mapping of settings, got {type(data).__name__}")
        problems = Problems(where)
        unknown = [k for k in data if k not in HINT_KEYS]
        if unknown:
            problems.add(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; known: "
                         f"{', '.join(HINT_KEYS)}")  # fmt: skip
        get, check = data.get, problems.check
        game, game_ok = check(_game, get("game"), "", fallback="tripeaks")
        rules, env = RULE_LETTERS[game][0], dict[str, Any]()
        if game_ok:
            rules, _ = check(_rules, get("rules"), game, "", fallback=rules)
            env, _ = check(_env, get("env"), game, "", fallback={})
            for key in env:
                if key in NOT_RULES:
                    problems.add(f"env: {key} is not a rule option (it changes no position); rule options: "
                                 f"{', '.join(k for k in ENV_OPTIONS[game] if k not in NOT_RULES)}")  # fmt: skip
        settings: dict[str, Any] = {}
        for key, minimum, default in (("deals", 1, 50), ("seed", 0, 0), ("every", 1, 1), ("samples", 1, 20)):
            settings[key], _ = check(_int, get(key), key, "", minimum=minimum, default=default, fallback=default)
        settings["per_deal"], _ = check(_int, get("per_deal"), "per_deal", "", minimum=1, default=None)
        settings["max_nodes"], _ = check(
            _int, get("max_nodes"), "max_nodes", "", minimum=1, default=DEFAULT_NODES[game], fallback=1
        )
        settings["workers"], _ = check(_int, get("workers"), "workers", "", minimum=1, default=None)
        backend, backend_ok = check(_choice, get("backend"), "backend", BACKENDS, "", fallback=BACKENDS[0])
        decided_only = get("decided_only", False)
        if not isinstance(decided_only, bool):
            problems.add(f"decided_only: want true or false, got {decided_only!r}")
            decided_only = False
        reference, _ = check(_specs, get("reference"), "reference", ("hint",), fallback=("hint",))
        if len(reference) != 1:
            problems.add(f"reference: want one agent, got {list(reference)}")
        heuristics, _ = check(_specs, get("heuristics"), "heuristics", ("random", "hint"), fallback=())
        paths = {k: check(_str, get(k), k, "")[0] for k in ("ray_address", "out", "plot")}
        if paths["ray_address"] is not None and backend_ok and backend != "ray":
            problems.add(f"ray_address applies to backend ray only (backend is {backend})")
        config = cls(
            game=game, rules=rules, env=tuple(sorted(env.items())), reference=reference[0], heuristics=heuristics,
            decided_only=decided_only,
            backend=backend, source=source, **settings, **paths,
        )  # fmt: skip
        if build and game_ok and not problems.found:
            check(config.check_build)
        problems.raise_any()
        return config

    def check_build(self) -> None:
        """Make the first deal's game and every agent once (a bad option fails here, named)."""
        from agents.hintbench.heuristics import heuristic
        from solitaire_env.common.deals import draw_codes
        from solitaire_env.games import make_game

        problems = Problems()
        code = draw_codes(1, self.seed, self.game, self.rules)[0]
        try:
            make_game(code, dict(self.env))
        except (ValueError, TypeError) as error:
            problems.add(f"env: {' '.join(str(error).split())}")
        for key, spec in [("reference", self.reference), *(("heuristics", h) for h in self.heuristics)]:
            try:
                heuristic(spec, self.game, self.seed)
            except (ValueError, TypeError, ImportError) as error:
                problems.add(f"{key}: {' '.join(str(error).split())}")
        problems.raise_any()

    def check_outputs(self) -> None:
        """``out`` a folder (made if missing) whose files :data:`OUT_FILES` can be written, ``plot``
        an image file matplotlib can write: a one-line :class:`ConfigError` before any work."""
        from agents.evaluation.harness import check_output_paths

        check_output_paths(self.out, OUT_FILES, plot=self.plot)

    def dry_run_text(self) -> str:
        lines = [f"hint benchmark ({self.source or 'flags'}): would run"]
        lines += [f"  {k}: {v}" for k, v in self.to_dict().items()]
        lines.append(f"  workers: {self.workers or 'all cores'} ({self.backend})")
        lines += [f"  out: {self.out}", f"  plot: {self.plot}"]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "rules": self.rules, "env": dict(self.env), "deals": self.deals, "seed": self.seed,
            "reference": self.reference, "every": self.every, "per_deal": self.per_deal,
            "heuristics": list(self.heuristics), "decided_only": self.decided_only, "samples": self.samples,
            "max_nodes": self.max_nodes,
        }  # fmt: skip
