"""Test oracle: brute-force hockey-stick divergence of T releases, per-release pairs given.

The deployment audit (`verifydp audit`, issue 16) certifies δ(ε) of T releases by composing a
per-step dominating pair (proofs/deployment_pairs.md). This oracle checks it from the other
side: for a *sequence* of concrete per-release output laws (A_1, B_1), …, (A_T, B_T) — each a
finite mixture Σ_i w_i K(x − c_i) of a noise kernel K, or a finite pmf — it brackets

    H_{e^ε}(A_1 ⊗ … ⊗ A_T ‖ B_1 ⊗ … ⊗ B_T) = Σ over output tuples (Π a − e^ε Π b)_+

from both sides, with no accounting code of the package (it imports nothing from
`verifydp.accounting` or `verifydp.audit`: independence is the point). T ≤ 3 is the target;
nothing here depends on it beyond the cost.

**Continuous kernels** (Gaussian σ, Laplace b). The line is cut into cells; per cell the exact
masses a_j, b_j of both mixtures (cdf differences in log space: `scipy.special.log_ndtr`, the
Laplace cdf in closed form) and an enclosure [inf_j, sup_j] of the privacy loss
L = log(dA/dB) on the cell. The enclosure is proved, not sampled: L′ = (m_A − m_B)/s² where m
is the posterior mean of the centre given x (Gaussian, s = σ) or b·(posterior mean of
−sign(x − c)) (Laplace, s = b, cells cut at every centre), and both posterior quantities are
non-decreasing in x on a cell, so L′ lies in [(m_A(u) − m_B(v))/s², (m_A(v) − m_B(u))/s²];
with the loss at the two ends this bounds L on [u, v] (piecewise-linear envelopes). Laplace
tails beyond the outermost centres have a constant loss (one exact cell each side); Gaussian
tails beyond `reach` standard deviations are mass the upper end counts as loss +∞.

Write ℓ_j = log(a_j / b_j), the loss of the *discretised* pair (a post-processing of (A, B)).

* lower end: Σ over cell tuples with Σℓ ≥ ε of (Π a − e^ε Π b) — every term is positive, so
  it is at most the discretised pair's divergence, which is at most H (data processing);
* upper end: a cell tuple contributes ∫_box (Π f_A − e^ε Π f_B)_+, which equals
  Π a − e^ε Π b when inf_box ΣL ≥ ε, is at most Π a · (1 − e^{ε − sup_box ΣL})_+ otherwise, and
  vanishes when sup_box ΣL ≤ ε. With up_t = max_j (sup_j − ℓ_j) and down_t = max_j (ℓ_j − inf_j)
  per release, inf_box ΣL ≥ Σℓ − Σdown and sup_box ΣL ≤ Σℓ + Σup decide the case.

So the gap between the ends comes only from tuples whose loss lies within Σ(up + down) of ε
(second order in the cell width), not from every cell.

**Discrete kernels** (the discrete Gaussian N_ℤ(0, σ²), randomized response): atoms instead of
cells, exact losses (up = down = 0); the discrete Gaussian's atoms beyond `reach` σ are tail
mass (counted +∞ by the upper end).

**Composition.** The first T − 1 releases are combined exactly (every tuple of cells) when
that is small, else on a loss lattice of step `lattice`, each release's ℓ rounded to the
nearest lattice point (so the sum is known within (T − 1)·lattice/2, which both ends absorb
into their thresholds) and convolved by FFT; the last release enters exactly through sorted
suffix sums of its masses. Cells of exact loss (atoms, Laplace tails) form a class of their
own in each release, and the classes' tuples are bracketed separately (the divergence is a
sum over tuples): an atom sitting exactly at ε then costs no band. Floating-point error is
covered by `MARGIN` (and, with an FFT, a generous bound of its rounding), subtracted from
the lower end and added to the upper end; masses too small to matter (below 1e-150, whose
products would be slow subnormal floats) are flushed and accounted for the same way.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import log_ndtr, logsumexp

Comps = Sequence[tuple[float, float]]  # (weight, centre)

__all__ = ["MARGIN", "Comps", "Release", "compose", "continuous_release", "dgauss_release",
           "discrete_release", "estimate", "hockey_stick", "rr_release"]

MARGIN = 1e-10            # float error allowance on every bracket end (stated, generous)
_ENVELOPE_SLACK = 1e-9    # added to every proved loss enclosure (float evaluation of L)
_EXACT_PARTIAL = 50_000  # largest number of exactly enumerated tuples of T − 1 releases
_NEGLIGIBLE = 1e-22       # lattice bins with both masses below this are dropped (counted)
_EXACT_CELL = 1e-8        # a cell whose loss enclosure is this tight counts as exact
_TINY = 1e-150            # masses below this are flushed (A's to the tail, B's to 0): their
                          # products would be subnormal floats, hundreds of times slower


@dataclass(frozen=True)
class Release:
    """One release's pair, discretised: per cell (or atom) the loss ℓ = log(a/b), the masses
    a (under A) and b (under B), how far the loss rises above ℓ on the cell (`up`) and falls
    below it (`down`), both 0 for atoms; and `tail`, A's mass outside every cell (loss +∞ for
    the upper end, dropped by the lower end)."""

    loss: np.ndarray
    a: np.ndarray
    b: np.ndarray
    up: np.ndarray | None = None
    down: np.ndarray | None = None
    tail: float = 0.0

    @staticmethod
    def of(loss: np.ndarray, a: np.ndarray, b: np.ndarray, up: np.ndarray | None = None,
           down: np.ndarray | None = None, tail: float = 0.0) -> Release:
        """A release with the masses below `_TINY` flushed: A's go to the tail (loss +∞
        for the upper end, dropped by the lower end), B's to 0 (the lower end rises by at
        most e^ε times their sum, far below `MARGIN`)."""
        small = a < _TINY
        keep = ~small
        b = np.where(b < _TINY, 0.0, b)
        return Release(loss[keep], a[keep], b[keep], None if up is None else up[keep],
                       None if down is None else down[keep], tail + float(a[small].sum()))

    def classes(self) -> list[tuple[Release, float, float]]:
        """The cells split into those with an exact loss (atoms, Laplace tails: up = down =
        0) and the rest, each with its largest up and down: a tuple of exact cells needs no
        band around ε, so atoms sitting exactly at ε cost nothing (module docstring)."""
        if self.up is None or self.down is None:
            return [(self, 0.0, 0.0)]
        exact = (self.up <= _EXACT_CELL) & (self.down <= _EXACT_CELL)
        out = []
        for sel in (exact, ~exact):
            if sel.any():
                out.append((Release(self.loss[sel], self.a[sel], self.b[sel]),
                            float(self.up[sel].max()), float(self.down[sel].max())))
        return out


# ---------------------------------------------------------------- continuous kernels


def _dot(x: np.ndarray, y: np.ndarray) -> float:
    """Σ x·y without BLAS (whose threads stall on a busy machine: 100× slower here)."""
    return float(np.einsum("i,i->", x, y))


def _arrays(comps: Comps) -> tuple[np.ndarray, np.ndarray]:
    w = np.array([float(x) for x, _ in comps if x > 0])
    c = np.array([float(y) for x, y in comps if x > 0])
    if not len(w) or not math.isclose(w.sum(), 1.0, rel_tol=1e-9):
        raise ValueError(f"weights must be positive and sum to 1, got {w.sum() if len(w) else 0}")
    return np.log(w), c


def _log_gauss_mass(u: np.ndarray, v: np.ndarray, c: np.ndarray, sigma: float) -> np.ndarray:
    """log Pr(u ≤ c + σZ ≤ v), shape (components, cells), without cancellation: upper tails
    right of the centre, lower tails left of it."""
    zu = (u[None, :] - c[:, None]) / sigma
    zv = (v[None, :] - c[:, None]) / sigma
    right = zu >= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        hi_r, lo_r = log_ndtr(-zu), log_ndtr(-zv)   # right: sf(u) − sf(v)
        hi_l, lo_l = log_ndtr(zv), log_ndtr(zu)     # left: cdf(v) − cdf(u)
        top = np.where(right, hi_r, hi_l)
        low = np.where(right, lo_r, lo_l)
        return top + np.log1p(-np.exp(low - top))


def _log_density(logw: np.ndarray, c: np.ndarray, x: np.ndarray, kernel: str,
                 scale: float) -> tuple[np.ndarray, np.ndarray]:
    """log f(x) up to the kernel's constant, and the posterior weights of the components."""
    d = x[None, :] - c[:, None]
    t = logw[:, None] + (-(d / scale) ** 2 / 2 if kernel == "gauss" else -np.abs(d) / scale)
    top = logsumexp(t, axis=0)
    return top, np.exp(t - top[None, :])


