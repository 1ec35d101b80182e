"""Evaluation: every agent on the same N deal codes, with statistics, tables, files and records.

The library half of ``solitaire-env eval`` (the command line only merges flags into the
config and prints)::

    from agents.evaluation.harness import evaluate

    result = evaluate(game="tripeaks", deals=200, seed=0, agents=["random", "oracle"])
    print(result.table())
    result.write("results/")  # results.json, summary.csv, pairs.csv, episodes.csv

- The deal codes are the first N codes drawn from the seed
  (:func:`solitaire_env.common.deals.draw_codes`); every agent plays every code.
- Each episode drives the env: ``gym.make`` with the config's keywords, ``reset`` with the deal
  code, then ``step(decide(agent, env.unwrapped.game, env.unwrapped.actions))`` until the
  episode is terminated or truncated (:mod:`agents.evaluation.backends`).
- Per agent: win rate with its 95% Wilson interval, mean score, cards cleared (TriPeaks) or
  founded (Forty Thieves), longest chain, moves and seconds per game
  (:meth:`EvalResult.summary`).
- Paired comparisons on the same deals: the exact McNemar test on the discordant deals (won by
  one agent and lost by the other), for every pair or for each agent against the best one
  (:func:`mcnemar_exact`, :meth:`EvalResult.pairs`).
- Work split by deal over worker processes (default all cores) or a Ray cluster; agents
  seeded per deal from the eval seed and the code, so a run is reproducible whatever the
  backend and the number of workers.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.evaluation.backends import DealWorker, EpisodeResult, WorkerSetup, agent_seed
from agents.evaluation.config import EvalConfig
from agents.evaluation.records import PROGRESS_KEY, episode_record, write_record
from agents.evaluation.specs import AgentSpec
from agents.settings import ConfigError
from solitaire_env import __version__
from solitaire_env.common.backends import chunks, import_ray, run_local, run_ray
from solitaire_env.common.deals import draw_codes
from solitaire_env.common.numba_cache import numba_cold
from solitaire_env.common.statistics import wilson
from solitaire_env.games import GAMES, game_spec

__all__ = [
    "COMPILE_NOTE",
    "NUMBA_KERNELS",
    "AgentSpec",
    "ConfigError",
    "DealWorker",
    "EpisodeResult",
    "EvalConfig",
    "EvalResult",
    "OutputWriteError",
    "agent_seed",
    "check_outputs",
    "evaluate",
    "mcnemar_exact",
    "numba_cold",
    "numba_cold_agents",
    "plot_win_rates",
    "wilson",
]

#: The games' titles by name (from the table of games).
GAME_TITLES = {g.name: g.title for g in GAMES}
#: The files :meth:`EvalResult.write` puts in the ``out`` folder.
OUT_FILES = ("results.json", "summary.csv", "pairs.csv", "episodes.csv")
#: The two lines under the per-agent table that say what its columns are, per game.
TABLE_LEGEND = {
    "tripeaks": (
        "score, cleared (cards removed, of 28), chain (longest run of removals between draws) and moves",
        "are means per game; 95% CI: the Wilson interval of the win rate; s/game: seconds per game",
        "(wall time in its worker; CPU s/game: the worker's CPU time, every thread of the process)",
    ),
    "fortythieves": (
        "score, founded (cards on the foundations, of 104), chain (longest run of moves between draws)",
        "and moves are means per game; 95% CI: the Wilson interval of the win rate; s/game: seconds per game",
        "(wall time in its worker; CPU s/game: the worker's CPU time, every thread of the process)",
    ),
}


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """The two-sided exact McNemar p-value of ``a_only`` deals won by A alone and ``b_only`` by B alone.

    Under the null hypothesis each discordant deal is won by A or by B with probability 1/2,
    so the smaller count is binomial(n, 1/2): p = min(1, 2 P(X <= min)).  1.0 when no deal is
    discordant.
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"want counts >= 0, got {a_only!r}, {b_only!r}")
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)


