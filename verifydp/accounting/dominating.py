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

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.accounting.atoms import FinitePair, randomized_response
from verifydp.accounting.composition import AnyPair, Pair, Revealed
from verifydp.accounting.laws import truncated_law
from verifydp.designs.allocation import round_allocation
from verifydp.exact.arb import ball, rational

__all__ = ["Dominating", "Realised", "dominating_pairs", "inclusion", "law_pair", "moved_pair",
           "rr_pairs"]

KERNELS = {"gaussian": "gauss", "laplace": "laplace", "discrete-gaussian": "dgauss"}


@dataclass(frozen=True)
class Realised:
    """A concrete dataset pair's step, Σ_i w_i K(c_i) against K(0) (centres of any sign, so
    no monotone loss: its lower end is a threshold-count test, `audit.deployment`)."""

    comps: tuple[tuple[Fraction, Fraction], ...]
    noise: Fraction
    kernel: str
    where: str


@dataclass(frozen=True)
class Dominating:
    """One candidate per-step pair with the share of dataset pairs it covers.

    `law` is the law of K behind it (copies of the record: l ↦ Pr) and `tail` the exact mass
    a truncated law of K left out (δ ≤ δ₀ + Tτ and δ ≥ δ₀ − Tτ(1 + e^ε), accounting.laws).
    `form` is added / swapped / displaced (module docstring); `why` one line for the report."""

    pair: AnyPair
    form: str
    law: tuple[tuple[int, Fraction], ...]
    tail: Fraction
    why: str
    # clusters: the record's cluster is drawn with probability `reveal`, and whether it was
    # may show (its other records can differ from every other cluster's); `pair` is then the
    # step given the cluster is drawn, and `lower` a concrete realisable pair for lower bounds
    reveal: Fraction | None = None
    lower: Pair | FinitePair | None = None
    # when > 0: realisable clusters show the record's cluster up to a misclassification of
    # the output at this distance (cluster-mates at −C, other clusters at +C: shift −m·d)
    separation: Fraction = Fraction(0)
    # a realised pair whose loss is not monotone (a lower end by a count test)
    realised: Realised | None = None

    @property
    def q(self) -> Fraction | None:
        """Pr(K = 1) when K ∈ {0, 1} (the record is in the sample at most once)."""
        if all(k in (0, 1) for k, _ in self.law):
            return sum((w for k, w in self.law if k == 1), Fraction(0))
        return None


def law_pair(law: tuple[tuple[int, Fraction], ...], shift: Fraction, noise: Fraction,
             kernel: str, form: str, name: str = "") -> Pair:
    """The pair of a law of K: ``displaced``/``added`` put copy l at l·shift against K(0);
    ``swapped`` puts it at ±shift. The loss is non-decreasing in x for every kernel: against
    K(0) every component's likelihood ratio K(x − c)/K(x) is non-decreasing for c ≥ 0; for
    ``swapped`` (K ≤ 1) the ratio ((1−π) + πK(x−s)/K(x)) / ((1−π) + πK(x+s)/K(x)) has a
    non-decreasing numerator and non-increasing denominator. For the discrete Gaussian
    (``dgauss``, Canonne, Kamath & Steinke 2020) the ratios are the continuous Gaussian's at
    integer x (the normaliser is common), so the same holds; its shifts must be integers."""
    law = tuple((int(k), Fraction(w)) for k, w in law if w)
    total = sum(w for _, w in law)
    law = tuple((k, w / total) for k, w in law)  # a truncated law, renormalised (tail apart)
    p = tuple((w, Fraction(k) * shift) for k, w in law)
    if form == "swapped":
        q = tuple((w, -Fraction(k) * shift) for k, w in law)
    else:
        q = ((Fraction(1), Fraction(0)),)
    return Pair(p, q, Fraction(noise), kernel, name)


def moved_pair(a: Fraction, b: Fraction, shift: Fraction, noise: Fraction, kernel: str,
               name: str = "", shift_q: Fraction | None = None) -> Pair:
    """A record moved between two independently sampled groups (strata) by a replacement:
    under D it displaces one of its first group's draws with probability a, under D' one of
    the second group's with probability b: (1−a)K(0) + aK(shift) against
    (1−b)K(0) + bK(−shift_q) (shift_q = shift unless given). The ratio's numerator is
    non-decreasing and its denominator non-increasing in x, so the loss is non-decreasing
    (proofs/deployment_pairs.md#moved)."""
    down = Fraction(shift if shift_q is None else shift_q)
    p = tuple((w, c) for w, c in ((1 - a, Fraction(0)), (a, Fraction(shift))) if w)
    q = tuple((w, c) for w, c in ((1 - b, Fraction(0)), (b, -down)) if w)
    return Pair(p, q, Fraction(noise), kernel, name)


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


