"""Witnesses of kind "pinq-plan": a query plan run on two neighbouring datasets (ebadi).

The file stores the plan, the two datasets (as sequences: order matters to Take/Skip), the
rational t = e^ε, and what is claimed: either PINQ's charge for the plan ("pinq-charge",
ebadi/pinq:take) or a printed bound e^{σ(ε)} on the loss of plans whose aggregations are
ε-DP base mechanisms ("printed", the σ claims of §4). `replay_json` recomputes the charge,
the exact output laws and the exact privacy loss from the plan and the datasets, and
re-evaluates the printed bound rigorously; none of the stored numbers is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from verifydp import __version__
from verifydp.epsilon import EpsSpec
from verifydp.exact.numtext import bracket_text, fraction_text, number_text
from verifydp.exact.tfunc import EPS
from verifydp.pinq.loss import exact_loss, loss_multiple
from verifydp.pinq.plan import Dataset, Plan, charge, neighbours
from verifydp.population import Population
from verifydp.witness import schema as sch
from verifydp.witness.base import ReplayReport
from verifydp.witness.text import (
    LIMITS,
    WitnessLimitError,
    exact,
    origin,
    parse_srepr,
    readable,
)

KIND = "pinq-plan"
MAX_RECORDS = LIMITS["records in a dataset"] // 40  # the exact output laws grow fast
MAX_NODES = 200
NOISE = (
    "each aggregation adds two-sided geometric noise Pr[Z=z] ∝ u^(-|z|), u = t^eps, to a "
    "count or a sum of weights in {-1,0,1}: exactly (eps·ε)-DP (discrete Laplace)"
)
CERTIFIED_BY = ("exact rational output laws of the plan on both datasets; max-divergence over "
                "all output events, both directions")


def _node(value: Any, where: str) -> None:
    """A plan node: an operation, earlier nodes as arguments, bounded parameters (take n = −1
    once sliced from the end; an eps multiple of 10⁹ once built a huge law)."""
    sch.validate(value, {"op": sch.text(sch.MAX_ID), "args?": [sch.integer(0, MAX_NODES)],
                         "n?": sch.integer(0, sch.MAX_SIZE), "eps?": sch.integer(1, 64),
                         "weights?": sch.mapping(sch.text(sch.MAX_ID), sch.one_of(-1, 0, 1)),
                         "design?": sch.design, "values?": [sch.text(sch.MAX_ID)],
                         "value?": sch.text(sch.MAX_ID), "key?": sch.text(sch.MAX_ID)}, where)
    for k, v in value.items():
        if k not in ("op", "args", "n", "eps", "weights", "design", "values", "value", "key"):
            sch.validate(v, sch.anything if isinstance(v, (str, bool)) else sch.integer(0, 1),
                         f"{where}.{k}")


# the shape of a pinq-plan witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "claim": sch.text(sch.MAX_ID), "tool": sch.text(200), "quantity": sch.text(sch.MAX_ID),
    "plan": [_node], "datasets": {"D": [sch.text(sch.MAX_ID)], "D_prime": [sch.text(sch.MAX_ID)]},
    "populations": {"P": [sch.COUNTED], "P_prime": [sch.COUNTED]},
    "t": sch.rational(1, 10**6, open_lo=True), "noise": sch.text(equal=NOISE),
    "claimed": {"value": sch.text(), "source": sch.one_of("pinq-charge", "printed"),
                "expression?": sch.text(), "srepr?": sch.text(LIMITS["formula characters"]),
                "params?": sch.mapping(sch.text(sch.MAX_ID), sch.rational())},
    "actual": {"value": sch.text(), "certified_by": sch.text(equal=CERTIFIED_BY)},
}


@dataclass(frozen=True)
class PinqWitness:
    claim: str
    plan: Plan
    d: Dataset
    d_prime: Dataset
    t: Fraction
    quantity: str
    claimed_text: str
    actual_text: str
    printed: sympy.Expr | None = None  # e^{σ(ε)} as printed; None: PINQ's charge
    params: tuple[tuple[str, str], ...] = ()
    found_at: dict[str, Any] | None = None  # the search point that produced it (hunt)

    def to_json(self) -> dict[str, Any]:
        claimed: dict[str, Any] = {"value": self.claimed_text}
        if self.printed is None:
            claimed["source"] = "pinq-charge"
        else:
            claimed.update(source="printed", expression=readable(self.printed),
                           srepr=sympy.srepr(self.printed), params=dict(self.params))
        return {
            "kind": KIND,
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "quantity": self.quantity,
            "plan": self.plan.to_json(),
            "datasets": {"D": list(self.d), "D_prime": list(self.d_prime)},
            "populations": {
                "P": Population.from_values(self.d).to_json(),
                "P_prime": Population.from_values(self.d_prime).to_json(),
            },
            "t": str(self.t),
            "noise": NOISE,
            "claimed": claimed,
            "actual": {
                "value": self.actual_text,
                "certified_by": CERTIFIED_BY,
            },
        } | origin(self.found_at)


def replay_json(obj: dict[str, Any]) -> ReplayReport:
    lines = [f"claim {obj['claim']}"]
    plan = Plan.from_json(obj["plan"])
    d = tuple(str(v) for v in obj["datasets"]["D"])
    d_prime = tuple(str(v) for v in obj["datasets"]["D_prime"])
    if len(d) + len(d_prime) > MAX_RECORDS or len(plan.nodes) > MAX_NODES:
        raise WitnessLimitError(f"a pinq-plan witness is limited to {MAX_RECORDS} records in "
                                f"a dataset and {MAX_NODES} plan nodes")
    t = exact(obj["t"])
    shown = {"P": Population.from_values(d).to_json(),
             "P_prime": Population.from_values(d_prime).to_json()}
    if obj.get("populations", shown) != shown:
        return ReplayReport(False, (*lines, "NOT confirmed: the stored populations are not the "
                                            "datasets' (the file was edited)"))
    if not neighbours(d, d_prime):
        return ReplayReport(False, (*lines, "D and D' are not neighbours (one inserted record)"))
    if t <= 1:
        return ReplayReport(False, (*lines, f"t = {t} is not e^ε for some ε > 0"))
    lines.append(f"plan of {len(plan.nodes)} nodes; |D| = {len(d)}, |D'| = {len(d_prime)}, "
                 f"t = {fraction_text(t)}")
    ratio = exact_loss(plan, d, d_prime, t).ratio
    if ratio is None:
        return ReplayReport(False, (*lines, "unexpected infinite loss (noise has full support)"))
    lines.append(f"exact e^loss = {fraction_text(ratio)}")
    claimed = obj["claimed"]
    if not isinstance(claimed, dict):
        raise ValueError("claimed must be an object")
    if claimed.get("source") == "pinq-charge":
        c = charge(plan)
        bound_hi = EpsSpec.of_t(t).evaluate(sympy.exp(sympy.Rational(c.numerator, c.denominator)
                                                      * EPS)).hi
        lines.append(f"PINQ charges {fraction_text(c)}·ε, i.e. e^charge = t^{fraction_text(c)} "
                     f"≈ {number_text(float(bound_hi))}")
        if plan.deterministic:
            mult = loss_multiple(plan, d, d_prime)
            lines.append(f"for every ε > 0: exact loss {fraction_text(mult)}·ε vs charged "
                         f"{fraction_text(c)}·ε")
    elif claimed.get("source") == "printed":
        if any(k != 1 for k in plan.eps_multiples()):
            return ReplayReport(False, (*lines, "a base mechanism is not ε-DP (eps multiple ≠ 1)"))
        expr = parse_srepr(claimed["srepr"])
        if claimed.get("expression") != readable(expr):
            return ReplayReport(False, (*lines, "NOT confirmed: the printed formula is not the "
                                                "stored expression (the file was edited)"))
        params = claimed.get("params", {})
        if not isinstance(params, dict):
            raise ValueError("claimed.params must be an object")
        bound = EpsSpec.of_t(t).evaluate(expr, {str(k): str(exact(v)) for k, v in params.items()})
        bound_hi = bound.hi
        lines.append(f"every aggregation is ε-DP; printed e^σ(ε) = {claimed['expression']} "
                     f"{'= ' + fraction_text(bound.lo) if bound.lo == bound.hi else '∈ ' + bracket_text(bound.lo, bound.hi)}")
    else:
        raise ValueError(f"unknown claimed source {claimed.get('source')!r}")
    ok = ratio > bound_hi
    lines.append("CONFIRMED: the claimed bound is violated" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))
