"""Vector interval arithmetic in floats: numpy arrays (lo, hi) with lo ≤ exact ≤ hi.

IEEE 754 round-to-nearest makes each basic operation's result (+, −, ×, ÷ of floats, numpy
ufuncs: one operation per element, no contraction) lie within half an ulp of the exact one,
also for subnormal results, so the neighbouring floats outward enclose it: interval
arithmetic with outward rounding (Moore, Kearfott & Cloud, *Introduction to Interval
Analysis*, SIAM 2009, §2–3). exp and log are evaluated from their Taylor and atanh series
with explicit remainders; transcendental constants come from arb (outward). The package's
bracket arithmetic on scalars is arb (`verifydp.exact.arb`) and `Bracket`s
(`verifydp.exact.barith`); this module is their vectorised float counterpart for hot loops
(the certified lattice cells of `verifydp.accounting.composition`), and converts to and from
arb balls at its edges.
"""

from __future__ import annotations

import math

import flint
import numpy as np

__all__ = ["Iv", "add", "ball_of", "balls", "exp", "exp_affine", "exp_points", "fsum",
           "grouped_sum", "log", "log_points", "mul", "of_ball", "pad", "rdn", "rup", "sub",
           "total"]

Iv = tuple[np.ndarray, np.ndarray]


def rup(x: np.ndarray) -> np.ndarray:
    """A float at or above the next float after each x (so above the exact value x was
    rounded to nearest from): x + (|x|·2^-52 + 2^-1074). |x|·2^-52 is exact (a power-of-two
    scaling) and at least one ulp of x, or underflows, when 2^-1074, the subnormal ulp,
    takes over; the sum is rounded to nearest, and x plus at least one ulp rounds to at least
    x's upper neighbour, a float (rounding is monotone). Several times faster than
    `np.nextafter`."""
    d = np.abs(x)
    d *= 2.0**-52
    d += 2.0**-1074
    d += x
    return d


def rdn(x: np.ndarray) -> np.ndarray:
    """A float at or below the float before each x (`rup` mirrored)."""
    d = np.abs(x)
    d *= -(2.0**-52)
    d -= 2.0**-1074
    d += x
    return d


def of_ball(x: flint.arb) -> tuple[float, float]:
    """Floats lo ≤ x ≤ hi for a ball (its ends, rounded outward to doubles)."""
    lo_b, hi_b = x.lower(), x.upper()
    lo, hi = float(lo_b), float(hi_b)
    if not flint.arb(lo) <= lo_b:
        lo = math.nextafter(lo, -math.inf)
    if not flint.arb(hi) >= hi_b:
        hi = math.nextafter(hi, math.inf)
    return lo, hi


def add(a: Iv, b: Iv) -> Iv:
    return rdn(a[0] + b[0]), rup(a[1] + b[1])


def sub(a: Iv, b: Iv) -> Iv:
    return rdn(a[0] - b[1]), rup(a[1] - b[0])


def mul(a: Iv, b: Iv) -> Iv:
    p1, p2, p3, p4 = a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]
    return (rdn(np.minimum(np.minimum(p1, p2), np.minimum(p3, p4))),
            rup(np.maximum(np.maximum(p1, p2), np.maximum(p3, p4))))


def grouped_sum(idx: np.ndarray, x: np.ndarray, size: int, up: bool) -> np.ndarray:
    """Σ of the floats x over each group idx = 0 … size − 1, rounded outward: a float sum of
    c terms errs by at most (c − 1)u·Σ|x| (Higham 2002, §4.2), so with x ≥ 0 the sum times
    (1 ± 4cu) encloses it; the lower end clipped at 0."""
    s = np.bincount(idx, weights=x, minlength=size)
    c = np.bincount(idx, minlength=size).astype(float)
    if up:
        return rup(s * (1 + 4 * c * 2.0**-53))
    return np.maximum(rdn(s * (1 - 4 * c * 2.0**-53)), 0.0)


