"""Claims of Hu, Drechsler, Kim — "Accuracy Gains from Privacy Amplification Through Sampling
for Differential Privacy" (paper key `hu`).

Every formula is the printed one (checkers take it as a parameter, printed by default, so the
tests can feed mutants).  The paper works in bounded DP: neighbouring populations differ by one
replacement, and so do the base mechanism's neighbours.  The pieces live in
verifydp/accuracy/; the SRSWOR worst case comes from the engine, through the same checkers as
bun/thm2.2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from itertools import combinations_with_replacement

import sympy

from verifydp.accuracy import amplification as amp
from verifydp.accuracy import cdfdp, gain, smooth, variance
from verifydp.claims.base import (
    Budget,
    Claim,
    ClaimResult,
    InstanceResult,
    Statement,
    Verdict,
    combine,
)
from verifydp.claims.base import statement as _statement
from verifydp.claims.bun.amplification import check_thm22, replace_pair
from verifydp.claims.bun.amplification import m as bun_m
from verifydp.claims.bun.amplification import n as bun_n
from verifydp.claims.checkers import Instance, UpperCheck, check_hockey_upper, check_ratio_upper
from verifydp.claims.printed import decimal, judge
from verifydp.claims.series import first_order_coefficient
from verifydp.designs import SRSWOR
from verifydp.epsilon import EpsSpec
from verifydp.exact.interval import Bracket, bracket
from verifydp.exact.tfunc import EPS, exp_of
from verifydp.population import Relation
from verifydp.worstcase import MechanismClass, worst_case_ratio

PAPER = "hu"
RATE = sympy.Symbol("r", positive=True)  # the sampling rate n/N, as in "≈ rε"
T_TARGET, D_TARGET = sympy.symbols("t_target delta_target", positive=True)


def _result(claim: str, statements: Sequence[Statement], acc: UpperCheck | None = None
            ) -> ClaimResult:
    return ClaimResult(claim, combine(statements), tuple(statements),
                       acc.witness if acc else None, 0.0, tuple(acc.lp_sizes) if acc else ())


# A rational point at which a failed identity is evaluated: only a certified non-zero value
# there refutes (sympy failing to simplify a true identity to 0 must not).
_PROBE = {"epsilon": Fraction(1, 2), "epsilon_n": Fraction(7, 5), "r": Fraction(1, 3),
          "rho": Fraction(1, 3), "R": Fraction(2), "N": Fraction(9), "Delta_N": Fraction(3, 2)}


def _identity(text: str, diff: sympy.Expr, note: str) -> Statement:
    """PROVED when sympy reduces `diff` to 0; REFUTED when its certified bracket at the
    probe point excludes 0; INCONCLUSIVE otherwise."""
    diff = sympy.simplify(diff)
    if diff == 0:
        return Statement(text, Verdict.PROVED, note=note)
    point = {sym: sympy.Rational(_PROBE[sym.name].numerator, _PROBE[sym.name].denominator)
             for sym in diff.free_symbols if sym.name in _PROBE}
    try:
        b = bracket(diff.xreplace(point))
    except ValueError:
        return Statement(text, Verdict.INCONCLUSIVE, note=f"{note}; difference {diff}")
    where = ", ".join(f"{k} = {v}" for k, v in sorted(point.items(), key=str))
    if b.lo > 0 or b.hi < 0:
        return Statement(text, Verdict.REFUTED,
                         note=f"{note}; printed − exact ∈ {b} ≠ 0 at {where}")
    return Statement(text, Verdict.INCONCLUSIVE, note=f"{note}; difference {diff}")


def _is_zero(expr: sympy.Expr) -> bool:
    return sympy.simplify(expr) == 0


# ================================================================ hu/amplification

INVERSE_GRID = tuple((N, n) for N in (2, 3, 4, 7, 20) for n in sorted({1, N // 2, N - 1}))
T_GRID = (Fraction(2), Fraction(11, 10), Fraction(5))
DELTA_TARGET = Fraction(1, 100)


def _base_t(inverse_eps: sympy.Expr, t: Fraction, N: int, n: int) -> Bracket:
    """e^{ε_n} from the printed inverse formula at target e^ε = t (exact when rational)."""
    eps = sympy.log(sympy.Rational(t.numerator, t.denominator))
    return bracket(exp_of(amp.at(inverse_eps, eps, n, N)))


def _inverse_instances(inverse_eps: sympy.Expr, inverse_delta: sympy.Expr, delta: Fraction
                       ) -> Iterator[Instance]:
    """Base mechanisms on the sample: ε_n-DP (δ_n-DP) from the printed inverse formulas."""
    for N, n in INVERSE_GRID:
        for t in T_GRID:
            tn = _base_t(inverse_eps, t, N, n)
            dn = bracket(amp.at(inverse_delta, EPS, n, N, delta))
            if not (tn.is_point and dn.is_point) or dn.lo > 1:
                continue  # not an exact rational base class: skipped (reported by count)
            yield Instance({"N": N, "n": n, "t_target": t, "delta_target": delta},
                           replace_pair(N), SRSWOR(n), Relation.REPLACE, EpsSpec.of_t(tn.lo),
                           dn.lo)


def _tightness(inverse_eps: sympy.Expr, budget: Budget) -> Statement:
    """sup over all ε_n-DP base mechanisms of the SRSWOR ratio equals e^ε exactly."""
    res = []
    for N, n, t in ((N, n, t) for N, n in INVERSE_GRID for t in T_GRID):
        if budget.spent() or (budget.fail_fast and res and res[-1].verdict is Verdict.REFUTED):
            break
        tn = _base_t(inverse_eps, t, N, n)
        pair = replace_pair(N)
        laws = [SRSWOR(n).sample_law(pop, pair.universe) for pop in (pair.p, pair.q)]
        wc = worst_case_ratio(laws[0], laws[1],
                              MechanismClass(Relation.REPLACE, max(tn.lo, 1), tn.hi))
        lo, hi = wc.worst.lower, wc.upper
        if lo is not None and hi is not None and lo >= t >= hi:
            v, why = Verdict.HOLDS, "attained exactly"
        elif hi is not None and hi < t:
            v, why = Verdict.REFUTED, "slack: a larger ε_n would still give ε"
        elif lo is None or lo > t:
            v, why = Verdict.REFUTED, "exceeds the target"
        else:
            v, why = Verdict.INCONCLUSIVE, "certified brackets overlap"
        res.append(InstanceResult({"N": N, "n": n, "t_target": str(t)}, v,
                                  f"sup ratio = e^ε = {t}", f"sup ratio ∈ [{lo}, {hi}]", why))
    return _statement("the printed ε_n is exactly Theorem 1 inverted: with an ε_n-DP base "
                      "mechanism the SRSWOR worst case over all of them is e^ε, no less", res)


def forward_statements(budget: Budget, forward_eps: sympy.Expr = amp.FORWARD_EPS,
                       forward_delta: sympy.Expr = amp.FORWARD_DELTA) -> ClaimResult:
    """Theorem 1 through bun/thm2.2's checker (same design, relation and instances)."""
    to_bun = {amp.n_s: bun_m, amp.N_s: bun_n, amp.delta_s: sympy.Symbol("delta")}
    fwd = check_thm22(budget, forward_eps.xreplace(to_bun), forward_delta.xreplace(to_bun),
                      claim="hu/amplification")
    st = [Statement("Theorem 1 " + s.text.replace("m/n", "n/N"), s.verdict, s.instances, s.note)
          for s in fwd.statements]
    return ClaimResult(fwd.claim, fwd.verdict, tuple(st), fwd.witness, 0.0, fwd.lp_sizes)


