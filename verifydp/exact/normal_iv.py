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

__all__ = ["erfc_taylor", "normal_tail", "taylor_iv"]

_SQRT2_BALL = flint.arb(2).sqrt()
_IV_DEG = 14        # the interval path's Taylor degree for erfc (`erfc_taylor`)
_IV_SPREAD = 0.75   # its blocks: 2·max(z, 1)·R ≤ 3/16 (z > 1), R ≤ 3/16 (z ≤ 1)
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


_INV_FACT = [vi.of_ball(1 / flint.arb.fac_ui(n)) for n in range(_IV_DEG + 3)]
_TWO_OVER_SQRTPI_IV = vi.of_ball(_TWO_OVER_SQRTPI)
_IV_ZMAX = 26.0     # e^{−z²} stays above the subnormals up to here; beyond, arb


def _square(z: vi.Iv) -> vi.Iv:
    """z² for an interval (0 at the bottom when it straddles 0)."""
    a, b = z[0] * z[0], z[1] * z[1]
    lo = np.where((z[0] > 0) | (z[1] < 0), np.minimum(a, b), 0.0)
    return np.maximum(vi.rdn(lo), 0.0), vi.rup(np.maximum(a, b))


def _const(c: tuple[float, float], n: int) -> vi.Iv:
    return np.full(n, c[0]), np.full(n, c[1])


def taylor_iv(z: vi.Iv, terms: int) -> list[vi.Iv]:
    """`erfc_taylor`'s coefficients a_1 … a_{terms−1} in vector intervals, for many z at once
    (each z an interval; |z| < 26): a_n = (−1)^n (2/√π) e^{−z²} H_{n−1}(z)/n!, the Hermite
    recursion H_{m+1} = 2zH_m − 2mH_{m−1} in intervals (Abramowitz & Stegun 7.1.19,
    22.7.13)."""
    n = len(z[0])
    sq = _square(z)
    g = vi.mul(vi.exp((-sq[1], -sq[0])), _const(_TWO_OVER_SQRTPI_IV, n))
    two_z = (2 * z[0], 2 * z[1])  # exact
    h_prev: vi.Iv = (np.zeros(n), np.zeros(n))
    h: vi.Iv = (np.ones(n), np.ones(n))
    out: list[vi.Iv] = []
    for m in range(1, terms):
        term = vi.mul(vi.mul(g, h), _const(_INV_FACT[m], n))
        out.append(term if m % 2 == 0 else (-term[1], -term[0]))
        c = float(2 * (m - 1))  # exact
        h_prev, h = h, vi.sub(vi.mul(two_z, h), vi.mul(h_prev, _const((c, c), n)))
    return out


