"""The evaluation harness: configs, backends, the evaluation loop and its records.

- :mod:`agents.evaluation.config` (:class:`~agents.evaluation.config.EvalConfig`, the YAML config),
- :mod:`agents.evaluation.backends` (serial, worker processes, Ray),
- :mod:`agents.evaluation.harness` (:func:`~agents.evaluation.harness.evaluate`,
  :class:`~agents.evaluation.harness.EvalResult`, the paired tests),
- :mod:`agents.evaluation.records` (replayable episode records).

``agents.evaluate`` and ``agents.EvalResult`` are the public names of the harness.
"""
