"""Variances of the privatized population and sample means (hu §2.3, §4.2; claim hu/mean).

Printed: V_N = 2(R/(εN))² (eq. 6), V_n = (1 − n/N) S_N²/n + 2(R/(ε_n n))² (eq. 7) and the
noise ratio r(ε, n/N) = V_N / Var(η_n) = ((n/N) log(1 + (N/n)(e^ε − 1))/ε)² (eq. 8).  The
references here are independent: the Laplace variance by integration, the SRSWOR variance of
the sample mean by enumerating every sample, the global sensitivity by brute force.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations, combinations_with_replacement

import sympy

from verifydp.exact.tfunc import EPS

R_s, N_s, n_s, S2_s, EPSN_s, b_s = sympy.symbols("R N n S2 epsilon_n b", positive=True)
RATE_s = sympy.Symbol("rho", positive=True)  # sampling rate n/N

V_N_PRINTED = 2 * (R_s / (EPS * N_s)) ** 2
V_n_PRINTED = (1 - n_s / N_s) * S2_s / n_s + 2 * (R_s / (EPSN_s * n_s)) ** 2
R_RATIO_PRINTED = (RATE_s * sympy.log(1 + (sympy.exp(EPS) - 1) / RATE_s) / EPS) ** 2


def laplace_variance(scale: sympy.Expr) -> sympy.Expr:
    """Var of Laplace(0, scale) by integrating its density (independent of the 2b² rule)."""
    x = sympy.Symbol("x", real=True)
    dens = sympy.exp(-x / b_s) / (2 * b_s)  # x ≥ 0 half; the density is even
    second = 2 * sympy.integrate(x**2 * dens, (x, 0, sympy.oo))
    return sympy.simplify(second.subs(b_s, scale))


def population_variance(ys: Sequence[Fraction]) -> Fraction:
    """S_N² = Σ (y_i − ȳ)²/(N − 1), exactly."""
    mean = sum(ys, Fraction(0)) / len(ys)
    return sum(((y - mean) ** 2 for y in ys), Fraction(0)) / (len(ys) - 1)


def srswor_mean_variance(ys: Sequence[Fraction], n: int) -> Fraction:
    """Var of the sample mean over all C(N, n) equally likely samples (exact)."""
    means = [sum(s, Fraction(0)) / n for s in combinations(ys, n)]
    mu = sum(means, Fraction(0)) / len(means)
    return sum(((m - mu) ** 2 for m in means), Fraction(0)) / len(means)


def mean_global_sensitivity(size: int, top: int) -> Fraction:
    """max |ȳ(Y) − ȳ(Y')| over datasets of `size` values in {0..top} differing in one
    record (bounded DP), by brute force over multisets and single replacements."""
    return max(mean_local_sensitivity(ys, top)
               for ys in combinations_with_replacement(range(top + 1), size))


def mean_local_sensitivity(ys: Sequence[int], top: int) -> Fraction:
    """max |ȳ(Y) − ȳ(Y')| over Y' one replacement away, values in {0..top} (brute force)."""
    return max(Fraction(abs(new - old), len(ys)) for old in set(ys) for new in range(top + 1))


def mean_local_sensitivity_printed(ys: Sequence[int], top: int) -> Fraction:
    """§2.2 as printed: R(Y_N)/N with R(Y_N) = max(max 𝒴 − min Y_N, max Y_N − min 𝒴)."""
    return Fraction(max(top - min(ys), max(ys) - 0), len(ys))
