"""Test oracle: sample laws by brute force over individual records.

Each record of the population is a distinct individual (index 0..N-1), even when records
are identical; the oracle enumerates every selection of individuals and projects it to a
count vector. It shares no counting formula with the fast designs, only `round_allocation`
(tested on its own), so agreement checks the symmetry reduction. Exponential: tiny inputs only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from functools import singledispatch
from itertools import combinations, permutations, product

from verifydp.designs.allocation import LinearSizeRule, ProportionalWOR, round_allocation
from verifydp.designs.base import Design, DesignError
from verifydp.designs.cluster import ClusterSRS, TwoStageCluster
from verifydp.designs.pps import ClusterPPS, PoissonPPS, SuccessivePPS
from verifydp.designs.simple import SRSWOR, SRSWR, Poisson, RandomSizeWOR
from verifydp.designs.stratified import StratifiedFixed, StratifiedProportional
from verifydp.designs.systematic import SystematicFixed, SystematicRandomOrder
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, RecordType, Universe

MAX_RECORDS = 12
MAX_DRAW_SEQUENCES = 10**6  # SRSWR enumerates N^m ordered draws

# (individuals of one group, law of the number drawn from it without replacement)
Group = tuple[Sequence[int], FiniteDist[int]]


class _Records:
    """The population as individuals, each knowing its record type and universe slot."""

    def __init__(self, pop: Population, universe: Universe) -> None:
        index = {rt: i for i, rt in enumerate(universe)}
        self.types: list[RecordType] = pop.records()
        if len(self.types) > MAX_RECORDS:
            raise DesignError(
                f"naive oracle refuses N = {len(self.types)} records (limit {MAX_RECORDS})"
            )
        missing = sorted({rt for rt in self.types if rt not in index}, key=repr)
        if missing:
            raise DesignError(f"population has types outside the universe: {missing}")
        self.slot = [index[rt] for rt in self.types]
        self.dim = len(universe)

    @property
    def n(self) -> int:
        return len(self.types)

    def project(self, chosen: Iterable[int]) -> CountVector:
        v = [0] * self.dim
        for j in chosen:
            v[self.slot[j]] += 1
        return tuple(v)

    def by_stratum(self) -> dict[str | None, list[int]]:
        out: dict[str | None, list[int]] = {}
        for j, rt in enumerate(self.types):
            out.setdefault(rt.stratum, []).append(j)
        return out


def _uniform_subsets(individuals: Sequence[int], m: int) -> list[tuple[tuple[int, ...], int]]:
    """All m-subsets with the number of them (each has probability 1 / that number)."""
    if not 0 <= m <= len(individuals):
        raise DesignError(f"m = {m} exceeds population size {len(individuals)}")
    subsets = list(combinations(individuals, m))
    return [(s, len(subsets)) for s in subsets]


def _independent_wor(recs: _Records, groups: Sequence[Group]) -> FiniteDist[CountVector]:
    """Each group independently: draw its size, then a uniform subset of that size."""

    def outcomes() -> Iterator[tuple[CountVector, Fraction]]:
        for sizes in product(*(list(law) for _, law in groups)):
            p_sizes = Fraction(1)
            for _, p in sizes:
                p_sizes *= p
            choices = [
                _uniform_subsets(ind, m) for (ind, _), (m, _) in zip(groups, sizes, strict=True)
            ]
            for picks in product(*choices):
                p = p_sizes
                for _, count in picks:
                    p /= count
                yield recs.project(j for s, _ in picks for j in s), p

    return FiniteDist.from_pairs(outcomes())


@singledispatch
def naive_sample_law(
    design: Design, pop: Population, universe: Universe
) -> FiniteDist[CountVector]:
    """Brute-force sample law of `design` on `pop`, for cross-checking `design.sample_law`."""
    raise DesignError(f"no naive oracle for design kind {design.kind!r}")


@naive_sample_law.register
def _(design: Poisson, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs, q = _Records(pop, universe), design.q
    return FiniteDist.from_pairs(
        (
            recs.project(j for j, keep in enumerate(mask) if keep),
            q ** sum(mask) * (1 - q) ** (recs.n - sum(mask)),
        )
        for mask in product((False, True), repeat=recs.n)
    )


@naive_sample_law.register
def _(design: SRSWOR, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    return _independent_wor(recs, [(range(recs.n), FiniteDist.point(design.m))])


@naive_sample_law.register
def _(design: SRSWR, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs, m = _Records(pop, universe), design.m
    if recs.n == 0 and m > 0:
        raise DesignError(f"cannot draw m = {m} records from an empty population")
    if recs.n**m > MAX_DRAW_SEQUENCES:
        raise DesignError(f"naive oracle refuses {recs.n}^{m} draw sequences")
    weight = Fraction(1, recs.n**m) if m else Fraction(1)
    return FiniteDist.from_pairs(
        (recs.project(draws), weight) for draws in product(range(recs.n), repeat=m)
    )


@naive_sample_law.register
def _(design: RandomSizeWOR, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    return _independent_wor(recs, [(range(recs.n), design.size_law)])


@naive_sample_law.register
def _(design: ProportionalWOR, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    law = round_allocation(design.r * recs.n, design.rounding)
    return _independent_wor(recs, [(range(recs.n), law)])


@naive_sample_law.register
def _(design: LinearSizeRule, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    hits = sum(1 for rt in recs.types if rt.value == design.value)
    m = min(max(design.base + design.slope * hits, 0), recs.n)
    return _independent_wor(recs, [(range(recs.n), FiniteDist.point(m))])


@naive_sample_law.register
def _(
    design: StratifiedProportional, pop: Population, universe: Universe
) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    groups = [
        (ind, round_allocation(design.r * len(ind), design.rounding))
        for ind in recs.by_stratum().values()
    ]
    return _independent_wor(recs, groups)


@naive_sample_law.register
def _(design: StratifiedFixed, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    strata = recs.by_stratum()
    if None in strata:
        raise DesignError("stratified-fixed needs a stratum label on every record")
    unknown = sorted(h for h in strata if h not in design.sizes)  # type: ignore[operator]
    if unknown:
        raise DesignError(f"no sample size given for strata {unknown}")
    groups = [(strata.get(h, []), FiniteDist.point(m)) for h, m in design.sizes.items()]
    return _independent_wor(recs, groups)


# --- cluster, PPS and systematic designs (Bun et al. §5 and §6) ---

MAX_PERMUTED_RECORDS = 7  # the systematic-random oracle enumerates all N! orders


def _clusters(recs: _Records, kind: str) -> list[list[int]]:
    """Individuals grouped by cluster label (sorted labels); refuses unlabelled records."""
    out: dict[str, list[int]] = {}
    for j, rt in enumerate(recs.types):
        if rt.cluster is None:
            raise DesignError(f"{kind} needs a cluster label on every record")
        out.setdefault(rt.cluster, []).append(j)
    return [out[h] for h in sorted(out)]


def _check_ell(ell: int, clusters: Sequence[Sequence[int]]) -> None:
    if ell > len(clusters):
        raise DesignError(f"ell = {ell} exceeds the number of clusters k = {len(clusters)}")


def _successive(weights: Sequence[Fraction], m: int) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every ordered sequence of m distinct units with its probability under successive
    draws, each draw proportional to weight among the units not drawn yet."""
    if m > len(weights):
        raise DesignError(f"m = {m} exceeds population size {len(weights)}")

    def extend(
        seq: tuple[int, ...], p: Fraction, left: Fraction
    ) -> Iterator[tuple[tuple[int, ...], Fraction]]:
        if len(seq) == m:
            yield seq, p
            return
        for j, w in enumerate(weights):
            if j not in seq:
                yield from extend((*seq, j), p * w / left, left - w)

    yield from extend((), Fraction(1), sum(weights, Fraction(0)))


