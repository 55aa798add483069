"""SRS without replacement: Theorem 1 of `hu` and its inverse (claim hu/amplification).

Theorem 1 (as printed): an (ε, δ)-DP 𝒜 is (ε_n, δ_n)-DP for g(𝒮(Y_N)) with
ε_n = log(1 + (n/N)(e^ε − 1)), δ_n = (n/N)δ.  §3 then inverts it: privatizing the sample
estimate with ε_n = log(1 + (N/n)(e^ε − 1)), δ_n = (N/n)δ "suffices to ensure the target
level (ε, δ)".  Both directions are the same map read forwards and backwards; the checker
(verifydp.claims.hu) compares them with the engine's exact worst case over all base
mechanisms, under the paper's bounded (replacement) relation.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from verifydp.exact.tfunc import EPS

# n = sample size, N = population size (the paper's notation)
n_s, N_s, delta_s = sympy.symbols("n N delta", positive=True)

FORWARD_EPS = sympy.log(1 + n_s / N_s * (sympy.exp(EPS) - 1))
FORWARD_DELTA = n_s / N_s * delta_s
INVERSE_EPS = sympy.log(1 + N_s / n_s * (sympy.exp(EPS) - 1))
INVERSE_DELTA = N_s / n_s * delta_s


def at(expr: sympy.Expr, eps: sympy.Expr, n: int, N: int, delta: Fraction = Fraction(0)
       ) -> sympy.Expr:
    """`expr` with ε, n, N, δ substituted exactly (ε may be log t for rational t)."""
    return sympy.simplify(expr.subs({
        EPS: eps, n_s: sympy.Integer(n), N_s: sympy.Integer(N),
        delta_s: sympy.Rational(delta.numerator, delta.denominator),
    }))


def inverse_t(t: Fraction, rate: Fraction) -> Fraction:
    """e^{ε_n} for target e^ε = t and sampling rate n/N, exactly: 1 + (t − 1)/rate."""
    return 1 + (t - 1) / rate


def eps_n(eps: sympy.Expr, rate: sympy.Expr) -> sympy.Expr:
    """ε_n = log(1 + (N/n)(e^ε − 1)) as a sympy expression of ε and the rate n/N."""
    return sympy.log(1 + (sympy.exp(eps) - 1) / rate)
