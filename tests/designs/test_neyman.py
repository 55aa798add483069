"""Neyman allocation (Bun et al. §7.2, App. E.1): exact formula, rounding and ties, the
design, the most-sensitive-neighbour search against exhaustive enumeration, the claim."""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction as F

import mpmath
import pytest

from tests.oracles.naive_designs import naive_sample_law
from verifydp.claims import get_claim
from verifydp.claims.base import Budget, Verdict
from verifydp.claims.bun.neyman import (
    CLAIM_ID,
    LABELS,
    M_TARGET,
    PRINTED,
    PRINTED_NEIGHBOUR,
    SYNTHETIC,
    TOP,
    cbp_class,
    cbp_population,
    check_neyman,
    paper_neighbour,
    search,
    stratum_size_laws,
    tv_closed_form,
    vector,
    z3_consistent,
)
from verifydp.designs import Design, DesignError, StratifiedFixed
from verifydp.designs.neyman import (
    ROUNDINGS,
    Moments,
    Neighbour,
    StratifiedNeyman,
    l_inf,
    most_sensitive_neighbour,
    neighbours,
    neyman_allocation,
    round_exact,
    stratum_lump,
    stratum_moments,
)
from verifydp.exact.dist import FiniteDist
from verifydp.mechanisms import GeometricCount
from verifydp.population import Population, RecordType, Relation, universe_of


def pop_of(spec: Mapping[str, Mapping[int, int]]) -> Population:
    return Population.of(
        {RecordType(str(v), h): c for h, counts in spec.items() for v, c in counts.items()}
    )


# ---------------------------------------------------------------- the formula, exactly


def test_hand_checked_allocation() -> None:
    # a = {1, 2}: σ = 1/2, |P_a|σ = 1;  b = {1, 2, 3}: σ² = 2/3, |P_b|σ = sqrt(6)
    p = pop_of({"a": {1: 1, 2: 1}, "b": {1: 1, 2: 1, 3: 1}})
    mo = stratum_moments(p)
    assert mo["a"].spread_squared() == 1 and mo["b"].spread_squared() == 6
    # m = 4: x_a = 4/(1 + √6) = 1.1597..., x_b = 4√6/(1 + √6) = 2.8402...
    expected = {"half-up": (1, 3), "half-even": (1, 3), "floor": (1, 2), "ceil": (2, 3)}
    for rounding, (ma, mb) in expected.items():
        assert neyman_allocation(p, 4, rounding) == {"a": ma, "b": mb}, rounding


def test_cap_at_stratum_size() -> None:
    # a = {1×5, 2×5}: |P_a|σ = 5; b = {1, 2, 3}: √6. m = 10: x = (6.71..., 3.28...)
    p = pop_of({"a": {1: 5, 2: 5}, "b": {1: 1, 2: 1, 3: 1}})
    assert neyman_allocation(p, 10, "half-up") == {"a": 7, "b": 3}
    assert neyman_allocation(p, 10, "ceil") == {"a": 7, "b": 3}  # ⌈3.28⌉ = 4 capped at 3
    assert round_exact({"a": F(25), "b": F(6)}, 10, "ceil") == {"a": 7, "b": 4}


def test_zero_variance_stratum_gets_nothing() -> None:
    p = pop_of({"a": {5: 10}, "b": {1: 2, 3: 2}})
    assert neyman_allocation(p, 3, "half-up") == {"a": 0, "b": 3}


def test_exact_ties_are_recognised_and_rounded_by_the_rule() -> None:
    # a = {0, 0, 1}: D = 2; b = {0, 0, 3}: D = 18 = 9·2, so x_a = m·√2/(√2 + 3√2) = m/4
    p = pop_of({"a": {0: 2, 1: 1}, "b": {0: 2, 3: 1}})
    ties = {"half-up": (1, 2), "half-even": (0, 2), "floor": (0, 1), "ceil": (1, 2)}
    for rounding, (ma, mb) in ties.items():  # m = 2: x = (1/2, 3/2) exactly
        assert neyman_allocation(p, 2, rounding) == {"a": ma, "b": mb}, rounding
    for rounding in ROUNDINGS:  # m = 4: x = (1, 3) exactly, integers round to themselves
        assert neyman_allocation(p, 4, rounding) == {"a": 1, "b": 3}, rounding


