"""The old path of :mod:`solitaire_env.solving`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.solving import *  # noqa: F403
