"""verifydp.regress (issue 8): correct implementations pass; planted bugs are found quickly,
minimised, and classified as disagreeing with the paper and/or unsound."""

from __future__ import annotations

import math
import time
from math import comb

import pytest
from hypothesis import strategies as st

from verifydp.regress import ADAPTERS, Tolerance, regress, supported_claims
from verifydp.regress.core import exact_outputs

# the regress modules share one worker: their claims' certified truths are computed once per
# process (issue 29: 20.8 → 17.8 s measured apart vs together)
pytestmark = pytest.mark.xdist_group("regress")

FAST = {"max_examples": 60, "sound_examples": 25}


# ---------------------------------------------------------------- reference implementations


def thm22(eps: float, m: int, n: int) -> float:
    return math.log1p(m / n * math.expm1(eps))


def thm43(eps: float, r: float) -> float:
    g = math.expm1(2 * eps)
    return math.log1p(2 * r * g) + math.log1p(r * g)


def poisson(eps: float, deltas: tuple[float, ...], gamma: float) -> tuple[float, float]:
    return math.log1p(gamma * math.expm1(eps)), gamma * deltas[0]


def wor(eps: float, deltas: tuple[float, ...], n: int, m: int) -> tuple[float, float]:
    return math.log1p(m / n * math.expm1(eps)), m / n * deltas[0]


def _binom(m: int, p: float, j: int) -> float:
    return comb(m, j) * p**j * (1 - p) ** (m - j)


def wr(eps: float, deltas: tuple[float, ...], n: int, m: int) -> tuple[float, float]:
    eta = 1 - (1 - 1 / n) ** m
    return (math.log1p(eta * math.expm1(eps)),
            sum(_binom(m, 1 / n, j) * deltas[j - 1] for j in range(1, m + 1)))


def ow(eps: float, deltas: tuple[float, ...], n: int, b: int, m: int) -> tuple[float, float]:
    eta = b / n * (1 - (1 - 1 / b) ** m)
    return (math.log1p(eta * math.expm1(eps)),
            sum(b / n * _binom(m, 1 / b, j) * deltas[j - 1] for j in range(1, m + 1)))


def ww(eps: float, deltas: tuple[float, ...], n: int, b: int, m: int) -> tuple[float, float]:
    pj = [_binom(b, 1 / n, j) for j in range(b + 1)]
    eta = sum(pj[j] * (1 - (1 - j / b) ** m) for j in range(1, b + 1))
    d = sum(pj[j] * sum(_binom(m, j / b, u) * deltas[u - 1] for u in range(1, m + 1))
            for j in range(1, b + 1))
    return math.log1p(eta * math.expm1(eps)), d


def wo(eps: float, deltas: tuple[float, ...], n: int, b: int, m: int) -> tuple[float, float]:
    pj = [_binom(b, 1 / n, j) for j in range(b + 1)]
    eta = sum(pj[j] * (1 - comb(b - j, m) / comb(b, m)) for j in range(1, b + 1))
    d = sum(pj[j] * sum(comb(j, u) * comb(b - j, m - u) / comb(b, m) * deltas[u - 1]
                        for u in range(1, min(j, m) + 1)) for j in range(1, b + 1))
    return math.log1p(eta * math.expm1(eps)), d


def bernoulli(eps: float, b: float) -> float:
    return math.log1p(b * math.expm1(eps))


CORRECT = {"bun/thm2.2": thm22, "bun/thm4.3": thm43, "bun/thm7.2": thm43,
           "ebadi/bernoulli": bernoulli, "must/table2:poisson": poisson,
           "must/table2:wor": wor, "must/table2:wr": wr, "must/thm5:ow": ow,
           "must/thm5:ww": ww, "must/thm5:ww:corrected": ww, "must/thm5:wo": wo}


def test_every_adapter_has_a_reference_implementation() -> None:
    assert set(CORRECT) == set(ADAPTERS) == set(supported_claims())


@pytest.mark.parametrize("claim", sorted(CORRECT))
def test_correct_implementations_agree_and_are_sound(claim: str) -> None:
    report = regress(CORRECT[claim], claim, **FAST)
    assert report.ok, report.summary()
    assert report.agrees and report.sound is True
    assert report.examples >= 30 and report.sound_examples >= 10


# ---------------------------------------------------------------- planted bugs (issue 8)


def exp_eps_half(eps: float, m: int, n: int) -> float:  # e^{ε/2} in place of e^ε
    return math.log1p(m / n * math.expm1(eps / 2))


def m1_n1(eps: float, m: int, n: int) -> float:  # (m+1)/(n+1) in place of m/n
    return math.log1p((m + 1) / (n + 1) * math.expm1(eps))


def two_eps(eps: float, m: int, n: int) -> float:  # e^{2ε} in place of e^ε: looser, sound
    return math.log1p(m / n * math.expm1(2 * eps))


def thm43_one_eps(eps: float, r: float) -> float:  # e^ε in place of the printed e^{2ε}
    g = math.expm1(eps)
    return math.log1p(2 * r * g) + math.log1p(r * g)


