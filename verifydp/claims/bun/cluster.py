"""Cluster-sampling claims of Bun, Drechsler, Gaboardi, McMillan, Sarathy (§5, App. D).

C_ℓ chooses ℓ < k of the k clusters uniformly and keeps every record of the chosen ones.
Printed bounds (Theorems 5.1 and 5.2), with n_i = |C_i| and C'_i = C_i ∪ {x}:

    ε' ≷ ln(1 + (ℓ/k) / (ℓ/k + (1 − ℓ/k) e^{−(n_i + n_{min|max}) ε}) · (e^ε − 1)).

Populations have all records distinct. Records of one cluster are interchangeable for the
design, so (fact 4) each cluster is one record type with its size as count, plus the fresh
record x; clusters of equal size other than C_i are interchangeable types, and the LP is solved
over orbits (checked exactly on the sample laws).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction

import sympy

from verifydp.claims.base import (
    Budget,
    Claim,
    ClaimResult,
    InstanceResult,
    Statement,
    Verdict,
    combine,
)
from verifydp.claims.base import (
    statement as _statement,
)
from verifydp.claims.checkers import Instance, check_ratio_upper, fmt
from verifydp.designs import ClusterSRS
from verifydp.epsilon import EpsSpec
from verifydp.exact.tfunc import EPS, exp_of
from verifydp.mechanisms import LaplaceCount
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import worst_case_ratio

PAPER = "bun"
ell, k, n_i, n_min, n_max = sympy.symbols("ell k n_i n_min n_max")


def cluster_bound(n_other: sympy.Symbol) -> sympy.Expr:
    frac = ell / k
    return sympy.log(
        1 + frac / (frac + (1 - frac) * sympy.exp(-(n_i + n_other) * EPS)) * (sympy.exp(EPS) - 1)
    )


THM51_EPS = cluster_bound(n_min)  # lower bound (Theorem 5.1)
THM52_EPS = cluster_bound(n_max)  # upper bound (Theorem 5.2)


def cluster_pair(sizes: Sequence[int], i: int) -> tuple[PopulationPair, tuple[tuple[RecordType, ...], ...]]:
    """P = C_1 ⊔ … ⊔ C_k with |C_j| = sizes[j]; P' adds a fresh record x to C_i.
    Returns the pair and the classes of interchangeable cluster types."""
    types = [RecordType(f"c{j}", cluster=f"c{j}") for j in range(len(sizes))]
    common = {t: s for t, s in zip(types, sizes)}
    x = RecordType("x", cluster=f"c{i}")
    pair = PopulationPair(
        Population.of(common), Population.of({**common, x: 1}), Relation.ADD_REMOVE
    )
    groups: dict[int, list[RecordType]] = {}
    for j, s in enumerate(sizes):
        if j != i:
            groups.setdefault(s, []).append(types[j])
    classes = tuple(tuple(g) for g in groups.values() if len(g) > 1)
    return pair, classes


SHAPES: tuple[tuple[int, ...], ...] = (
    (1, 1), (2, 2), (1, 3), (3, 1), (1, 1, 1), (2, 2, 2), (1, 2, 3), (3, 2, 1),
    (4, 4, 4), (1, 1, 1, 1), (2, 2, 2, 2), (1, 2, 3, 4), (4, 3, 2, 1), (3, 3, 3, 3, 3),
    (1, 1, 2, 2, 3, 3), (2, 2, 2, 2, 2, 2, 2, 2),
)


def cluster_instances(eps_grid: Sequence[EpsSpec]) -> Iterator[Instance]:
    for sizes in SHAPES:
        kk = len(sizes)
        i = 0  # C_i is the first listed cluster; shapes list it small, large and equal
        others = [s for j, s in enumerate(sizes) if j != i]
        pair, classes = cluster_pair(sizes, i)
        ells = sorted({1, kk // 2, kk - 1}) if kk > 1 else [1]
        for ll in ells:
            for eps in eps_grid:
                yield Instance(
                    {"ell": ll, "k": kk, "n_i": sizes[i], "n_min": min(others),
                     "n_max": max(others)},
                    pair, ClusterSRS(ll), Relation.ADD_REMOVE, eps,
                    label={"sizes": sizes}, symmetric=classes,
                )


EPS_GRID = (EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10)), EpsSpec.of_eps(Fraction(1, 2)))



def check_thm52(budget: Budget, eps_expr: sympy.Expr = THM52_EPS,
                claim: str = "bun/thm5.2") -> ClaimResult:
    acc = check_ratio_upper(claim, exp_of(eps_expr), cluster_instances(EPS_GRID), budget)
    s = _statement(
        "ε-deletion-DP M, C'_i = C_i ∪ {x}: M_C(P), M_C(P') are ε'-indistinguishable with "
        "ε' ≤ ln(1 + (ℓ/k)/(ℓ/k + (1 − ℓ/k)e^{−(n_i+n_max)ε})(e^ε − 1))",
        acc.results,
    )
    return ClaimResult(claim, s.verdict, (s,), acc.witness, 0.0, tuple(acc.lp_sizes))


def check_thm51(budget: Budget, eps_expr: sympy.Expr = THM51_EPS,
                claim: str = "bun/thm5.1") -> ClaimResult:
    """Existence of P, P' (C'_i = C_i ∪ {x}) and M with ε' ≥ printed: decided by the exact
    worst case on the all-distinct pair, which dominates every pair with these cluster sizes;
    and the construction printed in App. D, evaluated exactly."""
    exists: list[InstanceResult] = []
    lp_sizes: list[int] = []
    for inst in cluster_instances((EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10)))):
        if budget.spent() or (budget.fail_fast and any(
                r.verdict is Verdict.REFUTED for r in exists)):
            break
        law_p, law_q = inst.laws()
        wc = worst_case_ratio(law_p, law_q, inst.mclass(), classes=inst.classes())
        lp_sizes.append(wc.lp_points)
        bound = inst.eps.evaluate(exp_of(eps_expr), inst.params)
        worst = wc.worst
        claimed = f"e^ε' ≥ {bound}"
        actual = f"exact worst case ∈ [{fmt(worst.lower)}, {fmt(wc.upper)}] (LP {wc.lp_points} pts)"
        if wc.upper is not None and wc.upper < bound.lo:
            verdict = Verdict.REFUTED
        elif worst.lower is None or worst.lower >= bound.hi:
            verdict = Verdict.HOLDS
        else:
            verdict = Verdict.INCONCLUSIVE
        exists.append(InstanceResult(inst.report(), verdict, claimed, actual))
    s1 = _statement(
        "there exist P, P' with C'_i = C_i ∪ {x} and an ε-deletion-DP M with "
        "ε' ≥ ln(1 + (ℓ/k)/(ℓ/k + (1 − ℓ/k)e^{−(n_i+n_min)ε})(e^ε − 1))",
        exists,
    )
    s2 = _construction(budget, eps_expr)
    st = (s1, s2)
    return ClaimResult(claim, combine(st), st, None, 0.0, tuple(lp_sizes))


def _construction(budget: Budget, eps_expr: sympy.Expr) -> Statement:
    """App. D: C_1 = {1,…,1}, C_j = {−1,…,−1}, C'_1 = C_1 \\ {1} ∪ {−1} (a *replacement*,
    although the theorem states C'_i = C_i ∪ {x}), M(S) = Σ_{x∈S} x + Lap(1/ε)."""
    plus, minus = "1", "-1"
    mech = LaplaceCount(((plus, 1), (minus, -1)))
    results = []
    for sizes in SHAPES:
        if budget.spent():
            break
        kk = len(sizes)
        types = [RecordType(plus if j == 0 else minus, cluster=f"c{j}") for j in range(kk)]
        common = dict(zip(types, sizes))
        moved = RecordType(minus, cluster="c0")
        p_pop = Population.of(common)
        q_pop = Population.of({**common, types[0]: sizes[0] - 1, moved: 1})
        pair = PopulationPair(p_pop, q_pop, Relation.REPLACE)
        u = pair.universe
        assert mech.is_eps_dp(Relation.ADD_REMOVE, u)
        others = sizes[1:]
        for ll in sorted({1, kk // 2, kk - 1}) if kk > 1 else [1]:
            for t in (Fraction(2), Fraction(11, 10)):
                design = ClusterSRS(ll)
                lp_, lq = design.sample_law(pair.p, u), design.sample_law(pair.q, u)
                ratio = max(mech.max_ratio(lp_, lq, u, t).ratio,  # type: ignore[type-var]
                            mech.max_ratio(lq, lp_, u, t).ratio)
                params = {"ell": ll, "k": kk, "n_i": sizes[0], "n_min": min(others),
                          "n_max": max(others)}
                bound = EpsSpec.of_t(t).evaluate(exp_of(eps_expr), params)
                ok = ratio >= bound.hi
                results.append(InstanceResult(
                    {**{k_: str(v) for k_, v in params.items()}, "sizes": str(sizes),
                     "t": str(t)},
                    Verdict.HOLDS if ok else Verdict.REFUTED,
                    f"e^ε' ≥ {bound}", f"construction's exact ratio {fmt(ratio)}",
                ))
    return _statement(
        "the App. D construction (values ±1, one 1 replaced by −1 in C_1, Σx + Lap(1/ε)) "
        "attains the printed lower bound", results,
    )


CLAIMS = [
    Claim("bun/thm5.1", PAPER, "§5.1, Theorem 5.1, App. D",
          "cluster sampling (ℓ of k) lower bound with n_i + n_min",
          r"\varepsilon'\geq\ln\left(1+\frac{\frac{\ell}{k}}{\frac{\ell}{k}+(1-\frac{\ell}{k})"
          r"e^{-(n_i+n_{\min})\varepsilon}}(e^{\varepsilon}-1)\right)",
          check_thm51),
    Claim("bun/thm5.2", PAPER, "§5.1, Theorem 5.2, App. D",
          "cluster sampling (ℓ of k) upper bound with n_i + n_max",
          r"\varepsilon'\leq\ln\left(1+\frac{\frac{\ell}{k}}{\frac{\ell}{k}+(1-\frac{\ell}{k})"
          r"e^{-(n_i+n_{\max})\varepsilon}}(e^{\varepsilon}-1)\right)",
          check_thm52),
]
