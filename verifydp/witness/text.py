"""Witness files as untrusted input: bounded parsing of their numbers and formulas, and the
printed (human-readable) form of a formula (docs/foundations.md#witnesses, issue 17).

A witness file may come from anywhere, so nothing in it is `eval`-ed: formulas are stored as
sympy `srepr` text and rebuilt here from a whitelist of constructors, and every number is
parsed with limits on its size (a string such as "1e999999999" would otherwise make
`Fraction` build a billion-digit integer, and `Pow(10, 10**9)` would do the same in sympy).
"""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from typing import Any

import sympy

__all__ = [
    "LIMITS",
    "WitnessLimitError",
    "check_limits",
    "exact",
    "parse_srepr",
    "readable",
]

# the sizes a witness file may reach; every committed witness is far below them
LIMITS = {
    "file bytes": 2_000_000,
    "digits in a number": 400,
    "records in a dataset": 2_000,
    "nesting depth": 60,
    "formula characters": 20_000,
}


class WitnessLimitError(ValueError):
    """A witness that exceeds one of `LIMITS` (the message names the limit)."""


def _limit(name: str, what: str) -> WitnessLimitError:
    return WitnessLimitError(f"{what} exceeds the limit of {LIMITS[name]} {name}")


_NUMBER = re.compile(r"^\s*[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*(?:/\s*(\d+)\s*)?$")


def exact(text: Any) -> Fraction:
    """A rational from a witness field ("3/4", "0.25", 2), refusing huge or malformed ones."""
    if isinstance(text, bool):
        raise ValueError(f"expected a number, got {text!r}")
    if isinstance(text, int):
        if abs(text).bit_length() > LIMITS["digits in a number"] * 4:
            raise _limit("digits in a number", "an integer")
        return Fraction(text)
    if not isinstance(text, str):
        raise ValueError(f"expected a number as a string, got {type(text).__name__}")
    m = _NUMBER.match(text)
    if not m:
        raise ValueError(f"not a rational number: {text[:40]!r}")
    digits = sum(len(g or "") for g in m.groups())
    exp = int(m.group(3)) if m.group(3) else 0
    if digits > LIMITS["digits in a number"] or abs(exp) > LIMITS["digits in a number"]:
        raise _limit("digits in a number", f"the number {text[:40]!r}")
    return Fraction(text.replace(" ", ""))


def check_limits(obj: Any, depth: int = 0) -> None:
    """Refuse a parsed witness whose nesting or numbers exceed `LIMITS` before any of it is
    interpreted (string lengths are bounded by the file size)."""
    if depth > LIMITS["nesting depth"]:
        raise _limit("nesting depth", "the witness's nesting")
    if isinstance(obj, dict):
        for v in obj.values():
            check_limits(v, depth + 1)
    elif isinstance(obj, list):
        if len(obj) > 100 * LIMITS["records in a dataset"]:
            raise _limit("records in a dataset", "a list")
        for v in obj:
            check_limits(v, depth + 1)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        if abs(obj) > 10 ** 9:
            raise _limit("digits in a number", f"the integer {str(obj)[:20]}…")
    elif isinstance(obj, float) and obj != obj:  # NaN compares unequal to itself
        raise ValueError("NaN in a witness")


# ---------------------------------------------------------------- formulas

_CONSTRUCTORS: dict[str, Any] = {
    "Symbol": sympy.Symbol, "Dummy": sympy.Symbol, "Integer": sympy.Integer,
    "Rational": sympy.Rational, "Float": sympy.Float, "Add": sympy.Add, "Mul": sympy.Mul,
    "Pow": sympy.Pow, "exp": sympy.exp, "log": sympy.log, "Abs": sympy.Abs, "Max": sympy.Max,
    "Min": sympy.Min, "sqrt": sympy.sqrt, "floor": sympy.floor, "ceiling": sympy.ceiling,
    "binomial": sympy.binomial, "factorial": sympy.factorial, "Piecewise": sympy.Piecewise,
    "ExprCondPair": sympy.functions.elementary.piecewise.ExprCondPair,
    "StrictLessThan": sympy.StrictLessThan,
    "LessThan": sympy.LessThan, "StrictGreaterThan": sympy.StrictGreaterThan,
    "GreaterThan": sympy.GreaterThan, "Equality": sympy.Equality, "tanh": sympy.tanh,
    "cosh": sympy.cosh, "sinh": sympy.sinh, "erf": sympy.erf, "erfc": sympy.erfc,
    "Sum": sympy.Sum, "Tuple": sympy.Tuple, "Function": sympy.Function,
}
_ATOMS = {"E": sympy.E, "pi": sympy.pi, "oo": sympy.oo, "zoo": sympy.zoo, "nan": sympy.nan,
          "true": sympy.true, "false": sympy.false, "Half": sympy.S.Half, "One": sympy.S.One,
          "Zero": sympy.S.Zero, "NegativeOne": sympy.S.NegativeOne, "Exp1": sympy.E,
          "Pi": sympy.pi, "Infinity": sympy.oo, "BooleanTrue": sympy.true,
          "BooleanFalse": sympy.false}
