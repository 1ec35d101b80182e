"""One hint-benchmark run: positions, labels and every heuristic's moves, deal by deal, in
worker processes or on Ray (the evaluation backends), then the scores and the outputs.

A deal is one task (:class:`HintWorker`): the reference player's positions on it, both labels of
each, and every heuristic's move there.  Everything is seeded from the run's seed (and, inside
the agents and samples, from the public information), so a run's result depends neither on the
backend nor on the number of workers.
"""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

from agents.hintbench.config import HintBenchConfig
from agents.hintbench.heuristics import heuristic, heuristic_choices, heuristic_name
from agents.hintbench.labels import PositionLabels, label_position
from agents.hintbench.positions import Position, position_game, sample_positions
from agents.hintbench.scoring import HeuristicScore, PairedComparison, compare, score_choices
from agents.registry import make_agent
from solitaire_env.common.backends import chunks, run_local, run_ray
from solitaire_env.common.budget import search_budget

__all__ = ["DealOutcome", "HintBenchResult", "HintWorker", "run_hint_bench"]


@dataclass(frozen=True)
class DealOutcome:
    """One deal's labelled positions and each heuristic's moves at them."""

    index: int
    code: str
    labels: tuple[PositionLabels, ...]
    choices: dict[str, tuple[int, ...]]


class HintWorker:
    """The reference player and the heuristics, built once per worker; :meth:`play` does the
    deals of a chunk."""

    def __init__(self, config: HintBenchConfig) -> None:
        from agents.evaluation.specs import parse_agent_spec

        self.config = config
        ref = parse_agent_spec(config.reference, "reference")
        self.reference = make_agent(ref.name, config.game, seed=config.seed, **ref.kwargs)
        self.heuristics = [heuristic(spec, config.game, config.seed) for spec in config.heuristics]

    def play(self, chunk: list[tuple[int, str]]) -> list[DealOutcome]:
        c = self.config
        out = []
        for index, code in chunk:
            positions = sample_positions([code], self.reference, rules=dict(c.env), every=c.every, per_deal=c.per_deal)
            labels = tuple(
                label_position(p, samples=c.samples, max_nodes=c.max_nodes, max_seconds=c.max_seconds, seed=c.seed)
                for p in positions
            )
            choices = {h.name: tuple(heuristic_choices(h, positions)) for h in self.heuristics}
            out.append(DealOutcome(index, code, labels, choices))
        return out

    def close(self) -> None:
        pass


