"""Claims of `verifydp.claims.must.amplification` (Zhao & Liu, MUST): verdicts as printed, mutants of
the printed formulas that must be caught, and exact sanity checks of the laws of K."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must import amplification as mp
from verifydp.claims.printed import judge_cell
from verifydp.exact.interval import Bracket

# one xdist_group for the module (issue 29): the verdict, mutant and table tests evaluate the
# same cached laws of K and profiles; on one worker they are computed once
pytestmark = pytest.mark.xdist_group("must-pa")

R = sympy.Rational
C = mp.C
d = mp.dsym

EXPECTED = {
    "must/table2:poisson": Verdict.HOLDS,
    "must/table2:wor": Verdict.HOLDS,
    "must/table2:wr": Verdict.HOLDS,
    "must/thm5:ow": Verdict.HOLDS,
    "must/thm5:wo": Verdict.HOLDS,
    "must/thm5:ww": Verdict.REFUTED,  # printed label MUST.OW: judged as printed
    "must/thm5:ww:corrected": Verdict.HOLDS,
    "must/cor6": Verdict.HOLDS,
    "must/prop7": Verdict.REFUTED,
    "must/remark2": Verdict.REFUTED,
}


def fast() -> Budget:
    return Budget(fail_fast=True)


def test_claim_ids() -> None:
    assert {c.id for c in mp.CLAIMS} == set(EXPECTED) | {"must/table3"}


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_verdicts(cid: str) -> None:
    claim = next(c for c in mp.CLAIMS if c.id == cid)
    assert claim.check(Budget()).verdict is EXPECTED[cid]


def test_prop7_refuted_only_by_m_equal_1() -> None:
    res = mp.check_prop7(Budget())
    chain, eq_ow, eq_wr = res.statements
    assert chain.verdict is Verdict.HOLDS and eq_wr.verdict is Verdict.HOLDS
    assert eq_ow.verdict is Verdict.REFUTED
    assert all(i.params["m"] == 1 and i.params["b"] < i.params["n"] for i in eq_ow.instances)


def test_remark2_fails_only_in_degenerate_cases() -> None:
    res = mp.check_remark2(Budget())
    bad = [i for i in res.instances if i.verdict is Verdict.REFUTED and "scheme" in i.params]
    assert bad and "all are the degenerate cases" in res.statements[0].note
    assert any(i.params == {"scheme": "WOR", "n": 5, "m": 5} for i in bad)


def test_thm5c_formulas_are_not_the_ow_law() -> None:
    for t in [(4, 2, 2), (3, 3, 2), (5, 4, 3)]:
        eta, dd = mp.thm5_ww(*t)
        law = mp.law_ow(*t)
        assert eta != mp._q(mp.eta_of(law)) or sympy.expand(dd - mp.delta_of(law)) != 0


# ---------------------------------------------------------------- mutants


def wr_eta_shift(n: int, m: int) -> mp.Pair:
    eta, dd = mp.t2_wr(n, m)
    return 1 - (1 - R(1, n)) ** (m - 1), dd


def ow_m_over_n(n: int, b: int, m: int) -> mp.Pair:
    eta = R(m, n) * (1 - (1 - R(1, b)) ** m)
    dd = sum((R(m, n) * C(m, j) * R(1, b) ** j * (1 - R(1, b)) ** (m - j) * d(j)
              for j in range(1, m + 1)), sympy.Integer(0))
    return eta, dd


def ww_index_shift(n: int, b: int, m: int) -> mp.Pair:
    eta, _ = mp.thm5_ww(n, b, m)
    dd = sum((mp._pj(n, b, j) * sum((C(m, u - 1) * R(j, b) ** u * (1 - R(j, b)) ** (m - u)
                                     * d(u) for u in range(1, m + 1)), sympy.Integer(0))
              for j in range(1, b + 1)), sympy.Integer(0))
    return eta, dd


def wo_drop_second_term(n: int, b: int, m: int) -> mp.Pair:
    eta, _ = mp.thm5_wo(n, b, m)
    d1 = sum((mp._pj(n, b, j) * sum((R(C(j, u) * C(b - j, m - u), C(b, m)) * d(u)
                                     for u in range(1, j + 1)), sympy.Integer(0))
              for j in range(1, m + 1)), sympy.Integer(0))
    return eta, d1


def wo_eta_binom_shift(n: int, b: int, m: int) -> mp.Pair:
    _, dd = mp.thm5_wo(n, b, m)
    eta = sum((mp._pj(n, b, j) * (1 - R(C(b - j + 1, m), C(b, m))) for j in range(1, b + 1)),
              sympy.Integer(0))
    return eta, dd


@pytest.mark.parametrize(
    "check,mutant",
    [
        (mp.check_t2_wr, wr_eta_shift),
        (mp.check_t2_wor, lambda n, m: (R(m, n), R(m) * d(1) / (n + 1))),
        (mp.check_t2_poisson, lambda g: (mp._q(g), mp._q(g) * d(2))),
        (mp.check_thm5_ow, ow_m_over_n),
        (mp.check_thm5_ww_corrected, ww_index_shift),
        (mp.check_thm5_wo, wo_drop_second_term),
        (mp.check_thm5_wo, wo_eta_binom_shift),
    ],
)
def test_mutants_caught(check, mutant) -> None:  # noqa: ANN001
    assert check(fast(), formula=mutant).verdict is Verdict.REFUTED


def test_poisson_row_is_checked_as_a_privacy_guarantee_on_both_orientations() -> None:
    res = mp.check_t2_poisson(Budget())
    law, pure, approx = res.statements
    assert res.verdict is Verdict.HOLDS and pure.verdict is approx.verdict is Verdict.HOLDS
    orient = {i.params["orientation"] for i in pure.instances}
    assert orient == {"P' = P ∪ {x}", "P = P' ∪ {x}"} and len(pure.instances) == 160


@pytest.mark.parametrize("mutant", [
    {"eps_expr": sympy.log(1 + sympy.Symbol("gamma") ** 2 * (sympy.exp(mp.EPS) - 1))},
    {"delta_expr": sympy.Symbol("gamma") ** 2 * sympy.Symbol("delta")},
    {"eps_expr": sympy.log(1 + sympy.Symbol("gamma") * (sympy.exp(mp.EPS / 2) - 1))},
])
def test_poisson_row_mutants_caught(mutant: dict) -> None:
    assert mp.check_t2_poisson(fast(), **mutant).verdict is Verdict.REFUTED


def test_poisson_row_needs_its_relation() -> None:
    """Outside the row's hypothesis (M DP only under substitution, which says nothing about
    samples of different sizes) Poisson sampling does not amplify: the LP finds it."""
    from verifydp.population import Relation
    assert mp.check_t2_poisson(fast(), relation=Relation.REPLACE).verdict is Verdict.REFUTED


def test_thm5c_is_judged_under_its_printed_label() -> None:
    """(c) as printed says MUST.OW: the (c) formulas are refuted against the MUST.OW law, and the
    same checker accepts the MUST.OW formulas of (a) — the label, not the checker, decides."""
    res = mp.check_thm5_ww(fast())
    assert res.verdict is Verdict.REFUTED
    bad = next(i for i in res.instances if i.verdict is Verdict.REFUTED)
    assert bad.params["law"] == "MUST.OW"
    assert mp.check_thm5_ww(Budget(), formula=mp.thm5_ow).verdict is Verdict.HOLDS


def test_prop7_mutant_caught() -> None:
    res = mp.check_prop7(fast(), n_max=8,
                         ow=lambda n, b, m: Fraction(m, n) * (1 - (1 - Fraction(1, b)) ** m))
    assert res.statements[0].verdict is Verdict.REFUTED


def test_cor6_mutant_caught() -> None:
    assert mp.check_cor6(fast(), wo=wo_drop_second_term).statements[0].verdict is Verdict.REFUTED


# ---------------------------------------------------------------- laws of K


def test_mean_of_k_is_m_over_n() -> None:
    for n in range(1, 7):
        for m in range(1, n + 1):
            assert mp.mean_of(mp.law_wor(n, m)) == Fraction(m, n)
            assert mp.mean_of(mp.law_poisson(Fraction(m, n))) == Fraction(m, n)
        for m in range(1, 6):
            assert mp.mean_of(mp.law_wr(n, m)) == Fraction(m, n)
            for b in range(1, n + 1):
                assert mp.mean_of(mp.law_ow(n, b, m)) == Fraction(m, n)
                assert mp.mean_of(mp.law_ww(n, b, m)) == Fraction(m, n)
                if m <= b:
                    assert mp.mean_of(mp.law_wo(n, b, m)) == Fraction(m, n)


def test_laws_sum_to_one() -> None:
    for law in (mp.law_ow(7, 3, 5), mp.law_wo(7, 5, 3), mp.law_ww(7, 3, 5), mp.law_wr(4, 6)):
        assert sum(law.values()) == 1


def test_sample_law_enumeration_detects_difference() -> None:
    # sanity of the enumerator: WOR-only sampling of 2 from 3 differs from WR(3, 2)
    assert mp.sample_law_wo(3, 2, 2) == mp.sample_law_wr(3, 2)
    assert mp.sample_law_wo(2, 1, 1) == mp.sample_law_wr(2, 1)
    assert mp.sample_law_wr(3, 2) != {(0, 1): Fraction(1, 3), (0, 2): Fraction(1, 3),
                                      (1, 2): Fraction(1, 3)}


# ---------------------------------------------------------------- Table 3


def test_judge_cell() -> None:
    assert judge_cell("7.47e-6", Bracket(Fraction(7466, 10**9), Fraction(7474, 10**9)))[0] \
        is Verdict.HOLDS
    assert judge_cell("0.123", Bracket(Fraction(1288, 10**4), Fraction(1289, 10**4)))[0] \
        is Verdict.REFUTED
    assert judge_cell("0.123", Bracket(Fraction(1224, 10**4), Fraction(1226, 10**4)))[0] \
        is Verdict.INCONCLUSIVE
    assert judge_cell("0", Bracket.point(0))[0] is Verdict.HOLDS


def test_table3_laplace_cells_hold() -> None:
    res = mp.check_table3(Budget(), blocks=[("Laplace", "1/4")], cols=[2, 5])
    assert res.verdict is Verdict.HOLDS and len(res.instances) == 2 * 9


def test_table3_gaussian_ww_row_refuted() -> None:
    res = mp.check_table3(Budget(), blocks=[("Gaussian", "1")], cols=[0])
    assert res.verdict is Verdict.REFUTED
    bad = [i for i in res.instances if i.verdict is Verdict.REFUTED]
    assert [(i.params["scheme"], i.params["cell"]) for i in bad] == [("MUST.WW", "delta'")]
    assert "identical" in res.statements[0].note


def test_table3_mutated_cell_caught() -> None:
    table = {k: dict(v) for k, v in mp.T3_PRINTED.items()}
    row = list(table[("Laplace", "1/4")]["WR"])
    row[2] = ("0.449", "7.48e-6")
    table[("Laplace", "1/4")]["WR"] = tuple(row)
    res = mp.check_table3(Budget(), blocks=[("Laplace", "1/4")], cols=[2], printed=table)
    assert res.verdict is Verdict.REFUTED


def test_group_delta_agrees_with_profiles_module() -> None:
    prof = pytest.importorskip("verifydp.mechanisms.profiles")
    for eps, theta, u in [(Fraction(1, 2), Fraction(1, 4), 3), (Fraction(3), Fraction(1), 2)]:
        g = mp.group_delta("Gaussian", theta, eps, u)
        o = prof.gaussian_profile(eps, u * theta)
        assert g.lo <= o.hi and o.lo <= g.hi
        lp = mp.group_delta("Laplace", theta, eps, u)
        o = prof.laplace_profile(eps, u * theta)
        assert lp.lo <= o.hi and o.lo <= lp.hi
