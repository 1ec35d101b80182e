"""The old path of :mod:`solitaire_env.sb3`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.sb3 import *  # noqa: F403
