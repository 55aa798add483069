"""Neyman allocation (Bun et al. §7.2, App. E.1): stratum sizes from within-stratum spread.

Printed (§7.2), for strata P_1..P_k and a target total m:

    m_i = |P_i| σ(P_i) / Σ_j |P_j| σ(P_j) · m,   σ²(P_i) the empirical variance in stratum i,

"provided each stratum is sufficiently large", i.e. m_i ≤ |P_i|.

Conventions (the paper fixes none of them beyond the formula):

* variance: "empirical variance" written σ² is the population variance of the stratum's
  values, Σ(x − x̄)²/|P_i| (`variance="population"`, the default). Then
  |P_i|σ(P_i) = sqrt(D_i) with the integer D_i = |P_i|·Σx² − (Σx)², so the allocation is
  m·sqrt(D_i)/Σ_j sqrt(D_j). `variance="sample"` (divide by |P_i| − 1) is available for
  comparison; it is undefined for a stratum of one record.
* rounding: each m_i is rounded on its own, deterministically: "half-up" (⌊x + 1/2⌋),
  "half-even", "floor" or "ceil" (⌈x⌉). The totals then need not equal m.
* cap: m_i is capped at |P_i| (the paper assumes the cap never binds).

Exactness: the m_i are ratios of sums of square roots, so they are evaluated with mpmath
at increasing precision until every rounding decision is separated from its boundary. A
value that lands exactly on a boundary (a tie) is recognised exactly, without floating
point: sqrt(a), sqrt(b) for integers a, b > 0 are rationally dependent iff a·b is a perfect
square, and square roots of integers with distinct square-free parts are linearly
independent over Q, so "x_i equals the boundary" is a finite set of rational identities.
Exact ties are then rounded by the rule (half-up rounds 2.5 to 3). Only if precision ran
out without separating a non-tie (impossible in exact arithmetic; a guard) is the
allocation refused with a `DesignError`.

Records are establishments: `RecordType.value` must parse as an integer (e.g. an employee
count) and `RecordType.stratum` names the stratum. Everything is count-based: a
population is a few record types per stratum with multiplicities, never expanded.

`most_sensitive_neighbour` searches the neighbours of a population (one record added,
removed or replaced) for the largest change of the allocation in L∞, using per-stratum
moments (count, Σx, Σx²) updated incrementally and float64 screening vectorised with numpy.
A candidate with some x_h within `tol` of a rounding boundary has its Δ known only to ±1;
those that could reach the best are re-evaluated exactly, and so is the winner, so the
reported maximum is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor, isqrt
from typing import Any, ClassVar

import mpmath
import numpy as np

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import check_int
from verifydp.designs.stratified import StratifiedFixed
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, RecordType, Relation, Universe

ROUNDINGS = ("half-up", "half-even", "floor", "ceil")
VARIANCES = ("population", "sample")
START_DPS = 50
MAX_DPS = 3200


def check_rounding(rounding: object) -> str:
    if rounding not in ROUNDINGS:
        raise DesignError(
            f"unknown rounding {rounding!r} for Neyman allocation; use one of {list(ROUNDINGS)}"
        )
    return str(rounding)


def check_variance(variance: object) -> str:
    if variance not in VARIANCES:
        raise DesignError(f"unknown variance convention {variance!r}; use one of {list(VARIANCES)}")
    return str(variance)


def record_size(rt: RecordType) -> int:
    """The numeric value of a record (an establishment size); refuses non-numbers."""
    try:
        return int(rt.value)
    except ValueError:
        raise DesignError(
            f"Neyman allocation needs numeric record values; {rt.value!r} "
            f"(stratum {rt.stratum!r}) is not an integer"
        ) from None


@dataclass(frozen=True)
class Moments:
    """Count, Σx and Σx² of one stratum: enough for its size and its variance."""

    n: int = 0
    s: int = 0
    q: int = 0

    def add(self, x: int, k: int = 1) -> Moments:
        """Moments after adding k records of value x (k < 0 removes them)."""
        return Moments(self.n + k, self.s + k * x, self.q + k * x * x)

    def spread_squared(self, variance: str = "population") -> Fraction:
        """(|P_h| σ(P_h))², exactly: n·Σx² − (Σx)² (times n/(n−1) for the sample variance)."""
        if self.n <= 0:
            return Fraction(0)
        d = self.n * self.q - self.s * self.s
        if variance == "population":
            return Fraction(d)
        if self.n == 1:
            raise DesignError("the sample variance of a one-record stratum is undefined")
        return Fraction(self.n * d, self.n - 1)


def stratum_moments(pop: Population) -> dict[str, Moments]:
    out: dict[str, Moments] = {}
    for rt, c in pop.entries:
        if rt.stratum is None:
            raise DesignError("Neyman allocation needs a stratum label on every record")
        out[rt.stratum] = out.get(rt.stratum, Moments()).add(record_size(rt), c)
    return out


# ---------------------------------------------------------------- exact rounding


def _sqrt_terms(d: Fraction) -> tuple[Fraction, int]:
    """sqrt(d) = coef · sqrt(radicand) with an integer radicand (1 when d is a square)."""
    p, q = d.numerator, d.denominator
    r = p * q  # sqrt(p/q) = sqrt(p·q)/q
    root = isqrt(r)
    if root * root == r:
        return Fraction(root, q), 1
    return Fraction(1, q), r


def _is_exactly(weight: Fraction, spreads: Iterable[Fraction], m: int,
                boundary: Fraction) -> bool:
    """Whether m·sqrt(weight)/Σ sqrt(spreads) == boundary, decided exactly.

    Equivalent to m·sqrt(weight) − boundary·Σ_j sqrt(spread_j) = 0. Group the square roots
    into classes of rationally dependent radicands (a ~ b iff a·b is a perfect square);
    distinct classes are linearly independent over Q, so the sum vanishes iff every class's
    rational coefficient does.
    """
    classes: list[tuple[int, Fraction]] = []  # (representative radicand, coefficient)

    def add(d: Fraction, factor: Fraction) -> None:
        if d == 0:
            return
        coef, rad = _sqrt_terms(d)
        for i, (rep, acc) in enumerate(classes):
            prod_ = rep * rad
            root = isqrt(prod_)
            if root * root == prod_:
                # sqrt(rad) = sqrt(rep·rad)/rep · sqrt(rep)
                classes[i] = (rep, acc + factor * coef * Fraction(root, rep))
                return
        classes.append((rad, factor * coef))

    add(weight, Fraction(m))
    for d in spreads:
        add(d, -boundary)
    return all(c == 0 for _, c in classes)


def _round_rule(rounding: str, x: Fraction) -> int:
    """The rule on an exact rational value (used for exact boundary values)."""
    if rounding == "half-up":
        return floor(x + Fraction(1, 2))
    if rounding == "half-even":
        return round(x)
    if rounding == "floor":
        return floor(x)
    return ceil(x)


def _nearest_boundary(rounding: str, x: mpmath.mpf) -> Fraction:
    if rounding in ("floor", "ceil"):
        return Fraction(int(mpmath.nint(x)))
    return Fraction(2 * int(mpmath.floor(x)) + 1, 2)  # the half-integer between ⌊x⌋, ⌈x⌉


def round_exact(
    spreads: Mapping[str, Fraction], m: int, rounding: str
) -> dict[str, int]:
    """Round m·sqrt(spreads[h])/Σ_j sqrt(spreads[j]) for every h, every decision exact."""
    rounding = check_rounding(rounding)
    if all(d == 0 for d in spreads.values()):
        raise DesignError(
            "Neyman allocation is undefined: every stratum has zero variance (Σ|P_j|σ(P_j) = 0)"
        )
    if any(d < 0 for d in spreads.values()):
        raise DesignError("negative spread: not the moments of a population")
    out: dict[str, int] = {}
    pending = dict(spreads)
    dps = START_DPS
    while pending:
        with mpmath.workdps(dps + 10):
            roots = {h: mpmath.sqrt(mpmath.mpf(d.numerator) / d.denominator)
                     for h, d in spreads.items()}
            total = mpmath.fsum(roots.values())
            tol = mpmath.mpf(10) ** (-(dps - 5)) * max(m, 1)
            for h in list(pending):
                x = m * roots[h] / total
                b = _nearest_boundary(rounding, x)
                gap = x - mpmath.mpf(b.numerator) / b.denominator
                if abs(gap) > tol:
                    out[h] = _decide(rounding, b, gap > 0)
                    del pending[h]
                elif _is_exactly(spreads[h], spreads.values(), m, b):
                    out[h] = _round_rule(rounding, b)
                    del pending[h]
        if pending:
            if dps >= MAX_DPS:
                raise DesignError(
                    f"cannot decide the rounding of the Neyman allocation of strata "
                    f"{sorted(pending)} at {MAX_DPS} digits (a near-tie that is not exact)"
                )
            dps *= 4
    return out


def _decide(rounding: str, boundary: Fraction, above: bool) -> int:
    """Rounded value of an x known to lie just above/below `boundary` (not on it)."""
    if rounding in ("floor", "ceil"):
        b = int(boundary)
        if rounding == "floor":
            return b if above else b - 1
        return b + 1 if above else b
    lo = floor(boundary)  # boundary = lo + 1/2
    return lo + 1 if above else lo


def allocation_from_moments(
    moments: Mapping[str, Moments], m: int, rounding: str, variance: str = "population"
) -> dict[str, int]:
    """Neyman allocation from per-stratum moments: rounded, then capped at |P_h|."""
    check_int("m", m)
    if m < 0:
        raise DesignError(f"target sample size m = {m} is negative")
    variance = check_variance(variance)
    live = {h: mo for h, mo in moments.items() if mo.n > 0}
    if not live:
        raise DesignError("Neyman allocation of an empty population")
    spreads = {h: mo.spread_squared(variance) for h, mo in live.items()}
    rounded = round_exact(spreads, m, rounding)
    return {h: min(rounded[h], live[h].n) for h in sorted(live)}


def neyman_allocation(
    pop: Population, m: int, rounding: str, variance: str = "population"
) -> dict[str, int]:
    """m_h = round(|P_h|σ(P_h) / Σ_j |P_j|σ(P_j) · m), capped at |P_h| (see module doc)."""
    return allocation_from_moments(stratum_moments(pop), m, rounding, variance)


def neyman_real(
    pop: Population | Mapping[str, Moments], m: int, variance: str = "population",
    dps: int = 30,
) -> dict[str, mpmath.mpf]:
    """The unrounded allocation x_h (for reporting margins), at `dps` digits."""
    moments = pop if isinstance(pop, Mapping) else stratum_moments(pop)
    with mpmath.workdps(dps):
        roots = {h: mpmath.sqrt(mpmath.mpf(d.numerator) / d.denominator)
                 for h, d in ((h, mo.spread_squared(variance))
                              for h, mo in moments.items() if mo.n > 0)}
        total = mpmath.fsum(roots.values())
        return {h: m * r / total for h, r in sorted(roots.items())}


# ---------------------------------------------------------------- the design


def stratum_lump(rt: RecordType) -> RecordType:
    """Forget everything but the stratum: the record type (value = stratum label)."""
    return RecordType(str(rt.stratum), rt.stratum)


@dataclass(frozen=True)
class StratifiedNeyman(Design):
    """Within each stratum h, SRSWOR of the Neyman size m_h (Bun et al. §7.2).

    The sizes are a deterministic function of P (`allocation`); given them the design is
    `StratifiedFixed`, whose per-stratum product law is reused.
    """

    kind: ClassVar[str] = "stratified-neyman"
    m: int
    rounding: str
    variance: str = "population"

    def __post_init__(self) -> None:
        check_int("m", self.m)
        if self.m < 0:
            raise DesignError(f"target sample size m = {self.m} is negative")
        check_rounding(self.rounding)
        check_variance(self.variance)

    def allocation(self, pop: Population) -> dict[str, int]:
        return neyman_allocation(pop, self.m, self.rounding, self.variance)

    def fixed(self, pop: Population) -> StratifiedFixed:
        """The fixed-size design this one reduces to on P."""
        return StratifiedFixed(self.allocation(pop))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        return self.fixed(pop).sample_law(pop, universe)

    def lumped_sample_law(
        self, pop: Population, lump: Callable[[RecordType], RecordType], universe: Universe
    ) -> FiniteDist[CountVector]:
        """Exact law of the sample's image under a stratum-preserving map of record types.

        The sizes are computed on P itself; SRSWOR of m_h records from a stratum, seen
        through `lump`, is SRSWOR of m_h from the lumped stratum (the multivariate
        hypergeometric law aggregates), so this is the law of the lumped sample without
        enumerating the fine one. With `stratum_lump` it is the point mass at the vector
        of stratum sample sizes. `universe` is over lumped types.
        """
        acc: dict[RecordType, int] = {}
        for rt, c in pop.entries:
            img = lump(rt)
            if img.stratum != rt.stratum:
                raise DesignError(f"lump moves {rt} out of its stratum {rt.stratum!r}")
            acc[img] = acc.get(img, 0) + c
        return self.fixed(pop).sample_law(Population.of(acc), universe)

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"m": self.m, "rounding": self.rounding}
        if self.variance != "population":
            out["variance"] = self.variance
        return out

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> StratifiedNeyman:
        return cls(int(params["m"]), str(params["rounding"]),
                   str(params.get("variance", "population")))


# ---------------------------------------------------------------- neighbour search

KINDS = ("add", "remove", "replace")


@dataclass(frozen=True)
class Neighbour:
    """P' obtained from P by removing `removed` and/or adding `added` (one record each)."""

    removed: RecordType | None
    added: RecordType | None

    def __post_init__(self) -> None:
        if self.removed is None and self.added is None:
            raise ValueError("a neighbour changes one record")

    @property
    def kind(self) -> str:
        return "add" if self.removed is None else "remove" if self.added is None else "replace"

    @property
    def relation(self) -> Relation:
        return Relation.REPLACE if self.kind == "replace" else Relation.ADD_REMOVE

    def apply(self, pop: Population) -> Population:
        acc = dict(pop.entries)
        if self.removed is not None:
            if acc.get(self.removed, 0) < 1:
                raise ValueError(f"{self.removed} is not in the population")
            acc[self.removed] -= 1
        if self.added is not None:
            acc[self.added] = acc.get(self.added, 0) + 1
        return Population.of(acc)

    def describe(self) -> str:
        def show(rt: RecordType) -> str:
            return f"size {rt.value} in stratum {rt.stratum}"

        if self.removed is None:
            return f"add a record of {show(self.added)}"  # type: ignore[arg-type]
        if self.added is None:
            return f"remove a record of {show(self.removed)}"
        return f"replace a record of {show(self.removed)} by one of {show(self.added)}"


