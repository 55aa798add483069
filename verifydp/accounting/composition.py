"""Certified k-fold composition: brackets of δ(ε) and ε(δ) for a per-step dominating pair.

For a pair (P, Q) with privacy loss L = log(dP/dQ) and g(s) = (1 − e^{ε−s})_+, the k-fold
product pair has δ_{P^k‖Q^k}(ε) = E_{P^k}[g(L_1 + … + L_k)] (docs/foundations.md#composition).
Everything below is a rigorous enclosure; floats only choose where to cut.

1. **Cells.** The output axis is cut at points x_i chosen (in floats) so that the loss crosses
   one lattice step h per cell. The loss is monotone in x for every pair this module builds
   (each constructor says why), so a cell's loss lies between the certified losses at its two
   ends, and its P- and Q-masses are differences of the kernel's cdf (arb balls, python-flint;
   for the Gaussian kernel the same enclosures in numpy intervals with outward rounding,
   `_gauss_steps`).
2. **Upper bound: connect the dots** (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022). A
   cell with loss in [a, b] (lattice points) is split into P-mass x_a at a and x_b at b with
   x_a + x_b = P(cell), x_a e^{−a} + x_b e^{−b} = Q(cell). Splitting preserves both marginals
   and the original pair is a merge (post-processing) of the split one, so the split pair
   dominates; equivalently x ↦ g(c − log x) is convex in x = e^{−s} and the split is a
   mean-preserving spread in x (Jensen). Error O(h²) per step. Mass beyond the last cell goes
   to +∞; mass below the first cell is rounded *up* to its loss (g is increasing). With
   enclosures of the masses, the smaller end of x_a stays at a and the rest of the upper end
   of P(cell) goes to b: tail-dominating, so still an upper bound.
3. **Lower bound: a test on a dominated pair.** Bucketing the output by cell is
   post-processing, so the bucket pair (P̃, Q̃) is dominated by (P, Q). For any threshold τ on
   the composed bucket index T, δ ≥ P̃^k(T ≥ τ) − e^ε Q̃^k(T ≥ τ); we take the best τ. The loss
   against the optimal test is second order in the spread of the loss inside a bucket.
4. **Composition** multiplies polynomials whose coefficients are arb balls (python-flint's
   `arb_poly`: rigorous ball arithmetic, fast), by binary powering. After each product the
   vectors are cut to a window: upper vectors move mass below it up to its bottom and mass
   above it to +∞; bucket vectors keep the mass they drop as a separate total (`out`), which
   a subtracted term counts as if it were in the tail and a positive term leaves out.
   With a target ε (`composed(…, target=…)`, as `compose(…, rtol=…)` uses), the upper
   vectors and δ_{P‖Q}'s bucket vectors are composed by float FFT with a certified bound on
   its round-off instead, tilted to where ε is decided (`_power_fft`); the bucket powers
   stay floats with that bound and only the chosen threshold's sums become balls
   (`_fft_tails`: the round-off bounded for each sum as a whole, by the ℓ₂ norm of the
   error vector and Cauchy–Schwarz), and where the bound costs the lower end more than a set
   share the balls are used after all (`Composed._fft_lower`; δ_{Q‖P}'s the same on the
   mirrored axis).
5. **Both directions.** δ(ε) of the pair is max(δ_{P‖Q}, δ_{Q‖P}). The reverse direction's
   upper bound has the same cells with P and Q swapped and the loss negated. Its lower bound
   needs no vectors of its own: the events {T ≤ τ} of the same composed buckets give
   δ_{Q‖P} ≥ Q̃^k(T ≤ τ) − e^ε P̃^k(T ≤ τ) (any event is a test), so the two bucket
   powers serve both orders.

`compose(pair, steps, epsilon=…)` returns a `Bracket` of δ; `compose(pair, steps, delta=…)`
returns a `Bracket` of ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ}, by bisection on certified δ brackets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import overload

import flint
import numpy as np

from verifydp.accounting import ballsbins, fftpow
from verifydp.accounting.atoms import (
    BinomialPair,
    FinitePair,
    ProfilePair,
    binomial_atoms,
    discrete_gaussian_atoms,
    finite_atoms,
    profile_atoms,
)
from verifydp.accounting.ballsbins import Allocation
from verifydp.exact import normal_iv
from verifydp.exact import vecint as vi
from verifydp.exact.arb import ball, kernel_cdf, rational
from verifydp.exact.interval import Bracket

__all__ = [
    "Composed",
    "Symmetrised",
    "Grid",
    "Pair",
    "Revealed",
    "compose",
    "composed",
    "fixed_size_gaussian",
    "invert_delta",
    "laplace",
    "mixture_gaussian",
    "poisson_gaussian",
    "realised_lower",
    "symmetrised",
]

# arb balls at python-flint's default working precision (53 bits): every operation's rounding
# is inside the ball's radius, so no precision setting (a global of flint's) is ever changed
_KERNELS = ("gauss", "laplace", "dgauss")
_DISCRETE = ("dgauss",)  # kernels on the integers: atoms, not cells (accounting.atoms)


@dataclass(frozen=True)
class Pair:
    """A per-step pair P = Σ_i w_i K((x − c_i)/s), Q = Σ_j v_j K((x − d_j)/s) for a kernel K
    (standard Gaussian or Laplace), exact weights and centres. Build it with a constructor
    (`poisson_gaussian`, `fixed_size_gaussian`, `mixture_gaussian`, `laplace`,
    `dominating.law_pair`): each checks that the privacy loss is non-decreasing in x, which
    the certification relies on. Kernel ``dgauss`` is the discrete Gaussian N_ℤ(c, s²) on the
    integers (integer centres; outputs are atoms, `verifydp.accounting.atoms`): its loss is
    the continuous Gaussian mixture's loss restricted to ℤ, so monotone whenever that one is.
    Pairs on finitely many outputs (randomized response) are `atoms.FinitePair`s; `compose`
    takes both."""

    p: tuple[tuple[Fraction, Fraction], ...]  # (weight, centre)
    q: tuple[tuple[Fraction, Fraction], ...]
    scale: Fraction
    kernel: str = "gauss"
    name: str = ""

    def __post_init__(self) -> None:
        if self.kernel not in _KERNELS:
            raise ValueError(f"unknown kernel {self.kernel!r}; use one of {_KERNELS}")
        if self.scale <= 0:
            raise ValueError("the noise scale must be positive")
        for side, comps in (("P", self.p), ("Q", self.q)):
            if not comps or sum(w for w, _ in comps) != 1 or any(w < 0 for w, _ in comps):
                raise ValueError(f"{side}: weights must be non-negative and sum to 1 exactly")
            if self.kernel in _DISCRETE and any(Fraction(c).denominator != 1 for _, c in comps):
                raise ValueError(f"{side}: the discrete Gaussian needs integer centres")


@dataclass(frozen=True)
class Revealed:
    """A step that is the pair (P_l, Q_l) with probability w_l, the label l shown:
    (l, P_l) against (l, Q_l). When a design's two runs share a data-independent label (a
    coupled sample size, say) and the step given the label is dominated by (P_l, Q_l), the
    step is a post-processing (forget the label) of this pair; its privacy-loss law is the
    branches' mixed with the weights, so the lattice vectors are the branches' summed
    (docs/foundations.md#composition). Compose's lower end is then the revealed pair's, not
    the step's."""

    branches: tuple[tuple[Fraction, Pair | FinitePair | Symmetrised], ...]
    name: str = ""

    def __post_init__(self) -> None:
        if not self.branches or any(w <= 0 for w, _ in self.branches):
            raise ValueError("a revealed mixture needs branches of positive weight")
        if sum(w for w, _ in self.branches) != 1:
            raise ValueError("the branch weights must sum to 1 exactly")
        if any(not isinstance(b, (Pair, FinitePair, Symmetrised)) for _, b in self.branches):
            raise ValueError("a branch is a Pair, a FinitePair or a Symmetrised pair (no "
                             "nested mixtures)")


@dataclass(frozen=True)
class Symmetrised:
    """The symmetrisation of a pair (P, Q): a pair S with H_γ(S) = max(H_γ(P‖Q), H_γ(Q‖P))
    for every γ ≥ 1 and S symmetric (swapping its sides is a relabelling), i.e. the trade-off
    curve conv(min(f, f⁻¹)) of f = T(P, Q) (Zhu, Dong & Wang 2022, "Optimal accounting of
    differential privacy via characteristic function", §4). By H_γ(X‖Y) = 1 − γ + γH_{1/γ}(Y‖X)
    it dominates every pair (X, Y) whose two orders both have H_γ ≤ max(H_γ(P‖Q), H_γ(Q‖P))
    for γ ≥ 1, at *every* γ > 0 — what composing a step whose dominated orientation may change
    from release to release needs (a substitution: Lebeda, Regehr, Kamath & Steinke 2024;
    docs/foundations.md#composition, proofs/deployment_pairs.md#orientation). Built on the
    lattice from both orders' certified upper vectors (`_symmetric_step`); it is a bound only,
    never realised, so its composition has no lower end of its own (0). Build it with
    `symmetrised`, which maps a revealed mixture branch by branch."""

    inner: Pair | FinitePair
    name: str = ""


def symmetrised(pair: Pair | FinitePair | Revealed) -> Symmetrised | Revealed:
    """`Symmetrised(pair)`, or for a revealed mixture the mixture of its branches'
    symmetrisations: the label is common to both runs, so each branch's orientation may
    change on its own, and the symmetrisation of the mixture (the larger order of the mixed
    profiles) would not dominate a step that mixes orders across branches."""
    if isinstance(pair, Revealed):
        return Revealed(tuple((w, b if isinstance(b, Symmetrised) else Symmetrised(b))
                              for w, b in pair.branches), pair.name)
    return Symmetrised(pair, pair.name)


@dataclass(frozen=True)
class Product:
    """Independent pairs released together: P = ⊗ P_i against Q = ⊗ Q_i. The privacy loss
    is the sum of the parts' (independent under either side), so a part's lattice vectors
    convolve with the others' exactly as a step's do with itself under composition; a
    product of dominating pairs dominates the product, and of dominated ones is dominated
    (docs/foundations.md#composition). A Poisson PPS release with the other records'
    inclusions shown is one (proofs/deployment_pairs.md#pps)."""

    parts: tuple[Pair | FinitePair | BinomialPair, ...]
    name: str = ""

    def __post_init__(self) -> None:
        if not self.parts:
            raise ValueError("a product needs at least one part")
        if any(not isinstance(x, (Pair, FinitePair, BinomialPair)) for x in self.parts):
            raise ValueError("a product's parts are Pairs, FinitePairs or BinomialPairs")


AnyPair = (Pair | FinitePair | BinomialPair | ProfilePair | Revealed | Symmetrised | Allocation
           | Product)


def poisson_gaussian(q: Fraction, sigma: Fraction) -> Pair:
    """Poisson sampling with rate q, Gaussian noise σ on a sensitivity-1 sum, add/remove:
    P = (1−q)N(0, σ²) + qN(1, σ²) against Q = N(0, σ²). The loss
    log(1 − q + q e^{(2x−1)/(2σ²)}) is increasing in x. (The remove direction is the reverse
    pair, which `compose` always evaluates too.)"""
    q, sigma = Fraction(q), Fraction(sigma)
    if not 0 < q <= 1:
        raise ValueError("the sampling rate q must lie in (0, 1]")
    p = ((1 - q, Fraction(0)), (q, Fraction(1))) if q < 1 else ((Fraction(1), Fraction(1)),)
    return Pair(p, ((Fraction(1), Fraction(0)),), sigma, "gauss", f"Poisson(q={q}) Gaussian σ={sigma}")


def fixed_size_gaussian(q: Fraction, sigma: Fraction) -> Pair:
    """Sampling a fixed-size batch without replacement (each record in it with probability
    q = m/n), Gaussian noise σ on a sum of contributions clipped to [−1/2, 1/2]... stated with
    sensitivity 1 under substitution: P = (1−q)N(0, σ²) + qN(1, σ²) against
    Q = (1−q)N(0, σ²) + qN(−1, σ²) (the pair of Zhao & Liu, MUST Eqns (6)–(7) with K ≤ 1).
    The ratio ((1−q) + q e^{(2x−1)/(2σ²)}) / ((1−q) + q e^{(−2x−1)/(2σ²)}) is increasing."""
    q, sigma = Fraction(q), Fraction(sigma)
    if not 0 < q <= 1:
        raise ValueError("the sampling rate q must lie in (0, 1]")
    return mixture_gaussian(((0, 1 - q), (1, q)), sigma, substitution=True,
                            name=f"fixed-size WOR(q={q}) Gaussian σ={sigma}")


def mixture_gaussian(law: tuple[tuple[int, Fraction], ...], sigma: Fraction,
                     substitution: bool = True, name: str = "") -> Pair:
    """A law of K (copies of the differing record in the sample: with replacement, MUST):
    P = Σ_l w_l N(l, σ²) against Q = Σ_l w_l N(−l, σ²) (substitution) or N(0, σ²)
    (add/remove). Both ratios are increasing in x: every term of the numerator increases and
    every term of the denominator decreases (l ≥ 0)."""
    sigma = Fraction(sigma)
    law = tuple((int(k), Fraction(w)) for k, w in law if w)
    if any(k < 0 for k, _ in law):
        raise ValueError("copy counts must be non-negative")
    p = tuple((w, Fraction(k)) for k, w in law)
    q = (tuple((w, Fraction(-k)) for k, w in law) if substitution
         else ((Fraction(1), Fraction(0)),))
    return Pair(p, q, sigma, "gauss", name or f"law of K, Gaussian σ={sigma}")


def laplace(scale: Fraction, q: Fraction = Fraction(1)) -> Pair:
    """The Laplace mechanism with scale b on a sensitivity-1 query, optionally Poisson
    subsampled with rate q (add/remove): P = (1−q)Lap(0, b) + qLap(1, b) against Lap(0, b).
    The loss is non-decreasing in x (a mixture with non-negative shifts against the
    unshifted density: the likelihood ratio e^{(|x|−|x−1|)/b} is non-decreasing)."""
    scale, q = Fraction(scale), Fraction(q)
    if not 0 < q <= 1:
        raise ValueError("the sampling rate q must lie in (0, 1]")
    p = ((1 - q, Fraction(0)), (q, Fraction(1))) if q < 1 else ((Fraction(1), Fraction(1)),)
    return Pair(p, ((Fraction(1), Fraction(0)),), scale, "laplace", f"Laplace(b={scale}, q={q})")


@dataclass(frozen=True)
class Grid:
    """Discretisation: lattice step h of the loss, output range ± z scales beyond the centres,
    the half-width of the composed windows in standard deviations, and the exponent of the
    negligible mass 2^-negligible_bits: leading and trailing lattice masses below it are moved
    soundly to the bounds (module docstring, 4). When δ is not tiny (a large δ, as in MUST
    Table 8) a coarser cut keeps the heavy tail of a law of K out of the windows."""

    h: Fraction = Fraction(1, 1000)
    z: int = 12
    window_sd: int = 10
    negligible_bits: int = 75

    def __post_init__(self) -> None:
        if self.h <= 0 or self.z <= 0 or self.window_sd <= 0 or self.negligible_bits <= 0:
            raise ValueError("Grid: h, z, window_sd and negligible_bits must be positive")


# ---------------------------------------------------------------- floats: where to cut


def _float_logpdf(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...],
                  x: np.ndarray) -> np.ndarray:
    s = float(pair.scale)
    terms = []
    for w, c in comps:
        u = (x - float(c)) / s
        if pair.kernel == "gauss":
            terms.append(math.log(float(w)) - u * u / 2)
        else:
            terms.append(math.log(float(w)) - np.abs(u))
    return np.logaddexp.reduce(np.array(terms), axis=0)


def _float_loss(pair: Pair, x: np.ndarray) -> np.ndarray:
    if pair.kernel == "gauss":
        return _gauss_loss(pair, x)[0]
    return _float_logpdf(pair, pair.p, x) - _float_logpdf(pair, pair.q, x)


