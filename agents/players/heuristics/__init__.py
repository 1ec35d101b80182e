"""Hint heuristics as agents: public-information policies for TriPeaks and Forty Thieves."""
