"""Regress for accountants (issue 16 item 5): a user's function (σ, q or batch size, n, steps,
δ) → ε checked against the certified composition of the named design (docs/regress.md#accountants,
docs/foundations.md#composition).

The truth is `verifydp.accounting.compose` on the design's per-step pair
(`verifydp.witness.regress.accountant_pair`): each pair is realised by a concrete dataset pair
and a DP-SGD run whose gradients do not depend on the model, so the *lower* end of its
certified ε(δ) bracket is a lower bound of the true ε(δ) of the design. A function returning
less (by more than the tolerance) is unsound, with a replayable witness. A larger ε is never
a finding: an accountant may be loose.

The grid is searched by increasing steps, so the first unsound point found has the fewest
steps on the grid; `refine` then bisects the steps between the last sound and the first
unsound grid value at that point (the smallest steps found, not a proof of minimality when the
gap is not monotone).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.accounting import compose
from verifydp.exact.interval import Bracket
from verifydp.regress.core import (
    Call,
    Mismatch,
    RegressReport,
    Tolerance,
    UsageError,
    check_signature,
    exact_outputs,
    strict_failure,
)
from verifydp.witness.regress import ACCOUNTANT_DESIGNS, BUILDERS, MAX_STEPS, accountant_pair

ARGUMENTS = ("sigma", "q", "batch_size", "n", "steps", "delta")
REQUIRED = ("sigma", "steps", "delta")
SIGNATURE = "epsilon(sigma, q | batch_size, n, steps, delta) -> float"
RELATIONS = {"poisson": "add/remove, rate q = batch_size/n",
             "fixed-size": "substitution, batch_size of n without replacement",
             "with-replacement": "substitution, batch_size draws from n with replacement"}

# a small default grid; steps first in the search order (docs/regress.md#accountants)
DEFAULT_GRID: dict[str, tuple[Any, ...]] = {
    "sigma": (1.0, 2.0), "batch_size": (10, 100), "n": (1000,), "steps": (1, 10, 100),
    "delta": (1e-5,)}


@dataclass(frozen=True)
class Point:
    sigma: float
    batch_size: int
    n: int
    steps: int
    delta: float

    @property
    def q(self) -> float:
        return self.batch_size / self.n

    def args(self) -> dict[str, Any]:
        return {"sigma": self.sigma, "q": self.q, "batch_size": self.batch_size, "n": self.n,
                "steps": self.steps, "delta": self.delta}


def _pair_json(design: str, p: Point) -> dict[str, Any]:
    if design == "poisson":
        return {"design": design, "sigma": str(Fraction(p.sigma)),
                "q": str(Fraction(p.batch_size, p.n))}
    return {"design": design, "sigma": str(Fraction(p.sigma)), "batch": p.batch_size, "n": p.n}


@functools.lru_cache(maxsize=256)
def certified_epsilon(design: str, p: Point) -> Bracket:
    """The certified bracket of ε(δ) after `steps` steps of the design's pair."""
    pj = _pair_json(design, p)
    pair = accountant_pair(design, Fraction(p.sigma),
                           Fraction(pj["q"]) if "q" in pj else None,
                           pj.get("batch"), pj.get("n"))
    return compose(pair, p.steps, delta=Fraction(p.delta))


def _grid(params: Mapping[str, Any]) -> list[Point]:
    unknown = sorted(set(params) - set(DEFAULT_GRID) - {"q"})
    if unknown:
        raise UsageError(f"unknown parameter(s) {', '.join(unknown)} for an accountant; use "
                         + ", ".join(DEFAULT_GRID))
    if "q" in params:
        raise UsageError("give the batch size and n (q = batch_size/n), not q")
    axes = {}
    for k, default in DEFAULT_GRID.items():
        v = params.get(k, default)
        vals = tuple(v) if isinstance(v, tuple | list) else (v,)
        if not vals:
            raise UsageError(f"no values for {k}")
        axes[k] = vals
    pts = []
    for steps in sorted(axes["steps"]):
        for sigma, batch, n, delta in itertools.product(axes["sigma"], axes["batch_size"],
                                                        axes["n"], axes["delta"]):
            pt = Point(float(sigma), int(batch), int(n), int(steps), float(delta))
            if not (pt.sigma > 0 and 1 <= pt.batch_size <= pt.n and pt.steps >= 1
                    and 0 < pt.delta < 1):
                raise UsageError(f"outside the domain (σ > 0, 1 ≤ batch_size ≤ n, steps ≥ 1, "
                                 f"0 < δ < 1): {pt.args()}")
            pts.append(pt)
    return pts


