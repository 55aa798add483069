"""Sampling designs: exact, symmetry-reduced laws of the sample as count vectors.

The brute-force oracle used by the tests lives in `verifydp.designs.naive`.
"""

from verifydp.designs.allocation import LinearSizeRule, ProportionalWOR, Rounding, round_allocation
from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import SRSWOR, SRSWR, Poisson, RandomSizeWOR
from verifydp.designs.stratified import StratifiedFixed, StratifiedProportional

__all__ = [
    "Design",
    "DesignError",
    "LinearSizeRule",
    "Poisson",
    "ProportionalWOR",
    "RandomSizeWOR",
    "Rounding",
    "SRSWOR",
    "SRSWR",
    "StratifiedFixed",
    "StratifiedProportional",
    "round_allocation",
]
