"""The exact worst case at a design's full population size, by orbits (docs/foundations.md#fact-8).

Issue 16 item 1. The worst case over all base mechanisms of a class depends on the design only
through the law of a few *orbit coordinates* φ of the sample: the copies of the differing
record(s) and, for each class of interchangeable common records, how many of them were drawn.
Fact 8 (the exchangeable-filling lemma) states when the LP over φ equals the LP over the whole
sample; every builder below names the hypothesis it uses, and its size (number of orbit points)
does not grow with N.

Builders return `Orbit`s (a pair of exact laws over φ). Where a law has an unbounded tail
(with-replacement copies), the tail is merged onto one point by a 1-Lipschitz map ψ
(post-processing: the LP on the merged laws is a lower bound) and the upper bound is widened by
the certified tail terms of fact 8 (`tail`). An orbit built in the identical-records world only
(`exact=False`) gives a certified lower bound and no upper bound (fact 4: with replacement,
identical common records may understate the distinct-records worst case).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, prod

from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Relation
from verifydp.worstcase.engine import MechanismClass, worst_case_hockey, worst_case_ratio
from verifydp.worstcase.lp import LPFailure

TAIL_MASS = 1e-15  # a tail lighter than this is merged (its effect is added to the bracket)
MAX_ORBIT_POINTS = 60_000  # the LP grid limit the audit uses
MAX_MOVES = 30  # ordered (source, destination) size-class pairs of cluster moves solved


SizeLaw = Callable[[int], FiniteDist[int]]


class OutOfReach(ValueError):
    """The full-size instance has more orbits than the limit; the message names the limit."""


@dataclass(frozen=True)
class Tail:
    """Mass merged by ψ on one side: (mass, distance from its original point to the anchor)
    pairs, and the distance from ψ's target point to the anchor (fact 8, tails).

    `binomial` = (m, p, top, unit): beyond k = top the parts continue as Binomial(m, p) at
    distance unit·k; their weighted sum is taken exactly from the generating function
    (1 − p + p t^unit)^m minus its head, never term by term."""

    parts: tuple[tuple[Fraction, int], ...] = ()
    target_distance: int = 0
    binomial: tuple[int, Fraction, int, int] | None = None

    def _head(self) -> list[Fraction]:
        assert self.binomial is not None
        m, p, top, _ = self.binomial
        return [comb(m, k) * p**k * (1 - p) ** (m - k) for k in range(top + 1)]

    @property
    def mass(self) -> Fraction:
        out = sum((m for m, _ in self.parts), Fraction(0))
        if self.binomial is not None:
            out += 1 - sum(self._head(), Fraction(0))
        return out

    def weighted(self, t: Fraction) -> Fraction:
        out = sum((m * t**d for m, d in self.parts), Fraction(0))
        if self.binomial is not None:
            m, p, _, unit = self.binomial
            tu = t**unit
            mgf = (1 - p + p * tu) ** m
            out += mgf - sum((pk * tu**k for k, pk in enumerate(self._head())), Fraction(0))
        return out


@dataclass(frozen=True)
class Orbit:
    """One population pair at full size, reduced to its orbit coordinates φ."""

    label: str
    coords: tuple[str, ...]  # the meaning of each coordinate of φ
    law_p: FiniteDist[CountVector]
    law_q: FiniteDist[CountVector]
    why: str  # the hypothesis of fact 8 that makes φ exact (or why only a lower bound)
    exact: bool = True
    anchor: CountVector | None = None  # a point with mass under both laws (tails only)
    tail_p: Tail = Tail()
    tail_q: Tail = Tail()


@dataclass(frozen=True)
class FullBracket:
    """Certified bracket of the full-size worst case over the listed orbits.

    `lower`/`upper` None: +∞ (lower None ⇒ infinite); `upper` is also None when some orbit only
    gives a lower bound (`complete` False)."""

    lower: Fraction | None
    upper: Fraction | None
    worst: str
    points: int
    complete: bool

    @property
    def infinite(self) -> bool:
        return self.lower is None


# ---------------------------------------------------------------- solving


def _ratio_upper_with_tails(r: Fraction | None, a_tail: Tail, b_tail: Tail,
                            b_anchor: Fraction, t: Fraction) -> Fraction | None:
    """Fact 8 (tails): R ≤ (R_ψ + c_A) / (1 − c_B)."""
    if r is None:
        return None
    if not a_tail.parts and not b_tail.parts:
        return r
    c_a = a_tail.weighted(t) / b_anchor
    c_b = b_tail.mass * t**b_tail.target_distance / b_anchor
    if c_b >= 1:
        return None
    return (r + c_a) / (1 - c_b)


def solve_ratio(orbits: Sequence[Orbit], mclass: MechanismClass,
                max_points: int = MAX_ORBIT_POINTS) -> FullBracket:
    """Certified bracket of sup_M sup_E Pr[M(C(P)) ∈ E] / Pr[M(C(P')) ∈ E] over the orbits
    (the maximum over both directions of every pair)."""
    lo: Fraction | None = Fraction(1)
    hi: Fraction | None = Fraction(1)
    worst, points, complete = "", 0, True
    for ob in orbits:
        try:
            wc = worst_case_ratio(ob.law_p, ob.law_q, mclass, max_points=max_points)
        except LPFailure:
            # HiGHS loses the Charnes–Cooper LP when the ratio is huge; the hockey-stick LP
            # (f in [0, 1]) stays well scaled and certifies a lower bound only
            low = _ratio_floor_by_hockey(ob, mclass, max_points)
            complete = False
            if low > (lo or 0) and lo is not None:
                lo, worst = low, ob.label + " (lower bound through the hockey-stick LP)"
            continue
        points += wc.lp_points
        for bound, a_t, b_t, b_law in ((wc.forward, ob.tail_p, ob.tail_q, ob.law_q),
                                       (wc.backward, ob.tail_q, ob.tail_p, ob.law_p)):
            b_anchor = b_law.prob(ob.anchor) if ob.anchor is not None else Fraction(0)
            up = bound.upper
            if a_t.parts or b_t.parts:
                up = None if b_anchor == 0 else _ratio_upper_with_tails(
                    up, a_t, b_t, b_anchor, mclass.t_hi)
            if not ob.exact:
                up, complete = None, False
            if bound.lower is None:
                lo, worst = None, ob.label
            elif lo is not None and bound.lower > lo:
                lo, worst = bound.lower, ob.label
            if hi is not None:
                hi = None if up is None else max(hi, up)
    if not complete:
        hi = None
    return FullBracket(lo, hi, worst, points, complete)


def _ratio_floor_by_hockey(ob: Orbit, mclass: MechanismClass, max_points: int) -> Fraction:
    """A certified lower bound of the ratio: if sup (P − t'·Q)(f) > 0 over ε-DP f then some
    event has Pr_P > t'·Pr_Q, so the ratio exceeds t'. Tried at t' = t_lo^j, j = 1, 2, …
    until the certified δ' is 0 or the solver gives up."""
    best = Fraction(1)
    for j in range(1, 65):
        tp = mclass.t_lo**j
        try:
            wc = worst_case_hockey(ob.law_p, ob.law_q, mclass, tp, tp, max_points=max_points)
        except LPFailure:
            break
        if max(wc.forward.lower or 0, wc.backward.lower or 0) <= 0:
            break
        best = tp
    return best


def solve_hockey(orbits: Sequence[Orbit], mclass: MechanismClass, tp_lo: Fraction,
                 tp_hi: Fraction, max_points: int = MAX_ORBIT_POINTS) -> FullBracket:
    """Certified bracket of sup D_{t'}(M(C(P)) ‖ M(C(P'))) over the orbits, both directions;
    tails add A_T + t'·B_T (fact 8)."""
    lo, hi = Fraction(0), Fraction(0)
    worst, points, complete = "", 0, True
    for ob in orbits:
        wc = worst_case_hockey(ob.law_p, ob.law_q, mclass, tp_lo, tp_hi, max_points=max_points)
        points += wc.lp_points
        for bound, a_t, b_t in ((wc.forward, ob.tail_p, ob.tail_q),
                                (wc.backward, ob.tail_q, ob.tail_p)):
            assert bound.lower is not None and bound.upper is not None
            if bound.lower > lo or not worst:
                lo, worst = max(lo, bound.lower), ob.label
            if not ob.exact:
                complete = False
            hi = max(hi, bound.upper + a_t.mass + tp_hi * b_t.mass)
    return FullBracket(lo, min(hi, Fraction(1)) if complete else None, worst, points, complete)


# ---------------------------------------------------------------- laws of the differing part


def bernoulli(p: Fraction) -> FiniteDist[int]:
    return FiniteDist.from_pairs([(0, 1 - p), (1, p)])


def binomial_head(m: int, p: Fraction) -> tuple[list[Fraction], int]:
    """The exact pmf of Binomial(m, p) up to the first k with tail below TAIL_MASS (float
    search for the cut only; the returned masses are exact), and that k."""
    pmf: list[Fraction] = []
    total = Fraction(0)
    for k in range(m + 1):
        pk = comb(m, k) * p**k * (1 - p) ** (m - k)
        pmf.append(pk)
        total += pk
        if float(1 - total) < TAIL_MASS:
            break
    return pmf, len(pmf) - 1


def _vec(*xs: int) -> CountVector:
    return tuple(xs)


def _law(pairs: Iterable[tuple[CountVector, Fraction]]) -> FiniteDist[CountVector]:
    return FiniteDist.from_pairs(pairs)


# ---------------------------------------------------------------- one-stage designs


def poisson_add_remove(q: Fraction, protect: Relation = Relation.ADD_REMOVE) -> list[Orbit]:
    """Poisson(q) under an add-remove *base* mechanism: φ = copies of x (and y) only (fact 8,
    independent part): the answer does not depend on N. Under a replace base the sample size
    is visible and this reduction does not apply."""
    why = ("Poisson sampling: the common records' sample is independent of x's (and y's) "
           "inclusion and has the same law on both sides (fact 8, independent part); N does "
           "not matter")
    if protect is Relation.ADD_REMOVE:
        law_q = _law([(_vec(0), 1 - q), (_vec(1), q)])
        return [Orbit("add or remove one record (Poisson)", ("x",), FiniteDist.point(_vec(0)),
                      law_q, why)]
    law_p = _law([(_vec(0, 0), 1 - q), (_vec(1, 0), q)])
    law_q = _law([(_vec(0, 0), 1 - q), (_vec(0, 1), q)])
    return [Orbit("replace one record (Poisson)", ("x", "y"), law_p, law_q, why)]


def wor_pairs(n: int, size_p: FiniteDist[int], size_q: FiniteDist[int], protect: Relation,
              label: str) -> list[Orbit]:
    """Without replacement, random size M (law per side), x (and y) among n records:
    φ = (common drawn, x[, y]). `size_p`: sample sizes of P; for add-remove P has n common
    records and P' = P + x (n + 1 records); for replace both have n records."""
    why = ("without replacement: given the number a of common records drawn, they are a "
           "uniform a-subset, on both sides (fact 8, exchangeable filling)")
    if protect is Relation.ADD_REMOVE:
        p = _law((_vec(m, 0), pr) for m, pr in size_p)
        q = _law(pair for m, pr in size_q for pair in (
            (_vec(m, 0), pr * Fraction(n + 1 - m, n + 1)), (_vec(m - 1, 1), pr * Fraction(m, n + 1))))
        return [Orbit(label, ("a", "x"), p, q, why)]
    p = _law(pair for m, pr in size_p for pair in (
        (_vec(m, 0, 0), pr * Fraction(n - m, n)), (_vec(m - 1, 1, 0), pr * Fraction(m, n))))
    q = _law(pair for m, pr in size_q for pair in (
        (_vec(m, 0, 0), pr * Fraction(n - m, n)), (_vec(m - 1, 0, 1), pr * Fraction(m, n))))
    return [Orbit(label, ("a", "x", "y"), p, q, why)]


def srswr_pairs(n: int, m: int, protect: Relation, base: Relation) -> list[Orbit]:
    """m draws with replacement from a population of n records and its neighbour (add-remove:
    n + 1 and n − 1 records, both orientations; replace: n records on both sides).

    K ~ Binomial(m, 1/size) copies of x; φ = (common draws, x[, y]); the tail of K beyond the
    cut is merged by ψ (copies beyond the cut become common draws) and enters the bracket
    through fact 8's tail terms."""
    why = ("with replacement, i.i.d. draws: given a common draws they are a i.i.d. uniform, on "
           "both sides, nested in a (fact 8, exchangeable filling); tail of K merged by ψ")
    out = []
    if protect is Relation.ADD_REMOVE:
        unit = 2 if base is Relation.ADD_REMOVE else 1  # distance of one copy to a common draw
        for size, what in ((n + 1, f"add one record to {n}"), (n, f"remove one record of {n}")):
            pmf, cut = binomial_head(m, Fraction(1, size))
            rest = 1 - sum(pmf, Fraction(0))
            q = _law([(_vec(m - k, k), pk) for k, pk in enumerate(pmf)]
                     + ([(_vec(m - cut, cut), rest)] if rest else []))
            out.append(Orbit(f"{what} (m = {m} draws with replacement)", ("a", "x"),
                             FiniteDist.point(_vec(m, 0)), q, why, anchor=_vec(m, 0),
                             tail_q=_wr_tail(m, Fraction(1, size), cut, unit, cut * unit)))
        return out
    unit = 1 if base is Relation.REPLACE else 2
    pmf, cut = binomial_head(m, Fraction(1, n))
    rest = 1 - sum(pmf, Fraction(0))
    tail = _wr_tail(m, Fraction(1, n), cut, unit, cut * unit)
    p = _law([(_vec(m - k, k, 0), pk) for k, pk in enumerate(pmf)]
             + ([(_vec(m - cut, cut, 0), rest)] if rest else []))
    q = _law([(_vec(m - k, 0, k), pk) for k, pk in enumerate(pmf)]
             + ([(_vec(m - cut, 0, cut), rest)] if rest else []))
    return [Orbit(f"replace one record of {n} (m = {m} draws with replacement)",
                  ("a", "x", "y"), p, q, why, anchor=_vec(m, 0, 0), tail_p=tail, tail_q=tail)]


def _wr_tail(m: int, p: Fraction, cut: int, unit: int, target: int) -> Tail:
    """The copies K = k > cut of Binomial(m, p), at distance unit·k from the anchor: the first
    64 terms one by one, the rest through the generating function (exact)."""
    top = min(m, cut + 64)
    parts = tuple((comb(m, k) * p**k * (1 - p) ** (m - k), unit * k)
                  for k in range(cut + 1, top + 1))
    return Tail(parts, target, (m, p, top, unit) if top < m else None)


def identical_world(head: Sequence[Fraction], m: int, protect: Relation, label: str
                    ) -> list[Orbit]:
    """Fixed size m with K copies of the differing record (e.g. MUST), `head` the exact
    Pr(K = k) for k ≤ cut: the identical-records pair only, so a certified *lower* bound
    (fact 4); copies beyond the cut are merged onto K = cut by ψ (post-processing)."""
    cut = len(head) - 1
    rest = 1 - sum(head, Fraction(0))
    probs = [*head[:-1], head[-1] + rest]
    why = ("identical common records: a population pair of the stated size, so a lower bound; "
           "with replacement it may understate distinct records (fact 4)")
    if protect is Relation.ADD_REMOVE:
        q = _law((_vec(m - k, k), pr) for k, pr in enumerate(probs))
        return [Orbit(label, ("a", "x"), FiniteDist.point(_vec(m, 0)), q, why, exact=False)]
    p = _law((_vec(m - k, k, 0), pr) for k, pr in enumerate(probs))
    q = _law((_vec(m - k, 0, k), pr) for k, pr in enumerate(probs))
    assert cut >= 0
    return [Orbit(label, ("a", "x", "y"), p, q, why, exact=False)]


# ---------------------------------------------------------------- stratified designs


def stratum_pairs(n: int, size_of: SizeLaw, protect: Relation,
                  name: str | None) -> list[Orbit]:
    """One stratum of n records; `size_of(n)` the law of its sample size for a stratum of n
    records. The other strata are sampled independently with unchanged laws (fact 8,
    independent part), so φ is this stratum's (common, x[, y])."""
    out = []
    where = f"stratum {name!r}" if name else "the population"
    if protect is Relation.ADD_REMOVE:
        out += _tag(wor_pairs(n, size_of(n), size_of(n + 1), protect,
                              f"add a record to {where} ({n} records)"), name)
        if n > 1:
            out += _tag(wor_pairs(n - 1, size_of(n - 1), size_of(n), protect,
                                  f"remove a record from {where} ({n} records)"), name)
    else:
        out += _tag(wor_pairs(n, size_of(n), size_of(n), protect,
                              f"replace a record in {where} ({n} records)"), name)
    return out


def _tag(orbits: list[Orbit], name: str | None) -> list[Orbit]:
    if not name:
        return orbits
    extra = "; the other strata are independent with unchanged laws (fact 8, independent part)"
    return [Orbit(o.label, o.coords, o.law_p, o.law_q, o.why + extra, o.exact) for o in orbits]


def cross_stratum(ng: int, nh: int, size_g: SizeLaw, size_h: SizeLaw,
                  g: str, h: str) -> Orbit:
    """Replace a record x of stratum g (ng records) by a record y of stratum h (nh records):
    both allocations may change; φ = (common of g, x, common of h, y)."""
    def side(n_x: int, n_y: int, x_here: bool) -> FiniteDist[CountVector]:
        pts: dict[CountVector, Fraction] = {}
        for mg, pg in size_g(n_x):
            for mh, ph in size_h(n_y):
                kx = [(0, Fraction(n_x - mg, n_x)), (1, Fraction(mg, n_x))] if x_here \
                    else [(0, Fraction(1))]
                ky = [(0, Fraction(n_y - mh, n_y)), (1, Fraction(mh, n_y))] if not x_here \
                    else [(0, Fraction(1))]
                for kxv, px in kx:
                    for kyv, py in ky:
                        if not (px and py):
                            continue
                        v = (mg - kxv, kxv, mh - kyv, kyv)
                        pts[v] = pts.get(v, Fraction(0)) + pg * ph * px * py
        return _law(pts.items())

    why = ("strata sampled independently; within each stratum a uniform subset of its size "
           "(fact 8)")
    return Orbit(f"move a record from stratum {g!r} ({ng}) to {h!r} ({nh})",
                 ("a_g", "x", "a_h", "y"), side(ng, nh, True), side(ng - 1, nh + 1, False), why)


def with_rest(orbits: Sequence[Orbit], rest: int) -> list[Orbit]:
    """Append the (fixed) number of records drawn from the other strata as a coordinate.
    Needed under a *replace* base: a unit moving between strata changes this stratum's size,
    so φ must count the rest (fact 8, (a)); with a fixed size it is nested trivially."""
    def ext(law: FiniteDist[CountVector]) -> FiniteDist[CountVector]:
        return law.map(lambda v: (*v, rest))
    return [Orbit(o.label, (*o.coords, "rest"), ext(o.law_p), ext(o.law_q),
                  o.why + "; the other strata's sample size is fixed", o.exact)
            for o in orbits]


def allocation_change(rows: Sequence[tuple[str, int, int, int, int, bool, bool]], label: str
                      ) -> Orbit:
    """A neighbour that moves several strata's allocations at once (Neyman allocation): rows
    (stratum, n_P, m_P, n_P', m_P', x in it, y in it) for every stratum whose allocation moves
    or which holds the changed record; the others are independent with unchanged laws (fact 8,
    independent part). φ = (common drawn per listed stratum, x, y)."""
    def side(prime: bool) -> FiniteDist[CountVector]:
        law: dict[CountVector, Fraction] = {(): Fraction(1)}
        kx = ky = 0
        for _, n_p, m_p, n_q, m_q, x_in, y_in in rows:
            n, m, here = (n_q, m_q, y_in) if prime else (n_p, m_p, x_in)
            parts = [((m,), Fraction(1), 0)] if not here else [
                ((m,), Fraction(n - m, n), 0), ((m - 1,), Fraction(m, n), 1)]
            new: dict[CountVector, Fraction] = {}
            for v, pv in law.items():
                for a, pa, hit in parts:
                    if pa:
                        key = (*v, *a, hit)
                        new[key] = new.get(key, Fraction(0)) + pv * pa
            law = new
        # the hit flags sit after each stratum: collect them into x (P) or y (P')
        out: dict[CountVector, Fraction] = {}
        for v, pv in law.items():
            counts, hits = v[0::2], sum(v[1::2])
            kx, ky = (0, hits) if prime else (hits, 0)
            key = (*counts, kx, ky)
            out[key] = out.get(key, Fraction(0)) + pv
        return _law(out.items())

    why = ("strata sampled independently, a uniform subset of the allocated size in each "
           "(fact 8); only this neighbour: a lower bound for the worst over all neighbours")
    coords = (*(f"a_{r[0]}" for r in rows), "x", "y")
    return Orbit(label, coords, side(False), side(True), why, exact=False)


# ---------------------------------------------------------------- cluster designs


def cluster_pairs(sizes: Sequence[tuple[int, int]], ell: int, within_m: int | None,
                  protect: Relation, max_points: int = MAX_ORBIT_POINTS,
                  open_frame: bool = True) -> list[Orbit]:
    """Cluster SRS (within_m None: whole clusters) or two-stage with SRS of within_m records
    in each drawn cluster. `sizes`: (cluster size, number of clusters) classes.

    φ = (records drawn from the other clusters, per class of equal contribution; common records
    of the changed cluster c; x[, y]). The others' sample given those totals is a uniform set of
    clusters of each class, filled cluster by cluster (fact 8, exchangeable filling). One orbit
    per size class of c (add to / remove from / replace in a cluster of that size) and, with
    an open frame (a record type carries its cluster), x as a new cluster of its own
    (add-remove) or moved between clusters (replace); `open_frame=False` is a fixed, public
    frame that no neighbour changes."""
    k = sum(c for _, c in sizes)

    def contrib(s: int) -> int:
        return s if within_m is None else min(within_m, s)

    out: list[Orbit] = []
    for s, _count in sizes:
        others = [(sz, c - (1 if sz == s else 0)) for sz, c in sizes]
        if protect is Relation.ADD_REMOVE:
            out.append(_cluster_orbit(others, k, ell, s, s + 1, contrib, within_m,
                                      f"add a record to a cluster of size {s}", max_points))
            if s > 1:
                out.append(_cluster_orbit(others, k, ell, s - 1, s, contrib, within_m,
                                          f"remove a record from a cluster of size {s}",
                                          max_points))
        else:
            out.append(_cluster_orbit(others, k, ell, s, s, contrib, within_m,
                                      f"replace a record in a cluster of size {s}", max_points,
                                      replace=True))
    if not open_frame:
        return out
    if protect is Relation.REPLACE:
        moves = len(sizes) * (len(sizes) + 1)
        if moves > MAX_MOVES:  # the replace answer is then bounded below only
            why = (f"; the {moves} ordered size-class pairs of a move between clusters exceed "
                   f"the limit {MAX_MOVES}: a lower bound only")
            return [Orbit(o.label, o.coords, o.law_p, o.law_q, o.why + why, exact=False)
                    for o in out]
        out += _moves(sizes, ell, contrib, max_points)
    if protect is Relation.ADD_REMOVE:
        out.append(_cluster_orbit(sizes, k + 1, ell, 0, 1, contrib, within_m,
                                  "add a record as a new cluster", max_points, new=True))
    return out


Special = tuple[int, int, str | None]  # (slot 0 or 1, cluster size, marked record x/y/None)


def _moves(sizes: Sequence[tuple[int, int]], ell: int, contrib: Callable[[int], int],
           max_points: int) -> list[Orbit]:
    """Replace x in a cluster c by y in another cluster c' (both sizes change), for every
    ordered pair of size classes; a singleton c disappears, and y may open a new cluster
    (the number of clusters changes with them)."""
    out = []
    counts = dict(sizes)
    for s1, _ in sizes:
        dests: list[int | None] = [s2 for s2, c2 in sizes if s2 != s1 or c2 >= 2]
        for s2 in [*dests, None]:
            others = dict(counts)
            others[s1] -= 1
            if s2 is not None:
                others[s2] -= 1
            spec_p: list[Special] = [(0, s1, "x")] + ([(1, s2, None)] if s2 is not None else [])
            spec_q: list[Special] = ([(0, s1 - 1, None)] if s1 > 1 else []) + [
                (1, (s2 or 0) + 1, "y")]
            where = f"a cluster of size {s2}" if s2 is not None else "a new cluster"
            out.append(_special_orbit(sorted(others.items()), ell, spec_p, spec_q, contrib,
                                      f"move a record from a cluster of size {s1} to {where}",
                                      max_points))
    return out


def _special_orbit(others: Sequence[tuple[int, int]], ell: int, spec_p: Sequence[Special],
                   spec_q: Sequence[Special], contrib: Callable[[int], int], label: str,
                   max_points: int) -> Orbit:
    """Each side: the common clusters `others` plus its special clusters (slot, size, marked
    record); ℓ clusters drawn by SRS from all of that side's clusters. φ = (records from the
    others per contribution class, common records of slot 0, of slot 1, x, y); coordinates
    that are 0 on both supports are dropped (fact 2)."""
    k_o = sum(c for _, c in others)
    by: dict[int, int] = {}
    for sz, c in others:
        if c:
            by[contrib(sz)] = by.get(contrib(sz), 0) + c
    box = prod(min(c, ell) * v + 1 for v, c in by.items()) * 4 * max(
        [contrib(sz) + 1 for _, sz, _ in [*spec_p, *spec_q]] or [1]) ** 2
    if box > max_points:
        raise OutOfReach(f"{label}: the orbit grid has about {box} points (limit {max_points})")
    cls = sorted(by)
    cache: dict[int, tuple[list[int], dict[tuple[int, ...], Fraction]]] = {}

    def others_law(draws: int) -> list[tuple[tuple[int, ...], Fraction]]:
        if draws not in cache:
            cache[draws] = _classes_law(others, draws, contrib)
        have, law = cache[draws]
        return [(tuple(dict(zip(have, v)).get(c, 0) for c in cls), pr) for v, pr in law.items()]

    def side(spec: Sequence[Special]) -> dict[CountVector, Fraction]:
        total = k_o + len(spec)
        pts: dict[CountVector, Fraction] = {}
        for drawn in itertools.product((False, True), repeat=len(spec)):
            j = sum(drawn)
            if j > ell or ell - j > k_o:
                continue
            pr_set = Fraction(comb(k_o, ell - j), comb(total, ell))
            parts: list[tuple[tuple[int, int, int, int], Fraction]] = [((0, 0, 0, 0), pr_set)]
            for (slot, size, mark), d in zip(spec, drawn):
                if not d:
                    continue
                take = contrib(size)
                opts = [(take, 0, Fraction(1))] if mark is None else [
                    (take, 0, Fraction(size - take, size)), (take - 1, 1, Fraction(take, size))]
                new = []
                for v, pv in parts:
                    for common, hit, ph in opts:
                        if not ph:
                            continue
                        w = list(v)
                        w[slot] += common
                        w[2 if mark == "x" else 3] += hit
                        new.append(((w[0], w[1], w[2], w[3]), pv * ph))
                parts = new
            for o, po in others_law(ell - j):
                for v, pv in parts:
                    key = (*o, *v)
                    pts[key] = pts.get(key, Fraction(0)) + po * pv
        return pts

    pp, qq = side(spec_p), side(spec_q)
    names = (*(f"others({c})" for c in cls), "c", "c'", "x", "y")
    keep = [i for i in range(len(names))
            if any(v[i] for v in pp) or any(v[i] for v in qq)]
    law_p = _law(((tuple(v[i] for i in keep), pr) for v, pr in pp.items()))
    law_q = _law(((tuple(v[i] for i in keep), pr) for v, pr in qq.items()))
    why = ("clusters drawn by SRS; given the records drawn per contribution class the other "
           "clusters are uniform and filled cluster by cluster (fact 8, exchangeable filling)")
    return Orbit(label, tuple(names[i] for i in keep), law_p, law_q, why)


def _classes_law(others: Sequence[tuple[int, int]], draws: int, contrib: Callable[[int], int]
                 ) -> tuple[list[int], dict[tuple[int, ...], Fraction]]:
    """Law of the per-contribution-class record totals of `draws` clusters drawn uniformly
    without replacement from `others` (multivariate hypergeometric over contribution classes)."""
    by: dict[int, int] = {}
    for s, c in others:
        if c:
            by[contrib(s)] = by.get(contrib(s), 0) + c
    cls = sorted(by)
    counts = [by[c] for c in cls]
    total = sum(counts)
    denom = comb(total, draws)
    law: dict[tuple[int, ...], Fraction] = {}
    for js in _bounded(counts, draws):
        w = prod(comb(n, j) for n, j in zip(counts, js))
        if w:
            law[tuple(j * c for j, c in zip(js, cls))] = Fraction(w, denom)
    return cls, law


def _bounded(caps: Sequence[int], total: int) -> Iterable[tuple[int, ...]]:
    if not caps:
        if total == 0:
            yield ()
        return
    for j in range(min(caps[0], total) + 1):
        for rest in _bounded(caps[1:], total - j):
            yield (j, *rest)


def _cluster_orbit(others: Sequence[tuple[int, int]], k: int, ell: int, s_p: int, s_q: int,
                   contrib: Callable[[int], int], within_m: int | None, label: str,
                   max_points: int, replace: bool = False, new: bool = False) -> Orbit:
    """P: cluster c has s_p records (x among them iff s_p > s_q... see callers); here x is in
    the side with the larger cluster; for replace x (P) and y (P') are in c of size s_p."""
    pi = Fraction(ell, k)  # c drawn
    # the others' totals: sizes of the class ranges (region box) checked first
    by: dict[int, int] = {}
    for s, c in others:
        if c:
            by[contrib(s)] = by.get(contrib(s), 0) + c
    total = sum(by.values())
    box = prod((min(by[c], ell) - max(0, ell - 1 - (total - by[c]))) * c + 1 for c in by) \
        * (contrib(max(s_p, s_q)) + 1) * (3 if replace else 2)
    if box > max_points:
        raise OutOfReach(
            f"{label}: the orbit grid has about {box} points (limit {max_points}); "
            f"{len(by)} classes of equal contribution per drawn cluster")
    cls_in, law_in = _classes_law(others, ell - 1, contrib) if ell >= 1 else ([], {})
    cls_out, law_out = _classes_law(others, ell, contrib)
    cls = sorted(set(cls_in) | set(cls_out))

    def pad(v: tuple[int, ...], have: list[int]) -> tuple[int, ...]:
        d = dict(zip(have, v))
        return tuple(d.get(c, 0) for c in cls)

    def within(size: int, with_x: bool, which: int) -> list[tuple[tuple[int, ...], Fraction]]:
        """Law of (common of c, x, y) drawn from c given c drawn; `which` 1: x, 2: y."""
        take = size if within_m is None else min(within_m, size)
        tail = (0, 0)
        if not with_x or size == 0:
            return [((take, *tail), Fraction(1))]
        pk = Fraction(take, size)
        hit = (take - 1, 1, 0) if which == 1 else (take - 1, 0, 1)
        return [((take, 0, 0), 1 - pk), (hit, pk)]

    def side(size: int, with_x: bool, which: int) -> FiniteDist[CountVector]:
        pts: dict[CountVector, Fraction] = {}
        if not new or with_x:
            for o, po in law_in.items():
                for w, pw in within(size, with_x, which):
                    v = pad(o, cls_in) + (w if replace else w[:2])
                    pts[v] = pts.get(v, Fraction(0)) + pi * po * pw
        else:  # P without the new cluster: ℓ of k − 1 clusters, all others
            pass
        absent = Fraction(1) - (pi if (not new or with_x) else Fraction(0))
        if absent:
            law_o, have = (law_out, cls_out)
            if new and not with_x:
                cls_o2, law_o2 = _classes_law(others, ell, contrib)
                law_o, have = law_o2, cls_o2
            for o, po in law_o.items():
                v = pad(o, have) + ((0, 0, 0) if replace else (0, 0))
                pts[v] = pts.get(v, Fraction(0)) + absent * po
        return _law(pts.items())

    if replace:
        law_p, law_q = side(s_p, True, 1), side(s_q, True, 2)
        coords = (*(f"others({c})" for c in cls), "c", "x", "y")
    else:
        law_p, law_q = side(s_p, s_p > s_q, 1), side(s_q, s_q > s_p, 1)
        coords = (*(f"others({c})" for c in cls), "c", "x")
    why = ("clusters drawn by SRS: given the records drawn from each class of equal "
           "contribution, the others are a uniform set of clusters, filled cluster by cluster "
           "(fact 8, exchangeable filling)")
    return Orbit(label, coords, law_p, law_q, why)


def orbit_count(orbits: Iterable[Orbit]) -> int:
    """Support points of the reduced laws (for reports)."""
    return sum(len(set(o.law_p.support()) | set(o.law_q.support())) for o in orbits)


__all__ = [
    "FullBracket", "MAX_ORBIT_POINTS", "allocation_change", "Orbit", "OutOfReach", "Tail", "bernoulli",
    "cluster_pairs", "cross_stratum", "identical_world", "orbit_count", "poisson_add_remove",
    "solve_hockey", "solve_ratio", "srswr_pairs", "stratum_pairs", "with_rest", "wor_pairs",
]
