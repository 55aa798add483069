"""`_gauss_values`: the Gaussian's cdf/sf at the cuts by Taylor models per block contains
the exact value (mpmath at 60 digits) and is as tight as one arb erfc per cut."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from verifydp.accounting.composition import _gauss_values
from verifydp.exact.arb import ball


@pytest.mark.parametrize("c, s", [(F(0), F(1)), (F(1), F(3, 5)), (F(-2), F(7, 3))])
def test_taylor_values_contain_the_exact_cdf(c: F, s: F) -> None:
    cf, sf = float(c), float(s)
    cuts = sorted(set(np.concatenate((np.linspace(cf - 12 * sf, cf + 12 * sf, 3001),
                                      cf + sf * np.geomspace(1e-9, 1e-3, 50))).tolist()))
    vals = _gauss_values(ball(c), cf, ball(s), cuts)
    assert len(vals) == len(cuts)
    with mpmath.workdps(60):
        cm, sm = mpmath.mpf(c.numerator) / c.denominator, mpmath.mpf(s.numerator) / s.denominator
        for x, (v, right) in list(zip(cuts, vals, strict=True))[::7]:
            assert right == (x > cf)
            u = (mpmath.mpf(x) - cm) / sm
            exact = mpmath.ncdf(-u) if right else mpmath.ncdf(u)
            lo, hi = mpmath.mpf(v.lower().str(30, radius=False)), mpmath.mpf(v.upper().str(30, radius=False))
            # the ball's ends printed to 30 digits: exact values are compared with a
            # relative slack of 1e-25, far below the radii
            assert lo * (1 - mpmath.mpf(10) ** -25) <= exact <= hi * (1 + mpmath.mpf(10) ** -25)
            assert float(v.rad()) <= 1e-12 * float(exact)
