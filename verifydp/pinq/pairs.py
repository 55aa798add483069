"""Samplers and their partition versions on the canonical neighbouring pair (ebadi §4).

Pair. D = {a × m}, D' = D ∪ {x} (add-remove, Definition 1). Every sampler here treats records
symmetrically, so by orbit averaging (docs/foundations.md#fact-4) this pair is the worst among pairs
with |D| = m; instances are indexed by m.

Single sampler: the exact sup over all ε-DP M of the privacy loss of M∘RS is the engine's
`worst_case_ratio` on the two sample laws.

Partition Ŕ̂S (K, K̄ = D ∖ K) followed by ⟨M1, M2⟩ with M1, M2 ε-DP (Theorem 2.3's pairs):

* upper bound: the engine on the laws of the concatenated count vector (K, K̄) under
  add-remove, where one coordinate ±1 is exactly "one part gains or loses one record". That LP
  ranges over every mechanism that is ε-DP on pairs, which contains every ⟨M1, M2⟩ (Thm 2.3);
* lower bound: a concrete ⟨M1, M2⟩, Mi = Σ_x w_i(x) over its part plus geometric noise with
  w_i ∈ {−1, 0, 1} (so each is exactly ε-DP), best over all weights, computed exactly as a
  PINQ plan; `product_plan` builds that plan for the witness.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from verifydp.designs.base import Design
from verifydp.exact.dist import FiniteDist
from verifydp.pinq.loss import stats_loss
from verifydp.pinq.plan import Dataset, Plan, PlanBuilder
from verifydp.population import CountVector, Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, WorstCase, worst_case_ratio

A, X = RecordType("a"), RecordType("x")
UNIVERSE = (A, X)


def canonical_pair(m: int) -> PopulationPair:
    return PopulationPair(Population.of({A: m}), Population.of({A: m, X: 1}), Relation.ADD_REMOVE)


def datasets(m: int) -> tuple[Dataset, Dataset]:
    return ("a",) * m, ("a",) * m + ("x",)


def partition_law(design: Design, pop: Population) -> FiniteDist[CountVector]:
    """Law of (K, K̄) as one count vector (k_a, k_x, k̄_a, k̄_x)."""
    full = pop.counts_over(UNIVERSE)
    return design.sample_law(pop, UNIVERSE).map(
        lambda c: (*c, *(n - k for n, k in zip(full, c, strict=True)))
    )


def sampler_worst(design: Design, m: int, t: Fraction) -> WorstCase:
    pair = canonical_pair(m)
    return worst_case_ratio(
        design.sample_law(pair.p, UNIVERSE), design.sample_law(pair.q, UNIVERSE),
        MechanismClass.pure(Relation.ADD_REMOVE, t),
    )


@lru_cache(maxsize=512)  # claims judge several printed bounds on the same instances
def pair_upper(design: Design, m: int, t_lo: Fraction, t_hi: Fraction) -> WorstCase:
    """Certified bracket of the sup over all pair-ε-DP mechanisms (an upper bound for
    ⟨M1, M2⟩), with t_lo ≤ e^ε ≤ t_hi."""
    pair = canonical_pair(m)
    return worst_case_ratio(
        partition_law(design, pair.p), partition_law(design, pair.q),
        MechanismClass(Relation.ADD_REMOVE, t_lo, t_hi),
    )


Weights = tuple[int, int]  # weight of a, weight of x
# w and −w give mirror-image outputs (same loss), so one of each pair suffices
PART_WEIGHTS: tuple[Weights, ...] = ((0, 0), (0, 1), (1, 0), (1, 1), (1, -1))


@dataclass(frozen=True)
class ProductLower:
    ratio: Fraction  # exact e^{loss} of ⟨M1, M2⟩∘R̂S at t
    w1: Weights
    w2: Weights


def _stats(law: FiniteDist[CountVector], w1: Weights, w2: Weights) -> FiniteDist[tuple[int, ...]]:
    return law.map(lambda c: (w1[0] * c[0] + w1[1] * c[1], w2[0] * c[2] + w2[1] * c[3]))


@lru_cache(maxsize=512)
def product_lower(design: Design, m: int, t: Fraction) -> ProductLower:
    """Best concrete ⟨M1, M2⟩ over weights in {−1, 0, 1}: an exact lower bound at t."""
    pair = canonical_pair(m)
    law_d, law_dp = partition_law(design, pair.p), partition_law(design, pair.q)
    best: ProductLower | None = None
    for w1, w2 in itertools.product(PART_WEIGHTS, repeat=2):
        r = stats_loss(_stats(law_d, w1, w2), _stats(law_dp, w1, w2), (t, t)).ratio
        assert r is not None  # geometric noise has full support
        if best is None or r > best.ratio:
            best = ProductLower(r, w1, w2)  # type: ignore[arg-type]
    assert best is not None
    return best


def product_plan(design: Design, w1: Weights, w2: Weights) -> Plan:
    """The PINQ plan of `product_lower`: partition by the sampler, a noisy sum on each part."""
    b = PlanBuilder()
    parts = b.add("partition-sample", b.add("source"), design=design.to_json())
    for key, w in (("sample", w1), ("rest", w2)):
        b.add("noisy-sum", b.add("part", parts, key=key), eps=1, weights={"a": w[0], "x": w[1]})
    return b.build()


def sampler_plan(design: Design, weights: Weights, double: bool = False) -> Plan:
    """M∘RS with M a noisy sum (weights on a, x); `double`: M∘Union(S, S)∘RS (a 2-stable
    transformation after the sampler, ebadi Prop. 4.2)."""
    b = PlanBuilder()
    s = b.add("sample", b.add("source"), design=design.to_json())
    if double:
        s = b.add("union", s, s)
    b.add("noisy-sum", s, eps=1, weights={"a": weights[0], "x": weights[1]})
    return b.build()
