"""The PINQ model (verifydp.pinq): plans, accounting, exact loss, stability, samplers, witnesses
(ebadi: Ebadi, Antignac, Sands)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from verifydp.casebook import replay
from verifydp.claims import ebadi
from verifydp.claims.base import Budget
from verifydp.designs import SRSWR, Poisson, ProportionalWOR, Rounding
from verifydp.designs.base import Design
from verifydp.designs.pinq_samplers import Reservoir, WithReplacement
from verifydp.exact.dist import FiniteDist
from verifydp.pinq import listing1, recursion
from verifydp.pinq.loss import (
    clamped_geometric,
    exact_loss,
    laplace_sup_ratio,
    loss_multiple,
    stats_loss,
)
from verifydp.pinq.plan import Plan, PlanBuilder, PlanError, charge, neighbours, statistics_law
from verifydp.pinq.stability import (
    exhaustive_binary_stability,
    exhaustive_stability,
    insertions,
    plan_transform,
    sequences,
    sym_diff,
    unary,
    z3_stability_bound,
)
from verifydp.population import Population, RecordType
from verifydp.witness import write_witness
from verifydp.witness.pinq import replay_json

F = Fraction


# ---------------------------------------------------------------- stability vs hand-derived

HAND_DERIVED = [
    ("where", {"value": "a"}, 1),  # a record passes the filter or not
    ("select", {"map": {"a": "b"}}, 1),  # a map sends one record to one record
    ("union", {"values": ["c"]}, 1),  # public data does not move
    ("union", {"self": True}, 2),  # D ∪ D: the added record appears twice
    ("take", {"n": 1}, 2),  # §3: Take({a1},1) Δ Take({ax, a1},1) = {a1, ax}
    ("take", {"n": 2}, 2),
    ("skip", {"n": 1}, 1),  # inserting at j ≤ n shifts exactly a_n into the output
    ("skip", {"n": 2}, 1),
    ("partition", {"value": "a"}, 1),  # summed over the two parts
]


@pytest.mark.parametrize(("op", "params", "want"), HAND_DERIVED)
def test_exhaustive_stability_matches_hand_derived(op, params, want):
    plan, out = unary(op, **params)
    res = exhaustive_stability(plan_transform(plan, out), ("a", "b", "c"), 3)
    assert res.stability == want
    a, b = res.pair
    assert neighbours(a, b)
    assert sum(sym_diff(x, y) for x, y in zip(plan_transform(plan, out)(a),
                                              plan_transform(plan, out)(b))) == want


def test_union_of_two_protected_datasets_is_1_stable_in_each_argument():
    assert exhaustive_binary_stability(lambda a, b: a + b) == (1, 1)
    # Take(1) of a union is not: an insertion at the front of A moves the first record
    assert exhaustive_binary_stability(lambda a, b: (a + b)[:1]) == (2, 2)


@pytest.mark.parametrize(("op", "bound", "holds"), [
    ("take", 2, True), ("take", 1, False), ("skip", 1, True), ("skip", 0, False),
    ("where", 1, True), ("where", 0, False),
])
def test_z3_bounds(op, bound, holds):
    assert z3_stability_bound(op, bound) is holds


def _positional(op: str, n: int, a: tuple[str, ...], pos: int, v: str) -> int:
    """The shared oracle: |T(A) Δ T(A')| for A' = A with v inserted at pos."""
    b = a[:pos] + (v,) + a[pos:]
    f = (lambda x: x[:n]) if op == "take" else (lambda x: x[n:])
    return sym_diff(f(a), f(b))


def test_positional_oracle_exhaustive():
    for op, bound in (("take", 2), ("skip", 1)):
        worst = max(_positional(op, n, a, pos, v)
                    for n in range(4) for a in sequences("abc", 4)
                    for pos in range(len(a) + 1) for v in "abc")
        assert worst == bound


@given(st.sampled_from(["take", "skip"]), st.integers(0, 12),
       st.lists(st.sampled_from("abcd"), max_size=15), st.integers(0, 30),
       st.sampled_from("abcde"))
@example("take", 1, ["a"], 0, "b")  # §3: Take({a1}, 1) vs Take({ax, a1}, 1)
def test_positional_oracle_random_within_proved_bound(op, n, a, pos, v):
    a = tuple(a)
    assert _positional(op, n, a, pos % (len(a) + 1), v) <= {"take": 2, "skip": 1}[op]


# ---------------------------------------------------------------- plans and accounting


def test_plan_validation():
    with pytest.raises(PlanError):
        Plan.from_json([{"op": "source"}, {"op": "take", "args": [3], "n": 1}])
    with pytest.raises(PlanError):
        Plan.from_json([{"op": "source"}, {"op": "noisy-sum", "args": [0], "weights": {"a": 2}}])
    with pytest.raises(PlanError):
        Plan.from_json([{"op": "nope"}])


def test_charge_rules():
    b = PlanBuilder()
    src = b.add("source")
    u = b.add("union", src, src)  # two protected arguments: charged twice
    b.add("noisy-count", b.add("take", u, n=1), eps=3)
    assert charge(b.build()) == 6
    b = PlanBuilder()
    parts = b.add("partition", b.add("source"), value="a")
    b.add("noisy-count", b.add("part", parts, key="true"), eps=2)
    b.add("noisy-count", b.add("part", parts, key="false"), eps=1)
    b.add("noisy-count", b.add("part", parts, key="false"), eps=2)
    assert charge(b.build()) == 3  # max(2, 1 + 2)


def test_listing1_accounting_and_loss_by_iterations():
    assert charge(listing1.listing1_plan(5)) == 1
    gaps = listing1.loss_by_iterations(range(1, 12))
    assert [g.exact for g in gaps] == [s - 1 for s in range(1, 12)]
    assert all(g.charged == 1 for g in gaps)
    g = listing1.smallest_gap()
    assert (g.scale, g.d, g.d_prime, g.exact) == (3, (), ("7",), 2)


def test_clamped_geometric_is_a_distribution():
    for u in (F(2), F(11, 10)):
        for s, lo, hi in ((0, 0, 3), (2, -1, 4), (4, 4, 4), (1, 1, 2)):
            law = clamped_geometric(u, s, lo, hi)
            assert sum(law.values()) == 1


# ---------------------------------------------------------------- exact loss: one oracle


def _check_loss(plan: Plan, d, dp, t: Fraction) -> None:
    """Shared oracle: clamped geometric max-divergence = Laplace density sup = t^{m}."""
    res = exact_loss(plan, d, dp, t)
    us = [t**k for k in plan.eps_multiples()]
    lap = laplace_sup_ratio(statistics_law(plan, d), statistics_law(plan, dp), us)
    assert res.ratio == lap
    if plan.deterministic:
        assert res.ratio == t ** loss_multiple(plan, d, dp)


def _plan_from(ops: list[tuple[str, dict]], agg: str, k: int) -> Plan:
    b = PlanBuilder()
    node = b.add("source")
    for op, params in ops:
        node = b.add("union", node, b.add("public", values=["c"])) if op == "union" else \
            b.add(op, node, **params)
    extra = {"weights": {"a": 1, "b": -1}} if agg == "noisy-sum" else {}
    b.add(agg, node, eps=k, **extra)
    return b.build()


OPS = st.sampled_from([("where", {"value": "a"}), ("select", {"map": {"a": "b"}}),
                       ("take", {"n": 1}), ("take", {"n": 2}), ("skip", {"n": 1}),
                       ("union", {})])


def test_loss_oracle_exhaustive_tiny():
    for ops in ([], [("take", {"n": 1})], [("skip", {"n": 1}), ("where", {"value": "a"})]):
        for agg in ("noisy-count", "noisy-sum"):
            plan = _plan_from(ops, agg, 1)
            for a in sequences("ab", 2):
                for a2 in insertions(a, "ab"):
                    _check_loss(plan, a, a2, F(2))


@given(st.lists(OPS, max_size=3), st.sampled_from(["noisy-count", "noisy-sum"]),
       st.integers(1, 2), st.lists(st.sampled_from("ab"), max_size=4), st.data())
def test_loss_oracle_random(ops, agg, k, a, data):
    a = tuple(a)
    pos = data.draw(st.integers(0, len(a)))
    a2 = a[:pos] + (data.draw(st.sampled_from("ab")),) + a[pos:]
    _check_loss(_plan_from(ops, agg, k), a, a2, F(3, 2))


def test_sampled_plan_loss_matches_laplace_route():
    from verifydp.pinq.pairs import product_plan, sampler_plan

    for plan in (sampler_plan(Poisson(F(1, 3)), (1, 1), double=True),
                 product_plan(Reservoir(1), (1, -1), (1, 1))):
        _check_loss(plan, ("a",), ("a", "x"), F(2))


# ---------------------------------------------------------------- samplers as designs


def _distinct(m: int) -> tuple[Population, tuple[RecordType, ...]]:
    types = tuple(RecordType(f"d{i}") for i in range(1, m + 1))
    return Population.of({rt: 1 for rt in types}), types


def _as_sets(design: Design, m: int) -> dict[frozenset[str], Fraction]:
    pop, types = _distinct(m)
    law = design.sample_law(pop, types)
    return {frozenset(rt.value for rt, c in zip(types, v) if c): p for v, p in law}


def _algorithm1(n: int, m: int) -> dict[frozenset[str], Fraction]:
    """ebadi Algorithm 1 (reservoir), every random choice enumerated exactly."""
    states = {(): Fraction(1)}
    for i in range(1, m + 1):
        nxt: dict[tuple[str, ...], Fraction] = {}
        for k, p in states.items():
            if i <= n:
                outs = [(k + (f"d{i}",), p)]
            else:
                outs = [((k[: r - 1] + (f"d{i}",) + k[r:]) if r <= n else k, p / i)
                        for r in range(1, i + 1)]
            for k2, q in outs:
                nxt[k2] = nxt.get(k2, Fraction(0)) + q
        states = nxt
    out: dict[frozenset[str], Fraction] = {}
    for k, p in states.items():
        out[frozenset(k)] = out.get(frozenset(k), Fraction(0)) + p
    return out


def _algorithm2(p: Fraction, m: int) -> dict[frozenset[str], Fraction]:
    """ebadi Algorithm 2 (shuffle, then the first ⌊p|D|⌋), enumerated exactly."""
    states = {(): Fraction(1)}
    for i in range(1, m + 1):
        nxt: dict[tuple[str, ...], Fraction] = {}
        for arr, q in states.items():
            for r in range(1, i + 1):
                a = list(arr) + [arr[r - 1] if r < i else f"d{i}"]
                a[r - 1] = f"d{i}"
                key = tuple(a)
                nxt[key] = nxt.get(key, Fraction(0)) + q / i
        states = nxt
    out: dict[frozenset[str], Fraction] = {}
    size = int(p * m)
    for arr, q in states.items():
        key = frozenset(arr[:size])
        out[key] = out.get(key, Fraction(0)) + q
    return out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_reservoir_is_algorithm1(n):
    for m in range(6):
        assert _as_sets(Reservoir(n), m) == _algorithm1(n, m)
        assert _as_sets(Reservoir(n), m) == dict(recursion.reservoir_law(n)(
            recursion.records(m)[0]).probs)


@pytest.mark.parametrize("p", [F(1, 2), F(1, 3), F(2, 3)])
def test_fraction_sampling_is_algorithm2(p):
    for m in range(6):
        assert _as_sets(ProportionalWOR(p, Rounding.FLOOR), m) == _algorithm2(p, m)


def test_bernoulli_is_poisson():
    for m in range(4):
        assert _as_sets(Poisson(F(1, 3)), m) == dict(
            recursion.bernoulli_law(F(1, 3))(recursion.records(m)[0]).probs)


def test_with_replacement():
    pop, types = _distinct(0)
    assert WithReplacement(3).sample_law(pop, ()).probs == {(): 1}
    pop, types = _distinct(2)
    assert WithReplacement(3).sample_law(pop, types) == SRSWR(3).sample_law(pop, types)
    assert Design.from_json(WithReplacement(2).to_json()) == WithReplacement(2)
    assert Design.from_json(Reservoir(2).to_json()) == Reservoir(2)


def test_printed_fraction_psi_is_wrong_and_algorithm2_step_is_right():
    p = F(1, 2)
    assert not recursion.characterises(recursion.fraction_law(p),
                                       recursion.fraction_psi_printed(p), 3)
    for m in range(6):
        for psi in (recursion.fraction_psi_shuffle, recursion.fraction_psi_coupled):
            assert recursion.characterises(recursion.fraction_law(p), psi(p), m)


def test_partition_distances_break_thm43_assumption():
    law = recursion.fraction_law(F(1, 3))
    d = recursion.partition_delta_law(law, recursion.fraction_psi_coupled(F(1, 3)), 2)
    assert d.probs == {(1, 0): F(1, 3), (1, 2): F(2, 3)}  # |K̄ Δ K̄'| = 2 ≠ |1 − 1|


def test_stats_loss_symmetry():
    d = FiniteDist.from_pairs([((0,), F(1, 2)), ((1,), F(1, 2))])
    dp = FiniteDist.point((0,))
    assert stats_loss(d, dp, [F(2)]).ratio == stats_loss(dp, d, [F(2)]).ratio


# ---------------------------------------------------------------- witnesses


@pytest.fixture(scope="module")
def take_witness():
    res = ebadi.check_pinq_take(Budget())
    return res.witness.to_json()


def test_take_witness_replays(take_witness, tmp_path):
    assert take_witness["kind"] == "pinq-plan"
    assert {"claim", "quantity", "claimed", "actual"} <= set(take_witness)
    assert replay_json(take_witness).confirmed
    res = ebadi.check_pinq_take(Budget())
    path = write_witness(res.witness, tmp_path)
    assert replay(path).confirmed
    # one CSV per dataset, the empty D included (issue 17)
    assert (tmp_path / "ebadi_pinq_take.D.csv").read_text() == "position,value\n"
    assert (tmp_path / "ebadi_pinq_take.D_prime.csv").read_text().startswith("position,value\n0,")


def test_tampered_witnesses_are_not_confirmed(take_witness):
    w = copy.deepcopy(take_witness)
    for node in w["plan"]:
        if node["op"] == "take":
            node["n"] = 2  # Take(2) keeps the fresh record too: no gap
    assert not replay_json(w).confirmed
    w = copy.deepcopy(take_witness)
    w["datasets"]["D_prime"] = ["7", "8"]  # not neighbours
    assert not replay_json(w).confirmed
    w = copy.deepcopy(take_witness)
    w["plan"] = json.loads(json.dumps(listing1.listing1_plan(2).to_json()))  # scale 2: no gap
    assert not replay_json(w).confirmed
    w = copy.deepcopy(take_witness)
    w["actual"]["value"] = "nothing"  # stored numbers are never trusted either way
    assert replay_json(w).confirmed


def test_printed_witness_tampered_bound_not_confirmed():
    res = ebadi.check_thm46(Budget(fail_fast=True))
    w = res.witness.to_json()
    assert replay_json(w).confirmed
    import sympy

    from verifydp.exact.tfunc import EPS
    w2 = copy.deepcopy(w)
    w2["claimed"]["expression"] = sympy.srepr(sympy.exp(3 * EPS))  # the headline 3ε holds
    assert not replay_json(w2).confirmed
    w3 = copy.deepcopy(w)
    for node in w3["plan"]:
        if node["op"] == "noisy-sum":
            node["eps"] = 2  # a 2ε-DP base mechanism is outside the claim's class
    assert not replay_json(w3).confirmed


def test_listing1_paper_scale_is_fast_and_linear():
    g = listing1.gap(1000, listing1.PAPER_DATA, (*listing1.PAPER_DATA, "7"))
    assert (g.charged, g.exact) == (1, 999)
