"""MUST Algorithm 1 ("Fourier accountant", after Koskela et al.) exactly as printed.

Printed (Zhao & Liu, §3.3, Algorithm 1).  Input: privacy-loss pdf ω, ε > 0, k, L, r (even).

1. Δx = 2L/r;   2. s_i = −L + iΔx, i = 0, …, r−1;
3. c_i = Δx ω(s_i),  c⁻_i = Δx min_{[s_i, s_{i+1}]} ω,  c⁺_i = Δx max_{[s_i, s_{i+1}]} ω;
4. H = [[0, I_{r/2}], [I_{r/2}, 0]];
5. u = H F⁻¹(F(Hc)^{⊙k}), and u⁻, u⁺ likewise;
6. i_ε = min{i : −L + iΔx > ε};
7. δ(ε) ≈ Σ_{j=i_ε}^{r−1} (1 − e^{ε − s_j}) u_j, (δ_L, δ_U) the same sums with u⁻, u⁺.

Two evaluations of the same printed steps:

* `accountant` — numpy floats and FFTs (what one would run; used to search and in the bench);
* `accountant_exact` — mpmath at `DPS` digits with step 5 done as the exact circular k-fold
  self-convolution (F⁻¹(F(x)^{⊙k}) is the circular convolution power; H only re-centres), so
  no FFT round-off enters.  Used for the verdicts, with small r.

ω: for the plain Gaussian pair N(±1, σ²) (`gaussian_omega`) the loss is N(θ²/2, θ²), θ = 2/σ,
and the min/max over a cell are exact (unimodal density: an end point, or the mode).  For a
mixture pair (`mixture_omega`) ω(s) = p(t)/L'(t) at t = L⁻¹(s) (MUST step 14 of Algorithm 2),
with the min/max over a cell taken over the two ends and `INTERIOR` interior points — the
printed exact min/max is not computable in general, which the verdicts account for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

DPS = 40
INTERIOR = 3


@dataclass(frozen=True)
class MixturePair:
    """The per-step pair of MUST Eqns (6)–(7) (and S5, S6) as Algorithm 1 takes it:
    P = Σ w_l N(a l, σ²), Q = Σ w_l N(b l, σ²), w_l = Pr(K = l) for K the copies of the
    differing record in the sample; (a, b) = (1, −1) under substitution, (1, 0) for Poisson
    (S6). Weights exact, summing to 1; a > b, so the loss is increasing in t."""

    weights: tuple[tuple[int, Fraction], ...]
    sigma: Fraction
    a: int = 1
    b: int = -1

    def __post_init__(self) -> None:
        if not self.weights or sum(w for _, w in self.weights) != 1:
            raise ValueError("weights must be non-empty and sum to 1 exactly")
        if any(w < 0 or l < 0 for l, w in self.weights):  # noqa: E741
            raise ValueError("weights and copy counts must be non-negative")
        if self.sigma <= 0:
            raise ValueError("sigma must be positive")
        if not (self.a > self.b and {self.a, self.b} <= {-1, 0, 1}):
            raise ValueError("need a > b with a, b in {-1, 0, 1}")

    @property
    def lmax(self) -> int:
        return max(l for l, w in self.weights if w)  # noqa: E741


@dataclass(frozen=True)
class FAResult:
    """(δ_L, δ, δ_U) as printed, and whether the cell min/max were exact."""

    lower: float
    value: float
    upper: float
    exact_extrema: bool


# ---------------------------------------------------------------- ω for the pairs


def gaussian_omega(sigma: Fraction) -> Callable[[object], object]:
    """Loss pdf of N(1, σ²) vs N(−1, σ²): N(θ²/2, θ²) with θ = 2/σ (works for floats/mpf)."""
    theta = 2 / Fraction(sigma)
    mu, var = theta * theta / 2, theta * theta

    def omega(s):  # type: ignore[no-untyped-def]
        if isinstance(s, np.ndarray):
            m, v = float(mu), float(var)
            return np.exp(-(s - m) ** 2 / (2 * v)) / np.sqrt(2 * np.pi * v)
        m, v = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(var.numerator) / var.denominator
        return mpmath.exp(-(s - m) ** 2 / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v)

    omega.mode = mu  # type: ignore[attr-defined]
    return omega


def _loss_np(pair: MixturePair, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L(t), L'(t), log p(t)) in floats, by log-sum-exp."""
    s2 = float(pair.sigma) ** 2
    ls = np.array([l for l, w in pair.weights if w], dtype=float)  # noqa: E741
    lw = np.log(np.array([float(w) for _, w in pair.weights if w]))

    def mix(c: int) -> tuple[np.ndarray, np.ndarray]:
        e = lw[:, None] - (t[None, :] - c * ls[:, None]) ** 2 / (2 * s2)
        m = e.max(axis=0)
        wts = np.exp(e - m)
        tot = wts.sum(axis=0)
        grad = (wts * (-(t[None, :] - c * ls[:, None]) / s2)).sum(axis=0) / tot
        return m + np.log(tot), grad

    lp, gp = mix(pair.a)
    lq, gq = mix(pair.b)
    return lp - lq, gp - gq, lp - 0.5 * np.log(2 * np.pi * s2)


