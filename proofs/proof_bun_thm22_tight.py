"""bun/thm2.2 is exact: for SRS without replacement of m of n records and base mechanisms that
are (ε, δ)-DP under replacement, the worst case over ALL such mechanisms equals the printed
e^{ε'} = 1 + (m/n)(e^ε − 1) and δ' = (m/n)δ, for every ε ≥ 0 and δ ∈ [0, 1], every n ≤ 6 and
every 0 ≤ m ≤ n.

What is proved, exactly. For each n ≤ 6 and m ≤ n, on two population pairs of size n
differing by one replacement — the engine's canonical pair P = {a × (n−1), x}, P' =
{a × (n−1), y} (`bun.replace_pair`, used by `verifydp check bun/thm2.2`) and the pair with
all records distinct, P = {r_1..r_{n−1}, x}, P' = {r_1..r_{n−1}, y} (no symmetry reduction
at all) — and in both directions (P against P' and P' against P), over the engine's own
region of docs/foundations.md (`worstcase.engine.region_for`: all count vectors of size m, edges =
one replacement), symbolically in t = e^ε:

1. pure ε: the ratio LP  max p·f  s.t.  q·f ≤ 1, f ≥ 0, f_D ≤ t·f_E on every oriented edge,
   has optimum exactly λ(t) = 1 + (m/n)(t − 1) for every real t ≥ 1:
   * primal certificate (the worst-case mechanism): f(D) = t^{#x in D}, exactly feasible
     (t·f_E − f_D ≥ 0 on every oriented edge for t ≥ 1) with p·f − λ(t)·q·f ≡ 0, q·f > 0;
   * dual certificate: λ(t) and edge multipliers (scaled by t) W(T+x → T+y) = λ·u and
     W(T+x → T+r) = (t − λ)·u·(share of r), r a common record outside the sample, shared
     in proportion to the records of r's type left outside it (u the sample's
     probability); every W ≥ 0 and every dual constraint
     t·(λ q_D + Σ_out w − t Σ_in w − p_D) ≥ 0 for t ≥ 1, so by weak duality optimum ≤ λ(t).
2. (ε, δ): the hockey-stick LP  max (p − λ(t) q)·f  s.t. 0 ≤ f ≤ 1, f_D − t f_E ≤ δ and
   (1 − f_D) − t(1 − f_E) ≤ δ on every oriented edge, has optimum exactly a·δ
   (a = Pr[x sampled] = m/n) for every t ≥ 1 and δ ∈ [0, 1]: the same multipliers w = W/t
   make every reduced cost ≤ 0 (it is −slack/t of the ratio dual) with Σ w = a, so the
   optimum is ≤ a·δ; the mechanism f(D) = δ·[x ∈ D] is feasible (each constraint is affine
   in δ and checked at δ = 0 and δ = 1 for all t ≥ 1) and attains a·δ.

Every inequality is decided exactly: a polynomial in t is shown nonnegative on [1, ∞) by
nonnegative coefficients in s = t − 1, else by exact root counting of its odd-multiplicity
square-free factors (sympy). λ(t) and a·δ are then compared, as sympy identities, with the
printed `bun.THM22_EPS` and `bun.THM22_DELTA`. Via docs/foundations.md#fact-1 to #fact-4 (binary
mechanisms suffice; the region carries every DP constraint) these are the exact sups over
all (ε, δ)-DP base mechanisms on these pairs: the printed ε', δ' are valid and tight there.
Not covered: n > 6, and pairs whose common records repeat in other patterns.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import cache

import pytest
import sympy

from verifydp.claims.bun import amplification as bun
from verifydp.designs import SRSWOR
from verifydp.exact.tfunc import EPS, T, exp_of, to_t
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase.engine import region_for

N_MAX = 6
DELTA = sympy.Symbol("delta", nonnegative=True)


@cache
def poly(expr: sympy.Expr | int | Fraction) -> sympy.Poly:
    if isinstance(expr, Fraction):
        expr = sympy.Rational(expr.numerator, expr.denominator)
    return sympy.Poly(expr, T, domain="QQ")


@cache
def _nonneg_coeffs(coeffs: tuple[sympy.Rational, ...]) -> bool:
    g = sympy.Poly(list(coeffs), T, domain="QQ")
    if g.is_zero:
        return True
    shifted = g.shift(1)  # g(s + 1): coefficients in s = t − 1
    if all(c >= 0 for c in shifted.all_coeffs()):
        return True
    if shifted.LC() < 0:
        return False
    # exact sign analysis: g keeps its (positive) leading sign on (0, ∞) unless a factor of
    # odd multiplicity has a root there
    _, factors = shifted.as_expr().as_poly(T).sqf_list()
    for h, k in factors:
        if k % 2 == 1:
            roots = h.count_roots(0, None) - (1 if h.eval(0) == 0 else 0)
            if roots > 0:
                return False
    return True


def nonneg_for_t_ge_1(g: sympy.Poly) -> bool:
    """Exact: the polynomial g(t) is ≥ 0 for every real t ≥ 1."""
    return _nonneg_coeffs(tuple(g.all_coeffs()))


def pairs(n: int) -> Iterator[tuple[str, PopulationPair, RecordType, RecordType]]:
    x, y = RecordType("x"), RecordType("y")
    yield "canonical", bun.replace_pair(n), bun.X, bun.Y
    common = {RecordType(f"r{i}"): 1 for i in range(1, n)}
    yield "distinct", PopulationPair(
        Population.of({**common, x: 1}), Population.of({**common, y: 1}), Relation.REPLACE
    ), x, y


def certify(n: int, m: int, label: str, pair: PopulationPair, x: RecordType, y: RecordType,
            forward: bool, lam_expr: sympy.Expr | None = None,
            power: int = 1) -> tuple[sympy.Expr, Fraction]:
    """Verify the certificates of both LPs; return the proved optima: the ratio λ(t) and
    a = Pr[x sampled], the hockey-stick optimum being a·δ at e^{ε'} = λ(t).

    `lam_expr` (default 1 + a(t − 1), a = Pr[x sampled]) and the mechanism f = t^{power·#x}
    are parameters only so that the tests can check that wrong certificates are rejected."""
    universe = pair.universe
    law_p = SRSWOR(m).sample_law(pair.p, universe)
    law_q = SRSWOR(m).sample_law(pair.q, universe)
    pop = pair.p.counts_over(universe)
    if not forward:
        law_p, law_q, x, y = law_q, law_p, y, x
        pop = pair.q.counts_over(universe)
    region = region_for(law_p, law_q, Relation.REPLACE)
    idx = region.index()
    ix, iy = universe.index(x), universe.index(y)
    common = [i for i in range(len(universe)) if i not in (ix, iy)]
    npts = len(region.points)
    p = [law_p.prob(d) for d in region.points]
    q = [law_q.prob(d) for d in region.points]
    a = sum((p[k] for k, d in enumerate(region.points) if d[ix] >= 1), Fraction(0))
    if lam_expr is None:
        lam_expr = 1 + sympy.Rational(a.numerator, a.denominator) * (T - 1)
    lam = poly(lam_expr)
    where = f"n={n}, m={m}, {label}, {'P vs P′' if forward else 'P′ vs P'}"

    # primal: f(D) = t^{#x}
    f = [poly(T ** (power * d[ix])) for d in region.points]
    # each distinct pair of values on an oriented edge is checked once
    for fu, fv in {(f[u], f[v]) for i, j in region.edges for u, v in ((i, j), (j, i))}:
        assert nonneg_for_t_ge_1(poly(T) * fv - fu), f"primal edge {where}"
    pf = sum((f[k] * poly(p[k]) for k in range(npts) if p[k]), poly(0))
    qf = sum((f[k] * poly(q[k]) for k in range(npts) if q[k]), poly(0))
    assert (pf - lam * qf).is_zero, f"primal value ≠ λ(t) ({where})"
    assert nonneg_for_t_ge_1(qf) and qf.eval(1) > 0, f"q·f not positive ({where})"

    # dual: rows (D, E) meaning f_D − t f_E ≤ 0, multipliers scaled by t
    rows: dict[tuple[int, int], sympy.Poly] = {}
    edges = set(region.edges)
    for k, d in enumerate(region.points):
        if not p[k] or d[ix] == 0:
            continue
        u = poly(p[k])
        to_y = d[:ix] + (d[ix] - 1,) + d[ix + 1:]
        to_y = to_y[:iy] + (to_y[iy] + 1,) + to_y[iy + 1:]
        rows[(k, idx[to_y])] = lam * u
        # the rest goes to D − x + r, r a common record outside the sample, split evenly
        # over those records (the type's remaining multiplicity in the population)
        left = {c: pop[c] - d[c] for c in common if pop[c] > d[c]}
        for c, k_c in left.items():
            to_r = d[:ix] + (d[ix] - 1,) + d[ix + 1:]
            to_r = to_r[:c] + (to_r[c] + 1,) + to_r[c + 1:]
            share = poly(Fraction(k_c, sum(left.values())))
            rows[(k, idx[to_r])] = (poly(T) - lam) * u * share
    t_lam, zero = poly(T) * lam, poly(0)
    slack = [t_lam * poly(q[k]) - poly(T) * poly(p[k]) if p[k] or q[k] else zero
             for k in range(npts)]
    for (i, j), w in rows.items():
        assert (min(i, j), max(i, j)) in edges, f"dual row is not an edge ({where})"
        assert nonneg_for_t_ge_1(w), f"negative dual multiplier ({where})"
        slack[i] = slack[i] + w
        slack[j] = slack[j] - poly(T) * w
    assert nonneg_for_t_ge_1(lam)
    for k in range(npts):
        assert nonneg_for_t_ge_1(slack[k]), f"dual constraint at {region.points[k]} ({where})"

    # (ε, δ): the same multipliers w = W/t certify the hockey-stick LP at t' = λ(t). Its
    # reduced costs t·(p − λq) − Σ_out W + t Σ_in W = −slack are ≤ 0, so for every feasible
    # f ∈ [0, 1]: (p − λq)·f ≤ δ·Σ w = δ·a. The primal f = δ·[x ∈ D] attains δ·a.
    assert (sum(rows.values(), poly(0)) - poly(T) * poly(a)).is_zero, f"Σ w ≠ a ({where})"
    g = [DELTA * (1 if d[ix] >= 1 else 0) for d in region.points]
    for gu, gv in {(g[u], g[v]) for i, j in region.edges for u, v in ((i, j), (j, i))}:
        for lhs in (gu - T * gv, (1 - gu) - T * (1 - gv)):
            assert nonneg_affine_delta(DELTA - lhs), f"hockey primal edge {where}"
    value = sum((gk * (pk - lam_expr * qk) for gk, pk, qk in zip(g, p, q)), sympy.Integer(0))
    assert sympy.expand(value - a * DELTA) == 0, f"hockey primal value ≠ aδ ({where})"
    return lam.as_expr(), a


def nonneg_affine_delta(expr: sympy.Expr) -> bool:
    """Exact: expr, affine in δ, is ≥ 0 for every t ≥ 1 and 0 ≤ δ ≤ 1 (check both ends)."""
    expr = sympy.expand(expr)
    assert sympy.degree(expr, DELTA) <= 1
    return all(nonneg_for_t_ge_1(poly(expr.subs(DELTA, e))) for e in (0, 1))


def prove(eps_expr: sympy.Expr = bun.THM22_EPS, delta_expr: sympy.Expr = bun.THM22_DELTA,
          n_max: int = N_MAX) -> list[str]:
    """The printed ε' and δ' (parameters only for the mutation tests) equal the proved
    optima λ(t) and a·δ on every instance; one line per (n, m)."""
    printed_t = to_t(exp_of(eps_expr))
    out = []
    for n in range(1, n_max + 1):
        for m in range(n + 1):
            sub = {bun.m: m, bun.n: n}
            for label, pair, x, y in pairs(n):
                for forward in (True, False):
                    lam, a = certify(n, m, label, pair, x, y, forward)
                    want = printed_t.subs(sub)
                    assert sympy.cancel(lam - want) == 0, (n, m, label, lam, want)
                    want_d = delta_expr.subs({**sub, bun.delta: DELTA})
                    assert sympy.cancel(a * DELTA - want_d) == 0, (n, m, label, a, want_d)
            out.append(f"n={n}, m={m}: e^ε' = {sympy.factor(lam)}, δ' = {a}·δ for all "
                       f"t ≥ 1, δ ∈ [0, 1]")
    return out


def test_srswor_worst_case_equals_printed_formula() -> None:
    lines = prove()
    assert len(lines) == sum(n + 1 for n in range(1, N_MAX + 1))
    assert "n=6, m=3: e^ε' = (t + 1)/2, δ' = 1/2·δ for all t ≥ 1, δ ∈ [0, 1]" in lines


def test_mutated_printed_formulas_are_not_proved() -> None:
    for eps_expr in (sympy.log(1 + bun.m / bun.n * (sympy.exp(2 * EPS) - 1)),
                     sympy.log(1 + (bun.m / bun.n) ** 2 * (sympy.exp(EPS) - 1))):
        with pytest.raises(AssertionError):
            prove(eps_expr=eps_expr, n_max=3)
    with pytest.raises(AssertionError):
        prove(delta_expr=(bun.m / bun.n) ** 2 * bun.delta, n_max=3)


def test_sign_analysis() -> None:
    assert nonneg_for_t_ge_1(poly((T - 2) ** 2))  # not coefficientwise, needs root analysis
    assert not nonneg_for_t_ge_1(poly(T - 2))
    assert not nonneg_for_t_ge_1(poly((T - 2) * (T - 3)))
    assert nonneg_for_t_ge_1(poly((T - 1) * (T - 2) ** 2))


def test_wrong_certificates_are_rejected() -> None:
    """Mutants: a smaller or larger λ(t), or the mechanism t^{2·#x}, must not certify."""
    _, pair, x, y = list(pairs(4))[1]
    for lam in (1 + (T - 1) / 4, 1 + 3 * (T - 1) / 4, T):
        with pytest.raises(AssertionError):
            certify(4, 2, "distinct", pair, x, y, True, lam_expr=lam)
    with pytest.raises(AssertionError):
        certify(4, 2, "distinct", pair, x, y, True, power=2)
    assert certify(4, 2, "distinct", pair, x, y, True) == (1 + (T - 1) / 2, Fraction(1, 2))
