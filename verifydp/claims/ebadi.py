"""Claims of Ebadi, Antignac, Sands — "Sampling and Partitioning for Differential Privacy"
(paper key `ebadi`).

Neighbours are add-remove (Definition 1); base mechanisms are ε-DP under it. Every σ below is
the printed formula (sympy, in ε = `EPS` and the printed parameters n, p, b), compared with

* single samplers: the exact sup over all ε-DP M of the loss of M∘RS (worstcase engine), on
  D = {a × m}, D' = D ∪ {x} (worst among pairs with |D| = m by orbit averaging);
* partitions ⟨M1, M2⟩∘R̂S: the engine's sup over every pair-ε-DP mechanism (upper bound) and
  the best concrete ⟨M1, M2⟩ of noisy sums (exact lower bound, `verifydp.pinq.pairs`).

t = e^ε ranges over rationals, so every number is exact. A printed upper bound is refuted only
by a concrete mechanism whose exact loss exceeds it (the witness), held when the certified
upper bound is below it. The PINQ claims (§3) use the exact plan model `verifydp.pinq`.

Findings (each re-checked by a second route: the LP's certified upper bound, or the Laplace
density route, or z3): Listing 1 leaks (scale − 1)·ε while PINQ charges ε; Skip is 1-stable
(z3, all sizes), so the "similar argument" for Skip fails; Prop 4.2 composes the σ's in the
wrong order; the σ̂ of Theorem 4.3 assumes |K̄ Δ K̄'| = |i − 1|, false when a non-sampled
record enters the sample; Theorem 4.6's refined σ̂ drops the e^ε of the i = 0 term; the printed
ψ of fraction sampling is not a characterisation, and its σ̂ is exceeded for small p; the
with-replacement σ fails at |D| = 1. Extra ids: `ebadi/fraction:recursion` (the printed ψ of
§4.4), `ebadi/thm4.6:corrected`, `ebadi/prop4.2:corrected`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    statement,
)
from verifydp.claims.checkers import Instance, UpperCheck, check_ratio_upper, fmt
from verifydp.designs import SRSWR, Poisson, ProportionalWOR, Rounding
from verifydp.designs.base import Design
from verifydp.designs.pinq_samplers import Reservoir, WithReplacement
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.tfunc import EPS, exp_of
from verifydp.pinq import listing1, recursion
from verifydp.pinq.loss import exact_loss, loss_multiple
from verifydp.pinq.pairs import (
    UNIVERSE,
    canonical_pair,
    datasets,
    pair_upper,
    product_lower,
    product_plan,
    sampler_plan,
    sampler_worst,
)
from verifydp.pinq.plan import Plan, PlanBuilder, charge
from verifydp.pinq.stability import (
    declared_multiplier,
    exhaustive_stability,
    insertions,
    plan_transform,
    sequences,
    sym_diff,
    unary,
    z3_stability_bound,
)
from verifydp.population import Relation
from verifydp.witness.pinq import PinqWitness
from verifydp.worstcase import MechanismClass, worst_case_ratio

PAPER = "ebadi"
n, p, b = sympy.symbols("n p b", positive=True)
T_GRID = (EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10)), EpsSpec.of_t(3))
E = sympy.exp

# ---------------------------------------------------------------- printed formulas
THM45 = sympy.log((n * E(2 * EPS) + 1) / (n + 1))
THM46_HEADLINE = 3 * EPS
THM46_REFINED = sympy.log((n * E(3 * EPS) + 1) / (n + 1))
THM46_CORRECTED = sympy.log((n * E(3 * EPS) + E(EPS)) / (n + 1))
THM47 = sympy.log(sympy.Max(E(2 * EPS) * p + 1 - p, E(3 * EPS) * p + E(EPS) * (1 - p)))
FRACTION_PARTITION = sympy.log(
    sympy.Max(E(3 * EPS) * p + (1 - p) * E(EPS), E(5 * EPS) * p + 1 - p)
)
BERNOULLI = sympy.log(b * E(EPS) + 1 - b)
THM48 = EPS
WR_LOWER = n * EPS


def wr_printed(n_: int) -> sympy.Expr:
    """§4.3: σ(ε) = ln Σ_{0≤l≤n} e^{2lε} C(n,l) (1/n)^l ((n−1)/n)^{n−l}."""
    q = sympy.Rational(1, n_)
    return sympy.log(sum(E(2 * k * EPS) * sympy.binomial(n_, k) * q**k * (1 - q) ** (n_ - k)
                         for k in range(n_ + 1)))


def _result(claim: str, statements: Sequence[Statement], acc: UpperCheck | None = None,
            witness: PinqWitness | None = None) -> ClaimResult:
    w = witness or (acc.witness if acc else None)
    return ClaimResult(claim, combine(statements), tuple(statements), w, 0.0,
                       tuple(acc.lp_sizes) if acc else ())


def _sampler_instances(design: Design, params: dict[str, object], ms: Iterable[int],
                       grid: Sequence[EpsSpec] = T_GRID, label: dict[str, object] | None = None
                       ) -> Iterable[Instance]:
    for m in ms:
        for eps in grid:
            yield Instance(params, canonical_pair(m), design, Relation.ADD_REMOVE, eps,
                           label={**(label or {}), "|D|": m})


# ---------------------------------------------------------------- partitions


def judge_pair(claim: str, printed: sympy.Expr, params: dict[str, object], design: Design,
               m: int, eps: EpsSpec) -> InstanceResult:
    """Printed e^{σ̂(ε)} against ⟨M1, M2⟩∘R̂S on (D, D') with |D| = m (see module doc)."""
    t_lo, t_hi = eps.t_bracket()
    bound = eps.evaluate(exp_of(printed), {k: str(v) for k, v in params.items()})
    report = {**{k: str(v) for k, v in params.items()}, "|D|": str(m), "epsilon": str(eps)}
    low = product_lower(design, m, t_lo)  # noise parameter t_lo ≤ e^ε: each Mi is ε-DP
    claimed = f"e^σ̂ ≤ {bound}"
    if low.ratio > bound.hi:
        d, d_prime = datasets(m)
        actual = (f"⟨M1, M2⟩ (noisy sums, weights {low.w1}, {low.w2} on (a, x)) has exact "
                  f"e^loss = {fmt(low.ratio)}")
        w = PinqWitness(claim, product_plan(design, low.w1, low.w2), d, d_prime, t_lo,
                        "partition-ratio", claimed, actual, exp_of(printed),
                        tuple((k, str(v)) for k, v in params.items()))
        return InstanceResult(report, Verdict.REFUTED, claimed, actual, witness=w,
                              margin=float(low.ratio / bound.hi) - 1)
    wc = pair_upper(design, m, t_lo, t_hi)
    actual = f"sup over ⟨M1, M2⟩ ∈ [{fmt(low.ratio)}, {fmt(wc.upper)}]"
    if wc.upper is not None and wc.upper <= bound.lo:
        return InstanceResult(report, Verdict.HOLDS, claimed, actual)
    return InstanceResult(report, Verdict.INCONCLUSIVE, claimed, actual,
                          note="certified brackets overlap")


def _pair_statement(claim: str, text: str, printed: sympy.Expr,
                    cases: Iterable[tuple[dict[str, object], Design, int]], budget: Budget,
                    grid: Sequence[EpsSpec] = T_GRID) -> Statement:
    results: list[InstanceResult] = []
    for params, design, m in cases:
        for eps in grid:
            if budget.spent() or (budget.fail_fast and any(
                    r.verdict is Verdict.REFUTED for r in results)):
                break
            results.append(judge_pair(claim, printed, params, design, m, eps))
    return statement(text, results)


def _first_witness(statements: Sequence[Statement]) -> PinqWitness | None:
    for s in statements:
        for i in s.instances:
            if i.verdict is Verdict.REFUTED and isinstance(i.witness, PinqWitness):
                return i.witness
    return None


# ---------------------------------------------------------------- §3: PINQ, Take, Skip


def _hold_or_refute(ok: bool, report: dict[str, str], claimed: str, actual: str,
                    note: str = "") -> InstanceResult:
    return InstanceResult(report, Verdict.HOLDS if ok else Verdict.REFUTED, claimed, actual, note)


def check_pinq_take(budget: Budget, declared_take: int = 1) -> ClaimResult:
    """`declared_take` is PINQ's stability of Take (1); a mutant declaring 2 must not refute
    the stability statement."""
    claim = "ebadi/pinq:take"
    plan, out = unary("take", n=1)
    st = exhaustive_stability(plan_transform(plan, out), ("a", "b", "c"), 4)
    proved_2 = z3_stability_bound("take", 2)
    s1 = statement(
        "PINQ: Take(n) is 1-stable (its declared stability)",
        [_hold_or_refute(
            st.stability <= declared_take, {"transformation": "take(1)"},
            f"stability {declared_take}",
            f"|Take(A) Δ Take(A')| = {st.stability} at A = {st.pair[0] if st.pair else ''}, "
            f"A' = {st.pair[1] if st.pair else ''} (exhaustive, {st.checked} pairs); "
            f"z3: ≤ 2 for every length, n and position: {proved_2}")],
    )
    a1, ax = ("a1", "a2", "a3"), "ax"
    front = sym_diff(a1[:1], ((ax,) + a1)[:1])
    end = sym_diff(a1[:1], (a1 + (ax,))[:1])
    s_all = statement(
        "PINQ's declared stabilities (its charge for a count after T) bound the true ones",
        [_stability_row(name, op, params) for name, op, params in
         (*TRANSFORMS, ("partition(x == a)", "partition", {"value": "a"}))],
    )
    s2 = statement(
        "§3 example: Take({a1…an},1) Δ Take({ax}∪{a1…an},1) = {a1, ax} (stability two); "
        "ax at the end gives ∅",
        [_hold_or_refute(front == 2 and end == 0, {"n": "3"}, "2 and 0", f"{front} and {end}")],
    )
    gap = listing1.smallest_gap()
    results: list[InstanceResult] = []
    witness = None
    if gap is not None:
        w_plan = listing1.listing1_plan(gap.scale)
        ratio = exact_loss(w_plan, gap.d, gap.d_prime, Fraction(2)).ratio
        claimed = f"charged {gap.charged}·ε"
        actual = f"exact loss {gap.exact}·ε for every ε (e^loss = {ratio} at t = 2)"
        witness = PinqWitness(claim, w_plan, gap.d, gap.d_prime, Fraction(2), "charged-vs-exact",
                              claimed, actual)
        results.append(InstanceResult(
            {"scale": str(gap.scale), "D": str(list(gap.d)), "D'": str(list(gap.d_prime))},
            Verdict.REFUTED, claimed, actual, witness=witness))
    for g in listing1.loss_by_iterations(range(1, 6)):
        results.append(_hold_or_refute(
            g.exact <= g.charged, {"scale": str(g.scale), "D": "paper's 9 records"},
            f"charged {g.charged}·ε", f"exact loss {g.exact}·ε"))
    big = listing1.gap(1000, listing1.PAPER_DATA, (*listing1.PAPER_DATA, listing1.TARGET))
    results.append(_hold_or_refute(
        big.exact <= big.charged, {"scale": "1000", "D": "paper's 9 records"},
        f"charged {big.charged}·ε", f"exact loss {big.exact}·ε",
        note="noise-free counts 1009 (7 absent) vs 10 (7 present); the text's run "
             "(10000 iterations) printed 9867.45 and −20.08, its ≈ 9 should be ≈ 10"))
    curve = listing1.loss_by_iterations(range(1, 6))
    linear = all(g.exact == g.scale - 1 for g in [*curve, big])
    note = (f"loss(scale) = (scale − 1)·ε on the paper's data"
            f"{'' if linear else ' FAILS'} (scales 1–5 and 1000) while PINQ charges ε; "
            + (f"smallest witness: D = {list(gap.d)}, D' = {list(gap.d_prime)}, scale "
               f"{gap.scale}: exact {gap.exact}·ε vs charged {gap.charged}·ε" if gap else
               "no gap found"))
    s3 = statement(
        "PINQ's accounting bounds the loss of Listing 1 (charges ε); exact loss = "
        "(scale − 1)·ε for D ∌ 7 vs D ∪ {7}", results, note=note,
    )
    return _result(claim, [s3, s1, s2, s_all], witness=witness)


def _stability_row(name: str, op: str, params: dict[str, object]) -> InstanceResult:
    plan, out = unary(op, **params)
    true = exhaustive_stability(plan_transform(plan, out), ("a", "b", "c"), 3)
    declared = declared_multiplier(plan, out)
    return _hold_or_refute(true.stability <= declared, {"T": name}, f"declared {declared}",
                           f"true {true.stability} (exhaustive, e.g. {true.pair})")


def skip_listing(scale: int) -> Plan:
    """Listing 1 with Skip: D = K̄ ∪ Skip(r ∪ K, 1) (keeps the target, drops r)."""
    b = PlanBuilder()
    cur = b.add("source")
    for s in range(1, scale + 1):
        parts = b.add("partition", cur, value=listing1.TARGET)
        k, k_bar = b.add("part", parts, key="true"), b.add("part", parts, key="false")
        r = b.add("public", values=[listing1.fresh_record(s)])
        cur = b.add("union", k_bar, b.add("skip", b.add("union", r, k), n=1))
    b.add("noisy-count", cur, eps=1)
    return b.build()


def check_skip(budget: Budget, claimed_stability: int = 2) -> ClaimResult:
    claim = "ebadi/skip"
    plan, out = unary("skip", n=1)
    st = exhaustive_stability(plan_transform(plan, out), ("a", "b", "c"), 4)
    proved_1 = z3_stability_bound("skip", 1)
    ok = st.stability >= claimed_stability
    s1 = statement(
        "§3: 'a similar argument holds for Skip(n)': Skip also has stability 2, not PINQ's 1",
        [InstanceResult(
            {"transformation": "skip(n)"},
            Verdict.HOLDS if ok else (Verdict.REFUTED if proved_1 else Verdict.INCONCLUSIVE),
            f"stability {claimed_stability}",
            f"max |Skip(A) Δ Skip(A')| = {st.stability} (exhaustive, {st.checked} pairs); "
            f"z3 proves ≤ 1 for every length, n and insertion position: {proved_1}",
            note="" if ok else "inserting at position j ≤ n shifts exactly one record "
                               "(a_n) into the output; PINQ's stability 1 is correct")],
    )
    results = []
    for size in range(3):
        d = tuple(f"c{j}" for j in range(1, size + 1))
        for scale in range(1, 5):
            for pos in range(size + 1):
                pl = skip_listing(scale)
                dp = d[:pos] + (listing1.TARGET,) + d[pos:]
                mult, c = loss_multiple(pl, d, dp), charge(pl)
                results.append(_hold_or_refute(
                    mult <= c, {"scale": str(scale), "D": str(list(d)), "D'": str(list(dp))},
                    f"charged {c}·ε", f"exact {mult}·ε"))
    s2 = statement("Listing 1 rewritten with Skip: PINQ's charge bounds the exact loss", results)
    return _result(claim, [s1, s2])


# ---------------------------------------------------------------- §2: composition

TRANSFORMS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("where(x == a)", "where", {"value": "a"}),
    ("select(a ↦ b)", "select", {"map": {"a": "b"}}),
    ("union(D, public {c})", "union", {"values": ["c"]}),
    ("union(D, D)", "union", {"self": True}),
    ("take(1)", "take", {"n": 1}),
    ("take(2)", "take", {"n": 2}),
    ("skip(1)", "skip", {"n": 1}),
)
DOMAIN = ("a", "b")


