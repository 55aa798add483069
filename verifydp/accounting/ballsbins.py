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

**Body and tail.** A cut c splits each term into the body (Y ≤ c) and the tail (Y > c), and
K, the number of tail terms, is revealed (a finer output dominates): K = 0 and K = 1 are
computed, K ≥ 2 (rare by the choice of c) gets the perfectly distinguishing pair of its
masses (P-mass at loss +∞, Q-mass at −∞), which dominates any pair of those masses. The tail
lives on geometric points a_0 = c < a_1 < … (relative spacing _RATIO), so a heavy tail costs
a few thousand points, not a window of its largest value; a term beyond the last point is
handled like K ≥ 2.

**Upper end: a mean-preserving spread.** Each body term is spread to its two neighbours on
the lattice gℕ, each tail term to its two neighbouring points a_k, with the weights that
keep its mean (hat functions); under K = 1 the other t − 1 terms' spread sum is spread once
more onto a coarser lattice. Conditionally on the output the spread sum Ŝ has E[Ŝ | Y] = S,
so the Q-law of Ŝ/t dominates that of S/t in the convex order, and the pair (P̂, Q̂) with
dP̂/dQ̂ = ŝ/t dominates (P, Q) in both orders at every ε, hence after composition (Blackwell;
docs/foundations.md#composition). The body's t- and (t − 1)-fold convolutions are computed
in arb ball arithmetic (python-flint's `arb_poly` products of exact floats, which keep each
coefficient's relative accuracy across hundreds of orders of magnitude), truncated to a
window; the mass beyond it (the whole law's minus the kept, both certified) is given the
perfectly distinguishing pair too.

**Lower end: a test on a dominated pair.** Labelling every body coordinate by ⌊Y_i/g'⌋ and
every tail coordinate by the point a_k below it is post-processing of the output, and so are
K and the labels' sum; the pair of their exact laws is dominated by (P, Q), and every event
in its composition is a test (docs/foundations.md#composition). The labels are within g' (or
the relative spacing) of the likelihood ratio's terms, so the best threshold on the composed
statistic loses only to second order against the optimal test.

Every probability comes from `verifydp.exact.normal_iv` (rigorous erfc enclosures) through
vector interval arithmetic; floats only choose the cut, the points and the windows.
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

_SMALL_BITS = 44     # K ≥ 2, and a term beyond the tail's last point: P-mass about 2^-this
_BODY_SD = 10        # a body window reaches the body sum's mean + this many sds + 1.5 cuts
_RATIO = 1 / 200     # the tail's points: a_{k+1} = a_k·(1 + _RATIO)
_COARSE = 512        # the body sum under one tail term: coarsened to about this many points
_MAX_WINDOW = 2**17  # the longest convolution window
_NEGLIGIBLE = 2.0**-80  # atoms of less Q-mass join the perfectly distinguished rest


@dataclass(frozen=True)
class Allocation:
    """One epoch of balls-and-bins with Gaussian noise, under add/remove: each record in one
    of `bins` steps, uniformly and independently; noise multiplier `sigma` (noise sd over
    the clipping norm). `spacing` is the upper pair's lattice g of the body terms, and
    `test_spacing` the lower test's label width g' (module docstring): any positive values
    are sound, smaller ones tighter and slower. By default (None) both are min(1/20, t/1000)
    (`lattices`): the likelihood ratio S/t moves by g/t per lattice step, so a few steps per
    epoch need a finer lattice of the terms, and many a coarser one to fit the window."""

    bins: int
    sigma: Fraction
    spacing: Fraction | None = None
    test_spacing: Fraction | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bins, int) or self.bins < 1:
            raise ValueError("balls-and-bins: the number of steps per epoch must be a "
                             "positive integer")
        if self.sigma <= 0:
            raise ValueError("balls-and-bins: the noise multiplier must be positive")
        if any(x is not None and x <= 0 for x in (self.spacing, self.test_spacing)):
            raise ValueError("balls-and-bins: lattice spacings must be positive")

    @property
    def lattices(self) -> tuple[Fraction, Fraction]:
        """(g, g'): the stated spacings, or min(1/20, t/1000) each, doubled until the body
        sum's bulk (t + 10 sd) fills at most half of the longest window (many steps per
        epoch: S/t still moves by g/t ≤ 1/20000 per step)."""
        auto = min(Fraction(1, 20), Fraction(self.bins, 1000))
        bulk = _bulk(self)
        while bulk / float(auto) > _MAX_WINDOW / 2:
            auto *= 2
        return (self.spacing if self.spacing is not None else auto,
                self.test_spacing if self.test_spacing is not None else auto)


def allocation_gaussian(bins: int, sigma: Fraction) -> Allocation:
    """The epoch pair of t = `bins` steps at noise multiplier σ (module docstring)."""
    return Allocation(bins, Fraction(sigma), name=f"balls-and-bins t={bins}, σ={sigma}")


@dataclass(frozen=True)
class AllocationLaws:
    """Certified laws of one epoch (module docstring). Upper pair: atoms at likelihood ratio
    `spread_lr` (enclosures, increasing) with Q-masses `spread_q` (upper ends, used as the
    masses of a larger measure with the same ratios: every hockey-stick sum grows with them),
    P-mass `p_inf` at +∞ and Q-mass `q_neg_inf` at −∞. Lower test: the statistic's
    likelihood-ratio labels `test_lr` (increasing; only their order matters) with P- and
    Q-mass enclosures, the label 0, and the merged rest (its P-mass dropped, its Q-mass an
    upper end: counted in every tail)."""

    spread_lr: vi.Iv
    spread_loss: vi.Iv     # log of spread_lr, enclosed
    spread_q: np.ndarray
    p_inf: flint.arb
    q_neg_inf: flint.arb
    test_lr: vi.Iv
    test_loss: vi.Iv       # log of test_lr, enclosed
    test_p: vi.Iv
    test_q: vi.Iv
    test_bottom: tuple[flint.arb, flint.arb]
    test_top: tuple[flint.arb, flint.arb]


# ---------------------------------------------------------------- certified masses


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


def _const(x: Fraction | float, like: np.ndarray) -> vi.Iv:
    lo, hi = vi.of_ball(ball(Fraction(x)))
    return np.full_like(like, lo), np.full_like(like, hi)


def _z(sigma: Fraction, y: vi.Iv, shift: Fraction) -> vi.Iv:
    """σ·log y + shift, enclosed."""
    lg = vi.log(y)
    return vi.add(vi.mul(_const(sigma, lg[0]), lg), _const(shift, lg[0]))


def _masses(sigma: Fraction, y: vi.Iv, from_zero: bool
            ) -> tuple[vi.Iv, vi.Iv, vi.Iv, vi.Iv]:
    """For the bins between consecutive points y (increasing enclosures; with `from_zero`,
    [0, y_0] first): enclosures of ΔF = Q(Y in bin) and ΔG = E_Q[Y; Y in bin] (= P(Y' in
    bin)), and of the tails Q(Y > y_last) and P(Y' > y_last)."""
    s = 1 / sigma
    out = []
    for shift in (s / 2, -s / 2):
        cdf, sf = _phi(_z(sigma, y, shift))
        c_lo, c_hi, s_lo, s_hi = cdf[0], cdf[1], sf[0], sf[1]
        if from_zero:  # Φ(−∞) = 0 at y = 0
            c_lo, c_hi = np.concatenate(([0.0], c_lo)), np.concatenate(([0.0], c_hi))
            s_lo, s_hi = np.concatenate(([1.0], s_lo)), np.concatenate(([1.0], s_hi))
        # right of the median the difference of survival functions, elsewhere of cdfs
        by_cdf = (vi.rdn(c_lo[1:] - c_hi[:-1]), vi.rup(c_hi[1:] - c_lo[:-1]))
        by_sf = (vi.rdn(s_lo[:-1] - s_hi[1:]), vi.rup(s_hi[:-1] - s_lo[1:]))
        right = c_lo[:-1] > 0.5
        d = (np.maximum(np.where(right, by_sf[0], by_cdf[0]), 0.0),
             np.where(right, by_sf[1], by_cdf[1]))
        out.append((d, (sf[0][-1:], sf[1][-1:])))
    (dF, tailF), (dG, tailG) = out
    return dF, dG, tailF, tailG


def _div(a: vi.Iv, b: vi.Iv) -> vi.Iv:
    """a / b for b > 0, rounded outward (IEEE division is correctly rounded)."""
    with np.errstate(all="ignore"):
        lo = vi.rdn(a[0] / np.where(a[0] >= 0, b[1], b[0]))
        hi = vi.rup(a[1] / np.where(a[1] >= 0, b[0], b[1]))
    return lo, hi


def _spread(dF: vi.Iv, dG: vi.Iv, a: vi.Iv) -> np.ndarray:
    """Upper ends of the hat weights on the points a (len(dF) + 1 of them): the bin
    [a_i, a_{i+1}] sends (a_{i+1}ΔF − ΔG)/(a_{i+1} − a_i) to a_i and (ΔG − a_iΔF)/(a_{i+1} − a_i)
    to a_{i+1}, keeping its mass and its mean."""
    lo, hi = (a[0][:-1], a[1][:-1]), (a[0][1:], a[1][1:])
    width = vi.sub(hi, lo)
    left = _div(vi.sub(vi.mul(hi, dF), dG), width)
    right = _div(vi.sub(dG, vi.mul(lo, dF)), width)
    w = np.zeros(len(dF[0]) + 1)
    w[:-1] = np.maximum(left[1], 0.0)
    w[1:] = vi.rup(w[1:] + np.maximum(right[1], 0.0))
    return vi.rup(w)


# ---------------------------------------------------------------- ball polynomials


def _poly(x: np.ndarray) -> flint.arb_poly:
    """The polynomial with the floats x as exact coefficients: its products' balls then hold
    only their own rounding (relative accuracy near 1e-14 in every coefficient), where balls
    of the inputs' widths would be widened to each block's largest entry by arb's products."""
    return flint.arb_poly([flint.arb(v) for v in x.tolist()])


def _power(base: flint.arb_poly, k: int, n: int) -> flint.arb_poly:
    """base^k truncated to degree < n, by binary powering (each product truncated)."""
    result = flint.arb_poly([1])
    while k:
        if k & 1:
            result = (result * base).truncate(n)
        k >>= 1
        if k:
            base = (base * base).truncate(n)
    return result


def _ends(p: flint.arb_poly, n: int) -> vi.Iv:
    lo, hi = np.zeros(n), np.zeros(n)
    for i, x in enumerate(p.coeffs()[:n]):
        lo[i], hi[i] = vi.of_ball(x)
    return np.maximum(lo, 0.0), hi


def _up(x: flint.arb) -> flint.arb:
    return flint.arb(max(x.upper(), 0))


def _merge(lo: np.ndarray, hi: np.ndarray, k: int) -> vi.Iv:
    """Entries m merged into ⌊m/k⌋ (a coarser label: post-processing), sums rounded
    outward (`vi.grouped_sum`)."""
    idx = np.arange(len(lo)) // k
    size = int(idx[-1]) + 1 if len(idx) else 0
    return vi.grouped_sum(idx, lo, size, up=False), vi.grouped_sum(idx, hi, size, up=True)


def _coarse(x: np.ndarray, k: int) -> np.ndarray:
    """Upper ends of a spread of the masses x at mg onto the lattice kgℕ: m = jk + r sends
    (1 − r/k) to j and r/k to j + 1 (mean-preserving; exact weights, products rounded up,
    sums rounded outward)."""
    m = np.arange(len(x))
    j, r = m // k, (m % k).astype(float)
    size = int(j[-1]) + 2
    return vi.grouped_sum(np.concatenate((j, j + 1)),
                          np.concatenate((vi.rup(x * ((k - r) / k)), vi.rup(x * (r / k)))),
                          size, up=True)


# ---------------------------------------------------------------- floats: cut and windows


@dataclass(frozen=True)
class _Plan:
    cut: Fraction          # c, a multiple of both spacings
    top: float             # the tail's last point (at least)
    window: int            # the upper body windows (points of g)
    test_window: int       # the test's body windows (points of g')


def _lcm(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(math.lcm(a.numerator, b.numerator), math.gcd(a.denominator, b.denominator))


def _bulk(pair: Allocation) -> float:
    """Floats: the body sum's mean plus _BODY_SD sds, at most t + _BODY_SD·√(t·Var Y) with
    Var Y = e^{s²} − 1 (the exponent clamped where it would overflow)."""
    s2 = float(1 / pair.sigma) ** 2
    return pair.bins + _BODY_SD * math.sqrt(pair.bins * math.expm1(min(s2, 700.0)))


def _two_heavy(pair: Allocation, y: float) -> float:
    """Floats: about the P-mass of two or more terms above y, tP(Y' > y)Q(Y > y) +
    t²Q(Y > y)²/2 (the certified bound is in `laws`)."""
    from scipy.special import ndtr

    sig, t = float(pair.sigma), pair.bins
    s = 1 / sig
    p, pp = ndtr(-(sig * math.log(y) + s / 2)), ndtr(-(sig * math.log(y) - s / 2))
    return float(t * pp * p + t * t * p * p / 2)


def _plan(pair: Allocation) -> _Plan:
    """Floats choose: the cut c where two or more tail terms carry P-mass below about
    2^-_SMALL_BITS, the tail's top where one term beyond it does, and windows reaching the
    body sum's mean + _BODY_SD sds + c. Any choice is sound (the rest is certified and
    counted); a window above _MAX_WINDOW caps, and the cut with it."""
    from scipy.special import ndtri

    sig, t = float(pair.sigma), pair.bins
    s = 1 / sig
    lo, hi = 0.0, 60.0  # bisection on log c
    for _ in range(60):
        mid = (lo + hi) / 2
        small = _two_heavy(pair, math.exp(mid)) <= 2.0**-_SMALL_BITS
        lo, hi = (lo, mid) if small else (mid, hi)
    zt = -float(ndtri(2.0**-_SMALL_BITS / (t + 1)))
    top = math.exp((zt + s / 2) / sig)
    sp, tsp = pair.lattices
    step = _lcm(sp, tsp)
    g = min(float(sp), float(tsp))
    c_f = min(math.exp(hi), _MAX_WINDOW * g / 3, top / (1 + _RATIO))
    cut = max(Fraction(math.ceil(c_f / float(step))) * step, step)

    def window(sp: Fraction) -> int:
        reach = _bulk(pair) + 1.5 * float(cut)
        return min(max(int(math.ceil(reach / float(sp))), 16), _MAX_WINDOW)

    return _Plan(cut, max(top, float(cut) * (1 + 2 * _RATIO)), window(sp), window(tsp))


def unresolved_mass(pair: Allocation) -> float:
    """Floats: about the P-mass per epoch that the certified laws give loss +∞ for want of
    room: two or more tail terms at the chosen cut (which a capped window lowers), and the
    body sum beyond a capped window. A caller that needs δ below E times this learns before
    the laws are computed that no finite ε can be certified there (small σ: heavy tails)."""
    from scipy.special import ndtr

    plan = _plan(pair)
    sig = float(pair.sigma)
    # the body sum beyond the window: about one body term near the cut past the bulk
    room = plan.window * float(pair.lattices[0]) - _bulk(pair)
    over = 0.0 if room >= float(plan.cut) else float(ndtr(-(sig * math.log(max(room, 1e-300))
                                                            - 1 / (2 * sig))))
    return _two_heavy(pair, float(plan.cut)) + over


# ---------------------------------------------------------------- the laws


def _ratios(values: vi.Iv, t: int) -> vi.Iv:
    """Enclosures of values/t."""
    return _div(values, (np.full_like(values[0], float(t)), np.full_like(values[0], float(t))))


def _lattice(n: int, g: Fraction) -> vi.Iv:
    m = np.arange(n, dtype=float)
    return vi.mul((m, m), _const(g, m))


def _outer(b: vi.Iv, a: vi.Iv) -> tuple[vi.Iv, np.ndarray, np.ndarray]:
    """All sums b_j + a_k (enclosures) with their index pairs, j-major."""
    jj, kk = np.meshgrid(np.arange(len(b[0])), np.arange(len(a[0])), indexing="ij")
    jj, kk = jj.ravel(), kk.ravel()
    return vi.add((b[0][jj], b[1][jj]), (a[0][kk], a[1][kk])), jj, kk


def _products(qv: np.ndarray, pv: np.ndarray, t: int, n: int) -> dict[str, flint.arb_poly]:
    """The label sums' laws from one set of term masses: K = 0 under Q (t terms) and P (one
    from P), and the t − 1 others of K = 1 under Q (q1) and with one from P (pb)."""
    qp, pp = _poly(qv), _poly(pv)
    r2 = _power(qp, t - 2, n) if t >= 2 else None
    one = (r2 * qp).truncate(n) if r2 is not None else flint.arb_poly([1])
    return {"q0": (one * qp).truncate(n), "p0": (one * pp).truncate(n), "q1": one,
            "pb": (r2 * pp).truncate(n) if r2 is not None else flint.arb_poly([])}


_FACTORS = {"q0": (0, 0), "p0": (-1, 1), "q1": (-1, 0), "pb": (-2, 1)}  # (t + a) Q-, b P-terms


def _label_laws(qF: vi.Iv, qG: vi.Iv, t: int, n: int
                ) -> tuple[dict[str, vi.Iv], flint.arb, flint.arb]:
    """Enclosures of the label sums' laws (`_products`), and upper ends of the Q-mass that
    the window leaves out of q0 and of q1. One power, of the terms' midpoints, when every
    term's enclosure is within a relative ρ of its midpoint (all positive): the true law of k
    Q-terms and j P-terms then lies within (1 ± ρ_Q)^k(1 ± ρ_P)^j of the midpoints'
    (non-negative coefficients, entrywise: the part beyond the window too, which is the
    midpoints' whole mass minus their kept); else two powers, of the lower and of the upper
    ends (the part beyond: the upper ends' whole mass minus the lower ends' kept)."""
    if np.all(qF[0] > 0) and np.all(qG[0] > 0):
        qm, pm = (qF[0] + qF[1]) / 2, (qG[0] + qG[1]) / 2
        rq = float(np.max(np.maximum(qF[1] - qm, qm - qF[0]) / qm))
        rp = float(np.max(np.maximum(qG[1] - pm, pm - qG[0]) / pm))
        mids = _products(qm, pm, t, n)
        out, over = {}, {}
        q_mass = flint.arb(vi.fsum(qm, up=True))
        for key, (a, b) in _FACTORS.items():
            k = max(t + a, 0)
            lo_f = vi.of_ball((1 - ball(Fraction(rq))) ** k * (1 - ball(Fraction(rp))) ** b)[0]
            grow = (1 + ball(Fraction(rq))) ** k * (1 + ball(Fraction(rp))) ** b
            lo, hi = _ends(mids[key], n)
            out[key] = (np.maximum(vi.rdn(lo * lo_f), 0.0), vi.rup(hi * vi.of_ball(grow)[1]))
            if b == 0:
                over[key] = _up(grow * (q_mass**k - vi.fsum(lo, up=False)))
        return out, over["q0"], over["q1"]
    sides = [_products(qF[i], qG[i], t, n) for i in (0, 1)]
    out = {key: (_ends(sides[0][key], n)[0], _ends(sides[1][key], n)[1]) for key in _FACTORS}
    q_mass = flint.arb(vi.fsum(qF[1], up=True))
    return (out, _up(q_mass**t - vi.fsum(out["q0"][0], up=False)),
            _up(q_mass ** (t - 1) - vi.fsum(out["q1"][0], up=False)))


@lru_cache(maxsize=4)
def laws(pair: Allocation) -> AllocationLaws:
    """The certified laws of one epoch (module docstring); a pure function of the frozen
    pair, cached because every lattice of a refinement reads the same laws."""
    t, (g, gt) = pair.bins, pair.lattices
    plan = _plan(pair)
    c = plan.cut
    # the tail's points: a_0 = c exactly (an enclosure), then floats (exact) growing by _RATIO
    n_tail = max(int(math.ceil(math.log(plan.top / float(c)) / math.log1p(_RATIO))), 1)
    a_f = float(c) * (1 + _RATIO) ** np.arange(1, n_tail + 1)
    c_iv = vi.of_ball(ball(c))
    a = (np.concatenate(([c_iv[0]], a_f)), np.concatenate(([c_iv[1]], a_f)))
    tF, tG, beyondF, beyondG = _masses(pair.sigma, a, from_zero=False)
    p_big = flint.arb(vi.fsum(np.concatenate((tG[1], beyondG[1])), up=True))  # P(Y' > c)
    q_big = flint.arb(vi.fsum(np.concatenate((tF[1], beyondF[1])), up=True))  # Q(Y > c)
    # two or more tail terms; one beyond the tail's last point (both: perfectly distinguished)
    p_rare = (p_big * (t - 1) * q_big + (t - 1) * (t - 2) * q_big * q_big / 2
              + flint.arb(beyondG[1][0]) + (t - 1) * flint.arb(beyondF[1][0]))
    q_rare = t * (t - 1) * q_big * q_big / 2 + t * flint.arb(beyondF[1][0])

    # ---- upper: the spread pair
    n = plan.window
    m_body = int(c / g)
    body = _lattice(m_body + 1, g)
    bF, bG, _, _ = _masses(pair.sigma, (body[0][1:], body[1][1:]), from_zero=True)
    w = _spread(bF, bG, body)
    v = _spread(tF, tG, a)                       # on a_0 … a_L (beyond a_L: p_rare)
    wp = _poly(w)
    rest = _power(wp, t - 1, n)                  # the other t − 1 terms, all in the body
    k0 = (rest * wp).truncate(n)                 # K = 0
    r_lo, r_hi = _ends(rest, n)
    k0_lo, k0_hi = _ends(k0, n)
    mass_w = wp(flint.arb(1))
    mean_w = wp.derivative()(flint.arb(1)) * ball(g)          # Σ mg·w_m
    vals = _lattice(n, g)
    # what the windows leave out: the whole law's masses minus the kept (perfectly
    # distinguished): K = 0's Q-mass and P-mass E[Ŝ/t; K = 0] = mean_w·mass_w^(t−1) …
    q_out0 = _up(mass_w**t - vi.fsum(k0_lo, up=False))
    p_out0 = _up(mean_w * mass_w ** (t - 1) - vi.fsum(vi.mul(_ratios(vals, t), (k0_lo, k0_lo))[0],
                                                      up=False))
    # … and K = 1's: t positions × the tail's mass × the rest's overflow, its P-mass
    # E[(b + a)/t; …] = (V0·Σ_{b out} b·B_b + V1·Σ_{b out} B_b)·t/t
    v0 = flint.arb(vi.fsum(v, up=True))
    v1 = flint.arb(vi.fsum(vi.mul(a, (v, v))[1], up=True))
    rest_out = _up(mass_w ** (t - 1) - vi.fsum(r_lo, up=False))
    rest_mean_out = _up((t - 1) * mean_w * mass_w ** (t - 2) - vi.fsum(vi.mul(vals, (r_lo, r_lo))[0],
                                                                       up=False)) if t > 1 else \
        flint.arb(0)
    q_out1 = t * v0 * rest_out
    p_out1 = v0 * rest_mean_out + v1 * rest_out
    # K = 1 atoms: the rest coarsened, plus one tail point, at each of t positions
    kb = max(1, n // _COARSE)
    coarse = _coarse(r_hi, kb)
    keep_j = np.flatnonzero(coarse > 0)
    keep_k = np.flatnonzero(v > 0)
    b_vals = _lattice(len(coarse), g * kb)
    sums, jj, kk = _outer((b_vals[0][keep_j], b_vals[1][keep_j]), (a[0][keep_k], a[1][keep_k]))
    q1 = vi.rup(vi.rup(coarse[keep_j][jj] * v[keep_k][kk]) * t)
    lr0 = _ratios((vals[0][1:], vals[1][1:]), t)
    lr1 = _ratios(sums, t)
    lr = (np.concatenate((lr0[0], lr1[0])), np.concatenate((lr0[1], lr1[1])))
    q = np.concatenate((k0_hi[1:], q1))
    # negligible atoms join the perfectly distinguished rest: their P-mass (ratio × Q-mass,
    # upper ends) at +∞, their Q-mass at −∞
    small = q < _NEGLIGIBLE
    p_small = flint.arb(vi.fsum(vi.mul(lr, (q, q))[1][small], up=True))
    q_small = flint.arb(vi.fsum(q[small], up=True))
    lr, q = (lr[0][~small], lr[1][~small]), q[~small]
    order = np.argsort(lr[0] + lr[1], kind="stable")
    p_inf = _up(p_out0 + p_out1 + p_rare + p_small)
    q_neg_inf = _up(q_out0 + q_out1 + q_rare + q_small + flint.arb(k0_hi[0]))  # k0[0]: Ŝ = 0

    # ---- lower: the labels' exact laws (two powers: the terms' lower and upper mass ends)
    nt = plan.test_window
    m_lab = int(c / gt)
    lab = _lattice(m_lab + 1, gt)
    qF, qG, _, _ = _masses(pair.sigma, (lab[0][1:], lab[1][1:]), from_zero=True)
    fT = (np.concatenate((tF[0], beyondF[0])), np.concatenate((tF[1], beyondF[1])))
    gT = (np.concatenate((tG[0], beyondG[0])), np.concatenate((tG[1], beyondG[1])))
    ends, q0_out, q1_out = _label_laws(qF, qG, t, nt)
    kt = max(1, nt // _COARSE)
    q1c, pbc = _merge(*ends["q1"], kt), _merge(*ends["pb"], kt)
    size = max(len(q1c[0]), len(pbc[0]))
    q1c = tuple(np.pad(x, (0, size - len(x))) for x in q1c)
    pbc = tuple(np.pad(x, (0, size - len(x))) for x in pbc)
    labels1 = _lattice(size, gt * kt)
    tsums, tj, tk = _outer(labels1, a)
    tq1 = vi.mul(vi.mul((q1c[0][tj], q1c[1][tj]), (fT[0][tk], fT[1][tk])), _const(t, tj))
    tp1 = vi.add(vi.mul((q1c[0][tj], q1c[1][tj]), (gT[0][tk], gT[1][tk])),
                 vi.mul(vi.mul((pbc[0][tj], pbc[1][tj]), (fT[0][tk], fT[1][tk])),
                        _const(t - 1, tj)))
    tvals = _lattice(nt, gt)
    tlr0 = _ratios((tvals[0][1:], tvals[1][1:]), t)
    tlr1 = _ratios(tsums, t)
    tlr = (np.concatenate((tlr0[0], tlr1[0])), np.concatenate((tlr0[1], tlr1[1])))
    tp = (np.concatenate((ends["p0"][0][1:], tp1[0])), np.concatenate((ends["p0"][1][1:], tp1[1])))
    tq = (np.concatenate((ends["q0"][0][1:], tq1[0])), np.concatenate((ends["q0"][1][1:], tq1[1])))
    # negligible atoms: P-mass dropped, Q-mass (upper ends) to the rest
    t_small = tq[1] < _NEGLIGIBLE
    q_small_t = flint.arb(vi.fsum(tq[1][t_small], up=True))
    tlr = (tlr[0][~t_small], tlr[1][~t_small])
    tp, tq = (tp[0][~t_small], tp[1][~t_small]), (tq[0][~t_small], tq[1][~t_small])
    torder = np.argsort(tlr[0] + tlr[1], kind="stable")
    # the rest (P-mass dropped; Q-mass an upper end): two or more tail terms, and what the
    # windows leave out of K = 0 and of K = 1
    f_sum = flint.arb(vi.fsum(fT[1], up=True))
    q_rest = _up(q0_out + t * f_sum * q1_out + t * (t - 1) * f_sum * f_sum / 2 + q_small_t)
    spread_lr = (lr[0][order], lr[1][order])
    test_lr = (tlr[0][torder], tlr[1][torder])
    return AllocationLaws(
        spread_lr=spread_lr, spread_loss=vi.log(spread_lr), spread_q=q[order], p_inf=p_inf,
        q_neg_inf=q_neg_inf,
        test_lr=test_lr, test_loss=vi.log(test_lr), test_p=(tp[0][torder], tp[1][torder]),
        test_q=(tq[0][torder], tq[1][torder]),
        test_bottom=(vi.ball_of(ends["p0"][0][0], ends["p0"][1][0]),
                     vi.ball_of(ends["q0"][0][0], ends["q0"][1][0])),
        test_top=(flint.arb(0), flint.arb(0).union(q_rest)))
