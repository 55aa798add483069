"""The k-fold composition of a two-point Gaussian pair in closed form.

N(D, σ²) against N(0, σ²) composed k times is the Gaussian mechanism with θ = √k·D/σ (the
privacy loss is N(θ²/2, θ²) under the first; Balle & Wang 2018, Theorem 8):
δ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), the same in both orders (the pair is symmetric
under x ↦ D − x). Used for the revealed clusters of the deployment audit, where a whole
displaced cluster moves the output by many noise units and a lattice over that loss range
would be large. θ is bracketed between rationals (δ increases with θ), and the profile is
`mechanisms.profiles.gaussian_profile_barith` (the package's Φ in bracket arithmetic; the
sympy route `gaussian_profile` is five times slower, and a bisection calls this hundreds of
times).
docs/foundations.md#composition.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from verifydp.exact.interval import Bracket
from verifydp.mechanisms.profiles import gaussian_profile_barith

__all__ = ["GaussianShift", "gaussian_shift"]

_THETA_BITS = 64  # θ bracketed on the grid 2^-64


@dataclass(frozen=True)
class GaussianShift:
    """θ ∈ [theta_lo, theta_hi]; `delta` and `delta_direction` as `accounting.Composed`."""

    theta_lo: Fraction
    theta_hi: Fraction

    def delta(self, epsilon: Fraction) -> Bracket:
        eps = max(Fraction(epsilon), Fraction(0))
        lo = gaussian_profile_barith(eps, self.theta_lo).lo if self.theta_lo > 0 else Fraction(0)
        hi = gaussian_profile_barith(eps, self.theta_hi).hi
        return Bracket(max(lo, Fraction(0)), min(max(hi, lo), Fraction(1)))

    def delta_direction(self, epsilon: Fraction, direction: int) -> Bracket:
        return self.delta(epsilon)  # both orders agree


def gaussian_shift(shift: Fraction, sigma: Fraction, steps: int) -> GaussianShift:
    """θ = √steps · shift/σ, bracketed (exact when it is rational on the grid)."""
    shift, sigma = Fraction(shift), Fraction(sigma)
    if shift <= 0 or sigma <= 0 or steps < 1:
        raise ValueError("need shift > 0, σ > 0 and steps ≥ 1")
    sq = steps * shift * shift / (sigma * sigma) * 4**_THETA_BITS  # θ² scaled by 2^128
    lo = isqrt(sq.numerator // sq.denominator)
    hi = lo if lo * lo * sq.denominator == sq.numerator else lo + 1
    return GaussianShift(Fraction(lo, 2**_THETA_BITS), Fraction(hi, 2**_THETA_BITS))
