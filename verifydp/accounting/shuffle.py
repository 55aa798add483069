"""Shuffling into fixed batches: a certified lower bound from Chua et al.'s max test (issue 16).

A shuffling loader permutes the N records uniformly and cuts the permutation into
T = ⌊N/b⌋ batches of b (the last N − T·b records are dropped for the epoch, as with
``drop_last``); one release per batch, a new permutation per epoch. No simple dominating pair
is known (Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, "How Private are DP-SGD
Implementations?", ICML 2024; and "Scalable DP-SGD: Shuffling vs. Poisson Subsampling",
NeurIPS 2024), so the deployment audit brackets it: the upper end assumes no amplification
(one epoch is dominated by one release at the substitution diameter d, proofs/
deployment_pairs.md#shuffle), and the lower end, computed here, is a test on a concrete
dataset pair.

**The pair.** Every other record at −C, the differing record at −C (D) or +C (D'). Each
released batch sum is −bC under D; under D' the batch holding the record (released with
probability w = t·b/N when t batches are released, each equally likely) moves by d = 2C.
In units of the noise scale s, with μ = d/s and F the kernel's cdf (Φ, or the Laplace cdf),
the outputs of one epoch are t independent draws, one of them shifted by μ under D'.

**The test** max_j y_j ≥ τ (Chua et al. 2024, Section 4):

    Pr_{D'} = 1 − (w F(τ−μ) F(τ)^{t−1} + (1−w) F(τ)^t),    Pr_D = 1 − F(τ)^t,

so δ(ε) ≥ Pr_{D'}(A) − e^ε Pr_D(A) and, for the other order, δ(ε) ≥ Pr_D(A^c) − e^ε
Pr_{D'}(A^c). With E ≥ 1 whole epochs (independent permutations, and a non-adaptive
mechanism on this pair, so independent epochs) the number of epochs in which A happens is
Bin(E, p) against Bin(E, p'), and the test "at least k epochs" gives δ ≥ Pr[Bin(E, p) ≥ k] −
e^ε Pr[Bin(E, p') ≥ k] (k = 1 … E; the tails increase with the rate, so the lower end of p and
the upper end of p' keep it certified). Releases beyond the last whole epoch are ignored:
dropping outputs is post-processing, so it can only lower H_γ.

Rigour: F is the package's arb kernel cdf (`verifydp.exact.arb.kernel_cdf`), e^ε is
`verifydp.exact.special.exp`'s enclosure; powers and binomial tails are python-flint arb balls
at the default precision; floats only pick the thresholds τ and which candidate to report. docs/foundations.md#composition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import flint
import numpy as np

from verifydp.exact.arb import ball, bracket_ball, kernel_cdf, rational
from verifydp.exact.special import exp as exp_bracket

__all__ = ["ShuffleTest", "count_test", "max_test_probabilities", "mixture_count_test",
           "shuffle_lower"]

_KERNELS = ("gauss", "laplace")
_CERTIFY = 4  # candidates evaluated rigorously per ε (the best by floats)


def _cdf(kernel: str, x: Fraction) -> flint.arb:
    """The standard kernel's cdf at the rational x, enclosed (`verifydp.exact.arb`)."""
    return kernel_cdf(kernel, ball(x), x < 0)


def max_test_probabilities(kernel: str, mu: Fraction, tau: Fraction, released: int,
                       w: Fraction) -> tuple[flint.arb, flint.arb]:
    """(Pr_{D'}(max ≥ τ), Pr_D(max ≥ τ)) over one epoch of `released` batches, the record's
    batch released with probability w (module docstring), as arb balls."""
    f, g = _cdf(kernel, tau), _cdf(kernel, tau - mu)
    ft1 = f ** (released - 1)
    wa = ball(w)
    p_shift = 1 - (wa * g * ft1 + (1 - wa) * ft1 * f)
    p_plain = 1 - ft1 * f
    return p_shift, p_plain


def _clip01(x: flint.arb) -> flint.arb:
    """The ball intersected with [0, 1] (probabilities), so rounding cannot leave it."""
    lo = max(x.lower(), flint.arb(0))
    hi = min(x.upper(), flint.arb(1))
    return lo.union(hi)


def _tails(p: flint.arb, n: int) -> list[flint.arb]:
    """[Pr(Bin(n, p) ≥ k) for k = 0 … n] in arb, summed from the top."""
    q = 1 - p
    out = [flint.arb(0)] * (n + 1)
    acc = flint.arb(0)
    for k in range(n, -1, -1):
        acc = acc + flint.arb(comb(n, k)) * p**k * q ** (n - k)
        out[k] = acc
    return out


