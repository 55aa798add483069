"""Exact worst case over ALL base mechanisms of a class (docs/foundations.md).

For sample laws p = law(C(P)) and q = law(C(P')) and a class of base mechanisms
(ε-DP or (ε, δ)-DP under a neighbouring relation), compute certified brackets of

* the max-divergence  sup_M sup_E Pr[M(C(P)) ∈ E] / Pr[M(C(P')) ∈ E]   (pure ε only), and
* the hockey-stick    sup_M sup_E Pr[M(C(P)) ∈ E] − t'·Pr[M(C(P')) ∈ E],

each with a witness mechanism (an exactly feasible acceptance function on the region).

e^ε is irrational in general: the class is given by rationals t_lo ≤ e^ε ≤ t_hi. The feasible
set grows with t, so the LP at t_lo gives a certified lower bound (its witness is t_lo-DP, hence
ε-DP) and the LP at t_hi a certified upper bound (fact 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Relation
from verifydp.worstcase import certify, lp
from verifydp.worstcase.region import Classes, Region, build_region, canonical, components


@dataclass(frozen=True)
class MechanismClass:
    """Base mechanisms that are (ε, δ)-DP under `relation`, with t_lo ≤ e^ε ≤ t_hi."""

    relation: Relation
    t_lo: Fraction
    t_hi: Fraction
    delta: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if not (1 <= self.t_lo <= self.t_hi):
            raise ValueError("need 1 ≤ t_lo ≤ t_hi (t = e^ε, ε ≥ 0)")
        if not (0 <= self.delta <= 1):
            raise ValueError("δ must be in [0, 1]")

    @staticmethod
    def pure(relation: Relation, t: Fraction | int) -> MechanismClass:
        return MechanismClass(relation, Fraction(t), Fraction(t))

    @property
    def exact_t(self) -> bool:
        return self.t_lo == self.t_hi

    def to_json(self) -> dict[str, Any]:
        return {
            "relation": self.relation.value,
            "t_lo": str(self.t_lo),
            "t_hi": str(self.t_hi),
            "delta": str(self.delta),
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MechanismClass:
        return MechanismClass(
            Relation.parse(obj["relation"]),
            Fraction(obj["t_lo"]),
            Fraction(obj["t_hi"]),
            Fraction(obj.get("delta", "0")),
        )


@dataclass(frozen=True)
class AcceptanceWitness:
    """A binary mechanism f: region → [0, 1], exactly (t, δ)-DP on the region's edges.

    It extends to every dataset over the universe through `region.retract` (non-expansive),
    and to datasets with other values by mapping them to a fixed universe type (fact 2).
    """

    region: Region
    values: tuple[Fraction, ...]
    t: Fraction
    delta: Fraction
    pr_p: Fraction
    pr_q: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "t": str(self.t),
            "delta": str(self.delta),
            "symmetry": [list(c) for c in self.region.classes],
            "table": [
                {"counts": list(x), "accept": str(v)}
                for x, v in zip(self.region.points, self.values)
                if v
            ],
            "pr_P": str(self.pr_p),
            "pr_P_prime": str(self.pr_q),
        }


@dataclass(frozen=True)
class Bound:
    """Certified bracket lower ≤ true value ≤ upper; None means +∞."""

    lower: Fraction | None
    upper: Fraction | None
    witness: AcceptanceWitness | None = field(default=None, compare=False)

    @property
    def infinite(self) -> bool:
        return self.lower is None

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


@dataclass(frozen=True)
class WorstCase:
    """Both directions (P vs P' and P' vs P) and the LP size."""

    forward: Bound
    backward: Bound
    lp_points: int
    lp_edges: int

    @property
    def worst(self) -> Bound:
        """The direction with the larger certified lower bound."""
        f, b = self.forward, self.backward
        if f.lower is None:
            return f
        if b.lower is None:
            return b
        return f if f.lower >= b.lower else b

    @property
    def upper(self) -> Fraction | None:
        ups = (self.forward.upper, self.backward.upper)
        return None if any(u is None for u in ups) else max(ups)  # type: ignore[type-var]


def _vectors(
    region: Region, law: FiniteDist[CountVector]
) -> tuple[list[Fraction], np.ndarray]:
    idx = region.index()
    exact = [Fraction(0)] * len(region.points)
    for x, pr in law:
        exact[idx[x]] += pr
    return exact, np.array([float(v) for v in exact])


class NotSymmetric(ValueError):
    """A claimed symmetry that the sample laws do not have."""


def symmetrise(
    law: FiniteDist[CountVector], classes: Classes
) -> FiniteDist[CountVector]:
    """Check exactly that `law` is invariant under every transposition within each class, and
    return its image on orbit representatives (fact 4)."""
    for cls in classes:
        for a, b in zip(cls, cls[1:]):
            for x, pr in law:
                y = list(x)
                y[a], y[b] = y[b], y[a]
                if law.prob(tuple(y)) != pr:
                    raise NotSymmetric(f"law not invariant under swapping coordinates {a}, {b}")
    return law.map(lambda x: canonical(x, classes)) if classes else law


def region_for(
    law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector], relation: Relation,
    max_points: int = 200_000, classes: Classes = (),
) -> Region:
    supports = list(law_p.support()) + list(law_q.support())
    return build_region(supports, relation, max_points, classes)


def worst_case_ratio(
    law_p: FiniteDist[CountVector],
    law_q: FiniteDist[CountVector],
    mclass: MechanismClass,
    max_points: int = 200_000,
    classes: Classes = (),
) -> WorstCase:
    """Certified sup over all ε-DP base mechanisms of the privacy-loss ratio, both ways.

    `classes`: coordinates that are interchangeable (checked exactly on both laws); the LP is
    then solved over orbits, which is exact by fact 4."""
    if mclass.delta != 0:
        raise ValueError("the ratio is unbounded for δ > 0; use worst_case_hockey")
    law_p, law_q = symmetrise(law_p, classes), symmetrise(law_q, classes)
    region = region_for(law_p, law_q, mclass.relation, max_points, classes)
    fwd = _ratio_one_way(region, law_p, law_q, mclass)
    bwd = _ratio_one_way(region, law_q, law_p, mclass)
    return WorstCase(fwd, bwd, len(region.points), len(region.edges))


def _ratio_one_way(
    region: Region,
    law_p: FiniteDist[CountVector],
    law_q: FiniteDist[CountVector],
    mclass: MechanismClass,
) -> Bound:
    p_ex, _ = _vectors(region, law_p)
    q_ex, _ = _vectors(region, law_q)
    comp = components(region)
    q_comps = {comp[i] for i, v in enumerate(q_ex) if v > 0}
    outside = [i for i, v in enumerate(p_ex) if v > 0 and comp[i] not in q_comps]
    if outside:
        # f = 1 on the components P reaches and P' does not: constant on each component,
        # so every DP constraint holds, and Pr_{P'}[f] = 0 < Pr_P[f].
        bad = {comp[i] for i in outside}
        f = tuple(Fraction(1) if comp[i] in bad else Fraction(0) for i in range(len(comp)))
        wit = AcceptanceWitness(
            region, f, mclass.t_lo, Fraction(0), certify.dot(p_ex, f), certify.dot(q_ex, f)
        )
        return Bound(None, None, wit)
    keep = [i for i in range(len(comp)) if comp[i] in q_comps]
    sub = _subregion(region, keep)
    p_sub = [p_ex[i] for i in keep]
    q_sub = [q_ex[i] for i in keep]
    p_fl = np.array([float(v) for v in p_sub])
    q_fl = np.array([float(v) for v in q_sub])

    sol_lo = lp.solve_ratio(sub, p_fl, q_fl, mclass.t_lo)
    lower, g = certify.ratio_lower(sub, p_sub, q_sub, mclass.t_lo, sol_lo.primal)
    sol_hi = sol_lo if mclass.exact_t else lp.solve_ratio(sub, p_fl, q_fl, mclass.t_hi)
    upper = certify.ratio_upper(
        sub, p_sub, q_sub, mclass.t_hi, sol_hi.edge_duals, sol_hi.extra_dual
    )
    full = [Fraction(0)] * len(region.points)
    for k, i in enumerate(keep):
        full[i] = g[k]
    wit = AcceptanceWitness(
        region, tuple(full), mclass.t_lo, Fraction(0), certify.dot(p_ex, full),
        certify.dot(q_ex, full),
    )
    assert wit.pr_q > 0 and wit.pr_p / wit.pr_q == lower
    return Bound(lower, max(upper, lower), wit)


def _subregion(region: Region, keep: list[int]) -> Region:
    pos = {i: k for k, i in enumerate(keep)}
    edges = tuple(
        (pos[i], pos[j]) for i, j in region.edges if i in pos and j in pos
    )
    pts = tuple(region.points[i] for i in keep)
    return Region(region.relation, region.layers, pts, edges, region.classes)


def worst_case_hockey(
    law_p: FiniteDist[CountVector],
    law_q: FiniteDist[CountVector],
    mclass: MechanismClass,
    t_prime_lo: Fraction,
    t_prime_hi: Fraction,
    max_points: int = 200_000,
    classes: Classes = (),
) -> WorstCase:
    """Certified sup over all (ε, δ)-DP base mechanisms of the hockey-stick divergence
    D_{t'}(M(C(P)) ‖ M(C(P'))), with t_prime_lo ≤ e^{ε'} ≤ t_prime_hi, both directions."""
    law_p, law_q = symmetrise(law_p, classes), symmetrise(law_q, classes)
    region = region_for(law_p, law_q, mclass.relation, max_points, classes)
    fwd = _hockey_one_way(region, law_p, law_q, mclass, t_prime_lo, t_prime_hi)
    bwd = _hockey_one_way(region, law_q, law_p, mclass, t_prime_lo, t_prime_hi)
    return WorstCase(fwd, bwd, len(region.points), len(region.edges))


def _hockey_one_way(
    region: Region,
    law_p: FiniteDist[CountVector],
    law_q: FiniteDist[CountVector],
    mclass: MechanismClass,
    tp_lo: Fraction,
    tp_hi: Fraction,
) -> Bound:
    p_ex, p_fl = _vectors(region, law_p)
    q_ex, q_fl = _vectors(region, law_q)
    # the objective decreases in t', the feasible set grows in t
    c_lo = [a - tp_hi * b for a, b in zip(p_ex, q_ex)]
    c_hi = [a - tp_lo * b for a, b in zip(p_ex, q_ex)]
    sol_lo = lp.solve_hockey(region, p_fl, q_fl, mclass.t_lo, mclass.delta, tp_hi)
    lower, f = certify.hockey_lower(region, c_lo, mclass.t_lo, mclass.delta, sol_lo.primal)
    if mclass.exact_t and tp_lo == tp_hi:
        sol_hi = sol_lo
    else:
        sol_hi = lp.solve_hockey(region, p_fl, q_fl, mclass.t_hi, mclass.delta, tp_lo)
    upper = certify.hockey_upper(region, c_hi, mclass.t_hi, mclass.delta, sol_hi.edge_duals)
    wit = AcceptanceWitness(
        region, tuple(f), mclass.t_lo, mclass.delta, certify.dot(p_ex, f), certify.dot(q_ex, f)
    )
    lower = max(lower, Fraction(0))  # f ≡ 0 is always feasible
    return Bound(lower, max(upper, lower), wit)
