"""The six facts the exact worst case rests on (docs/foundations.md; docs/foundations.md)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.designs import SRSWOR, SRSWR, Poisson, RandomSizeWOR
from verifydp.exact.dist import FiniteDist
from verifydp.mechanisms import GeometricCount, LaplaceCount, RandomizedResponse
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, worst_case_hockey, worst_case_ratio
from verifydp.worstcase.engine import _vectors
from verifydp.worstcase.exact_lp import exact_hockey, exact_ratio
from verifydp.worstcase.region import (
    Layer,
    Region,
    _compositions,
    _prefix_retract,
    build_region,
    dataset_neighbours,
)

A, X, Y = RecordType("a"), RecordType("x"), RecordType("y")


def replace_pair(n: int) -> PopulationPair:
    return PopulationPair(
        Population.of({A: n - 1, X: 1}), Population.of({A: n - 1, Y: 1}), Relation.REPLACE
    )


def laws(design, pair):  # type: ignore[no-untyped-def]
    u = pair.universe
    return design.sample_law(pair.p, u), design.sample_law(pair.q, u)


# ---------------------------------------------------------------- fact 1: binary suffices


def _exponential_mechanism(points, s: F, outputs: int, seed: int):  # type: ignore[no-untyped-def]
    """Exponential mechanism with integer scores of sensitivity 1 and weights s^{score}:
    (2 log s)-DP under add-remove on the box, i.e. ε-DP for t = s²."""
    import random

    rng = random.Random(seed)
    coeffs = [[rng.choice([-1, 0, 1]) for _ in points[0]] for _ in range(outputs)]
    offsets = [rng.randint(-2, 2) for _ in range(outputs)]

    def law(x):  # type: ignore[no-untyped-def]
        w = [s ** (sum(c * v for c, v in zip(cs, x)) + o) for cs, o in zip(coeffs, offsets)]
        total = sum(w)
        return [v / total for v in w]

    # scores Σ c·x change by ≤ 1 per add-remove step since |c| ≤ 1 per coordinate
    return law


@pytest.mark.parametrize("seed", range(6))
def test_fact1_no_multi_output_mechanism_beats_the_binary_lp(seed: int) -> None:
    s = F(3, 2)
    t = s * s
    lp, lq = laws(SRSWOR(2), replace_pair(4))
    wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t))
    hk = worst_case_hockey(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t), F(5, 4), F(5, 4))
    mech = _exponential_mechanism(list(lp.support()), s, 4, seed)
    out_p = [sum(pr * mech(x)[o] for x, pr in lp) for o in range(4)]
    out_q = [sum(pr * mech(x)[o] for x, pr in lq) for o in range(4)]
    # sup over events of the ratio is attained at a single output (mediant inequality)
    assert max(a / b for a, b in zip(out_p, out_q)) <= wc.forward.upper
    assert sum(max(F(0), a - F(5, 4) * b) for a, b in zip(out_p, out_q)) <= hk.forward.upper


# ---------------------------------------------------------------- fact 2: other values


def test_fact2_a_value_outside_p_and_p_prime_changes_nothing() -> None:
    pair = replace_pair(4)
    z = RecordType("z")
    u0 = pair.universe
    u1 = tuple(sorted((*u0, z)))
    mc = MechanismClass.pure(Relation.ADD_REMOVE, 2)
    for design in (SRSWOR(2), Poisson(F(1, 2))):
        a = worst_case_ratio(design.sample_law(pair.p, u0), design.sample_law(pair.q, u0), mc)
        b = worst_case_ratio(design.sample_law(pair.p, u1), design.sample_law(pair.q, u1), mc)
        assert a.forward.lower == b.forward.lower and a.forward.upper == b.forward.upper


# ---------------------------------------------------------------- fact 3: the grid


def test_fact3_retractions_are_non_expansive_exhaustively() -> None:
    def dist(a, b):  # type: ignore[no-untyped-def]
        return sum(abs(x - y) for x, y in zip(a, b)) // 2

    for dim in (2, 3, 4):
        for s in range(6):
            for lo in itertools.product(range(3), repeat=dim):
                if sum(lo) > s:
                    continue
                for x in _compositions(s, dim):
                    rx = _prefix_retract(x, lo, s)
                    assert all(a >= b for a, b in zip(rx, lo)) and sum(rx) == s
                    for y in dataset_neighbours(x, Relation.REPLACE):
                        assert dist(rx, _prefix_retract(y, lo, s)) <= 1
    box = Region(Relation.ADD_REMOVE, (Layer((1, 0), (2, 1), None),), (), ())
    for x in itertools.product(range(5), repeat=2):
        for y in dataset_neighbours(x, Relation.ADD_REMOVE):
            rx, ry = box.retract(x), box.retract(y)
            assert sum(abs(a - b) for a, b in zip(rx, ry)) <= 1  # type: ignore[arg-type]


def test_fact3_pairwise_graph_distance_constraints_are_not_exact_for_two_sided_dp() -> None:
    # f(a) = 1/10, f(b) = 9/10 at distance 2 satisfy both pairwise constraints for t = 3
    # (f_a ≤ t² f_b, 1 − f_b ≤ t²(1 − f_a), and the reverses), yet no value at the midpoint
    # satisfies the edge constraints towards both: two-sided DP needs the grid, not pairs.
    t, fa, fb = F(3), F(1, 10), F(9, 10)
    assert fa <= t**2 * fb and fb <= t**2 * fa
    assert (1 - fa) <= t**2 * (1 - fb) and (1 - fb) <= t**2 * (1 - fa)
    lo = max(fa / t, fb / t, 1 - (1 - fa) * t, 1 - (1 - fb) * t)
    hi = min(fa * t, fb * t, 1 - (1 - fa) / t, 1 - (1 - fb) / t)
    assert lo > hi  # the feasible interval for the midpoint is empty


@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.REPLACE])
def test_fact3_enlarging_the_region_does_not_change_the_value(relation: Relation) -> None:
    lp, lq = laws(SRSWOR(2), replace_pair(4))
    base = build_region(list(lp.support()) + list(lq.support()), relation)
    # add datasets around the support: one more of every type (and one fewer where possible)
    extra = set(base.points)
    for x in base.points:
        extra.update(dataset_neighbours(x, relation))
    big = build_region(extra, relation)
    assert len(big.points) > len(base.points)
    t = F(2)
    for region in (base, big):
        p, _ = _vectors(region, lp)
        q, _ = _vectors(region, lq)
        if region is base:
            r0 = exact_ratio(region, p, q, t)
            h0 = exact_hockey(region, p, q, t, F(1, 10), F(3, 2))
        else:
            assert exact_ratio(region, p, q, t) == r0
            assert exact_hockey(region, p, q, t, F(1, 10), F(3, 2)) == h0


# ---------------------------------------------------------------- fact 4: symmetry


@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.REPLACE])
@pytest.mark.parametrize("n,m", [(3, 1), (3, 2), (4, 2)])
def test_fact4_distinct_common_records_equal_identical_ones_without_replacement(
    relation: Relation, n: int, m: int
) -> None:
    distinct = [RecordType(f"a{i}") for i in range(n - 1)]
    pair_d = PopulationPair(
        Population.of({**dict.fromkeys(distinct, 1), X: 1}),
        Population.of({**dict.fromkeys(distinct, 1), Y: 1}),
        Relation.REPLACE,
    )
    mc = MechanismClass.pure(relation, F(2))
    a = worst_case_ratio(*laws(SRSWOR(m), pair_d), mc)
    b = worst_case_ratio(*laws(SRSWOR(m), replace_pair(n)), mc)
    assert a.forward.lower == a.forward.upper == b.forward.lower == b.forward.upper


def test_fact4_identical_records_are_only_a_lower_bound_with_replacement() -> None:
    distinct = [RecordType("a0"), RecordType("a1")]
    pair_d = PopulationPair(
        Population.of({distinct[0]: 1, distinct[1]: 1, X: 1}),
        Population.of({distinct[0]: 1, distinct[1]: 1, Y: 1}),
        Relation.REPLACE,
    )
    mc = MechanismClass.pure(Relation.ADD_REMOVE, F(2))
    a = worst_case_ratio(*laws(SRSWR(2), pair_d), mc)
    b = worst_case_ratio(*laws(SRSWR(2), replace_pair(3)), mc)
    assert b.forward.upper <= a.forward.lower  # coarsening can only help the defender


# ---------------------------------------------------------------- fact 5: brackets in t


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.fractions(min_value=F(11, 10), max_value=F(4)), st.fractions(F(1, 100), F(1)))
def test_fact5_value_is_monotone_in_t(t: F, step: F) -> None:
    design = RandomSizeWOR(FiniteDist.from_pairs([(1, F(1, 2)), (3, F(1, 2))]))
    lp, lq = laws(design, replace_pair(4))
    lo = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t))
    hi = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t + step))
    assert lo.forward.lower <= hi.forward.upper
    bracket = worst_case_ratio(lp, lq, MechanismClass(Relation.ADD_REMOVE, t, t + step))
    assert bracket.forward.lower <= lo.forward.upper and hi.forward.lower <= bracket.forward.upper


# ---------------------------------------------------------------- fact 6: concrete witnesses


@pytest.mark.parametrize("t", [F(2), F(6, 5)])
def test_fact6_concrete_mechanisms_are_lower_bounds(t: F) -> None:
    for n, m in ((4, 2), (5, 1), (6, 6)):
        pair = replace_pair(n)
        lp, lq = laws(SRSWOR(m), pair)
        u = pair.universe
        wc = worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, t))
        for mech in (
            GeometricCount((("x", 1), ("y", -1))),
            LaplaceCount((("x", 1),)),
            RandomizedResponse(("x",)),
        ):
            assert mech.is_eps_dp(Relation.ADD_REMOVE, u)
            r = mech.max_ratio(lp, lq, u, t).ratio
            assert r is not None and r <= wc.forward.upper
        assert wc.forward.lower == 1 + F(m, n) * (t * t - 1)
        # the two-sided count already beats the e^ε formula of Thm 3.1 whenever m > 0
        best = GeometricCount((("x", 1), ("y", -1))).max_ratio(lp, lq, u, t).ratio
        assert best is not None
        assert (best > 1 + F(m, n) * (t - 1)) == (m > 0)


@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.REPLACE])
def test_fact4_orbit_lp_equals_the_full_lp(relation: Relation) -> None:
    # three interchangeable common values b, c, d (one record each) and x vs y
    b, c, d = RecordType("b"), RecordType("c"), RecordType("d")
    pair = PopulationPair(
        Population.of({b: 1, c: 1, d: 1, X: 1}), Population.of({b: 1, c: 1, d: 1, Y: 1}),
        Relation.REPLACE,
    )
    u = pair.universe
    classes = (tuple(u.index(v) for v in (b, c, d)),)
    for design in (SRSWOR(2), Poisson(F(1, 2))):
        lp, lq = laws(design, pair)
        mc = MechanismClass.pure(relation, F(2))
        full = worst_case_ratio(lp, lq, mc)
        orbit = worst_case_ratio(lp, lq, mc, classes=classes)
        assert orbit.lp_points < full.lp_points
        assert orbit.forward.lower == full.forward.lower
        assert orbit.forward.upper == full.forward.upper


def test_fact4_a_false_symmetry_is_refused() -> None:
    from verifydp.worstcase.engine import NotSymmetric

    pair = replace_pair(4)
    u = pair.universe
    lp, lq = laws(SRSWOR(2), pair)
    with pytest.raises(NotSymmetric):
        worst_case_ratio(lp, lq, MechanismClass.pure(Relation.ADD_REMOVE, 2),
                         classes=((u.index(A), u.index(X)),))
