"""With replacement under substitution, Gaussian noise: the least pair above a certified
profile bound (issue 30, proofs/deployment_pairs.md#copies-partial).

m uniform draws from N records, K ~ Bin(m, 1/N) copies of the record, π = Pr(K ≥ 1),
w_l = Pr(K = l | K ≥ 1), μ_l = l·d/σ. For γ ≥ 1 and either order of a release,

    H_γ ≤ g(γ) = π·[(1 − β)·A(γ′) + β·B(γ′)],   γ′ = 1 + (γ − 1)/π,  β = γ/γ′,
    H_γ ≤ g₂(γ) = π·A((γ − 1)(1 − π)/π),

with A(x) = H_x(Σ_l w_l N(μ_l) ‖ N(0)) (the copies unrevealed) and B(x) = Σ_l w_l
H_x(N(μ_l) ‖ N(0)) (revealed): g by advanced joint convexity at the common part K = 0 (only
its term against the other run's record reveals the count), g₂ by dropping the other run's
drawn part altogether (tight where γ is large, β ≈ π). Neither is a pair's profile; this
module builds a convex piecewise-linear function above min(g, g₂) on a grid of γ and its pair
(`atoms.ProfilePair`, symmetric, so both orders at once): on a cell [γ_i, γ_{i+1}] A(γ′(γ))
and β·B(γ′(γ)) lie below their chords (convex in γ) and β·A, convex as well, above its
tangent at γ_{i+1}, so g lies below a line through two upper bounds at the cell's ends; g₂ is
convex in γ, so below its chord. One line per cell, each node the larger of its two cells' values, then the upper
envelope of the segments' lines (convex) at the nodes; beyond the last node the function
stays at a bound of g there. Floats choose the grid; every value is an arb enclosure rounded
up to a dyadic rational, and the pair's existence (convexity, monotonicity, a non-negative
loss-0 mass) is checked in exact rationals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from verifydp.accounting.atoms import ProfilePair
from verifydp.accounting.forms import Dominating, law_pair
from verifydp.accounting.laws import truncated_law
from verifydp.exact.arb import ball, kernel_cdf, rational

__all__ = ["copies_partial", "profile_bound"]

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
    B non-negative, non-increasing and convex), so each lies below its chord, and β·A is
    convex too (a product of non-negative, non-increasing convex functions), so above its
    tangent at hi, whose slope's magnitude is at least |β′|·A + β·(−A′)/π there
    (β′ = −π(1 − π)/(π + γ − 1)², −A′ from below: `da_lo`)."""
    gp_lo, gp_hi = 1 + (lo - 1) / pi, 1 + (hi - 1) / pi
    beta_lo, beta_hi = lo / gp_lo, hi / gp_hi
    floor = beta_hi * at_hi.a_lo
    slope = pi * (1 - pi) / (pi + hi - 1) ** 2 * at_hi.a_lo + beta_hi * at_hi.da_lo / pi
    return (pi * (at_lo.a_hi + beta_lo * at_lo.b_hi - floor - slope * (hi - lo)),
            pi * (at_hi.a_hi + beta_hi * at_hi.b_hi - floor))


_NEAR_RATIO = 1.03  # node spacing near γ = 1, in γ − 1 (relative)
_LOG_STEP = 1 / 20  # node spacing in log γ beyond


def _nodes(pi: Fraction, top: float) -> list[Fraction]:
    """γ from 1 to `top`: geometric in γ − 1 (ratio `_NEAR_RATIO`, from 10⁻³π) while that is
    finer than the log-spacing `_LOG_STEP`, then geometric in γ: the per-release loss is of
    order π near γ = 1, so the breakpoints' losses must be too. Floats (dyadic, so short
    exact rationals); any grid is sound."""
    pts = [1.0]
    x = 1e-3 * float(pi)
    switch = min(_LOG_STEP, 0.9 * math.log(_NEAR_RATIO))  # γ − 1's ratio spent in γ
    while math.log1p(x * _NEAR_RATIO) - math.log1p(x) < switch:
        pts.append(1 + x)
        x *= _NEAR_RATIO
    g = 1 + x
    while g < top:
        pts.append(g)
        g *= math.exp(_LOG_STEP)
    pts.append(top)
    return sorted({Fraction(p) for p in pts})  # floats are dyadic: exact, short


def _envelope(xs: list[Fraction], ys: list[Fraction]) -> list[Fraction]:
    """max_j L_j(x_i) at every node, L_j the line through (x_j, y_j) and (x_{j+1}, y_{j+1}):
    the upper envelope of the segments' lines (convex, and ≥ y_i at x_i), by the convex-hull
    trick in exact rationals (lines by slope; a line that is nowhere the largest dropped)."""
    lines = sorted({((ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j]),
                     ys[j] - (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j]) * xs[j])
                    for j in range(len(xs) - 1)})
    hull: list[tuple[Fraction, Fraction]] = []
    for m, c in lines:
        if hull and hull[-1][0] == m:  # same slope: the larger intercept
            hull.pop()
        while len(hull) >= 2:
            (m1, c1), (m2, c2) = hull[-2], hull[-1]
            # line 2 is never the largest if line 3 overtakes line 1 where 2 does, or before
            if (c - c1) * (m2 - m1) >= (c2 - c1) * (m - m1):
                hull.pop()
            else:
                break
        hull.append((m, c))
    out, k = [], 0
    for x in xs:
        while k + 1 < len(hull) and hull[k + 1][0] * x + hull[k + 1][1] >= hull[k][0] * x + hull[k][1]:
            k += 1
        out.append(hull[k][0] * x + hull[k][1])
    return out


