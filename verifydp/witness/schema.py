"""The shape of each witness kind, checked before any of it is computed with (issue 28).

A witness file is untrusted input: a count of 1.5 silently became 1, counts given as strings
were compared as strings, σ = 0 reached a division. So every kind declares the types, ranges
and lengths of its fields here, and `validate` refuses a file that does not fit with one
message naming the field (the command line turns it into one line, exit 2). A spec is

* a dict: an object whose listed keys are checked (a key ending in "?" is optional; the set
  of keys a kind may have is checked by the casebook);
* a one-element list: a list of items of that spec (at most `MAX_ITEMS`);
* a function (value, where) → None that raises `SchemaError`: see the constructors below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from verifydp.witness.text import LIMITS, exact

__all__ = ["MAX_ITEMS", "SchemaError", "anything", "integer", "nullable", "one_of",
           "rational", "text", "validate"]

MAX_ITEMS = 100 * LIMITS["records in a dataset"]
MAX_TEXT = 20_000  # a label or a description (formulas have their own limit)
MAX_ID = 200  # a claim id, a record's value, a field name


class SchemaError(ValueError):
    """A witness field of the wrong type, outside its range, or of the wrong length."""


Check = Callable[[Any, str], None]


def validate(value: Any, spec: Any, where: str = "witness") -> None:
    """Check `value` against `spec` (module docstring); raise `SchemaError` on the first
    field that does not fit."""
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise SchemaError(f"{where} must be an object, not {_kind(value)}")
        for key, sub in spec.items():
            name = key.rstrip("?")
            if name not in value:
                if key.endswith("?"):
                    continue
                raise SchemaError(f"{where} has no field {name!r}")
            validate(value[name], sub, f"{where}.{name}")
    elif isinstance(spec, list):
        if not isinstance(value, list):
            raise SchemaError(f"{where} must be a list, not {_kind(value)}")
        if len(value) > MAX_ITEMS:
            raise SchemaError(f"{where} has more than {MAX_ITEMS} items")
        for i, item in enumerate(value):
            validate(item, spec[0], f"{where}[{i}]")
    else:
        spec(value, where)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            int: "an integer", float: "a decimal number", type(None): "null"}.get(
        type(value), type(value).__name__)


def text(max_len: int = MAX_TEXT, equal: str | None = None) -> Check:
    """A string (of at most `max_len` characters; exactly `equal` when given: a fixed label
    that replay does not compute from, so an edited one is refused rather than shown)."""
    def check(value: Any, where: str) -> None:
        if not isinstance(value, str):
            raise SchemaError(f"{where} must be a string, not {_kind(value)}")
        if len(value) > max_len:
            raise SchemaError(f"{where} is longer than {max_len} characters")
        if equal is not None and value != equal:
            raise SchemaError(f"{where} is not the label verifydp writes ({equal[:60]!r})")
    return check


def one_of(*values: Any) -> Check:
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or value not in values:
            raise SchemaError(f"{where} must be one of {', '.join(map(repr, values))}")
    return check


def integer(lo: int | None = None, hi: int | None = None) -> Check:
    """A JSON integer (not 1.5, not "3", not true) in [lo, hi]."""
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(f"{where} must be an integer, not {_kind(value)}")
        _in_range(value, lo, hi, where)
    return check


def rational(lo: Any = None, hi: Any = None, open_lo: bool = False,
             ints: bool = True) -> Check:
    """An exact rational as a string ("3/4", "0.25") or an integer (unless `ints` is False),
    bounded in size (`exact`), in [lo, hi] (or (lo, hi] with `open_lo`)."""
    def check(value: Any, where: str) -> None:
        if isinstance(value, int) and not isinstance(value, bool) and not ints:
            raise SchemaError(f"{where} must be a number written as a string")
        try:
            x = exact(value)
        except ValueError as exc:
            raise SchemaError(f"{where}: {exc}") from None
        if open_lo and lo is not None and x <= lo:
            raise SchemaError(f"{where} = {value} must be greater than {lo}")
        _in_range(x, None if open_lo else lo, hi, where)
    return check


def _in_range(x: Any, lo: Any, hi: Any, where: str) -> None:
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        span = f"[{'-∞' if lo is None else lo}, {'∞' if hi is None else hi}]"
        raise SchemaError(f"{where} = {x} is outside {span}")


def nullable(spec: Any) -> Check:
    def check(value: Any, where: str) -> None:
        if value is not None:
            validate(value, spec, where)
    return check


def anything(value: Any, where: str) -> None:
    """Any JSON value (its size is bounded by `text.check_limits`)."""


def mapping(keys: Check, values: Any) -> Check:
    """An object with arbitrary keys (each checked by `keys`) and values of one spec."""
    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise SchemaError(f"{where} must be an object, not {_kind(value)}")
        for k, v in value.items():
            keys(k, f"{where} key")
            validate(v, values, f"{where}.{k}")
    return check


def lengths_equal(rows: Iterable[Any], n: int, where: str) -> None:
    """Every row has `n` entries (count vectors against their universe)."""
    for i, row in enumerate(rows):
        if len(row) != n:
            raise SchemaError(f"{where}[{i}] has {len(row)} entries, the universe {n}")


# ---------------------------------------------------------------- shared pieces

MAX_SIZE = LIMITS["records in a dataset"]  # a count, a sample size, n


def _design_value(value: Any, where: str) -> None:
    """A design parameter: a bounded integer, a rational string, a short name, or an object
    of them (a size law); the design's own constructor checks the rest."""
    if isinstance(value, dict):
        if len(value) > MAX_SIZE:
            raise SchemaError(f"{where} has more than {MAX_SIZE} entries")
        for k, v in value.items():
            text(MAX_ID)(k, f"{where} key")
            _design_value(v, f"{where}.{k}")
    elif isinstance(value, list):
        if len(value) > MAX_SIZE:
            raise SchemaError(f"{where} has more than {MAX_SIZE} entries")
        for i, v in enumerate(value):
            _design_value(v, f"{where}[{i}]")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        integer(0, MAX_SIZE)(value, where)
    elif isinstance(value, str):
        text(MAX_ID)(value, where)
        if value[:1].isdigit() or value[:1] in "+-.":
            rational()(value, where)
    else:
        raise SchemaError(f"{where} must be an integer, a string or an object, not "
                          f"{_kind(value)}")


