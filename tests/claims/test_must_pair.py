"""MUST §3.3: the printed per-step pair (6)–(7) against all clipped-sum pairs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.must import pair as mp
from verifydp.designs.must import k_law

F = Fraction


@pytest.fixture(scope="module")
def result():
    return mp.CLAIMS[0].check()


def test_registered():
    assert [c.id for c in mp.CLAIMS] == ["must/sec3.3:pair"]
    assert mp.CLAIMS[0].paper == "must"


def test_printed_pair_is_worst_on_grid(result):
    assert result.verdict is Verdict.HOLDS, result.summary()
    assert len(result.instances) == 18
    assert all(i.verdict is Verdict.HOLDS for i in result.instances)


def _float_hs(scheme, n, b, m, sigma, eps, pair):
    law = [(int(k), float(p)) for k, p in k_law(scheme, n, b, m)]
    x, xp = (float(v) for v in pair)
    c = np.exp(float(eps))

    def g(t):
        p = sum(w * norm.pdf(t, k * x, float(sigma)) for k, w in law)
        q = sum(w * norm.pdf(t, k * xp, float(sigma)) for k, w in law)
        return max(p - c * q, 0.0)

    pts = [k * v for k, _ in law for v in (x, xp)]
    val, _ = integrate.quad(g, -40, 40, points=sorted(set(pts)), limit=400, epsabs=1e-13)
    return val


@pytest.mark.parametrize("pair", [(F(1), F(-1)), (F(1), F(1, 2)), (F(1, 2), F(0))])
@pytest.mark.parametrize("eps", [F(1, 10), F(1)])
def test_bracket_matches_quadrature(pair, eps):
    br = mp.hockey_stick("must-ow", 20, 5, 3, F(1), eps, pair)
    assert br.width < F(1, 10**12)
    ref = _float_hs("must-ow", 20, 5, 3, 1, eps, pair)
    assert abs(float(br.lo) - ref) < 1e-9


def test_symmetries():
    # mirror t -> -t; the printed pair's two directions agree (f_X'(-t) = f_X(t))
    a = mp.hockey_stick("wr", 20, None, 3, F(2), F(1), (F(1), F(-1)))
    b = mp.hockey_stick("wr", 20, None, 3, F(2), F(1), (F(-1), F(1)))
    assert a.lo <= b.hi and b.lo <= a.hi
    # (x, -x) with sigma is (1, -1) with sigma / x (post-processing by scaling)
    c = mp.hockey_stick("must-ow", 20, 5, 3, F(1), F(1, 2), (F(1, 2), F(-1, 2)))
    d = mp.hockey_stick("must-ow", 20, 5, 3, F(2), F(1, 2), (F(1), F(-1)))
    assert c.lo <= d.hi and d.lo <= c.hi


def test_non_monotone_ratio_handled():
    # (1, 1/2): P/Q -> 1 at t -> -inf and dips below 1, so Q‖P (= P‖Q of (-1/2, -1) by
    # mirroring) has a bounded region {Q > e^ε P} at small ε: two roots, not one
    for pair in [(F(-1, 2), F(-1)), (F(1), F(1, 2))]:
        br = mp.hockey_stick("must-ow", 20, 5, 3, F(1), F(1, 100), pair)
        ref = _float_hs("must-ow", 20, 5, 3, 1, F(1, 100), pair)
        assert br.lo > 0 and abs(float(br.lo) - ref) < 1e-9


@pytest.mark.parametrize("mutant", [(F(1), F(0)), (F(1), F(-1, 2)), (F(1, 2), F(-1, 2))])
def test_mutant_worst_pair_refuted(mutant):
    res = mp.check_pair(Budget(fail_fast=True), mutant)
    assert res.verdict is Verdict.REFUTED, res.summary()
    assert "(1, -1)" in res.summary()