def _judge(design: str, call: Call, names: Sequence[str], p: Point,
           tol: Tolerance) -> Mismatch | None:
    args = {k: v for k, v in p.args().items() if k in names}
    try:
        raw = call(args)
        (value,) = exact_outputs(raw, ("ε",))
    except UsageError:  # a missing module, or a sandboxed function that failed
        raise
    except Exception as exc:  # noqa: BLE001 — any failure of the user's code is a finding
        strict_failure(call, args, exc)
        return Mismatch("error", args, f"{type(exc).__name__}: {exc}", "a number")
    truth = certified_epsilon(design, p)
    if not tol.below(value, truth.lo):
        return None
    what = _what(design)
    problem = {"problem": "accountant", "pair": _pair_json(design, p), "steps": p.steps,
               "delta": str(Fraction(p.delta)),
               "arguments": {k: v for k, v in args.items() if k in ("steps", "delta")}}
    short = float((truth.lo - value) / truth.lo)
    return Mismatch("unsound", args, repr(raw), f"ε ∈ {truth}",
                    f"{what}: yours is {100 * short:.1f}% below its certified lower bound", "ε",
                    (float(value),), None, truth.lo, problem, what)


def _what(design: str) -> str:
    return f"certified ε(δ) of {design} ({RELATIONS[design]})"


