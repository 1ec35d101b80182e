"""Property tests only Forty Thieves has: the incremental position hash (the repetition rule's key).

The properties every game shares (cards conserved, nothing hidden leaks, undo exact, the mask is
what the rules core accepts, determinism, illegal actions change nothing) are run for Forty
Thieves by ``tests/generic/test_properties.py``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from solitaire_env.fortythieves.deal import FortyThievesDeal
from solitaire_env.fortythieves.game import FortyThievesGame
from solitaire_env.fortythieves.rules import NUM_ACTIONS, FortyThievesRules

SEEDS = st.integers(0, 2**35 - 1)
#: Random choices that pick the moves: mostly a legal move, now and then any action at all.
CHOICES = st.lists(st.integers(0, 2**20), min_size=10, max_size=120)


def pick(mask_bits: int, choice: int) -> int:
    """The action a choice stands for: one in eight is any action, the others a legal one."""
    legal = [a for a in range(NUM_ACTIONS) if mask_bits >> a & 1]
    if choice % 8 == 0 or not legal:
        return (choice >> 3) % NUM_ACTIONS
    return legal[(choice >> 3) % len(legal)]


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, foundation_return=st.booleans(), choices=CHOICES)
def test_position_hash_is_a_function_of_the_position(seed: int, foundation_return: bool, choices: list[int]) -> None:
    """Over random moves and undos, equal positions hash equal and different positions hash apart."""
    game = FortyThievesGame(FortyThievesDeal.from_seed(seed), FortyThievesRules(foundation_return=foundation_return))
    hashes = {game.position_key(): game.position_hash}
    for choice in choices:
        if choice % 6 == 1:
            game.undo()
        else:
            game.try_play(pick(game.legal_mask(), choice))
        assert hashes.setdefault(game.position_key(), game.position_hash) == game.position_hash
    assert len(set(hashes.values())) == len(hashes)
