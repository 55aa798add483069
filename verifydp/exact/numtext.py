"""How certified numbers are written, for people and in JSON (issue 27).

People read a narrow bracket as one decimal and its certified width, `18.193803 (certified
±5e-11)`, and a wide one as its two ends with as many digits as tell them apart, `[12.3898,
12.3984]`; never as a rational with a large denominator or `1.81938026132e1`. JSON keeps the
exact rationals where they are short and otherwise decimal strings rounded outward, all in
one format (`decimal_string`): Python's float notation, plain between 1e-4 and 1e15 and
`d.ddde-7` outside, without trailing zeros — not Decimal's mix of `0.00000958229000` and
`4.44224139E-7`.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

NARROW = 1e-6  # a bracket this narrow (relative) reads as one number and its width


def decimal_string(x: Fraction, up: bool, digits: int) -> str:
    """`x` to `digits` significant digits, rounded up (`up`) or down so the string is still a
    bound, in the one JSON format (module docstring)."""
    ctx = Context(prec=digits, rounding=ROUND_CEILING if up else ROUND_FLOOR)
    return _plain(ctx.divide(Decimal(x.numerator), Decimal(x.denominator)))


def _plain(d: Decimal) -> str:
    if d == 0:
        return "0"
    d = d.normalize(Context(prec=60))
    if -4 <= d.adjusted() < 15:
        return format(d, "f")
    return format(d, "e").replace("e+", "e")


def number_text(x: float, digits: int = 6) -> str:
    """One float for people: `digits` significant digits, no exponent between 1e-4 and 1e6."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else ("∞" if x > 0 else "-∞")
    if 1e-4 <= abs(x) < 1e6:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
        text = f"{x:.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa, _, exp = f"{x:.{digits - 1}e}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exp)}"


def bracket_text(lo: Fraction | float | None, hi: Fraction | float | None,
                 digits: int = 6) -> str:
    """A certified bracket for people: `18.193803 (certified ±5e-11)` when it is narrow
    (relative width ≤ `NARROW`), `12.3898` when exact, else `[12.3898, 12.3984]` with enough
    digits to tell the ends apart (at least `digits`). None ends are 0 below and ∞ above."""
    if lo is None and hi is None:
        return "∞"
    a = 0.0 if lo is None else float(lo)
    b = math.inf if hi is None else float(hi)
    if lo is not None and hi is not None and lo == hi:
        return number_text(a, 8)
    scale = max(abs(a), abs(b))
    width = float(hi - lo) if lo is not None and hi is not None else b - a  # exact when it can
    if math.isfinite(b) and scale > 0 and width <= NARROW * scale:
        mid = (a + b) / 2
        half = _up_one_digit(width / 2) if width > 0 else 0.0
        return f"{number_text(mid, 8)} (certified ±{number_text(half, 1)})"
    need = digits
    if math.isfinite(b) and scale > 0 and width > 0:
        need = min(12, max(digits, 2 + math.ceil(-math.log10(width / scale))))
    return f"[{_outward(lo, False, need)}, {_outward(hi, True, need)}]"


def _outward(x: Fraction | float | None, up: bool, digits: int) -> str:
    """An end of a bracket for people, rounded outward (the printed bracket still holds)."""
    if x is None:
        return "∞" if up else "0"
    f = float(x)
    if f == 0 or not math.isfinite(f):
        return number_text(f)
    text = decimal_string(Fraction(x), up, digits)
    if "e" in text or not 1e-4 <= abs(f) < 1e6:
        return number_text(float(text), digits)
    return text


def _up_one_digit(x: float) -> float:
    """`x` rounded up to one significant digit (a half-width stated never smaller)."""
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10**e - 1e-12)
    return m * 10.0**e