def _restructured(kind: str, params: Mapping[str, Any], clusters: tuple[int, ...],
                  magnitude: Fraction, noise: Fraction, kernel: str, add_remove: bool,
                  count: bool, within_lower: Pair | FinitePair | None) -> Dominating:
    """Neighbours that change the clusters (proofs/deployment_pairs.md#restructured): a
    record type carries its cluster, so an added record may form a cluster of its own (k + 1
    clusters; removing a one-record cluster is the reverse), and a replacement may move the
    record to another cluster, a new one, or out of a one-record cluster. When the record's
    new cluster is drawn, one cluster Z fewer of the others is: its whole within-sample (w
    records at most) leaves with it. Revealing whether a cluster involved is drawn
    (probability ρ) bounds each release by the two-point pair at the largest distance:
    (w + 1)·a for an added cluster, (w + 3)·a for a replacement (the old cluster's draw
    moves by up to 2a as well)."""
    k, ell = len(clusters), params["ell"]
    if kind == "cluster-srs":
        w = max(clusters)
    elif params["within"] == "srs":
        w = max(min(params["m"], s) for s in clusters)
    else:  # Poisson within: every record of the displaced cluster may be drawn
        w = max(clusters)
    a = magnitude
    if add_remove:
        rho, dist = Fraction(ell, k), (w + 1) * a
    else:
        # the old cluster and the new one: both existing (k clusters: exactly
        # Pr(either drawn)), a new one (k + 1), or the old one vanishing (k − 1); union bounds
        both = Fraction(ell * (2 * k - ell - 1), k * (k - 1)) if k > 1 else Fraction(1)
        rho = max(both, Fraction(ell, k) + Fraction(ell, k + 1))
        if min(clusters) == 1 and k > 1:
            rho = max(rho, Fraction(ell, k) + Fraction(ell, k - 1))
        rho, dist = min(Fraction(1), rho), (w + 3) * a
    pair = law_pair(((1, Fraction(1)),), dist, noise, kernel, "added", f"{kind} restructured")
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
        lower = law_pair(_bernoulli(rate), shift, noise, kernel, "added",
                         f"{kind} new cluster (realised)")
    what = ("the record forms a cluster of its own (k + 1 clusters) or a one-record cluster "
            "is removed" if add_remove else
            "the record moves to another cluster, a new one, or out of a one-record cluster")
    return Dominating(pair, "added", ((1, Fraction(1)),), Fraction(0),
                      f"{kind}: {what}; a cluster involved is drawn w.p. ≤ {rho} (revealed) and "
                      f"the output moves by ≤ {dist} (a displaced cluster's within-sample of "
                      f"≤ {w} records)", rho, lower)


def _bernoulli(pi: Fraction) -> tuple[tuple[int, Fraction], ...]:
    return ((0, 1 - pi), (1, pi)) if pi < 1 else ((1, Fraction(1)),)


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


SizeLaw = tuple[tuple[int, Fraction], ...]  # (m, Pr) of a sample size, increasing in m


def _size_law(kind: str, params: Mapping[str, Any], n: int) -> SizeLaw | None:
    """The law of the sample size drawn from a group of n records (None: the design is not
    defined there, a size law reaching past n)."""
    if kind == "random-size":
        law = tuple(sorted((int(m), Fraction(w)) for m, w in params["size_law"].items() if w))
        return law if law[-1][0] <= n else None
    return tuple(sorted(round_allocation(Fraction(params["r"]) * n, params["rounding"])))


def _coupled(small: SizeLaw, large: SizeLaw) -> list[tuple[int, int, Fraction]]:
    """The quantile coupling (m, m′, weight) of two sample-size laws: one uniform variable
    drives both draws, a label common to both runs and independent of the data."""
    out: list[tuple[int, int, Fraction]] = []
    i = j = 0
    left_a, left_b = small[0][1], large[0][1]
    while True:
        w = min(left_a, left_b)
        if w > 0:
            out.append((small[i][0], large[j][0], w))
        left_a -= w
        left_b -= w
        if left_a == 0:
            i += 1
            if i == len(small):
                return out
            left_a = small[i][1]
        if left_b == 0:
            j += 1
            left_b = large[j][1]


Shifts = tuple[tuple[Fraction, Fraction], ...]  # (shift ≥ 0, Pr), increasing: a step's law


def _st_max(laws: list[Shifts]) -> Shifts:
    """The smallest shift law above each of `laws` in the usual stochastic order (its
    survival function is their pointwise maximum): the pair Σ Pr(s)K(s) against K(0) grows
    in that order (proofs/deployment_pairs.md#resized)."""
    points = sorted({t for law in laws for t, _ in law})
    out, prev = [], Fraction(0)
    for t in reversed(points):
        surv = max(sum((w for x, w in law if x >= t), Fraction(0)) for law in laws)
        if surv > prev:
            out.append((t, surv - prev))
            prev = surv
    return tuple(sorted(out))


@dataclass(frozen=True)
class _Labelled:
    """One way the record joins or changes a group, as a law over the size label (revealed:
    a common, data-independent label) of the step's shift law given the label; `incl` =
    Pr(the record is drawn), `fixed`: every size certain (the pair is then attained)."""

    branches: tuple[tuple[Fraction, Shifts], ...]
    incl: Fraction
    where: str
    fixed: bool
    realised: tuple[tuple[Fraction, Fraction], ...] = ()