def _gauss_loss(pair: Pair, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian pair's float loss and its slope at x: the quadratic −x²/2s² common to
    every component cancels, leaving log Σ_j w_j e^{(c_j x − c_j²/2)/s²} per side, whose
    slope is the posterior mean of c_j/s² (no cancellation of large squares, no
    difference quotients)."""
    s2 = float(pair.scale) ** 2

    def side(comps: tuple[tuple[Fraction, Fraction], ...]) -> tuple[np.ndarray, np.ndarray]:
        cs = [float(c) / s2 for _, c in comps]
        ts = [math.log(float(w)) - float(c) ** 2 / (2 * s2) + a * x
              for (w, c), a in zip(comps, cs, strict=True)]
        if len(ts) == 1:
            return ts[0], np.full_like(x, cs[0])
        top = np.maximum.reduce(ts)
        es = [np.exp(t - top) for t in ts]
        tot = sum(es[1:], es[0])
        return top + np.log(tot), sum((e * a for e, a in zip(es, cs, strict=True)),
                                      np.zeros_like(x)) / tot

    lp, sp = side(pair.p)
    lq, sq = side(pair.q)
    return lp - lq, sp - sq


def _support(pair: Pair, grid: Grid) -> tuple[float, float]:
    """The x-range the cells cover: each component reaches as far as its weighted density
    stays above the negligible mass (at most z scales), so that a law of K's rare many-copy
    components do not stretch the lattice over thousands of loss units. Any range is sound:
    the mass outside it is carried to the bounds as the tails (−∞, cut_0] and [cut_last, ∞)."""
    cut = grid.negligible_bits * math.log(2)
    ends = []
    for w, c in pair.p + pair.q:
        budget = math.log(float(w)) + cut if w else -1.0
        if budget <= 0:
            continue
        if pair.kernel == "laplace":
            # a Laplace tail beyond 12 scales still holds e^-12/2 per step, which the upper
            # end sends to +∞ (k = 1000: δ ≥ 3e-3 for any ε): the tail follows the cut instead
            r = max(float(grid.z), budget + 1)
        else:
            r = min(float(grid.z), math.sqrt(2 * budget) + 1)
        ends += [float(c) - r * float(pair.scale), float(c) + r * float(pair.scale)]
    if not ends:  # a cut so coarse that every component is negligible: their centres
        ends = [float(c) + d * float(pair.scale) for _, c in pair.p + pair.q for d in (-1, 1)]
    return min(ends), max(ends)


def _float_axis(pair: Pair, grid: Grid, points: int = 200001
                ) -> tuple[float, float, np.ndarray, np.ndarray]:
    """The support [lo, hi], a fine float grid on it and the pair's float loss there: where
    the cut rules (`_cut_points`, `_test_cuts`) look for their cuts."""
    lo, hi = _support(pair, grid)
    xs = np.linspace(lo, hi, points)
    return lo, hi, xs, _float_loss(pair, xs)


_AXIS_PER_LATTICE = 16  # `_cut_points`' float axis: points per lattice point (20001 … 200001)


def _cut_points(pair: Pair, grid: Grid) -> list[float]:
    """Cut points (floats: exact dyadic rationals, and exact as arb balls), chosen in floats:
    two per lattice point ih, at losses just
    below and just above it, so that every cell but the thin ones around lattice points has
    its certified loss range inside one lattice step (the thin ones carry negligible mass).
    Any choice is sound; this one makes the bounds tight."""
    s = float(pair.scale)
    h = float(grid.h)
    # a coarse lattice needs no 200001-point axis (the Newton steps below refine each cut)
    lo, hi, xs, ls = _float_axis(pair, grid, 20001)
    want = _AXIS_PER_LATTICE * (float(np.nanmax(ls)) - float(np.nanmin(ls))) / h
    if want > len(xs):
        lo, hi, xs, ls = _float_axis(pair, grid, int(min(want, 200000)) + 1)
    ls = np.maximum.accumulate(ls)  # monotone in theory; guard float noise
    lattice = np.arange(math.ceil(ls[0] / h), math.floor(ls[-1] / h) + 1) * h
    eta = h * 1e-4
    targets = np.sort(np.concatenate((lattice - eta, lattice + eta)))
    targets = targets[(targets > ls[0]) & (targets < ls[-1])]
    idx = np.clip(np.searchsorted(ls, targets), 1, len(xs) - 1)
    x0, x1, l0, l1 = xs[idx - 1], xs[idx], ls[idx - 1], ls[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(l1 > l0, x0 + (targets - l0) / (l1 - l0) * (x1 - x0), x0)
    if pair.kernel == "gauss" and len(x) > 2:
        keep = _carrying(pair, x, grid.negligible_bits)
        if not keep.all():
            lo = lo if keep[0] else None
            hi = hi if keep[-1] else None
            targets, x, x0, x1 = targets[keep], x[keep], x0[keep], x1[keep]
        for _ in range(2):  # Newton steps on the float loss, kept inside the bracket
            if pair.kernel == "gauss":
                val, slope = _gauss_loss(pair, x)
            else:
                d = 1e-7 * max(s, 1e-300)
                val = _float_loss(pair, x)
                slope = (_float_loss(pair, x + d) - _float_loss(pair, x - d)) / (2 * d)
            step = np.where(slope > 0, (val - targets) / slope, 0.0)
            x = np.clip(x - np.nan_to_num(step), x0, x1)
    cuts = np.unique(np.concatenate([[e] for e in (lo, hi) if e is not None] + [x]))
    if pair.kernel == "laplace":  # flat stretches of the loss still need an x resolution
        cuts = np.unique(np.concatenate((cuts, np.linspace(lo, hi, 4001))))
    return [float(c) for c in cuts]


def _float_sf(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...], x: np.ndarray,
              left: bool = False) -> np.ndarray:
    """A Gaussian mixture's float mass above each x (below it, `left`), from above: each
    tail Φ̄(z) ≤ min(e^{−z²/2}/2, φ(z)/z) for z > 0 (Chernoff, Mills), 1 elsewhere; within
    1.3 % of it beyond 9 scales (no scipy import on the first composition)."""
    s, sign = float(pair.scale), 1.0 if left else -1.0
    out = np.zeros_like(x)
    for w, c in comps:
        z = -sign * (x - float(c)) / s
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            e = np.exp(-z * z / 2)
            b = np.where(z > 0, np.minimum(e / 2, e / (z * math.sqrt(2 * math.pi))), 1.0)
        out += float(w) * b
    return out


def _carrying(pair: Pair, x: np.ndarray, bits: int) -> np.ndarray:
    """Which of a Gaussian pair's cut points x (increasing) to keep: those with more than
    a quarter of the negligible mass 2^-bits of P or Q beyond them on either side (and one
    more each way). The cells beyond would carry entries that every composed vector cuts
    (`_window`) and cost as much as the rest: at q = 1/1000, σ = 1, h ≈ 1/5800 the loss
    axis reaches 4 while the mass above loss 2.9 is under 2^-77. Floats choose: the mass
    beyond the kept cuts is certified as the tails, which `_window` cuts as it would have
    cut those cells' entries."""
    q4 = 2.0**-bits / 4
    above = np.maximum(_float_sf(pair, pair.p, x), _float_sf(pair, pair.q, x)) > q4
    below = np.maximum(_float_sf(pair, pair.p, x, True), _float_sf(pair, pair.q, x, True)) > q4
    keep = above & below
    keep[1:] |= above[1:] & keep[:-1]   # one more cut each way
    keep[:-1] |= below[:-1] & keep[1:]
    return keep


# ---------------------------------------------------------------- arb: certified cells


_REACH_EXTRA_BITS = 40  # a component is evaluated where its mass exceeds 2^-(cut + this)


@dataclass(frozen=True)
class _Reach:
    """Component centre c is evaluated exactly at the cuts j0..j1 only (chosen in floats);
    outside them its contribution is bounded (rigorously, from its values at j0 and j1)."""

    j0: int
    j1: int
    vals: list[tuple[flint.arb, bool]]  # `_kernel_values` at cuts j0..j1


def _reaches(pair: Pair, cuts: list[float], grid: Grid) -> dict[Fraction, _Reach]:
    """Per centre, the cuts where the component's weighted mass is not negligible: a mixture
    of many components (a law of K) spans far more cuts than any one component reaches, and
    evaluating every kernel at every cut was most of the work (MUST Table 8's laws)."""
    return {c: _Reach(j0, j1, _kernel_values(pair, c, cuts[j0:j1 + 1]))
            for c, (j0, j1) in _reach_spans(pair, np.asarray(cuts), grid).items()}


def _reach_spans(pair: Pair, cuts: np.ndarray, grid: Grid) -> dict[Fraction, tuple[int, int]]:
    """Per centre, the first and last cut where its largest weight's kernel mass is not
    negligible (a float choice: cells outside are enclosed by the out-of-reach shares)."""
    weight: dict[Fraction, Fraction] = {}
    for w, c in pair.p + pair.q:
        weight[c] = max(weight.get(c, Fraction(0)), w)
    out = {}
    sf = float(pair.scale)
    for c, w in weight.items():
        budget = math.log(float(w)) + (grid.negligible_bits + _REACH_EXTRA_BITS) * math.log(2)
        r = (math.sqrt(2 * budget) if pair.kernel != "laplace" else budget) + 1 if budget > 0 else 1.0
        j0 = max(int(np.searchsorted(cuts, float(c) - r * sf)) - 1, 0)
        j1 = min(int(np.searchsorted(cuts, float(c) + r * sf, side="right")), len(cuts) - 1)
        if j1 <= j0:
            j0, j1 = 0, len(cuts) - 1
        out[c] = (j0, j1)
    return out


def _kernel_values(pair: Pair, c: Fraction, cuts: list[float]) -> list[tuple[flint.arb, bool]]:
    """At each cut: the cdf left of the centre c, the survival function right of it (flag).
    Which of the two is taken only affects precision (both are enclosures), so floats choose."""
    ca, cf = ball(c), float(c)
    if pair.kernel == "gauss":
        return _gauss_values(ca, cf, ball(pair.scale), cuts)
    inv = 1 / ball(pair.scale)
    kernel = pair.kernel
    vals = []
    for xf in cuts:
        u = (flint.arb(xf) - ca) * inv  # floats are dyadic: exact balls
        if xf > cf:  # right of the centre: the survival function, no 1 − (1 − tiny)
            vals.append((kernel_cdf(kernel, -u, True), True))
        else:
            vals.append((kernel_cdf(kernel, u, xf < cf), False))
    return vals


_TAYLOR_DEG = 8        # erfc's Taylor polynomial per block of cuts (`_gauss_values`)
_TAYLOR_SPREAD = 0.1   # blocks keep 2·max(z, 1)·R at most half this (`_gauss_values`)


def _gauss_values(ca: flint.arb, cf: float, sa: flint.arb,
                  cuts: list[float]) -> list[tuple[flint.arb, bool]]:
    """`_kernel_values` for the Gaussian, by Taylor models instead of one arb erfc per cut:
    with z = |x − c|/(s√2) the value is erfc(z)/2 (the survival function right of c, the
    cdf left of it). The cuts of one side are grouped in blocks (floats choose them); a
    block's anchor cut x_b has z_b (a ball) and the others z_b + t, t = ±(x − x_b)/(s√2)
    (balls), |t| ≤ R. Then erfc(z_b + t) = Σ_{n≤d} a_n tⁿ + r(t) with a_n the Taylor
    coefficients at z_b (an arb series at the ball z_b encloses them at the true z_b) and, by
    Lagrange's form of the remainder, |r(t)| ≤ |b_{d+1}|·R^{d+1} where b_{d+1} encloses
    erfc^{(d+1)}(ξ)/(d+1)! for every ξ in the ball z_b ± R (the same series at that ball).
    The polynomial is evaluated in ball arithmetic at all of a block's offsets at once
    (flint's Horner) and the remainder added as a ball. erfc(z + t) ≈ erfc(z)e^{−2zt} makes
    b_{d+1}R^{d+1} about (2zR)^{d+1}/(d+1)! of the value: with 2·max(z, 1)·R ≤ 1/20 and
    d = 8 (flint's series stop at 10 terms, ctx.cap, which stays as it is), under 10⁻¹⁴
    of it (as tight as one erfc per cut, whose radii are ~5·10⁻¹⁴ of the value). Floats
    only form the blocks: the remainder is bounded from the block's actual offsets."""
    k = 1 / (sa * _SQRT2_BALL)
    n = len(cuts)
    out: list[tuple[flint.arb, bool]] = []
    xs = np.asarray(cuts, dtype=float)
    right = xs > cf
    zf = np.abs(xs - cf) * float(k.mid())  # floats: only to form the blocks
    # block ids: Δ(max(z, 1)·z) = spread/2 per block keeps 2·max(z, 1)·R ≤ spread/2
    ids = np.floor(np.maximum(zf, 1.0) * zf / (_TAYLOR_SPREAD / 2)).astype(np.int64)
    key = ids * 2 + right
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(key)) + 1, [n])).tolist()
    xa = [flint.arb(x) for x in cuts]  # exact: floats are dyadic
    for i, j in zip(bounds[:-1], bounds[1:], strict=True):
        side = bool(right[i])
        if j - i < 6:  # too few to pay for the series
            for m in range(i, j):
                z = ((xa[m] - ca) if side else (ca - xa[m])) * k
                out.append((z.erfc() / 2, side))
            continue
        b = (i + j) // 2
        kk = k if side else -k
        zb = (xa[b] - ca) * kk
        ts = [(x - xa[b]) * kk for x in xa[i:j]]
        big_r = max(abs(ts[0]).upper(), abs(ts[-1]).upper())  # t is monotone in x
        coeffs = flint.arb_series([zb, 1], prec=_TAYLOR_DEG + 1).erfc().coeffs()
        tail = flint.arb_series([zb + flint.arb(0, big_r), 1],
                                prec=_TAYLOR_DEG + 2).erfc().coeffs()
        if len(coeffs) < _TAYLOR_DEG + 1 or len(tail) < _TAYLOR_DEG + 2:
            for m in range(i, j):  # (a series shorter than asked: one erfc per cut)
                z = ((xa[m] - ca) if side else (ca - xa[m])) * k
                out.append((z.erfc() / 2, side))
            continue
        rem = (abs(tail[_TAYLOR_DEG + 1]) * flint.arb(big_r) ** (_TAYLOR_DEG + 1) / 2).upper()
        poly = flint.arb_poly([a / 2 for a in coeffs])
        pad = flint.arb(0, rem)
        out.extend((v + pad, side) for v in poly.evaluate(ts, algorithm="iter"))
    return out


_SQRT2_BALL = flint.arb(2).sqrt()


def _cdf(v: tuple[flint.arb, bool]) -> flint.arb:
    return 1 - v[0] if v[1] else v[0]


def _sf(v: tuple[flint.arb, bool]) -> flint.arb:
    return v[0] if v[1] else 1 - v[0]


def _up_to(x: flint.arb) -> flint.arb:
    """A ball containing [0, x] (x ≥ 0): an unknown share of at most x."""
    return flint.arb(0).union(flint.arb(x.upper()))


def _mass(comps: tuple[tuple[Fraction, Fraction], ...], n_cuts: int,
          reach: dict[Fraction, _Reach] | dict[Fraction, _ReachIv],
          ) -> tuple[list[flint.arb] | vi.Iv, flint.arb, flint.arb]:
    """Masses of the cells [cut_i, cut_{i+1}], of (−∞, cut_0] and of [cut_last, ∞). A
    component contributes exactly to the cells between its reach's cuts j0 and j1; each cell
    left of j0 lies in (−∞, cut_j0] and gets an unknown share of at most w·cdf(cut_j0), each
    cell right of j1 at most w·sf(cut_j1) (sound whatever floats chose for j0, j1). Values
    in intervals (`_ReachIv`) give the cells in intervals (`_mass_iv`)."""
    if any(isinstance(r, _ReachIv) for r in reach.values()):
        return _mass_iv(comps, n_cuts, reach)  # type: ignore[arg-type]
    n = n_cuts - 1
    cells = [flint.arb(0)] * n
    below = flint.arb(0)
    above = flint.arb(0)
    left = [flint.arb(0)] * (n + 1)   # left[t]: bounds for the cells i < t
    right = [flint.arb(0)] * (n + 1)  # right[t]: bounds for the cells i ≥ t
    for w, c in comps:
        wa = ball(w)
        rc = reach[c]
        vals, j0 = rc.vals, rc.j0
        for i in range(j0, rc.j1):
            (a, a_sf), (b, b_sf) = vals[i - j0], vals[i + 1 - j0]
            if a_sf and b_sf:
                m = a - b
            elif not a_sf and not b_sf:
                m = b - a
            else:  # the centre lies inside the cell
                m = 1 - a - b
            cells[i] += wa * m
        lo_tail, hi_tail = wa * _cdf(vals[0]), wa * _sf(vals[-1])
        below += lo_tail if j0 == 0 else _up_to(lo_tail)
        above += hi_tail if rc.j1 == n else _up_to(hi_tail)
        if j0 > 0:
            left[j0] += lo_tail
        if rc.j1 < n:
            right[rc.j1] += hi_tail
    extra = flint.arb(0)
    for i in range(n - 1, -1, -1):  # Σ_{t > i} left[t]
        extra += left[i + 1]
        left[i + 1] = extra
    extra = flint.arb(0)
    for i in range(n):              # Σ_{t ≤ i} right[t]
        extra += right[i]
        right[i] = extra
    for i in range(n):
        e = left[i + 1] + right[i]
        if e.upper() > 0:
            cells[i] += _up_to(e)
    return cells, below, above


def _exponents(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...],
               ) -> list[tuple[flint.arb, flint.arb, flint.arb]]:
    """Component j's log-density up to a term common to P and Q (the kernel's constant and,
    for the Gaussian, −x²/(2s²)): log w_j + a_j x + b_j with a_j = c_j/s², b_j = −c_j²/(2s²)
    (Gaussian), or log w_j − |x − c_j|/s (Laplace, returned as (log w_j, c_j, 1/s))."""
    s = ball(pair.scale)
    out = []
    for w, c in comps:
        ca = ball(c)
        if pair.kernel == "gauss":
            out.append((ball(w).log(), ca / (s * s), -(ca * ca) / (2 * s * s)))
        else:
            out.append((ball(w).log(), ca, 1 / s))
    return out


def _log_densities(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...],
                   xs: list[flint.arb]) -> list[flint.arb]:
    """log of the mixture density at each cut, up to a term common to P and Q
    (`_exponents`). arb's exponent range is unbounded, so the sum of exponentials needs no
    shift against overflow."""
    terms = _exponents(pair, comps)
    if pair.kernel == "gauss":
        if len(terms) == 1:
            lw, a, b = terms[0]
            return [lw + a * x + b for x in xs]
        if all(Fraction(c).denominator == 1 for _, c in comps):
            return _log_polynomial(pair, comps, xs)
        return [sum(((lw + a * x + b).exp() for lw, a, b in terms), flint.arb(0)).log()
                for x in xs]
    if len(terms) == 1:
        lw, a, b = terms[0]
        return [lw - abs(x - a) * b for x in xs]
    return [sum(((lw - abs(x - a) * b).exp() for lw, a, b in terms), flint.arb(0)).log()
            for x in xs]


def _log_polynomial(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...],
                    xs: list[flint.arb]) -> list[flint.arb]:
    """`_log_densities` for a Gaussian mixture with integer centres (every law of K): with
    u = e^{x/s²} the shifted density Σ_j w_j e^{c_j x/s² − c_j²/(2s²)} is u^{c_min} times a
    polynomial in u with positive coefficients (no cancellation), evaluated by flint:
    one exp, one polynomial and one log per cut instead of one exp per component."""
    s2 = ball(pair.scale) ** 2
    low = min(int(c) for _, c in comps)
    coeffs = [flint.arb(0)] * (max(int(c) for _, c in comps) - low + 1)
    for w, c in comps:
        ca = ball(c)
        coeffs[int(c) - low] += ball(w) * (-(ca * ca) / (2 * s2)).exp()
    poly = flint.arb_poly(coeffs)
    inv = 1 / s2
    out = []
    for x in xs:
        t = x * inv
        out.append(poly(t.exp()).log() + low * t)
    return out


@dataclass(frozen=True)
class _Step:
    """One direction's per-step vectors on the lattice hℤ, all indices offset by `off`."""

    upper: Sequence[flint.arb]   # connect-the-dots P-masses
    upper_inf: flint.arb         # P-mass at +∞
    low_p: Sequence[flint.arb]   # bucket P-masses (use lower ends)
    low_q: Sequence[flint.arb]   # bucket Q-masses (use upper ends)
    off: int
    mean_p: float            # float moments, only to place windows
    mean_q: float
    sd: float
    bucket_mean_p: float     # the same for the bucket vectors (mass at the cells' lower ends)
    bucket_mean_q: float
    testable: bool = True    # False: a bound only (`Symmetrised`), no test, lower end 0
    # float enclosures (lo, hi) of upper, low_p and low_q entry by entry, where the cells
    # were computed in floats (`_direction_iv`): the FFT path reads them (`_fvec`)
    floats: tuple[vi.Iv, vi.Iv, vi.Iv] | None = field(default=None, repr=False, compare=False)


_MEMO: dict[tuple[AnyPair, Grid], _Both] | None = None


@contextmanager
def memo_cells() -> Iterator[None]:
    """Within the block, `_steps` is memoised per (pair, grid) — both frozen, and the
    vectors are never mutated (every power copies them) — so an audit that composes one
    pair for T releases, for one release, for its curves and for its lower end on one
    lattice certifies the cells once. Scoped, not global: nothing outlives the block."""
    global _MEMO
    outer = _MEMO
    _MEMO = {} if outer is None else outer
    try:
        yield
    finally:
        _MEMO = outer