def neighbours(
    pop: Population, values: range, classify: Callable[[int], str] | None = None,
    kinds: tuple[str, ...] = KINDS,
) -> Iterable[Neighbour]:
    """Every neighbour `most_sensitive_neighbour` considers, in its search order (a plain
    enumeration: the test oracle)."""
    strata = sorted({rt.stratum for rt, _ in pop.entries}, key=str)

    def additions(removed: RecordType | None) -> Iterable[Neighbour]:
        if classify is not None:
            for v in values:
                yield Neighbour(removed, RecordType(str(v), classify(v)))
        else:
            for h in strata:
                for v in values:
                    yield Neighbour(removed, RecordType(str(v), h))

    if "add" in kinds:
        yield from additions(None)
    for rt, _ in pop.entries:
        if "remove" in kinds:
            yield Neighbour(rt, None)
        if "replace" in kinds:
            yield from (nb for nb in additions(rt) if nb.added != rt)


@dataclass(frozen=True)
class SearchResult:
    neighbour: Neighbour
    delta: int  # max_h |m_h(P') − m_h(P)|
    stratum: str  # the first stratum (sorted) where the change is delta
    base: dict[str, int]
    alloc: dict[str, int]
    candidates: int  # neighbours screened in float64
    exact_checks: int  # of which re-evaluated exactly
    skipped: int  # re-evaluated neighbours whose allocation is undefined
    by_kind: dict[str, tuple[Neighbour, int]] = field(default_factory=dict)


