"""One epoch of balls-and-bins sampling (random allocation) with Gaussian noise, as certified
laws: a dominating pair on a lattice of likelihood ratios (the upper end) and a dominated pair
of exact bucket probabilities (the lower end's test). proofs/deployment_pairs.md#balls-and-bins,
docs/foundations.md#balls-and-bins.

**The pair.** Each record is assigned to one of the t steps of an epoch, uniformly and
independently of the other records; every step releases its batch's clipped sum plus
N(0, σ²C²) noise. Under add/remove the epoch is dominated by

    P = (1/t) Σ_i N(e_i, σ²I_t)   against   Q = N(0, σ²I_t)

(Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi, Sinha & Zhang, "Balls-and-Bins
Sampling for DP-SGD", AISTATS 2025; Feldman & Shenfeld, "Privacy amplification by random
allocation", 2025). Its likelihood ratio is LR(x) = S/t with S = Σ_i Y_i and
Y_i = exp((x_i − 1/2)/σ²). Under Q the Y_i are independent copies of Y = exp(sZ − s²/2)
(s = 1/σ, Z standard normal), with

    F(y) = Q(Y ≤ y) = Φ(σ log y + s/2),   G(y) = E_Q[Y; Y ≤ y] = Φ(σ log y − s/2),

G being also the law of the record's own coordinate under P. Both orders of δ are convex
functionals of the Q-law of LR: δ_{P‖Q}(ε) = E_Q[(LR − e^ε)_+], δ_{Q‖P}(ε) = E_Q[(1 − e^ε LR)_+].

**Upper end: a mean-preserving spread.** On the lattice gℕ each Y is spread to its two
neighbours mg ≤ Y ≤ (m+1)g with the weights that keep its mean (the hat functions); the sum
Ŝ of the spread terms has E[Ŝ | S] = S, so the Q-law of Ŝ/t dominates that of S/t in the
convex order, and the pair (P̂, Q̂) with Q̂ = law(Ŝ) and dP̂/dQ̂ = ŝ/t dominates (P, Q) in both
orders at every ε, hence after composition (Blackwell; docs/foundations.md#composition). Terms
above y_max = Mg are not spread: the event B that some Y_i exceeds y_max is revealed and given
the perfectly distinguishing pair (its P-mass at loss +∞, its Q-mass at −∞), with
P(B) ≤ P(Y' > y_max) + (t − 1)Q(Y > y_max) and Q(B) ≤ tQ(Y > y_max). The t-fold convolution of
the spread term's law is computed in arb ball arithmetic (python-flint's `arb_poly`, whose
products keep every coefficient's relative accuracy across hundreds of orders of magnitude),
truncated to a window of n lattice points; the mass beyond it (total minus retained, both
certified) goes to +∞ as well.

**Lower end: a test on a dominated pair.** Labelling every coordinate by min(⌊Y_i/g'⌋, M') is
post-processing of the output, so the pair of the labels' sum S↓ (its exact law: the t-fold
convolution under Q; one term from G and t − 1 from F under P) is dominated by (P, Q), and
every event in its composition is a test (docs/foundations.md#composition). The labels are
within g' of the likelihood ratio's terms, so the best threshold on their composed sum loses
only to second order against the optimal test.

Every probability comes from `verifydp.exact.normal_iv` (rigorous erfc enclosures) through
vector interval arithmetic; floats only choose the lattice sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

from verifydp.exact import normal_iv
from verifydp.exact import vecint as vi
from verifydp.exact.arb import ball

__all__ = ["Allocation", "AllocationLaws", "allocation_gaussian", "laws", "unresolved_mass"]

_TAIL_BITS = 44      # y_max: where P(Y' > y) + t·Q(Y > y) first falls below 2^-this (floats)
_WINDOW_BITS = 44    # the window: Ŝ beyond it carries P-mass below about 2^-this (floats)
_MAX_WINDOW = 2**17  # the longest convolution window either law uses


@dataclass(frozen=True)
class Allocation:
    """One epoch of balls-and-bins with Gaussian noise, under add/remove: each record in one
    of `bins` steps, uniformly and independently; noise multiplier `sigma` (noise sd over
    the clipping norm). `spacing` is the upper pair's lattice g of the terms Y_i, and
    `test_spacing` the lower test's label width g' (module docstring): any positive values
    are sound, smaller ones tighter and slower."""

    bins: int
    sigma: Fraction
    spacing: Fraction = Fraction(1, 20)
    test_spacing: Fraction = Fraction(1, 20)
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bins, int) or self.bins < 1:
            raise ValueError("balls-and-bins: the number of steps per epoch must be a "
                             "positive integer")
        if self.sigma <= 0:
            raise ValueError("balls-and-bins: the noise multiplier must be positive")
        if self.spacing <= 0 or self.test_spacing <= 0:
            raise ValueError("balls-and-bins: lattice spacings must be positive")


def allocation_gaussian(bins: int, sigma: Fraction) -> Allocation:
    """The epoch pair of t = `bins` steps at noise multiplier σ (module docstring)."""
    return Allocation(bins, Fraction(sigma), name=f"balls-and-bins t={bins}, σ={sigma}")


@dataclass(frozen=True)
class AllocationLaws:
    """Certified laws of one epoch (module docstring). Upper pair: atoms at likelihood ratio
    `spread_lr` (enclosures) with Q-masses `spread_q` (upper ends, used as the masses of a
    larger measure with the same ratios: every hockey-stick sum grows with them), P-mass
    `p_inf` at +∞, Q-mass `q_neg_inf` at −∞, and `q_top` beyond the window (its loss above
    the last atom's). Lower test: labels' likelihood-ratio enclosures `test_lr` (only their
    order matters) with P- and Q-mass enclosures, and the merged mass beyond the window."""

    spread_lr: vi.Iv
    spread_q: np.ndarray
    p_inf: flint.arb
    q_neg_inf: flint.arb
    q_top: flint.arb
    test_lr: vi.Iv
    test_p: vi.Iv
    test_q: vi.Iv
    test_bottom: tuple[flint.arb, flint.arb]  # the label sum 0 (every term in the first bin)
    test_top: tuple[flint.arb, flint.arb]     # beyond the window


def _phi(z: vi.Iv) -> tuple[vi.Iv, vi.Iv]:
    """Enclosures of Φ(z) and 1 − Φ(z) for z in the intervals z (non-decreasing ends), each
    end from the tail on its own side (accurate far out on either side)."""
    out = []
    for x in z:
        lo, hi, right = normal_iv.normal_tail(Fraction(0), Fraction(1), x)
        cdf = (np.where(right, vi.rdn(1 - hi), lo), np.where(right, vi.rup(1 - lo), hi))
        sf = (np.where(right, lo, vi.rdn(1 - hi)), np.where(right, hi, vi.rup(1 - lo)))
        out.append((cdf, sf))
    (cdf_l, sf_l), (cdf_h, sf_h) = out
    # Φ is increasing: Φ(z) ∈ [Φ(z_lo), Φ(z_hi)], 1 − Φ(z) ∈ [1 − Φ(z_hi), 1 − Φ(z_lo)]
    return ((np.maximum(cdf_l[0], 0.0), np.minimum(cdf_h[1], 1.0)),
            (np.maximum(sf_h[0], 0.0), np.minimum(sf_l[1], 1.0)))


def _z(sigma: Fraction, y: vi.Iv, shift: Fraction) -> vi.Iv:
    """σ·log y + shift, enclosed."""
    sl, sh = vi.of_ball(ball(sigma))
    c = vi.of_ball(ball(shift))
    lg = vi.log(y)
    z = vi.mul((np.full_like(lg[0], sl), np.full_like(lg[0], sh)), lg)
    return vi.add(z, (np.full_like(lg[0], c[0]), np.full_like(lg[0], c[1])))


def _bins(sigma: Fraction, g: Fraction, top: int) -> tuple[vi.Iv, vi.Iv, vi.Iv, vi.Iv]:
    """For the bins [kg, (k+1)g], k < top: enclosures of ΔF_k = Q(Y in bin) and
    ΔG_k = E_Q[Y; Y in bin], and of the tails Q(Y > top·g) and P(Y' > top·g)."""
    s = 1 / sigma
    m = np.arange(1, top + 1, dtype=float)
    # y_m = m·g as an interval (m exact, g rational)
    gl, gh = vi.of_ball(ball(g))
    y = vi.mul((m, m), (np.full_like(m, gl), np.full_like(m, gh)))
    out = []
    for shift in (s / 2, -s / 2):
        cdf, sf = _phi(_z(sigma, y, shift))
        # bin k = [y_k, y_{k+1}] with y_0 = 0 (Φ(−∞) = 0): right of the mean the difference
        # of survival functions, elsewhere of cdfs
        c_lo = np.concatenate(([0.0], cdf[0]))
        c_hi = np.concatenate(([0.0], cdf[1]))
        s_lo = np.concatenate(([1.0], sf[0]))
        s_hi = np.concatenate(([1.0], sf[1]))
        by_cdf = (vi.rdn(c_lo[1:] - c_hi[:-1]), vi.rup(c_hi[1:] - c_lo[:-1]))
        by_sf = (vi.rdn(s_lo[:-1] - s_hi[1:]), vi.rup(s_hi[:-1] - s_lo[1:]))
        right = c_lo[:-1] > 0.5
        d = (np.maximum(np.where(right, by_sf[0], by_cdf[0]), 0.0),
             np.where(right, by_sf[1], by_cdf[1]))
        out.append((d, (sf[0][-1:], sf[1][-1:])))
    (dF, tailF), (dG, tailG) = out
    return dF, dG, tailF, tailG


def _sizes(pair: Allocation, g: Fraction) -> tuple[int, int]:
    """(M, n) in floats: the top bin M (y_max = Mg) where P(Y' > y) + t·Q(Y > y) falls below
    2^-_TAIL_BITS, and the window n (a power of two) where Ŝ's P-mass beyond ng is below
    about 2^-_WINDOW_BITS (one record's term beyond ng − t, the others' sum near t): floats
    choose, the masses beyond are certified and counted either way."""
    from scipy.special import ndtri

    sig, t = float(pair.sigma), pair.bins
    s = 1 / sig
    z = -float(ndtri(2.0**-_TAIL_BITS / (t + 1)))
    y_max = math.exp((z + s / 2) / sig)
    m = max(int(math.ceil(y_max / float(g))), 2)
    zw = -float(ndtri(2.0**-_WINDOW_BITS))
    reach = t + 6 * math.sqrt(t * math.expm1(s * s)) + math.exp((zw + s / 2) / sig)
    n = 1 << max(int(math.ceil(math.log2(reach / float(g)))), 4)
    return min(m, n, _MAX_WINDOW), min(n, _MAX_WINDOW)


def unresolved_mass(pair: Allocation) -> float:
    """Floats: about the P-mass per epoch that the certified laws send to loss +∞ because the
    lattice windows are capped (`_MAX_WINDOW`): P(Y' > y) + (t − 1)Q(Y > y) at the largest
    term the spread reaches. A caller that needs δ below E times this learns before the
    laws are computed that no finite ε can be certified there (heavy-tailed terms: small σ)."""
    from scipy.special import ndtr

    top, _ = _sizes(pair, pair.spacing)
    y = top * float(pair.spacing)
    sig = float(pair.sigma)
    z = sig * math.log(y)
    return float(ndtr(-(z - 1 / (2 * sig))) + (pair.bins - 1) * ndtr(-(z + 1 / (2 * sig))))


def _power(base: flint.arb_poly, k: int, n: int) -> flint.arb_poly:
    """base^k truncated to degree < n, by binary powering (each product truncated)."""
    result: flint.arb_poly | None = None
    while True:
        if k & 1:
            result = base if result is None else (result * base).truncate(n)
        k >>= 1
        if not k:
            break
        base = (base * base).truncate(n)
    assert result is not None
    return result


def _poly(x: np.ndarray) -> flint.arb_poly:
    """The polynomial with the floats x as exact coefficients: its products' balls then hold
    only their own rounding (relative accuracy near 1e-14 in every coefficient), where balls
    of the inputs' widths would be widened to each block's largest entry by arb's products."""
    return flint.arb_poly([flint.arb(v) for v in x.tolist()])


def _fsum(x: np.ndarray, up: bool) -> float:
    """Σx rounded outward (math.fsum is correctly rounded: one rounding of the exact sum)."""
    s = math.fsum(x.tolist())
    return float(vi.rup(np.array([s]))[0] if up else vi.rdn(np.array([s]))[0])


def _ends(p: flint.arb_poly, n: int) -> vi.Iv:
    c = p.coeffs()
    lo, hi = np.zeros(n), np.zeros(n)
    for i, x in enumerate(c[:n]):
        lo[i], hi[i] = vi.of_ball(x)
    return np.maximum(lo, 0.0), hi


def _ratios(n: int, g: Fraction, t: int) -> vi.Iv:
    """Enclosures of m·g/t, m = 0 … n − 1."""
    m = np.arange(n, dtype=float)
    cl, ch = vi.of_ball(ball(g / t))
    return vi.mul((m, m), (np.full_like(m, cl), np.full_like(m, ch)))


@lru_cache(maxsize=4)
def laws(pair: Allocation) -> AllocationLaws:
    """The certified laws of one epoch (module docstring); a pure function of the frozen
    pair, cached because every lattice of a refinement reads the same laws."""
    t = pair.bins
    g = pair.spacing
    top, n = _sizes(pair, g)
    dF, dG, tailF, tailG = _bins(pair.sigma, g, top)
    # hat weights: bin k sends (k+1)ΔF_k − ΔG_k/g to k and ΔG_k/g − kΔF_k to k + 1
    k = np.arange(top, dtype=float)
    inv_g = vi.of_ball(1 / ball(g))
    gk = vi.mul(dG, (np.full_like(k, inv_g[0]), np.full_like(k, inv_g[1])))
    to_k = vi.sub(vi.mul(dF, (k + 1, k + 1)), gk)
    to_next = vi.sub(gk, vi.mul(dF, (k, k)))
    w = np.zeros(top + 1)
    w[:top] += np.maximum(to_k[1], 0.0)
    w[1:] = vi.rup(w[1:] + np.maximum(to_next[1], 0.0))
    w = vi.rup(w)
    spread = _power(_poly(w), t, n)
    q_hat = _ends(spread, n)
    wa = _poly(w)
    total = wa(flint.arb(1)) ** t                     # Σ of the whole power (mass)
    mean = wa.derivative()(flint.arb(1)) * ball(g)    # Σ_m mg·w_m
    p_total = mean * wa(flint.arb(1)) ** (t - 1)      # E[Ŝ/t]·… = t·mean·mass^(t−1)/t
    lr = _ratios(n, g, t)
    q_kept_lo = _fsum(q_hat[0], up=False)
    p_kept_lo = _fsum(vi.mul(lr, q_hat)[0], up=False)
    q_top = flint.arb(max((total - q_kept_lo).upper(), 0))
    p_top = flint.arb(max((p_total - p_kept_lo).upper(), 0))
    tf_hi, tg_hi = flint.arb(tailF[1][0]), flint.arb(tailG[1][0])
    p_b = tg_hi + (t - 1) * tf_hi
    q_b = t * tf_hi
    q0 = flint.arb(q_hat[1][0])  # Ŝ = 0: every term spread to 0 (ratio 0, loss −∞)
    # the lower test: labels min(⌊Y/g'⌋, M'), exact probabilities
    gt = pair.test_spacing
    top_t, n_t = _sizes(pair, gt)
    fF, fG, tF, tG = _bins(pair.sigma, gt, top_t)
    qt = (np.concatenate((fF[0], tF[0])), np.concatenate((fF[1], tF[1])))
    pt = (np.concatenate((fG[0], tG[0])), np.concatenate((fG[1], tG[1])))
    # the laws of the lower and of the upper ends of the terms' masses bound the true one
    # entrywise (non-negative coefficients), each power with its own rounding only
    ends = []
    for side in (0, 1):
        rest = _power(_poly(qt[side]), t - 1, n_t) if t > 1 else flint.arb_poly([1])
        ends.append(((rest * _poly(qt[side])).truncate(n_t),
                     (rest * _poly(pt[side])).truncate(n_t)))
    (q_lo, p_lo), (q_hi, p_hi) = ends
    q_t = (_ends(q_lo, n_t)[0], _ends(q_hi, n_t)[1])
    p_t = (_ends(p_lo, n_t)[0], _ends(p_hi, n_t)[1])
    lr_t = _ratios(n_t, gt, t)
    # beyond the window: the whole law's mass (its terms' sums to the power) minus the kept
    q_all = flint.arb(_fsum(qt[1], up=True)) ** t
    p_all = flint.arb(_fsum(pt[1], up=True)) * flint.arb(_fsum(qt[1], up=True)) ** (t - 1)
    top_pq = (flint.arb(0).union(flint.arb((p_all - _fsum(p_t[0], up=False)).upper())),
              flint.arb(0).union(flint.arb((q_all - _fsum(q_t[0], up=False)).upper())))
    bottom = (vi.ball_of(p_t[0][0], p_t[1][0]), vi.ball_of(q_t[0][0], q_t[1][0]))
    return AllocationLaws(
        spread_lr=(lr[0][1:], lr[1][1:]), spread_q=q_hat[1][1:],
        p_inf=flint.arb((p_b + p_top).upper()), q_neg_inf=flint.arb((q_b + q0).upper()),
        q_top=q_top,
        test_lr=(lr_t[0][1:], lr_t[1][1:]), test_p=(p_t[0][1:], p_t[1][1:]),
        test_q=(q_t[0][1:], q_t[1][1:]), test_bottom=bottom, test_top=top_pq)
