"""Judging a printed number against a rigorous bracket at the printed precision.

A printed decimal stands for every real number that rounds to it: "0.123" for
[0.1225, 0.1235], "1.66e-6" for [1.655e-6, 1.665e-6]. A cell HOLDS when the certified
bracket lies strictly inside that interval, is REFUTED when the two are disjoint, and is
INCONCLUSIVE when the bracket straddles a rounding boundary (docs/foundations.md).
"""

from __future__ import annotations

from fractions import Fraction

from verifydp.claims.base import Verdict
from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import decimal_string

__all__ = ["decimal", "judge", "judge_cell", "printed_interval", "sci"]


def decimal(text: str) -> tuple[Fraction, Fraction]:
    """(value, quantum) of a printed decimal: "16.77" → (1677/100, 1/100); "2e-9" and
    "1.66e-6" in scientific notation; integers keep their last written digit."""
    mant, _, ex = text.partition("e")
    digits = len(mant.partition(".")[2])
    scale = Fraction(10) ** int(ex or 0)
    return Fraction(mant) * scale, Fraction(1, 10**digits) * scale


def printed_interval(s: str) -> tuple[Fraction, Fraction, Fraction] | None:
    """(value, lo, hi): the values that round to the printed string; None for exact "0"."""
    if s == "0":
        return None
    value, quantum = decimal(s)
    return value, value - quantum / 2, value + quantum / 2


def judge(value: Fraction, quantum: Fraction, b: Bracket) -> tuple[Verdict, str]:
    """HOLDS when every number in `b` rounds to `value` at resolution `quantum` (i.e. lies
    strictly within value ± quantum/2); REFUTED when none does; INCONCLUSIVE otherwise."""
    lo, hi = value - quantum / 2, value + quantum / 2
    if lo < b.lo and b.hi < hi:
        return Verdict.HOLDS, "rounds to the printed digits"
    if b.hi < lo or b.lo > hi:
        return Verdict.REFUTED, "does not round to the printed digits"
    return Verdict.INCONCLUSIVE, "bracket straddles a rounding boundary"


def judge_cell(printed: str, b: Bracket) -> tuple[Verdict, str]:
    """`judge` for a printed string; a printed "0" must be exactly 0."""
    if printed == "0":
        if b.lo == b.hi == 0:
            return Verdict.HOLDS, "exactly 0"
        if b.lo > 0:
            return Verdict.REFUTED, "printed 0 but the value is positive"
        return Verdict.INCONCLUSIVE, "bracket contains 0 but is not exactly 0"
    return judge(*decimal(printed), b)


def sci(b: Bracket) -> str:
    """A certified bracket with 7 significant digits at each end, rounded outward (so it is
    still a bracket), in the one number format (`verifydp.exact.numtext.decimal_string`)."""
    if b.is_point and b.lo == 0:
        return "0"
    return f"[{decimal_string(b.lo, False, 7)}, {decimal_string(b.hi, True, 7)}]"
