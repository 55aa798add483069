"""Rounding jump points and allocation sensitivity (verifydp.hunt.rounding) against brute force.

The oracle is independent of both the z3 encoding and `round_allocation`: the three rules
written in integer arithmetic (numpy, vectorised), so the complete jump set can be
brute-forced over the whole range |P| ≤ 10^6 in milliseconds.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifydp.designs import DesignError, ProportionalWOR, Rounding
from verifydp.hunt import rounding
from verifydp.hunt.rounding import (
    DETERMINISTIC,
    ProofFailure,
    jump_grid,
    jump_set,
    sample_size,
    stratified_sensitivity,
)
from verifydp.population import Population, RecordType, Relation

GRID = tuple(Fraction(x) for x in
             ("1/10", "1/4", "1/3", "1/2", "2/3", "9/10", "3/7", "5/12", "7/100", "99/1000"))


def oracle_sizes(rule: Rounding, r: Fraction, n_max: int) -> np.ndarray:
    """m(N) for N = 0..n_max in exact integer arithmetic (independent of the module)."""
    p, q = r.numerator, r.denominator
    two_pn = 2 * p * np.arange(n_max + 1, dtype=np.int64)
    if rule is Rounding.FLOOR:
        return two_pn // (2 * q)
    m = (two_pn + q) // (2 * q)  # half-up
    if rule is Rounding.HALF_EVEN:
        tie = two_pn % (2 * q) == q
        m = np.where(tie & (m % 2 == 1), m - 1, m)
    return m


def oracle_jump_array(rule: Rounding, r: Fraction, n_max: int, n_min: int = 1) -> np.ndarray:
    m = oracle_sizes(rule, r, n_max + 1)
    d = m[1:] - m[:-1]
    assert set(np.unique(d)) <= {0, 1}
    jumps = np.nonzero(d)[0]
    return jumps[jumps >= n_min]


def oracle_jumps(rule: Rounding, r: Fraction, n_max: int, n_min: int = 1) -> list[int]:
    return [int(n) for n in oracle_jump_array(rule, r, n_max, n_min)]


def test_oracle_matches_round_allocation() -> None:
    for rule in DETERMINISTIC:
        for r in GRID:
            ms = oracle_sizes(rule, r, 300)
            assert all(sample_size(rule, r, n) == ms[n] for n in range(301))


def test_sample_size_is_the_designs_size() -> None:
    a = RecordType("a")
    for rule in DETERMINISTIC:
        for n in range(1, 31):
            law = ProportionalWOR(Fraction(1, 10), rule).sample_law(
                Population.of({a: n}), (a,))
            assert {sum(x) for x in law.support()} == {sample_size(rule, Fraction(1, 10), n)}


def test_printed_instance_is_a_jump() -> None:
    # bun/sec4.3:det-rounding: |P| = 14, |P'| = 15, r = 1/10 allocate 1 and 2 cases
    for rule in (Rounding.HALF_UP, Rounding.HALF_EVEN):
        js = jump_set(rule, Fraction(1, 10), n_max=100)
        assert 14 in js and 13 not in js and 15 not in js
    assert 14 not in jump_set(Rounding.FLOOR, Fraction(1, 10), n_max=100)


@pytest.mark.parametrize("rule", DETERMINISTIC, ids=lambda r: r.value)
def test_brute_force_small_range(rule: Rounding) -> None:
    for r in GRID[:8]:  # the two large denominators are in the 10^6 test
        js = jump_set(rule, r, n_max=2000)
        expected = oracle_jumps(rule, r, 2000)
        assert list(js) == expected
        assert len(js) == len(expected)
        assert all(n in js for n in expected)
        assert sum(1 for n in range(1, 2001) if n in js) == len(expected)
        assert js.sensitivity == 1


def test_complete_set_up_to_a_million_in_seconds() -> None:
    start = time.process_time()  # CPU time: robust to other processes sharing the cores
    grid = jump_grid(GRID, n_max=10**6)
    elapsed = time.process_time() - start
    assert elapsed < 20, f"jump grid took {elapsed:.1f} s of CPU"
    assert len(grid) == 3 * len(GRID)
    for js in grid:  # the oracle kept in numpy (issue 29: a list of ~10^6 ints per set)
        expected = oracle_jump_array(js.rule, js.r, 10**6)
        assert len(js) == len(expected)
        assert np.array_equal(np.fromiter(js, dtype=np.int64), expected)
        assert len(js.proofs) == 4 and all("unsat" in p or "blocking" in p for p in js.proofs)


def test_first_at_least_and_bounds() -> None:
    js = jump_set(Rounding.HALF_UP, Fraction(1, 10), n_max=100, n_min=10)
    assert list(js) == [14, 24, 34, 44, 54, 64, 74, 84, 94]
    assert js.first_at_least(0) == 14
    assert js.first_at_least(15) == 24
    assert js.first_at_least(95) is None
    assert 4 not in js and 104 not in js and "14" not in js


@given(p=st.integers(1, 59), q=st.integers(2, 60), rule=st.sampled_from(DETERMINISTIC),
       n_min=st.integers(0, 50), width=st.integers(0, 400))
def test_hypothesis_against_brute_force(p: int, q: int, rule: Rounding, n_min: int,
                                        width: int) -> None:
    r = Fraction(p, q)
    if not 0 < r < 1:
        return
    js = jump_set(rule, r, n_max=n_min + width, n_min=n_min)
    assert list(js) == oracle_jumps(rule, r, n_min + width, n_min)
    assert js.period in (r.denominator, 2 * r.denominator)


def test_wrong_residues_are_caught() -> None:
    """Mutant: a characterisation missing one residue (or with one too many) is not proved."""
    r = Fraction(3, 7)
    js = jump_set(Rounding.HALF_EVEN, r, n_max=1000)
    res = list(js.residues)
    with pytest.raises(ProofFailure):
        rounding._range_proof(Rounding.HALF_EVEN, r, js.period, res[1:], 1, 1000)
    extra = next(c for c in range(js.period) if c not in res)
    with pytest.raises(ProofFailure):
        rounding._range_proof(Rounding.HALF_EVEN, r, js.period, sorted(res + [extra]), 1, 1000)


def test_encoding_mismatch_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: half-even encoded as half-up disagrees with round_allocation at a tie."""
    real = rounding.size_term

    def half_up_everywhere(rule, r, n, name):  # type: ignore[no-untyped-def]
        return real(Rounding.HALF_UP, r, n, name)

    monkeypatch.setattr(rounding, "size_term", half_up_everywhere)
    with pytest.raises(ProofFailure):
        jump_set(Rounding.HALF_EVEN, Fraction(1, 10), n_max=100)