def inverse_statements(budget: Budget, inverse_eps: sympy.Expr = amp.INVERSE_EPS,
                       inverse_delta: sympy.Expr = amp.INVERSE_DELTA) -> ClaimResult:
    """The §3 inverse against the engine's exact SRSWOR worst case: sufficiency (pure and
    approximate) and exactness."""
    acc = check_ratio_upper("hu/amplification", T_TARGET,
                            _inverse_instances(inverse_eps, inverse_delta, Fraction(0)), budget)
    st = [_statement(
        "§3 inverse, pure ε: an ε_n = log(1 + (N/n)(e^ε − 1))-DP base mechanism on the SRSWOR "
        "sample gives ε", acc.results)]
    k = len(acc.results)
    check_hockey_upper("hu/amplification", T_TARGET, D_TARGET,
                       _inverse_instances(inverse_eps, inverse_delta, DELTA_TARGET), budget, acc)
    st.append(_statement(
        f"§3 inverse, (ε, δ): base (ε_n, δ_n = (N/n)δ) gives δ at e^ε (δ = {DELTA_TARGET})",
        acc.results[k:]))
    st.append(_tightness(inverse_eps, budget))
    return _result("hu/amplification", st, acc)


def check_amplification(budget: Budget) -> ClaimResult:
    fwd, inv = forward_statements(budget), inverse_statements(budget)
    st = fwd.statements + inv.statements
    return ClaimResult("hu/amplification", combine(st), st, fwd.witness or inv.witness, 0.0,
                       fwd.lp_sizes + inv.lp_sizes)


# ================================================================ hu/approx

APPROX_FORWARD = RATE * EPS  # "the actual privacy guarantee is approximately rε"
APPROX_INVERSE = EPS / RATE  # §4.2: log(1 + (N/n)(e^ε − 1)) ≈ (N/n)ε


