"""Regression-check a user's implementation of a printed formula (issue 8, `verifydp regress`).

Two properties are searched with hypothesis, each shrunk to a minimal failing input:

* **agrees with the paper** — on the claim's whole parameter domain (tiny and huge n, ε near
  0 and large, m = 0 and m = n), every output of the user's function lies in the rigorous
  bracket of the printed formula (`verifydp.exact.interval.Bracket`), widened by the float
  tolerance `rtol·|value| + atol`.  The formula is evaluated at the *exact* rational value of
  each float the user's function received, so the comparison itself is certified.
* **sound** — where the exact worst case is computable (small n), the user's bound is never
  below it: the engine's certified *lower* bound of the worst case (an exact LP over every base
  mechanism of the class) exceeding the user's number by more than the tolerance is a proof
  that the user's function under-states the privacy loss.

A function can agree with the paper and be unsound (when the paper is wrong), or disagree and
be sound (a looser bound).  Floats only propose inputs; every disagreement is decided exactly.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import (
    bracket_text,
    decimal_string,
    fraction_text,
    number_text,
    readable,
)
from verifydp.witness.regress import RegressWitness

Params = dict[str, Any]


@dataclass(frozen=True)
class Tolerance:
    """How far a float output may sit outside the exact bracket: rtol·|bound| + atol."""

    rtol: float = 1e-6
    atol: float = 1e-12

    def slack(self, b: Bracket) -> Fraction:
        return Fraction(self.rtol) * max(abs(b.lo), abs(b.hi)) + Fraction(self.atol)

    def outside(self, value: Fraction, b: Bracket) -> bool:
        """Certified: `value` lies outside `b` by more than the slack."""
        s = self.slack(b)
        return value < b.lo - s or value > b.hi + s

    def below(self, value: Fraction, floor: Fraction) -> bool:
        """Certified: `value` is below `floor` by more than the slack."""
        return value < floor - self.slack(Bracket.point(floor))


class UsageError(ValueError):
    """The call cannot be made as asked (a signature that does not fit, an unknown argument
    name in a mapping or an override, a domain left empty): a usage error, never a finding."""


# import name → what to install, for the optional dependencies users' accountants commonly
# import (the peers of docs/peers.md)
_INSTALL = {"dp_accounting": "dp-accounting", "prv_accountant": "prv-accountant",
            "autodp": "autodp", "opendp": "opendp", "opacus": "opacus", "torch": "torch"}


class MissingDependency(UsageError):
    """The user's function imports a module that is not installed. The environment is at
    fault, not the function, so this is one line naming what to install (exit 2), never an
    unsoundness finding (issue 27)."""

    @classmethod
    def of(cls, exc: ModuleNotFoundError) -> MissingDependency:
        top = (exc.name or "?").split(".")[0]
        pkg = _INSTALL.get(top, top)
        extra = " (or the extra verifydp[peers])" if top in _INSTALL else ""
        return cls(f"the function imports {top!r}, which is not installed: "
                   f"pip install {pkg}{extra}")


def decimal(x: Fraction, up: bool, digits: int = 17) -> str:
    """`x` exactly when its fraction is short, else rounded outward to `digits` significant
    digits (down for a lower end, up for an upper end), so the string is still a bound."""
    if x.denominator == 1 or len(str(x)) <= 24:
        return str(x)
    e = math.floor(math.log10(abs(float(x)))) if x else 0
    scale = Fraction(10) ** (digits - 1 - e)
    m = x * scale
    r = -((-m.numerator) // m.denominator) if up else m.numerator // m.denominator
    return f"{r}e{e - digits + 1}"


def number_json(lo: Fraction, hi: Fraction | None) -> dict[str, Any]:
    """One number shape everywhere (issue 16 item 6): exact or decimal ends, and floats; hi is
    None for a one-sided (lower) bound."""
    return {"lo": decimal(lo, up=False), "hi": None if hi is None else decimal(hi, up=True),
            "lo_float": float(lo), "hi_float": None if hi is None else float(hi)}


@dataclass(frozen=True)
class Mismatch:
    """One input on which the user's function fails, with both values."""

    kind: str  # "paper" (differs from the printed formula), "unsound" or "error"
    params: Params  # the user function's arguments
    user: str  # what the user's function returned
    expected: str  # the printed value's bracket, or the exact worst case
    note: str = ""
    output: str = ""  # which output fails
    values: tuple[float, ...] = ()  # every output of the function, as floats
    bound: Bracket | None = None  # the printed value's bracket ("paper")
    floor: Fraction | None = None  # the certified lower bound of the truth ("unsound")
    problem: dict[str, Any] | None = field(default=None, compare=False)  # replays the floor
    what: str = ""  # what the floor bounds

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind, "params": _jsonable(self.params), "user": self.user,
            "expected": self.expected, "note": self.note, "output": self.output,
            "values": list(self.values)}
        if self.bound is not None:
            out["printed"] = number_json(self.bound.lo, self.bound.hi)
        if self.floor is not None:
            out["truth_lower"] = number_json(self.floor, None)
        return out

    def describe(self) -> str:
        """One line for people (issue 27): the arguments as `eps = 1, m = 1`, numbers as
        decimals (the exact values are in `to_json` and the witness)."""
        args = ", ".join(f"{k} = {_arg_text(v)}" for k, v in self.params.items())
        head = {"paper": "differs from the printed formula",
                "unsound": "UNSOUND: below a certified lower bound of the truth",
                "error": "raised an exception"}[self.kind]
        tail = f" ({readable(self.note)})" if self.note else ""
        return f"{head} at ({args}): yours {self._yours()}, expected {self._expected()}{tail}"

    def _yours(self) -> str:
        if self.kind == "error" or not self.values:
            return readable(self.user)
        texts = [number_text(v, 8) for v in self.values]
        return texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"

    def _expected(self) -> str:
        name, sep, _ = self.expected.partition(" ∈ ")
        if sep and self.bound is not None:  # the printed value's bracket
            text = bracket_text(self.bound.lo, self.bound.hi, 8)
            return f"{name} {'∈' if text.startswith('[') else '='} {text}"
        what, sep, _ = self.expected.rpartition(" ≥ ")
        if sep and self.floor is not None:  # a lower bound, rounded down: still a bound
            return f"{what} ≥ {decimal_string(self.floor, False, 8)}"
        text = readable(self.expected)
        return text if "[" in text else text.replace(" ∈ ", " = ")


