"""The one rigorous special-functions module against mpmath references at high precision
(scipy-style reference tests: the references are independent of the implementation)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifydp.exact import special
from verifydp.exact.interval import Bracket, mpf_to_fraction


def _ref_ncdf(x: Fraction) -> Fraction:
    with mpmath.workdps(60):
        return Fraction(mpmath.nstr(mpmath.ncdf(mpmath.mpf(x.numerator) / x.denominator), 55))


@pytest.mark.parametrize("x", [Fraction(-18), Fraction(-3, 2), Fraction(0), Fraction(1, 7),
                               Fraction(12), Fraction(-10), Fraction(10), Fraction(21, 2)])
def test_ncdf_against_mpmath(x: Fraction) -> None:
    b = special.ncdf(x)
    assert b.width < Fraction(1, 10**30) * max(Fraction(1, 10**40), b.hi)
    assert abs(_ref_ncdf(x) - b.lo) <= Fraction(1, 10**30) * b.hi


@given(st.fractions(min_value=-30, max_value=30, max_denominator=10**6))
def test_ncdf_encloses_and_is_monotone(x: Fraction) -> None:
    b = special.ncdf(x)
    ref = _ref_ncdf(x)
    tol = Fraction(1, 10**50)
    assert b.lo - tol <= ref <= b.hi + tol
    nxt = special.ncdf(x + Fraction(1, 1000))
    assert nxt.hi >= b.lo


@given(st.fractions(min_value=-8, max_value=8, max_denominator=1000))
def test_erfc_encloses(y: Fraction) -> None:
    from mpmath import libmp

    x = libmp.from_rational(y.numerator, y.denominator, 120, libmp.round_nearest)
    lo, hi = special.erfc_mpf(x, 120)
    with mpmath.workdps(60):
        ref = mpmath.erfc(mpmath.mpf(x))
        assert mpmath.mpf(lo) <= ref <= mpmath.mpf(hi)
    assert mpf_to_fraction(hi) - mpf_to_fraction(lo) < Fraction(1, 10**30)


@given(st.fractions(min_value=-40, max_value=40, max_denominator=1000))
def test_exp_encloses(x: Fraction) -> None:
    b = special.exp(x)
    with mpmath.workdps(80):
        ref = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(b.lo.numerator) / b.lo.denominator <= ref
        assert ref <= mpmath.mpf(b.hi.numerator) / b.hi.denominator


@given(st.fractions(min_value=Fraction(1, 1000), max_value=10**6, max_denominator=1000))
def test_log_encloses(x: Fraction) -> None:
    lo = mpf_to_fraction(special.log_mpf(x, False))
    hi = mpf_to_fraction(special.log_mpf(x, True))
    with mpmath.workdps(80):
        ref = mpmath.log(mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref
        assert ref <= mpmath.mpf(hi.numerator) / hi.denominator


@pytest.mark.parametrize("p", [Fraction(1, 10**9), Fraction(1, 3), Fraction(1, 2),
                               Fraction(99, 100)])
def test_ncdf_inv_brackets_the_quantile(p: Fraction) -> None:
    z = special.ncdf_inv(Bracket.point(p))
    assert special.ncdf(z.lo).hi < p < special.ncdf(z.hi).lo
    assert z.width < Fraction(1, 10**20)