def check_approx(budget: Budget, forward: sympy.Expr = APPROX_FORWARD,
                 inverse: sympy.Expr = APPROX_INVERSE) -> ClaimResult:
    """First-order series at ε = 0 (r fixed): the printed approximation must match the exact
    amplified parameter's value and ε-coefficient."""
    del budget
    st = []
    for text, exact, approx in (
        ("Theorem 1: log(1 + r(e^ε − 1)) ≈ rε", sympy.log(1 + RATE * (sympy.exp(EPS) - 1)),
         forward),
        ("§4.2: ε_n = log(1 + (N/n)(e^ε − 1)) ≈ (N/n)ε (as (N/n)ε → 0)",
         sympy.log(1 + (sympy.exp(EPS) - 1) / RATE), inverse),
    ):
        c0, c1 = first_order_coefficient(exact)
        a0, a1 = first_order_coefficient(approx)
        st.append(_identity(text, (a0 - c0) ** 2 + (a1 - c1) ** 2,
                            f"sympy series: exact = {c0} + ({c1})·ε + O(ε²); "
                            f"printed = {a0} + ({a1})·ε"))
    return _result("hu/approx", st)


# ================================================================ hu/def2, hu/def3

DEF_GRID = ((3, 4), (4, 4))  # (|Ω|, weight denominator): every pair of such distributions


def check_definition(budget: Budget, claim: str, deltas: Sequence[Fraction],
                     definition: Callable[..., bool] = cdfdp.is_cdf_dp) -> ClaimResult:
    """Definition 2/3 (CDF events only) against standard DP (all events), exhaustively on
    small discrete mechanisms, exact Fractions, t = e^ε ∈ {2, 3/2}."""
    implied, converse = [], []
    for size, denom in DEF_GRID:
        for t in (Fraction(2), Fraction(3, 2)):
            for delta in deltas:
                if budget.spent():
                    break
                cmp = cdfdp.compare(size, denom, t, delta, definition)
                params = {"|Omega|": size, "weights": f"1/{denom}", "t": str(t),
                          "delta": str(delta), "pairs": cmp.pairs}
                if cmp.dp_not_cdf:
                    p, q = cdfdp.smallest(cmp.dp_not_cdf)
                    implied.append(InstanceResult(params, Verdict.REFUTED, "no DP pair fails",
                                                  f"DP but not the definition: p={p}, q={q}"))
                else:
                    implied.append(InstanceResult(params, Verdict.HOLDS, "no DP pair fails",
                                                  "none"))
                if cmp.cdf_not_dp:
                    p, q = cdfdp.smallest(cmp.cdf_not_dp)
                    gap = max(cdfdp.hockey(p, q, t), cdfdp.hockey(q, p, t))
                    converse.append(InstanceResult(
                        params, Verdict.REFUTED, "equivalent to standard DP",
                        f"{len(cmp.cdf_not_dp)} pairs satisfy the definition but not DP; e.g. "
                        f"Y={{0}}, Y'={{1}} (N = 1, g = identity), 𝒜(0) = {_law(p)}, "
                        f"𝒜(1) = {_law(q)}: every CDF inequality holds, but the event sup is "
                        f"{gap} > δ = {delta}"))
                else:
                    converse.append(InstanceResult(params, Verdict.HOLDS,
                                                   "equivalent to standard DP", "no pair differs"))
    name = "Definition 2" if claim == "hu/def2" else "Definition 3"
    st = [
        _statement(f"standard DP ⇒ {name} (CDF events are events)", implied),
        _statement(f"{name} 'rephrases' standard DP: the two are equivalent", converse),
    ]
    return _result(claim, st)


def _law(d: Sequence[Fraction]) -> str:
    return "{" + ", ".join(f"{i}: {w}" for i, w in enumerate(d) if w) + "}"


# ================================================================ hu/sec4.1

# ε < ε_n (amplification) and sensitivities; ε, ε_n are free rationals: the condition is an
# identity in them, and rational points make every comparison exact.
SEC41_POINTS = tuple((Fraction(e), Fraction(en), Fraction(d))
                     for e, en in ((Fraction(1, 10), Fraction(1, 2)), (1, 2), (3, 5),
                                   (Fraction(1, 2), Fraction(7, 2)))
                     for d in (Fraction(1, 3), 1))


def _sec41_gain_iff(q: sympy.Expr) -> Statement:
    """With Δ_n = Δ_N: V_n ≤ V_N ⇔ Var ≤ q·V_N."""
    true_q = 1 - gain.v_sample(0, gain.DN_s, gain.EN_s) / gain.v_population(gain.DN_s, EPS)
    if _is_zero(true_q - q):
        return Statement("Δ_n = Δ_N: gains (V_n ≤ V_N) ⇔ Var(g(𝒮)) ≤ q V_N, q = 1 − ε²/ε_n²",
                         Verdict.PROVED, note="sympy: 1 − Var(η_n)/V_N − q ≡ 0")
    res = []
    for e, en, d in SEC41_POINTS:
        subs = {EPS: e, gain.EN_s: en, gain.DN_s: d}
        vn_pop = gain.v_population(sympy.Rational(d), sympy.Rational(e))
        qv, tq = sympy.Rational(q.subs(subs)), sympy.Rational(true_q.subs(subs))
        var = (qv + tq) / 2 * vn_pop  # between the printed and the true threshold
        gains = gain.v_sample(var, sympy.Rational(d), sympy.Rational(en)) <= vn_pop
        claimed = var <= qv * vn_pop
        v = Verdict.HOLDS if gains == claimed else Verdict.REFUTED
        res.append(InstanceResult({"eps": str(e), "eps_n": str(en), "Delta": str(d),
                                   "Var": str(var)}, v, f"gain ⇔ Var ≤ {qv}·V_N",
                                  f"gain: {gains}"))
    return _statement("Δ_n = Δ_N: gains ⇔ Var(g(𝒮)) ≤ q V_N", res)