class _Both:
    """Both directions' step vectors, (P‖Q, Q‖P), indexable like a pair; the reverse one is
    built when first asked for: `compose(rtol=…)`'s fine lattices usually need only P‖Q
    (the reverse order's certified upper end from a coarser lattice already lies below δ's
    lower end), and building a direction is a Python loop over every cell."""

    def __init__(self, fwd: _Step, rev: Callable[[], _Step], symmetric: bool = False) -> None:
        self._fwd, self._rev, self._made = fwd, rev, None
        self.symmetric = symmetric  # one vector serves both orders (`Symmetrised`)

    def __getitem__(self, d: int) -> _Step:
        if d in (0, -2):
            return self._fwd
        if d not in (1, -1):
            raise IndexError(d)
        if self._made is None:
            self._made = self._rev()
        return self._made

    def __len__(self) -> int:
        return 2

    def __iter__(self) -> Iterator[_Step]:
        yield self[0]
        yield self[1]


def _steps(pair: AnyPair, grid: Grid) -> _Both:
    """Both directions (P‖Q and Q‖P) from one set of certified cells (or atoms); memoised
    inside `memo_cells`."""
    if _MEMO is None:
        return _steps_of(pair, grid)
    key = (pair, grid)
    if key not in _MEMO:
        _MEMO[key] = _steps_of(pair, grid)
    return _MEMO[key]


def _steps_of(pair: AnyPair, grid: Grid) -> _Both:
    h = grid.h
    ha = ball(h)
    if isinstance(pair, Revealed):
        per = [(w, _steps(b, grid)) for w, b in pair.branches]
        return _Both(_mixed([(w, s[0]) for w, s in per]),
                     lambda: _mixed([(w, s[1]) for w, s in per]))
    if isinstance(pair, Symmetrised):
        sym = _symmetric_step(*_steps(pair.inner, grid), ha)
        return _Both(sym, lambda: sym, symmetric=True)
    if isinstance(pair, Allocation):
        return _allocation_steps(pair, grid)
    if isinstance(pair, Product):
        per = [_steps(x, grid) for x in pair.parts]
        return _Both(_product([s[0] for s in per]), lambda: _product([s[1] for s in per]))
    if isinstance(pair, ProfilePair):  # symmetric: one set of atoms serves both orders
        sym = _atom_steps(pair, grid, ha)[0]
        return _Both(sym, lambda: sym, symmetric=True)
    if isinstance(pair, (FinitePair, BinomialPair)) or pair.kernel in _DISCRETE:
        return _atom_steps(pair, grid, ha)
    if _VECTOR_CELLS and pair.kernel == "gauss":
        try:
            return _gauss_steps(pair, grid)
        except ArithmeticError:  # outside the float path's range: the balls below
            pass
    cuts = _cut_points(pair, grid)
    reach = _reaches(pair, cuts, grid)
    pm, p_below, p_above = _mass(pair.p, len(cuts), reach)
    qm, q_below, q_above = _mass(pair.q, len(cuts), reach)
    xs = [flint.arb(x) for x in cuts]  # exact: floats are dyadic
    losses = [a - b for a, b in zip(_log_densities(pair, pair.p, xs),
                                    _log_densities(pair, pair.q, xs), strict=True)]
    idx_lo = _lattice_index(losses, h, up=False)
    idx_hi = _lattice_index(losses, h, up=True)
    # cell i spans [cut_i, cut_{i+1}]: its loss lies between its ends' (monotone loss); the
    # mass below cut_0 has loss at most loss(cut_0), above cut_last at least loss(cut_last)
    return _both(pm, qm, p_below, p_above, q_below, q_above, idx_lo[:-1], idx_hi[1:],
                 (idx_lo[0], idx_hi[0]), (idx_lo[-1], idx_hi[-1]), ha)


def _product(steps: list[_Step]) -> _Step:
    """One step of independent parts: every vector the parts' convolved (`_mul`: the
    +∞ mass of an upper vector meets every mass of the other), the float moments added."""
    first, *rest = steps
    up = _Vec(list(first.upper), first.off, first.upper_inf)
    lp, lq = _Vec(list(first.low_p), first.off), _Vec(list(first.low_q), first.off)
    for s in rest:
        up = _mul(up, _Vec(list(s.upper), s.off, s.upper_inf))
        lp, lq = _mul(lp, _Vec(list(s.low_p), s.off)), _mul(lq, _Vec(list(s.low_q), s.off))
    assert up.off == lp.off == lq.off
    return _Step(up.c, up.out, lp.c, lq.c, up.off, sum(s.mean_p for s in steps),
                 sum(s.mean_q for s in steps), math.sqrt(sum(s.sd ** 2 for s in steps)),
                 sum(s.bucket_mean_p for s in steps), sum(s.bucket_mean_q for s in steps),
                 all(s.testable for s in steps))


def _atom_steps(pair: Pair | FinitePair | BinomialPair | ProfilePair, grid: Grid,
                ha: flint.arb) -> _Both:
    """Atoms as cells (`verifydp.accounting.atoms`): atom x's loss L lies in the lattice cell
    [floor(L/h), ceil(L/h)]; the truncated tail below the first atom has loss at most the
    first atom's (monotone loss), so it is rounded up to the first atom's upper end, and the
    tail above the last atom goes to +∞ (upper bound) or the top bucket (lower bound)."""
    if isinstance(pair, FinitePair):
        at = finite_atoms(pair)
    elif isinstance(pair, BinomialPair):
        at = binomial_atoms(pair)
    elif isinstance(pair, ProfilePair):
        at = profile_atoms(pair)
    else:
        lo, hi = _support(pair, grid)  # floats choose the truncation; the tails are bounded
        at = discrete_gaussian_atoms(pair.p, pair.q, pair.scale, lo, hi)
    if not at.loss:  # every atom at ±∞ (a degenerate pair): only the tails count
        zero = flint.arb(0)
        return _both([zero], [zero], at.p_below, at.p_above, at.q_below, at.q_above,
                     [0], [0], (0, 0), (0, 0), ha)
    lo_idx = _lattice_index(at.loss, grid.h, up=False)
    hi_idx = _lattice_index(at.loss, grid.h, up=True)
    return _both(list(at.p), list(at.q), at.p_below, at.p_above, at.q_below, at.q_above,
                 lo_idx, hi_idx, (lo_idx[0], hi_idx[0]), (lo_idx[-1], hi_idx[-1]), ha)


def _both(pm: list[flint.arb], qm: list[flint.arb], p_below: flint.arb, p_above: flint.arb,
          q_below: flint.arb, q_above: flint.arb, cell_lo: list[int], cell_hi: list[int],
          below: tuple[int, int], above: tuple[int, int], ha: flint.arb,
          ) -> _Both:
    """The two directions of cells with lattice ends [cell_lo[i], cell_hi[i]] in increasing
    loss order, the mass below the first cell with its loss in `below` (or −∞), the mass
    above the last with its loss at least `above[0]` (or +∞)."""
    fwd = _direction(pm, qm, p_below, p_above, q_below, q_above, cell_lo, cell_hi, below, ha)

    def rev() -> _Step:  # P and Q swap, the loss is negated, the axis runs the other way
        return _direction(qm[::-1], pm[::-1], q_above, q_below, p_above, p_below,
                          [-i for i in cell_hi[::-1]], [-i for i in cell_lo[::-1]],
                          (-above[1], -above[0]), ha)
    return _Both(fwd, rev)


def _profile(step: _Step, top: int, em: flint.arb, ep1: flint.arb) -> list[flint.arb]:
    """H(j) = E_P[(1 − e^{jh − L})_+] of an upper vector at the lattice points γ_j = e^{jh},
    j = 0 … top (top beyond its last index, where only the mass at +∞ is left), by
    W(j) = e^{−h}(u_{j+1} + W(j+1)) and H(j) = H(j+1) + (e^h − 1)W(j): sums of non-negative
    terms, so no cancellation (W(j) = Σ_{k>j} u_k e^{(j−k)h})."""
    out = [flint.arb(0)] * (top + 1)
    out[top] = step.upper_inf
    w = flint.arb(0)
    for j in range(top - 1, -1, -1):
        i = j + 1 - step.off
        u = step.upper[i] if 0 <= i < len(step.upper) else None
        w = em * (w + u) if u is not None else em * w
        out[j] = out[j + 1] + ep1 * w
    return out


def _symmetric_step(fwd: _Step, rev: _Step, ha: flint.arb) -> _Step:
    """The lattice pair S' of `Symmetrised` from both orders' upper vectors (each dominates
    its order's pair, so its profile H(γ) bounds that order's from above).

    Take h̃_j = the upper end of max(H_fwd(γ_j), H_rev(γ_j)) at γ_j = e^{jh}, j ≥ 0, and let
    S' have the profile that interpolates h̃ linearly in γ: above the true
    max(H_{P‖Q}, H_{Q‖P}) at every γ ≥ 1, since that maximum is convex in γ and below h̃ at
    the nodes. Its Q-mass above loss jh is the slope τ_j = (h̃_j − h̃_{j+1})/(γ_{j+1} − γ_j),
    rounded up and made non-increasing from the top (τ̂_j = max_{i≥j} τ_i: the profile
    p_∞ + Σ_{i≥j} τ̂_i(γ_{i+1} − γ_i) only rises). So S' has atoms at loss kh, k ≥ 1, with
    Q-mass q_k = τ̂_{k−1} − τ̂_k ≥ 0 and P-mass e^{kh}q_k, the mass h̃_top at +∞, their mirror
    images (P and Q swapped, the loss negated) and an atom at loss 0 holding the rest,
    r = 1 − p_∞ − Σ_k e^{kh}q_k − τ̂_0, which must be certified ≥ 0 (it is for the true
    symmetrisation, whose positive-loss masses satisfy P(L > 0) + Q(L > 0) ≤ 1 because its
    curve is symmetric, and h̃ only lowers τ_0). Then H_γ(S') ≥ the maximum at γ ≥ 1, S' is
    symmetric, and H_γ(S') = 1 − γ + γH_{1/γ}(S') carries the bound to γ < 1. The vector
    returned is S''s P-law with every mass at its upper end (tail-dominating, as every
    upper vector here)."""
    top = max(fwd.off + len(fwd.upper), rev.off + len(rev.upper), 1)
    em, eh = (-ha).exp(), ha.exp()
    ep1 = eh - 1
    hf, hr = _profile(fwd, top, em, ep1), _profile(rev, top, em, ep1)
    ht = [a.upper() if a.upper() >= b.upper() else b.upper() for a, b in zip(hf, hr, strict=True)]
    zero = flint.arb(0)
    tau = [zero] * (top + 1)  # τ̂_j, j = 0 … top; τ̂_top = 0 (flat beyond the last node)
    gamma = flint.arb(1)      # γ_j
    taus = []
    for j in range(top):
        taus.append(((ht[j] - ht[j + 1]) / (gamma * ep1)).upper())
        gamma = gamma * eh
    run = zero
    for j in range(top - 1, -1, -1):
        t = taus[j]
        run = t if t > run else run
        tau[j] = run
    p_inf = ht[top]
    ppos, qpos = [], []  # k = 1 … top − 1 (τ̂ vanishes from top on)
    gamma = eh
    rest = 1 - p_inf - tau[0]
    for k in range(1, top):
        qk = tau[k - 1] - tau[k]
        pk = gamma * qk
        rest -= pk
        ppos.append(pk.upper())
        qpos.append(qk.upper())
        gamma = gamma * eh
    if not rest.lower() >= 0:
        raise ArithmeticError(f"symmetrisation: the loss-0 atom {rest} is not certified "
                              f"non-negative (the orders' bounds are too loose here)")
    n = top - 1
    # indices −n … n: the mirror images, the atom at 0, the positive atoms
    up = [flint.arb(x) for x in qpos[::-1]] + [flint.arb(rest.upper())] + [
        flint.arb(x) for x in ppos]
    h = float(ha.mid())
    w = np.array([float(x.mid()) for x in up])
    loss = np.arange(-n, n + 1, dtype=float) * h
    mean = float((w * loss).sum() / max(w.sum(), 1e-300))
    var = max(float((w * (loss - mean) ** 2).sum() / max(w.sum(), 1e-300)), 1e-12)
    return _Step(up, flint.arb(p_inf), [zero], [zero], -n, mean, -mean, math.sqrt(var), 0.0,
                 0.0, testable=False)


def _mixed(steps: list[tuple[Fraction, _Step]]) -> _Step:
    """One direction of a revealed mixture (`Revealed`): the branches' vectors weighted and
    summed on a common offset; the float moments are the mixture's (they only place
    windows)."""
    off = min(s.off for _, s in steps)
    size = max(s.off + len(s.upper) for _, s in steps) - off

    def add(key: str) -> list[flint.arb]:
        out = [flint.arb(0)] * size
        for w, s in steps:
            wb = ball(w)
            for i, x in enumerate(getattr(s, key)):
                out[s.off - off + i] += wb * x
        return out

    ws = [float(w) for w, _ in steps]
    mean = {k: sum(w * getattr(s, k) for w, (_, s) in zip(ws, steps, strict=True))
            for k in ("mean_p", "mean_q", "bucket_mean_p", "bucket_mean_q")}
    var = max(sum(w * (s.sd**2 + (getattr(s, k) - mean[k]) ** 2)
                  for w, (_, s) in zip(ws, steps, strict=True)) for k in ("mean_p", "mean_q"))
    inf = sum((ball(w) * s.upper_inf for w, s in steps), flint.arb(0))
    return _Step(add("upper"), flint.arb(inf.upper()), add("low_p"), add("low_q"), off,
                 mean["mean_p"], mean["mean_q"], math.sqrt(max(var, 1e-24)),
                 mean["bucket_mean_p"], mean["bucket_mean_q"],
                 testable=all(s.testable for _, s in steps))


def _lattice_index(xs: list[flint.arb], h: Fraction, up: bool) -> list[int]:
    """floor(lower end of x / h) (up=False) or ceil(upper end of x / h) (up=True), each x."""
    inv = 1 / ball(h)
    if up:
        return [int((x * inv).upper().ceil().unique_fmpz()) for x in xs]
    return [int((x * inv).lower().floor().unique_fmpz()) for x in xs]


def _direction(pm: list[flint.arb], qm: list[flint.arb], p_below: flint.arb,
               p_above: flint.arb, q_below: flint.arb, q_above: flint.arb,
               cell_lo: list[int], cell_hi: list[int], below: tuple[int, int],
               ha: flint.arb) -> _Step:
    """Vectors of one direction: cell i (a cell of the output axis, or an atom) has its loss
    in lattice indices [cell_lo[i], cell_hi[i]]; the mass below the cells has its loss in
    [below[0], below[1]] (or −∞), the mass above them goes to +∞."""
    n = len(pm)
    first = min(below[0], min(cell_lo))
    last = max(below[1], max(cell_hi))
    off = first - 1
    size = last - off + 2
    up = [flint.arb(0)] * size
    lp = [flint.arb(0)] * size
    lq = [flint.arb(0)] * size
    zero = flint.arb(0)
    exps: dict[int, flint.arb] = {}  # e^{−hi}: neighbouring cells share their ends

    def e(i: int) -> flint.arb:
        if i not in exps:
            exps[i] = (-(ha * i)).exp()
        return exps[i]

    for i in range(n):
        a, b = cell_lo[i], cell_hi[i]
        P, Q = pm[i], qm[i]
        lp[a - off] += P
        lq[a - off] += Q
        if a == b:
            up[a - off] += P
            continue
        ea, eb = e(a), e(b)
        xa = (Q - P * eb) / (ea - eb)
        # keep the enclosure's lower end at a (clipped to [0, P]); the rest of P goes to b
        xa_lo = xa.lower()
        if not xa_lo > 0:
            xa_lo = zero
        elif not xa_lo < P.lower():
            xa_lo = P.lower()
        up[a - off] += xa_lo
        up[b - off] += flint.arb(P.upper()) - xa_lo
    # below the first cell: loss ≤ below[1], rounded up to it; for the test, bucketed at
    # below[0]
    up[below[1] - off] += flint.arb(p_below.upper())
    lp[below[0] - off] += p_below
    lq[below[0] - off] += q_below
    # above the last cut: +∞ for the upper bound; its own bucket for the test
    lp[last - off] += p_above
    lq[last - off] += q_above
    # cell midpoints: a cell's lower end biases the mean by about −h/2 per step, which over
    # thousands of steps moved the windows off the bulk and its mass to +∞
    # (the upper vectors'); the bucket vectors do sit at the lower ends, and their windows
    # must follow that drift
    mids = [(cell_lo[i] + cell_hi[i]) / 2 for i in range(n)]
    mean_p, mean_q, var = _moments(pm, qm, mids, ha)
    bucket_p, bucket_q, _ = _moments(pm, qm, [float(a) for a in cell_lo], ha)
    return _Step(up, flint.arb(p_above.upper()), lp, lq, off, mean_p, mean_q, math.sqrt(var),
                 bucket_p, bucket_q)


def _moments(pm: list[flint.arb], qm: list[flint.arb], mids: list[float],
             ha: flint.arb) -> tuple[float, float, float]:
    h = float(ha.mid())
    w = np.array([float(x.mid()) for x in pm])
    v = np.array([float(x.mid()) for x in qm])
    s = np.array(mids, dtype=float) * h
    mp = float((w * s).sum() / max(w.sum(), 1e-300))
    mq = float((v * s).sum() / max(v.sum(), 1e-300))
    var = max(float((w * (s - mp) ** 2).sum() / max(w.sum(), 1e-300)),
              float((v * (s - mq) ** 2).sum() / max(v.sum(), 1e-300)), 1e-12)
    return mp, mq, var


# ---------------------------------------------------------------- numpy intervals: Gaussian cells
#
# The Gaussian cells of `_steps_of` at float speed: every quantity an arb ball would hold is
# held as a pair of float arrays (lo, hi) with lo ≤ exact ≤ hi (`verifydp.exact.vecint`:
# outward rounding, exp and log with series remainders), and erfc from arb's Taylor models
# (`_gauss_values`' construction, evaluated in intervals). The arb path
# (`_VECTOR_CELLS = False`) stays the reference the tests compare with.

_VECTOR_CELLS = True

@dataclass(frozen=True)
class _ReachIv:
    """`_Reach` in intervals: the component's values at cuts j0..j1 (`verifydp.exact.normal_iv.normal_tail`)."""

    j0: int
    j1: int
    lo: np.ndarray
    hi: np.ndarray
    right: np.ndarray


def _reaches_iv(pair: Pair, cuts: np.ndarray, grid: Grid) -> dict[Fraction, _ReachIv]:
    """`_reaches` (the same float choice of each centre's cuts), values in intervals."""
    return {c: _ReachIv(j0, j1, *normal_iv.normal_tail(c, pair.scale, cuts[j0:j1 + 1]))
            for c, (j0, j1) in _reach_spans(pair, cuts, grid).items()}


_U = 2.0**-53


