"""`Revealed`: a revealed-label mixture of pairs, composed on the lattice, against the closed
form of two Gaussian shifts (the k-fold revealed pair is a binomial mixture of Gaussian
mechanisms with μ_j = √((k − j)a₁² + j·a₂²)/σ)."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from verifydp.accounting import Grid, Pair, Revealed, composed


def _two(a: F) -> Pair:
    return Pair(((F(1), a),), ((F(1), F(0)),), F(1), "gauss")


def _gauss_delta(mu: mpmath.mpf, eps: F) -> mpmath.mpf:
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _exact(w: F, a1: F, a2: F, k: int, eps: F) -> mpmath.mpf:
    wf = mpmath.mpf(w.numerator) / w.denominator
    return mpmath.fsum(mpmath.binomial(k, j) * wf**j * (1 - wf) ** (k - j)
                       * _gauss_delta(mpmath.sqrt(float((k - j) * a1**2 + j * a2**2)), eps)
                       for j in range(k + 1))


@pytest.mark.parametrize("k", [1, 5, 40])
def test_revealed_mixture_brackets_the_closed_form(k: int) -> None:
    w, a1, a2 = F(1, 3), F(1, 2), F(2)
    c = composed(Revealed(((1 - w, _two(a1)), (w, _two(a2)))), k, Grid(h=F(1, 200)))
    for eps in (F(1, 2), F(2)):
        b = c.delta(eps)
        exact = _exact(w, a1, a2, k, eps)
        assert float(b.lo) <= exact <= float(b.hi)
        assert b.hi - b.lo < F(1, 10**4)


def test_revealing_costs_against_the_mixture_and_weights_are_checked() -> None:
    """Revealing the label can only add: the revealed pair's δ is at least the unrevealed
    mixture's (1−w)K(a₁) + wK(a₂) against K(0); bad weights are refused."""
    w, a1, a2 = F(1, 3), F(1, 2), F(2)
    mixed = Pair(((1 - w, a1), (w, a2)), ((F(1), F(0)),), F(1), "gauss")
    rev = Revealed(((1 - w, _two(a1)), (w, _two(a2))))
    g = Grid(h=F(1, 200))
    for eps in (F(1, 2), F(2)):
        assert composed(rev, 3, g).delta(eps).lo >= composed(mixed, 3, g).delta(eps).hi
    with pytest.raises(ValueError, match="sum to 1"):
        Revealed(((F(1, 2), _two(a1)), (F(1, 3), _two(a2))))
    with pytest.raises(ValueError, match="positive weight"):
        Revealed(((F(0), _two(a1)), (F(1), _two(a2))))
