"""The closed-form j-fold two-point Gaussian pair (`accounting.twopoint`) against the
certified lattice accountant, and its θ bracket."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from verifydp.accounting import Grid, composed
from verifydp.accounting.dominating import law_pair
from verifydp.accounting.twopoint import gaussian_shift
from verifydp.mechanisms.profiles import gaussian_profile


@pytest.mark.parametrize("shift,sigma,j,eps", [(F(1), F(1), 4, F(1)), (F(3), F(2), 3, F(2)),
                                               (F(2), F(1), 1, F(1, 2))])
def test_closed_form_meets_the_lattice_accountant(shift: F, sigma: F, j: int, eps: F) -> None:
    closed = gaussian_shift(shift, sigma, j)
    lattice = composed(law_pair(((1, F(1)),), shift, sigma, "gauss", "added"), j,
                       Grid(h=F(1, 200)))
    for d in (0, 1):
        a, b = closed.delta_direction(eps, d), lattice.delta_direction(eps, d)
        assert a.lo <= b.hi and b.lo <= a.hi  # both enclose the same δ
    assert closed.delta(eps).width < F(1, 10**12)


def test_theta_bracket_and_the_sympy_profile() -> None:
    g = gaussian_shift(F(3), F(1), 4)  # θ = 6 exactly
    assert g.theta_lo == g.theta_hi == 6
    ref = gaussian_profile(F(5), F(6))
    got = g.delta(F(5))
    assert got.lo <= ref.hi and ref.lo <= got.hi
    irr = gaussian_shift(F(1), F(1), 2)  # θ = √2
    assert irr.theta_lo ** 2 < 2 < irr.theta_hi ** 2
    with pytest.raises(ValueError):
        gaussian_shift(F(0), F(1), 1)
