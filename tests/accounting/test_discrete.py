"""Discrete outputs in the certified composition (issue 16, item 2): randomized response and
the discrete Gaussian against exact values computed here independently (mpmath at 50
digits), against dp_accounting's PLD where it models the same pair, and mutants (a wrong
normaliser, a swapped orientation, a missing tail, ε0 doubled) that the brackets catch."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from fractions import Fraction as F

import flint
import mpmath
import pytest

from verifydp.accounting import atoms as A
from verifydp.accounting import composition as C
from verifydp.accounting.dominating import law_pair
from verifydp.exact.arb import rational
from verifydp.exact.interval import Bracket

DPS = 50
SLACK = F(1, 10**30)  # the mpmath values are exact to far more than this


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _near(x: mpmath.mpf) -> F:
    return F(mpmath.nstr(x, 45))


def contains(b: Bracket, exact: mpmath.mpf) -> bool:
    return b.lo - SLACK <= _near(exact) <= b.hi + SLACK


# ---------------------------------------------------------------- exact references


def rr_masses(pair: A.FinitePair) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    t = mpmath.exp(_mp(pair.theta))
    def side(atoms: tuple[tuple[F, F], ...]) -> list[mpmath.mpf]:
        return [(_mp(a) + _mp(b) * t) / (1 + t) for a, b in atoms]
    return side(pair.p), side(pair.q)


def exact_product(p: list[mpmath.mpf], q: list[mpmath.mpf], steps: int,
                  eps: F) -> tuple[mpmath.mpf, mpmath.mpf]:
    """δ_{P^T‖Q^T}(ε) and δ_{Q^T‖P^T}(ε) by enumerating every T-tuple of atoms."""
    e = mpmath.exp(_mp(eps))
    fwd = rev = mpmath.mpf(0)
    for tup in itertools.product(range(len(p)), repeat=steps):
        pp = mpmath.fprod(p[i] for i in tup)
        qq = mpmath.fprod(q[i] for i in tup)
        fwd += max(mpmath.mpf(0), pp - e * qq)
        rev += max(mpmath.mpf(0), qq - e * pp)
    return fwd, rev


def dg_pmf(sigma: F, reach: int) -> dict[int, mpmath.mpf]:
    """N_ℤ(0, σ²) on [−reach, reach] by direct summation; the normaliser over ±(reach + 400)
    (the rest is below e^{-10^4} for the σ used here)."""
    s2 = 2 * _mp(sigma) ** 2
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(k) ** 2 / s2) for k in range(-reach - 400, reach + 401))
    return {k: mpmath.exp(-mpmath.mpf(k) ** 2 / s2) / z for k in range(-reach, reach + 1)}


def exact_dg(pcomps: list[tuple[F, int]], qcomps: list[tuple[F, int]], sigma: F, steps: int,
             eps: F, reach: int = 40) -> mpmath.mpf:
    """max of both orders' δ for T releases of Σ w N_ℤ(c, σ²) vs Σ v N_ℤ(d, σ²), every
    T-tuple of outputs in [−reach, reach] enumerated (the rest has mass < e^{-200})."""
    g = dg_pmf(sigma, reach + 4)
    xs = range(-reach, reach + 1)
    p = [mpmath.fsum(_mp(w) * g[x - c] for w, c in pcomps) for x in xs]
    q = [mpmath.fsum(_mp(w) * g[x - c] for w, c in qcomps) for x in xs]
    return max(exact_product(p, q, steps, eps))


# ---------------------------------------------------------------- (a) exact values


@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("steps,eps", [(1, F(0)), (1, F(1, 20)), (3, F(1, 10)), (6, F(1, 5))])
def test_randomized_response_contains_the_exact_delta(symmetric: bool, steps: int,
                                                      eps: F) -> None:
    with mpmath.workdps(DPS):
        pair = A.randomized_response(F(1, 5), F(1), symmetric)
        exact = max(exact_product(*rr_masses(pair), steps, eps))
        b = C.compose(pair, steps, epsilon=eps, grid=C.Grid(h=F(1, 500)))
        assert contains(b, exact), (b, exact)
        assert b.width <= F(1, 100) * max(b.hi, F(1, 10**6))


@pytest.mark.parametrize("sigma,steps,eps", [(F(1), 1, F(1, 2)), (F(3, 2), 2, F(1, 4)),
                                             (F(1, 2), 1, F(1))])
def test_discrete_gaussian_contains_the_exact_delta(sigma: F, steps: int, eps: F) -> None:
    """N_ℤ(1, σ²) vs N_ℤ(0, σ²) (a count, no subsampling) by direct summation."""
    with mpmath.workdps(DPS):
        exact = exact_dg([(F(1), 1)], [(F(1), 0)], sigma, steps, eps, reach=30)
    pair = law_pair(((1, F(1)),), F(1), sigma, "dgauss", "added")
    b = C.compose(pair, steps, epsilon=eps, grid=C.Grid(h=F(1, 250)))
    assert contains(b, exact), (b, exact)
    assert b.width <= b.hi / 50


def test_subsampled_discrete_gaussian_contains_the_exact_delta() -> None:
    """Poisson(q = 1/4) count with N_ℤ noise σ = 1, two releases, and the fixed-size
    (displaced, shift 2) pair: exact by enumerating both outputs."""
    for form, shift in (("added", 1), ("displaced", 2)):
        with mpmath.workdps(DPS):
            exact = exact_dg([(F(3, 4), 0), (F(1, 4), shift)], [(F(1), 0)], F(1), 2, F(1, 4),
                             reach=25)
        pair = law_pair(((0, F(3, 4)), (1, F(1, 4))), F(shift), F(1), "dgauss", form)
        b = C.compose(pair, 2, epsilon=F(1, 4), grid=C.Grid(h=F(1, 250)))
        assert contains(b, exact), (form, b, exact)


def test_normaliser_encloses_the_sum() -> None:
    with mpmath.workdps(DPS):
        for sigma in (F(1, 3), F(1), F(7, 2), F(40)):
            z = A.normaliser(sigma)
            s2 = 2 * _mp(sigma) ** 2
            ref = mpmath.nsum(lambda k, s2=s2: mpmath.exp(-k**2 / s2), [-mpmath.inf, mpmath.inf])
            assert rational(z, False) <= _near(ref) <= rational(z, True)
            assert rational(z, True) - rational(z, False) < _near(ref) / 10**12


def test_discrete_gaussian_refuses_fractional_centres() -> None:
    with pytest.raises(ValueError, match="integer centres"):
        law_pair(((1, F(1)),), F(1, 2), F(1), "dgauss", "added")


# ---------------------------------------------------------------- (b) dp_accounting


def test_discrete_gaussian_against_dp_accounting() -> None:
    """dp_accounting's PLD of the (truncated, ±11.6σ by default) discrete Gaussian, Poisson
    subsampled, remove order: its pessimistic δ is at least our lower end, its optimistic one
    at most our upper end, and they agree to 1 %."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    sigma, q, steps, eps = F(2), F(1, 10), 20, F(1, 2)
    pair = law_pair(((0, 1 - q), (1, q)), F(1), sigma, "dgauss", "added")
    b = C.composed(pair, steps, C.Grid(h=F(1, 500))).delta_direction(eps, 0)

    def peer(pessimistic: bool) -> float:
        d = pld.from_discrete_gaussian_mechanism(float(sigma), sensitivity=1,
                                                 sampling_prob=float(q),
                                                 pessimistic_estimate=pessimistic,
                                                 value_discretization_interval=1e-4)
        return d.self_compose(steps).get_delta_for_epsilon(float(eps))

    hi, lo = peer(True), peer(False)
    assert float(b.lo) <= hi * (1 + 1e-9) and lo <= float(b.hi) * (1 + 1e-9), (b, lo, hi)
    assert abs(float(b.hi) / hi - 1) < 0.01


