"""The k-fold circular self-convolution of a non-negative float vector by floating-point FFT,
with a rigorous a-priori bound on its round-off (floats compute, the bound decides).

`power(a, k, n)` returns (c̃, E) with ‖c̃ − circ_n(a^{*k})‖₂ ≤ E (so |c̃_m − circ_n(a^{*k})_m| ≤ E
for every m, and |Σ_m w_m(c̃_m − circ_n(a^{*k})_m)| ≤ E‖w‖₂ for any weights, Cauchy–Schwarz), where
circ_n(a^{*k}) is the exact k-fold convolution of the exact float vector a (zero-padded to
n = 2^t ≥ 4) folded modulo n, c̃ = (1/n)·F̄(fl(fl(F a)^k)) in floating point, both transforms
at half length (*Real input* below).

**The FFT** is the Cooley–Tukey radix-2 decimation-in-time algorithm (in Stockham's autosort
order: the same butterflies on the same twiddles, no bit-reversal) written out here in
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

**Real input** (n = 2m). The input a and the result are real, so the transforms run at half
length. Forward: one complex FFT of length m (t − 1 stages: Theorem 24.2 with
ρ_m = (t−1)η/(1 − (t−1)η)) of z = a_even + i·a_odd gives Z = E + iO (E, O the transforms of
the even and odd entries); the split E_k = (Z_k + conj Z_{−k})/2, O_k = (Z_k − conj Z_{−k})/(2i)
is an ℝ-linear isometry (parallelogram law) computed with one rounding per real component
(relative error ≤ u per entry; halving is exact), and Y_k = E_k ± ω_n^k·O_k is the last
radix-2 stage, with Higham's per-stage bound η‖·‖ on a matrix of norm √2. As ‖Y‖₂ = √2‖Z‖₂,

    ‖Ŷ − Y‖₂ ≤ ρ_f‖Y‖₂,   ρ_f = η(1 + u)(1 + ρ_m) + u(1 + ρ_m) + ρ_m,

for the n entries the stage would compute; entries k = 0 … m are kept and the rest taken as
conjugates (Y is Hermitian), which at most doubles the squared norm of the error: √2·ρ_f for
the vector used. Inverse, for the Hermitian w (entries 0 … m): G_k = w_k + w_{k+m},
H_k = (w_k − w_{k+m})·ω̄_n^k (a radix-2 decimation-in-frequency stage, norm √2: per entry a
relative error ≤ (1 + u)(1 + μ)(1 + √2γ₂) − 1 ≤ η), V = G + iH, one inverse complex FFT of
length m, whose real and imaginary parts are the even and odd entries of F̄_n w (exactly,
since F̄_n w is real). For Hermitian w, ‖V‖₂² = ‖G‖₂² + ‖H‖₂² = 2‖w‖₂² (V is the transform
of c_even + i·c_odd with both real); the entries' errors combine as |ΔG_k| + |ΔH_k| ≤
η(|G_k| + |H_k|), whose ℓ₂ norm is at most √2η‖V‖₂, and forming V rounds once more per
component: η_i = √2η + u(1 + √2η). So ‖fl − F̄_n w‖₂ ≤ ρ_i‖F̄_n w‖₂ with
ρ_i = ρ_m(1 + η_i) + η_i (‖F̄_n w‖₂ = √m‖V‖₂). μ is the larger of the two twiddle tables'
bounds (lengths n and m).

**Together** (‖F v‖₂ = √n‖v‖₂; y = Fa, |y_j| ≤ A = Σa, B ≥ max(|y_j|, |ŷ_j|) with
B = A + ρ_f√n‖a‖₂; z = y^k, z̃ = fl(ŷ^k), c = F̄z/n, c̃ = fl(F̄z̃)/n):

    ‖c̃ − c‖₂ ≤ ‖fl(F̄z̃) − F̄z̃‖₂/n + ‖F̄(z̃ − z)‖₂/n ≤ ρ_i‖z̃‖₂/√n + ‖z̃ − z‖₂/√n,
    ‖z̃‖₂ ≤ √n·B^k(1 + β)^(k−1),
    ‖z̃ − z‖₂ ≤ ‖z̃ − ŷ^k‖₂ + ‖ŷ^k − y^k‖₂ ≤ √n((1 + β)^(k−1) − 1)B^k + kB^(k−1)·√2ρ_f√n‖a‖₂,

so the ℓ₂ norm of the error vector is at most

    E = ρ_iB^k(1 + β)^(k−1) + ((1 + β)^(k−1) − 1)B^k + √2·kB^(k−1)ρ_f‖a‖₂,

times a safety factor 2, plus √n·2^-900 for underflow (each gradual-underflow product errs by
at most 2^-1075 absolutely; far fewer than 2^170 operations are done, so each entry moves by
at most 2^-900, the vector by √n times that in ℓ₂). A, ‖a‖₂ are bounded from above by exactly
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
    """Radix-2 decimation-in-time Cooley–Tukey in Stockham's autosort order, explicit real
    arithmetic (unnormalised). Stage by stage (L = `sub`), the L-point transforms of the n/L
    decimated subsequences sit as the rows of an L × r array (r = n/L); the 2L-point ones are
    X'[k] = A[k] + ω̂_{2L}^k·B[k], X'[k + L] = A[k] − ω̂_{2L}^k·B[k] with A, B the two column
    halves (the even and odd subsequences), so no bit-reversal permutation is needed and
    each stage reads and writes long contiguous runs. Every butterfly computes p = ω̂·v as
    (v_r t_r − v_i t_i, v_r t_i + v_i t_r), each product and sum rounded once (numpy ufuncs
    into preallocated buffers: one IEEE operation per element each, no contraction), then
    u ± p: the operations Theorem 24.2 counts, on the same twiddles; the results are bit for
    bit those of the textbook in-place ordering (tests/accounting/test_fftpow.py)."""
    n = len(re)
    wr, wi, _ = _twiddles(n)
    if inverse:
        wi = -wi
    xr, xi = re.copy(), im.copy()
    yr, yi = np.empty(n), np.empty(n)
    pr, pi_, tmp = np.empty(n // 2), np.empty(n // 2), np.empty(n // 2)
    sub, r = 1, n
    while sub < n:
        h = r // 2
        step = n // (2 * sub)
        tr, ti = wr[::step][:sub, None], wi[::step][:sub, None]
        x2r, x2i = xr.reshape(sub, r), xi.reshape(sub, r)
        p2r, p2i = pr.reshape(sub, h), pi_.reshape(sub, h)
        _cmul(x2r[:, h:], x2i[:, h:], tr, ti, p2r, p2i, tmp.reshape(sub, h))
        y2r, y2i = yr.reshape(2 * sub, h), yi.reshape(2 * sub, h)
        np.add(x2r[:, :h], p2r, out=y2r[:sub])
        np.subtract(x2r[:, :h], p2r, out=y2r[sub:])
        np.add(x2i[:, :h], p2i, out=y2i[:sub])
        np.subtract(x2i[:, :h], p2i, out=y2i[sub:])
        xr, yr = yr, xr
        xi, yi = yi, xi
        sub, r = 2 * sub, h
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


def _rfft(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Y_k = (F_n a)_k for k = 0 … n/2 of a real a (n = len(a) ≥ 4 a power of two): one
    complex FFT of length m = n/2 of z = a_even + i·a_odd, split into E = F_m a_even and
    O = F_m a_odd by E_k = (Z_k + conj Z_{−k})/2, O_k = (Z_k − conj Z_{−k})/(2i), then the
    last radix-2 stage Y_k = E_k + ω_n^k·O_k, Y_m = E_0 − O_0 (module docstring, *Real
    input*). Y_0 and Y_m come out real (their imaginary parts exactly 0)."""
    n = len(a)
    m = n // 2
    zr, zi = _fft(a[0::2].copy(), a[1::2].copy(), inverse=False)
    rev = (-np.arange(m)) % m
    jr, ji = zr[rev], zi[rev]
    er = (zr + jr) * 0.5
    ei = (zi - ji) * 0.5
    orr = (zi + ji) * 0.5
    oi = (jr - zr) * 0.5
    wr, wi, _ = _twiddles(n)
    pr, pi_, tmp = np.empty(m), np.empty(m), np.empty(m)
    _cmul(orr, oi, wr, wi, pr, pi_, tmp)
    yr, yi = np.empty(m + 1), np.empty(m + 1)
    np.add(er, pr, out=yr[:m])
    np.add(ei, pi_, out=yi[:m])
    yr[m] = er[0] - orr[0]
    yi[m] = 0.0
    yi[0] = 0.0  # ei[0] = 0 and pi_[0] = orr[0]·(−0) + 0·1 = ±0 exactly: this only fixes a −0
    return yr, yi


