"""Cluster-sampling claims (Bun et al. §5): verdicts as printed and mutants that must fail."""

from __future__ import annotations

import pytest
import sympy

from verifydp.claims import catalogue
from verifydp.claims.base import Budget, Verdict
from verifydp.claims.bun import cluster as bc
from verifydp.exact.tfunc import EPS

E, LOG = sympy.exp, sympy.log
ell, k, n_i, n_min, n_max = bc.ell, bc.k, bc.n_i, bc.n_min, bc.n_max


def fast() -> Budget:
    return Budget(fail_fast=True)


GROWTH = E(EPS) - 1


def bound(n_other, inner=lambda f: f, growth=GROWTH):  # type: ignore[no-untyped-def]
    frac = inner(ell / k)
    return LOG(1 + frac / (frac + (1 - frac) * E(-(n_i + n_other) * EPS)) * growth)


EXPECTED = {"bun/thm5.1": Verdict.HOLDS, "bun/thm5.2": Verdict.HOLDS}  # the snapshot test relies on it


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_printed_verdicts(claim_id: str) -> None:
    assert catalogue()[claim_id].check().verdict is EXPECTED[claim_id]


def test_upper_bound_mutants_are_caught() -> None:
    mutants = {
        "n_max → n_min": bound(n_min),
        "drop n_i": LOG(1 + (ell / k) / (ell / k + (1 - ell / k) * E(-n_max * EPS))
                        * (E(EPS) - 1)),
        "ℓ/k → ℓ/(2k)": bound(n_max, inner=lambda f: f / 2),
        "e^ε − 1 → e^{ε/2} − 1": bound(n_max, growth=E(EPS / 2) - 1),
    }
    for name, expr in mutants.items():
        assert bc.check_thm52(fast(), expr).verdict is Verdict.REFUTED, name


def test_lower_bound_mutants_are_caught() -> None:
    mutants = {
        "n_min → n_max + 2": bound(n_max + 2),
        "e^ε − 1 → e^{2ε} − 1": bound(n_min, growth=E(2 * EPS) - 1),
        "ℓ/k → 2ℓ/k": bound(n_min, inner=lambda f: sympy.Min(2 * f, 1)),
    }
    for name, expr in mutants.items():
        assert bc.check_thm51(fast(), expr).verdict is Verdict.REFUTED, name


def test_equal_sizes_k2_attain_the_printed_bounds_exactly() -> None:
    # §5.1: with equal cluster sizes the two printed bounds coincide; for k = 2 the exact
    # worst case over all ε-deletion-DP mechanisms attains them
    from fractions import Fraction

    from verifydp.designs import ClusterSRS
    from verifydp.epsilon import EpsSpec
    from verifydp.exact.tfunc import exp_of
    from verifydp.population import Relation
    from verifydp.worstcase import MechanismClass, worst_case_ratio

    for size in (1, 2, 3):
        pair, _ = bc.cluster_pair((size, size), 0)
        u = pair.universe
        d = ClusterSRS(1)
        wc = worst_case_ratio(d.sample_law(pair.p, u), d.sample_law(pair.q, u),
                              MechanismClass.pure(Relation.ADD_REMOVE, 2))
        params = {"ell": 1, "k": 2, "n_i": size, "n_min": size, "n_max": size}
        upper = EpsSpec.of_t(2).evaluate(exp_of(bc.THM52_EPS), params)
        lower = EpsSpec.of_t(2).evaluate(exp_of(bc.THM51_EPS), params)
        assert upper.is_point and upper == lower
        assert wc.worst.lower == wc.upper == upper.lo != Fraction(1)
