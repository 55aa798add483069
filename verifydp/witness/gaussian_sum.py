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
from verifydp.exact.numtext import bracket_text, fraction_text, readable
from verifydp.population import Population, RecordType
from verifydp.witness import schema as sch
from verifydp.witness.base import ReplayReport

KIND = "gaussian-sum"

Values = tuple[tuple[Fraction, int], ...]  # (clipped contribution, number of records)
Mixture = tuple[tuple[Fraction, Fraction], ...]  # (mean of the sum, probability)
Divergence = Callable[[Mixture, Mixture, Fraction, Fraction], Bracket]
# the claim's own pair as datasets of n records with contributions in [−C, C] (None: the
# claim is not one about a Gaussian sum's worst pair); supplied by the casebook
ClaimedPair = Callable[[str, int, Fraction], "tuple[Values, Values] | None"]

MAX_N = 200  # the sum's law is enumerated over the design's count vectors
ABOUT = ("releases Σ_j K_j v_j + N(0, σ²), K_j the copies of record j (contribution v_j) in "
         "the design's sample")
QUANTITY = "hockey-stick δ(ε), max of both directions"
CERTIFIED_BY = "exact sample law; Descartes root isolation and rigorous erfc (interval arithmetic)"
_VALUES = [{"value": sch.rational(-10**6, 10**6, ints=False), "count": sch.integer(0, MAX_N)}]
_BRACKET = {"value": sch.text(200), "bracket": {"lo": sch.rational(0, 1, ints=False),
                                                "hi": sch.rational(0, 1, ints=False)}}

# the shape of a gaussian-sum witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "claim": sch.text(sch.MAX_ID), "tool": sch.text(200), "design": sch.design,
    "n": sch.integer(1, MAX_N), "clip": sch.rational(0, 10**6, open_lo=True, ints=False),
    "sigma": sch.rational(0, 10**6, open_lo=True, ints=False),
    "epsilon": sch.rational(0, 50, ints=False),
    "mechanism": {"kind": sch.text(equal=KIND), "about": sch.text(equal=ABOUT)},
    "populations": {"P": _VALUES, "P_prime": _VALUES},
    "claimed_pair": {"P": _VALUES, "P_prime": _VALUES},
    "quantity": sch.text(equal=QUANTITY),
    "claimed": _BRACKET, "actual": {**_BRACKET, "certified_by": sch.text(equal=CERTIFIED_BY)},
}


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


def _multiset(values: Values) -> tuple[tuple[Fraction, int], ...]:
    """A dataset as a multiset of contributions (order and zero counts do not matter)."""
    acc: dict[Fraction, int] = {}
    for v, k in values:
        acc[v] = acc.get(v, 0) + k
    return tuple(sorted((v, k) for v, k in acc.items() if k))


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
            "mechanism": {"kind": KIND, "about": ABOUT},
            "populations": {"P": _values_json(self.p_values),
                            "P_prime": _values_json(self.q_values)},
            "claimed_pair": {"P": _values_json(self.claimed_p),
                             "P_prime": _values_json(self.claimed_q)},
            "quantity": QUANTITY,
            "claimed": {"value": str(self.claimed_delta),
                        "bracket": self.claimed_delta.to_json()},
            "actual": {"value": str(self.actual_delta),
                       "bracket": self.actual_delta.to_json(),
                       "certified_by": CERTIFIED_BY},
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


def replay_json(obj: dict[str, Any], div: Divergence, claimed_pair: ClaimedPair) -> ReplayReport:
    """Re-verify from the stored datasets: neighbours, clipping, laws, both divergences.

    The pair the realisable one is compared with is the claim's own (`claimed_pair`, from the
    claim id), never the file's: a file may only restate it. The stored brackets are shown,
    so they must be the recomputed ones."""
    lines = [f"claim {obj['claim']}"]
    design = Design.from_json(obj["design"])
    n, clip = int(obj["n"]), Fraction(obj["clip"])
    sigma, eps = Fraction(obj["sigma"]), Fraction(obj["epsilon"])
    own = claimed_pair(obj["claim"], n, clip)
    if own is None:
        return ReplayReport(False, (*lines, f"NOT confirmed: {obj['claim']} is not a claim "
                                            "about the worst pair of a Gaussian sum"))
    stored = (_values_from(obj["claimed_pair"]["P"]), _values_from(obj["claimed_pair"]["P_prime"]))
    if tuple(map(_multiset, stored)) != tuple(map(_multiset, own)):
        return ReplayReport(False, (*lines, f"NOT confirmed: the stored claimed pair is not "
                                            f"the pair {obj['claim']} states at n = {n}, "
                                            f"C = {clip}"))
    pairs = {}
    for key, label in (("populations", "realisable pair"), ("claimed_pair", "claimed pair")):
        p, q = (_values_from(obj[key]["P"]), _values_from(obj[key]["P_prime"])) \
            if key == "populations" else own
        problem = _neighbours_problem(p, q, n, clip)
        if problem:
            return ReplayReport(False, (*lines, f"{label}: {problem}"))
        pairs[key] = (p, q)
    lines.append(f"both pairs: substitution neighbours of n = {n} records in "
                 f"[−{fraction_text(clip)}, {fraction_text(clip)}]")
    actual = both_directions(div, *sum_laws(design, *pairs["populations"]), sigma, eps)
    claimed = both_directions(div, *sum_laws(design, *pairs["claimed_pair"]), sigma, eps)
    lines.append(f"δ(ε = {fraction_text(eps)}) at σ = {fraction_text(sigma)}, "
                 f"{readable(str(design.to_json()))}: realisable pair "
                 f"{bracket_text(actual.lo, actual.hi)}; claimed worst pair "
                 f"{bracket_text(claimed.lo, claimed.hi)}")
    for name, br in (("claimed", claimed), ("actual", actual)):
        # the checker brackets the same δ along another path (the law of K, not of the sum),
        # so the ends may differ past the shown digits: the shown text must be the recomputed
        # one, and the stored bracket must print as it and overlap the recomputed one
        stored_br = Bracket.from_json(obj[name]["bracket"])
        if obj[name]["value"] != str(br) or str(stored_br) != str(br) \
                or stored_br.lo > br.hi or stored_br.hi < br.lo:
            return ReplayReport(False, (*lines, f"NOT confirmed: the stored {name} δ is not "
                                                f"the recomputed {br} (the file was edited)"))
    ok = actual.lo > claimed.hi
    lines.append("CONFIRMED: the realisable pair has the larger δ" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))
