"""The lower end from bucket vectors composed by the tilted FFT (`Composed._fft_lower`,
`_fft_tails`): below the exact δ of a Gaussian composition (closed form), within a small
share of the ball arithmetic's lower end; with fft_lower = 0 the balls' lower end."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from verifydp.accounting import Grid, Pair, composed, poisson_gaussian
from verifydp.accounting.composition import _FftTails, _Tails


def _gauss_delta(mu: mpmath.mpf, eps: float) -> mpmath.mpf:
    e = mpmath.mpf(eps)
    return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


@pytest.mark.parametrize("k, sigma", [(50, F(10)), (400, F(40))])
def test_fft_lower_end_is_below_the_closed_form(k: int, sigma: F) -> None:
    pair = Pair(((F(1), F(1)),), ((F(1), F(0)),), sigma, "gauss")
    grid = Grid(h=F(1, 400))
    c = composed(pair, k, grid, (0,), target=1.0)
    lo = c._lower(0, F(1))
    assert isinstance(c._lower_tails[0], _FftTails)
    exact = _gauss_delta(mpmath.sqrt(k) / (mpmath.mpf(sigma.numerator) / sigma.denominator), 1.0)
    assert lo > 0 and mpmath.mpf(lo.numerator) / lo.denominator <= exact
    balls = composed(pair, k, grid, (0,))._lower(0, F(1))
    assert abs(lo - balls) <= F(1, 1000) * balls
    assert lo <= c._upper_at(0, F(1))


def test_fft_lower_end_on_a_subsampled_pair_and_its_refusal() -> None:
    pair, grid = poisson_gaussian(F(1, 100), F(1)), Grid(h=F(1, 300))
    c = composed(pair, 300, grid, (0,), target=1.0)
    lo = c._lower(0, F(1))
    assert isinstance(c._lower_tails[0], _FftTails) and c._fft_loss
    balls = composed(pair, 300, grid, (0,))._lower(0, F(1))
    assert abs(lo - balls) <= F(1, 1000) * balls <= lo + balls
    # fft_lower = 0: the balls' lower end, the same as without a target
    strict = composed(pair, 300, grid, (0,), target=1.0, fft_lower=0.0)
    assert strict._lower(0, F(1)) == balls
    assert isinstance(strict._lower_tails[0], _Tails)
