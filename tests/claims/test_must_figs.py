"""must/fig4 and must/fig5: numbers cross-checked, verdicts, mutated statements caught."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.shared import MUST_GROUP, checked
from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must import figs as mf
from verifydp.designs.must import k_law
from verifydp.mechanisms.profiles import gaussian_group_profile

# full-budget verdicts of the catalogue's checks (the snapshot test relies on them)
EXPECTED = {"must/fig4": Verdict.REFUTED, "must/fig5": Verdict.REFUTED}


# the catalogue's check, shared with tests/cli/test_readable_numbers.py (tests/shared.py); the
# whole module on one worker, so fig4's curves (cached in figs) are computed once (issue 29)
pytestmark = pytest.mark.xdist_group(MUST_GROUP)


@pytest.fixture(scope="module")
def fig4():
    return checked("must/fig4")


@pytest.fixture(scope="module")
def fig5():
    return mf.check_fig5(Budget(), plot=False)


def _by_prefix(res, prefix):
    return next(s for s in res.statements if s.text.startswith(prefix))


@pytest.mark.parametrize("scheme,key", [("WR", "wr"), ("MUST.OW", "must-ow"),
                                        ("MUST.WW", "must-ww"), ("WOR", "wor")])
def test_kept_law_matches_exact_law_of_k(scheme, key):
    n, b, m = 7, 4, 5
    eta, w = mf.kept_law(scheme, n, b, m, m)
    law = k_law(key, n, b if key.startswith("must") else None, m).probs
    assert eta == sum(p for k, p in law.items() if k >= 1)
    for u, wu in w:
        assert 0 <= law.get(u, 0) - wu < Fraction(1, 2**300)


def test_gaussian_delta_matches_profiles():
    for eps, u, th in [(Fraction(1), 1, Fraction(1)), (Fraction(3), 7, Fraction(1, 4)),
                       (Fraction(1, 20), 3, Fraction(1))]:
        a, b = mf.delta_u("Gaussian", th, eps, u), gaussian_group_profile(eps, u, th)
        assert a.lo <= b.hi and b.lo <= a.hi
        assert a.hi - a.lo < Fraction(1, 10**30)


def test_delta_prime_matches_table3_cells():
    # Table 3, Gaussian Δ/σ = 1, ε = 1: WR 0.068, MUST.OW 0.079 (printed, 3 decimals)
    for scheme, printed in (("WR", Fraction(68, 1000)), ("MUST.OW", Fraction(79, 1000))):
        d = mf.delta_prime(scheme, "Gaussian", Fraction(1), Fraction(1), 1000, 500, 400)
        assert abs(d.lo - printed) < Fraction(5, 10000) and d.hi - d.lo < Fraction(1, 10**9)


def test_fig4_verdicts(fig4):
    assert fig4.claim == "must/fig4"
    assert fig4.verdict is EXPECTED["must/fig4"]
    v = [s.verdict for s in fig4.statements]
    assert v == [Verdict.INCONCLUSIVE, Verdict.REFUTED, Verdict.HOLDS, Verdict.HOLDS,
                 Verdict.HOLDS, Verdict.HOLDS, Verdict.HOLDS, Verdict.HOLDS]
    # 'a minor portion of each curve': the share of the ε grid says no, the share of the drawn
    # length says yes for three Δ/σ = 1 curves and is undecided (aspect ratio) for one
    s1 = fig4.statements[0]
    undecided = {(i.params["mechanism"], i.params["Delta/sigma"], i.params["scheme"])
                 for i in s1.instances if i.verdict is Verdict.INCONCLUSIVE}
    assert ("Gaussian", "1", "WR") in undecided and all(k[2] != "WOR" for k in undecided)
    assert not any(i.verdict is Verdict.REFUTED for i in s1.instances)
    assert "the readings disagree" in s1.note
    s2 = fig4.statements[1]
    order = [i for i in s2.instances if i.params.get("part") == "ordering"]
    assert len(order) == 4 and all(i.verdict is Verdict.HOLDS for i in order)
    spread = {i.params["mechanism"]: i.verdict for i in s2.instances
              if i.params.get("part", "").startswith("less")}
    assert spread == {"Laplace": Verdict.HOLDS, "Gaussian": Verdict.REFUTED}


def test_fig4_minor_portion_refuted_when_both_readings_say_no(monkeypatch):
    """Mutant of the sentence: 'a minor portion' read as < 10%: both readings refute it."""
    monkeypatch.setattr(mf, "MINOR", Fraction(1, 10))
    st = mf._fig4_sentence1(mf.fig4_curves())
    assert st.verdict is Verdict.REFUTED and "under both readings" in st.note


def test_fig4_one_reading_alone_does_not_refute(monkeypatch):
    """Mutant of the checker: judging by the ε grid only (the old reading) refutes the sentence;
    the checker, with both readings, must not."""
    monkeypatch.setattr(mf, "_weak_share", lambda curves, mech, th, s, tau, a=1: (
        Fraction(1), Fraction(1)) if any(g.lo > tau for g in curves[(mech, th, s)]) else (
        Fraction(0), Fraction(0)))
    assert mf._fig4_sentence1(mf.fig4_curves()).verdict is Verdict.REFUTED
    monkeypatch.undo()
    assert mf._fig4_sentence1(mf.fig4_curves()).verdict is Verdict.INCONCLUSIVE


def test_fig4_reversed_ordering_caught():
    curves = mf.fig4_curves()
    st = mf._fig4_sentence2(curves, order=("WOR", "WR", "MUST.OW", "MUST.WW"))
    order = [i for i in st.instances if i.params.get("part") == "ordering"]
    assert all(i.verdict is Verdict.REFUTED for i in order)


def test_fig5_verdicts(fig5):
    assert fig5.claim == "must/fig5"
    assert fig5.verdict is EXPECTED["must/fig5"]
    v = [s.verdict for s in fig5.statements]
    assert v == [Verdict.HOLDS, Verdict.REFUTED, Verdict.HOLDS, Verdict.REFUTED,
                 Verdict.REFUTED, Verdict.HOLDS]
    second = fig5.statements[3]
    # every η-vs-m comparison on the printed grid is a violation (η increases with m) ...
    eta_m = [i for i in second.instances if i.params["what"] == "eta"
             and i.params["axis"] == "m" and not i.params.get("search")]
    assert eta_m and all(i.verdict is Verdict.REFUTED for i in eta_m)
    # ... while η increases with b and δ'−δ increases with m everywhere checked
    for what, axis in (("eta", "b"), ("Laplace", "m"), ("Gaussian", "m")):
        sel = [i for i in second.instances if i.params["what"] == what
               and i.params["axis"] == axis]
        assert sel and all(i.verdict is Verdict.HOLDS for i in sel)


def test_fig5_exact_counterexample_eta_m():
    eta1 = mf.kept_law("MUST.OW", 1000, 150, 100, 1)[0]
    eta2 = mf.kept_law("MUST.OW", 1000, 150, 110, 1)[0]
    assert eta1 == Fraction(150, 1000) * (1 - Fraction(149, 150) ** 100) < eta2


def test_fig5_mutants_caught(fig5):
    v = mf.fig5_values()
    rev = mf.check_fig5(Budget(), plot=False, ww_smaller=False)
    assert rev.statements[0].verdict is Verdict.REFUTED  # "OW smaller η" is false
    assert rev.statements[1].verdict is Verdict.HOLDS  # and OW < WW in δ'−δ holds
    corrected = mf._monotone(v, "eta", "m", True, Budget(), search=False)
    assert all(i.verdict is Verdict.HOLDS for i in corrected)


def test_plots(tmp_path):
    p4 = mf.fig4_plot(tmp_path / "f4.png")
    p5 = mf.fig5_plot(tmp_path / "f5.png")
    assert p4.stat().st_size > 10_000 and p5.stat().st_size > 10_000