def test_randomized_response_against_dp_accounting() -> None:
    """Binary randomized response (dp_accounting: report a uniform bit w.p. p = 2/(1+e^ε0))
    and the subsampled pair as two probability mass functions."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    eps0, steps, eps = F(1, 2), 12, F(1)
    plain = A.randomized_response(F(1), eps0, symmetric=False)
    b = C.compose(plain, steps, epsilon=eps, grid=C.Grid(h=F(1, 1000)))
    p = 2 / (1 + float(mpmath.exp(_mp(eps0))))
    d = pld.from_randomized_response(p, 2, value_discretization_interval=1e-5)
    peer = d.self_compose(steps).get_delta_for_epsilon(float(eps))
    assert abs(peer / float(b.hi) - 1) < 2e-3, (b, peer)
    sub = A.randomized_response(F(1, 4), eps0, symmetric=False)
    with mpmath.workdps(30):
        pm, qm = rr_masses(sub)
    # dp_accounting takes log pmfs, (lower, upper) = (Q, P), loss log P/Q
    d2 = pld.from_two_probability_mass_functions(
        {1: float(mpmath.log(qm[0])), 0: float(mpmath.log(qm[1]))},
        {1: float(mpmath.log(pm[0])), 0: float(mpmath.log(pm[1]))},
        value_discretization_interval=1e-5, symmetric=False)
    peer2 = d2.self_compose(steps).get_delta_for_epsilon(float(eps) / 8)
    b2 = C.composed(sub, steps, C.Grid(h=F(1, 1000))).delta_direction(eps / 8, 0)
    assert float(b2.lo) * (1 - 1e-9) <= peer2 and abs(peer2 / float(b2.hi) - 1) < 2e-3


# ---------------------------------------------------------------- (c) mutants


def _caught(b: Bracket, exact: mpmath.mpf) -> bool:
    return not contains(b, exact)


def test_mutant_wrong_normaliser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The continuous normaliser σ√(2π) in place of Z(σ) (σ = 1/2: 1.4 % too small)."""
    sigma, eps = F(1, 2), F(1)
    with mpmath.workdps(DPS):
        exact = exact_dg([(F(1), 1)], [(F(1), 0)], sigma, 1, eps, reach=20)
    pair = law_pair(((1, F(1)),), F(1), sigma, "dgauss", "added")
    grid = C.Grid(h=F(1, 250))
    assert contains(C.compose(pair, 1, epsilon=eps, grid=grid), exact)

    def wrong(s: F, bits: int = 80) -> flint.arb:
        return flint.arb(s.numerator) / s.denominator * (2 * flint.arb.pi()).sqrt()

    monkeypatch.setattr(A, "normaliser", wrong)
    assert _caught(C.compose(pair, 1, epsilon=eps, grid=grid), exact)