def _mass_iv(comps: tuple[tuple[Fraction, Fraction], ...], n_cuts: int,
             reach: dict[Fraction, _ReachIv]) -> tuple[vi.Iv, flint.arb, flint.arb]:
    """`_mass` in intervals: the cells' masses (lo, hi arrays), the tails as balls. A cell
    mass is a difference of the values at its ends (or 1 − both where the centre lies
    inside), clipped below at 0 (a mass is never negative); the unknown shares outside a
    component's reach are added to the upper ends only, their running sums rounded up
    (recursive summation of m non-negative floats errs by at most (m − 1)u times the sum,
    Higham 2002, §4.2)."""
    n = n_cuts - 1
    lo, hi = np.zeros(n), np.zeros(n)
    below = flint.arb(0)
    above = flint.arb(0)
    left, right = np.zeros(n + 1), np.zeros(n + 1)
    for w, c in comps:
        wa = ball(w)
        wl, wh = vi.of_ball(wa)
        rc = reach[c]
        j0, j1 = rc.j0, rc.j1
        a = (rc.lo[:-1], rc.hi[:-1])
        b = (rc.lo[1:], rc.hi[1:])
        sa, sb = rc.right[:-1], rc.right[1:]
        both_r, both_l = sa & sb, ~sa & ~sb
        d_ab, d_ba = vi.sub(a, b), vi.sub(b, a)
        mid = vi.sub((vi.rdn(1.0 - a[1]), vi.rup(1.0 - a[0])), b)
        m_lo = np.where(both_r, d_ab[0], np.where(both_l, d_ba[0], mid[0]))
        m_hi = np.where(both_r, d_ab[1], np.where(both_l, d_ba[1], mid[1]))
        m_lo = np.maximum(m_lo, 0.0)
        lo[j0:j1] = vi.rdn(lo[j0:j1] + vi.rdn(m_lo * wl))
        hi[j0:j1] = vi.rup(hi[j0:j1] + vi.rup(m_hi * wh))
        v0 = vi.ball_of(float(rc.lo[0]), float(rc.hi[0]))
        v1 = vi.ball_of(float(rc.lo[-1]), float(rc.hi[-1]))
        lo_tail = wa * (1 - v0 if rc.right[0] else v0)
        hi_tail = wa * (v1 if rc.right[-1] else 1 - v1)
        below += lo_tail if j0 == 0 else _up_to(lo_tail)
        above += hi_tail if j1 == n else _up_to(hi_tail)
        if j0 > 0:
            left[j0] += vi.of_ball(lo_tail)[1]
        if j1 < n:
            right[j1] += vi.of_ball(hi_tail)[1]
    hi = vi.rup(hi + _unknown_shares(left, right, len(comps)))
    return (lo, hi), below, above


def _unknown_shares(left: np.ndarray, right: np.ndarray, comps: int) -> np.ndarray:
    """Upper bounds of the out-of-reach shares per cell i: Σ_{t > i} left[t] + Σ_{t ≤ i}
    right[t] (`_mass`), the float running sums (at most `comps` non-zero terms each)
    inflated by their rounding (Higham 2002, §4.2) and rounded up."""
    n = len(left) - 1
    grow = 1 + 4 * (comps + 1) * _U
    extra = vi.rup(np.cumsum(left[::-1])[::-1] * grow)  # extra[t] = Σ_{t' ≥ t} left[t']
    pre = vi.rup(np.cumsum(right) * grow)                # pre[i] = Σ_{t ≤ i} right[t]
    return vi.rup(vi.rup(extra[1:] + pre[:n]) * (1 + 4 * _U))


def _log_density_iv(pair: Pair, comps: tuple[tuple[Fraction, Fraction], ...],
                    x: np.ndarray) -> vi.Iv:
    """`_log_densities` in intervals: log Σ_j w_j e^{a_j x + b_j} (`_exponents`), the
    largest exponent's float midpoint M(x) taken out first (log Σ = M + log Σ e^{E_j − M},
    any M: no overflow)."""
    terms = _exponents(pair, comps)
    ex = []
    for lw, a, b in terms:
        lwb = vi.of_ball(lw + b)
        al, ah = vi.of_ball(a)
        e = vi.mul((np.full_like(x, al), np.full_like(x, ah)), (x, x))
        ex.append(vi.add(e, (np.full_like(x, lwb[0]), np.full_like(x, lwb[1]))))
    if len(ex) == 1:
        return ex[0]
    shift = np.max(np.array([(lo_ + hi_) / 2 for lo_, hi_ in ex]), axis=0)
    total = (np.zeros_like(x), np.zeros_like(x))
    for e in ex:
        total = vi.add(total, vi.exp(vi.sub(e, (shift, shift))))
    return vi.add(vi.log(total), (shift, shift))


def _direction_iv(pm: vi.Iv, qm: vi.Iv, p_below: flint.arb, p_above: flint.arb,
                  q_below: flint.arb, q_above: flint.arb, cell_lo: np.ndarray,
                  cell_hi: np.ndarray, below: tuple[int, int], h: Fraction) -> _Step:
    """`_direction` in intervals: the same vectors (connect-the-dots split, buckets, tails)
    and moments; each lattice entry accumulates at most a few cells, its float sum rounded
    outward by the count (Higham 2002, §4.2), e^{−hi} by `vi.exp_affine` on enclosures of
    −h·i. The split's P-mass at a is the certified lower end of (Q − P e^{−hb})/(e^{−ha} −
    e^{−hb}), clipped to [0, P's lower end], as the balls do; the rest of P's upper end
    goes to b."""
    n = len(cell_lo)
    first = min(below[0], int(cell_lo.min()))
    last = max(below[1], int(cell_hi.max()))
    off = first - 1
    size = last - off + 2
    a_i, b_i = cell_lo - off, cell_hi - off

    def acc(idx: np.ndarray, w: np.ndarray, up: bool) -> np.ndarray:
        return vi.grouped_sum(idx, w, size, up)

    lp = (acc(a_i, pm[0], False), acc(a_i, pm[1], True))
    lq = (acc(a_i, qm[0], False), acc(a_i, qm[1], True))
    hl, hh = vi.of_ball(ball(h))
    # e^{−h·i} for i = first … last: e^{c + m·d} with c ∋ −h·first, d ∋ −h (`exp_affine`)
    ea_all = vi.exp_affine((vi.rdn(-hh * first), vi.rup(-hl * first)) if first >= 0
                           else (vi.rdn(-hl * first), vi.rup(-hh * first)),
                           (-hh, -hl), last - first + 1)
    if ea_all is None:
        raise ArithmeticError("losses beyond the floats' exp range: the balls' path")
    split = cell_lo != cell_hi
    up_w = np.where(split, 0.0, pm[1])  # a == b: all of P at a
    xa_lo = np.zeros(n)
    if split.any():
        s_idx = np.flatnonzero(split)
        ia, ib = cell_lo[s_idx] - first, cell_hi[s_idx] - first
        ea = (ea_all[0][ia], ea_all[1][ia])
        eb = (ea_all[0][ib], ea_all[1][ib])
        P = (pm[0][s_idx], pm[1][s_idx])
        Q = (qm[0][s_idx], qm[1][s_idx])
        num = vi.sub(Q, vi.mul(P, eb))
        den = vi.sub(ea, eb)
        ok = (num[0] > 0) & (den[0] > 0)
        with np.errstate(all="ignore"):
            x = np.where(ok, vi.rdn(num[0] / den[1]), 0.0)
        x = np.minimum(x, P[0])  # not above P's lower end
        xa_lo[s_idx] = np.maximum(x, 0.0)
    to_b = np.where(split, vi.rup(pm[1] - xa_lo), 0.0)
    up = acc(np.concatenate((a_i, a_i, b_i)), np.concatenate((up_w, xa_lo, to_b)), True)
    floats = (_bumped((up, up), ((below[1] - off, flint.arb(p_below.upper())),)),
              _bumped(lp, ((below[0] - off, p_below), (last - off, p_above))),
              _bumped(lq, ((below[0] - off, q_below), (last - off, q_above))))
    hf = float(h)
    wp, wq = (pm[0] + pm[1]) / 2, (qm[0] + qm[1]) / 2

    def moments(s: np.ndarray) -> tuple[float, float, float]:
        mp = float((wp * s).sum() / max(wp.sum(), 1e-300))
        mq = float((wq * s).sum() / max(wq.sum(), 1e-300))
        var = max(float((wp * (s - mp) ** 2).sum() / max(wp.sum(), 1e-300)),
                  float((wq * (s - mq) ** 2).sum() / max(wq.sum(), 1e-300)), 1e-12)
        return mp, mq, var

    mean_p, mean_q, var = moments((cell_lo + cell_hi) / 2 * hf)
    bucket_p, bucket_q, _ = moments(cell_lo.astype(float) * hf)
    return _Step(_LazyBalls(floats[0]), flint.arb(p_above.upper()), _LazyBalls(floats[1]),
                 _LazyBalls(floats[2]), off, mean_p, mean_q, math.sqrt(var), bucket_p,
                 bucket_q, floats=floats)


class _LazyBalls(Sequence[flint.arb]):
    """The balls containing float enclosures (`vecint.balls`), made when first read: the
    FFT path reads the floats themselves (`_fvec`), so most steps never need them."""

    def __init__(self, iv: vi.Iv) -> None:
        self._iv = iv
        self._balls: list[flint.arb] | None = None

    @property
    def iv(self) -> vi.Iv:
        return self._iv

    def _get(self) -> list[flint.arb]:
        if self._balls is None:
            self._balls = vi.balls(*self._iv)
        return self._balls

    def __len__(self) -> int:
        return len(self._iv[0])

    @overload
    def __getitem__(self, i: int) -> flint.arb: ...
    @overload
    def __getitem__(self, i: slice) -> list[flint.arb]: ...

    def __getitem__(self, i: int | slice) -> flint.arb | list[flint.arb]:
        return self._get()[i]

    def __iter__(self) -> Iterator[flint.arb]:
        return iter(self._get())


def _bumped(iv: vi.Iv, adds: tuple[tuple[int, flint.arb], ...]) -> vi.Iv:
    """A copy of the enclosures iv with balls added at a few entries (outward)."""
    lo, hi = iv[0].copy(), iv[1].copy()
    for i, x in adds:
        a, b = vi.of_ball(x)
        lo[i], hi[i] = vi.rdn(lo[i] + a), vi.rup(hi[i] + b)
    return lo, hi