def _arg_text(v: Any) -> str:
    """An argument of the user's function for people: `1` for 1.0, `1e-5` for 1e-05."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction, tuple, list)):
        return readable(str(v))
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_arg_text(x) for x in v) + ")"
    return fraction_text(v) if isinstance(v, (int, Fraction)) else number_text(v, 8)


def _jsonable(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


@dataclass(frozen=True)
class Adapter:
    """How to call a user's implementation of one claim and what to compare it with.

    `domain(overrides)` draws the user function's arguments over the whole parameter domain;
    `sound_domain(overrides)` over the small instances where the exact worst case is computable
    (None when the claim has none); `paper(args, outputs, tol)` and `sound(args, outputs, tol)`
    judge one call's outputs (a tuple of exact Fractions)."""

    claim: str
    signature: str
    outputs: tuple[str, ...]  # names of the returned values
    domain: Callable[[st.DataObject, Mapping[str, Any]], Params]
    paper: Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None]
    sound_domain: Callable[[st.DataObject, Mapping[str, Any]], Params] | None = None
    sound: Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None] | None = None
    text: str = ""
    arguments: tuple[str, ...] = ()  # the canonical argument names, in signature order


@dataclass(frozen=True)
class RegressReport:
    """The outcome of `regress`: agreement with the paper and soundness, each with the minimal
    failing input hypothesis found (or None)."""

    claim: str
    function: str
    signature: str
    examples: int  # inputs tried against the printed formula
    sound_examples: int  # inputs tried against the exact worst case
    disagreement: Mismatch | None
    unsound: Mismatch | None
    sound_checked: bool
    tolerance: Tolerance
    seconds: float
    paper_checked: bool = True  # False with sound_only
    mapping: Mapping[str, str] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()  # names of the function's outputs

    @property
    def agrees(self) -> bool | None:
        """None when the printed formula was not compared (sound_only)."""
        if not self.paper_checked:
            return None
        return self.disagreement is None

    @property
    def sound(self) -> bool | None:
        """False when an input is certified unsound; True when none was found among the inputs
        tried; None when the claim has no computable worst case."""
        if self.unsound is not None:
            return False
        return True if self.sound_checked else None

    @property
    def ok(self) -> bool:
        return self.agrees is not False and self.sound is not False

    def witness(self) -> RegressWitness | None:
        """The unsound finding as a replayable witness (`verifydp replay`), or None."""
        u = self.unsound
        if u is None or u.problem is None or u.floor is None:
            return None
        names = self.outputs or (u.output,)
        values = dict(zip(names, u.values))
        return RegressWitness(self.claim, self.function, _jsonable(u.params), u.output, values,
                              u.problem, u.floor, u.what,
                              {"mapping": dict(self.mapping)} if self.mapping else {})

    def to_json(self) -> dict[str, Any]:
        """The report with numbers as numbers: the function's values as floats, printed and
        certified bounds as {"lo", "hi", "lo_float", "hi_float"}."""
        return {
            "claim": self.claim, "function": self.function, "signature": self.signature,
            "mapping": dict(self.mapping), "examples": self.examples,
            "sound_examples": self.sound_examples, "paper_checked": self.paper_checked,
            "sound_checked": self.sound_checked,
            "disagreement": self.disagreement.to_json() if self.disagreement else None,
            "unsound": self.unsound.to_json() if self.unsound else None,
            "tolerance": {"rtol": self.tolerance.rtol, "atol": self.tolerance.atol},
            "seconds": round(self.seconds, 3),
            "agrees": self.agrees, "sound": self.sound, "ok": self.ok,
        }

    def summary(self) -> str:
        lines = [f"{self.function} vs {self.claim} — {self.signature}"]
        if self.claim.startswith("accountant:"):
            lines.append("  an accountant: checked against the certified composition only")
        elif not self.paper_checked:
            lines.append("  agreement with the printed formula not checked (sound only)")
        elif self.disagreement is None:
            lines.append(f"  agrees with the printed formula on all {self.examples} inputs tried")
        else:
            lines.append("  minimal disagreement: " + self.disagreement.describe())
        if self.unsound is not None:
            lines.append("  minimal unsound input: " + self.unsound.describe())
        elif self.sound_checked:
            lines.append(f"  sound: never below the certified truth on the "
                         f"{self.sound_examples} inputs tried")
        else:
            lines.append("  soundness not checked (no exact worst case for this claim)")
        lines.append(f"  tolerance rtol = {number_text(self.tolerance.rtol)}, "
                     f"atol = {number_text(self.tolerance.atol)}; "
                     f"{self.seconds:.1f} s")
        return "\n".join(lines)


