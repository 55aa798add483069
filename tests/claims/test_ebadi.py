"""Claims of Ebadi, Antignac, Sands (paper key `ebadi`): verdicts as printed, and mutants of
every printed formula that the checkers must catch."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.claims import ebadi
from verifydp.claims.base import Budget, Verdict
from verifydp.designs import Poisson, ProportionalWOR, Rounding
from verifydp.designs.pinq_samplers import Reservoir
from verifydp.exact.tfunc import EPS
from verifydp.pinq.pairs import pair_upper, product_lower, sampler_worst
from verifydp.witness.pinq import replay_json

F = Fraction
E = sympy.exp
n, p, b = ebadi.n, ebadi.p, ebadi.b
FAST = Budget(fail_fast=True)

EXPECTED = {
    "ebadi/pinq:take": Verdict.REFUTED,
    "ebadi/skip": Verdict.REFUTED,
    "ebadi/thm2.1": Verdict.HOLDS,
    "ebadi/thm2.2": Verdict.HOLDS,
    "ebadi/thm2.3": Verdict.HOLDS,
    "ebadi/prop4.1": Verdict.HOLDS,
    "ebadi/prop4.2": Verdict.REFUTED,
    "ebadi/prop4.2:corrected": Verdict.HOLDS,
    "ebadi/thm4.3": Verdict.REFUTED,
    "ebadi/thm4.4": Verdict.HOLDS,
    "ebadi/thm4.5": Verdict.HOLDS,
    "ebadi/thm4.6": Verdict.REFUTED,
    "ebadi/thm4.6:corrected": Verdict.HOLDS,
    "ebadi/wr": Verdict.REFUTED,
    "ebadi/fraction:recursion": Verdict.REFUTED,
    "ebadi/thm4.7": Verdict.HOLDS,
    "ebadi/fraction:partition": Verdict.REFUTED,
    "ebadi/bernoulli": Verdict.HOLDS,
    "ebadi/thm4.8": Verdict.HOLDS,
}


@pytest.fixture(scope="module")
def results():
    return {c.id: c.check() for c in ebadi.CLAIMS}


def test_catalogue(results):
    assert set(results) == set(EXPECTED)
    from verifydp.claims import catalogue

    assert set(EXPECTED) <= set(catalogue())


def test_verdicts_as_printed(results):
    for cid, want in EXPECTED.items():
        assert results[cid].verdict is want, (cid, results[cid].summary())


def test_statement_verdicts(results):
    v = {cid: [s.verdict for s in r.statements] for cid, r in results.items()}
    assert v["ebadi/thm4.6"] == [Verdict.HOLDS, Verdict.HOLDS, Verdict.REFUTED]  # 3ε holds
    # σ holds; σ̂ does not, per D (as the proof concludes) nor as a sup over D
    assert v["ebadi/thm4.3"] == [Verdict.HOLDS, Verdict.REFUTED, Verdict.REFUTED]
    assert v["ebadi/wr"] == [Verdict.REFUTED, Verdict.HOLDS]  # nε lower bound holds
    assert v["ebadi/pinq:take"] == [Verdict.REFUTED] * 2 + [Verdict.HOLDS, Verdict.REFUTED]
    rows = {i.params["T"]: i.verdict for i in results["ebadi/pinq:take"].statements[3].instances}
    assert [t for t, v in rows.items() if v is Verdict.REFUTED] == ["take(1)", "take(2)"]
    assert v["ebadi/skip"] == [Verdict.REFUTED, Verdict.HOLDS]


def test_refuted_claims_have_replayable_witnesses(results):
    for cid, r in results.items():
        if r.verdict is Verdict.REFUTED and cid not in (
                "ebadi/skip", "ebadi/fraction:recursion"):  # refuted by proof / exact laws
            assert r.witness is not None, cid
            obj = r.witness.to_json()
            if obj.get("kind") == "pinq-plan":
                assert replay_json(obj).confirmed, cid


def test_listing1_line_in_output(results):
    res = results["ebadi/pinq:take"]
    assert "loss(scale) = (scale − 1)·ε" in res.summary()
    insts = res.statements[0].instances
    assert insts[0].params == {"scale": "3", "D": "[]", "D'": "['7']"}
    assert any("exact loss 999·ε" in i.actual for i in insts)


# ---------------------------------------------------------------- exact values


def test_exact_worst_cases_match_closed_forms():
    t = F(2)
    for n_ in (1, 2):
        # R_n at |D| = n: printed σ of Thm 4.5 is tight
        assert sampler_worst(Reservoir(n_), n_, t).worst.lower == (n_ * t**2 + 1) / (n_ + 1)
        # R̂_n at |D| = n: (n t³ + t)/(n + 1), above the printed (n t³ + 1)/(n + 1)
        want = (n_ * t**3 + t) / (n_ + 1)
        assert product_lower(Reservoir(n_), n_, t).ratio == want
        assert pair_upper(Reservoir(n_), n_, t, t).upper == want
    q = F(1, 3)
    assert sampler_worst(Poisson(q), 2, t).worst.lower == q * t + 1 - q
    assert pair_upper(Poisson(q), 2, t, t).upper == t


@settings(max_examples=15)
@given(st.sampled_from([F(1, 2), F(1, 3), F(1, 4), F(2, 5)]), st.integers(0, 4),
       st.sampled_from([F(2), F(11, 10), F(3, 2)]))
def test_fraction_partition_lower_equals_upper(p_, m, t):
    """The concrete ⟨M1, M2⟩ attains the LP's sup over all pair-DP mechanisms (same oracle
    as the claim: `judge_pair` uses these two numbers)."""
    d = ProportionalWOR(p_, Rounding.FLOOR)
    assert product_lower(d, m, t).ratio == pair_upper(d, m, t, t).upper


# ---------------------------------------------------------------- mutants


@pytest.mark.parametrize("mutant", [
    sympy.log((n * E(EPS) + 1) / (n + 1)),  # e^{2ε} → e^ε
    sympy.log((n * E(2 * EPS) + 1) / (n + 2)),  # denominator
    ebadi.THM45 - sympy.Rational(1, 1000),  # tight at |D| = n: any decrease is caught
])
def test_thm45_mutants_caught(mutant):
    assert ebadi.check_thm45(FAST, mutant).verdict is Verdict.REFUTED


@pytest.mark.parametrize("mutant", [2 * EPS, sympy.Rational(5, 2) * EPS])
def test_thm46_headline_mutants_caught(mutant):
    res = ebadi.check_thm46(FAST, headline=mutant, refined=EPS)
    assert res.statements[0].verdict is Verdict.REFUTED


def test_thm46_corrected_mutant_caught():
    mutant = ebadi.THM46_CORRECTED - sympy.Rational(1, 1000)  # it is tight at |D| = n
    res = ebadi.check_thm46(FAST, refined=mutant)
    assert res.statements[2].verdict is Verdict.REFUTED


@pytest.mark.parametrize("mutant", [
    sympy.log(E(2 * EPS) * p + 1 - p),  # the second term of the max dropped
    sympy.log(sympy.Max(E(EPS) * p + 1 - p, E(2 * EPS) * p + E(EPS) * (1 - p) / 2)),
])
def test_thm47_mutants_caught(mutant):
    assert ebadi.check_thm47(FAST, mutant).verdict is Verdict.REFUTED


def test_fraction_partition_refuted_and_3eps_holds():
    assert ebadi.check_fraction_partition(FAST).verdict is Verdict.REFUTED
    assert ebadi.check_fraction_partition(Budget(), 3 * EPS).verdict is Verdict.HOLDS


@pytest.mark.parametrize("mutant", [
    sympy.log(b / 2 * E(EPS) + 1 - b / 2),
    sympy.log(b * E(EPS / 2) + 1 - b),
    EPS / 2,
])
def test_bernoulli_mutants_caught(mutant):
    assert ebadi.check_bernoulli(FAST, mutant).verdict is Verdict.REFUTED


@pytest.mark.parametrize("mutant", [EPS / 2, ebadi.BERNOULLI])
def test_thm48_mutants_caught(mutant):
    assert ebadi.check_thm48(FAST, mutant).verdict is Verdict.REFUTED


def test_wr_mutants():
    res = ebadi.check_wr(FAST, lower=(n + 1) * EPS)  # a too-large lower bound
    assert res.statements[1].verdict is Verdict.REFUTED
    res = ebadi.check_wr(Budget(), printed=lambda n_: 2 * n_ * EPS)  # 2nε holds for |D| ≥ 1
    assert res.statements[0].verdict is Verdict.HOLDS


def test_prop42_mutants():
    assert ebadi.check_prop42(FAST).verdict is Verdict.REFUTED
    # the corrected order holds; halving it must be caught
    half = ebadi.prop42_printed(inner_first=True) / 2
    assert ebadi.check_prop42(FAST, half).verdict is Verdict.REFUTED


def test_composition_mutants():
    assert ebadi.check_thm22(FAST, combine_eps=max).verdict is Verdict.REFUTED
    assert ebadi.check_thm23(FAST, combine_eps=min).verdict is Verdict.REFUTED
    res = ebadi.check_stability_composition(FAST, "x", "c − 1", ebadi.EpsSpec.of_t(2),
                                            stability=lambda name, c: c - 1)
    assert res.verdict is Verdict.REFUTED


def test_pinq_and_skip_mutants():
    # declaring Take 2-stable makes the stability statement hold
    assert ebadi.check_pinq_take(FAST, declared_take=2).statements[1].verdict is Verdict.HOLDS
    assert ebadi.check_skip(FAST, claimed_stability=1).verdict is Verdict.HOLDS


def test_fraction_recursion_with_valid_psi_holds():
    from verifydp.pinq import recursion

    for psi in (recursion.fraction_psi_shuffle, recursion.fraction_psi_coupled):
        assert ebadi.check_fraction_recursion(FAST, psi).verdict is Verdict.HOLDS


def test_thm43_exponent_mutants():
    half = ebadi.check_thm43(FAST, sig_exp=lambda i: sympy.Rational(i, 2))
    assert half.statements[0].verdict is Verdict.REFUTED
    # a σ̂ exponent 2 larger for every i is an upper bound everywhere checked
    big = ebadi.check_thm43(FAST, hat_exp=lambda i: sympy.Integer(i + abs(i - 1) + 2))
    assert big.statements[1].verdict is Verdict.HOLDS