def _size_measures(recs: _Records, sizes: dict[str, Fraction]) -> list[Fraction]:
    missing = sorted({rt.value for rt in recs.types if rt.value not in sizes})
    if missing:
        raise DesignError(f"no size measure given for values {missing}")
    return [sizes[rt.value] for rt in recs.types]


@naive_sample_law.register
def _(design: ClusterSRS, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    clusters = _clusters(recs, design.kind)
    _check_ell(design.ell, clusters)
    subsets = list(combinations(clusters, design.ell))
    return FiniteDist.from_pairs(
        (recs.project(j for c in chosen for j in c), Fraction(1, len(subsets)))
        for chosen in subsets
    )


@naive_sample_law.register
def _(design: TwoStageCluster, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    clusters = _clusters(recs, design.kind)
    _check_ell(design.ell, clusters)
    subsets = list(combinations(clusters, design.ell))

    def outcomes() -> Iterator[tuple[CountVector, Fraction]]:
        for chosen in subsets:
            w = Fraction(1, len(subsets))
            if design.within == "poisson":
                q = Fraction(design.param)
                members = [j for c in chosen for j in c]
                for mask in product((False, True), repeat=len(members)):
                    kept = [j for j, keep in zip(members, mask) if keep]
                    yield (
                        recs.project(kept),
                        w * q ** len(kept) * (1 - q) ** (len(members) - len(kept)),
                    )
            else:
                m = int(design.param)
                choices = [_uniform_subsets(c, min(m, len(c))) for c in chosen]
                for picks in product(*choices):
                    p = w
                    for _, count in picks:
                        p /= count
                    yield recs.project(j for s, _ in picks for j in s), p

    return FiniteDist.from_pairs(outcomes())


@naive_sample_law.register
def _(design: PoissonPPS, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    size = _size_measures(recs, dict(design.sizes))
    total = sum(size, Fraction(0))
    pi = [min(Fraction(1), design.expected_size * s / total) for s in size]

    def outcomes() -> Iterator[tuple[CountVector, Fraction]]:
        for mask in product((False, True), repeat=recs.n):
            p = Fraction(1)
            for j, keep in enumerate(mask):
                p *= pi[j] if keep else 1 - pi[j]
            yield recs.project(j for j, keep in enumerate(mask) if keep), p

    return FiniteDist.from_pairs(outcomes())


@naive_sample_law.register
def _(design: SuccessivePPS, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    size = _size_measures(recs, dict(design.sizes))
    return FiniteDist.from_pairs((recs.project(seq), p) for seq, p in _successive(size, design.m))


@naive_sample_law.register
def _(design: ClusterPPS, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    clusters = _clusters(recs, design.kind)
    _check_ell(design.ell, clusters)
    weights = [Fraction(len(c)) for c in clusters]
    return FiniteDist.from_pairs(
        (recs.project(j for i in seq for j in clusters[i]), p)
        for seq, p in _successive(weights, design.ell)
    )


@naive_sample_law.register
def _(design: SystematicFixed, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    order = sorted(range(recs.n), key=lambda j: recs.types[j].key())  # stable: copies adjacent
    step = design.interval
    return FiniteDist.from_pairs(
        (recs.project(order[s::step]), Fraction(1, step)) for s in range(step)
    )


@naive_sample_law.register
def _(
    design: SystematicRandomOrder, pop: Population, universe: Universe
) -> FiniteDist[CountVector]:
    recs = _Records(pop, universe)
    if recs.n > MAX_PERMUTED_RECORDS:
        raise DesignError(
            f"naive oracle refuses {recs.n}! orders (limit N = {MAX_PERMUTED_RECORDS})"
        )
    orders = list(permutations(range(recs.n)))
    step = design.interval
    weight = Fraction(1, len(orders) * step)
    return FiniteDist.from_pairs(
        (recs.project(order[s::step]), weight) for order in orders for s in range(step)
    )


# --- two-stage MUST designs (Zhao & Liu, Definition 4): individual draw sequences ---

from verifydp.designs.must import MustOW, MustWO, MustWW  # noqa: E402


def _check_sequences(count: int, what: str) -> None:
    if count > MAX_DRAW_SEQUENCES:
        raise DesignError(f"naive oracle refuses {count} {what}")


@naive_sample_law.register
def _(design: MustOW, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs, b, m = _Records(pop, universe), design.b, design.m
    if b > recs.n:
        raise DesignError(f"MUST.OW: stage-1 size b = {b} exceeds population size {recs.n}")
    firsts = list(combinations(range(recs.n), b))
    _check_sequences(len(firsts) * b**m, "MUST.OW draw sequences")
    weight = Fraction(1, len(firsts) * b**m)
    return FiniteDist.from_pairs(
        (recs.project(first[i] for i in seconds), weight)
        for first in firsts
        for seconds in product(range(b), repeat=m)
    )


def _wr_firsts(recs: _Records, b: int, label: str) -> list[tuple[int, ...]]:
    if recs.n == 0 and b > 0:
        raise DesignError(f"{label}: cannot draw b = {b} records from an empty population")
    _check_sequences(recs.n**b, f"{label} stage-1 sequences")
    return list(product(range(recs.n), repeat=b))


@naive_sample_law.register
def _(design: MustWO, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs, b, m = _Records(pop, universe), design.b, design.m
    firsts = _wr_firsts(recs, b, "MUST.WO")
    positions = list(combinations(range(b), m))
    _check_sequences(len(firsts) * len(positions), "MUST.WO draw sequences")
    weight = Fraction(1, len(firsts) * len(positions))
    return FiniteDist.from_pairs(
        (recs.project(first[i] for i in chosen), weight)
        for first in firsts
        for chosen in positions
    )


@naive_sample_law.register
def _(design: MustWW, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
    recs, b, m = _Records(pop, universe), design.b, design.m
    firsts = _wr_firsts(recs, b, "MUST.WW")
    _check_sequences(len(firsts) * b**m, "MUST.WW draw sequences")
    weight = Fraction(1, len(firsts) * b**m)
    return FiniteDist.from_pairs(
        (recs.project(first[i] for i in seconds), weight)
        for first in firsts
        for seconds in product(range(b), repeat=m)
    )
