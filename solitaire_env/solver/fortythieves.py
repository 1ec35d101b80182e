"""The old path of :mod:`solitaire_env.fortythieves.solver`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.fortythieves.solver import *  # noqa: F403
