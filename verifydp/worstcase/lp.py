"""Float LPs for the worst case over all base mechanisms, solved with HiGHS (scipy).

Floats only *search* here: every number that reaches a verdict is re-derived exactly in
`verifydp.worstcase.certify` from the float primal (lower bound, witness mechanism) and the
float dual (upper bound).

Both LPs optimise over acceptance functions f: region → [0, 1] (docs/foundations.md#fact-1).

* ratio (pure ε-DP only): max Σ p·f  s.t.  Σ q·f ≤ 1, f ≥ 0, f_x ≤ t f_y on every edge
  (both orientations). Charnes–Cooper form of sup Pr_P[f] / Pr_Q[f]; the 1 − f constraints
  are dropped because scaling f down makes them slack and leaves the ratio unchanged.
* hockey: max Σ (p − t'·q)·f  s.t.  0 ≤ f ≤ 1, and on every oriented edge
  f_x − t f_y ≤ δ and (1 − f_x) − t (1 − f_y) ≤ δ.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix, vstack

from verifydp.worstcase.region import Region


class LPFailure(RuntimeError):
    """HiGHS did not return an optimal solution."""


def _method(n_points: int) -> str:
    # interior point (with crossover) is about twice as fast as simplex on the large, sparse
    # orbit LPs of cluster designs; simplex gives vertex duals that rationalise more often
    return "highs-ipm" if n_points > 2000 else "highs"


@dataclass(frozen=True)
class FloatSolution:
    primal: np.ndarray  # f on region points
    edge_duals: np.ndarray  # ≥ 0, one per oriented edge row (see `oriented_rows`)
    extra_dual: float  # ratio: multiplier of Σ q f ≤ 1; hockey: unused (0)
    value: float


def oriented_rows(region: Region) -> list[tuple[int, int]]:
    """Rows (x, y) meaning f_x − t f_y ≤ rhs; each undirected edge gives both orientations."""
    rows: list[tuple[int, int]] = []
    for i, j in region.edges:
        rows.append((i, j))
        rows.append((j, i))
    return rows


def _edge_matrix(region: Region, t: float, rows: list[tuple[int, int]], sign: float) -> coo_matrix:
    n = len(region.points)
    data, ri, ci = [], [], []
    for r, (x, y) in enumerate(rows):
        ri += [r, r]
        ci += [x, y]
        data += [sign * 1.0, sign * -t]
    return coo_matrix((data, (ri, ci)), shape=(len(rows), n))


def solve_ratio(region: Region, p: np.ndarray, q: np.ndarray, t: Fraction) -> FloatSolution:
    rows = oriented_rows(region)
    n = len(region.points)
    a_edges = _edge_matrix(region, float(t), rows, 1.0)
    a_q = coo_matrix(q.reshape(1, n))

    a_ub = vstack([a_edges, a_q]).tocsr()
    b_ub = np.zeros(len(rows) + 1)
    b_ub[-1] = 1.0
    res = linprog(-p, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method=_method(n))
    if res.status != 0:
        raise LPFailure(f"HiGHS: {res.message}")
    duals = -np.asarray(res.ineqlin.marginals)
    return FloatSolution(np.asarray(res.x), np.maximum(duals[:-1], 0.0), max(duals[-1], 0.0), -res.fun)


def solve_hockey(
    region: Region, p: np.ndarray, q: np.ndarray, t: Fraction, delta: Fraction, t_prime: Fraction
) -> FloatSolution:
    rows = oriented_rows(region)
    tf, df = float(t), float(delta)

    a_ub = vstack(
        [_edge_matrix(region, tf, rows, 1.0), _edge_matrix(region, tf, rows, -1.0)]
    ).tocsr()
    b_ub = np.concatenate([np.full(len(rows), df), np.full(len(rows), tf - 1.0 + df)])
    c = p - float(t_prime) * q
    res = linprog(-c, A_ub=a_ub, b_ub=b_ub, bounds=(0, 1), method=_method(len(region.points)))
    if res.status != 0:
        raise LPFailure(f"HiGHS: {res.message}")
    duals = np.maximum(-np.asarray(res.ineqlin.marginals), 0.0)
    return FloatSolution(np.asarray(res.x), duals, 0.0, -res.fun)
