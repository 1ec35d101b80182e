"""Shared code that no game owns: cards, deal codes, the env and batch-env bases, the observer base,
solve results, statistics, output checks.  It imports no game."""
