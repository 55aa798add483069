"""The scaled-down instance of a design: population pairs small enough to solve exactly.

The exact worst case over all base mechanisms (verifydp.worstcase) is computed on a smaller
population with the same rates and shapes as the design file's: the same sampling fraction
(m/N, b/N, r, q, 1/interval), the same strata (shrunk), the largest clusters (capped), the same
size measures. The result is exact *for that instance*; it is reported as such, never as the
full-size answer (the catalogued theorems speak to the full size).

Population pairs are canonical, as in verifydp/claims/bun.py: common records of one type `a`
per stratum or cluster and one differing record. For designs that treat records symmetrically
this pair is at least as bad as any pair of the same sizes with all records distinct (orbit
averaging, docs/foundations.md#fact-4), so the instance's worst case is the worst case over all
populations of those sizes. Designs that are not symmetric (PPS, fixed-order systematic) get a
few explicit pairs, and the report says the worst case is over those pairs.

The full size (issue 16): `full_size_answer` solves the exact worst case at the design file's
own N through the orbit coordinates of docs/foundations.md#fact-8 (work set by the orbits, not
by N), for every neighbouring pair the relation allows; where a design has no reduction, or the
orbit grid exceeds its limit, the answer says which limit was hit and stays undetermined.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from verifydp.accounting.pps import pps_fixed_rate
from verifydp.audit.spec import AuditSpec, build_design
from verifydp.designs import (
    ClusterPPS,
    ClusterSRS,
    Design,
    PoissonPPS,
    StratifiedFixed,
    StratifiedProportional,
    SuccessivePPS,
    SystematicFixed,
    TwoStageCluster,
)
from verifydp.designs.allocation import round_allocation
from verifydp.designs.must import k_law_head
from verifydp.designs.neyman import SearchResult, most_sensitive_neighbour
from verifydp.exact.dist import FiniteDist
from verifydp.exact.numtext import number_text
from verifydp.exact.special import brackets_for_eps
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, RegionTooLarge
from verifydp.worstcase import fullsize as fs
from verifydp.worstcase.lp import LPFailure
from verifydp.worstcase.scenario import Scenario

CLUSTER_CAP = 4  # records per cluster in the scaled instance (the LP grows fast beyond)
TWO_STAGE_CAP = 8
MAX_CLUSTERS = 5
PPS_RECORDS = 10
SYSTEMATIC_RECORDS = 8
NEYMAN_STRATA = 4  # strata whose allocation moves, kept in the Neyman instance
MUST_RECORDS = 20  # beyond, the two-stage laws make the LP ill-conditioned (loose certificates)
SAMPLED = 4  # records sampled in the scaled SRS instance at least (keeps m/N close)
SIMPLE_MAX = 5000


@dataclass(frozen=True)
class Instance:
    """The scaled-down instance: its scenarios, how it was scaled, and (Neyman) the search."""

    scenarios: tuple[Scenario, ...]
    note: str
    neyman: SearchResult | None = None


def scaled(x: int | Fraction, total: int, small: int, lo: int = 0) -> int:
    """x records of `total` scaled to a population of `small`, rounded half-up, ≥ lo."""
    return max(lo, floor(Fraction(x) * small / total + Fraction(1, 2)))


def _a(stratum: str | None = None, cluster: str | None = None) -> RecordType:
    return RecordType("a", stratum, cluster)


def add_pairs(n: int, stratum: str | None = None) -> list[tuple[str, PopulationPair]]:
    """P of n records and P' = P plus one (and P' = P minus one): both add-remove sides."""
    a, x = _a(stratum), RecordType("x", stratum)
    out = [(f"add a record to {n}", PopulationPair(
        Population.of({a: n}), Population.of({a: n, x: 1}), Relation.ADD_REMOVE))]
    if n > 1:
        out.append((f"remove a record from {n}", PopulationPair(
            Population.of({a: n - 1, x: 1}), Population.of({a: n - 1}), Relation.ADD_REMOVE)))
    return out


def replace_pairs(n: int, stratum: str | None = None) -> list[tuple[str, PopulationPair]]:
    a, x, y = _a(stratum), RecordType("x", stratum), RecordType("y", stratum)
    return [(f"replace one record of {n}", PopulationPair(
        Population.of({a: n - 1, x: 1}), Population.of({a: n - 1, y: 1}), Relation.REPLACE))]


def pairs_for(relation: Relation, n: int, stratum: str | None = None
              ) -> list[tuple[str, PopulationPair]]:
    return add_pairs(n, stratum) if relation is Relation.ADD_REMOVE else replace_pairs(n, stratum)


# ---------------------------------------------------------------- unstratified designs


def sizes_to_try(n: int, r: Fraction, rounding: str) -> list[int]:
    """n, and for deterministic rounding also the first size ≥ n where round(r|P|) jumps
    (the worst pair under add-remove sits at a jump: Bun et al. §4.3)."""
    if rounding == "randomised":
        return [n]
    jumps = (k for k in range(n, n + ceil(1 / r) + 1)
             if round_allocation(r * k, rounding) != round_allocation(r * (k + 1), rounding))
    return sorted({n, next(jumps, n)})


def _simple(spec: AuditSpec) -> Instance:
    kind, p, big = spec.kind, dict(spec.params), spec.size
    n = min(big, spec.instance_size)
    if kind in ("srswor", "srswr") and p["m"]:
        # a small sampling fraction needs a larger instance to be kept; these LPs stay tiny
        n = min(big, max(n, ceil(SAMPLED * big / p["m"])), SIMPLE_MAX)
    if kind == "proportional":
        n = min(big, max(n, ceil(1 / p["r"])))  # Theorem 4.3 needs |P| ≥ 1/r
    if kind.startswith("must-"):
        n = min(n, MUST_RECORDS)
    if kind == "systematic-random":
        n = min(big, max(n, 2 * p["interval"]))
    sizes = sizes_to_try(n, p["r"], p["rounding"]) if kind == "proportional" else [n]
    scen = []
    for size in sizes:
        for label, pair in pairs_for(spec.protect, size):
            small = min(pair.p.size, pair.q.size)
            q = dict(p)
            if kind in ("srswor", "srswr"):
                q["m"] = min(small, scaled(p["m"], big, size, 1 if p["m"] else 0)) \
                    if kind == "srswor" else scaled(p["m"], big, size, 1 if p["m"] else 0)
            elif kind == "random-size":
                law: dict[int, Fraction] = {}
                for m, pr in p["size_law"].items():
                    k = min(small, scaled(m, big, size))
                    law[k] = law.get(k, Fraction(0)) + pr
                q["size_law"] = law
            elif kind.startswith("must-"):
                b = scaled(p["b"], big, size, 1 if p["b"] else 0)
                if kind == "must-ow":
                    b = min(b, small)
                m = scaled(p["m"], big, size, 1 if p["m"] else 0)
                q["b"], q["m"] = b, min(m, b) if kind == "must-wo" else m
            shape = {k: (str(v) if isinstance(v, Fraction) else v) for k, v in q.items()
                     if k != "size_law"}
            scen.append(Scenario(label, pair, build_design(kind, q), shape={"N": size, **shape}))
    note = (f"population of {big} scaled to {sizes[0]}" if big > sizes[0]
            else f"full population ({big} records)")
    return Instance(tuple(scen), note)


# ---------------------------------------------------------------- stratified designs


def _stratum_size(spec: AuditSpec, n_h: int) -> int:
    n = min(n_h, spec.instance_size)
    if "r" in spec.params:
        n = min(n_h, max(n, ceil(1 / spec.params["r"])))
    return n


def _stratified(spec: AuditSpec) -> Instance:
    p, scen = spec.params, []
    seen: set[tuple[int, int]] = set()
    for s in spec.strata:
        n0 = _stratum_size(spec, s.size)
        if spec.kind == "stratified-proportional":
            design: Design = StratifiedProportional(p["r"], p["rounding"])
            sizes = sizes_to_try(n0, p["r"], p["rounding"])
        else:
            design = StratifiedFixed({s.name: min(n0, scaled(p["sizes"][s.name], s.size, n0))})
            sizes = [n0]
        for n in sizes:
            key = (n, 0 if spec.kind == "stratified-proportional" else s.size)
            if key in seen:
                continue
            seen.add(key)
            for label, pair in pairs_for(spec.protect, n, s.name):
                if spec.kind == "stratified-fixed" and \
                        design.sizes[s.name] > min(pair.p.size, pair.q.size):  # type: ignore[attr-defined]
                    continue
                scen.append(Scenario(f"{label} in stratum {s.name!r}", pair, design,
                                     shape={"stratum": s.name, "N_h": n, **design.params()}))
    if spec.protect is Relation.REPLACE and len(spec.strata) > 1:
        scen.append(_cross_stratum(spec))
    scaled_any = any(_stratum_size(spec, s.size) < s.size for s in spec.strata)
    note = ("each stratum scaled to at most "
            f"{spec.instance_size} records (strata are sampled independently, so one stratum "
            "carries the worst case)" if scaled_any else "full strata")
    return Instance(tuple(scen), note)


def _cross_stratum(spec: AuditSpec) -> Scenario:
    """A record replaced by one of another stratum: both stratum sizes change."""
    g, h = sorted(spec.strata, key=lambda s: s.size)[:2]
    ng, nh = _stratum_size(spec, g.size), _stratum_size(spec, h.size)
    ag, ah, x, y = _a(g.name), _a(h.name), RecordType("x", g.name), RecordType("y", h.name)
    pair = PopulationPair(Population.of({ag: ng - 1, x: 1, ah: nh}),
                          Population.of({ag: ng - 1, ah: nh, y: 1}), Relation.REPLACE)
    p = spec.params
    if spec.kind == "stratified-proportional":
        design: Design = StratifiedProportional(p["r"], p["rounding"])
        design_q = None
    else:
        mg = min(ng - 1, scaled(p["sizes"][g.name], g.size, ng))
        mh = min(nh, scaled(p["sizes"][h.name], h.size, nh))
        design, design_q = StratifiedFixed({g.name: mg, h.name: mh}), None
    return Scenario(f"move a record from stratum {g.name!r} to {h.name!r}", pair, design,
                    design_q, shape={"strata": f"{g.name}={ng}, {h.name}={nh}",
                                     **design.params()})


def _neyman(spec: AuditSpec) -> Instance:
    res = _neyman_search(spec)
    h, nb = res.stratum, res.neighbour
    full = {s.name: s.size for s in spec.strata}
    # the strata of the changed record and those whose allocation moves (largest moves first)
    moved = sorted((h_ for h_ in full if res.alloc.get(h_, 0) != res.base.get(h_, 0)),
                   key=lambda h_: -abs(res.alloc.get(h_, 0) - res.base.get(h_, 0)))
    involved = sorted({h, *moved[:NEYMAN_STRATA],
                       *(rt.stratum for rt in (nb.removed, nb.added) if rt is not None)})
    common: dict[RecordType, int] = {}
    sizes_p: dict[str, int] = {}
    sizes_q: dict[str, int] = {}
    for g in involved:
        base, new = res.base.get(g, 0), res.alloc.get(g, 0)
        # large enough that the scaled allocation exceeds the change, which is kept exactly
        n = min(full[g], max(spec.instance_size,
                             ceil(full[g] * (abs(new - base) + 1) / max(base, 1))), 2000)
        common[_a(g)] = n - (1 if nb.removed is not None and nb.removed.stratum == g else 0)
        m = scaled(base, full[g], n)
        sizes_p[g], sizes_q[g] = m, max(0, m + new - base)
    p_pop = dict(common)
    q_pop = dict(common)
    if nb.removed is not None:
        p_pop[RecordType("x", nb.removed.stratum)] = 1
    if nb.added is not None:
        q_pop[RecordType("y", nb.added.stratum)] = 1
    pair = PopulationPair(Population.of(p_pop), Population.of(q_pop), nb.relation)
    for g in involved:  # the allocation can never exceed the stratum
        sizes_p[g] = min(sizes_p[g], pair.p.stratum(g).size)
        sizes_q[g] = min(sizes_q[g], pair.q.stratum(g).size)
    change = ", ".join(f"{g}: {sizes_p[g]} → {sizes_q[g]}" for g in involved)
    scen = Scenario(
        f"{nb.describe()}; scaled allocations {change}", pair,
        StratifiedFixed(sizes_p), StratifiedFixed(sizes_q),
        shape={"strata": {g: common[_a(g)] for g in involved}, "m": sizes_p, "m'": sizes_q},
    )
    note = (f"most sensitive neighbour of the full population (exact search over "
            f"{res.candidates} neighbours): {nb.describe()}, allocation of stratum {h!r} "
            f"{res.base.get(h, 0)} → {res.alloc.get(h, 0)} (Δ = {res.delta}); the strata "
            "involved are scaled with the change Δ kept exactly")
    return Instance((scen,), note, res)


# ---------------------------------------------------------------- cluster designs


def cluster_shape(sizes: tuple[int, ...], cap: int = CLUSTER_CAP) -> tuple[int, ...]:
    """Largest two clusters and the smallest ones, at most MAX_CLUSTERS, capped at `cap`."""
    k = len(sizes)
    if k <= MAX_CLUSTERS:
        pick = list(sizes)
    else:
        pick = [sizes[0], sizes[1], *sizes[k - (MAX_CLUSTERS - 2):]]
    return tuple(min(s, cap) for s in pick)


def _clusters(spec: AuditSpec) -> Instance:
    p, kind = spec.params, spec.kind
    # two-stage samples are small, so clusters can stay larger (and keep their within rate)
    cap = TWO_STAGE_CAP if kind == "two-stage-cluster" else CLUSTER_CAP
    shape = cluster_shape(spec.clusters, cap)
    k, k_s = len(spec.clusters), len(shape)
    ell = p["ell"]
    ell_s = k_s if ell == k else min(k_s - 1, max(1, round(ell * k_s / k)))
    if kind == "cluster-srs":
        design: Design = ClusterSRS(ell_s)
    elif kind == "cluster-pps":
        design = ClusterPPS(ell_s)
    else:
        m_s = max(1, scaled(p["m"], spec.clusters[0], shape[0])) if p.get("m") else 0
        design = TwoStageCluster(ell_s, p["within"],
                                 p["q"] if p["within"] == "poisson" else m_s)
    types = [RecordType(f"c{j}", cluster=f"c{j}") for j in range(k_s)]
    common = dict(zip(types, shape))
    if spec.protect is Relation.ADD_REMOVE:
        x = RecordType("x", cluster="c0")
        pair = PopulationPair(Population.of(common), Population.of({**common, x: 1}),
                              Relation.ADD_REMOVE)
        label = f"add a record to the largest cluster (size {shape[0]})"
    else:
        base = {**common, types[0]: shape[0] - 1}
        x, y = RecordType("x", cluster="c0"), RecordType("y", cluster="c0")
        pair = PopulationPair(Population.of({**base, x: 1}), Population.of({**base, y: 1}),
                              Relation.REPLACE)
        label = f"replace a record of the largest cluster (size {shape[0]})"
    groups: dict[int, list[RecordType]] = {}
    for j in range(1, k_s):
        groups.setdefault(shape[j], []).append(types[j])
    sym = tuple(tuple(g) for g in groups.values() if len(g) > 1)
    dims = {"cluster sizes": list(shape), "ell": ell_s, **design.params()}
    scens = [Scenario(label, pair, design, symmetric=sym, shape=dims)]
    if spec.cluster_frame == "open":
        # a record type carries its cluster: a neighbour may form, dissolve or change one
        own = RecordType("x", cluster="new")
        if spec.protect is Relation.ADD_REMOVE:
            moved = PopulationPair(Population.of(common), Population.of({**common, own: 1}),
                                   Relation.ADD_REMOVE)
            scens.append(Scenario("add a record as a new cluster", moved, design,
                                  symmetric=sym, shape=dims))
        else:
            base = {**common, types[0]: shape[0] - 1}
            x = RecordType("x", cluster="c0")
            for dest, what in ((RecordType("y", cluster="new"), "a new cluster"),
                               (RecordType("y", cluster=f"c{k_s - 1}"),
                                f"a cluster of size {shape[-1]}")):
                moved = PopulationPair(Population.of({**base, x: 1}),
                                       Population.of({**base, dest: 1}), Relation.REPLACE)
                scens.append(Scenario(f"move a record from the largest cluster to {what}",
                                      moved, design, shape=dims))
    capped = shape != spec.clusters
    note = (f"{k} clusters (largest {spec.clusters[0]}) scaled to {k_s} clusters of sizes "
            f"{list(shape)} (capped at {cap}; ℓ = {ell_s}); larger clusters only make the "
            "chosen clusters easier to detect" if capped else "full population")
    return Instance(tuple(scens), note)


# ---------------------------------------------------------------- PPS


def _pps(spec: AuditSpec) -> Instance:
    classes = spec.size_classes
    keep = sorted({classes[0], classes[-1],
                   *sorted(classes, key=lambda c: -c[1])[:2]})
    total = sum(c for _, c in keep)
    n_s = min(spec.size, PPS_RECORDS)
    counts = [max(1, scaled(c, total, n_s)) for _, c in keep]
    n_s = sum(counts)
    measures = {f"s{j}": m for j, (m, _) in enumerate(keep)}
    lo, hi = keep[0][0], keep[-1][0]
    measures["x"] = measures["z"] = hi
    measures["y"] = lo
    common = {RecordType(f"s{j}"): c for j, c in enumerate(counts)}
    p = spec.params
    if spec.kind == "poisson-pps":
        design: Design = PoissonPPS(p["expected_size"] * n_s / spec.size, measures)
    else:
        design = SuccessivePPS(max(1, min(n_s - 1, scaled(p["m"], spec.size, n_s))), measures)
    scen = []
    if spec.protect is Relation.ADD_REMOVE:
        for v, what in (("x", "largest"), ("y", "smallest")):
            pair = PopulationPair(Population.of(common),
                                  Population.of({**common, RecordType(v): 1}), Relation.ADD_REMOVE)
            scen.append(Scenario(f"add a record of the {what} size measure", pair, design,
                                 shape={"N": n_s, **design.params()}))
    elif spec.size_measures == "fixed":  # a value changes, the measure (frame data) stays
        big = RecordType(f"s{len(keep) - 1}")
        base = {**common, big: common[big] - 1}
        pair = PopulationPair(Population.of({**base, RecordType("x"): 1}),
                              Population.of({**base, RecordType("z"): 1}), Relation.REPLACE)
        scen.append(Scenario("replace the value of a record of the largest size measure "
                             "(measures fixed)", pair, design, shape={"N": n_s, **design.params()}))
    else:
        small = RecordType("s0")
        base = {**common, small: common[small] - 1}
        pair = PopulationPair(Population.of({**base, RecordType("y"): 1}),
                              Population.of({**base, RecordType("x"): 1}), Relation.REPLACE)
        scen.append(Scenario("replace a record of the smallest size measure by one of the "
                             "largest", pair, design, shape={"N": n_s, **design.params()}))
    note = (f"{spec.size} records in {len(classes)} size classes scaled to {n_s} records in "
            f"{len(keep)} classes (smallest, largest and most populous measures); worst case "
            "over the listed pairs")
    return Instance(tuple(scen), note)


# ---------------------------------------------------------------- systematic, fixed order


def _systematic_fixed(spec: AuditSpec) -> Instance:
    n = min(spec.size, SYSTEMATIC_RECORDS)
    k = spec.params["interval"]
    k_s = k if 2 * k <= n else max(1, min(n // 2, round(k * n / spec.size)) or 1)
    recs = {RecordType(f"v{j:02d}"): 1 for j in range(n)}
    design = SystematicFixed(k_s)
    scen = []
    if spec.protect is Relation.ADD_REMOVE:
        for v, where in (("a", "first"), ("zz", "last")):
            pair = PopulationPair(Population.of(recs), Population.of({**recs, RecordType(v): 1}),
                                  Relation.ADD_REMOVE)
            scen.append(Scenario(f"add a record at the {where} position of the known order",
                                 pair, design, shape={"N": n, "interval": k_s}))
    else:
        first = RecordType("v00")
        rest = {rt: c for rt, c in recs.items() if rt != first}
        pair = PopulationPair(Population.of(recs), Population.of({**rest, RecordType("zz"): 1}),
                              Relation.REPLACE)
        scen.append(Scenario("replace the first record by one sorted last", pair, design,
                             shape={"N": n, "interval": k_s}))
    note = (f"{spec.size} records in a known order scaled to {n} distinct records, interval "
            f"{k_s}; worst case over the listed pairs")
    return Instance(tuple(scen), note)


def build_instance(spec: AuditSpec) -> Instance:
    """The scaled-down instance of a validated design file."""
    if spec.kind in ("stratified-proportional", "stratified-fixed"):
        return _stratified(spec)
    if spec.kind == "stratified-neyman":
        return _neyman(spec)
    if spec.kind in ("cluster-srs", "two-stage-cluster", "cluster-pps"):
        return _clusters(spec)
    if spec.kind in ("poisson-pps", "successive-pps"):
        return _pps(spec)
    if spec.kind == "systematic-fixed":
        return _systematic_fixed(spec)
    return _simple(spec)


# ---------------------------------------------------------------- the full size (issue 16)

MUST_K_WORK = 4 * 10**5  # b·m beyond which the exact law of K (MUST.WO/WW) is not computed


@dataclass(frozen=True)
class FullSize:
    """The design file's own N reduced to orbits (docs/foundations.md#fact-8), or why not."""

    orbits: tuple[fs.Orbit, ...]
    note: str
    reach: str | None = None  # None: reduced; otherwise the limit that was hit


