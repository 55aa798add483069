"""The per-step Gaussian-mixture pair of MUST §3.3 and its rigorous ingredients.

Zhao & Liu, MUST Eqns (6)–(7) (and Supplementary S5, S6):

    P = Σ_l w_l N(a·l, σ²),     Q = Σ_l w_l N(b·l, σ²),

with w_l = Pr(K = l), K the copies of the differing record in the final sample.  The printed
pairs have (a, b) = (1, −1) (WOR, WR, MUST.OW, MUST.WW: substitution) and (1, 0) (Poisson,
S6).  For a > b the privacy loss L(t) = log(p(t)/q(t)) is increasing in t (numerator
increasing, denominator decreasing, as the paper argues), which is all the accountant uses.

Rigorous pieces (every number an enclosure):

* `loss_brackets`: L(τ) at the grid points τ = i/M, by the interval evaluator of
  `verifydp.exact.interval` (directed-rounding exp/log, widened by a few ulps).  With
  z = e^{τ/σ²}, each mixture is a polynomial in z^{±1} with positive interval coefficients, so
  Horner evaluation has no dependency blow-up.
* `cell_masses`: P([τ_i, τ_{i+1}]) = Σ_l w_l (Φ((τ_{i+1} − a l)/σ) − Φ((τ_i − a l)/σ)) from
  the rigorous normal cdf `must_pa.ncdf_bracket`; because the means a·l are integers and the
  grid step is 1/M, every argument is j/(Mσ) for an integer j, so one cdf table serves all
  components.  Masses are integers at scale 2^SCALE_BITS (floor for lower, ceiling for upper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from verifydp.exact.interval import Evaluator, mpf_to_fraction
from verifydp.exact.special import ncdf as ncdf_bracket

PREC = 128
SCALE_BITS = 64  # masses are integers m standing for m / 2^SCALE_BITS
_CDF_BITS = 96  # the cdf table is rounded outward to this grid (errors 2^-96 per entry)


@dataclass(frozen=True)
class MixturePair:
    """P = Σ w_l N(a l, σ²), Q = Σ w_l N(b l, σ²); weights exact, summing to 1; a > b."""

    weights: tuple[tuple[int, Fraction], ...]
    sigma: Fraction
    a: int = 1
    b: int = -1

    def __post_init__(self) -> None:
        if not self.weights or sum(w for _, w in self.weights) != 1:
            raise ValueError("weights must be non-empty and sum to 1 exactly")
        if any(w < 0 or l < 0 for l, w in self.weights):  # noqa: E741
            raise ValueError("weights and copy counts must be non-negative")
        if self.sigma <= 0:
            raise ValueError("sigma must be positive")
        if not (self.a > self.b and {self.a, self.b} <= {-1, 0, 1}):
            raise ValueError("need a > b with a, b in {-1, 0, 1}")

    def reversed(self) -> MixturePair:
        """The direction Q‖P, mirrored by t ↦ −t so that its loss is again increasing."""
        return MixturePair(self.weights, self.sigma, -self.b, -self.a)

    @property
    def symmetric(self) -> bool:
        """P‖Q and Q‖P have the same loss law (mirror t ↦ −t) when b = −a."""
        return self.b == -self.a

    @cached_property
    def lmax(self) -> int:
        return max(l for l, w in self.weights if w)  # noqa: E741


def gaussian_pair(sigma: Fraction) -> MixturePair:
    """The plain Gaussian pair N(1, σ²) vs N(−1, σ²) (K ≡ 1): θ = 2/σ in Theorem 1."""
    return MixturePair(((1, Fraction(1)),), Fraction(sigma))


# ---------------------------------------------------------------- loss at grid points


def loss_brackets(pair: MixturePair, taus: list[Fraction]) -> list[tuple[Fraction, Fraction]]:
    """Rigorous (lo, hi) of L(τ) = log p(τ) − log q(τ) at each τ."""
    ev = Evaluator(PREC)
    s2 = pair.sigma * pair.sigma
    ws = [(l, ev.from_fraction(w)) for l, w in pair.weights if w]  # noqa: E741
    # c_l = e^{−l²/(2σ²)} (the same for a = ±1; a = 0 has no z-dependence and c = 1)
    cs = {l: ev.exp(ev.from_fraction(Fraction(-(l * l), 2) / s2)) for l, _ in ws}  # noqa: E741
    one = ev.from_fraction(Fraction(1))

    def mixture(coef: int, z: Any, zinv: Any) -> Any:
        if coef == 0:
            return one  # Σ w_l = 1
        base = z if coef > 0 else zinv
        acc = ev.from_fraction(Fraction(0))
        power, deg = one, 0
        for l, w in sorted(ws, key=lambda lw: lw[0]):  # noqa: E741
            while deg < l:  # all factors positive: no dependency blow-up
                power, deg = power * base, deg + 1
            acc = acc + w * cs[l] * power
        return acc

    out = []
    for tau in taus:
        z = ev.exp(ev.from_fraction(tau / s2))
        zinv = one / z
        val = ev.log(mixture(pair.a, z, zinv)) - ev.log(mixture(pair.b, z, zinv))
        lo, hi = val._mpi_
        out.append((mpf_to_fraction(lo), mpf_to_fraction(hi)))
    return out


# ---------------------------------------------------------------- cell masses


def _cdf_table(sigma: Fraction, m: int, j0: int, j1: int) -> dict[int, tuple[int, int]]:
    """Φ(j/(Mσ)) for j0 ≤ j ≤ j1 as integer enclosures at scale 2^_CDF_BITS."""
    scale = 1 << _CDF_BITS
    out = {}
    for j in range(j0, j1 + 1):
        br = ncdf_bracket(Fraction(j, m) / sigma)
        out[j] = ((br.lo.numerator * scale) // br.lo.denominator,
                  -((-br.hi.numerator * scale) // br.hi.denominator))
    return out


@dataclass(frozen=True)
class Cells:
    """The t-grid τ_i = i/M, i0 ≤ i ≤ i1, with cell masses (scaled ints) and grid losses.

    ``lo[i]``/``hi[i]``: enclosure of P([τ_i, τ_{i+1}]) for i0 ≤ i < i1; ``left``/``right``:
    of P(t < τ_{i0}) and P(t > τ_{i1}); ``loss[i]``: enclosure of L(τ_i)."""

    m: int
    i0: int
    i1: int
    lo: dict[int, int]
    hi: dict[int, int]
    left: tuple[int, int]
    right: tuple[int, int]
    loss: dict[int, tuple[Fraction, Fraction]]


def cells(pair: MixturePair, m: int = 100, z: int = 10) -> Cells:
    """Cells covering every component of P out to z standard deviations (tails kept apart)."""
    means = [pair.a * l for l, w in pair.weights if w]  # noqa: E741
    # component l needs ± z_l σ with w_l Φ(−z_l) negligible (the tails beyond the grid are
    # accounted for exactly anyway; the range only affects tightness)
    reach = [(pair.a * l, min(z, math.sqrt(max(2 * (70 + math.log(float(w) or 1e-300)), 1))))
             for l, w in pair.weights if w]  # noqa: E741
    i0 = int(min(mu - zl * float(pair.sigma) for mu, zl in reach) * m) - 1
    i1 = int(max(mu + zl * float(pair.sigma) for mu, zl in reach) * m) + 1
    shifts = sorted({mu * m for mu in means})
    table = _cdf_table(pair.sigma, m, i0 - shifts[-1], i1 - shifts[0])
    wscale = 1 << SCALE_BITS
    # w_l at scale 2^SCALE_BITS, floor and ceiling; the product with the cdf scale is rescaled
    wl = [(pair.a * l * m, (w.numerator * wscale) // w.denominator,
           -((-w.numerator * wscale) // w.denominator)) for l, w in pair.weights if w]  # noqa: E741
    shift = _CDF_BITS

    def mass(j_from: int | None, j_to: int | None) -> tuple[int, int]:
        """Σ_l w_l (Φ(to) − Φ(from)), None = ∓∞; integer enclosure at scale 2^SCALE_BITS."""
        lo = hi = 0
        for off, wlo, whi in wl:
            top = (1 << _CDF_BITS, 1 << _CDF_BITS) if j_to is None else table[j_to - off]
            bot = (0, 0) if j_from is None else table[j_from - off]
            d_lo, d_hi = max(top[0] - bot[1], 0), top[1] - bot[0]
            lo += wlo * d_lo
            hi += whi * d_hi
        return lo >> shift, -((-hi) >> shift)

    lo_d, hi_d = {}, {}
    for i in range(i0, i1):
        lo_d[i], hi_d[i] = mass(i, i + 1)
    taus = [Fraction(i, m) for i in range(i0, i1 + 1)]
    loss = dict(zip(range(i0, i1 + 1), loss_brackets(pair, taus), strict=True))
    return Cells(m, i0, i1, lo_d, hi_d, mass(None, i0), mass(i1, None), loss)
