"""The bridge between exact rationals and python-flint's arb balls (rigorous ball arithmetic).

The certified accountant (`verifydp.accounting`) works in arb balls at python-flint's default
working precision (53 bits; every rounding lies inside a ball's radius, so no precision
setting — a global of flint's — is ever changed). Its inputs are exact `Fraction`s and
`Bracket`s, its answers exact rationals on the safe side of a ball. This module is the one
place that crosses over, in both directions, and the one arb cdf of the noise kernels.
docs/foundations.md#composition.
"""

from __future__ import annotations

from fractions import Fraction

import flint

from verifydp.exact.interval import Bracket

__all__ = ["ball", "bracket_ball", "fmpq_of", "fraction_of", "kernel_cdf", "rational"]


def fmpq_of(x: Fraction | int | float) -> flint.fmpq:
    """The same rational as python-flint's fmpq (C arithmetic, several times faster than
    `Fraction` for the exact certificates of verifydp.worstcase.certify); floats exactly."""
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def fraction_of(x: flint.fmpq) -> Fraction:
    """The same rational back as a `Fraction`."""
    return Fraction(int(x.p), int(x.q))


def ball(x: Fraction | int) -> flint.arb:
    """A ball containing the rational x (exact when its denominator is a power of two)."""
    x = Fraction(x)
    return flint.arb(x.numerator) / x.denominator


def bracket_ball(b: Bracket) -> flint.arb:
    """A ball containing the whole bracket [lo, hi]."""
    return ball(b.lo).union(ball(b.hi))


def rational(x: flint.arb, up: bool) -> Fraction:
    """An exact rational at or above the ball (up=True) or at or below it (up=False)."""
    man, exp = (x.upper() if up else x.lower()).mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


_SQRT2 = flint.arb(2).sqrt()


def kernel_cdf(kernel: str, u: flint.arb, negative: bool) -> flint.arb:
    """The standard noise kernel's cdf at u (a ball): Φ(u) = erfc(−u/√2)/2 for ``gauss``;
    e^u/2 (u < 0) or 1 − e^{−u}/2 for ``laplace``, where `negative` says on which side of 0
    u lies (certified by the caller: it selects the branch). The survival function at x is
    kernel_cdf(kernel, −x, True) for x ≥ 0, free of cancellation."""
    if kernel == "gauss":
        return (-u / _SQRT2).erfc() / 2
    if kernel != "laplace":
        raise ValueError(f"no cdf for kernel {kernel!r}")
    if negative:
        return u.exp() / 2
    return 1 - (-u).exp() / 2
