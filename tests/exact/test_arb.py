"""The arb-ball bridge (`verifydp.exact.arb`): balls contain their rationals, safe rational
ends lie on the stated side, and the kernels' arb cdf agrees with mpmath."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath
import pytest

from verifydp.exact.arb import ball, bracket_ball, kernel_cdf, rational
from verifydp.exact.interval import Bracket


@pytest.mark.parametrize("x", [F(0), F(1, 3), F(-7, 10), F(10**20, 3), F(1, 10**30)])
def test_ball_contains_its_rational_and_the_ends_are_safe(x: F) -> None:
    b = ball(x)
    assert rational(b, up=False) <= x <= rational(b, up=True)
    wide = bracket_ball(Bracket(x - F(1, 7), x + F(1, 7)))
    assert rational(wide, up=False) <= x - F(1, 7) and x + F(1, 7) <= rational(wide, up=True)


@pytest.mark.parametrize("u", [F(-9), F(-1, 2), F(0), F(3, 4), F(6)])
def test_kernel_cdf_against_mpmath(u: F) -> None:
    with mpmath.workdps(40):
        x = mpmath.mpf(u.numerator) / u.denominator
        refs = {"gauss": mpmath.ncdf(x),
                "laplace": mpmath.exp(x) / 2 if u < 0 else 1 - mpmath.exp(-x) / 2}
        for kernel, ref in refs.items():
            c = kernel_cdf(kernel, ball(u), u < 0)
            ref_f = F(mpmath.nstr(ref, 35))
            assert rational(c, up=False) - F(1, 10**30) <= ref_f <= rational(c, up=True) + F(1, 10**30)
            assert c.rad() < flint.arb(2) ** -40


def test_unknown_kernel_is_refused() -> None:
    with pytest.raises(ValueError, match="no cdf"):
        kernel_cdf("cauchy", ball(F(0)), False)