def normal_tail(c: Fraction, scale: Fraction, x: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tail of N(c, s²) beyond each cut x (floats, increasing): an enclosure [lo, hi] of
    erfc(z)/2, z = |x − c|/(s√2), and the side (True: right of c, the survival
    function). The same Taylor models on larger blocks of degree 14 (the coefficients at the
    anchor z_b, and over the ball z_b ± R for the Lagrange remainder |a_{d+1}|R^{d+1}: under
    (3/16)^15/15! of the value for z > 1): a_0 = erfc(z_b) in arb per block, the others for
    every block at once in intervals (`taylor_iv`; `erfc_taylor` in arb where |z| + R ≥ 26);
    the polynomial is evaluated at every cut of every block at once by Horner in intervals,
    at the offsets t = ±(x − x_b)/(s√2) enclosed in intervals."""
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
    k_iv, mk_iv = vi.of_ball(k), vi.of_ball(-k)
    anchors: list[tuple[int, int, bool, flint.arb]] = []
    for i, j in zip(bounds[:-1], bounds[1:], strict=True):
        side = bool(right[i])
        kk = k if side else -k
        if j - i < 6:
            for m in range(i, j):  # one erfc per cut (few cuts)
                xm = flint.arb(float(x[m]))
                z = ((xm - ca) if side else (ca - xm)) * k
                lo[m], hi[m] = vi.of_ball(z.erfc() / 2)
            continue
        xb = flint.arb(float(x[(i + j) // 2]))
        anchors.append((i, j, side, (xb - ca) * kk))
    if anchors:
        # the block radius R ≥ |t| at the block's first and last cut, t = ±(x − x_b)/(s√2)
        nb = len(anchors)
        xb_f = np.array([float(x[(i + j) // 2]) for i, j, _, _ in anchors])
        kiv = (np.array([(k_iv if sd else mk_iv)[0] for _, _, sd, _ in anchors]),
               np.array([(k_iv if sd else mk_iv)[1] for _, _, sd, _ in anchors]))
        r = np.zeros(nb)
        for ends in ([x[i] for i, _, _, _ in anchors], [x[j - 1] for _, j, _, _ in anchors]):
            d = np.asarray(ends) - xb_f
            t = vi.mul((vi.rdn(d), vi.rup(d)), kiv)
            r = np.maximum(r, np.maximum(np.abs(t[0]), np.abs(t[1])))
        z_iv = [vi.of_ball(zb) for *_, zb in anchors]
        zl, zh = np.array([a for a, _ in z_iv]), np.array([b for _, b in z_iv])
        near = (np.abs(zl) + r < _IV_ZMAX) & (np.abs(zh) + r < _IV_ZMAX)
        ci = np.flatnonzero(near)
        coef_iv = taylor_iv((zl[ci], zh[ci]), deg + 1)
        tail_iv = taylor_iv((vi.rdn(zl[ci] - r[ci]), vi.rup(zh[ci] + r[ci])), deg + 2)[-1]
        coef = np.empty((nb, deg + 1, 2))
        a0 = [vi.of_ball(zb.erfc() / 2) for *_, zb in anchors]
        coef[:, 0, 0], coef[:, 0, 1] = [a for a, _ in a0], [b for _, b in a0]
        for m, a in enumerate(coef_iv, start=1):
            coef[ci, m, 0], coef[ci, m, 1] = a[0] / 2, a[1] / 2  # halving is exact
        # |a_{d+1}| over the ball times R^{d+1}, halved: products of non-negative floats
        # rounded up
        top = np.maximum(np.abs(tail_iv[0]), np.abs(tail_iv[1]))
        pw = r[ci].copy()
        for _ in range(deg):
            pw = vi.rup(pw * r[ci])
        rem_all = np.zeros(nb)
        rem_all[ci] = vi.rup(vi.rup(top * pw) * 0.5)
        for b in np.flatnonzero(~near).tolist():  # far in the tail: the coefficients in arb
            zb = anchors[b][3]
            big_r = flint.arb(float(r[b]))
            c_arb = erfc_taylor(zb, deg + 1)
            t_arb = erfc_taylor(zb + flint.arb(0, big_r), deg + 2)
            for m, a in enumerate(c_arb):
                coef[b, m, 0], coef[b, m, 1] = vi.of_ball(a / 2)
            rem_all[b] = vi.of_ball(abs(t_arb[deg + 1]) * big_r ** (deg + 1) / 2)[1]
        # Horner at every cut of every block at once
        which = np.repeat(np.arange(nb), [j - i for i, j, _, _ in anchors])
        pos = np.concatenate([np.arange(i, j) for i, j, _, _ in anchors])
        d = x[pos] - xb_f[which]
        t = vi.mul((vi.rdn(d), vi.rup(d)), (kiv[0][which], kiv[1][which]))
        p = (coef[which, deg, 0], coef[which, deg, 1])
        for m in range(deg - 1, -1, -1):
            p = vi.mul(p, t)
            p = vi.rdn(p[0] + coef[which, m, 0]), vi.rup(p[1] + coef[which, m, 1])
        rem = rem_all[which]
        lo[pos], hi[pos] = vi.rdn(p[0] - rem), vi.rup(p[1] + rem)
    return np.maximum(lo, 0.0), np.minimum(hi, 1.0), right
