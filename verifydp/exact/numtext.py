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
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from typing import Any

NARROW = 1e-6  # a bracket this narrow (relative) reads as one number and its width


def decimal_string(x: Fraction, up: bool, digits: int) -> str:
    """`x` to `digits` significant digits, rounded up (`up`) or down so the string is still a
    bound, in the one JSON format (module docstring)."""
    ctx = Context(prec=digits, rounding=ROUND_CEILING if up else ROUND_FLOOR)
    # int(): a Fraction built from gmpy2 integers holds mpz, which Decimal refuses
    return _plain(ctx.divide(Decimal(int(x.numerator)), Decimal(int(x.denominator))))


_DECIMAL = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
# the one format: an integer, or a decimal without trailing zeros, or d.ddde-7 (no "+", no 0s)
ONE_FORMAT = re.compile(r"^-?(0|[1-9]\d*)(\.\d*[1-9])?(e-?[1-9]\d*)?$")


def json_number(text: str) -> str:
    """A number some code wrote as a decimal string (`0.672640`, `7.26582e-08`, `4.4E-7`) in
    the one JSON format (module docstring), with the same value: no digit is lost or added
    beyond trailing zeros. Anything else (a rational `3/4`, prose) is returned unchanged."""
    if not _DECIMAL.match(text.strip()):
        return text
    d = Decimal(text.strip())
    return _plain(d) if d.is_finite() else text


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


def fraction_text(x: Fraction | int, digits: int = 6) -> str:
    """An exact rational for people as a decimal: exactly when its expansion ends within 8
    significant digits (`1/8` → `0.125`, `1/1000` → `0.001`), else `digits` significant
    digits (`37/27` → `1.37037`). The exact value stays in JSON."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:  # a terminating expansion: written out exactly when it is short
        text = decimal_string(x, False, 8)
        if Fraction(text) == x and "e" not in text:
            return text
    return number_text(float(x), digits)


# "12/12 cells", "0/72 printed grid points", "fails at 41/54": counts, written "12 of 12"
_COUNT_AFTER = re.compile(r"\s+[a-z]")
_COUNT_BEFORE = re.compile(r"(?:holds|fails|held|failed) at $")
_RATIO = re.compile(r"(?<![\w.^/])(-?)(\d+)/(\d+)(?![\w^/(]|\.\w)")
_T_EPS = re.compile(r"\bepsilon = ([tε])=")  # a parameter list's ε given by t = e^ε
_FRACTION_REPR = re.compile(r"Fraction\((-?\d+), (\d+)\)")
# Decimal's and printf's scientific notation (1.288197e-1, 7.26582e-08, 4.4E-7)
_SCI = re.compile(r"(?<![\w./])(-?\d+(?:\.\d+)?)[eE]([-+]?\d+)(?![\w./])")


def readable(text: str) -> str:
    """`text` (a finding, a parameter list, a replay line) with its numbers written for
    people (issue 27): an exact rational `8/1875` as a decimal (`fraction_text`), a count
    `12/12 cells` as `12 of 12 cells`, `Fraction(5, 4)` as `1.25`, a dict's repr
    `{'n': 2, 'b': 1}` as `(n = 2, b = 1)`, and scientific notation in the plain range
    (1e-4 to 1e6) written plainly with the same digits (`1.288197e-1` → `0.1288197`).
    Formulas keep their symbols (`delta_1/4`, `(ub+1)/(|D|+1)`, `2e5/3e5` are left)."""
    text = _T_EPS.sub(lambda m: "e^ε = " if m.group(1) == "t" else "ε = ", _dicts(text))
    text = _FRACTION_REPR.sub(
        lambda m: fraction_text(Fraction(int(m.group(1)), int(m.group(2)))), text)
    text = _RATIO.sub(_ratio, text)
    return _SCI.sub(_sci, text)


def _ratio(m: re.Match[str]) -> str:
    sign, p, q = m.group(1), int(m.group(2)), int(m.group(3))
    before = m.string[max(0, m.start() - 12):m.start()]
    valued = before.rstrip()[-1:] in tuple("=≤≥<>∈{[(,±")  # `ε=1/20 delta'` is a value
    if q == 0:
        return m.group(0)
    if not valued and not sign and p <= q and (_COUNT_AFTER.match(m.string, m.end())
                                               or _COUNT_BEFORE.search(before)):
        return f"{p} of {q}"
    return fraction_text(Fraction(-p if sign else p, q))


def _sci(m: re.Match[str]) -> str:
    mantissa, exp = m.group(1), int(m.group(2))
    d = Decimal(mantissa).scaleb(exp)
    if d != 0 and -4 <= d.adjusted() < 6:
        return format(d.normalize(Context(prec=60)), "f")
    return f"{mantissa}e{exp}"  # 7.26582e-08 → 7.26582e-8, 4.4E-7 → 4.4e-7


def _dicts(text: str) -> str:
    """Each `{'k': v, ...}` (or JSON `{"k": v}`) in `text` as `(k = v, ...)`; a dict inside a
    value as `{k: v, ...}`; text that does not parse as a dict is left as it is."""
    out, i = [], 0
    while True:
        j = _dict_start(text, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        end = _matching(text, j)
        value = _literal(text[j:end + 1]) if end > 0 else None
        if isinstance(value, dict):
            out.append(text[i:j] + _value(value, top=True))
            i = end + 1
        else:
            out.append(text[i:j + 1])
            i = j + 1


def _dict_start(text: str, i: int) -> int:
    return text.find("{", i)


def _matching(text: str, j: int) -> int:
    depth, quote = 0, ""
    for k in range(j, len(text)):
        ch = text[k]
        if quote:
            if ch == "\\":
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth == 0:
                return k if ch == "}" else -1
    return -1


def _literal(src: str) -> Any:
    import ast
    src = _FRACTION_REPR.sub(lambda m: f"'{m.group(1)}/{m.group(2)}'", src)
    try:
        return ast.literal_eval(src)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        try:
            import json
            return json.loads(src)
        except ValueError:
            return None


def _pairs(d: dict[Any, Any], sep: str) -> str:
    return ", ".join(f"{_value(k)}{sep}{_value(v)}" for k, v in d.items())


def _value(v: Any, top: bool = False) -> str:
    """A value parsed from a repr, for people; a dict of parameter names at the top level
    as `(n = 2, b = 1)`, any other dict as `{k: v}`."""
    if isinstance(v, dict) and top and all(
            isinstance(k, str) and (k[:1].isalpha() or k[:1] == "|") for k in v):
        return "(" + _pairs(v, " = ") + ")"
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Fraction):
        return fraction_text(v)
    if isinstance(v, float):
        return number_text(v)
    if isinstance(v, dict):
        return "{" + _pairs(v, ": ") + "}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_value(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    return readable(str(v))
