"""The old path of :mod:`solitaire_env.fortythieves.batch`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.fortythieves.batch import *  # noqa: F403
