"""The hint benchmark's settings (:class:`HintBenchConfig`), from a YAML file or the command line,
checked before any work.  Every key is optional; what each means is its field's description (also
in ``docs/schemas/hint_bench.schema.json``) and docs/hint_benchmark.md."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from agents import settings as cfg
from solitaire_env.games import GameName, game_spec

__all__ = ["HINT_KEYS", "HintBenchConfig"]

#: The files ``out`` receives.
OUT_FILES = ("results.json", "summary.csv", "positions.json", "labels.csv")
#: Env keywords that are not rule options (they change nothing of a position's moves).
NOT_RULES = ("scoring", "max_episode_steps", "max_repeats")
DEFAULT_NODES: dict[GameName, int] = {"tripeaks": 200_000, "fortythieves": 100_000}
_SPEC = "NAME, NAME:KEY=VALUE,... or MODULE:FUNCTION"


def _specs(value: Any) -> tuple[str, ...]:
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list | tuple) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        cfg.fail(f"want a non-empty list of names ({_SPEC})")
    specs = tuple(v.strip() for v in value)
    if twice := sorted({s for s in specs if specs.count(s) > 1}):
        cfg.fail(f"{', '.join(map(repr, twice))} listed twice")
    return specs


class HintBenchConfig(cfg.Settings):
    """The checked settings of one hint-benchmark run."""

    game: cfg.Game = Field("tripeaks", description="tripeaks (tp) or fortythieves (ft)")
    rules: cfg.Rules = Field(None, validate_default=True, description="the deal codes' rule letter: TriPeaks E or C, "
                         "Forty Thieves N")  # fmt: skip
    env: cfg.Env = Field({}, description="rule options beyond the letter: TriPeaks draw, faces, waste_start, jokers; "
                     "Forty Thieves foundation_return")  # fmt: skip
    deals: cfg.Whole1 = Field(50, description="how many deal codes")
    seed: cfg.Whole0 = Field(0, description="the seed of the codes, the reference player, the heuristics, the samples")
    reference: str = Field("hint", description="the agent whose episodes give the positions (NAME[:KEY=VALUE,...])")
    every: cfg.Whole1 = Field(1, description="keep every k-th position with a choice")
    per_deal: cfg.OptWhole1 = Field(None, description="at most this many positions a deal (null: no cap)")
    heuristics: tuple[str, ...] = Field(("random", "hint"), description=f"the heuristics to score: {_SPEC}")
    decided_only: bool = Field(False, strict=True, description="score only the positions where the solver "
                               "decided every move's full-information label (else undecided count apart)")  # fmt: skip
    samples: cfg.Whole1 = Field(20, description="fair-value samples per position")
    max_seconds: cfg.Positive = Field(None, description="the solver's time budget per search (alone: the only "
                                      "limit; with max_nodes: whichever runs out first)")  # fmt: skip
    max_nodes: cfg.OptWhole1 = Field(None, validate_default=True, description="the solver's node budget per search "
                                     "(without max_seconds: 200,000 TriPeaks, 100,000 Forty Thieves)")  # fmt: skip
    workers: cfg.OptWhole1 = Field(None, description="worker processes or Ray actors (null: all cores)")
    backend: Literal["process", "ray"] = Field("process", description="a local process pool, or a Ray cluster")
    ray_address: cfg.PathStr = Field(None, description="backend ray: the cluster to join")
    out: cfg.PathStr = Field(None, description="a folder for results.json, summary.csv, positions.json and labels.csv")
    plot: cfg.PathStr = Field(None, description="an image file of blunder rates and regrets (needs matplotlib)")

    _rules = field_validator("rules", mode="before")(cfg.rule_letter)

    @field_validator("env")
    @classmethod
    def _env(cls, env: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if "game" in info.data:
            rules = [k for k in game_spec(info.data["game"]).env_options if k not in NOT_RULES]
            note = f"is not a rule option (it changes no position); rule options: {', '.join(rules)}"
            cfg.raise_all(
                [
                    f"{k} {note}" if k in NOT_RULES else p
                    for k in env
                    for p in cfg.env_problems({k: 0}, info.data["game"], rules)
                ]
            )
        return dict(sorted(env.items()))

    @field_validator("reference", mode="before")
    @classmethod
    def _reference(cls, value: Any) -> str:
        specs = _specs(value)
        if len(specs) != 1:
            cfg.fail(f"want one agent, got {list(specs)}")
        return specs[0]

    _heuristics = field_validator("heuristics", mode="before")(lambda value: _specs(value))

    @field_validator("max_nodes", mode="before")
    @classmethod
    def _max_nodes(cls, nodes: Any, info: ValidationInfo) -> Any:
        if nodes is None and info.data.get("max_seconds") is None:  # a time budget alone is the only limit
            return DEFAULT_NODES[info.data.get("game", "tripeaks")]
        return nodes

    _ray = field_validator("ray_address")(cfg.ray_only)

    @classmethod
    def from_mapping(cls, data: Any, *, source: str | None = None, build: bool = True) -> HintBenchConfig:
        """Check every setting (all mistakes in one :class:`~agents.settings.ConfigError`); with ``build`` also make
        the first deal's game and every heuristic once, so that a bad one fails here."""
        config = cfg.validate(cls, data, source)
        if build:
            try:
                config.check_build()
            except cfg.ConfigError as error:
                raise cfg.config_error(error.problems, f"{source}: " if source else "") from None
        return config

    def check_build(self) -> None:
        """Make the first deal's game and every agent once (a bad option fails here, named)."""
        from agents.hintbench.heuristics import heuristic
        from solitaire_env.common.deals import draw_codes
        from solitaire_env.dealing import make_game

        found = []
        try:
            make_game(draw_codes(1, self.seed, self.game, self.rules)[0], dict(self.env))
        except (ValueError, TypeError) as error:
            found.append(f"env: {' '.join(str(error).split())}")
        for key, spec in [("reference", self.reference), *(("heuristics", h) for h in self.heuristics)]:
            try:
                heuristic(spec, self.game, self.seed)
            except (ValueError, TypeError, ImportError) as error:
                found.append(f"{key}: {' '.join(str(error).split())}")
        if found:
            raise cfg.config_error(found)

    def check_outputs(self) -> None:
        """``out`` a folder (made if missing) whose files :data:`OUT_FILES` can be written, ``plot``
        an image file matplotlib can write: a one-line :class:`~agents.settings.ConfigError` before any work."""
        from agents.evaluation.harness import check_output_paths

        check_output_paths(self.out, OUT_FILES, plot=self.plot)

    def dry_run_text(self) -> str:
        lines = [f"hint benchmark ({self.source or 'flags'}): would run"]
        lines += [f"  {k}: {v}" for k, v in self.to_dict().items()]
        lines.append(f"  workers: {self.workers or 'all cores'} ({self.backend})")
        lines += [f"  out: {self.out}", f"  plot: {self.plot}"]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"workers", "backend", "ray_address", "out", "plot"})


HINT_KEYS = tuple(HintBenchConfig.model_fields)