def _grown(small: SizeLaw, large: SizeLaw, n: int, a: Fraction, d: Fraction,
           where: str) -> _Labelled:
    """A group grows n → n + 1 (the larger run holds the record), sizes coupled m → m′
    (`_coupled`). Given one run's sample, the other's is that sample moved: with m′ = m the
    record displaces a draw (probability m/(n + 1), shift ≤ d); with m′ = m + j, j ≥ 1, the
    larger run holds j more draws, the record among them or not (shift ≤ j·a). The shifts
    aligned at their largest norms, revealed over the given run's size, dominate
    (proofs/deployment_pairs.md#resized). The given run is the one whose size has fewer
    values (a certain size reveals nothing): the pair's two orders are both composed."""
    by_large = len(large) < len(small)
    per: dict[int, dict[Fraction, Fraction]] = {}
    incl = Fraction(0)
    for m, m2, w in _coupled(small, large):
        incl += w * Fraction(m2, n + 1)
        if m2 < m:
            raise ValueError(f"{where}: the allocation falls when a record joins "
                             f"({m} → {m2}); no dominating pair is derived for that")
        law = per.setdefault(m2 if by_large else m, {})
        if m2 > m:
            law[(m2 - m) * a] = law.get((m2 - m) * a, Fraction(0)) + w
        else:
            rate = Fraction(m, n + 1)
            for t, x in ((Fraction(0), 1 - rate), (d, rate)):
                if x:
                    law[t] = law.get(t, Fraction(0)) + w * x
    branches = []
    for _, law in sorted(per.items()):
        tot = sum(law.values(), Fraction(0))
        branches.append((tot, tuple(sorted((t, x / tot) for t, x in law.items()))))
    real: dict[Fraction, Fraction] = {}
    if len(small) == 1:
        # others at −C, the record at +C, D's size m certain: D's sum is −mC; D′'s moves by
        # d when the record displaces a draw, by (2 − j)·a with j more draws and the record
        # among them, by −j·a without it — exactly, the others being identical
        for m, m2, w in _coupled(small, large):
            j, inside = m2 - m, Fraction(m2, n + 1)
            for t, x in (((d, inside), (Fraction(0), 1 - inside)) if j == 0 else
                         (((2 - j) * a, inside), (-j * a, 1 - inside))):
                if w * x:
                    real[t] = real.get(t, Fraction(0)) + w * x
    return _Labelled(tuple(branches), incl, where, len(small) == len(large) == 1,
                     tuple(sorted((x, t) for t, x in real.items())))


def _in_place(law: SizeLaw, n: int, d: Fraction, where: str) -> _Labelled:
    """The record's value changes, its group keeps n records: the size label m is common and
    the record displaces a draw with probability m/n (shift ≤ d)."""
    branches = tuple((w, tuple((t, x) for t, x in ((Fraction(0), 1 - Fraction(m, n)),
                                                   (d, Fraction(m, n))) if x))
                     for m, w in law)
    incl = sum((w * Fraction(m, n) for m, w in law), Fraction(0))
    return _Labelled(branches, incl, where, len(law) == 1)


_MAX_BRANCHES = 4  # branches of an enveloped revealed mixture (each is composed)


def _envelope(sides: list[_Labelled]) -> tuple[tuple[Fraction, Shifts], ...]:
    """One revealed mixture above every side: each side's label is coupled to one uniform
    U (its branches in increasing mean shift); on each piece of [0, 1) where every side's
    branch is fixed, the stochastic maximum of those branches; adjacent pieces merged (their
    maximum) down to `_MAX_BRANCHES`. Any coupling and any merge keep it dominating."""
    def mean(law: Shifts) -> Fraction:
        return sum((t * w for t, w in law), Fraction(0))

    ordered = [sorted(sd.branches, key=lambda b: (mean(b[1]), b[1])) for sd in sides]
    cuts = {Fraction(0), Fraction(1)}
    for br in ordered:
        acc = Fraction(0)
        for w, _ in br:
            acc += w
            cuts.add(acc)
    points = sorted(cuts)
    pieces: list[tuple[Fraction, Shifts]] = []
    for lo, hi in zip(points, points[1:], strict=False):
        laws = []
        for br in ordered:
            acc = Fraction(0)
            for w, law in br:
                acc += w
                if acc > lo:
                    laws.append(law)
                    break
        law = _st_max(laws)
        if pieces and pieces[-1][1] == law:
            pieces[-1] = (pieces[-1][0] + hi - lo, law)
        else:
            pieces.append((hi - lo, law))
    while len(pieces) > _MAX_BRANCHES:
        i = min(range(len(pieces) - 1), key=lambda k: pieces[k][0] + pieces[k + 1][0])
        pieces[i:i + 2] = [(pieces[i][0] + pieces[i + 1][0],
                            _st_max([pieces[i][1], pieces[i + 1][1]]))]
    return tuple(pieces)


def _shift_pair(branches: tuple[tuple[Fraction, Shifts], ...], noise: Fraction, kernel: str,
                name: str) -> AnyPair:
    """Σ_s Pr(s)K(s) against K(0) per branch (shifts ≥ 0: the loss is non-decreasing,
    `law_pair`), revealed over the branches when there are several."""
    pairs = [(w, Pair(tuple((x, t) for t, x in law), ((Fraction(1), Fraction(0)),), noise,
                      kernel, name)) for w, law in branches]
    return pairs[0][1] if len(pairs) == 1 else Revealed(tuple(pairs), name)


