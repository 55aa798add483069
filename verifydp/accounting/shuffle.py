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
Under add/remove the same law arises from the record at +C present (N records) or absent
(the N − 1 others, which cut the same t batches when N mod b ∉ {0, b − 1}): where it stands
in a batch, a record at −C would stand without it.

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

from fractions import Fraction

import flint

from verifydp.accounting.threshold import (
    KERNELS,
    ThresholdTest,
    binomial_tails,
    clip01,
    kernel_cdf_at,
    thresholds,
)
from verifydp.exact.arb import ball

__all__ = ["max_test_probabilities", "shuffle_lower"]


def max_test_probabilities(kernel: str, mu: Fraction, tau: Fraction, released: int,
                       w: Fraction) -> tuple[flint.arb, flint.arb]:
    """(Pr_{D'}(max ≥ τ), Pr_D(max ≥ τ)) over one epoch of `released` batches, the record's
    batch released with probability w (module docstring), as arb balls."""
    f, g = kernel_cdf_at(kernel, tau), kernel_cdf_at(kernel, tau - mu)
    ft1 = f ** (released - 1)
    wa = ball(w)
    p_shift = 1 - (wa * g * ft1 + (1 - wa) * ft1 * f)
    p_plain = 1 - ft1 * f
    return p_shift, p_plain


def shuffle_lower(kernel: str, mu: Fraction, batches: int, size: int, batch: int,
                  steps: int, added: bool = False) -> ThresholdTest:
    """The max test on the concrete pair (module docstring) after `steps` releases of a
    shuffling loader with `batches` = ⌊N/b⌋ batches of `batch` per epoch, population `size`,
    shift `mu` in noise units. `added`: the pair is the add/remove one (the record at +C in
    the N-record dataset against the N − 1 others alone, which cut the same batches: in its
    batch it stands where a record at −C would, so the law is the same)."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}")
    if not (0 < batch <= size and batches == size // batch and steps >= 1 and mu > 0):
        raise ValueError("shuffle: need 0 < b ≤ N, batches = N // b, steps ≥ 1, μ > 0")
    epochs = steps // batches
    released = batches if epochs else steps
    w = Fraction(released * batch, size)
    n = max(epochs, 1)
    cands: list[tuple[flint.arb, flint.arb]] = []
    for tau in thresholds(kernel, mu):
        p_shift, p_plain = (clip01(x) for x in max_test_probabilities(kernel, mu, tau, released, w))
        for hit_p, hit_q in ((p_shift, p_plain), (1 - p_plain, 1 - p_shift)):  # both orders
            hit_p, hit_q = clip01(hit_p), clip01(hit_q)
            if n == 1:
                cands.append((hit_p, hit_q))
                continue
            # rates at their certified ends, then the binomial tails (monotone in the rate)
            tp = binomial_tails(hit_p.lower(), n)
            tq = binomial_tails(hit_q.upper(), n)
            cands += [(tp[k], tq[k]) for k in range(1, n + 1)]
    what = (f"max over the {released} batch outputs ≥ τ" +
            (f", counted over {epochs} epochs" if epochs > 1 else ""))
    pair = ("the record at +C present vs absent" if added else "the record −C vs +C")
    return ThresholdTest(tuple(cands), f"Chua et al.'s test ({what}) on others at −C, {pair} "
                                     f"(shift μ = {float(mu):.4g} noise units)")