def design(value: Any, where: str) -> None:
    """A design as `Design.to_json` writes it: a kind and bounded parameters."""
    validate(value, {"kind": text(MAX_ID)}, where)
    for k, v in value.items():
        if k != "kind":
            _design_value(v, f"{where}.{k}")


RECORD = {"value": text(MAX_ID), "stratum?": text(MAX_ID), "cluster?": text(MAX_ID)}
COUNTED = {**RECORD, "count": integer(1, MAX_SIZE)}
RELATION = one_of("add-remove", "replace")
POPULATIONS = {"P": [COUNTED], "P_prime": [COUNTED], "relation": RELATION}


def epsilon(value: Any, where: str) -> None:
    """ε as {"t": e^ε} (t ≥ 1) or {"eps": ε} (ε ≥ 0), bounded (e^ε ≤ 10^6 or ε ≤ 50)."""
    if not isinstance(value, dict) or len(value) != 1 or not ({"t", "eps"} & set(value)):
        raise SchemaError(f"{where} must be {{\"t\": …}} or {{\"eps\": …}}")
    if "t" in value:
        rational(1, 10**6)(value["t"], f"{where}.t")
    else:
        rational(0, 50)(value["eps"], f"{where}.eps")


__all__ += ["COUNTED", "MAX_SIZE", "POPULATIONS", "RECORD", "RELATION", "design", "epsilon",
            "lengths_equal", "mapping"]
