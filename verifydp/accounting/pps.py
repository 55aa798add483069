"""PPS designs in the deployment audit (issue 16, proofs/deployment_pairs.md#pps): Poisson PPS
under add/remove (the added record thins every other inclusion); Poisson and successive PPS
under substitution with the size measures fixed (frame data)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from verifydp.accounting.composition import AnyPair, Pair
from verifydp.accounting.forms import Dominating, bernoulli, dyadic, law_pair, revealed
from verifydp.exact.arb import ball, rational

__all__ = ["pps_fixed_rate", "poisson_pps_pair", "pps_rates", "successive_fixed_pair",
           "successive_inclusion"]


_PPS_BITS = 40  # rates rounded up to this many bits (a larger rate dominates)
_PPS_TAIL_BITS = 64  # label and binomial tails below 2^-this are counted as δ = 1
_PPS_BULK = Fraction(9, 2)  # the label's bulk piece: |S| ≤ μ + this many sd


def _binomial_up(t: int, rho: Fraction) -> tuple[list[Fraction], Fraction]:
    """Pr(Bin(t, ρ) = k) for k = 0 … K and the exact mass beyond K, K the first count whose
    remaining tail is below 2^-_PPS_TAIL_BITS (or t)."""
    pmf: list[Fraction] = []
    left, cut = Fraction(1), Fraction(1, 2**_PPS_TAIL_BITS)
    term = (1 - rho) ** t
    for k in range(t + 1):
        pmf.append(term)
        left -= term
        if left <= cut:
            break
        term = term * (t - k) * rho / ((k + 1) * (1 - rho))
    return pmf, max(left, Fraction(0))


def _bernstein(mu: Fraction, var: Fraction, t: int) -> Fraction:
    """An upper bound on Pr(X ≥ t) for X a sum of independent Bernoullis with mean μ and
    variance v, exact: Bernstein's exp(−s²/(2(v + s/3))), s = t − μ, rounded up."""
    s = t - mu
    if s <= 0:
        return Fraction(1)
    return min(Fraction(1), rational(ball(-(s * s) / (2 * (var + s / 3))).exp(), up=True))


def pps_fixed_rate(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...]
                   ) -> Fraction:
    """The largest inclusion probability min(1, n·s/T) over the listed classes, T the file's
    total measure. Under substitution with the measures fixed (frame data, kept by a changed
    record) the inclusions are independent and no rate moves, so the pair is Poisson's at the
    record's rate; the largest dominates every smaller one (the pair at q′ < q mixes the pair
    at q with the record-absent law, common to both runs: joint convexity) (#pps)."""
    n = Fraction(params["expected_size"])
    total = sum((m * c for m, c in classes), Fraction(0))
    return min(Fraction(1), n * max(m for m, c in classes if c) / total)


def pps_rates(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...]
               ) -> tuple[Fraction, list[tuple[Fraction, int]], Fraction]:
    """(π′ of the added record of the largest measure u, the other classes' (π_k, count)
    in D = the file less one such record, the thinning bound ρ = u/(T₀ + u)) (#pps)."""
    n = Fraction(params["expected_size"])
    u = max(m for m, c in classes if c)
    t0 = sum((m * c for m, c in classes), Fraction(0)) - u
    counts = [(m, c - (1 if m == u else 0)) for m, c in classes]
    rates = [(min(Fraction(1), n * m / t0) if t0 > 0 else Fraction(1), c) for m, c in counts]
    return min(Fraction(1), n * u / (t0 + u)), rates, u / (t0 + u)