@dataclass
class HintBenchResult:
    """The labelled positions (in deal order), each heuristic's score and the paired comparisons
    of each heuristic with the one of lowest mean regret."""

    config: HintBenchConfig
    labels: list[PositionLabels]
    scores: list[HeuristicScore]
    pairs: list[PairedComparison] = field(default_factory=list)
    #: Positions sampled (more than ``labels`` when ``decided_only`` left some out).
    sampled: int = 0

    @property
    def positions(self) -> list[Position]:
        return [pl.position for pl in self.labels]

    def counts(self) -> dict[str, int]:
        truths = [pl.truth for pl in self.labels]
        return {t: truths.count(t) for t in ("win", "loss", "unknown")}

    def header(self) -> str:
        c = self.config
        n = self.counts()
        kept = (
            f" (of {self.sampled} sampled: those whose every move the solver decided)"
            if c.decided_only and self.sampled != len(self.labels)
            else ""
        )
        return (
            f"{len(self.labels)} positions{kept} from {c.deals} {c.game} deals (rules {c.rules}, seed {c.seed}), along "
            f"{c.reference}'s episodes; full-information labels*: {n['win']} winnable, {n['loss']} lost, "
            f"{n['unknown']} undecided at {search_budget(c.max_nodes, c.max_seconds).describe()} a search; "
            f"fair values over {c.samples} samples each\n"
        )

    def table(self) -> str:
        rows = [("heuristic", "fair agree", "full agree*", "blunders*", "blunder rate* [95%]", "mean regret [95%]")]
        for s in self.scores:
            lo, hi = s.blunder_interval
            mean, mlo, mhi = s.mean_regret
            rows.append((
                s.name,
                _pct(s.fair_agreement),
                _pct(s.full_agreement),
                f"{s.blunder_count}/{s.blunder_counted}",
                f"{_pct(s.blunder_rate)} [{_pct(lo)}, {_pct(hi)}]",
                f"{mean:.4f} [{mlo:.4f}, {mhi:.4f}]" if not math.isnan(mean) else "-",
            ))  # fmt: skip
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
        lines.append("* full information: judged with hindsight from the true deal (the solver reads hidden cards)")
        if self.pairs:
            lines.append("")
            lines.append("paired on the same positions (regret difference a - b; below 0: a better; exact sign test):")
            for p in self.pairs:
                m, lo, hi = p.mean_difference
                lines.append(
                    f"  {p.a} vs {p.b}: {m:+.4f} [{lo:+.4f}, {hi:+.4f}] over {p.positions}, "
                    f"a better {p.a_better}, b better {p.b_better}, p = {p.p_value:.3g}"
                )
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        def score(s: HeuristicScore) -> dict[str, Any]:
            mean, lo, hi = s.mean_regret
            return {
                "heuristic": s.name, "positions": s.positions,
                "fair_agreement": _num(s.fair_agreement), "fair_counted": s.fair_counted,
                "full_information_agreement": _num(s.full_agreement), "full_information_counted": s.full_counted,
                "full_information_blunders": s.blunder_count, "full_information_blunders_counted": s.blunder_counted,
                "full_information_blunder_rate": _num(s.blunder_rate),
                "full_information_blunder_interval": [_num(x) for x in s.blunder_interval],
                "mean_regret": _num(mean), "mean_regret_interval": [_num(lo), _num(hi)],
                "worst": [self._worst(s, i) for i in s.worst(5)],
            }  # fmt: skip

        return {
            "config": self.config.to_dict(),
            "labels": self.counts(),
            "scores": [score(s) for s in self.scores],
            "pairs": [self._pair(p) for p in self.pairs],
        }

    @staticmethod
    def _pair(p: PairedComparison) -> dict[str, Any]:
        return {
            "a": p.a, "b": p.b, "positions": p.positions, "mean_difference": [_num(x) for x in p.mean_difference],
            "a_better": p.a_better, "b_better": p.b_better, "p_value": p.p_value,
        }  # fmt: skip

    def _worst(self, s: HeuristicScore, i: int) -> dict[str, Any]:
        pl = self.labels[i]
        game = position_game(pl.position)
        return {
            **pl.position.to_json(), "move": s.choices[i], "move_name": game.action_name(s.choices[i]),
            "regret": s.regrets[i], "full_information_blunder": s.blunders[i], "best_moves": list(pl.best_moves),
            "best_move_names": [game.action_name(a) for a in pl.best_moves], "board": board_text(game),
        }  # fmt: skip

    def write(self, folder: str) -> None:
        """``results.json``, ``summary.csv``, ``positions.json`` (replayable: deal code, rules,
        actions) and ``labels.csv`` (per position and move: both labels and each heuristic's pick)."""
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "results.json"), "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1)
        with open(os.path.join(folder, "positions.json"), "w", encoding="utf-8") as f:
            json.dump([p.to_json() for p in self.positions], f)
        summary = self.to_json()["scores"]
        with open(os.path.join(folder, "summary.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            keys = [k for k in summary[0] if k != "worst"] if summary else []
            w.writerow(keys)
            for row in summary:
                w.writerow([json.dumps(row[k]) if isinstance(row[k], list) else row[k] for k in keys])
        with open(os.path.join(folder, "labels.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["position", "deal", "moves_played", "action", "full_information", "fair_wins",
                        "fair_losses", "fair_unknown", "fair_value", *(s.name for s in self.scores)])  # fmt: skip
            for i, pl in enumerate(self.labels):
                for m in pl.moves:
                    picks = [int(s.choices[i] == m.action) for s in self.scores]
                    value = "" if m.fair.value is None else f"{m.fair.value:.6f}"
                    w.writerow([i, pl.position.deal, len(pl.position.actions), m.action, m.truth, m.fair.wins,
                                m.fair.losses, m.fair.unknown, value, *picks])  # fmt: skip

    def plot(self, path: str) -> None:
        """Blunder rate and mean regret per heuristic, with their 95 % intervals (matplotlib)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [s.name for s in self.scores]
        fig, (left, right) = plt.subplots(1, 2, figsize=(max(8.0, 1.1 * len(names) + 4), 4.2))
        for ax, values, title in (
            (left, [(s.blunder_rate, *s.blunder_interval) for s in self.scores], "blunder rate (full information)"),
            (right, [s.mean_regret for s in self.scores], "mean regret (fair values)"),
        ):
            mid = [0.0 if math.isnan(v[0]) else v[0] for v in values]
            err = [[max(0.0, m - v[1]) if not math.isnan(v[1]) else 0.0 for m, v in zip(mid, values)],
                   [max(0.0, v[2] - m) if not math.isnan(v[2]) else 0.0 for m, v in zip(mid, values)]]  # fmt: skip
            ax.bar(range(len(names)), mid, yerr=err, capsize=3, color="#4c72b0")
            ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
            ax.set_title(title)
        fig.suptitle(f"hints move by move: {len(self.labels)} {self.config.game} positions")
        fig.tight_layout()
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fig.savefig(path)
        plt.close(fig)


def board_text(game: Any) -> str:
    """The position as the player sees it (the env's ``ansi`` drawing of the public view)."""
    from solitaire_env.games import spec_of

    return spec_of(game).plugin.board(game.public_view())


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def run_hint_bench(config: HintBenchConfig, *, progress: bool = True, workers: int | None = None) -> HintBenchResult:
    """Run the benchmark of ``config`` (outputs not written: see :meth:`HintBenchResult.write`)."""
    from tqdm import tqdm

    from solitaire_env.common.deals import draw_codes

    codes = draw_codes(config.deals, config.seed, config.game, config.rules)
    n = workers or config.workers or os.cpu_count() or 1
    n = max(1, min(n, len(codes)))
    outcomes: list[DealOutcome] = []
    bar = tqdm(total=len(codes), unit="deal", desc="hints", disable=not progress, leave=False)

    def on_chunk(rows: list[DealOutcome]) -> None:
        outcomes.extend(rows)
        bar.update(len(rows))

    work = chunks(codes, n, most=4)
    try:
        if config.backend == "ray":
            run_ray(config, work, config.workers, on_chunk, address=config.ray_address, worker_class=HintWorker)
        else:
            run_local(config, work, n, on_chunk, worker_class=HintWorker)
    finally:
        bar.close()
    outcomes.sort(key=lambda o: o.index)
    names = [heuristic_name(spec) for spec in config.heuristics]
    labelled = [(pl, {n: o.choices[n][k] for n in names}) for o in outcomes for k, pl in enumerate(o.labels)]
    if config.decided_only:  # the positions where the solver decided every move
        labelled = [(pl, picks) for pl, picks in labelled if all(m.truth != "unknown" for m in pl.moves)]
    labels = [pl for pl, _ in labelled]
    scores = [score_choices(name, labels, [picks[name] for _, picks in labelled]) for name in names]
    result = HintBenchResult(config, labels, scores, sampled=sum(len(o.labels) for o in outcomes))
    ranked = [s for s in scores if not math.isnan(s.mean_regret[0])]
    if len(ranked) > 1:
        best = min(ranked, key=lambda s: s.mean_regret[0])
        result.pairs = [compare(s, best) for s in scores if s is not best]
    return result
