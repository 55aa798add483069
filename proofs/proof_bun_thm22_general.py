"""bun/thm2.2 is exact for EVERY population size on the engine's canonical pair: for all
n ≥ 1, 0 ≤ m ≤ n, ε ≥ 0 and δ ∈ [0, 1], SRS without replacement of m of n records,
P = {a × (n−1), x}, P' = {a × (n−1), y} (`bun.replace_pair`), base mechanisms (ε, δ)-DP under
replacement: the exact worst case is e^{ε'} = 1 + (m/n)(e^ε − 1) and δ' = (m/n)δ.

What is proved, and how.

1. The LP (docs/foundations.md) for this pair has a fixed shape: with α = m/n, the region is the
   three samples A = {a × m}, X = {a × (m−1), x}, Y = {a × (m−1), y}, pairwise neighbours,
   with p = (1 − α, α, 0) and q = (1 − α, 0, α) (A is absent when n = 1, X and Y when
   m = 0; for m = n, A is in the region with probability 0). This shape is checked against `region_for` and the design's laws for every
   n ≤ 40 and m ≤ n; for larger n it is read off the region's definition (the layer of size
   m above the coordinatewise minimum of the supports, (m − 1, 0, 0), with one free unit).
2. z3 proves, for ALL reals α ∈ [0, 1], t ≥ 1 and δ ∈ [0, 1] (nonlinear real arithmetic,
   the negation unsat), with λ = 1 + α(t − 1):
   * ratio LP: f = (1, t, 1) on (A, X, Y) is feasible (f_i ≤ t f_j on every oriented edge)
     with p·f = λ·q·f and q·f > 0; the dual multipliers w(X→Y) = λα/t, w(X→A) = (t − λ)α/t
     are ≥ 0 and satisfy λq + Σ w (e_from − t e_to) ≥ p at every point — optimum = λ;
   * hockey-stick LP at e^{ε'} = λ: f = (0, δ, 0) is feasible for every (ε, δ)-DP
     constraint with (p − λq)·f = αδ, and the same w make every reduced cost ≤ 0 with
     δ·Σw = αδ — optimum = αδ.
   The boundary cases m = 0 (only A; α = 0, w = 0) and n = 1 (only X, Y; α = 1, so
   w(X→A) = 0) are the same conditions restricted to the points present.
3. sympy: λ equals the printed e^{ε'} (`bun.THM22_EPS`) and αδ the printed δ'
   (`bun.THM22_DELTA`) at α = m/n.
Via docs/foundations.md#fact-1 to #fact-4 this is the exact sup over all base mechanisms for this pair,
which `bun.py` argues (fact 4) is at least as bad as any pair of the same size with distinct
records. The n ≤ 6 proof in `proof_bun_thm22_tight.py` also covers the all-distinct pair.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
import z3

from verifydp.claims.bun import amplification as bun
from verifydp.designs import SRSWOR
from verifydp.exact.tfunc import T, exp_of, to_t
from verifydp.population import Relation
from verifydp.worstcase.engine import region_for

N_CHECK = 40


def check_shape(n: int, m: int) -> None:
    """The engine's region and laws for the canonical pair are the triangle of item 1."""
    pair = bun.replace_pair(n)
    u = pair.universe

    def point(na: int, nx: int, ny: int) -> tuple[int, ...] | None:
        counts = {bun.A: na, bun.X: nx, bun.Y: ny}
        if min(counts.values()) < 0 or (bun.A not in u and na):  # n = 1 has no a-records
            return None
        return tuple(counts[rt] for rt in u)

    law_p, law_q = SRSWOR(m).sample_law(pair.p, u), SRSWOR(m).sample_law(pair.q, u)
    region = region_for(law_p, law_q, Relation.REPLACE)
    alpha = Fraction(m, n)
    pts = {"A": point(m, 0, 0), "X": point(m - 1, 1, 0), "Y": point(m - 1, 0, 1)}
    present = {k: v for k, v in pts.items() if v is not None}
    assert set(region.points) == set(present.values()), (n, m, region.points)
    idx = region.index()
    want = {len(present) * (len(present) - 1) // 2}
    assert {len(region.edges)} == want and all(i != j for i, j in region.edges)
    p_want = {"A": 1 - alpha, "X": alpha, "Y": Fraction(0)}
    q_want = {"A": 1 - alpha, "X": Fraction(0), "Y": alpha}
    for k, v in present.items():
        assert law_p.prob(v) == p_want[k] and law_q.prob(v) == q_want[k], (n, m, k)
        assert v in idx


def z3_valid(hyps: list[z3.BoolRef], concl: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.set("timeout", 20_000)
    s.add(*hyps, z3.Not(concl))
    res = s.check()
    if res == z3.unknown:
        raise RuntimeError("z3 returned unknown")
    return res == z3.unsat


def certificate_conditions(lam_scale: z3.ArithRef | None = None) -> tuple[list, z3.BoolRef]:
    """Hypotheses and the conjunction of every certificate condition of item 2.
    `lam_scale` replaces λ (mutation tests only)."""
    al, t, d = z3.Reals("alpha t delta")
    hyps = [al >= 0, al <= 1, t >= 1, d >= 0, d <= 1]
    lam = 1 + al * (t - 1) if lam_scale is None else lam_scale
    p = {"A": 1 - al, "X": al, "Y": z3.RealVal(0)}
    q = {"A": 1 - al, "X": z3.RealVal(0), "Y": al}
    names = ("A", "X", "Y")
    edges = [(i, j) for i in names for j in names if i != j]  # every oriented edge
    conds = []
    # ratio primal
    f = {"A": z3.RealVal(1), "X": t, "Y": z3.RealVal(1)}
    conds += [f[i] <= t * f[j] for i, j in edges]
    conds += [sum(p[k] * f[k] for k in names) == lam * sum(q[k] * f[k] for k in names),
              sum(q[k] * f[k] for k in names) > 0]
    # ratio dual, multipliers times t (t > 0): W(X→Y) = λα, W(X→A) = (t − λ)α
    w = {("X", "Y"): lam * al, ("X", "A"): (t - lam) * al}
    conds += [v >= 0 for v in w.values()]
    for k in names:
        out = sum((v for (i, _), v in w.items() if i == k), z3.RealVal(0))
        inn = sum((v for (_, j), v in w.items() if j == k), z3.RealVal(0))
        conds.append(t * lam * q[k] + out - t * inn - t * p[k] >= 0)
    # hockey-stick primal at e^{ε'} = λ, and the dual bound δ·Σw
    g = {"A": z3.RealVal(0), "X": d, "Y": z3.RealVal(0)}
    conds += [z3.And(g[k] >= 0, g[k] <= 1) for k in names]
    conds += [z3.And(g[i] - t * g[j] <= d, (1 - g[i]) - t * (1 - g[j]) <= d) for i, j in edges]
    conds.append(sum((p[k] - lam * q[k]) * g[k] for k in names) == al * d)
    conds.append(sum(w.values()) == t * al)  # Σ w = α
    return hyps, z3.And(conds)


def prove() -> list[str]:
    for n in range(1, N_CHECK + 1):
        for m in range(n + 1):
            check_shape(n, m)
    hyps, concl = certificate_conditions()
    assert z3_valid(hyps, concl), "certificate conditions not proved"
    alpha = sympy.Symbol("alpha")
    lam = 1 + alpha * (T - 1)
    printed = to_t(exp_of(bun.THM22_EPS)).subs({bun.m: alpha * bun.n})
    assert sympy.simplify(printed - lam) == 0
    assert sympy.simplify(bun.THM22_DELTA.subs(bun.m, alpha * bun.n) - alpha * bun.delta) == 0
    return [f"LP shape checked for n ≤ {N_CHECK}, all m",
            "z3: primal and dual certificates valid for all α ∈ [0,1], t ≥ 1, δ ∈ [0,1]",
            "sympy: λ = printed e^{ε'}, αδ = printed δ'"]


def test_thm22_exact_for_every_n() -> None:
    assert len(prove()) == 3


def test_wrong_lambda_is_not_proved() -> None:
    al, t = z3.Reals("alpha t")
    for wrong in (1 + al * al * (t - 1), 1 + al * (t * t - 1), al * t):
        hyps, concl = certificate_conditions(lam_scale=wrong)
        assert not z3_valid(hyps, concl)
