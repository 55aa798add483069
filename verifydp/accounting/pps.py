"""PPS designs in the deployment audit (issue 16, proofs/deployment_pairs.md#pps): Poisson PPS
under add/remove (the added record thins every other inclusion); Poisson and successive PPS
under substitution with the size measures fixed (frame data)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import flint

from verifydp.accounting.atoms import BinomialPair, binomial_log_masses
from verifydp.accounting.composition import AnyPair, Product
from verifydp.accounting.forms import Dominating, bernoulli, dyadic, law_pair, revealed
from verifydp.exact.arb import ball, rational

__all__ = ["pps_fixed_rate", "poisson_pps_pairs", "pps_rates", "successive_fixed_pair",
           "successive_inclusion", "successive_race_pair"]


def pps_fixed_rate(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...]
                   ) -> Fraction:
    """The largest inclusion probability min(1, n·s/T) over the listed classes, T the file's
    total measure. Under substitution with the measures fixed (frame data, kept by a changed
    record) the inclusions are independent and no rate moves, so the pair is Poisson's at the
    record's rate; the largest dominates every smaller one (the pair at q′ < q mixes the pair
    at q with the record-absent law, common to both runs: joint convexity) (#pps)."""
    total = sum((m * c for m, c in classes), Fraction(0))
    return _rate(Fraction(params["expected_size"]), max(m for m, c in classes if c), total)


def pps_rates(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...]
              ) -> tuple[Fraction, list[tuple[Fraction, int]], Fraction]:
    """(π′ of the added record of the largest measure u, the other classes' (π_k, count)
    in D = the file less one such record, the thinning bound ρ = u/(T₀ + u)) (#pps)."""
    n = Fraction(params["expected_size"])
    u = max(m for m, c in classes if c)
    t0 = sum((m * c for m, c in classes), Fraction(0)) - u
    counts = [(m, c - (1 if m == u else 0)) for m, c in classes]
    return _rate(n, u, t0 + u), [(_rate(n, m, t0), c) for m, c in counts], u / (t0 + u)


def _rate(n: Fraction, s: Fraction, total: Fraction) -> Fraction:
    return min(Fraction(1), n * s / total) if total > 0 else Fraction(1)


def _garbles(small: tuple[Fraction, Fraction], big: tuple[Fraction, Fraction]) -> bool:
    """Whether the binary experiment Bern(a) against Bern(b) is a garbling (a channel
    applied to both sides) of Bern(A) against Bern(B): (a, b) = (αA + β(1 − A),
    αB + β(1 − B)) for some α, β ∈ [0, 1] (the parallelogram spanned by (A, B) and
    (1 − A, 1 − B)), decided exactly."""
    (a, b), (big_a, big_b) = small, big
    if big_a == big_b:
        return a == b
    det = big_a - big_b
    alpha = (a * (1 - big_b) - b * (1 - big_a)) / det
    beta = (big_a * b - big_b * a) / det
    return 0 <= alpha <= 1 and 0 <= beta <= 1


@dataclass(frozen=True)
class _Neighbour:
    """One neighbour of the file under add/remove: the record's inclusion rate in the larger
    dataset D′, and per class (rate under D, rate under D′, how many others)."""

    rate: Fraction
    factor: Fraction  # every uncapped rate under D′ over its rate under D
    classes: tuple[tuple[Fraction, Fraction, Fraction, int], ...]  # (s, π, π′, count)
    where: str


def _neighbours(n: Fraction, classes: tuple[tuple[Fraction, int], ...]) -> list[_Neighbour]:
    """Every add/remove neighbour of the file: a record of a present measure v removed
    (D = the file less it, D′ = the file) or one of a listed measure added (D = the file)."""
    total = sum((m * c for m, c in classes), Fraction(0))
    out = []
    for v in sorted({m for m, c in classes if c}, reverse=True):
        out.append(_Neighbour(_rate(n, v, total), (total - v) / total, tuple(
            (m, _rate(n, m, total - v), _rate(n, m, total), c - (1 if m == v else 0))
            for m, c in classes), f"a record of measure {v} removed from the file"))
    for v in sorted({m for m, _ in classes}, reverse=True):
        out.append(_Neighbour(_rate(n, v, total + v), total / (total + v), tuple(
            (m, _rate(n, m, total), _rate(n, m, total + v), c) for m, c in classes),
            f"a record of measure {v} added to the file"))
    return out