def _names(fn: Callable[..., Any], mapping: Mapping[str, str]) -> tuple[str, ...]:
    """The canonical arguments the function takes (after `mapping`): σ, steps and δ, and q or
    the batch size (with n) — whichever its signature names."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ("sigma", "q", "steps", "delta")
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return ARGUMENTS
    rev = {mapping.get(a, a): a for a in ARGUMENTS}
    have = tuple(rev[p] for p in params if p in rev)
    if "q" not in have and "batch_size" not in have:
        raise UsageError("an accountant takes the sampling rate q or the batch size "
                         f"(signature {SIGNATURE}); use --map to name yours")
    return tuple(a for a in ARGUMENTS if a in have)


def regress_accountant(
    fn: Callable[..., Any], design: str, params: Mapping[str, Any] | None = None,
    mapping: Mapping[str, str] | None = None, rtol: float = 1e-6, atol: float = 1e-12,
    refine: bool = True, vectorised: bool = False, name: str | None = None,
) -> RegressReport:
    """Check an accountant `fn` against the certified composition of `design` ("poisson",
    "fixed-size", "with-replacement") on a grid (`params`: name → value or tuple of values,
    over sigma, batch_size, n, steps, delta; see DEFAULT_GRID). Sound-only by nature."""
    if design not in ACCOUNTANT_DESIGNS:
        raise UsageError(f"unknown design {design!r} for --accountant; use one of "
                         + ", ".join(ACCOUNTANT_DESIGNS))
    start = time.monotonic()
    mapping = dict(mapping or {})
    names = _names(fn, mapping)
    check_signature(fn, names, mapping, f"an accountant ({SIGNATURE})")
    missing = [a for a in REQUIRED if a not in names]
    if missing:
        raise UsageError(f"an accountant must take {', '.join(missing)} ({SIGNATURE})")
    tol = Tolerance(rtol, atol)
    call = Call(fn, mapping, vectorised)
    points = _grid(dict(params or {}))
    found: Mismatch | None = None
    tried = 0
    last_sound: dict[tuple[float, int, int, float], int] = {}
    for p in points:
        tried += 1
        found = _judge(design, call, names, p, tol)
        if found is not None:
            if refine and found.kind == "unsound":
                found = _refine(design, call, names, p, last_sound.get(_key(p), 0), found, tol)
            break
        last_sound[_key(p)] = p.steps
    label = name or getattr(fn, "__qualname__", repr(fn))
    return RegressReport(f"accountant:{design}", label, SIGNATURE, 0, tried, None, found, True,
                         tol, time.monotonic() - start, False, mapping, ("ε",))


def _key(p: Point) -> tuple[float, int, int, float]:
    return (p.sigma, p.batch_size, p.n, p.delta)


def _refine(design: str, call: Call, names: Sequence[str], p: Point, sound_steps: int,
            found: Mismatch, tol: Tolerance) -> Mismatch:
    """Bisect the steps in (sound_steps, p.steps] for the fewest steps still unsound."""
    lo, hi, best = sound_steps, p.steps, found
    while hi - lo > 1:
        mid = (lo + hi) // 2
        m = _judge(design, call, names, Point(p.sigma, p.batch_size, p.n, mid, p.delta), tol)
        if m is not None and m.kind == "unsound":
            hi, best = mid, m
        else:
            lo = mid
    return best


def gap(report: RegressReport) -> float | None:
    """How far below the certified lower bound the unsound ε is (relative), or None."""
    u = report.unsound
    if u is None or u.floor is None or not u.values or u.floor == 0:
        return None
    return float((u.floor - Fraction(u.values[0])) / u.floor) if math.isfinite(u.values[0]) else None


__all__ = ["ARGUMENTS", "DEFAULT_GRID", "SIGNATURE", "certified_epsilon", "gap",
           "regress_accountant"]


# ---------------------------------------------------------------- replay (issue 28)


def _replay_builder(design: str) -> Callable[[Mapping[str, Any], Mapping[str, Fraction],
                                             Mapping[str, Any]], tuple[dict[str, Any], str] | None]:
    """The problem of an accountant witness, rebuilt from its arguments: σ, steps and δ as the
    function received them; the pair's q (or batch size and n) must be the arguments' own
    where the function took them. The pair's size parameters the function did not take are
    the file's: any value is a concrete design, and the function answered without them."""
    def build(args: Mapping[str, Any], outputs: Mapping[str, Fraction],
              stored: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
        del outputs
        unknown = set(args) - set(ARGUMENTS)
        if unknown or not set(REQUIRED) <= set(args):
            raise ValueError(f"an accountant witness's arguments are {', '.join(ARGUMENTS)}")
        sigma, delta = float(args["sigma"]), float(args["delta"])
        steps = args["steps"]
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
            raise ValueError(f"argument steps must be an integer in [1, {MAX_STEPS}]")
        if not (0 < sigma <= 1e6 and 0 < delta < 1):
            raise ValueError("arguments outside the domain (σ > 0, 0 < δ < 1)")
        if not _check_pair(design, args, stored.get("pair")):
            return None
        return ({"problem": "accountant", "arguments": {"steps": steps, "delta": args["delta"]},
                 "steps": steps, "delta": str(Fraction(delta)), "pair": stored["pair"]},
                _what(design))
    return build


def _check_pair(design: str, args: Mapping[str, Any], pair: Any) -> bool:
    """Whether a stored pair is the design's at the arguments the function received."""
    if not isinstance(pair, dict) or pair.get("design") != design:
        return False
    if pair.get("sigma") != str(Fraction(float(args["sigma"]))):
        return False
    if design == "poisson":
        if set(pair) != {"design", "sigma", "q"}:
            return False
        q = pair["q"]
        return "q" not in args or float(Fraction(q)) == float(args["q"])
    if set(pair) != {"design", "sigma", "batch", "n"}:
        return False
    batch, n = pair["batch"], pair["n"]
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (batch, n)) or \
            not 1 <= batch <= n <= 10**6:
        return False
    return (args.get("batch_size", batch) == batch and args.get("n", n) == n
            and ("q" not in args or batch / n == float(args["q"])))


BUILDERS.update({f"accountant:{d}": _replay_builder(d) for d in ACCOUNTANT_DESIGNS})
