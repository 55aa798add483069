"""The k-fold circular self-convolution of a non-negative float vector by floating-point FFT,
with a rigorous a-priori bound on its round-off (floats compute, the bound decides).

`power(a, k, n)` returns (c̃, E) with ‖c̃ − circ_N(a^{*k})‖₂ ≤ E (so |c̃_m − circ_N(a^{*k})_m| ≤ E
for every m, and |Σ_m w_m(c̃_m − circ_N(a^{*k})_m)| ≤ E‖w‖₂ for any weights, Cauchy–Schwarz), where
circ_N(a^{*k}) is the exact k-fold convolution of the exact float vector a (zero-padded to
N = 2^t) folded modulo N, c̃ = (1/N)·F̄(fl(fl(F a)^k)) in floating point.

**The FFT** is the Cooley–Tukey radix-2 decimation-in-time algorithm written out here in
explicit real arithmetic (so no fused multiply–add and no other algorithm of a library):
every butterfly is u ± ω̂·v with the standard complex product. Higham, *Accuracy and Stability
of Numerical Algorithms*, 2nd ed., SIAM 2002, Theorem 24.2: if the computed weights satisfy
|ω̂ − ω| ≤ μ, then ‖fl(Fx) − Fx‖₂ ≤ ρ‖Fx‖₂ with ρ = tη/(1 − tη), η = μ + γ₄(√2 + μ),
γ_j = ju/(1 − ju), u = 2^-53. The weights are products of two table entries whose errors are
certified in arb (μ₀ each): |ω̂ − ω| ≤ 2μ₀ + μ₀² + √2γ₂(1 + μ₀)² (Higham Lemma 3.5 for the
product). The inverse uses the conjugate weights (exact) and the exact scaling by 2^-t.

**The power** z_j = ŷ_j^k by binary powering with the same complex product: each product has
relative error ≤ β = √2γ₂, so |fl(ŷ^k) − ŷ^k| ≤ ((1 + β)^(k−1) − 1)|ŷ|^k (each factor's error
is raised to at most the multiplicity of its operand, k − 1 in all).

**Together** (‖F v‖₂ = √N‖v‖₂; y = Fa, |y_j| ≤ A = Σa, B ≥ max(|y_j|, |ŷ_j|) with
B = A + ρ√N‖a‖₂; z = y^k, z̃ = fl(ŷ^k), c = F̄z/N, c̃ = fl(F̄z̃)/N):

    ‖c̃ − c‖₂ ≤ ‖fl(F̄z̃) − F̄z̃‖₂/N + ‖F̄(z̃ − z)‖₂/N ≤ ρ‖z̃‖₂/√N + ‖z̃ − z‖₂/√N,
    ‖z̃‖₂ ≤ √N·B^k(1 + β)^(k−1),
    ‖z̃ − z‖₂ ≤ ‖z̃ − ŷ^k‖₂ + ‖ŷ^k − y^k‖₂ ≤ √N((1 + β)^(k−1) − 1)B^k + kB^(k−1)·ρ√N‖a‖₂,

so the ℓ₂ norm of the error vector is at most

    E = ρB^k(1 + β)^(k−1) + ((1 + β)^(k−1) − 1)B^k + kB^(k−1)ρ‖a‖₂,

times a safety factor 2, plus √N·2^-900 for underflow (each gradual-underflow product errs by
at most 2^-1075 absolutely; far fewer than 2^170 operations are done, so each entry moves by
at most 2^-900, the vector by √N times that in ℓ₂). A, ‖a‖₂ are bounded from above by exactly
rounded sums (`math.fsum`) times (1 + 2^-40). An ℓ₂ bound is what a sum of many entries
needs: Σ_{m∈S} w_m e_m is at most E·‖w_S‖₂, not E·Σ|w_m| (`composition._fft_tails`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import flint
import numpy as np

__all__ = ["power", "round_off_bound"]

_U = 2.0**-53


def _gamma(j: int) -> float:
    """γ_j, rounded up generously (only the twiddle bound uses it in floats)."""
    return j * _U / (1 - j * _U) * (1 + 2.0**-40)


@lru_cache(maxsize=16)
def _twiddles(n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """ω^j = e^{−2πij/n}, j < n/2, as (cos, −sin) arrays and a certified bound μ of
    |ω̂ − ω|: products of two tables certified in arb."""
    half = n // 2
    b = 1
    while b * b < half:
        b *= 2
    lo_j = np.arange(b)
    hi_j = np.arange(0, half, b)

    def table(js: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        re = np.cos(2 * np.pi * js / n)
        im = -np.sin(2 * np.pi * js / n)
        mu0 = 0.0
        pi = flint.arb.pi()
        for j, r, i in zip(js.tolist(), re.tolist(), im.tolist(), strict=True):
            ang = 2 * pi * j / n
            err = ((flint.arb(r) - ang.cos()) ** 2 + (flint.arb(i) + ang.sin()) ** 2).sqrt()
            mu0 = max(mu0, float(err.upper()) * (1 + 2.0**-40))
        return re, im, mu0

    r1, i1, m1 = table(lo_j)
    r2, i2, m2 = table(hi_j)
    mu0 = max(m1, m2)
    # ω^{hb + l} = ω^{hb}·ω^l, the standard complex product in explicit real arithmetic
    ar, ai = np.repeat(r2, b)[:half], np.repeat(i2, b)[:half]
    br, bi = np.tile(r1, len(hi_j))[:half], np.tile(i1, len(hi_j))[:half]
    re = ar * br - ai * bi
    im = ar * bi + ai * br
    mu = 2 * mu0 + mu0 * mu0 + math.sqrt(2) * _gamma(2) * (1 + mu0) ** 2
    return re, im, mu * (1 + 2.0**-40)


@lru_cache(maxsize=16)
def _bitrev(n: int) -> np.ndarray:
    t = n.bit_length() - 1
    idx = np.arange(n)
    rev = np.zeros(n, dtype=np.int64)
    for _ in range(t):
        rev = (rev << 1) | (idx & 1)
        idx >>= 1
    return rev


def _cmul(ar: np.ndarray, ai: np.ndarray, br: np.ndarray, bi: np.ndarray,
          out_r: np.ndarray, out_i: np.ndarray, tmp: np.ndarray) -> None:
    """The standard complex product (ar·br − ai·bi, ar·bi + ai·br) into out_r, out_i (which
    must not alias the operands), each real product and sum rounded once: the operations
    Theorem 24.2 counts."""
    np.multiply(ar, br, out=out_r)
    np.multiply(ai, bi, out=tmp)
    np.subtract(out_r, tmp, out=out_r)
    np.multiply(ar, bi, out=out_i)
    np.multiply(ai, br, out=tmp)
    np.add(out_i, tmp, out=out_i)


def _fft(re: np.ndarray, im: np.ndarray, inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """Radix-2 decimation-in-time Cooley–Tukey, explicit real arithmetic (unnormalised).
    Every butterfly computes p = ω̂·v as (v_r t_r − v_i t_i, v_r t_i + v_i t_r), each product
    and sum rounded once (numpy ufuncs into preallocated buffers: one IEEE operation per
    element each, no contraction), then u ± p: the operations Theorem 24.2 counts."""
    n = len(re)
    wr, wi, _ = _twiddles(n)
    if inverse:
        wi = -wi
    p = _bitrev(n)
    xr, xi = re[p], im[p]
    yr, yi = np.empty(n), np.empty(n)
    pr, pi_, tmp = np.empty(n // 2), np.empty(n // 2), np.empty(n // 2)
    m = 2
    while m <= n:
        half, rows = m // 2, n // m
        step = n // m
        tr, ti = wr[::step][:half], wi[::step][:half]
        xr2, xi2 = xr.reshape(rows, m), xi.reshape(rows, m)
        ur, ui = xr2[:, :half], xi2[:, :half]
        vr, vi = xr2[:, half:], xi2[:, half:]
        pr2, pi2 = pr.reshape(rows, half), pi_.reshape(rows, half)
        _cmul(vr, vi, tr, ti, pr2, pi2, tmp.reshape(rows, half))
        yr2, yi2 = yr.reshape(rows, m), yi.reshape(rows, m)
        np.add(ur, pr2, out=yr2[:, :half])
        np.subtract(ur, pr2, out=yr2[:, half:])
        np.add(ui, pi2, out=yi2[:, :half])
        np.subtract(ui, pi2, out=yi2[:, half:])
        xr, yr = yr, xr
        xi, yi = yi, xi
        m *= 2
    return xr, xi


def _cpow(re: np.ndarray, im: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """z^k by binary powering, the standard complex product (each real product and sum
    rounded once, into preallocated buffers)."""
    n = len(re)
    rr: np.ndarray | None = None
    ri = np.empty(n)
    br, bi = re.copy(), im.copy()
    t1, t2, t3 = np.empty(n), np.empty(n), np.empty(n)
    while True:
        if k & 1:
            if rr is None:
                rr, ri = br.copy(), bi.copy()
            else:
                _cmul(rr, ri, br, bi, t1, t3, t2)
                rr, t1 = t1, rr
                ri, t3 = t3, ri
        k >>= 1
        if not k:
            break
        # (br² − bi², 2·(br·bi)): 2·x is exact, the standard product of z·z
        np.multiply(br, bi, out=t2)
        np.multiply(t2, 2.0, out=t2)
        np.multiply(br, br, out=t1)
        np.multiply(bi, bi, out=bi)
        np.subtract(t1, bi, out=br)
        bi, t2 = t2, bi
    assert rr is not None
    return rr, ri


def round_off_bound(a: np.ndarray, k: int, n: int) -> float:
    """E of the module docstring for the float vector a ≥ 0 zero-padded to n = 2^t: a bound
    of the ℓ₂ norm (hence of every entry) of the power's error vector (the scalar formula in
    arb; the sums by `math.fsum`, exactly rounded, inflated)."""
    t = n.bit_length() - 1
    _, _, mu = _twiddles(n)
    arb = flint.arb
    u = arb(2) ** -53

    def gamma(j: int) -> flint.arb:
        return j * u / (1 - j * u)

    eta = arb(mu) + gamma(4) * (arb(2).sqrt() + arb(mu))
    if not (t * eta).upper() < 0.5:
        return math.inf
    rho = t * eta / (1 - t * eta)
    # A ≥ Σa and ‖a‖₂: exactly rounded sums (relative error ≤ u), squares rounded (≤ u)
    A = arb(math.fsum(a.tolist())) * (1 + 2 * u)
    l2 = (arb(math.fsum((a * a).tolist())) * (1 + 4 * u)).sqrt()
    B = A + rho * arb(n).sqrt() * l2
    beta = arb(2).sqrt() * gamma(2)
    growth = (1 + beta) ** (k - 1)
    e = rho * B**k * growth + (growth - 1) * B**k + k * B ** (k - 1) * rho * l2
    bound = float((2 * e).upper()) * (1 + 2.0**-50) + 2.0**-900 * math.sqrt(n) * (1 + 2.0**-50)
    return bound if math.isfinite(bound) else math.inf


def power(a: np.ndarray, k: int, n: int) -> tuple[np.ndarray, float]:
    """(c̃, E): c̃ the float k-fold circular self-convolution of a (length ≤ n, n a power of
    two, a ≥ 0), E a rigorous bound of its error vector's ℓ₂ norm, hence of every entry's
    error (module docstring)."""
    if n & (n - 1) or len(a) > n or n < 2:
        raise ValueError("n must be a power of two at least len(a)")
    if np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ValueError("a must be finite and non-negative")
    re = np.zeros(n)
    re[:len(a)] = a
    yr, yi = _fft(re, np.zeros(n), inverse=False)
    zr, zi = _cpow(yr, yi, k)
    cr, _ = _fft(zr, zi, inverse=True)
    return cr / n, round_off_bound(a, k, n)
