"""The composition oracle (tests/oracles/composition.py) against closed forms and independent
quadratures: before it may judge the deployment audit (tests/audit/test_deployment_composition.py)
its brackets must contain the truth and be narrow."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from tests.oracles.composition import (
    compose,
    continuous_release,
    dgauss_release,
    estimate,
    hockey_stick,
    rr_release,
)

EPS = (0.0, 0.25, 1.0, 2.0)


def gaussian_shift(theta: float, eps: float) -> float:
    """δ(ε) of N(θ, 1) against N(0, 1) (Balle & Wang 2018)."""
    return norm.cdf(-eps / theta + theta / 2) - math.exp(eps) * norm.cdf(-eps / theta - theta / 2)


def _contains(br: np.ndarray, exact: list[float], rel: float = 1e-3, absolute: float = 1e-9
              ) -> None:
    for (lo, hi), x, e in zip(br, exact, EPS, strict=True):
        assert lo <= x <= hi, (e, lo, x, hi)
        assert hi - lo <= rel * x + absolute, (e, lo, x, hi)


@pytest.mark.parametrize("steps", [1, 2, 3])
@pytest.mark.parametrize("mu,sigma", [(1.0, 1.0), (2.0, 1.0), (0.5, 1.0), (2.0, 0.5)])
def test_gaussian_shift_composes_to_a_gaussian_shift(mu: float, sigma: float, steps: int) -> None:
    """N(μ, σ²)^T against N(0, σ²)^T is the Gaussian mechanism at θ = μ√T/σ: the bracket
    contains the closed form and is within 1e-3 of it (relative), both orders."""
    exact = [gaussian_shift(mu * math.sqrt(steps) / sigma, e) for e in EPS]
    fwd = hockey_stick([(((1.0, mu),), ((1.0, 0.0),))] * steps, "gauss", sigma, EPS)
    rev = hockey_stick([(((1.0, 0.0),), ((1.0, mu),))] * steps, "gauss", sigma, EPS)
    _contains(fwd, exact)
    _contains(rev, exact)


def test_unequal_gaussian_shifts_compose_to_their_norm() -> None:
    """A sequence of different shifts (0.5, 1, 2): the product is the Gaussian mechanism at
    θ = ‖μ‖ (rotation invariance), another closed form; order does not matter."""
    shifts = (0.5, 1.0, 2.0)
    exact = [gaussian_shift(math.hypot(*shifts), e) for e in EPS]
    for order in itertools.permutations(shifts):
        _contains(hockey_stick([(((1.0, m),), ((1.0, 0.0),)) for m in order], "gauss", 1.0,
                               EPS), exact)


def laplace_one(a: float, t: float) -> float:
    """δ(t) of Laplace(a, 1) against Laplace(0, 1), any real t: 1 − e^{(t−a)/2} on [−a, a],
    1 − e^t below (H_γ(P‖Q) = 1 − γ + γH_{1/γ}(Q‖P) and the pair's symmetry), 0 above."""
    if t >= a:
        return 0.0
    if t <= -a:
        return 1 - math.exp(t)
    return 1 - math.exp((t - a) / 2)


def laplace_composed(a: float, eps: float, steps: int) -> float:
    """T-fold δ by quadrature over the loss of one release under A (b = 1): an atom +a
    (x ≥ a, mass 1/2), an atom −a (x ≤ 0, mass e^{−a}/2) and L = 2x − a on (0, a) with
    density e^{x−a}/2 — δ_T(ε) = E[δ_{T−1}(ε − L)] (independent of the oracle's lattice)."""
    if steps == 1:
        return laplace_one(a, eps)

    def inner(t: float) -> float:
        return laplace_composed(a, t, steps - 1)

    # δ_{T−1} has kinks where its argument is a sum of the atoms ±a: tell quad where
    kinks = [x for x in ((eps + a - k * a) / 2 for k in range(-steps, steps + 1)) if 0 < x < a]
    part, _ = integrate.quad(lambda x: 0.5 * math.exp(x - a) * inner(eps - 2 * x + a), 0, a,
                             epsabs=1e-12, epsrel=1e-10, limit=200, points=kinks or None)
    return 0.5 * inner(eps - a) + 0.5 * math.exp(-a) * inner(eps + a) + part


@pytest.mark.parametrize("mu,b,steps", [(1.0, 1.0, 1), (1.0, 1.0, 2), (1.0, 1.0, 3),
                                         (2.0, 1.0, 1), (2.0, 1.0, 2), (2.0, 1.0, 3),
                                         (2.0, 0.5, 1), (2.0, 0.5, 2)])
def test_laplace_shift_against_quadrature(mu: float, b: float, steps: int) -> None:
    """Laplace(μ, b)^T against Laplace(0, b)^T: the closed form at T = 1, nested quadrature
    over the loss at T = 2, 3 (T = 3 at μ/b ≤ 2: the nested quadrature is slow beyond);
    the loss has atoms (at ±μ/b), some exactly at ε."""
    exact = [laplace_composed(mu / b, e, steps) for e in EPS]
    br = hockey_stick([(((1.0, mu),), ((1.0, 0.0),))] * steps, "laplace", b, EPS)
    for (lo, hi), x in zip(br, exact, strict=True):
        assert lo - 1e-9 <= x <= hi + 1e-9, (lo, x, hi)
        assert hi - lo <= 1e-3 * x + 1e-8, (lo, x, hi)


def _grid_delta(pairs: list[tuple[tuple[tuple[float, float], ...], ...]], kernel: str,
                scale: float, eps: float, n: int = 2400) -> float:
    """Two releases by a plain midpoint rule on an n × n grid (crude and independent)."""
    cs = [c for p, q in pairs for _, c in p + q]
    reach = (9 if kernel == "gauss" else 22) * scale
    xs = np.linspace(min(cs) - reach, max(cs) + reach, n)
    dx = xs[1] - xs[0]

    def dens(comps: tuple[tuple[float, float], ...]) -> np.ndarray:
        d = xs[None, :] - np.array([c for _, c in comps])[:, None]
        k = (np.exp(-((d / scale) ** 2) / 2) / (scale * math.sqrt(2 * math.pi)) if kernel == "gauss"
             else np.exp(-np.abs(d) / scale) / (2 * scale))
        return np.einsum("i,ij->j", np.array([w for w, _ in comps]), k)

    (p1, q1), (p2, q2) = pairs
    a = np.outer(dens(p1), dens(p2))
    b = np.outer(dens(q1), dens(q2))
    return float(np.maximum(a - math.exp(eps) * b, 0).sum() * dx * dx)


@pytest.mark.parametrize("kernel", ["gauss", "laplace"])
def test_mixture_sequences_against_a_grid(kernel: str) -> None:
    """Mixture against mixture, a different pair at each of two releases (the issue's kind of
    sequence: the second pair reversed): the bracket contains a 2-D midpoint sum up to its
    discretisation error, and lies within 1e-4 of it."""
    p = ((1 / 3, -0.8), (2 / 3, -1.4))
    q = ((1 / 3, -0.8), (2 / 3, 0.6))
    r = ((0.5, 0.0), (0.25, 1.0), (0.25, -1.0))
    pairs = [(q, p), (r, q)]
    br = hockey_stick(pairs, kernel, 1.0, EPS)
    for (lo, hi), e in zip(br, EPS, strict=True):
        ref = _grid_delta(pairs, kernel, 1.0, e)
        assert lo - 2e-4 <= ref <= hi + 2e-4, (e, lo, ref, hi)
        assert hi - lo <= 1e-4, (e, lo, hi)


def test_issue_26_numbers() -> None:
    """The issue's concrete pair (srswor m = 2 of {−0.4, −0.4, ∓1}, Laplace b = 1): δ(D'‖D)
    after the same pair at both releases is ≈ 0.30966 at ε = 1, above the fixed-orientation
    composition of the per-step pair (≈ 0.30038), and its one-release δ is below that pair's."""
    d = ((1 / 3, -0.8), (2 / 3, -1.4))
    d2 = ((1 / 3, -0.8), (2 / 3, 0.6))
    p, q = ((1 / 3, 0.0), (2 / 3, 2.0)), ((1.0, 0.0),)
    concrete = hockey_stick([(d2, d)] * 2, "laplace", 1.0, [1.0])[0]
    assert 0.30966 < concrete[0] <= concrete[1] < 0.30967
    fixed = max(hockey_stick([(p, q)] * 2, "laplace", 1.0, [1.0])[0, 1],
                hockey_stick([(q, p)] * 2, "laplace", 1.0, [1.0])[0, 1])
    assert 0.30038 < fixed < 0.30039 < concrete[0]
    one = hockey_stick([(d2, d)], "laplace", 1.0, EPS)
    pair = hockey_stick([(p, q)], "laplace", 1.0, EPS)
    assert np.all(one[:, 0] <= pair[:, 1])


def test_order_of_releases_does_not_matter() -> None:
    """⊗ is commutative: any order of three different releases gives overlapping brackets
    (the lattice path rounds the first two, so the brackets differ in their last digits)."""
    rels = [continuous_release(((0.5, 0.0), (0.5, 1.0)), ((1.0, 0.0),), "laplace", 1.0),
            continuous_release(((1.0, 0.5),), ((0.5, 0.0), (0.5, 1.5)), "gauss", 1.0),
            continuous_release(((0.3, 2.0), (0.7, 0.0)), ((1.0, 0.2),), "gauss", 0.7)]
    brs = [compose([rels[i] for i in order], EPS) for order in itertools.permutations(range(3))]
    for br in brs[1:]:
        assert np.all(np.maximum(br[:, 0], brs[0][:, 0]) <= np.minimum(br[:, 1], brs[0][:, 1])
                      + 1e-12)
        assert np.all(br[:, 1] - br[:, 0] <= 1e-3 * br[:, 1] + 1e-9)


def test_randomized_response_against_the_binomial_sum() -> None:
    """T-fold randomized response (ε0 = 1) of a bit 1 against 0: with k = e^ε0/(1 + e^ε0) and
    j ones among T outputs, δ(ε) = Σ_j C(T, j) (k^j (1−k)^{T−j} − e^ε k^{T−j} (1−k)^j)_+,
    exact; and a bit 1 w.p. 2/3 against 1/3 (atoms only: the bracket is a point)."""
    k = math.e / (1 + math.e)
    for steps in (1, 2, 3):
        rels = [rr_release(1.0, 0.0, 1.0)] * steps
        br = compose(rels, EPS)
        for (lo, hi), e in zip(br, EPS, strict=True):
            exact = sum(math.comb(steps, j) * max(0.0, k**j * (1 - k) ** (steps - j)
                                                  - math.exp(e) * k ** (steps - j) * (1 - k) ** j)
                        for j in range(steps + 1))
            assert lo <= exact <= hi and hi - lo <= 1e-9, (steps, e, lo, exact, hi)
    br = compose([rr_release(2 / 3, 1 / 3, 1.0), rr_release(1 / 3, 2 / 3, 1.0)], EPS)
    assert np.all(br[:, 1] - br[:, 0] <= 1e-9)


def test_discrete_gaussian_against_enumeration() -> None:
    """Two releases of mixtures of N_ℤ(c, σ²), σ = 1.5: the atom-tuple sum
    Σ (Π a − e^ε Π b)_+ written out with an independent pmf (wider support, normalised
    separately) lies in the bracket, which is a point up to the truncated tails."""
    sigma = 1.5
    ks = np.arange(-60, 61)
    pmf = np.exp(-(ks**2) / (2 * sigma**2))
    pmf /= pmf.sum()

    def law(comps: tuple[tuple[float, int], ...]) -> np.ndarray:
        out = np.zeros(len(ks))
        for w, c in comps:
            out += w * np.roll(pmf, c)
        return out

    p1, q1 = ((0.5, 0), (0.5, 2)), ((1.0, 0),)
    p2, q2 = ((1.0, -1),), ((0.25, 1), (0.75, 0))
    a = np.outer(law(p1), law(p2))
    b = np.outer(law(q1), law(q2))
    br = compose([dgauss_release(p1, q1, sigma), dgauss_release(p2, q2, sigma)], EPS)
    for (lo, hi), e in zip(br, EPS, strict=True):
        exact = float(np.maximum(a - math.exp(e) * b, 0).sum())
        assert lo - 1e-12 <= exact <= hi + 1e-12 and hi - lo <= 1e-9, (e, lo, exact, hi)


def test_estimate_ranks_like_the_bracket() -> None:
    """`estimate` (used to rank candidate pairs) is within 1e-3 of the bracket."""
    pairs = [(((0.5, 0.0), (0.5, 2.0)), ((1.0, 0.0),)), (((1.0, 1.0),), ((1.0, 0.0),)),
             (((1 / 3, -0.8), (2 / 3, 0.6)), ((1 / 3, -0.8), (2 / 3, -1.4)))]
    for kernel in ("gauss", "laplace"):
        est = estimate(pairs, kernel, 1.0, EPS)
        for i, pq in enumerate(pairs):
            br = hockey_stick([pq], kernel, 1.0, EPS)
            assert np.all(np.abs(est[i] - br[:, 0]) <= 1e-3), (kernel, i, est[i], br)
    dg = estimate([(((0.5, 0.0), (0.5, 2.0)), ((1.0, 0.0),))], "dgauss", 1.0, EPS)[0]
    br = hockey_stick([(((0.5, 0.0), (0.5, 2.0)), ((1.0, 0.0),))], "dgauss", 1.0, EPS)
    assert np.all(np.abs(dg - br[:, 0]) <= 1e-9)
