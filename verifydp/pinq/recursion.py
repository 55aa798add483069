"""Recursive (streaming) characterisations RS(D ∪ {e}) = ψ_D(RS(D), e) of the samplers of
ebadi §4, checked exactly on datasets of distinct labelled records.

A ψ maps (K, D, e) to a list of (probability, K'); `pushforward` applies it to the exact law of
RS(D), and `characterises` compares the result with the law of RS(D ∪ {e}). `delta_law` is
the law of |ψ_D(K, e) Δ K| that Theorem 4.3 needs (it must not depend on K; checked).

The printed ψ's: Theorem 4.4 (reservoir R_n), §4.4 (fraction P_p), §4.5 (Bernoulli B_b).
`fraction_psi_coupled` is a ψ for P_p derived here (add e to the sample with probability
ub/(|D|+1), else add a uniform non-sampled record); `fraction_psi_shuffle` is the step that
Algorithm 2 (the shuffle) actually performs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from math import comb, floor

from verifydp.exact.dist import FiniteDist

Sample = frozenset[str]
Psi = Callable[[Sample, Sample, str], list[tuple[Fraction, Sample]]]
Law = Callable[[Sample], FiniteDist[Sample]]


class IllDefined(ValueError):
    """A printed ψ whose probabilities do not form a distribution at this (K, D)."""


def uniform_subsets(d: Sample, k: int) -> FiniteDist[Sample]:
    subsets = [frozenset(c) for c in itertools.combinations(sorted(d), k)]
    return FiniteDist.from_pairs((s, Fraction(1, comb(len(d), k))) for s in subsets)


def reservoir_law(n: int) -> Law:
    return lambda d: uniform_subsets(d, min(n, len(d)))


def fraction_law(p: Fraction) -> Law:
    return lambda d: uniform_subsets(d, floor(p * len(d)))


def bernoulli_law(b: Fraction) -> Law:
    def law(d: Sample) -> FiniteDist[Sample]:
        items = sorted(d)
        return FiniteDist.from_pairs(
            (frozenset(x for x, keep in zip(items, bits) if keep),
             b ** sum(bits) * (1 - b) ** (len(items) - sum(bits)))
            for bits in itertools.product((0, 1), repeat=len(items))
        )
    return law


def _spread(weight: Fraction, outcomes: list[Sample]) -> list[tuple[Fraction, Sample]]:
    """`weight` split uniformly over `outcomes` (the printed "for any f" / "some x")."""
    if weight == 0:
        return []
    if not outcomes:
        raise IllDefined(f"probability {weight} on an empty set of outcomes")
    return [(weight / len(outcomes), o) for o in outcomes]


def reservoir_psi(n: int) -> Psi:
    """Theorem 4.4 (with the base case R_n(D ∪ {e}) = D ∪ {e} when |D| < n)."""
    def psi(k: Sample, d: Sample, e: str) -> list[tuple[Fraction, Sample]]:
        m = len(d)
        if m < n:
            return [(Fraction(1), k | {e})]
        return [(Fraction(m + 1 - n, m + 1), k),
                *_spread(Fraction(n, m + 1), [(k - {f}) | {e} for f in sorted(k)])]
    return psi


def bernoulli_psi(b: Fraction) -> Psi:
    """§4.5: Pr[K] = 1 − b, Pr[K ∪ {e}] = b."""
    return lambda k, d, e: [(1 - b, k), (b, k | {e})]


def _bounds(p: Fraction, m: int) -> tuple[int, int]:
    return floor(p * m), floor(p * (m + 1))


def fraction_psi_printed(p: Fraction) -> Psi:
    """§4.4 as printed (lb = ⌊p|D|⌋, ub = ⌊p(|D|+1)⌋)."""
    def psi(k: Sample, d: Sample, e: str) -> list[tuple[Fraction, Sample]]:
        m = len(d)
        lb, ub = _bounds(p, m)
        out_of = sorted(d - k)
        if ub - lb == 1:
            return [
                (Fraction(1, m + 1), k | {e}),
                *_spread(Fraction(ub, m + 1),
                         [(k - {f}) | {e, x} for f in sorted(k) for x in out_of]),
                *_spread(1 - Fraction(ub + 1, m + 1), [k | {x} for x in out_of]),
            ]
        return [(1 - Fraction(lb, m + 1), k),
                *_spread(Fraction(lb, m + 1), [(k - {f}) | {e} for f in sorted(k)])]
    return psi


def fraction_psi_shuffle(p: Fraction) -> Psi:
    """One step of Algorithm 2 seen on the prefix: e lands at a uniform position r ≤ |D|+1."""
    def psi(k: Sample, d: Sample, e: str) -> list[tuple[Fraction, Sample]]:
        m = len(d)
        lb, ub = _bounds(p, m)
        out_of = sorted(d - k)
        if ub - lb == 1:
            return [
                (Fraction(1, m + 1), k | {e}),
                *_spread(Fraction(lb, m + 1),
                         [(k - {f}) | {e, x} for f in sorted(k) for x in out_of]),
                *_spread(1 - Fraction(ub, m + 1), [k | {x} for x in out_of]),
            ]
        return [(1 - Fraction(lb, m + 1), k),
                *_spread(Fraction(lb, m + 1), [(k - {f}) | {e} for f in sorted(k)])]
    return psi


def fraction_psi_coupled(p: Fraction) -> Psi:
    """A valid ψ for P_p with the smallest changes: |ψ Δ K| = 1 when the size grows."""
    def psi(k: Sample, d: Sample, e: str) -> list[tuple[Fraction, Sample]]:
        m = len(d)
        lb, ub = _bounds(p, m)
        if ub - lb == 1:
            return [(Fraction(ub, m + 1), k | {e}),
                    *_spread(1 - Fraction(ub, m + 1), [k | {x} for x in sorted(d - k)])]
        return [(1 - Fraction(lb, m + 1), k),
                *_spread(Fraction(lb, m + 1), [(k - {f}) | {e} for f in sorted(k)])]
    return psi


def records(m: int) -> tuple[Sample, str]:
    return frozenset(f"d{i}" for i in range(1, m + 1)), "e"


def pushforward(law: FiniteDist[Sample], psi: Psi, d: Sample, e: str) -> FiniteDist[Sample]:
    return FiniteDist.from_pairs(
        (k2, pk * q) for k, pk in law for q, k2 in psi(k, d, e)
    )


def characterises(law: Law, psi: Psi, m: int) -> bool:
    """Whether ψ_D(RS(D), e) has exactly the law of RS(D ∪ {e}) for |D| = m (raises
    IllDefined when the printed probabilities are not a distribution)."""
    d, e = records(m)
    return pushforward(law(d), psi, d, e).probs == law(d | {e}).probs


def delta_law(law: Law, psi: Psi, m: int) -> FiniteDist[int]:
    """Law of |ψ_D(K, e) Δ K| (the same for every K in the support, checked)."""
    d, e = records(m)
    laws = {
        k: FiniteDist.from_pairs((len(k2 ^ k), q) for q, k2 in psi(k, d, e))
        for k in law(d).support()
    }
    first = next(iter(laws.values()))
    if any(v.probs != first.probs for v in laws.values()):
        raise ValueError("|ψ Δ K| depends on K")
    return first


def partition_delta_law(law: Law, psi: Psi, m: int) -> FiniteDist[tuple[int, int]]:
    """Law of (|K Δ K'|, |K̄ Δ K̄'|) with K̄ = D ∖ K and K̄' = (D ∪ {e}) ∖ K'."""
    d, e = records(m)
    k = next(iter(law(d).support()))
    return FiniteDist.from_pairs(
        ((len(k2 ^ k), len(((d | {e}) - k2) ^ (d - k))), q) for q, k2 in psi(k, d, e)
    )
