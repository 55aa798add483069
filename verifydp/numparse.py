"""One parser for the numbers people type: design files, command-line flags (issue 28).

`Fraction("1e999999999")` builds a billion-digit integer (minutes, then memory), `float`
takes "nan", "inf" and "1e400" (→ inf) without complaint, and each caller used to check a
different subset. `number` is the one entry: it takes a JSON/TOML number or a decimal or
rational string, refuses non-finite values and decimal exponents beyond ±`MAX_EXPONENT`
before any arithmetic, and checks the value against the key's stated domain, so an
out-of-domain value is one line naming the key and the allowed range — before any work.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["MAX_DIGITS", "MAX_EXPONENT", "Domain", "NumberError", "number"]

MAX_EXPONENT = 400  # |e| in "1.5e-7"; 1e±400 is already beyond a float
MAX_DIGITS = 400  # digits in one number (mantissa, numerator and denominator together)

_NUMBER = re.compile(r"\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*(?:/\s*(\d+)\s*)?")


class NumberError(ValueError):
    """A number that cannot be read, or one outside its key's domain (the message names both
    the key and the allowed range)."""


@dataclass(frozen=True)
class Domain:
    """Where a value may lie: [lo, hi] with either end open (`open_lo`, `open_hi`) or absent
    (None), and whether it must be a whole number. `text` overrides the printed range."""

    lo: Fraction | int | None = None
    hi: Fraction | int | None = None
    open_lo: bool = False
    open_hi: bool = False
    integer: bool = False

    def describe(self) -> str:
        lo = "-∞" if self.lo is None else _show(self.lo)
        hi = "∞" if self.hi is None else _show(self.hi)
        span = f"{'(' if self.open_lo or self.lo is None else '['}{lo}, {hi}" \
               f"{')' if self.open_hi or self.hi is None else ']'}"
        return f"{'a whole number in ' if self.integer else ''}{span}"

    def contains(self, x: Fraction) -> bool:
        if self.integer and x.denominator != 1:
            return False
        if self.lo is not None and (x < self.lo or (self.open_lo and x == self.lo)):
            return False
        return not (self.hi is not None and (x > self.hi or (self.open_hi and x == self.hi)))


ANY = Domain()


def _show(x: Fraction | int) -> str:
    x = Fraction(x)
    if x.denominator == 1:
        n = x.numerator
        return f"10^{len(str(abs(n))) - 1}" if abs(n) >= 10**6 and str(abs(n)).strip("0") == "1" \
            else str(n)
    return f"{float(x):g}"


def number(value: Any, key: str, domain: Domain = ANY) -> Fraction:
    """`value` (an int, a finite float, or a string "0.25", "1/4", "2.5e-3") as an exact
    rational in `domain`; `NumberError` naming `key` otherwise. A float is the rational it
    denotes (0.1 is 3602879701896397/36028797018963968)."""
    x = _parse(value, key)
    if not domain.contains(x):
        raise NumberError(f"{key} = {_echo(value)} is outside the allowed range "
                          f"{domain.describe()}")
    return x


def _echo(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 30 else text[:30] + "…"


def _parse(value: Any, key: str) -> Fraction:
    if isinstance(value, bool):
        raise NumberError(f"{key}: expected a number, not {str(value).lower()}")
    if isinstance(value, int):
        if abs(value).bit_length() > MAX_DIGITS * 4:
            raise NumberError(f"{key}: a number of more than {MAX_DIGITS} digits")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NumberError(f"{key} = {value!r} is not a finite number")
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if not isinstance(value, str):
        raise NumberError(f"{key}: expected a number, not {type(value).__name__}")
    m = _NUMBER.fullmatch(value)
    if not m or not (m.group(2) or m.group(3)):
        low = value.strip().lower().lstrip("+-")
        if low in ("nan", "inf", "infinity"):
            raise NumberError(f"{key} = {value.strip()!r} is not a finite number")
        raise NumberError(f"{key}: not a number: {_echo(value)!r}")
    digits = sum(len(g or "") for g in (m.group(2), m.group(3), m.group(5)))
    if digits > MAX_DIGITS:
        raise NumberError(f"{key}: a number of more than {MAX_DIGITS} digits")
    exp = m.group(4)
    if exp is not None and (len(exp.lstrip("+-")) > 6 or abs(int(exp)) > MAX_EXPONENT):
        raise NumberError(f"{key} = {_echo(value.strip())}: the exponent is beyond "
                          f"±{MAX_EXPONENT}")
    if m.group(5) is not None and int(m.group(5)) == 0:
        raise NumberError(f"{key}: division by zero in {_echo(value)!r}")
    try:
        return Fraction(value.replace(" ", ""))
    except (ValueError, ZeroDivisionError):
        raise NumberError(f"{key}: not a number: {_echo(value)!r}") from None
