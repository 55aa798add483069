"""Probability-proportional-to-size designs (Bun et al. §6.1 and §6.2).

Each record has a size measure (an auxiliary variable, e.g. a business's turnover) given
by its value: `sizes[value] > 0`. Inclusion probabilities then depend on the whole
population through the total size, which is what makes PPS data dependent
(bun/sec6.1:pps). Records of one type share a size, so laws stay over count vectors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.cluster import (
    check_ell,
    check_ell_vs_k,
    cluster_coords,
    cluster_vector,
)
from verifydp.designs.simple import (
    Poisson,
    check_int,
    embed,
    exact_fraction,
    independent_sum,
    type_coords,
)
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, RecordType, Universe


def check_sizes(sizes: object) -> dict[str, Fraction]:
    """A private, sorted copy of a {value: size measure} mapping; every size must be > 0."""
    if not isinstance(sizes, Mapping):
        raise DesignError(f"sizes must map record values to size measures, got {sizes!r}")
    out: dict[str, Fraction] = {}
    for v, s in sizes.items():
        if not isinstance(v, str):
            raise DesignError(f"record value must be a string, got {v!r}")
        size = exact_fraction(f"size measure of {v!r}", s)
        if size <= 0:
            raise DesignError(f"size measure of {v!r} must be positive, got {size}")
        out[v] = size
    return dict(sorted(out.items()))


def sizes_json(sizes: Mapping[str, Fraction]) -> dict[str, str]:
    return {v: str(s) for v, s in sizes.items()}


def type_sizes(pop: Population, sizes: Mapping[str, Fraction]) -> list[Fraction]:
    """The size measure of each population entry's type; refuses values without one."""
    missing = sorted({rt.value for rt, _ in pop.entries if rt.value not in sizes})
    if missing:
        raise DesignError(f"no size measure given for values {missing}")
    return [sizes[rt.value] for rt, _ in pop.entries]


@dataclass(frozen=True)
class PoissonPPS(Design):
    """Poisson PPS: record x kept independently w.p. pi(x) = min(1, n * size(x) / T(P)).

    Bun et al. §6.1 (bun/sec6.1:pps): n = expected_size, T(P) = total size measure of all
    records of P, so every inclusion probability depends on the data. Probabilities are
    capped at 1 without redistribution, so the expected sample size is at most n. The
    count law is a product of Binomial(c_i, pi_i) over types.
    """

    kind: ClassVar[str] = "poisson-pps"
    expected_size: Fraction
    sizes: Mapping[str, Fraction]

    def __post_init__(self) -> None:
        n = exact_fraction("expected_size", self.expected_size)
        if n < 0:
            raise DesignError(f"expected_size must be non-negative, got {n}")
        object.__setattr__(self, "expected_size", n)
        object.__setattr__(self, "sizes", check_sizes(self.sizes))

    def __hash__(self) -> int:  # dicts are unhashable; the design is immutable in practice
        return hash((self.kind, self.expected_size, frozenset(self.sizes.items())))

    def inclusion_probabilities(self, pop: Population) -> list[Fraction]:
        """pi for each entry of `pop`, in entry order."""
        per_type = type_sizes(pop, self.sizes)
        if not per_type:
            return []
        total = sum((s * c for s, (_, c) in zip(per_type, pop.entries)), Fraction(0))
        return [min(Fraction(1), self.expected_size * s / total) for s in per_type]

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        type_coords(pop, universe)  # refuse types outside the universe early
        groups: dict[Fraction, list[tuple[RecordType, int]]] = {}
        for pi, entry in zip(self.inclusion_probabilities(pop), pop.entries, strict=True):
            groups.setdefault(pi, []).append(entry)
        # types sharing a probability form one Poisson(pi) design on their records
        laws = (
            Poisson(pi).sample_law(Population(tuple(es)), universe) for pi, es in groups.items()
        )
        return independent_sum(laws, len(universe))

    def params(self) -> dict[str, Any]:
        return {"expected_size": str(self.expected_size), "sizes": sizes_json(self.sizes)}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> PoissonPPS:
        return cls(exact_fraction("expected_size", params["expected_size"]), params["sizes"])