def _shown(nb: _Neighbour, rate: Fraction, counts: tuple[int, ...], a: Fraction,
           noise: Fraction, kernel: str) -> Product:
    own = law_pair(bernoulli(rate), a, noise, kernel, "added",
                   "poisson-pps: the record's inclusion")
    return Product((own, *(BinomialPair(k, pd, p, f"measure {m}: Bin({k}, π′) against "
                                        f"Bin({k}, π)")
                           for (m, p, pd, _), k in zip(nb.classes, counts, strict=True)
                           if k and p != pd)), "poisson-pps: the record and the class counts")


def poisson_pps_pairs(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...],
                      a: Fraction, d: Fraction, noise: Fraction, kernel: str, count: bool
                      ) -> tuple[Dominating, ...]:
    """Poisson PPS (inclusion min(1, n·s/T), T the total size measure) under add/remove
    (proofs/deployment_pairs.md#pps). With the other records' inclusions shown (a label
    the output is a function of, with the noise), a release is the product of the record's
    own added pair at its rate π′ and, per class, the count of the class's other records in
    the sample, Bin(k_c, π′_c) against Bin(k_c, π_c): the added record moves every rate,
    which changes the sample's law, not its values. The neighbour that removes a record of
    the largest measure, with every record of the file counted, dominates each neighbour
    whose every per-record inclusion pair is a garbling of its own (decided exactly,
    `_garbles`; the record's rate is then the largest of theirs); every other neighbour
    (rates capped at 1 can break the order) is a candidate of its own."""
    n = Fraction(params["expected_size"])
    nbs = _neighbours(n, classes)
    top = nbs[0]
    full = tuple(c for _, c in classes)
    covered = [nb for nb in nbs if all(_garbles((p, pd), (tp, tpd)) for (_, p, pd, _),
                                       (_, tp, tpd, _) in zip(nb.classes, top.classes,
                                                              strict=True))]
    rest = [nb for nb in nbs if nb not in covered]
    out = []
    for nb, rate, counts in ([(top, max(x.rate for x in covered), full)]
                             + [(x, x.rate, tuple(c for *_, c in x.classes)) for x in rest]):
        # realised: others at 0 (a moved inclusion moves nothing), the record at +C
        lower = law_pair(bernoulli(nb.rate), d if count else a, noise, kernel, "added",
                         "poisson-pps realised")
        pair = _shown(nb, rate, counts, a, noise, kernel)
        why = (f"poisson-pps, {nb.where}: it joins w.p. {float(rate):.6g} and moves the "
               f"others' rates (by the factor {float(nb.factor):.6g}"
               f" where uncapped); the others' inclusions shown: the record's added pair "
               f"times {len(pair.parts) - 1} class counts"
               + (f" (covers {len(covered)} of the file's {len(nbs)} neighbours)"
                  if nb is top else ""))
        out.append(Dominating(pair, "shown", bernoulli(rate), Fraction(0), why, lower=lower))
    return tuple(out)


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


_RACE_BINS = 32       # label pieces over the bulk of the m-th arrival time
_RACE_POINTS = 256    # grid of the lower end's rate over the label's bulk
_RACE_SD = (7.0, 8.5)  # the label's bulk: its mean − / + this many sd (floats)
_RACE_BITS = 40       # rates rounded up to this many bits (a larger rate dominates)


