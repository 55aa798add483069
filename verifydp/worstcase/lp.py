"""Float LPs for the worst case over all base mechanisms, solved with HiGHS (highspy).

Floats only *search* here: every number that reaches a verdict is re-derived exactly in
`verifydp.worstcase.certify` from the float primal (lower bound, witness mechanism) and the
float dual (upper bound).

Both LPs optimise over acceptance functions f: region → [0, 1] (docs/foundations.md#fact-1).

* ratio (pure ε-DP only): max Σ p·f  s.t.  Σ q·f ≤ 1, f ≥ 0, f_x ≤ t f_y on every edge
  (both orientations). Charnes–Cooper form of sup Pr_P[f] / Pr_Q[f]; the 1 − f constraints
  are dropped because scaling f down makes them slack and leaves the ratio unchanged.
* hockey: max Σ (p − t'·q)·f  s.t.  0 ≤ f ≤ 1, and on every oriented edge
  f_x − t f_y ≤ δ and (1 − f_x) − t (1 − f_y) ≤ δ.

The model goes to HiGHS through its own Python interface (`highspy`), built as row-wise
arrays by numpy: the claims solve thousands of small LPs, and scipy's `linprog` front end
(input checks, sparse stacking, option validation) cost more than HiGHS itself on them. The
options are scipy's for ``method="highs"``/``"highs-ipm"`` (dual simplex; interior point with
crossover), and the duals are HiGHS's row duals, which is what scipy reports as marginals.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import highspy
import numpy as np

from verifydp.worstcase.region import Region


class LPFailure(RuntimeError):
    """HiGHS did not return an optimal solution."""


def _solver(n_points: int) -> str:
    # interior point (with crossover) is about twice as fast as simplex on the large, sparse
    # orbit LPs of cluster designs; simplex gives vertex duals that rationalise more often
    return "ipm" if n_points > 2000 else "choose"


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


def _edge_rows(region: Region, t: float, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and values of the `oriented_rows` rows sign·(f_x − t f_y), two per row
    (CSR with row starts 0, 2, 4, …)."""
    e = np.asarray(region.edges, dtype=np.int32).reshape(-1, 2)
    xy = np.empty((2 * len(e), 2), dtype=np.int32)
    xy[0::2], xy[1::2] = e, e[:, ::-1]
    vals = np.tile(np.array([sign, -sign * t]), len(xy))
    return xy.reshape(-1), vals


def solve_rowwise(cost: np.ndarray, starts: np.ndarray, index: np.ndarray, value: np.ndarray,
         row_upper: np.ndarray, col_upper: float, solver: str | None = None
         ) -> tuple[np.ndarray, np.ndarray, float]:
    """min cost·f s.t. rows ≤ row_upper, 0 ≤ f ≤ col_upper (HiGHS, row-wise model; `solver`
    a HiGHS solver name, by default chosen by size); the primal, the row duals (≤ 0 on
    binding rows) and the optimal value."""
    n, m = len(cost), len(row_upper)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.full(n, col_upper)
    lp.row_lower_ = np.full(m, -highspy.kHighsInf)
    lp.row_upper_ = row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = starts
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    # the bare solver class (exported in highspy.__all__): the `Highs` wrapper's callback set-up
    # prints HiGHS's banner on stdout before any option can silence it, which would corrupt
    # `check --json`; output_flag is set before anything else is called
    h = highspy._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", solver or _solver(n))
    h.setOptionValue("simplex_strategy", 1)  # dual simplex, as scipy's method="highs"
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise LPFailure(f"HiGHS: {h.modelStatusToString(status)}")
    sol = h.getSolution()
    return (np.asarray(sol.col_value), np.asarray(sol.row_dual),
            float(h.getInfo().objective_function_value))


def solve_ratio(region: Region, p: np.ndarray, q: np.ndarray, t: Fraction) -> FloatSolution:
    index, value = _edge_rows(region, float(t), 1.0)
    k = len(index) // 2  # oriented edge rows, then the row Σ q f ≤ 1
    qcols = np.flatnonzero(q).astype(np.int32)
    starts = np.concatenate([np.arange(0, 2 * k + 1, 2), [2 * k + len(qcols)]]).astype(np.int32)
    row_upper = np.zeros(k + 1)
    row_upper[-1] = 1.0
    x, dual, val = solve_rowwise(-np.asarray(p, dtype=float), starts,
                        np.concatenate([index, qcols]), np.concatenate([value, q[qcols]]),
                        row_upper, highspy.kHighsInf)
    duals = -dual
    return FloatSolution(x, np.maximum(duals[:-1], 0.0), max(duals[-1], 0.0), -val)


def solve_hockey(
    region: Region, p: np.ndarray, q: np.ndarray, t: Fraction, delta: Fraction, t_prime: Fraction
) -> FloatSolution:
    tf, df = float(t), float(delta)
    i1, v1 = _edge_rows(region, tf, 1.0)
    i2, v2 = _edge_rows(region, tf, -1.0)
    k = len(i1) // 2
    starts = np.arange(0, 4 * k + 1, 2, dtype=np.int32)
    row_upper = np.concatenate([np.full(k, df), np.full(k, tf - 1.0 + df)])
    c = p - float(t_prime) * q
    x, dual, val = solve_rowwise(-c, starts, np.concatenate([i1, i2]), np.concatenate([v1, v2]),
                        row_upper, 1.0)
    return FloatSolution(x, np.maximum(-dual, 0.0), 0.0, -val)
