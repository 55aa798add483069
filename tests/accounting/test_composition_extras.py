"""`Revealed`: a revealed-label mixture of pairs, composed on the lattice, against the closed
form of two Gaussian shifts (the k-fold revealed pair is a binomial mixture of Gaussian
mechanisms with μ_j = √((k − j)a₁² + j·a₂²)/σ); `realised_lower` (a test on a pair whose
loss is not monotone) against exact δ by quadrature and the composed upper end."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath
import pytest

from verifydp.accounting import Grid, Pair, Revealed, composed
from verifydp.accounting.composition import realised_lower
from verifydp.exact.arb import ball, rational


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
    rev3, mixed3 = composed(rev, 3, g), composed(mixed, 3, g)  # once, read at both ε
    for eps in (F(1, 2), F(2)):
        assert rev3.delta(eps).lo >= mixed3.delta(eps).hi
    with pytest.raises(ValueError, match="sum to 1"):
        Revealed(((F(1, 2), _two(a1)), (F(1, 3), _two(a2))))
    with pytest.raises(ValueError, match="positive weight"):
        Revealed(((F(0), _two(a1)), (F(1), _two(a2))))


def _exact_one_step(p: tuple[tuple[F, F], ...], eps: F) -> mpmath.mpf:
    """∫ (p − e^ε q)_+ for p a Gaussian mixture and q = N(0, 1), exactly: the sign changes of
    p − e^ε q located on a fine scan and refined (40 digits), then Φ differences."""
    with mpmath.workdps(40):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        comps = [(mpmath.mpf(w.numerator) / w.denominator, mpmath.mpf(float(c))) for w, c in p]

        def f(x: mpmath.mpf) -> mpmath.mpf:
            return mpmath.fsum(w * mpmath.npdf(x, c, 1) for w, c in comps) - e * mpmath.npdf(x)

        grid = [mpmath.mpf(i) / 50 for i in range(-700, 701)]
        roots = [mpmath.findroot(f, (a, b), solver="anderson")
                 for a, b in zip(grid, grid[1:], strict=False) if f(a) * f(b) < 0]
        ends = [-mpmath.inf, *roots, mpmath.inf]
        total = mpmath.mpf(0)
        for a, b in zip(ends, ends[1:], strict=False):
            mid = b - 1 if a == -mpmath.inf else a + 1 if b == mpmath.inf else (a + b) / 2
            if f(mid) > 0:
                total += mpmath.fsum(w * (mpmath.ncdf(b - c) - mpmath.ncdf(a - c))
                                     for w, c in comps) - e * (mpmath.ncdf(b) - mpmath.ncdf(a))
        return total


def test_realised_lower_is_a_lower_bound_for_a_pair_of_mixed_signs() -> None:
    """A concrete pair with a component on each side of the reference (no monotone loss):
    the test scored by its own loss lies below the exact δ of one release and below the
    aligned pair's certified upper end after 4, and is within 1 % of the exact δ."""
    real = ((F(7, 10), F(0)), (F(1, 10), F(2)), (F(1, 10), F(1)), (F(1, 10), F(-1)))
    aligned = ((F(7, 10), F(0)), (F(1, 10), F(2)), (F(2, 10), F(1)))
    q = ((F(1), F(0)),)
    real_pair, score = Pair(real, q, F(1), "gauss"), Pair(aligned, q, F(1), "gauss")
    g = Grid(h=F(1, 200))
    one, four = realised_lower(real_pair, 1, g), realised_lower(real_pair, 4, g)
    score4 = composed(score, 4, g)  # once, read at every ε
    for eps in (F(0), F(1, 2), F(2)):
        exact = _exact_one_step(real, eps)  # once per ε (issue 29: it was computed twice)
        assert float(one(eps)) <= exact
        assert four(eps) <= score4.delta(eps).hi
        assert float(one(eps)) > exact * 0.99


def _upper_reference(c: list[flint.arb], off: int, out: flint.arb, eps: F, h: F) -> flint.arb:
    """Σ_i c_i (1 − e^{ε − s_i})_+ + out cell by cell (the sum `_upper` splits)."""
    tot = out
    for i, ci in enumerate(c):
        s = F(off + i) * h
        if s > eps:
            tot += ci * (1 - (ball(eps) - ball(s)).exp())
    return tot


@pytest.mark.parametrize("kernel,pair", [
    ("gauss", Pair(((F(1, 2), F(0)), (F(1, 2), F(2))), ((F(1), F(0)),), F(1), "gauss")),
    ("laplace", Pair(((F(9, 10), F(0)), (F(1, 10), F(1))), ((F(1), F(0)),), F(1, 2),
                     "laplace")),
])
def test_upper_end_by_suffix_sums_matches_the_cell_sum(kernel: str, pair: Pair) -> None:
    """The upper end sums cells within one loss unit of ε one by one and the rest from
    suffix sums (mass − e^ε·tilt): on composed vectors (k = 1, 20) and ε from below the
    lattice to past its top, it encloses the cell-by-cell sum and is as tight (1e-9)."""
    for k in (1, 20):
        c = composed(pair, k, Grid(F(1, 100)))
        for d, up in enumerate(c.upper):
            assert up is not None
            top = F(up.off + len(up.c)) * c.grid.h
            for eps in (F(0), F(1, 3), F(1), top / 2, top - F(1, 2), top + 1):
                ref = _upper_reference(up.c, up.off, up.out, eps, c.grid.h)
                got = c._upper_at(d, eps)
                assert F(float(ref.lower())) * (1 - F(1, 10**9)) - F(1, 10**300) <= got
                assert got <= rational(ref, up=True) * (1 + F(1, 10**9)) + F(1, 10**300)
