"""Red flags of a proposed design, each with the reason it costs privacy (Bun et al. §4–§6,
MUST §3). Flags are read off the design file; the numbers behind them come from the exact
instance and the catalogued theorems in the report."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifydp.accounting.pps import pps_fixed_rate
from verifydp.audit.spec import AuditSpec
from verifydp.designs import eta_bracket
from verifydp.exact.numtext import number_text
from verifydp.population import Relation

NEAR_ONE = Fraction(4, 5)  # inclusion probability from which amplification mostly vanishes
LARGE_CLUSTER = 6  # bun/sec6.2:pps-cluster: at ε ≈ 0.1 the engine finds the switch at 5–6


@dataclass(frozen=True)
class Flag:
    code: str
    title: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "title": self.title, "why": self.why}


def max_inclusion(spec: AuditSpec) -> Fraction | None:
    """The largest probability that a given record is in the sample (None: not closed form)."""
    p, n, kind = spec.params, spec.size, spec.kind
    if kind == "poisson":
        return p["q"]
    if kind == "srswor":
        return Fraction(p["m"], n)
    if kind in ("proportional", "stratified-proportional"):
        return p["r"]
    if kind == "stratified-fixed":
        return max(Fraction(p["sizes"][s.name], s.size) for s in spec.strata)
    if kind == "cluster-srs":
        return Fraction(p["ell"], len(spec.clusters))
    if kind == "poisson-pps":
        return pps_fixed_rate(p, spec.size_classes)
    if kind in ("systematic-fixed", "systematic-random"):
        return min(Fraction(1), Fraction(-(-n // p["interval"]), n))
    if kind == "srswr":
        return eta_bracket("wr", n, None, p["m"], bits=32)[1]
    if kind.startswith("must-"):
        return eta_bracket(kind, n, p["b"], p["m"], bits=32)[1]
    return None


def red_flags(spec: AuditSpec, copies_at_least_two: Fraction | None = None) -> list[Flag]:
    kind, p = spec.kind, spec.params
    out: list[Flag] = []
    # measures (or, for PPS cluster draws, the cluster frame) stated fixed under replace: no
    # neighbour moves an inclusion
    stated = spec.cluster_frame if kind == "cluster-pps" else spec.size_measures
    fixed_frame = stated == "fixed" and spec.protect is not Relation.ADD_REMOVE
    if kind in ("proportional", "stratified-proportional", "stratified-neyman", "poisson-pps",
                "successive-pps", "cluster-pps") and not fixed_frame:
        what = {
            "proportional": "the sample size r|P| depends on the population size",
            "stratified-proportional": "each stratum's sample size r|P_h| depends on the "
                                       "stratum's size",
            "stratified-neyman": "each stratum's sample size depends on the spread of the "
                                 "values in every stratum",
        }.get(kind, "inclusion probabilities depend on the total size measure of the population")
        out.append(Flag("data-dependent-allocation", "data-dependent allocation",
                        f"{what}, so one record can change who is likely to be sampled; the "
                        "sample sizes themselves become a statistic of the data "
                        "(Bun et al. §4, §6)"))
    rounding = p.get("rounding")
    if kind == "stratified-neyman" or (rounding and rounding != "randomised"):
        out.append(Flag("deterministic-rounding", "deterministic rounding",
                        f"rounding the allocation {rounding} makes the sample size jump by a "
                        "whole record when one record is added: a mechanism that releases the "
                        "(noisy) sample size then loses Δ·ε, and there is no amplification at "
                        "the jumps (bun/sec4.3:det-rounding, bun/sec4.1)"))
    top = max_inclusion(spec)
    if top is not None and top >= NEAR_ONE:
        out.append(Flag("inclusion-near-one", "inclusion probability near 1",
                        f"a record is sampled with probability up to {number_text(float(top), 3)}; "
                        "amplification is log(1 + π(e^ε − 1)) at best, which tends to ε as "
                        "π → 1"))
    if spec.clusters and kind in ("cluster-srs", "cluster-pps", "two-stage-cluster"):
        big = spec.clusters[0]
        if big >= LARGE_CLUSTER or sum(spec.clusters[:2]) * spec.base.epsilon >= 3:
            what = ("adding a record to" if spec.protect is Relation.ADD_REMOVE else
                    "changing a record of")
            out.append(Flag("large-clusters", "large clusters",
                            f"the largest cluster has {big} records: whole clusters are kept, "
                            f"so {what} a large cluster changes a large, detectable "
                            "block of the sample; Theorems 5.1/5.2 give ε' → ε as "
                            "(n_i + n_max)·ε grows (bun/thm5.1, bun/sec6.2:pps-cluster)"))
    frame_order = spec.reading.startswith("systematic")  # read as clusters of its classes
    if kind == "systematic-fixed" or frame_order:
        how = (": which class was drawn may show in every release" if frame_order else
               ", and a record added early shifts every later position: no amplification")
        out.append(Flag("known-order-systematic", "known-order systematic sampling",
                        "with a fixed, public order the sample is one of `interval` residue "
                        f"classes, i.e. cluster sampling of whole classes{how} "
                        "(bun/sec6.3:systematic)"))
    if kind == "srswr" or kind.startswith("must-"):
        extra = (f" (Pr[K ≥ 2] = {number_text(float(copies_at_least_two), 3)})"
                 if copies_at_least_two else "")
        out.append(Flag("with-replacement-copies", "with-replacement copies",
                        "a record can enter the sample several times" + extra + "; each copy "
                        "multiplies its influence, so an ε-DP base behaves like a group of K "
                        "records (kε) and only an (ε', δ') guarantee with δ' > 0 follows from "
                        "MUST Table 2 / Theorem 5"))
    return out
