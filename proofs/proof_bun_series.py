"""bun/thm4.3:approx and bun/thm3.1:approx: the printed approximations are the first-order
terms of the printed bounds (Bun et al., §3 and §4.3), proved with sympy series."""

from __future__ import annotations

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.bun import amplification as bun


def prove() -> list[str]:
    out = []
    for check in (bun.check_thm43_approx, bun.check_thm31_approx):
        res = check(Budget())
        assert res.verdict is Verdict.PROVED, res.summary()
        out.extend(s.note for s in res.statements)
    return out


def test_series_statements() -> None:
    notes = prove()
    assert any("6*r" in n for n in notes)
