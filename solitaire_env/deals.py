"""The old path of :mod:`solitaire_env.common.deals`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.common.deals import *  # noqa: F403