def wr_first_delta(eps: float, deltas: tuple[float, ...], n: int, m: int) -> tuple[float, float]:
    e, _ = wr(eps, deltas, n, m)  # δ_1 in place of δ_j
    return e, sum(_binom(m, 1 / n, j) * deltas[0] for j in range(1, m + 1))


def wor_m_over_n1(eps: float, deltas: tuple[float, ...], n: int, m: int) -> tuple[float, float]:
    return math.log1p(m / (n + 1) * math.expm1(eps)), m / (n + 1) * deltas[0]


@pytest.mark.parametrize("claim, fn, agrees, sound, witness", [
    ("bun/thm2.2", exp_eps_half, False, False, {"eps": 1.0, "m": 1, "n": 1}),
    ("bun/thm2.2", m1_n1, False, True, {"eps": 1.0, "m": 0, "n": 1}),
    ("bun/thm2.2", two_eps, False, True, {"eps": 1.0, "m": 1, "n": 1}),
    ("bun/thm4.3", thm43_one_eps, False, False, {"eps": 1.0, "r": 0.5}),
    ("must/table2:wr", wr_first_delta, False, False,
     {"eps": 1.0, "deltas": (0.0, 1.0), "n": 1, "m": 2}),
    ("must/table2:wor", wor_m_over_n1, False, False,
     {"eps": 1.0, "deltas": (0.0,), "n": 1, "m": 1}),
])
def test_planted_bugs_are_found_fast_and_minimised(claim, fn, agrees, sound, witness) -> None:  # type: ignore[no-untyped-def]
    """Each planted bug is found in < 10 s and shrunk to the smallest input showing it."""
    start = time.monotonic()
    report = regress(fn, claim)
    assert time.monotonic() - start < 10
    assert report.agrees is agrees and report.sound is sound
    assert not report.ok
    d = report.disagreement
    assert d is not None and d.kind == "paper"
    assert d.params == witness
    if sound is False:
        assert report.unsound is not None and report.unsound.kind == "unsound"
        assert report.unsound.params.get("n", 1) <= 8  # a small instance, where the LP runs
    assert "differs from the printed formula" in report.summary()


def test_minimal_witness_carries_both_values() -> None:
    report = regress(exp_eps_half, "bun/thm2.2")
    d = report.disagreement
    assert d is not None
    assert d.user == repr(0.5) and d.expected == "ε' ∈ 1"  # log(1 + (e − 1)) = 1 exactly
    assert report.unsound is not None and "0.99999" in report.unsound.expected


# ---------------------------------------------------------------- details


def test_exceptions_and_non_numbers_are_findings() -> None:
    def crashes_at_m0(eps: float, m: int, n: int) -> float:
        return math.log(m / n * math.expm1(eps))  # log(0) for m = 0

    report = regress(crashes_at_m0, "bun/thm2.2", **FAST)
    assert report.disagreement is not None and report.disagreement.kind == "error"
    assert report.disagreement.params["m"] == 0
    with pytest.raises(TypeError):
        exact_outputs(float("nan"), ("ε'",))
    with pytest.raises(TypeError):
        exact_outputs((1.0,), ("ε'", "δ'"))


def test_naive_float_formula_within_tolerance_but_not_exactly() -> None:
    def naive(eps: float, m: int, n: int) -> float:  # exp − 1 and log(1 + x) lose digits
        return math.log(1 + m / n * (math.exp(eps) - 1))

    assert regress(naive, "bun/thm2.2", **FAST).agrees
    strict = regress(naive, "bun/thm2.2", rtol=0, atol=0, **FAST)
    assert not strict.agrees  # the exact comparison sees the rounding


def test_params_restrict_the_domain() -> None:
    def wrong_for_large_n(eps: float, m: int, n: int) -> float:
        return thm22(eps, m, n) if n < 100 else 0.0

    assert not regress(wrong_for_large_n, "bun/thm2.2", **FAST).agrees
    small = regress(wrong_for_large_n, "bun/thm2.2", params={"n": st.integers(1, 50)}, **FAST)
    assert small.agrees and small.sound
    fixed = regress(thm22, "bun/thm2.2", params={"n": 4, "m": 2}, **FAST)
    assert fixed.ok


def test_tolerance_is_certified_on_both_sides() -> None:
    from fractions import Fraction

    from verifydp.exact.interval import Bracket

    tol = Tolerance(rtol=0, atol=0)
    assert not tol.outside(Fraction(1), Bracket(Fraction(1), Fraction(2)))
    assert tol.outside(Fraction(3), Bracket(Fraction(1), Fraction(2)))
    assert Tolerance(rtol=1).slack(Bracket.point(Fraction(-2))) == 2 + Fraction(1e-12)


def test_unknown_claim_is_refused() -> None:
    with pytest.raises(KeyError, match="no regress adapter"):
        regress(thm22, "bun/no-such-claim")
