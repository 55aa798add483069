"""The same LPs solved exactly by sympy's rational simplex: an independent oracle.

Slow (dense, exact), so only for tiny regions; used by the tests to cross-check the
HiGHS-plus-certificate path, and available for exact solving where the size allows (fact 5).
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from sympy.solvers.simplex import linprog

from verifydp.worstcase.lp import oriented_rows
from verifydp.worstcase.region import Region

MAX_EXACT_POINTS = 40


def _rat(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def _to_fraction(v: sympy.Expr) -> Fraction:
    v = sympy.simplify(v)
    if not isinstance(v, sympy.Rational):
        raise ValueError(f"exact LP returned a non-rational value {v!r}")
    return Fraction(int(v.p), int(v.q))


def exact_ratio(region: Region, p: list[Fraction], q: list[Fraction], t: Fraction) -> Fraction:
    """max Σ p f s.t. Σ q f ≤ 1, f ≥ 0, f_x ≤ t f_y on oriented edges (region connected to q)."""
    n = len(region.points)
    if n > MAX_EXACT_POINTS:
        raise ValueError(f"exact LP limited to {MAX_EXACT_POINTS} points")
    rows = oriented_rows(region)
    a = sympy.zeros(len(rows) + 1, n)
    b = sympy.zeros(len(rows) + 1, 1)
    for r, (x, y) in enumerate(rows):
        a[r, x] += 1
        a[r, y] -= _rat(t)
    for i in range(n):
        a[len(rows), i] = _rat(q[i])
    b[len(rows), 0] = 1
    c = sympy.Matrix([-_rat(v) for v in p])
    value, _ = linprog(c, a, b)
    return _to_fraction(-value)


def exact_hockey(
    region: Region,
    p: list[Fraction],
    q: list[Fraction],
    t: Fraction,
    delta: Fraction,
    t_prime: Fraction,
) -> Fraction:
    n = len(region.points)
    if n > MAX_EXACT_POINTS:
        raise ValueError(f"exact LP limited to {MAX_EXACT_POINTS} points")
    rows = oriented_rows(region)
    a = sympy.zeros(2 * len(rows), n)
    b = sympy.zeros(2 * len(rows), 1)
    tt, dd = _rat(t), _rat(delta)
    for r, (x, y) in enumerate(rows):
        a[r, x] += 1
        a[r, y] -= tt
        b[r, 0] = dd
        a[len(rows) + r, x] -= 1
        a[len(rows) + r, y] += tt
        b[len(rows) + r, 0] = tt - 1 + dd
    c = sympy.Matrix([-(_rat(pp) - _rat(t_prime) * _rat(qq)) for pp, qq in zip(p, q)])
    value, _ = linprog(c, a, b, bounds=(0, 1))
    return _to_fraction(-value)
