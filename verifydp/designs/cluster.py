"""Cluster designs: whole clusters are sampled, then (optionally) records within them.

Bun et al. ("Controlling Privacy Loss in Sampling Schemes") §5 and §6.2. Clusters are the
`RecordType.cluster` labels (the label alone identifies a cluster, whatever the strata);
every record must carry one. A record type belongs to exactly one cluster, so clusters
occupy disjoint coordinates of the count vector and the sample law is a mixture, over
the chosen clusters, of products of per-cluster laws. The laws are built cluster by
cluster (never record by record): a cluster contributes a count vector, not individuals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import (
    Coords,
    Poisson,
    check_int,
    embed,
    exact_fraction,
    hypergeometric_law,
    type_coords,
)
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


def cluster_coords(pop: Population, universe: Universe, kind: str) -> dict[str, Coords]:
    """The population's types grouped by cluster label, labels in sorted order.

    Refuses records without a cluster label: a cluster design has no rule for them.
    """
    groups: dict[str, list[tuple[int, int]]] = {}
    unlabelled = []
    for i, c in type_coords(pop, universe):
        label = universe[i].cluster
        if label is None:
            unlabelled.append(universe[i])
        else:
            groups.setdefault(label, []).append((i, c))
    if unlabelled:
        raise DesignError(
            f"{kind} needs a cluster label on every record; unlabelled types: {unlabelled}"
        )
    return {h: tuple(groups[h]) for h in sorted(groups)}


def cluster_vector(coords: Coords, dim: int) -> CountVector:
    """All records of one cluster as a count vector."""
    return embed(dim, [i for i, _ in coords], [c for _, c in coords])


def check_ell(ell: object) -> int:
    if check_int("ell", ell) < 0:
        raise DesignError(f"number of clusters ell = {ell} is negative")
    return ell  # type: ignore[return-value]


def check_ell_vs_k(ell: int, k: int) -> None:
    if ell > k:
        raise DesignError(f"ell = {ell} exceeds the number of clusters k = {k}")


def uniform_clusters_law(
    cluster_laws: Sequence[FiniteDist[CountVector]], ell: int, dim: int
) -> FiniteDist[CountVector]:
    """Choose ell of the k clusters uniformly; each chosen one adds an independent draw.

    Dynamic programme over the clusters with state (clusters chosen so far, partial count
    vector): equal partial vectors merge early, and a branch is pruned as soon as too few
    clusters remain to reach ell, so every surviving state ends with exactly ell chosen.
    Each ell-subset has weight 1 in the programme; dividing by C(k, ell) normalises.
    """
    k = len(cluster_laws)
    check_ell_vs_k(ell, k)
    acc: dict[tuple[int, CountVector], Fraction] = {(0, (0,) * dim): Fraction(1)}
    for j, law in enumerate(cluster_laws):
        left_after = k - j - 1
        nxt: dict[tuple[int, CountVector], Fraction] = {}
        for (t, v), p in acc.items():
            if ell - t <= left_after:  # skip cluster j
                nxt[(t, v)] = nxt.get((t, v), Fraction(0)) + p
            if t < ell:  # take cluster j
                for w, q in law:
                    key = (t + 1, tuple(a + b for a, b in zip(v, w, strict=True)))
                    nxt[key] = nxt.get(key, Fraction(0)) + p * q
        acc = nxt
    total = comb(k, ell)
    return FiniteDist.from_pairs((v, p / total) for (_, v), p in acc.items())


@dataclass(frozen=True)
class ClusterSRS(Design):
    """Single-stage cluster sampling C_ell (Bun et al. §5.1; bun/thm5.1, bun/thm5.2).

    Choose ell of the k clusters uniformly without replacement and keep every record of
    the chosen clusters. Each ell-subset of clusters gives a distinct count vector, so
    the law has exactly C(k, ell) outcomes of probability 1 / C(k, ell). Large clusters
    make the chosen subset detectable, which is why amplification vanishes (bun/thm5.1).
    """

    kind: ClassVar[str] = "cluster-srs"
    ell: int

    def __post_init__(self) -> None:
        check_ell(self.ell)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        dim = len(universe)
        clusters = cluster_coords(pop, universe, self.kind)
        laws = [FiniteDist.point(cluster_vector(cs, dim)) for cs in clusters.values()]
        return uniform_clusters_law(laws, self.ell, dim)

    def params(self) -> dict[str, Any]:
        return {"ell": self.ell}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> ClusterSRS:
        return cls(int(params["ell"]))


WITHIN = ("poisson", "srs")


@dataclass(frozen=True)
class TwoStageCluster(Design):
    """Two-stage cluster sampling (Bun et al. end of §5): clusters, then records in them.

    Stage 1 chooses ell of the k clusters uniformly without replacement (as `ClusterSRS`,
    bun/thm5.2). Stage 2, independently in each chosen cluster: within = "poisson" keeps
    each record with probability param = q; within = "srs" draws an SRSWOR of
    min(param, |C|) records (the whole cluster if it is smaller than param = m).
    """

    kind: ClassVar[str] = "two-stage-cluster"
    ell: int
    within: str
    param: Fraction | int

    def __post_init__(self) -> None:
        check_ell(self.ell)
        if self.within not in WITHIN:
            raise DesignError(f"unknown within-cluster design {self.within!r}; use one of {WITHIN}")
        if self.within == "poisson":
            q = exact_fraction("q", self.param)
            if not 0 <= q <= 1:
                raise DesignError(f"sampling probability must be in [0, 1], got q = {q}")
            object.__setattr__(self, "param", q)
        elif check_int("m", self.param) < 0:
            raise DesignError(f"within-cluster sample size m = {self.param} is negative")

    def cluster_law(self, coords: Coords, universe: Universe) -> FiniteDist[CountVector]:
        """Law of the stage-2 sample from one chosen cluster."""
        if self.within == "poisson":
            sub = Population(tuple((universe[i], c) for i, c in coords))
            return Poisson(self.param).sample_law(sub, universe)
        n = sum(c for _, c in coords)
        return hypergeometric_law(coords, min(int(self.param), n), len(universe))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        clusters = cluster_coords(pop, universe, self.kind)
        check_ell_vs_k(self.ell, len(clusters))
        laws = [self.cluster_law(cs, universe) for cs in clusters.values()]
        return uniform_clusters_law(laws, self.ell, len(universe))

    def params(self) -> dict[str, Any]:
        param: str | int = str(self.param) if self.within == "poisson" else self.param
        return {"ell": self.ell, "within": self.within, "param": param}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> TwoStageCluster:
        within = str(params["within"])
        raw = params["param"]
        param = exact_fraction("q", raw) if within == "poisson" else int(raw)
        return cls(int(params["ell"]), within, param)