def profile_bound(pi: Fraction, ws: tuple[Fraction, ...], shifts: tuple[Fraction, ...],
                  tail_target: float = 1e-24, name: str = "") -> ProfilePair | None:
    """The pair whose profile is a convex piecewise-linear function above min(g, g₂) at every
    γ ≥ 1 (module docstring); `shifts` are μ_l = l·d/σ (exact). None when no pair has that
    profile (π large: its loss-0 mass would be negative)."""
    mus, wb = tuple(ball(x) for x in shifts), tuple(ball(w) for w in ws)
    memo: dict[Fraction, _Hs] = {}

    def at(x: Fraction) -> _Hs:  # A and B at x ≥ 1
        if x not in memo:
            memo[x] = _at(x, ws, mus, wb)
        return memo[x]

    def gp(gamma: Fraction) -> Fraction:
        return 1 + (gamma - 1) / pi

    def arg2(gamma: Fraction) -> Fraction:  # g₂'s argument, (γ − 1)(1 − π)/π
        return (gamma - 1) * (1 - pi) / pi

    def beyond(gamma: Fraction) -> Fraction:  # g(γ′) for every γ′ ≥ γ: A, β, B fall
        x = at(gp(gamma))
        return pi * (x.a_hi + (gamma / gp(gamma)) * x.b_hi)

    top = 2.0
    while float(beyond(Fraction(top))) > tail_target:
        top *= 2
        if top > 1e300:
            return None
    nodes = _nodes(pi, top)
    left: list[Fraction] = [Fraction(0)] * len(nodes)   # the cell to the right's value
    right: list[Fraction] = [Fraction(0)] * len(nodes)  # the cell to the left's value
    for i in range(len(nodes) - 1):
        lo, hi = nodes[i], nodes[i + 1]
        ends = _g_cell(lo, hi, pi, at(gp(lo)), at(gp(hi)))
        if arg2(lo) >= 1:  # g₂ convex in γ: its chord, from A's upper ends
            two = (pi * at(arg2(lo)).a_hi, pi * at(arg2(hi)).a_hi)
            if two[0] + two[1] < ends[0] + ends[1]:
                ends = two
        left[i], right[i + 1] = ends
    vals = [max(a, b) for a, b in zip(left, right, strict=True)]
    vals[-1] = max(vals[-1], beyond(nodes[-1]))
    for i in range(len(vals) - 2, -1, -1):  # non-increasing: raise to the right's maximum
        vals[i] = max(vals[i], vals[i + 1])
    vals = [rational(ball(v), up=True) for v in vals]  # short dyadics above each value
    hull = _envelope(nodes, vals)
    if any(h < v for h, v in zip(hull, vals, strict=True)):  # the envelope is above its lines
        raise ArithmeticError("profile_bound: the segments' envelope fell below a node")
    try:
        return ProfilePair(tuple(nodes), tuple(hull), name)
    except ValueError:
        return None


def copies_partial(size: int, m: int, d: Fraction, noise: Fraction) -> Dominating | None:
    """With replacement (m uniform draws from N records) under substitution, Gaussian noise
    of scale `noise`, the record moved by at most d (proofs/deployment_pairs.md
    #copies-partial): the pair of a convex profile above min(g, g₂) (`profile_bound`),
    symmetric, so it dominates both orders of every release. The law of K is truncated
    (laws.py): the releases beyond it (mass τ) count as δ per release (`tail`); g beyond the
    grid is the pair's mass at ±∞. None when no pair has that profile (π large)."""
    law = truncated_law("wr", size, None, m)
    drawn = [(k, w) for k, w in law.weights if k >= 1]
    kept = sum((w for _, w in drawn), Fraction(0))
    total = sum((w for _, w in law.weights), Fraction(0))
    if not drawn or kept == total:
        return None
    pi = kept / total  # given K within the truncation
    ws = tuple(w / kept for _, w in drawn)
    shifts = tuple(k * d / noise for k, _ in drawn)
    pair = profile_bound(pi, ws, shifts, name="srswr: the copies' profile bound")
    if pair is None:
        return None
    realised = law_pair(law.weights, d, noise, "gauss", "displaced",
                        "srswr displaced (others at one end, the record at the other)")
    return Dominating(pair, "displaced", law.weights, law.tau,
                      f"srswr, m = {m} with replacement: the record is drawn w.p. π = "
                      f"{float(pi):.6g}; the least convex profile above two bounds from "
                      f"advanced joint convexity (the copy count shown only in a term of "
                      f"weight γ/γ′, and that term dropped), {len(pair.gammas)} breakpoints "
                      f"of γ, symmetric (both orders)", lower=realised)
