"""``random``: a uniformly random legal move, for both games (the floor of every table)."""

from __future__ import annotations

from agents.base import Agent, PublicState


class RandomAgent(Agent):
    """A uniformly random legal action, drawn from a generator seeded by the agent's seed and
    the public information (so the same position always gets the same move)."""

    name = "random"
    games = ("tripeaks", "fortythieves")

    def act(self, state: PublicState) -> int:
        legal = state.legal
        return legal[int(state.rng(self.seed).integers(len(legal)))]
