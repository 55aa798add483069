"""The certified worst case against an independent exact oracle (sympy's rational simplex).

Exhaustive tiny instances and hypothesis-drawn ones share the one oracle `oracle_ratio` /
`oracle_hockey` (ndindex-style).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.designs import SRSWOR, Poisson, RandomSizeWOR
from verifydp.exact.dist import FiniteDist
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, worst_case_hockey, worst_case_ratio
from verifydp.worstcase.engine import _vectors, region_for
from verifydp.worstcase.exact_lp import exact_hockey, exact_ratio

A, X, Y = RecordType("a"), RecordType("x"), RecordType("y")


def replace_pair(n: int) -> PopulationPair:
    return PopulationPair(
        Population.of({A: n - 1, X: 1}), Population.of({A: n - 1, Y: 1}), Relation.REPLACE
    )


def add_pair(n: int) -> PopulationPair:
    return PopulationPair(Population.of({A: n}), Population.of({A: n, X: 1}), Relation.ADD_REMOVE)


def laws(design, pair):  # type: ignore[no-untyped-def]
    u = pair.universe
    return design.sample_law(pair.p, u), design.sample_law(pair.q, u)


def oracle_ratio(law_p, law_q, relation, t):  # type: ignore[no-untyped-def]
    region = region_for(law_p, law_q, relation)
    p, _ = _vectors(region, law_p)
    q, _ = _vectors(region, law_q)
    return exact_ratio(region, p, q, t)


def oracle_hockey(law_p, law_q, relation, t, delta, tp):  # type: ignore[no-untyped-def]
    region = region_for(law_p, law_q, relation)
    p, _ = _vectors(region, law_p)
    q, _ = _vectors(region, law_q)
    return exact_hockey(region, p, q, t, delta, tp)


def test_design_md_example_srs_half_replacement_pair_deletion_dp_t2_is_five_halves() -> None:
    for n in (2, 4, 10, 1000):
        lp, lq = laws(SRSWOR(n // 2), replace_pair(n))
        wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, 2))
        assert wc.forward.lower == wc.forward.upper == F(5, 2)
        assert wc.backward.lower == wc.backward.upper == F(5, 2)


def test_witness_probabilities_match_its_ratio() -> None:
    lp, lq = laws(SRSWOR(2), replace_pair(4))
    wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, 3))
    w = wc.forward.witness
    assert w is not None and w.pr_p / w.pr_q == wc.forward.lower
    assert all(0 <= v <= 1 for v in w.values)


def test_replacement_base_srs_is_tight_for_thm22() -> None:
    for n, m in ((3, 1), (5, 2), (8, 8)):
        lp, lq = laws(SRSWOR(m), replace_pair(n))
        wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.REPLACE, F(7, 4)))
        assert wc.worst.lower == wc.upper == 1 + F(m, n) * (F(7, 4) - 1)


def test_different_sizes_under_replacement_dp_is_infinite() -> None:
    pair = add_pair(3)
    u = pair.universe
    lp = SRSWOR(1).sample_law(pair.p, u)
    lq = SRSWOR(2).sample_law(pair.q, u)
    wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.REPLACE, 2))
    assert wc.forward.infinite and wc.forward.witness is not None
    assert wc.forward.witness.pr_q == 0 < wc.forward.witness.pr_p


def test_irrational_eps_brackets_the_truth() -> None:
    # true value 1 + (1/2)(e^{2·(1/2)} − 1) = (1 + e)/2 for SRS m = n/2, deletion base
    from verifydp.exact.special import brackets_for_eps

    lo, hi = brackets_for_eps(F(1, 2))
    lp, lq = laws(SRSWOR(3), replace_pair(6))
    wc = worst_case_ratio(lp, lq, MechanismClass(Relation.ADD_REMOVE, lo, hi))
    e_lo, e_hi = brackets_for_eps(F(1))
    assert wc.forward.lower <= (1 + e_hi) / 2
    assert wc.forward.upper >= (1 + e_lo) / 2
    assert wc.forward.upper - wc.forward.lower < F(1, 10**12)


def _tiny_cases():  # type: ignore[no-untyped-def]
    for n in (1, 2, 3):
        for m in range(n + 1):
            yield SRSWOR(m), replace_pair(n)
            yield SRSWOR(m), add_pair(n)
        yield Poisson(F(1, 3)), add_pair(n)
        yield RandomSizeWOR(FiniteDist.from_pairs([(0, F(1, 3)), (n, F(2, 3))])), replace_pair(n)


@pytest.mark.parametrize("t", [F(2), F(5, 4)])
def test_exhaustive_tiny_ratio_matches_exact_oracle(t: F) -> None:
    for design, pair in _tiny_cases():
        lp, lq = laws(design, pair)
        wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t))
        truth = oracle_ratio(lp, lq, Relation.ADD_REMOVE, t)
        assert wc.forward.lower <= truth <= wc.forward.upper, (design, pair)
        assert wc.forward.upper - wc.forward.lower <= truth * F(1, 10**9)


def test_exhaustive_tiny_hockey_matches_exact_oracle() -> None:
    for design, pair in _tiny_cases():
        lp, lq = laws(design, pair)
        for delta in (F(0), F(1, 10)):
            mc = MechanismClass(Relation.ADD_REMOVE, F(2), F(2), delta)
            wc = worst_case_hockey(lp, lq, mc, F(3, 2), F(3, 2))
            truth = oracle_hockey(lp, lq, Relation.ADD_REMOVE, F(2), delta, F(3, 2))
            assert wc.forward.lower <= truth <= wc.forward.upper
            assert wc.forward.upper - wc.forward.lower <= F(1, 10**9)


@st.composite
def tiny_laws(draw):  # type: ignore[no-untyped-def]
    """Two random laws on a small add-remove box of count vectors (3 types)."""
    pts = [(a, b, c) for a in range(3) for b in range(2) for c in range(2)]
    k = draw(st.integers(1, 4))
    sp = draw(st.lists(st.sampled_from(pts), min_size=k, max_size=k, unique=True))
    sq = draw(st.lists(st.sampled_from(pts), min_size=k, max_size=k, unique=True))
    wp = draw(st.lists(st.integers(1, 9), min_size=k, max_size=k))
    wq = draw(st.lists(st.integers(1, 9), min_size=k, max_size=k))
    lp = FiniteDist.from_pairs((x, F(w, sum(wp))) for x, w in zip(sp, wp))
    lq = FiniteDist.from_pairs((x, F(w, sum(wq))) for x, w in zip(sq, wq))
    return lp, lq


@settings(max_examples=40, deadline=None, derandomize=True)
@given(tiny_laws(), st.sampled_from([F(2), F(3, 2), F(5)]))
def test_hypothesis_ratio_matches_exact_oracle(pair_of_laws, t) -> None:  # type: ignore[no-untyped-def]
    lp, lq = pair_of_laws
    wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t))
    truth = oracle_ratio(lp, lq, Relation.ADD_REMOVE, t)
    assert wc.forward.lower <= truth <= wc.forward.upper


@settings(max_examples=25, deadline=None, derandomize=True)
@given(tiny_laws(), st.sampled_from([F(0), F(1, 20)]))
def test_hypothesis_hockey_matches_exact_oracle(pair_of_laws, delta) -> None:  # type: ignore[no-untyped-def]
    lp, lq = pair_of_laws
    mc = MechanismClass(Relation.ADD_REMOVE, F(2), F(2), delta)
    wc = worst_case_hockey(lp, lq, mc, F(5, 4), F(5, 4))
    truth = oracle_hockey(lp, lq, Relation.ADD_REMOVE, F(2), delta, F(5, 4))
    assert wc.forward.lower <= truth <= wc.forward.upper


def test_srs_n1000_is_exact_and_small() -> None:
    lp, lq = laws(SRSWOR(500), replace_pair(1000))
    wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, 2))
    assert wc.lp_points <= 8 and wc.worst.exact
