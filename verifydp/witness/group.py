"""Witnesses against group-profile amplification bounds (MUST Theorem 5, Table 2).

The file stores the design, n, m, the class (t = e^ε and δ_1, δ_2, …), t' and the claimed δ',
and the binary mechanism as a table orbit → Pr[accept].  `replay_json` rebuilds the orbits,
re-checks every pairwise constraint of the class and recomputes the divergence from the
design's exact sample laws; none of the stored numbers is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp import __version__
from verifydp.designs.base import Design
from verifydp.exact.numtext import fraction_text
from verifydp.witness import schema as sch
from verifydp.witness.base import ReplayReport
from verifydp.witness.text import WitnessLimitError, exact, origin
from verifydp.worstcase.group import (
    GroupProfileClass,
    Orbit,
    all_orbits,
    constraints,
    orbit_weights,
    substitution_pair,
)

KIND = "group-profile"
MAX_N, MAX_M = 64, 12  # the orbit LP grows as the partitions of m: keep replay bounded
QUANTITY = "hockey (group profile)"
POPULATIONS = "P = {x, c1, …, c_{n−1}}, P' = {x', c1, …, c_{n−1}} (see the CSV)"

# the shape of a group-profile witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "claim": sch.text(sch.MAX_ID), "tool": sch.text(200), "design": sch.design,
    "n": sch.integer(1, MAX_N), "m": sch.integer(0, MAX_M),
    "class": {"t": sch.rational(1, 10**6), "deltas": [sch.rational(0, 1)]},
    "t_prime": sch.rational(0, 10**6), "quantity": sch.text(equal=QUANTITY),
    "claimed": {"value": sch.rational(-1, 1)}, "actual": {"value": sch.rational(-10**6, 1)},
    "mechanism": [{"orbit": [sch.anything], "accept": sch.rational(0, 1)}],
    "populations": sch.text(equal=POPULATIONS),
}


@dataclass(frozen=True)
class GroupWitness:
    claim: str
    design: Design
    n: int
    m: int
    mclass: GroupProfileClass
    t_prime: Fraction
    claimed: Fraction
    actual: Fraction
    table: tuple[tuple[Orbit, Fraction], ...]
    found_at: dict[str, Any] | None = None  # the search point that produced it (hunt)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "design": self.design.to_json(),
            "n": self.n,
            "m": self.m,
            "class": {"t": str(self.mclass.t), "deltas": [str(d) for d in self.mclass.deltas]},
            "t_prime": str(self.t_prime),
            "quantity": QUANTITY,
            "claimed": {"value": str(self.claimed)},
            "actual": {"value": str(self.actual)},
            "mechanism": [{"orbit": [o[0], o[1], list(o[2])], "accept": str(v)}
                          for o, v in self.table if v],
            "populations": POPULATIONS,
        } | origin(self.found_at)


def replay_json(obj: dict[str, Any]) -> ReplayReport:
    lines = [f"claim {obj['claim']}"]
    design = Design.from_json(obj["design"])
    n, m = int(obj["n"]), int(obj["m"])
    if not (1 <= n <= MAX_N and 0 <= m <= MAX_M):
        raise WitnessLimitError(f"a group-profile witness is limited to 1 ≤ n ≤ {MAX_N} and "
                                f"0 ≤ m ≤ {MAX_M}")
    mclass = GroupProfileClass(exact(obj["class"]["t"]),
                               tuple(exact(d) for d in obj["class"]["deltas"]))
    t_prime = exact(obj["t_prime"])
    claimed = exact(obj["claimed"]["value"])
    orbits = all_orbits(m, n - 1)
    idx = {o: i for i, o in enumerate(orbits)}
    f = [Fraction(0)] * len(orbits)
    for row in obj["mechanism"]:
        sch.validate(row["orbit"], [sch.anything], "mechanism orbit")
        if (len(row["orbit"]) != 3 or any(isinstance(c, bool) or not isinstance(c, int)
                                           for c in (row["orbit"][0], row["orbit"][1],
                                                     *(row["orbit"][2] if isinstance(
                                                         row["orbit"][2], list) else [None])))):
            raise sch.SchemaError("a mechanism orbit is [integer, integer, [integers]]")
        o = (row["orbit"][0], row["orbit"][1], tuple(row["orbit"][2]))
        if o not in idx:
            return ReplayReport(False, (*lines, f"orbit {o} is not a size-{m} multiset orbit"))
        f[idx[o]] = exact(row["accept"])
    if any(not 0 <= v <= 1 for v in f):
        return ReplayReport(False, (*lines, "an acceptance probability is outside [0, 1]"))
    rows = constraints(orbits, m, mclass)
    if any(ai * f[i] + aj * f[j] > rhs for i, j, ai, aj, rhs in rows):
        return ReplayReport(False, (*lines, "the mechanism violates a group-profile constraint"))
    lines.append(f"mechanism: {len(orbits)} orbits, all {len(rows)} pairwise constraints "
                 f"D_t(M(Y)‖M(Y')) ≤ δ_d(Y,Y') hold exactly at t = {mclass.t}")
    p, q, universe = substitution_pair(n)
    wp = orbit_weights(design, p, universe, m)
    wq = orbit_weights(design, q, universe, m)
    pr_p = sum((pr * f[idx[o]] for o, pr in wp.items()), Fraction(0))
    pr_q = sum((pr * f[idx[o]] for o, pr in wq.items()), Fraction(0))
    value = pr_p - t_prime * pr_q
    if exact(obj["actual"]["value"]) != value:  # shown, so it must be the recomputed one
        return ReplayReport(False, (*lines, f"NOT confirmed: the stored actual δ' "
                                            f"{obj['actual']['value']} is not the recomputed "
                                            f"{value} (the file was edited)"))
    ok = value > claimed
    lines.append(f"Pr[accept|P] − t'·Pr[accept|P'] = {fraction_text(value)} "
                 f"vs claimed δ' = {fraction_text(claimed)} (t' = {fraction_text(t_prime)})")
    lines.append("CONFIRMED: the claimed bound is violated" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))