def poisson_pps_pair(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...],
                     a: Fraction, d: Fraction, noise: Fraction, kernel: str, count: bool
                     ) -> Dominating:
    """Poisson PPS (inclusion min(1, n·s/T), T the total size measure) under add/remove, the
    record's measure one of the listed classes (proofs/deployment_pairs.md#pps): the added
    record (measure u, the largest: every rate grows with it) joins D′ w.p.
    π′ = min(1, n·u/(T₀ + u)) and thins every other inclusion by at most ρ = u/(T₀ + u)
    (T₀ = T − u: D is the file's population less one record of measure u). Given D's
    sample S the shift is at most (B + Bin(|S|, ρ))·a, B ~ Bernoulli(π′): aligned, revealed
    over |S| in pieces whose weights are Bernstein bounds on |S|'s upper tail (a larger
    label dominates), the last tail counted as δ = 1."""
    u = max(m for m, c in classes if c)
    exact_in, rates, exact_rho = pps_rates(params, classes)
    n_d = sum(c for _, c in rates)
    mu_x = sum((p * c for p, c in rates), Fraction(0))
    var_x = sum((p * (1 - p) * c for p, c in rates), Fraction(0))
    mu, var = float(mu_x), float(var_x)  # floats only place the pieces
    pi_in, rho = dyadic(exact_in, _PPS_BITS, up=True), dyadic(exact_rho, _PPS_BITS, up=True)
    sd = max(var, 1e-12) ** 0.5
    # the last threshold: Bernstein's tail below 2^-_PPS_TAIL_BITS
    need = _PPS_TAIL_BITS * 0.6931471805599453
    last = mu + (2 * need / 3 + ((2 * need / 3) ** 2 + 8 * need * var) ** 0.5) / 2 + 1
    # two pieces, |S| ≤ t₁ (the bulk) and t₁ < |S| ≤ t₂, then the tail beyond t₂
    cuts = sorted({min(n_d, int(mu + float(_PPS_BULK) * sd) + 1), min(n_d, int(last) + 1)})
    survive = [(_bernstein(mu_x, var_x, t + 1) if t < n_d else Fraction(0)) for t in cuts]
    for i in range(len(survive) - 2, -1, -1):  # non-increasing: a larger piece dominates
        survive[i] = max(survive[i], survive[i + 1])
    branches: list[tuple[Fraction, AnyPair]] = []
    tail = survive[-1]
    prev = Fraction(1)
    for t, sv in zip(cuts, survive, strict=True):
        w = prev - sv
        prev = sv
        if w <= 0:
            continue
        pmf, rest = _binomial_up(t, rho)
        tail += w * rest
        law: dict[Fraction, Fraction] = {}
        for k, x in enumerate(pmf):
            for b, y in ((0, 1 - pi_in), (1, pi_in)):
                if x * y:
                    law[(k + b) * a] = law.get((k + b) * a, Fraction(0)) + x * y
        tot = sum(law.values(), Fraction(0))
        branches.append((w, Pair(tuple(sorted((x / tot, c) for c, x in law.items())),
                                 ((Fraction(1), Fraction(0)),), noise, kernel,
                                 "poisson-pps thinned")))
    # renormalised branches: the dropped binomial tails are in `tail`
    tot_w = sum((w for w, _ in branches), Fraction(0))
    branches = [(w / tot_w, b) for w, b in branches]
    pair = revealed(branches, "poisson-pps thinned")
    # realised: others at 0 (a dropped one moves nothing), the record at +C (a count: 1)
    lower = law_pair(bernoulli(exact_in), d if count else a,
                     noise, kernel, "added", "poisson-pps realised")
    return Dominating(pair, "thinned", bernoulli(pi_in), tail,
                      f"poisson-pps: a record of measure {u} (the largest) joins w.p. "
                      f"{float(pi_in):.6g} and thins every other inclusion by ≤ {float(rho):.3g} "
                      f"(E|S| = {mu:.6g}); shifts aligned, revealed over |S| in "
                      f"{len(branches)} pieces (Bernstein tails), tail {float(tail):.1e}",
                      lower=lower)


def successive_inclusion(m: int, classes: tuple[tuple[Fraction, int], ...]
                         ) -> tuple[Fraction, Fraction]:
    """Bounds [lo, hi] on the inclusion probability of a record of the largest measure u in
    m successive draws without replacement, each ∝ the remaining measures (T the total):
    given it is not yet drawn, draw k takes it with probability u/T_k, where T ≥ T_k ≥
    T − (k − 1)·u (at most k − 1 records of measure ≤ u are gone). So it is missed with
    probability at most (1 − u/T)^m, and taken with at most Σ_k u/(T − (k − 1)u)."""
    if m < 0:
        raise ValueError("successive PPS: m must be ≥ 0")
    u = max(s for s, c in classes if c)
    total = sum((s * c for s, c in classes), Fraction(0))
    if m >= sum(c for _, c in classes):
        return Fraction(1), Fraction(1)
    lo = 1 - (1 - u / total) ** m
    hi = Fraction(0)
    for k in range(m):
        left = total - k * u
        if left <= u:
            return lo, Fraction(1)
        hi += u / left
    return lo, min(hi, Fraction(1))


def successive_fixed_pair(inclusion: tuple[Fraction, Fraction], d: Fraction, noise: Fraction,
                          kernel: str, low: AnyPair, what: str) -> Dominating:
    """Successive PPS draws (of records, or of clusters: every record of a drawn cluster
    is in) under substitution with the measures fixed: the sample's law does not depend on
    the values. Revealing the sample (common to both runs) leaves K(d) against K(0) when it
    holds the record and nothing otherwise, so T releases are bounded by the revealed
    mixture Σ_j Pr(Bin(T, π) = j) δ_j, π the record's inclusion — the upper one of its
    bounds `inclusion` (`successive_inclusion`; the mixture grows with π). No amplification argument beyond the
    draw is made: successive sampling is not negatively associated in general (Alexander
    1989), so the displaced pair's coupling is not available. `low` is a concrete pair at
    the lower bound of π (the caller's: it depends on what the draws bring)."""
    lo, hi = inclusion
    within = law_pair(((1, Fraction(1)),), d, noise, kernel, "displaced",
                      f"{what}: the drawn record's value moves by d")
    return Dominating(within, "displaced", ((1, Fraction(1)),), Fraction(0),
                      f"{what}, measures fixed: the record of the largest measure is drawn "
                      f"w.p. π ≤ {float(hi):.6g} (≥ {float(lo):.6g}); the draw is revealed, "
                      f"then its value moves by {d}", hi, low)
