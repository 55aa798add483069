"""Small-ε statements about ε' = log(1 + a(e^ε − 1)), proved with sympy (series and identities).

Proved, symbolically in the rate a (no numbers substituted):

* bun/thm2.2 (§2.3 text): "for small ε, ε' ≈ (m/n)ε": log(1 + (m/n)(e^ε − 1)) = (m/n)ε + O(ε²).
* hu/approx (abstract): with sampling rate r "the actual privacy guarantee is approximately
  rε": log(1 + r(e^ε − 1)) = rε + O(ε²); and the inverse of §2, ε_n = log(1 + (N/n)(e^ε − 1)),
  is (N/n)ε + O(ε²).
* must/fig5 (§4.1 text: "η (to which ε'/ε is an approximation)"), for ε' = log(1 + η(e^ε − 1))
  of MUST Theorem 5 / Table 2:
  - ε'/ε → η as ε → 0, with ε' = ηε + η(1 − η)ε²/2 + O(ε³) (sympy series);
  - globally, ηε ≤ ε' ≤ ε for every ε ≥ 0 and η ∈ [0, 1], so η is a lower bound of ε'/ε:
    g(ε) = ε' − ηε has g(0) = 0 and the sympy identity
    g'(ε) = η(1 − η)(e^ε − 1) / (1 + η(e^ε − 1)), a product of factors ≥ 0; and
    h(ε) = ε − ε' has h(0) = 0, h'(ε) = (1 − η) / (1 + η(e^ε − 1)) ≥ 0 (identity checked).
* must/remark2, in its log form (the printed "ε' = 1 + η(e^ε − 1) < ε" lacks the log):
  h' > 0 when η < 1, so ε' < ε for every ε > 0 exactly when η < 1; at η = 1, ε' = ε
  (sympy), which is the degenerate case `verifydp check must/remark2` reports.
"""

from __future__ import annotations

import pytest
import sympy

from verifydp.claims.series import first_order_coefficient
from verifydp.exact.tfunc import EPS

A = sympy.Symbol("a", positive=True)  # a generic rate in (0, 1]: m/n, r, η
N_BIG, N_SMALL = sympy.symbols("N n", positive=True)


def amplified(rate: sympy.Expr) -> sympy.Expr:
    return sympy.log(1 + rate * (sympy.exp(EPS) - 1))


STATEMENTS = {  # claim and printed approximation → (exact expression, printed approximation)
    "bun/thm2.2: ε' ≈ (m/n)ε": (amplified(A), A * EPS),
    "hu/approx: ε' ≈ rε": (amplified(A), A * EPS),
    "hu/amplification: ε_n = log(1 + (N/n)(e^ε − 1)) ≈ (N/n)ε": (
        amplified(N_BIG / N_SMALL), N_BIG / N_SMALL * EPS),
    "must/fig5: ε' ≈ ηε (ε'/ε ≈ η)": (amplified(A), A * EPS),
}


def first_order_agrees(expr: sympy.Expr, approx: sympy.Expr) -> bool:
    c0, c1 = first_order_coefficient(expr)
    a0, a1 = first_order_coefficient(approx)
    return sympy.simplify(c0 - a0) == 0 and sympy.simplify(c1 - a1) == 0


def must_sandwich() -> list[str]:
    eta = A
    ep = amplified(eta)
    ser = sympy.series(ep, EPS, 0, 3).removeO()
    assert sympy.simplify(ser - (eta * EPS + eta * (1 - eta) * EPS**2 / 2)) == 0
    assert sympy.simplify(sympy.limit(ep / EPS, EPS, 0) - eta) == 0
    g, h = ep - eta * EPS, EPS - ep
    assert g.subs(EPS, 0) == 0 and h.subs(EPS, 0) == 0
    e = sympy.exp(EPS)
    assert sympy.simplify(sympy.diff(g, EPS) - eta * (1 - eta) * (e - 1) / (1 + eta * (e - 1))) == 0
    assert sympy.simplify(sympy.diff(h, EPS) - (1 - eta) / (1 + eta * (e - 1))) == 0
    assert sympy.simplify(amplified(sympy.Integer(1)) - EPS) == 0  # η = 1: no amplification
    return ["must: ε' = ηε + η(1−η)ε²/2 + O(ε³), ε'/ε → η",
            "must: ηε ≤ ε' ≤ ε for all ε ≥ 0, η ∈ [0, 1] (derivative identities); "
            "ε' < ε for all ε > 0 iff η < 1"]


def prove() -> list[str]:
    out = []
    for text, (expr, approx) in STATEMENTS.items():
        assert first_order_agrees(expr, approx), text
        out.append(f"{text}: first-order terms agree (sympy series)")
    return out + must_sandwich()


def test_series_statements() -> None:
    assert len(prove()) == len(STATEMENTS) + 2


@pytest.mark.parametrize("wrong", [2 * A * EPS, A**2 * EPS, A * EPS + 1])
def test_wrong_approximations_are_not_proved(wrong: sympy.Expr) -> None:
    assert not first_order_agrees(amplified(A), wrong)
