"""The old path of the deal codes and the deals.

Moved in issue 20 (README, "Moved modules"): the codes to :mod:`solitaire_env.common.deals`, the deals
to :mod:`solitaire_env.tripeaks.deal` and :mod:`solitaire_env.fortythieves.deal`; this path keeps working.
"""

from solitaire_env.common.deals import *  # noqa: F403
from solitaire_env.common.deals import MASK64 as MASK64
from solitaire_env.fortythieves.deal import FortyThievesDeal as FortyThievesDeal
from solitaire_env.games import decode_deal as decode_deal
from solitaire_env.tripeaks.deal import TriPeaksDeal as TriPeaksDeal

Deal = TriPeaksDeal | FortyThievesDeal
