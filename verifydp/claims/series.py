"""Series statements ("≈ 6rε") checked symbolically with sympy (docs/foundations.md#claims)."""

from __future__ import annotations

import sympy

from verifydp.exact.tfunc import EPS


def first_order_coefficient(expr: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(value at ε = 0, coefficient of ε) of the Taylor expansion of `expr` at ε = 0."""
    ser = sympy.series(expr, EPS, 0, 2).removeO()
    return sympy.simplify(ser.coeff(EPS, 0)), sympy.simplify(ser.coeff(EPS, 1))
