"""Claims as functions of t = e^eps.

Amplification bounds are usually rational functions of ``t = e^eps`` (for instance
``e^{eps'} = 1 + (m/n)(t - 1)``).  Rewriting them in ``T`` lets them be evaluated exactly
at rational ``t`` instead of through floating exp/log.  Every rewrite here is an identity
over the complex numbers with principal branches, so values never change.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import sympy

__all__ = ["EPS", "T", "eval_at_t", "exp_of", "to_t"]

T = sympy.Symbol("t", positive=True)
EPS = sympy.Symbol("epsilon", positive=True)


def to_t(expr: sympy.Expr | str) -> sympy.Expr:
    """Rewrite every exp(k*EPS + c) as T**k * exp(c); raise if EPS survives elsewhere.

    ``k`` may be any EPS-free coefficient: since T > 0 and log(T) = EPS exactly,
    T**k = exp(k*log T) = exp(k*EPS) on the principal branch.
    """
    out = _to_t(sympy.sympify(expr))
    if out.has(EPS):
        raise ValueError(f"{EPS} occurs outside exp(k*{EPS}) in {out}")
    return out


def _to_t(e: sympy.Basic) -> sympy.Basic:
    if not e.has(EPS) or not e.args:
        return e
    args = [_to_t(a) for a in e.args]
    if isinstance(e, sympy.exp):
        return _exp_to_t(args[0])
    if isinstance(e, sympy.Pow) and not args[0].has(EPS, T) and args[1].has(EPS):
        # b**a is defined as exp(a*log b) (principal branch), e.g. 2**EPS -> t**log(2).
        return _exp_to_t(args[1] * sympy.log(args[0]))
    return e.func(*args)


def _exp_to_t(arg: sympy.Basic) -> sympy.Basic:
    """exp(arg) with arg's EPS-linear part pulled out as a power of T."""
    if not arg.has(EPS):
        return sympy.exp(arg)
    # Distributing products over sums is value-preserving and exposes k*EPS terms.
    rest, dep = sympy.expand(arg).as_independent(EPS, as_Add=True)
    k = sympy.Integer(0)
    for term in sympy.Add.make_args(dep):
        coeff, sym = term.as_independent(EPS, as_Add=False)
        if sym != EPS:
            # Non-linear in EPS (e.g. exp(EPS**2)): leave it for to_t to reject.
            return sympy.exp(arg)
        k += coeff
    return T**k * sympy.exp(rest)


def eval_at_t(
    expr: sympy.Expr | str,
    t: Fraction | int,
    subs: Mapping[sympy.Symbol, Fraction | int] | None = None,
) -> Fraction | None:
    """Exact value of ``expr`` at T = t (after `to_t` and ``subs``), or None if not rational.

    None also covers values sympy cannot reduce to a finite Rational (irrational,
    undefined, or merely not simplified); callers should fall back to `bracket`.
    """
    t = Fraction(t)
    if t <= 0:
        raise ValueError(f"t = e^eps must be positive, got {t}")
    repl: dict[sympy.Basic, sympy.Basic] = {T: sympy.Rational(t.numerator, t.denominator)}
    for k, v in (subs or {}).items():
        if isinstance(v, float | bool) or not isinstance(v, int | Fraction | sympy.Rational):
            raise TypeError(f"substitution for {k} must be an exact rational, got {v!r}")
        f = Fraction(int(v.p), int(v.q)) if isinstance(v, sympy.Rational) else Fraction(v)
        repl[k] = sympy.Rational(f.numerator, f.denominator)
    val = to_t(expr).xreplace(repl)
    if not isinstance(val, sympy.Rational) and not val.free_symbols:
        # Auto-evaluation may leave e.g. (1+sqrt(2))*(1-sqrt(2)); expand is exact.
        val = sympy.expand(val)
    if isinstance(val, sympy.Rational):
        return Fraction(int(val.p), int(val.q))
    return None


def exp_of(expr: sympy.Expr | str) -> sympy.Expr:
    """e^{expr}, with exp(a+b) -> e^a e^b, exp(log x) -> x, exp(c*log x) -> x**c.

    Each step is an identity for principal branches (x**c := exp(c*log x)), so no
    assumptions are introduced.  Terms that are not logs stay inside exp().
    """
    return _exp_of(sympy.sympify(expr))


def _exp_of(a: sympy.Basic) -> sympy.Basic:
    if isinstance(a, sympy.Add):
        return sympy.Mul(*[_exp_of(term) for term in a.args])
    if isinstance(a, sympy.log):
        return a.args[0]
    if isinstance(a, sympy.Mul):
        factors = list(a.args)
        for i, f in enumerate(factors):
            if isinstance(f, sympy.log):
                coeff = sympy.Mul(*(factors[:i] + factors[i + 1 :]))
                return sympy.Pow(f.args[0], coeff)
        if any(isinstance(f, sympy.Add) and f.has(sympy.log) for f in factors):
            # c*(log a + log b): distribute (exact), then split the resulting sum.
            distributed = sympy.expand_mul(a)
            if distributed != a:
                return _exp_of(distributed)
    return sympy.exp(a)