def test_mutant_swapped_orientation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loss taken as log Q/P: one order's δ misses the exact δ_{P^T‖Q^T}."""
    pair = A.randomized_response(F(1, 3), F(1), symmetric=False)
    with mpmath.workdps(DPS):
        fwd, _ = exact_product(*rr_masses(pair), 4, F(1, 10))
    grid = C.Grid(h=F(1, 500))
    assert contains(C.composed(pair, 4, grid).delta_direction(F(1, 10), 0), fwd)
    real = A.finite_atoms

    def swapped(p: A.FinitePair) -> A.Atoms:
        at = real(p)
        return dataclasses.replace(at, loss=tuple(-x for x in at.loss))

    monkeypatch.setattr(C, "finite_atoms", swapped)
    assert _caught(C.composed(pair, 4, grid).delta_direction(F(1, 10), 0), fwd)


def test_mutant_missing_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short truncation (z = 2): the P-mass beyond the last atom must go to +∞; dropping it
    puts the upper end below the exact δ."""
    sigma, eps = F(1), F(1, 2)
    with mpmath.workdps(DPS):
        exact = exact_dg([(F(1), 1)], [(F(1), 0)], sigma, 1, eps, reach=30)
    pair = law_pair(((1, F(1)),), F(1), sigma, "dgauss", "added")
    grid = C.Grid(h=F(1, 250), z=2)
    assert contains(C.compose(pair, 1, epsilon=eps, grid=grid), exact)
    real = A.discrete_gaussian_atoms

    def no_tail(*args: object, **kw: object) -> A.Atoms:
        at = real(*args, **kw)  # type: ignore[arg-type]
        return dataclasses.replace(at, p_above=flint.arb(0), q_below=flint.arb(0))

    monkeypatch.setattr(C, "discrete_gaussian_atoms", no_tail)
    assert _caught(C.compose(pair, 1, epsilon=eps, grid=grid), exact)


def test_mutant_doubled_epsilon0(monkeypatch: pytest.MonkeyPatch) -> None:
    """ε0 replaced by 2ε0 inside the pair: the bracket excludes the exact δ."""
    steps, eps = 3, F(1, 10)
    make: Callable[..., A.FinitePair] = A.randomized_response
    with mpmath.workdps(DPS):
        exact = max(exact_product(*rr_masses(make(F(1, 4), F(1, 2), False)), steps, eps))
    mutant = make(F(1, 4), F(1), False)  # what a 2ε0 slip builds
    assert _caught(C.compose(mutant, steps, epsilon=eps, grid=C.Grid(h=F(1, 500))), exact)
    assert contains(C.compose(make(F(1, 4), F(1, 2), False), steps, epsilon=eps,
                              grid=C.Grid(h=F(1, 500))), exact)


def test_discrete_gaussian_survival_bound() -> None:
    """Pr(X ≥ t), X ~ N_ℤ(0, σ²), by direct summation lies below the bound the cluster
    audit's misclassification term uses, and the bound is within a factor 2 of it."""
    with mpmath.workdps(DPS):
        for sigma, t in ((F(1), F(5, 2)), (F(3), F(7)), (F(1, 2), F(1))):
            g = dg_pmf(sigma, 200)
            exact = mpmath.fsum(v for k, v in g.items() if k >= t)
            bound = A.discrete_gaussian_sf(t, sigma)
            assert _near(exact) <= rational(bound, True) <= 2 * _near(exact)
