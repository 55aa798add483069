"""Per-step dominating pairs for a design × mechanism × neighbouring relation (issue 16).

One step releases M(S) = f(S) + noise, f a clipped sum (each record's contribution in a ball
of radius C), count or mean, S the design's sample. A pair (P, Q) *dominates* the step when
every ordered neighbouring dataset pair (D, D') has H_γ(M(D)‖M(D')) ≤ H_γ(P‖Q) for every
γ ≥ 0 (or the same with (Q, P)); T independent steps are then dominated by (P^T, Q^T)
(Zhu, Dong & Wang 2022, Theorem 10), which `compose` brackets in both directions.

Three forms, with a = the add/remove magnitude (C, or 1 for a count) and d = the substitution
diameter (2C, or 1), K(c) the noise kernel centred at c (docs/foundations.md#composition):

* ``added``    — (1−π)K(0) + πK(a) against K(0): the record joins the sample with
  probability π and nothing else moves (Poisson under add/remove; whole clusters).
* ``swapped``  — (1−π)K(0) + πK(C) against (1−π)K(0) + πK(−C): the record's value changes
  and the others' sample does not depend on it (Poisson under substitution; a count uses
  ``added`` with a = 1, its two values being 0 and 1).
* ``displaced`` — Σ_l Pr(K = l) K(l·d) against K(0), K the copies of the record in the
  sample: with a fixed sample size an added record *displaces* another one, so the sum moves
  by up to 2C per copy, not C (Lebeda, Regehr, Kamath & Steinke 2024, "Avoiding pitfalls
  for privacy accounting of subsampled mechanisms under composition"); the same pair for a
  substitution when K ≤ 1. Fixed-size without replacement (K ~ Bernoulli(m/N)), stratified
  fixed allocations (the worst stratum's m_h/N_h), two-stage clusters, MUST.WO; with
  replacement (Binomial(m, 1/N)) and MUST.OW/WW under add/remove only: with two or more
  copies a substitution is not covered by this pair (the tests exhibit the dataset pair).
  With replacement under substitution reveals the copy count given that the record is
  drawn (`copies_revealed`); for MUST.OW/WW the deployment audit chains two add/remove
  links (`copies_chain`, `accounting.chained`).

The kernel is a parameter: ``gauss``, ``laplace`` or ``dgauss`` (the discrete Gaussian
N_ℤ(0, σ²) of Canonne, Kamath & Steinke 2020, with integer shifts: an integer clip or a
count; proofs/deployment_pairs.md#discrete-gaussian). Randomized response of a binary
statistic of the sample has no shift: `rr_pairs`
(proofs/deployment_pairs.md#randomized-response).

Every pair here is *realisable*: all other records at −C (or 0 for a count) and the record at
+C (or 1) give exactly (P, Q) — so compose's lower bound is a lower bound of the design's
worst case, not only of the pair's. Clusters are the exception: whether the record's cluster
was drawn may show (its other records can all differ from every other cluster's), so the
upper bound reveals that draw — T steps give Σ_j Pr(Bin(T, a) = j) δ_{P^j‖Q^j}, a mixture
with a common, revealed label — and the lower bound uses a separate concrete pair (`lower`). Domination is argued in proofs/deployment_pairs.md and
checked by tests/audit/test_deployment.py against every dataset pair of small populations
with contributions on a grid including ±C.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from verifydp.accounting.atoms import FinitePair, randomized_response
from verifydp.accounting.composition import Pair
from verifydp.accounting.forms import (
    Dominating,
    Realised,
    bernoulli,
    dyadic,
    law_pair,
    moved_pair,
    revealed,
)
from verifydp.accounting.laws import count_labels, truncated_law
from verifydp.accounting.orientation import oriented
from verifydp.accounting.partial import copies_partial
from verifydp.accounting.pps import (
    poisson_pps_pairs,
    pps_fixed_rate,
    pps_rates,
    successive_fixed_pair,
    successive_inclusion,
    successive_race_pair,
)
from verifydp.accounting.resized import coupled, resized_pairs, size_law

__all__ = ["COPY_KINDS", "Dominating", "Realised", "copies_chain", "copies_revealed",
           "dominating_pairs",
           "inclusion", "law_pair", "moved_pair", "rr_pairs"]

KERNELS = {"gaussian": "gauss", "laplace": "laplace", "discrete-gaussian": "dgauss"}
COPY_KINDS = ("srswr", "must-ow", "must-ww")  # designs that may draw a record twice


def _moves(sizes: Mapping[str, int], strata: Mapping[str, int]
           ) -> list[tuple[Fraction, Fraction, str, str]]:
    """The moves h → g (h ≠ g) of one record under a replacement, as (a, b, h, g): rate
    a = m_h/N_h of the record in h under D, b = m_g/(N_g + 1) in g under D'. The pair grows
    with a and b, so only the undominated moves are kept: the best a with the best b of
    another stratum, and the best b with the best a of another. A stratum sampled in full
    (m_h = N_h) cannot lose a record (its allocation would exceed it)."""
    src = {h: Fraction(sizes.get(h, 0), n) for h, n in strata.items() if sizes.get(h, 0) < n}
    dst = {g: Fraction(sizes.get(g, 0), n + 1) for g, n in strata.items()}
    out = set()
    for h in sorted(src, key=lambda x: (-src[x], x))[:1]:
        g = max((x for x in dst if x != h), key=lambda x: (dst[x], x), default=None)
        if g is not None:
            out.add((src[h], dst[g], h, g))
    for g in sorted(dst, key=lambda x: (-dst[x], x))[:1]:
        h = max((x for x in src if x != g), key=lambda x: (src[x], x), default=None)
        if h is not None:
            out.add((src[h], dst[g], h, g))
    return sorted(out)


def _moved_cluster_rate(clusters: tuple[int, ...], ell: int) -> Fraction:
    """Pr(a cluster involved in a replacement that moves the record is drawn), ℓ of k
    clusters: the old cluster and the new one both existing (exactly Pr(either drawn)), a new
    one (k + 1 clusters), or the old one vanishing (k − 1); union bounds, capped at 1
    (proofs/deployment_pairs.md#restructured)."""
    k = len(clusters)
    both = Fraction(ell * (2 * k - ell - 1), k * (k - 1)) if k > 1 else Fraction(1)
    rho = max(both, Fraction(ell, k) + Fraction(ell, k + 1))
    if min(clusters) == 1 and k > 1:
        rho = max(rho, Fraction(ell, k) + Fraction(ell, k - 1))
    return min(Fraction(1), rho)


def _within_rate(kind: str, params: Mapping[str, Any], sizes: set[int] | tuple[int, ...]
                 ) -> Fraction:
    """Pr(the record is drawn | its cluster is drawn), worst over the cluster sizes given."""
    if kind == "cluster-srs":
        return Fraction(1)
    if params["within"] == "poisson":
        return Fraction(params["q"])
    return max(min(Fraction(1), Fraction(params["m"], s)) for s in sizes)


def _restructured(kind: str, params: Mapping[str, Any], clusters: tuple[int, ...],
                  magnitude: Fraction, noise: Fraction, kernel: str, add_remove: bool,
                  count: bool, within_lower: Pair | FinitePair | None) -> Dominating:
    """Neighbours that change the clusters (proofs/deployment_pairs.md#restructured): a
    record type carries its cluster, so an added record may form a cluster of its own (k + 1
    clusters; removing a one-record cluster is the reverse), and a replacement may move the
    record to another cluster, a new one, or out of a one-record cluster. When the record's
    new cluster is drawn, one cluster Z fewer of the others is: its whole within-sample (w
    records at most) leaves with it.

    * add/remove: the larger run's law is (1 − ρ)·(the smaller run's) + ρ·(the one-record
      cluster drawn), ρ = ℓ/(k + 1) (ℓ/k when the file holds a one-record cluster that may
      be removed); given the other drawn clusters, the record stands against Z's
      within-sample, a mixture over Z, and the alignment lemma bounds it by the shift
      (w + 1)·a (a count: max(w, 1)·a, both counts being non-negative) without showing Z:
      the added pair at rate ρ, nothing revealed;
    * replace: revealing whether a cluster involved is drawn (probability ρ) bounds each
      release by the two-point pair at (w + 3)·a (the old cluster's draw moves by up to 2a
      as well)."""
    k, ell = len(clusters), params["ell"]
    if kind == "cluster-srs":
        w = max(clusters)
    elif params["within"] == "srs":
        w = max(min(params["m"], s) for s in clusters)
    else:  # Poisson within: every record of the displaced cluster may be drawn
        w = max(clusters)
    a = magnitude
    if add_remove:
        rho = Fraction(ell, k) if 1 in clusters else Fraction(ell, k + 1)
        dist = max(w, 1) * a if count else (w + 1) * a  # a count: both sides in [0, w·a]
        pair = law_pair(bernoulli(rho), dist, noise, kernel, "added",
                        f"{kind}: a one-record cluster drawn")
    else:
        rho, dist = _moved_cluster_rate(clusters, ell), (w + 3) * a
        pair = law_pair(((1, Fraction(1)),), dist, noise, kernel, "added",
                        f"{kind} restructured")
    lower = within_lower
    if add_remove:
        # realised: every other record at +a in the clusters' fixed within-sums (all drawn
        # records, when every cluster has at least m; cluster SRS: s_min per cluster, the
        # rest at 0), the record at −a forming its own cluster, drawn w.p. ℓ/(k + 1): the
        # output stays put under D and moves by −(w_r + 1)a under D'
        if kind == "cluster-srs":
            w_r, rate = min(clusters), Fraction(ell, k + 1)
        elif params["within"] == "srs":
            w_r = params["m"] if min(clusters) >= params["m"] else 0
            rate = Fraction(ell, k + 1)
        else:
            w_r, rate = 0, Fraction(ell, k + 1) * params["q"]
        # a count: the others counted, the record not (or, with w_r = 0, the reverse)
        shift = max(w_r, 1) * a if count else (w_r + 1) * a
        lower = law_pair(bernoulli(rate), shift, noise, kernel, "added",
                         f"{kind} new cluster (realised)")
    what = ("the record forms a cluster of its own (k + 1 clusters) or a one-record cluster "
            "is removed" if add_remove else
            "the record moves to another cluster, a new one, or out of a one-record cluster")
    if add_remove:
        return Dominating(pair, "added", bernoulli(rho), Fraction(0),
                          f"{kind}: {what}; the one-record cluster is drawn w.p. ≤ {rho} and "
                          f"then the output moves by ≤ {dist} against a displaced cluster's "
                          f"within-sample of ≤ {w} records (which one, not shown)",
                          lower=lower)
    return Dominating(pair, "added", ((1, Fraction(1)),), Fraction(0),
                      f"{kind}: {what}; a cluster involved is drawn w.p. ≤ {rho} (revealed) and "
                      f"the output moves by ≤ {dist} (a displaced cluster's within-sample of "
                      f"≤ {w} records)", rho, lower)


def _within(sizes: tuple[int, ...], within: str, p: Mapping[str, Any], add_remove: bool
            ) -> list[tuple[str, Fraction]]:
    """(form, π) of the second stage given the record's cluster is drawn, worst over its
    cluster: under add/remove the cluster has size s in the larger population (a size present
    or one more); an SRS of m displaces a record iff m ≤ s − 1."""
    if within == "poisson":
        return [("added" if add_remove else "swapped", p["q"])]
    m = p["m"]
    cands: dict[str, Fraction] = {}
    grown = set(sizes) | ({s + 1 for s in sizes} if add_remove else set())
    for s in grown:
        pi = min(Fraction(1), Fraction(m, s))
        # m ≥ s: the whole cluster is kept, nothing is displaced
        form = "displaced" if m <= s - 1 else ("added" if add_remove else "swapped")
        cands[form] = max(cands.get(form, Fraction(0)), pi)
    return sorted(cands.items())


def _fixed_pps(kind: str, params: Mapping[str, Any], add_remove: bool, fixed_measures: bool,
               size_classes: tuple[tuple[Fraction, int], ...]) -> dict[str, Fraction] | None:
    """Poisson PPS under substitution with the size measures fixed (frame data, kept by a
    changed record): independent inclusions whose rates do not move, so the design is
    Poisson at the largest rate (`pps.pps_fixed_rate`, proofs/deployment_pairs.md#pps);
    its parameters, or None when the design is not that."""
    if kind != "poisson-pps" or not fixed_measures:
        return None
    if add_remove:
        raise ValueError(f"{kind}: fixed measures apply to substitution (an added or removed "
                         f"record brings or takes its own measure)")
    return {"q": pps_fixed_rate(params, size_classes)}


def _oriented(fn: Callable[..., tuple[Dominating, ...]]
              ) -> Callable[..., tuple[Dominating, ...]]:
    """Every candidate through the orientation rule (`accounting.orientation`): each
    candidate's `pair` is realisable in one order, its `upper_pair` is what T releases
    compose for the upper end (under substitution the dominated order may change from
    release to release)."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> tuple[Dominating, ...]:
        add_remove = sig.bind(*args, **kwargs).arguments["add_remove"]
        return tuple(oriented(d, add_remove) for d in fn(*args, **kwargs))
    return wrapper


def _pairs(kind: str, params: Mapping[str, Any], size: int, mechanism: str,
           query: str, magnitude: Fraction, diameter: Fraction, noise: Fraction,
           add_remove: bool, strata_sizes: Mapping[str, int] | None = None,
           clusters: tuple[int, ...] = (), epsilon0: Fraction | None = None,
           fixed_clusters: bool = False,
           size_classes: tuple[tuple[Fraction, int], ...] = (),
           fixed_measures: bool = False) -> tuple[Dominating, ...]:
    """The candidate per-step pairs of a design (the design file's kind and parameters,
    population size N), each dominating every step in the order its derivation fixes; the
    worst case over all neighbouring datasets is the largest of the candidates' composed δ
    (each covers the dataset pairs its `why` names). `dominating_pairs` is this with the
    orientation rule applied. Randomized response (`epsilon0`) takes no query, shift or noise: `rr_pairs`.
    `fixed_clusters`: the file states that the cluster frame is fixed (no neighbour forms,
    dissolves or changes a record's cluster); otherwise such neighbours are covered too.
    `fixed_measures`: Poisson PPS under substitution with size measures stated to be frame
    data (`_fixed_pps`)."""
    fixed = _fixed_pps(kind, params, add_remove, fixed_measures, size_classes)
    if fixed is not None:
        return tuple(replace(d, why=f"{kind}, measures fixed: {d.why}")
                     for d in _pairs("poisson", fixed, size, mechanism, query, magnitude,
                                     diameter, noise, add_remove, epsilon0=epsilon0))
    if mechanism == "randomized-response":
        if epsilon0 is None:
            raise ValueError("randomized response needs epsilon0")
        return rr_pairs(kind, params, size, Fraction(epsilon0), add_remove, strata_sizes,
                        clusters, fixed_clusters, size_classes)
    if mechanism not in KERNELS:
        raise ValueError(f"no dominating pair for mechanism {mechanism!r}")
    kernel = KERNELS[mechanism]
    count = query == "count"
    half = diameter / 2  # C for a sum: the swapped pair puts the record at ±C

    def make(form: str, law: tuple[tuple[int, Fraction], ...], tail: Fraction,
             why: str) -> Dominating:
        if form == "swapped" and count:
            form = "added"  # a count's two values are 0 and 1: the record adds 0 or 1
        shift = {"added": magnitude, "swapped": half, "displaced": diameter}[form]
        if form == "added" and count:
            shift = diameter
        return Dominating(law_pair(law, shift, noise, kernel, form, f"{kind} {form}"),
                          form, law, tail, why)

    if kind == "poisson":
        q = params["q"]
        if add_remove:
            return (make("added", bernoulli(q), Fraction(0),
                         f"Poisson(q = {q}): the record joins w.p. q, nothing else moves"),)
        return (make("swapped", bernoulli(q), Fraction(0),
                     f"Poisson(q = {q}): the record's value changes (±C), the others' "
                     f"sample is independent of it"),)
    if kind == "srswor":
        q = Fraction(params["m"], size)
        return (make("displaced", bernoulli(q), Fraction(0),
                     f"fixed size m = {params['m']} without replacement: the record is in "
                     f"w.p. m/N = {q} and displaces another (shift {diameter})"),)
    if kind == "stratified-fixed":
        assert strata_sizes is not None
        q = max(Fraction(m, strata_sizes[h]) for h, m in params["sizes"].items() if m)
        within = make("displaced", bernoulli(q), Fraction(0),
                      f"fixed allocation, worst stratum m_h/N_h = {q}: inside the stratum a "
                      f"fixed-size draw (displacement, shift {diameter}); other strata "
                      f"unaffected")
        if add_remove:
            return (within,)
        moved = [Dominating(moved_pair(a, b, diameter, noise, kernel, f"{kind} moved"),
                            "moved", bernoulli(max(a, b)), Fraction(0),
                            f"a replacement moves the record from stratum {h} (rate {a}) to "
                            f"{g} (rate {b} with it): a displacement in each, shift "
                            f"±{diameter}")
                 for a, b, h, g in _moves(params["sizes"], strata_sizes)]
        return (within, *moved)
    if kind in ("cluster-srs", "two-stage-cluster"):
        a = Fraction(params["ell"], len(clusters))
        if kind == "cluster-srs":
            stages = [("added" if add_remove else "swapped", Fraction(1))]
        else:
            stages = _within(clusters, params["within"], params, add_remove)
        out = []
        for form, b in stages:
            inner = make(form, bernoulli(b), Fraction(0), "")
            # lower bound, the unrevealed pair at rate a·b: realised by every other record
            # at 0 and the record at +C (±C in place), whatever the cluster sizes; a
            # displacement needs the others at −C, so every drawn cluster must bring the same
            # number of records (each has at least m, or every cluster is drawn); otherwise
            # the record displaces a 0: the added (swapped) pair. Sharper, when every
            # cluster has more than m records: cluster-mates at −C and other clusters at +C
            # move the output by −m·d when the cluster is drawn (`separation`,
            # audit.deployment)
            low_form = form
            if form == "displaced" and params["ell"] < len(clusters) and any(
                    c < params["m"] for c in clusters):
                low_form = "added" if add_remove else "swapped"
            low = make(low_form, bernoulli(a * b), Fraction(0), "").pair
            sep = Fraction(0)
            if (kind == "two-stage-cluster" and form == "displaced" and params["within"] == "srs"
                    and all(params["m"] < c for c in clusters)):
                sep = params["m"] * diameter
            elif kind == "cluster-srs" and len(clusters) > params["ell"] and (
                    params["ell"] == 1 or min(clusters) == max(clusters)):
                # whole clusters drawn: the record in a largest cluster (s_max), its mates at
                # −C (a count: 0), every other cluster at +C (1); with one cluster drawn, or
                # clusters of one size, the other drawn clusters' sum is the same in every
                # draw, so the record's cluster drawn shows as a drop of at least
                # (ℓ·s_min − (ℓ − 1)·s_max + s_max − 1)·C, the record at 0 (a count:
                # ℓ·s_min − (ℓ − 1)·s_max, the record absent or 0)
                ell, lo, hi = params["ell"], min(clusters), max(clusters)
                gap = ell * lo - (ell - 1) * hi
                sep = gap * diameter if count else (gap + hi - 1) * diameter / 2
            out.append(Dominating(inner.pair, form, inner.law, Fraction(0),
                                  f"{kind}: the record's cluster is drawn w.p. {a} (and may "
                                  f"show), then the record w.p. {b} ({form})", a, low, sep))
        if not fixed_clusters:
            out.append(_restructured(kind, params, clusters, magnitude, noise, kernel,
                                     add_remove, count, out[-1].lower))
        return tuple(out)
    if kind == "poisson-pps":
        if not add_remove:
            raise ValueError(f"{kind} under substitution: a changed record changes its size "
                             f"measure, hence the total and every inclusion; no pair is "
                             f"derived (use add-remove, or state the measures fixed)")
        return poisson_pps_pairs(params, size_classes, magnitude, diameter, noise, kernel,
                                 count)
    if kind in ("successive-pps", "cluster-pps"):
        clustered = kind == "cluster-pps"
        if add_remove or not (fixed_clusters if clustered else fixed_measures):
            what, key = (("cluster draw probabilities follow the cluster sizes, which an added "
                          "or moved record changes", "clusters") if clustered else
                         ("draw probabilities follow the remaining size measures, which an "
                          "added or changed record moves", "measures"))
            raise ValueError(f"{kind}: {what}; a pair is derived under substitution with "
                             f"[protect] {key} = \"fixed\" only")
        if not clustered:
            return (successive_race_pair(params["m"], size_classes, diameter, noise, kernel),)
        bounds = successive_inclusion(params["ell"], tuple((Fraction(c), clusters.count(c))
                                                           for c in sorted(set(clusters))))
        # drawn clusters bring different numbers of records: the others at 0 (a count:
        # outside), the record at ±C, swapped at π's floor
        low = make("swapped", bernoulli(bounds[0]), Fraction(0), "").pair
        return (successive_fixed_pair(bounds, diameter, noise, kernel, low,
                                      "PPS cluster draws"),)
    if kind in ("proportional", "stratified-proportional", "random-size"):
        return resized_pairs(kind, params, size, magnitude, diameter, noise, kernel,
                             add_remove, count, strata_sizes)
    if kind == "systematic-random":
        if add_remove:
            raise ValueError(f"{kind} under add-remove: an added record moves N and every "
                             f"start's sample size; no dominating pair is derived (use "
                             f"substitution)")
        # the start s (uniform on k, independent of the data) picks an SRS of ⌊N/k⌋ or
        # ⌈N/k⌉ records (Bun et al. §6.3): the displaced pair at the largest rate dominates
        # (joint convexity over the common label; the pair grows with its rate)
        k = params["interval"]
        q_max, q_mean = Fraction(-(-size // k), size), inclusion(kind, params, size)
        top = make("displaced", bernoulli(q_max), Fraction(0),
                   f"{kind}: start s uniform on {k} (an SRS of ⌊N/{k}⌋ or ⌈N/{k}⌉ records), a "
                   f"fixed-size draw without replacement given it; the largest rate {q_max} "
                   f"(displacement, shift {diameter})")
        if q_mean == q_max:
            return (top,)  # one size: all others at −C realise it
        # the sizes vary: others at 0 (a count: outside the category) realise the record's
        # inclusion alone, rate q_mean, with the record at ±C
        low = make("swapped", bernoulli(q_mean), Fraction(0), "").pair
        return (Dominating(top.pair, top.form, top.law, top.tail, top.why, lower=low),)
    if kind == "srswr" and not add_remove:
        partial = (copies_partial(size, params["m"], diameter, noise) if kernel == "gauss"
                   else None)
        return (partial or copies_revealed(size, params["m"], diameter, noise, kernel),)
    if kind in COPY_KINDS and not add_remove:
        # with two or more copies a substituted value moves every copy while the others'
        # draws move the centres apart: the displaced pair is beaten (others at −C/2, the
        # record −C → +C, with replacement; tests/audit/test_deployment.py); for MUST no
        # single pair is derived, the deployment audit chains two add/remove links
        # (`copies_chain`)
        raise ValueError(f"{kind} under substitution: no single dominating pair is derived "
                         f"for designs that may draw a record twice (the deployment audit "
                         f"chains two add/remove steps instead)")
    if kind in ("srswr", "must-ow", "must-wo", "must-ww"):
        law = truncated_law("wr" if kind == "srswr" else kind, size, params.get("b"),
                            params["m"])
        return (make("displaced", law.weights, law.tau,
                     f"{kind}: K copies (exact law, tail {float(law.tau):.1e}), each "
                     f"displacing a record (shift {diameter} per copy)"),)
    raise ValueError(f"no dominating pair derived for design kind {kind!r}")


dominating_pairs = _oriented(_pairs)


def copies_revealed(size: int, m: int, diameter: Fraction, noise: Fraction, kernel: str
                    ) -> Dominating:
    """With replacement (m uniform draws from N records) under substitution: the copy count
    revealed given that the record is drawn (proofs/deployment_pairs.md#copies-revealed).
    With π = Pr(K ≥ 1) and w_l = Pr(K = l | K ≥ 1), both orders of every step are bounded at
    γ ≥ 1 by the label-l mixture of the displaced pairs (1−π)K(0) + πK(l·d) against K(0),
    l ~ w, the label drawn independently of the data and shown to both runs; the orientation
    rule symmetrises each branch. π is rounded up to 2^-96 (every branch's profile grows with
    its rate). The truncated law's tail τ leaves the label law a mass τ/π, counted as δ = 1 per
    release (`tail`). The lower end is the realisable pair Σ_l Pr(K = l)K(l·d) against K(0)
    (the others at one end of the value range, the record moved to the other end)."""
    law = truncated_law("wr", size, None, m)
    pi = inclusion("srswr", {"m": m}, size)
    rate = dyadic(pi, 96, up=True)
    labels = count_labels([(k, w) for k, w in law.weights if k >= 1])
    branches = tuple((w, law_pair(bernoulli(rate), k * diameter, noise, kernel, "displaced",
                                  f"srswr, {name}"))
                     for w, k, name in labels)
    tail = dyadic(law.tau / pi, 96, up=True) if law.tau else Fraction(0)
    realised = law_pair(law.weights, diameter, noise, kernel, "displaced",
                        "srswr displaced (others at one end, the record at the other)")
    return Dominating(revealed(branches, "srswr: the copy count revealed given K ≥ 1"),
                      "displaced", law.weights, tail,
                      f"srswr, m = {m} with replacement: the record is drawn w.p. π = "
                      f"1 − (1 − 1/N)^m, its copy count l ~ K | K ≥ 1 revealed (shift l·"
                      f"{diameter}; advanced joint convexity, both orders)", lower=realised)


def copies_chain(kind: str, params: Mapping[str, Any], size: int, mechanism: str,
                 query: str, magnitude: Fraction, diameter: Fraction, noise: Fraction
                 ) -> Dominating:
    """A design that may draw a record twice (`COPY_KINDS`) under substitution: the
    add/remove pair of one link of the chain D → D⁻ → D' (`accounting.chained`; the removed
    dataset D⁻ has N − 1 records, so the pair at N is the larger dataset's). It is also the
    lower end, in reverse: with every other record at c and the record moved from u to
    u + d (values in [u, u + d]) the sum is m·c + K·(value − c), so Σ Pr(K = l) K(l·a)
    against Σ Pr(K = l) K(l·(a + d)), a = u − c ∈ [−d, 0]; a = 0 (the others at one end) is
    the link pair reversed. Other a were smaller on every case tried (N = 3, 100, 1000;
    ε ∈ {1/2, 2}) except near ε = 0, where a = −d/2 (the others at the centre) was larger by
    under 3 %; it has no monotone loss, and its test cost a minute at DP-SGD's size, so it is
    not taken (proofs/deployment_pairs.md#copies)."""
    if kind not in COPY_KINDS:
        raise ValueError(f"copies_chain: {kind!r} draws a record at most once")
    (link,) = dominating_pairs(kind, params, size, mechanism, query, magnitude, diameter,
                               noise, True)
    return link


def inclusion(kind: str, params: Mapping[str, Any], size: int,
              strata_sizes: Mapping[str, int] | None = None, clusters: tuple[int, ...] = (),
              size_classes: tuple[tuple[Fraction, int], ...] = ()) -> Fraction:
    """π = Pr(K ≥ 1): the probability that the record's index is drawn at least once (the
    worst stratum's or cluster size's; Poisson PPS: the added record of the largest measure),
    exact."""
    if kind in ("cluster-srs", "two-stage-cluster"):
        return Fraction(params["ell"], len(clusters)) * _within_rate(kind, params, clusters)
    if kind in ("proportional", "stratified-proportional", "random-size"):
        groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}
        return max(sum((w * Fraction(m, n) for m, w in size_law(kind, params, n) or ()),
                       Fraction(0)) for n in groups.values())
    if kind == "poisson-pps":
        return pps_rates(params, size_classes)[0]
    if kind == "poisson":
        return Fraction(params["q"])
    if kind == "srswor":
        return Fraction(params["m"], size)
    if kind == "stratified-fixed":
        assert strata_sizes is not None
        return max(Fraction(m, strata_sizes[h]) for h, m in params["sizes"].items() if m)
    if kind == "srswr":
        return 1 - Fraction(size - 1, size) ** params["m"]
    if kind == "systematic-random":
        return Fraction(1, params["interval"])  # every position is chosen w.p. 1/k
    if kind in ("must-ow", "must-wo", "must-ww"):
        law = truncated_law(kind, size, params.get("b"), params["m"])
        # Pr(K = 0) is kept exactly (l = 0 is never cut): π = 1 − Pr(K = 0)
        return 1 - sum((w for k, w in law.weights if k == 0), Fraction(0))
    raise ValueError(f"no inclusion probability derived for design kind {kind!r}")


def _disagreement(kind: str, params: Mapping[str, Any], size: int, add_remove: bool,
                  strata_sizes: Mapping[str, int] | None, clusters: tuple[int, ...],
                  fixed_clusters: bool, size_classes: tuple[tuple[Fraction, int], ...] = ()
                  ) -> tuple[Fraction, str]:
    """An upper bound on the total variation between the two runs' sample laws, by a
    coupling's probability of disagreeing (proofs/deployment_pairs.md#randomized-response),
    and what it counts. The file's N is the larger population under add/remove."""
    if kind in ("must-ow", "must-wo"):
        return Fraction(params["b"], size), "the record is in the first stage"
    if kind == "must-ww":
        return (1 - Fraction(size - 1, size) ** params["b"],
                "one of the first stage's draws is the record")
    if kind in ("cluster-srs", "two-stage-cluster"):
        k, ell = len(clusters), params["ell"]
        # the record's cluster has s records in the larger run (s − 1 in the smaller)
        grown = set(clusters) | ({c + 1 for c in clusters} if add_remove else set())
        tv = Fraction(ell, k) * _within_rate(kind, params, grown)
        what = "the record's cluster and then the record is drawn"
        if not fixed_clusters:  # neighbours that change the clusters (#restructured)
            tv = max(tv, Fraction(ell, k + 1) if add_remove
                     else _moved_cluster_rate(clusters, ell))
            what += ", or a cluster the neighbour forms, leaves or joins is drawn"
        return tv, what
    if kind in ("proportional", "stratified-proportional", "random-size"):
        groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}

        def grown(n: int) -> Fraction | None:  # n → n + 1: the sizes or the record differ
            lo, hi = (size_law(kind, params, n) if n >= 0 else None,
                      size_law(kind, params, n + 1))
            if lo is None or hi is None:
                return None
            return sum((w if m2 != m else w * Fraction(m, n + 1)
                        for m, m2, w in coupled(lo, hi)), Fraction(0))

        if add_remove:
            ts = [t for n in groups.values() for t in (grown(n - 1), grown(n)) if t is not None]
            return max(ts), "the coupled sizes differ or the record is drawn"
        inplace = inclusion(kind, params, size, strata_sizes)
        if kind != "stratified-proportional" or len(groups) < 2:
            return inplace, "the record is drawn (the size label is common)"
        leave = max(t for n in groups.values() if n >= 1 and (t := grown(n - 1)) is not None)
        join = max(t for n in groups.values() if (t := grown(n)) is not None)
        return (max(inplace, 1 - (1 - leave) * (1 - join)),
                "the record is drawn, or a move between strata changes a size or draws it")
    if kind == "poisson-pps":  # thinning coupling (#pps): the record kept, or another dropped
        pi_in, rates, rho = pps_rates(params, size_classes)
        return (min(Fraction(1), pi_in + sum((p * rho * c for p, c in rates), Fraction(0))),
                "the record is kept or the thinning drops another record")
    return inclusion(kind, params, size, strata_sizes), "the record is drawn"


_EXACT_LAW = ("poisson", "srswor", "srswr", "stratified-fixed")  # given K = 0: the smaller's law


def rr_pairs(kind: str, params: Mapping[str, Any], size: int, epsilon0: Fraction,
             add_remove: bool, strata_sizes: Mapping[str, int] | None = None,
             clusters: tuple[int, ...] = (), fixed_clusters: bool = False,
             size_classes: tuple[tuple[Fraction, int], ...] = (),
             ) -> tuple[Dominating, ...]:
    """Binary randomized response (parameter ε0) of any binary statistic f(S) of the sample
    (proofs/deployment_pairs.md#randomized-response), π = Pr(K ≥ 1):

    * add/remove, when the sample of the larger dataset given K = 0 has the smaller dataset's
      law (Poisson, fixed size without replacement and its fixed strata, with replacement):
      P = (1−π)RR(0) + πRR(1) against Q = RR(0) — every release is a post-processing of it,
      in the same order at every release, and the predicate "the record is in the sample"
      attains it;
    * otherwise (substitution, or a design whose other draws move with the record): with
      θ an upper bound on the total variation between the two runs' sample laws (a
      coupling's disagreement probability, `_disagreement`; θ = π under substitution with
      samples coupled by index), |Pr_D(f) − Pr_D'(f)| ≤ θ at every release, so every
      release is a post-processing of the symmetric pair (1−θ)M + θRR(1) against
      (1−θ)M + θRR(0) on three outputs, in either order (`atoms.randomized_response`); the
      lower end comes from the binary pair at π, realised by the predicate "the sample holds
      the record's value" (no other record has it)."""
    if kind not in ("poisson", "srswor", "srswr", "stratified-fixed", "must-ow", "must-wo",
                    "must-ww", "systematic-random", "cluster-srs", "two-stage-cluster",
                    "proportional", "stratified-proportional", "random-size", "poisson-pps"):
        raise ValueError(f"no randomized-response pair derived for design kind {kind!r}")
    if not add_remove and kind == "poisson-pps":
        raise ValueError(f"{kind} under substitution: a changed record changes its size "
                         f"measure, hence the total and every inclusion; no pair is derived "
                         f"(use add-remove, or state the measures fixed)")
    if add_remove and kind == "systematic-random":
        raise ValueError(f"{kind} under add-remove: an added record moves N and every start's "
                         f"sample size; no pair is derived (use substitution)")
    incl = inclusion(kind, params, size, strata_sizes, clusters, size_classes)
    tv, what = _disagreement(kind, params, size, add_remove, strata_sizes, clusters,
                             fixed_clusters, size_classes)
    tv = max(tv, incl)

    # a huge exact π (with replacement: 1 − (1 − 1/N)^m) is rounded outward to 2^-96: both
    # pairs only need |Pr_D(f) − Pr_D'(f)| ≤ π, so a larger π still dominates, and a smaller π
    # gives a pair that the realised one dominates (a lower end still)
    def down(x: Fraction) -> Fraction:
        return x if x.denominator <= 2**96 else dyadic(x, 96, up=False)

    def up(x: Fraction) -> Fraction:
        return x if x.denominator <= 2**96 else dyadic(x, 96, up=True)

    hi_tv, lo_pi = up(tv), down(incl)

    def txt(x: Fraction) -> str:
        return f"{x}" if x.denominator <= 2**96 else f"{float(x):.9g}"

    law = bernoulli(hi_tv)
    if add_remove and kind in _EXACT_LAW:
        binary = randomized_response(hi_tv, epsilon0, symmetric=False)
        lower = None if lo_pi == hi_tv else randomized_response(lo_pi, epsilon0,
                                                                  symmetric=False)
        return (Dominating(binary, "added", law, Fraction(0),
                           f"{kind}: the record is drawn w.p. π = {txt(incl)}, and randomized "
                           f"response (ε0 = {epsilon0}) of any statistic of the sample is a "
                           f"post-processing of (1−π)RR(0) + πRR(1) vs RR(0)", lower=lower),)
    if (kind == "two-stage-cluster" and add_remove and not fixed_clusters
            and params["within"] == "srs" and 2 <= params["m"] <= min(clusters)):
        # realised: the sample holds ℓ·m records unless the record's own new cluster (one
        # record) is drawn, w.p. ℓ/(k + 1): the predicate "fewer than ℓ·m" attains it
        lo_pi = max(lo_pi, down(Fraction(params["ell"], len(clusters) + 1)))
    lower_pair = randomized_response(lo_pi, epsilon0, symmetric=False)
    return (Dominating(randomized_response(hi_tv, epsilon0, symmetric=True), "swapped", law,
                       Fraction(0),
                       f"{kind}: the two runs' samples differ w.p. ≤ θ = {txt(tv)} ({what}); a "
                       f"statistic's value may favour either dataset at every release: the "
                       f"symmetric pair at θ (upper), (1−π)RR(0) + πRR(1) vs RR(0) at the "
                       f"record's inclusion π = {txt(incl)} (lower, realised)",
                       lower=lower_pair),)