def fsum(x: np.ndarray, up: bool) -> float:
    """Σ x (any signs) rounded outward: `math.fsum` is correctly rounded (one rounding of
    the exact sum), so one step outward encloses it. Exact enough for complements such as
    1 − Σ (a bound with an n·u margin is not)."""
    if not len(x):
        return 0.0
    s = np.array([math.fsum(np.asarray(x, dtype=float).tolist())])
    return float(rup(s)[0] if up else rdn(s)[0])


def total(a: Iv) -> tuple[float, float]:
    """Floats enclosing Σ_i x_i for every x_i in [lo_i, hi_i] (any signs)."""
    return fsum(a[0], False), fsum(a[1], True)


def pad(a: Iv, r: np.ndarray | float) -> Iv:
    """a widened by r ≥ 0 on both sides."""
    return rdn(a[0] - r), rup(a[1] + r)


_EXP_DEG = 14
_EXP_COEF = [of_ball(1 / flint.arb.fac_ui(n)) for n in range(_EXP_DEG + 1)]
_LN2_IV = of_ball(flint.arb(2).log())
# |r| ≤ ln2/2 + 2^-40 after the reduction: the Taylor remainder of e^r after degree 14 is at
# most |r|^15/15!·e^{|r|} < 0.3466^15/15!·1.42 < 2^-62, under a tenth of an ulp of e^r ≥ 0.7
_EXP_REM = 2.0**-62


def exp_points(y: np.ndarray) -> Iv:
    """An enclosure of e^y for float points y (|y| < 700): y = n·ln2 + r with n = rint(y/ln2)
    chosen in floats and r enclosed from ln2's enclosure, e^r by its Taylor polynomial of
    degree 14 in intervals plus the remainder, then the exact scaling by 2^n (outward once
    more, for a result that rounds into the subnormals)."""
    n = np.rint(y / math.log(2))
    r = sub((y, y), mul((n, n), (np.full_like(y, _LN2_IV[0]), np.full_like(y, _LN2_IV[1]))))
    if not (np.all(np.abs(r[0]) <= 0.3466) and np.all(np.abs(r[1]) <= 0.3466)):
        raise ArithmeticError("exp: argument reduction out of range")
    s = (np.full_like(y, _EXP_COEF[-1][0]), np.full_like(y, _EXP_COEF[-1][1]))
    for c in _EXP_COEF[-2::-1]:
        s = mul(s, r)
        s = rdn(s[0] + c[0]), rup(s[1] + c[1])
    s = pad(s, _EXP_REM)
    e = n.astype(np.int64)
    return rdn(np.ldexp(s[0], e)), rup(np.ldexp(s[1], e))


def exp(a: Iv) -> Iv:
    """e^a for an interval a (monotone: the lower end's lower bound, the upper end's upper)."""
    return exp_points(a[0])[0], exp_points(a[1])[1]


def exp_affine(c: tuple[float, float], d: tuple[float, float], n: int) -> Iv | None:
    """An enclosure of e^{c + m·d}, m = 0 … n − 1, for intervals c ∋ c₀ and d ∋ d₀ (floats):
    e^{c + bB·d}·e^{j·d} with m = bB + j (B ≈ √n), both short tables by one `exp_points`
    call and their products rounded outward (both factors are positive, so the ends
    multiply end by end). None when an exponent leaves ±700 (the caller then computes in
    balls)."""
    block = max(1, math.isqrt(max(n - 1, 0)) + 1)
    bs = np.arange(0, n, block, dtype=float)
    js = np.arange(min(block, n), dtype=float)

    def aff(c0: float, c1: float, m: np.ndarray) -> Iv:
        return add((np.full(len(m), c0), np.full(len(m), c1)),
                   mul((m, m), (np.full(len(m), d[0]), np.full(len(m), d[1]))))

    yb = aff(c[0], c[1], bs)
    yj = aff(0.0, 0.0, js)
    ends = aff(c[0], c[1], np.array([0.0, float(n - 1)]))  # the exponent is monotone in m
    if not all(np.all(np.abs(y) < 700) for y in (*yb, *yj, *ends)):
        return None
    nb, nj = len(bs), len(js)
    e_lo, e_hi = exp_points(np.concatenate((yb[0], yj[0], yb[1], yj[1])))
    eb = e_lo[:nb], e_hi[nb + nj:2 * nb + nj]
    ej = e_lo[nb:nb + nj], e_hi[2 * nb + nj:]
    reps = np.repeat(np.arange(nb), nj)[:n]
    tile = np.tile(np.arange(nj), nb)[:n]
    return rdn(eb[0][reps] * ej[0][tile]), rup(eb[1][reps] * ej[1][tile])


