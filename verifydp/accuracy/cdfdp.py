"""The CDF-based Definitions 2 and 3 of hu against standard DP (claims hu/def2, hu/def3).

Definition 3 (Definition 2 is δ = 0) asks, for every ω ∈ Ω and every pair of neighbouring
populations (in either order), Pr[𝒜(g(Y)) ≤ ω] ≤ e^ε Pr[𝒜(g(Y')) ≤ ω] + δ: only the events
{≤ ω}.  Standard (ε, δ)-DP (Definition 1 and its δ-relaxation) asks it for every event
K ⊆ Ω, i.e. the hockey-stick divergence Σ_x max(0, p(x) − e^ε q(x)) ≤ δ.  Everything here is
exact: distributions have Fraction weights on Ω = {0, …, k−1} and e^ε = t is rational.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, product

Dist = tuple[Fraction, ...]


def hockey(p: Dist, q: Dist, t: Fraction) -> Fraction:
    """sup_K p(K) − t q(K) = Σ_x max(0, p(x) − t q(x)) (the sup over all events)."""
    return sum((max(Fraction(0), a - t * b) for a, b in zip(p, q, strict=True)), Fraction(0))


def cdf_gap(p: Dist, q: Dist, t: Fraction) -> Fraction:
    """max_ω P(≤ ω) − t Q(≤ ω) over the outputs ω (the sup over CDF events only)."""
    return max(a - t * b for a, b in zip(accumulate(p), accumulate(q), strict=True))


def is_dp(p: Dist, q: Dist, t: Fraction, delta: Fraction) -> bool:
    """Standard (log t, δ)-DP for the neighbouring pair, both orders."""
    return hockey(p, q, t) <= delta and hockey(q, p, t) <= delta


def is_cdf_dp(p: Dist, q: Dist, t: Fraction, delta: Fraction) -> bool:
    """Definition 3 (Definition 2 when δ = 0) for the neighbouring pair, both orders."""
    return cdf_gap(p, q, t) <= delta and cdf_gap(q, p, t) <= delta


def distributions(size: int, denom: int) -> Iterator[Dist]:
    """Every distribution on {0..size−1} with weights in (1/denom)ℤ."""
    for ws in product(range(denom + 1), repeat=size):
        if sum(ws) == denom:
            yield tuple(Fraction(w, denom) for w in ws)


@dataclass(frozen=True)
class Comparison:
    """Exhaustive comparison of the two definitions on all pairs of small distributions."""

    pairs: int
    dp_not_cdf: tuple[tuple[Dist, Dist], ...]  # would refute "standard DP ⇒ Definition"
    cdf_not_dp: tuple[tuple[Dist, Dist], ...]  # would refute "Definition ⇒ standard DP"


def compare(size: int, denom: int, t: Fraction, delta: Fraction,
            cdf_dp: Callable[[Dist, Dist, Fraction, Fraction], bool] = is_cdf_dp) -> Comparison:
    """Both implications on every pair of distributions (one pair of neighbouring
    populations: Y = {0}, Y' = {1}, N = 1, g the identity, 𝒜(0) = p, 𝒜(1) = q).
    `cdf_dp` is the definition under test (the printed one by default)."""
    dists: Sequence[Dist] = list(distributions(size, denom))
    dp_not, cdf_not, count = [], [], 0
    for p in dists:
        for q in dists:
            count += 1
            std, cdf = is_dp(p, q, t, delta), cdf_dp(p, q, t, delta)
            if std and not cdf:
                dp_not.append((p, q))
            if cdf and not std:
                cdf_not.append((p, q))
    return Comparison(count, tuple(dp_not), tuple(cdf_not))


def smallest(pairs: Sequence[tuple[Dist, Dist]]) -> tuple[Dist, Dist]:
    """A canonical witness: fewest non-zero weights, then lexicographic."""
    return min(pairs, key=lambda pq: (sum(x != 0 for d in pq for x in d), pq))
