"""The full-size orbit reduction (docs/foundations.md#fact-8) against brute force.

Every reduced computation is compared with the engine run on the *whole* sample law of a small
population whose records are all distinct (tests/oracles/naive_designs.py enumerates
individuals), so the reduction is checked against the unreduced problem, not against itself.
Mutants (a wrong law of K, a dropped coordinate) must be caught.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.oracles.naive_designs import naive_sample_law
from verifydp.designs import SRSWOR, SRSWR, ClusterSRS, Poisson, StratifiedFixed, TwoStageCluster
from verifydp.exact.dist import FiniteDist
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, worst_case_hockey, worst_case_ratio
from verifydp.worstcase import fullsize as fs

AR, REP = Relation.ADD_REMOVE, Relation.REPLACE
T = Fraction(2)


def distinct(n: int, prefix: str = "r", stratum: str | None = None,
             cluster: str | None = None) -> dict[RecordType, int]:
    return {RecordType(f"{prefix}{i}", stratum, cluster): 1 for i in range(n)}


def brute_ratio(design, pairs, base: Relation, t: Fraction = T) -> Fraction:
    """Max over the pairs and both directions of the certified ratio, whole sample laws."""
    best = Fraction(1)
    for p, q in pairs:
        u = PopulationPair(p, q, AR if p.size != q.size else REP).universe
        wc = worst_case_ratio(naive_sample_law(design, p, u), naive_sample_law(design, q, u),
                              MechanismClass.pure(base, t))
        assert wc.forward.exact and wc.backward.exact
        best = max(best, wc.forward.lower, wc.backward.lower)  # type: ignore[type-var]
    return best


def reduced_ratio(orbits, base: Relation, t: Fraction = T) -> fs.FullBracket:
    return fs.solve_ratio(orbits, MechanismClass.pure(base, t))


def add_remove_pairs(common: dict[RecordType, int], x: RecordType):
    with_x = Population.of({**common, x: 1})
    return [(Population.of(common), with_x)]


def test_poisson_add_remove_does_not_depend_on_n() -> None:
    q = Fraction(1, 3)
    orbits = fs.poisson_add_remove(q)
    got = reduced_ratio(orbits, AR)
    for n in (1, 3, 5):
        want = brute_ratio(Poisson(q), add_remove_pairs(distinct(n), RecordType("x")), AR)
        assert got.lower == got.upper == want
    assert got.lower == 1 + q * (T - 1)
    # mutant: the wrong inclusion probability is caught
    assert reduced_ratio(fs.poisson_add_remove(Fraction(1, 2)), AR).lower != got.lower
    x, y = RecordType("x"), RecordType("y")
    rep = reduced_ratio(fs.poisson_add_remove(q, REP), AR)
    for n in (1, 3):
        c = distinct(n)
        pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
        assert rep.lower == rep.upper == brute_ratio(Poisson(q), pairs, AR)


@pytest.mark.parametrize("base", [AR, REP])
@pytest.mark.parametrize("protect", [AR, REP])
def test_srswor_matches_distinct_records(base: Relation, protect: Relation) -> None:
    n, m = 5, 2
    x, y = RecordType("x"), RecordType("y")
    one = FiniteDist.point(m)
    orbits = fs.wor_pairs(n, one, one, protect, "srswor")
    if protect is AR:
        pairs = add_remove_pairs(distinct(n), x)
    else:
        c = distinct(n - 1)
        pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
    want = brute_ratio(SRSWOR(m), pairs, base)
    got = reduced_ratio(orbits, base)
    assert got.lower == got.upper == want
    if protect is AR and base is AR:
        assert want == 1 + Fraction(m, n + 1) * (T**2 - 1)
    mutant = fs.wor_pairs(n + 3, one, one, protect, "srswor")
    assert reduced_ratio(mutant, base).lower != want


@pytest.mark.parametrize("protect", [AR, REP])
def test_srswr_distinct_records_equal_the_orbit_lp(protect: Relation) -> None:
    """With replacement the identical-records world is exact *for SRSWR* (i.i.d. draws nest:
    fact 8), although fact 4 only gives a lower bound in general."""
    n, m = 3, 2
    x, y = RecordType("x"), RecordType("y")
    if protect is AR:
        pairs = add_remove_pairs(distinct(n), x)
        pairs += [(Population.of(distinct(n - 1)), Population.of({**distinct(n - 1), x: 1}))]
    else:
        c = distinct(n - 1)
        pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
    for base in (AR, REP):
        want = brute_ratio(SRSWR(m), pairs, base)
        got = reduced_ratio(fs.srswr_pairs(n, m, protect, base), base)
        assert got.lower is not None and got.upper is not None
        assert got.lower <= want <= got.upper
        assert got.lower == want  # no tail at this size


def test_srswr_tail_bracket_is_sound_and_tight() -> None:
    """At m = 256, N = 60 000 the tail of K is merged; the bracket must contain the LP on the
    untruncated (K ≤ 12) law and be narrow."""
    n, m = 60000, 256
    got = reduced_ratio(fs.srswr_pairs(n, m, AR, AR), AR)
    assert got.lower is not None and got.upper is not None
    assert got.upper - got.lower < Fraction(1, 10**5)
    assert got.lower > 1 + Fraction(m, n + 1) * (T**2 - 1) * Fraction(99, 100)


def test_stratified_other_strata_do_not_matter() -> None:
    """A stratum's pair with another stratum present (whole laws) equals the one-stratum
    orbit LP (fact 8, independent part)."""
    x = RecordType("x", "h")
    common = {**distinct(3, "h", "h"), **distinct(2, "g", "g")}
    design = StratifiedFixed({"h": 2, "g": 1})
    want = brute_ratio(design, add_remove_pairs(common, x), AR)
    got = reduced_ratio(fs.wor_pairs(3, FiniteDist.point(2), FiniteDist.point(2), AR, "h"), AR)
    assert got.lower == got.upper == want


def test_stratified_replace_base_counts_the_other_strata() -> None:
    """Under a replace base a record may move between strata, so φ carries the other strata's
    (fixed) sample size; with it the orbit LP equals the whole-law LP."""
    x = RecordType("x", "h")
    common = {**distinct(2, "h", "h"), **distinct(2, "g", "g")}
    design = StratifiedFixed({"h": 1, "g": 1})
    want = brute_ratio(design, add_remove_pairs(common, x), REP)
    orbits = fs.wor_pairs(2, FiniteDist.point(1), FiniteDist.point(1), AR, "h")
    got = reduced_ratio(fs.with_rest(orbits, 1), REP)
    assert got.lower == got.upper == want


def _cluster_pop(sizes: list[int], extra: dict[RecordType, int] | None = None):
    recs: dict[RecordType, int] = {}
    for j, s in enumerate(sizes):
        recs.update(distinct(s, f"c{j}r", cluster=f"c{j}"))
    return {**recs, **(extra or {})}


@pytest.mark.parametrize("within", [None, 1])
def test_cluster_orbits_match_distinct_records(within: int | None) -> None:
    """Clusters of sizes [1, 1, 2], ℓ = 2: whole clusters or one record per drawn cluster;
    x added to the cluster c0 (size 1) or as a new cluster, against the whole sample laws."""
    sizes, ell = [1, 1, 2], 2
    design = ClusterSRS(ell) if within is None else TwoStageCluster(ell, "srs", within)
    common = _cluster_pop(sizes)
    base = AR
    x_in = RecordType("x", cluster="c0")
    x_new = RecordType("x", cluster="new")
    orbits = fs.cluster_pairs([(1, 2), (2, 1)], ell, within, AR)
    by_label = {o.label: o for o in orbits}
    want_in = brute_ratio(design, add_remove_pairs(common, x_in), base)
    got_in = reduced_ratio([by_label["add a record to a cluster of size 1"]], base)
    assert got_in.lower == got_in.upper == want_in
    want_new = brute_ratio(design, add_remove_pairs(common, x_new), base)
    got_new = reduced_ratio([by_label["add a record as a new cluster"]], base)
    assert got_new.lower == got_new.upper == want_new
    # mutant: forgetting the others' totals (φ = (c, x) only) understates the worst case
    ob = by_label["add a record to a cluster of size 1"]
    drop = len(ob.coords) - 2
    lp = ob.law_p.map(lambda v: v[drop:])
    lq = ob.law_q.map(lambda v: v[drop:])
    w = worst_case_ratio(lp, lq, MechanismClass.pure(base, T))
    assert max(w.forward.lower, w.backward.lower) < want_in  # type: ignore[type-var]


def test_cluster_replace_matches_distinct_records() -> None:
    ell = 2
    design = TwoStageCluster(ell, "srs", 1)
    c = _cluster_pop([1, 1, 1])  # c0 keeps one common record, x/y is its second
    x, y = RecordType("x", cluster="c0"), RecordType("y", cluster="c0")
    pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
    want = brute_ratio(design, pairs, REP)
    orbits = fs.cluster_pairs([(2, 1), (1, 2)], ell, 1, REP)
    got = reduced_ratio([o for o in orbits if o.label == "replace a record in a cluster of size 2"],
                        REP)
    assert got.lower == got.upper == want


@pytest.mark.parametrize("dest", ["c1", "new"])
def test_cluster_move_matches_distinct_records(dest: str) -> None:
    """x leaves cluster c0 (size 2) and y joins c1 (size 1) or a new cluster: both sizes (or
    the number of clusters) change; against the whole sample laws."""
    design = TwoStageCluster(2, "srs", 1)
    c = _cluster_pop([1, 1, 1])
    x = RecordType("x", cluster="c0")
    y = RecordType("y", cluster="c1" if dest == "c1" else "new")
    pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
    want = brute_ratio(design, pairs, REP)
    orbits = fs.cluster_pairs([(2, 1), (1, 2)], 2, 1, REP)
    label = ("move a record from a cluster of size 2 to "
             + ("a cluster of size 1" if dest == "c1" else "a new cluster"))
    got = reduced_ratio([o for o in orbits if o.label == label], REP)
    assert got.lower == got.upper == want


def test_hockey_matches_distinct_records() -> None:
    n, m = 4, 2
    x = RecordType("x")
    pairs = add_remove_pairs(distinct(n), x)
    mclass = MechanismClass(AR, T, T, Fraction(1, 10))
    tp = Fraction(3, 2)
    want = Fraction(0)
    for p, q in pairs:
        u = PopulationPair(p, q, AR).universe
        wc = worst_case_hockey(naive_sample_law(SRSWOR(m), p, u), naive_sample_law(SRSWOR(m), q, u),
                               mclass, tp, tp)
        want = max(want, wc.forward.lower, wc.backward.lower)  # type: ignore[type-var]
    got = fs.solve_hockey(fs.wor_pairs(n, FiniteDist.point(m), FiniteDist.point(m), AR, "s"),
                          mclass, tp, tp)
    assert got.lower == got.upper == want


def test_too_many_orbits_is_reported_with_the_limit() -> None:
    classes = [(s, 40) for s in range(10, 60, 5)]
    with pytest.raises(fs.OutOfReach, match="limit"):
        fs.cluster_pairs(classes, 30, None, AR)


def test_identical_world_is_only_a_lower_bound() -> None:
    head = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    got = reduced_ratio(fs.identical_world(head, 3, REP, "must"), REP)
    assert got.upper is None and not got.complete and got.lower is not None


def test_allocation_change_matches_distinct_records() -> None:
    """A neighbour that moves two strata's allocations (as Neyman allocation does): the orbit
    LP equals the whole-law LP with a different design on each side."""
    common = {**distinct(3, "g", "g"), **distinct(3, "h", "h")}
    y = RecordType("y", "g")
    p, q = Population.of(common), Population.of({**common, y: 1})
    u = PopulationPair(p, q, AR).universe
    law_p = naive_sample_law(StratifiedFixed({"g": 1, "h": 2}), p, u)
    law_q = naive_sample_law(StratifiedFixed({"g": 2, "h": 1}), q, u)
    wc = worst_case_ratio(law_p, law_q, MechanismClass.pure(AR, T))
    want = max(wc.forward.lower, wc.backward.lower)  # type: ignore[type-var]
    ob = fs.allocation_change([("g", 3, 1, 4, 2, False, True), ("h", 3, 2, 3, 1, False, False)],
                              "move")
    got = reduced_ratio([ob], AR)
    assert got.lower == want and got.upper is None  # one neighbour: a lower bound only
    wrong = fs.allocation_change([("g", 3, 1, 4, 2, False, True)], "h forgotten")
    assert reduced_ratio([wrong], AR).lower != want


def test_cluster_move_from_a_singleton_matches_distinct_records() -> None:
    """x is a cluster on its own (it disappears) and y joins a cluster of size 1: the number
    of clusters drops from 3 to 2; against the whole sample laws."""
    design = TwoStageCluster(2, "srs", 1)
    c = {**distinct(1, "a", cluster="c0"), **distinct(1, "b", cluster="c2")}
    x, y = RecordType("x", cluster="c1"), RecordType("y", cluster="c0")
    pairs = [(Population.of({**c, x: 1}), Population.of({**c, y: 1}))]
    want = brute_ratio(design, pairs, REP)
    orbits = fs.cluster_pairs([(1, 3)], 2, 1, REP)
    label = "move a record from a cluster of size 1 to a cluster of size 1"
    got = reduced_ratio([o for o in orbits if o.label == label], REP)
    assert got.lower == got.upper == want


@pytest.mark.parametrize("scheme", ["wor", "wr", "must-ow", "must-wo", "must-ww"])
def test_k_law_head_is_the_exact_law_of_k(scheme: str) -> None:
    """The integer-numerator head used at full size equals the Fraction law of K term by
    term (tail 0: the whole law), and its cut leaves less than the stated mass."""
    from verifydp.designs.must import k_law, k_law_head

    n, b, m = 9, 5, 4
    bb = None if scheme in ("wor", "wr") else b
    law = k_law(scheme, n, bb, m)
    head = k_law_head(scheme, n, bb, m, 0.0)
    assert head == [law.prob(k) for k in range(len(head))]
    assert sum(head) == 1
    cut = k_law_head(scheme, 1000, None if bb is None else 500, 400, 1e-12)
    assert 0 <= 1 - sum(cut) < Fraction(1, 10**11)
    assert k_law_head(scheme, n + 1, bb, m, 0.0) != head  # a wrong population is caught
