"""Cluster, PPS and systematic designs (Bun et al. §5, §6) against the brute-force oracle."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction as F
from itertools import product
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracles.naive_designs import naive_sample_law
from verifydp.designs import (
    SRSWOR,
    ClusterPPS,
    ClusterSRS,
    Design,
    DesignError,
    PoissonPPS,
    SuccessivePPS,
    SystematicFixed,
    SystematicRandomOrder,
    TwoStageCluster,
)
from verifydp.population import Population, RecordType, universe_of

DESIGN_CLASSES = (ClusterSRS, TwoStageCluster, PoissonPPS, SuccessivePPS, ClusterPPS)
DESIGN_CLASSES += (SystematicFixed, SystematicRandomOrder)
KINDS = sorted(cls.kind for cls in DESIGN_CLASSES)
ABSENT = RecordType("z", cluster="k9")  # in every universe, never in a population

SIZES = [{"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": F(7, 2)}, {"a": 5, "b": F(1, 3), "c": 1}]
EXPECTED = [F(1), F(7, 2)]  # 7/2 caps some inclusion probabilities at 1
QS = [F(1, 3)]  # q = 0 and q = 1 are checked separately below


def populations(types: Sequence[RecordType], max_n: int) -> Iterator[Population]:
    for counts in product(range(max_n + 1), repeat=len(types)):
        if sum(counts) <= max_n:
            yield Population.of(zip(types, counts, strict=True))


def n_clusters(pop: Population) -> int:
    return len({rt.cluster for rt in pop.types()})


def assert_matches_oracle(design: Design, pop: Population) -> None:
    universe = tuple(sorted({*pop.types(), ABSENT}))
    fast = design.sample_law(pop, universe)
    assert fast == naive_sample_law(design, pop, universe), (design.describe(), pop)


def cluster_designs(pop: Population) -> Iterator[Design]:
    k = n_clusters(pop)
    for ell in range(k + 1):
        yield ClusterSRS(ell)
        yield ClusterPPS(ell)
        yield from (TwoStageCluster(ell, "poisson", q) for q in QS)
        yield from (TwoStageCluster(ell, "srs", m) for m in (0, 1, 3))


def pps_designs(pop: Population) -> Iterator[Design]:
    for sizes in SIZES:
        yield from (PoissonPPS(e, sizes) for e in EXPECTED)
        # the oracle enumerates N!/(N-m)! ordered draws per m: N <= 6, one size law at N = 6
        if pop.size <= 5 or (pop.size == 6 and sizes is SIZES[1]):
            yield from (SuccessivePPS(m, sizes) for m in range(pop.size + 1))


def systematic_designs(pop: Population) -> Iterator[Design]:
    yield from (SystematicFixed(i) for i in range(1, pop.size + 3))


# --- exhaustive: every population with N <= 7 in each family ---

TWO_BY_TWO = [RecordType(v, cluster=h) for v in "ab" for h in ("k1", "k2")]
ONE_BY_FOUR = [RecordType("a", cluster=f"k{j}") for j in range(1, 5)]
THREE_BY_THREE = [RecordType(v, cluster=f"k{j}") for v in "abc" for j in range(1, 4)]
FLAT = [RecordType(v) for v in "abc"]

CLUSTER_POPS = [
    *populations(TWO_BY_TWO, 7),  # 2 values x 2 clusters
    *populations(ONE_BY_FOUR, 7),  # 1 value x 4 clusters
    *populations(THREE_BY_THREE, 3),  # 3 values x 3 clusters, N <= 3
]
FLAT_POPS = list(populations(FLAT, 7))


def test_exhaustive_cluster_designs() -> None:
    assert len(CLUSTER_POPS) == 330 + 330 + 220
    for pop in CLUSTER_POPS:
        for design in cluster_designs(pop):
            assert_matches_oracle(design, pop)


def test_exhaustive_pps_designs() -> None:
    for pop in [*FLAT_POPS, *populations(TWO_BY_TWO, 4)]:
        for design in pps_designs(pop):
            assert_matches_oracle(design, pop)


def test_exhaustive_systematic_fixed() -> None:
    for pop in [*FLAT_POPS, *populations(TWO_BY_TWO, 7)]:
        for design in systematic_designs(pop):
            assert_matches_oracle(design, pop)


def test_systematic_random_order_is_mixture_of_srswor() -> None:
    """The oracle enumerates all N! orders x all starts: N <= 5 over 3 values, 6 over 2."""
    for pop in [*populations(FLAT, 5), *populations(FLAT[:2], 6)]:
        for interval in range(1, pop.size + 3):
            assert_matches_oracle(SystematicRandomOrder(interval), pop)


# --- hypothesis: random small clustered populations and designs ---

small_fracs = st.builds(F, st.integers(0, 6), st.integers(1, 6)).filter(lambda x: x <= 1)
size_measures = st.builds(F, st.integers(1, 6), st.integers(1, 3))


@st.composite
def clustered_populations(draw: st.DrawFn, max_n: int = 7) -> Population:
    types = st.builds(
        RecordType,
        st.sampled_from("abc"),
        st.sampled_from([None, "s"]),
        st.sampled_from(["k1", "k2", "k3", "k4"]),
    )
    counts = draw(st.dictionaries(types, st.integers(1, 4), max_size=5))
    pop = Population.of(counts)
    while pop.size > max_n:  # keep the oracle cheap: drop types until N <= max_n
        pop = Population(pop.entries[1:])
    return pop


@st.composite
def cases(draw: st.DrawFn) -> tuple[Design, Population]:
    kind = draw(st.sampled_from(KINDS))
    pop = draw(clustered_populations(max_n=6 if kind == "systematic-random" else 7))
    n, k = pop.size, n_clusters(pop)
    sizes = draw(st.fixed_dictionaries({v: size_measures for v in "abc"}))
    design: Design
    if kind == "cluster-srs":
        design = ClusterSRS(draw(st.integers(0, k)))
    elif kind == "cluster-pps":
        design = ClusterPPS(draw(st.integers(0, k)))
    elif kind == "two-stage-cluster":
        ell = draw(st.integers(0, k))
        if draw(st.booleans()):
            design = TwoStageCluster(ell, "poisson", draw(small_fracs))
        else:
            design = TwoStageCluster(ell, "srs", draw(st.integers(0, 4)))
    elif kind == "poisson-pps":
        design = PoissonPPS(draw(st.builds(F, st.integers(0, 12), st.integers(1, 3))), sizes)
    elif kind == "successive-pps":
        design = SuccessivePPS(draw(st.integers(0, n)), sizes)
    elif kind == "systematic-fixed":
        design = SystematicFixed(draw(st.integers(1, n + 2)))
    else:
        design = SystematicRandomOrder(draw(st.integers(1, n + 2)))
    return design, pop


@settings(derandomize=True, max_examples=300, deadline=None)
@given(cases())
def test_random_cases_match_oracle(case: tuple[Design, Population]) -> None:
    assert_matches_oracle(*case)


# --- structure: known special cases and concrete laws ---


def clustered(*sizes: int, value: str = "a") -> Population:
    return Population.of({RecordType(value, cluster=f"k{j}"): c for j, c in enumerate(sizes)})


def test_cluster_srs_eight_clusters_is_fast() -> None:
    pop = clustered(1, 2, 3, 4, 1, 2, 3, 4)
    universe = universe_of(pop)
    start = time.perf_counter()
    law = ClusterSRS(3).sample_law(pop, universe)
    assert time.perf_counter() - start < 0.1
    assert len(law) == comb(8, 3)
    assert set(law.probs.values()) == {F(1, 56)}
    assert law.expectation(sum) == F(3, 8) * 20  # each cluster is chosen w.p. ell / k


def test_singleton_clusters_are_srswor() -> None:
    pop = Population.of({RecordType(v, cluster=f"k{v}{j}"): 1 for v in "ab" for j in range(3)})
    universe = universe_of(pop)
    for ell in range(7):
        assert ClusterSRS(ell).sample_law(pop, universe) == SRSWOR(ell).sample_law(pop, universe)


def test_cluster_pps_with_equal_clusters_is_cluster_srs() -> None:
    pop = Population.of({RecordType(v, cluster=f"k{j}"): 1 for v in "ab" for j in range(4)})
    universe = universe_of(pop)
    for ell in range(5):
        assert ClusterPPS(ell).sample_law(pop, universe) == ClusterSRS(ell).sample_law(
            pop, universe
        )


def test_cluster_pps_favours_large_clusters() -> None:
    """Bun et al. §6.2 with ell = 1: cluster i is chosen w.p. |C_i| / |P|."""
    pop = Population.of({RecordType("a", cluster="big"): 6, RecordType("b", cluster="small"): 2})
    law = ClusterPPS(1).sample_law(pop, universe_of(pop))
    assert dict(law.probs) == {(6, 0): F(3, 4), (0, 2): F(1, 4)}


def test_successive_pps_with_equal_sizes_is_srswor() -> None:
    pop = Population.of({RecordType("a"): 20, RecordType("b"): 9, RecordType("c"): 4})
    universe = universe_of(pop)
    for m in (0, 1, 5, 33):
        law = SuccessivePPS(m, {"a": 2, "b": 2, "c": 2}).sample_law(pop, universe)
        assert law == SRSWOR(m).sample_law(pop, universe)


def test_successive_pps_first_draw() -> None:
    pop = Population.of({RecordType("a"): 3, RecordType("b"): 1})
    law = SuccessivePPS(1, {"a": 1, "b": 3}).sample_law(pop, universe_of(pop))
    assert dict(law.probs) == {(1, 0): F(1, 2), (0, 1): F(1, 2)}


def test_poisson_pps_is_data_dependent() -> None:
    """bun/sec6.1:pps: adding a record changes every other record's inclusion probability."""
    design = PoissonPPS(F(2), {"a": 1, "b": 3})
    p = Population.of({RecordType("a"): 3, RecordType("b"): 1})
    assert design.inclusion_probabilities(p) == [F(1, 3), F(1)]  # 2*3/6 capped at 1
    q = Population.of({RecordType("a"): 4, RecordType("b"): 1})
    assert design.inclusion_probabilities(q) == [F(2, 7), F(6, 7)]
    law = design.sample_law(q, universe_of(q))
    assert law.expectation(sum) == 4 * F(2, 7) + F(6, 7)