def _arrived_at_most(classes: tuple[tuple[Fraction, int], ...], t: Fraction, k: int
                     ) -> flint.arb:
    """Pr(at most k of the records have arrived by t), record i arriving at an independent
    Exp(s_i) time: a ball. Per class the count is Bin(n_c, 1 − e^{−s_c·t}) (its masses up to k,
    `atoms.binomial_log_masses`), the classes convolved (truncated at k: only counts ≤ k are
    asked for)."""
    tb = ball(t)
    total = flint.arb_poly([1])
    for s, n in classes:
        if not n:
            continue
        st = ball(s) * tb  # log(1 − p) = −st, log p = log(1 − e^{−st})
        pmf = [x.exp() for x in binomial_log_masses(n, 0, min(k, n), (-(-st).expm1()).log(),
                                                     -st)]
        total = flint.arb_poly((total * flint.arb_poly(pmf)).coeffs()[:k + 1])
    return sum(total.coeffs()[:k + 1], flint.arb(0))


def _race_grid(m: int, classes: tuple[tuple[Fraction, int], ...]) -> list[Fraction]:
    """Times 0 < t_1 < … < t_K over the bulk of the m-th arrival (floats: where to cut),
    denser where it has mass: below the first the rates are small (one piece at its rate),
    beyond the last the certified tail is counted as δ = 1."""
    def mean_count(t: float) -> float:
        return sum(n * -math.expm1(-float(s) * t) for s, n in classes)

    lo, hi = 0.0, 1.0
    while mean_count(hi) < m:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_count(mid) < m else (lo, mid)
    t = hi
    var = sum(n * -math.expm1(-float(s) * t) * math.exp(-float(s) * t) for s, n in classes)
    slope = sum(n * float(s) * math.exp(-float(s) * t) for s, n in classes)
    sd = math.sqrt(max(var, 1.0)) / slope
    # a piece of width w at z sd from the mean costs about its weight φ(z)·w times its rate
    # step ∝ w: equal costs put w ∝ φ(z)^(-1/2), i.e. even steps of Φ(z/√2)
    half = NormalDist(0.0, math.sqrt(2.0))
    ua, ub = half.cdf(-_RACE_SD[0]), half.cdf(_RACE_SD[1])
    zs = [half.inv_cdf(ua + (ub - ua) * i / _RACE_BINS) for i in range(_RACE_BINS + 1)]
    return sorted({Fraction(max(t + z * sd, t / 64)) for z in zs})


