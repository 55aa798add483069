"""Privacy profiles of the Laplace and Gaussian mechanisms, and an independent reference.

Two routes to the same numbers, kept apart on purpose:

* closed forms (`laplace_profile`, `gaussian_profile` and their group versions), evaluated
  rigorously as `Bracket`s.  The Gaussian one needs the normal cdf; `bracket_special`
  extends the interval evaluator of `verifydp.exact.interval` with ``erf``/``erfc`` nodes,
  enclosed by `verifydp.exact.special.erfc_mpf` (the package's one Φ).
* the hockey-stick divergence itself, ``D_{e^ε}(P‖Q) = ∫ max(0, p(x) − e^ε q(x)) dx``,
  integrated numerically from the two densities with ``mpmath.quad`` at 50 digits
  (`laplace_hockey_stick`, `gaussian_hockey_stick`).  Only the region ``{p > e^ε q}`` is
  found analytically (the likelihood ratio is monotone in x for both families); no cdf or
  closed form is used.  That reference carries an *estimated* (not certified) error.

Parametrisation (as in Zhao & Liu, Theorem 1): ``theta = Δ/σ`` is the sensitivity divided
by the noise scale (Laplace scale σ, Gaussian standard deviation σ).  Group profiles for
datasets at distance ≤ j replace Δ by jΔ, i.e. ``theta`` by ``j·theta``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import sympy

from verifydp.exact import barith, special
from verifydp.exact.interval import (
    Bracket,
    Evaluator,
    IntervalDomainError,
    iv_to_bracket,
    substitute,
)
from verifydp.exact.special import erfc_mpf
from verifydp.exact.tfunc import EPS

__all__ = [
    "THETA",
    "SpecialEvaluator",
    "bracket_special",
    "gaussian_group_profile",
    "gaussian_hockey_stick",
    "gaussian_profile",
    "gaussian_profile_barith",
    "gaussian_profile_expr",
    "laplace_group_profile",
    "laplace_hockey_stick",
    "laplace_profile",
    "laplace_profile_expr",
    "normal_cdf",
]

Rat = Fraction | int
THETA = sympy.Symbol("theta", positive=True)

REF_DPS = 50
# Floor of the reference's stated error, relative to its value (quad works at REF_DPS + 5).
_REF_REL_FLOOR = mpmath.mpf(10) ** -45


# ------------------------------------------------------------------ rigorous erfc


class SpecialEvaluator(Evaluator):
    """The interval evaluator plus erfc/erf (erfc is decreasing: endpoints swap)."""

    def erfc(self, x: Any) -> Any:
        xlo, xhi = x._mpi_
        lo, _ = erfc_mpf(xhi, self.prec)
        _, hi = erfc_mpf(xlo, self.prec)
        return self.ctx.make_mpf((lo, hi))

    def eval(self, e: sympy.Basic) -> Any:
        if isinstance(e, sympy.erfc):
            return self.erfc(self.eval(e.args[0]))
        if isinstance(e, sympy.erf):
            one = self.from_fraction(Fraction(1))
            return one - self.erfc(self.eval(e.args[0]))
        return super().eval(e)


def bracket_special(
    expr: sympy.Expr, subs: Mapping[sympy.Symbol, Rat] | None = None, prec_bits: int = 192
) -> Bracket:
    """Like `verifydp.exact.interval.bracket`, also accepting ``erf``/``erfc`` nodes."""
    e = substitute(expr, subs)
    if isinstance(e, sympy.Rational):
        return Bracket.point(Fraction(int(e.p), int(e.q)))
    if e.free_symbols:
        names = ", ".join(sorted(str(s) for s in e.free_symbols))
        raise ValueError(f"free symbols left after substitution: {names}")
    prec = prec_bits
    while True:
        try:
            return iv_to_bracket(SpecialEvaluator(prec).eval(e))
        except IntervalDomainError as err:
            if not err.retryable or prec * 4 > 16 * prec_bits:
                raise
            prec *= 4


def normal_cdf(x: sympy.Expr) -> sympy.Expr:
    """Φ(x) = erfc(−x/√2)/2 (stable in both tails: no 1 − (tiny) cancellation)."""
    return sympy.erfc(-x / sympy.sqrt(2)) / 2


# ------------------------------------------------------------------ closed forms


def laplace_profile_expr(theta: sympy.Expr = THETA) -> sympy.Expr:
    """[1 − exp((ε − θ)/2)]_+ for Lap(0, σ) noise and sensitivity Δ1, θ = Δ1/σ."""
    return sympy.Max(0, 1 - sympy.exp((EPS - theta) / 2))


def gaussian_profile_expr(theta: sympy.Expr = THETA) -> sympy.Expr:
    """Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ) for N(0, σ²I) noise, θ = Δ2/σ."""
    return normal_cdf(theta / 2 - EPS / theta) - sympy.exp(EPS) * normal_cdf(
        -theta / 2 - EPS / theta
    )


def _check(eps: Rat, theta: Rat) -> tuple[Fraction, Fraction]:
    eps, theta = Fraction(eps), Fraction(theta)
    if eps < 0 or theta <= 0:
        raise ValueError(f"need eps >= 0 and theta > 0, got eps={eps}, theta={theta}")
    return eps, theta


def laplace_profile(eps: Rat, theta: Rat) -> Bracket:
    """Rigorous bracket of δ(ε) of the Laplace mechanism, θ = Δ1/σ (exactly 0 for ε ≥ θ)."""
    eps, theta = _check(eps, theta)
    if eps >= theta:
        return Bracket.point(0)
    return bracket_special(laplace_profile_expr(), {EPS: eps, THETA: theta})


def gaussian_profile(eps: Rat, theta: Rat) -> Bracket:
    """Rigorous bracket of δ(ε) of the Gaussian mechanism, θ = Δ2/σ; valid for large ε."""
    eps, theta = _check(eps, theta)
    return bracket_special(gaussian_profile_expr(), {EPS: eps, THETA: theta})


def gaussian_profile_barith(eps: Rat, theta: Rat) -> Bracket:
    """The same closed form Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), θ > 0, in the package's bracket
    arithmetic (`verifydp.exact.barith` over its one Φ, `verifydp.exact.special.ncdf`): far
    faster than the sympy route of `gaussian_profile`, which the tests compare it with. Not
    clamped to [0, 1] (callers clamp as their use needs); any real ε."""
    eps, theta = Fraction(eps), Fraction(theta)
    if theta <= 0:
        raise ValueError(f"need theta > 0, got {theta}")
    return barith.sub(special.ncdf(theta / 2 - eps / theta),
                      barith.mul(special.exp(eps), special.ncdf(-theta / 2 - eps / theta)))


def laplace_group_profile(eps: Rat, j: int, theta: Rat) -> Bracket:
    """δ_{M,j}(ε): datasets at distance ≤ j, i.e. Δ1 → jΔ1."""
    if j < 1:
        raise ValueError("group size j must be >= 1")
    return laplace_profile(eps, j * Fraction(theta))


def gaussian_group_profile(eps: Rat, j: int, theta: Rat) -> Bracket:
    """δ_{M,j}(ε): datasets at distance ≤ j, i.e. Δ2 → jΔ2."""
    if j < 1:
        raise ValueError("group size j must be >= 1")
    return gaussian_profile(eps, j * Fraction(theta))


# ------------------------------------------------------------------ independent reference


def _mpf_fraction(x: Any) -> Fraction:
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    val = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -val if sign else val


def error_bracket(value: Any, err: Any) -> Bracket:
    v, e = _mpf_fraction(value), _mpf_fraction(abs(err))
    return Bracket(max(v - e, Fraction(0)), v + e)


def _quad2(f: Any, points: list[Any], scale: Any) -> tuple[Any, Any]:
    """∫ f over the breakpoints by tanh-sinh; value and an error estimate.

    mpmath.quad stops on an *absolute* tolerance, so f is integrated as f/scale with
    ``scale`` > 0 of the order of the integrand's peak, and the result multiplied back.
    The stated error is mpmath's tanh-sinh error estimate (difference of the last two
    quadrature levels) plus a relative floor of 1e-45: an estimate, not a certificate.
    (Cross-checks against an independent rule and the closed forms are in the tests.)
    """

    def g(x: Any) -> Any:
        return f(x) / scale

    ts, ts_err = mpmath.quad(g, points, method="tanh-sinh", error=True)
    err = abs(ts_err) + _REF_REL_FLOOR * abs(ts)
    return ts * scale, err * scale


@lru_cache(maxsize=4096)
def laplace_hockey_stick(eps: Fraction, theta: Fraction) -> tuple[Bracket, str]:
    """D_{e^ε}(Lap(0,1) ‖ Lap(θ,1)) by numerical integration of the densities.

    p/q = exp(|x − θ| − |x|) is non-increasing in x, equal to e^θ on x ≤ 0, so
    {p > e^ε q} = (−∞, (θ − ε)/2) when ε < θ and is empty otherwise (exactly 0).
    Returns the bracket value ± estimated error and a note on how it was obtained.
    """
    eps, theta = _check(eps, theta)
    if eps >= theta:
        return Bracket.point(0), "region {p > e^ε q} is empty (ε ≥ θ): exactly 0"
    with mpmath.workdps(REF_DPS + 5):
        e, th = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(
            theta.numerator
        ) / theta.denominator
        t = mpmath.exp(e)

        def f(x: Any) -> Any:
            # p(x) − e^ε q(x) with p = Lap(0, 1), q = Lap(θ, 1) densities.
            return (mpmath.exp(-abs(x)) - t * mpmath.exp(-abs(x - th))) / 2

        a = (th - e) / 2
        val, err = _quad2(f, [-mpmath.inf, -1, 0, a], mpmath.mpf(1))
        return error_bracket(val, err), f"∫_(-∞,{mpmath.nstr(a, 8)}) (p − e^ε q) dx by mpmath.quad"


@lru_cache(maxsize=4096)
def gaussian_hockey_stick(eps: Fraction, theta: Fraction) -> tuple[Bracket, str]:
    """D_{e^ε}(N(0,1) ‖ N(θ,1)) by numerical integration of the densities.

    p/q = exp(θ²/2 − θx) is decreasing in x, so {p > e^ε q} = (−∞, x*), x* = θ/2 − ε/θ.
    Integrated in u = x* − x over [0, ∞) with breakpoints on the decay scale 1/(|x*|+θ+1),
    so values as small as e^{-800} keep their relative accuracy.
    """
    eps, theta = _check(eps, theta)
    with mpmath.workdps(REF_DPS + 5):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        th = mpmath.mpf(theta.numerator) / theta.denominator
        xs = th / 2 - e / th
        c = 1 / mpmath.sqrt(2 * mpmath.pi)

        def f(u: Any) -> Any:
            x = xs - u
            # p(x) − e^ε q(x) = p(x)·(1 − e^ε q(x)/p(x)), q/p = exp(θx − θ²/2).
            return c * mpmath.exp(-x * x / 2) * (-mpmath.expm1(e + th * x - th * th / 2))

        s = 1 / (abs(xs) + th + 1)
        points = [mpmath.mpf(0), s, 16 * s, mpmath.inf]
        val, err = _quad2(f, points, c * mpmath.exp(-xs * xs / 2))
        return error_bracket(val, err), f"∫_(-∞,{mpmath.nstr(xs, 8)}) (p − e^ε q) dx by mpmath.quad"
