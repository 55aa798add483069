"""Zhao & Liu (MUST), Theorem 1: Laplace / Gaussian privacy profiles and group profiles."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must import profiles as mp
from verifydp.exact import barith, special
from verifydp.exact.interval import Bracket
from verifydp.exact.tfunc import EPS
from verifydp.mechanisms.profiles import (
    gaussian_group_profile,
    gaussian_hockey_stick,
    gaussian_profile,
    gaussian_profile_barith,
    laplace_group_profile,
    laplace_hockey_stick,
    laplace_profile,
    normal_cdf,
)

# one xdist_group for the module (issue 29): the module-scoped full check, the mutants and the
# θ-grid test read the same hockey-stick references (lru_cache in mechanisms/profiles.py), so
# one worker computes them once instead of both
pytestmark = pytest.mark.xdist_group("must-profiles")

F = Fraction


# full-budget verdicts of the catalogue's checks (the snapshot test relies on them)
EXPECTED = {"must/thm1:laplace": Verdict.HOLDS, "must/thm1:gauss": Verdict.HOLDS}


@pytest.fixture(scope="module")
def results():
    return {c.id: c.check() for c in mp.CLAIMS}


def test_claims_registered():
    assert [c.id for c in mp.CLAIMS] == ["must/thm1:laplace", "must/thm1:gauss"]
    assert all(c.paper == "must" for c in mp.CLAIMS)


def test_printed_equals_reference(results):
    assert set(results) == set(EXPECTED)
    for cid, res in results.items():
        assert res.verdict is EXPECTED[cid] is Verdict.HOLDS, (cid, res.summary())
        assert len(res.statements) == 2
        assert len(res.instances) == len(mp.EPS_GRID) * len(mp.PARAMS) * (1 + len(mp.GROUP_SIZES))
        assert all(i.verdict is Verdict.HOLDS for i in res.instances)


def _fast() -> Budget:
    return Budget(fail_fast=True)


D1, D2, S, J = mp.DELTA_1, mp.DELTA_2, mp.SIGMA, mp.J


def test_laplace_mutants_caught():
    half_eps = sympy.Max(0, 1 - sympy.exp((EPS / 2 - D1 / S) / 2))
    no_half = sympy.Max(0, 1 - sympy.exp(EPS - D1 / S))
    for bad in (half_eps, no_half):
        r = mp.check_laplace(_fast(), profile=bad)
        assert r.verdict is Verdict.REFUTED
        assert r.statements[0].verdict is Verdict.REFUTED
    theta_over_j = mp.LAPLACE_PRINTED.subs(D1, D1 / J)
    r = mp.check_laplace(_fast(), group=theta_over_j)
    assert r.statements[0].verdict is Verdict.HOLDS
    assert r.statements[1].verdict is Verdict.REFUTED


def test_gauss_mutants_caught():
    th = D2 / S
    phi = normal_cdf
    half_exp = phi(th / 2 - EPS / th) - sympy.exp(EPS / 2) * phi(-th / 2 - EPS / th)
    dropped = phi(th / 2 - EPS / th)
    for bad in (half_exp, dropped):
        r = mp.check_gauss(_fast(), profile=bad)
        assert r.verdict is Verdict.REFUTED, bad
    r = mp.check_gauss(_fast(), group=mp.GAUSS_PRINTED.subs(D2, D2 / J))
    assert r.statements[1].verdict is Verdict.REFUTED
    # Vadhan-style black-box substitution ε -> ε/j is not the white-box profile either.
    r = mp.check_gauss(_fast(), group=mp.GAUSS_PRINTED.subs(EPS, EPS / J))
    assert r.statements[1].verdict is Verdict.REFUTED


OLD_PARAMS = ((F(1), F(1)), (F(1), F(2)))  # θ ∈ {1, 1/2}: the grid before issue 14


@pytest.mark.parametrize("which", ["laplace", "gauss"])
def test_theta_grid_covers_small_and_large_theta(which, monkeypatch):
    """Issue 14 (narrowing review): Theorem 1 holds for every Δ, σ > 0; a printed formula that
    is right only for θ = Δ/σ ∈ [1/2, 3] (the old grid's range, j ≤ 3) must be caught, and
    the old grid misses it (so the test tells the widening apart)."""
    check, printed, d = ((mp.check_laplace, mp.LAPLACE_PRINTED, D1) if which == "laplace"
                         else (mp.check_gauss, mp.GAUSS_PRINTED, D2))
    assert {d_ / s_ for d_, s_ in mp.PARAMS} >= {F(1, 4), F(4)}
    for clamp in (sympy.Min(d / S, 3) * S, sympy.Max(d / S, sympy.Rational(1, 2)) * S):
        bad = printed.subs(d, clamp)
        assert check(_fast(), profile=bad).statements[0].verdict is Verdict.REFUTED, clamp
        with monkeypatch.context() as m:
            m.setattr(mp, "PARAMS", OLD_PARAMS)
            assert check(_fast(), profile=bad).statements[0].verdict is Verdict.HOLDS, clamp


def test_laplace_support_and_values():
    for theta in (F(1, 2), F(1), F(3)):
        assert laplace_profile(theta, theta) == Bracket.point(0)
        assert laplace_profile(theta + 1, theta) == Bracket.point(0)
        assert laplace_hockey_stick(theta, theta)[0] == Bracket.point(0)
        # below θ it is positive: 1 − e^{(ε−θ)/2} > 0
        assert laplace_profile(theta / 2, theta).lo > 0
    # ε = 0: total variation 1 − e^{−θ/2}
    b = laplace_profile(0, F(2))
    assert abs(b.lo - F(6321205588285577, 10**16)) < F(1, 10**16)


@pytest.mark.parametrize("prof", [laplace_profile, gaussian_profile])
def test_monotone_decreasing_in_eps(prof):
    grid = [F(0), F(1, 10), F(1, 2), F(1), F(2), F(5), F(10), F(20)]
    vals = [prof(e, F(3, 2)) for e in grid]
    for a, b in zip(vals, vals[1:], strict=False):
        assert b.hi <= a.lo or a == b == Bracket.point(0)
    assert all(v.lo >= 0 and v.hi <= 1 for v in vals)


@pytest.mark.parametrize("group", [laplace_group_profile, gaussian_group_profile])
def test_group_increasing_in_j(group):
    for eps in (F(0), F(1, 2), F(2)):
        vals = [group(eps, j, F(1)) for j in (1, 2, 3, 4)]
        for a, b in zip(vals, vals[1:], strict=False):
            assert a.hi < b.lo or a == b == Bracket.point(0)


def test_reference_nondecreasing_in_shift():
    # The worst pair at distance <= j is the largest shift jΔ/σ (module docstring).
    for ref in (laplace_hockey_stick, gaussian_hockey_stick):
        vals = [ref(F(1), F(k, 2))[0] for k in (1, 2, 3, 4)]
        for a, b in zip(vals, vals[1:], strict=False):
            assert a.hi <= b.lo


def test_gaussian_large_eps_is_tiny_but_positive():
    b = gaussian_profile(F(20), F(1, 2))
    assert b.lo > 0 and b.hi < F(1, 10**340)
    assert b.width < b.lo / 10**40
    ref, _ = gaussian_hockey_stick(F(20), F(1, 2))
    assert mp.decide(b, ref)[0] is Verdict.HOLDS


@pytest.mark.parametrize("eps,theta", [(F(0), F(1, 3)), (F(1), F(1)), (F(5, 2), F(7, 2)),
                                       (F(20), F(1, 2)), (F(-1), F(2))])
def test_barith_route_encloses_the_sympy_route(eps, theta):
    """The fast closed form (bracket arithmetic) and the sympy route overlap and are both
    narrow: the same number by two evaluators; a swapped sign of ε/θ would not overlap."""
    fast = gaussian_profile_barith(eps, theta)
    slow = gaussian_profile(max(eps, F(0)), theta) if eps >= 0 else None
    if slow is not None:
        assert fast.lo <= slow.hi and slow.lo <= fast.hi
        assert fast.width <= max(abs(fast.lo), F(1, 10**300)) / 10**30
    # the sign of ε/θ swapped: Φ(θ/2 + ε/θ) − e^ε Φ(−θ/2 + ε/θ)
    mutant = barith.sub(special.ncdf(theta / 2 + eps / theta),
                        barith.mul(special.exp(eps), special.ncdf(-theta / 2 + eps / theta)))
    if eps > 0:
        assert mutant.hi < fast.lo or mutant.lo > fast.hi
    with pytest.raises(ValueError):
        gaussian_profile_barith(eps, F(0))


def test_decide_rule():
    one = Bracket.point(1)
    assert mp.decide(one, one)[0] is Verdict.HOLDS
    assert mp.decide(one, Bracket(F(1), F(1) + F(1, 10**8)))[0] is Verdict.INCONCLUSIVE
    assert mp.decide(one, Bracket.point(F(2)))[0] is Verdict.REFUTED
    assert mp.decide(Bracket(0, F(1, 10**60)), Bracket.point(0))[0] is Verdict.HOLDS


def test_reference_agrees_with_gauss_legendre():
    # The reference's error estimate is tanh-sinh's own; cross-check one hard case with an
    # independent quadrature rule.
    import mpmath

    with mpmath.workdps(55):
        e, th = mpmath.mpf(10), mpmath.mpf(1) / 2
        xs = th / 2 - e / th
        c = 1 / mpmath.sqrt(2 * mpmath.pi)
        scale = c * mpmath.exp(-xs * xs / 2)

        def f(x):
            p = c * mpmath.exp(-x * x / 2)
            q = c * mpmath.exp(-((x - th) ** 2) / 2)
            return (p - mpmath.exp(e) * q) / scale

        # the integrand is < e^{-98} of its peak below x* − 5
        pts = [xs - 5, xs - 1, xs - mpmath.mpf(1) / 4, xs]
        gl = mpmath.quad(f, pts, method="gauss-legendre") * scale
        ref, _ = gaussian_hockey_stick(F(10), F(1, 2))
        hi = mpmath.mpf(ref.hi.numerator) / ref.hi.denominator
        assert abs(hi - gl) < gl * mpmath.mpf(10) ** -30
