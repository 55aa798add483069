"""The rigorous special functions of the package: e^x, ln x, φ, Φ, erfc and Φ⁻¹.

Every function here returns a guaranteed enclosure, and names the rounding direction of each
end: lower ends are rounded toward −∞ (floor, ``round_floor``), upper ends toward +∞ (ceiling,
``round_ceiling``). No global state is touched (no ``mpmath.mp``/``iv`` precision): only
mpmath's pure ``libmp`` functions and exact Python integers are used. Facts relied on are in
docs/foundations.md#rigorous-brackets.

* `exp_mpf`, `log_mpf`: raw libmp enclosures of e^x and ln x at a rational x (the building
  blocks of `verifydp.exact.barith` and of every closed form below);
* `exp`: the same enclosure as a `Bracket` (cached);
* `npdf`, `ncdf`: φ(x) and Φ(x) at rational x, exact fixed-point series (below);
* `ncdf_hull`, `ncdf_inv`: Φ over a bracket, and Φ⁻¹ by certified bisection;
* `erfc_mpf`: erfc at an mpf point for the interval evaluator, through Φ:
  erfc(y) = 2Φ(−y√2) with √2 enclosed by exact integer square roots.

There is one normal cdf in the package and it is `ncdf`; other implementations are kept only
as independent cross-checks in ``tests/oracles/``.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import isqrt
from typing import Any

import sympy
from mpmath import libmp

from verifydp.exact.interval import Bracket, bracket, mpf_to_fraction

__all__ = [
    "exp_mpf_end",
    "brackets_for_eps",
    "erfc_mpf",
    "exp",
    "exp_bracket",
    "exp_mpf",
    "log_bracket",
    "log_mpf",
    "ncdf",
    "ncdf_hull",
    "ncdf_inv",
    "npdf",
]

_PREC = 256  # bits of the exp enclosure inside φ; Φ is returned on the grid 2^-(2·_PREC)

_INV_SQRT_2PI = bracket(1 / sympy.sqrt(2 * sympy.pi), prec_bits=_PREC)

# ---- fixed-point integer arithmetic for the normal CDF
#
# A real r is enclosed by an integer pair (L, H) meaning L/2^_W <= r <= H/2^_W.  Every
# operation on such pairs rounds the lower end down (floor division) and the upper end up
# (ceiling division), so enclosures stay rigorous; Python ints are exact, so the only
# rounding is the explicit one.  _W carries 64 guard bits below the output grid 2^-(2·_PREC)
# to which results are finally rounded outward (as before).
_OUT_BITS = 2 * _PREC
_W = _OUT_BITS + 64
_GUARD = _W - _OUT_BITS  # guard bits below the output grid, at every grid `ncdf` is asked for
# erfc_mpf's grid: its precision plus 128 bits, so values down to Φ(−10) ≈ 2^-77 (below,
# ncdf keeps relative accuracy) still carry `prec` significant bits
ERFC_MARGIN_BITS = 128


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for b > 0."""
    return -((-a) // b)


def _fix_of_fraction(x: Fraction, w: int = _W) -> tuple[int, int]:
    return (x.numerator << w) // x.denominator, _cdiv(x.numerator << w, x.denominator)


def _fix_of_mpf(v: tuple[int, int, int, int], up: bool, w: int = _W) -> int:
    """floor (up=False) or ceil (up=True) of v·2^w for a finite raw mpf v (exact shifts)."""
    sign, man, exp, _ = v
    if sign:
        man = -man
    s = exp + w
    if s >= 0:
        return man << s
    return -((-man) >> -s) if up else man >> -s


def exp_mpf_end(x: Fraction, up: bool, prec: int = _PREC) -> tuple[int, int, int, int]:
    """One end of the enclosure of e^x, x rational, as a raw mpf: below e^x (``up=False``:
    every rounding ``round_floor``) or above it (``up=True``: ``round_ceiling``).

    x is rounded outward to prec bits, libmp's exp applied with the same directed rounding,
    and the result widened by 2^-(prec-4) relative (a margin for libmp's exp, which is
    accurate but not proven correctly rounded). No global state: only pure libmp calls."""
    rnd = libmp.round_ceiling if up else libmp.round_floor
    v = libmp.from_rational(x.numerator, x.denominator, prec, rnd)
    v = libmp.mpf_exp(v, prec, rnd)
    pad = libmp.mpf_shift(libmp.mpf_abs(v), -(prec - 4))
    v = (libmp.mpf_add if up else libmp.mpf_sub)(v, pad, prec, rnd)
    if v[1] == 0 and v != libmp.fzero:
        raise ValueError("exp produced an infinite or NaN endpoint")
    return v


def exp_mpf(x: Fraction, prec: int = _PREC) -> tuple[tuple, tuple]:
    """Raw mpf enclosure (lo, hi) of e^x, x rational: the two ends of `exp_mpf_end`."""
    return exp_mpf_end(x, False, prec), exp_mpf_end(x, True, prec)


@functools.lru_cache(maxsize=4096)
def exp(x: Fraction) -> Bracket:
    """Rigorous bracket of e^x at 256 bits (`exp_bracket`, cached)."""
    if x == 0:
        return Bracket.point(1)
    lo, hi = exp_mpf(x)
    return Bracket(mpf_to_fraction(lo), mpf_to_fraction(hi))


def _phi_fix(x: Fraction, w: int = _W) -> tuple[int, int]:
    """Fixed-point enclosure (scale 2^-w) of the normal density φ(x) = e^{-x²/2}/√(2π)."""
    if x == 0:
        el = eh = 1 << w
    else:
        lo, hi = exp_mpf(-x * x / 2)
        el, eh = _fix_of_mpf(lo, False, w), _fix_of_mpf(hi, True, w)
    cl, ch = _inv_sqrt_2pi_fix(w)
    return (el * cl) >> w, _cdiv(eh * ch, 1 << w)


@functools.lru_cache(maxsize=8)
def _inv_sqrt_2pi_fix(w: int) -> tuple[int, int]:
    return _fix_of_fraction(_INV_SQRT_2PI.lo, w)[0], _fix_of_fraction(_INV_SQRT_2PI.hi, w)[1]


def npdf(x: Fraction) -> Bracket:
    """Rigorous bracket of φ(x) (exact dyadic endpoints, as fine as 2^-_W)."""
    lo, hi = _phi_fix(x)
    return Bracket(Fraction(lo, 1 << _W), Fraction(hi, 1 << _W))


def _fix_to_bracket(lo: int, hi: int, clamp: bool, bits: int = _OUT_BITS) -> Bracket:
    """Round a fixed-point enclosure (scale 2^-(bits+64)) outward to the grid 2^-bits,
    clipped to [0, 1] when `clamp`."""
    lo = lo >> _GUARD
    hi = -((-hi) >> _GUARD)
    if clamp:
        lo, hi = max(lo, 0), min(hi, 1 << bits)
    return Bracket(Fraction(lo, 1 << bits), Fraction(hi, 1 << bits))



@functools.lru_cache(maxsize=8192)
def ncdf(x: Fraction, bits: int = _OUT_BITS) -> Bracket:
    """Rigorous bracket of Φ(x) for rational x (lower end rounded down, upper end up), on the
    output grid 2^-bits (512 unless a caller needs fewer: `erfc_mpf` asks for its precision
    plus margin, the same method on a coarser grid).

    |x| ≤ 10: Φ(x) = 1/2 + φ(x) Σ_{k≥0} x^{2k+1}/(2k+1)!!  (positive-ratio series; once the
    term ratio x²/(2k+3) ≤ 1/2 the remainder is at most twice the next term, the ratios
    only decreasing from there on).
    |x| > 10: Q(|x|) = 1 − Φ(|x|) = φ(x) R(|x|) with the Mills ratio R bracketed by its
    continued fraction (`_mills`); below −10 the result keeps relative accuracy.

    Rigour: all arithmetic is exact integer fixed point at scale 2^-(bits+64) with each
    lower end rounded down and each upper end rounded up (every term of the series is
    carried as a pair of integer enclosures, each computed from the previous pair by one
    exact multiplication and one floor/ceiling division); e^{-x²/2} comes from mpmath's
    directed-rounding exp plus a widening of a few ulps (exactly the enclosure of
    `exp_bracket(·, 256)`), and 1/√(2π) from the interval evaluator.  The result is rounded
    outward to 2^-512 and clipped to [0, 1] (Φ takes values there); below −10 it is rounded
    outward to 512 significant bits instead."""
    x = Fraction(x)
    ax = abs(x)
    p, q = ax.numerator, ax.denominator
    w = bits + _GUARD
    one = 1 << w
    half = one >> 1
    if ax <= 10:
        tl, th = _fix_of_fraction(ax, w)
        sl = sh = 0
        num, q2 = p * p, q * q
        stop = 1 << _GUARD  # next term < 2^-bits
        k = 0
        while True:
            sl += tl
            sh += th
            den = q2 * (2 * k + 3)
            nl = (tl * num) // den
            nh = -((-th * num) // den)
            k += 1
            if 2 * num <= den and nh < stop:
                break
            tl, th = nl, nh
        sh += 2 * nh  # remainder ≤ 2 · next term (ratios ≤ 1/2 from here on)
        fl, fh = _phi_fix(ax, w)
        hl = (fl * sl) >> w            # φ·S − lower, in units 2^-w
        hh = _cdiv(fh * sh, one)
        if x >= 0:
            return _fix_to_bracket(half + hl, half + hh, True, bits)
        return _fix_to_bracket(half - hh, half - hl, True, bits)
    # |x| > 10: Q(|x|) = φ(x) R(|x|), with the Mills ratio R bracketed by its continued
    # fraction (`_mills`); e^{-x²/2} as an mpf enclosure, products exact, so a deep-tail value
    # keeps its relative accuracy instead of vanishing below an absolute grid
    if ax > 1000:  # Q(|x|) < e^{-500000} < 2^-65536: not worth a multi-megabit Fraction
        tiny = Fraction(1, 1 << 65536)
        return Bracket(0, tiny) if x < 0 else Bracket(1 - tiny, 1)
    r_lo, r_hi = _mills(ax, bits)
    q_lo = mpf_to_fraction(exp_mpf_end(-ax * ax / 2, False)) * _INV_SQRT_2PI.lo * r_lo
    q_hi = mpf_to_fraction(exp_mpf_end(-ax * ax / 2, True)) * _INV_SQRT_2PI.hi * r_hi
    if x < 0:
        return Bracket(_round_rel(q_lo, up=False, bits=bits), _round_rel(q_hi, up=True, bits=bits))
    ql = (q_lo.numerator << w) // q_lo.denominator
    qh = _cdiv(q_hi.numerator << w, q_hi.denominator)
    return _fix_to_bracket(one - qh, one - ql, True, bits)


def _mills(x: Fraction, bits: int = _OUT_BITS) -> tuple[Fraction, Fraction]:
    """The Mills ratio R(x) = Q(x)/φ(x), x > 0, enclosed through Laplace's continued fraction
    R(x) = 1/(x + 1/(x + 2/(x + 3/(x + …)))).

    Why this is rigorous: every level maps its tail s ↦ k/(x + s), decreasing in s > 0. The
    true tail at depth n lies in [0, ∞), so starting from that interval and applying the maps
    with outward rounding (a lower end from the upper ends below it, and vice versa) encloses
    R. Exact integer fixed point at scale 2^-(bits+64); the depth doubles until the enclosure
    is narrower than 2^-bits relative."""
    w = bits + _GUARD
    one = 1 << w
    x_lo = (x.numerator << w) // x.denominator
    x_hi = _cdiv(x.numerator << w, x.denominator)
    n = 16
    while True:
        s_lo, s_hi = 0, _cdiv(n << (2 * w), x_lo)  # level n with its tail in [0, ∞)
        for k in range(n - 1, 0, -1):
            s_lo, s_hi = (k << (2 * w)) // (x_hi + s_hi), _cdiv(k << (2 * w), x_lo + s_lo)
        r_lo, r_hi = (one << w) // (x_hi + s_hi), _cdiv(one << w, x_lo + s_lo)
        if (r_hi - r_lo) << bits <= r_lo:
            return Fraction(r_lo, one), Fraction(r_hi, one)
        n *= 2


def _round_rel(x: Fraction, up: bool, bits: int = _OUT_BITS) -> Fraction:
    """x > 0 rounded down (or up) to `bits` significant bits: keeps Fractions small, and a
    relative error of 2^-bits is far below anything a caller resolves."""
    k = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if k >= 0:
        n = x.numerator << k
        r = n // x.denominator if not up else -((-n) // x.denominator)
        return Fraction(r, 1 << k)
    d = x.denominator << -k
    r = x.numerator // d if not up else -((-x.numerator) // d)
    return Fraction(r << -k)


def log_mpf(x: Fraction, up: bool, prec: int = 192) -> tuple[int, int, int, int]:
    """A raw mpf bound on ln x, x > 0 rational: below ln x (``up=False``, every rounding
    ``round_floor``) or above it (``up=True``, ``round_ceiling``). x is rounded outward to
    prec bits, libmp's log is applied with the same directed rounding, and the result is
    widened by 2^-(prec-4) relative plus 2^-prec absolute (as `exp_mpf` widens)."""
    rnd = libmp.round_ceiling if up else libmp.round_floor
    v = libmp.from_rational(x.numerator, x.denominator, prec, rnd)
    v = libmp.mpf_log(v, prec, rnd)
    pad = libmp.mpf_add(libmp.mpf_shift(libmp.mpf_abs(v), -(prec - 4)),
                        libmp.mpf_shift(libmp.fone, -prec), prec, libmp.round_ceiling)
    return (libmp.mpf_add if up else libmp.mpf_sub)(v, pad, prec, rnd)


def exp_bracket(x: Fraction | int, prec_bits: int = 128) -> Bracket:
    """Rigorous bracket of e^x for rational x: `exp_mpf` at prec_bits (floor / ceiling)."""
    x = Fraction(x)
    if x == 0:
        return Bracket.point(1)
    lo, hi = exp_mpf(x, prec_bits)
    return Bracket(mpf_to_fraction(lo), mpf_to_fraction(hi))


def log_bracket(x: Fraction | int, prec_bits: int = 128) -> Bracket:
    """Rigorous bracket of ln x for rational x > 0: `log_mpf` at prec_bits (floor / ceiling)."""
    x = Fraction(x)
    if x <= 0:
        raise ValueError(f"log of non-positive number {x}")
    if x == 1:
        return Bracket.point(0)
    return Bracket(mpf_to_fraction(log_mpf(x, False, prec_bits)),
                   mpf_to_fraction(log_mpf(x, True, prec_bits)))


def ncdf_hull(x: Bracket) -> Bracket:
    """Φ over a bracket: the hull of `ncdf` at its two ends (Φ is increasing)."""
    lo = ncdf(x.lo)
    hi = lo if x.is_point else ncdf(x.hi)
    return Bracket(lo.lo, hi.hi)


# Φ⁻¹ bisection stops at this width; every caller only needs a few dozen correct digits.
_INV_BITS = 80
_Z_MAX = Fraction(40)  # |Φ⁻¹(p)| < 40 for every p inside the range `ncdf` resolves


def _inv_end(p: Fraction, side: int) -> Fraction:
    """A dyadic z with Φ(z) < p certified (side=-1) or Φ(z) > p certified (side=+1)."""
    lo, hi = -_Z_MAX, _Z_MAX
    if not ncdf(lo).hi < p < ncdf(hi).lo:
        raise ValueError(f"Φ⁻¹ argument out of the supported range: {p}")
    # invariant: Φ(lo) < p certainly, Φ(hi) > p certainly
    step = Fraction(1, 1 << _INV_BITS)
    while hi - lo > step:
        mid = (lo + hi) / 2
        b = ncdf(mid)
        if b.hi < p:
            lo = mid
        elif b.lo > p:
            hi = mid
        else:  # Φ(mid) straddles p: mid is within the bracket width of the root
            return mid - step if side < 0 else mid + step
    return lo if side < 0 else hi


def ncdf_inv(p: Bracket) -> Bracket:
    """Φ⁻¹ over a bracket 0 < p < 1 (increasing: lower end from p.lo, upper end from p.hi),
    each end certified by a disjoint Φ bracket."""
    if not 0 < p.lo <= p.hi < 1:
        raise ValueError(f"Φ⁻¹ needs 0 < p < 1, got {p}")
    lo = _inv_end(p.lo, -1)
    hi = _inv_end(p.hi, +1)
    while not ncdf(lo).hi < p.lo:  # the straddle shortcut must still give true bounds
        lo -= Fraction(1, 1 << 60)
    while not ncdf(hi).lo > p.hi:
        hi += Fraction(1, 1 << 60)
    return Bracket(lo, hi)


def _sqrt2(bits: int) -> tuple[Fraction, Fraction]:
    """Exact rationals s_lo < √2 < s_hi at resolution 2^-bits (integer square roots)."""
    r = isqrt(2 << (2 * bits))
    return Fraction(r, 1 << bits), Fraction(r + 1, 1 << bits)


def erfc_mpf(x: Any, prec: int) -> tuple[Any, Any]:
    """Enclosure (lo, hi) of erfc at the raw mpf ``x``, as raw mpf tuples at ``prec`` bits
    (lo rounded with ``round_floor``, hi with ``round_ceiling``).

    erfc(x) = 2Φ(−x√2), Φ increasing; −x√2 lies between −x·s_lo and −x·s_hi for the √2
    enclosure of `_sqrt2` at 2·prec bits, so erfc(x) lies in [2Φ(z_lo), 2Φ(z_hi)]."""
    xf = mpf_to_fraction(x)
    s_lo, s_hi = _sqrt2(2 * prec)
    z1, z2 = -xf * s_lo, -xf * s_hi
    bits = min(_OUT_BITS, prec + ERFC_MARGIN_BITS)
    lo = 2 * ncdf(min(z1, z2), bits).lo
    hi = 2 * ncdf(max(z1, z2), bits).hi
    return (libmp.from_rational(lo.numerator, lo.denominator, prec, libmp.round_floor),
            libmp.from_rational(hi.numerator, hi.denominator, prec, libmp.round_ceiling))


_EPS_REL_TOL = Fraction(1, 10**30)


def brackets_for_eps(eps: Fraction | int) -> tuple[Fraction, Fraction]:
    """Rationals t_lo <= e^eps <= t_hi with (t_hi - t_lo) < 1e-30 * t_lo."""
    eps = Fraction(eps)
    prec = 128
    while True:
        b = exp_bracket(eps, prec_bits=prec)
        if b.width < _EPS_REL_TOL * b.lo:
            return b.lo, b.hi
        prec *= 2