@dataclass(frozen=True)
class SuccessivePPS(Design):
    """Fixed-size PPS without replacement by successive draws (Hájek's PPSWOR).

    m draws; each picks one of the remaining records with probability proportional to its
    size measure, so a type with c_i remaining records of size s_i is drawn w.p.
    c_i s_i / sum_j c_j s_j. A fixed-size instance of bun/sec6.1:pps. Records of a type are
    interchangeable, so the exact law is a forward recursion over the vector of remaining
    counts (each (remaining counts, draws left) state is expanded once); the sample is the
    initial counts minus the final remaining counts. With equal sizes it is SRSWOR.
    """

    kind: ClassVar[str] = "successive-pps"
    m: int
    sizes: Mapping[str, Fraction]

    def __post_init__(self) -> None:
        if check_int("m", self.m) < 0:
            raise DesignError(f"sample size m = {self.m} is negative")
        object.__setattr__(self, "sizes", check_sizes(self.sizes))

    def __hash__(self) -> int:
        return hash((self.kind, self.m, frozenset(self.sizes.items())))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords = type_coords(pop, universe)
        per_type = type_sizes(pop, self.sizes)
        start = tuple(c for _, c in coords)
        if self.m > sum(start):
            raise DesignError(f"m = {self.m} exceeds population size {sum(start)}")
        acc: dict[tuple[int, ...], Fraction] = {start: Fraction(1)}
        for _ in range(self.m):
            nxt: dict[tuple[int, ...], Fraction] = {}
            for rem, p in acc.items():
                weights = [c * s for c, s in zip(rem, per_type)]
                total = sum(weights, Fraction(0))
                for i, w in enumerate(weights):
                    if w:
                        key = (*rem[:i], rem[i] - 1, *rem[i + 1 :])
                        nxt[key] = nxt.get(key, Fraction(0)) + p * w / total
            acc = nxt
        idx = [i for i, _ in coords]
        dim = len(universe)
        return FiniteDist.from_pairs(
            (embed(dim, idx, [c0 - c for c0, c in zip(start, rem)]), p) for rem, p in acc.items()
        )

    def params(self) -> dict[str, Any]:
        return {"m": self.m, "sizes": sizes_json(self.sizes)}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> SuccessivePPS:
        return cls(int(params["m"]), params["sizes"])


@dataclass(frozen=True)
class ClusterPPS(Design):
    """PPS cluster sampling (Bun et al. §6.2, bun/sec6.2:pps-cluster).

    ell successive draws of clusters without replacement, each picking a remaining cluster
    with probability proportional to its number of records; the sample is every record
    of the chosen clusters. With ell = 1 this is C_PPS of §6.2 exactly. Cluster sizes are
    data, so adding a record to one cluster shifts every cluster's selection probability.
    Exact law by forward recursion over the set of clusters already drawn (a bitmask).
    """

    kind: ClassVar[str] = "cluster-pps"
    ell: int

    def __post_init__(self) -> None:
        check_ell(self.ell)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        dim = len(universe)
        clusters = list(cluster_coords(pop, universe, self.kind).values())
        k = len(clusters)
        check_ell_vs_k(self.ell, k)
        sizes = [sum(c for _, c in cs) for cs in clusters]
        n = sum(sizes)
        # state: bitmask of drawn clusters -> (probability, records drawn so far)
        acc: dict[int, tuple[Fraction, int]] = {0: (Fraction(1), 0)}
        for _ in range(self.ell):
            nxt: dict[int, tuple[Fraction, int]] = {}
            for mask, (p, drawn) in acc.items():
                left = n - drawn
                for j in range(k):
                    if not mask >> j & 1:
                        key = mask | 1 << j
                        q, _ = nxt.get(key, (Fraction(0), 0))
                        nxt[key] = (q + p * Fraction(sizes[j], left), drawn + sizes[j])
            acc = nxt
        vectors = [cluster_vector(cs, dim) for cs in clusters]

        def outcome(mask: int) -> CountVector:
            chosen = [vectors[j] for j in range(k) if mask >> j & 1]
            return tuple(map(sum, zip(*chosen, strict=True))) if chosen else (0,) * dim

        return FiniteDist.from_pairs((outcome(mask), p) for mask, (p, _) in acc.items())

    def params(self) -> dict[str, Any]:
        return {"ell": self.ell}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> ClusterPPS:
        return cls(int(params["ell"]))
