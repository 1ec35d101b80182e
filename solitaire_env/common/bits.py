"""Bit masks of actions or slots (bit ``k`` set: member ``k``)."""

from __future__ import annotations


def set_bits(mask: int) -> list[int]:
    """The indices of the bits set in ``mask`` (a non-negative int), ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