def _grouped(sides: list[_Labelled]) -> list[list[_Labelled]]:
    """Sides with the same shift supports per branch are enveloped together; others (a
    size that jumps for sure against one that never does) stay separate candidates, whose
    envelope would mix them into a pair worse than both."""
    groups: dict[tuple[tuple[Fraction, ...], ...], list[_Labelled]] = {}
    for sd in sides:
        key = tuple(sorted({tuple(t for t, _ in law) for _, law in sd.branches}))
        groups.setdefault(key, []).append(sd)
    return [groups[k] for k in sorted(groups)]


def _resized(kind: str, params: Mapping[str, Any], size: int, a: Fraction, d: Fraction,
             noise: Fraction, kernel: str, add_remove: bool, count: bool,
             strata_sizes: Mapping[str, int] | None) -> tuple[Dominating, ...]:
    """Sample sizes that follow the group's size (proportional allocation, each stratum's
    m_h = round(r·N_h)) or are drawn from a law (`random-size`): the two runs' sizes are
    coupled through one uniform variable, and the step given D's sample is a mixture of
    shifts of bounded norm against D's output — dominated by the shifts aligned at their
    bounds, revealed over D's size (`_grown`, `_in_place`), enveloped over the groups
    (proofs/deployment_pairs.md#resized). Lower ends: a side whose sizes are certain is
    attained (others at −C for a displacement, +C for a jump); otherwise others at 0 and the
    record at +C (a count: 1) realise the record's inclusion probability alone."""
    groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}
    label = "stratum " if kind == "stratified-proportional" else ""

    def law(n: int) -> SizeLaw | None:
        return _size_law(kind, params, n) if n >= 0 else None

    def name(h: str) -> str:
        return f"{label}{h}" if h else "the population"

    sides: list[_Labelled] = []
    if add_remove:
        for h, n in groups.items():
            for k in (n - 1, n):
                lo, hi = law(k), law(k + 1)
                if lo is not None and hi is not None:
                    sides.append(_grown(lo, hi, k, a, d, f"{name(h)} ({k} → {k + 1} records)"))
    else:
        for h, n in groups.items():
            sl = law(n)
            assert sl is not None
            sides.append(_in_place(sl, n, d, name(h)))
    out: list[Dominating] = []
    for grp in _grouped(sides):
        env = _envelope(grp)
        worst = max(grp, key=lambda sd: sd.incl)
        attained = next((sd for sd in grp if sd.fixed and sd.branches == env), None)
        lower = None
        if attained is None:  # others at 0, the record at +C (±C in place; a count: 0 → 1)
            if add_remove or count:
                lower = law_pair(_bernoulli(worst.incl), d if count else a, noise, kernel,
                                 "added", f"{kind} realised")
            else:
                lower = law_pair(_bernoulli(worst.incl), d / 2, noise, kernel, "swapped",
                                 f"{kind} realised")
        real = None
        if lower is not None and not count and kernel != "dgauss":
            conc = [sd for sd in grp if sd.realised]
            if conc:
                best = max(conc, key=lambda sd: sd.incl)
                real = Realised(best.realised, noise, kernel, best.where)
        shown = "; ".join(f"w.p. {w}: " + ", ".join(f"shift {t} w.p. {x}" for t, x in law)
                          for w, law in env)
        what = "a record joins" if add_remove else "the record's value changes in"
        out.append(Dominating(
            _shift_pair(env, noise, kernel, f"{kind} resized"), "resized",
            _bernoulli(worst.incl), Fraction(0),
            f"{kind}: {what} a group (worst: {(attained or worst).where}); sizes coupled, the "
            f"shifts aligned at their bounds, revealed over the size: {shown}", lower=lower,
            realised=real))
    if not add_remove and kind == "stratified-proportional" and len(groups) > 1:
        out.extend(_resized_moves(kind, groups, law, a, d, noise, kernel, count))
    return tuple(out)


_PPS_BITS = 40  # rates rounded up to this many bits (a larger rate dominates)
_PPS_TAIL_BITS = 64  # label and binomial tails below 2^-this are counted as δ = 1
_PPS_BULK = Fraction(9, 2)  # the label's bulk piece: |S| ≤ μ + this many sd


