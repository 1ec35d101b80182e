"""The old path of :mod:`solitaire_env.common.cards`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.common.cards import *  # noqa: F403
