"""bun/sec4.3:det-rounding: with |P| = 14, |P'| = 15 and r = 1/10, round-to-nearest allocates
1 and 2 cases, and the noisy sample size alone has likelihood ratio exactly t = e^ε at the
output 2, for every ε > 0 (a rational-function identity in t). So ε' ≥ ε: no amplification."""

from __future__ import annotations

from verifydp.claims.base import Budget, Verdict
from verifydp.claims.bun import amplification as bun


def prove() -> str:
    res = bun.check_sec43_det(Budget())
    assert res.verdict is Verdict.PROVED or all(
        s.verdict in (Verdict.PROVED, Verdict.HOLDS) for s in res.statements
    ), res.summary()
    proof = res.statements[1]
    assert proof.verdict is Verdict.PROVED
    return proof.instances[0].actual


def test_no_amplification_for_every_epsilon() -> None:
    assert "is t " in prove()
