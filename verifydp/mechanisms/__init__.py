"""Concrete base mechanisms with exact output laws in t = e^ε (docs/foundations.md#fact-6)."""

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