def _up_dyadic(x: Fraction, bits: int = _PPS_BITS) -> Fraction:
    return min(Fraction(-(-x.numerator * 2**bits // x.denominator), 2**bits), Fraction(1))


def _binomial_up(t: int, rho: Fraction) -> tuple[list[Fraction], Fraction]:
    """Pr(Bin(t, ρ) = k) for k = 0 … K and the exact mass beyond K, K the first count whose
    remaining tail is below 2^-_PPS_TAIL_BITS (or t)."""
    pmf: list[Fraction] = []
    left, cut = Fraction(1), Fraction(1, 2**_PPS_TAIL_BITS)
    term = (1 - rho) ** t
    for k in range(t + 1):
        pmf.append(term)
        left -= term
        if left <= cut:
            break
        term = term * (t - k) * rho / ((k + 1) * (1 - rho))
    return pmf, max(left, Fraction(0))


def _bernstein(mu: float, var: float, t: float) -> Fraction:
    """An upper bound on Pr(X ≥ t) for X a sum of independent Bernoullis with mean μ and
    variance v (Bernstein: exp(−s²/(2(v + s/3))), s = t − μ), rounded up to a rational."""
    sgap = t - mu
    if sgap <= 0:
        return Fraction(1)
    s_lo = Fraction(sgap) * Fraction(1 - 2**-40)  # floats chose t: round the exponent's input
    v_hi = Fraction(var) * Fraction(1 + 2**-40) + Fraction(1, 2**60)
    expo = -(s_lo * s_lo) / (2 * (v_hi + s_lo / 3))
    return min(Fraction(1), rational(ball(expo).exp(), up=True))


def _pps_rates(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...]
               ) -> tuple[Fraction, list[tuple[Fraction, int]], Fraction]:
    """(π′ of the added record of the largest measure u, the other classes' (π_k, count)
    in D = the file less one such record, the thinning bound ρ = u/(T₀ + u)) (#pps)."""
    n = Fraction(params["expected_size"])
    u = max(m for m, c in classes if c)
    t0 = sum((m * c for m, c in classes), Fraction(0)) - u
    counts = [(m, c - (1 if m == u else 0)) for m, c in classes]
    rates = [(min(Fraction(1), n * m / t0) if t0 > 0 else Fraction(1), c) for m, c in counts]
    return min(Fraction(1), n * u / (t0 + u)), rates, u / (t0 + u)


def _poisson_pps(params: Mapping[str, Any], classes: tuple[tuple[Fraction, int], ...],
                 a: Fraction, d: Fraction, noise: Fraction, kernel: str, count: bool
                 ) -> Dominating:
    """Poisson PPS (inclusion min(1, n·s/T), T the total size measure) under add/remove, the
    record's measure one of the listed classes (proofs/deployment_pairs.md#pps): the added
    record (measure u, the largest: every rate grows with it) joins D′ w.p.
    π′ = min(1, n·u/(T₀ + u)) and thins every other inclusion by at most ρ = u/(T₀ + u)
    (T₀ = T − u: D is the file's population less one record of measure u). Given D's
    sample S the shift is at most (B + Bin(|S|, ρ))·a, B ~ Bernoulli(π′): aligned, revealed
    over |S| in pieces whose weights are Bernstein bounds on |S|'s upper tail (a larger
    label dominates), the last tail counted as δ = 1."""
    u = max(m for m, c in classes if c)
    exact_in, rates, exact_rho = _pps_rates(params, classes)
    n_d = sum(c for _, c in rates)
    mu = float(sum((p * c for p, c in rates), Fraction(0)))
    var = float(sum((p * (1 - p) * c for p, c in rates), Fraction(0)))
    pi_in, rho = _up_dyadic(exact_in), _up_dyadic(exact_rho)
    sd = max(var, 1e-12) ** 0.5
    # the last threshold: Bernstein's tail below 2^-_PPS_TAIL_BITS
    need = _PPS_TAIL_BITS * 0.6931471805599453
    last = mu + (2 * need / 3 + ((2 * need / 3) ** 2 + 8 * need * var) ** 0.5) / 2 + 1
    # two pieces, |S| ≤ t₁ (the bulk) and t₁ < |S| ≤ t₂, then the tail beyond t₂
    cuts = sorted({min(n_d, int(mu + float(_PPS_BULK) * sd) + 1), min(n_d, int(last) + 1)})
    survive = [(_bernstein(mu, var, t + 1) if t < n_d else Fraction(0)) for t in cuts]
    for i in range(len(survive) - 2, -1, -1):  # non-increasing: a larger piece dominates
        survive[i] = max(survive[i], survive[i + 1])
    branches: list[tuple[Fraction, AnyPair]] = []
    tail = survive[-1]
    prev = Fraction(1)
    for t, sv in zip(cuts, survive, strict=True):
        w = prev - sv
        prev = sv
        if w <= 0:
            continue
        pmf, rest = _binomial_up(t, rho)
        tail += w * rest
        law: dict[Fraction, Fraction] = {}
        for k, x in enumerate(pmf):
            for b, y in ((0, 1 - pi_in), (1, pi_in)):
                if x * y:
                    law[(k + b) * a] = law.get((k + b) * a, Fraction(0)) + x * y
        tot = sum(law.values(), Fraction(0))
        branches.append((w, Pair(tuple(sorted((x / tot, c) for c, x in law.items())),
                                 ((Fraction(1), Fraction(0)),), noise, kernel,
                                 "poisson-pps thinned")))
    # renormalised branches: the dropped binomial tails are in `tail`
    tot_w = sum((w for w, _ in branches), Fraction(0))
    branches = [(w / tot_w, b) for w, b in branches]
    pair = branches[0][1] if len(branches) == 1 else Revealed(tuple(branches),
                                                              "poisson-pps thinned")
    # realised: others at 0 (a dropped one moves nothing), the record at +C (a count: 1)
    lower = law_pair(_bernoulli(exact_in), d if count else a,
                     noise, kernel, "added", "poisson-pps realised")
    return Dominating(pair, "thinned", _bernoulli(pi_in), tail,
                      f"poisson-pps: a record of measure {u} (the largest) joins w.p. "
                      f"{float(pi_in):.6g} and thins every other inclusion by ≤ {float(rho):.3g} "
                      f"(E|S| = {mu:.6g}); shifts aligned, revealed over |S| in "
                      f"{len(branches)} pieces (Bernstein tails), tail {float(tail):.1e}",
                      lower=lower)


@dataclass(frozen=True)
class _Side:
    """A stratum gaining the record for a move (`_resized_moves`): sizes coupled m → m′;
    a jump (m′ > m, probability `jump`, largest `j`) moves the sum by ≤ j·a, otherwise the
    record displaces a draw with probability ≤ `rate`; `incl` = Pr(the record is drawn)."""

    jump: Fraction
    j: int
    rate: Fraction
    incl: Fraction
    where: str


def _side(small: SizeLaw, large: SizeLaw, n: int, where: str) -> _Side:
    jump, top, rate, incl = Fraction(0), 0, Fraction(0), Fraction(0)
    for m, m2, w in _coupled(small, large):
        incl += w * Fraction(m2, n + 1)
        if m2 < m:
            raise ValueError(f"{where}: the allocation falls when a record joins "
                             f"({m} → {m2}); no dominating pair is derived for that")
        if m2 > m:
            jump, top = jump + w, max(top, m2 - m)
        else:
            rate = max(rate, Fraction(m, n + 1))
    return _Side(jump, top, rate, incl, where)


def _envelopes(sides: list[_Side]) -> list[_Side]:
    """Sides grouped by their jump probability, each group's largest j and rate: a side is
    dominated branch by branch by its group's envelope (the moved pair grows with the rate
    and the shift, proofs/deployment_pairs.md#moved)."""
    groups: dict[Fraction, list[_Side]] = {}
    for sd in sides:
        groups.setdefault(sd.jump, []).append(sd)
    out = []
    for jump, g in sorted(groups.items()):
        best = max(g, key=lambda x: (x.j, x.rate) if jump else (x.rate, x.j))
        out.append(_Side(jump, max(x.j for x in g), max(x.rate for x in g),
                         max(x.incl for x in g), best.where))
    return out


def _side_text(sd: _Side, a: Fraction, d: Fraction) -> str:
    parts = []
    if sd.jump > 0:
        parts.append(f"the coupled sample size grows by up to {sd.j} w.p. {sd.jump} (the sum "
                     f"moves by ≤ {sd.j * a})")
    if sd.jump < 1:
        parts.append(f"the size stays and the record displaces a draw w.p. ≤ {sd.rate} "
                     f"(shift {d})" if sd.rate else "the size stays at 0 (nothing drawn)")
    return ", else ".join(parts)


def _side_branches(sd: _Side, a: Fraction, d: Fraction
                   ) -> list[tuple[Fraction, Fraction, Fraction]]:
    """(weight, rate, shift) of a side's branches: the jump, then the displacement."""
    out = []
    if sd.jump > 0:
        out.append((sd.jump, Fraction(1), sd.j * a))
    if sd.jump < 1:
        out.append((1 - sd.jump, sd.rate, d if sd.rate > 0 else Fraction(0)))
    return out


def _resized_moves(kind: str, groups: Mapping[str, int],
                   law: Any, a: Fraction, d: Fraction, noise: Fraction, kernel: str,
                   count: bool) -> list[Dominating]:
    """A replacement that moves the record from stratum h to g: h shrinks (the record leaves
    D's h-sample: a side grown from N_h − 1 under D) and g grows under D'; the strata are
    sampled independently, so the labels are too and each branch pair is a moved pair
    (proofs/deployment_pairs.md#moved) with the sides' shifts."""
    def side(h: str, n: int) -> _Side | None:
        lo, hi = law(n), law(n + 1)
        if lo is None or hi is None:
            return None
        return _side(lo, hi, n, f"stratum {h}")

    leave = [sd for h, n in groups.items() if n >= 1 and (sd := side(h, n - 1))]
    join = [sd for h, n in groups.items() if (sd := side(h, n))]
    out = []
    for u in _envelopes(leave):
        for v in _envelopes(join):
            branches = [(wu * wv, moved_pair(ru, rv, su, noise, kernel, f"{kind} moved", sv))
                        for wu, ru, su in _side_branches(u, a, d)
                        for wv, rv, sv in _side_branches(v, a, d)]
            # realised: others at 0, the record at +C in h (D) and −C in g (D′); a count: 1
            # in h, not counted in g
            lower = (law_pair(_bernoulli(u.incl), d, noise, kernel, "added", f"{kind} realised")
                     if count else moved_pair(u.incl, v.incl, d / 2, noise, kernel,
                                              f"{kind} realised"))
            out.append(Dominating(
                branches[0][1] if len(branches) == 1 else Revealed(tuple(branches),
                                                                   f"{kind} moved"), "moved",
                _bernoulli(max(u.incl, v.incl)), Fraction(0),
                f"a replacement moves the record between strata; leaving one (worst: "
                f"{u.where}): {_side_text(u, a, d)}; joining another (worst: {v.where}): "
                f"{_side_text(v, a, d)}", lower=lower))
    return out


def dominating_pairs(kind: str, params: Mapping[str, Any], size: int, mechanism: str,
                     query: str, magnitude: Fraction, diameter: Fraction, noise: Fraction,
                     add_remove: bool, strata_sizes: Mapping[str, int] | None = None,
                     clusters: tuple[int, ...] = (), epsilon0: Fraction | None = None,
                     fixed_clusters: bool = False,
                     size_classes: tuple[tuple[Fraction, int], ...] = ()
                     ) -> tuple[Dominating, ...]:
    """The candidate per-step pairs of a design (the design file's kind and parameters,
    population size N): the worst case over all neighbouring datasets is the largest of
    the candidates' composed δ (each covers the dataset pairs its `why` names).
    Randomized response (`epsilon0`) takes no query, shift or noise: `rr_pairs`.
    `fixed_clusters`: the file states that the cluster frame is fixed (no neighbour forms,
    dissolves or changes a record's cluster); otherwise such neighbours are covered too."""
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
            return (make("added", _bernoulli(q), Fraction(0),
                         f"Poisson(q = {q}): the record joins w.p. q, nothing else moves"),)
        return (make("swapped", _bernoulli(q), Fraction(0),
                     f"Poisson(q = {q}): the record's value changes (±C), the others' "
                     f"sample is independent of it"),)
    if kind == "srswor":
        q = Fraction(params["m"], size)
        return (make("displaced", _bernoulli(q), Fraction(0),
                     f"fixed size m = {params['m']} without replacement: the record is in "
                     f"w.p. m/N = {q} and displaces another (shift {diameter})"),)
    if kind == "stratified-fixed":
        assert strata_sizes is not None
        q = max(Fraction(m, strata_sizes[h]) for h, m in params["sizes"].items() if m)
        within = make("displaced", _bernoulli(q), Fraction(0),
                      f"fixed allocation, worst stratum m_h/N_h = {q}: inside the stratum a "
                      f"fixed-size draw (displacement, shift {diameter}); other strata "
                      f"unaffected")
        if add_remove:
            return (within,)
        moved = [Dominating(moved_pair(a, b, diameter, noise, kernel, f"{kind} moved"),
                            "moved", _bernoulli(max(a, b)), Fraction(0),
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
            inner = make(form, _bernoulli(b), Fraction(0), "")
            # lower bound: all records at −C but the record (+C), so drawing its cluster
            # shows nothing: the unrevealed pair, realisable. Sharper, when every cluster has
            # more than m records: cluster-mates at −C and other clusters at +C move the
            # output by −m·d when the cluster is drawn (`separation`, audit.deployment)
            low = make(form, _bernoulli(a * b), Fraction(0), "").pair
            sep = Fraction(0)
            if (kind == "two-stage-cluster" and form == "displaced" and params["within"] == "srs"
                    and all(params["m"] < c for c in clusters)):
                sep = params["m"] * diameter
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
                             f"derived (use add-remove)")
        return (_poisson_pps(params, size_classes, magnitude, diameter, noise, kernel,
                             count),)
    if kind in ("proportional", "stratified-proportional", "random-size"):
        return _resized(kind, params, size, magnitude, diameter, noise, kernel, add_remove,
                        count, strata_sizes)
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
        top = make("displaced", _bernoulli(q_max), Fraction(0),
                   f"{kind}: start s uniform on {k} (an SRS of ⌊N/{k}⌋ or ⌈N/{k}⌉ records), a "
                   f"fixed-size draw without replacement given it; the largest rate {q_max} "
                   f"(displacement, shift {diameter})")
        if q_mean == q_max:
            return (top,)  # one size: all others at −C realise it
        # the sizes vary: others at 0 (a count: outside the category) realise the record's
        # inclusion alone, rate q_mean, with the record at ±C
        low = make("swapped", _bernoulli(q_mean), Fraction(0), "").pair
        return (Dominating(top.pair, top.form, top.law, top.tail, top.why, lower=low),)
    if kind in ("srswr", "must-ow", "must-ww") and not add_remove:
        # with two or more copies a substituted value moves every copy while the others'
        # draws move the centres apart: the displaced pair is beaten (others at −C/2, the
        # record −C → +C, with replacement; tests/audit/test_deployment.py), and no pair
        # covering these cases is derived yet
        raise ValueError(f"{kind} under substitution: no dominating pair is derived for "
                         f"designs that may draw a record twice (use add-remove)")
    if kind in ("srswr", "must-ow", "must-wo", "must-ww"):
        law = truncated_law("wr" if kind == "srswr" else kind, size, params.get("b"),
                            params["m"])
        return (make("displaced", law.weights, law.tau,
                     f"{kind}: K copies (exact law, tail {float(law.tau):.1e}), each "
                     f"displacing a record (shift {diameter} per copy)"),)
    raise ValueError(f"no dominating pair derived for design kind {kind!r}")


def inclusion(kind: str, params: Mapping[str, Any], size: int,
              strata_sizes: Mapping[str, int] | None = None) -> Fraction:
    """π = Pr(K ≥ 1): the probability that the record's index is drawn at least once (the
    worst stratum's for a fixed allocation), exact."""
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
        if kind == "cluster-srs":
            within = Fraction(1)
        elif params["within"] == "poisson":
            within = Fraction(params["q"])
        else:  # the record's cluster has s records in the larger run (s − 1 in the smaller)
            within = max(min(Fraction(1), Fraction(params["m"], s)) for s in
                         (set(clusters) | ({c + 1 for c in clusters} if add_remove else set())))
        tv, what = Fraction(ell, k) * within, "the record's cluster and then the record is drawn"
        if not fixed_clusters:  # neighbours that change the clusters (#restructured)
            if add_remove:
                tv = max(tv, Fraction(ell, k + 1))
            else:
                both = Fraction(ell * (2 * k - ell - 1), k * (k - 1)) if k > 1 else Fraction(1)
                rho = max(both, Fraction(ell, k) + Fraction(ell, k + 1))
                if min(clusters) == 1 and k > 1:
                    rho = max(rho, Fraction(ell, k) + Fraction(ell, k - 1))
                tv = max(tv, min(rho, Fraction(1)))
            what += ", or a cluster the neighbour forms, leaves or joins is drawn"
        return tv, what
    if kind in ("proportional", "stratified-proportional", "random-size"):
        groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}

        def grown(n: int) -> Fraction | None:  # n → n + 1: the sizes or the record differ
            lo, hi = (_size_law(kind, params, n) if n >= 0 else None,
                      _size_law(kind, params, n + 1))
            if lo is None or hi is None:
                return None
            return sum((w if m2 != m else w * Fraction(m, n + 1)
                        for m, m2, w in _coupled(lo, hi)), Fraction(0))

        if add_remove:
            ts = [t for n in groups.values() for t in (grown(n - 1), grown(n)) if t is not None]
            return max(ts), "the coupled sizes differ or the record is drawn"
        inplace = max(sum((w * Fraction(m, n) for m, w in _size_law(kind, params, n) or ()),
                          Fraction(0)) for n in groups.values())
        if kind != "stratified-proportional" or len(groups) < 2:
            return inplace, "the record is drawn (the size label is common)"
        leave = max(t for n in groups.values() if n >= 1 and (t := grown(n - 1)) is not None)
        join = max(t for n in groups.values() if (t := grown(n)) is not None)
        return (max(inplace, 1 - (1 - leave) * (1 - join)),
                "the record is drawn, or a move between strata changes a size or draws it")
    if kind == "poisson-pps":  # thinning coupling (#pps): the record kept, or another dropped
        pi_in, rates, rho = _pps_rates(params, size_classes)
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
                         f"(use add-remove)")
    if add_remove and kind == "systematic-random":
        raise ValueError(f"{kind} under add-remove: an added record moves N and every start's "
                         f"sample size; no pair is derived (use substitution)")
    if kind in ("cluster-srs", "two-stage-cluster"):
        k = len(clusters)
        incl = Fraction(params["ell"], k) * (
            Fraction(1) if kind == "cluster-srs" else Fraction(params["q"])
            if params["within"] == "poisson" else
            max(min(Fraction(1), Fraction(params["m"], s)) for s in clusters))
    elif kind in ("proportional", "stratified-proportional", "random-size"):
        groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}
        incl = max(sum((w * Fraction(m, n) for m, w in _size_law(kind, params, n) or ()),
                       Fraction(0)) for n in groups.values())
    elif kind == "poisson-pps":
        incl = _pps_rates(params, size_classes)[0]
    else:
        incl = inclusion(kind, params, size, strata_sizes)
    tv, what = _disagreement(kind, params, size, add_remove, strata_sizes, clusters,
                             fixed_clusters, size_classes)
    tv = max(tv, incl)

    # a huge exact π (with replacement: 1 − (1 − 1/N)^m) is rounded outward to 2^-96: both
    # pairs only need |Pr_D(f) − Pr_D'(f)| ≤ π, so a larger π still dominates, and a smaller π
    # gives a pair that the realised one dominates (a lower end still)
    def down(x: Fraction) -> Fraction:
        return x if x.denominator <= 2**96 else Fraction(x.numerator * 2**96 // x.denominator,
                                                          2**96)

    def up(x: Fraction) -> Fraction:
        return x if x.denominator <= 2**96 else min(
            Fraction(-(-x.numerator * 2**96 // x.denominator), 2**96), Fraction(1))

    hi_tv, lo_pi = up(tv), down(incl)

    def txt(x: Fraction) -> str:
        return f"{x}" if x.denominator <= 2**96 else f"{float(x):.9g}"

    law = ((0, 1 - hi_tv), (1, hi_tv)) if hi_tv < 1 else ((1, Fraction(1)),)
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
