"""Ground truth for checking peer libraries (issue 8, `bench/peers.py`, tests/test_peers_*.py).

Two kinds, both certified:

* **generic amplification** — the exact worst case over *every* ε-DP base mechanism of a
  sampling design (the LP engine, `verifydp.worstcase.worst_case_ratio`): what a library that
  amplifies an arbitrary (ε, δ)-DP mechanism (autodp's `subsample_epsdelta`, OpenDP's
  `make_population_amplification`) must never undercut;
* **the Poisson-subsampled Gaussian** (sensitivity 1, noise σ, add/remove neighbours, k-fold
  composition), the setting of DP-SGD accountants (dp-accounting, Opacus, prv-accountant,
  autodp): with the record, one step outputs (1 − q)N(0, σ²) + qN(1, σ²), without it N(0, σ²)
  (the standard dominating pair).  Post-processing by the sum S of the k outputs and the
  events {S > τ} / {S < τ} give a certified *lower* bound of the true δ(ε) — exact for k = 1,
  where a half-line is the optimal event (monotone likelihood ratio).  A library's δ below it
  (or its ε at δ below `gaussian_eps_lower`) is an unsound number.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

from verifydp.exact.interval import Bracket
from verifydp.exact.special import brackets_for_eps, exp_bracket, log_bracket
from verifydp.population import Population, Relation, universe_of
from verifydp.worstcase import MechanismClass, worst_case_ratio

# ---------------------------------------------------------------- generic amplification


def design_worst_ratio(design: object, p: Population, q: Population, relation: Relation,
                       eps: Fraction) -> Bracket:
    """Certified bracket of the exact worst-case e^{ε'} of `design` on (P, P') over every
    ε-DP base mechanism under `relation` (both directions; P, P' need not be neighbours)."""
    u = universe_of(p, q)
    lo, hi = brackets_for_eps(eps)
    law_p, law_q = design.sample_law(p, u), design.sample_law(q, u)  # type: ignore[attr-defined]
    w_lo = worst_case_ratio(law_p, law_q, MechanismClass(relation, lo, lo))
    w_hi = worst_case_ratio(law_p, law_q, MechanismClass(relation, hi, hi))
    assert w_lo.worst.lower is not None and w_hi.upper is not None
    return Bracket(w_lo.worst.lower, w_hi.upper)


def eps_of_ratio(b: Bracket) -> Bracket:
    """log of a bracket of e^{ε'}."""
    return Bracket(log_bracket(b.lo).lo, log_bracket(b.hi).hi)


# ---------------------------------------------------------------- subsampled Gaussian


def _weights(q: Fraction, k: int) -> list[Fraction]:
    return [comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(k + 1)]


def _sd(sigma: Fraction, k: int) -> Fraction:
    """σ√k, rational because k must be a perfect square (keeps every Φ argument rational)."""
    r = math.isqrt(k)
    if r * r != k:
        raise ValueError(f"k = {k} must be a perfect square (1, 4, 9, …)")
    return sigma * r


def _sf(x: float) -> float:
    return 0.5 * math.erfc(x / math.sqrt(2))


def _float_delta(sigma: float, q: float, k: int, eps: float, tau: float, remove: bool) -> float:
    s = sigma * math.sqrt(k)
    w = [comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(k + 1)]
    if remove:  # P (with the record) against P' (without), event S > τ
        return sum(wj * _sf((tau - j) / s) for j, wj in enumerate(w)) - math.exp(eps) * _sf(tau / s)
    return _sf(-tau / s) - math.exp(eps) * sum(wj * _sf((j - tau) / s) for j, wj in enumerate(w))


def _best_tau(sigma: float, q: float, k: int, eps: float, remove: bool) -> float:
    """The threshold maximising the float estimate (floats only choose the event): a grid,
    then golden-section refinement."""
    s = sigma * math.sqrt(k)
    lo, hi = -12 * s, k + 12 * s
    step = (hi - lo) / 200

    def f(t: float) -> float:
        return _float_delta(sigma, q, k, eps, t, remove)

    a = max((lo + step * i for i in range(201)), key=f)
    a, b = a - step, a + step
    g = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        c, d = b - g * (b - a), a + g * (b - a)
        if f(c) > f(d):
            b = d
        else:
            a = c
    return (a + b) / 2


def gaussian_delta_lower(sigma: Fraction, q: Fraction, k: int, eps: Fraction) -> Fraction:
    """Certified lower bound of the true δ(ε) of k-fold Poisson(q)-subsampled Gaussian(σ)
    (add/remove, both directions; k a perfect square)."""
    from verifydp.exact.special import ncdf as ncdf_bracket  # rigorous Φ at rationals, cached

    s = _sd(sigma, k)
    w = _weights(q, k)
    t_hi = exp_bracket(eps).hi
    best = Fraction(0)
    for remove in (True, False):
        tau = Fraction(_best_tau(float(sigma), float(q), k, float(eps), remove))
        tau = tau.limit_denominator(10**6)
        if remove:  # P(S > τ) − e^ε P'(S > τ); 1 − Φ(x) = Φ(−x)
            gain = sum((wj * ncdf_bracket(-(tau - j) / s).lo for j, wj in enumerate(w)),
                       Fraction(0))
            cost = t_hi * ncdf_bracket(-tau / s).hi
        else:  # P'(S < τ) − e^ε P(S < τ)
            gain = ncdf_bracket(tau / s).lo
            cost = t_hi * sum((wj * ncdf_bracket((tau - j) / s).hi for j, wj in enumerate(w)),
                              Fraction(0))
        best = max(best, gain - cost)
    return best


def gaussian_eps_lower(sigma: Fraction, q: Fraction, k: int, delta: Fraction,
                       iters: int = 40) -> Fraction:
    """A certified lower bound of the true ε(δ): the largest ε on a bisection for which
    `gaussian_delta_lower` still exceeds δ (then δ(ε) > δ, so ε(δ) > ε)."""
    lo, hi = Fraction(0), Fraction(64)
    if gaussian_delta_lower(sigma, q, k, lo) <= delta:
        return Fraction(0)
    for _ in range(iters):
        mid = (lo + hi) / 2
        if gaussian_delta_lower(sigma, q, k, mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo


def exceeds(value: float, floor: Fraction) -> bool:
    """Certified: the float `value` is at least `floor`."""
    return Fraction(value) >= floor


def exp_upper(x: float) -> Fraction:
    return exp_bracket(Fraction(x)).hi
