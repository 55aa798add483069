"""Concrete mechanisms (verifydp.mechanisms.concrete) against independent brute force.

Every check is exact (Fractions). The geometric kernel is Pr[Z = z] = c·t^{-|z|} with
c = (t − 1)/(t + 1); infinite sums are split into a finite window plus the closed-form tail
Σ_{k ≥ 1} t^{-k} = 1/(t − 1), or bracketed by that tail when truncated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction as F
from itertools import product

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.designs import SRSWOR, Poisson
from verifydp.exact.dist import FiniteDist
from verifydp.exact.tfunc import T
from verifydp.mechanisms import (
    GeometricCount,
    LaplaceCount,
    Mechanism,
    RandomizedResponse,
    mechanism_from_json,
)
from verifydp.mechanisms.concrete import weights_for
from verifydp.population import CountVector, Population, RecordType, Relation, Universe

A, B, C = RecordType("a"), RecordType("b"), RecordType("c")
X, Y = RecordType("x"), RecordType("y")
U2: Universe = (A, B)
U3: Universe = (A, B, C)
TS = [F(11, 10), F(3, 2), F(2), F(3), F(7, 2)]
Count = GeometricCount | LaplaceCount
Law = FiniteDist[CountVector]
Weights = tuple[tuple[str, int], ...] | None

SETTINGS = settings(derandomize=True, deadline=None, max_examples=40)

# ---------------------------------------------------------------- independent helpers


def wvec(mech: Count, universe: Universe) -> list[int]:
    if mech.weights is None:
        return [1] * len(universe)
    d = dict(mech.weights)
    return [d.get(rt.value, 0) for rt in universe]


def stat(law: FiniteDist[CountVector], w: list[int]) -> dict[int, F]:
    out: dict[int, F] = {}
    for c, p in law:
        s = sum(a * b for a, b in zip(w, c, strict=True))
        out[s] = out.get(s, F(0)) + p
    return out


def geo_pmf(sp: dict[int, F], y: int, t: F) -> F:
    """Pr[S + Z = y] for the two-sided geometric noise Z."""
    c = (t - 1) / (t + 1)
    return sum((p * c * t ** -abs(y - s) for s, p in sp.items()), F(0))


def lap_density(sp: dict[int, F], y: int, t: F) -> F:
    """Unnormalised density of S + Lap(1/ε) at integer y: Σ Pr[s] t^{-|y-s|}."""
    return sum((p * t ** -abs(y - s) for s, p in sp.items()), F(0))


def rr_p_one(law: FiniteDist[CountVector], universe: Universe, values: tuple[str, ...], t: F) -> F:
    hit = sum(
        (
            p
            for c, p in law
            if any(k > 0 and rt.value in values for k, rt in zip(c, universe, strict=True))
        ),
        F(0),
    )
    return (hit * t + (1 - hit)) / (1 + t)


def to_fraction(v: sympy.Basic) -> F:
    assert isinstance(v, sympy.Rational), v
    return F(int(v.p), int(v.q))


# ---------------------------------------------------------------- strategies

ts = st.sampled_from(TS)


@st.composite
def arbitrary_laws(draw: st.DrawFn, dim: int) -> FiniteDist[CountVector]:
    vec = st.tuples(*[st.integers(0, 3)] * dim)
    vecs = draw(st.lists(vec, min_size=1, max_size=4, unique=True))
    ws = draw(st.lists(st.integers(1, 5), min_size=len(vecs), max_size=len(vecs)))
    return FiniteDist.from_pairs((v, F(w, sum(ws))) for v, w in zip(vecs, ws, strict=True))


@st.composite
def design_laws(draw: st.DrawFn, universe: Universe) -> FiniteDist[CountVector]:
    counts = draw(st.lists(st.integers(0, 3), min_size=len(universe), max_size=len(universe)))
    pop = Population.of(zip(universe, counts, strict=True))
    if draw(st.booleans()):
        design = SRSWOR(draw(st.integers(0, pop.size)))
    else:
        design = Poisson(draw(st.sampled_from([F(1, 3), F(1, 2), F(3, 4)])))
    return design.sample_law(pop, universe)


def laws(universe: Universe) -> st.SearchStrategy[FiniteDist[CountVector]]:
    return st.one_of(arbitrary_laws(len(universe)), design_laws(universe))


weight_maps = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from("abc"), st.integers(-2, 2), min_size=1, max_size=3).map(
        weights_for
    ),
)
count_mechs = st.builds(
    lambda cls, w: cls(w), st.sampled_from([GeometricCount, LaplaceCount]), weight_maps
)


# ---------------------------------------------------------------- 1. geometric normalisation


@pytest.mark.parametrize("t", TS)
@pytest.mark.parametrize("k", [0, 1, 5, 30])
def test_geometric_kernel_sums_to_one(t: F, k: int) -> None:
    c = (t - 1) / (t + 1)
    window = sum((c * t ** -abs(z) for z in range(-k, k + 1)), F(0))
    tails = 2 * c * t**-k / (t - 1)  # Σ_{z > k} c t^{-z}, twice
    assert window + tails == 1


@SETTINGS
@given(laws(U3), weight_maps, ts, st.integers(0, 4))
def test_composed_geometric_law_sums_to_one(law: Law, weights: Weights, t: F, pad: int) -> None:
    mech = GeometricCount(weights)
    sp = stat(law, wvec(mech, U3))
    lo, hi = min(sp) - pad, max(sp) + pad
    window = sum((geo_pmf(sp, y, t) for y in range(lo, hi + 1)), F(0))
    for j in range(1, 4):  # beyond the support the law decays exactly geometrically
        assert geo_pmf(sp, hi + j, t) == geo_pmf(sp, hi, t) * t**-j
        assert geo_pmf(sp, lo - j, t) == geo_pmf(sp, lo, t) * t**-j
    assert window + (geo_pmf(sp, hi, t) + geo_pmf(sp, lo, t)) / (t - 1) == 1


@SETTINGS
@given(laws(U3), laws(U3), weight_maps, ts, st.sampled_from([F(0), F(1), F(3, 2), F(4)]))
def test_hockey_against_truncated_sum(lp: Law, lq: Law, weights: Weights, t: F, t_prime: F) -> None:
    mech = GeometricCount(weights)
    w = wvec(mech, U3)
    sp, sq = stat(lp, w), stat(lq, w)
    width = 40
    lo, hi = min(*sp, *sq) - width, max(*sp, *sq) + width
    trunc = sum(
        (max(F(0), geo_pmf(sp, y, t) - t_prime * geo_pmf(sq, y, t)) for y in range(lo, hi + 1)),
        F(0),
    )
    # each hockey term is at most Pr_P[y], and Pr_P[y outside the window] ≤ 2c t^{-W}/(t − 1)
    tail = 2 * (t - 1) / (t + 1) * t**-width / (t - 1)
    exact = mech.hockey(lp, lq, U3, t, t_prime)
    assert trunc <= exact <= trunc + tail
    if t_prime == 0:
        assert exact == 1  # Σ_y Pr_P[y] over all integers, tails included


@SETTINGS
@given(laws(U2), laws(U2), weight_maps, ts)
def test_hockey_vanishes_exactly_at_the_max_ratio(lp: Law, lq: Law, weights: Weights, t: F) -> None:
    mech = GeometricCount(weights)
    r = mech.max_ratio(lp, lq, U2, t).ratio
    assert r is not None
    assert mech.hockey(lp, lq, U2, t, r) == 0
    assert mech.hockey(lp, lq, U2, t, r * F(999, 1000)) > 0


# ---------------------------------------------------------------- 2. DP by brute force


def neighbours(x: CountVector, relation: Relation) -> Iterator[CountVector]:
    d = len(x)
    if relation is Relation.ADD_REMOVE:
        for i in range(d):
            for step in (1, -1):
                y = list(x)
                y[i] += step
                if y[i] >= 0:
                    yield tuple(y)
    else:
        for i in range(d):
            for j in range(d):
                if i != j and x[i] > 0:
                    y = list(x)
                    y[i] -= 1
                    y[j] += 1
                    yield tuple(y)


def worst_point_ratio(mech: Mechanism, universe: Universe, relation: Relation, t: F) -> F:
    worst = F(1)
    for x in product(range(3), repeat=len(universe)):
        for y in neighbours(x, relation):
            r = mech.max_ratio(FiniteDist.point(x), FiniteDist.point(y), universe, t).ratio
            assert r is not None
            worst = max(worst, r)
    return worst


DP_MECHS: list[Mechanism] = [
    GeometricCount(None),
    LaplaceCount(None),
    GeometricCount(weights_for({"a": 1})),
    LaplaceCount(weights_for({"a": 1, "b": -1})),
    GeometricCount(weights_for({"a": -1, "b": 1, "c": 1})),
    GeometricCount(weights_for({"a": 2})),
    LaplaceCount(weights_for({"a": 2})),
    LaplaceCount(weights_for({"b": 1, "c": -2})),
    RandomizedResponse(("a",)),
    RandomizedResponse(("a", "b")),
]


@pytest.mark.parametrize("relation", list(Relation), ids=lambda r: r.value)
@pytest.mark.parametrize("universe", [U2, U3], ids=["2 types", "3 types"])
@pytest.mark.parametrize("mech", DP_MECHS, ids=lambda m: json.dumps(m.to_json()))
def test_eps_dp_by_brute_force(mech: Mechanism, universe: Universe, relation: Relation) -> None:
    for t in (F(3, 2), F(3)):
        worst = worst_point_ratio(mech, universe, relation, t)
        assert (worst <= t) == mech.is_eps_dp(relation, universe)
        if isinstance(mech, GeometricCount | LaplaceCount):
            # on point masses the sup ratio is t^{|Δ stat|}: the worst is t^{sensitivity}
            assert worst == t ** mech.sensitivity(relation, universe)
        else:
            assert worst in (1, t)


@pytest.mark.parametrize("relation", list(Relation), ids=lambda r: r.value)
@pytest.mark.parametrize("cls", [GeometricCount, LaplaceCount])
def test_sensitivity_two_is_caught(cls: type[Count], relation: Relation) -> None:
    """is_eps_dp is not vacuous: a weight-2 sum violates ε-DP on some neighbour pair."""
    mech = cls(weights_for({"a": 2}))
    t = F(2)
    assert mech.sensitivity(relation, U2) == 2
    assert not mech.is_eps_dp(relation, U2)
    x = (1, 1)
    y = (2, 1) if relation is Relation.ADD_REMOVE else (2, 0)
    r = mech.max_ratio(FiniteDist.point(y), FiniteDist.point(x), U2, t).ratio
    assert r == t**2 > t
    assert worst_point_ratio(mech, U2, relation, t) == t**2


# ---------------------------------------------------------------- 3. max_ratio correctness


@SETTINGS
@given(laws(U3), laws(U3), weight_maps, ts)
def test_geometric_max_ratio_matches_brute_force(lp: Law, lq: Law, weights: Weights, t: F) -> None:
    mech = GeometricCount(weights)
    w = wvec(mech, U3)
    sp, sq = stat(lp, w), stat(lq, w)
    lo, hi = min(*sp, *sq), max(*sp, *sq)
    brute = max(geo_pmf(sp, y, t) / geo_pmf(sq, y, t) for y in range(lo - 8, hi + 9))
    best = mech.max_ratio(lp, lq, U3, t)
    assert best.ratio == brute
    assert lo <= best.point <= hi
    assert best.pr_p == geo_pmf(sp, best.point, t)
    assert best.pr_q == geo_pmf(sq, best.point, t)
    assert best.ratio == best.pr_p / best.pr_q


@SETTINGS
@given(laws(U3), laws(U3), weight_maps, ts)
def test_laplace_max_ratio_matches_brute_force(lp: Law, lq: Law, weights: Weights, t: F) -> None:
    mech = LaplaceCount(weights)
    w = wvec(mech, U3)
    sp, sq = stat(lp, w), stat(lq, w)
    lo, hi = min(*sp, *sq), max(*sp, *sq)
    brute = max(lap_density(sp, y, t) / lap_density(sq, y, t) for y in range(lo - 8, hi + 9))
    best = mech.max_ratio(lp, lq, U3, t)
    assert best.ratio == brute
    assert best.pr_p == lap_density(sp, best.point, t)
    assert best.pr_q == lap_density(sq, best.point, t)


@SETTINGS
@given(laws(U2), laws(U2), weight_maps, st.sampled_from([F(3, 2), F(2)]), st.sampled_from([2, 3]))
def test_laplace_sup_over_reals_is_attained_at_integers(
    lp: Law, lq: Law, weights: Weights, u: F, k: int
) -> None:
    """With t = u^k, densities at y = j/k are exact: t^{-|j/k - s|} = u^{-|j - k s|}."""
    mech = LaplaceCount(weights)
    t = u**k
    w = wvec(mech, U2)
    sp, sq = stat(lp, w), stat(lq, w)
    lo, hi = min(*sp, *sq), max(*sp, *sq)

    def dens(sl: dict[int, F], j: int) -> F:
        return sum((p * u ** -abs(j - k * s) for s, p in sl.items()), F(0))

    fine = max(dens(sp, j) / dens(sq, j) for j in range(k * (lo - 2), k * (hi + 2) + 1))
    assert mech.max_ratio(lp, lq, U2, t).ratio == fine


@pytest.mark.parametrize("t", [F(11, 10), F(2), F(5)])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_randomized_response_closed_form(n: int, t: F) -> None:
    p, q = Population.of({A: n - 1, X: 1}), Population.of({A: n - 1, Y: 1})
    universe = (A, X, Y)
    mech = RandomizedResponse(("x",))
    for m in range(n + 1):
        lp, lq = SRSWOR(m).sample_law(p, universe), SRSWOR(m).sample_law(q, universe)
        fwd = mech.max_ratio(lp, lq, universe, t)
        assert fwd.ratio == 1 + F(m, n) * (t - 1)
        assert fwd.point == 1
        assert fwd.pr_p == (F(m, n) * t + 1 - F(m, n)) / (1 + t) and fwd.pr_q == 1 / (1 + t)
        bwd = mech.max_ratio(lq, lp, universe, t).ratio
        assert bwd == t / (t - F(m, n) * (t - 1))
        assert max(fwd.ratio, bwd) <= t


@SETTINGS
@given(laws(U3), laws(U3), st.sampled_from([("a",), ("b", "c"), ("a", "b", "c"), ("z",)]), ts)
def test_randomized_response_matches_brute_force(
    lp: Law, lq: Law, values: tuple[str, ...], t: F
) -> None:
    mech = RandomizedResponse(values)
    a1, b1 = rr_p_one(lp, U3, values, t), rr_p_one(lq, U3, values, t)
    best = mech.max_ratio(lp, lq, U3, t)
    assert best.ratio == max(a1 / b1, (1 - a1) / (1 - b1))
    assert (best.pr_p, best.pr_q) == ((a1, b1) if best.point == 1 else (1 - a1, 1 - b1))
    assert 1 <= best.ratio <= t


# ---------------------------------------------------------------- 4. symbolic t


@settings(derandomize=True, deadline=None, max_examples=15)
@given(count_mechs, laws(U2), laws(U2), st.integers(-3, 8))
def test_point_ratio_symbolic_agrees_with_fractions(mech: Count, lp: Law, lq: Law, y: int) -> None:
    expr = mech.point_ratio(lp, lq, U2, T, y)
    w = wvec(mech, U2)
    sp, sq = stat(lp, w), stat(lq, w)
    for t in (F(11, 10), F(2), F(7, 3)):
        exact = mech.point_ratio(lp, lq, U2, t, y)
        assert isinstance(exact, F)
        assert to_fraction(expr.subs(T, sympy.Rational(t.numerator, t.denominator))) == exact
        assert exact == lap_density(sp, y, t) / lap_density(sq, y, t)
    assert mech.point_ratio(lp, lq, U2, 2, y) == mech.point_ratio(lp, lq, U2, F(2), y)


# ---------------------------------------------------------------- 5. JSON


JSON_MECHS: list[Mechanism] = [
    GeometricCount(None),
    LaplaceCount(None),
    GeometricCount(weights_for({"x": 1, "y": -1})),
    LaplaceCount(weights_for({"1": 1})),
    LaplaceCount(weights_for({"b": 2, "a": 0})),
    RandomizedResponse(("x",)),
    RandomizedResponse(("x", "y")),
    RandomizedResponse(()),
]


@pytest.mark.parametrize("mech", JSON_MECHS, ids=lambda m: json.dumps(m.to_json()))
def test_json_round_trip(mech: Mechanism) -> None:
    assert mechanism_from_json(mech.to_json()) == mech
    assert mechanism_from_json(json.loads(json.dumps(mech.to_json()))) == mech


@SETTINGS
@given(
    st.sampled_from([GeometricCount, LaplaceCount]),
    st.dictionaries(st.text("abxy", min_size=1, max_size=2), st.integers(-3, 3), max_size=4),
)
def test_json_round_trip_random_weights(cls: type[Count], weights: dict[str, int]) -> None:
    mech = cls(weights_for(weights))
    assert mechanism_from_json(json.loads(json.dumps(mech.to_json()))) == mech


@pytest.mark.parametrize("obj", [{"kind": "exponential"}, {}, {"kind": None}, {"kind": "Laplace"}])
def test_unknown_kind_is_refused(obj: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="unknown mechanism kind"):
        mechanism_from_json(obj)


def test_empty_weight_map_is_the_zero_statistic() -> None:
    """weights=() weights every type 0 (pure noise); only None means "count every record"."""
    for cls in (GeometricCount, LaplaceCount):
        mech = cls(weights_for({}))
        assert mech.sensitivity(Relation.ADD_REMOVE, U2) == 0
        lp, lq = FiniteDist.point((0, 0)), FiniteDist.point((3, 1))
        assert mech.max_ratio(lp, lq, U2, F(2)).ratio == 1
        assert cls(None).max_ratio(lp, lq, U2, F(2)).ratio == F(2) ** 4
        assert mechanism_from_json(mech.to_json()) == mech


# ---------------------------------------------------------------- 6. Bun et al. §4.1


@SETTINGS
@given(
    st.integers(0, 4),
    st.integers(1, 3),
    st.integers(0, 2),
    ts,
    st.sampled_from([GeometricCount, LaplaceCount]),
)
def test_noisy_sample_size_loss_is_delta_eps(
    m: int, delta: int, extra: int, t: F, cls: type[Count]
) -> None:
    """M^count on samples of sizes m + Δ and m: the sup ratio is exactly t^Δ, both ways."""
    n = m + delta + extra
    pop = Population.of({A: n // 2, B: n - n // 2})
    neighbour = Population.of({A: n // 2, B: n - n // 2, C: 1})
    mech = cls(None)
    big = SRSWOR(m + delta).sample_law(pop, U3)
    small = SRSWOR(m).sample_law(neighbour, U3)
    assert {sum(c) for c in big.support()} == {m + delta}
    assert {sum(c) for c in small.support()} == {m}
    fwd = mech.max_ratio(big, small, U3, t)
    assert fwd.ratio == t**delta and fwd.point == m + delta
    bwd = mech.max_ratio(small, big, U3, t)
    assert bwd.ratio == t**delta and bwd.point == m
    sym = sympy.simplify(mech.point_ratio(big, small, U3, T, m + delta + 5))
    assert sympy.simplify(sym - T**delta) == 0
