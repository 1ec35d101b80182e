"""The evaluation harness: configs, backends, the evaluation loop and its records.

- :mod:`agents.evaluation.config` (:class:`EvalConfig`, the YAML config),
  :mod:`agents.evaluation.backends` (serial, worker processes, Ray),
  :mod:`agents.evaluation.harness` (:func:`evaluate`, :class:`EvalResult`, the paired tests),
  :mod:`agents.evaluation.records` (replayable episode records).

``from agents.evaluation import evaluate, EvalResult`` (the names of the harness, as before the
harness moved into this package) still works: those names are looked up in
:mod:`agents.evaluation.harness` on first use.
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module("agents.evaluation.harness"), name)
