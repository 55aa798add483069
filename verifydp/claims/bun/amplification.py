"""Claims of Bun, Drechsler, Gaboardi, McMillan, Sarathy — "Controlling Privacy Loss in
Sampling Schemes: an Analysis of Stratified and Cluster Sampling" (paper key `bun`).

Every bound below is the paper's printed formula, as a sympy expression in ε (`EPS`) and the
named parameters; nothing is adjusted to make a check pass. Where the engine refutes a printed
statement and the fix is clear, a separate `:corrected` claim encodes the fix.

Canonical population pairs: for designs that treat records symmetrically, P and P' consist of
identical common records plus a fresh differing record. By docs/foundations.md#fact-4 (orbit
averaging, tested in tests/test_foundations.py) this pair is at least as bad as any pair of the
same sizes in which all records are distinct, so a refutation on it is a refutation, and the
worst case it gives is the worst case over all populations of those sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from math import ceil, comb

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
from verifydp.claims.checkers import (
    Instance,
    UpperCheck,
    check_hockey_upper,
    check_ratio_upper,
    fmt,
)
from verifydp.designs import (
    SRSWOR,
    LinearSizeRule,
    ProportionalWOR,
    RandomSizeWOR,
    Rounding,
    StratifiedProportional,
    round_allocation,
)
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.tfunc import EPS, T, exp_of
from verifydp.mechanisms import GeometricCount, LaplaceCount
from verifydp.population import Population, PopulationPair, RecordType, Relation
from verifydp.worstcase import MechanismClass, worst_case_ratio

PAPER = "bun"
m, n, r, delta, size_p, m_prime = sympy.symbols("m n r delta P_size m_prime")

A, X, Y = RecordType("a"), RecordType("x"), RecordType("y")

# t = e^ε values: exact rationals keep the whole check rational; one irrational ε exercises
# the rigorous brackets.
EPS_GRID = (EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10)), EpsSpec.of_eps(Fraction(1, 2)),
            EpsSpec.of_t(5))  # t = 5: large ε, where e^ε and e^{2ε} bounds separate most


def replace_pair(n_: int) -> PopulationPair:
    """P = {a × (n−1), x}, P' = {a × (n−1), y}: one replacement."""
    return PopulationPair(
        Population.of({A: n_ - 1, X: 1}), Population.of({A: n_ - 1, Y: 1}), Relation.REPLACE
    )


def add_pair(n_: int) -> PopulationPair:
    """P = {a × n}, P' = P ∪ {x}: one addition."""
    return PopulationPair(Population.of({A: n_}), Population.of({A: n_, X: 1}), Relation.ADD_REMOVE)



def _result(claim: str, statements: Sequence[Statement], acc: UpperCheck | None) -> ClaimResult:
    return ClaimResult(
        claim, combine(statements), tuple(statements),
        acc.witness if acc else None, 0.0, tuple(acc.lp_sizes) if acc else (),
    )


# ---------------------------------------------------------------- Theorem 2.2

THM22_EPS = sympy.log(1 + m / n * (sympy.exp(EPS) - 1))
THM22_DELTA = m / n * delta
THM22_DELTAS = (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2))


