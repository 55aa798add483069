"""The §4.1 accuracy-gain condition and break-even sampling rates (claims hu/sec4.1, hu/inline).

With the Laplace mechanism, V_n = Var(g(𝒮(Y_N))) + 2(Δ_n^G/ε_n)² and V_N = 2(Δ_N^G/ε)².
Printed: with Δ_n^G = Δ_N^G, gains (V_n ≤ V_N) need Var(g(𝒮)) ≤ q V_N, q = 1 − ε²/ε_n²; and
"no gains whenever Var(g(𝒮)) ≥ 2(Δ_N^G)²(1/ε² − 1/ε_n²)".  The break-even rate for a target
q₀ has a closed form: ε_n = ε/√(1 − q₀), so n/N = (e^ε − 1)/(e^{ε/√(1−q₀)} − 1).
"""

from __future__ import annotations

import sympy

from verifydp.accuracy.amplification import eps_n
from verifydp.exact.tfunc import EPS

VAR_s, DN_s, Dn_s, EN_s = sympy.symbols("Var Delta_N Delta_n epsilon_n", positive=True)
RATE_s = sympy.Symbol("rho", positive=True)

Q_PRINTED = 1 - EPS**2 / EN_s**2
NO_GAIN_PRINTED = 2 * DN_s**2 * (1 / EPS**2 - 1 / EN_s**2)
Q_SMALL_EPS_PRINTED = 1 - RATE_s**2  # "q ≈ 1 − (n/N)²" for small ε


def v_sample(var: sympy.Expr, d_n: sympy.Expr, e_n: sympy.Expr) -> sympy.Expr:
    """V_n = Var(g(𝒮)) + Var(η_n), η_n ~ Laplace(0, Δ_n/ε_n)."""
    return var + 2 * (d_n / e_n) ** 2


def v_population(d_N: sympy.Expr, eps: sympy.Expr) -> sympy.Expr:
    """V_N = 2(Δ_N/ε)² (no sampling variance)."""
    return 2 * (d_N / eps) ** 2


def q_of_rate(eps: sympy.Expr, rate: sympy.Expr, q: sympy.Expr = Q_PRINTED) -> sympy.Expr:
    """q as a function of ε and n/N, with ε_n from the inverse amplification."""
    return q.subs(EN_s, eps_n(eps, rate)).subs(EPS, eps)


def break_even_rate(eps: sympy.Expr, q0: sympy.Expr) -> sympy.Expr:
    """The rate n/N at which q(ε, n/N) = q₀ (q decreases in n/N, so gains need a smaller
    rate).  Closed form; `verify_break_even` re-checks it symbolically."""
    return (sympy.exp(eps) - 1) / (sympy.exp(eps / sympy.sqrt(1 - q0)) - 1)


def verify_break_even(eps: sympy.Expr, q0: sympy.Expr) -> bool:
    """q(ε, break_even_rate(ε, q₀)) == q₀ exactly (sympy)."""
    return sympy.simplify(q_of_rate(eps, break_even_rate(eps, q0)) - q0) == 0