def _lattice_ends(loss: vi.Iv, h: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """floor(lo / h) and ceil(hi / h) of loss enclosures (ArithmeticError where one is not
    finite: the balls' path takes over)."""
    il, ih = vi.of_ball(1 / ball(h))
    scaled = vi.mul(loss, (np.full_like(loss[0], il), np.full_like(loss[0], ih)))
    if not (np.all(np.isfinite(scaled[0])) and np.all(np.isfinite(scaled[1]))):
        raise ArithmeticError("a loss enclosure is not finite")
    return np.floor(scaled[0]).astype(np.int64), np.ceil(scaled[1]).astype(np.int64)


def _gauss_steps(pair: Pair, grid: Grid) -> _Both:
    """`_steps_of` for a Gaussian pair, in intervals (section comment above)."""
    h = grid.h
    cuts = np.asarray(_cut_points(pair, grid), dtype=float)
    reach = _reaches_iv(pair, cuts, grid)
    pm, p_below, p_above = _mass(pair.p, len(cuts), reach)
    qm, q_below, q_above = _mass(pair.q, len(cuts), reach)
    assert isinstance(pm, tuple) and isinstance(qm, tuple)
    if not all(np.all(np.isfinite(v)) for v in (*pm, *qm)):
        raise ArithmeticError("a cell mass enclosure is not finite")
    loss = vi.sub(_log_density_iv(pair, pair.p, cuts), _log_density_iv(pair, pair.q, cuts))
    idx_lo, idx_hi = _lattice_ends(loss, h)
    if max(abs(int(idx_lo.min())), abs(int(idx_hi.max()))) * float(h) > 600:
        raise ArithmeticError("losses beyond the floats' exp range: the balls' path")
    fwd = _direction_iv(pm, qm, p_below, p_above, q_below, q_above, idx_lo[:-1], idx_hi[1:],
                        (int(idx_lo[0]), int(idx_hi[0])), h)

    def rev() -> _Step:  # P and Q swap, the loss is negated, the axis runs the other way
        return _direction_iv((qm[0][::-1], qm[1][::-1]), (pm[0][::-1], pm[1][::-1]),
                             q_above, q_below, p_above, p_below,
                             -idx_hi[1:][::-1], -idx_lo[:-1][::-1],
                             (-int(idx_hi[-1]), -int(idx_lo[-1])), h)
    return _Both(fwd, rev)



def _allocation_steps(pair: Allocation, grid: Grid) -> _Both:
    """Both directions of one balls-and-bins epoch (`verifydp.accounting.ballsbins`): the
    upper vectors from its spread pair's atoms (each atom a cell of a single likelihood
    ratio, split by connect-the-dots between the lattice points around its loss), the
    bucket vectors from the labels' exact law (a dominated pair; the bucket is the label's
    lattice cell), merged on one index range."""
    law = ballsbins.laws(pair)
    if not len(law.spread_q) or not len(law.test_p[0]):
        raise ArithmeticError(f"{pair.name or 'balls-and-bins'}: no atom of the epoch's laws "
                              f"is above the negligible mass (the lattice windows cannot "
                              f"hold its bulk): not certifiable on these lattices")
    h = grid.h
    zero = flint.arb(0)
    qm = (law.spread_q, law.spread_q)
    pm = vi.mul(law.spread_lr, qm)
    a, b = _lattice_ends(law.spread_loss, h)
    tp, tq = law.test_p, law.test_q
    ta, _ = _lattice_ends(law.test_loss, h)
    (p0, q0), (p_top, q_top) = law.test_bottom, law.test_top

    def direction(sign: int) -> _Step:
        if sign > 0:
            up = _direction_iv(pm, qm, zero, law.p_inf, law.q_neg_inf, zero, a, b,
                               (int(a[0]), int(b[0])), h)
            low = _direction_iv(tp, tq, p0, p_top, q0, q_top, ta, ta,
                                (int(ta[0]), int(ta[0])), h)
        else:  # P and Q swap, the loss is negated, the axis runs the other way
            up = _direction_iv((qm[0][::-1], qm[1][::-1]), (pm[0][::-1], pm[1][::-1]),
                               zero, law.q_neg_inf, law.p_inf, zero,
                               -b[::-1], -a[::-1], (-int(b[-1]), -int(a[-1])), h)
            low = _direction_iv((tq[0][::-1], tq[1][::-1]), (tp[0][::-1], tp[1][::-1]),
                                q_top, q0, p_top, p0, -ta[::-1], -ta[::-1],
                                (-int(ta[-1]), -int(ta[-1])), h)
        return _merged(up, low)

    return _Both(direction(1), lambda: direction(-1))


def _merged(up: _Step, low: _Step) -> _Step:
    """The upper vectors of `up` and the bucket vectors of `low` on one index range (the
    two come from different pairs of one step: a dominating one and a dominated one)."""
    off = min(up.off, low.off)
    end = max(up.off + len(up.upper), low.off + len(low.low_p))
    zero = flint.arb(0)

    def pad(v: Sequence[flint.arb], o: int) -> list[flint.arb]:
        return [zero] * (o - off) + list(v) + [zero] * (end - o - len(v))

    return _Step(pad(up.upper, up.off), up.upper_inf, pad(low.low_p, low.off),
                 pad(low.low_q, low.off), off, up.mean_p, up.mean_q, max(up.sd, low.sd),
                 low.bucket_mean_p, low.bucket_mean_q)


# ---------------------------------------------------------------- composition


@dataclass
class _Vec:
    """Masses at lattice indices off, off+1, …, plus a mass counted outside (see `_window`)."""

    c: Sequence[flint.arb]   # a list, or `_LazyBalls` (FFT powers: `_power_fft`)
    off: int
    out: flint.arb = field(default_factory=lambda: flint.arb(0))


def _total(v: _Vec) -> flint.arb:
    return sum(v.c, flint.arb(0))


def _mul(x: _Vec, y: _Vec) -> _Vec:
    px = flint.arb_poly(x.c)
    # one object for a square: flint then takes its squaring path (about 1.7× faster)
    c = (px * px if x is y else px * flint.arb_poly(y.c)).coeffs()
    # +∞ mass (upper) or a bucket vector's dropped mass (counted where it is subtracted)
    out = x.out * (_total(y) + y.out) + _total(x) * y.out
    return _Vec(c, x.off + y.off, out)


_REACH = 2  # windows reach this many single-step extremes beyond the bulk


def _window(v: _Vec, lo: int, hi: int, upper: bool, negligible: flint.arb) -> _Vec:
    """Cut to indices [lo, hi], and cut negligible leading and trailing masses, soundly for
    an upper vector and a bucket vector alike (module docstring, 4)."""
    c = v.c
    first = next((i for i, x in enumerate(c) if x.upper() > negligible), len(c))
    last = next((i for i in range(len(c) - 1, -1, -1) if c[i].upper() > negligible), -1)
    lo = max(lo, v.off + first)
    hi = min(hi, v.off + last)
    if lo > hi:
        lo = hi = v.off + first if first < len(c) else v.off
    start, end = lo - v.off, hi - v.off + 1
    if start <= 0 and end >= len(c):
        return v
    start_c, end_c = max(start, 0), min(max(end, 0), len(c))
    below = sum(c[:start_c], flint.arb(0))
    above = sum(c[end_c:], flint.arb(0))
    kept = c[start_c:end_c] or [flint.arb(0)]
    new_off = v.off + start_c
    out = v.out
    if upper:
        kept[0] = kept[0] + below  # rounded up to the window's bottom
        out = out + above           # to +∞
    else:
        out = out + below + above
    return _Vec(kept, new_off, out)


def _power(step: _Step, key: str, k: int, grid: Grid, h: float) -> _Vec:
    upper = key == "upper"
    base = _Vec(list(getattr(step, key)), step.off, step.upper_inf if upper else flint.arb(0))
    means = (step.mean_p, step.mean_q) if upper else (step.bucket_mean_p, step.bucket_mean_q)
    mu_lo, mu_hi = min(means), max(means)
    # one step's non-negligible support: heavy-tailed steps (a rare large loss, as in
    # subsampling) need room beyond the Gaussian-like bulk of the partial sums
    negligible = flint.arb(2) ** -grid.negligible_bits
    base = _window(base, -(10**9), 10**9, upper, negligible)
    reach_lo = max(mu_lo - base.off * h, 0.0)
    reach_hi = max((base.off + len(base.c)) * h - mu_hi, 0.0)

    def window(v: _Vec, j: int) -> _Vec:
        half = grid.window_sd * step.sd * math.sqrt(j) + 1.0
        lo = math.floor((mu_lo * j - half - _REACH * reach_lo) / h)
        hi = math.ceil((mu_hi * j + half + _REACH * reach_hi) / h)
        return _window(v, lo, hi, upper, negligible)

    result: _Vec | None = None
    count = 0
    power = 1
    while True:
        if k & 1:
            result = base if result is None else window(_mul(result, base), count + power)
            count += power
        k >>= 1
        if not k:
            break
        base = window(_mul(base, base), 2 * power)
        power *= 2
    assert result is not None
    return result


@dataclass(frozen=True)
class Composed:
    """The k-fold composed vectors of both directions (or of those asked for); δ(ε) for any
    ε is cheap from here."""

    pair: AnyPair
    steps: int
    grid: Grid
    step_of: _Both                      # per direction (the reverse built when asked for)
    upper: tuple[_Vec | None, ...]      # per direction: the composed connect-the-dots vector
    target: float | None = None         # the ε the FFT composition is tilted to (`composed`)
    fft_lower: float = 1e-3             # with a target, the bucket vectors by FFT too where
                                        # that loses at most this share (`_fft_lower`); 0: never
    _lower_vecs: dict[int, tuple[_Vec, _Vec]] = field(default_factory=dict, repr=False)
    _lower_tails: dict[int, _Tails] = field(default_factory=dict, repr=False)
    _float_vecs: dict[int, _FloatUpper] = field(default_factory=dict, repr=False)
    _suffixes: dict[int, _Suffix] = field(default_factory=dict, repr=False)
    # the FFT lower end's loss against its float estimate, when tried (`_fft_lower`): it
    # is the composition's cancellation, not the lattice's, so `_refine_delta` reads it
    _fft_loss: list[float] = field(default_factory=list, repr=False)

    def _lower(self, d: int, eps: Fraction) -> Fraction:
        """Direction d's certified lower bound from the forward direction's composed bucket
        vectors (module docstring, 5), computed when first needed: a direction whose upper
        bound lies below the other's lower bound never needs them."""
        if not self.step_of[0].testable:
            return Fraction(0)  # a bound only (`Symmetrised`): no realisable test
        if d not in self._lower_tails:
            h = float(self.grid.h)
            if self.target is not None and self.fft_lower > 0 and self.steps > 1:
                got = self._fft_lower(d)
                if got is not None:
                    self._lower_tails[d] = got
                    return _lower(got, eps)
            if 0 not in self._lower_vecs:
                self._lower_vecs[0] = (
                    _power(self.step_of[0], "low_p", self.steps, self.grid, h),
                    _power(self.step_of[0], "low_q", self.steps, self.grid, h))
            self._lower_tails[d] = _tails(*self._lower_vecs[0], reverse=d == 1)
        return _lower(self._lower_tails[d], eps)

    def _fft_lower(self, d: int = 0) -> _FftTails | None:
        """δ_{P‖Q}'s test tails from the bucket vectors composed by the tilted FFT
        (`_fft_tails`); for d = 1 (δ_{Q‖P}) the same on the reversed axis, the events
        {T ≤ τ} = {−T ≥ −τ}: the bucket vectors mirrored (index i ↦ −i), Q̃ the positive
        vector and P̃ the subtracted one (module docstring, 5). None where the balls are
        better: where the FFT's certified
        lower end at the target falls more than the share `fft_lower` (or a tenth of the
        lattice's own relative width, if larger) below its own float estimate (a tiny δ from a large cancellation, q = 1/1000, σ = 1, k = 10^4: the
        round-off bound, relative to the tails, is amplified by P̃(T ≥ τ)/δ). Floats
        decide only which certified bound is used."""
        st, t = self.step_of[0], self.target
        assert t is not None
        # the bucket vectors sit at the cells' lower ends, so the composed buckets'
        # likelihood ratio reaches e^ε about k·(mean − bucket mean) below ε: the test's
        # threshold is there, and so is the tilt (floats choose it); on the mirrored axis
        # the buckets sit that much above the mirrored loss
        shift = self.steps * ((st.mean_p - st.bucket_mean_p)
                              + (st.mean_q - st.bucket_mean_q)) / 2
        h = float(self.grid.h)
        outs = []
        keys = (("low_p", "low"), ("low_q", "up")) if d == 0 else (("low_q", "low"),
                                                                    ("low_p", "up"))
        for key, side in keys:
            base = _fwindow(_fvec(st, key, mirror=d == 1), side == "up",
                            2.0**-self.grid.negligible_bits)
            f = _fft_core(base, self.steps, side, t - shift if d == 0 else t + shift, h,
                          flat=d == 1)
            if f is None:
                return None
            outs.append(f)
        tails = _fft_tails(*outs)
        ee = math.exp(t) * (1 + 2.0**-50)
        with np.errstate(all="ignore"):
            vals = np.nan_to_num(tails.ps - ee * tails.qs, nan=-np.inf)
        best = int(np.argmax(vals))
        # the float estimate from the windows' midpoints where P's entries are resolved (no
        # round-off bound; below its slack the untilted noise would be amplified)
        p_mid = np.where(outs[0].vals > outs[0].slack, outs[0].vals, 0.0)
        est = _fft_tails(replace(outs[0], vals=p_mid), outs[1], exact=True)
        with np.errstate(all="ignore"):
            estimate = float(np.max(np.nan_to_num(est.ps - ee * est.qs, nan=-np.inf)))
        if not estimate > 0:
            # δ_{Q‖P}: no test certifies anything here, the balls' would not either (their
            # float estimate is this one): the tails stand, certifying 0 at the target
            return tails if d == 1 else None
        loss = 1 - vals[best] / estimate
        if d == 0:  # `_refine_delta` reads δ_{P‖Q}'s
            self._fft_loss.append(loss)
        # a coarse lattice's bracket is wide anyway: a tenth of its width may go too (its
        # upper end is certified before the lower end is needed)
        allowed = self.fft_lower
        if self.upper[d] is not None:
            hi = float(self._upper_at(d, Fraction(t)))
            if hi > estimate:
                allowed = max(allowed, (hi - estimate) / hi / 10)
        if not (vals[best] > 0 and loss <= allowed):
            return None
        return tails

    def delta_lower(self, epsilon: Fraction) -> Fraction:
        """The certified lower end of δ(ε) (the larger order's) from the bucket vectors
        alone: for a realisable pair whose upper end is not wanted (`composed(…,
        directions=())`)."""
        eps = Fraction(epsilon)
        return max(self._lower(d, eps) for d in (0, 1))

    def delta(self, epsilon: Fraction) -> Bracket:
        """A certified bracket of δ(ε) = max over the two directions."""
        if any(up is None for up in self.upper):
            raise ValueError("δ(ε) needs both directions composed")
        return _max_bracket(self.directions(Fraction(epsilon)))

    def _upper_at(self, d: int, eps: Fraction) -> Fraction:
        """Direction d's certified upper end at ε (`_upper`), its suffix sums built once."""
        up = self.upper[d]
        assert up is not None
        if d not in self._suffixes:
            self._suffixes[d] = _suffix(up, self.grid.h)
        return _upper(up, eps, self.grid.h, self._suffixes[d])

    def delta_upper_estimate(self, epsilon: float) -> float:
        """`delta_upper` in floats (the vectors' midpoints): cheap, to choose among many
        certified bounds (`accounting.chained`), never to decide."""
        best = 0.0
        for d, up in enumerate(self.upper):
            assert up is not None
            if d not in self._float_vecs:
                self._float_vecs[d] = _FloatUpper.of(up, float(self.grid.h))
            best = max(best, self._float_vecs[d].at(epsilon))
        return min(best, 1.0)

    def delta_upper(self, epsilon: Fraction) -> Fraction:
        """The certified upper end of δ(ε) (both directions) without the lower end's work:
        for bounds built from many upper ends (`accounting.chained`)."""
        if any(up is None for up in self.upper):
            raise ValueError("δ(ε) needs both directions composed")
        eps = Fraction(epsilon)
        return min(max(self._upper_at(d, eps) for d in range(len(self.upper))), Fraction(1))

    def directions(self, epsilon: Fraction,
                   known: tuple[Bracket | None, ...] = (None, None)) -> tuple[Bracket, ...]:
        """Certified brackets of each order's δ(ε) (direction 0: δ_{P^k‖Q^k}, 1: δ_{Q^k‖P^k}),
        each intersected with an earlier certified bracket in `known` (any lattice's is);
        a direction not composed here takes its `known` bracket. Only as much is computed as
        the maximum needs: a direction's lower end is left at its known one (or 0) when its
        upper end lies below another direction's lower end."""
        eps = Fraction(epsilon)
        his: list[Fraction] = []
        for d, up in enumerate(self.upper):
            k = known[d]
            if up is None:
                if k is None:
                    raise ValueError(f"direction {d} was not composed and has no known bracket")
                his.append(k.hi)
            else:
                hi = self._upper_at(d, eps)
                his.append(min(hi, k.hi) if k is not None else hi)
        los = [k.lo if k is not None else Fraction(0) for k in known]
        for d in sorted(range(len(his)), key=lambda d: -his[d]):
            # the largest upper end first; a direction below the best lower end cannot matter
            if his[d] > max(los):
                los[d] = max(los[d], self._lower(d, eps))
        out = []
        for lo, hi in zip(los, his, strict=True):
            if lo > hi:
                raise ArithmeticError(f"inconsistent δ bracket [{lo}, {hi}]: a bug, not a result")
            out.append(Bracket(max(lo, Fraction(0)), min(hi, Fraction(1))))
        return tuple(out)

    def delta_direction(self, epsilon: Fraction, direction: int) -> Bracket:
        """A certified bracket of one order's δ: direction 0 is δ_{P^k‖Q^k}(ε), 1 is
        δ_{Q^k‖P^k}(ε) (a mixture over k with a revealed label needs one order throughout)."""
        eps = Fraction(epsilon)
        up = self.upper[direction]
        if up is None:
            raise ValueError(f"direction {direction} was not composed")
        hi = self._upper_at(direction, eps)
        lo = self._lower(direction, eps) if hi > 0 else Fraction(0)
        if lo > hi:
            raise ArithmeticError(f"inconsistent δ bracket [{lo}, {hi}]: a bug, not a result")
        return Bracket(max(lo, Fraction(0)), min(hi, Fraction(1)))

    def epsilon(self, delta: Fraction, tol: Fraction = Fraction(1, 10**4)) -> Bracket:
        """A certified bracket of ε(δ) = inf{ε ≥ 0: δ(ε) ≤ δ}: δ(ε) is non-increasing, so
        ε(δ) ≤ any ε with certified δ_hi(ε) ≤ δ, and ε(δ) ≥ any ε with δ_lo(ε) > δ."""
        delta = Fraction(delta)
        if not 0 < delta < 1:
            raise ValueError("δ must lie in (0, 1)")
        return invert_delta(self.delta, delta, tol)


def _max_bracket(per: tuple[Bracket, ...]) -> Bracket:
    """The bracket of max_d δ_d from brackets of each δ_d."""
    return Bracket(max(b.lo for b in per), max(b.hi for b in per))


def invert_delta(delta: Callable[[Fraction], Bracket], target: Fraction,
                 tol: Fraction = Fraction(1, 10**4), start: Fraction | None = None,
                 limit: Fraction = Fraction(2**12)) -> Bracket:
    """A certified bracket of ε(δ) = inf{ε ≥ 0: δ(ε) ≤ target} from certified brackets of a
    non-increasing δ(·): ε(δ) ≤ any ε with δ_hi(ε) ≤ target, and ε(δ) ≥ any ε with
    δ_lo(ε) > target; both ends by bisection to relative width `tol` (docs/foundations.md
    #composition). `start` is a first guess for the upper end."""
    if delta(Fraction(0)).hi <= target:
        return Bracket(0, 0)
    lo_ok, hi_ok = Fraction(0), start or Fraction(1)  # δ_lo(lo_ok) > target ≥ δ_hi(hi_ok)
    while delta(hi_ok).hi > target:
        lo_ok = hi_ok if delta(hi_ok).lo > target else lo_ok
        hi_ok *= 2
        if hi_ok > limit:
            raise ArithmeticError(f"ε(δ) beyond {limit}: the lattice cannot resolve it")
    a, b = lo_ok, hi_ok
    while b - a > tol * max(b, Fraction(1, 100)):
        mid = (a + b) / 2
        a, b = (a, mid) if delta(mid).hi <= target else (mid, b)
    eps_hi = b
    a, b = lo_ok, eps_hi
    if delta(a).lo <= target:
        return Bracket(Fraction(0), eps_hi)
    while b - a > tol * max(b, Fraction(1, 100)):
        mid = (a + b) / 2
        a, b = (mid, b) if delta(mid).lo > target else (a, mid)
    return Bracket(a, eps_hi)


@dataclass(frozen=True)
class _FloatUpper:
    """`_upper` in floats (midpoints): cells within _NEAR of ε one by one (floats would lose
    the difference there), the rest from suffix sums. Chooses among certified bounds; never
    decides."""

    masses: np.ndarray
    s: np.ndarray
    mass: np.ndarray  # suffix sums, one longer (the empty suffix last)
    tilt: np.ndarray
    out: float

    @staticmethod
    def of(up: _Vec, h: float) -> _FloatUpper:
        if isinstance(up.c, _LazyBalls):
            masses = (up.c.iv[0] + up.c.iv[1]) / 2
        else:
            masses = np.array([float(x.mid()) for x in up.c])
        s = h * (up.off + np.arange(len(masses)))
        mass = np.append(np.cumsum(masses[::-1])[::-1], 0.0)
        tilt = np.append(np.cumsum((masses * np.exp(-s))[::-1])[::-1], 0.0)
        return _FloatUpper(masses, s, mass, tilt, float(up.out.mid()))

    def at(self, eps: float) -> float:
        i = int(np.searchsorted(self.s, eps, side="right"))
        j = int(np.searchsorted(self.s, eps + _NEAR, side="left"))
        near = float(np.sum(self.masses[i:j] * -np.expm1(eps - self.s[i:j])))
        return self.out + near + max(0.0, self.mass[j] - math.exp(eps) * self.tilt[j])


class _Suffix:
    """Suffix sums of an upper vector, certified where first asked for (memoised):
    mass(j) = Σ_{i≥j} c_i and tilt(j) = Σ_{i≥j} c_i e^{−s_i}, s_i = h(off + i), the latter as
    e^{−s_j}·Σ_m c_{j+m} r^m with r = e^{−h}: for an FFT power's float enclosures, every j at
    once from float suffix sums of c_i and c_i·e^{−hi} (`_float_suffixes`), otherwise
    flint's Horner on the ball polynomial; one evaluation, not one exponential per entry."""

    def __init__(self, up: _Vec, h: Fraction) -> None:
        self._up, self._ha = up, ball(h)
        self._memo: dict[int, tuple[flint.arb, flint.arb]] = {}
        self._floats: tuple[np.ndarray, ...] | None = None
        self._tried = False

    def at(self, j: int) -> tuple[flint.arb, flint.arb]:
        c = self._up.c
        if j not in self._memo and isinstance(c, _LazyBalls):
            if not self._tried:
                self._floats, self._tried = _float_suffixes(c.iv, self._ha), True
            if self._floats is not None:
                m_lo, m_hi, t_lo, t_hi = self._floats
                self._memo[j] = (vi.ball_of(m_lo[j], m_hi[j]),
                                 (-(self._ha * self._up.off)).exp() * vi.ball_of(t_lo[j], t_hi[j]))
        if j not in self._memo:
            c = self._up.c[j:]
            mass = sum(c, flint.arb(0))
            r = (-self._ha).exp()
            tilt = (-(self._ha * (self._up.off + j))).exp() * flint.arb_poly(c)(r) if c \
                else flint.arb(0)
            self._memo[j] = (mass, tilt)
        return self._memo[j]


def _float_suffixes(iv: vi.Iv, ha: flint.arb) -> tuple[np.ndarray, ...] | None:
    """Enclosures of Σ_{i≥j} c_i and Σ_{i≥j} c_i·e^{−hi} for every j, c_i ∈ iv (non-negative
    masses; h in the ball ha): the factors e^{−hi} in float intervals (`vecint.exp_affine`),
    the products rounded outward, the suffix sums by float cumulative sums, whose error for
    non-negative terms is at most γ_{n−1} times the sum (Higham 2002, §4.2): the factors
    1 ± 4nu cover it. Lower ends (m_lo, t_lo), upper ends (m_hi, t_hi); None where an
    exponent leaves the floats' range."""
    lo, hi = np.maximum(iv[0], 0.0), iv[1]
    n = len(lo)
    hl, hh = vi.of_ball(ha)
    fac = vi.exp_affine((0.0, 0.0), (-hh, -hl), n)
    if fac is None or not n * _U < 0.01:
        return None
    grow = 4 * n * _U

    def suffix(x: np.ndarray, up: bool) -> np.ndarray:
        s = np.cumsum(x[::-1])[::-1]
        return vi.rup(s * (1 + grow)) if up else np.maximum(vi.rdn(s * (1 - grow)), 0.0)

    return (suffix(lo, False), suffix(hi, True), suffix(vi.rdn(lo * fac[0]), False),
            suffix(vi.rup(hi * fac[1]), True))


def _suffix(up: _Vec, h: Fraction) -> _Suffix:
    return _Suffix(up, h)


_NEAR = 1  # loss units above ε summed cell by cell in floats (`_FloatUpper`); beyond,
# 1 − e^{ε−s} ≥ 1 − e^{−1}


def _upper(up: _Vec, eps: Fraction, h: Fraction, suffix: _Suffix) -> Fraction:
    """Σ_i c_i (1 − e^{ε − s_i})_+ plus the mass at +∞, certified: over the cells with
    s_i > ε (decided exactly in rationals) it is Σ c_i − e^ε Σ c_i e^{−s_i}, both suffix sums
    of one ball polynomial evaluation (`_Suffix`). The subtraction loses log₂ of the mass
    above ε over δ in bits: a few bits where the loss law's tail decays at rate θ (about
    log₂(1 + θ)), and arb carries the loss in the ball, so the bound stays rigorous however
    much is lost."""
    tot = up.out
    start = max(0, math.floor(eps / h) + 1 - up.off)  # h·(off + i) > ε
    if start < len(up.c):
        mass, tilt = suffix.at(start)
        tot = tot + mass - ball(eps).exp() * tilt
    return rational(tot, up=True)


@dataclass(frozen=True)
class _Tails:
    """The threshold sums behind `_lower`, on the test's axis (reversed for δ_{Q‖P}): float
    suffix sums to choose τ (ε-free, so built once per direction and reused for every ε of a
    bisection), and the balls to certify the chosen τ's sums in arb (memoised per τ)."""

    ps: np.ndarray
    qs: np.ndarray
    p_ball: list[flint.arb]
    q_ball: list[flint.arb]
    q_out: flint.arb
    certified: dict[int, tuple[flint.arb, flint.arb]] = field(default_factory=dict)

    def sums(self, tau: int) -> tuple[flint.arb, flint.arb]:
        if tau not in self.certified:
            self.certified[tau] = (sum(self.p_ball[tau:], flint.arb(0)),
                                   sum(self.q_ball[tau:], flint.arb(0)) + self.q_out)
        return self.certified[tau]


def _tails(lp: _Vec, lq: _Vec, reverse: bool) -> _Tails:
    pos, neg = (lq, lp) if reverse else (lp, lq)
    n_off = min(pos.off, neg.off)
    end = max(pos.off + len(pos.c), neg.off + len(neg.c))
    n = end - n_off
    p_ball = [flint.arb(0)] * n
    q_ball = [flint.arb(0)] * n
    for i, x in enumerate(pos.c):
        p_ball[pos.off - n_off + i] = x
    for i, x in enumerate(neg.c):
        q_ball[neg.off - n_off + i] = x
    if reverse:  # {T ≤ τ} is {−T ≥ −τ}: the same suffix sums on the reversed axis
        p_ball, q_ball = p_ball[::-1], q_ball[::-1]
    p_lo = np.array([max(float(x.lower()), 0.0) for x in p_ball])
    q_hi = np.array([float(x.upper()) for x in q_ball])
    # float suffix sums of non-negative terms: relative error ≤ n·2^-52, made explicit
    slack = 1 + 4 * n * 2.0**-52
    ps = np.cumsum(p_lo[::-1])[::-1] / slack
    qs = np.cumsum(q_hi[::-1])[::-1] * slack + float(neg.out.upper()) * slack
    return _Tails(ps, qs, p_ball, q_ball, neg.out)


def _lower(t: _Tails, eps: Fraction) -> Fraction:
    """max over thresholds τ of P̃^k(T ≥ τ) − e^ε Q̃^k(T ≥ τ) (δ_{P‖Q}; on the reversed
    axis Q̃^k(T ≤ τ) − e^ε P̃^k(T ≤ τ), δ_{Q‖P}), certified from below: the positive
    vector's masses at their lower ends, the subtracted one's at their upper ends plus all
    the mass it dropped; floats only choose τ."""
    ee = ball(eps).exp()
    e_hi = float(ee.upper()) * (1 + 2.0**-50)
    with np.errstate(all="ignore"):
        vals = np.nan_to_num(t.ps - e_hi * t.qs, nan=-np.inf)
    best = int(np.argmax(vals))
    if not vals[best] > 0:
        return Fraction(0)
    p_tail, q_tail = t.sums(best)
    val = p_tail - ee * q_tail
    return max(rational(val, up=False), Fraction(0))


def composed(pair: AnyPair, steps: int, grid: Grid = Grid(),
             directions: tuple[int, ...] = (0, 1), target: float | None = None,
             fft_lower: float = 1e-3) -> Composed:
    """The certified k-fold composition of `pair` on `grid`: the upper vectors of the listed
    directions (0: P‖Q, 1: Q‖P; both by default), the bucket vectors when first needed.
    With `target` (an ε, floats), the vectors are composed by float FFT with certified
    round-off, tilted to be sharpest at that ε (`_power_fft`; ball arithmetic where its bound
    is too coarse): certified at every ε, tightest near the target; the bucket vectors of
    δ_{P‖Q}'s lower end too, where that loses at most the share `fft_lower` (0: never) of
    the lower end against the FFT's float estimate (`Composed._fft_lower`)."""
    if not isinstance(steps, int) or steps < 1:
        raise ValueError("steps must be a positive integer")
    if not set(directions) <= {0, 1}:
        raise ValueError("directions: a subset of (0, 1) (empty: the lower end only)")
    h = float(grid.h)
    steps_of = _steps(pair, grid)

    def power(s: _Step) -> _Vec:
        if target is None:
            return _power(s, "upper", steps, grid, h)
        return _power_tilted(s, "upper", steps, grid, h, "up", target)

    if steps_of.symmetric:  # `Symmetrised`: one vector serves both orders
        up = power(steps_of[0])
        return Composed(pair, steps, grid, steps_of, (up, up), target=target,
                        fft_lower=fft_lower)
    return Composed(pair, steps, grid, steps_of,
                    tuple(power(steps_of[d]) if d in directions else None for d in (0, 1)),
                    target=target,
                    fft_lower=fft_lower)


def _test_cuts(pair: Pair, grid: Grid) -> list[float]:
    """Cut points for a test on a pair whose loss need not be monotone: one wherever the
    float loss has varied by h/2 along the axis since the last (its total variation, so the
    cells stay within about half a lattice step of loss on both slopes). Any choice is
    sound (the cells only define a statistic); this one makes the test near optimal."""
    lo, hi, xs, ls = _float_axis(pair, grid)
    ls = np.where(np.isfinite(ls), ls, 0.0)
    var = np.concatenate(([0.0], np.cumsum(np.abs(np.diff(ls)))))
    marks = np.arange(0.0, var[-1], float(grid.h) / 2)[1:]
    idx = np.unique(np.clip(np.searchsorted(var, marks), 1, len(xs) - 2))
    return [float(c) for c in np.unique(np.concatenate(([lo], xs[idx], [hi])))]


def realised_lower(realised: Pair, steps: int, grid: Grid = Grid()
                   ) -> Callable[[Fraction], Fraction]:
    """A certified lower end of δ(ε) (the larger of both orders) after `steps` releases of a
    concrete pair whose loss need not be monotone (centres of any sign): the bucket test of
    module docstring 3, the output axis cut (`_test_cuts`) and each cell scored by the
    pair's own float loss at its midpoint, rounded to the lattice (the two tails by the loss
    at the end cuts). Any cell score is a statistic of the outputs, so the test is a test
    whatever floats do, and scoring by the pair's own loss makes it near the likelihood
    ratio test; the cells' masses are certified. No upper end."""
    if realised.kernel in _DISCRETE:
        raise ValueError("realised_lower: continuous kernels only")
    cuts = _test_cuts(realised, grid)
    reach = _reaches(realised, cuts, grid)
    pm, p_below, p_above = _mass(realised.p, len(cuts), reach)
    qm, q_below, q_above = _mass(realised.q, len(cuts), reach)
    arr = np.asarray(cuts)
    h = float(grid.h)
    loss = _float_loss(realised, np.concatenate(((arr[:-1] + arr[1:]) / 2, arr[[0, -1]])))
    finite = loss[np.isfinite(loss)]
    loss = np.clip(np.nan_to_num(loss, nan=0.0), finite.min(), finite.max())
    score = [int(v) for v in np.rint(loss / h)]
    cells, first, last = score[:-2], score[-2], score[-1]
    fwd = _both(pm, qm, p_below, p_above, q_below, q_above, cells, cells,
                (first, first), (last, last), ball(grid.h))[0]
    lp = _power(fwd, "low_p", steps, grid, h)
    lq = _power(fwd, "low_q", steps, grid, h)
    tails = (_tails(lp, lq, reverse=False), _tails(lp, lq, reverse=True))

    def delta(eps: Fraction) -> Fraction:
        return max(_lower(t, Fraction(eps)) for t in tails)
    return delta


def compose(pair: AnyPair, steps: int, *, epsilon: Fraction | None = None,
            delta: Fraction | None = None, grid: Grid = Grid(),
            rtol: Fraction | None = None, max_refinements: int = 3) -> Bracket:
    """Certified δ(ε) (give `epsilon`) or ε(δ) (give `delta`) after `steps` compositions of
    `pair`, as a `Bracket` with exact rational ends.

    With `rtol`, the lattice is chosen to make the bracket's relative width (hi − lo)/hi at
    most `rtol`. For δ(ε) on a Gaussian pair, a float plan (`_float_plan`: saddle points of
    one step's float loss law, a width law in h) picks the first lattice, the cut and which
    order needs only a coarse upper end, with no certified probe. Elsewhere (and where the
    plan declines: large or tiny δ), a probe on a lattice `_PROBE_H` times coarser than
    ``grid.h`` comes first (returned if it already meets `rtol`); where its width is in the O(h²)
    regime of the discretisation error, that law picks the first real lattice, which may be
    coarser than ``grid.h`` (q = 1/100, σ = 3/5, k = 1000 meets 1 % at h ≈ 1/150, not 1/1000),
    and the probe's certified δ sets the negligible cut (`_cut_bits`). After 100 steps or
    more the float FFT powers are tilted to the ε asked for, or for ε(δ) to a float guess of
    it (`_eps_guess`). Then the lattice is
    refined (at most `max_refinements` times) by the factor the law predicts (between 2 and
    8, from 1.25 after a near miss; 2 when nothing can be predicted): the work grows as 1/h, and halving step by step would
    pay for every intermediate lattice. Every bracket on the way is certified, and the last
    one is returned whether or not it met `rtol`."""
    if (epsilon is None) == (delta is None):
        raise ValueError("give exactly one of epsilon= or delta=")
    if epsilon is not None and Fraction(epsilon) < 0:
        raise ValueError("ε must be non-negative")
    if delta is not None and not 0 < Fraction(delta) < 1:
        raise ValueError("δ must lie in (0, 1)")
    caller_bits = grid.negligible_bits

    def meets(b: Bracket) -> bool:
        return rtol is None or b.hi == 0 or (b.hi - b.lo) <= Fraction(rtol) * b.hi

    if epsilon is not None and rtol is not None:
        return _refine_delta(pair, steps, Fraction(epsilon), grid, Fraction(rtol),
                             max_refinements)
    if rtol is not None:
        # ε(δ): the ε found is not known yet; e^1 is a guess
        grid = replace(grid, negligible_bits=_cut_bits(steps, grid, float(delta), 1.0,  # type: ignore[arg-type]
                                                       Fraction(rtol)))
    # after many steps the FFT powers are tilted to the ε asked for, or to a guess of ε(δ)
    target = ((_finite_target(Fraction(epsilon)) if steps >= _GUESS_STEPS else None)
              if epsilon is not None else _eps_guess(pair, steps, grid, Fraction(delta)))  # type: ignore[arg-type]
    while True:
        c = composed(pair, steps, grid, target=target)
        b = c.delta(Fraction(epsilon)) if epsilon is not None else c.epsilon(Fraction(delta))  # type: ignore[arg-type]
        if meets(b) or max_refinements <= 0:
            return b
        grid = _finer(grid, b, Fraction(rtol), caller_bits)  # type: ignore[arg-type]
        if target is not None:  # only ε(δ) refines here: b brackets ε
            target = _finite_target((b.lo + b.hi) / 2)
        max_refinements -= 1


_GUESS_STEPS = 100  # from this many steps `compose` tilts its FFT powers (to ε, or a guess of ε(δ))


def _finite_target(eps: Fraction) -> float | None:
    e = float(eps)
    return e if 0 < e < 700 else None


def _eps_guess(pair: AnyPair, steps: int, grid: Grid, delta: Fraction) -> float | None:
    """Where `compose`'s ε(δ) tilts its FFT powers (`composed(…, target=…)`): for a Gaussian
    pair the saddle point estimate (`_saddle_eps`), else the midpoint of the certified ε(δ)
    on a lattice _PROBE_H times coarser, composed in balls (its vectors are that much
    shorter). Floats choose: the tilted powers are certified at every ε and
    sharpest near the target, so a poor guess costs width, never soundness (and the width is
    checked against rtol as always). None for few steps, where balls are cheap anyway, or
    where the coarse lattice resolves no finite ε."""
    if steps < _GUESS_STEPS:
        return None
    saddle = _saddle_eps(pair, steps, float(delta))
    if saddle is not None:
        return _finite_target(Fraction(saddle))
    try:
        b = composed(pair, steps, replace(grid, h=grid.h * _PROBE_H)).epsilon(delta)
    except ArithmeticError:
        return None
    return _finite_target((b.lo + b.hi) / 2)


def _refine_delta(pair: AnyPair, steps: int, eps: Fraction, grid: Grid,
                  rtol: Fraction, max_refinements: int) -> Bracket:
    """`compose(epsilon=…, rtol=…)`: the first lattice from the float plan (`_float_plan`)
    where it has one, else from the probes; then refinements (see `compose`). Every
    lattice's per-direction brackets are certified, so each level intersects them with the
    earlier ones, and a direction whose certified upper end lies below the best certified
    lower end of δ is not composed again: δ = max of the two orders cannot be it.
    Refinement stops early when a finer lattice leaves the bracket exactly as it was."""
    with memo_cells():  # a direction added on the same lattice reuses its cells
        return _refine_delta_in(pair, steps, eps, grid, rtol, max_refinements)


def _refine_delta_in(pair: AnyPair, steps: int, eps: Fraction, grid: Grid,
                     rtol: Fraction, max_refinements: int) -> Bracket:
    caller_bits = grid.negligible_bits
    spread = composed_spread(pair, steps)
    if spread is not None and spread / _SPREAD_STEPS < grid.h:
        # a loss so small that the default lattice cannot see it (Laplace b = 20, q = 1/100)
        grid = replace(grid, h=Fraction(spread / _SPREAD_STEPS).limit_denominator(10**9))
    bits = min(grid.negligible_bits, _MIN_CUT_BITS)
    prev: Bracket | None = None  # the last lattice's bracket: refining stops when it repeats
    known: tuple[Bracket | None, ...] = (None, None)
    b = Bracket(Fraction(0), Fraction(1))
    # the FFT lower end may lose a tenth of the width asked for; once a lattice after the
    # probes has lost more (a tiny δ from a large cancellation, q = 1/1000, σ = 1,
    # k = 10^4: 1 % at every fine lattice), the finer ones go straight to the balls
    fft_lower = float(rtol) / 10

    def level(g: Grid, probe: bool = False,
              only: tuple[int, ...] | None = None) -> tuple[Bracket, ...]:
        nonlocal fft_lower
        dirs = only if only is not None else tuple(
            d for d in (0, 1) if known[d] is None or known[d].hi > b.lo)  # type: ignore[union-attr]
        c = composed(pair, steps, g, dirs, target=float(eps), fft_lower=fft_lower)
        got = c.directions(eps, known)
        if not probe and any(x > fft_lower for x in c._fft_loss):
            fft_lower = 0.0
        return got

    plan = _float_plan(pair, steps, float(eps), grid, rtol)
    if plan is not None:
        # floats choose the lattice, the cut and which order is composed there; every
        # bracket below is certified whatever they chose
        h, scale, minor = plan
        if minor is not None:
            # the smaller order's certified upper end on a coarse lattice (its lower end,
            # 0, is trivially certified): if it lies below the larger order's certified
            # lower end, that order is never composed on the fine lattice
            d, minor_h = minor
            g = replace(grid, h=minor_h, negligible_bits=bits)
            c = composed(pair, steps, g, (d,), target=float(eps), fft_lower=0.0)
            hi = min(c._upper_at(d, eps), Fraction(1))
            known = tuple(Bracket(Fraction(0), hi) if e == d else None for e in (0, 1))
        grid = replace(grid, h=h, negligible_bits=_cut_bits(steps, grid, scale, float(eps),
                                                            rtol))
        known = level(grid, only=tuple(d for d in (0, 1) if known[d] is None))
        b = _max_bracket(known)  # type: ignore[arg-type]
        if minor is not None and known[minor[0]].hi > b.lo \
                and not (b.hi == 0 or b.hi - b.lo <= rtol * b.hi):  # type: ignore[union-attr]
            # the coarse upper end did not clear the larger order's lower end: that
            # order on the same lattice after all
            known = level(grid, only=(minor[0],))
            b = _max_bracket(known)  # type: ignore[arg-type]
    else:
        for shrink in _PROBES:
            probe_h = grid.h * _PROBE_H / shrink
            known = level(replace(grid, h=probe_h, negligible_bits=bits), probe=True)
            b = _max_bracket(known)  # type: ignore[arg-type]
            if b.hi == 0 or b.hi - b.lo <= rtol * b.hi:
                return b
            if b.lo == 0:  # nothing certified: perhaps the coarse cut hid a tiny δ
                bits = caller_bits
                continue
            bits = _cut_bits(steps, grid, float(b.lo), float(eps), rtol)
            if b.hi - b.lo < _LAW_REGIME * b.hi:
                break
        grid = replace(grid, negligible_bits=bits if b.lo > 0 else caller_bits,
                       h=_first_h(grid, probe_h, b, rtol))
        prev = b
        known = level(grid)
        b = _max_bracket(known)  # type: ignore[arg-type]
    while True:
        if b.hi == 0 or b.hi - b.lo <= rtol * b.hi or max_refinements <= 0:
            return b
        if prev is not None and (b.lo, b.hi) == (prev.lo, prev.hi):
            # a finer lattice moved neither end: the cut or the tails hold them (δ ≈ 10^-19
            # at q = 1/1000, σ = 2, k = 1000: [0, 2.3·10^-19] on every lattice), not h
            return b
        prev = b
        grid = _finer(grid, b, rtol, caller_bits)
        max_refinements -= 1
        known = level(grid)
        b = _max_bracket(known)  # type: ignore[arg-type]


def _finer(grid: Grid, b: Bracket, rtol: Fraction, caller_bits: int) -> Grid:
    """The next lattice after a bracket that missed `rtol`: finer by the factor the O(h²) law
    predicts (between 2 and 8, or from _NEAR_MISS after a width within 2·rtol; 2 when
    nothing can be predicted). The caller's z and windows
    are kept; the cut moves toward the caller's, in case the width was the cut's."""
    width = float((b.hi - b.lo) / b.hi)
    # a near miss (within 2·rtol) is in the law's regime: a smaller step suffices there
    least = 2.0 if width > 2 * float(rtol) else _NEAR_MISS
    factor = min(max(math.sqrt(width / (_AIM * float(rtol))), least), 8.0) if b.lo > 0 else 2.0
    return replace(grid, h=grid.h / Fraction(factor).limit_denominator(64),
                   negligible_bits=min(caller_bits, grid.negligible_bits + 8))


_NEAR_MISS = 1.25      # `_finer`'s least factor after a bracket within 2·rtol
_PROBE_H = 10          # the first probe's lattice is this much coarser than the caller's
_PROBES = (1, 3)       # probe lattices: _PROBE_H·h, then _PROBE_H·h/3 if the first said nothing
_MIN_CUT_BITS = 40
_AIM = 0.8             # floats choose each next lattice to reach this fraction of rtol
_LAW_REGIME = 0.8      # a probe wider than this is saturated: the O(h²) law says nothing
_PROBE_ORDER = 1.75    # the order of the width in h between the probe and the first lattice


_SPREAD_STEPS = 100    # the caller's lattice has at least this many steps per composed sd


def composed_spread(pair: AnyPair, steps: int) -> float | None:
    """The k-fold privacy loss's standard deviation under P, in floats (√k times one step's),
    from a fine float grid; None for pairs on atoms and revealed mixtures; a symmetrised
    pair's is its inner pair's (one order's: a float choice). Only chooses a lattice."""
    if isinstance(pair, Symmetrised):
        pair = pair.inner
    if isinstance(pair, Product):
        parts = [composed_spread(x, steps) for x in pair.parts]
        known = [x for x in parts if x is not None]
        return math.sqrt(sum(x * x for x in known)) if known else None
    if isinstance(pair, BinomialPair):  # the loss is linear in the count
        p, q = float(pair.p), float(pair.q)
        if not (0 < p < 1 and 0 < q < 1):
            return None
        slope = math.log(p / q) - math.log((1 - p) / (1 - q))
        return abs(slope) * math.sqrt(pair.n * p * (1 - p) * steps) or None
    if isinstance(pair, (FinitePair, ProfilePair, Revealed, Allocation)) or (
            pair.kernel in _DISCRETE):
        return None
    lo, hi = _support(pair, Grid())
    xs = np.linspace(lo, hi, 20001)
    logp = _float_logpdf(pair, pair.p, xs)
    w = np.exp(logp - logp.max())
    loss = _float_loss(pair, xs)
    mean = float((w * loss).sum() / w.sum())
    sd = math.sqrt(max(float((w * (loss - mean) ** 2).sum() / w.sum()), 0.0))
    return sd * math.sqrt(steps) if sd > 0 else None


def _first_h(grid: Grid, probe_h: Fraction, probe: Bracket, rtol: Fraction) -> Fraction:
    """The first lattice after the probe: the O(h²) law's prediction from the probe's width
    when the probe is in its regime, else the caller's h. On the Poisson Gaussian the widths
    shrink as h^1.8 from h = 1/100 to 1/300 and as h^2 from 1/300 to 1/1000, so the jump from
    the probe uses the smaller order. Floats only choose a lattice; any lattice is sound."""
    if probe.lo <= 0:
        return grid.h
    width = float((probe.hi - probe.lo) / probe.hi)
    if width >= _LAW_REGIME:
        return grid.h
    factor = min(max((width / (_AIM * float(rtol))) ** (1 / _PROBE_ORDER), 1.5), 64.0)
    return probe_h / Fraction(factor).limit_denominator(64)


_PLAN_LAW = 1.9 / 12   # the float plan's width law: (hi − lo)/hi ≈ this·k·(θ+1)²·h²
_PLAN_AIM = 0.9        # … aimed at this fraction of rtol
_PLAN_MIN_DELTA = 1e-12  # below this estimate of δ the probes decide (tiny δ, odd tails)
_PLAN_FINEST = 8       # nor when the plan's lattice is finer than the caller's h / this
_PLAN_MINOR = 10       # the smaller order this many times below: its upper end alone, coarse
_PLAN_MINOR_COARSER = 3  # … on a lattice at least this much coarser (else both on the fine one)
_PLAN_POINTS = 4001    # the one-step float loss law's grid
_PLAN_CUT = 100        # the cut's δ scale: the estimate divided by this


def _cgf(logw: np.ndarray, loss: np.ndarray, t: float) -> tuple[float, float, float]:
    """(K(t), K'(t), K''(t)) of the loss on a float grid with normalised log-weights logw."""
    a = logw + t * loss
    m = float(a.max())
    e = np.exp(a - m)
    tot = float(e.sum())
    m1 = float((e * loss).sum()) / tot
    return m + math.log(tot), m1, max(float((e * loss * loss).sum()) / tot - m1 * m1, 1e-300)


def _saddle_log_delta(cgf: tuple[float, float, float], steps: int, t: float, eps: float
                      ) -> float:
    """The saddle point approximation's log δ for the k-fold loss to exceed ε, at θ = t
    with cgf = (K, K', K'') there (`_cgf`): kK(θ) − θε − log(θ(1+θ)·√(2πkK''(θ)))."""
    k0, _, k2 = cgf
    return steps * k0 - t * eps - math.log(t * (1 + t) * math.sqrt(2 * math.pi * steps * k2))


def _saddle_eps(pair: AnyPair, steps: int, delta: float) -> float | None:
    """A float estimate of ε(δ) after `steps` releases of a Gaussian pair: along each order's
    saddle point curve θ ↦ (ε = kK'(θ), δ = e^{kK(θ) − θε}/(θ(1+θ)·√(2πkK''(θ)))) (`_saddle`'s
    approximation), the θ where δ meets the target, by bisection on log θ; the larger ε of
    the two orders. None for other pairs or where no θ in [10^-6, 10^4] reaches δ. Floats
    only: it tilts `compose`'s ε(δ) FFT powers, never decides."""
    if not isinstance(pair, Pair) or pair.kernel != "gauss" or not 0 < delta < 1:
        return None
    lo, hi = _support(pair, Grid())
    xs = np.linspace(lo, hi, _PLAN_POINTS)
    lp, lq = _float_logpdf(pair, pair.p, xs), _float_logpdf(pair, pair.q, xs)
    target = math.log(delta)
    best = None
    for logw, loss in ((lp, lp - lq), (lq, lq - lp)):
        logw = logw - np.logaddexp.reduce(logw)

        def at(log_t: float, logw: np.ndarray = logw, loss: np.ndarray = loss
               ) -> tuple[float, float]:
            t = math.exp(log_t)
            cgf = _cgf(logw, loss, t)
            eps = steps * cgf[1]
            return eps, _saddle_log_delta(cgf, steps, t, eps)

        a, b = math.log(1e-6), math.log(1e4)
        if not (at(a)[1] > target > at(b)[1]):
            continue
        for _ in range(40):
            mid = (a + b) / 2
            a, b = (mid, b) if at(mid)[1] > target else (a, mid)
        eps = at(b)[0]
        if eps > 0 and math.isfinite(eps):
            best = eps if best is None else max(best, eps)
    return best


def _saddle(logw: np.ndarray, loss: np.ndarray, steps: int, eps: float
            ) -> tuple[float, float] | None:
    """(θ, δ estimate) for one order: θ solves k·K'(θ) = ε for the one-step loss's cumulant
    generating function K under the order's first law (a float grid of it), δ the saddle
    point approximation e^{kK(θ) − θε}/(θ(1+θ)·√(2πkK''(θ))). None when ε lies below the
    k-fold loss's mean; (∞, 0) when θ > 10^4 or ε beyond k times the grid's largest loss.
    Floats only: a plan, never a bound."""
    logw = logw - np.logaddexp.reduce(logw)
    if steps * _cgf(logw, loss, 0.0)[1] >= eps:
        return None
    if steps * float(loss[logw > -700].max()) <= eps:
        return math.inf, 0.0  # the k-fold loss never exceeds ε on the grid: δ ≈ 0
    lo, hi = 0.0, 1.0
    while steps * _cgf(logw, loss, hi)[1] < eps:
        lo, hi = hi, 2 * hi
        if hi > 1e4:
            return math.inf, 0.0  # ε at the loss's reach: δ negligible for the plan
    t = (lo + hi) / 2
    for _ in range(60):  # Newton inside the bracket, bisection where it leaves it
        _, m1, m2 = _cgf(logw, loss, t)
        g = steps * m1 - eps
        if g < 0:
            lo = t
        else:
            hi = t
        nxt = t - g / (steps * m2)
        nxt = nxt if lo < nxt < hi else (lo + hi) / 2
        if abs(nxt - t) <= 1e-9 * max(t, 1.0):
            break
        t = nxt
    return t, math.exp(min(_saddle_log_delta(_cgf(logw, loss, t), steps, t, eps), 0.0))


def _law_h(theta: float, steps: int, width: float) -> float:
    """The lattice at which the float plan's width law predicts `width`."""
    return math.sqrt(width / (_PLAN_LAW * steps * (theta + 1) ** 2))


def _float_plan(pair: AnyPair, steps: int, eps: float, grid: Grid, rtol: Fraction
                ) -> tuple[Fraction, float, tuple[int, Fraction] | None] | None:
    """`compose(epsilon=…, rtol=…)`'s first lattice without certified probes: for a Gaussian
    pair (mixtures too), each order's saddle point θ and δ estimate from one step's float
    loss law (`_saddle`), the lattice h from the width law (hi − lo)/hi ≈ c·k·(θ+1)²·h² of
    the larger order (c = _PLAN_LAW, fitted on the bench's Poisson Gaussians, where
    c·12 runs 1.5–1.9), the cut's δ scale, and, when the other order's estimate is
    `_PLAN_MINOR` times smaller, that order with a coarse lattice (at least
    `_PLAN_MINOR_COARSER` times coarser than the fine one) for its upper end alone
    (the law read as log(upper/δ) ≈ c·k·(θ+1)²·h², which overstates the coarse excess).
    None (the probes decide) for other pairs, an ε below the loss's mean, a δ estimate
    below _PLAN_MIN_DELTA or a lattice finer than grid.h/_PLAN_FINEST. Floats only choose:
    any lattice, cut and order is sound, and a bracket that misses rtol is refined."""
    if not isinstance(pair, Pair) or pair.kernel != "gauss":
        return None
    lo, hi = _support(pair, Grid())
    xs = np.linspace(lo, hi, _PLAN_POINTS)
    lp, lq = _float_logpdf(pair, pair.p, xs), _float_logpdf(pair, pair.q, xs)
    orders = [_saddle(lp, lp - lq, steps, eps), _saddle(lq, lq - lp, steps, eps)]
    if orders[0] is None or orders[1] is None:
        return None
    major = 0 if orders[0][1] >= orders[1][1] else 1
    theta, est = orders[major]
    if not est >= _PLAN_MIN_DELTA:
        return None
    coarsest = grid.h * _PROBE_H
    h = _law_h(theta, steps, _PLAN_AIM * float(rtol))
    if h < float(grid.h) / _PLAN_FINEST:
        return None
    fine = min(Fraction(h).limit_denominator(10**6), coarsest)
    minor = None
    m_theta, m_est = orders[1 - major]
    if m_est * _PLAN_MINOR <= est:
        m_h = _law_h(m_theta, steps, math.log(est / m_est / 2)) if m_est > 0 else math.inf
        m_grid = (max(min(Fraction(m_h).limit_denominator(10**6), coarsest), fine)
                  if m_h < float(coarsest) else coarsest)
        # a lattice of its own pays for its own cells: only where it is much coarser
        minor = (1 - major, m_grid) if m_grid >= _PLAN_MINOR_COARSER * fine else None
    return fine, est / _PLAN_CUT, minor


def _cut_bits(steps: int, grid: Grid, scale: float, eps: float, rtol: Fraction) -> int:
    """The negligible cut for `compose(rtol=…)`: every mass cut at a window's end moves δ's
    bracket by at most (1 + e^ε) times itself, and all cuts together are at most
    (steps + 2·log2 steps)·L·2^-bits for vectors of L ≤ 10^5 entries (a cut in one step's
    vector is carried by each of the others). Cuts of a tenth of the tolerated width by that
    (loose) bound cost nothing visible — q = 1/100, σ = 1, k = 1000: the same bracket to 8
    digits at 50 bits as at 75 — and far fewer lattice points stay in play.
    The δ scale is the target δ, or a certified lower bound of δ(ε) from the probe; when it
    is 0 (the probe certified nothing), the caller's cut stands. Floats only choose the cut;
    every cut is sound (module docstring, 4)."""
    if scale <= 0:
        return grid.negligible_bits
    budget = scale * float(rtol) / 10 / (1 + math.exp(min(eps, 50.0)))
    need = math.ceil(math.log2((steps + 2 * math.log2(steps + 1)) * 1e5 / budget))
    return min(grid.negligible_bits, max(_MIN_CUT_BITS, need))


# ---------------------------------------------------------------- composition by float FFT


_FFT_MAX_N = 2**20
_FFT_TRIM = 2.0**-70      # tilted entries below this share of the largest are lumped (soundly)
_FFT_QUALITY = 1e-6       # fall back to ball arithmetic when the round-off bound exceeds this
                          # share of the largest tilted entry


def _tilt_for(v: np.ndarray, mean: float) -> float:
    """The per-index tilt λ with Σ i v_i e^{λi} / Σ v_i e^{λi} = mean (bisection to 2^-24 of
    its bracket, floats: any λ is sound)."""
    idx = np.arange(len(v), dtype=float)
    with np.errstate(divide="ignore"):
        lv = np.log(v)

    def m(lam: float) -> float:
        lw = lv + lam * idx
        w = np.exp(lw - lw.max())
        return float((w * idx).sum() / w.sum())

    lo, hi = -64.0 / max(len(v), 1), 64.0 / max(len(v), 1)
    while m(lo) > mean and lo > -1e3:
        lo *= 2
    while m(hi) < mean and hi < 1e3:
        hi *= 2
    for _ in range(24):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if m(mid) < mean else (lo, mid)
    return (lo + hi) / 2


def _window_start(la: np.ndarray, k: int, j0: int, size: int, span: int, goal: float
                  ) -> tuple[int, float, float]:
    """The circular window's start, and the λs of its two Chernoff bounds (`_chernoff`):
    j0 itself where the floats' exponents there already total under `goal` (a log of the
    round-off bound), else moved toward the heavier tail. A subsampled step's rare large loss
    makes the tilted law's right tail far heavier than its left (skewness ~170 at
    q = 1/1000, σ = 1, k = 10^4, where the symmetric split left 2^17 entries aliasing
    5·10^-7 and a start 40 000 entries higher aliases 6·10^-12). Each side's exponent
    min_λ k·log M(e^λ) − λ·cut (`_chernoff_lam`) is read off one table of k·log M over λs
    around the optimal ones at j0, for starts across half a window either way; the start
    with the least total is kept, with its minimising λs. Floats only: any λ of the right
    sign gives a certified bound, and the bounds at the chosen start decide."""
    lam_hi, f_hi = _chernoff_lam(la, k, j0 + size, True)
    if j0 <= 0:
        return j0, 0.0, lam_hi
    lam_lo, f_lo = _chernoff_lam(la, k, j0 - 1, False)
    if np.logaddexp(f_lo, f_hi) <= goal or not lam_lo < 0 < lam_hi:
        return j0, lam_lo, lam_hi
    lams = np.concatenate((lam_lo * np.logspace(-2, 1, 19), lam_hi * np.logspace(-1, 1, 13)))
    lw = la[None, :] + lams[:, None] * np.arange(len(la), dtype=float)[None, :]
    mx = lw.max(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        klog = k * (mx + np.log(np.exp(lw - mx[:, None]).sum(axis=1)))
    starts = np.unique(np.clip(np.linspace(j0 - size / 2, j0 + size / 2, 129).round(),
                               1, span - size - 1)).astype(np.int64)
    lo_l, hi_l = lams[lams < 0], lams[lams > 0]
    with np.errstate(over="ignore", invalid="ignore"):
        e_lo = klog[lams < 0, None] - lo_l[:, None] * (starts - 1)[None, :]
        e_hi = klog[lams > 0, None] - hi_l[:, None] * (starts + size)[None, :]
        i_lo, i_hi = np.argmin(e_lo, axis=0), np.argmin(e_hi, axis=0)
        cols = np.arange(len(starts))
        total = np.nan_to_num(np.logaddexp(e_lo[i_lo, cols], e_hi[i_hi, cols]), nan=np.inf)
    best = int(np.argmin(total))
    if not total[best] < np.logaddexp(f_lo, f_hi):
        return j0, lam_lo, lam_hi
    return int(starts[best]), float(lo_l[i_lo[best]]), float(hi_l[i_hi[best]])


def _chernoff_lam(la: np.ndarray, k: int, cut: int, above: bool, shift: float = 0.0
                  ) -> tuple[float, float]:
    """The float Chernoff exponent of `_chernoff` minimised: (λ, k·log M(e^{λ − shift}) −
    λ·cut), λ ≥ 0 (above) or ≤ 0 (golden section on log|λ|: the exponent is convex in λ;
    λ = 0 where no tilt helps). Floats only: the exponent chooses λ and window ends."""
    idx = np.arange(len(la), dtype=float)
    sign = 1.0 if above else -1.0

    def f(lam: float) -> float:
        lw = la + (lam - shift) * idx
        mx = lw.max()
        return k * (mx + math.log(np.exp(lw - mx).sum())) - lam * cut

    lo_t, hi_t = -12.0, 2.0
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi_t - g * (hi_t - lo_t), lo_t + g * (hi_t - lo_t)
    f1, f2 = f(sign * 10**x1), f(sign * 10**x2)
    for _ in range(16):  # to 0.01 of a decade: the exponent is flat at its minimum
        if f1 <= f2:
            hi_t, x2, f2 = x2, x1, f1
            x1 = hi_t - g * (hi_t - lo_t)
            f1 = f(sign * 10**x1)
        else:
            lo_t, x1, f1 = x1, x2, f2
            x2 = lo_t + g * (hi_t - lo_t)
            f2 = f(sign * 10**x2)
    lam = sign * 10 ** ((lo_t + hi_t) / 2)
    at, at0 = f(lam), f(0.0)
    return (lam, at) if at < at0 else (0.0, at0)


def _chernoff(poly: flint.arb_poly, la: np.ndarray, k: int, cut: int, above: bool,
              r: flint.arb, lam: float | None = None) -> flint.arb:
    """A certified upper bound of Σ R^{−j} (a^{*k})_j over j ≥ cut (above) or j ≤ cut, for an
    exact R > 0 (`r`; 1 for the tilted masses themselves): e^{−λ cut} M(e^λ/R)^k for any
    λ ≥ 0 (above) or λ ≤ 0, M(x) = Σ a_i x^i (arb Horner on the exact float vector a), λ
    given or chosen in floats (`_chernoff_lam`)."""
    if lam is None or (lam < 0 if above else lam > 0):
        lam, _ = _chernoff_lam(la, k, cut, above, math.log(float(r.mid())))
    x = flint.arb(lam).exp() / r
    return (poly(x) ** k) * (-(flint.arb(lam) * cut)).exp()


def _tilted_entries(f: np.ndarray, R: float, K: float, upper: bool) -> np.ndarray:
    """Floats a_i ≥ f_i·R^i/K (`upper`) or 0 ≤ a_i ≤ f_i·R^i/K for the exact non-negative
    floats f_i: the factors R^i/K in float intervals (`vecint.exp_affine` of i·log R −
    log K, logs outward by `_log_iv`) where the exponents allow, else entry by entry in
    arb. Zero entries stay 0."""
    n = len(f)
    lr, lk = _log_iv(flint.arb(R)), _log_iv(flint.arb(K))
    fac = None if lr is None or lk is None else vi.exp_affine((-lk[1], -lk[0]), lr, n)
    if fac is not None:
        flo, fhi = fac
        if upper:
            return np.where(f > 0, vi.rup(f * fhi), 0.0)
        return np.where(f > 0, np.maximum(vi.rdn(f * flo), 0.0), 0.0)
    inv_k = 1 / flint.arb(K)
    Ra = flint.arb(R)
    a = np.zeros(n)
    p = flint.arb(1)
    for j, x in enumerate(f.tolist()):
        if x > 0:
            t = flint.arb(x) * p * inv_k
            a[j] = (np.nextafter(float(t.upper()), math.inf) if upper
                    else max(np.nextafter(float(t.lower()), -math.inf), 0.0))
        p = p * Ra
    return a


@dataclass(frozen=True)
class _FVec:
    """A step vector in floats for the FFT path (`_fft_core`): the entry at lattice index
    off + i lies in [lo_i, hi_i]; `out` as `_Vec`'s."""

    lo: np.ndarray
    hi: np.ndarray
    off: int
    out: flint.arb


def _fvec(step: _Step, key: str, mirror: bool = False) -> _FVec:
    """`step`'s vector `key` in floats: its float enclosures where the cells had them, else
    its balls' ends (outward); `mirror`: entry i at index −(off + i)."""
    out = step.upper_inf if key == "upper" else flint.arb(0)
    if step.floats is not None:
        lo, hi = step.floats[("upper", "low_p", "low_q").index(key)]
    else:
        ends = [vi.of_ball(x) for x in getattr(step, key)]
        lo, hi = np.array([a for a, _ in ends]), np.array([b for _, b in ends])
    if mirror:
        return _FVec(lo[::-1], hi[::-1], -(step.off + len(lo) - 1), out)
    return _FVec(lo, hi, step.off, out)


def _fwindow(v: _FVec, upper: bool, negligible: float) -> _FVec:
    """`_window` without index bounds, in floats: negligible leading and trailing entries
    (upper ends at most `negligible`) cut, their mass rounded up to the kept bottom and
    sent to `out` (`upper`), or all sent to `out`."""
    n = len(v.hi)
    big = np.flatnonzero(v.hi > negligible)
    first, last = (int(big[0]), int(big[-1])) if len(big) else (0, 0)
    if first == 0 and last == n - 1:
        return v
    lo, hi = v.lo[first:last + 1].copy(), v.hi[first:last + 1].copy()
    below_hi, above_hi = vi.fsum(v.hi[:first], True), vi.fsum(v.hi[last + 1:], True)
    if upper:
        lo[0] = vi.rdn(lo[0] + vi.fsum(np.maximum(v.lo[:first], 0.0), False))  # rounded up to the bottom
        hi[0] = vi.rup(hi[0] + below_hi)
        out = v.out + flint.arb(above_hi)                  # to +∞
    else:
        out = v.out + flint.arb(below_hi) + flint.arb(above_hi)
    return _FVec(lo, hi, v.off + first, out)


def _fft_core(base: _FVec, k: int, side: str, target: float, h: float,
              flat: bool = False) -> _FftOut | None:
    """The k-fold composition of a (windowed) step vector by float FFT with certified
    round-off (`fftpow`), exponentially tilted so that the composed law's bulk sits at the
    loss `target` (where δ is decided): tilting commutes with convolution, and the FFT's
    absolute error, relative to the tilted bulk, is then a tiny relative error there.

    side ``up``: entry upper bounds, mass below the kept range rounded up to its bottom,
    above it to `out` (an upper vector, or a subtracted bucket vector on T ≥ τ); ``down``:
    upper bounds, mass above rounded down to the top, below to `out` (a subtracted bucket
    vector on T ≤ τ); ``low``: entry lower bounds, the rest dropped (out = 0; a positive
    bucket vector). Entries of one-sided vectors are point balls at the bound. With
    v_i ≤ K R^{−i} a_i (or ≥, ``low``) for the exact float vector a, the composed vector is
    ≤ K^k R^{−j} (a^{*k})_j, and a^{*k} is enclosed by the FFT's bound E plus the tilted mass
    outside the circular window (Chernoff, `_chernoff`). None when the bound is too coarse
    (the caller composes in balls). The window's entries stay floats here (`_FftOut`);
    `_power_fft` turns them into balls, `_fft_tails` sums them for the test in one pass."""
    upper = side != "low"
    v = np.maximum(base.hi if upper else base.lo, 0.0)
    n = len(v)
    if n < 2 or not v.any():
        return None
    lam = _tilt_for(v, target / (k * h) - base.off)
    if lam <= 0:  # ε below the bulk (a large δ): the untilted balls are sharp there; at
        if not flat:  # q = 1/10 the tilted window's ends sent δ's upper end to 1
            return None
        lam = 1e-9  # `flat` (a test's bucket vectors): all but untilted, the estimate decides
    if not lam < 700:  # ε far above every lattice point: no tilt a float can carry
        return None
    R = float(math.exp(lam))
    if not (math.isfinite(R) and R > 0):
        return None
    Ra = flint.arb(R)
    with np.errstate(over="ignore"):
        w = v * np.exp(lam * np.arange(n))
    K = float(w.sum())
    if not (math.isfinite(K) and K > 0):
        return None
    a = _tilted_entries(v, R, K, upper)
    if not np.all(np.isfinite(a)):
        return None
    poly = flint.arb_poly(a.tolist())  # floats are exact balls
    with np.errstate(divide="ignore"):
        la = np.log(a)
    idx = np.arange(n, dtype=float)
    wa = a / a.sum()
    mu = float((wa * idx).sum())
    sd = math.sqrt(max(float((wa * (idx - mu) ** 2).sum()), 1e-12))
    span = k * (n - 1) + 1
    # the window first spans 7 composed sds each way (and at least one step), split in
    # proportion to 7 sds plus twice one step's extremes beyond the bulk (a rare large
    # loss of a subsampled step makes a heavy tail), the start moved toward the heavier
    # tail (`_window_start`), and doubles until the aliased mass (Chernoff, certified) is
    # below the round-off bound (`fftpow.round_off_bound`, known before the FFT is run):
    # floats choose it, the bounds decide (2^14 entries at q = 1/100, σ = 2, k = 1000,
    # where the extremes' room asked for 2^15 and the aliased mass at 2^14 is 10^-17)
    w_lo = 7 * math.sqrt(k) * sd + 2 * mu + 16
    w_hi = 7 * math.sqrt(k) * sd + 2 * (n - 1 - mu) + 16
    size = 1 << max(2, math.ceil(math.log2(max(14 * math.sqrt(k) * sd + 32, n))))
    while True:
        if size >= span:
            size = 1 << max(1, math.ceil(math.log2(span)))
        err = fftpow.round_off_bound(a, k, size)
        if size >= span:
            j0, alias = 0, flint.arb(0)
        else:
            j0 = min(max(int(round(k * mu - size * w_lo / (w_lo + w_hi))), 0), span - size)
            j0, lam_lo, lam_hi = _window_start(la, k, j0, size, span, math.log(err))
            one = flint.arb(1)
            alias = (_chernoff(poly, la, k, j0 - 1, False, one, lam_lo) if j0 > 0
                     else flint.arb(0)) + _chernoff(poly, la, k, j0 + size, True, one, lam_hi)
        al = float(np.nextafter(float(alias.upper()), math.inf))
        if al <= err or size >= span or size >= _FFT_MAX_N:  # contamination ≤ round-off
            break
        size *= 2
    c, err = fftpow.power(a, k, size)
    peak = float(c.max())
    if not (peak > 0 and err + al <= _FFT_QUALITY * peak):
        return None
    # the window's entries j0 … j0 + size − 1 (relative composed indices), m = j mod size
    win = np.roll(c, -(j0 % size))
    keep = np.nonzero(win > (max(peak * _FFT_TRIM, 8 * err) if upper else peak * _FFT_TRIM))[0]
    lo_i, hi_i = j0 + int(keep[0]), j0 + int(keep[-1])
    vals = win[keep[0]:keep[-1] + 1]
    kk = flint.arb(K) ** k
    below = kk * _chernoff(poly, la, k, lo_i - 1, False, Ra) if lo_i > 0 else flint.arb(0)
    above = kk * _chernoff(poly, la, k, hi_i + 1, True, Ra) if hi_i < span - 1 else flint.arb(0)
    # paths with a step in `out`: (T + o)^k − T^k ≤ k·o·(T + o)^(k−1) (no cancellation)
    lost = flint.arb(0)
    if base.out.upper() > 0:  # else no mass was dropped: no such paths
        total = flint.arb(vi.fsum(base.hi, True))
        t_o = flint.arb((total + base.out).upper())
        lost = k * flint.arb(base.out.upper()) * t_o ** (k - 1)
    return _FftOut(vals, k * base.off + lo_i, R, kk * Ra ** (-lo_i), err,
                   (err + al) * (1 + 2.0**-50), below, above, lost, al)


@dataclass(frozen=True)
class _FftOut:
    """A tilted FFT power in floats (`_fft_core`): the entry at lattice index off + m is at
    most g_m·(vals_m + err) and at least g_m·(vals_m − slack), g_m = g·R^{−m} (g, R exact
    balls' data: g a ball, R a float); the untilted mass below the window is at most
    `below`, above it at most `above`, and the paths through a step's dropped mass (`out`)
    at most `lost`.

    Sums of many entries have a sharper bound than entry by entry (`_fft_tails`): `err`
    bounds the ℓ₂ norm of the float round-off vector (`fftpow`), and the aliased mass (the
    composed law's tilted mass outside the circular window, folded onto it: non-negative)
    is at most `alias` in all, so for weights w ≥ 0 on window entries S,
    Σ_S w_m·exact_m ≥ Σ_S w_m·vals_m − err·‖w_S‖₂ − max_S w_m·alias (side ``low``) and
    Σ_S w_m·exact_m ≤ Σ_S w_m·vals_m + err·‖w_S‖₂ (sides ``up``/``down``: the alias only
    adds mass), with exact_m the tilted composed entry."""

    vals: np.ndarray
    off: int
    R: float
    g: flint.arb
    err: float
    slack: float
    below: flint.arb
    above: flint.arb
    lost: flint.arb
    alias: float = 0.0


@dataclass(frozen=True)
class _FftTails:
    """`_Tails` for δ_{P‖Q} from two tilted FFT powers kept in floats (`_FftOut`): P̃^k on
    side ``low``, Q̃^k on side ``up``. Float suffix sums choose τ; the chosen τ's sums are
    certified as one geometric sum at 1/R per vector over the window's exact float entries
    (`_geometric_sum`), never entry by entry, with the round-off bounded for the sum as a
    whole (`_window_sum`)."""

    ps: np.ndarray
    qs: np.ndarray
    start: int          # lattice index of ps[0]
    p: _FftOut
    q: _FftOut
    certified: dict[int, tuple[flint.arb, flint.arb]] = field(default_factory=dict)

    def sums(self, tau: int) -> tuple[flint.arb, flint.arb]:
        if tau not in self.certified:
            t = self.start + tau  # the lattice index of the threshold
            p_sum = _window_sum(self.p, t, lower=True)
            q_sum = _window_sum(self.q, t, lower=False) + self.q.above + self.q.lost
            if t <= self.q.off:
                q_sum = q_sum + self.q.below
            lo = p_sum.lower()
            self.certified[tau] = (flint.arb(lo if lo > 0 else 0), flint.arb(q_sum.upper()))
        return self.certified[tau]


def _geometric_sum(iv: vi.Iv, log_r: tuple[float, float]) -> flint.arb | None:
    """A ball enclosing Σ_m x_m·r^m for x_m in iv (floats, any signs) and r = e^ρ with ρ in
    log_r: the factors r^m in float intervals (`vecint.exp_affine`), each product rounded
    outward, the sum by `vecint.total`. None where an exponent leaves the floats' range
    (the caller evaluates in arb)."""
    lo, hi = iv
    fac = vi.exp_affine((0.0, 0.0), log_r, len(lo))
    if fac is None:
        return None
    flo, fhi = fac
    p_lo = vi.rdn(np.where(lo >= 0, lo * flo, lo * fhi))
    p_hi = vi.rup(np.where(hi >= 0, hi * fhi, hi * flo))
    return vi.ball_of(*vi.total((p_lo, p_hi)))


def _window_sum(f: _FftOut, t: int, lower: bool) -> flint.arb:
    """A certified bound of the untilted composed mass at lattice indices ≥ t inside the
    window: from below (`lower`, side ``low``) or above. With r = 1/R, m0 = t − off and the
    window's entries m0 … M (n of them), the weights are w_m = g·r^m ≥ 0, so by
    Cauchy–Schwarz the round-off moves the sum by at most err·‖w‖₂ =
    err·g·r^{m0}·√(Σ_{i<n} r^{2i}) (`err` bounds the ℓ₂ norm of the round-off vector,
    `fftpow`: Higham 2002, Thm 24.2, applied to the whole vector), and the aliased mass, non-
    negative and at most `alias` in all, by at most g·r^{m0}·alias, from above only (so
    only the lower bound subtracts it). The geometric sum is min(n, (1 − r^{2n})/(1 − r²)),
    in arb. The float entries are exact, so Σ vals_{m0+i}·r^i is enclosed in float
    intervals (`_geometric_sum`; an arb Horner sum where its exponents leave the floats'
    range); an entry's float may be negative (round-off), which the bound covers."""
    m0 = max(t - f.off, 0)
    n = len(f.vals) - m0
    if n <= 0:
        return flint.arb(0)
    r = 1 / flint.arb(f.R)
    r2 = r * r
    den = 1 - r2
    geo = flint.arb(n)
    if den > 0:
        g2 = (1 - r2 ** n) / den
        if g2.upper() < n:
            geo = flint.arb(g2.upper())
    pad = flint.arb(f.err) * geo.sqrt()
    if lower:
        pad = pad + flint.arb(f.alias)
    vals = f.vals[m0:]
    lr = _log_iv(flint.arb(f.R))
    got = None if lr is None else _geometric_sum((vals, vals), (-lr[1], -lr[0]))
    got = got if got is not None else flint.arb_poly(vals.tolist())(r)
    s = got - pad if lower else got + pad
    return f.g * r ** m0 * s


def _fft_tails(p: _FftOut, q: _FftOut, exact: bool = False) -> _FftTails:
    """The test's tails for δ_{P‖Q} from P̃^k (side ``low``) and Q̃^k (side ``up``); the
    float suffix sums (which choose τ) net of the round-off terms of `_window_sum`, or
    without them (`exact`: the FFT's float estimate)."""
    start = min(p.off, q.off)
    end = max(p.off + len(p.vals), q.off + len(q.vals))

    def suffix(f: _FftOut, sign: float) -> np.ndarray:
        """Float Σ_{m ≥ t − off} g·R^{−m}·vals_m (± the round-off term) for every t."""
        lr, lg = math.log(f.R), _log_ball(f.g)
        n = len(f.vals)
        m = np.arange(n)
        lv = lg - lr * m + np.log(np.maximum(f.vals, 0.0))
        acc = np.exp(np.logaddexp.accumulate(lv[::-1])[::-1])
        if not exact:
            r2 = -np.expm1(-2 * lr) if lr > 0 else 0.0
            count = (n - m).astype(float)
            geo = np.minimum(count, -np.expm1(-2 * lr * count) / r2) if r2 > 0 else count
            pad = f.err * np.sqrt(geo) + (f.alias if sign < 0 else 0.0)
            acc = acc + sign * np.exp(lg - lr * m + np.log(pad))
        out = np.zeros(end - start + 1)
        out[f.off - start:f.off - start + n] = acc
        out[:f.off - start] = acc[0] if n else 0.0  # below the window: the whole window's
        return out

    with np.errstate(all="ignore"):  # floats only choose τ: a nan is never chosen
        ps = np.maximum(suffix(p, -1.0)[:-1], 0.0)
        qs = suffix(q, 1.0)[:-1] + math.exp(_log_ball(q.above + q.lost))
    return _FftTails(ps, qs, start, p, q)


def _log_ball(x: flint.arb) -> float:
    """log of a ball's midpoint in floats (−∞ at 0): only to choose τ."""
    m = x.mid()
    if not m > 0:
        return -math.inf
    man, exp = m.man_exp()
    return math.log(int(man)) + int(exp) * math.log(2)


def _scaled_entries(f: _FftOut, upper: bool) -> vi.Iv:
    """Float enclosures of the window's untilted entries: g·R^{−m}·(vals_m + err) rounded up
    (`upper`) or g·R^{−m}·max(vals_m − slack, 0) rounded down, each a point (lo = hi). The
    factors g·R^{−m} are enclosed in float intervals (`vecint.exp_affine` of log g − m·log R,
    logs outward by `_log_iv`) where the exponents allow; otherwise each is a ball (arb,
    entry by entry)."""
    vals = f.vals
    n = len(vals)
    lg, lr = _log_iv(f.g), _log_iv(flint.arb(f.R))
    if lg is not None and lr is not None:
        fac = vi.exp_affine(lg, (-lr[1], -lr[0]), n)
        if fac is not None:
            glo, ghi = fac
            if upper:
                ent = np.maximum(vi.rup(vi.rup(vals + f.err) * ghi), 0.0)
            else:
                ent = np.maximum(vi.rdn(vi.rdn(vals - f.slack) * glo), 0.0)
            return ent, ent  # points; never written in place (`_bumped` copies)
    g = f.g
    r_inv = 1 / flint.arb(f.R)
    out = np.zeros(n)
    for i, x in enumerate(vals.tolist()):
        if upper:
            out[i] = vi.of_ball(g * flint.arb(x + f.err) * (1 + 2.0**-52))[1]
        else:
            out[i] = max(vi.of_ball(g * flint.arb(max(x - f.slack, 0.0)) * (1 - 2.0**-52))[0],
                         0.0)
        g = g * r_inv
    return out, out


def _log_iv(x: flint.arb) -> tuple[float, float] | None:
    """Floats enclosing log x for a ball x > 0, such as an exact float R or K (None when x is
    not certainly positive): the tilt and untilt factors' exponents (`vecint.exp_affine`)."""
    if not x > 0:
        return None
    return vi.of_ball(x.log())


def _power_fft(base: _FVec, k: int, side: str, target: float, h: float) -> _Vec | None:
    """`_fft_core` with the window's entries as a `_Vec` (balls made when first read, their
    float enclosures summed directly by `_Suffix`), the masses outside it moved as `side`
    says (`_fft_core`)."""
    f = _fft_core(base, k, side, target, h)
    if f is None:
        return None
    upper = side != "low"
    below, above, lost = f.below, f.above, f.lost
    ent = _scaled_entries(f, upper)
    out = flint.arb(0)
    if side == "up":
        ent = _bumped(ent, ((0, below),))
        out = lost + above
    elif side == "down":
        ent = _bumped(ent, ((len(ent[0]) - 1, above),))
        out = lost + below
    return _Vec(_LazyBalls(ent), f.off, flint.arb(out.upper()) if upper else out)


def _power_tilted(step: _Step, key: str, k: int, grid: Grid, h: float, side: str,
                  target: float) -> _Vec:
    """`_power` by float FFT (`_power_fft`) when its certified bound is fine enough, else in
    balls. Both are certified; the window cut first is `_window`'s (module docstring, 4)."""
    # `up`: the mass below rounded up to the bottom, above to out; otherwise all to out
    base = _fwindow(_fvec(step, key), side == "up", 2.0**-grid.negligible_bits)
    got = _power_fft(base, k, side, target, h) if k > 1 else None
    return got if got is not None else _power(step, key, k, grid, h)