def _irfft(wr_: np.ndarray, wi_: np.ndarray) -> np.ndarray:
    """n·(F̄_n w) for the Hermitian w of length n = 2m whose entries k = 0 … m are given
    (w_{n−k} = conj w_k; w_0, w_m real): G_k = w_k + w_{k+m}, H_k = (w_k − w_{k+m})·ω̄_n^k,
    one inverse complex FFT of length m of V = G + iH, whose real and imaginary parts are
    the even and odd entries (module docstring, *Real input*)."""
    m = len(wr_) - 1
    n = 2 * m
    rev = m - np.arange(m)  # w_{k+m} = conj w_{m−k}
    br, bi = wr_[rev], -wi_[rev]
    tr, ti = wr_[:m], wi_[:m]
    gr, gi = tr + br, ti + bi
    dr, di = tr - br, ti - bi
    cr, ci, _ = _twiddles(n)
    hr, hi, tmp = np.empty(m), np.empty(m), np.empty(m)
    _cmul(dr, di, cr, -ci, hr, hi, tmp)
    xr, xi = _fft(gr - hi, gi + hr, inverse=True)
    out = np.empty(n)
    out[0::2] = xr
    out[1::2] = xi
    return out


def round_off_bound(a: np.ndarray, k: int, n: int) -> float:
    """E of the module docstring for the float vector a ≥ 0 zero-padded to n = 2^t ≥ 4: a
    bound of the ℓ₂ norm (hence of every entry) of the power's error vector (the scalar
    formula in arb; the sums by `math.fsum`, exactly rounded, inflated)."""
    t = n.bit_length() - 1
    mu = max(_twiddles(n)[2], _twiddles(n // 2)[2])
    arb = flint.arb
    u = arb(2) ** -53

    def gamma(j: int) -> flint.arb:
        return j * u / (1 - j * u)

    eta = arb(mu) + gamma(4) * (arb(2).sqrt() + arb(mu))
    if not (t * eta).upper() < 0.5:
        return math.inf
    rho_m = (t - 1) * eta / (1 - (t - 1) * eta)  # the complex FFT of length n/2
    rho_f = eta * (1 + u) * (1 + rho_m) + u * (1 + rho_m) + rho_m  # forward, real input
    eta_i = arb(2).sqrt() * eta + u * (1 + arb(2).sqrt() * eta)  # G + iH (docstring)
    rho_i = rho_m * (1 + eta_i) + eta_i  # inverse, Hermitian input
    # A ≥ Σa and ‖a‖₂: exactly rounded sums (relative error ≤ u), squares rounded (≤ u)
    A = arb(math.fsum(a.tolist())) * (1 + 2 * u)
    l2 = (arb(math.fsum((a * a).tolist())) * (1 + 4 * u)).sqrt()
    B = A + rho_f * arb(n).sqrt() * l2
    beta = arb(2).sqrt() * gamma(2)
    growth = (1 + beta) ** (k - 1)
    e = (rho_i * B**k * growth + (growth - 1) * B**k
         + k * B ** (k - 1) * arb(2).sqrt() * rho_f * l2)
    bound = float((2 * e).upper()) * (1 + 2.0**-50) + 2.0**-900 * math.sqrt(n) * (1 + 2.0**-50)
    return bound if math.isfinite(bound) else math.inf


def power(a: np.ndarray, k: int, n: int) -> tuple[np.ndarray, float]:
    """(c̃, E): c̃ the float k-fold circular self-convolution of a (length ≤ n, n ≥ 4 a power
    of two, a ≥ 0), E a rigorous bound of its error vector's ℓ₂ norm, hence of every entry's
    error (module docstring)."""
    if n & (n - 1) or len(a) > n or n < 4:
        raise ValueError("n must be a power of two, at least 4 and at least len(a)")
    if np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ValueError("a must be finite and non-negative")
    re = np.zeros(n)
    re[:len(a)] = a
    yr, yi = _rfft(re)
    zr, zi = _cpow(yr, yi, k)
    return _irfft(zr, zi) / n, round_off_bound(a, k, n)
