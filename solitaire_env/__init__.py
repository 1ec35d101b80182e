"""Gymnasium environments for solitaire card games: TriPeaks and Forty Thieves."""
from solitaire_env.deals import DealCodeError, DealStringError, decode_deal, parse_deal_code

__version__ = "0.1.0"
__all__ = ["DealCodeError", "DealStringError", "decode_deal", "parse_deal_code", "__version__"]