class _Found(Exception):
    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(mismatch.describe())
        self.mismatch = mismatch


def _scalar(v: Any) -> Any:
    """A length-1 array (or 0-d array, numpy scalar) as the number it holds."""
    if isinstance(v, np.ndarray | np.generic):
        arr = np.asarray(v)
        if arr.size != 1:
            raise TypeError(f"expected one value, got an array of shape {arr.shape}")
        return arr.reshape(()).item()
    return v


def exact_outputs(raw: Any, names: tuple[str, ...]) -> tuple[Fraction, ...]:
    """The user's outputs as exact Fractions (a float is the rational it denotes); numpy
    scalars and length-1 arrays are accepted, and for several outputs an array of shape
    (k,) or (k, 1) as well as a tuple."""
    if len(names) > 1 and isinstance(raw, np.ndarray) and raw.shape in ((len(names),),
                                                                        (len(names), 1)):
        raw = tuple(raw.reshape(len(names)))
    values = raw if len(names) > 1 else (raw,)
    if not isinstance(values, tuple | list) or len(values) != len(names):
        raise TypeError(f"expected {len(names)} value(s) ({', '.join(names)}), got {raw!r}")
    out = []
    for v in values:
        v = _scalar(v)
        if isinstance(v, str | bytes):  # float("0.5") would take it: a string is not a number
            raise TypeError(f"not a number: {v[:40]!r}")
        if isinstance(v, int) and abs(v) > 2**1023:
            raise TypeError("an integer beyond a float's range")
        if isinstance(v, bool) or not isinstance(v, int | float | Fraction):
            try:
                v = float(v)  # Decimals, sympy numbers
            except (TypeError, ValueError) as exc:
                raise TypeError(f"not a number: {v!r}") from exc
        if isinstance(v, float) and not math.isfinite(v):
            raise TypeError(f"not finite: {v!r}")
        out.append(Fraction(v))
    return tuple(out)


