"""Truncated exact laws of K (copies of the differing record) for the per-step pairs.

MUST §3.3 / S5 / S6: the pair is Σ_l Pr(K = l) N(±l, σ²) (Poisson: Σ vs N(0, σ²)).  For
large designs (Table 8: n = 30969, b = 500, m = 300) the full law of K has hundreds of terms
with huge denominators, and `designs.must.k_law` for MUST.WW takes about a minute; the tail
is astronomically small.  `truncated_law` keeps the terms l ≤ l_cut (and, for MUST.WW, the
stage-one counts j ≤ j_cut) *exactly* and returns the rest as one exact mass τ.

Why τ can be handled separately (used in `claims.must_alg1`): write
(P, Q) = (1 − τ)(P₀, Q₀) + τ(R, R') with the *same* mixing index (the kept terms, normalised,
and the rest).  Revealing the index is extra output, so it can only increase δ; with the index
revealed, the k-fold pair is a mixture over index patterns, and every pattern containing a
"rest" step has δ ≤ 1.  Hence δ ≤ δ₀ + kτ.  Conversely the event optimal for (P₀^k, Q₀^k)
gives δ ≥ (1 − τ)^k δ₀ − e^ε (1 − (1 − τ)^k) ≥ δ₀ − kτ(1 + e^ε).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from verifydp.designs.must import k_law

NAMES = {"Poisson": "poisson", "WOR": "wor", "WR": "wr", "MUST.WO": "must-wo",
         "MUST.OW": "must-ow", "MUST.WW": "must-ww"}
_TAIL = Fraction(1, 2**100)


@dataclass(frozen=True)
class Law:
    """Kept exact weights (l, Pr(K = l)) and the exact remaining mass tau."""

    weights: tuple[tuple[int, Fraction], ...]
    tau: Fraction

    def normalised(self) -> tuple[tuple[int, Fraction], ...]:
        keep = 1 - self.tau
        return tuple((l, w / keep) for l, w in self.weights)  # noqa: E741


def _binom(m: int, p: Fraction, lcut: int) -> list[Fraction]:
    return [comb(m, l) * p**l * (1 - p) ** (m - l) for l in range(min(m, lcut) + 1)]  # noqa: E741


def _cut_binom(m: int, p: Fraction) -> int:
    """Smallest c with the union bound C(m, c+1) p^{c+1} ≥ Pr(Bin(m, p) > c) below _TAIL."""
    c = 0
    while c < m and comb(m, c + 1) * p ** (c + 1) > _TAIL:
        c += 1
    return c


@functools.lru_cache(maxsize=64)
def truncated_law(scheme: str, n: int, b: int | None, m: int) -> Law:
    """Law of K for `scheme` (table names or design keys), tail mass below about 2^-90.
    Cached: a Law is immutable, and MUST.WW's at Table 8's size takes 0.3 s to build."""
    key = NAMES.get(scheme, scheme)
    if key in ("poisson", "wor"):
        q = Fraction(m, n)  # Poisson(γ = m/n), S6; WOR: Bernoulli(m/n)
        return Law(((0, 1 - q), (1, q)), Fraction(0))
    if key == "wr":
        w = _binom(m, Fraction(1, n), _cut_binom(m, Fraction(1, n)))
    elif key == "must-ow":
        assert b is not None
        inner = _binom(m, Fraction(1, b), _cut_binom(m, Fraction(1, b)))
        w = [Fraction(b, n) * x for x in inner]
        w[0] += 1 - Fraction(b, n)
    elif key == "must-ww":
        assert b is not None
        jcut = _cut_binom(b, Fraction(1, n))
        lcut = _cut_binom(m, Fraction(jcut, b))
        w = [Fraction(0)] * (lcut + 1)
        for j, pj in enumerate(_binom(b, Fraction(1, n), jcut)):
            for l, pl in enumerate(_binom(m, Fraction(j, b), lcut)):  # noqa: E741
                w[l] += pj * pl
    else:
        law = k_law(key, n, b, m)
        w = [Fraction(0)] * (max(law.probs) + 1)
        for l, p in law.probs.items():  # noqa: E741
            w[l] = Fraction(p)
    # drop the top terms while their total stays below _TAIL (they join tau)
    top, dropped = len(w), Fraction(0)
    while top > 2 and dropped + w[top - 1] < _TAIL:
        top -= 1
        dropped += w[top]
    kept = tuple((l, x) for l, x in enumerate(w[:top]) if x)  # noqa: E741
    return Law(kept, 1 - sum(x for _, x in kept))


_MERGED = Fraction(1, 2**30)  # `count_labels`: label weight merged into one branch


def count_labels(drawn: list[tuple[int, Fraction]]) -> list[tuple[Fraction, int, str]]:
    """The copy count l given K ≥ 1 as branch labels (weight, count, name), from the kept
    terms (l, Pr(K = l)), l ≥ 1, of a truncated law: weights normalised, and the largest
    counts whose weights sum to at most 2^-30 of the total share one branch at the largest
    count (its shift dominates each of theirs; each branch costs a certified lattice)."""
    kept = sum((w for _, w in drawn), Fraction(0))
    top, rest = len(drawn), Fraction(0)
    while top > 1 and rest + drawn[top - 1][1] <= _MERGED * kept:
        top -= 1
        rest += drawn[top][1]
    labels = [(w / kept, k, f"{k} cop{'y' if k == 1 else 'ies'}") for k, w in drawn[:top]]
    if rest:
        labels.append((rest / kept, drawn[-1][0], f"{drawn[top][0]}–{drawn[-1][0]} copies, at "
                                                  f"{drawn[-1][0]}"))
    return labels

