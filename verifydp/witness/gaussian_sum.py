"""Witnesses against "this pair is a worst case" claims for the Gaussian sum of clipped
contributions under a sampling design (Zhao & Liu, MUST §3.3, claim `must/sec3.3:pair`;
docs/foundations.md#witnesses).

The file stores the design, the noise σ, ε, the clipping bound C, two neighbouring datasets
(each record's clipped contribution) that the claim says are no worse than its own pair, and
the claim's pair as two datasets too.  `replay_json` re-checks that both pairs are
substitution neighbours of n records with every contribution in [−C, C], rebuilds the law of
the released sum Σ_j K_j v_j from the design's exact sample law over count vectors, and
recomputes both hockey-stick divergences (both directions) with the rigorous bracket it is
given; the stored numbers are only displayed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp import __version__
from verifydp.designs.base import Design
from verifydp.exact.interval import Bracket
from verifydp.population import Population, RecordType
from verifydp.witness.base import ReplayReport

KIND = "gaussian-sum"

Values = tuple[tuple[Fraction, int], ...]  # (clipped contribution, number of records)
Mixture = tuple[tuple[Fraction, Fraction], ...]  # (mean of the sum, probability)
Divergence = Callable[[Mixture, Mixture, Fraction, Fraction], Bracket]


def _population(values: Values) -> Population:
    return Population.of((RecordType(str(Fraction(v))), k) for v, k in values)


def sum_laws(design: Design, p_values: Values, q_values: Values) -> tuple[Mixture, Mixture]:
    """The exact law of Σ_j K_j v_j on each dataset, from the design's sample law over count
    vectors (no law of K, no reduction of the other records)."""
    pops = (_population(p_values), _population(q_values))
    universe = tuple(sorted({rt for pop in pops for rt in pop.types()}, key=lambda r: r.key()))
    out = []
    for pop in pops:
        acc: dict[Fraction, Fraction] = {}
        for counts, pr in design.sample_law(pop, universe):
            mu = sum((k * Fraction(rt.value) for rt, k in zip(universe, counts, strict=True)),
                     Fraction(0))
            acc[mu] = acc.get(mu, Fraction(0)) + Fraction(pr)
        out.append(tuple(sorted((mu, w) for mu, w in acc.items() if w)))
    return out[0], out[1]


def both_directions(div: Divergence, p: Mixture, q: Mixture, sigma: Fraction,
                    eps: Fraction) -> Bracket:
    a, b = div(p, q, sigma, eps), div(q, p, sigma, eps)
    return Bracket(max(a.lo, b.lo), max(a.hi, b.hi))


def _values_json(values: Values) -> list[dict[str, Any]]:
    return [{"value": str(v), "count": k} for v, k in values]


def _values_from(obj: list[dict[str, Any]]) -> Values:
    return tuple((Fraction(e["value"]), int(e["count"])) for e in obj)


def _neighbours_problem(p: Values, q: Values, n: int, clip: Fraction) -> str | None:
    """Why (p, q) is not a substitution pair of n records in [−C, C] (None when it is)."""
    for name, vals in (("P", p), ("P'", q)):
        if sum(k for _, k in vals) != n or any(k < 0 for _, k in vals):
            return f"{name} does not have n = {n} records"
        if any(abs(v) > clip for v, k in vals if k):
            return f"{name} has a contribution outside [−{clip}, {clip}]"
    cp: dict[Fraction, int] = {}
    for v, k in p:
        cp[v] = cp.get(v, 0) + k
    for v, k in q:
        cp[v] = cp.get(v, 0) - k
    if sorted(k for k in cp.values() if k) not in ([], [-1, 1]):
        return "P and P' do not differ in exactly one record"
    return None


@dataclass(frozen=True)
class GaussianSumWitness:
    """A realisable pair (p_values, q_values) whose δ(ε) exceeds that of the claim's pair
    (claimed_p, claimed_q), for the sum released with N(0, σ²) noise after `design`."""

    claim: str
    design: Design
    n: int
    sigma: Fraction
    epsilon: Fraction
    p_values: Values
    q_values: Values
    claimed_p: Values
    claimed_q: Values
    claimed_delta: Bracket
    actual_delta: Bracket
    clip: Fraction = Fraction(1)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "design": self.design.to_json(),
            "n": self.n,
            "clip": str(self.clip),
            "sigma": str(self.sigma),
            "epsilon": str(self.epsilon),
            "mechanism": {"kind": KIND,
                          "about": "releases Σ_j K_j v_j + N(0, σ²), K_j the copies of "
                                   "record j (contribution v_j) in the design's sample"},
            "populations": {"P": _values_json(self.p_values),
                            "P_prime": _values_json(self.q_values)},
            "claimed_pair": {"P": _values_json(self.claimed_p),
                             "P_prime": _values_json(self.claimed_q)},
            "quantity": "hockey-stick δ(ε), max of both directions",
            "claimed": {"value": str(self.claimed_delta),
                        "bracket": self.claimed_delta.to_json()},
            "actual": {"value": str(self.actual_delta),
                       "bracket": self.actual_delta.to_json(),
                       "certified_by": "exact sample law; Descartes root isolation and "
                                       "rigorous erfc (interval arithmetic)"},
        }

    def csv_text(self) -> str:
        buf = io.StringIO()
        wr = csv.writer(buf)
        wr.writerow(["dataset", "value", "count"])
        for name, vals in (("P", self.p_values), ("P_prime", self.q_values),
                           ("claimed_P", self.claimed_p), ("claimed_P_prime", self.claimed_q)):
            for v, k in vals:
                wr.writerow([name, str(v), k])
        return buf.getvalue()


def replay_json(obj: dict[str, Any], div: Divergence) -> ReplayReport:
    """Re-verify from the stored datasets: neighbours, clipping, laws, both divergences."""
    lines = [f"claim {obj['claim']}"]
    design = Design.from_json(obj["design"])
    n, clip = int(obj["n"]), Fraction(obj["clip"])
    sigma, eps = Fraction(obj["sigma"]), Fraction(obj["epsilon"])
    if sigma <= 0 or eps < 0:
        return ReplayReport(False, (*lines, "σ must be positive and ε non-negative"))
    pairs = {}
    for key, label in (("populations", "realisable pair"), ("claimed_pair", "claimed pair")):
        p, q = _values_from(obj[key]["P"]), _values_from(obj[key]["P_prime"])
        problem = _neighbours_problem(p, q, n, clip)
        if problem:
            return ReplayReport(False, (*lines, f"{label}: {problem}"))
        pairs[key] = (p, q)
    lines.append(f"both pairs: substitution neighbours of n = {n} records in [−{clip}, {clip}]")
    actual = both_directions(div, *sum_laws(design, *pairs["populations"]), sigma, eps)
    claimed = both_directions(div, *sum_laws(design, *pairs["claimed_pair"]), sigma, eps)
    lines.append(f"δ(ε = {eps}) at σ = {sigma}, {design.to_json()}: realisable pair {actual}; "
                 f"claimed worst pair {claimed}")
    ok = actual.lo > claimed.hi
    lines.append("CONFIRMED: the realisable pair has the larger δ" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))
