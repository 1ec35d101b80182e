"""Training: MaskablePPO from a YAML config and everything the run uses.

- :mod:`agents.training.train` (the run), :mod:`~agents.training.config` (the YAML config),
  :mod:`~agents.training.callbacks`, :mod:`~agents.training.evaluations`,
  :mod:`~agents.training.outputs`, :mod:`~agents.training.signals`;
- the warm start :mod:`~agents.training.pretrain` on the search's move values
  (:mod:`~agents.training.move_values`), with deal symmetries (:mod:`~agents.training.symmetry`);
- the networks' inputs and heads: :mod:`~agents.training.afterstate`,
  :mod:`~agents.training.features`, :mod:`~agents.training.advice`;
- reward shaping: :mod:`~agents.training.shaping`.

``solitaire-env train CONFIG`` is the way in; ``from agents.training.train import train`` the function.
"""
