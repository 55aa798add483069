"""The FFT power's round-off bound as an ℓ₂ bound (`fftpow`) and the threshold sums built on
it (`composition._window_sum`: Cauchy–Schwarz over the whole window, the aliased mass once).
Known-true checks against exact ball arithmetic, and mutated bounds (the round-off term a
tenth of itself, the alias term dropped) that an adversarial error vector of the allowed
size must expose."""

from __future__ import annotations

import math

import flint
import numpy as np
import pytest

from tests.accounting.test_fftpow import _exact_circular
from verifydp.accounting.composition import _FftOut, _window_sum
from verifydp.accounting.fftpow import power


@pytest.mark.parametrize("k", [2, 7, 33])
def test_power_bound_covers_the_l2_norm_of_the_error(k: int) -> None:
    rng = np.random.default_rng(100 + k)
    n = 128
    a = rng.random(50)
    a /= a.sum()
    c, e = power(a, k, n)
    exact = _exact_circular(a, k, n)
    diff = [flint.arb(float(c[m])) - exact[m] for m in range(n)]
    sq = sum((d * d for d in diff), flint.arb(0))
    norm = math.sqrt(float(sq.upper()))
    assert 0 < norm <= e  # known-true: the whole error vector, not only each entry
    # any weights: |Σ w (c̃ − c)| ≤ E‖w‖₂
    w = rng.random(n)
    s = sum((flint.arb(float(w[m])) * diff[m] for m in range(n)), flint.arb(0))
    assert float(abs(s).upper()) <= e * float(np.sqrt((w * w).sum())) * (1 + 1e-12)


def _out(vals: np.ndarray, r: float, err: float, alias: float) -> _FftOut:
    zero = flint.arb(0)
    return _FftOut(vals, 0, r, flint.arb(1), err, err + alias, zero, zero, zero, alias)


def _true_sum(x: np.ndarray, r: float, m0: int) -> flint.arb:
    ri = 1 / flint.arb(r)
    return sum((flint.arb(float(x[m])) * ri ** m for m in range(m0, len(x))), flint.arb(0))


def _adversary(n: int, r: float, m0: int, size: float) -> np.ndarray:
    """An error vector of ℓ₂ norm `size` (at most) aligned with the weights R^{−m}, m ≥ m0:
    the one that moves the threshold sum the most (Cauchy–Schwarz is attained)."""
    w = np.zeros(n)
    w[m0:] = r ** -np.arange(n - m0, dtype=float)
    return size * w / math.sqrt(float((w * w).sum())) * (1 - 1e-4)


@pytest.mark.parametrize("r, m0", [(1.0005, 10), (1.05, 0), (1.0, 40)])
def test_window_sums_hold_against_the_worst_round_off(r: float, m0: int) -> None:
    rng = np.random.default_rng(7)
    n = 2000
    x = rng.random(n) * 1e-3  # the exact tilted entries
    err = 1e-6
    true = _true_sum(x, r, m0)
    push = _adversary(n, r, m0, err)
    # P (side low): the floats err upward by an allowed vector; the lower bound holds ...
    up = x + push
    assert _window_sum(_out(up, r, err, 0.0), m0, lower=True).upper() <= true.lower()
    # ... and would not with a tenth of the round-off term (mutated bound)
    assert _window_sum(_out(up, r, err / 10, 0.0), m0, lower=True).lower() > true.upper()
    # Q (side up): the floats err downward; the upper bound holds, a tenth of it would not
    down = x - push
    assert _window_sum(_out(down, r, err, 0.0), m0, lower=False).lower() >= true.upper()
    assert _window_sum(_out(down, r, err / 10, 0.0), m0, lower=False).upper() < true.lower()
    # the entrywise bound is far looser than the ℓ₂ one over many entries
    if r > 1.001:
        return
    geo = sum(r ** -(2 * i) for i in range(n - m0))
    assert math.sqrt(geo) < (n - m0) / 10


