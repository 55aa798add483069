"""hu building blocks against independent oracles: exhaustive tiny cases and hypothesis tests
sharing the same oracle (smooth sensitivity, SRSWOR variance, CDF vs event DP, break-even)."""

from __future__ import annotations

from fractions import Fraction
from itertools import chain, combinations, combinations_with_replacement
from math import exp, log

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from verifydp.accuracy import amplification as amp
from verifydp.accuracy import cdfdp, gain, smooth, variance
from verifydp.claims.base import Verdict
from verifydp.claims.printed import decimal, judge
from verifydp.exact.interval import Bracket, bracket

F = Fraction

# ------------------------------------------------------------------ smooth sensitivity


@pytest.mark.parametrize("size,top", [(3, 3), (3, 5), (5, 2)])
def test_smooth_profile_exhaustive(size, top):
    for ys in smooth.datasets(size, top):
        assert tuple(map(F, smooth.printed_profile(ys, top))) == smooth.oracle_profile(ys, top)
        assert smooth.printed_local_sensitivity(ys) == smooth.local_sensitivity(ys, top)


@given(st.sampled_from([3, 5]), st.integers(1, 5), st.data())
def test_smooth_profile_hypothesis(size, top, data):
    ys = tuple(sorted(data.draw(st.lists(st.integers(0, top), min_size=size, max_size=size))))
    assert tuple(map(F, smooth.printed_profile(ys, top))) == smooth.oracle_profile(ys, top)


def test_in_range_reading_is_not_an_upper_bound():
    ys, top = (0, 0, 0), 1
    assert smooth.printed_profile(ys, top, smooth.Boundary.IN_RANGE) == (0, 0, 0, 0)
    assert smooth.oracle_profile(ys, top)[1] == 1


def test_median_global_sensitivity():
    assert smooth.global_sensitivity(3, 4) == 4
    assert smooth.global_sensitivity(5, 2) == 2


@given(st.lists(st.integers(0, 20), min_size=5, max_size=5),
       st.fractions(F(1, 10), F(3)), st.fractions(F(1, 10**6), F(1, 10)))
def test_smooth_sensitivity_bracket(ys, eps, delta):
    prof = smooth.printed_profile(ys, 20)
    b_expr = smooth.beta(sympy.Rational(eps.numerator, eps.denominator),
                         sympy.Rational(delta.numerator, delta.denominator))
    br = smooth.smooth_sensitivity(prof, b_expr)
    b = float(eps) / (2 * log(2 / float(delta)))
    approx = max(a * exp(-k * b) for k, a in enumerate(prof))
    assert float(br.lo) - 1e-9 <= approx <= float(br.hi) + 1e-9
    assert br.lo >= prof[0]  # the k = 0 term is the local sensitivity
    assert br.hi <= 20


# ------------------------------------------------------------------ mean variances


def _fpc(ys, n):
    return (1 - F(n, len(ys))) * variance.population_variance(ys) / n


@pytest.mark.parametrize("pop", [(0, 1), (0, 0, 3), (1, 2, 3, 7), (0, 5, 5, 9, 9)])
def test_srswor_variance_exhaustive(pop):
    ys = [F(y) for y in pop]
    for n in range(1, len(ys) + 1):
        assert variance.srswor_mean_variance(ys, n) == _fpc(ys, n)


@given(st.lists(st.fractions(F(-5), F(5), max_denominator=7), min_size=2, max_size=7),
       st.data())
def test_srswor_variance_hypothesis(ys, data):
    n = data.draw(st.integers(1, len(ys)))
    assert variance.srswor_mean_variance(ys, n) == _fpc(ys, n)


def test_laplace_variance():
    b = sympy.Symbol("b", positive=True)
    assert sympy.simplify(variance.laplace_variance(b) - 2 * b**2) == 0


def test_mean_sensitivities():
    assert variance.mean_global_sensitivity(3, 4) == F(4, 3)
    for ys in combinations_with_replacement(range(4), 3):
        assert (variance.mean_local_sensitivity(ys, 3)
                == variance.mean_local_sensitivity_printed(ys, 3))


