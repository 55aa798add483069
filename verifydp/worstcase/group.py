"""Exact worst case over base mechanisms constrained by a *group* privacy profile.

MUST (Zhao & Liu) Theorem 5 and Table 2 bound the privacy profile of M∘S for samplers S that
output multisets, in terms of the group profile δ_j = δ_{M,j}(ε) of the base mechanism M
(claims `must/thm5:*`, `must/table2:wr`, `must/table2:wor`).  This module computes

    sup { D_{t'}(M∘S(P) ‖ M∘S(P')) : D_t(M(Y) ‖ M(Y')) ≤ δ_{d(Y,Y')} for all multisets Y, Y' }

for a substitution pair P = C + {x}, P' = C + {x'} (C = n − 1 distinct records), where the
samples Y have a fixed size m and d is the multiset substitution distance m − |Y ∩ Y'|.

Why the finite LP below is exact (docs/foundations.md#fact-1 to #fact-5 for the single-δ case):

* Binary outputs suffice.  For any M and event E, f(Y) = Pr[M(Y) ∈ E] satisfies
  f(Y) − t f(Y') ≤ δ_d and (1 − f(Y)) − t (1 − f(Y')) ≤ δ_d; conversely any such f is a
  mechanism with two outputs whose hockey-stick divergences are exactly the larger of the two
  left-hand sides (or 0).  So the sup is the LP max Σ_Y (p(Y) − t' q(Y)) f(Y) over those f.
* Finitely many datasets suffice.  The LP ranges over every size-m multiset over the universe
  {x, x'} ∪ C.  A multiset with other values is mapped into the universe by relabelling those
  values to one record of C; relabelling never decreases |Y ∩ Y'| (min(a + b, a' + b') ≥
  min(a, a') + min(b, b')), so d does not increase and, δ_j being non-decreasing (checked), the
  extension f∘ρ keeps every constraint.
* Symmetry.  The objective and the constraints are invariant under permutations of C, so an
  optimal f may be averaged over them: f is a function of the orbit (a, a', λ) with a, a' the
  copies of x, x' and λ the sorted multiplicities of C's records.  Between orbits the binding
  constraint is at the least distance, m − min(a, b) − min(a', b') − Σ_i min(λ_i, μ_i) with
  both partitions sorted decreasingly (sorted pairing maximises Σ min).

Certification: the HiGHS solution only proposes.  The lower bound is the exact objective of
the rationalised primal, scaled towards the always-feasible f ≡ 0 until every constraint holds
in Fractions; the upper bound is weak duality with the rationalised dual
(b·y + Σ_i max(0, (c − Aᵀy)_i) for any y ≥ 0, box 0 ≤ f ≤ 1), also exact.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np
from scipy.sparse import coo_matrix

from verifydp.designs.base import Design
from verifydp.population import Population, RecordType
from verifydp.worstcase.lp import LPFailure, solve_rowwise

Orbit = tuple[int, int, tuple[int, ...]]  # copies of x, copies of x', sorted counts of C

X, X_PRIME = RecordType("x"), RecordType("x'")


class GroupLPError(ValueError):
    """Inputs the group-profile LP does not support."""


@dataclass(frozen=True)
class GroupProfileClass:
    """Base mechanisms with D_t(M(Y) ‖ M(Y')) ≤ deltas[d − 1] whenever d(Y, Y') = d ≥ 1."""

    t: Fraction
    deltas: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if self.t < 1:
            raise GroupLPError("need t = e^ε ≥ 1")
        if not self.deltas:
            raise GroupLPError("need at least δ_1")
        if any(not 0 <= d <= 1 for d in self.deltas):
            raise GroupLPError("every δ_j must lie in [0, 1]")
        if any(a > b for a, b in zip(self.deltas, self.deltas[1:], strict=False)):
            raise GroupLPError("δ_j must be non-decreasing in j (group profiles are)")

    def delta(self, d: int) -> Fraction:
        if d < 1:
            return Fraction(0)
        if d > len(self.deltas):
            raise GroupLPError(f"no δ_{d} given (only up to δ_{len(self.deltas)})")
        return self.deltas[d - 1]


@dataclass(frozen=True)
class GroupWorstCase:
    """Certified bracket [lower, upper] of the sup, and the mechanism attaining `lower`."""

    lower: Fraction
    upper: Fraction
    orbits: tuple[Orbit, ...]
    accept: tuple[Fraction, ...]


def substitution_pair(n: int) -> tuple[Population, Population, tuple[RecordType, ...]]:
    """P = C + {x}, P' = C + {x'} with C = n − 1 distinct records; the universe order is
    (x, x', c1, …) — `orbit_of` relies on it."""
    if n < 1:
        raise GroupLPError("need n ≥ 1")
    common = [RecordType(f"c{i}") for i in range(1, n)]
    p = Population.of([(X, 1), *((c, 1) for c in common)])
    q = Population.of([(X_PRIME, 1), *((c, 1) for c in common)])
    return p, q, (X, X_PRIME, *common)


def orbit_of(v: Sequence[int]) -> Orbit:
    return v[0], v[1], tuple(sorted((c for c in v[2:] if c), reverse=True))


def all_orbits(m: int, n_common: int) -> list[Orbit]:
    out: list[Orbit] = []
    for a in range(m + 1):
        for a2 in range(m + 1 - a):
            rest = m - a - a2
            for lam in _partitions(rest, rest, n_common):
                out.append((a, a2, lam))
    return out


def _partitions(total: int, largest: int, parts: int) -> list[tuple[int, ...]]:
    if total == 0:
        return [()]
    if parts == 0:
        return []
    out = []
    for first in range(min(total, largest), 0, -1):
        out += [(first, *rest) for rest in _partitions(total - first, first, parts - 1)]
    return out


def min_distance(o1: Orbit, o2: Orbit, m: int) -> int:
    shared = min(o1[0], o2[0]) + min(o1[1], o2[1])
    shared += sum(min(a, b) for a, b in zip(o1[2], o2[2], strict=False))
    return m - shared


def orbit_weights(design: Design, pop: Population, universe: tuple[RecordType, ...],
                   m: int) -> dict[Orbit, Fraction]:
    out: dict[Orbit, Fraction] = defaultdict(Fraction)
    for v, pr in design.sample_law(pop, universe):
        if sum(v) != m:
            raise GroupLPError(f"the design's samples must all have size m = {m}")
        out[orbit_of(v)] += pr
    return dict(out)


def group_worst_hockey(design: Design, n: int, m: int, mclass: GroupProfileClass,
                       t_prime: Fraction) -> GroupWorstCase:
    """sup over the class of D_{t'}(M∘S(P) ‖ M∘S(P')), certified (P, P' of `substitution_pair`;
    by the x ↔ x' symmetry the other direction has the same value)."""
    if t_prime < 1:
        raise GroupLPError("need t' ≥ 1")
    p, q, universe = substitution_pair(n)
    wp = orbit_weights(design, p, universe, m)
    wq = orbit_weights(design, q, universe, m)
    orbits = all_orbits(m, n - 1)
    idx = {o: i for i, o in enumerate(orbits)}
    if not set(wp) | set(wq) <= set(idx):
        raise GroupLPError("sample orbit outside the enumerated domain")  # cannot happen
    c = [Fraction(0)] * len(orbits)
    for o, pr in wp.items():
        c[idx[o]] += pr
    for o, pr in wq.items():
        c[idx[o]] -= t_prime * pr
    rows = constraints(orbits, m, mclass)
    f = _solve(c, rows, len(orbits), mclass.t)
    return _certify(c, rows, f, orbits)


def constraints(orbits: list[Orbit], m: int, mclass: GroupProfileClass) -> list[tuple[int, int, Fraction, Fraction, Fraction]]:
    """Rows (i, j, a_i, a_j, rhs) meaning a_i f_i + a_j f_j ≤ rhs."""
    t = mclass.t
    rows = []
    for i, j in combinations_with_replacement(range(len(orbits)), 2):
        if i == j:
            continue  # (1 − t) f ≤ 0 ≤ δ and its complement hold for every f ∈ [0, 1]
        dl = mclass.delta(min_distance(orbits[i], orbits[j], m))
        for u, v in ((i, j), (j, i)):
            rows.append((u, v, Fraction(1), -t, dl))               # f_u − t f_v ≤ δ
            rows.append((u, v, Fraction(-1), t, dl + t - 1))       # (1−f_u) − t(1−f_v) ≤ δ
    return rows


def _solve(c: list[Fraction], rows: list, n_var: int, t: Fraction) -> np.ndarray:
    if not rows:
        return np.array([1.0 if x > 0 else 0.0 for x in c])
    r = np.repeat(np.arange(len(rows)), 2)
    cols = np.array([(i, j) for i, j, *_ in rows]).ravel()
    vals = np.array([(float(ai), float(aj)) for _, _, ai, aj, _ in rows]).ravel()
    a = coo_matrix((vals, (r, cols)), shape=(len(rows), n_var)).tocsr()
    b = np.array([float(row[4]) for row in rows])
    try:
        x, dual, _ = solve_rowwise(-np.array([float(x) for x in c]), a.indptr, a.indices,
                                   a.data, b, 1.0, solver="choose")
    except LPFailure as exc:
        raise GroupLPError(f"HiGHS failed: {exc}") from None
    return np.concatenate([x, -dual])


def _certify(c: list[Fraction], rows: list, sol: np.ndarray, orbits: list[Orbit]) -> GroupWorstCase:
    nv = len(c)
    f = [min(Fraction(1), max(Fraction(0), Fraction(float(x)).limit_denominator(10**12)))
         for x in sol[:nv]]
    scale = Fraction(1)
    for i, j, ai, aj, rhs in rows:
        lhs = ai * f[i] + aj * f[j]
        # every row is linear with value 0 ≤ rhs at f ≡ 0, so μ·f satisfies it once μ·lhs ≤ rhs
        if lhs > rhs:
            scale = min(scale, rhs / lhs)
    f = [scale * x for x in f]
    lower = sum((ci * fi for ci, fi in zip(c, f, strict=True)), Fraction(0))
    # weak duality holds for every y ≥ 0: the float dual rationalised, and the dual re-solved
    # exactly on the float solution's active set (needed when the optimum is tight)
    y_float = [max(Fraction(0), Fraction(float(v)).limit_denominator(10**12)) for v in sol[nv:]]
    upper = _dual_bound(c, rows, y_float)
    y_exact = _active_set_dual(c, rows, sol[:nv], y_float)
    if y_exact is not None:
        upper = min(upper, _dual_bound(c, rows, y_exact))
    return GroupWorstCase(max(lower, Fraction(0)), max(upper, Fraction(0)), tuple(orbits), tuple(f))


def _dual_bound(c: list[Fraction], rows: list, y: list[Fraction]) -> Fraction:
    reduced = list(c)
    bound = Fraction(0)
    for (i, j, ai, aj, rhs), yk in zip(rows, y, strict=True):
        if yk:
            reduced[i] -= yk * ai
            reduced[j] -= yk * aj
            bound += yk * rhs
    return bound + sum((r for r in reduced if r > 0), Fraction(0))


def _active_set_dual(c: list[Fraction], rows: list, f: np.ndarray,
                     y0: list[Fraction]) -> list[Fraction] | None:
    """Solve (Aᵀy)_i = c_i exactly for the variables strictly inside (0, 1), with y supported
    on the rows the float dual uses; unknowns left free by the equations keep their float
    values.  None when the result is not a valid (non-negative) dual."""
    support = [k for k, v in enumerate(y0) if v > Fraction(1, 10**12)]
    inner = [i for i, x in enumerate(f) if 1e-9 < x < 1 - 1e-9]
    col = {k: n for n, k in enumerate(support)}
    eqs: list[list[Fraction]] = []
    for i in inner:
        eq = [Fraction(0)] * (len(support) + 1)
        eq[-1] = c[i]
        eqs.append(eq)
    pos = {i: r for r, i in enumerate(inner)}
    for k in support:
        i, j, ai, aj, _ = rows[k]
        if i in pos:
            eqs[pos[i]][col[k]] += ai
        if j in pos:
            eqs[pos[j]][col[k]] += aj
    sol = _solve_exact(eqs, [y0[k] for k in support])
    if sol is None or any(v < 0 for v in sol):
        return None
    y = [Fraction(0)] * len(rows)
    for k, v in zip(support, sol, strict=True):
        y[k] = v
    return y


def _solve_exact(eqs: list[list[Fraction]], guess: list[Fraction]) -> list[Fraction] | None:
    """Gauss–Jordan over Fractions; free unknowns take their `guess`; None if inconsistent."""
    nvar = len(guess)
    m = [row[:] for row in eqs]
    pivots: list[int] = []
    r = 0
    for col in range(nvar):
        piv = next((k for k in range(r, len(m)) if m[k][col] != 0), None)
        if piv is None:
            continue
        m[r], m[piv] = m[piv], m[r]
        inv = 1 / m[r][col]
        m[r] = [v * inv for v in m[r]]
        for k in range(len(m)):
            if k != r and m[k][col] != 0:
                fac = m[k][col]
                m[k] = [a - fac * b for a, b in zip(m[k], m[r], strict=True)]
        pivots.append(col)
        r += 1
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in m[r:]):
        return None
    x = list(guess)
    for k, col in enumerate(pivots):
        x[col] = m[k][-1] - sum((m[k][j] * x[j] for j in range(nvar) if j != col and j not in pivots), Fraction(0))
    return x