@dataclass(frozen=True)
class Call:
    """How to call the user's function: canonical argument name → the function's own name
    (`mapping`), and whether it takes numpy arrays (`vectorised`: every scalar argument as a
    length-1 array, a tuple argument as a 1-d array)."""

    fn: Callable[..., Any]
    mapping: Mapping[str, str] = field(default_factory=dict)
    vectorised: bool = False

    def kwargs(self, args: Params) -> dict[str, Any]:
        out = {}
        for k, v in args.items():
            if self.vectorised:
                v = np.asarray(v, dtype=float) if isinstance(v, tuple) else np.asarray([v])
            out[self.mapping.get(k, k)] = v
        return out

    def __call__(self, args: Params) -> Any:
        return guarded(self.fn, **self.kwargs(args))


def strict_failure(call: Call, args: Params, exc: Exception, note: str = "") -> None:
    """A function run by `verifydp.regress.sandbox` (marked `strict`) whose result is not the
    numbers asked for has failed, not been judged: a usage error naming the input (issue
    28). Functions called in-process (the library API) keep reporting it as a finding."""
    if getattr(call.fn, "strict", False):
        where = ", ".join(f"{k} = {_arg_text(v)}" for k, v in args.items())
        raise UsageError(f"the function's result at {where}{' (' + note + ')' if note else ''} "
                         f"is not what the claim's signature asks for: {exc}") from None


def guarded(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call the user's function; a module it cannot import becomes `MissingDependency`."""
    try:
        return fn(*args, **kwargs)
    except ModuleNotFoundError as exc:
        raise MissingDependency.of(exc) from None


def check_signature(fn: Callable[..., Any], arguments: tuple[str, ...],
                    mapping: Mapping[str, str], what: str = "") -> None:
    """Refuse, as a usage error, a mapping naming an unknown argument or a function whose
    signature cannot take the (mapped) arguments. Functions without an inspectable signature
    (builtins, ufuncs) are called as they are."""
    unknown = sorted(set(mapping) - set(arguments))
    if unknown:
        raise UsageError(f"--map names {', '.join(unknown)}, not arguments of {what or 'the target'}"
                         f" ({', '.join(arguments)})")
    names = [mapping.get(a, a) for a in arguments]
    if len(set(names)) != len(names):
        raise UsageError(f"--map sends two arguments to the same name: {', '.join(names)}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(**dict.fromkeys(names))
    except TypeError as exc:
        have = ", ".join(sig.parameters)
        hint = ("; rename with --map " + ",".join(f"{a}=NAME" for a in arguments
                                                   if mapping.get(a, a) not in sig.parameters))
        raise UsageError(f"signature mismatch: the function takes ({have}) but is called with "
                         f"({', '.join(names)}): {exc}{hint}") from None


def _search(
    adapter: Adapter, call: Call, domain: Callable[[st.DataObject, Mapping[str, Any]], Params],
    judge: Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None],
    overrides: Mapping[str, Any], tol: Tolerance, max_examples: int,
) -> tuple[Mismatch | None, int, list[Params]]:
    count = [0]
    tried: list[Params] = []

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
              phases=(Phase.explicit, Phase.generate, Phase.shrink))
    @given(st.data())
    def prop(data: st.DataObject) -> None:
        args = domain(data, overrides)
        count[0] += 1
        tried.append(args)
        try:
            raw = call(args)
            values = exact_outputs(raw, adapter.outputs)
        except UsageError:  # a missing module, or a sandboxed function that failed
            raise
        except Exception as exc:  # noqa: BLE001 — any failure of the user's code is a finding
            strict_failure(call, args, exc)
            raise _Found(Mismatch("error", args, f"{type(exc).__name__}: {exc}", "a number")) from None
        found = judge(args, values, tol)
        if found is not None:
            raise _Found(_with_values(found, raw, values))

    try:
        prop()
    except _Found as exc:
        return exc.mismatch, count[0], tried
    except Unsatisfiable:
        raise UsageError("the parameter restrictions leave no input in the claim's domain "
                         f"({adapter.signature})") from None
    return None, count[0], tried


def _with_values(found: Mismatch, raw: Any, values: tuple[Fraction, ...]) -> Mismatch:
    return Mismatch(found.kind, found.params, repr(raw), found.expected, found.note,
                    found.output, tuple(float(v) for v in values), found.bound, found.floor,
                    found.problem, found.what)