def _sec41_no_gain(bound: sympy.Expr) -> Statement:
    """No gains whenever Var ≥ bound (any Δ_n ≥ Δ_N); sharp at Δ_n = Δ_N."""
    text = "no gains whenever Var(g(𝒮)) ≥ 2(Δ_N^G)²(1/ε² − 1/ε_n²) (Δ_n ≥ Δ_N; sharp)"
    at_bound = gain.v_sample(bound, gain.DN_s, gain.EN_s) - gain.v_population(gain.DN_s, EPS)
    if _is_zero(at_bound):
        return Statement(text, Verdict.PROVED, note=(
            "sympy: V_n − V_N ≡ 0 at Var = bound, Δ_n = Δ_N; V_n increases in Var and Δ_n, "
            "so V_n ≥ V_N above the bound, and V_n < V_N below it when Δ_n = Δ_N"))
    res = []
    for e, en, d in SEC41_POINTS:
        subs = {EPS: e, gain.EN_s: en, gain.DN_s: d}
        b = sympy.Rational(bound.subs(subs))
        diff = sympy.Rational(at_bound.subs(subs))  # V_n − V_N at Var = printed bound
        # diff < 0: a gain at Var = bound (claim false); diff > 0: V_n > V_N already below
        # the printed bound, so the printed threshold is not the sharp one the text derives.
        v = Verdict.HOLDS if diff == 0 else Verdict.REFUTED
        res.append(InstanceResult({"eps": str(e), "eps_n": str(en), "Delta": str(d)}, v,
                                  f"V_n = V_N at Var = {b}", f"V_n − V_N = {diff}"))
    return _statement(text, res)


def _sec41_small_eps(q_small: sympy.Expr) -> Statement:
    q = gain.q_of_rate(EPS, gain.RATE_s)
    lim = sympy.limit(q, EPS, 0, "+")
    return _identity("q → 1 − (n/N)² as ε → 0 (Fig. 4: 'no longer depends on ε')",
                     q_small - lim, f"sympy limit: {sympy.simplify(lim)}")


def check_sec41(budget: Budget, q: sympy.Expr = gain.Q_PRINTED,
                no_gain: sympy.Expr = gain.NO_GAIN_PRINTED,
                q_small: sympy.Expr = gain.Q_SMALL_EPS_PRINTED) -> ClaimResult:
    del budget
    st = [_sec41_gain_iff(q), _sec41_no_gain(no_gain), _sec41_small_eps(q_small)]
    return _result("hu/sec4.1", st)


# ================================================================ hu/mean

MEAN_POPULATIONS = ((0, 1, 1, 3), (0, 2, 5, 5, 7), (1, 1, 2, 3, 5, 8))
MEAN_SENS_GRID = ((2, 3), (3, 3), (4, 2))  # (N, top of the integer range [0, R])


def _mean_eq6(v_N: sympy.Expr) -> Statement:
    ref = variance.laplace_variance(variance.R_s / (variance.N_s * EPS))
    return _identity("eq. (6): V_N = Var(Laplace(0, (R/N)/ε)) = 2(R/(εN))²", v_N - ref,
                     f"sympy ∫x²·Laplace density = {ref}")


def _mean_sensitivity() -> Statement:
    res = []
    for size, top in MEAN_SENS_GRID:
        gs = variance.mean_global_sensitivity(size, top)
        v = Verdict.HOLDS if gs == Fraction(top, size) else Verdict.REFUTED
        res.append(InstanceResult({"N": size, "R": top}, v, f"R/N = {Fraction(top, size)}",
                                  f"brute force {gs}"))
    return _statement("global sensitivity of the mean is R/N (bounded DP, values in [0, R])",
                      res)


def _mean_local() -> Statement:
    res = []
    for size, top in MEAN_SENS_GRID:
        bad = [ys for ys in combinations_with_replacement(range(top + 1), size)
               if variance.mean_local_sensitivity(ys, top)
               != variance.mean_local_sensitivity_printed(ys, top)]
        res.append(InstanceResult({"N": size, "R": top},
                                  Verdict.REFUTED if bad else Verdict.HOLDS,
                                  "R(Y_N)/N", f"mismatches: {bad[:3]}" if bad else "all equal"))
    return _statement("§2.2: local sensitivity of the mean is R(Y_N)/N, "
                      "R(Y_N) = max(max 𝒴 − min Y_N, max Y_N − min 𝒴)", res)


