"""The old path of :mod:`solitaire_env.tripeaks.solver`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.tripeaks.solver import *  # noqa: F403
