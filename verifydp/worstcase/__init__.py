"""Exact worst case over all base mechanisms of a class, with certificates (docs/foundations.md)."""

from verifydp.worstcase.engine import (
    AcceptanceWitness,
    Bound,
    MechanismClass,
    WorstCase,
    worst_case_hockey,
    worst_case_ratio,
)
from verifydp.worstcase.region import Region, RegionTooLarge, build_region

__all__ = [
    "AcceptanceWitness",
    "Bound",
    "MechanismClass",
    "Region",
    "RegionTooLarge",
    "WorstCase",
    "build_region",
    "worst_case_hockey",
    "worst_case_ratio",
]