def _mean_eq7(v_n: sympy.Expr) -> Statement:
    """Exact enumeration of every SRSWOR sample + the Laplace variance by integration."""
    res = []
    for pop in MEAN_POPULATIONS:
        ys = [Fraction(y) for y in pop]
        big_n, top = len(ys), max(pop)
        for n in range(1, big_n):
            ref = (sympy.Rational(variance.srswor_mean_variance(ys, n))
                   + variance.laplace_variance(top / (n * variance.EPSN_s)))
            s2 = variance.population_variance(ys)
            printed = v_n.subs({variance.n_s: n, variance.N_s: big_n, variance.R_s: top,
                                variance.S2_s: sympy.Rational(s2.numerator, s2.denominator)})
            diff = sympy.simplify(printed - ref)
            v = Verdict.HOLDS if diff == 0 else Verdict.REFUTED
            res.append(InstanceResult({"Y_N": str(pop), "n": n, "R": top}, v, str(printed),
                                      f"exact {ref}", "" if diff == 0 else f"differs by {diff}"))
    return _statement("eq. (7): V_n = (1 − n/N)S_N²/n + 2(R/(ε_n n))², exact over all samples",
                      res)


def _mean_eq8(ratio: sympy.Expr) -> Statement:
    rho, eps = variance.RATE_s, EPS
    en = amp.eps_n(eps, rho)
    n, big_n = rho * variance.N_s, variance.N_s
    ref = (variance.laplace_variance(variance.R_s / (big_n * eps))
           / variance.laplace_variance(variance.R_s / (n * en)))
    return _identity("eq. (8): r(ε, n/N) = V_N/Var(η_n) = ((n/N)log(1 + (N/n)(e^ε − 1))/ε)²",
                     ratio - ref, "sympy: printed − V_N/Var(η_n)")


def _mean_limit(ratio: sympy.Expr) -> Statement:
    lim = sympy.limit(ratio, EPS, 0, "+")
    return _identity("r(ε, n/N) → 1 as (N/n)ε → 0", lim - 1, f"sympy limit: {lim}")


def ratio_below_one_proof() -> tuple[bool, str]:
    """r(ε, ρ) < 1 for every ε > 0 and 0 < ρ < 1.  With c = e^ε − 1, r = (g(ρ)/g(1))² for
    g(s) = s·log(1 + c/s); g'(s) = h(c/s), h(u) = log(1 + u) − u/(1 + u), h(0) = 0 and
    h'(u) = u/(1 + u)² > 0, so g is strictly increasing and g(ρ) < g(1) = ε."""
    s, c, u = sympy.symbols("s c u", positive=True)
    g = s * sympy.log(1 + c / s)
    h = sympy.log(1 + u) - u / (1 + u)
    steps = (
        _is_zero(sympy.diff(g, s) - h.subs(u, c / s)),
        h.subs(u, 0) == 0,
        _is_zero(sympy.diff(h, u) - u / (1 + u) ** 2),
        _is_zero(g.subs(s, 1).subs(c, sympy.exp(EPS) - 1) - EPS),
        _is_zero((g.subs(c, sympy.exp(EPS) - 1).subs(s, variance.RATE_s) / EPS) ** 2
                 - variance.R_RATIO_PRINTED),
    )
    return all(steps), ("g(s) = s·log(1 + (e^ε − 1)/s): g' = h((e^ε − 1)/s) with h(0) = 0, "
                        "h' = u/(1 + u)² > 0, g(1) = ε; r = (g(n/N)/g(1))² < 1 (sympy-checked)")


def _fig5_point() -> tuple[Bracket, Bracket]:
    """r at the printed point of Fig. 5: n/N = 10⁻⁴, ε_n = 1.66·10⁻⁶ (ε from Theorem 1)."""
    rho, en = sympy.Rational(1, 10**4), sympy.Rational(166, 10**8)
    eps = sympy.log(1 + rho * (sympy.exp(en) - 1))
    return bracket((rho * en / eps) ** 2, prec_bits=256), bracket(eps, prec_bits=256)


def _mean_fig5() -> Statement:
    ok, how = ratio_below_one_proof()
    r_pt, _ = _fig5_point()
    if not ok or not r_pt.hi < 1:
        return Statement("Fig. 5", Verdict.INCONCLUSIVE, note="proof steps failed")
    return Statement(
        "Fig. 5 / §4.2: for each sampling rate some ε gives r(ε, n/N) = 1, and r > 1 "
        "(Var(η_n) < V_N) is achieved for ε below that curve",
        Verdict.REFUTED,
        note=(f"no such ε exists: r(ε, n/N) < 1 for all ε > 0 and n/N < 1 — {how}. At the "
              f"printed point n/N = 10⁻⁴, ε_n = 1.66·10⁻⁶: r ∈ {r_pt} < 1 (1 − r ≈ ε(N/n − 1) ≈ "
              "1.7·10⁻⁶, the order of float64 rounding of e^ε − 1 at ε ≈ 10⁻¹⁰: the depicted "
              "curve is presumably a rounding artefact; bench/hu.py shows float64 r crossing 1 "
              "there). The conclusion drawn (no gains for the mean) is right, and stronger"))


