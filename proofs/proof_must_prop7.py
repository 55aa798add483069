"""must/prop7: η_MUST.OW ≤ η_WR ≤ η_WOR = η_Poisson(γ = m/n), proved for every integer m ≥ 1
and all REAL 1 ≤ b ≤ n (so for all integers), by induction on m with z3 and sympy.

The closed forms are the printed ones (MUST Theorem 5(a) and Table 2):
η_OW = (b/n)(1 − (1 − 1/b)^m), η_WR = 1 − (1 − 1/n)^m, η_WOR = m/n, η_Poisson = γ.

What is proved, and how (no floats, no grid):

1. sympy identities, symbolic in m, b, n: with S_m(u) = (1 − u^m)/(1 − u),
   η_OW = S_m(1 − 1/b)/n, η_WR = S_m(1 − 1/n)/n, S_1 = 1, S_{m+1}(u) = 1 + u·S_m(u);
   η_WOR(n, m) = η_Poisson(m/n).
2. Lemma A (z3, nonlinear real arithmetic): for all reals 0 ≤ u ≤ v < 1 and A, B with
   1 ≤ A ≤ B: 1 ≤ 1 + uA ≤ 1 + vB, and u < v ⇒ 1 + uA < 1 + vB. With A = S_m(u),
   B = S_m(v) this is the induction step of "1 ≤ S_m(u) ≤ S_m(v), strictly for m ≥ 2 when
   u < v" (base m = 1: S_1 ≡ 1). Taking u = 1 − 1/b ≤ v = 1 − 1/n:
   η_OW ≤ η_WR, with equality iff b = n or m = 1.
3. Lemma B (z3; Bernoulli's inequality): for all reals 0 ≤ x ≤ 1, k ≥ 1 and P with
   P ≥ 1 − kx: (1 − x)P ≥ 1 − (k + 1)x, strictly when x > 0. With P = (1 − x)^k (base
   k = 1: equality) induction gives (1 − x)^m ≥ 1 − mx, strictly for m ≥ 2 and x > 0; at
   x = 1/n: η_WR ≤ m/n = η_WOR, with equality iff m = 1.

Finding (matches `verifydp check must/prop7`, statement 2): the printed "equality only holds
between η_MUST.OW and η_WR in the trivial case of b = n" misses m = 1, where η_OW = η_WR = 1/n
for every b (e.g. n = 3, b = 1, m = 1). The proof shows the corrected statement: equality iff
b = n or m = 1. The printed chain and the WR/WOR equality condition hold as printed.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
import z3

from verifydp.claims.must.amplification import eta_ow_frac, eta_wr_frac

b, n, m, u, gamma = sympy.symbols("b n m u gamma", positive=True)
ETA_OW = b / n * (1 - (1 - 1 / b) ** m)
ETA_WR = 1 - (1 - 1 / n) ** m
ETA_WOR = m / n
ETA_POISSON = gamma


def s_m(k: sympy.Expr, at: sympy.Expr) -> sympy.Expr:
    return ((1 - u**k) / (1 - u)).subs(u, at)


def identities() -> list[str]:
    checks = {
        "η_OW = S_m(1 − 1/b)/n": ETA_OW - s_m(m, 1 - 1 / b) / n,
        "η_WR = S_m(1 − 1/n)/n": ETA_WR - s_m(m, 1 - 1 / n) / n,
        "S_1 = 1": s_m(1, u) - 1,
        "S_{m+1}(u) = 1 + u S_m(u)": s_m(m + 1, u) - (1 + u * s_m(m, u)),
        "η_WOR(n, m) = η_Poisson(m/n)": ETA_WOR - ETA_POISSON.subs(gamma, m / n),
    }
    out = []
    for text, diff in checks.items():
        assert sympy.simplify(diff) == 0, text
        out.append(f"sympy identity: {text}")
    # the symbolic forms are the ones the claim checker encodes (spot check, exact)
    for nn, bb, mm in ((5, 2, 3), (7, 7, 4), (3, 1, 1)):
        sub = {n: nn, b: bb, m: mm}
        assert ETA_OW.subs(sub) == sympy.Rational(eta_ow_frac(nn, bb, mm))
        assert ETA_WR.subs(sub) == sympy.Rational(eta_wr_frac(nn, mm))
    return out


def z3_valid(hyps: list[z3.BoolRef], concl: z3.BoolRef) -> bool:
    """z3 proves hyps ⇒ concl for all reals (the negation is unsat)."""
    s = z3.Solver()
    s.set("timeout", 20_000)
    s.add(*hyps, z3.Not(concl))
    res = s.check()
    if res == z3.unknown:
        raise RuntimeError("z3 returned unknown")
    return res == z3.unsat


def lemma_a_step(strict_needs: z3.BoolRef | None = None) -> bool:
    uu, vv, a, bb = z3.Reals("u v A B")
    hyps = [uu >= 0, uu <= vv, vv < 1, a >= 1, a <= bb]
    weak = z3.And(1 + uu * a >= 1, 1 + uu * a <= 1 + vv * bb)
    strict = z3.Implies(uu < vv if strict_needs is None else strict_needs, 1 + uu * a < 1 + vv * bb)
    return z3_valid(hyps, z3.And(weak, strict))


def lemma_b_step(k_min: int = 1) -> bool:
    x, p, k = z3.Reals("x P k")
    hyps = [x >= 0, x <= 1, k >= k_min, p >= 1 - k * x]
    concl = z3.And((1 - x) * p >= 1 - (k + 1) * x, z3.Implies(x > 0, (1 - x) * p > 1 - (k + 1) * x))
    return z3_valid(hyps, concl)


def prove() -> list[str]:
    out = identities()
    assert lemma_a_step()
    out.append("z3: Lemma A step (S_m monotone in u, strictly for m ≥ 2) ⇒ η_OW ≤ η_WR, "
               "equality iff b = n or m = 1")
    assert lemma_b_step()
    out.append("z3: Lemma B step (Bernoulli) ⇒ η_WR ≤ η_WOR, equality iff m = 1")
    # the printed equality condition for OW = WR misses m = 1: an exact instance
    assert eta_ow_frac(3, 1, 1) == eta_wr_frac(3, 1) == Fraction(1, 3)
    out.append("printed 'η_OW = η_WR only when b = n' misses m = 1: n = 3, b = 1, m = 1 "
               "gives η_OW = η_WR = 1/3")
    return out


def test_eta_ordering_proved() -> None:
    lines = prove()
    assert len(lines) == 8


def test_false_steps_are_not_proved() -> None:
    """Mutants: the reversed order, and strictness without u < v, are not provable; nor is
    Bernoulli's step without its hypothesis k ≥ 1 (k ≥ −2 admits counterexamples)."""
    uu, vv, a, bb = z3.Reals("u v A B")
    assert not z3_valid([uu >= 0, uu <= vv, vv < 1, a >= 1, a <= bb], 1 + uu * a >= 1 + vv * bb)
    assert not lemma_a_step(strict_needs=z3.BoolVal(True))
    assert not lemma_b_step(k_min=-2)
