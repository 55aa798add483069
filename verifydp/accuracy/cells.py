"""Judging a printed number against a rigorous bracket at the printed precision."""

from __future__ import annotations

from fractions import Fraction

from verifydp.claims.base import Verdict
from verifydp.exact.interval import Bracket


def judge(value: Fraction, quantum: Fraction, b: Bracket) -> tuple[Verdict, str]:
    """HOLDS when every number in `b` rounds to `value` at resolution `quantum` (i.e. lies
    strictly within value ± quantum/2); REFUTED when none does; INCONCLUSIVE otherwise."""
    lo, hi = value - quantum / 2, value + quantum / 2
    if lo < b.lo and b.hi < hi:
        return Verdict.HOLDS, "rounds to the printed digits"
    if b.hi < lo or b.lo > hi:
        return Verdict.REFUTED, "does not round to the printed digits"
    return Verdict.INCONCLUSIVE, "bracket straddles a rounding boundary"


def decimal(text: str) -> tuple[Fraction, Fraction]:
    """(value, quantum) of a printed decimal: "16.77" → (1677/100, 1/100); "2e-9" and
    "1.66e-6" in scientific notation; integers keep their last written digit."""
    mant, _, ex = text.partition("e")
    digits = len(mant.partition(".")[2])
    scale = Fraction(10) ** int(ex or 0)
    return Fraction(mant) * scale, Fraction(1, 10**digits) * scale
