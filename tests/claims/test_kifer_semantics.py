"""verifydp.semantics: brackets vs independent references (dp-accounting, mpmath.quad)."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from verifydp.exact import barith as ba
from verifydp.exact.special import exp_bracket, log_bracket
from verifydp.semantics import gaussian, tails, testing
from verifydp.semantics.normal import phi, phi_inv


def _inside(x: float, b, rel: float = 1e-12) -> bool:
    return float(b.lo) * (1 - rel) - 1e-300 <= x <= float(b.hi) * (1 + rel) + 1e-300


@pytest.mark.parametrize("x", [F(1, 3), F(7, 2), F(100), F(1, 10**12), F(-5, 3)])
def test_exp_log_agree_with_interval_module(x):
    a, b = ba.exp(x), exp_bracket(x, 256)
    assert a.lo <= b.hi and b.lo <= a.hi
    if x > 0:
        c, d = ba.log(x), log_bracket(x, 256)
        assert c.lo <= d.hi and d.lo <= c.hi


def test_phi_inv_inverts_phi():
    for p in (F(1, 10**10), F(1, 100), F(1, 2), F(999, 1000)):
        z = phi_inv(p)
        assert phi(z.lo).lo < p < phi(z.hi).hi
        assert z.hi - z.lo < F(1, 10**20)


def _quad_delta(eps: float, mu: float) -> float:
    """δ(ε) = ∫ (p − e^ε q)_+ for N(0,1) vs N(μ,1), direct numerical integration."""
    mpmath.mp.dps = 30
    xs = eps / mu + mu / 2  # P = N(μ,1), Q = N(0,1): p > e^ε q exactly on x > xs
    f = lambda x: mpmath.npdf(x, mu, 1) - mpmath.e**eps * mpmath.npdf(x, 0, 1)  # noqa: E731
    return float(mpmath.quad(f, [xs, xs + 1, xs + 8, mpmath.inf]))


@pytest.mark.parametrize("mu,eps", [(F(1), F(1)), (F(1, 2), F(0)), (F(2), F(3)),
                                    (F(3, 2), F(1, 2))])
def test_gaussian_curve_matches_quad_and_dp_accounting(mu, eps):
    b = gaussian.delta_of_eps(eps, mu)
    assert _inside(_quad_delta(float(eps), float(mu)), b, 1e-9)
    pl = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    ref = pl.GaussianPrivacyLoss(standard_deviation=1 / float(mu), sensitivity=1.0)
    assert _inside(ref.get_delta_for_epsilon(float(eps)), b, 1e-9)


def test_gaussian_curve_at_census_rho_matches_dp_accounting():
    pl = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    mu = gaussian.mu_of_rho(F(263, 100))
    ref = pl.GaussianPrivacyLoss(standard_deviation=1 / float(mu.lo), sensitivity=1.0)
    for eps in (F(1), F(5), F(10)):
        assert _inside(ref.get_delta_for_epsilon(float(eps)), gaussian.delta_of_eps(eps, mu),
                       1e-8)


def test_power_and_pbdp_consistency():
    mu = gaussian.mu_of_rho(F(263, 100))
    assert F(48, 100) < gaussian.power(F(1, 100), mu).lo < F(49, 100)
    eps = gaussian.pbdp_eps(F(1, 10**6), mu)
    back = gaussian.pbdp_delta_at(eps, F(1, 10**6), mu)
    assert abs(back.lo - F(1, 10**6)) < F(1, 10**20)


def test_cks_matches_dp_accounting():
    r = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    d = tails.cks_delta_rdp(F(10), F(2), F(1))
    assert _inside(r.compute_delta([2.0], [1.0], 10.0)[0], d, 1e-9)


def test_zcdp_eps_mutant_is_not_the_inverse():
    import sympy

    mutant = tails.RHO + sympy.sqrt(tails.RHO * sympy.log(1 / tails.DELTA))
    assert tails.ev(tails.ZCDP_TAIL.subs(tails.EPS, mutant), rho=F(1), delta=F(1, 100)).lo > F(
        1, 100)


# ------------------------------------------------ Neyman–Pearson: one oracle, two drivers


def _oracle(pairs, level):
    """Brute force: best randomized test = best deterministic set plus a fraction of one
    more outcome (Neyman–Pearson); enumerate all sets and all fractional completions."""
    best = F(0)
    k = len(pairs)
    for mask in range(1 << k):
        lv = sum((pairs[i][0] for i in range(k) if mask >> i & 1), F(0))
        pw = sum((pairs[i][1] for i in range(k) if mask >> i & 1), F(0))
        if lv > level:
            continue
        best = max(best, pw)
        for j in range(k):
            if not mask >> j & 1 and pairs[j][0] > 0:
                frac = min(F(1), (level - lv) / pairs[j][0])
                best = max(best, pw + frac * pairs[j][1])
    return best


def _dist(ws):
    tot = sum(ws)
    return [F(w, tot) for w in ws]


dists = st.lists(st.integers(0, 6), min_size=2, max_size=4).filter(lambda w: sum(w[:2]) > 0)


@given(dists, dists, st.integers(0, 10))
@example([1, 1], [3, 1], 3)
def test_max_power_matches_oracle(wp, wq, lv):
    n = min(len(wp), len(wq))
    p, q = _dist(wp[:n]), _dist(wq[:n])
    pairs = list(zip(p, q, strict=True))
    level = F(lv, 10)
    b = testing.max_power(pairs, level)
    assert b.is_point and b.lo == min(F(1), _oracle(pairs, level))


def test_max_power_exhaustive_small():
    for a, b, c in product(range(1, 4), repeat=3):
        p = _dist([a, b, 1])
        q = _dist([c, 1, a])
        pairs = list(zip(p, q, strict=True))
        for lv in range(11):
            assert testing.max_power(pairs, F(lv, 10)).lo == min(F(1), _oracle(pairs, F(lv, 10)))
