"""hu claims: verdicts of the printed statements, and printed-formula mutants caught."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verifydp.accuracy import amplification as amp
from verifydp.accuracy import cdfdp, gain, smooth, variance
from verifydp.claims import hu
from verifydp.claims.base import Budget, Verdict
from verifydp.exact.tfunc import EPS

# one xdist_group for the module (issue 29): six tests read the module-scoped `results` (the
# full check of every hu claim, ~3.5 s), computed once per worker that runs any of them
pytestmark = pytest.mark.xdist_group("hu")


def _fast() -> Budget:
    return Budget(fail_fast=True)


@pytest.fixture(scope="module")
def results():
    return {c.id: c.check() for c in hu.CLAIMS}


def _by_text(res, start):
    return next(s for s in res.statements if s.text.startswith(start))


def test_catalogue():
    assert [c.id for c in hu.CLAIMS] == [
        "hu/amplification", "hu/approx", "hu/def2", "hu/def3", "hu/sec4.1", "hu/mean",
        "hu/median", "hu/inline"]
    assert all(c.paper == "hu" for c in hu.CLAIMS)


EXPECTED = {  # the snapshot test relies on it
    "hu/amplification": Verdict.HOLDS, "hu/approx": Verdict.PROVED,
    "hu/def2": Verdict.REFUTED, "hu/def3": Verdict.REFUTED, "hu/sec4.1": Verdict.PROVED,
    "hu/mean": Verdict.REFUTED, "hu/median": Verdict.INCONCLUSIVE,
    "hu/inline": Verdict.REFUTED,
}


def test_printed_verdicts(results):
    assert {cid: r.verdict for cid, r in results.items()} == EXPECTED


def test_amplification_statements(results):
    res = results["hu/amplification"]
    assert [s.verdict for s in res.statements] == [Verdict.HOLDS] * 5
    tight = res.statements[-1]
    assert all(i.verdict is Verdict.HOLDS for i in tight.instances)
    assert len(tight.instances) == len(hu.INVERSE_GRID) * len(hu.T_GRID)
    # the inverse instances are all exact rationals: nothing inconclusive there
    for s in res.statements[2:]:
        assert all(i.verdict is Verdict.HOLDS for i in s.instances)


def test_amplification_mutants():
    # N/n ↔ n/N in the inverse: still private but no longer Theorem 1 inverted
    r = hu.inverse_statements(_fast(), inverse_eps=amp.FORWARD_EPS)
    assert r.statements[0].verdict is Verdict.HOLDS
    assert r.statements[2].verdict is Verdict.REFUTED
    # e^{2ε} in the inverse: too large a base ε
    doubled = amp.INVERSE_EPS.subs(EPS, 2 * EPS)
    r = hu.inverse_statements(_fast(), inverse_eps=doubled)
    assert r.statements[0].verdict is Verdict.REFUTED
    # δ_n = 2(N/n)δ
    r = hu.inverse_statements(_fast(), inverse_delta=2 * amp.INVERSE_DELTA)
    assert r.statements[1].verdict is Verdict.REFUTED
    # Theorem 1 forward with half the rate
    half = sympy.log(1 + amp.n_s / (2 * amp.N_s) * (sympy.exp(EPS) - 1))
    r = hu.forward_statements(_fast(), forward_eps=half)
    assert r.statements[0].verdict is Verdict.REFUTED
    assert r.witness is not None


def test_approx_mutants():
    assert hu.check_approx(_fast(), forward=2 * hu.RATE * EPS).verdict is Verdict.REFUTED
    assert hu.check_approx(_fast(), inverse=hu.RATE * EPS).verdict is Verdict.REFUTED
    assert hu.check_approx(_fast(), forward=hu.RATE * EPS + EPS**2).verdict is Verdict.PROVED


def test_definitions(results):
    for cid in ("hu/def2", "hu/def3"):
        implied, converse = results[cid].statements
        assert implied.verdict is Verdict.HOLDS
        assert converse.verdict is Verdict.REFUTED
        assert "every CDF inequality holds" in converse.instances[0].actual


def test_definition_mutants():
    def eps_zero(p, q, t, delta):  # the CDF condition with e^ε replaced by 1
        return cdfdp.is_cdf_dp(p, q, Fraction(1), delta)

    r = hu.check_definition(_fast(), "hu/def2", (Fraction(0),), eps_zero)
    assert r.statements[0].verdict is Verdict.REFUTED
    # a definition over every event is standard DP: the checker then finds no gap
    r = hu.check_definition(_fast(), "hu/def2", (Fraction(0),), cdfdp.is_dp)
    assert [s.verdict for s in r.statements] == [Verdict.HOLDS, Verdict.HOLDS]


def test_sec41_mutants():
    q_lin = 1 - EPS / gain.EN_s
    assert hu.check_sec41(_fast(), q=q_lin).statements[0].verdict is Verdict.REFUTED
    for bad in (gain.NO_GAIN_PRINTED / 2, 2 * gain.NO_GAIN_PRINTED,
                2 * gain.DN_s**2 * (1 / EPS - 1 / gain.EN_s) ** 2):
        assert hu.check_sec41(_fast(), no_gain=bad).statements[1].verdict is Verdict.REFUTED
    r = hu.check_sec41(_fast(), q_small=1 - gain.RATE_s)
    assert r.statements[2].verdict is Verdict.REFUTED


def test_mean_statements(results):
    res = results["hu/mean"]
    bad = [s for s in res.statements if s.verdict is Verdict.REFUTED]
    assert len(bad) == 1 and bad[0].text.startswith("Fig. 5")
    assert _by_text(res, "eq. (7)").verdict is Verdict.HOLDS


def test_mean_mutants():
    n, big_n, s2, r_, en = (variance.n_s, variance.N_s, variance.S2_s, variance.R_s,
                            variance.EPSN_s)
    noise = 2 * (r_ / (en * n)) ** 2
    for bad_vn in (s2 / n + noise,                          # FPC dropped
                   (1 - big_n / n) * s2 / n + noise,        # n/N ↔ N/n in the FPC
                   (1 - n / big_n) * s2 / n + noise / 2):   # Laplace variance b² not 2b²
        st = _by_text(hu.check_mean(_fast(), v_n=bad_vn), "eq. (7)")
        assert st.verdict is Verdict.REFUTED
    st = _by_text(hu.check_mean(_fast(), v_N=variance.V_N_PRINTED / 2), "eq. (6)")
    assert st.verdict is Verdict.REFUTED
    root = sympy.sqrt(variance.R_RATIO_PRINTED)
    for bad_r in (root, root.subs(variance.RATE_s, 1 / variance.RATE_s) ** 2):
        assert _by_text(hu.check_mean(_fast(), ratio=bad_r), "eq. (8)").verdict \
            is Verdict.REFUTED


def test_fig5_proof_and_point():
    ok, _ = hu.ratio_below_one_proof()
    assert ok
    r_pt, eps_pt = hu._fig5_point()
    assert r_pt.hi < 1 < r_pt.hi + Fraction(2, 10**6)
    assert eps_pt.lo > Fraction(166, 10**12) and eps_pt.hi < Fraction(167, 10**12)


def test_median_statements(results):
    res = results["hu/median"]
    assert [s.verdict for s in res.statements[:5]] == [
        Verdict.HOLDS, Verdict.HOLDS, Verdict.HOLDS, Verdict.HOLDS, Verdict.PROVED]
    assert res.statements[5].verdict is Verdict.INCONCLUSIVE


def _no_plus_one(ys, top, boundary=smooth.Boundary.NISSIM):
    """Mutant of eq. (4): t = 0..k instead of t = 0..k+1."""
    s, size = sorted(ys), len(ys)
    mid = (size + 1) // 2

    def y(i):
        return 0 if i < 1 else top if i > size else s[i - 1]

    return tuple(max(y(mid + t) - y(mid + t - k - 1) for t in range(k + 1))
                 for k in range(size + 1))


def test_median_mutants():
    r = hu.check_median(_fast(), boundary=smooth.Boundary.IN_RANGE)
    assert r.statements[0].verdict is Verdict.REFUTED
    assert r.statements[1].verdict is Verdict.REFUTED
    r = hu.check_median(_fast(), profile=_no_plus_one)
    assert r.statements[0].verdict is Verdict.REFUTED


def test_inline_cells(results):
    cells = results["hu/inline"].instances
    bad = {c.params["where"] for c in cells if c.verdict is Verdict.REFUTED}
    assert bad == {"Fig. 2 caption: δ", "§4.2, Fig. 5: n/N = 0.0001"}
    assert all(c.verdict is not Verdict.INCONCLUSIVE for c in cells)
    assert len(cells) == 13


def test_inline_mutants():
    def no_sqrt(eps, q0):
        return (sympy.exp(eps) - 1) / (sympy.exp(eps / (1 - q0)) - 1)

    cells = hu.inline_cells(break_even=no_sqrt)
    bad = {c.params["where"] for c in cells if c.verdict is Verdict.REFUTED}
    assert {w for w in bad if "break-even" in w} == {
        "§4.1: break-even rate (%) for ε = 3, q = 0.6",
        "§4.1: break-even rate (%) for ε = 0.1, q = 0.6"}
    cells = hu.inline_cells(inverse_eps=amp.FORWARD_EPS)
    bad = {c.params["where"] for c in cells if c.verdict is Verdict.REFUTED}
    assert "§3: ε = 1, 1% SRS → ε_n" in bad
    assert "§4.3: ε_n for n = 101, ε = 1 (N = 10,001)" in bad
