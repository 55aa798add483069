"""Gaussian DP (Kifer et al. §5, Example 5.10; claim `kifer/gdp`).

For the Gaussian mechanism with μ = sup ‖q(D1) − q(D2)‖_{Σ⁻¹} (μ = √(2ρ) for sensitivity 1
and σ² = 1/(2ρ)), the closed forms of Example 5.10, evaluated as rigorous brackets:

* exact approximate-DP curve  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2);
* trade-off function          f(x) = Φ(Φ⁻¹(1 − x) − μ), power at level ℓ is 1 − f(ℓ);
* pbdp curve                  ε(δ) = log(δ / Φ(−Φ⁻¹(1 − δ) − μ)).

`np_test_reference` is the independent route: the Neyman–Pearson test of N(0,1) vs N(μ,1) by
direct numerical integration of the two densities (mpmath.quad; an estimated, not
certified, error), with no closed form for Φ.
"""

from __future__ import annotations

from fractions import Fraction
from statistics import NormalDist
from typing import Any

import mpmath

from verifydp.exact import barith as ba
from verifydp.exact.barith import Num
from verifydp.exact.interval import Bracket
from verifydp.mechanisms.profiles import error_bracket
from verifydp.semantics.normal import phi, phi_inv

REF_DPS = 40


def mu_of_rho(rho: Num) -> Bracket:
    """μ = √(2ρ): the Gaussian mechanism with σ² = 1/(2ρ) and sensitivity 1 (§5.2.1)."""
    return ba.sqrt(ba.mul(2, rho))


def _upper_quantile(x: Num) -> Bracket:
    """Φ⁻¹(1 − x), computed as −Φ⁻¹(x) (exact symmetry) so tiny x loses nothing to 1 − x."""
    return ba.neg(phi_inv(x))


def delta_of_eps(eps: Num, mu: Num) -> Bracket:
    """Exact (ε, δ)-DP curve of the Gaussian mechanism (Example 5.10, first bullet)."""
    r = ba.div(eps, mu)
    h = ba.div(mu, 2)
    return ba.sub(phi(ba.add(ba.neg(r), h)), ba.mul(ba.exp(eps), phi(ba.sub(ba.neg(r), h))))


def tradeoff(x: Num, mu: Num) -> Bracket:
    """f(x) = Φ(Φ⁻¹(1 − x) − μ) (Example 5.10, second bullet), 0 < x < 1."""
    return phi(ba.sub(_upper_quantile(x), mu))


def power(level: Num, mu: Num) -> Bracket:
    """Maximum power 1 − f(ℓ) = Φ(μ − Φ⁻¹(1 − ℓ)) of a level-ℓ test (no 1 − (…) cancellation)."""
    return phi(ba.sub(mu, _upper_quantile(level)))


def pbdp_eps(delta: Num, mu: Num) -> Bracket:
    """ε = log(δ / Φ(−Φ⁻¹(1 − δ) − μ)) (Example 5.10, third bullet), 0 < δ < 1."""
    return ba.log(ba.div(delta, phi(ba.sub(ba.neg(_upper_quantile(delta)), mu))))


def pbdp_delta_at(eps: Num, delta: Num, mu: Num) -> Bracket:
    """1 − f(e^{-ε}δ): the largest power at level e^{-ε}δ (Definition 5.4 via f-DP).

    (ε, δ) is a pbdp point exactly when this is ≤ δ; on the curve it equals δ."""
    return power(ba.mul(ba.exp(ba.neg(eps)), delta), mu)


# ------------------------------------------------------------- independent reference


def _mp(x: Fraction) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator


def _err_bracket(v: Any, err: Any) -> Bracket:
    return error_bracket(v, err)


def np_test_reference(level: Fraction, mu: Fraction) -> tuple[Bracket, str]:
    """Power of the level-ℓ Neyman–Pearson test of N(0,1) vs N(μ,1), by quadrature.

    The likelihood ratio is increasing in x, so the test rejects on x > z with
    ∫_z^∞ φ = ℓ; z is found by Newton steps on the quadrature itself (a float quantile only
    seeds it), then the power is ∫_z^∞ φ(x − μ) dx.  The stated error is mpmath's estimate
    plus the effect of the level residual on z: an estimate, not a proof.
    """
    with mpmath.workdps(REF_DPS):
        c = 1 / mpmath.sqrt(2 * mpmath.pi)
        m, lv = _mp(mu), _mp(level)

        def tail(z: Any, shift: Any) -> tuple[Any, Any]:
            return mpmath.quad(lambda x: c * mpmath.exp(-(x - shift) ** 2 / 2),
                               [z, z + 1, z + 8, mpmath.inf], error=True)

        z = mpmath.mpf(NormalDist().inv_cdf(1 - float(level)))
        for _ in range(5):  # Newton: d/dz ∫_z^∞ φ = −φ(z)
            z += (tail(z, 0)[0] - lv) / (c * mpmath.exp(-z * z / 2))
        val, err = tail(z, m)
        # |d power / dz| = φ(z − μ); the level residual moves z by residual/φ(z).
        resid = abs(tail(z, 0)[0] - lv) / (c * mpmath.exp(-z * z / 2))
        err = abs(err) + resid * c * mpmath.exp(-(z - m) ** 2 / 2) + mpmath.mpf(10) ** -30
        return _err_bracket(val, err), "Neyman–Pearson test by mpmath.quad of the densities"