_MAX_EXPONENT = 10_000


def parse_srepr(text: Any) -> sympy.Expr:
    """Rebuild a formula from its `sympy.srepr` text without `eval`: only the whitelisted
    constructors, literal arguments, and bounded integers and exponents."""
    if not isinstance(text, str):
        raise ValueError(f"a formula must be srepr text, got {type(text).__name__}")
    if len(text) > LIMITS["formula characters"]:
        raise _limit("formula characters", "a formula")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a formula: {text[:40]!r}") from exc
    return _build(tree.body, 0)


def _build(node: ast.AST, depth: int) -> Any:
    if depth > LIMITS["nesting depth"]:
        raise _limit("nesting depth", "a formula's nesting")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str, bool, float)):
        if isinstance(node.value, int) and abs(node.value) > 10 ** LIMITS["digits in a number"]:
            raise _limit("digits in a number", "an integer in a formula")
        if isinstance(node.value, str) and len(node.value) > 200:
            raise ValueError("a formula's name is too long")
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_build(node.operand, depth + 1)
    if isinstance(node, ast.Name) and node.id in _ATOMS:
        return _ATOMS[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in _ATOMS and not node.args and not node.keywords:
            return _ATOMS[name]
        if name not in _CONSTRUCTORS:
            raise ValueError(f"formula constructor {name!r} is not allowed")
        args = [_build(a, depth + 1) for a in node.args]
        kwargs = {k.arg: _build(k.value, depth + 1) for k in node.keywords if k.arg}
        if name == "Pow" and len(args) == 2 and _too_big(args[1]):
            raise _limit("digits in a number", "an exponent in a formula")
        if name == "Function":
            if len(args) != 1 or not isinstance(args[0], str):
                raise ValueError("Function takes a name")
            return sympy.Function(args[0])
        if name in ("Symbol", "Dummy") and (len(args) != 1 or not isinstance(args[0], str)):
            raise ValueError("Symbol takes a name")
        if any(not isinstance(v, bool) for v in kwargs.values()):
            raise ValueError("formula keyword arguments must be true or false")
        try:
            return _CONSTRUCTORS[name](*args, **kwargs)
        except (TypeError, ValueError, AttributeError, sympy.SympifyError) as exc:
            raise ValueError(f"malformed formula at {name}: {exc}") from exc
    raise ValueError(f"unexpected element in a formula: {type(node).__name__}")


def _too_big(e: Any) -> bool:
    return isinstance(e, (int, sympy.Integer)) and abs(int(e)) > _MAX_EXPONENT


_GREEK = {"epsilon": "ε", "delta": "δ", "sigma": "σ", "theta": "θ", "eta": "η", "rho": "ρ",
          "lambda": "λ", "gamma": "γ", "alpha": "α", "beta": "β", "mu": "μ", "tau": "τ",
          "psi": "ψ", "phi": "φ"}


def readable(expr: sympy.Expr) -> str:
    """A one-line formula for people: e^(…) for exp, ε for epsilon, · for products, |x|."""
    text = sympy.sstr(expr)
    text = re.sub(r"\bexp\(", "e^(", text)
    text = re.sub(r"\bAbs\(([^()]*)\)", r"|\1|", text)
    text = text.replace("**", "^").replace("*", "·").replace(" - ", " − ")
    for name, sym in _GREEK.items():
        text = re.sub(rf"\b{name}\b", sym, text)
    return text


# ---------------------------------------------------------------- search points

def encode_point(v: Any) -> Any:
    """A search point (hypothesis draw: ints, Fractions, dicts with int keys, tuples) as JSON
    that `decode_point` turns back into the same values, types included."""
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, Fraction):
        return {"fraction": str(v)}
    if isinstance(v, dict):
        return {"map": [[encode_point(k), encode_point(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return {"tuple" if isinstance(v, tuple) else "list": [encode_point(x) for x in v]}
    raise TypeError(f"cannot store a search point value of type {type(v).__name__}")


def decode_point(v: Any) -> Any:
    if isinstance(v, dict):
        if set(v) == {"fraction"}:
            return exact(v["fraction"])
        if set(v) == {"map"}:
            return {_hashable(decode_point(k)): decode_point(x) for k, x in v["map"]}
        if set(v) == {"tuple"}:
            return tuple(decode_point(x) for x in v["tuple"])
        if set(v) == {"list"}:
            return [decode_point(x) for x in v["list"]]
        raise ValueError("malformed search point")
    if isinstance(v, (list, float)):
        raise ValueError("malformed search point")
    return v


def _hashable(k: Any) -> Any:
    if isinstance(k, (list, dict)):
        raise ValueError("malformed search point: unhashable key")
    return k


def origin(found_at: dict[str, Any] | None) -> dict[str, Any]:
    """The `found_at` field of a witness found by a search (none for a checker's grid)."""
    return {} if found_at is None else {"found_at": encode_point(found_at)}
