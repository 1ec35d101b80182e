"""The old path of :mod:`solitaire_env.fortythieves.batch_kernels`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.fortythieves.batch_kernels import *  # noqa: F403