@dataclass
class EvalResult:
    """The episodes of a run, in deal order per agent, and what is computed from them."""

    config: EvalConfig
    codes: list[str]
    episodes: dict[str, list[EpisodeResult]]
    labels: dict[str, str]
    sees_hidden: dict[str, bool]
    wall_seconds: float
    workers: int
    records: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def progress_key(self) -> str:
        """``cleared`` (TriPeaks) or ``founded`` (Forty Thieves)."""
        return PROGRESS_KEY[self.config.game]

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per agent: deals, wins, win rate, its 95% Wilson interval, means of score, cards
        cleared / founded, longest chain, moves, steps, seconds per game, truncations."""
        out = {}
        for key, rows in self.episodes.items():
            n = len(rows)
            wins = sum(r.won for r in rows)
            lo, hi = wilson(wins, n)

            def mean(values: Sequence[float], n: int = n) -> float | None:
                return sum(values) / n if n else None

            out[key] = {
                "agent": key,
                "label": self.labels.get(key, ""),
                "deals": n,
                "wins": wins,
                "win_rate": wins / n if n else 0.0,
                "ci95": [lo, hi],
                "mean_score": mean([r.score for r in rows]),
                f"mean_{self.progress_key}": mean([r.progress for r in rows]),
                "mean_longest_chain": mean([r.longest_chain for r in rows]),
                "mean_moves": mean([r.moves for r in rows]),
                "mean_steps": mean([r.steps for r in rows]),
                "mean_seconds": mean([r.seconds for r in rows]),
                "mean_cpu_seconds": mean([r.cpu_seconds for r in rows]),
                "truncated": sum(r.truncated_reason is not None for r in rows),
            }
        return out

    def best(self) -> str:
        """The agent with the highest win rate among those that play fair (not the oracle);
        on a tie the most cards cleared / founded, then the first listed.  Among all agents if
        every one sees hidden cards."""
        keys = list(self.episodes)
        fair = [k for k in keys if not self.sees_hidden.get(k)] or keys

        def rank(k: str) -> tuple[int, int, int]:
            rows = self.episodes[k]
            return sum(r.won for r in rows), sum(r.progress for r in rows), -fair.index(k)

        return max(fair, key=rank)

    def pairs(self, compare: str | None = None) -> list[dict[str, Any]]:
        """Paired comparisons on the same deals: ``"all"`` pairs in listed order, or ``"best"``:
        each agent against :meth:`best` (default: the config's ``compare``)."""
        compare = compare or self.config.compare
        keys = list(self.episodes)
        if compare == "all":
            todo = [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]
        else:
            best = self.best()
            todo = [(best, k) for k in keys if k != best]
        out = []
        for a, b in todo:
            both = a_only = b_only = neither = 0
            for ra, rb in zip(self.episodes[a], self.episodes[b]):
                assert ra.code == rb.code
                if ra.won and rb.won:
                    both += 1
                elif ra.won:
                    a_only += 1
                elif rb.won:
                    b_only += 1
                else:
                    neither += 1
            n = both + a_only + b_only + neither
            out.append(
                {
                    "a": a,
                    "b": b,
                    "deals": n,
                    "both": both,
                    "a_only": a_only,
                    "b_only": b_only,
                    "neither": neither,
                    "win_rate_diff": (a_only - b_only) / n if n else 0.0,
                    "p_value": mcnemar_exact(a_only, b_only),
                }
            )
        return out

    # ----------------------------------------------------------------------- text

    def header(self) -> str:
        c = self.config
        spec = game_spec(c.game)
        what = spec.title
        if len(spec.letter_names) > 1:  # a game with one rule letter does not name it
            what += f", rules {c.rules}: {spec.letter_names[c.rules]}"
        if c.env:
            what += "; " + ", ".join(f"{k} {v}" for k, v in c.env.items())
        first = f"codes {self.codes[0]}{' ...' if len(self.codes) > 1 else ''} " if self.codes else ""
        return (
            f"{what}\n{len(self.codes)} deals: {first}drawn from numpy default_rng({c.seed}) by random_code; "
            f"{len(self.episodes)} agent(s); {self.workers} worker(s), backend {c.backend}\n"
        )

    def table(self) -> str:
        """The per-agent table, the paired comparisons and the wall time, as text."""
        s = self.summary()
        progress = self.progress_key
        head = ["agent", "deals", "wins", "win rate", "95% CI (Wilson)", "score", progress, "chain", "moves"]
        rows: list[tuple[str, ...]] = [(*head, "s/game", "CPU s/game")]

        def fmt(value: float | None, spec: str) -> str:
            return "-" if value is None else format(value, spec)

        for key, d in s.items():
            lo, hi = d["ci95"]
            name = key + (f" ({d['label']})" if d["label"] else "")
            rows.append(
                (
                    name,
                    str(d["deals"]),
                    str(d["wins"]),
                    f"{100 * d['win_rate']:.2f}%",
                    f"[{100 * lo:.2f}%, {100 * hi:.2f}%]",
                    fmt(d["mean_score"], ".1f"),
                    fmt(d[f"mean_{progress}"], ".2f"),
                    fmt(d["mean_longest_chain"], ".2f"),
                    fmt(d["mean_moves"], ".1f"),
                    fmt(d["mean_seconds"], ".4f"),
                    fmt(d["mean_cpu_seconds"], ".4f"),
                )
            )
        lines = _align(rows)
        lines += TABLE_LEGEND[self.config.game]
        pairs = self.pairs()
        if pairs:
            kind = "every pair" if self.config.compare == "all" else f"each agent against the best, {self.best()}"
            lines += ["", f"paired comparison on the same deals ({kind}; exact McNemar test, two-sided):"]
            prow = [("A", "B", "both won", "A only", "B only", "neither", "A - B", "p-value")]
            for p in pairs:
                prow.append(
                    (
                        p["a"],
                        p["b"],
                        str(p["both"]),
                        str(p["a_only"]),
                        str(p["b_only"]),
                        str(p["neither"]),
                        f"{100 * p['win_rate_diff']:+.2f}%",
                        _p_text(p["p_value"]),
                    )
                )
            lines += _align(prow)
        n = len(self.codes) * len(self.episodes)
        lines += [
            "",
            f"wall time {self.wall_seconds:.1f} s ({1000 * self.wall_seconds / n if n else 0:.2f} ms per game)",
        ]
        return "\n".join(lines) + "\n"

    # ----------------------------------------------------------------------- files

    def to_dict(self) -> dict[str, Any]:
        """Everything: the settings, the codes, the summary, the pairs and every episode (no actions)."""
        return {
            "version": __version__,
            "config": self.config.to_dict(),
            "codes_from": f"numpy.random.default_rng({self.config.seed}) + solitaire_env.common.deals.random_code",
            "workers": self.workers,
            "wall_seconds": self.wall_seconds,
            "best": self.best(),
            "summary": self.summary(),
            "pairs": self.pairs(),
            "episodes": [_episode_row(r, self.progress_key) for rows in self.episodes.values() for r in rows],
        }

    def write(self, directory: str | os.PathLike[str]) -> list[Path]:
        """``results.json`` (:meth:`to_dict`), ``summary.csv``, ``pairs.csv`` and ``episodes.csv``."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        data = self.to_dict()
        paths = [out / name for name in OUT_FILES]
        paths[0].write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        summary = []
        for d in data["summary"].values():
            row = dict(d)
            row["ci95_low"], row["ci95_high"] = row.pop("ci95")
            summary.append(row)
        _write_csv(paths[1], summary)
        _write_csv(paths[2], data["pairs"], ["a", "b", "deals", "both", "a_only", "b_only", "neither"])
        _write_csv(paths[3], data["episodes"])
        return paths


def _episode_row(r: EpisodeResult, progress: str) -> dict[str, Any]:
    return {
        "agent": r.agent,
        "deal_index": r.index,
        "deal_code": r.code,
        "seed": r.seed,
        "won": r.won,
        "score": r.score,
        progress: r.progress,
        "longest_chain": r.longest_chain,
        "moves": r.moves,
        "steps": r.steps,
        "truncated_reason": r.truncated_reason,
        "seconds": r.seconds,
        "cpu_seconds": r.cpu_seconds,
    }


def _write_csv(path: Path, rows: list[dict[str, Any]], fields: list[str] | None = None) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else (fields or []))
        writer.writeheader()
        writer.writerows(rows)


def _align(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for i, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def _p_text(p: float) -> str:
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


# --------------------------------------------------------------------------- plot


def check_plot_available() -> None:
    """A one-line error (``ConfigError``) if matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError(
            "plot needs matplotlib: pip install 'solitaire-env[plot]' (or pip install 'matplotlib>=3.7')"
        ) from None


def plot_format(path: str | os.PathLike[str]) -> str:
    """The image format of ``path`` (its extension, lower case), checked before anything runs.

    A one-line :class:`ConfigError` when matplotlib is missing, when the name has no extension
    or one matplotlib does not know, or when matplotlib cannot write that format here (a tiny
    figure with a title is written to memory in it: ``pgf``, for one, needs LaTeX).
    """
    check_plot_available()
    from matplotlib.backend_bases import FigureCanvasBase

    known = sorted(FigureCanvasBase.get_supported_filetypes())
    fmt = Path(path).suffix.lower().lstrip(".")
    if not fmt:
        raise ConfigError(
            f"plot: {os.fspath(path)!r} has no extension; want a file name ending in .png, .svg, .pdf ..."
        )
    if fmt not in known:
        raise ConfigError(
            f"plot: matplotlib cannot write .{fmt} files ({os.fspath(path)!r}); want one of {', '.join(known)}"
        )
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    FigureCanvasAgg(fig)
    fig.add_subplot().set_title("win rate")
    try:
        fig.savefig(io.BytesIO(), format=fmt)
    except Exception as error:  # whatever the format's writer raises: it cannot write here
        raise ConfigError(f"plot: matplotlib cannot write .{fmt} files here: {' '.join(str(error).split())}") from None
    return fmt


def check_outputs(config: EvalConfig) -> None:
    """Check every output of ``config`` before any game is played: a one-line :class:`ConfigError`.

    ``out`` and ``record`` must be folders (or not exist yet: they are made, with their missing
    parents), the files :data:`OUT_FILES` in ``out`` writable, ``plot`` a file of an image
    format matplotlib can write here (see :func:`plot_format`; its missing folders are made too).
    Nothing is written or created.
    """
    check_output_paths(config.out, OUT_FILES, record=config.record, plot=config.plot)


def check_output_paths(
    out: str | None, out_files: Sequence[str], *, record: str | None = None, plot: str | None = None
) -> None:
    """:func:`check_outputs` for any run: ``out`` a folder and its ``out_files`` writable,
    ``record`` a folder, ``plot`` an image file of a format matplotlib writes."""
    from solitaire_env.common.outputs import output_path_problem

    outputs: list[tuple[str, str, bool]] = []
    if out is not None:
        outputs.append(("out", out, True))
        outputs += [("out", os.path.join(out, name), False) for name in out_files]
    if record is not None:
        outputs.append(("record", record, True))
    if plot is not None:
        outputs.append(("plot", plot, False))
    for key, path, folder in outputs:
        problem = output_path_problem(path, folder=folder)
        if problem is not None:
            raise ConfigError(f"{key}: {path!r} {problem}")
    if plot is not None:
        plot_format(plot)


#: The numba kernels an agent compiles on its first call, by (agent name, game): the module and
#: the functions it calls from Python.  :func:`numba_cold_agents` looks them up in numba's
#: on-disk cache (``solitaire-env eval`` then says, on stderr, that the first games will compile).
NUMBA_KERNELS: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("rollout", "tripeaks"): (
        "agents.players.playouts",
        ("fill_columns", "position_plans", "sample_counts", "sample_two"),
    ),
    ("pimc", "tripeaks"): ("solitaire_env.tripeaks.solver", ("depth_first_search",)),
    ("oracle", "tripeaks"): ("solitaire_env.tripeaks.solver", ("depth_first_search",)),
    ("lookahead", "fortythieves"): ("agents.players.heuristics.fortythieves_kernels", ("turn_search",)),
}
#: The line ``solitaire-env eval`` prints on stderr when :func:`numba_cold_agents` names some.
COMPILE_NOTE = "compiling the numba kernels of {agents} on first use (about 10 s; cached after)"


