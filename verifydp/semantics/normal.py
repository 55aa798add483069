"""The standard normal cdf Φ and its inverse as rigorous brackets.

Φ at a rational point is `verifydp.claims.must_pa.ncdf_bracket` (exact fixed-point series,
reused, not rewritten); Φ is increasing, so Φ of a bracket is the hull of Φ at its ends.
Φ⁻¹(p) is located by bisection on dyadic rationals: z_lo < Φ⁻¹(p) < z_hi is certified by
Φ(z_lo) < p < Φ(z_hi) with disjoint brackets.
"""

from __future__ import annotations

from fractions import Fraction

from verifydp.claims.must.amplification import ncdf_bracket
from verifydp.exact.interval import Bracket
from verifydp.semantics.barith import B, Num, neg

# Bisection stops at this width; every caller only needs a few dozen correct digits.
_INV_BITS = 80
_Z_MAX = Fraction(40)  # |Φ⁻¹(p)| < 40 for every p with 1e-300 < p < 1 − 1e-300


def phi(x: Num) -> Bracket:
    """Φ(x): hull of the rigorous Φ brackets at the two ends (Φ is increasing)."""
    x = B(x)
    lo = ncdf_bracket(x.lo)
    hi = lo if x.is_point else ncdf_bracket(x.hi)
    return Bracket(lo.lo, hi.hi)


def phi_bar(x: Num) -> Bracket:
    """1 − Φ(x) = Φ(−x) (no cancellation in the upper tail)."""
    return phi(neg(x))


def _root(p: Fraction, side: int) -> Fraction:
    """A dyadic z with Φ(z) < p certified (side=-1) or Φ(z) > p certified (side=+1)."""
    lo, hi = -_Z_MAX, _Z_MAX
    if not ncdf_bracket(lo).hi < p < ncdf_bracket(hi).lo:
        raise ValueError(f"Φ⁻¹ argument out of the supported range: {p}")
    # invariant: Φ(lo) < p certainly, Φ(hi) > p certainly
    while hi - lo > Fraction(1, 1 << _INV_BITS):
        mid = (lo + hi) / 2
        b = ncdf_bracket(mid)
        if b.hi < p:
            lo = mid
        elif b.lo > p:
            hi = mid
        else:  # Φ(mid) straddles p: mid is within the bracket width of the root
            return mid - Fraction(1, 1 << _INV_BITS) if side < 0 else (
                mid + Fraction(1, 1 << _INV_BITS))
    return lo if side < 0 else hi


def phi_inv(p: Num) -> Bracket:
    """Φ⁻¹(p) for 0 < p < 1 (increasing: lower end from p.lo, upper end from p.hi)."""
    p = B(p)
    if not 0 < p.lo <= p.hi < 1:
        raise ValueError(f"Φ⁻¹ needs 0 < p < 1, got {p}")
    lo = _root(p.lo, -1)
    hi = _root(p.hi, +1)
    # Certify the ends (the straddle shortcut in _root must still give true bounds).
    while not ncdf_bracket(lo).hi < p.lo:
        lo -= Fraction(1, 1 << 60)
    while not ncdf_bracket(hi).lo > p.hi:
        hi += Fraction(1, 1 << 60)
    return Bracket(lo, hi)