# ------------------------------------------------------------------ CDF vs event DP


def _events_sup(p, q, t):
    idx = range(len(p))
    events = chain.from_iterable(combinations(idx, k) for k in range(len(p) + 1))
    return max(sum((p[i] for i in e), F(0)) - t * sum((q[i] for i in e), F(0)) for e in events)


def _cdf_sup(p, q, t):
    return max(sum(p[:w + 1], F(0)) - t * sum(q[:w + 1], F(0)) for w in range(len(p)))


_dist = st.lists(st.integers(0, 6), min_size=4, max_size=4).filter(any).map(
    lambda ws: tuple(F(w, sum(ws)) for w in ws))


@given(_dist, _dist, st.fractions(F(1), F(4)))
def test_hockey_and_cdf_gap_match_oracles(p, q, t):
    assert cdfdp.hockey(p, q, t) == _events_sup(p, q, t)
    assert cdfdp.cdf_gap(p, q, t) == _cdf_sup(p, q, t)
    # CDF events are events: standard DP implies the CDF definition
    assert cdfdp.cdf_gap(p, q, t) <= cdfdp.hockey(p, q, t)


def test_cdf_counterexample_exact():
    p, q, t = (F(0), F(1, 2), F(1, 2)), (F(0), F(1), F(0)), F(2)
    assert cdfdp.is_cdf_dp(p, q, t, F(0))
    assert not cdfdp.is_dp(p, q, t, F(0))
    assert cdfdp.hockey(p, q, t) == F(1, 2)


def test_compare_counts():
    cmp = cdfdp.compare(3, 2, F(2), F(0))
    assert cmp.pairs == 36 and not cmp.dp_not_cdf and cmp.cdf_not_dp


# ------------------------------------------------------------------ gain and amplification


@pytest.mark.parametrize("eps,q0", [(3, F(3, 5)), (F(1, 10), F(3, 5)), (1, F(1, 2))])
def test_break_even_closed_form(eps, q0):
    e = sympy.Rational(eps)
    q0s = sympy.Rational(q0.numerator, q0.denominator)
    assert gain.verify_break_even(e, q0s)
    rate = bracket(gain.break_even_rate(e, q0s))
    # q decreases in the rate: just below the break-even rate q > q₀, just above q < q₀
    lo, hi = rate.lo * F(99, 100), min(rate.hi * F(101, 100), F(1))
    for r_, above in ((lo, True), (hi, False)):
        qv = bracket(gain.q_of_rate(e, sympy.Rational(r_.numerator, r_.denominator)))
        assert (qv.lo > q0) if above else (qv.hi < q0)


@given(st.fractions(F(11, 10), F(20)), st.integers(1, 50), st.data())
def test_inverse_inverts_forward(t, big_n, data):
    n = data.draw(st.integers(1, big_n))
    tn = amp.inverse_t(t, F(n, big_n))
    assert 1 + F(n, big_n) * (tn - 1) == t
    eps = sympy.log(sympy.Rational(t.numerator, t.denominator))
    assert bracket(sympy.exp(amp.at(amp.INVERSE_EPS, eps, n, big_n))).contains(tn)


def test_cells_judge():
    assert decimal("16.77") == (F(1677, 100), F(1, 100))
    assert decimal("1.66e-6") == (F(166, 10**8), F(1, 10**8))
    assert decimal("900") == (F(900), F(1))
    assert judge(F(1677, 100), F(1, 100), Bracket(F(16767, 1000), F(16768, 1000)))[0] \
        is Verdict.HOLDS
    assert judge(F(1677, 100), F(1, 100), Bracket(F(1678, 100), F(1679, 100)))[0] \
        is Verdict.REFUTED
    assert judge(F(5), F(1), Bracket(F(54, 10), F(56, 10)))[0] is Verdict.INCONCLUSIVE