def numba_cold_agents(specs: Sequence[AgentSpec], game: str) -> list[str]:
    """The keys of the agents among ``specs`` whose numba kernels are not in the cache yet (see
    :data:`NUMBA_KERNELS`)."""
    cold = []
    for spec in specs:
        kernels = NUMBA_KERNELS.get((spec.name, game))
        if kernels is not None and numba_cold(*kernels):
            cold.append(spec.key)
    return cold


class OutputWriteError(ValueError):
    """The games were played but an output could not be written (one line naming each failure).

    ``result`` is the finished :class:`EvalResult` (nothing is lost: write it again elsewhere),
    ``written`` the outputs that were written.
    """

    def __init__(self, message: str, result: EvalResult, written: list[str]) -> None:
        super().__init__(message)
        self.result = result
        self.written = written


def plot_win_rates(result: EvalResult, path: str | os.PathLike[str]) -> Path:
    """A horizontal bar per agent: its win rate, the 95% Wilson interval as an error bar.
    Missing parent folders of ``path`` are made; its extension names the format."""
    fmt = plot_format(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.summary()
    keys = list(s)[::-1]  # the first agent on top
    rates = [100 * s[k]["win_rate"] for k in keys]
    err = [
        [100 * (s[k]["win_rate"] - s[k]["ci95"][0]) for k in keys],
        [100 * (s[k]["ci95"][1] - s[k]["win_rate"]) for k in keys],
    ]
    names = [k + (f"\n({s[k]['label']})" if s[k]["label"] else "") for k in keys]
    colors = ["0.6" if result.sees_hidden.get(k) else "tab:blue" for k in keys]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(keys) + 1.5))
    ax.barh(range(len(keys)), rates, xerr=err, color=colors, capsize=4)
    ax.set_yticks(range(len(keys)), names)
    ax.set_xlabel("win rate, % (95% Wilson interval)")
    c = result.config
    spec = game_spec(c.game)
    rules = f", rules {c.rules}" if len(spec.letter_names) > 1 else ""
    ax.set_title(f"{spec.title}{rules}: {len(result.codes)} deals, seed {c.seed}")
    ax.set_xlim(0, max(100.0, *(r + e for r, e in zip(rates, err[1]))) if rates else 100)
    fig.tight_layout()
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, format=fmt)
    finally:
        plt.close(fig)
    return out