def _mean_no_gain() -> Statement:
    ok, _ = ratio_below_one_proof()
    return Statement(
        "Table 1 / §4.2: Laplace mean with Δ^G = R/n — no accuracy gains for any ε, n < N",
        Verdict.PROVED if ok else Verdict.INCONCLUSIVE,
        note="V_n ≥ Var(η_n) = V_N/r(ε, n/N) > V_N since r < 1 (proof above)")


def check_mean(budget: Budget, v_N: sympy.Expr = variance.V_N_PRINTED,
               v_n: sympy.Expr = variance.V_n_PRINTED,
               ratio: sympy.Expr = variance.R_RATIO_PRINTED) -> ClaimResult:
    del budget
    st = [_mean_eq6(v_N), _mean_sensitivity(), _mean_local(), _mean_eq7(v_n),
          _mean_eq8(ratio), _mean_limit(ratio), _mean_fig5(), _mean_no_gain()]
    return _result("hu/mean", st)


# ================================================================ hu/median

MEDIAN_GRID = ((3, 4), (5, 3), (3, 6))  # (N, Λ): every dataset of N values in {0..Λ}
SIMULATION_NOTE = (
    "simulation output: the Beta(2,10) and Lognormal(5, 0.5) populations have no seed, and the "
    "mixture's set.seed(123) drives R's RNG, which this package does not replay; "
    "bench/hu.py reproduces the designs at reduced size")


def _median_profile(profile: Callable[..., tuple[int, ...]], boundary: smooth.Boundary
                    ) -> Statement:
    res = []
    for size, top in MEDIAN_GRID:
        bad = []
        datasets = smooth.datasets(size, top)
        for ys in datasets:
            ref = smooth.oracle_profile(ys, top)
            got = profile(ys, top, boundary)
            if tuple(Fraction(a) for a in got) != ref:
                bad.append((ys, got, ref))
        res.append(InstanceResult(
            {"N": size, "Lambda": top, "datasets": len(datasets)},
            Verdict.REFUTED if bad else Verdict.HOLDS,
            "A_k = max_t (y_{m+t} − y_{m+t−k−1}), k = 0..N",
            "equals max LS within k replacements on every dataset" if not bad else
            f"{len(bad)} datasets differ, e.g. Y = {bad[0][0]}: formula {bad[0][1]}, "
            f"brute force {tuple(str(x) for x in bad[0][2])}"))
    literal = smooth.printed_profile((0, 0, 0), 1, smooth.Boundary.IN_RANGE)
    return _statement(
        f"eq. (4) is the smooth sensitivity (Nissim et al.): {boundary.value}", res,
        note=("the paper leaves y_i for i ∉ 1..N unstated; read with in-range terms only, "
              f"eq. (4) gives A = {literal} for Y = (0, 0, 0) in [0, 1] although one "
              "replacement reaches local sensitivity 1: that reading is not an upper bound"))


def _median_smooth(profile: Callable[..., tuple[int, ...]], boundary: smooth.Boundary
                   ) -> Statement:
    """Nissim et al.'s conditions, exactly on the integer profiles: A_0 = LS (upper bound)
    and A_k(Y) ≤ A_{k+1}(Y') for neighbours, hence Δ^S(Y) ≤ e^β Δ^S(Y') for every β."""
    res = []
    for size, top in MEDIAN_GRID:
        data = smooth.datasets(size, top)
        prof = {ys: profile(ys, top, boundary) for ys in data}
        bad = [ys for ys in data if prof[ys][0] < smooth.local_sensitivity(ys, top)]
        bad += [(x, y) for x in data for y in data if smooth.distance(x, y) == 1
                and any(prof[x][k] > prof[y][k + 1] for k in range(size))]
        res.append(InstanceResult({"N": size, "Lambda": top},
                                  Verdict.REFUTED if bad else Verdict.HOLDS,
                                  "A_0 ≥ LS; A_k(Y) ≤ A_{k+1}(Y') for neighbours",
                                  f"fails at {bad[0]}" if bad else "on every dataset/pair"))
    return _statement("eq. (4) is a β-smooth upper bound on the local sensitivity", res)


def _median_local() -> Statement:
    res = []
    for size, top in MEDIAN_GRID:
        bad = [ys for ys in smooth.datasets(size, top)
               if smooth.local_sensitivity(ys, top) != smooth.printed_local_sensitivity(ys)]
        res.append(InstanceResult({"N": size, "Lambda": top},
                                  Verdict.REFUTED if bad else Verdict.HOLDS,
                                  "max(y_(m+1) − y_(m), y_(m) − y_(m−1))",
                                  f"mismatch at {bad[0]}" if bad else "equal on all datasets"))
    return _statement("§2.2: local sensitivity of the median (N odd)", res)