@dataclass(frozen=True)
class FullSizeAnswer:
    """The certified answer at full size for the target: `quantity` is "ratio" (e^{ε'} of
    the worst case, pure ε) or "delta" (δ' at the target ε'); None ends mean +∞/unknown."""

    plan: FullSize
    quantity: str
    bracket: fs.FullBracket | None
    verdict: str  # violated | met | undetermined
    seconds: float

    def text(self) -> str:
        if self.bracket is None:
            return f"at full size: undetermined ({self.plan.reach or self.plan.note})"
        b = self.bracket
        if self.quantity == "ratio":
            lo = "∞" if b.lower is None else f"{math.log(b.lower):.6g}"
            hi = "∞" if b.upper is None else f"{math.log(b.upper):.6g}"
            what = "ε'"
        else:
            lo = f"{float(b.lower or 0):.6g}"
            hi = "unknown" if b.upper is None else f"{float(b.upper):.6g}"
            what = "δ' at the target ε'"
        scope = "" if b.complete else " (lower bound only: " + self.plan.note + ")"
        return (f"at full size (exact over all base mechanisms, {b.points} orbit points, "
                f"{self.seconds:.1f} s): {what} ∈ [{lo}, {hi}]{scope}; target "
                f"{self.verdict}; worst pair: {b.worst}")


