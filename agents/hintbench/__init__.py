"""Hint heuristics benchmarked move by move.

- :mod:`.positions`: the position set, positions met along a reference player's episodes, each
  stored as a deal code, rule options and the actions from the deal (so that the same positions
  score every heuristic, in any process);
- :mod:`.labels`: two labels per position and legal move: the *full-information* one (the solver
  on the true deal: does the move keep a winnable position winnable?) and the *fair value* (the
  move's win rate over samples of the unseen cards consistent with what the player has seen);
- :mod:`.heuristics`: the heuristics by name (a registered agent or ``module:function``);
- :mod:`.scoring`: per heuristic, agreement with the best fair move, blunder rate, regret, and
  paired comparisons between heuristics on the same positions.
"""