def l_inf(a: Mapping[str, int], b: Mapping[str, int]) -> int:
    return max((abs(a.get(h, 0) - b.get(h, 0)) for h in set(a) | set(b)), default=0)


def _round_float(x: np.ndarray, rounding: str) -> np.ndarray:
    if rounding == "half-up":
        return np.floor(x + 0.5)
    if rounding == "half-even":
        return np.round(x)
    if rounding == "floor":
        return np.floor(x)
    return np.ceil(x)


def _boundary_gap(x: np.ndarray, rounding: str) -> np.ndarray:
    if rounding in ("floor", "ceil"):
        return np.abs(x - np.round(x))
    return np.abs(x - np.floor(x) - 0.5)


@dataclass(frozen=True)
class _Row:
    """A screened candidate kept for the exact pass: Δ ∈ [lo, hi]."""

    hi: float
    lo: float
    seq: int
    make: Callable[[], Neighbour]


def _centred(mo: Moments) -> tuple[float, float]:
    """(mean, Σ(x − mean)²) of a stratum, from exact integers (no cancellation)."""
    if mo.n <= 0:
        return 0.0, 0.0
    return mo.s / mo.n, float(Fraction(mo.n * mo.q - mo.s * mo.s, mo.n))


def most_sensitive_neighbour(
    pop: Population, m: int, rounding: str, values: range,
    classify: Callable[[int], str] | None = None, variance: str = "population",
    kinds: tuple[str, ...] = KINDS, tol: float = 1e-6,
) -> SearchResult:
    """The neighbour P' maximising max_h |m_h(P') − m_h(P)|, exactly, over `neighbours`:

    * add: one record of size v ∈ `values`, in stratum `classify(v)` (strata defined by
      size, as CBP size classes are) or, with `classify=None`, in any stratum of P;
    * remove: one record of any type of P;
    * replace: remove one record of any type of P, then add one as above.

    A candidate touches at most two strata; their (n, mean, Σ(x − mean)²) are updated in
    O(1) (SS' = SS + n/(n+1)(v − mean)² for an addition; removals are recomputed from exact
    integer moments), and the allocation is screened in float64, vectorised over v. A row
    with any x_h within `tol` of a rounding boundary has Δ known only to ±1; such rows, and
    rows with an undefined float allocation, are kept if they could reach the running best
    and re-evaluated exactly (`allocation_from_moments`). Float errors are ~1e-11 at
    m = 10⁴, far below `tol`. Among neighbours with the maximal Δ the first in search order
    is returned.
    """
    rounding = check_rounding(rounding)
    variance = check_variance(variance)
    for k in kinds:
        if k not in KINDS:
            raise DesignError(f"unknown neighbour kind {k!r}; use {list(KINDS)}")
    base_moments = stratum_moments(pop)
    base = allocation_from_moments(base_moments, m, rounding, variance)
    strata = sorted(base_moments)
    idx = {h: i for i, h in enumerate(strata)}
    vs = np.arange(values.start, values.stop, values.step, dtype=np.float64)
    vals = list(values)
    if classify is not None:
        targets = [classify(v) for v in vals]
        unknown = sorted(set(targets) - set(strata))
        if unknown:
            raise DesignError(f"classify puts sizes in strata absent from P: {unknown}")
        tgt_idx = np.array([idx[h] for h in targets], dtype=np.int64)
    ddof = 0 if variance == "population" else 1

    cen = [_centred(base_moments[h]) for h in strata]
    n0 = np.array([base_moments[h].n for h in strata], dtype=np.float64)
    mean0 = np.array([c[0] for c in cen])
    ss0 = np.array([c[1] for c in cen])
    base_vec = np.array([base[h] for h in strata], dtype=np.float64)

    def spread(n: np.ndarray, ss: np.ndarray) -> np.ndarray:
        if ddof == 0:
            return np.sqrt(n * ss)
        with np.errstate(divide="ignore", invalid="ignore"):
            a2 = np.where(n > 1, n * n * ss / np.maximum(n - 1, 1), np.where(n == 1, np.nan, 0))
        return np.sqrt(a2)

    thresholds = dict.fromkeys(kinds, -np.inf)
    kept: dict[str, list[_Row]] = {k: [] for k in kinds}
    counter = {"seq": 0, "cand": 0}

    def screen(n: np.ndarray, ss: np.ndarray, make: Callable[[int], Neighbour],
               kind: str) -> None:
        """Rows are candidates, columns strata: each row's new n and centred SS."""
        a = spread(n, ss)
        tot = a.sum(axis=1)
        bad = ~np.isfinite(tot) | ~(tot > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = m * a / np.where(bad, 1.0, tot)[:, None]
            r = np.where(n > 0, np.minimum(_round_float(x, rounding), n), 0.0)
            delta = np.abs(r - base_vec).max(axis=1)
            near = (_boundary_gap(x, rounding) < tol).any(axis=1)
        lo = np.where(bad, -np.inf, np.where(near, delta - 1, delta))
        hi = np.where(bad, np.inf, np.where(near, delta + 1, delta))
        thresholds[kind] = max(thresholds[kind], float(lo.max()))
        seq0 = counter["seq"]
        for i in np.flatnonzero(hi >= thresholds[kind]):
            kept[kind].append(_Row(float(hi[i]), float(lo[i]), seq0 + int(i),
                                   lambda i=int(i): make(i)))
        counter["seq"] += len(delta)
        counter["cand"] += len(delta)

    def additions(n: np.ndarray, ss: np.ndarray, mean: np.ndarray,
                  removed: RecordType | None, kind: str) -> None:
        k = len(vs)
        rows = np.arange(k)
        for hf in ([None] if classify is not None else range(len(strata))):
            cols = tgt_idx if hf is None else np.full(k, hf, dtype=np.int64)
            nn = np.tile(n, (k, 1))
            sss = np.tile(ss, (k, 1))
            nh = n[cols]
            inc = np.where(nh > 0, nh / np.maximum(nh + 1, 1) * (vs - mean[cols]) ** 2, 0.0)
            sss[rows, cols] = ss[cols] + inc
            nn[rows, cols] = nh + 1

            def make(i: int, cols: np.ndarray = cols) -> Neighbour:
                return Neighbour(removed, RecordType(str(vals[i]), strata[int(cols[i])]))

            screen(nn, sss, make, kind)
            if removed is not None:  # the row re-adding `removed` itself is no neighbour
                v = record_size(removed)
                if (str(v) == removed.value and v in values
                        and strata[int(cols[values.index(v)])] == removed.stratum):
                    counter["cand"] -= 1

    if "add" in kinds:
        additions(n0, ss0, mean0, None, "add")
    for rt, _ in pop.entries:
        if "remove" not in kinds and "replace" not in kinds:
            break
        h = idx[rt.stratum]  # type: ignore[index]
        mo = base_moments[rt.stratum].add(record_size(rt), -1)  # type: ignore[index]
        n1, ss1, mean1 = n0.copy(), ss0.copy(), mean0.copy()
        n1[h] = mo.n
        mean1[h], ss1[h] = _centred(mo)
        if "remove" in kinds:
            screen(n1[None, :], ss1[None, :], lambda i, rt=rt: Neighbour(rt, None), "remove")
        if "replace" in kinds:
            additions(n1, ss1, mean1, rt, "replace")

    def exact_delta(nb: Neighbour) -> int | None:
        mo = dict(base_moments)
        if nb.removed is not None:
            h = nb.removed.stratum
            mo[h] = mo[h].add(record_size(nb.removed), -1)  # type: ignore[index]
        if nb.added is not None:
            h = nb.added.stratum
            mo[h] = mo.get(h, Moments()).add(record_size(nb.added), 1)  # type: ignore[arg-type]
        try:
            alloc = allocation_from_moments(mo, m, rounding, variance)
        except DesignError:
            return None
        return l_inf(base, alloc)

    n_exact = n_skip = 0
    by_kind: dict[str, tuple[Neighbour, int]] = {}
    winners: list[tuple[int, int, Neighbour]] = []  # (Δ, seq, neighbour) per kind
    for kind in kinds:
        rows = sorted((r for r in kept[kind] if r.hi >= thresholds[kind]),
                      key=lambda r: (-r.hi, r.seq))
        best: tuple[int, int, Neighbour] | None = None
        for row in rows:
            if best is not None and row.hi < best[0]:
                break
            nb = row.make()
            if nb.added is not None and nb.added == nb.removed:
                continue  # replacing a record by an identical one is no change
            if row.lo == row.hi:
                d: int | None = int(row.lo)
            else:
                n_exact += 1
                d = exact_delta(nb)
                if d is None:
                    n_skip += 1
                    continue
            if best is None or (d, -row.seq) > (best[0], -best[1]):
                best = (d, row.seq, nb)
        if best is not None:
            by_kind[kind] = (best[2], best[0])
            winners.append(best)
    if not winners:
        raise DesignError("no neighbour with a defined Neyman allocation")
    d, _, nb = max(winners, key=lambda w: (w[0], -w[1]))
    alloc = allocation_from_moments(stratum_moments(nb.apply(pop)), m, rounding, variance)
    n_exact += 1
    if l_inf(base, alloc) != d:  # the screened Δ of a "certain" row must be exact
        raise AssertionError(f"float screening disagrees with exact Δ for {nb.describe()}")
    worst = next(h for h in sorted(set(alloc) | set(base))
                 if abs(alloc.get(h, 0) - base.get(h, 0)) == d)
    return SearchResult(nb, d, worst, base, alloc, counter["cand"], n_exact, n_skip, by_kind)
