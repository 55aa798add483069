"""Concrete base mechanisms with exact output laws in t = e^ε (design.md §4, fact 6)."""

from verifydp.mechanisms.concrete import (
    GeometricCount,
    LaplaceCount,
    Mechanism,
    PointRatio,
    RandomizedResponse,
    mechanism_from_json,
)

__all__ = [
    "GeometricCount",
    "LaplaceCount",
    "Mechanism",
    "PointRatio",
    "RandomizedResponse",
    "mechanism_from_json",
]
