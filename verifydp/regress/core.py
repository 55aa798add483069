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

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from verifydp.exact.interval import Bracket

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


@dataclass(frozen=True)
class Mismatch:
    """One input on which the user's function fails, with both values."""

    kind: str  # "paper" (differs from the printed formula), "unsound" or "error"
    params: Params  # the user function's arguments
    user: str  # what the user's function returned
    expected: str  # the printed value's bracket, or the exact worst case
    note: str = ""

    def describe(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        head = {"paper": "differs from the printed formula",
                "unsound": "UNSOUND: below the exact worst case",
                "error": "raised an exception"}[self.kind]
        tail = f" ({self.note})" if self.note else ""
        return f"{head} at ({args}): yours {self.user}, expected {self.expected}{tail}"


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

    @property
    def agrees(self) -> bool:
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
        return self.agrees and self.sound is not False

    def summary(self) -> str:
        lines = [f"{self.function} vs {self.claim} — {self.signature}"]
        if self.disagreement is None:
            lines.append(f"  agrees with the printed formula on all {self.examples} inputs tried")
        else:
            lines.append("  minimal disagreement: " + self.disagreement.describe())
        if self.unsound is not None:
            lines.append("  minimal unsound input: " + self.unsound.describe())
        elif self.sound_checked:
            lines.append(f"  sound: never below the exact worst case on the "
                         f"{self.sound_examples} small instances tried")
        else:
            lines.append("  soundness not checked (no exact worst case for this claim)")
        lines.append(f"  tolerance rtol={self.tolerance.rtol:g}, atol={self.tolerance.atol:g}; "
                     f"{self.seconds:.1f} s")
        return "\n".join(lines)


class _Found(Exception):
    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(mismatch.describe())
        self.mismatch = mismatch


def exact_outputs(raw: Any, names: tuple[str, ...]) -> tuple[Fraction, ...]:
    """The user's outputs as exact Fractions (a float is the rational it denotes)."""
    values = raw if len(names) > 1 else (raw,)
    if not isinstance(values, tuple | list) or len(values) != len(names):
        raise TypeError(f"expected {len(names)} value(s) ({', '.join(names)}), got {raw!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float | Fraction):
            try:
                v = float(v)  # numpy scalars, Decimals, sympy numbers
            except (TypeError, ValueError) as exc:
                raise TypeError(f"not a number: {v!r}") from exc
        if isinstance(v, float) and not math.isfinite(v):
            raise TypeError(f"not finite: {v!r}")
        out.append(Fraction(v))
    return tuple(out)


def _search(
    adapter: Adapter, fn: Callable[..., Any], domain: Callable[[st.DataObject, Mapping[str, Any]], Params],
    judge: Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None],
    overrides: Mapping[str, Any], tol: Tolerance, max_examples: int,
) -> tuple[Mismatch | None, int]:
    count = [0]

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
              phases=(Phase.explicit, Phase.generate, Phase.shrink))
    @given(st.data())
    def prop(data: st.DataObject) -> None:
        args = domain(data, overrides)
        count[0] += 1
        try:
            raw = fn(**args)
            values = exact_outputs(raw, adapter.outputs)
        except Exception as exc:  # noqa: BLE001 — any failure of the user's code is a finding
            raise _Found(Mismatch("error", args, f"{type(exc).__name__}: {exc}", "a number")) from None
        found = judge(args, values, tol)
        if found is not None:
            raise _Found(Mismatch(found.kind, found.params, repr(raw), found.expected, found.note))

    try:
        prop()
    except _Found as exc:
        return exc.mismatch, count[0]
    return None, count[0]


def run(
    adapter: Adapter, fn: Callable[..., Any], overrides: Mapping[str, Any] | None = None,
    tol: Tolerance = Tolerance(), max_examples: int = 200, sound_examples: int = 60,
) -> RegressReport:
    """Search both properties and report (see the module docstring)."""
    start = time.monotonic()
    over = dict(overrides or {})
    disagreement, n1 = _search(adapter, fn, adapter.domain, adapter.paper, over, tol, max_examples)
    unsound, n2 = None, 0
    checked = adapter.sound_domain is not None and adapter.sound is not None
    if checked:
        assert adapter.sound_domain is not None and adapter.sound is not None
        unsound, n2 = _search(adapter, fn, adapter.sound_domain, adapter.sound, over, tol,
                              sound_examples)
    name = getattr(fn, "__qualname__", repr(fn))
    return RegressReport(adapter.claim, name, adapter.signature, n1, n2, disagreement, unsound,
                         checked, tol, time.monotonic() - start)


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
