"""The old path of :mod:`solitaire_env.tripeaks.batch_kernels`.

Moved in issue 20 (README, "Moved modules"); this path keeps working.
"""

from solitaire_env.tripeaks.batch_kernels import *  # noqa: F403
