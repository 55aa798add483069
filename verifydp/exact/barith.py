"""The bracket arithmetic of the package: outward-rounded operations on `Bracket`s
(interval arithmetic with exact rational ends).

Used wherever a quantity is built from several irrational pieces (e^ε, √(2ρ), Φ(…)).  Each
result is rounded outward to GRID_BITS significant bits so Fractions stay small; the
rounding only widens, so every result is still a guaranteed enclosure.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

from verifydp.exact.interval import Bracket, mpf_to_fraction
from verifydp.exact.special import exp_mpf, log_mpf

GRID_BITS = 192
_S = 1 << GRID_BITS

Num = Bracket | Fraction | int


def B(x: Num) -> Bracket:
    """Coerce an exact rational (or a Bracket) to a Bracket."""
    return x if isinstance(x, Bracket) else Bracket.point(Fraction(x))


def _scale(x: Fraction) -> int:
    """Binary exponent k such that rounding to multiples of 2^-k keeps GRID_BITS
    significant bits of x (relative rounding: tiny probabilities keep their precision)."""
    if x == 0:
        return GRID_BITS
    return GRID_BITS - (abs(x.numerator).bit_length() - x.denominator.bit_length())


def _down(x: Fraction) -> Fraction:
    k = _scale(x)
    if k >= 0:
        return Fraction((x.numerator << k) // x.denominator, 1 << k)
    return Fraction((x.numerator // (x.denominator << -k)) << -k)


def _up(x: Fraction) -> Fraction:
    return -_down(-x)


def out(lo: Fraction, hi: Fraction) -> Bracket:
    """[lo, hi] rounded outward to the grid (exact points with small denominators kept)."""
    if lo == hi and lo.denominator.bit_length() <= GRID_BITS:
        return Bracket(lo, hi)
    return Bracket(_down(lo), _up(hi))


def add(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    return out(a.lo + b.lo, a.hi + b.hi)


def sub(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    return out(a.lo - b.hi, a.hi - b.lo)


def neg(a: Num) -> Bracket:
    a = B(a)
    return Bracket(-a.hi, -a.lo)


def mul(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    c = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
    return out(min(c), max(c))


def div(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    if b.lo <= 0 <= b.hi:
        raise ZeroDivisionError(f"division by a bracket containing 0: {b}")
    return mul(a, Bracket(1 / b.hi, 1 / b.lo))


_PREC = 192


def exp(a: Num) -> Bracket:
    """e^a (increasing: endpoint-wise), the lower end from `special.exp_mpf`'s floor-rounded
    enclosure, the upper end from its ceiling-rounded one."""
    a = B(a)
    if a.is_point and a.lo == 0:
        return Bracket.point(1)
    lo, _ = exp_mpf(a.lo, _PREC)
    _, hi = exp_mpf(a.hi, _PREC)
    return out(mpf_to_fraction(lo), mpf_to_fraction(hi))


def log(a: Num) -> Bracket:
    """ln a for a > 0 (increasing: endpoint-wise)."""
    a = B(a)
    if a.lo <= 0:
        raise ValueError(f"log of a bracket reaching 0 or below: {a}")
    if a.is_point and a.lo == 1:
        return Bracket.point(0)
    return out(mpf_to_fraction(log_mpf(a.lo, False, _PREC)),
               mpf_to_fraction(log_mpf(a.hi, True, _PREC)))


def _isqrt_frac(x: Fraction, up: bool) -> Fraction:
    """A dyadic rational below (or above) √x, x ≥ 0, at resolution 2^-GRID_BITS."""
    n = (x.numerator << (2 * GRID_BITS)) // x.denominator
    r = isqrt(n)
    if up and r * r * x.denominator < (x.numerator << (2 * GRID_BITS)):
        r += 1
    return Fraction(r, _S)


def sqrt(a: Num) -> Bracket:
    """√a for a ≥ 0 (increasing: endpoint-wise, exact integer square roots)."""
    a = B(a)
    if a.lo < 0:
        raise ValueError(f"sqrt of a bracket reaching below 0: {a}")
    return Bracket(_isqrt_frac(a.lo, up=False), _isqrt_frac(a.hi, up=True))


def bmin(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    return Bracket(min(a.lo, b.lo), min(a.hi, b.hi))


def bmax(a: Num, b: Num) -> Bracket:
    a, b = B(a), B(b)
    return Bracket(max(a.lo, b.lo), max(a.hi, b.hi))


def powr(a: Num, e: Num) -> Bracket:
    """a^e = exp(e·ln a) for a > 0, any real e (bracketed)."""
    return exp(mul(e, log(a)))
