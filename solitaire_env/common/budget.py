"""Search budgets: what ``max_nodes`` and ``max_seconds`` mean, and their defaults, in one place.

Every search of the package takes its budget through :func:`search_budget`: ``solve``, ``hint``
(its full-information search and the Forty Thieves planner), the solvability runs, the hint
benchmark's reference search, the ``oracle`` agent and the CLI's ``--max-nodes`` /
``--max-seconds``.

- Neither given: :data:`DEFAULT_MAX_NODES` positions, no time limit.
- ``max_nodes`` alone: that many positions expanded, no time limit.
- ``max_seconds`` alone: that many seconds of search, no node limit.
- Both: whichever runs out first ends the search.

The clock is read between slices of a search (a few milliseconds of work each), so a time
budget ends within a slice of its deadline.

Every result says what ended its search, as ``stopped_by``:

- ``"won"``: a winning line was found;
- ``"proved"``: the search was exhausted, no line wins (a proof);
- ``"nodes"``: the node budget was spent first;
- ``"seconds"``: the time budget was spent first;
- ``"depth"``, ``"table"`` (Forty Thieves only): the search ran out of its own room (the
  depth-first search's depth cap or its table of positions, with every beam run) before either
  budget.

A search that stops on ``nodes``, ``seconds``, ``depth`` or ``table`` is ``intractable``: never a
verdict either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = ["DEFAULT_MAX_NODES", "NO_NODE_LIMIT", "STOPS", "Budget", "StoppedBy", "search_budget"]

#: The node budget of a search given no budget at all (both games: about a second of Forty
#: Thieves search, or far more than the TriPeaks solver needs on almost every deal).
DEFAULT_MAX_NODES = 1_000_000

#: The node count that stands for "no node limit" (a search with a time budget only).
NO_NODE_LIMIT = 10**15

StoppedBy = Literal["won", "proved", "nodes", "seconds", "depth", "table"]

#: Every value of ``stopped_by``, in the order of the module docstring.
STOPS: tuple[StoppedBy, ...] = ("won", "proved", "nodes", "seconds", "depth", "table")


@dataclass(frozen=True)
class Budget:
    """A checked search budget: ``nodes`` (:data:`NO_NODE_LIMIT` when only time limits it) and
    ``seconds`` (``None``: no time limit)."""

    nodes: int
    seconds: float | None = None

    def deadline(self, start: float) -> float | None:
        """The ``time.perf_counter()`` reading at which the time budget runs out (``None``: never)."""
        return None if self.seconds is None else start + self.seconds

    def describe(self) -> str:
        """The budget in words: ``1,000,000 nodes``, ``5 s``, ``5 s or 1,000 nodes``."""
        nodes = None if self.nodes >= NO_NODE_LIMIT else f"{self.nodes:,} nodes"
        if self.seconds is None:
            return nodes or "no limit"
        return f"{self.seconds:g} s" if nodes is None else f"{self.seconds:g} s or {nodes}"


def search_budget(
    max_nodes: int | None = None, max_seconds: float | None = None, *, default_nodes: int = DEFAULT_MAX_NODES
) -> Budget:
    """The :class:`Budget` that ``max_nodes`` and ``max_seconds`` stand for (module docstring).

    ``max_nodes``: a whole number >= 1; ``max_seconds``: a finite number > 0; ``default_nodes``:
    the node budget when neither is given.  A bad value is one ``ValueError`` naming it.
    """
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"max_nodes must be a whole number >= 1, got {max_nodes!r}")
    if max_seconds is not None and (
        isinstance(max_seconds, bool)
        or not isinstance(max_seconds, int | float)
        or not math.isfinite(max_seconds)
        or not max_seconds > 0
    ):
        raise ValueError(f"max_seconds must be a finite number > 0, got {max_seconds!r}")
    unset = default_nodes if max_seconds is None else NO_NODE_LIMIT
    nodes = unset if max_nodes is None else max_nodes
    return Budget(nodes, None if max_seconds is None else float(max_seconds))
