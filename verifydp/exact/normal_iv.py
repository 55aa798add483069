"""Rigorous enclosures of Gaussian tail probabilities at many points at once, in vector
interval arithmetic (`verifydp.exact.vecint`): erfc from arb's Taylor models on blocks of
points, each model's coefficients and Lagrange remainder enclosed by arb and the polynomial
evaluated by Horner in intervals. The certified lattice cells of the accountant
(`verifydp.accounting.composition`) and the balls-and-bins laws
(`verifydp.accounting.ballsbins`) read their Gaussian masses here; docs/foundations.md#composition.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from verifydp.exact import vecint as vi
from verifydp.exact.arb import ball

__all__ = ["erfc_taylor", "normal_tail"]

_SQRT2_BALL = flint.arb(2).sqrt()
_IV_DEG = 16        # the interval path's Taylor degree for erfc (`erfc_taylor`)
_IV_SPREAD = 0.5    # its blocks: 2·max(z, 1)·R ≤ 1/8 (z > 1), R ≤ 1/8 (z ≤ 1)
_TWO_OVER_SQRTPI = 2 / flint.arb.pi().sqrt()


def erfc_taylor(z: flint.arb, terms: int) -> list[flint.arb]:
    """The Taylor coefficients a_0 … a_{terms−1} of erfc at z (a ball: enclosures of them at
    every point of it): a_0 = erfc(z), a_n = erfc^{(n)}(z)/n! = (−1)^n (2/√π) e^{−z²}
    H_{n−1}(z)/n! for n ≥ 1 (erfc' = −(2/√π)e^{−z²} and d^m/dz^m e^{−z²} =
    (−1)^m H_m(z) e^{−z²}, Hermite polynomials by H_{m+1} = 2zH_m − 2mH_{m−1}; Abramowitz &
    Stegun 7.1.19, 22.7.13). Arb's own series stop at 10 terms (ctx.cap)."""
    out = [z.erfc()]
    g = _TWO_OVER_SQRTPI * (-(z * z)).exp()
    h_prev, h = flint.arb(0), flint.arb(1)
    fact = flint.arb(1)
    for n in range(1, terms):
        fact = fact * n
        term = g * h / fact
        out.append(term if n % 2 == 0 else -term)
        h_prev, h = h, 2 * z * h - 2 * (n - 1) * h_prev
    return out


def normal_tail(c: Fraction, scale: Fraction, x: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tail of N(c, s²) beyond each cut x (floats, increasing): an enclosure [lo, hi] of
    erfc(z)/2, z = |x − c|/(s√2), and the side (True: right of c, the survival
    function). The same Taylor models on larger blocks of degree 16 (`erfc_taylor` at the
    anchor z_b for the coefficients, at the ball z_b ± R for the Lagrange remainder
    |a_{d+1}|R^{d+1}: under (1/8)^17/17! of the value for z > 1); the polynomial is evaluated
    at every cut of every block at once by Horner in intervals, at the offsets
    t = ±(x − x_b)/(s√2) enclosed in intervals."""
    ca, sa = ball(c), ball(scale)
    k = 1 / (sa * _SQRT2_BALL)
    cf = float(c)
    n = len(x)
    right = x > cf
    zf = np.abs(x - cf) * float(k.mid())
    ids = np.floor(np.maximum(zf, 1.0) * zf / (_IV_SPREAD / 2)).astype(np.int64)
    key = ids * 2 + right
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(key)) + 1, [n])).tolist()
    lo, hi = np.zeros(n), np.zeros(n)
    deg = _IV_DEG
    blk_i, blk_coef, blk_rem, blk_xb, blk_k = [], [], [], [], []
    k_iv, mk_iv = vi.of_ball(k), vi.of_ball(-k)
    for i, j in zip(bounds[:-1], bounds[1:], strict=True):
        side = bool(right[i])
        kk = k if side else -k
        coeffs: list[flint.arb] = []
        tail: list[flint.arb] = []
        big_r = flint.arb(0)
        if j - i >= 6:
            b = (i + j) // 2
            xb = flint.arb(float(x[b]))
            zb = (xb - ca) * kk
            big_r = max(abs((flint.arb(float(x[i])) - xb) * kk).upper(),
                        abs((flint.arb(float(x[j - 1])) - xb) * kk).upper())
            coeffs = erfc_taylor(zb, deg + 1)
            tail = erfc_taylor(zb + flint.arb(0, big_r), deg + 2)
        if len(coeffs) < deg + 1 or len(tail) < deg + 2:
            for m in range(i, j):  # one erfc per cut (few cuts, or a short series)
                xm = flint.arb(float(x[m]))
                z = ((xm - ca) if side else (ca - xm)) * k
                lo[m], hi[m] = vi.of_ball(z.erfc() / 2)
            continue
        rem = abs(tail[deg + 1]) * flint.arb(big_r) ** (deg + 1) / 2
        blk_i.append((i, j))
        blk_coef.append([vi.of_ball(a / 2) for a in coeffs[:deg + 1]])
        blk_rem.append(vi.of_ball(rem)[1])
        blk_xb.append(float(x[(i + j) // 2]))
        blk_k.append(k_iv if side else mk_iv)
    if blk_i:
        which = np.repeat(np.arange(len(blk_i)), [j - i for i, j in blk_i])
        pos = np.concatenate([np.arange(i, j) for i, j in blk_i])
        xs = x[pos]
        xb = np.asarray(blk_xb)[which]
        kl, kh = (np.asarray([a for a, _ in blk_k])[which],
                  np.asarray([b for _, b in blk_k])[which])
        d = xs - xb
        t = vi.mul((vi.rdn(d), vi.rup(d)), (kl, kh))
        coef = np.asarray(blk_coef)  # (blocks, deg + 1, 2)
        p = (coef[which, deg, 0], coef[which, deg, 1])
        for m in range(deg - 1, -1, -1):
            p = vi.mul(p, t)
            p = vi.rdn(p[0] + coef[which, m, 0]), vi.rup(p[1] + coef[which, m, 1])
        rem = np.asarray(blk_rem)[which]
        lo[pos], hi[pos] = vi.rdn(p[0] - rem), vi.rup(p[1] + rem)
    return np.maximum(lo, 0.0), np.minimum(hi, 1.0), right
