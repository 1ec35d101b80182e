"""The old path of :mod:`solitaire_env.tripeaks.batch`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.tripeaks.batch import *  # noqa: F403
