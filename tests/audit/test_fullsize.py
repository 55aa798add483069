"""The audit's answer at the design file's own N (issue 16 item 1, docs/foundations.md#fact-8).

The catalogued examples are answered at full size with certified brackets, checked against
closed forms where they are known; the full-size computation agrees with the scaled-instance
computation wherever the instance is the full population; out-of-reach instances say which
limit was hit.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from pathlib import Path

import pytest

from verifydp.audit.instance import build_instance, full_size_answer
from verifydp.audit.spec import load_design, parse_design
from verifydp.exact.special import brackets_for_eps
from verifydp.worstcase import MechanismClass, worst_case_ratio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# example → (verdict at full size, ε' lower, ε' upper) (ratio examples; None: unbounded/lower only)
EXPECTED = {
    "dpsgd_poisson": ("met", 0.0073045, 0.0073046),
    "dpsgd_fixed_batch": ("violated", 0.026894, 0.026896),
    "dpsgd_with_replacement": ("violated", 0.027253, 0.027259),
    "business_survey_proportional_rounded": ("violated", 1.0, 1.0),
    "business_survey_proportional_randomised": ("met", 0.41812, 0.41813),
    "household_two_stage": ("violated", 3.0479, 3.0480),
    "must_bootstrap": ("violated", 1.4543, None),
    "business_survey_neyman": ("violated", 4.0, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_answered_at_full_size(name: str) -> None:
    spec = load_design(EXAMPLES / f"{name}.toml")
    start = time.perf_counter()
    ans = full_size_answer(spec)
    assert time.perf_counter() - start < 60
    verdict, lo, hi = EXPECTED[name]
    assert ans.verdict == verdict
    b = ans.bracket
    assert b is not None and b.lower is not None
    assert lo - 1e-9 <= math.log(b.lower) and (hi is None or math.log(b.lower) <= hi + 1e-9)
    if hi is None:
        assert b.upper is None and not b.complete
    else:
        assert b.upper is not None and math.log(b.upper) <= hi + 1e-9
    assert "at full size" in ans.text()


def test_closed_forms_inside_the_brackets() -> None:
    """Poisson: 1 + q(e − 1); fixed batch, add-remove both ways: 1 + (m/N)(e² − 1) (the
    removal orientation, N records with x): both must lie in the certified brackets."""
    e_lo, e_hi = brackets_for_eps(1)
    b = full_size_answer(load_design(EXAMPLES / "dpsgd_poisson.toml")).bracket
    q = Fraction(256, 60000)
    assert b is not None and b.lower <= 1 + q * (e_hi - 1) and 1 + q * (e_lo - 1) <= b.upper
    b = full_size_answer(load_design(EXAMPLES / "dpsgd_fixed_batch.toml")).bracket
    r = Fraction(256, 60000)
    assert b is not None and b.lower <= 1 + r * (e_hi**2 - 1)
    assert 1 + r * (e_lo**2 - 1) <= b.upper


def _spec(population: dict, design: dict, relation: str = "add-remove",
          protect: str | None = None) -> object:
    return parse_design({
        "name": "t", "population": population, "design": design,
        "base": {"epsilon": 1.0, "relation": relation},
        "protect": {"relation": protect or relation}, "target": {"epsilon": 0.5}})


def _scaled_ratio(spec) -> Fraction:  # type: ignore[no-untyped-def]
    """The existing scaled-instance computation (the instance is the full population here)."""
    inst = build_instance(spec)
    best = Fraction(1)
    t = brackets_for_eps(spec.base.epsilon)
    mclass = MechanismClass(spec.base.relation, *(Fraction(math.floor(x * 2**32), 2**32)
                                                 if i == 0 else
                                                 Fraction(math.ceil(x * 2**32), 2**32)
                                                 for i, x in enumerate(t)))
    for sc in inst.scenarios:
        lp, lq = sc.laws()
        wc = worst_case_ratio(lp, lq, mclass, classes=sc.classes())
        best = max(best, wc.forward.lower, wc.backward.lower)  # type: ignore[type-var]
    return best


@pytest.mark.parametrize("population, design, relation, protect, same_pairs", [
    ({"size": 30}, {"kind": "srswor", "m": 7}, "add-remove", None, True),
    ({"size": 30}, {"kind": "srswor", "m": 7}, "replace", None, True),
    ({"size": 12}, {"kind": "poisson", "q": "1/5"}, "add-remove", "replace", True),
    ({"size": 20}, {"kind": "srswr", "m": 3}, "add-remove", None, True),
    ({"strata": {"a": 9, "b": 14}},
     {"kind": "stratified-proportional", "r": "1/3", "rounding": "half-up"}, "add-remove", None,
     True),
    # systematic sampling over a secret random order: an SRS of ⌊N/I⌋ or ⌈N/I⌉ (the design's
    # law is checked against every order and start by tests/oracles)
    ({"size": 12}, {"kind": "systematic-random", "interval": 5}, "add-remove", None, True),
    ({"size": 12}, {"kind": "systematic-random", "interval": 5}, "replace", None, True),
    # the scaled instance moves a record one way only (smallest stratum to the next); full
    # size covers every ordered pair of strata, so it may only be larger
    ({"strata": {"a": 9, "b": 14}},
     {"kind": "stratified-fixed", "sizes": {"a": 2, "b": 5}}, "replace", None, False),
])
def test_full_size_equals_the_scaled_computation_when_nothing_is_scaled(
        population: dict, design: dict, relation: str, protect: str | None,
        same_pairs: bool) -> None:
    spec = _spec(population, design, relation, protect)
    inst = build_instance(spec)
    assert "scaled" not in inst.note
    ans = full_size_answer(spec)
    assert ans.bracket is not None and ans.bracket.lower is not None
    assert ans.bracket.upper is not None
    want = _scaled_ratio(spec)
    assert want <= ans.bracket.upper
    if same_pairs:
        assert ans.bracket.lower - Fraction(1, 10**6) <= want


def test_cluster_full_size_contains_the_scaled_pair() -> None:
    """Two-stage, small enough to be unscaled: the full-size answer covers the scaled
    instance's pair (add to the largest cluster), and may exceed it (new cluster, other sizes)."""
    spec = _spec({"clusters": [{"size": 3, "count": 2}, {"size": 4, "count": 2}]},
                 {"kind": "two-stage-cluster", "ell": 2, "within": "srs", "m": 2})
    ans = full_size_answer(spec)
    assert ans.bracket is not None and ans.bracket.upper is not None
    assert _scaled_ratio(spec) <= ans.bracket.upper


