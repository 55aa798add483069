"""Group-profile worst case (MUST Theorem 5 / Table 2 as privacy statements).

Oracles: the orbit LP against the same LP over every multiset (no symmetry reduction);
mutants of the printed δ' and η must be refuted with witnesses that replay.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from itertools import combinations_with_replacement, product

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linprog

from verifydp.casebook import replay
from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must.amplification import dsym, t2_wr, thm5_ww
from verifydp.claims.must.group import design_of, worst_case_statement
from verifydp.designs.must import k_law
from verifydp.witness import write_witness
from verifydp.witness.group import GroupWitness
from verifydp.worstcase.group import (
    GroupLPError,
    GroupProfileClass,
    group_worst_hockey,
    substitution_pair,
)

DELTAS = (F(1, 100), F(3, 100), F(8, 100), F(15, 100), F(1, 4))


def full_lp(scheme: str, n: int, b: int | None, m: int, mc: GroupProfileClass,
            t_prime: F) -> float:
    """The same supremum with one variable per multiset (no orbits), in floats."""
    p, q, universe = substitution_pair(n)
    design = design_of(scheme, b, m)
    pts = [v for v in product(range(m + 1), repeat=len(universe)) if sum(v) == m]
    idx = {v: i for i, v in enumerate(pts)}
    c = np.zeros(len(pts))
    for v, pr in design.sample_law(p, universe):
        c[idx[v]] += float(pr)
    for v, pr in design.sample_law(q, universe):
        c[idx[v]] -= float(t_prime * pr)
    rows, rhs = [], []
    t = float(mc.t)
    for i, j in combinations_with_replacement(range(len(pts)), 2):
        if i == j:
            continue
        d = m - sum(min(a, b2) for a, b2 in zip(pts[i], pts[j], strict=True))
        dl = float(mc.delta(d))
        for u, w in ((i, j), (j, i)):
            r1 = np.zeros(len(pts))
            r1[u], r1[w] = 1, -t
            rows.append(r1)
            rhs.append(dl)
            rows.append(-r1)
            rhs.append(dl + t - 1)
    res = linprog(-c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=(0, 1), method="highs")
    return -res.fun


def eta_and_delta(scheme: str, n: int, b: int | None, m: int, deltas) -> tuple[F, F]:
    law = k_law(scheme, n, b, m)
    return (sum((p for k, p in law if k >= 1), F(0)),
            sum((p * deltas[k - 1] for k, p in law if k >= 1), F(0)))


@pytest.mark.parametrize("scheme,n,b,m", [
    ("wr", 3, None, 2), ("wor", 3, None, 2), ("must-ow", 3, 2, 2), ("must-wo", 3, 2, 2),
    ("must-ww", 3, 2, 2), ("must-ww", 3, 3, 3),
])
@pytest.mark.parametrize("mc", [GroupProfileClass(F(2), DELTAS),
                                GroupProfileClass(F(11, 10), (F(1, 1000), F(1, 100), F(1, 2)))])
def test_orbit_lp_equals_full_lp(scheme, n, b, m, mc):
    eta, _ = eta_and_delta(scheme, n, b, m, mc.deltas)
    tp = 1 + eta * (mc.t - 1)
    r = group_worst_hockey(design_of(scheme, b, m), n, m, mc, tp)
    assert r.lower <= r.upper
    assert float(r.upper) == pytest.approx(full_lp(scheme, n, b, m, mc, tp), abs=1e-9)


@pytest.mark.parametrize("scheme,n,b,m", [("wr", 4, None, 3), ("must-ow", 4, 3, 3),
                                          ("must-wo", 4, 3, 2), ("must-ww", 5, 3, 3)])
def test_printed_delta_is_exactly_tight_at_t2(scheme, n, b, m):
    mc = GroupProfileClass(F(2), DELTAS)
    eta, printed = eta_and_delta(scheme, n, b, m, DELTAS)
    r = group_worst_hockey(design_of(scheme, b, m), n, m, mc, 1 + eta * (mc.t - 1))
    assert r.lower == r.upper == printed


@given(st.lists(st.fractions(0, 1, max_denominator=50), min_size=3, max_size=3),
       st.fractions(1, 6, max_denominator=10))
def test_theorem_holds_for_any_profile(raw, t):
    deltas = tuple(sorted(raw))
    mc = GroupProfileClass(t, deltas)
    eta, printed = eta_and_delta("wr", 4, None, 3, deltas)
    r = group_worst_hockey(design_of("wr", None, 3), 4, 3, mc, 1 + eta * (t - 1))
    assert r.lower <= r.upper <= printed


def mutant_delta_one(n, m):
    """δ' with δ_1 in place of every δ_j (drops group privacy)."""
    eta, d = t2_wr(n, m)
    return eta, d.subs({dsym(j): dsym(1) for j in range(2, m + 1)})


def mutant_eta(n, m):
    """η with m − 1 draws: e^{ε'} too small."""
    _, d = t2_wr(n, m)
    return 1 - (1 - sympy.Rational(1, n)) ** (m - 1), d


@pytest.mark.parametrize("mutant", [mutant_delta_one, mutant_eta])
def test_mutants_refuted_with_replayable_witness(mutant, tmp_path):
    st_ = worst_case_statement("must/table2:wr", "wr", mutant, Budget(fail_fast=True))
    assert st_.verdict is Verdict.REFUTED
    w = next(i.witness for i in st_.instances if i.verdict is Verdict.REFUTED)
    assert isinstance(w, GroupWitness)
    path = write_witness(w, tmp_path)
    assert replay(path, bind=False).confirmed  # the mutant's bound is violated, exactly
    assert not replay(path).confirmed  # but the mutant's bound is not the printed one
    assert (tmp_path / path.name.replace(".json", ".P.csv")).read_text().startswith("value")
    obj = json.loads(path.read_text())
    obj["claimed"]["value"] = str(F(obj["actual"]["value"]))  # no longer exceeded
    path.write_text(json.dumps(obj))
    assert not replay(path, bind=False).confirmed


def test_printed_statements_hold():
    for scheme, formula in (("wr", t2_wr), ("must-ww", thm5_ww)):
        assert worst_case_statement("x", scheme, formula, Budget()).verdict is Verdict.HOLDS


@pytest.mark.parametrize("t,deltas", [(F(1, 2), DELTAS), (F(2), ()), (F(2), (F(1, 2), F(1, 4))),
                                      (F(2), (F(3, 2),))])
def test_class_validation(t, deltas):
    with pytest.raises(GroupLPError):
        GroupProfileClass(t, deltas)


def test_missing_group_delta():
    with pytest.raises(GroupLPError, match="δ_3"):
        group_worst_hockey(design_of("wr", None, 3), 3, 3,
                           GroupProfileClass(F(2), (F(1, 10), F(1, 5))), F(3, 2))