def _envelope(lu: np.ndarray, lv: np.ndarray, k1: np.ndarray, k2: np.ndarray,
              h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of a function on [u, v] (length h) with end values lu, lv and slope in
    [k1, k2]: sup of min(lu + k2·t, lv − k1·(h − t)) and inf of max(lu + k1·t, lv − k2·(h − t))
    over t ∈ [0, h] (piecewise linear: the extremes are at 0, h or the crossing)."""
    span = np.maximum(k2 - k1, 1e-300)
    sups, infs = [], []
    for t in (np.zeros_like(h), h, np.clip((lv - k1 * h - lu) / span, 0, h)):
        sups.append(np.minimum(lu + k2 * t, lv - k1 * (h - t)))
    for t in (np.zeros_like(h), h, np.clip((lu - lv + k2 * h) / span, 0, h)):
        infs.append(np.maximum(lu + k1 * t, lv - k2 * (h - t)))
    return np.max(sups, axis=0), np.min(infs, axis=0)


def continuous_release(p: Comps, q: Comps, kernel: str, scale: float, width: float = 2e-3,
                       reach: float = 10.0) -> Release:
    """The pair (Σ p_i K(x − c_i), Σ q_j K(x − d_j)), K Gaussian ("gauss", σ = scale) or
    Laplace ("laplace", b = scale), cut into cells on which the loss varies by at most about
    `width` (module docstring). Gaussian cells cover the centres ± `reach` σ."""
    if kernel not in ("gauss", "laplace"):
        raise ValueError(f"unknown continuous kernel {kernel!r}")
    lwa, ca = _arrays(p)
    lwb, cb = _arrays(q)
    both = np.concatenate([ca, cb])
    lo_c, hi_c = float(both.min()), float(both.max())
    # a global bound of |L'|: posterior means (Gaussian) stay within the centres' range,
    # posterior mean signs (Laplace) within [−1, 1]
    if kernel == "gauss":
        slope = max(abs(ca.max() - cb.min()), abs(ca.min() - cb.max())) / scale**2
    else:
        slope = 2.0 / scale
    if kernel == "gauss":
        left, right = lo_c - reach * scale, hi_c + reach * scale
        n = int(min(max(math.ceil((right - left) * slope / width), 200), 2_000_000))
        edges = np.linspace(left, right, n + 1)
    else:
        cuts = np.unique(both)
        pieces = [cuts[:1]]
        for u, v in zip(cuts[:-1], cuts[1:], strict=True):
            k = max(1, math.ceil((v - u) * slope / width))
            pieces.append(np.linspace(u, v, k + 1)[1:])
        edges = np.concatenate(pieces)
    u, v = edges[:-1], edges[1:]
    h = v - u

    def masses(lw: np.ndarray, c: np.ndarray) -> np.ndarray:
        if kernel == "gauss":
            lm = _log_gauss_mass(u, v, c, scale)
        else:  # cells never straddle a centre: one exponential piece each
            gap = np.log(-np.expm1(-h / scale))[None, :]
            dist = np.where(v[None, :] <= c[:, None], (v[None, :] - c[:, None]) / scale,
                            -(u[None, :] - c[:, None]) / scale)
            lm = math.log(0.5) + dist + gap
        return logsumexp(lw[:, None] + lm, axis=0)

    la, lb = masses(lwa, ca), masses(lwb, cb)
    fa_u, wa_u = _log_density(lwa, ca, u, kernel, scale)
    fa_v, wa_v = _log_density(lwa, ca, v, kernel, scale)
    fb_u, wb_u = _log_density(lwb, cb, u, kernel, scale)
    fb_v, wb_v = _log_density(lwb, cb, v, kernel, scale)
    lu, lv = fa_u - fb_u, fa_v - fb_v
    if kernel == "gauss":  # m = posterior mean of the centre, non-decreasing in x
        ma_u, ma_v = np.einsum("i,ij->j", ca, wa_u), np.einsum("i,ij->j", ca, wa_v)
        mb_u, mb_v = np.einsum("i,ij->j", cb, wb_u), np.einsum("i,ij->j", cb, wb_v)
    else:  # m = −b·E[sign(x − c) | x], the sign fixed on a cell, non-decreasing in x
        sa = np.where(ca[:, None] <= u[None, :], 1.0, -1.0)
        sb = np.where(cb[:, None] <= u[None, :], 1.0, -1.0)
        ma_u, ma_v = -scale * (sa * wa_u).sum(0), -scale * (sa * wa_v).sum(0)
        mb_u, mb_v = -scale * (sb * wb_u).sum(0), -scale * (sb * wb_v).sum(0)
    k1 = (ma_u - mb_v) / scale**2
    k2 = (ma_v - mb_u) / scale**2
    sup, inf = _envelope(lu, lv, np.minimum(k1, k2), np.maximum(k1, k2), h)
    loss = la - lb
    slack = _ENVELOPE_SLACK * (1 + np.abs(loss))
    if np.any(loss > sup + 1e-6 * (1 + np.abs(loss))) or np.any(loss < inf - 1e-6 * (1 + np.abs(loss))):
        raise ArithmeticError("a cell's mass ratio lies outside its proved loss enclosure")
    ups, downs = [np.maximum(sup - loss, 0) + slack], [np.maximum(loss - inf, 0) + slack]
    tail = 0.0
    cells_a, cells_b = [loss], [np.exp(la)]
    cells_bb = [np.exp(lb)]
    if kernel == "laplace":  # the two tails: constant loss, exact masses
        for side in (-1, 1):
            x0 = lo_c if side < 0 else hi_c
            ta = logsumexp(lwa + math.log(0.5) - np.abs(x0 - ca) / scale)
            tb = logsumexp(lwb + math.log(0.5) - np.abs(x0 - cb) / scale)
            cells_a.append(np.array([ta - tb]))
            cells_b.append(np.array([math.exp(ta)]))
            cells_bb.append(np.array([math.exp(tb)]))
            ups.append(np.zeros(1))
            downs.append(np.zeros(1))
    else:  # Gaussian mass of A beyond the cells: each component's two tails
        tail = _dot(np.exp(lwa), np.exp(log_ndtr((left - ca) / scale))
                    + np.exp(log_ndtr((ca - right) / scale)))
    return Release.of(np.concatenate(cells_a), np.concatenate(cells_b),
                      np.concatenate(cells_bb), np.concatenate(ups), np.concatenate(downs), tail)


# ---------------------------------------------------------------- discrete kernels


def discrete_release(a: Sequence[float], b: Sequence[float], tail: float = 0.0) -> Release:
    """Two pmfs on one finite list of atoms (exact losses). Atoms where only A has mass go to
    the tail (loss +∞); atoms where only B has mass never count."""
    pa, pb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = (pa > 0) & (pb > 0)
    inf_mass = float(pa[(pa > 0) & (pb <= 0)].sum())
    return Release.of(np.log(pa[both]) - np.log(pb[both]), pa[both], pb[both],
                      tail=tail + inf_mass)


def rr_release(p_a: float, p_b: float, eps0: float) -> Release:
    """Randomized response (keep the bit w.p. e^ε0/(1 + e^ε0)) of a bit that is 1 w.p. p_a
    under A and p_b under B."""
    keep = 1 / (1 + math.exp(-eps0))
    one_a = p_a * keep + (1 - p_a) * (1 - keep)
    one_b = p_b * keep + (1 - p_b) * (1 - keep)
    return discrete_release([one_a, 1 - one_a], [one_b, 1 - one_b])


def _dgauss_log_pmf(sigma: float, reach: int) -> tuple[np.ndarray, np.ndarray, float]:
    """log N_ℤ(0, σ²) on [−reach, reach] and the mass beyond (normalised far wider)."""
    wide = reach + int(40 * sigma) + 40
    k = np.arange(-wide, wide + 1)
    t = -(k.astype(float) ** 2) / (2 * sigma**2)
    logz = logsumexp(t)
    keep = np.abs(k) <= reach
    return k[keep], t[keep] - logz, float(np.exp(logsumexp(t[~keep]) - logz))


def dgauss_release(p: Comps, q: Comps, sigma: float, reach: float = 14.0) -> Release:
    """Σ p_i N_ℤ(c_i, σ²) against Σ q_j N_ℤ(d_j, σ²), integer centres; each kernel kept
    within `reach` σ (the rest is A's tail)."""
    lwa, ca = _arrays(p)
    lwb, cb = _arrays(q)
    if np.any(ca != np.round(ca)) or np.any(cb != np.round(cb)):
        raise ValueError("discrete Gaussian centres must be integers")
    r = int(math.ceil(reach * sigma)) + 1
    k, lk, beyond = _dgauss_log_pmf(sigma, r)
    both = np.concatenate([ca, cb])
    xs = np.arange(int(both.min()) - r, int(both.max()) + r + 1)

    def logpmf(lw: np.ndarray, c: np.ndarray) -> np.ndarray:
        rows = np.full((len(c), len(xs)), -np.inf)
        for i, ci in enumerate(c):
            idx = (k + int(ci)) - xs[0]
            rows[i, idx] = lw[i] + lk
        return logsumexp(rows, axis=0)

    la, lb = logpmf(lwa, ca), logpmf(lwb, cb)
    ok = np.isfinite(la) & np.isfinite(lb)
    only_a = np.isfinite(la) & ~np.isfinite(lb)
    return Release.of(la[ok] - lb[ok], np.exp(la[ok]), np.exp(lb[ok]),
                      tail=beyond + float(np.exp(la[only_a]).sum()))


# ---------------------------------------------------------------- composition


@dataclass(frozen=True)
class _Partial:
    """The first T − 1 releases: total loss s (known within ±err), masses under ⊗A and ⊗B;
    `lost_a` and `lost_b` bound the masses dropped or flushed (they move the upper end and
    the lower end respectively: by lost_a, and by e^ε·lost_b), `fft` the FFT's rounding
    (per unit of mass)."""

    s: np.ndarray
    ha: np.ndarray
    hb: np.ndarray
    err: float = 0.0
    lost_a: float = 0.0
    lost_b: float = 0.0
    fft: float = 0.0


def _partial(rels: Sequence[Release], lattice: float) -> _Partial:
    if not rels:
        return _Partial(np.zeros(1), np.ones(1), np.ones(1))
    if math.prod(len(r.loss) for r in rels) <= _EXACT_PARTIAL:
        s, ha, hb = np.zeros(1), np.ones(1), np.ones(1)
        for r in rels:
            s = (s[:, None] + r.loss[None, :]).ravel()
            ha = (ha[:, None] * r.a[None, :]).ravel()
            hb = (hb[:, None] * r.b[None, :]).ravel()
        small_a, small_b = ha < _TINY, hb < _TINY
        return _Partial(s, np.where(small_a, 0.0, ha), np.where(small_b, 0.0, hb),
                        lost_a=float(ha[small_a].sum()), lost_b=float(hb[small_b].sum()))
    lo_idx, ha, hb = 0, np.ones(1), np.ones(1)
    bins = 1
    for r in rels:
        idx = np.rint(r.loss / lattice).astype(np.int64)
        base = int(idx.min())
        ra = np.bincount(idx - base, weights=r.a)
        rb = np.bincount(idx - base, weights=r.b)
        ha, hb = fftconvolve(ha, ra), fftconvolve(hb, rb)
        lo_idx += base
        bins = len(ha)
    # FFT rounding: far below this for unit-mass vectors (a stated, generous allowance)
    fft_err = 64 * np.finfo(float).eps * bins * math.log2(bins + 2)
    ha, hb = np.maximum(ha, 0), np.maximum(hb, 0)
    drop_a = (ha < _TINY) | ((ha <= _NEGLIGIBLE) & (hb <= _NEGLIGIBLE))
    drop_b = (hb < _TINY) | ((ha <= _NEGLIGIBLE) & (hb <= _NEGLIGIBLE))
    lost_a, lost_b = float(ha[drop_a].sum()), float(hb[drop_b].sum())
    ha, hb = np.where(drop_a, 0.0, ha), np.where(drop_b, 0.0, hb)
    keep = (ha > 0) | (hb > 0)
    s = (lo_idx + np.arange(len(ha)))[keep] * lattice
    return _Partial(s, ha[keep], hb[keep], len(rels) * lattice / 2, lost_a, lost_b, fft_err)


def compose(releases: Sequence[Release], eps: Sequence[float],
            lattice: float = 1e-3) -> np.ndarray:
    """[lo, hi] of H_{e^ε}(⊗A_t ‖ ⊗B_t) for each ε: an array of shape (len(eps), 2).
    The cell tuples are split by class (`Release.classes`); the divergence is a sum over
    tuples, so the classes' brackets add up."""
    if not releases:
        raise ValueError("no releases")
    tail = 1 - math.prod(1 - r.tail for r in releases)
    out = np.zeros((len(eps), 2))
    for combo in itertools.product(*(r.classes() for r in releases)):
        out += _compose_class([c[0] for c in combo], sum(c[1] for c in combo),
                              sum(c[2] for c in combo), eps, lattice)
    out[:, 1] += tail
    return np.clip(out, 0.0, 1.0)


def _compose_class(releases: Sequence[Release], up: float, down: float,
                   eps: Sequence[float], lattice: float) -> np.ndarray:
    """One class of cell tuples: [lo, hi] of its part of the divergence (no tail)."""
    part = _partial(releases[:-1], lattice)
    last = releases[-1]
    order = np.argsort(last.loss, kind="stable")
    ell, a, b = last.loss[order], last.a[order], last.b[order]
    # suffix sums: SA[i] = Σ_{j ≥ i} a_j (sorted by loss), one extra zero at the end
    sa = np.concatenate([np.cumsum(a[::-1])[::-1], [0.0]])
    sb = np.concatenate([np.cumsum(b[::-1])[::-1], [0.0]])
    out = np.empty((len(eps), 2))

    def above(t: np.ndarray, strict: bool = False) -> np.ndarray:
        """Index of the first sorted loss ≥ t (> t when strict)."""
        return np.searchsorted(ell, t, side="right" if strict else "left")

    for i, e in enumerate(eps):
        ee = math.exp(e)
        i_lo = above(e - part.s + part.err)
        lo = _dot(part.ha, sa[i_lo]) - ee * _dot(part.hb, sb[i_lo])
        i1 = above(e - part.s + part.err + down)
        exact = _dot(part.ha, sa[i1]) - ee * _dot(part.hb, sb[i1])
        i2 = np.minimum(above(e - part.s - part.err - up, strict=True), i1)
        with np.errstate(over="ignore"):
            factor = np.exp(np.minimum(e - part.s - part.err - up, 700.0))
        band = _dot(part.ha, (sa[i2] - sa[i1]) - factor * (sb[i2] - sb[i1]))
        fft = part.fft * (1 + ee)
        out[i] = (lo - MARGIN - fft - ee * part.lost_b,
                  exact + max(band, 0.0) + MARGIN + fft + part.lost_a)
    return out


def hockey_stick(pairs: Sequence[tuple[Comps, Comps]], kernel: str, scale: float,
                 eps: Sequence[float], width: float = 2e-3) -> np.ndarray:
    """Brackets of H_{e^ε} of the product of continuous (or discrete-Gaussian) mixture pairs."""
    if kernel == "dgauss":
        rels = [dgauss_release(p, q, scale) for p, q in pairs]
    else:
        rels = [continuous_release(p, q, kernel, scale, width) for p, q in pairs]
    return compose(rels, eps)


def estimate(pairs: Sequence[tuple[Comps, Comps]], kernel: str, scale: float,
             eps: Sequence[float], steps: int = 1, points: int = 1500,
             lattice: float = 0.02) -> np.ndarray:
    """A quick float *estimate* (not a bound) of H_{e^ε}(A^T‖B^T), each pair repeated
    `steps` times, for many pairs at once, shape (len(pairs), len(eps)): the pair on a
    common grid (Riemann weights for continuous kernels, the atoms for the discrete
    Gaussian), then (T > 1) its privacy loss on a coarse lattice composed by FFT, batched.
    Used to rank candidate pairs before the bracket above is computed for the few that
    matter: one release's δ alone ranks poorly for T releases."""
    if not pairs:
        return np.zeros((0, len(eps)))
    width = max(max(len(p), len(q)) for p, q in pairs)

    def pad(which: int) -> tuple[np.ndarray, np.ndarray]:
        w = np.zeros((len(pairs), width))
        c = np.zeros((len(pairs), width))
        for i, pq in enumerate(pairs):
            for j, (wt, ct) in enumerate(pq[which]):
                w[i, j], c[i, j] = wt, ct
        return w, c

    (wa, ca), (wb, cb) = pad(0), pad(1)
    lo = min(ca[wa > 0].min(), cb[wb > 0].min())
    hi = max(ca[wa > 0].max(), cb[wb > 0].max())
    if kernel == "dgauss":
        r = int(math.ceil(12 * scale)) + 1
        xs = np.arange(int(lo) - r, int(hi) + r + 1, dtype=float)
        norm = math.fsum(math.exp(-(k**2) / (2 * scale**2)) for k in range(-r - 50, r + 51))
        dx = 1.0

        def kern(d: np.ndarray) -> np.ndarray:
            return np.exp(-(d**2) / (2 * scale**2)) / norm
    else:
        reach = (12 if kernel == "gauss" else 30) * scale
        xs = np.linspace(lo - reach, hi + reach, points)
        dx = float(xs[1] - xs[0])

        def kern(d: np.ndarray) -> np.ndarray:
            if kernel == "gauss":
                return np.exp(-((d / scale) ** 2) / 2) / (scale * math.sqrt(2 * math.pi))
            return np.exp(-np.abs(d) / scale) / (2 * scale)

    out = np.zeros((len(pairs), len(eps)))
    for start in range(0, len(pairs), 256):
        sl = slice(start, start + 256)
        fa = np.einsum("ij,ijk->ik", wa[sl], kern(xs[None, None, :] - ca[sl][:, :, None]))
        fb = np.einsum("ij,ijk->ik", wb[sl], kern(xs[None, None, :] - cb[sl][:, :, None]))
        if steps == 1:
            for i, e in enumerate(eps):
                out[sl, i] = np.maximum(fa - math.exp(e) * fb, 0).sum(axis=1) * dx
            continue
        out[sl] = _lattice_estimate(fa * dx, fb * dx, eps, steps, lattice)
    return out


def _lattice_estimate(pa: np.ndarray, pb: np.ndarray, eps: Sequence[float], steps: int,
                      lattice: float) -> np.ndarray:
    """Rows of (A, B) masses on common points: Σ_{ΣL ≥ ε} (A^T − e^ε B^T) with each loss
    rounded to the lattice (and clipped to ±30: an estimate), by a batched FFT."""
    ok = (pa > 1e-14) & (pb > 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(ok, np.log(np.where(ok, pa, 1.0)) - np.log(np.where(ok, pb, 1.0)), 0.0)
    idx = np.rint(np.clip(loss, -30.0, 30.0) / lattice).astype(np.int64)
    base = int(idx[ok].min()) if ok.any() else 0
    width = int(idx[ok].max()) - base + 1 if ok.any() else 1
    flat = (np.arange(pa.shape[0])[:, None] * width + (idx - base)).ravel()
    shape = (pa.shape[0], width)
    ha = np.bincount(flat, np.where(ok, pa, 0.0).ravel(), pa.shape[0] * width).reshape(shape)
    hb = np.bincount(flat, np.where(ok, pb, 0.0).ravel(), pa.shape[0] * width).reshape(shape)
    size = steps * (width - 1) + 1
    n = 1 << (size - 1).bit_length()
    ha_t = np.fft.irfft(np.fft.rfft(ha, n, axis=1) ** steps, n, axis=1)[:, :size]
    hb_t = np.fft.irfft(np.fft.rfft(hb, n, axis=1) ** steps, n, axis=1)[:, :size]
    s = (steps * base + np.arange(size)) * lattice
    out = np.zeros((pa.shape[0], len(eps)))
    for i, e in enumerate(eps):
        sel = s >= e
        out[:, i] = np.maximum((ha_t[:, sel] - math.exp(e) * hb_t[:, sel]).sum(axis=1), 0.0)
    return out