def _median_global() -> Statement:
    res = []
    for size, top in MEDIAN_GRID:
        gs = smooth.global_sensitivity(size, top)
        res.append(InstanceResult({"N": size, "R": top},
                                  Verdict.HOLDS if gs == top else Verdict.REFUTED,
                                  f"Δ^G = R = {top}", f"brute force {gs}"))
    return _statement("§2.2: global sensitivity of the median is R (N odd)", res)


def _median_decomposition() -> Statement:
    """Var(𝒜(m_n)) = E Var(η_n | 𝒮) + Var(m_n), η_n mean-zero given the sample: an identity
    over any finite sample law (checked symbolically on three samples)."""
    p = sympy.symbols("p1:4", positive=True)
    med = sympy.symbols("m1:4", real=True)
    nv = sympy.symbols("v1:4", positive=True)
    subs = {p[2]: 1 - p[0] - p[1]}
    mean = sum(pi * mi for pi, mi in zip(p, med, strict=True))
    total = sum(pi * (vi + mi**2) for pi, vi, mi in zip(p, nv, med, strict=True)) - mean**2
    decomp = (sum(pi * vi for pi, vi in zip(p, nv, strict=True))
              + sum(pi * mi**2 for pi, mi in zip(p, med, strict=True)) - mean**2)
    ok = _is_zero((total - decomp).subs(subs))
    return Statement("Var(𝒜(m_n)) = E(Var(η_n|𝒮)) + Var(m_n)",
                     Verdict.PROVED if ok else Verdict.INCONCLUSIVE,
                     note="sympy: law of total variance, η_n mean-zero given the sample")


def check_median(budget: Budget,
                 profile: Callable[..., tuple[int, ...]] = smooth.printed_profile,
                 boundary: smooth.Boundary = smooth.Boundary.NISSIM) -> ClaimResult:
    del budget
    st = [_median_profile(profile, boundary), _median_smooth(profile, boundary),
          _median_local(), _median_global(),
          _median_decomposition(),
          Statement("Figs. 6–8 and 10–13, the median-of-ratio values 1.28, 3.72, 4.24, 23.30, "
                    "the mixture median 0.21, and Table 1's 'gains for ε ≤ 0.1' (log-normal) "
                    "and 'gains for ε ≤ 3' (mixture)", Verdict.INCONCLUSIVE,
                    note=SIMULATION_NOTE)]
    return _result("hu/median", st)


# ================================================================ hu/inline

N_POP = 10001
Q0 = sympy.Rational(3, 5)


def _cell(where: str, printed: str, value: sympy.Expr, scale: int = 1, note: str = ""
          ) -> InstanceResult:
    """Judge a printed decimal (given in units of 1/scale, e.g. percent) against `value`."""
    b = bracket(value * scale, prec_bits=256)
    v, why = judge(*decimal(printed), b)
    return InstanceResult({"where": where}, v, printed, str(b), f"{why}{'; ' + note if note else ''}")


def inline_cells(break_even: Callable[[sympy.Expr, sympy.Expr], sympy.Expr] = gain.break_even_rate,
                 inverse_eps: sympy.Expr = amp.INVERSE_EPS) -> list[InstanceResult]:
    def en(eps: sympy.Expr, n: int, big_n: int) -> sympy.Expr:
        return amp.at(inverse_eps, eps, n, big_n)

    tenth = sympy.Rational(1, 10)
    cells = [
        _cell("§3: ε = 1, 1% SRS → ε_n", "5.15", en(sympy.Integer(1), 1, 100)),
        _cell("§4.1: break-even rate (%) for ε = 3, q = 0.6", "16.77",
              break_even(sympy.Integer(3), Q0), 100),
        _cell("§4.1: break-even rate (%) for ε = 0.1, q = 0.6", "61.4", break_even(tenth, Q0),
              100),
        _cell("§4.1: V_N(ε = 0.1)/V_N(ε = 3)", "900",
              variance.V_N_PRINTED.subs(EPS, tenth) / variance.V_N_PRINTED.subs(EPS, 3),
              note="exact"),
        _cell("§4.2: log ε = −8 → ε ≈", "0.0003", sympy.exp(-8)),
        _cell("§4.2: log ε = −20 → ε ≈", "2e-9", sympy.exp(-20)),
        _cell("§4.3: ε_n for n = 101, ε = 0.1 (N = 10,001)", "2.43", en(tenth, 101, N_POP)),
        _cell("§4.3: ε_n for n = 101, ε = 1 (N = 10,001)", "5.14",
              en(sympy.Integer(1), 101, N_POP)),
        _cell("§4.3: δ = 1/(2N)", "4.9995e-5", sympy.Rational(1, 2 * N_POP)),
        _cell("Fig. 2 caption: δ", "4.9995e5", sympy.Rational(1, 2 * N_POP),
              note="the text's own δ = 1/(2N) = 4.9995×10⁻⁵: the caption's exponent lost its "
                   "minus sign"),
        _cell("§4.3: Δ^G_n/Δ^G_N for n = 1,001 ('a factor of 10', read to 2 digits)", "10",
              sympy.Rational(N_POP, 1001)),
        _cell("§4.3: Δ^G_n/Δ^G_N for n = 101 ('a factor of 100', read to 2 digits)", "1.0e2",
              sympy.Rational(N_POP, 101)),
    ]
    r_pt, eps_pt = _fig5_point()
    ok, _ = ratio_below_one_proof()
    cells.append(InstanceResult(
        {"where": "§4.2, Fig. 5: n/N = 0.0001"},
        Verdict.REFUTED if ok and r_pt.hi < 1 else Verdict.INCONCLUSIVE, "ε_n < 1.66e-6 is what makes r(ε, n/N) reach 1",
        f"r < 1 for every ε (hu/mean proof); at ε_n = 1.66e-6 (ε ∈ {eps_pt}) r ∈ {r_pt}",
        "no ε_n threshold exists: r < 1 at every ε_n, above or below 1.66·10⁻⁶"))
    return cells


