"""Hypothesis-testing semantics (Kifer et al. §6; claims `kifer/thm6.1`–`thm6.3`, tables 1, 2, 6).

* `max_power`: the exact largest power of a level-ℓ test of P (H0) vs Q (H1) for finite
  distributions (Neyman–Pearson), by LP duality: β(ℓ) = min_{s≥0} s·ℓ + Σ_ω (Q(ω) − s P(ω))_+,
  the minimum attained at s = 0 or a likelihood ratio Q(ω)/P(ω).  Exact for Fractions; for
  bracketed probabilities each breakpoint is a rational within w of the true ratio and
  |∂/∂s| ≤ 1, which widens the lower end by w (so the result is still an enclosure).
* the printed power bounds of Theorems 6.1–6.3 as sympy expressions (mutable by tests);
* `zcdp_power_sup`: the largest power p at level ℓ allowed by the two ρ-zCDP constraints of
  Theorem 6.3 for all α > 1, certified from both sides (see `zcdp_feasible`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import sympy

from verifydp.exact import barith as ba
from verifydp.exact.barith import Num
from verifydp.exact.interval import Bracket

LEVEL, POWER, EPS, DELTA, ALPHA, GAMMA = sympy.symbols(
    "ell power epsilon delta alpha gamma", positive=True)
_E, _BETA = sympy.exp(EPS), 1 - POWER

# Theorem 6.1, Equation (4)
PURE_UPPER = sympy.Min(_E * LEVEL, 1 - (1 - LEVEL) / _E)
PURE_LOWER = sympy.Max(LEVEL / _E, 1 - _E * (1 - LEVEL))
# Theorem 6.2
APPROX_UPPER = sympy.Min(_E * LEVEL + DELTA, 1 - (1 - LEVEL - DELTA) / _E)
APPROX_LOWER = sympy.Max((LEVEL - DELTA) / _E, 1 - _E * (1 - LEVEL) - DELTA)
# Theorem 6.3: both left-hand sides must be ≤ e^{γ(α−1)}
RDP_LHS = (
    LEVEL**ALPHA * POWER ** (1 - ALPHA) + (1 - LEVEL) ** ALPHA * _BETA ** (1 - ALPHA),
    POWER**ALPHA * LEVEL ** (1 - ALPHA) + _BETA**ALPHA * (1 - LEVEL) ** (1 - ALPHA),
)
RDP_RHS = sympy.exp(GAMMA * (ALPHA - 1))

Pairs = Sequence[tuple[Num, Num]]


def _g(pairs: Pairs, level: Bracket, s: Fraction) -> Bracket:
    total = ba.mul(s, level)
    for p, q in pairs:
        d = ba.sub(q, ba.mul(s, p))
        total = ba.add(total, Bracket(max(d.lo, Fraction(0)), max(d.hi, Fraction(0))))
    return total


def max_power(pairs: Pairs, level: Num) -> Bracket:
    """Largest P_Q(reject) over tests with P_P(reject) ≤ level (see module docstring)."""
    level = ba.B(level)
    cands: list[tuple[Fraction, Fraction]] = [(Fraction(0), Fraction(0))]
    for p, q in pairs:
        p, q = ba.B(p), ba.B(q)
        if p.hi == 0:
            continue
        r = ba.div(q, p)
        mid = (r.lo + r.hi) / 2
        cands.append((mid, r.hi - mid))
    lo = hi = None
    for s, w in cands:
        v = _g(pairs, level, s)
        lo = v.lo - w if lo is None else min(lo, v.lo - w)
        hi = v.hi if hi is None else min(hi, v.hi)
    return Bracket(max(lo, Fraction(0)), min(hi, Fraction(1)))


def min_power(pairs: Pairs, level: Num) -> Bracket:
    """Smallest power of a level-ℓ test: 1 − (max power at level 1 − ℓ) (complement test)."""
    return ba.sub(1, max_power(pairs, ba.sub(1, level)))


# ------------------------------------------------------------- zCDP power supremum


def renyi_bern(a: Num, b: Num, alpha: Fraction) -> Bracket:
    """e^{(α−1) D_α(Bern(a) ‖ Bern(b))} = a^α b^{1−α} + (1−a)^α (1−b)^{1−α}."""
    one_a, one_b = ba.sub(1, a), ba.sub(1, b)
    return ba.add(ba.mul(ba.powr(a, alpha), ba.powr(b, 1 - alpha)),
                  ba.mul(ba.powr(one_a, alpha), ba.powr(one_b, 1 - alpha)))


def _dalpha(a: Fraction, b: Fraction, alpha: Fraction) -> Bracket:
    return ba.div(ba.log(renyi_bern(a, b, alpha)), alpha - 1)


def zcdp_violation(level: Fraction, p: Fraction, rho: Fraction) -> Fraction | None:
    """A rational α > 1 at which (level, p) certainly violates a ρ-zCDP constraint, or None.

    Floats only choose the α to try; the violation itself is certified with brackets."""
    def d(a: float, b: float, al: float) -> float:
        return math.log(a**al * b ** (1 - al) + (1 - a) ** al * (1 - b) ** (1 - al)) / (al - 1)

    lf, pf, rf = float(level), float(p), float(rho)
    best = max((max(d(lf, pf, al), d(pf, lf, al)) - al * rf, al)
               for al in (1 + k / 200 for k in range(1, 4000)))
    if best[0] <= 0:
        return None
    al = Fraction(best[1]).limit_denominator(1000)
    for a, b in ((level, p), (p, level)):
        if _dalpha(a, b, al).lo > al * rho:
            return al
    return None


def zcdp_feasible(level: Fraction, p: Fraction, rho: Fraction, max_cells: int = 2000) -> bool:
    """Certify D_α(Bern(ℓ)‖Bern(p)) ≤ αρ and D_α(Bern(p)‖Bern(ℓ)) ≤ αρ for every α > 1.

    D_α is non-decreasing in α, so on (a, b] it is ≤ D_b while αρ > aρ: the cell is safe
    when D_b ≤ aρ (first cell a = 1).  Beyond A, D_α ≤ D_∞ = log max ratio ≤ Aρ.  Cells are
    swept left to right, each as long as a float estimate allows and then certified with
    brackets (halved when that fails); False means "not certified", not "infeasible"."""
    dinf = ba.log(ba.bmax(ba.div(ba.sub(1, level), ba.sub(1, p)), ba.div(p, level)))
    big = Fraction(int(ba.div(dinf, rho).hi) + 2)
    lf, pf, rf = float(level), float(p), float(rho)

    def dmax(al: float) -> float:
        return max(math.log(x**al * y ** (1 - al) + (1 - x) ** al * (1 - y) ** (1 - al))
                   / (al - 1) for x, y in ((lf, pf), (pf, lf)))

    a, step = Fraction(1), Fraction(1, 64)
    for _ in range(max_cells):
        if a >= big:
            return True
        b = min(a + step, big)
        while b - a > Fraction(1, 10**6) and dmax(float(b)) > float(a) * rf * (1 - 1e-9):
            b = a + (b - a) / 2
        safe = all(_dalpha(x, y, b).hi <= a * rho for x, y in ((level, p), (p, level)))
        if not safe:
            if b - a <= Fraction(1, 10**6):
                return False
            step = (b - a) / 2
            continue
        a, step = b, (b - a) * 2
    return False


# ------------------------------------------------------------- exact trade-off curves


def power_vertices(pairs: Sequence[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """Vertices (level, power) of the exact Neyman–Pearson curve of P vs Q (Fractions)."""
    free = sum((q for p, q in pairs if p == 0), Fraction(0))
    rest = sorted(((p, q) for p, q in pairs if p > 0), key=lambda pq: pq[1] / pq[0],
                  reverse=True)
    pts = [(Fraction(0), Fraction(0)), (Fraction(0), free)]
    x, y = Fraction(0), free
    for p, q in rest:
        x, y = x + p, y + q
        pts.append((x, y))
    return pts


def upper_hull(points: Sequence[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """Upper concave hull of points, left to right (exact; monotone chain)."""
    hull: list[tuple[Fraction, Fraction]] = []
    for pt in sorted(set(points)):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (pt[1] - y1) - (y2 - y1) * (pt[0] - x1) >= 0:
                hull.pop()
            else:
                break
        hull.append(pt)
    return hull


def first_level_reaching(hull: Sequence[tuple[Fraction, Fraction]], power: Fraction
                         ) -> Fraction | None:
    """inf{x : hull(x) ≥ power} on a concave non-decreasing piecewise-linear curve."""
    for (x1, y1), (x2, y2) in zip(hull, hull[1:], strict=False):
        if y1 >= power:
            return x1
        if y2 >= power:
            return x1 + (power - y1) * (x2 - x1) / (y2 - y1)
    return hull[-1][0] if hull and hull[-1][1] >= power else None
