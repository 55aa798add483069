"""Sampling designs: exact symmetry-reduced laws against the brute-force oracle."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from fractions import Fraction as F
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracles.naive_designs import naive_sample_law
from verifydp.designs import (
    SRSWOR,
    SRSWR,
    Design,
    DesignError,
    LinearSizeRule,
    Poisson,
    ProportionalWOR,
    RandomSizeWOR,
    Rounding,
    StratifiedFixed,
    StratifiedProportional,
    round_allocation,
)
from verifydp.exact.dist import FiniteDist
from verifydp.population import Population, RecordType, universe_of

QS = [F(0), F(1, 3), F(1, 2), F(1)]
RS = [F(1, 10), F(1, 3), F(1, 2), F(2, 3)]
ROUNDINGS = list(Rounding)
VALUES = "abc"
DESIGN_CLASSES = (Poisson, SRSWOR, SRSWR, RandomSizeWOR, ProportionalWOR, LinearSizeRule)
DESIGN_CLASSES += (StratifiedProportional, StratifiedFixed)
KINDS = sorted(cls.kind for cls in DESIGN_CLASSES)  # not the registry: others add kinds
ABSENT = RecordType("z")  # in every universe, never in a population: its count must stay 0


def populations(types: Sequence[RecordType], max_n: int) -> Iterator[Population]:
    for counts in product(range(max_n + 1), repeat=len(types)):
        if sum(counts) <= max_n:
            yield Population.of(zip(types, counts, strict=True))


def assert_matches_oracle(design: Design, pop: Population) -> None:
    universe = tuple(sorted({*pop.types(), ABSENT}))
    fast = design.sample_law(pop, universe)
    assert fast == naive_sample_law(design, pop, universe), (design.describe(), pop)


# --- exhaustive: every population with N <= 7 over 3 values, or over 2 values x 2 strata ---

FLAT = [RecordType(v) for v in VALUES]
FLAT_POPS = list(populations(FLAT, 7))
STRATA_TYPES = [RecordType(v, h) for v in "ab" for h in ("s", "t")]
STRATA_POPS = list(populations(STRATA_TYPES, 7))


def flat_designs(n: int) -> Iterator[Design]:
    yield from (Poisson(q) for q in QS)
    yield from (SRSWOR(m) for m in range(n + 1))
    yield from (SRSWR(m) for m in range(4) if n > 0 or m == 0)
    yield from (ProportionalWOR(r, rd) for r in RS for rd in ROUNDINGS)
    yield RandomSizeWOR(FiniteDist.from_pairs((m, F(1, n + 1)) for m in range(n + 1)))
    yield RandomSizeWOR(FiniteDist.from_pairs([(n // 2, F(1, 3)), (n, F(2, 3))]))
    yield from (LinearSizeRule(b, s, "a") for b in (0, 2) for s in (-1, 1, 2))


def stratified_designs(pop: Population) -> Iterator[Design]:
    yield from (StratifiedProportional(r, rd) for r in RS for rd in ROUNDINGS)
    n_s, n_t = (pop.stratum(h).size for h in ("s", "t"))
    yield from (StratifiedFixed({"s": i, "t": j}) for i in range(n_s + 1) for j in range(n_t + 1))


def test_exhaustive_flat_designs() -> None:
    assert len(FLAT_POPS) == 120
    for pop in FLAT_POPS:
        for design in flat_designs(pop.size):
            assert_matches_oracle(design, pop)


def test_exhaustive_stratified_designs() -> None:
    assert len(STRATA_POPS) == 330
    for pop in STRATA_POPS:
        for design in stratified_designs(pop):
            assert_matches_oracle(design, pop)


# --- hypothesis: random small populations (values, strata, clusters) and designs ---

small_fracs = st.builds(F, st.integers(0, 6), st.integers(1, 6)).filter(lambda x: x <= 1)
rates = small_fracs.filter(lambda x: 0 < x < 1)
roundings = st.sampled_from(ROUNDINGS)


@st.composite
def populations_st(draw: st.DrawFn, labelled: bool = False) -> Population:
    # a label field is all-None or all-str: RecordType ordering cannot compare None with str
    strata = ["s", "t"] if labelled else draw(st.sampled_from([[None], ["s", "t"]]))
    clusters = draw(st.sampled_from([[None], ["k1", "k2"]]))
    types = st.builds(
        RecordType,
        st.sampled_from(VALUES),
        st.sampled_from(strata),
        st.sampled_from(clusters),
    )
    counts = draw(st.dictionaries(types, st.integers(1, 4), max_size=4))
    pop = Population.of(counts)
    while pop.size > 8:  # keep the oracle cheap: drop types until N <= 8
        pop = Population(pop.entries[1:])
    return pop


@st.composite
def cases(draw: st.DrawFn) -> tuple[Design, Population]:
    kind = draw(st.sampled_from(KINDS))
    pop = draw(populations_st(labelled=kind == "stratified-fixed"))
    n = pop.size
    design: Design
    if kind == "poisson":
        design = Poisson(draw(small_fracs))
    elif kind == "srswor":
        design = SRSWOR(draw(st.integers(0, n)))
    elif kind == "srswr":
        design = SRSWR(draw(st.integers(0, 3 if n else 0)))
    elif kind == "random-size":
        support = draw(st.lists(st.integers(0, n), min_size=1, max_size=3, unique=True))
        weights = draw(st.lists(st.integers(1, 5), min_size=len(support), max_size=len(support)))
        law = {m: F(w, sum(weights)) for m, w in zip(support, weights, strict=True)}
        design = RandomSizeWOR(law)
    elif kind == "proportional":
        design = ProportionalWOR(draw(rates), draw(roundings))
    elif kind == "linear-size":
        ints = st.integers(-3, 5)
        design = LinearSizeRule(draw(ints), draw(ints), draw(st.sampled_from(VALUES)))
    elif kind == "stratified-proportional":
        design = StratifiedProportional(draw(rates), draw(roundings))
    else:
        sizes = {h: draw(st.integers(0, pop.stratum(h).size)) for h in ("s", "t")}
        design = StratifiedFixed(sizes)
    return design, pop


@settings(derandomize=True, max_examples=400, deadline=None)
@given(cases())
def test_random_cases_match_oracle(case: tuple[Design, Population]) -> None:
    assert_matches_oracle(*case)


# --- symmetry reduction: outcome counts, never records ---


def test_srswor_outcomes_are_count_vectors() -> None:
    a, x = RecordType("a"), RecordType("x")
    law = SRSWOR(500).sample_law(Population.of({a: 999, x: 1}), (a, x))
    assert dict(law.probs) == {(500, 0): F(1, 2), (499, 1): F(1, 2)}


def test_absent_universe_types_have_count_zero() -> None:
    a, b = RecordType("a"), RecordType("b")
    law = SRSWR(3).sample_law(Population.of({a: 2}), (a, b))
    assert dict(law.probs) == {(3, 0): F(1)}


def test_population_outside_universe_is_refused() -> None:
    with pytest.raises(DesignError, match="outside the universe"):
        SRSWOR(1).sample_law(Population.from_values("ab"), (RecordType("a"),))


def test_stratified_ten_by_fifty() -> None:
    pop = Population.of({RecordType("v", f"s{h}"): 50 for h in range(10)})
    universe = universe_of(pop)
    assert dict(
        StratifiedProportional(F(1, 10), Rounding.RANDOMISED).sample_law(pop, universe).probs
    ) == {(5,) * 10: F(1)}
    law = StratifiedProportional(F(1, 7), Rounding.RANDOMISED).sample_law(pop, universe)
    assert len(law) == 2**10  # m_h in {7, 8} per stratum
    assert law.expectation(sum) == 10 * F(50, 7)  # randomised rounding is unbiased


# --- serialisation ---

ALL_DESIGNS: list[Design] = [
    Poisson(F(1, 10)),
    Poisson(0),
    SRSWOR(3),
    SRSWR(2),
    RandomSizeWOR({0: F(1, 4), 5: F(3, 4)}),
    *(ProportionalWOR(F(1, 10), rd) for rd in ROUNDINGS),
    LinearSizeRule(2, -1, "a"),
    *(StratifiedProportional(F(2, 7), rd) for rd in ROUNDINGS),
    StratifiedFixed({"t": 1, "s": 2}),
]


@pytest.mark.parametrize("design", ALL_DESIGNS, ids=lambda d: d.describe())
def test_json_round_trip(design: Design) -> None:
    text = json.dumps(design.to_json())
    back = Design.from_json(json.loads(text))
    assert back == design
    assert hash(back) == hash(design)
    assert back.to_json() == design.to_json()


def test_params_are_strings_for_rationals() -> None:
    assert Poisson(F(1, 10)).to_json() == {"kind": "poisson", "q": "1/10"}
    assert RandomSizeWOR({2: F(1, 2), 0: F(1, 2)}).params() == {
        "size_law": {"0": "1/2", "2": "1/2"}
    }
    assert Poisson("1/10") == Poisson(F(1, 10))


def test_every_kind_is_covered_and_registered() -> None:
    assert {d.kind for d in ALL_DESIGNS} == set(KINDS)
    assert set(KINDS) <= set(Design.registry)


# --- rounding ---


@pytest.mark.parametrize("rd", ROUNDINGS)
def test_integer_allocation_is_point_mass(rd: Rounding) -> None:
    assert dict(round_allocation(F(3), rd).probs) == {3: F(1)}


def test_half_up_vs_half_even() -> None:
    for rd in (Rounding.HALF_UP, Rounding.HALF_EVEN):
        assert round_allocation(F(3, 2), rd).support() == (2,)
    assert round_allocation(F(5, 2), Rounding.HALF_UP).support() == (3,)
    assert round_allocation(F(5, 2), Rounding.HALF_EVEN).support() == (2,)
    assert round_allocation(F(5, 2), Rounding.FLOOR).support() == (2,)
    assert round_allocation(F(29, 10), Rounding.FLOOR).support() == (2,)


def test_randomised_rounding() -> None:
    assert dict(round_allocation(F(12, 5), Rounding.RANDOMISED).probs) == {
        2: F(3, 5),
        3: F(2, 5),
    }
    assert dict(round_allocation(F(12, 5), "randomised").probs) == {2: F(3, 5), 3: F(2, 5)}


@pytest.mark.parametrize("rd", [Rounding.HALF_UP, Rounding.HALF_EVEN])
def test_bun_example_sizes_14_and_15(rd: Rounding) -> None:
    """Bun et al. §4.3: r = 1/10 gives m = 1 at |P| = 14 and m = 2 at |P| = 15."""
    r = F(1, 10)
    assert round_allocation(r * 14, rd).support() == (1,)
    assert round_allocation(r * 15, rd).support() == (2,)
    design = ProportionalWOR(r, rd)
    for n, m in ((14, 1), (15, 2)):
        law = design.sample_law(Population.from_values("a" * n), (RecordType("a"),))
        assert law.support() == ((m,),)


# --- errors ---


def test_m_exceeds_population() -> None:
    pop = Population.from_values("a" * 10)
    with pytest.raises(DesignError, match="m = 12 exceeds population size 10"):
        SRSWOR(12).sample_law(pop, pop.types())
    with pytest.raises(DesignError, match="exceeds population size 10"):
        naive_sample_law(SRSWOR(12), pop, pop.types())


@pytest.mark.parametrize("r", [F(0), F(1), F(3, 2), F(-1, 2)])
def test_rate_outside_open_unit_interval(r: F) -> None:
    with pytest.raises(DesignError, match=r"r must be in \(0, 1\)"):
        ProportionalWOR(r, Rounding.FLOOR)
    with pytest.raises(DesignError, match=r"r must be in \(0, 1\)"):
        StratifiedProportional(r, Rounding.FLOOR)


@pytest.mark.parametrize("q", [F(-1, 10), F(11, 10)])
def test_probability_outside_unit_interval(q: F) -> None:
    with pytest.raises(DesignError, match=r"sampling probability must be in \[0, 1\]"):
        Poisson(q)


def test_other_errors() -> None:
    pop = Population.from_values("ab", stratum="s")
    with pytest.raises(DesignError, match=r"size law outside \{0..\|P\|\}"):
        RandomSizeWOR({3: F(1)}).sample_law(pop, pop.types())
    with pytest.raises(DesignError, match="not a distribution"):
        RandomSizeWOR({1: F(1, 2)})
    with pytest.raises(DesignError, match="negative"):
        SRSWOR(-1)
    with pytest.raises(DesignError, match="empty population"):
        SRSWR(1).sample_law(Population.of({}), ())
    with pytest.raises(DesignError, match="exact"):
        Poisson(0.1)  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="unknown rounding"):
        ProportionalWOR(F(1, 2), "up")  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="no sample size"):
        StratifiedFixed({"t": 0}).sample_law(pop, pop.types())
    with pytest.raises(DesignError, match="exceeds population size 0 of stratum 't'"):
        StratifiedFixed({"s": 1, "t": 1}).sample_law(pop, pop.types())
    with pytest.raises(DesignError, match="stratum label"):
        StratifiedFixed({"s": 0}).sample_law(Population.from_values("a"), (RecordType("a"),))
    with pytest.raises(DesignError, match="unknown design kind"):
        Design.from_json({"kind": "cluster"})
    with pytest.raises(DesignError, match="refuses N = 13"):
        naive_sample_law(Poisson(F(1, 2)), Population.from_values("a" * 13), (RecordType("a"),))
