"""Tables 4, 6, 8, 9 of Zhao & Liu (MUST): cell-by-cell verdicts and mutant detection."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must.tables import (
    CLAIMS,
    T4_PRINTED,
    T6_PRINTED,
    T8_PRINTED,
    T9_PRINTED,
    check_table4,
    check_table6,
    check_table8,
    check_table9,
    m0_moments,
)


def _count(res, verdict):
    return sum(i.verdict is verdict for i in res.instances)


EXPECTED = {  # full-budget verdicts of the catalogue's checks (the snapshot test relies on them)
    "must/table4": Verdict.HOLDS,
    "must/table6": Verdict.HOLDS,
    "must/table8": Verdict.REFUTED,
    "must/table9": Verdict.REFUTED,
}


def test_catalogue_ids():
    assert [c.id for c in CLAIMS] == ["must/table4", "must/table6", "must/table8",
                                      "must/table9"]


def test_table4_all_cells_match():
    r = check_table4(Budget())
    assert r.verdict is EXPECTED["must/table4"]
    assert _count(r, Verdict.HOLDS) == 3 * len(T4_PRINTED)


def test_table4_mutant_caught():
    mut = dict(T4_PRINTED)
    mut[("MUST.OW", 20)] = ("0.08", "0.67", "0.0032")  # δ' 0.0022 -> 0.0032
    r = check_table4(Budget(fail_fast=True), printed=mut)
    assert r.verdict is Verdict.REFUTED
    bad = [i for i in r.instances if i.verdict is Verdict.REFUTED]
    assert bad[0].params["b"] == 20 and bad[0].params["cell"] == "delta'"


def test_table6_formula_cells_match_rmse_inconclusive():
    r = check_table6(Budget())
    assert r.verdict is EXPECTED["must/table6"]
    assert _count(r, Verdict.HOLDS) == 14  # 10 σ cells, 4 set-scheme δ' cells
    inc = [i for i in r.instances if i.verdict is Verdict.INCONCLUSIVE]
    rmse = [i for i in inc if i.params["cell"] == "RMSE"]
    assert len(rmse) == 11 and all("simulation output" in i.note for i in rmse)
    # the multiset δ' are reproduced only by the fitted θ = C/σ: a fit cannot confirm them
    fitted = [i for i in inc if i.params["cell"] == "delta'"]
    assert len(fitted) == 6
    assert all("(refuted)" in i.note and "a fit): " in i.note for i in fitted)
    assert "finding: the printed multiset δ'" in r.statements[0].note


def test_table6_fitted_reading_alone_never_confirms(monkeypatch):
    """Mutant: judging the multiset δ' under the fitted θ only (the old checker) makes those
    six cells 'hold'; the checker must not."""
    from verifydp.claims.must import tables
    monkeypatch.setattr(tables, "T6_READINGS", (tables.T6_FIT,))
    assert _count(check_table6(Budget()), Verdict.HOLDS) == 20
    monkeypatch.undo()
    assert _count(check_table6(Budget()), Verdict.HOLDS) == 14


def test_table6_delta_cell_refuted_when_no_reading_fits():
    mut = {k: dict(v) for k, v in T6_PRINTED.items()}
    mut["0.01"]["WR"] = ("0.113", "0.5", "0.997 (0.022)")
    r = check_table6(Budget(), printed=mut)
    assert r.verdict is Verdict.REFUTED
    assert [i.params["scheme"] for i in r.instances if i.verdict is Verdict.REFUTED] == ["WR"]


def test_table6_mutant_sigma_caught():
    mut = {k: dict(v) for k, v in T6_PRINTED.items()}
    mut["0.001"]["MUST.WW"] = ("0.856", "0.071", "1.017 (0.025)")
    r = check_table6(Budget(), printed=mut)
    assert r.verdict is Verdict.REFUTED
    assert [i.params["cell"] for i in r.instances if i.verdict is Verdict.REFUTED] == ["sigma"]


def test_table8_sigma_m_match_and_delta_c_refuted():
    r = check_table8(Budget())
    assert r.verdict is EXPECTED["must/table8"]
    assert _count(r, Verdict.HOLDS) == 5  # the five σ·m cells
    refuted = [i.params["scheme"] for i in r.instances if i.verdict is Verdict.REFUTED]
    assert refuted == ["WOR", "WR", "MUST.OW", "MUST.WW"]  # δ_c,U below the certified δ_c
    assert all(i.params["cell"].startswith("(delta_c") for i in r.instances
               if i.verdict is Verdict.REFUTED)
    notes = {i.note for i in r.instances if i.verdict is Verdict.INCONCLUSIVE}
    assert any("|Y|" in n for n in notes)  # Poisson: noise scale depends on |Y|
    assert any("simulation output" in n for n in notes)


def test_table8_mutants_caught_and_true_variant_holds():
    sm, metrics, dc = T8_PRINTED["WR"]
    r = check_table8(Budget(), printed={"WR": ("2.614", metrics, dc)})
    assert {i.params["cell"] for i in r.instances if i.verdict is Verdict.REFUTED} == {
        "sigma*m", "(delta_cL, delta_cU) at eps_c=2"}
    # a printed upper bound above the certified δ_c(2) is a true statement: it must hold
    r = check_table8(Budget(), printed={"WR": (sm, metrics, "(0, 9.00e-1)")})
    assert r.verdict is Verdict.HOLDS
    assert _count(r, Verdict.HOLDS) == 2


def test_table9_refuted_exactly_at_experiment2_must_means():
    r = check_table9(Budget())
    assert r.verdict is EXPECTED["must/table9"]
    bad = {(i.params["experiment"], i.params["scheme"], i.params["cell"])
           for i in r.instances if i.verdict is Verdict.REFUTED}
    assert bad == {(2, s, c) for s in ("MUST.OW", "MUST.WW")
                   for c in ("mean", "min/mean/max constraints")}


def test_table9_corrected_means_hold_and_mutant_caught():
    fixed = {k: dict(v) for k, v in T9_PRINTED.items()}
    fixed[2]["MUST.OW"] = (79, 79, 92)
    fixed[2]["MUST.WW"] = (76, 76, 87)
    assert check_table9(Budget(), printed=fixed).verdict is Verdict.HOLDS
    mut = {k: dict(v) for k, v in fixed.items()}
    mut[3]["WR"] = (292, 299, 301)  # max above min(m, n) = 300
    r = check_table9(Budget(), printed=mut)
    assert r.verdict is Verdict.REFUTED
    mut = {k: dict(v) for k, v in fixed.items()}
    mut[1]["MUST.OW"] = (15, 25, 30)  # mean 2.3 away from E = 22.73, SE ≈ 0.018
    assert check_table9(Budget(), printed=mut).verdict is Verdict.REFUTED


def _m0_law(scheme, n, b, m):
    """Law of the number of distinct records by brute-force enumeration (tiny cases)."""
    out: Counter = Counter()
    if scheme == "WR":
        for seq in itertools.product(range(n), repeat=m):
            out[len(set(seq))] += Fraction(1, n**m)
    elif scheme == "MUST.OW":
        subsets = list(itertools.combinations(range(n), b))
        for sub in subsets:
            for seq in itertools.product(sub, repeat=m):
                out[len(set(seq))] += Fraction(1, len(subsets) * b**m)
    elif scheme == "MUST.WW":
        for first in itertools.product(range(n), repeat=b):
            for pos in itertools.product(range(b), repeat=m):
                out[len({first[p] for p in pos})] += Fraction(1, n**b * b**m)
    elif scheme == "WOR":
        out[m] = Fraction(1)
    return out


@pytest.mark.parametrize("scheme", ["WR", "MUST.OW", "MUST.WW", "WOR"])
@pytest.mark.parametrize("nbm", [(4, 2, 3), (5, 3, 2), (4, 3, 3)])
def test_m0_moments_against_enumeration(scheme, nbm):
    n, b, m = nbm
    law = _m0_law(scheme, n, b, m)
    mean = sum(k * p for k, p in law.items())
    var = sum(k * k * p for k, p in law.items()) - mean**2
    assert m0_moments(scheme, n, b, m) == (mean, var)
