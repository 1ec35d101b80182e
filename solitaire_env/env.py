"""The old path of :mod:`solitaire_env.common.env`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.common.env import *  # noqa: F403