def _batch(adapter: Adapter, call: Call, tried: list[Params],
           judge: Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None],
           tol: Tolerance) -> Mismatch | None:
    """A vectorised function called once on every input tried (scalar arguments stacked into
    arrays): each element is judged like a single call, so a function that is right on
    length-1 arrays but mixes elements (a reduction, a broadcast slip) is caught."""
    rows = [a for a in tried if not any(isinstance(v, tuple) for v in a.values())]
    if len(rows) < 2 or any(set(r) != set(rows[0]) for r in rows):
        return None
    kwargs = {call.mapping.get(k, k): np.asarray([r[k] for r in rows]) for k in rows[0]}
    note = f"in one vectorised call on {len(rows)} inputs"
    try:
        raw = guarded(call.fn, **kwargs)
        cols = [np.asarray(c, dtype=float).reshape(-1) for c in
                (raw if len(adapter.outputs) > 1 else (raw,))]
        if len(cols) != len(adapter.outputs) or any(c.size != len(rows) for c in cols):
            raise TypeError(f"expected {len(adapter.outputs)} array(s) of length {len(rows)}")
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 — a failure of the user's code is a finding
        strict_failure(call, rows[0], exc, note)
        return Mismatch("error", rows[0], f"{type(exc).__name__}: {exc}", "arrays", note)
    for i, r in enumerate(rows):
        values = tuple(Fraction(float(c[i])) for c in cols)
        found = judge(r, values, tol)
        if found is not None:
            m = _with_values(found, tuple(float(c[i]) for c in cols), values)
            return Mismatch(m.kind, m.params, m.user, m.expected,
                            f"{m.note}; {note}" if m.note else note, m.output, m.values,
                            m.bound, m.floor, m.problem, m.what)
    return None


def run(
    adapter: Adapter, fn: Callable[..., Any], overrides: Mapping[str, Any] | None = None,
    tol: Tolerance = Tolerance(), max_examples: int = 200, sound_examples: int = 60,
    mapping: Mapping[str, str] | None = None, vectorised: bool = False,
    sound_only: bool = False, name: str | None = None,
) -> RegressReport:
    """Search both properties and report (see the module docstring). `sound_only` skips the
    comparison with the printed formula: a looser but sound bound passes."""
    start = time.monotonic()
    over = dict(overrides or {})
    mapping = dict(mapping or {})
    unknown = sorted(set(over) - set(adapter.arguments))
    if unknown:
        raise UsageError(f"unknown parameter(s) {', '.join(unknown)} for {adapter.claim}; "
                         f"its arguments are {', '.join(adapter.arguments)}")
    check_signature(fn, adapter.arguments, mapping, adapter.claim)
    checked = adapter.sound_domain is not None and adapter.sound is not None
    if sound_only and not checked:
        raise UsageError(f"{adapter.claim} has no computable worst case: --sound-only would "
                         "check nothing")
    call = Call(fn, mapping, vectorised)
    disagreement, n1 = None, 0
    if not sound_only:
        disagreement, n1, tried = _search(adapter, call, adapter.domain, adapter.paper, over,
                                          tol, max_examples)
        if disagreement is None and vectorised:
            disagreement = _batch(adapter, call, tried, adapter.paper, tol)
    unsound, n2 = None, 0
    if checked:
        assert adapter.sound_domain is not None and adapter.sound is not None
        unsound, n2, tried = _search(adapter, call, adapter.sound_domain, adapter.sound, over,
                                     tol, sound_examples)
        if unsound is None and vectorised:
            unsound = _batch(adapter, call, tried, adapter.sound, tol)
    label = name or getattr(fn, "__qualname__", repr(fn))
    return RegressReport(adapter.claim, label, adapter.signature, n1, n2, disagreement, unsound,
                         checked, tol, time.monotonic() - start, not sound_only, mapping,
                         adapter.outputs)


def draw(data: st.DataObject, name: str, default: st.SearchStrategy[Any],
         overrides: Mapping[str, Any]) -> Any:
    """Draw one argument: the user's override (a strategy or a fixed value) or the default."""
    if name in overrides:
        o = overrides[name]
        value = data.draw(o if isinstance(o, st.SearchStrategy) else st.just(o), label=name)
    else:
        value = data.draw(default, label=name)
    return value


def require(condition: bool) -> None:
    """Discard a drawn input that leaves the claim's domain (e.g. an override with m > n)."""
    assume(condition)
