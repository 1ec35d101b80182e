"""Old import paths only: the solvers, hint and solvability runs.

They are now in the game folders, ``hints.py``, ``solving.py`` and ``solvability.py`` (issue 20);
each module here re-exports the new one.
"""
