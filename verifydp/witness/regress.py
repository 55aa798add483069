"""Witnesses of an unsound implementation found by `verifydp regress` (issue 17, issue 16
item 5; docs/regress.md#fitting-real-code, docs/foundations.md#witnesses).

An unsound finding says: at these arguments the user's function returned a number below a
certified lower bound of the true privacy loss. The file stores the function's arguments, the
value it returned (the exact float, as a hex string and a decimal), and the *truth problem*:
the data from which the lower bound is recomputed without the catalogue and without the
user's code. `replay_json` recomputes the bound from scratch and confirms only when the stored
value lies strictly below it; none of the stored numbers is trusted. Problem kinds:

* ``ratio`` — a design, a population pair, a relation and a rational t ≤ e^ε: the exact worst
  case e^{ε'} over every ε-DP base mechanism (`worst_case_ratio`); the value compared is ε'.
* ``hockey`` — the same with an (ε, δ)-DP class and t' ≥ e^{ε'} (the user's ε'): the worst-case
  δ at t' (`worst_case_hockey`); the value compared is δ'.
* ``group`` — a MUST/Table 2 design on the substitution pair of size n, the class of base
  mechanisms with group profile δ_1 … δ_m at t (`group_worst_hockey`); compared: δ'.
* ``accountant`` — a per-step dominating pair realised by a concrete dataset pair (Poisson
  add/remove, fixed-size without replacement under substitution, with replacement), σ, steps
  and δ: the certified ε(δ) of the composition (`verifydp.accounting.compose`); compared: ε.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

from verifydp import __version__
from verifydp.accounting import (
    Pair,
    compose,
    fixed_size_gaussian,
    mixture_gaussian,
    poisson_gaussian,
)
from verifydp.designs.base import Design
from verifydp.exact.numtext import decimal_string, number_text
from verifydp.exact.special import exp_bracket, log_bracket
from verifydp.population import PopulationPair, Relation
from verifydp.witness import schema as sch
from verifydp.witness.base import ReplayReport
from verifydp.worstcase import MechanismClass, worst_case_ratio
from verifydp.worstcase.engine import worst_case_hockey
from verifydp.worstcase.group import GroupProfileClass, group_worst_hockey

KIND = "regress"
PROBLEMS = ("ratio", "hockey", "group", "accountant")
ACCOUNTANT_DESIGNS = ("poisson", "fixed-size", "with-replacement")
MAX_STEPS = 100_000  # compositions beyond this are refused (regress and replay alike)

# The truth problem of each regress target at given arguments and outputs, keyed by the
# witness's claim ("bun/thm2.2", "accountant:poisson", …): `verifydp.regress` registers them
# when imported (it sits above this layer). Replay rebuilds the problem from the stored
# arguments and refuses a file whose stored problem differs (issue 28: arguments changed "in
# both places" replayed against a problem that was about other arguments). A builder raises
# ValueError for arguments outside its domain; it returns the problem and the words for its
# bound that the witness's quantity shows, or None when there is nothing to undercut.
# (The stored problem is passed too: an accountant's pair may hold sizes the function did
# not take, and the builder checks them against the arguments it did take.)
ProblemBuilder = Callable[[Mapping[str, Any], Mapping[str, Fraction], Mapping[str, Any]],
                          "tuple[dict[str, Any], str] | None"]
BUILDERS: dict[str, ProblemBuilder] = {}


def _finite(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise sch.SchemaError(f"{where} must be a finite number")


def _argument(value: Any, where: str) -> None:
    """A function argument: a finite number (bounded integers), or a short list of them."""
    if isinstance(value, list):
        if len(value) > 64:
            raise sch.SchemaError(f"{where} has more than 64 entries")
        for i, v in enumerate(value):
            _finite(v, f"{where}[{i}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        sch.integer(-(10**9), 10**9)(value, where)
    else:
        _finite(value, where)


# the shape of a regress witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "kind": sch.text(equal=KIND), "claim": sch.text(sch.MAX_ID), "tool": sch.text(200),
    "function": sch.text(1000), "arguments": sch.mapping(sch.text(sch.MAX_ID), _argument),
    "outputs": sch.mapping(sch.text(sch.MAX_ID), {"float": _finite, "hex": sch.text(40)}),
    "output": sch.text(sch.MAX_ID), "problem": sch.mapping(sch.text(sch.MAX_ID), sch.anything),
    "quantity": sch.text(), "claimed": {"value": sch.text(100)},
    "actual": {"value": sch.text(1000), "float": _finite},
    "mapping?": sch.mapping(sch.text(sch.MAX_ID), sch.text(sch.MAX_ID)),
}


def accountant_pair(design: str, sigma: Fraction, q: Fraction | None = None,
                    batch: int | None = None, n: int | None = None) -> Pair:
    """The per-step pair of DP-SGD with noise σ·C on a sum of gradients clipped to norm C, for
    one design; each is realised by a concrete dataset pair (one-dimensional gradients, the
    differing record's gradient C — and −C for its substitute — all others 0), so its
    composed ε(δ) is a lower bound of the true ε(δ) of the design (docs/regress.md#accountants):

    * ``poisson`` (add/remove, rate q): (1 − q)N(0, σ²) + qN(1, σ²) against N(0, σ²);
    * ``fixed-size`` (batch of `batch` of n without replacement, substitution):
      (1 − q)N(0, σ²) + qN(1, σ²) against (1 − q)N(0, σ²) + qN(−1, σ²), q = batch/n;
    * ``with-replacement`` (batch of `batch` draws from n, substitution): K ~ Bin(batch, 1/n)
      copies, Σ_k Pr[K = k] N(k, σ²) against Σ_k Pr[K = k] N(−k, σ²)."""
    if design not in ACCOUNTANT_DESIGNS:
        raise ValueError(f"unknown accountant design {design!r}; use one of {ACCOUNTANT_DESIGNS}")
    if design == "poisson":
        if q is None:
            raise ValueError("the Poisson design needs the rate q")
        return poisson_gaussian(Fraction(q), Fraction(sigma))
    if batch is None or n is None or batch < 1 or n < 1:
        raise ValueError(f"the {design} design needs a batch size ≥ 1 and n ≥ 1")
    if design == "fixed-size":
        if batch > n:
            raise ValueError("a fixed-size batch without replacement needs batch ≤ n")
        return fixed_size_gaussian(Fraction(batch, n), Fraction(sigma))
    p = Fraction(1, n)
    law = tuple((k, comb(batch, k) * p**k * (1 - p) ** (batch - k)) for k in range(batch + 1))
    return mixture_gaussian(law, Fraction(sigma), substitution=True,
                            name=f"with replacement (batch={batch}, n={n}) Gaussian σ={sigma}")


def _pair_of(pb: Mapping[str, Any]) -> Pair:
    return accountant_pair(pb["design"], Fraction(pb["sigma"]),
                           Fraction(pb["q"]) if pb.get("q") is not None else None,
                           int(pb["batch"]) if pb.get("batch") is not None else None,
                           int(pb["n"]) if pb.get("n") is not None else None)


def truth_floor(problem: Mapping[str, Any]) -> tuple[Fraction, str]:
    """The certified lower bound of the true value a problem describes, and what it is."""
    kind = problem["problem"]
    if kind in ("ratio", "hockey"):
        pair = PopulationPair.from_json(problem["populations"])
        design = Design.from_json(problem["design"])
        u = pair.universe
        law_p, law_q = design.sample_law(pair.p, u), design.sample_law(pair.q, u)
        relation = Relation.parse(problem["relation"])
        t = Fraction(problem["t"])
        if kind == "ratio":
            wc = worst_case_ratio(law_p, law_q, MechanismClass.pure(relation, t))
            if wc.worst.lower is None:
                return Fraction(0), "ε' (no mechanism separates P and P')"
            return log_bracket(wc.worst.lower).lo, "exact worst-case ε'"
        tp = Fraction(problem["t_prime"])
        mc = MechanismClass(relation, t, t, Fraction(problem["delta"]))
        wch = worst_case_hockey(law_p, law_q, mc, tp, tp)
        return wch.worst.lower or Fraction(0), "exact worst-case δ at e^ε' ≤ t'"
    if kind == "group":
        mc = GroupProfileClass(Fraction(problem["t"]),
                               tuple(Fraction(d) for d in problem["deltas"]))
        design = Design.from_json(problem["design"])
        g = group_worst_hockey(design, int(problem["n"]), int(problem["m"]), mc,
                               Fraction(problem["t_prime"]))
        return g.lower, "exact worst-case δ at e^ε' ≤ t' (every base mechanism with that profile)"
    if kind == "accountant":
        if not 1 <= int(problem["steps"]) <= MAX_STEPS:
            raise ValueError(f"steps must be in [1, {MAX_STEPS}]")
        b = compose(_pair_of(problem["pair"]), int(problem["steps"]),
                    delta=Fraction(problem["delta"]))
        return b.lo, "certified lower bound of ε(δ) after composition"
    raise ValueError(f"unknown regress problem {kind!r} (known: {', '.join(PROBLEMS)})")


def _side_conditions(problem: Mapping[str, Any], args: Mapping[str, Any],
                     values: Mapping[str, Fraction]) -> str | None:
    """What makes the problem's bound a bound for these arguments: t ≤ e^ε for the stored ε,
    t' ≥ e^{ε'} for the user's ε' (hockey problems). None when they hold, else the reason."""
    kind = problem["problem"]
    if kind in ("ratio", "hockey", "group"):
        eps = Fraction(problem["eps"])
        if Fraction(problem["t"]) > exp_bracket(eps).lo:
            return f"t = {problem['t']} is not certified ≤ e^ε (ε = {eps})"
    if kind in ("hockey", "group"):
        eps_prime = values.get(problem.get("eps_prime_output", "ε'"))
        if eps_prime is None or Fraction(problem["t_prime"]) < exp_bracket(eps_prime).hi:
            return "t' is not certified ≥ e^ε' of the function's own ε'"
    return None


@dataclass(frozen=True)
class RegressWitness:
    """An unsound output of a user's function, replayable without the function."""

    claim: str  # the claim id, or "accountant:<design>"
    function: str  # MODULE:FUNCTION (or the qualified name given to the API)
    args: dict[str, Any]  # the function's arguments (JSON values)
    output: str  # the output that is too small
    values: dict[str, float]  # every output the function returned
    problem: dict[str, Any]
    floor: Fraction  # the bound found when the witness was made (replay recomputes it)
    what: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "function": self.function,
            "arguments": self.args,
            "outputs": {k: {"float": v, "hex": float(v).hex()} for k, v in self.values.items()},
            "output": self.output,
            "problem": self.problem,
            "quantity": f"{self.output} (lower bound: {self.what})",
            "claimed": {"value": repr(self.values[self.output])},
            "actual": {"value": f"≥ {self.floor}", "float": float(self.floor)},
            **self.extra,
        }

    def csv_text(self) -> str:
        rows = ["argument,value"] + [f"{k},\"{v}\"" for k, v in self.args.items()]
        return "\n".join(rows) + "\n"