def test_near_tie_is_decided_at_higher_precision() -> None:
    # sqrt(10^80 + 1) = 10^40 + 5·10^-41..., so x_a − 1/2 ≈ 1.25·10^-81: not a tie, and
    # invisible at the first precision (50 digits)
    spreads = {"a": F(10**80 + 1), "b": F(10**80)}
    with mpmath.workdps(50):
        ra, rb = mpmath.sqrt(10**80 + 1), mpmath.sqrt(mpmath.mpf(10) ** 80)
        assert abs(ra / (ra + rb) - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -45
    expected = {"half-up": (1, 0), "half-even": (1, 0), "floor": (0, 0), "ceil": (1, 1)}
    for rounding, (ma, mb) in expected.items():
        assert round_exact(spreads, 1, rounding) == {"a": ma, "b": mb}, rounding


def test_undecidable_near_tie_is_refused() -> None:
    spreads = {"a": F(10**7000 + 1), "b": F(10**7000)}  # gap ≈ 10^-7001: beyond MAX_DPS
    with pytest.raises(DesignError, match="cannot decide"):
        round_exact(spreads, 1, "half-up")


def test_sample_variance_convention() -> None:
    a, b = Moments().add(1).add(3), Moments().add(1).add(2).add(3)
    assert a.spread_squared("population") == 4  # (2·1)²: σ = 1
    assert a.spread_squared("sample") == 8  # (2·√2)²: s = √2
    assert b.spread_squared("sample") == 9  # (3·1)²: s = 1
    with pytest.raises(DesignError, match="one-record"):
        Moments().add(7).spread_squared("sample")
    p = pop_of({"a": {1: 30, 3: 30}, "b": {1: 20, 2: 20, 3: 20}})
    spreads = {h: mo.spread_squared("sample") for h, mo in stratum_moments(p).items()}
    assert neyman_allocation(p, 17, "half-up", "sample") == round_exact(spreads, 17, "half-up")


@pytest.mark.parametrize("bad, match", [
    (Population.of({RecordType("2", "a"): 1, RecordType("x", "a"): 1}), "numeric"),
    (Population.of({RecordType("1"): 1, RecordType("2"): 1}), "stratum label"),
    (pop_of({"a": {3: 4}, "b": {7: 1}}), "zero variance"),
])
def test_bad_populations(bad: Population, match: str) -> None:
    with pytest.raises(DesignError, match=match):
        neyman_allocation(bad, 3, "half-up")


def test_bad_parameters() -> None:
    p = pop_of({"a": {1: 2, 2: 2}})
    with pytest.raises(DesignError, match="rounding"):
        neyman_allocation(p, 3, "randomised")
    with pytest.raises(DesignError, match="negative"):
        neyman_allocation(p, -1, "ceil")
    with pytest.raises(DesignError, match="variance"):
        neyman_allocation(p, 1, "ceil", "unbiased")
    with pytest.raises(DesignError):
        StratifiedNeyman(3, "randomised")
    with pytest.raises(DesignError):
        StratifiedNeyman(-2, "ceil")


def mutant_allocation(pop: Population, spread2: str) -> tuple[int, ...]:
    """Neyman allocation with the printed weight |P_h|σ(P_h) replaced (ceil, capped)."""
    spreads = {}
    for h, mo in stratum_moments(pop).items():
        ss = F(mo.n * mo.q - mo.s**2, mo.n)  # Σ(x − mean)²
        spreads[h] = {
            "printed": mo.n * ss,  # (|P|σ)²
            "sigma-squared": ss**2,  # (|P|σ²)² = SS²
            "no-size": ss / mo.n,  # σ²: |P_h| dropped
            "size-only": F(mo.n**2),  # proportional allocation
        }[spread2]
    alloc = round_exact(spreads, M_TARGET, "ceil")
    caps = {h: mo.n for h, mo in stratum_moments(pop).items()}
    return vector({h: min(k, caps[h]) for h, k in alloc.items()})


def test_formula_mutants_change_the_allocation() -> None:
    pop = cbp_population()
    assert mutant_allocation(pop, "printed") == PRINTED == vector(
        neyman_allocation(pop, M_TARGET, "ceil"))
    for name in ("sigma-squared", "no-size", "size-only"):
        assert mutant_allocation(pop, name) != PRINTED, name
    # the other conventions the paper leaves open also move cells
    assert vector(neyman_allocation(pop, M_TARGET, "ceil", "sample")) != PRINTED
    assert vector(neyman_allocation(pop, M_TARGET, "half-up")) != PRINTED


# ---------------------------------------------------------------- the design


SMALL = pop_of({"a": {1: 2, 4: 1}, "b": {2: 1, 3: 2, 9: 1}})


@pytest.mark.parametrize("rounding", ROUNDINGS)
def test_sample_law_is_stratified_fixed_and_matches_oracle(rounding: str) -> None:
    design = StratifiedNeyman(4, rounding)
    u = universe_of(SMALL)
    law = design.sample_law(SMALL, u)
    alloc = design.allocation(SMALL)
    assert sum(alloc.values()) >= 3
    assert law == naive_sample_law(StratifiedFixed(alloc), SMALL, u)
    assert law == design.fixed(SMALL).sample_law(SMALL, u)


def test_lumped_law_is_the_pushforward() -> None:
    design = StratifiedNeyman(4, "half-up")
    u = universe_of(SMALL)
    lumped_u = tuple(sorted({stratum_lump(rt) for rt in u}))
    index = {rt: i for i, rt in enumerate(lumped_u)}

    def push(c: tuple[int, ...]) -> tuple[int, ...]:
        out = [0] * len(lumped_u)
        for rt, k in zip(u, c, strict=True):
            out[index[stratum_lump(rt)]] += k
        return tuple(out)

    full = design.sample_law(SMALL, u).map(push)
    assert design.lumped_sample_law(SMALL, stratum_lump, lumped_u) == full
    sizes = design.allocation(SMALL)
    assert full == FiniteDist.point(tuple(sizes[rt.stratum] for rt in lumped_u))  # type: ignore[index]
    with pytest.raises(DesignError, match="out of its stratum"):
        design.lumped_sample_law(SMALL, lambda rt: RecordType(rt.value, "elsewhere"), u)


def test_json_round_trip() -> None:
    for d in (StratifiedNeyman(10_000, "ceil"), StratifiedNeyman(3, "half-up", "sample")):
        assert Design.from_json(d.to_json()) == d
    assert StratifiedNeyman(5, "floor").to_json() == {
        "kind": "stratified-neyman", "m": 5, "rounding": "floor"}


# ---------------------------------------------------------------- neighbour search


def brute_force(pop: Population, m: int, rounding: str, values: range, classify):  # type: ignore[no-untyped-def]
    """Exhaustive oracle: every neighbour as a Population, allocated from scratch."""
    base = neyman_allocation(pop, m, rounding)
    best = None
    for nb in neighbours(pop, values, classify):
        try:
            alloc = neyman_allocation(nb.apply(pop), m, rounding)
        except DesignError:
            continue
        d = l_inf(base, alloc)
        if best is None or d > best[0]:
            best = (d, nb)
    return best


def random_population(rng: random.Random) -> Population:
    spec: dict[str, dict[int, int]] = {}
    for h in ("a", "b", "c")[: rng.randint(2, 3)]:
        spec[h] = {rng.randint(1, 6): rng.randint(1, 4) for _ in range(rng.randint(1, 3))}
    return pop_of(spec)


def test_search_matches_exhaustive_search() -> None:
    rng = random.Random(20240607)
    exact_rechecks = compared = 0
    for _ in range(120):
        pop = random_population(rng)
        m = rng.randint(1, 12)
        rounding = rng.choice(ROUNDINGS)
        strata = sorted({rt.stratum for rt in pop.types()})  # type: ignore[type-var]
        classify = rng.choice([None, lambda v, s=strata: s[min((v - 1) // 2, len(s) - 1)]])
        values = range(1, 7)
        try:
            neyman_allocation(pop, m, rounding)
        except DesignError:
            with pytest.raises(DesignError):
                most_sensitive_neighbour(pop, m, rounding, values, classify)
            continue
        got = most_sensitive_neighbour(pop, m, rounding, values, classify)
        want = brute_force(pop, m, rounding, values, classify)
        assert want is not None
        assert (got.delta, got.neighbour) == want, (pop, m, rounding)
        assert l_inf(got.base, got.alloc) == got.delta
        exact_rechecks += got.exact_checks - 1
        compared += 1
    assert compared > 80
    assert exact_rechecks > 0  # exact ties on small integer data exercise the exact path


def test_neighbour_kinds_and_relations() -> None:
    p = SMALL
    add = Neighbour(None, RecordType("5", "a"))
    rem = Neighbour(RecordType("1", "a"), None)
    rep = Neighbour(RecordType("1", "a"), RecordType("9", "b"))
    assert (add.kind, add.relation) == ("add", Relation.ADD_REMOVE)
    assert (rem.kind, rem.relation) == ("remove", Relation.ADD_REMOVE)
    assert (rep.kind, rep.relation) == ("replace", Relation.REPLACE)
    assert add.apply(p).size == p.size + 1 and rem.apply(p).size == p.size - 1
    assert rep.apply(p).count(RecordType("9", "b")) == 2
    with pytest.raises(ValueError):
        Neighbour(RecordType("7", "a"), None).apply(p)


# ---------------------------------------------------------------- the CBP reconstruction


def test_synthetic_population_is_consistent_with_its_strata() -> None:
    pop = cbp_population()
    assert pop.size == sum(sum(c.values()) for c in SYNTHETIC.values())
    assert tuple(SYNTHETIC) == LABELS
    for rt, _ in pop.entries:
        assert cbp_class(int(rt.value)) == rt.stratum
    assert min(int(rt.value) for rt in pop.types()) == 1
    assert max(int(rt.value) for rt in pop.types()) <= 10_000


def test_reconstruction_reproduces_both_printed_vectors() -> None:
    pop = cbp_population()
    assert vector(neyman_allocation(pop, M_TARGET, "ceil")) == PRINTED
    nb = paper_neighbour(pop)
    assert nb == Neighbour(RecordType("1", "1-4"), RecordType("10000", TOP))
    assert vector(neyman_allocation(nb.apply(pop), M_TARGET, "ceil")) == PRINTED_NEIGHBOUR


def test_most_sensitive_neighbour_of_the_cbp_population() -> None:
    res = search(cbp_population())
    assert res.delta == 19 and res.stratum == TOP
    assert res.neighbour == Neighbour(None, RecordType("9938", TOP))
    assert vector(res.alloc) == PRINTED_NEIGHBOUR
    assert res.by_kind["replace"][1] == 19 and res.by_kind["remove"][1] < 19


def test_printed_pair_consistency_by_rounding_rule() -> None:
    assert z3_consistent(PRINTED, PRINTED_NEIGHBOUR, "ceil")
    assert z3_consistent(PRINTED, PRINTED_NEIGHBOUR, "within-1")
    assert not z3_consistent(PRINTED, PRINTED_NEIGHBOUR, "nearest")
    assert not z3_consistent(PRINTED, PRINTED_NEIGHBOUR, "floor")


def test_privacy_ratio_is_t_to_the_delta() -> None:
    pop = cbp_population()
    design = StratifiedNeyman(M_TARGET, "ceil")
    q = paper_neighbour(pop).apply(pop)
    law_p, law_q, u = stratum_size_laws(design, pop, q)
    assert len(law_p) == len(law_q) == 1
    mech = GeometricCount(((TOP, 1),))
    assert mech.is_eps_dp(Relation.ADD_REMOVE, u) and mech.is_eps_dp(Relation.REPLACE, u)
    for t in (F(11, 10), F(2)):
        assert mech.max_ratio(law_q, law_p, u, t).ratio == t**19
        assert mech.max_ratio(law_p, law_q, u, t).ratio == t**19


@pytest.mark.parametrize("delta", [1, 2, 5, 18, 19])
def test_tv_closed_form_matches_the_mechanism(delta: int) -> None:
    a, b = RecordType("a", "s"), RecordType("b", "s")
    u = (a, b)
    law_p = FiniteDist.point((0, 1))
    law_q = FiniteDist.point((delta, 1))
    mech = GeometricCount((("a", 1),))
    previous = F(0)
    for t in (F(101, 100), F(11, 10), F(3, 2), F(2)):
        tv = mech.hockey(law_p, law_q, u, t, F(1))
        assert tv == tv_closed_form(delta, t)
        assert tv > previous  # increasing in t
        previous = tv


# ---------------------------------------------------------------- the claim


def test_claim_is_inconclusive_because_a_fitted_population_cannot_confirm() -> None:
    """Issue 14: SYNTHETIC was tuned until it reproduced the printed vectors, so the cells
    (and the search on it) are findings, inconclusive with both readings; what follows from
    the printed numbers alone (the 19, ε' = 19ε, detectability) is checked and can fail."""
    res = get_claim(CLAIM_ID).check()
    assert res.verdict is Verdict.INCONCLUSIVE
    assert len(res.statements) == 7
    verdicts = [s.verdict for s in res.statements]
    assert verdicts == [Verdict.INCONCLUSIVE, Verdict.INCONCLUSIVE, Verdict.HOLDS,
                        Verdict.HOLDS, Verdict.INCONCLUSIVE, Verdict.HOLDS, Verdict.HOLDS]
    cells = res.statements[0]
    assert [i.claimed for i in cells.instances] == [str(k) for k in PRINTED]
    assert "12/12 cells reproduced" in cells.note and "Readings" in cells.note


def test_checker_reports_a_mutated_printed_cell() -> None:
    mutated = list(PRINTED)
    mutated[3] += 1  # 1969 -> 1970
    res = check_neyman(Budget(), printed=mutated)
    cells = res.statements[0]
    assert cells.verdict is Verdict.INCONCLUSIVE  # synthetic population: never "refuted"
    bad = [i for i in cells.instances if i.note.startswith("not reproduced")]
    assert [i.params["stratum"] for i in bad] == ["20-49"]
    assert res.verdict is not Verdict.HOLDS


def test_printed_difference_and_privacy_can_fail() -> None:
    res = check_neyman(Budget(), delta=20)  # "differ by 20": the printed vectors give 19
    assert res.statements[3].verdict is Verdict.REFUTED
    assert res.statements[5].verdict is Verdict.REFUTED  # ε' = 19ε < 20ε
    assert res.verdict is Verdict.REFUTED
    typo = list(PRINTED_NEIGHBOUR)
    typo[-1] = 230  # a 5 in the last stratum: below the printed 19
    res = check_neyman(Budget(), printed_neighbour=typo)
    assert res.statements[3].verdict is Verdict.REFUTED


def test_inconsistent_printed_pair_is_refuted() -> None:
    mutated = list(PRINTED_NEIGHBOUR)
    mutated[5] = 1900  # stratum 100-249 no longer scales with strata 2-11
    assert not z3_consistent(PRINTED, mutated, "within-1")
    res = check_neyman(Budget(), printed_neighbour=mutated)
    assert res.statements[2].verdict is Verdict.REFUTED
    assert res.verdict is Verdict.REFUTED