def full_size_plan(spec: AuditSpec) -> FullSize:
    """The orbits of the design file at its own N, for every catalogued neighbouring pair the
    relation allows (both orientations of add-remove, every stratum and cluster-size class)."""
    kind, p, n, protect = spec.kind, spec.params, spec.size, spec.protect
    base = spec.base.relation
    try:
        if kind == "poisson" or (kind == "poisson-pps" and spec.size_measures == "fixed"):
            # PPS with the measures fixed under substitution: independent inclusions at fixed
            # rates, the largest of which dominates (proofs/deployment_pairs.md#pps)
            pps = kind == "poisson-pps"
            label = "Poisson PPS, measures fixed" if pps else "Poisson"
            if base is not Relation.ADD_REMOVE:
                return FullSize((), "", f"{label} under a replace base mechanism: the sample "
                                f"size is visible (N + 1 = {n + 1} size layers); not reduced")
            q = pps_fixed_rate(p, spec.size_classes) if pps else p["q"]
            note = (f"{label}: independent inclusions at fixed rates, the record's at most "
                    f"{number_text(float(q))} "
                    f"(the largest dominates); N does not matter" if pps else
                    "Poisson: N does not matter (fact 8, independent part)")
            return FullSize(tuple(fs.poisson_add_remove(q, protect)), note)
        if kind in ("srswor", "random-size", "proportional", "systematic-random"):
            if kind == "srswor":
                def size_of(_k: int) -> FiniteDist[int]:
                    return FiniteDist.point(p["m"])
            elif kind == "systematic-random":
                # a uniform start over a secret random order: an SRS of ⌈k/I⌉ records for
                # the k mod I starts that reach one more, else ⌊k/I⌋ (Bun et al. §6.3)
                def size_of(k: int) -> FiniteDist[int]:
                    step, extra = p["interval"], Fraction(k % p["interval"], p["interval"])
                    return FiniteDist.from_pairs([(k // step, 1 - extra),
                                                  (k // step + 1, extra)])
            elif kind == "random-size":
                law = FiniteDist.from_pairs(p["size_law"].items())

                def size_of(_k: int) -> FiniteDist[int]:
                    return law
            else:
                def size_of(k: int) -> FiniteDist[int]:
                    return round_allocation(p["r"] * k, p["rounding"])
            return FullSize(tuple(fs.stratum_pairs(n, size_of, protect, None)),
                            f"full population ({n} records)")
        if kind == "srswr":
            return FullSize(tuple(fs.srswr_pairs(n, p["m"], protect, base)),
                            f"full population ({n} records), tail of K certified")
        if kind in ("stratified-proportional", "stratified-fixed"):
            return FullSize(tuple(_strata_orbits(spec)), f"{len(spec.strata)} full strata")
        if kind in ("cluster-srs", "two-stage-cluster"):
            if kind == "two-stage-cluster" and p["within"] != "srs":
                return FullSize((), "", "two-stage with Poisson within clusters: the records "
                                "drawn per cluster are random (no exchangeable filling)")
            sizes = sorted(Counter(spec.clusters).items())
            within = p.get("m") if kind == "two-stage-cluster" else None
            open_frame = spec.cluster_frame == "open"
            return FullSize(tuple(fs.cluster_pairs(sizes, p["ell"], within, protect,
                                                   open_frame=open_frame)),
                            f"{len(spec.clusters)} clusters in {len(sizes)} size classes "
                            "(x added to, removed from or replaced in a cluster of each size"
                            + (", as a new cluster, or moved between clusters of any two "
                               "sizes)" if open_frame else "; the cluster frame is stated "
                               "fixed)"))
        if kind.startswith("must-"):
            return _must_plan(spec)
        if kind == "stratified-neyman":
            return _neyman_plan(spec)
    except fs.OutOfReach as exc:
        return FullSize((), "", str(exc))
    if kind in ("poisson-pps", "successive-pps") and spec.size_classes:
        points = math.prod(c + 1 for _, c in spec.size_classes)
        where = (f"beyond the limit {fs.MAX_ORBIT_POINTS}" if points > fs.MAX_ORBIT_POINTS
                 else "no PPS orbit builder exists yet")
        return FullSize((), "", f"no orbit reduction for {kind} designs yet: the sample's "
                        f"count per size class would be the orbit coordinate, {points:.3g} "
                        f"points (the product over {len(spec.size_classes)} classes of "
                        f"count + 1; {where})")
    return FullSize((), "", f"no orbit reduction for {kind} designs yet")


def _must_plan(spec: AuditSpec) -> FullSize:
    p, n = spec.params, spec.size
    work = (p["b"] or 0) * p["m"] if spec.kind != "must-ow" else p["m"]
    if work > MUST_K_WORK:
        return FullSize((), "", f"exact law of K needs b·m = {work} > {MUST_K_WORK} steps")
    out: list[fs.Orbit] = []
    sizes = (n + 1, n) if spec.protect is Relation.ADD_REMOVE else (n,)
    for size in sizes:
        head = k_law_head(spec.kind, size, p["b"], p["m"], fs.TAIL_MASS)
        out += fs.identical_world(head, p["m"], spec.protect,
                                  f"{spec.kind}: x among {size} records")
    return FullSize(tuple(out), "identical common records (with replacement, a lower bound: "
                    "docs/foundations.md#fact-4)")


def _neyman_search(spec: AuditSpec) -> SearchResult:
    """The exact most-sensitive-neighbour search on the full population (Neyman)."""
    p = spec.params
    pop = Population.of({RecordType(str(v), s.name): c for s in spec.strata for v, c in s.values})
    top = p.get("max_value", max(v for s in spec.strata for v, _ in s.values))
    kinds = ("add", "remove") if spec.protect is Relation.ADD_REMOVE else ("replace",)
    classify = None
    lowest = 1
    if spec.strata[0].bounds:  # strata defined by value ranges (size classes)
        ranges = [(s.bounds, s.name) for s in spec.strata if s.bounds]
        lowest = min(b[0] for b, _ in ranges)

        def classify(v: int) -> str:
            return next(name for (lo, hi), name in ranges if lo <= v <= hi)

    return most_sensitive_neighbour(pop, p["m"], p["rounding"], range(lowest, top + 1),
                                    classify, variance=p.get("variance", "population"),
                                    kinds=kinds)


def _neyman_plan(spec: AuditSpec) -> FullSize:
    """The most sensitive neighbour of each kind at full size: exact for those pairs, a lower
    bound for the worst over all neighbours (the search ranks them by the allocation change)."""
    res = _neyman_search(spec)
    sizes = {s.name: s.size for s in spec.strata}
    found = list(res.by_kind.values()) or [(res.neighbour, res.delta)]
    out = []
    for nb, _ in found:
        if spec.base.relation is Relation.REPLACE:
            raise fs.OutOfReach("Neyman allocation under a replace base: the other strata's "
                                "sizes would have to be carried (not implemented)")
        alloc_p = res.base
        alloc_q = nb_alloc = res.alloc if nb == res.neighbour else None
        if nb_alloc is None:
            continue
        rows = []
        for g in sorted(sizes):
            x_in = nb.removed is not None and nb.removed.stratum == g
            y_in = nb.added is not None and nb.added.stratum == g
            if alloc_p.get(g, 0) == alloc_q.get(g, 0) and not (x_in or y_in):
                continue
            n_q = sizes[g] - (1 if x_in else 0) + (1 if y_in else 0)
            rows.append((g, sizes[g], alloc_p.get(g, 0), n_q, alloc_q.get(g, 0), x_in, y_in))
        out.append(fs.allocation_change(rows, nb.describe()))
    return FullSize(tuple(out), "the most sensitive neighbour only (a lower bound over all "
                    f"{res.candidates} neighbours screened)")


def _strata_orbits(spec: AuditSpec) -> list[fs.Orbit]:
    p = spec.params

    def rule(s_name: str) -> fs.SizeLaw:
        if spec.kind == "stratified-proportional":
            return lambda k: round_allocation(p["r"] * k, p["rounding"])
        m_h = p["sizes"][s_name]
        return lambda _k: FiniteDist.point(m_h)

    # strata with the same size and the same allocation rule are one orbit
    classes: dict[tuple[int, int | None], list[str]] = {}
    for s in spec.strata:
        key = (s.size, None if spec.kind == "stratified-proportional" else p["sizes"][s.name])
        classes.setdefault(key, []).append(s.name)
    out: list[fs.Orbit] = []
    reps = [(names[0], key[0], len(names)) for key, names in classes.items()]
    replace_base = spec.base.relation is Relation.REPLACE

    def rest(*skip: str) -> int:
        """Records drawn from the strata other than `skip` (fixed sizes only)."""
        total = 0
        left = list(skip)
        for s in spec.strata:
            if s.name in left:
                left.remove(s.name)
                continue
            law = rule(s.name)(s.size)
            if len(law) != 1:
                raise fs.OutOfReach(
                    "replace base with randomised allocations: the other strata's sample "
                    "size is random and visible (no exchangeable filling across strata)")
            (m_g,) = law.support()
            total += m_g
        return total

    for name, size, _ in reps:
        orbs = fs.stratum_pairs(size, rule(name), spec.protect, name)
        out += fs.with_rest(orbs, rest(name)) if replace_base else orbs
    if spec.protect is Relation.REPLACE:
        for g, ng, cg in reps:
            for h, nh, _ in reps:
                if g == h and cg < 2:
                    continue
                other = h if g != h else classes[next(k for k, v in classes.items()
                                                       if g in v)][1]
                ob = fs.cross_stratum(ng, nh, rule(g), rule(other), g, other)
                out += fs.with_rest([ob], rest(g, other)) if replace_base else [ob]
    return out


def full_size_answer(spec: AuditSpec, max_points: int = fs.MAX_ORBIT_POINTS,
                     plan: FullSize | None = None, quantity: str | None = None
                     ) -> FullSizeAnswer:
    """Certified worst case at the file's N against the target: the ratio (pure base and
    target) or δ' at the target ε'. Soundness: brackets only (docs/foundations.md#fact-8).

    `plan`: the orbits already built for this file (they do not depend on ε, ε' or δ);
    `quantity`: "ratio" or "delta" instead of what the target asks (the ε grid solves the
    ratio at each ε of a pure base, and δ' at other ε' by restating the target's ε')."""
    start = time.perf_counter()
    plan = full_size_plan(spec) if plan is None else plan
    pure = spec.base.delta == 0 and spec.target.delta == 0
    quantity = quantity or ("ratio" if pure else "delta")
    if quantity == "ratio" and spec.base.delta > 0:
        raise ValueError("the ratio e^{ε'} is solved for a pure ε base only")
    if not plan.orbits:
        return FullSizeAnswer(plan, quantity, None, "undetermined", time.perf_counter() - start)
    t_lo, t_hi = _outward(spec.base.epsilon)
    tt_lo, tt_hi = brackets_for_eps(spec.target.epsilon)
    try:
        if quantity == "ratio":
            b = fs.solve_ratio(plan.orbits, MechanismClass(spec.base.relation, t_lo, t_hi),
                               max_points)
            verdict = ("violated" if b.lower is None or b.lower > tt_hi else
                       "met" if b.upper is not None and b.upper <= tt_lo else "undetermined")
        else:
            tp_lo, tp_hi = _outward(spec.target.epsilon)
            mclass = MechanismClass(spec.base.relation, t_lo, t_hi, spec.base.delta)
            b = fs.solve_hockey(plan.orbits, mclass, tp_lo, tp_hi, max_points)
            d = spec.target.delta
            verdict = ("violated" if b.lower is not None and b.lower > d else
                       "met" if b.upper is not None and b.upper <= d else "undetermined")
    except (RegionTooLarge, LPFailure) as exc:
        reach = FullSize((), plan.note, f"{type(exc).__name__}: {exc}")
        return FullSizeAnswer(reach, quantity, None, "undetermined", time.perf_counter() - start)
    return FullSizeAnswer(plan, quantity, b, verdict, time.perf_counter() - start)


def _outward(eps: Fraction) -> tuple[Fraction, Fraction]:
    """t_lo ≤ e^ε ≤ t_hi with 2^-32 denominators (short exact certificates)."""
    lo, hi = brackets_for_eps(eps)
    scale = 1 << 32
    return (Fraction(math.floor(lo * scale), scale), Fraction(math.ceil(hi * scale), scale))
