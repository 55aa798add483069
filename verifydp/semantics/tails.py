"""zCDP and RDP tail bounds and conversions (Kifer et al. §5.3, §7.4; claims `kifer/zcdp-tail`,
`kifer/rdp-tail`, `kifer/bayes`).

The printed formulas are sympy expressions (so tests can pass mutants), evaluated rigorously
with `verifydp.exact.interval.bracket`:

* ZCDP_TAIL   ρ-zCDP:      P(L > ε) ≤ e^{−(ε−ρ)²/(4ρ)} for ε > ρ   (§5.3, Bun–Steinke L. 3.5)
* RDP_TAIL    (α,γ)-RDP:   P(L > ε) ≤ e^{(α−1)(γ−ε)}   for ε > γ
* ZCDP_EPS    its inverse  ε(δ) = ρ + 2√(ρ ln(1/δ)) (the δ of ZCDP_TAIL solved for ε)
* BAYES_*     Theorems 7.4.1 (attacker knows the rest) and 7.4.2 (arbitrary prior)

`cks_delta` is the sharper RDP→(ε,δ) conversion of Canonne, Kamath & Steinke (2020, Prop. 12)
δ = e^{(α−1)(γ−ε)} (α−1)^{α−1}/α^α, valid at every α > 1 (so any rational α certifies).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from verifydp.exact import barith as ba
from verifydp.exact.interval import Bracket, bracket

EPS, RHO, DELTA, ALPHA, GAMMA = sympy.symbols("epsilon rho delta alpha gamma", positive=True)

ZCDP_TAIL = sympy.exp(-((EPS - RHO) ** 2) / (4 * RHO))
RDP_TAIL = sympy.exp((ALPHA - 1) * (GAMMA - EPS))
ZCDP_EPS = RHO + 2 * sympy.sqrt(RHO * sympy.log(1 / DELTA))
BAYES_KNOWN_RDP = sympy.exp(-(EPS - GAMMA) * ALPHA - GAMMA)
BAYES_KNOWN_ZCDP = sympy.exp(-((EPS + RHO) ** 2) / (4 * RHO))
BAYES_ANY_RDP = sympy.exp((ALPHA - 1) * (GAMMA - EPS))
BAYES_ANY_ZCDP = sympy.exp(-((EPS - RHO) ** 2) / (4 * RHO))
CKS_DELTA = RDP_TAIL * (ALPHA - 1) ** (ALPHA - 1) / ALPHA**ALPHA


def ev(expr: sympy.Expr, **subs: Fraction | int) -> Bracket:
    """Rigorous bracket of a formula at exact rational parameters (by symbol name)."""
    table = {s: subs[s.name] for s in expr.free_symbols if s.name in subs}
    return bracket(expr, table, prec_bits=192)


def zcdp_alpha_opt(eps: Fraction, rho: Fraction) -> Fraction:
    """α* = (ε + ρ)/(2ρ), the minimiser of e^{(α−1)(αρ−ε)} (> 1 iff ε > ρ)."""
    return (eps + rho) / (2 * rho)


def cks_delta_rdp(eps: Fraction, alpha: Fraction, gamma: Fraction) -> Bracket:
    """CKS bound on δ at ε for (α, γ)-RDP, in bracket arithmetic (sympy would try to
    simplify rational powers exactly)."""
    am1 = alpha - 1
    expo = ba.add(am1 * (gamma - eps), ba.sub(ba.mul(am1, ba.log(am1)),
                                               ba.mul(alpha, ba.log(alpha))))
    return ba.exp(expo)


def cks_delta(eps: Fraction, rho: Fraction, alpha: Fraction) -> Bracket:
    """CKS bound on δ at ε for ρ-zCDP, evaluated at the given α > 1 (γ = αρ)."""
    return cks_delta_rdp(eps, alpha, alpha * rho)


def cks_alpha(eps: float, rho: float) -> Fraction:
    """A good α for `cks_delta` found in floats (any α > 1 is valid; floats only search)."""
    def logd(a: float) -> float:
        return (a - 1) * (a * rho - eps) + (a - 1) * math.log(a - 1) - a * math.log(a)

    lo, hi = 1.0 + 1e-9, max(2.0, 4 * (eps + rho) / (2 * rho) + 2)
    for _ in range(200):  # ternary search: the log-bound is convex in α
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if logd(m1) < logd(m2):
            hi = m2
        else:
            lo = m1
    return Fraction((lo + hi) / 2).limit_denominator(1000)