def check_inline(
    budget: Budget,
    break_even: Callable[[sympy.Expr, sympy.Expr], sympy.Expr] = gain.break_even_rate,
    inverse_eps: sympy.Expr = amp.INVERSE_EPS,
) -> ClaimResult:
    del budget
    cells = inline_cells(break_even, inverse_eps)
    bad = [c for c in cells if c.verdict is Verdict.REFUTED]
    note = "; ".join(f"{c.params['where']}: printed {c.claimed}, recomputed {c.actual}"
                     for c in bad)
    return _result("hu/inline", [_statement("inline numbers, cell by cell", cells,
                                            note=f"{len(bad)} mismatch(es): {note}" if bad
                                            else "")])


# ================================================================ catalogue

CLAIMS = (
    Claim("hu/amplification", PAPER, "§3, Theorem 1 and its inverse",
          "SRSWOR, bounded DP: ε_n = log(1 + (n/N)(e^ε − 1)), δ_n = (n/N)δ; inverse "
          "ε_n = log(1 + (N/n)(e^ε − 1)), δ_n = (N/n)δ suffices and is exact",
          r"\epsilon_n=\log(1+\frac{N}{n}(e^{\epsilon}-1)),\ \delta_n=\frac{N}{n}\delta",
          check_amplification),
    Claim("hu/approx", PAPER, "Abstract, §1–2, §4.2",
          "the actual privacy guarantee is ≈ rε; ε_n ≈ (N/n)ε",
          r"\log(1+r(e^\epsilon-1))\approx r\epsilon", check_approx),
    Claim("hu/def2", PAPER, "§2.1, Definition 2",
          "CDF-based ε-DP (events {≤ ω} only) vs standard ε-DP",
          r"\Pr[\mathcal{A}(g(Y_N))\leq\omega]\leq e^{\epsilon}\Pr[\mathcal{A}(g(Y_N'))\leq\omega]",
          lambda b: check_definition(b, "hu/def2", (Fraction(0),))),
    Claim("hu/def3", PAPER, "§2.1, Definition 3",
          "CDF-based (ε, δ)-DP vs standard (ε, δ)-DP",
          r"\Pr[\mathcal{A}(g(Y_N))\leq\omega]\leq e^{\epsilon}\Pr[\mathcal{A}(g(Y_N'))\leq\omega]"
          r"+\delta",
          lambda b: check_definition(b, "hu/def3", (Fraction(1, 10), Fraction(1, 4)))),
    Claim("hu/sec4.1", PAPER, "§4.1",
          "Laplace: gains need Var(g(𝒮)) ≤ (1 − ε²/ε_n²)V_N; none if "
          "Var ≥ 2(Δ_N^G)²(1/ε² − 1/ε_n²); q → 1 − (n/N)² as ε → 0",
          r"\mathrm{Var}(g(\mathcal{S}(Y_N)))\geq 2(\Delta_N^G)^2(\epsilon^{-2}-\epsilon_n^{-2})",
          check_sec41),
    Claim("hu/mean", PAPER, "§4.2, eqs. (6)–(8), Fig. 5",
          "Laplace mean: V_N, V_n (with FPC), the noise ratio r(ε, n/N) and Fig. 5's r = 1 curve",
          r"V_n=(1-\frac{n}{N})\frac{S_N^2}{n}+2(\frac{R}{\epsilon_n n})^2", check_mean),
    Claim("hu/median", PAPER, "§2.2 eq. (4), §4.3–4.4",
          "smooth sensitivity of the median (brute-force oracle); the simulation numbers",
          r"\Delta^S=\max_{k}e^{-k\beta}\max_{t=0..k+1}(y_{\frac{N+1}{2}+t}"
          r"-y_{\frac{N+1}{2}+t-k-1})", check_median),
    Claim("hu/inline", PAPER, "throughout",
          "inline numbers: ε_n = 5.15, 2.43, 5.14; break-even 16.77%, 61.4%; 900; δ; …",
          r"16.77\%,\ 61.4\%,\ \epsilon_n=5.15", check_inline),
)
