"""The old path of :mod:`solitaire_env.common.result`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.common.result import *  # noqa: F403
