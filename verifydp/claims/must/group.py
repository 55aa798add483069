"""MUST Theorem 5 and Table 2 read as privacy guarantees, against the exact worst case.

Zhao & Liu (MUST) Theorem 5 / Table 2: if the base mechanism M has group privacy profile
δ_j = δ_{M,j}(ε), then M∘S is (ε', δ')-DP with e^{ε'} = 1 + η(e^ε − 1) and the printed δ'
(claims `must/thm5:ow|wo|ww`, `must/table2:wr|wor`).  The formula checks in `must_pa` compare
the printed η, δ' with the law of K; here the *statement* is checked: the exact sup of
D_{e^{ε'}}(M∘S(P) ‖ M∘S(P')) over every base mechanism whose pairwise divergences obey
D_{e^ε}(M(Y) ‖ M(Y')) ≤ δ_{d(Y,Y')} (`verifydp.worstcase.group`, certified by exact primal and
dual bounds) must not exceed the printed δ'.  HOLDS when the certified upper bound is ≤ δ'
(the note says "tight" when the certified lower bound equals δ'), REFUTED with a replayable
witness when the certified lower bound exceeds δ', INCONCLUSIVE otherwise.

The classes are given by exact numbers (t rational, δ_j rational, non-decreasing); the theorem
quantifies over every M with that profile, so any such numbers are a legitimate instance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction

import sympy

from verifydp.claims.base import Budget, InstanceResult, Statement, Verdict, statement
from verifydp.designs import SRSWOR, SRSWR, MustOW, MustWO, MustWW
from verifydp.designs.base import Design
from verifydp.exact.numtext import number_text
from verifydp.witness.group import GroupWitness
from verifydp.worstcase.group import GroupProfileClass, group_worst_hockey

F = Fraction

# (n, b, m); b is None for the one-stage schemes
INSTANCES: dict[str, tuple[tuple[int, int | None, int], ...]] = {
    "must-ow": ((4, 3, 3), (5, 3, 2), (5, 4, 4)),
    "must-wo": ((4, 3, 2), (5, 4, 3), (5, 3, 3)),
    "must-ww": ((4, 2, 3), (5, 3, 3), (5, 2, 4)),
    "wr": ((4, None, 3), (5, None, 2), (5, None, 4)),
    "wor": ((4, None, 2), (5, None, 3)),
}

CLASSES: tuple[GroupProfileClass, ...] = (
    GroupProfileClass(F(2), (F(1, 100), F(3, 100), F(8, 100), F(15, 100), F(1, 4))),
    GroupProfileClass(F(11, 10), (F(1, 1000), F(1, 100), F(1, 10), F(1, 2), F(1))),
    GroupProfileClass(F(5), (F(1, 20),) * 5),
)


def dsym(j: int) -> sympy.Symbol:
    """δ_j := δ_{M,j}(ε), the group privacy profile at group size j (kept symbolic)."""
    return sympy.Symbol(f"delta_{j}", nonnegative=True)


def design_of(scheme: str, b: int | None, m: int) -> Design:
    return {"must-ow": lambda: MustOW(b, m), "must-wo": lambda: MustWO(b, m),
            "must-ww": lambda: MustWW(b, m), "wr": lambda: SRSWR(m),
            "wor": lambda: SRSWOR(m)}[scheme]()


def _instances(scheme: str) -> Iterator[tuple[int, int | None, int, GroupProfileClass]]:
    for n, b, m in INSTANCES[scheme]:
        for mc in CLASSES:
            yield n, b, m, mc


def point_result(claim: str, scheme: str, formula: Callable[..., tuple], n: int,
                 b: int | None, m: int, mc: GroupProfileClass) -> InstanceResult:
    """The printed (η, δ') of `formula` against the exact worst case at one instance."""

    eta, dprime = formula(n, m) if b is None else formula(n, b, m)
    t_prime = 1 + F(str(sympy.nsimplify(eta))) * (mc.t - 1)
    claimed = F(str(sympy.sympify(dprime).subs({dsym(j): sympy.Rational(str(mc.delta(j)))
                                                 for j in range(1, m + 1)})))
    design = design_of(scheme, b, m)
    r = group_worst_hockey(design, n, m, mc, t_prime)
    params = {"n": n, "b": b, "m": m, "t": str(mc.t),
              "deltas": [str(d) for d in mc.deltas[:m]], "t_prime": str(t_prime)}
    actual = f"sup ∈ [{r.lower}, {r.upper}] ≈ {number_text(float(r.lower))}"
    witness = None
    if r.upper <= claimed:
        verdict = Verdict.HOLDS
        note = "tight: the worst case equals δ'" if r.lower == claimed else (
            f"slack {number_text(float(claimed - r.upper), 3)}")
    elif r.lower > claimed:
        verdict = Verdict.REFUTED
        note = ("a base mechanism in the class exceeds δ' by "
                f"{number_text(float(r.lower - claimed), 3)}")
        witness = GroupWitness(claim, design, n, m, mc, t_prime, claimed, r.lower,
                               tuple(zip(r.orbits, r.accept, strict=True)))
    else:
        verdict, note = Verdict.INCONCLUSIVE, "certified bracket contains δ'"
    return InstanceResult(params, verdict, f"δ' = {claimed} ≈ {number_text(float(claimed))}",
                          actual, note, witness, float(r.lower - claimed))


def worst_case_statement(claim: str, scheme: str, formula: Callable[..., tuple],
                         budget: Budget) -> Statement:
    """One statement: the printed (η, δ') against the exact worst case on small instances."""
    out: list[InstanceResult] = []
    for n, b, m, mc in _instances(scheme):
        if budget.spent():
            break
        out.append(point_result(claim, scheme, formula, n, b, m, mc))
        if budget.fail_fast and out[-1].verdict is Verdict.REFUTED:
            break
    return statement(
        "as a privacy guarantee: sup over all base mechanisms with group profile δ_j of "
        "δ_{M∘S}(ε') ≤ δ' at e^{ε'} = 1 + η(e^ε − 1) (exact LP, certified)", out)
