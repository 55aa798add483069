"""Exact numbers: finite distributions, rational functions of t = e^eps, rigorous brackets."""

from verifydp.exact.roots import PositiveRoots, RootBracket, Uncertified, positive_roots

__all__ = ["PositiveRoots", "RootBracket", "Uncertified", "positive_roots"]