def test_window_sums_count_the_aliased_mass_once() -> None:
    """The circular window holds the true entries plus folded (non-negative) mass of at most
    `alias` in all: the P lower bound subtracts it, a bound without it is caught."""
    n, r, m0 = 500, 1.001, 5
    x = np.random.default_rng(3).random(n) * 1e-4
    alias = 1e-3
    folded = x.copy()
    folded[m0] += alias * (1 - 1e-4)  # all of it where the weight is largest
    true = _true_sum(x, r, m0)
    assert _window_sum(_out(folded, r, 0.0, alias), m0, lower=True).upper() <= true.lower()
    assert _window_sum(_out(folded, r, 0.0, 0.0), m0, lower=True).lower() > true.upper()
    # an upper bound needs no alias term: folded mass only adds
    assert _window_sum(_out(folded, r, 0.0, 0.0), m0, lower=False).lower() >= true.upper()


def test_mirrored_fft_lower_end_of_the_reverse_order() -> None:
    """δ_{Q‖P}'s lower end from the mirrored bucket vectors by the tilted FFT: below the
    exact δ of a Gaussian pair (both orders equal, closed form), and within 1e-3 of the
    balls' lower end on a subsampled pair (both certified)."""
    from fractions import Fraction as F

    import mpmath

    from verifydp.accounting import Grid, Pair, composed, poisson_gaussian
    from verifydp.accounting.composition import _FftTails

    k, sigma = 100, F(10)
    pair = Pair(((F(1), F(1)),), ((F(1), F(0)),), sigma, "gauss")
    c = composed(pair, k, Grid(h=F(1, 400)), target=1.0)
    lo = c._lower(1, F(1))
    assert isinstance(c._lower_tails[1], _FftTails)
    mu = mpmath.sqrt(k) / 10
    exact = mpmath.ncdf(-1 / mu + mu / 2) - mpmath.e * mpmath.ncdf(-1 / mu - mu / 2)
    assert lo > 0 and mpmath.mpf(lo.numerator) / lo.denominator <= exact
    assert mpmath.mpf(lo.numerator) / lo.denominator >= exact * (1 - mpmath.mpf(1) / 100)
    sub, grid = poisson_gaussian(F(1, 100), F(1)), Grid(h=F(1, 300))
    fft = composed(sub, 300, grid, target=1.0)
    got = fft._lower(1, F(1))
    assert isinstance(fft._lower_tails[1], _FftTails)
    balls = composed(sub, 300, grid)._lower(1, F(1))
    assert abs(got - balls) <= balls / 1000 and got <= fft._upper_at(1, F(1))


@pytest.mark.parametrize("log_r", [-1e-3, -0.2, 0.02])
def test_geometric_sum_encloses_the_arb_horner_sum(log_r: float) -> None:
    """`composition._geometric_sum` (Σ x_m r^m in float intervals: the FFT window's
    threshold sums and the upper vectors' suffix sums) against arb's Horner sum at 200
    bits, with entries of both signs (round-off makes some FFT entries negative); the
    mutant whose factors miss the last step of r^m is caught; beyond the floats' exponent
    range it declines (None: the caller's arb Horner sum)."""
    from verifydp.accounting.composition import _geometric_sum

    rng = np.random.default_rng(3)
    x = rng.random(3000) * 1e-5
    x[::17] *= -1e-6
    iv = (x, x)
    lr = (float(np.nextafter(log_r, -np.inf)), float(np.nextafter(log_r, np.inf)))
    got = _geometric_sum(iv, lr)
    assert got is not None
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        r = flint.arb(log_r).exp()  # at 200 bits: the reference must be far narrower than got
        ref = flint.arb_poly([flint.arb(v) for v in x.tolist()])(r)
        assert got.contains(ref) or got.overlaps(ref)
        assert ref.mid() - got.lower() >= 0 and got.upper() - ref.mid() >= 0
        assert float(got.rad()) <= 1e-9 * abs(float(ref.mid()))
        mutant = flint.arb_poly([flint.arb(v) for v in x.tolist()])(r) * r
        assert not got.overlaps(mutant)
    finally:
        flint.ctx.prec = old
    assert _geometric_sum(iv, (-0.7, -0.7)) is None  # r^2999 = e^-2099: below the floats