def _counts(x: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(x.count(v) for v in ("a", "b", "c"))


def check_stability_composition(budget: Budget, claim: str, text: str, eps: EpsSpec,
                                stability: Callable[[str, int], int] | None = None
                                ) -> ClaimResult:
    """M∘T for every ε-DP M (engine, exact) is at most c·ε with c the true stability of T.
    `stability(name, true_c)` overrides c (mutants)."""
    results: list[InstanceResult] = []
    lp_sizes: list[int] = []
    t_lo, t_hi = eps.t_bracket()
    for name, op, params in TRANSFORMS:
        plan, out = unary(op, **params)
        tf = plan_transform(plan, out)
        c = exhaustive_stability(tf, DOMAIN, 3).stability
        c = stability(name, c) if stability else c
        bound = eps.evaluate(exp_of(c * EPS))
        pairs = {(_counts(tf(a)[0]), _counts(tf(a2)[0]))
                 for a in sequences(DOMAIN, 2) for a2 in insertions(a, DOMAIN)}
        worst_lo, worst_hi = Fraction(1), Fraction(1)
        for x, y in sorted(pairs):
            if budget.spent():
                break
            if x == y:
                continue
            wc = worst_case_ratio(FiniteDist.point(x), FiniteDist.point(y),
                                  MechanismClass(Relation.ADD_REMOVE, t_lo, t_hi))
            lp_sizes.append(wc.lp_points)
            worst_lo = max(worst_lo, wc.worst.lower or Fraction(10**9))
            worst_hi = max(worst_hi, wc.upper or Fraction(10**9))
        verdict = (Verdict.REFUTED if worst_lo > bound.hi else
                   Verdict.HOLDS if worst_hi <= bound.lo else Verdict.INCONCLUSIVE)
        results.append(InstanceResult(
            {"T": name, "c": str(c), "epsilon": str(eps)}, verdict, f"e^(cε) = {bound}",
            f"sup over ε-DP M of M∘T ∈ [{fmt(worst_lo)}, {fmt(worst_hi)}] "
            f"on {len(pairs)} neighbour images (|A| ≤ 2 over {{a, b}})"))
    st = statement(text, results)
    return ClaimResult(claim, combine([st]), (st,), None, 0.0, tuple(lp_sizes))


def _neighbour_pairs(max_len: int = 3) -> Iterable[tuple[tuple[str, ...], tuple[str, ...]]]:
    for a in sequences(DOMAIN, max_len - 1):
        for a2 in insertions(a, DOMAIN):
            yield a, a2


def _agg_plan(specs: Sequence[tuple[str, dict[str, object], str, int]]) -> Plan:
    """One aggregation per spec: (transformation op, params, aggregation, eps multiple)."""
    b = PlanBuilder()
    src = b.add("source")
    for op, params, agg, k in specs:
        node = src if op == "id" else b.add(op, src, **params)
        if agg == "sum":
            b.add("noisy-sum", node, eps=k, weights={"a": 1, "b": -1})
        else:
            b.add("noisy-count", node, eps=k)
    return b.build()


SEQ_PLANS = (
    (("id", {}, "count", 1), ("where", {"value": "a"}, "count", 2)),
    (("take", {"n": 1}, "count", 1), ("id", {}, "sum", 1)),
    (("id", {}, "count", 1), ("id", {}, "count", 1), ("skip", {"n": 1}, "sum", 2)),
)


def check_thm21(budget: Budget) -> ClaimResult:
    return check_stability_composition(
        budget, "ebadi/thm2.1",
        "M ε-DP, T c-stable ⇒ M∘T is (c·ε)-DP (c = true stability, exhaustive)",
        EpsSpec.of_t(2))


def check_prop41(budget: Budget) -> ClaimResult:
    return check_stability_composition(
        budget, "ebadi/prop4.1", "T c-stable ⇒ T is σ-probabilistically stable, σ(ε) = c·ε",
        EpsSpec.of_t(3))


def check_thm22(budget: Budget, combine_eps: Callable[[Sequence[int]], int] = sum
                ) -> ClaimResult:
    """Joint exact loss ≤ Σ ε_i, ε_i = the exact sup of M_i's loss over the checked pairs.
    `combine_eps` = sum as printed; max is a mutant."""
    t = Fraction(2)
    results = []
    for specs in SEQ_PLANS:
        plan = _agg_plan(specs)
        eps_i = [max(loss_multiple(_agg_plan([s]), a, a2) for a, a2 in _neighbour_pairs())
                 for s in specs]
        bound = t ** combine_eps(eps_i)
        worst = max(exact_loss(plan, a, a2, t).ratio or Fraction(10**9)
                    for a, a2 in _neighbour_pairs())
        results.append(_hold_or_refute(
            worst <= bound, {"plan": " ; ".join(f"{s[2]}_{s[3]}ε({s[0]})" for s in specs),
                             "t": "2"},
            f"e^(Σε_i) = {bound} (ε_i = {eps_i}·ε)", f"max exact e^loss = {worst}"))
    st = statement("sequential composition: Σ ε_i", results)
    return _result("ebadi/thm2.2", [st])


def check_thm23(budget: Budget, combine_eps: Callable[[Sequence[int]], int] = max
                ) -> ClaimResult:
    """⟨M1, M2⟩ on the parts of Partition(x == a): exact loss ≤ max(ε1, ε2)."""
    t = Fraction(2)
    results = []
    for k1, k2 in ((1, 1), (1, 2), (3, 1)):
        for agg in ("noisy-count", "noisy-sum"):
            bld = PlanBuilder()
            parts = bld.add("partition", bld.add("source"), value="a")
            for key, k in (("true", k1), ("false", k2)):
                part = bld.add("part", parts, key=key)
                extra = {"weights": {"a": 1, "b": -1}} if agg == "noisy-sum" else {}
                bld.add(agg, part, eps=k, **extra)
            plan = bld.build()
            bound = t ** combine_eps([k1, k2])
            worst = max(exact_loss(plan, a, a2, t).ratio or Fraction(10**9)
                        for a, a2 in _neighbour_pairs())
            results.append(_hold_or_refute(
                worst <= bound, {"M1": f"{agg}_{k1}ε", "M2": f"{agg}_{k2}ε", "t": "2"},
                f"e^max(ε1,ε2) = {bound}", f"max exact e^loss = {worst}"))
    st = statement("parallel composition on a partition: max(ε1, ε2)", results)
    return _result("ebadi/thm2.3", [st])


# ---------------------------------------------------------------- Prop 4.2


def prop42_printed(inner_first: bool = False) -> sympy.Expr:
    """M∘RS1∘RS2, RS1 = Union(S, S) (σ1 = 2ε, Prop 4.1), RS2 = Bernoulli b (σ2 = ln(1 +
    b(e^ε − 1))). Printed ε' = (σ1∘σ2)(ε); `inner_first` gives (σ2∘σ1)(ε) (the corrected
    order: RS2 acts first, so its σ is applied last)."""
    s2 = sympy.Lambda(EPS, BERNOULLI)
    s1 = sympy.Lambda(EPS, 2 * EPS)
    return s2(s1(EPS)) if inner_first else s1(s2(EPS))


def check_prop42(budget: Budget, printed: sympy.Expr | None = None,
                 claim: str = "ebadi/prop4.2") -> ClaimResult:
    printed = prop42_printed() if printed is None else printed
    results: list[InstanceResult] = []
    lp_sizes = []
    for b_ in (Fraction(1, 2), Fraction(1, 10)):
        for m in (0, 1):
            for eps in (EpsSpec.of_t(2), EpsSpec.of_t(Fraction(11, 10))):
                t = eps.t_bracket()[0]
                bound = eps.evaluate(exp_of(printed), {"b": str(b_)})
                d, d_prime = datasets(m)
                plan = sampler_plan(Poisson(b_), (1, 1), double=True)
                ratio = exact_loss(plan, d, d_prime, t).ratio
                assert ratio is not None
                pair = canonical_pair(m)
                doubled = [Poisson(b_).sample_law(x, UNIVERSE).map(lambda c: (2 * c[0], 2 * c[1]))
                           for x in (pair.p, pair.q)]
                wc = worst_case_ratio(*doubled, MechanismClass.pure(Relation.ADD_REMOVE, t))
                lp_sizes.append(wc.lp_points)
                report = {"b": str(b_), "|D|": str(m), "epsilon": str(eps)}
                claimed = f"e^ε' ≤ {bound}"
                actual = (f"M = noisy count: exact {fmt(ratio)}; sup over all ε-DP M "
                          f"∈ [{fmt(wc.worst.lower)}, {fmt(wc.upper)}]")
                if ratio > bound.hi:
                    w = PinqWitness(claim, plan, d, d_prime, t, "composed-ratio", claimed, actual,
                                    exp_of(printed), (("b", str(b_)),))
                    results.append(InstanceResult(report, Verdict.REFUTED, claimed, actual,
                                                  witness=w))
                elif wc.upper is not None and wc.upper <= bound.lo:
                    results.append(InstanceResult(report, Verdict.HOLDS, claimed, actual))
                else:
                    results.append(InstanceResult(report, Verdict.INCONCLUSIVE, claimed, actual,
                                                  note="certified brackets overlap"))
    order = "(σ2∘σ1)" if claim.endswith(":corrected") else "(σ1∘σ2)"
    st = statement(f"M∘RS1∘RS2 is ε'-DP with ε' = {order}(ε); RS1 = Union(S,S) (σ1 = 2ε), "
                   "RS2 = Bernoulli(b) (σ2 = ln(b e^ε + 1 − b))", results,
                   note="" if not any(r.verdict is Verdict.REFUTED for r in results) else
                   "with ∘ read as function composition RS2 acts first on the data, M∘RS1 is "
                   "σ1(ε)-DP, so ε' = σ2(σ1(ε)) = (σ2∘σ1)(ε) (prop4.2:corrected); the printed "
                   "order is right only if RS1 is read as acting first (a pipeline)")
    return ClaimResult(claim, st.verdict, (st,), _first_witness([st]), 0.0, tuple(lp_sizes))


# ---------------------------------------------------------------- §4 samplers


def check_thm45(budget: Budget, printed: sympy.Expr = THM45) -> ClaimResult:
    claim = "ebadi/thm4.5"
    acc = UpperCheck(claim)
    for n_ in (1, 2, 3):
        check_ratio_upper(claim, exp_of(printed),
                          _sampler_instances(Reservoir(n_), {"n": n_}, range(n_ + 3)), budget, acc)
    st = statement("R_n: σ(ε) = ln((n e^{2ε} + 1)/(n + 1))", acc.results)
    return _result(claim, [st], acc)


def check_thm46(budget: Budget, headline: sympy.Expr = THM46_HEADLINE,
                refined: sympy.Expr = THM46_REFINED, claim: str = "ebadi/thm4.6") -> ClaimResult:
    cases = [({"n": n_}, Reservoir(n_), m) for n_ in (1, 2, 3) for m in range(n_ + 2)]
    small = [({"n": n_}, Reservoir(n_), m) for n_ in (1, 2, 3) for m in range(n_)]
    s1 = _pair_statement(claim, "⟨M1, M2⟩∘R̂_n is 3ε-DP", headline, cases, budget)
    s2 = _pair_statement(claim, "case n ≥ |D| + 1: σ̂(ε) = ε", EPS, small, budget)
    s3 = _pair_statement(claim, "σ̂(ε) = ln((n e^{3ε} + 1)/(n + 1)) (the refined bound)",
                         refined, cases, budget)
    return _result(claim, [s1, s2, s3], witness=_first_witness([s1, s2, s3]))


def check_thm46_corrected(budget: Budget) -> ClaimResult:
    claim = "ebadi/thm4.6:corrected"
    cases = [({"n": n_}, Reservoir(n_), m) for n_ in (1, 2, 3) for m in range(n_ + 2)]
    st = _pair_statement(claim, "σ̂(ε) = ln((n e^{3ε} + e^ε)/(n + 1)) (Thm 4.3 with i = 0 "
                         "weighted by e^{(0+|0−1|)ε} = e^ε)", THM46_CORRECTED, cases, budget)
    return _result(claim, [st], witness=_first_witness([st]))


def check_wr(budget: Budget, printed: Callable[[int], sympy.Expr] = wr_printed,
             lower: sympy.Expr = WR_LOWER) -> ClaimResult:
    claim = "ebadi/wr"
    acc = UpperCheck(claim)
    for n_ in (1, 2, 3):
        # the recursive step: D non-empty, where WithReplacement(n) is exactly SRSWR(n)
        check_ratio_upper(claim, exp_of(printed(n_)),
                          _sampler_instances(SRSWR(n_), {"n": n_}, range(1, 4)), budget, acc)
    s1 = statement("σ of the recursive step (|D| ≥ 1): ln Σ_l e^{2lε} C(n,l)(1/n)^l((n−1)/n)^{n−l}",
                   acc.results,
                   note="the printed sum is the exact worst case at |D| = n − 1 only; at "
                        "|D| = 1 it is ((e^{2ε}+1)/2)^n")
    lows = []
    for n_ in (1, 2, 3, 4):
        for eps in T_GRID:
            t = eps.t_bracket()[0]
            wc = sampler_worst(WithReplacement(n_), 0, t)
            bound = eps.evaluate(exp_of(lower), {"n": str(n_)})
            ok = wc.worst.lower is not None and wc.worst.lower >= bound.hi
            lows.append(_hold_or_refute(ok, {"n": str(n_), "D": "∅", "D'": "{a}",
                                             "epsilon": str(eps)},
                                        f"sup ≥ e^(nε) = {bound}",
                                        f"sup over ε-DP M = {fmt(wc.worst.lower)}"))
    s2 = statement("lower bound n·ε, attained by ∅ vs {a}", lows)
    return _result(claim, [s1, s2], acc)


FRACTIONS = (Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(2, 3))


def _fraction(p_: Fraction) -> Design:
    return ProportionalWOR(p_, Rounding.FLOOR)


def check_thm47(budget: Budget, printed: sympy.Expr = THM47) -> ClaimResult:
    claim = "ebadi/thm4.7"
    acc = UpperCheck(claim)
    for p_ in FRACTIONS:
        check_ratio_upper(claim, exp_of(printed),
                          _sampler_instances(_fraction(p_), {"p": p_}, range(6)), budget, acc)
    st = statement("P_p: σ(ε) = ln max(e^{2ε}p + 1 − p, e^{3ε}p + e^ε(1 − p))", acc.results)
    return _result(claim, [st], acc)


def check_fraction_partition(budget: Budget, printed: sympy.Expr = FRACTION_PARTITION
                             ) -> ClaimResult:
    claim = "ebadi/fraction:partition"
    cases = [({"p": p_}, _fraction(p_), m) for p_ in FRACTIONS for m in range(5)]
    st = _pair_statement(claim, "P̂_p: σ̂(ε) = ln max(e^{3ε}p + (1 − p)e^ε, e^{5ε}p + 1 − p)",
                         printed, cases, budget)
    return _result(claim, [st], witness=_first_witness([st]))


BERNOULLI_B = (Fraction(1, 2), Fraction(1, 10), Fraction(9, 10))


def check_bernoulli(budget: Budget, printed: sympy.Expr = BERNOULLI) -> ClaimResult:
    claim = "ebadi/bernoulli"
    acc = UpperCheck(claim)
    for b_ in BERNOULLI_B:
        check_ratio_upper(claim, exp_of(printed),
                          _sampler_instances(Poisson(b_), {"b": b_}, range(4)), budget, acc)
    st = statement("B_b: σ(ε) = ln(b e^ε + 1 − b)", acc.results)
    return _result(claim, [st], acc)


def check_thm48(budget: Budget, printed: sympy.Expr = THM48) -> ClaimResult:
    claim = "ebadi/thm4.8"
    cases = [({"b": b_}, Poisson(b_), m) for b_ in BERNOULLI_B for m in range(3)]
    st = _pair_statement(claim, "B̂_b: σ̂(ε) = ε", printed, cases, budget)
    return _result(claim, [st], witness=_first_witness([st]))


# ---------------------------------------------------------------- recursive forms


def check_thm44(budget: Budget) -> ClaimResult:
    results = []
    for n_ in (1, 2, 3):
        for m in range(6):
            ok = recursion.characterises(recursion.reservoir_law(n_), recursion.reservoir_psi(n_), m)
            results.append(_hold_or_refute(ok, {"n": str(n_), "|D|": str(m)},
                                           "ψ_{n,|D|}(R_n(D), e) ~ R_n(D ∪ {e})",
                                           "equal laws (exact)" if ok else "laws differ"))
    st = statement("Theorem 4.4: the recursive characterisation of R_n", results)
    return _result("ebadi/thm4.4", [st])


def check_fraction_recursion(budget: Budget,
                             psi: Callable[[Fraction], recursion.Psi] = recursion.fraction_psi_printed,
                             claim: str = "ebadi/fraction:recursion") -> ClaimResult:
    results = []
    for p_ in FRACTIONS:
        for m in range(6):
            report = {"p": str(p_), "|D|": str(m)}
            try:
                ok = recursion.characterises(recursion.fraction_law(p_), psi(p_), m)
                actual = "equal laws (exact)" if ok else "laws differ (exact)"
            except recursion.IllDefined as exc:
                ok, actual = False, f"not a distribution: {exc}"
            results.append(_hold_or_refute(ok, report, "ψ_{p,D}(P_p(D), e) ~ P_p(D ∪ {e})",
                                           actual))
    st = statement("§4.4: the printed recursive characterisation ψ_{p,D} of P_p", results,
                   note="" if all(r.verdict is Verdict.HOLDS for r in results) else
                   "e.g. p = 1/2, |D| = 3: the printed step puts e in the sample with "
                   "probability (ub+1)/(|D|+1) = 3/4, P_p with 2/4; Algorithm 2 gives "
                   "lb/(|D|+1) and 1 − ub/(|D|+1) for the last two cases")
    return _result(claim, [st])


PSI_CASES: tuple[tuple[str, Callable[[], recursion.Law], Callable[[], recursion.Psi],
                       Iterable[int], Design], ...] = (
    *((f"R_{k}", (lambda k=k: recursion.reservoir_law(k)), (lambda k=k: recursion.reservoir_psi(k)),
       range(k + 3), Reservoir(k)) for k in (1, 2)),
    *((f"B_{q}", (lambda q=q: recursion.bernoulli_law(q)), (lambda q=q: recursion.bernoulli_psi(q)),
       range(3), Poisson(q)) for q in (Fraction(1, 2), Fraction(1, 10))),
    *((f"P_{q} (coupled ψ)", (lambda q=q: recursion.fraction_law(q)),
       (lambda q=q: recursion.fraction_psi_coupled(q)), range(5), _fraction(q))
      for q in (Fraction(1, 2), Fraction(1, 3))),
)


Exponent = Callable[[int], sympy.Expr]


def sig_exponent(i: int) -> sympy.Expr:
    return sympy.Integer(i)  # e^{iε}, as printed


def hat_exponent(i: int) -> sympy.Expr:
    return sympy.Integer(i + abs(i - 1))  # e^{(i+|i−1|)ε}, as printed


def thm43_expressions(law: recursion.Law, psi: recursion.Psi, m: int,
                      sig_exp: Exponent = sig_exponent, hat_exp: Exponent = hat_exponent,
                      ) -> tuple[sympy.Expr, sympy.Expr]:
    """σ and σ̂ of Theorem 4.3 from the law of |ψ_D(K, e) Δ K| at |D| = m: ln Σ_i e^{x(i)ε}
    Pr[i] with x(i) = i and x(i) = i + |i − 1| as printed (other exponents: mutants)."""
    beta = recursion.delta_law(law, psi, m)
    sig = sympy.log(sum(sympy.Rational(q.numerator, q.denominator) * E(sig_exp(i) * EPS)
                        for i, q in beta))
    hat = sympy.log(sum(sympy.Rational(q.numerator, q.denominator) * E(hat_exp(i) * EPS)
                        for i, q in beta))
    return sig, hat


def check_thm43(budget: Budget, sig_exp: Exponent = sig_exponent,
                hat_exp: Exponent = hat_exponent) -> ClaimResult:
    """`sig_exp`/`hat_exp` are the printed exponents; others are mutants (tests)."""
    claim = "ebadi/thm4.3"
    acc = UpperCheck(claim)
    hats: list[InstanceResult] = []
    for name, law, psi, ms, design in PSI_CASES:
        for m in ms:
            assert recursion.characterises(law(), psi(), m)  # the theorem's hypothesis
            sig, hat = thm43_expressions(law(), psi(), m, sig_exp, hat_exp)
            inst = _sampler_instances(design, {}, [m], T_GRID[:2], {"sampler": name})
            check_ratio_upper(claim, exp_of(sig), inst, budget, acc)
            for eps in T_GRID[:2]:
                res = judge_pair(claim, hat, {}, design, m, eps)
                hats.append(InstanceResult({"sampler": name, **res.params}, res.verdict,
                                           res.claimed, res.actual, res.note, res.witness,
                                           res.margin))
    s1 = statement("σ(ε) = ln Σ_i e^{iε} Pr[|ψ_D(K, e) Δ K| = i]", acc.results)
    s2 = statement("σ̂(ε) = ln Σ_i e^{(i+|i−1|)ε} Pr[|ψ_D(K, e) Δ K| = i]", hats,
                   note="" if all(h.verdict is not Verdict.REFUTED for h in hats) else
                   "its proof assumes |K̄ Δ K̄'| = |i − 1|; when ψ moves a record x from K̄ into "
                   "K (fraction sampling, size grows) |K̄ Δ K̄'| = i + 1")
    # Read instead as the sup over D of the per-D expression: for fraction sampling with the
    # valid ψ above, lb/(|D|+1) < p gives sup_D ≤ max(e^ε, (1 − p)e^ε + p e^{3ε}) (proof: the
    # expression is e^ε when the size grows and (1 − q)e^ε + q e^{3ε}, q = lb/(|D|+1), else).
    sup_bound = sympy.log(sympy.Max(E(EPS), (1 - p) * E(EPS) + p * E(3 * EPS)))
    cases = [({"p": q}, _fraction(q), m) for q in (Fraction(1, 2), Fraction(1, 3)) for m in range(4)]
    s3 = _pair_statement(claim, "σ̂ read as sup over D (fraction sampling, valid ψ): "
                         "≤ ln max(e^ε, (1 − p)e^ε + p e^{3ε})", sup_bound, cases, budget,
                         T_GRID[:2])
    return _result(claim, [s1, s2, s3], acc, witness=_first_witness([s3, s2]))


# ---------------------------------------------------------------- catalogue

CLAIMS = [
    Claim("ebadi/pinq:take", PAPER, "§3, Appendix A.1 (Listing 1)",
          "PINQ's accounting of Take (stability 1) is sound; the attack of Listing 1",
          r"\mathrm{stability}(\mathrm{Take})=1;\ \text{charge}=\epsilon\times\prod_i "
          r"\mathrm{stability}(T_i)", check_pinq_take),
    Claim("ebadi/skip", PAPER, "§3", "Skip needs stability 2 like Take",
          "A similar argument holds for the Skip(n) method.", check_skip),
    Claim("ebadi/thm2.1", PAPER, "§2, Theorem 2.1", "M ε-DP, T c-stable ⇒ M∘T is cε-DP",
          r"M \circ T \text{ provides } \epsilon\times c\text{-DP}", check_thm21),
    Claim("ebadi/thm2.2", PAPER, "§2, Theorem 2.2", "sequential composition: Σ ε_i",
          r"\sum_{1\le i\le n}\epsilon_i", check_thm22),
    Claim("ebadi/thm2.3", PAPER, "§2, Theorem 2.3", "parallel composition: max(ε1, ε2)",
          r"\langle M_1,M_2\rangle \text{ is } \max(\epsilon_1,\epsilon_2)\text{-DP}", check_thm23),
    Claim("ebadi/prop4.1", PAPER, "§4.1, Proposition 4.1", "c-stable ⇒ σ(ε) = cε",
          r"\sigma(\epsilon)=c\times\epsilon", check_prop41),
    Claim("ebadi/prop4.2", PAPER, "§4.1, Proposition 4.2",
          "composition of σ functions: ε' = (σ1∘…∘σn)(ε) for M∘RS1∘…∘RSn",
          r"\epsilon'=(\sigma_1\circ\dots\circ\sigma_n)(\epsilon)", check_prop42),
    Claim("ebadi/prop4.2:corrected", PAPER, "§4.1, Proposition 4.2 (corrected order)",
          "ε' = (σn∘…∘σ1)(ε): RS1, applied last (next to M), contributes the innermost σ",
          r"\epsilon'=(\sigma_n\circ\dots\circ\sigma_1)(\epsilon)",
          lambda bud: check_prop42(bud, prop42_printed(inner_first=True),
                                   "ebadi/prop4.2:corrected")),
    Claim("ebadi/thm4.3", PAPER, "§4.1, Theorem 4.3", "σ and σ̂ from the recursive form ψ",
          r"\sigma=\ln\sum_i e^{i\epsilon}\Pr[|\psi_D(K,e)\Delta K|=i];\ "
          r"\hat\sigma=\ln\sum_i e^{(i+|i-1|)\epsilon}\Pr[\cdot]", check_thm43),
    Claim("ebadi/thm4.4", PAPER, "§4.2, Theorem 4.4", "recursive characterisation of R_n",
          r"\Pr[\psi_{n,m}(K,e)=K]=\frac{m+1-n}{m+1},\ \Pr[\psi_{n,m}(K,e)=K^{+e}_{-f}]"
          r"=\frac{1}{m+1}", check_thm44),
    Claim("ebadi/thm4.5", PAPER, "§4.2, Theorem 4.5", "R_n: σ = ln((n e^{2ε}+1)/(n+1))",
          r"\sigma(\epsilon)=\ln\left(\frac{ne^{2\epsilon}+1}{n+1}\right)", check_thm45),
    Claim("ebadi/thm4.6", PAPER, "§4.2, Theorem 4.6",
          "R̂_n partition: 3ε and the refined ln((n e^{3ε}+1)/(n+1))",
          r"\hat\sigma=3\epsilon;\ \hat\sigma(\epsilon)=\ln\left(\frac{ne^{3\epsilon}+1}{n+1}\right)",
          check_thm46),
    Claim("ebadi/thm4.6:corrected", PAPER, "§4.2, Theorem 4.6 (corrected)",
          "R̂_n partition: σ̂ = ln((n e^{3ε} + e^ε)/(n+1))",
          r"\hat\sigma(\epsilon)=\ln\left(\frac{ne^{3\epsilon}+e^{\epsilon}}{n+1}\right)",
          check_thm46_corrected),
    Claim("ebadi/wr", PAPER, "§4.3", "sampling with replacement: printed σ and the nε lower bound",
          r"\sigma(\epsilon)=\ln\sum_{0\le l\le n}e^{2l\epsilon}\binom{n}{l}(1/n)^l((n-1)/n)^{n-l};"
          r"\ \ge n\epsilon", check_wr),
    Claim("ebadi/fraction:recursion", PAPER, "§4.4 (before Theorem 4.7)",
          "the printed recursive characterisation ψ_{p,D} of fraction sampling",
          r"\Pr[\psi_{p,D}(K,e)=K\cup\{e\}\setminus\{f\}\cup\{x\}]=\frac{ub}{|D|+1},\ \dots",
          check_fraction_recursion),
    Claim("ebadi/thm4.7", PAPER, "§4.4, Theorem 4.7",
          "P_p: σ = ln max(e^{2ε}p + 1 − p, e^{3ε}p + e^ε(1 − p))",
          r"\sigma(\epsilon)=\ln(\max(e^{2\epsilon}p+1-p,e^{3\epsilon}p+e^\epsilon(1-p)))",
          check_thm47),
    Claim("ebadi/fraction:partition", PAPER, "§4.4, partitioning property",
          "P̂_p: σ̂ = ln max(e^{3ε}p + (1−p)e^ε, e^{5ε}p + 1 − p)",
          r"\hat\sigma(\epsilon)=\ln\max(e^{3\epsilon}p+(1-p)e^\epsilon,e^{5\epsilon}p+1-p)",
          check_fraction_partition),
    Claim("ebadi/bernoulli", PAPER, "§4.5", "Bernoulli sampling: σ = ln(b e^ε + 1 − b)",
          r"\sigma(\epsilon)=\ln(b\cdot e^\epsilon+1-b)", check_bernoulli),
    Claim("ebadi/thm4.8", PAPER, "§4.5, Theorem 4.8", "Bernoulli partitioning: σ̂ = ε",
          r"\hat\sigma(\epsilon)=\epsilon", check_thm48),
]