# --------------------------------------------------------------------------- the run


def evaluate(
    config: EvalConfig | Mapping[str, Any] | None = None,
    /,
    *,
    progress: bool = False,
    write: bool = True,
    on_result: Callable[[EvalResult], None] | None = None,
    **settings: Any,
) -> EvalResult:
    """Run an evaluation: every agent of ``config`` on the same deal codes.

    ``config`` is an :class:`EvalConfig`, a mapping of settings, or ``None`` with the settings
    as keywords (``evaluate(game="tripeaks", deals=100, agents=["random"])``); mappings and
    keywords are validated by :meth:`EvalConfig.from_mapping`.  ``progress`` shows a tqdm bar
    on stderr.  With ``write`` the config's ``record`` folder gets one JSON per episode, its
    ``out`` folder the results files and ``plot`` the win-rate figure: every one of them is
    checked before the first game (:func:`check_outputs`), and missing folders are made.
    ``on_result`` is called with the result once every game is played, before ``out`` and
    ``plot`` are written (the command line prints its table there, so that a failed write
    cannot take the table with it).  An output that fails after the games (a full disk, a
    folder removed meanwhile) does not stop the others: :class:`OutputWriteError` then names
    every failure and carries the finished result.
    """
    from solitaire_env.solvability import default_workers

    if config is None or isinstance(config, Mapping):
        config = EvalConfig.from_mapping({**(config or {}), **settings})
    elif settings:
        raise TypeError("give either an EvalConfig or settings as keywords, not both")
    if write:
        check_outputs(config)
    codes = draw_codes(config.deals, config.seed, config.code_game, config.rules)
    recording = write and config.record is not None
    setup = WorkerSetup(
        game=config.game,
        env_id=config.env_id,
        env_kwargs=tuple(config.env.items()),
        agents=config.agents,
        seed=config.seed,
        keep_actions=recording,
    )
    from agents.registry import agent_class

    classes = {spec.key: agent_class(spec.name, config.game) for spec in config.agents}
    specs = {spec.key: spec for spec in config.agents}
    results: dict[str, list[EpisodeResult | None]] = {k: [None] * len(codes) for k in classes}
    written = 0
    record_error: OSError | None = None  # the first record that failed: recording stops there
    bar = tqdm(total=len(codes), unit="deal", desc="evaluating", file=sys.stderr, disable=not progress, smoothing=0.05)

    def on_chunk(rows: list[EpisodeResult]) -> None:
        nonlocal written, record_error
        for row in rows:
            results[row.agent][row.index] = row
            if recording and record_error is None:
                assert config.record is not None
                record = episode_record(
                    row,
                    game=config.game,
                    env_kwargs=config.env_kwargs,
                    agent=specs[row.agent].to_dict(),
                    eval_seed=config.seed,
                    label=classes[row.agent].label,
                )
                try:
                    write_record(config.record, row.agent, record)
                except OSError as error:  # the games go on; reported with the other outputs
                    record_error = error
                    continue
                written += 1
        bar.update(len({row.index for row in rows}))

    if config.backend == "ray":
        import_ray()  # a missing ray fails before anything starts
    start = time.perf_counter()
    try:
        if config.backend == "ray":
            work = chunks(codes, config.workers or 1)
            workers = run_ray(
                setup, work, config.workers, on_chunk, address=config.ray_address, worker_class=DealWorker
            )
        else:
            workers = max(1, min(config.workers or default_workers(), len(codes)))
            run_local(setup, chunks(codes, workers), workers, on_chunk, worker_class=DealWorker)
    finally:
        bar.close()
    wall = time.perf_counter() - start
    episodes: dict[str, list[EpisodeResult]] = {}
    for key, rows in results.items():
        missing = [i for i, r in enumerate(rows) if r is None]
        if missing:  # cannot happen: every chunk comes back or the run raises
            raise RuntimeError(f"agent {key!r}: no result for {len(missing)} deal(s)")
        episodes[key] = [r for r in rows if r is not None]
    result = EvalResult(
        config=config,
        codes=codes,
        episodes=episodes,
        labels={k: c.label for k, c in classes.items()},
        sees_hidden={k: c.sees_hidden for k, c in classes.items()},
        wall_seconds=wall,
        workers=workers,
        records=written,
    )
    if on_result is not None:
        on_result(result)
    if write:
        _write_outputs(result, record_error)
    return result


def _os_text(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename is not None else ""
        return f"{where}{error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__


def _write_outputs(result: EvalResult, record_error: OSError | None) -> None:
    """Write ``out`` and ``plot``; every failure (and a record that failed during the games)
    goes into one :class:`OutputWriteError` after the others were tried."""
    config = result.config
    failed: list[str] = []
    written: list[str] = []
    if record_error is not None:
        total = len(result.codes) * len(result.episodes)
        failed.append(f"record {config.record!r}: {_os_text(record_error)} ({result.records} of {total} written)")
    elif config.record is not None:
        written.append(f"record {config.record!r}")
    if config.out is not None:
        try:
            result.write(config.out)
            written.append(f"out {config.out!r}")
        except OSError as error:
            failed.append(f"out {config.out!r}: {_os_text(error)}")
    if config.plot is not None:
        try:
            plot_win_rates(result, config.plot)
            written.append(f"plot {config.plot!r}")
        except (OSError, ValueError, RuntimeError) as error:
            failed.append(f"plot {config.plot!r}: {_os_text(error)}")
    if failed:
        done = f"; written: {', '.join(written)}" if written else ""
        raise OutputWriteError(f"every game was played, but writing failed: {'; '.join(failed)}{done}", result, written)