@dataclass(frozen=True)
class ShuffleTest:
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


def _taus(kernel: str, mu: Fraction) -> list[Fraction]:
    """The float-chosen thresholds (noise units): the max of t draws sits a few units up."""
    if kernel == "gauss":
        return [Fraction(k, 32) for k in range(-64, int((mu + 9) * 32) + 1)]
    return [Fraction(k, 16) for k in range(-80, int((mu + 40) * 16) + 1)]


def shuffle_lower(kernel: str, mu: Fraction, batches: int, size: int, batch: int,
                  steps: int) -> ShuffleTest:
    """The max test on the concrete pair (module docstring) after `steps` releases of a
    shuffling loader with `batches` = ⌊N/b⌋ batches of `batch` per epoch, population `size`,
    shift `mu` in noise units."""
    if kernel not in _KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}")
    if not (0 < batch <= size and batches == size // batch and steps >= 1 and mu > 0):
        raise ValueError("shuffle: need 0 < b ≤ N, batches = N // b, steps ≥ 1, μ > 0")
    epochs = steps // batches
    released = batches if epochs else steps
    w = Fraction(released * batch, size)
    n = max(epochs, 1)
    cands: list[tuple[flint.arb, flint.arb]] = []
    for tau in _taus(kernel, mu):
        p_shift, p_plain = (_clip01(x) for x in max_test_probabilities(kernel, mu, tau, released, w))
        for hit_p, hit_q in ((p_shift, p_plain), (1 - p_plain, 1 - p_shift)):  # both orders
            hit_p, hit_q = _clip01(hit_p), _clip01(hit_q)
            if n == 1:
                cands.append((hit_p, hit_q))
                continue
            # rates at their certified ends, then the binomial tails (monotone in the rate)
            tp = _tails(hit_p.lower(), n)
            tq = _tails(hit_q.upper(), n)
            cands += [(tp[k], tq[k]) for k in range(1, n + 1)]
    what = (f"max over the {released} batch outputs ≥ τ" +
            (f", counted over {epochs} epochs" if epochs > 1 else ""))
    return ShuffleTest(tuple(cands), f"Chua et al.'s test ({what}) on others at −C, the record "
                                     f"−C vs +C (shift μ = {float(mu):.4g} noise units)")


_COUNTS = 48  # counts k tried per threshold (all when T is small, else spread over 1 … T)


def count_test(kernel: str, mu: Fraction, rate: Fraction, steps: int) -> ShuffleTest:
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
                       what: str = "") -> ShuffleTest:
    """The threshold-count test on T independent releases of Σ_i w_i K(μ_i) against K(0)
    (shifts in noise units, of any sign: no monotone loss is needed): "at least k of the T
    outputs ≥ τ" has probability Pr[Bin(T, p) ≥ k] with p = Σ_i w_i S(τ − μ_i) under the
    first and Pr[Bin(T, S(τ)) ≥ k] under the second (S the kernel's survival function), so
    δ(ε) ≥ Pr[Bin(T, p) ≥ k] − e^ε Pr[Bin(T, S(τ)) ≥ k] for every τ and k (a test on the
    pair; the tails grow with p, so the lower end of p and the upper end of S(τ) keep it
    certified)."""
    if kernel not in _KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}")
    if steps < 1 or sum(w for w, _ in comps) != 1 or any(w < 0 for w, _ in comps):
        raise ValueError("count test: need T ≥ 1 and weights summing to 1")
    top = max(mu for _, mu in comps)
    if top <= 0:
        return ShuffleTest((), "no component above the reference: no test")
    ks = (range(1, steps + 1) if steps <= _COUNTS else
          sorted({max(1, round(steps * (i / _COUNTS) ** 2)) for i in range(1, _COUNTS + 1)}))
    cands: list[tuple[flint.arb, flint.arb]] = []
    for tau in _taus(kernel, top)[::2]:
        s0 = _clip01(1 - _cdf(kernel, tau))
        p = _clip01(sum((ball(w) * (1 - _cdf(kernel, tau - mu)) for w, mu in comps if w),
                        flint.arb(0)))
        tp, tq = _tails(p.lower(), steps), _tails(s0.upper(), steps)
        cands += [(tp[k], tq[k]) for k in ks]
    return ShuffleTest(tuple(cands), f"at least k of {steps} outputs ≥ τ on the realised pair "
                                     f"({what})")
