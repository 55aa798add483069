"""Generic checkers: compare a printed bound with the exact worst case (docs/foundations.md#claims).

* upper bound on e^{ε'}: refuted when a certified lower bound of the exact worst-case ratio
  exceeds the certified upper end of the printed bound on an instance meeting every
  assumption; holds on the instance when the certified upper bound is below the printed
  bound's lower end; inconclusive otherwise.
* upper bound on δ' at e^{ε'}: the same with the hockey-stick divergence.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from verifydp.claims.base import Budget, InstanceResult, Verdict
from verifydp.designs.base import Design
from verifydp.epsilon import EpsSpec
from verifydp.exact.interval import Bracket
from verifydp.population import PopulationPair, RecordType, Relation
from verifydp.witness import Witness
from verifydp.worstcase.engine import (
    Bound,
    MechanismClass,
    WorstCase,
    worst_case_hockey,
    worst_case_ratio,
)
from verifydp.worstcase.scenario import Scenario

OVERLAP = "certified brackets overlap (the bound is attained or nearly so at an irrational e^ε)"


def fmt(x: Fraction | None) -> str:
    if x is None:
        return "∞"
    if x.denominator <= 1000 and abs(x.numerator) < 10**9:
        return str(x)
    return f"{float(x):.6g}"


def fmt_bound(b: Bound) -> str:
    if b.infinite:
        return "∞"
    if b.exact:
        return f"= {fmt(b.lower)}"
    return f"∈ [{fmt(b.lower)}, {fmt(b.upper)}]"


@dataclass(frozen=True)
class Instance:
    """One population pair, design and base mechanism class on which a bound is checked."""

    params: dict[str, Any]  # substituted into the printed formula, and reported
    pair: PopulationPair
    design: Design
    base_relation: Relation
    eps: EpsSpec
    delta: Fraction = Fraction(0)
    design_prime: Design | None = None
    label: dict[str, Any] = field(default_factory=dict)  # reported only
    symmetric: tuple[tuple[RecordType, ...], ...] = ()  # interchangeable record types

    @property
    def scenario(self) -> Scenario:
        """The pair and design(s) of this instance (the part the worst case depends on)."""
        return Scenario(str(self.params), self.pair, self.design, self.design_prime,
                        self.symmetric)

    def classes(self) -> tuple[tuple[int, ...], ...]:
        return self.scenario.classes()

    def laws(self):  # type: ignore[no-untyped-def]
        return self.scenario.laws()

    def mclass(self) -> MechanismClass:
        lo, hi = self.eps.t_bracket()
        return MechanismClass(self.base_relation, lo, hi, self.delta)

    def report(self) -> dict[str, Any]:
        out = {k: str(v) for k, v in self.params.items()}
        out.update({k: str(v) for k, v in self.label.items()})
        out["epsilon"] = str(self.eps)
        out["|P|"] = str(self.pair.p.size)
        out["|P'|"] = str(self.pair.q.size)
        if self.delta:
            out["delta"] = str(self.delta)
        return out


@dataclass
class UpperCheck:
    """Accumulates instance results and the best witness for one printed upper bound."""

    claim: str
    results: list[InstanceResult] = field(default_factory=list)
    witness: Witness | None = None
    witness_key: tuple[int, Fraction] | None = None
    lp_sizes: list[int] = field(default_factory=list)

    def offer(self, w: Witness, size: int, excess: Fraction) -> None:
        key = (size, -excess)
        if self.witness_key is None or key < self.witness_key:
            self.witness, self.witness_key = w, key


def _excess(lower: Fraction | None, bound: Bracket) -> Fraction:
    if lower is None:
        return Fraction(10**9)
    return lower / bound.hi if bound.hi > 0 else Fraction(10**9)


def _pending(
    instances: Iterable[Instance], budget: Budget, acc: UpperCheck
) -> Iterator[Instance]:
    """The instances still to check: stops when the budget is spent, or at the first
    refutation under `fail_fast`."""
    for inst in instances:
        if budget.spent() or (budget.fail_fast and acc.witness is not None):
            return
        yield inst


def check_ratio_upper(
    claim: str,
    printed: sympy.Expr,
    instances: Iterable[Instance],
    budget: Budget,
    acc: UpperCheck | None = None,
) -> UpperCheck:
    """`printed` is the claimed bound on e^{ε'} (exp of the printed ε')."""
    acc = acc or UpperCheck(claim)
    for inst in _pending(instances, budget, acc):
        law_p, law_q = inst.laws()
        wc = worst_case_ratio(law_p, law_q, inst.mclass(), classes=inst.classes())
        acc.lp_sizes.append(wc.lp_points)
        bound = inst.eps.evaluate(printed, inst.params)
        claimed = f"e^ε' ≤ {bound}"
        actual = f"sup ratio {fmt_bound(wc.worst)} (LP {wc.lp_points} pts)"
        acc.results.append(_judge(acc, inst, wc, bound, printed, None, claimed, actual))
    return acc


def check_hockey_upper(
    claim: str,
    printed_t_prime: sympy.Expr,
    printed_delta: sympy.Expr,
    instances: Iterable[Instance],
    budget: Budget,
    acc: UpperCheck | None = None,
) -> UpperCheck:
    """Claimed: D_{e^{ε'}}(M(C(P)) ‖ M(C(P'))) ≤ δ' (both directions)."""
    acc = acc or UpperCheck(claim)
    for inst in _pending(instances, budget, acc):
        law_p, law_q = inst.laws()
        tp = inst.eps.evaluate(printed_t_prime, inst.params)
        bound = inst.eps.evaluate(printed_delta, inst.params)
        wc = worst_case_hockey(law_p, law_q, inst.mclass(), tp.lo, tp.hi, classes=inst.classes())
        acc.lp_sizes.append(wc.lp_points)
        claimed = f"δ'(e^ε' = {tp}) ≤ {bound}"
        actual = f"sup hockey-stick {fmt_bound(wc.worst)} (LP {wc.lp_points} pts)"
        acc.results.append(
            _judge(acc, inst, wc, bound, printed_delta, printed_t_prime, claimed, actual)
        )
    return acc


