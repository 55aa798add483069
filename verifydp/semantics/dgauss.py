"""The discrete Gaussian mechanism: exact privacy loss, and certified Neyman–Pearson power for
one discrete Gaussian and for compositions of many (claims `kifer/table2`, `kifer/table6`).

Kifer et al. estimate by Monte Carlo (10^6 samples per hypothesis, §6.3) the level/power
trade-off of the TopDown noise — independent discrete Gaussians N_Z(0, σ_q²), σ_q² = 1/ρ*_q,
added to every cell of every query (§8.1) — for a maximal pair of neighbours: column
"Power (DGM)" of Table 2 (the whole release, ρ = 2.63) and of Table 6 (Scenario A, the
block-level queries, ρ ≈ 0.1115).  This module computes that power with rigorous brackets.

1. **Discrete Gaussian** (Canonne, Kamath, Steinke 2020).  For an integer μ,
   P[N_Z(μ, σ²) = x] = e^{−(x−μ)²/(2σ²)} / Θ(σ²),   Θ(σ²) = Σ_{k∈ℤ} e^{−k²/(2σ²)}.
   The normaliser does not depend on μ: substitute k = x − μ (ℤ is shift invariant).

2. **Tail bound** (`tail_bound`).  For an integer T ≥ 1,
   Σ_{|k|>T} e^{−k²/(2σ²)} ≤ 2 e^{−T²/(2σ²)} r/(1 − r),   r = e^{−T/σ²}.
   Proof: for k = T + j, j ≥ 1, k² − T² = j(2T + j) ≥ 2Tj, so e^{−k²/(2σ²)} ≤
   e^{−T²/(2σ²)} r^j; sum the geometric series over j ≥ 1 and double for k < −T.  Every
   coordinate is truncated at T with T²/(2σ²) ≥ 50 (`truncation`).

3. **Privacy loss** (`privacy_loss`).  P = N_Z(0, σ²), Q = N_Z(Δ, σ²), Δ ≥ 1 an integer (the
   query answer moves by Δ between the neighbours).  Θ cancels (item 1) and
   L(x) = log P(x)/Q(x) = ((x − Δ)² − x²)/(2σ²) = (Δ² − 2Δx)/(2σ²),
   an affine function of x, rational when σ² is.  Under P it takes the value L(x) with
   probability P(x) (`loss_law`); E_P[L] = Δ²/(2σ²) because P is symmetric.  The
   Neyman–Pearson statistic for H0: P against H1: Q is Λ = −L, increasing in x.

4. **Power of one discrete Gaussian** (`single_power`).  The most powerful level-ℓ test
   rejects when x > t and with probability γ when x = t, where P(X > t) + γP(X = t) = ℓ.  It
   is randomised because f-DP trade-off functions (the paper's Definition 5.7, after Dong,
   Roth and Su) range over randomised tests.  For every real λ and every test φ of level ≤ ℓ,
       E_Q φ ≤ e^λ ℓ + δ(λ),   δ(λ) = E_Q[(1 − e^{λ−Λ})_+]                      (★)
   since E_Qφ − e^λ E_Pφ = Σ φ(Q − e^λ P) ≤ Σ (Q − e^λ P)_+; equality holds for the NP test
   at λ = Λ(t).  The lower end of the bracket is a test whose certified level is ≤ ℓ, the
   upper end is (★) at λ = Λ(t).

5. **Composition** (`composed_power`).  Independent coordinates: the log-likelihood ratio of
   the product is the sum of the coordinates'.  A `Component` is `cells` iid coordinates with
   the same σ² and Δ; their ratio depends on their sum Z only, Λ = (Δ/σ²)(Z − cells·Δ/2), and
   Z's law is an exact convolution.  The sum over components lives on a lattice far too fine
   to enumerate (the Census σ² = 1/ρ* have numerators up to ~4·10^8), so each component's Λ is
   moved to the lattice hℤ by a randomised rounding kernel K: a value s with
   jh ≤ s < (j+1)h goes to jh with probability f and to (j+1)h with probability 1 − f, where
   f is a rational lower bound of f* = (e^{(j+1)h−s} − 1)/(e^h − 1) (with f*, the split
   keeps E[e^{−Λ}] unchanged).
   * Lower bound: K, applied component-wise, is a randomised function of the data, so the
     test that thresholds the rounded sum Λ̃ (randomised at the boundary atom) is a
     legitimate test; its level and power come from the laws of Λ̃ under H0 and under H1.
   * Upper bound: f ≤ f* gives E[e^{−Λ̃_i} | data] ≤ e^{−Λ_i}, and y ↦ (1 − e^λ y·c)_+ is
     convex and non-increasing in each factor y = e^{−Λ̃_i} (c > 0 the other factors), so
     Jensen, one component at a time, gives δ(λ) ≤ E_Q[(1 − e^{λ−Λ̃})_+] (the
     "connect-the-dots" domination used by `verifydp.accounting.compose`); (★) turns it into a
     power bound.
   Both ends are second order in h: K adds noise of standard deviation at most h√n/2.

6. **Arithmetic.**  Masses are non-negative integers at scale 2^-64, each a lower bound of
   its true value: exponentials are enclosed by libmp with directed rounding and the repo's
   widening, every product is an exact integer convolution (`intconv`) floored back to the
   scale, and mass that leaves the window is dropped.  The true masses sum to 1, so the
   deficit M = 1 − Σ masses bounds the total error: P(E) ∈ [Σ_E masses, Σ_E masses + M] for
   every event E.  No float enters.

Independent checks (tests/test_kifer_dgauss.py): normalisation and loss law against direct
summation, the power against exact enumeration of a small composition and a seeded Monte
Carlo, and mutants of σ² and of the level caught by the table checks.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from verifydp.accounting.intconv import convolve
from verifydp.exact import barith as ba
from verifydp.exact.interval import Bracket
from verifydp.exact.special import exp_mpf_end

__all__ = [
    "Component",
    "composed_power",
    "loss_law",
    "mu2",
    "normaliser",
    "pmf",
    "privacy_loss",
    "single_power",
    "tail_bound",
    "truncation",
]

SCALE_BITS = 64        # masses are integers at scale 2^-SCALE_BITS
_GUARD = 32            # extra bits for exponentials before dividing by Θ
_TAIL_NATS = 50        # truncation: T²/(2σ²) ≥ 50, so the dropped tail is < e^-50 per cell
DEFAULT_LATTICE = 100  # h = 1/100 for the rounded privacy loss
_ONE = 1 << SCALE_BITS


@dataclass(frozen=True, order=True)
class Component:
    """``cells`` independent coordinates, N_Z(0, σ²) under H0 and N_Z(shift, σ²) under H1."""

    sigma2: Fraction
    cells: int = 1
    shift: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma2", Fraction(self.sigma2))
        if self.sigma2 <= 0 or self.cells < 1 or self.shift < 1:
            raise ValueError(f"need σ² > 0, cells ≥ 1, shift ≥ 1: {self}")

    @property
    def mu2(self) -> Fraction:
        """μ² = cells·Δ²/σ² of the continuous Gaussians with the same σ² and shift."""
        return self.cells * self.shift**2 / self.sigma2

    @property
    def rho(self) -> Fraction:
        """zCDP parameter of the component (Rényi divergence of order α is α·ρ): μ²/2."""
        return self.mu2 / 2


def mu2(components: Sequence[Component]) -> Fraction:
    """Σ μ²: the continuous-Gaussian counterpart of the composition is G_μ with this μ²."""
    return sum((c.mu2 for c in components), Fraction(0))


# ------------------------------------------------------------------ exponentials, Θ, pmf


def _exp_scaled(x: Fraction, bits: int, up: bool) -> int:
    """⌊2^bits·lo⌋ (up=False) or ⌈2^bits·hi⌉ (up=True) for an enclosure [lo, hi] ∋ e^x.

    The end comes from `verifydp.exact.special.exp_mpf_end` (the package's one exp
    enclosure); only the scaling to an integer is done here."""
    v = exp_mpf_end(x, up, bits + _GUARD)
    sign, man, exp, _ = v
    if sign or man == 0:
        if up:
            raise ArithmeticError("exp enclosure is not positive")
        return 0
    k = exp + bits
    if k >= 0:
        return man << k
    return -((-man) >> -k) if up else man >> -k


def truncation(sigma2: Fraction) -> int:
    """The smallest integer T ≥ 1 with T² > 2·50·σ², so e^{−T²/(2σ²)} < e^-50."""
    need = 2 * _TAIL_NATS * Fraction(sigma2)
    return isqrt(-(-need.numerator // need.denominator)) + 1


def tail_bound(sigma2: Fraction, t: int) -> Fraction:
    """A rational upper bound of Σ_{|k|>t} e^{−k²/(2σ²)} (unnormalised; item 2 above):
    2 e^{−t²/(2σ²)} r/(1 − r) with r = e^{−t/σ²}, each exponential rounded up."""
    if t < 1:
        raise ValueError("t must be a positive integer")
    sigma2 = Fraction(sigma2)
    head = ba.exp(-Fraction(t * t, 2) / sigma2).hi
    r = ba.exp(-Fraction(t) / sigma2).hi
    if r >= 1:
        raise ArithmeticError("ratio enclosure reaches 1")
    return 2 * head * r / (1 - r)


@functools.lru_cache(maxsize=512)
def normaliser(sigma2: Fraction) -> Bracket:
    """Θ(σ²) = Σ_{k∈ℤ} e^{−k²/(2σ²)}: the terms |k| ≤ T enclosed, plus `tail_bound` above."""
    sigma2 = Fraction(sigma2)
    t = truncation(sigma2)
    bits = 2 * SCALE_BITS
    lo = hi = 0
    for k in range(t + 1):
        w = 1 if k == 0 else 2
        x = -Fraction(k * k, 2) / sigma2
        lo += w * _exp_scaled(x, bits, False)
        hi += w * _exp_scaled(x, bits, True)
    return Bracket(Fraction(lo, 1 << bits), Fraction(hi, 1 << bits) + tail_bound(sigma2, t))


def pmf(x: int, sigma2: Fraction, mean: int = 0) -> Bracket:
    """P[N_Z(mean, σ²) = x] = e^{−(x−mean)²/(2σ²)}/Θ(σ²), for integers x and mean."""
    sigma2 = Fraction(sigma2)
    return ba.div(ba.exp(-Fraction((x - mean) ** 2, 2) / sigma2), normaliser(sigma2))


def privacy_loss(x: int, sigma2: Fraction, shift: int = 1) -> Fraction:
    """L(x) = log P[N_Z(0,σ²) = x] / P[N_Z(Δ,σ²) = x] = (Δ² − 2Δx)/(2σ²), exactly (item 3)."""
    return Fraction(shift * shift - 2 * shift * x, 2) / Fraction(sigma2)


def loss_law(sigma2: Fraction, shift: int = 1) -> tuple[list[tuple[Fraction, Bracket]],
                                                        Fraction]:
    """The law of L(X), X ~ N_Z(0, σ²): the atoms (L(x), P(X = x)) for |x| ≤ T, and an upper
    bound on the probability of |X| > T (`tail_bound` / Θ).  L is injective in x, so the
    atoms are distinct."""
    sigma2 = Fraction(sigma2)
    t = truncation(sigma2)
    atoms = [(privacy_loss(x, sigma2, shift), pmf(x, sigma2)) for x in range(-t, t + 1)]
    return atoms, tail_bound(sigma2, t) / normaliser(sigma2).lo


# ------------------------------------------------------------------ one discrete Gaussian


def _clip01(x: Fraction) -> Fraction:
    return min(max(x, Fraction(0)), Fraction(1))


def single_power(level: Fraction, sigma2: Fraction, shift: int = 1) -> Bracket:
    """Certified power of the most powerful (randomised) level-ℓ test of N_Z(0, σ²) against
    N_Z(shift, σ²) (item 4).  0 < ℓ < 1."""
    level, sigma2 = Fraction(level), Fraction(sigma2)
    if not 0 < level < 1:
        raise ValueError("level must lie strictly between 0 and 1")
    t_max = truncation(sigma2) + shift
    theta = normaliser(sigma2)
    half_tail = tail_bound(sigma2, t_max) / 2
    e = {x: ba.exp(-Fraction(x * x, 2) / sigma2) for x in range(t_max + shift + 2)}
    # unnormalised upper tails U(t) = Σ_{x>t} e^{−x²/(2σ²)}, for −t_max − shift ≤ t ≤ t_max
    tails: dict[int, Bracket] = {t_max: Bracket(Fraction(0), half_tail)}
    for t in range(t_max - 1, -t_max - shift - 2, -1):
        tails[t] = ba.add(tails[t + 1], e[abs(t + 1)])

    def p0_gt(t: int) -> Bracket:
        return ba.div(tails[t], theta)

    def p0_eq(t: int) -> Bracket:
        return ba.div(e[abs(t)], theta)

    # search (midpoints only choose): the largest t with P0(X ≥ t) > ℓ
    t = t_max
    while t > -t_max and (p0_gt(t - 1).lo + p0_gt(t - 1).hi) / 2 <= level:
        t -= 1
    if p0_gt(t).hi > level:  # ℓ within the bracket width of a knot: reject only X > t + 1
        t += 1
        gamma = Fraction(0)
    else:
        gamma = _clip01((level - p0_gt(t).hi) / p0_eq(t).hi)
    # lower end: the test (t, γ) has level ≤ P0(>t).hi + γ P0(=t).hi ≤ ℓ
    lo = ba.add(p0_gt(t - shift), ba.mul(gamma, p0_eq(t - shift))).lo
    # upper end: (★) at λ = Λ(t) = (2Δt − Δ²)/(2σ²)
    e_lam = ba.exp(Fraction(2 * shift * t - shift * shift, 2) / sigma2)
    delta = ba.div(ba.sub(tails[t - shift], ba.mul(e_lam, tails[t])), theta)
    hi = ba.add(ba.mul(e_lam, level), delta).hi
    return Bracket(lo, max(lo, min(hi, Fraction(1))))


# ------------------------------------------------------------------ compositions


@dataclass(frozen=True)
class _Law:
    """Masses v[i] (scale 2^-SCALE_BITS, each a lower bound) at lattice point off + i."""

    off: int
    v: tuple[int, ...]

    @property
    def deficit(self) -> int:
        """2^SCALE_BITS − Σ v: an upper bound of the total error, in units of 2^-SCALE_BITS."""
        return _ONE - sum(self.v)


@functools.lru_cache(maxsize=256)
def _cell_masses(sigma2: Fraction) -> tuple[int, tuple[int, ...]]:
    """Lower bounds ⌊2^64 P[N_Z(0,σ²) = k]⌋ (or less) for |k| ≤ T, as (offset, masses)."""
    t = truncation(sigma2)
    th = normaliser(sigma2).hi
    bits = SCALE_BITS + _GUARD
    half = [(_exp_scaled(-Fraction(k * k, 2) / sigma2, bits, False) * th.denominator)
            // (th.numerator << _GUARD) for k in range(t + 1)]
    return -t, tuple(half[:0:-1] + half)


def _product(a: tuple[int, tuple[int, ...]], b: tuple[int, tuple[int, ...]],
             lo: int | None = None, hi: int | None = None) -> tuple[int, tuple[int, ...]]:
    """Exact convolution floored back to the scale, clipped to [lo, hi], zeros stripped."""
    off = a[0] + b[0]
    v = convolve(list(a[1]), list(b[1]))
    first, last = off, off + len(v) - 1
    if lo is not None:
        first = max(first, lo)
    if hi is not None:
        last = min(last, hi)
    out = [x >> SCALE_BITS for x in v[first - off:last - off + 1]]
    nz = [i for i, x in enumerate(out) if x]
    if not nz:
        return first, (0,)
    return first + nz[0], tuple(out[nz[0]:nz[-1] + 1])


@functools.lru_cache(maxsize=256)
def _sum_masses(sigma2: Fraction, cells: int) -> tuple[int, tuple[int, ...]]:
    """Lower bounds of the law of Z = Y_1 + … + Y_cells, Y_i iid N_Z(0, σ²)."""
    cell = _cell_masses(sigma2)
    acc = cell
    for _ in range(cells - 1):
        acc = _product(acc, cell)
    return acc


@functools.lru_cache(maxsize=256)
def _rounded(comp: Component, lattice: int) -> tuple[_Law, _Law]:
    """Laws under H0 and H1 of the component's Λ after the rounding kernel K (item 5),
    on the lattice (1/lattice)ℤ.

    Λ(z) = Δ(2z − cells·Δ)/(2σ²); with σ² = a/b, Λ·H = num/den, num = HΔb(2z − cells·Δ),
    den = 2a.  For j = ⌊num/den⌋ the distance to the upper lattice point is x = X/D with
    X = (j+1)den − num ∈ (0, den], D = den·H.  f = (x + x²/2 + x³/6)/U with
    U = h + h²/2 + h³/6 + h⁴/12 ≥ e^h − 1 (h = 1/H ≤ 1/2: Σ_{n≥4} h^n/n! ≤ (h⁴/24)Σ h^k
    ≤ h⁴/12) and e^x − 1 ≥ x + x²/2 + x³/6, so 0 ≤ f ≤ f* ≤ 1; f = 1 when x = h (Λ on the
    lattice).  In integers f = 2H⁴(6D²X + 3DX² + X³)/(D³(12H³ + 6H² + 2H + 1))."""
    h_ = lattice
    if h_ < 2:
        raise ValueError("lattice must be at least 2 (h ≤ 1/2)")
    off, a = _sum_masses(comp.sigma2, comp.cells)
    d, m = comp.shift, comp.cells
    an, ad = comp.sigma2.numerator, comp.sigma2.denominator
    den = 2 * an
    dd = den * h_
    fden = dd**3 * (12 * h_**3 + 6 * h_**2 + 2 * h_ + 1)
    c4 = 2 * h_**4
    shift1 = m * d  # Z under H1 is Z under H0 plus cells·Δ
    acc0: dict[int, int] = {}
    acc1: dict[int, int] = {}
    n = len(a)
    for z in range(off, off + n + shift1):
        i0, i1 = z - off, z - off - shift1
        p0 = a[i0] if i0 < n else 0
        p1 = a[i1] if i1 >= 0 else 0
        if not (p0 or p1):
            continue
        num = h_ * d * ad * (2 * z - m * d)
        j = num // den
        big_x = (j + 1) * den - num
        if big_x == den:
            for acc, p in ((acc0, p0), (acc1, p1)):
                if p:
                    acc[j] = acc.get(j, 0) + p
            continue
        fnum = c4 * (6 * dd * dd * big_x + 3 * dd * big_x * big_x + big_x**3)
        for acc, p in ((acc0, p0), (acc1, p1)):
            if p:
                acc[j] = acc.get(j, 0) + p * fnum // fden
                acc[j + 1] = acc.get(j + 1, 0) + p * (fden - fnum) // fden
    return _to_law(acc0), _to_law(acc1)


def _to_law(acc: dict[int, int]) -> _Law:
    keys = [k for k, v in acc.items() if v]
    lo, hi = min(keys), max(keys)
    return _Law(lo, tuple(acc.get(k, 0) for k in range(lo, hi + 1)))


def _default_window(components: Sequence[Component]) -> int:
    """Half-width W of the loss window [−W, W]: μ²/2 + 12μ + 4, rounded up (Λ is ≈ normal
    with mean ±μ²/2 and variance μ² under H0/H1; mass outside only widens the bracket)."""
    m2 = mu2(components)
    mu = isqrt(-(-m2.numerator // m2.denominator)) + 1
    return int(m2 / 2) + 12 * mu + 4


@functools.lru_cache(maxsize=32)
def _composed(components: tuple[Component, ...], lattice: int, window: int
              ) -> tuple[_Law, _Law]:
    lim = window * lattice
    law0 = law1 = (0, (_ONE,))
    for comp in components:
        r0, r1 = _rounded(comp, lattice)
        law0 = _product(law0, (r0.off, r0.v), -lim, lim)
        law1 = _product(law1, (r1.off, r1.v), -lim, lim)
    return _Law(*law0), _Law(*law1)


def composed_power(level: Fraction, components: Sequence[Component],
                   lattice: int = DEFAULT_LATTICE, window: int | None = None) -> Bracket:
    """Certified power of the most powerful level-ℓ test between the products of the
    components' H0 and H1 laws (item 5).  0 < ℓ < 1; lattice = 1/h."""
    level = Fraction(level)
    if not 0 < level < 1:
        raise ValueError("level must lie strictly between 0 and 1")
    comps = tuple(sorted(components))
    if not comps:
        raise ValueError("no components")
    law0, law1 = _composed(comps, lattice, window or _default_window(comps))
    target = level * _ONE
    # -- lower end: threshold the rounded loss at c, randomise with γ at c
    m0 = law0.deficit
    top = law0.off + len(law0.v) - 1
    c, above = top, 0  # above = Σ_{j>c} v0[j]
    while c > law0.off and above + law0.v[c - law0.off] + m0 <= target:
        above += law0.v[c - law0.off]
        c -= 1
    if above + m0 > target or law0.v[c - law0.off] == 0:
        raise ArithmeticError("level below the certified resolution of the composed law")
    gamma = _clip01((target - above - m0) / law0.v[c - law0.off])

    def v1(j: int) -> int:
        i = j - law1.off
        return law1.v[i] if 0 <= i < len(law1.v) else 0

    top1 = max(law1.off + len(law1.v) - 1, c + 11)
    g1 = {}  # Σ_{j>c'} v1[j]
    run = 0
    for j in range(top1, c - 12, -1):
        g1[j] = run
        run += v1(j)
    lo = (g1[c] + gamma * v1(c)) / _ONE
    # -- upper end: (★) at λ = c'h, δ̃ ≤ Σ_{j>c'} v1[j](1 − e^{−(j−c')h}) + deficit;
    # D(c') = Σ_{j>c'} v1[j] e^{−(j−c')h} bounded below by a floored Horner pass
    bits = SCALE_BITS + _GUARD
    r = _exp_scaled(Fraction(-1, lattice), bits, False)
    disc: dict[int, int] = {}
    dcur = 0
    for j in range(top1, c - 12, -1):
        disc[j] = dcur
        dcur = (r * (dcur + v1(j))) >> bits
    best = Fraction(1)
    for cc in range(c - 10, c + 11):
        if cc not in g1:
            continue
        e_hi = ba.exp(Fraction(cc, lattice)).hi
        u = e_hi * level + Fraction(g1[cc] - disc[cc] + law1.deficit, _ONE)
        best = min(best, u)
    if lo > best:
        raise ArithmeticError("certified lower end above the upper end")
    return Bracket(lo, best)
