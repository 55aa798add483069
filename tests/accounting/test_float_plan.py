"""`compose(epsilon=…, rtol=…)`'s float plan (`_float_plan`): floats choose the lattice, the
cut and which order is composed where, without certified probe lattices. Whatever they
choose, the bracket is certified: it contains an exact or independent δ, and a plan that is
wrong (too coarse, too fine, an order's upper end that does not clear) is refined or
completed, never trusted."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from verifydp.accounting import composition as C

from .test_compose import exact_gaussian_delta


def _recording(monkeypatch) -> list[tuple[F, tuple[int, ...]]]:  # type: ignore[no-untyped-def]
    seen: list[tuple[F, tuple[int, ...]]] = []
    orig = C.composed

    def rec(pair, steps, grid=None, directions=(0, 1), **kw):  # type: ignore[no-untyped-def]
        grid = C.Grid() if grid is None else grid
        seen.append((grid.h, tuple(directions)))
        return orig(pair, steps, grid, directions, **kw)

    monkeypatch.setattr(C, "composed", rec)
    return seen


def test_saddle_point_of_the_plain_gaussian() -> None:
    """N(1, σ²) vs N(0, σ²): one step's loss is N(μ, 2μ) with μ = 1/(2σ²), so k·K'(θ) = ε at
    θ = (ε − kμ)/(2kμ); the saddle point δ estimate (it only sets the cut's scale and which order is
    the smaller) is within a factor 2 of the exact δ."""
    sigma, k, eps = 8.0, 16, 1.0
    pair = C.poisson_gaussian(F(1), F(8))
    lo, hi = C._support(pair, C.Grid())
    xs = np.linspace(lo, hi, C._PLAN_POINTS)
    lp, lq = C._float_logpdf(pair, pair.p, xs), C._float_logpdf(pair, pair.q, xs)
    got = C._saddle(lp, lp - lq, k, eps)
    assert got is not None
    mu = 1 / (2 * sigma**2)
    assert got[0] == pytest.approx((eps - k * mu) / (2 * k * mu), rel=1e-3)
    exact = float(exact_gaussian_delta(F(1, 2), F(1))[0])
    assert exact / 2 <= got[1] <= 2 * exact
    # ε below the k-fold mean: no plan; ε beyond the loss's reach: δ ≈ 0 for the plan
    assert C._saddle(lp, lp - lq, 10_000, eps) is None
    assert C._saddle(lp, np.minimum(lp - lq, 1e-4), 1000, eps) == (math.inf, 0.0)


@pytest.mark.parametrize("law", [None, C._PLAN_LAW / 100, C._PLAN_LAW * 20])
def test_plan_right_or_wrong_the_bracket_holds(law, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The plain Gaussian (σ = 4, k = 64, exact δ): the planned lattice is the only one
    composed (no probes), and with a width law 100× too optimistic (a lattice far too
    coarse) or 20× too pessimistic (too fine) the bracket still contains the exact δ and
    meets rtol — the refinement, certified, takes over from a wrong plan."""
    if law is not None:
        monkeypatch.setattr(C, "_PLAN_LAW", law)
    seen = _recording(monkeypatch)
    rtol = F(1, 100)
    b = C.compose(C.poisson_gaussian(F(1), F(4)), 64, epsilon=F(1), rtol=rtol)
    lo, hi = exact_gaussian_delta(F(2), F(1))
    assert b.lo <= lo and hi <= b.hi
    assert b.hi - b.lo <= rtol * b.hi
    if law is None:
        assert len(seen) == 1  # one lattice: the plan's
    elif law < C._PLAN_LAW:
        assert len(seen) >= 2  # the plan missed rtol: refined


def test_the_smaller_order_on_a_coarse_lattice(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """q = 1/100, σ = 2, k = 1000: δ_{Q‖P} is estimated ~60× below δ_{P‖Q}, so only its
    upper end is certified, on a coarse lattice, and the fine lattice composes P‖Q alone;
    where that coarse upper end does not clear δ_{P‖Q}'s lower end (a plan forced to
    h = 1/20 for it), the same fine lattice composes Q‖P too, and the bracket is the same."""
    pair, k, eps, rtol = C.poisson_gaussian(F(1, 100), F(2)), 1000, F(1), F(1, 100)
    seen = _recording(monkeypatch)
    b = C.compose(pair, k, epsilon=eps, rtol=rtol)
    assert b.hi - b.lo <= rtol * b.hi
    assert [d for _, d in seen] == [(1,), (0,)] and seen[0][0] > seen[1][0]
    plan = C._float_plan(pair, k, float(eps), C.Grid(), rtol)
    assert plan is not None and plan[2] is not None
    orig = C._float_plan
    monkeypatch.setattr(C, "_float_plan", lambda *a: (lambda p: (p[0], p[1], (1, F(1, 20))))(
        orig(*a)))
    seen.clear()
    forced = C.compose(pair, k, epsilon=eps, rtol=rtol)
    assert [d for _, d in seen] == [(1,), (0,), (1,)] and seen[1][0] == seen[2][0]
    assert forced == b


def test_a_subsampled_tiny_delta_contains_the_independent_value() -> None:
    """q = 1/1000, σ = 1, k = 10^4, ε = 1 (δ ≈ 1e-11, a large cancellation): the planned
    lattice's bracket contains 9.773431e-12, the numerical inversion of the 10^4-fold moment
    generating function (no discretisation; bench/README.md's accountant row)."""
    b = C.compose(C.poisson_gaussian(F(1, 1000), F(1)), 10_000, epsilon=F(1), rtol=F(1, 100))
    assert b.lo <= F(9.773431e-12) <= b.hi
    assert b.hi - b.lo <= F(1, 100) * b.hi


def test_no_plan_where_the_probes_decide() -> None:
    """Large δ (ε below the k-fold mean), Laplace and a δ estimate below 1e-12 leave the
    choice to the certified probes."""
    grid, rtol = C.Grid(), F(1, 100)
    assert C._float_plan(C.poisson_gaussian(F(1, 10), F(1)), 1000, 1.0, grid, rtol) is None
    assert C._float_plan(C.laplace(F(1)), 10, 1.0, grid, rtol) is None
    assert C._float_plan(C.poisson_gaussian(F(1, 1000), F(2)), 1000, 1.0, grid, rtol) is None


def test_the_smaller_order_shares_a_lattice_that_is_not_much_coarser() -> None:
    """k = 1 (q = 1/20, σ = 4/5): the fine lattice is the coarsest allowed, so the smaller
    order gets no lattice of its own (it would pay for its cells again): both orders are
    composed on the fine one, and the bracket still meets rtol."""
    pair = C.poisson_gaussian(F(1, 20), F(4, 5))
    plan = C._float_plan(pair, 1, 1.0, C.Grid(), F(1, 100))
    assert plan is not None and plan[2] is None
    b = C.compose(pair, 1, epsilon=F(1), rtol=F(1, 100))
    assert b.hi - b.lo <= F(1, 100) * b.hi