def _judge(
    acc: UpperCheck,
    inst: Instance,
    wc: WorstCase,
    bound: Bracket,
    printed: sympy.Expr,
    printed_t_prime: sympy.Expr | None,
    claimed: str,
    actual: str,
) -> InstanceResult:
    """Refuted when the certified lower bound exceeds the bound's upper end (with a witness);
    holds when the certified upper bound is below its lower end; inconclusive otherwise."""
    worst = wc.worst
    margin = _margin(worst.lower, bound, printed_t_prime is None)
    if worst.lower is None or worst.lower > bound.hi:
        assert worst.witness is not None
        w = Witness(
            acc.claim, inst.pair, inst.design, inst.design_prime, inst.base_relation, inst.eps,
            inst.delta, "ratio" if printed_t_prime is None else "hockey",
            "forward" if worst is wc.forward else "backward", worst.witness, printed,
            printed_t_prime, {k: str(v) for k, v in inst.params.items()}, claimed, actual,
        )
        acc.offer(w, inst.pair.p.size + inst.pair.q.size, _excess(worst.lower, bound))
        return InstanceResult(inst.report(), Verdict.REFUTED, claimed, actual, witness=w,
                              margin=margin)
    if wc.upper is not None and wc.upper <= bound.lo:
        return InstanceResult(inst.report(), Verdict.HOLDS, claimed, actual, margin=margin)
    return InstanceResult(inst.report(), Verdict.INCONCLUSIVE, claimed, actual, note=OVERLAP,
                          margin=margin)


def _margin(lower: Fraction | None, bound: Bracket, relative: bool) -> float:
    """Certified lower bound of the actual value minus the claimed bound: relative for ratio
    bounds (so instances of different scales compare), absolute for δ'."""
    if lower is None:
        return float("inf")
    if relative:
        return float(lower / bound.hi) - 1 if bound.hi > 0 else float("inf")
    return float(lower - bound.hi)
