"""With replacement under substitution, Gaussian noise: the copy count revealed only with a
small probability ρ (issue 30, proofs/deployment_pairs.md#copies-partial).

m uniform draws from N records, K ~ Bin(m, 1/N) copies of the record, π = Pr(K ≥ 1),
w_l = Pr(K = l | K ≥ 1), μ_l = l·d/σ. For γ ≥ 1 and either order of a release,

    H_γ ≤ g(γ) = π·[(1 − β)·A(γ′) + β·B(γ′)],   γ′ = 1 + (γ − 1)/π,  β = γ/γ′,

with A(γ′) = H_γ′(Σ_l w_l N(μ_l) ‖ N(0)) (the copies unrevealed) and B(γ′) = Σ_l w_l
H_γ′(N(μ_l) ‖ N(0)) (revealed): advanced joint convexity splits the release at the common
part K = 0, the term against it is the alignment lemma with the count hidden, and only the
term against the other run's record reveals the count. g is not a pair's profile; this module
certifies that the pair that reveals the count with probability ρ at the rate π(1 + κ),

    h(γ) = π(1 + κ)·[(1 − ρ)·A(γ″) + ρ·B(γ″)],  γ″ = 1 + (γ − 1)/(π(1 + κ)),

lies above g on [1, γ_M]: on a cell [γ_i, γ_{i+1}] A and β·B lie below their chords (convex
in γ) and β·A above β(γ_{i+1})·A(γ′(γ_{i+1})), while h lies above its tangent at γ_{i+1}
(a profile is convex), so comparing the two linear bounds at the cell's ends decides it;
beyond γ_M, g ≤ π[A + β·B] at γ_M, counted as δ per release (`tail`). Floats choose ρ, κ and
the cells (halved where a comparison fails); every comparison is on arb balls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from verifydp.accounting.forms import Dominating, bernoulli, dyadic, law_pair, revealed
from verifydp.accounting.laws import count_labels, truncated_law
from verifydp.exact.arb import ball, kernel_cdf, rational

__all__ = ["PartialReveal", "certify_partial", "copies_partial"]

_ZERO = flint.arb(0)


def _sf(x: flint.arb) -> flint.arb:
    """Φ̄(x), a ball."""
    return kernel_cdf("gauss", -x, True)


def _crossing(g: float, ws: list[float], mus: list[float]) -> float:
    """The t where Σ_l w_l e^{μ_l t − μ_l²/2} = g, in floats (only a guess: the caller
    certifies a bracket): Newton on the log of the sum, convex and increasing in t, from the
    right of the root (the largest single component's crossing), so it decreases to it."""
    lw = [math.log(w) for w in ws]
    t = max((math.log(g) - lw_ + m * m / 2) / m for lw_, m in zip(lw, mus, strict=True))
    for _ in range(60):
        es = [lw_ + m * t - m * m / 2 for lw_, m in zip(lw, mus, strict=True)]
        top = max(es)
        ex = [math.exp(e - top) for e in es]
        tot = sum(ex)
        f = top + math.log(tot) - math.log(g)
        slope = sum(x * m for x, m in zip(ex, mus, strict=True)) / tot
        step = f / slope
        t -= step
        if abs(step) <= 1e-15 * max(1.0, abs(t)):
            break
    return t


@dataclass(frozen=True)
class _Hs:
    """Enclosures at one γ′ ≥ 1: A (the copies unrevealed) and B (revealed) from below and
    above, and lower bounds on their slopes' magnitudes −A′ = Φ̄(t*), −B′ = Σ w_l Φ̄(t_l)."""

    a_lo: Fraction
    a_hi: Fraction
    b_lo: Fraction
    b_hi: Fraction
    da_lo: Fraction
    db_lo: Fraction


def _at(gamma: Fraction, ws: tuple[Fraction, ...], mus: tuple[flint.arb, ...],
        wb: tuple[flint.arb, ...]) -> _Hs:
    """A(γ) = H_γ(Σ_l w_l N(μ_l) ‖ N(0)), γ ≥ 1, μ_l > 0: the likelihood ratio increases, so
    the optimal event is the half-line x > t*; t* is bracketed in [a, b] by the ratio's
    certified signs (floats find it), so P(x > b) − γQ(x > b) ≤ A ≤ P(x > a) − γQ(x > b) and
    −A′ = Q(x > t*) ≥ Q(x > b). B is in closed form per l (t_l = log γ/μ_l + μ_l/2). `wb`:
    the weights as balls."""
    fw, fm = [float(w) for w in ws], [float(m.mid()) for m in mus]
    t0 = _crossing(float(gamma), fw, fm)
    gb = ball(gamma)

    def side(t: float) -> int:  # +1 / −1: the ratio at t certified above / below γ
        tb = ball(Fraction(t))
        r = sum((w * (m * tb - m * m / 2).exp() for w, m in zip(wb, mus, strict=True)),
                _ZERO) - gb
        return 1 if r.lower() > 0 else -1 if r.upper() < 0 else 0

    step = 1e-9 * max(1.0, abs(t0))
    a, b = t0 - step, t0 + step
    while side(a) != -1:
        a -= 4 * (t0 - a)
    while side(b) != 1:
        b += 4 * (b - t0)
    ab, bb = ball(Fraction(a)), ball(Fraction(b))

    def p_tail(t: flint.arb) -> flint.arb:
        return sum((w * _sf(t - m) for w, m in zip(wb, mus, strict=True)), _ZERO)

    q_b = _sf(bb)
    a_lo = p_tail(bb) - gb * q_b
    a_hi = p_tail(ab) - gb * q_b
    logg = gb.log()
    b_val, db = _ZERO, _ZERO
    for w, m in zip(wb, mus, strict=True):
        t = logg / m + m / 2
        sf_t = _sf(t)
        b_val += w * (_sf(t - m) - gb * sf_t)
        db += w * sf_t
    return _Hs(rational(a_lo, up=False), rational(a_hi, up=True), rational(b_val, up=False),
               rational(b_val, up=True), rational(q_b, up=False), rational(db, up=False))


def _g_cell(lo: Fraction, hi: Fraction, pi: Fraction, at_lo: _Hs, at_hi: _Hs
            ) -> tuple[Fraction, Fraction]:
    """Upper bounds on g at γ = lo and γ = hi, valid for the chord between them on the whole
    cell: g = π[A + β·B − β·A]; A and β·B are convex in γ (A convex in γ′, affine in γ; β and
    B non-negative, non-increasing and convex), so each lies below its chord, and β·A ≥
    β(hi)·A(γ′(hi)) on the cell (both non-increasing)."""
    gp_lo, gp_hi = 1 + (lo - 1) / pi, 1 + (hi - 1) / pi
    beta_lo, beta_hi = lo / gp_lo, hi / gp_hi
    floor = beta_hi * at_hi.a_lo
    return (pi * (at_lo.a_hi + beta_lo * at_lo.b_hi - floor),
            pi * (at_hi.a_hi + beta_hi * at_hi.b_hi - floor))


def _h_cell(lo: Fraction, hi: Fraction, rate: Fraction, rho: Fraction, at: _Hs
            ) -> tuple[Fraction, Fraction]:
    """Lower bounds on h at γ = lo and γ = hi, valid for the tangent at hi on the whole cell
    (h is a pair's profile, convex, so above its tangents): h(hi) = rate·[(1 − ρ)A + ρB] and
    −h′(hi) = (1 − ρ)(−A′) + ρ(−B′), both at γ″(hi) (`at`)."""
    at_hi = rate * ((1 - rho) * at.a_lo + rho * at.b_lo)
    slope = (1 - rho) * at.da_lo + rho * at.db_lo
    return at_hi + slope * (hi - lo), at_hi


@dataclass(frozen=True)
class PartialReveal:
    """A certified choice: reveal the count w.p. `rho` at rate `rate`; `tail` bounds g beyond
    the grid (δ per release)."""

    rho: Fraction
    rate: Fraction
    tail: Fraction
    cells: int


def _grid(pi: Fraction, top: float) -> list[Fraction]:
    """γ from 1 to `top`, geometric in γ′ − 1 = (γ − 1)/π near 1 (where β falls from 1),
    then in γ′ (floats: any grid is sound, the cells are refined where they fail)."""
    pts = [0.0] + [1e-6 * 1.4 ** k for k in range(int(math.log(1e7) / math.log(1.4)) + 1)]
    g = 1 + pts[-1]
    while 1 + (g - 1) * float(pi) < top:
        g *= 1.4
        pts.append(g - 1)
    return sorted({1 + pi * Fraction(x) for x in pts})


_DEPTH = 10  # a failing cell is halved at most this many times


def certify_partial(pi: Fraction, ws: tuple[Fraction, ...], shifts: tuple[Fraction, ...],
                    rho: Fraction, kappa: Fraction, tail_target: float = 1e-24
                    ) -> PartialReveal | None:
    """Whether h(γ) ≥ g(γ) on [1, γ_M] for the pair revealing the count w.p. ρ at rate
    π(1 + κ) (module docstring), γ_M where g falls below `tail_target`; None if a cell fails
    after `_DEPTH` halvings. `shifts` are μ_l = l·d/σ (exact)."""
    mus, wb = tuple(ball(x) for x in shifts), tuple(ball(w) for w in ws)
    rate = min(Fraction(1), pi * (1 + kappa))
    memo: dict[Fraction, tuple[_Hs, _Hs]] = {}

    def at(gamma: Fraction) -> tuple[_Hs, _Hs]:  # (at γ′ for g, at γ″ for h)
        if gamma not in memo:
            memo[gamma] = (_at(1 + (gamma - 1) / pi, ws, mus, wb),
                           _at(1 + (gamma - 1) / rate, ws, mus, wb))
        return memo[gamma]

    def beyond(gamma: Fraction) -> Fraction:  # g(γ′) for every γ′ ≥ γ: A, β, B fall
        x = at(gamma)[0]
        return pi * (x.a_hi + (gamma / (1 + (gamma - 1) / pi)) * x.b_hi)

    top = 2.0
    while float(beyond(Fraction(top))) > tail_target:
        top *= 2
        if top > 1e300:
            return None
    grid = _grid(pi, top)
    stack = list(zip(grid[:-1], grid[1:], strict=True))
    depth: dict[tuple[Fraction, Fraction], int] = {}
    cells = 0
    while stack:
        lo, hi = stack.pop()
        g_lo, g_hi = _g_cell(lo, hi, pi, at(lo)[0], at(hi)[0])
        h_lo, h_hi = _h_cell(lo, hi, rate, rho, at(hi)[1])
        if h_lo >= g_lo and h_hi >= g_hi:
            cells += 1
            continue
        d = depth.pop((lo, hi), 0)
        if d >= _DEPTH:
            return None
        mid = (lo + hi) / 2
        for c in ((lo, mid), (mid, hi)):
            depth[c] = d + 1
            stack.append(c)
    return PartialReveal(rho, rate, beyond(Fraction(top)), cells)


_RHOS = (Fraction(1, 200), Fraction(1, 100), Fraction(1, 50), Fraction(1, 20), Fraction(1, 5))
_KAPPA = Fraction(1, 200)


def copies_partial(size: int, m: int, d: Fraction, noise: Fraction) -> Dominating | None:
    """With replacement (m uniform draws from N records) under substitution, Gaussian noise
    of scale `noise`, the record moved by at most d (proofs/deployment_pairs.md
    #copies-partial): the copies pair Σ_l Pr(K = l)K(l·d) against K(0) at the rate π(1 + κ),
    with the count revealed in a fraction ρ of the releases, for the smallest ρ of `_RHOS`
    whose profile `certify_partial` proves above g; the orientation rule symmetrises each
    branch. The law of K is truncated (laws.py): the releases beyond it (mass τ) and g beyond
    the certified range count as δ per release (`tail`). None when no ρ certifies."""
    law = truncated_law("wr", size, None, m)
    drawn = [(k, w) for k, w in law.weights if k >= 1]
    kept = sum((w for _, w in drawn), Fraction(0))
    total = sum((w for _, w in law.weights), Fraction(0))
    if not drawn or kept == total:
        return None
    pi = kept / total  # given K within the truncation
    ws = tuple(w / kept for _, w in drawn)
    shifts = tuple(k * d / noise for k, _ in drawn)
    cert = next((c for r in _RHOS if (c := certify_partial(pi, ws, shifts, r, _KAPPA))), None)
    if cert is None:
        return None
    rate = dyadic(cert.rate, 96, up=True)
    copies = law_pair(((0, 1 - rate),) + tuple((k, rate * w) for k, w in zip(
        (k for k, _ in drawn), ws, strict=True)), d, noise, "gauss", "displaced",
        "srswr: the copies, count hidden")
    branches = [(1 - cert.rho, copies)] + [
        (cert.rho * w, law_pair(bernoulli(rate), k * d, noise, "gauss", "displaced",
                                f"srswr: {name} shown"))
        for w, k, name in count_labels(drawn)]
    tail = law.tau + dyadic(cert.tail / (1 - rate), 96, up=True)
    realised = law_pair(law.weights, d, noise, "gauss", "displaced",
                        "srswr displaced (others at one end, the record at the other)")
    return Dominating(revealed(branches, "srswr: the copy count shown w.p. ρ"), "displaced",
                      law.weights, tail,
                      f"srswr, m = {m} with replacement: the record is drawn w.p. π ≤ "
                      f"{float(rate):.6g} (rate ×{float(1 + _KAPPA):g}), its copy count "
                      f"shown in a fraction ρ = {cert.rho} of the releases and hidden in the "
                      f"rest (a profile bound certified on {cert.cells} cells of γ; advanced "
                      f"joint convexity, both orders)", lower=realised)
