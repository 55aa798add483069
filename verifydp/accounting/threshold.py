"""Threshold tests on concrete dataset pairs: certified lower ends of δ(ε) (issue 16).

A test A on the outputs gives δ(ε) ≥ Pr_P(A) − e^ε Pr_Q(A) for every ε; over T independent
releases, "at least k of the T outputs ≥ τ" has binomial tails on both sides (the tails grow
with the per-release rate, so the lower end of P's rate and the upper end of Q's keep the
difference certified). `mixture_count_test` takes any mixture of shifted kernels against the
unshifted one — no monotone loss needed; `count_test` is its two-point case; shuffled
batches' max test (`accounting.shuffle`) uses the same candidates. Kernel cdfs are arb balls
(`verifydp.exact.arb.kernel_cdf`), e^ε is `verifydp.exact.special.exp`'s enclosure; floats
only pick thresholds and which candidate to report. docs/foundations.md#composition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import flint
import numpy as np

from verifydp.exact.arb import ball, bracket_ball, kernel_cdf, rational
from verifydp.exact.special import exp as exp_bracket

__all__ = ["KERNELS", "ThresholdTest", "binomial_tails", "clip01", "count_test",
           "kernel_cdf_at", "mixture_count_test", "thresholds"]

KERNELS = ("gauss", "laplace")
_CERTIFY = 4  # candidates evaluated rigorously per ε (the best by floats)


def kernel_cdf_at(kernel: str, x: Fraction) -> flint.arb:
    """The standard kernel's cdf at the rational x, enclosed (`verifydp.exact.arb`)."""
    return kernel_cdf(kernel, ball(x), x < 0)


def clip01(x: flint.arb) -> flint.arb:
    """The ball intersected with [0, 1] (probabilities), so rounding cannot leave it."""
    lo = max(x.lower(), flint.arb(0))
    hi = min(x.upper(), flint.arb(1))
    return lo.union(hi)


def binomial_tails(p: flint.arb, n: int) -> list[flint.arb]:
    """[Pr(Bin(n, p) ≥ k) for k = 0 … n] in arb, summed from the top."""
    q = 1 - p
    out = [flint.arb(0)] * (n + 1)
    acc = flint.arb(0)
    for k in range(n, -1, -1):
        acc = acc + flint.arb(comb(n, k)) * p**k * q ** (n - k)
        out[k] = acc
    return out


@dataclass(frozen=True)
class ThresholdTest:
    """Precomputed candidates (a, c): δ(ε) ≥ a − e^ε c for each, a and c arb balls whose
    lower / upper ends are used. `describe` says which test and pair."""

    candidates: tuple[tuple[flint.arb, flint.arb], ...] = field(repr=False)
    describe: str = ""
    _a: np.ndarray = field(init=False, repr=False, compare=False)
    _c: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # float copies only rank the candidates; the reported value is an arb lower end
        object.__setattr__(self, "_a", np.array([float(a.mid()) for a, _ in self.candidates]))
        object.__setattr__(self, "_c", np.array([float(c.mid()) for _, c in self.candidates]))

    def delta(self, epsilon: Fraction) -> Fraction:
        """A certified lower bound on δ(ε) of the concrete dataset pair (≥ 0): the best few
        candidates by floats, each evaluated with its certified ends."""
        if not self.candidates:
            return Fraction(0)
        e = bracket_ball(exp_bracket(Fraction(epsilon)))
        score = self._a - float(e.mid()) * self._c
        best = Fraction(0)
        for i in np.argsort(score)[-_CERTIFY:]:
            a, c = self.candidates[int(i)]
            best = max(best, rational(a.lower() - e.upper() * c.upper(), up=False))
        return best


def thresholds(kernel: str, mu: Fraction) -> list[Fraction]:
    """The float-chosen thresholds (noise units): the max of t draws sits a few units up."""
    if kernel == "gauss":
        return [Fraction(k, 32) for k in range(-64, int((mu + 9) * 32) + 1)]
    return [Fraction(k, 16) for k in range(-80, int((mu + 40) * 16) + 1)]


_COUNTS = 48  # counts k tried per threshold (all when T is small, else spread over 1 … T)


def count_test(kernel: str, mu: Fraction, rate: Fraction, steps: int) -> ThresholdTest:
    """The threshold-count test on T independent releases of the added pair
    (1 − r)K(0) + rK(μ) against K(0) (noise units): `mixture_count_test`. Used where
    composing the pair on a lattice would take a loss range of hundreds (a whole cluster
    displaced)."""
    if not (0 < rate <= 1 and mu > 0):
        raise ValueError("count test: need 0 < r ≤ 1, μ > 0")
    comps = ((1 - rate, Fraction(0)), (rate, Fraction(mu))) if rate < 1 else ((rate, mu),)
    return mixture_count_test(kernel, comps, steps,
                              f"rate {rate}, shift μ = {float(mu):.4g} noise units")


def mixture_count_test(kernel: str, comps: tuple[tuple[Fraction, Fraction], ...], steps: int,
                       what: str = "") -> ThresholdTest:
    """The threshold-count test on T independent releases of Σ_i w_i K(μ_i) against K(0)
    (shifts in noise units, of any sign: no monotone loss is needed): "at least k of the T
    outputs ≥ τ" has probability Pr[Bin(T, p) ≥ k] with p = Σ_i w_i S(τ − μ_i) under the
    first and Pr[Bin(T, S(τ)) ≥ k] under the second (S the kernel's survival function), so
    δ(ε) ≥ Pr[Bin(T, p) ≥ k] − e^ε Pr[Bin(T, S(τ)) ≥ k] for every τ and k (a test on the
    pair; the tails grow with p, so the lower end of p and the upper end of S(τ) keep it
    certified)."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}")
    if steps < 1 or sum(w for w, _ in comps) != 1 or any(w < 0 for w, _ in comps):
        raise ValueError("count test: need T ≥ 1 and weights summing to 1")
    top = max(mu for _, mu in comps)
    if top <= 0:
        return ThresholdTest((), "no component above the reference: no test")
    ks = (range(1, steps + 1) if steps <= _COUNTS else
          sorted({max(1, round(steps * (i / _COUNTS) ** 2)) for i in range(1, _COUNTS + 1)}))
    cands: list[tuple[flint.arb, flint.arb]] = []
    for tau in thresholds(kernel, top)[::2]:
        s0 = clip01(1 - kernel_cdf_at(kernel, tau))
        p = clip01(sum((ball(w) * (1 - kernel_cdf_at(kernel, tau - mu)) for w, mu in comps if w),
                        flint.arb(0)))
        tp, tq = binomial_tails(p.lower(), steps), binomial_tails(s0.upper(), steps)
        cands += [(tp[k], tq[k]) for k in ks]
    return ThresholdTest(tuple(cands), f"at least k of {steps} outputs ≥ τ on the realised pair "
                                     f"({what})")
