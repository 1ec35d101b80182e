"""The old path of :mod:`solitaire_env.hints`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.hints import *  # noqa: F403