_LOG_DEG = 14
_LOG_COEF = [of_ball(1 / flint.arb(2 * n + 1)) for n in range(_LOG_DEG + 1)]
# s = (m − 1)/(m + 1) with m ∈ [1/√2, √2]: |s| ≤ 0.1716 (+ rounding); the atanh series'
# remainder Σ_{n>14} s^{2n}/(2n+1) ≤ s^30/(31(1 − s²)) < 2^-80
_LOG_REM = 2.0**-80


def log_points(v: np.ndarray) -> Iv:
    """An enclosure of log v for positive float points v: v = m·2^e exactly (frexp), m moved
    into [1/√2, √2) (exact doubling), log m = 2s·Σ s^{2n}/(2n+1), s = (m − 1)/(m + 1) (m − 1 is
    exact by Sterbenz's lemma), in intervals with the series' remainder, plus e·ln2."""
    if not np.all(v > 0):
        raise ArithmeticError("log of a non-positive enclosure")
    m, e = np.frexp(v)
    small = m < 0.7071067811865476
    m = np.where(small, m * 2, m)
    e = np.where(small, e - 1, e).astype(float)
    num = m - 1.0
    den = (rdn(m + 1.0), rup(m + 1.0))
    q1, q2 = num / den[0], num / den[1]
    s = rdn(np.minimum(q1, q2)), rup(np.maximum(q1, q2))
    s2 = mul(s, s)
    t = (np.full_like(v, _LOG_COEF[-1][0]), np.full_like(v, _LOG_COEF[-1][1]))
    for c in _LOG_COEF[-2::-1]:
        t = mul(t, s2)
        t = rdn(t[0] + c[0]), rup(t[1] + c[1])
    t = pad(t, _LOG_REM)
    lm = mul((2 * s[0], 2 * s[1]), t)  # 2·s exact
    el = mul((e, e), (np.full_like(v, _LN2_IV[0]), np.full_like(v, _LN2_IV[1])))
    return add(el, lm)


def log(a: Iv) -> Iv:
    return log_points(a[0])[0], log_points(a[1])[1]


def ball_of(lo: float, hi: float) -> flint.arb:
    """A ball containing [lo, hi] (floats, exact)."""
    return flint.arb(lo).union(flint.arb(hi)) if lo != hi else flint.arb(lo)


def balls(lo: np.ndarray, hi: np.ndarray) -> list[flint.arb]:
    """Balls containing [lo_i, hi_i]: midpoint m = fl((lo + hi)/2) and radius
    (hi − lo)/2 + |m|·2^-52 rounded up (the midpoint's rounding is at most |m|·2^-53);
    arb keeps the midpoint exactly and rounds the radius up."""
    mid = (lo + hi) * 0.5
    rad = rup(rup(rup(hi - lo) * 0.5) + np.abs(mid) * 2.0**-52)
    return [flint.arb(m, r) if r > 0 else flint.arb(m)
            for m, r in zip(mid.tolist(), np.where(hi > lo, rad, 0.0).tolist(), strict=True)]
