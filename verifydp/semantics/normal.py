"""Φ, 1 − Φ and Φ⁻¹ on any exact number or bracket, for the semantics modules.

Thin coercions around the package's one normal cdf, `verifydp.exact.special.ncdf`
(docs/foundations.md#rigorous-brackets).
"""

from __future__ import annotations

from verifydp.exact.barith import B, Num, neg
from verifydp.exact.interval import Bracket
from verifydp.exact.special import ncdf_hull, ncdf_inv

__all__ = ["phi", "phi_bar", "phi_inv"]


def phi(x: Num) -> Bracket:
    """Φ(x) (increasing: the hull of Φ at the two ends)."""
    return ncdf_hull(B(x))


def phi_bar(x: Num) -> Bracket:
    """1 − Φ(x) = Φ(−x) (no cancellation in the upper tail)."""
    return phi(neg(x))


def phi_inv(p: Num) -> Bracket:
    """Φ⁻¹(p) for 0 < p < 1."""
    return ncdf_inv(B(p))
