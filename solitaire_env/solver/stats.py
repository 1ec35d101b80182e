"""The old path of :mod:`solitaire_env.solvability`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.solvability import *  # noqa: F403