def test_wrong_period_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: half-even with period q (not 2q) fails the periodicity proof at r = 1/10."""
    monkeypatch.setattr(rounding, "period", lambda rule, r: Fraction(r).denominator)
    with pytest.raises(ProofFailure):
        jump_set(Rounding.HALF_EVEN, Fraction(1, 10), n_max=100)


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        jump_set(Rounding.RANDOMISED, Fraction(1, 10))
    with pytest.raises(DesignError):
        jump_set(Rounding.FLOOR, Fraction(3, 2))
    with pytest.raises(ValueError):
        jump_set(Rounding.FLOOR, Fraction(1, 3), n_max=5, n_min=9)


def brute_stratified(rule: Rounding, r: Fraction, relation: Relation,
                     n_max: int) -> dict[str, int]:
    m = oracle_sizes(rule, r, n_max + 1)
    best = {"stratum": 0, "total": 0, "l1": 0}
    for a in range(1, n_max + 1):
        for b in range(1, n_max + 1):
            if relation is Relation.ADD_REMOVE:
                da, db = int(m[a + 1] - m[a]), 0
                tot = da
            else:  # (a + 1, b) vs (a, b + 1)
                da, db = int(m[a + 1] - m[a]), int(m[b + 1] - m[b])
                tot = db - da
            best["stratum"] = max(best["stratum"], abs(da), abs(db))
            best["total"] = max(best["total"], abs(tot))
            best["l1"] = max(best["l1"], abs(da) + abs(db))
    return best


@pytest.mark.parametrize("relation", list(Relation), ids=lambda r: r.value)
def test_stratified_sensitivity_brute_force(relation: Relation) -> None:
    for rule in DETERMINISTIC:
        for r in (Fraction(1, 10), Fraction(2, 3), Fraction(5, 12)):
            got = stratified_sensitivity(rule, r, relation, n_max=60)
            want = brute_stratified(rule, r, relation, 60)
            assert (got.max_stratum_change, got.max_total_change, got.max_l1_change) == (
                want["stratum"], want["total"], want["l1"])
            for key, (sp, sq) in got.witnesses.items():
                assert all(1 <= x <= 61 for x in sp + sq)
                assert rounding._exact_change(rule, r, sp, sq)[key] == want[key]
    expected_l1 = 2 if relation is Relation.REPLACE else 1
    assert got.max_l1_change == expected_l1


def test_stratified_smallest_witness() -> None:
    got = stratified_sensitivity(Rounding.HALF_UP, Fraction(1, 10), "replace")
    assert got.witnesses["l1"] == ((5, 4), (4, 5))  # both strata cross a rounding boundary
    assert got.max_total_change == 1 and got.max_stratum_change == 1