def thm22_instances(delta_: Fraction, base: Relation = Relation.REPLACE) -> Iterator[Instance]:
    for n_ in (1, 2, 3, 4, 7, 20, 1000):
        for m_ in sorted({0, 1, n_ // 2, n_ - 1, n_}):
            for eps in EPS_GRID:
                yield Instance(
                    {"m": m_, "n": n_, "delta": delta_}, replace_pair(n_), SRSWOR(m_),
                    base, eps, delta_,
                )


def check_thm22(
    budget: Budget, eps_expr: sympy.Expr = THM22_EPS, delta_expr: sympy.Expr = THM22_DELTA,
    claim: str = "bun/thm2.2", base: Relation = Relation.REPLACE,
) -> ClaimResult:
    """`base` is the printed relation of M (replacement); other values are mutants."""
    acc = check_ratio_upper(claim, exp_of(eps_expr), thm22_instances(Fraction(0), base), budget)
    s1 = _statement("pure ε (δ = 0): e^{ε'} ≤ 1 + (m/n)(e^ε − 1)", acc.results)
    n1 = len(acc.results)
    for d in THM22_DELTAS:
        check_hockey_upper(
            claim, exp_of(eps_expr), delta_expr, thm22_instances(d, base), budget, acc
        )
    s2 = _statement("(ε, δ): δ'(ε') ≤ (m/n)δ at δ ∈ {1/100, 1/10, 1/2}", acc.results[n1:])
    return _result(claim, [s1, s2], acc)


# ---------------------------------------------------------------- Theorem 3.1


def tilted_mean(law: dict[int, Fraction]) -> sympy.Expr:
    """E_{m ∼ t̃}[m] with t̃(m) ∝ e^{εm} t(m), as printed (a rational function of e^ε)."""
    num = sum(sympy.exp(EPS * k) * sympy.Rational(p.numerator, p.denominator) * k
              for k, p in law.items())
    den = sum(sympy.exp(EPS * k) * sympy.Rational(p.numerator, p.denominator)
              for k, p in law.items())
    return num / den


def thm31_upper_expr(law: dict[int, Fraction], two_eps: bool = False) -> sympy.Expr:
    growth = sympy.exp(2 * EPS) if two_eps else sympy.exp(EPS)
    return sympy.log(1 + tilted_mean(law) / n * (growth - 1))


def thm31_lower_expr(law: dict[int, Fraction]) -> sympy.Expr:
    return -sympy.log(1 - tilted_mean(law) / n * (1 - sympy.exp(-EPS)))


def size_laws(n_: int) -> dict[str, dict[int, Fraction]]:
    laws: dict[str, dict[int, Fraction]] = {
        f"point({k})": {k: Fraction(1)} for k in sorted({0, 1, n_ // 2, n_})
    }
    laws["uniform"] = {k: Fraction(1, n_ + 1) for k in range(n_ + 1)}
    laws["two-point{0,n}"] = {0: Fraction(1, 2), n_: Fraction(1, 2)}
    laws["binomial(n,1/2)"] = {k: Fraction(comb(n_, k), 2**n_) for k in range(n_ + 1)}
    if n_ >= 3:
        laws["heavy-tail"] = {1: Fraction(9, 10), n_: Fraction(1, 10)}
    return laws


def thm31_instances() -> Iterator[tuple[Instance, dict[int, Fraction]]]:
    for n_ in (2, 3, 4, 6, 10):
        for name, law in size_laws(n_).items():
            for eps in EPS_GRID:
                inst = Instance(
                    {"n": n_}, replace_pair(n_), RandomSizeWOR(FiniteDist.from_pairs(law.items())),
                    Relation.ADD_REMOVE, eps, label={"t(m)": name},
                )
                yield inst, law


BoundBuilder = Callable[[dict[int, Fraction]], sympy.Expr]


def check_thm31_upper(
    budget: Budget, two_eps: bool = False, claim: str = "bun/thm3.1:upper",
    bound: BoundBuilder | None = None,
) -> ClaimResult:
    """`bound(law)` overrides the printed ε' (used by mutation tests)."""
    build = bound or (lambda law: thm31_upper_expr(law, two_eps))
    acc = UpperCheck(claim)
    for inst, law in thm31_instances():
        if budget.spent() or (budget.fail_fast and acc.witness is not None):
            break
        check_ratio_upper(claim, exp_of(build(law)), [inst], budget, acc)
    growth = "e^{2ε}" if two_eps else "e^ε"
    s = _statement(
        f"ε-deletion-DP M ⇒ M_C is ε'-replacement DP, e^{{ε'}} = 1 + E_t̃[m]/n·({growth} − 1)",
        acc.results,
    )
    return _result(claim, [s, _thm31_concrete(build, budget)], acc)


def _thm31_concrete(build: BoundBuilder, budget: Budget) -> Statement:
    """Independent route (no LP): M(S) = #x(S) − #y(S) + two-sided geometric noise is
    ε-deletion-DP (sensitivity 1), and its exact likelihood ratio is compared with the bound."""
    mech = GeometricCount((("x", 1), ("y", -1)))
    results = []
    for inst, law in thm31_instances():
        if budget.spent() or inst.eps.t is None:
            continue
        law_p, law_q = inst.laws()
        u = inst.pair.universe
        assert mech.is_eps_dp(Relation.ADD_REMOVE, u)
        best = max(
            (mech.max_ratio(a, b, u, inst.eps.t) for a, b in ((law_p, law_q), (law_q, law_p))),
            key=lambda pr: pr.ratio,
        )
        bound = inst.eps.evaluate(exp_of(build(law)), inst.params)
        assert best.ratio is not None
        verdict = Verdict.REFUTED if best.ratio > bound.hi else Verdict.HOLDS
        results.append(InstanceResult(
            inst.report(), verdict, f"e^ε' ≤ {bound}",
            f"#x − #y + geometric noise: ratio {fmt(best.ratio)} at output {best.point}",
        ))
    return _statement(
        "independent check with a concrete ε-deletion-DP mechanism (#x − #y + geometric noise)",
        results,
    )


def check_thm31_lower(budget: Budget, bound: BoundBuilder = thm31_lower_expr) -> ClaimResult:
    """The printed construction (App. B): P = n ones, P' = P \\ {1} ∪ {0},
    M(S) = #ones + Lap(1/ε), compared at the output n. `bound(law)` is the printed ε'."""
    one, zero = RecordType("1"), RecordType("0")
    mech = LaplaceCount((("1", 1),))
    attains: list[InstanceResult] = []
    below_truth: list[InstanceResult] = []
    lp_sizes: list[int] = []
    for n_ in (1, 2, 3, 4, 6, 10):
        for name, law in size_laws(n_).items():
            for eps in (EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10)), EpsSpec.of_t(5)):
                if budget.spent():
                    break
                t = eps.t
                assert t is not None
                pair = PopulationPair(
                    Population.of({one: n_}), Population.of({one: n_ - 1, zero: 1}),
                    Relation.REPLACE,
                )
                design = RandomSizeWOR(FiniteDist.from_pairs(law.items()))
                universe = pair.universe
                law_p = design.sample_law(pair.p, universe)
                law_q = design.sample_law(pair.q, universe)
                params = {"n": n_, "t(m)": name, "epsilon": str(eps)}
                try:
                    printed = eps.evaluate(exp_of(bound(law)), {"n": n_})
                except ValueError as exc:
                    attains.append(InstanceResult(
                        params, Verdict.INCONCLUSIVE, "printed bound", "-",
                        note=f"the printed bound is not a real number here ({exc})",
                    ))
                    continue
                assert mech.is_eps_dp(Relation.ADD_REMOVE, universe)
                ratio = mech.point_ratio(law_p, law_q, universe, t, n_)
                ok = printed.lo <= ratio
                attains.append(InstanceResult(
                    params, Verdict.HOLDS if ok else Verdict.REFUTED,
                    f"e^ε' ≥ {printed}", f"construction's ratio at y = n: {fmt(ratio)}",
                ))
                wc = worst_case_ratio(law_p, law_q, MechanismClass.pure(Relation.ADD_REMOVE, t))
                lp_sizes.append(wc.lp_points)
                up = wc.upper
                consistent = up is None or printed.hi <= up
                below_truth.append(InstanceResult(
                    params, Verdict.HOLDS if consistent else Verdict.REFUTED,
                    f"lower bound {printed}", f"exact worst case ≤ {fmt(up)}",
                ))
    s1 = _statement(
        "the construction (#ones + Lap(1/ε), output n) attains ε' ≥ −log(1 − E_t̃[m]/n·(1 − e^{−ε}))",
        attains,
    )
    s2 = _statement("the printed lower bound never exceeds the exact worst case", below_truth)
    return ClaimResult("bun/thm3.1:lower", combine([s1, s2]), (s1, s2), None, 0.0, tuple(lp_sizes))


A_RATE = sympy.Symbol("a", positive=True)  # a = E_t̃[m]/n ∈ [0, 1]
THM31_APPROX = A_RATE * EPS


def check_thm31_approx(budget: Budget, approx: sympy.Expr = THM31_APPROX) -> ClaimResult:
    """Both printed bounds agree with the printed approximation to first order in ε."""
    from verifydp.claims.series import first_order_coefficient

    a = A_RATE
    upper = sympy.log(1 + a * (sympy.exp(EPS) - 1))
    lower = -sympy.log(1 - a * (1 - sympy.exp(-EPS)))
    a0, a1 = first_order_coefficient(approx)
    st = []
    for name, expr in (("upper", upper), ("lower", lower)):
        c0, c1 = first_order_coefficient(expr)
        ok = sympy.simplify(c0 - a0) == 0 and sympy.simplify(c1 - a1) == 0
        st.append(Statement(
            f"{name} bound = (E_t̃[m]/n)·ε + O(ε²)", Verdict.PROVED if ok else Verdict.REFUTED,
            note=f"sympy series: {name} = {sympy.simplify(c1)}·ε + O(ε²)",
        ))
    return ClaimResult("bun/thm3.1:approx", combine(st), tuple(st))


# ---------------------------------------------------------------- Lemma B.1

size_pp = sympy.Symbol("P_prime_size")
LEMB1_EPS = sympy.log(1 + m / (size_p + 1) * (sympy.exp(2 * EPS) - 1)) + sympy.Abs(m - m_prime) * EPS
# The printed bound is not symmetric in P, P' while the lemma's "deletion neighboring" is: its
# proof's "Let P' = P ∪ {x}" is a WLOG that fails for P = P' ∪ {x} (issue 14). With the smaller
# dataset's size in the denominator the proof's two steps go through in both orientations:
# C_m(P) vs C_m(P_small) is a mixture with weight m/(|P_small| + 1) (Lemma A.4 with the 2ε
# coupling), then C_m vs C_{m'} on one dataset costs |m − m'|ε (Lemma A.3); and m = |P_big|,
# where C_m(P_small) is undefined, costs at most (|P_big| − m')ε ≤ the bound.
LEMB1_CORRECTED_EPS = (
    sympy.log(1 + m / (sympy.Min(size_p, size_pp) + 1) * (sympy.exp(2 * EPS) - 1))
    + sympy.Abs(m - m_prime) * EPS
)
LEMB1_EPS_GRID = (EpsSpec.of_t(2), EpsSpec.of_t(5), EpsSpec.of_eps(Fraction(1, 2)))
ORIENT_SMALL, ORIENT_BIG = "P' = P ∪ {x}", "P = P' ∪ {x}"


def lemb1_instance(n_: int, p_small: bool, m_: int, mp: int, base: Relation,
                   eps: EpsSpec) -> Instance:
    """P, P' = {a×n} and {a×n, x} in the given order (`p_small`: P is the smaller), SRS of
    m from P and m' from P'. By docs/foundations.md#fact-4 the common records may be taken
    identical, and which of the two is P is the orientation the lemma leaves free."""
    small, big = Population.of({A: n_}), Population.of({A: n_, X: 1})
    p_pop, q_pop = (small, big) if p_small else (big, small)
    return Instance(
        {"m": m_, "m_prime": mp, "P_size": p_pop.size, "P_prime_size": q_pop.size},
        PopulationPair(p_pop, q_pop, Relation.ADD_REMOVE), SRSWOR(m_), base, eps,
        design_prime=SRSWOR(mp), label={"orientation": ORIENT_SMALL if p_small else ORIENT_BIG},
    )


def lemb1_instances(base: Relation, both_orientations: bool = True) -> Iterator[Instance]:
    """Every m ≤ |P|, m' ≤ |P'| (m = 0 and m = |P| included), |P_small| ∈ {1, 2, 3, 5}.
    `both_orientations=False` is the narrowing issue 14 removed (kept as a mutant)."""
    for n_ in (1, 2, 3, 5):
        for p_small in (True, False) if both_orientations else (True,):
            p_size, q_size = (n_, n_ + 1) if p_small else (n_ + 1, n_)
            for m_ in range(p_size + 1):
                for mp in range(q_size + 1):
                    for eps in LEMB1_EPS_GRID:
                        yield lemb1_instance(n_, p_small, m_, mp, base, eps)


def check_lemb1(budget: Budget, base: Relation, claim: str,
                eps_expr: sympy.Expr = LEMB1_EPS, both_orientations: bool = True,
                concrete: bool = False) -> ClaimResult:
    """The LP over every ε-DP base mechanism (of the `base` relation) on every instance;
    `concrete` adds the independent route of issue 14 (a named mechanism, no LP)."""
    instances = lemb1_instances(base, both_orientations)
    acc = check_ratio_upper(claim, exp_of(eps_expr), instances, budget)
    same = [i for i in acc.results if i.params["m"] == i.params["m_prime"]]
    diff = [i for i in acc.results if i.params["m"] != i.params["m_prime"]]
    model = "replacement" if base is Relation.REPLACE else "deletion"
    s1 = _statement(f"m = m' (M ε-DP in the {model} model)", same)
    s2 = _statement(f"m ≠ m' (M ε-DP in the {model} model)", diff)
    extra = [_lemb1_concrete(eps_expr)] if concrete else []
    return _result(claim, [s1, s2, *extra], acc)


def _lemb1_concrete(eps_expr: sympy.Expr) -> Statement:
    """Independent route (no LP), issue 14: P = {a, x}, P' = {a}, m = m' = 1 and
    M(S) = #x(S) − #a(S) + two-sided geometric noise, which is ε-deletion-DP (every weight
    has |w| ≤ 1). Its exact likelihood ratio at every output y ≥ 1 is (1 + t²)/2."""
    mech = GeometricCount((("x", 1), ("a", -1)))
    results = []
    for t in (Fraction(2), Fraction(5), Fraction(11, 10)):
        inst = lemb1_instance(1, False, 1, 1, Relation.ADD_REMOVE, EpsSpec.of_t(t))
        law_p, law_q = inst.laws()
        u = inst.pair.universe
        assert mech.is_eps_dp(Relation.ADD_REMOVE, u)
        best = mech.max_ratio(law_p, law_q, u, t)
        assert best.ratio is not None and best.ratio == (1 + t * t) / 2
        bound = inst.eps.evaluate(exp_of(eps_expr), inst.params)
        verdict = (Verdict.REFUTED if best.ratio > bound.hi
                   else Verdict.HOLDS if best.ratio <= bound.lo else Verdict.INCONCLUSIVE)
        results.append(InstanceResult(
            inst.report(), verdict, f"e^ε' ≤ {bound}",
            f"#x − #a + geometric noise: exact ratio {fmt(best.ratio)} = (1 + t²)/2 at output "
            f"{best.point}",
        ))
    return _statement(
        "independent check: P = {a, x}, P' = {a}, m = m' = 1, M = #x − #a + geometric noise "
        "(ε-deletion-DP)", results)


# ---------------------------------------------------------------- §4.1


def check_sec41(budget: Budget, loss: Callable[[int], Fraction] = Fraction) -> ClaimResult:
    """f(P) = m, f(P') = m + Δ deterministic; M^count = |S| + Lap(1/ε): loss exactly Δ·ε.
    `loss(Δ)` is the printed loss in units of ε (Δ as printed)."""
    results = []
    mech = LaplaceCount(None)
    for delta_ in (1, 2, 3, 5):
        for m_ in (0, 1, 4):
            for t in (Fraction(2), Fraction(11, 10), Fraction(3)):
                if budget.spent():
                    break
                n_ = m_ + delta_ + 2
                pair = add_pair(n_)
                design = LinearSizeRule(m_, delta_, "x")
                u = pair.universe
                lp_, lq = design.sample_law(pair.p, u), design.sample_law(pair.q, u)
                sizes = ({sum(c) for c in lp_.support()}, {sum(c) for c in lq.support()})
                assert sizes == ({m_}, {m_ + delta_})
                fwd = mech.max_ratio(lp_, lq, u, t).ratio
                bwd = mech.max_ratio(lq, lp_, u, t).ratio
                ratio = max(fwd, bwd)  # type: ignore[type-var]
                claimed = EpsSpec.of_t(t).evaluate(sympy.exp(sympy.Rational(loss(delta_)) * EPS))
                ok = claimed.lo <= ratio <= claimed.hi
                results.append(InstanceResult(
                    {"m": m_, "Delta": delta_, "t": str(t), "|P|": n_},
                    Verdict.HOLDS if ok else Verdict.REFUTED,
                    f"e^loss = {claimed}", f"exact sup density ratio {fmt(ratio)}",
                ))
    s = _statement("with M^count the privacy loss between P and P' is Δ·ε", results)
    return ClaimResult("bun/sec4.1", s.verdict, (s,))


# ---------------------------------------------------------------- §4.3 deterministic rounding


def check_sec43_det(
    budget: Budget, sizes_claimed: tuple[int, int] = (1, 2), no_amp_power: int = 1,
    rules: tuple[Rounding, ...] = (Rounding.HALF_UP, Rounding.HALF_EVEN),
) -> ClaimResult:
    """Printed: round(r|P|) gives 1 and 2 cases; ε' ≥ ε (`no_amp_power` = 1: ratio ≥ t¹)."""
    r_ = Fraction(1, 10)
    st = []
    sizes = []
    for rule in rules:
        a = round_allocation(r_ * 14, rule).support()
        b = round_allocation(r_ * 15, rule).support()
        ok = a == (sizes_claimed[0],) and b == (sizes_claimed[1],)
        sizes.append(InstanceResult(
            {"rounding": rule.value}, Verdict.HOLDS if ok else Verdict.REFUTED,
            "sizes 1 and 2", f"sizes {a} and {b}",
        ))
    st.append(_statement(
        "|P| = 14, |P'| = 15, r = 1/10: deterministic rounding samples 1 and 2 cases", sizes
    ))
    # No amplification: symbolic in t, the noisy sample size alone has ratio exactly e^ε at y=2.
    pair = PopulationPair(Population.of({A: 14}), Population.of({A: 14, X: 1}),
                          Relation.ADD_REMOVE)
    proofs = []
    for rule in rules:
        design = ProportionalWOR(r_, rule)
        u = pair.universe
        lp_, lq = design.sample_law(pair.p, u), design.sample_law(pair.q, u)
        ratio = sympy.simplify(LaplaceCount(None).point_ratio(lq, lp_, u, T, 2))
        # ε' ≥ k·ε for all ε > 0 ⟺ ratio ≥ t^k for all t > 1; the ratio is a rational
        # function of t, so decide the sign of ratio − t^k on t > 1 exactly
        ok = _nonneg_for_t_above_one(ratio - T**no_amp_power)
        wc = worst_case_ratio(lp_, lq, MechanismClass.pure(Relation.ADD_REMOVE, 2))
        proofs.append(InstanceResult(
            {"rounding": rule.value}, Verdict.PROVED if ok else Verdict.REFUTED,
            "ε' ≥ ε (no amplification)",
            f"M^count density ratio at y = 2 is {ratio} (symbolic, all ε > 0); "
            f"exact worst case at t = 2: {fmt(wc.worst.lower)}",
        ))
    verdict = Verdict.PROVED if all(p.verdict is Verdict.PROVED for p in proofs) else Verdict.REFUTED
    st.append(Statement(
        "such a deterministic allocation cannot amplify privacy (ε' ≥ ε for every ε > 0)",
        verdict, tuple(proofs), note="ratio e^ε shown symbolically in t = e^ε",
    ))
    return ClaimResult("bun/sec4.3:det-rounding", combine(st), tuple(st))


def _nonneg_for_t_above_one(expr: sympy.Expr) -> bool:
    """Exact: the rational function `expr` of t is ≥ 0 for every t > 1 (sympy's exact
    univariate inequality solver, no floats)."""
    expr = sympy.cancel(sympy.together(expr))
    if expr == 0:
        return True
    t_real = sympy.Symbol("t_real", real=True)
    sol = sympy.solve_univariate_inequality(
        expr.subs(T, t_real) >= 0, t_real, relational=False
    )
    return bool(sympy.Interval.open(1, sympy.oo).is_subset(sol))


# ---------------------------------------------------------------- Theorem 4.3 and 7.2

THM43_EPS = sympy.log(1 + 2 * r * (sympy.exp(2 * EPS) - 1)) + sympy.log(1 + r * (sympy.exp(2 * EPS) - 1))
RATES = (Fraction(1, 10), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3),
         Fraction(9, 10))


def thm43_instances(min_size: bool = True) -> Iterator[Instance]:
    for r_ in RATES:
        start = ceil(1 / r_) if min_size else 1
        stop = ceil(1 / r_) if not min_size else None
        sizes = range(start, start + 5) if stop is None else range(1, stop)
        extra = (20, 41) if stop is None else ()
        for n_ in list(sizes) + list(extra):
            for eps in EPS_GRID:
                yield Instance(
                    {"r": r_}, add_pair(n_), ProportionalWOR(r_, Rounding.RANDOMISED),
                    Relation.ADD_REMOVE, eps, label={"r|P|": r_ * n_},
                )


ROUNDING_TEXT = (
    "randomised rounding, ε-deletion-DP M, |P|, |P'| ≥ 1/r: "
    "ε' = log(1 + 2r(e^{2ε} − 1)) + log(1 + r(e^{2ε} − 1))"
)
STRATIFIED_TEXT = (
    "proportional allocation with randomised rounding, stratified deletion neighbours, "
    "r|S_j|, r|S'_j| ≥ 1: ε' ≤ log(1 + 2r(e^{2ε} − 1)) + log(1 + r(e^{2ε} − 1))"
)


def _check_upper(
    budget: Budget, eps_expr: sympy.Expr, claim: str, instances: Iterator[Instance], text: str
) -> ClaimResult:
    acc = check_ratio_upper(claim, exp_of(eps_expr), instances, budget)
    return _result(claim, [_statement(text, acc.results)], acc)


def check_thm43(budget: Budget, eps_expr: sympy.Expr = THM43_EPS, claim: str = "bun/thm4.3",
                min_size: bool = True) -> ClaimResult:
    return _check_upper(budget, eps_expr, claim, thm43_instances(min_size), ROUNDING_TEXT)


THM43_APPROX = 6 * r * EPS


def check_thm43_approx(budget: Budget, eps_expr: sympy.Expr = THM43_EPS,
                       claim: str = "bun/thm4.3:approx",
                       approx: sympy.Expr = THM43_APPROX) -> ClaimResult:
    from verifydp.claims.series import first_order_coefficient

    c0, c1 = first_order_coefficient(eps_expr)
    a0, a1 = first_order_coefficient(approx)
    ok = sympy.simplify(c0 - a0) == 0 and sympy.simplify(c1 - a1) == 0
    s = Statement(
        "ε' ≈ 6rε", Verdict.PROVED if ok else Verdict.REFUTED,
        note=f"sympy series: ε' = {sympy.simplify(c1)}·ε + O(ε²)",
    )
    return ClaimResult(claim, s.verdict, (s,))


def stratified_instances(min_size: bool = True) -> Iterator[Instance]:
    for r_ in (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(2, 3)):
        base = ceil(1 / r_)
        shapes = [(base, base), (base, base + 1), (base + 2, base), (base, base + 1, base + 2),
                  (20, 21)]
        if not min_size:
            shapes = [(max(base - 1, 1), base), (base, max(base - 1, 1))]
        for shape in shapes:
            for i in range(len(shape)):
                common = {RecordType("a", f"s{h}"): sz for h, sz in enumerate(shape)}
                extra = RecordType("x", f"s{i}")
                pair = PopulationPair(
                    Population.of(common), Population.of({**common, extra: 1}), Relation.ADD_REMOVE
                )
                for eps in (EpsSpec.of_t(2), EpsSpec.of_t(5), EpsSpec.of_eps(Fraction(1, 2))):
                    yield Instance(
                        {"r": r_}, pair, StratifiedProportional(r_, Rounding.RANDOMISED),
                        Relation.ADD_REMOVE, eps, label={"strata": shape, "differs in": f"s{i}"},
                    )


def check_thm72(budget: Budget, eps_expr: sympy.Expr = THM43_EPS, claim: str = "bun/thm7.2",
                min_size: bool = True) -> ClaimResult:
    return _check_upper(budget, eps_expr, claim, stratified_instances(min_size), STRATIFIED_TEXT)


def _claims() -> list[Claim]:
    return [
        Claim("bun/thm2.2", PAPER, "§2.3, Theorem 2.2",
              "SRS without replacement, m of n, replacement-DP M: ε' = log(1 + (m/n)(e^ε − 1)), δ' = (m/n)δ",
              r"\varepsilon'=\log(1+\frac{m}{n}(e^{\varepsilon}-1)),\ \delta'=\frac{m}{n}\delta",
              check_thm22),
        Claim("bun/thm3.1:upper", PAPER, "§3, Theorem 3.1 (upper bound)",
              "random sample size m ~ t, ε-deletion-DP M, M_C replacement-DP: ε' = log(1 + E_t̃[m]/n·(e^ε − 1))",
              r"\varepsilon'=\log\left(1+\frac{1}{n}\mathbb{E}_{m\sim\tilde t}[m](e^{\varepsilon}-1)\right)",
              check_thm31_upper),
        Claim("bun/thm3.1:upper:corrected", PAPER, "§3, Theorem 3.1 (upper bound), e^ε → e^{2ε}",
              "as thm3.1:upper with e^{2ε} (an ε-deletion-DP M is only 2ε-replacement-DP)",
              r"\varepsilon'=\log\left(1+\frac{1}{n}\mathbb{E}_{m\sim\tilde t}[m](e^{2\varepsilon}-1)\right)",
              lambda b: check_thm31_upper(b, True, "bun/thm3.1:upper:corrected")),
        Claim("bun/thm3.1:lower", PAPER, "§3, Theorem 3.1 (lower bound), App. B",
              "the printed construction attains ε' ≥ −log(1 − E_t̃[m]/n·(1 − e^{−ε}))",
              r"\varepsilon'\geq-\log\left(1-\frac{1}{n}\mathbb{E}_{m\sim\tilde t}[m](1-e^{-\varepsilon})\right)",
              check_thm31_lower),
        Claim("bun/thm3.1:approx", PAPER, "§3, after Theorem 3.1",
              "both bounds ≈ E_t̃[m]/n · ε for small ε",
              r"\varepsilon'\approx\frac{\mathbb{E}_{m\sim\tilde t}[m]}{n}\cdot\varepsilon",
              check_thm31_approx),
        Claim("bun/lemB.1", PAPER, "App. B, Lemma B.1",
              "fixed sizes m, m', deletion neighbours, M ε-DP in the replacement model: "
              "log(1 + m/(|P|+1)(e^{2ε} − 1)) + |m − m'|ε",
              r"\left(\log\left(1+\frac{m}{|P|+1}(e^{2\varepsilon}-1)\right)+|m-m'|\varepsilon\right)",
              lambda b: check_lemb1(b, Relation.REPLACE, "bun/lemB.1")),
        Claim("bun/lemB.1:deletion", PAPER,
              "App. B, Lemma B.1 as its proof uses it: M ε-deletion-DP, the printed bound",
              "Lemma B.1 with M ε-DP in the deletion model (as the proof's Lemma A.3 needs), "
              "the printed bound with |P|; P, P' deletion neighbours in either order",
              r"\left(\log\left(1+\frac{m}{|P|+1}(e^{2\varepsilon}-1)\right)+|m-m'|\varepsilon\right)",
              lambda b: check_lemb1(b, Relation.ADD_REMOVE, "bun/lemB.1:deletion",
                                    concrete=True)),
        Claim("bun/lemB.1:corrected", PAPER,
              "App. B, Lemma B.1 with M ε-deletion-DP and |P| → min(|P|, |P'|)",
              "Lemma B.1 with M ε-DP in the deletion model and the smaller dataset's size in "
              "the denominator: log(1 + m/(min(|P|, |P'|)+1)(e^{2ε} − 1)) + |m − m'|ε, "
              "P, P' deletion neighbours in either order",
              r"\left(\log\left(1+\frac{m}{\min(|P|,|P'|)+1}(e^{2\varepsilon}-1)\right)+|m-m'|\varepsilon\right)",
              lambda b: check_lemb1(b, Relation.ADD_REMOVE, "bun/lemB.1:corrected",
                                    LEMB1_CORRECTED_EPS, concrete=True)),
        Claim("bun/sec4.1", PAPER, "§4.1",
              "deterministic allocation with f(P') = f(P) + Δ: with M^count the loss is Δ·ε",
              r"\text{privacy loss} = \Delta\cdot\varepsilon", check_sec41),
        Claim("bun/sec4.3:det-rounding", PAPER, "§4.3",
              "deterministic rounding round(r|P|) cannot amplify (|P| = 14, 15; r = 1/10)",
              r"\tilde f_{\mathrm{det},r}(P)=\mathrm{round}(r|P|)", check_sec43_det),
        Claim("bun/thm4.3", PAPER, "§4.3, Theorem 4.3, App. C",
              "randomised rounding: ε' = log(1 + 2r(e^{2ε} − 1)) + log(1 + r(e^{2ε} − 1)), |P| ≥ 1/r, deletion DP",
              r"\varepsilon'=\log(1+2r(e^{2\varepsilon}-1))+\log(1+r(e^{2\varepsilon}-1))",
              check_thm43),
        Claim("bun/thm4.3:approx", PAPER, "§4.3, Theorem 4.3",
              "ε' ≈ 6rε", r"\approx 6r\varepsilon", check_thm43_approx),
        Claim("bun/thm7.2", PAPER, "§7.3, Theorem 7.2, App. E",
              "stratified proportional allocation with randomised rounding: same bound as thm4.3",
              r"\varepsilon'\leq\log(1+2r(e^{2\varepsilon}-1))+\log(1+r(e^{2\varepsilon}-1))",
              check_thm72),
    ]


CLAIMS = _claims()