def test_poisson_pps_empty_population() -> None:
    law = PoissonPPS(F(3), {"a": 1}).sample_law(Population.of({}), (RecordType("a"),))
    assert dict(law.probs) == {(0,): F(1)}


def test_systematic_fixed_picks_residue_classes() -> None:
    """Order a a a b b: start 0 takes positions 0, 2, 4; start 1 takes 1, 3."""
    pop = Population.of({RecordType("a"): 3, RecordType("b"): 2})
    universe = universe_of(pop)
    assert dict(SystematicFixed(2).sample_law(pop, universe).probs) == {
        (2, 1): F(1, 2),
        (1, 1): F(1, 2),
    }
    assert dict(SystematicFixed(7).sample_law(pop, universe).probs) == {
        (1, 0): F(3, 7),
        (0, 1): F(2, 7),
        (0, 0): F(2, 7),
    }


def test_systematic_fixed_large_population() -> None:
    pop = Population.of({RecordType(v): 10**6 + i for i, v in enumerate("abc")})
    law = SystematicFixed(1000).sample_law(pop, universe_of(pop))
    assert law.expectation(sum) == F(pop.size, 1000)
    assert len(law) <= 1000


def test_systematic_random_order_divisible_is_srswor() -> None:
    """Bun et al. §6.3: a uniformly random secret order gives SRSWOR when interval | N."""
    pop = Population.of({RecordType("a"): 12, RecordType("b"): 6})
    universe = universe_of(pop)
    for interval in (1, 2, 3, 6, 9, 18):
        law = SystematicRandomOrder(interval).sample_law(pop, universe)
        assert law == SRSWOR(18 // interval).sample_law(pop, universe)


def test_two_stage_with_full_within_sampling_is_single_stage() -> None:
    pop = clustered(1, 3, 2, 4)
    universe = universe_of(pop)
    for ell in range(5):
        single = ClusterSRS(ell).sample_law(pop, universe)
        assert TwoStageCluster(ell, "poisson", 1).sample_law(pop, universe) == single
        assert TwoStageCluster(ell, "srs", 4).sample_law(pop, universe) == single
        empty = TwoStageCluster(ell, "poisson", 0).sample_law(pop, universe)
        assert dict(empty.probs) == {(0, 0, 0, 0): F(1)}
        assert empty == naive_sample_law(TwoStageCluster(ell, "poisson", 0), pop, universe)


def test_clusters_span_strata() -> None:
    """A cluster is its label alone: records in different strata can share a cluster."""
    pop = Population.of({RecordType("a", "s", "k1"): 1, RecordType("a", "t", "k1"): 1})
    law = ClusterSRS(1).sample_law(pop, universe_of(pop))
    assert dict(law.probs) == {(1, 1): F(1)}


# --- serialisation ---

ALL_DESIGNS: list[Design] = [
    ClusterSRS(2),
    TwoStageCluster(2, "poisson", F(1, 3)),
    TwoStageCluster(1, "srs", 4),
    PoissonPPS(F(5, 2), {"b": F(3, 2), "a": 1}),
    SuccessivePPS(3, {"b": 2, "a": F(1, 7)}),
    ClusterPPS(1),
    SystematicFixed(4),
    SystematicRandomOrder(3),
]


@pytest.mark.parametrize("design", ALL_DESIGNS, ids=lambda d: d.describe())
def test_json_round_trip(design: Design) -> None:
    text = json.dumps(design.to_json())
    back = Design.from_json(json.loads(text))
    assert back == design
    assert hash(back) == hash(design)
    assert back.to_json() == design.to_json()


def test_params_are_exact_strings() -> None:
    assert TwoStageCluster(2, "poisson", "1/3").to_json() == {
        "kind": "two-stage-cluster",
        "ell": 2,
        "within": "poisson",
        "param": "1/3",
    }
    assert PoissonPPS(2, {"b": F(3, 2), "a": 1}).params() == {
        "expected_size": "2",
        "sizes": {"a": "1", "b": "3/2"},
    }


def test_every_kind_is_covered_and_registered() -> None:
    assert {d.kind for d in ALL_DESIGNS} == set(KINDS)
    assert set(KINDS) <= set(Design.registry)


# --- errors ---

CLUSTER_DESIGNS = [ClusterSRS(1), TwoStageCluster(1, "srs", 1), ClusterPPS(1)]


@pytest.mark.parametrize("design", CLUSTER_DESIGNS, ids=lambda d: d.kind)
def test_missing_cluster_labels(design: Design) -> None:
    pop = Population.of({RecordType("a", cluster="k1"): 1, RecordType("b"): 2})
    universe = universe_of(pop)
    with pytest.raises(DesignError, match="needs a cluster label on every record"):
        design.sample_law(pop, universe)
    with pytest.raises(DesignError, match="needs a cluster label on every record"):
        naive_sample_law(design, pop, universe)


@pytest.mark.parametrize(
    "design",
    [ClusterSRS(3), TwoStageCluster(3, "poisson", F(1, 2)), ClusterPPS(3)],
    ids=lambda d: d.kind,
)
def test_ell_exceeds_clusters(design: Design) -> None:
    pop = clustered(2, 1)
    universe = universe_of(pop)
    with pytest.raises(DesignError, match="ell = 3 exceeds the number of clusters k = 2"):
        design.sample_law(pop, universe)
    with pytest.raises(DesignError, match="ell = 3 exceeds the number of clusters k = 2"):
        naive_sample_law(design, pop, universe)


@pytest.mark.parametrize(
    "design",
    [PoissonPPS(1, {"a": 1}), SuccessivePPS(1, {"a": 1})],
    ids=lambda d: d.kind,
)
def test_missing_size_measure(design: Design) -> None:
    pop = Population.from_values("abc")
    universe = universe_of(pop)
    with pytest.raises(DesignError, match=r"no size measure given for values \['b', 'c'\]"):
        design.sample_law(pop, universe)
    with pytest.raises(DesignError, match=r"no size measure given for values \['b', 'c'\]"):
        naive_sample_law(design, pop, universe)


@pytest.mark.parametrize("cls", [SystematicFixed, SystematicRandomOrder])
@pytest.mark.parametrize("interval", [0, -2])
def test_interval_below_one(cls: type[Design], interval: int) -> None:
    with pytest.raises(DesignError, match="interval must be at least 1"):
        cls(interval)  # type: ignore[call-arg]


def test_other_errors() -> None:
    pop = Population.from_values("ab")
    with pytest.raises(DesignError, match="m = 3 exceeds population size 2"):
        SuccessivePPS(3, {"a": 1, "b": 1}).sample_law(pop, universe_of(pop))
    with pytest.raises(DesignError, match="m = 3 exceeds population size 2"):
        naive_sample_law(SuccessivePPS(3, {"a": 1, "b": 1}), pop, universe_of(pop))
    with pytest.raises(DesignError, match="ell = -1 is negative"):
        ClusterSRS(-1)
    with pytest.raises(DesignError, match="ell = -1 is negative"):
        ClusterPPS(-1)
    with pytest.raises(DesignError, match="unknown within-cluster design"):
        TwoStageCluster(1, "bernoulli", F(1, 2))
    with pytest.raises(DesignError, match=r"must be in \[0, 1\]"):
        TwoStageCluster(1, "poisson", F(3, 2))
    with pytest.raises(DesignError, match="must be an integer"):
        TwoStageCluster(1, "srs", F(1, 2))
    with pytest.raises(DesignError, match="must be positive"):
        PoissonPPS(1, {"a": 0})
    with pytest.raises(DesignError, match="exact"):
        SuccessivePPS(1, {"a": 0.5})  # type: ignore[dict-item]
    with pytest.raises(DesignError, match="non-negative"):
        PoissonPPS(-1, {"a": 1})
    with pytest.raises(DesignError, match="must be an integer"):
        SystematicFixed(F(3, 2))  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="outside the universe"):
        SystematicFixed(2).sample_law(pop, (RecordType("a"),))
    big = Population.from_values("a" * 8)
    with pytest.raises(DesignError, match="refuses 8! orders"):
        naive_sample_law(SystematicRandomOrder(2), big, universe_of(big))
