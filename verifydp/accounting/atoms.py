"""Pairs with discrete outputs (atoms), certified, for the composition engine (issue 16).

`verifydp.accounting.composition` composes a per-step pair cut into cells on which the
privacy loss is monotone. A pair whose outputs are atoms needs no cutting: each atom x is its
own cell, with certified P- and Q-masses (arb balls, python-flint) and a certified loss
L(x) = log P(x)/Q(x), which lies in the lattice cell [floor(L/h), ceil(L/h)] and is split
there by connect-the-dots exactly as a continuous cell (docs/foundations.md#composition).
This module only produces the atoms; the composition code is the one in `composition`.

Two families:

* `FinitePair` — finitely many atoms whose masses are (a + b·e^θ)/(1 + e^θ) with exact
  rationals a, b: mixtures of binary randomized response with parameter ε0 = θ (Warner 1965;
  r = 1/(1 + e^{ε0}) and 1 − r = e^{ε0}/(1 + e^{ε0}) are the two probabilities).
  `randomized_response` builds the per-step pairs of a subsampled binary statistic
  (proofs/deployment_pairs.md#randomized-response).
* `ProfilePair` — the symmetric pair whose privacy profile at γ ≥ 1 is a given convex
  piecewise-linear function of γ (its atoms sit at the losses ±log γ_i of the breakpoints):
  the least pair above a certified profile bound that is not itself a pair's
  (proofs/deployment_pairs.md#copies-partial).
* the discrete Gaussian N_ℤ(c, σ²), Pr(x) = e^{−(x−c)²/(2σ²)} / Z(σ) on the integers
  (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential Privacy",
  Definition 1), mixed over integer centres: `discrete_gaussian_atoms`. The support is
  countable, so it is truncated to [x_lo, x_hi] (floats choose where) and the mass beyond is
  bounded rigorously: for x ≥ n ≥ c the summand decreases, so
  Σ_{x ≥ n+1} e^{−(x−c)²/(2σ²)} ≤ ∫_n^∞ e^{−(t−c)²/(2σ²)} dt = σ√(π/2)·erfc((n − c)/(σ√2)).
  The normaliser Z(σ) = Σ_z e^{−z²/(2σ²)} is the package's one enclosure of it
  (`semantics.dgauss.normaliser`, also behind claims kifer/table2 and kifer/table6). With
  integer centres Z is common to P and Q, so the loss needs no normaliser at all.

Atoms come out in non-decreasing order of the loss, with the truncated tails as masses
*below* the first atom (loss ≤ the first atom's) and *above* the last one (loss ≥ the last
atom's); atoms with Q(x) = 0 < P(x) have loss +∞ and are counted *above*, atoms with
P(x) = 0 < Q(x) have loss −∞ and are counted *below* (P-mass 0) — the composition sends
above-mass to +∞ in upper bounds and keeps it in its own bucket for lower bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from verifydp.exact.arb import ball, bracket_ball
from verifydp.semantics.dgauss import normaliser as dgauss_normaliser

__all__ = ["Atoms", "BinomialPair", "FinitePair", "ProfilePair", "binomial_atoms",
           "binomial_log_masses", "discrete_gaussian_atoms", "discrete_gaussian_sf",
           "finite_atoms", "normaliser", "profile_atoms", "randomized_response"]

MAX_ATOMS = 200_000  # beyond this the discrete Gaussian is summed too slowly atom by atom


def _interval(upper: flint.arb) -> flint.arb:
    """A ball containing [0, u] for every u in the ball `upper` (u ≥ 0)."""
    return flint.arb(0).union(upper.upper())


@dataclass(frozen=True)
class Atoms:
    """Certified atoms of a pair, in non-decreasing loss order (module docstring)."""

    p: tuple[flint.arb, ...]
    q: tuple[flint.arb, ...]
    loss: tuple[flint.arb, ...]
    p_below: flint.arb
    q_below: flint.arb
    p_above: flint.arb
    q_above: flint.arb


# ---------------------------------------------------------------- finite pairs (RR)


@dataclass(frozen=True)
class FinitePair:
    """A pair on finitely many outputs: atom i has P-mass (a + b·e^θ)/(1 + e^θ) with
    (a, b) = p[i], likewise Q, θ > 0 exact. Both sides must be probability vectors: Σa = Σb
    = 1 (so the masses sum to 1 for every θ) and every mass non-negative at this θ."""

    p: tuple[tuple[Fraction, Fraction], ...]
    q: tuple[tuple[Fraction, Fraction], ...]
    theta: Fraction
    name: str = ""

    def __post_init__(self) -> None:
        if self.theta <= 0:
            raise ValueError("θ (randomized response's ε0) must be positive")
        if len(self.p) != len(self.q) or not self.p:
            raise ValueError("P and Q need the same atoms")
        t = ball(Fraction(self.theta)).exp()
        for side, atoms in (("P", self.p), ("Q", self.q)):
            if sum(a for a, _ in atoms) != 1 or sum(b for _, b in atoms) != 1:
                raise ValueError(f"{side}: the coefficients a and b must each sum to 1")
            for a, b in atoms:
                if (a or b) and not (ball(a) + ball(b) * t).lower() > 0:
                    raise ValueError(f"{side}: a negative (or uncertified) mass {a} + {b}·e^θ")


def randomized_response(pi: Fraction, epsilon0: Fraction, symmetric: bool) -> FinitePair:
    """Binary randomized response (output the bit w.p. e^{ε0}/(1 + e^{ε0})) of a statistic
    of a sample that contains the record w.p. π (proofs/deployment_pairs.md
    #randomized-response). With r = 1/(1 + e^{ε0}):

    * ``symmetric=False`` — P = (1−π)RR(0) + πRR(1) against Q = RR(0): add/remove, where the
      sample without the record has the smaller dataset's law (outputs 1, 0);
    * ``symmetric=True`` — P = (1−π)M + πRR(1) against Q = (1−π)M + πRR(0) on outputs
      {1, ½, 0}, M = (r, 1 − 2r, r): every binary pair (P(1), Q(1)) with |P(1) − Q(1)| ≤
      π(1 − 2r) inside [r, 1 − r] in *either order* is a post-processing of it (a
      substitution: the predicate may favour either dataset at every release).
    """
    pi, eps0 = Fraction(pi), Fraction(epsilon0)
    if not 0 < pi <= 1:
        raise ValueError("the inclusion probability π must lie in (0, 1]")
    one, zero = Fraction(1), Fraction(0)
    hit = (1 - pi, pi)               # (1−π)r + π(1−r)
    if not symmetric:
        p = (hit, (pi, 1 - pi))      # outputs 1, 0
        q = ((one, zero), (zero, one))
        name = f"randomized response ε0={eps0}, π={float(pi):.9g}"
    else:
        mid = (pi - 1, 1 - pi)       # (1−π)(1 − 2r)
        p = (hit, mid, (one, zero))  # outputs 1, ½, 0
        q = ((one, zero), mid, hit)
        name = f"randomized response ε0={eps0}, π={float(pi):.9g}, symmetric"
    return FinitePair(p, q, eps0, name)


def finite_atoms(pair: FinitePair) -> Atoms:
    """The certified atoms of a finite pair (θ > 0 rational, so e^θ is transcendental and a
    mass a + b·e^θ is 0 only when a = b = 0: zero atoms are decided exactly)."""
    t = ball(pair.theta).exp()
    norm = 1 + t
    zero = flint.arb(0)
    p_below = q_below = p_above = q_above = zero
    rows: list[tuple[float, flint.arb, flint.arb, flint.arb]] = []
    for (pa, pb), (qa, qb) in zip(pair.p, pair.q, strict=True):
        pz, qz = not (pa or pb), not (qa or qb)
        pm = zero if pz else (ball(pa) + ball(pb) * t) / norm
        qm = zero if qz else (ball(qa) + ball(qb) * t) / norm
        if pz and qz:
            continue
        if qz:       # loss +∞
            p_above += pm
        elif pz:     # loss −∞
            q_below += qm
        else:
            loss = (ball(pa) + ball(pb) * t).log() - (ball(qa) + ball(qb) * t).log()
            rows.append((float(loss.mid()), pm, qm, loss))
    rows.sort(key=lambda r: r[0])  # any order is sound (module docstring); this one is tidy
    return Atoms(tuple(r[1] for r in rows), tuple(r[2] for r in rows),
                 tuple(r[3] for r in rows), p_below, q_below, p_above, q_above)


# ---------------------------------------------------------------- a profile's pair


@dataclass(frozen=True)
class ProfilePair:
    """The symmetric pair whose H_γ at γ ≥ 1 (both orders) is the piecewise-linear function
    through (γ_i, H_i), i = 0 … n (γ_0 = 1 < γ_1 < …), constant H_n beyond γ_n. It exists
    when the function is convex and non-increasing with 1 − H_0 − 2s_0 ≥ 0 (s_i the i-th
    segment's descent per unit γ): with q_i = s_{i−1} − s_i ≥ 0 (s_n = 0) it has an atom at
    loss log γ_i of P-mass γ_i·q_i and Q-mass q_i, its mirror image (P and Q swapped, the
    loss negated), the mass H_n at +∞ (P) and at −∞ (Q), and the rest at loss 0; then
    H_γ = H_n + Σ_{γ_i > γ} q_i(γ_i − γ), the function. Checked exactly here (rationals)."""

    gammas: tuple[Fraction, ...]
    values: tuple[Fraction, ...]
    name: str = ""

    def __post_init__(self) -> None:
        g, v = self.gammas, self.values
        if len(g) != len(v) or len(g) < 2 or g[0] != 1:
            raise ValueError("a profile needs ≥ 2 points, the first at γ = 1")
        if any(b <= a for a, b in zip(g, g[1:], strict=False)):
            raise ValueError("the profile's γ must increase")
        if v[-1] < 0 or any(b > a for a, b in zip(v, v[1:], strict=False)):
            raise ValueError("a profile is non-negative and non-increasing")
        s = self.descents
        if any(b > a for a, b in zip(s, s[1:], strict=False)):
            raise ValueError("a profile is convex: its descents per unit γ cannot grow")
        if 1 - v[0] - 2 * s[0] < 0:
            raise ValueError("no pair has this profile: 1 − H(1) − 2·(−H′(1)) < 0")

    @property
    def descents(self) -> tuple[Fraction, ...]:
        """s_i = (H_i − H_{i+1})/(γ_{i+1} − γ_i), then s_n = 0."""
        g, v = self.gammas, self.values
        return tuple((v[i] - v[i + 1]) / (g[i + 1] - g[i]) for i in range(len(g) - 1)) + (
            Fraction(0),)


def profile_atoms(pair: ProfilePair) -> Atoms:
    """The certified atoms of a profile's pair (class docstring): exact rational masses,
    losses ±log γ_i as balls."""
    s = pair.descents
    rows = [(g, s[i - 1] - s[i]) for i, g in enumerate(pair.gammas) if i and s[i - 1] != s[i]]
    rest = 1 - pair.values[0] - 2 * s[0]
    up = [(ball(g).log(), ball(g * q), ball(q)) for g, q in rows]
    down = [(-lg, qb, pb) for lg, pb, qb in reversed(up)]
    mid = [(flint.arb(0), ball(rest), ball(rest))] if rest else []
    atoms = down + mid + up
    inf = ball(pair.values[-1])
    zero = flint.arb(0)
    return Atoms(tuple(p for _, p, _ in atoms), tuple(q for _, _, q in atoms),
                 tuple(loss for loss, _, _ in atoms), zero, inf, inf, zero)


# ---------------------------------------------------------------- binomial counts


@dataclass(frozen=True)
class BinomialPair:
    """P = Bin(n, p) against Q = Bin(n, q), exact rates in [0, 1], p ≠ q: how many of n
    records of one class a Poisson sample holds when an added record moves every inclusion
    rate of the class (proofs/deployment_pairs.md#pps). The loss
    L(k) = k·log(p/q) + (n − k)·log((1 − p)/(1 − q)) is linear in k, so monotone."""

    n: int
    p: Fraction
    q: Fraction
    name: str = ""

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError("a binomial pair needs n ≥ 1 trials")
        if not (0 <= self.p <= 1 and 0 <= self.q <= 1) or self.p == self.q:
            raise ValueError("the two rates must lie in [0, 1] and differ")


_BINOMIAL_BITS = 80  # the truncated tails' target (certified by Chernoff's bound)


def _binomial_tail(n: int, r: Fraction, k: int, upper: bool) -> flint.arb:
    """A ball containing [0, b] with b ≥ Pr(Bin(n, r) ≥ k) (upper) or Pr(Bin(n, r) ≤ k): the
    Chernoff bound e^{−n·KL(k/n ‖ r)} when k lies beyond the mean (Hoeffding 1963, Thm 1),
    else 1."""
    if r in (0, 1):  # a point mass at n·r
        return flint.arb(int((n * r >= k) if upper else (n * r <= k)))
    a = Fraction(k, n)
    if a <= r if upper else a >= r:
        return _interval(flint.arb(1))
    rb, ab = ball(r), ball(a)
    kl = flint.arb(0)
    if a > 0:
        kl += ab * (ab / rb).log()
    if a < 1:
        kl += (1 - ab) * ((1 - ab) / (1 - rb)).log()
    return _interval((-n * kl).exp())


def _binomial_window(n: int, rates: tuple[Fraction, Fraction]) -> tuple[int, int]:
    """Counts [lo, hi] outside which both laws' tails are below about 2^-_BINOMIAL_BITS, in
    floats (only where to truncate: the tails are then bounded rigorously)."""
    need = _BINOMIAL_BITS * math.log(2)
    lo, hi = n, 0
    for r in rates:
        mu = n * float(r)
        # Bernstein: the tail beyond mu ± s is below e^{−need} for s solving s²/(2(v + s/3)) = need
        v = mu * (1 - float(r))
        s = need / 3 + math.sqrt((need / 3) ** 2 + 2 * need * v) + 1
        lo, hi = min(lo, math.floor(mu - s)), max(hi, math.ceil(mu + s))
    return max(lo, 0), min(hi, n)


def binomial_log_masses(n: int, lo: int, hi: int, log_r: flint.arb, log_1r: flint.arb
                        ) -> list[flint.arb]:
    """log Pr(Bin(n, r) = k) for k = lo … hi, given balls for log r and log(1 − r): the first
    from the exact binomial coefficient, the next by the ratio (n − k)/(k + 1)·r/(1 − r) (no
    log-gamma cancellation at large n: 53-bit balls stay tight)."""
    cur = ball(Fraction(math.comb(n, lo))).log() + lo * log_r + (n - lo) * log_1r
    out = [cur]
    for k in range(lo, hi):
        cur = cur + ball(Fraction(n - k, k + 1)).log() + log_r - log_1r
        out.append(cur)
    return out


def binomial_atoms(pair: BinomialPair) -> Atoms:
    """The certified atoms of a binomial pair: the counts of a window (`_binomial_window`)
    with masses C(n, k)·r^k·(1 − r)^(n − k) in arb, the
    counts beyond it as tails bounded by Chernoff (`_binomial_tail`); a rate of 0 or 1 puts
    every count but one at loss ±∞."""
    n, p, q = pair.n, Fraction(pair.p), Fraction(pair.q)
    zero = flint.arb(0)
    lo, hi = _binomial_window(n, (p, q))

    def log_masses(r: Fraction) -> list[flint.arb | None]:  # None: the mass is 0
        if r in (0, 1):
            return [zero if k == n * r else None for k in range(lo, hi + 1)]
        lr, l1r = ball(r).log(), ball(-r).log1p()  # log1p: tight at small r, large n
        return list(binomial_log_masses(n, lo, hi, lr, l1r))

    ps, qs, losses = [], [], []
    p_minus_inf = q_minus_inf = p_inf = q_inf = zero  # atoms at loss ±∞
    for lp, lq in zip(log_masses(p), log_masses(q), strict=True):
        if lp is None and lq is None:
            continue
        if lq is None:
            p_inf += lp.exp()
        elif lp is None:
            q_minus_inf += lq.exp()
        else:
            ps.append(lp.exp())
            qs.append(lq.exp())
            losses.append(lp - lq)
    # the tails beyond the window, on the loss side their counts lie (L is linear in k)
    tails = [(_binomial_tail(n, p, lo - 1, False) if lo else zero,
              _binomial_tail(n, q, lo - 1, False) if lo else zero),
             (_binomial_tail(n, p, hi + 1, True) if hi < n else zero,
              _binomial_tail(n, q, hi + 1, True) if hi < n else zero)]
    if p < q:  # the loss falls with k: the atoms and tails run the other way
        ps, qs, losses = ps[::-1], qs[::-1], losses[::-1]
        tails = tails[::-1]
    (pb, qb), (pa, qa) = tails
    return Atoms(tuple(ps), tuple(qs), tuple(losses), pb + p_minus_inf, qb + q_minus_inf,
                 pa + p_inf, qa + q_inf)


# ---------------------------------------------------------------- the discrete Gaussian


def _gauss_tail(n: int, sigma: flint.arb) -> flint.arb:
    """σ√(π/2)·erfc(n/(σ√2)) ≥ Σ_{k ≥ n+1} e^{−k²/(2σ²)}, for n ≥ 0 (module docstring)."""
    return sigma * (flint.arb.pi() / 2).sqrt() * (flint.arb(n) / (sigma * flint.arb(2).sqrt())).erfc()


def normaliser(sigma: Fraction) -> flint.arb:
    """Z(σ) = Σ_{z∈ℤ} e^{−z²/(2σ²)} as an arb ball: the package's one enclosure of the
    discrete Gaussian's normaliser (`semantics.dgauss.normaliser`: the terms up to a
    truncation, plus a certified geometric tail bound; relative error ≤ e^-50, far below any
    lattice error here)."""
    return bracket_ball(dgauss_normaliser(Fraction(sigma) ** 2))


def _kernel_table(s: flint.arb, m: int) -> list[flint.arb]:
    """e^{−k²/(2σ²)} for k = 0 … m (exact integers k; arb exponentials)."""
    two_var = 2 * s * s
    return [(-(flint.arb(k) ** 2) / two_var).exp() for k in range(m + 1)]


def discrete_gaussian_sf(t: Fraction, sigma: Fraction) -> flint.arb:
    """An enclosure of an upper bound of Pr(X ≥ t), X ~ N_ℤ(0, σ²), t > 0: with n = ⌈t⌉,
    Σ_{k ≥ n} e^{−k²/(2σ²)} ≤ e^{−n²/(2σ²)} + σ√(π/2)·erfc(n/(σ√2)) (module docstring), over
    the normaliser's lower end."""
    if t <= 0:
        raise ValueError("t must be positive")
    n = math.ceil(Fraction(t))
    s = ball(Fraction(sigma))
    head = (-(flint.arb(n) ** 2) / (2 * s * s)).exp()
    z = normaliser(Fraction(sigma))
    return (head + _gauss_tail(n, s)) / flint.arb(z.lower())


def discrete_gaussian_atoms(p: tuple[tuple[Fraction, Fraction], ...],
                            q: tuple[tuple[Fraction, Fraction], ...], sigma: Fraction,
                            lo: float, hi: float) -> Atoms:
    """Atoms x = x_lo … x_hi of P = Σ w_i N_ℤ(c_i, σ²) against Q = Σ v_j N_ℤ(d_j, σ²) (weights
    and integer centres exact), with [x_lo, x_hi] ⊇ [lo, hi] and every centre inside it. The
    loss is non-decreasing in x whenever it is for the continuous Gaussians with the same
    weights and centres (the constructors' arguments: the ratio of mixtures of e^{−(x−c)²/(2σ²)}
    is monotone on ℝ, hence on ℤ; the normaliser Z(σ) is common to every component), so the
    tails beyond the atoms have losses beyond the first and last atom's."""
    sigma = Fraction(sigma)
    if sigma <= 0:
        raise ValueError("σ must be positive")
    centres = [c for _, c in p + q]
    if any(Fraction(c).denominator != 1 for c in centres):
        raise ValueError("the discrete Gaussian needs integer centres (an integer clip)")
    x_lo = min(math.floor(lo), *(int(c) for c in centres))
    x_hi = max(math.ceil(hi), *(int(c) for c in centres))
    if x_hi - x_lo + 1 > MAX_ATOMS:
        raise ValueError(f"discrete Gaussian σ = {float(sigma):g}: {x_hi - x_lo + 1} atoms "
                         f"exceed the limit {MAX_ATOMS}")
    s = ball(sigma)
    reach = max(abs(x - int(c)) for x in (x_lo, x_hi) for c in centres)
    g = _kernel_table(s, reach)
    z = normaliser(sigma)
    inv_z = 1 / z
    pw = [(ball(w), int(c)) for w, c in p if w]
    qw = [(ball(w), int(c)) for w, c in q if w]

    def density(comps: list[tuple[flint.arb, int]], x: int) -> flint.arb:
        return sum((w * g[abs(x - c)] for w, c in comps), flint.arb(0))

    ps, qs, losses = [], [], []
    for x in range(x_lo, x_hi + 1):
        dp, dq = density(pw, x), density(qw, x)
        ps.append(dp * inv_z)
        qs.append(dq * inv_z)
        losses.append(dp.log() - dq.log())

    def tails(comps: list[tuple[flint.arb, int]]) -> tuple[flint.arb, flint.arb]:
        below = sum((w * _gauss_tail(c - x_lo, s) for w, c in comps), flint.arb(0))
        above = sum((w * _gauss_tail(x_hi - c, s) for w, c in comps), flint.arb(0))
        return _interval(below * inv_z), _interval(above * inv_z)

    p_below, p_above = tails(pw)
    q_below, q_above = tails(qw)
    return Atoms(tuple(ps), tuple(qs), tuple(losses), p_below, q_below, p_above, q_above)