def successive_race_pair(m: int, classes: tuple[tuple[Fraction, int], ...], d: Fraction,
                         noise: Fraction, kernel: str) -> Dominating:
    """Successive PPS draws of records under substitution with the measures fixed
    (proofs/deployment_pairs.md#successive): m draws without replacement, each ∝ the
    remaining measures, are the first m arrivals of independent Exp(s_i) clocks. Shown the
    other records' clocks (common to both runs: the measures are frame data), let τ be the
    m-th arrival among them: the record is in iff its clock is below τ, w.p.
    π_τ = 1 − e^{−u·τ}, and the others in the sample are then the first m − 1 arrivals, else
    the first m — one sample within the other. Given τ a release is (1 − π_τ)K(y) + π_τK(x)
    against (1 − π_τ)K(y) + π_τK(x′), ‖x − y‖, ‖x′ − y‖, ‖x − x′‖ ≤ d: both orders below the
    displaced pair at π_τ for γ ≥ 1 (advanced joint convexity; the orientation rule then
    symmetrises it). The label τ is replaced by a stochastically larger one (Pr(τ > t) ≤
    Pr(at most m of the file's records by t), for every record), cut into pieces at the
    rate of each piece's upper end (a larger rate dominates); beyond the last cut, δ = 1.
    The lower end: the others at −C, the record −C → +C, the displaced pair at the record's
    inclusion π = E[1 − e^{−uτ}] ≥ Σ_i (e^{−u·t_{i−1}} − e^{−u·t_i})·Pr(τ > t_i)."""
    u = max(s for s, c in classes if c)
    n_all = sum(c for _, c in classes)
    if m >= n_all:  # every record is drawn: no amplification
        pair = law_pair(((1, Fraction(1)),), d, noise, kernel, "displaced",
                        "successive PPS: every record drawn")
        return Dominating(pair, "displaced", ((1, Fraction(1)),), Fraction(0),
                          f"successive PPS: m = {m} draws take all {n_all} records")
    grid = _race_grid(m, classes)
    others = tuple((s, c - (1 if s == u else 0)) for s, c in classes)
    # the label's survival, an upper bound for every record: non-increasing rationals
    surv = [rational(_arrived_at_most(classes, t, m), up=True) for t in grid]
    for i in range(len(surv) - 2, -1, -1):
        surv[i] = max(surv[i], surv[i + 1])
    surv = [min(x, Fraction(1)) for x in surv]
    tail = surv[-1]
    branches: list[tuple[Fraction, AnyPair]] = []
    prev, rates = Fraction(1), []
    for t, sv in zip(grid, surv, strict=True):
        w, prev = prev - sv, sv
        if w <= 0:
            continue
        rate = dyadic(rational(-((-ball(u) * ball(t)).exp()) + 1, up=True), _RACE_BITS,
                      up=True)
        rates.append((w, rate))
        branches.append((w, law_pair(bernoulli(rate), d, noise, kernel, "displaced",
                                     f"successive PPS: τ ≤ {float(t):.6g}")))
    kept = sum((w for w, _ in branches), Fraction(0))
    branches = [(w / kept, b) for w, b in branches]
    mean_rate = min(Fraction(1), sum((w * r for w, r in rates), Fraction(0)) / kept)
    # the lower end's rate, on a finer grid of the record's own label (others = the file
    # less it): Pr(τ > t) = Pr(at most m − 1 others by t)
    fine = [Fraction(0)] + [grid[0] + (grid[-1] - grid[0]) * i / _RACE_POINTS
                            for i in range(_RACE_POINTS + 1)]
    lo = flint.arb(0)
    for a, b in zip(fine, fine[1:], strict=False):
        drop = (-ball(u) * ball(a)).exp() - (-ball(u) * ball(b)).exp()
        lo += drop * _arrived_at_most(others, b, m - 1)
    pi_lo = max(dyadic(rational(lo, up=False), _RACE_BITS, up=False),
                successive_inclusion(m, classes)[0])
    low = law_pair(bernoulli(pi_lo), d, noise, kernel, "displaced",
                   "successive PPS realised")
    return Dominating(revealed(branches, "successive PPS race"), "displaced",
                      bernoulli(mean_rate), tail,
                      f"successive PPS, measures fixed: the others' arrival clocks shown, the "
                      f"record of the largest measure is drawn w.p. π_τ = 1 − e^(−{u}τ) given "
                      f"the m-th arrival τ among them ({len(branches)} pieces, mean ≤ "
                      f"{float(mean_rate):.6g}; π ≥ {float(pi_lo):.6g}), and the sample "
                      f"without it holds the sample with it less the record: displaced",
                      lower=low)


def successive_fixed_pair(inclusion: tuple[Fraction, Fraction], d: Fraction, noise: Fraction,
                          kernel: str, low: AnyPair, what: str) -> Dominating:
    """Successive PPS draws of clusters (every record of a drawn cluster is in) under
    substitution with the cluster frame fixed: the sample's law does not depend on the values.
    Revealing the sample (common to both runs) leaves K(d) against K(0) when it holds the
    record and nothing otherwise, so T releases are bounded by the revealed mixture
    Σ_j Pr(Bin(T, π) = j) δ_j, π the record's inclusion — the upper one of its bounds
    `inclusion` (`successive_inclusion`; the mixture grows with π). Records drawn one by one
    use the arrival clocks instead (`successive_race_pair`); for clusters the one drawn when
    the record's is not brings its own records, a shift of up to its size times C, so that
    argument does not apply (proofs/deployment_pairs.md#successive). `low` is a concrete
    pair at the lower bound of π (the caller's: it depends on what the draws bring)."""
    lo, hi = inclusion
    within = law_pair(((1, Fraction(1)),), d, noise, kernel, "displaced",
                      f"{what}: the drawn record's value moves by d")
    return Dominating(within, "displaced", ((1, Fraction(1)),), Fraction(0),
                      f"{what}, measures fixed: the record of the largest measure is drawn "
                      f"w.p. π ≤ {float(hi):.6g} (≥ {float(lo):.6g}); the draw is revealed, "
                      f"then its value moves by {d}", hi, low)
