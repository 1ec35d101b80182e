"""The players: every registered agent (``agents.registry`` finds them here).

- :mod:`agents.players.random`: uniform over the legal moves;
- :mod:`agents.players.heuristics`: the hint heuristics of each game as agents;
- :mod:`agents.players.rollout` and :mod:`agents.players.playouts` (its numba playouts):
  the fair TriPeaks search on sampled fillings of the unseen cards;
- :mod:`agents.players.pimc`: perfect-information Monte Carlo (determinized search);
- :mod:`agents.players.oracle`: the solver on the true deal (not fair: an upper bound);
- :mod:`agents.players.ppo`: a trained MaskablePPO model as an agent.
"""