def replay_json(obj: dict[str, Any]) -> ReplayReport:
    """Rebuild the truth problem from the stored arguments (`BUILDERS`), recompute its
    certified lower bound and confirm when the stored output of the function lies strictly
    below it. Every other stored number (the problem, the bound, the claimed and actual texts)
    must be the recomputed one."""
    extra = set(obj) - {"kind", "claim", "tool", "function", "arguments", "outputs", "output",
                        "problem", "quantity", "claimed", "actual", "mapping"}
    if extra:
        raise ValueError(f"not a verifydp regress witness: unexpected {', '.join(sorted(extra))}")
    lines = [f"claim {obj['claim']}: {obj['function']} at "
             + ", ".join(f"{k}={v!r}" for k, v in obj["arguments"].items())]
    values: dict[str, Fraction] = {}
    for k, v in obj["outputs"].items():
        try:
            x = float.fromhex(v["hex"])
        except (ValueError, OverflowError):
            raise ValueError(f"outputs.{k}.hex is not a float in hex") from None
        if not math.isfinite(x) or x != float(v["float"]) or v["hex"] != x.hex():
            return ReplayReport(False, (*lines, f"output {k}: hex and decimal disagree"))
        values[k] = Fraction(x)
    output = obj["output"]
    if output not in values:
        raise ValueError(f"output {output!r} is not among the stored outputs")
    builder = BUILDERS.get(obj["claim"])
    if builder is None:
        raise ValueError(f"{obj['claim']!r} is not a regress target (known: "
                         f"{', '.join(sorted(BUILDERS)) or 'none loaded'})")
    built = builder(obj["arguments"], values, obj["problem"])
    if built is None or _canonical(built[0]) != _canonical(obj["problem"]):
        return ReplayReport(False, (*lines, "NOT confirmed: the stored problem is not the one "
                                            "at the stored arguments and outputs (edited)"))
    problem, label = built
    bad = _side_conditions(problem, obj["arguments"], values)
    if bad is not None:
        return ReplayReport(False, (*lines, f"NOT confirmed: {bad}"))
    floor, what = _truth(_canonical(problem))
    shown = {"quantity": f"{output} (lower bound: {label})",
             "claimed": {"value": repr(float(values[output]))},
             "actual": {"value": f"≥ {floor}", "float": float(floor)}}
    if any(obj[k] != v for k, v in shown.items()):
        return ReplayReport(False, (*lines, "NOT confirmed: the stored quantity, claimed or "
                                            "actual value is not the recomputed one (edited)"))
    value = values[output]
    ok = value < floor
    lines.append(f"the function's {output} = {number_text(float(value), 10)}")
    lines.append(f"recomputed {what} ≥ {decimal_string(floor, False, 10)} (rounded down)")
    lines.append("CONFIRMED: the function's output is below the certified lower bound"
                 if ok else "NOT confirmed: the output is not below the recomputed bound")
    return ReplayReport(ok, tuple(lines))


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


@functools.lru_cache(maxsize=64)
def _truth(problem: str) -> tuple[Fraction, str]:
    """`truth_floor` of a problem, computed once per process (a composition takes seconds,
    and replaying edited copies of one witness asks for the same problem again)."""
    return truth_floor(json.loads(problem))


__all__ = ["ACCOUNTANT_DESIGNS", "BUILDERS", "KIND", "MAX_STEPS", "PROBLEMS", "SCHEMA",
           "RegressWitness", "accountant_pair", "replay_json", "truth_floor"]