def mixture_omega(pair: MixturePair) -> Callable[[np.ndarray], np.ndarray]:
    """Float ω(s) = p(t)/L'(t), t = L⁻¹(s) by vectorised bisection; 0 off the loss range."""
    span = 40 * float(pair.sigma) + pair.lmax

    def omega(s: np.ndarray) -> np.ndarray:
        lo = np.full(s.shape, -span)
        hi = np.full(s.shape, span)
        for _ in range(80):
            mid = (lo + hi) / 2
            below = _loss_np(pair, mid)[0] < s
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        t = (lo + hi) / 2
        val, grad, logp = _loss_np(pair, t)
        out = np.exp(logp) / grad
        inside = (np.abs(val - s) < 1e-6) & (grad > 0)
        return np.where(inside, out, 0.0)

    return omega


# ---------------------------------------------------------------- Algorithm 1


def _cells_minmax(omega, s_ends, mode, sampler):  # type: ignore[no-untyped-def]
    """min/max of ω over each [s_i, s_{i+1}] (exact for unimodal ω with known mode)."""
    w = omega(s_ends)
    lo = [min(w[i], w[i + 1]) for i in range(len(s_ends) - 1)]
    hi = [max(w[i], w[i + 1]) for i in range(len(s_ends) - 1)]
    if mode is not None:
        for i in range(len(s_ends) - 1):
            if s_ends[i] < mode < s_ends[i + 1]:
                hi[i] = omega(sampler(mode))
        return lo, hi
    for f in range(1, INTERIOR + 1):
        pts = [s_ends[i] + (s_ends[i + 1] - s_ends[i]) * f / (INTERIOR + 1)
               for i in range(len(s_ends) - 1)]
        wi = omega(sampler(pts))
        lo = [min(a, b) for a, b in zip(lo, wi, strict=True)]
        hi = [max(a, b) for a, b in zip(hi, wi, strict=True)]
    return lo, hi


def accountant(omega, eps: float, k: int, big_l: float, r: int,  # type: ignore[no-untyped-def]
               mode: float | None = None, sign: int = 1, grid_factor: int = 2) -> FAResult:
    """Algorithm 1 in numpy floats (FFT as printed).  ``sign``/``grid_factor`` exist for
    mutation tests only: step 7's e^{sign·(ε − s_j)} and step 1's Δx = grid_factor·L/r."""
    if r % 2:
        raise ValueError("r must be even")
    dx = grid_factor * big_l / r
    s = -big_l + np.arange(r + 1) * dx
    lo, hi = _cells_minmax(omega, s, mode, lambda p: np.asarray(p, dtype=float))
    c = dx * omega(s[:-1])
    cm, cp = dx * np.asarray(lo), dx * np.asarray(hi)

    def hswap(v: np.ndarray) -> np.ndarray:
        return np.concatenate([v[r // 2:], v[: r // 2]])

    def comp(v: np.ndarray) -> np.ndarray:
        return hswap(np.real(np.fft.ifft(np.fft.fft(hswap(v)) ** k)))

    i_eps = int(np.argmax(s[:-1] > eps)) if (s[:-1] > eps).any() else r
    g = 1 - np.exp(sign * (eps - s[:-1]))
    vals = [float((g[i_eps:] * comp(v)[i_eps:]).sum()) for v in (cm, c, cp)]
    return FAResult(vals[0], vals[1], vals[2], mode is not None)


def _circ_power(v: list, k: int) -> list:  # type: ignore[type-arg]
    """Exact circular k-fold self-convolution (= F⁻¹(F(v)^{⊙k}) in exact arithmetic)."""
    r = len(v)

    def cconv(x: list, y: list) -> list:  # type: ignore[type-arg]
        out = [mpmath.mpf(0)] * r
        for i, xi in enumerate(x):
            if xi:
                for j, yj in enumerate(y):
                    out[(i + j) % r] += xi * yj
        return out

    acc = None
    base = v
    while True:
        if k & 1:
            acc = base if acc is None else cconv(acc, base)
        k >>= 1
        if not k:
            return acc  # type: ignore[return-value]
        base = cconv(base, base)


def accountant_exact(omega, eps: Fraction, k: int, big_l: Fraction, r: int,  # type: ignore[no-untyped-def]
                     mode: Fraction | None = None, sign: int = 1,
                     grid_factor: int = 2) -> FAResult:
    """Algorithm 1 at DPS digits, step 5 as exact circular convolution (no FFT round-off);
    ``sign``/``grid_factor`` as in `accountant` (mutants)."""
    if r % 2:
        raise ValueError("r must be even")
    with mpmath.workdps(DPS):
        dx = mpmath.mpf(grid_factor * big_l.numerator) / (big_l.denominator * r)
        s = [-mpmath.mpf(big_l.numerator) / big_l.denominator + i * dx for i in range(r + 1)]
        w_ends = [omega(x) for x in s]

        def om(p):  # type: ignore[no-untyped-def]
            return [omega(x) for x in p] if isinstance(p, list) else omega(p)

        m = None if mode is None else mpmath.mpf(mode.numerator) / mode.denominator
        lo, hi = _cells_minmax(om, s, m, lambda p: p)
        c = [dx * w for w in w_ends[:-1]]
        vecs = [[dx * x for x in lo], c, [dx * x for x in hi]]
        half = r // 2

        def hswap(v: list) -> list:  # type: ignore[type-arg]
            return v[half:] + v[:half]

        e = mpmath.mpf(eps.numerator) / eps.denominator
        i_eps = next((i for i in range(r) if s[i] > e), r)
        vals = []
        for v in vecs:
            u = hswap(_circ_power(hswap(v), k))
            vals.append(float(mpmath.fsum((1 - mpmath.exp(sign * (e - s[j]))) * u[j]
                                          for j in range(i_eps, r))))
    return FAResult(vals[0], vals[1], vals[2], mode is not None)