def test_out_of_reach_names_the_limit() -> None:
    spec = _spec({"clusters": [{"size": 3 + i, "count": 20} for i in range(20)]},
                 {"kind": "cluster-srs", "ell": 30})
    ans = full_size_answer(spec)
    assert ans.verdict == "undetermined" and ans.bracket is None
    assert "limit 60000" in ans.text()
    pps = _spec({"size_classes": [{"measure": 1, "count": 50}, {"measure": 3, "count": 20}]},
                {"kind": "poisson-pps", "expected_size": 10})
    got = full_size_answer(pps)
    assert got.verdict == "undetermined" and "no orbit reduction" in got.text()
    assert "1.07e+03 points" in got.text() and "no PPS orbit builder" in got.text()


def test_poisson_full_size_does_not_depend_on_n() -> None:
    answers = {full_size_answer(_spec({"size": n}, {"kind": "poisson", "q": "1/100"})).bracket
               for n in (100, 10**6)}
    assert len(answers) == 1


def test_huge_ratio_falls_back_to_a_certified_lower_bound() -> None:
    """Whole clusters of 20 and x as a new cluster: the ratio is about e^15.9, beyond what
    HiGHS solves in the ratio form; the hockey-stick LP still certifies ε' ≥ 15 (t_lo^15 < the
    exact ratio t^21·ℓ/(k+1)·…), reported as a lower bound only, never 'met'."""
    spec = _spec({"clusters": [{"size": 20, "count": 5000}]}, {"kind": "cluster-srs", "ell": 30})
    ans = full_size_answer(spec)
    assert ans.verdict == "violated"
    b = ans.bracket
    assert b is not None and b.upper is None and not b.complete
    assert b.lower is not None and 14.99 <= math.log(b.lower) < 16


def test_pps_with_fixed_measures_at_full_size_is_poisson_at_the_largest_rate() -> None:
    """Poisson PPS under substitution, measures stated fixed, add-remove base: independent
    inclusions at fixed rates, so the answer is Poisson's at the largest rate (6/11 here)
    whatever N, and it equals the exact worst case of the scaled instance, which is the full
    population here (7 records: 5 of measure 1, 2 of measure 3; expected size 2). Without
    the statement the substitution may change a measure, and the answer stays undetermined."""
    classes = {"size_classes": [{"measure": 1, "count": 5}, {"measure": 3, "count": 2}]}
    obj = {"name": "t", "population": classes,
           "design": {"kind": "poisson-pps", "expected_size": 2},
           "base": {"epsilon": 1.0, "relation": "add-remove"},
           "protect": {"relation": "replace", "measures": "fixed"}, "target": {"epsilon": 0.5}}
    spec = parse_design(obj)
    ans = full_size_answer(spec)
    poisson = full_size_answer(_spec({"size": 7}, {"kind": "poisson", "q": "6/11"},
                                     "add-remove", "replace"))
    assert ans.bracket == poisson.bracket and "measures fixed" in ans.plan.note
    assert ans.bracket is not None and ans.bracket.lower is not None
    exact = _scaled_ratio(spec)
    assert ans.bracket.lower <= exact * (1 + Fraction(1, 10**6))
    assert ans.bracket.upper is not None and exact <= ans.bracket.upper * (1 + Fraction(1, 10**6))
    del obj["protect"]["measures"]
    assert full_size_answer(parse_design(obj)).verdict == "undetermined"


def test_pps_red_flag_follows_the_measures_statement() -> None:
    """The data-dependent-allocation flag of Poisson PPS is raised unless the file states the
    measures fixed under substitution (then no neighbour moves an inclusion)."""
    from verifydp.audit.flags import red_flags

    obj = {"name": "t",
           "population": {"size_classes": [{"measure": 1, "count": 5},
                                           {"measure": 3, "count": 2}]},
           "design": {"kind": "poisson-pps", "expected_size": 2},
           "base": {"epsilon": 1.0, "relation": "add-remove"},
           "protect": {"relation": "replace", "measures": "fixed"}, "target": {"epsilon": 0.5}}
    codes = {f.code for f in red_flags(parse_design(obj))}
    assert "data-dependent-allocation" not in codes
    del obj["protect"]["measures"]
    assert "data-dependent-allocation" in {f.code for f in red_flags(parse_design(obj))}
