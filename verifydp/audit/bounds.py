"""Which catalogued theorems apply to a design file, and what they give (issue 6).

Each candidate theorem is a claim of the catalogue (verifydp/claims) with its printed formula
(the sympy expressions of the claim modules, never re-typed here); its assumptions are checked
against the design file one by one, and the first that fails is the reason it does not apply.
Values are rigorous brackets of the printed formula at the base ε (mpmath intervals). Claims
the catalogue refutes as printed are replaced by their `:corrected` versions, and the report
says so. A theorem's bound is only as good as the theorem: the audit reports each bound with
its claim id so that `verifydp check <id>` shows what the engine found about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import Any

import sympy

from verifydp.audit.spec import AuditSpec
from verifydp.designs import eta_bracket, k_law
from verifydp.designs.allocation import round_allocation
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.interval import Bracket
from verifydp.exact.tfunc import EPS
from verifydp.population import Relation

SIZE_LAW_TERMS = 200  # the tilted mean of Theorem 3.1 is a sum over the size law's support
# work above which the exact law of K (copies of one record) is not expanded: its cost is
# O(b·m) Fraction operations for MUST.WO/WW (WW: about 3 s at b·m = 2·10^4), O(m) otherwise
K_LAW_WORK = {"wor": 10**9, "wr": 20_000, "must-ow": 20_000, "must-wo": 20_000,
              "must-ww": 5_000}


def copies_law(scheme: str, n: int, b: int | None, m: int) -> FiniteDist[int] | None:
    """Exact law of K (MUST Theorem 5 closed forms), or None when too costly."""
    work = m if scheme in ("wor", "wr", "must-ow") else (b or 0) * m
    return k_law(scheme, n, b, m) if work <= K_LAW_WORK[scheme] else None


@dataclass(frozen=True)
class Bound:
    """One catalogued theorem confronted with the design."""

    claim: str
    direction: str  # "upper" or "lower" (on ε')
    applies: bool
    reason: str  # why it applies (with the parameters used) or the assumption that fails
    expr: sympy.Expr | None = None  # ε' as printed, in ε and the named parameters
    params: dict[str, Any] | None = None
    delta_prime: Bracket | None = None  # δ' where the theorem states one
    note: str = ""

    def eps_prime(self, eps: Fraction) -> Bracket | None:
        """Rigorous bracket of the theorem's ε' at base ε."""
        if not self.applies or self.expr is None:
            return None
        return EpsSpec.of_eps(eps).evaluate(self.expr, self.params or {})

    def to_json(self, eps: Fraction) -> dict[str, Any]:
        b = self.eps_prime(eps)
        out: dict[str, Any] = {
            "claim": self.claim, "direction": self.direction, "applies": self.applies,
            "reason": self.reason,
            "eps_prime": None if b is None else {"lo": float(b.lo), "hi": float(b.hi)},
        }
        if self.params:
            out["params"] = {k: str(v) for k, v in self.params.items()}
        if self.delta_prime is not None:
            out["delta_prime"] = {"lo": float(self.delta_prime.lo),
                                  "hi": float(self.delta_prime.hi)}
        if self.note:
            out["note"] = self.note
        return out


def _no(claim: str, direction: str, reason: str) -> Bound:
    return Bound(claim, direction, False, reason)


def _relations(spec: AuditSpec, base: Relation, protect: Relation, claim: str,
               direction: str) -> Bound | None:
    """None when the relations match the theorem's; otherwise the reason it does not apply."""
    if spec.base.relation is not base:
        return _no(claim, direction, f"stated for a {base.value}-DP base mechanism; the design "
                                     f"file's is {spec.base.relation.value}")
    if spec.protect is not protect:
        return _no(claim, direction, f"stated for {protect.value} neighbours; the design file "
                                     f"protects {spec.protect.value}")
    return None


def _pure(spec: AuditSpec, claim: str, direction: str) -> Bound | None:
    if spec.base.delta:
        return _no(claim, direction, "stated for a pure ε-DP base; the design file's has δ > 0")
    return None


# ---------------------------------------------------------------- per family


def _thm22(spec: AuditSpec, m: int | Fraction, n: int, what: str) -> list[Bound]:
    from verifydp.claims.bun.amplification import THM22_EPS

    cid = "bun/thm2.2"
    params = {"m": m, "n": n}
    if spec.protect is not Relation.REPLACE:
        return [_no(cid, "upper", "stated for replacement neighbours (fixed |P| = n); the "
                                  "design file protects add-remove")]
    dp = Bracket.point(Fraction(m) / n * spec.base.delta)
    if spec.base.relation is Relation.REPLACE:
        return [Bound(cid, "upper", True, f"{what}, m = {m} of n = {n}, replacement-DP base",
                      THM22_EPS, params, dp)]
    # group privacy: an ε-deletion-DP mechanism is 2ε-replacement-DP
    expr = THM22_EPS.xreplace({EPS: 2 * EPS})
    return [Bound(cid, "upper", True, f"{what}, m = {m} of n = {n}; the base is ε-deletion-DP, "
                  "hence 2ε-replacement-DP (group privacy), so the theorem is applied at 2ε",
                  expr, params, Bracket.point(2 * dp.lo), note="applied at 2ε")]


def _lemb1(spec: AuditSpec, m: int | Fraction, n: int, jump: int, what: str) -> Bound:
    """Lemma B.1 (corrected: deletion-DP base, P' = P ∪ {x}); |P| = n − 1 is the worst size."""
    from verifydp.claims.bun.amplification import LEMB1_EPS

    cid = "bun/lemB.1:corrected"
    bad = _relations(spec, Relation.ADD_REMOVE, Relation.ADD_REMOVE, cid, "upper") or \
        _pure(spec, cid, "upper")
    if bad:
        return bad
    params = {"m": m, "m_prime": Fraction(m) + jump, "P_size": n - 1}
    return Bound(cid, "upper", True,
                 f"{what}: sizes m = {m} and m' = m + {jump} on |P| = {n - 1}, |P'| = {n}",
                 LEMB1_EPS, params,
                 note="bun/lemB.1 as printed (replacement-DP base) is refuted; the corrected "
                      "lemma (deletion-DP base, as its proof uses it) is applied")


def _srswor(spec: AuditSpec) -> list[Bound]:
    m, n = spec.params["m"], spec.size
    out = _thm22(spec, m, n, "SRS without replacement")
    out.append(_lemb1(spec, m, n, 0, "fixed sample size"))
    out += _must_row(spec, "wor", "must/table2:wor", n, None, m)
    return out


def _random_size(spec: AuditSpec) -> list[Bound]:
    from verifydp.claims.bun.amplification import thm31_lower_expr, thm31_upper_expr

    law = spec.params["size_law"]
    up, lo = "bun/thm3.1:upper:corrected", "bun/thm3.1:lower"
    if len(law) > SIZE_LAW_TERMS:
        return [_no(up, "upper", f"the size law has {len(law)} > {SIZE_LAW_TERMS} support "
                                 "points (the tilted mean is not expanded)")]
    out = []
    for cid, direction, expr in ((up, "upper", thm31_upper_expr(law, two_eps=True)),
                                 (lo, "lower", thm31_lower_expr(law))):
        bad = _relations(spec, Relation.ADD_REMOVE, Relation.REPLACE, cid, direction) or \
            _pure(spec, cid, direction)
        out.append(bad or Bound(
            cid, direction, True, f"data-independent size law over {len(law)} sizes, n = "
            f"{spec.size}, deletion-DP base, replacement neighbours", expr, {"n": spec.size},
            note=("bun/thm3.1:upper as printed (e^ε) is refuted by the engine; the corrected "
                  "e^{2ε} version is used") if direction == "upper" else ""))
    return out


def _thm43(spec: AuditSpec, cid: str, sizes: list[int], what: str) -> Bound:
    from verifydp.claims.bun.amplification import THM43_EPS

    r = spec.params["r"]
    bad = _relations(spec, Relation.ADD_REMOVE, Relation.ADD_REMOVE, cid, "upper") or \
        _pure(spec, cid, "upper")
    if bad:
        return bad
    if spec.params["rounding"] != "randomised":
        return _no(cid, "upper", f"needs randomised rounding; the design rounds "
                                 f"{spec.params['rounding']}")
    small = min(sizes)
    if r * (small - 1) < 1:
        return _no(cid, "upper", f"needs r|P| ≥ 1 on both neighbours; r·{small - 1} = "
                                 f"{float(r * (small - 1)):g} < 1")
    return Bound(cid, "upper", True, f"{what} with randomised rounding, r = {r}, every size "
                 f"≥ 1/r", THM43_EPS, {"r": r})


def _det_rounding(spec: AuditSpec, sizes: list[tuple[str, int]]) -> list[Bound]:
    """Deterministic rounding: Lemma B.1 (corrected) upper bound with |m − m'| ≤ 1, and the
    §4.1/§4.3 lower bound Δ·ε = ε when round(r|P|) jumps at the given sizes."""
    r, rule = spec.params["r"], spec.params["rounding"]

    def alloc(n: int) -> int:
        return round_allocation(r * n, rule).support()[0]

    # P' = P ∪ {x} with |P| ∈ {N − 1, N}: the largest m/(|P| + 1) gives the largest bound
    name, small = max(((nm, k) for nm, n in sizes for k in (n - 1, n) if k >= 0),
                      key=lambda c: Fraction(alloc(c[1]), c[1] + 1))
    out = [_lemb1(spec, alloc(small), small + 1, 1,
                  f"deterministic rounding, {name} (largest m/(|P|+1))")]
    cid = "bun/sec4.1"
    bad = _pure(spec, cid, "lower")
    if bad:
        return [*out, bad]
    if spec.protect is Relation.REPLACE and len(sizes) == 1:
        return [*out, _no(cid, "lower", "under replacement |P| is fixed, so the rounded size "
                                        "never moves")]
    jumps = [(nm, n, k) for nm, n in sizes for k in (n - 1, n + 1)
             if k >= 0 and alloc(k) != alloc(n)]
    if not jumps:
        return [*out, _no(cid, "lower", f"round(r|P|) does not jump next to the given sizes "
                                        f"(it does every {ceil(1 / r)} records or so: the exact "
                                        "instance includes such a size)")]
    nm, n, k = jumps[0]
    return [*out, Bound(cid, "lower", True,
                        f"round(r|P|) jumps at the given size of {nm}: {n} → {k} records "
                        f"moves m from {alloc(n)} to {alloc(k)} (bun/sec4.3:det-rounding); the "
                        "mechanism releasing the noisy sample size (M^count) then loses Δ·ε "
                        "with Δ = 1", EPS, {})]


def _proportional(spec: AuditSpec) -> list[Bound]:
    if spec.params["rounding"] == "randomised":
        return [_thm43(spec, "bun/thm4.3", [spec.size], "proportional allocation")]
    return [_no("bun/thm4.3", "upper", "needs randomised rounding; the design rounds "
                f"{spec.params['rounding']}"),
            *_det_rounding(spec, [("the population", spec.size)])]


def _stratified(spec: AuditSpec) -> list[Bound]:
    if spec.kind == "stratified-proportional":
        if spec.params["rounding"] == "randomised":
            return [_thm43(spec, "bun/thm7.2", [s.size for s in spec.strata],
                           "stratified proportional allocation")]
        return [_no("bun/thm7.2", "upper", "needs randomised rounding; the design rounds "
                    f"{spec.params['rounding']}"),
                *_det_rounding(spec, [(f"stratum {s.name!r}", s.size) for s in spec.strata])]
    # stratified-fixed: strata are independent; the worst stratum decides
    sizes = spec.params["sizes"]
    worst = max(spec.strata, key=lambda s: Fraction(sizes[s.name], s.size))
    m, n = sizes[worst.name], worst.size
    what = f"fixed allocation, worst stratum {worst.name!r} (largest sampling fraction)"
    if spec.protect is Relation.REPLACE and len(spec.strata) > 1:
        thm22 = [_no("bun/thm2.2", "upper", "a replacement may move a record between strata, "
                                            "changing two stratum sizes; Theorem 2.2 covers "
                                            "a replacement within one SRS only")]
    else:
        thm22 = _thm22(spec, m, n, what)
    return [*thm22, _lemb1(spec, m, n, 0, what)]


def _neyman(spec: AuditSpec, delta_alloc: int | None) -> list[Bound]:
    cid = "bun/sec4.1"
    if delta_alloc is None:
        return [_no(cid, "lower", "the neighbour search did not run")]
    bad = _pure(spec, cid, "lower")
    out = [bad or Bound(cid, "lower", True,
                        f"Neyman allocation is deterministic and data dependent "
                        f"(bun/sec7.2:neyman): a neighbour changes a stratum's allocation by "
                        f"Δ = {delta_alloc}; releasing that stratum's size with noise loses Δ·ε",
                        delta_alloc * EPS, {})]
    out.append(_no("bun/lemB.1:corrected", "upper",
                   "Neyman allocation moves the sizes of several strata at once (the "
                   "normaliser changes), and Lemma B.1 bounds one pair of sizes; no catalogued "
                   "upper bound covers the joint change"))
    return out


def _clusters(spec: AuditSpec) -> list[Bound]:
    from verifydp.claims.bun.cluster import THM51_EPS, THM52_EPS

    out = []
    sizes, k, ell = spec.clusters, len(spec.clusters), spec.params["ell"]
    for cid, direction, expr, other in (("bun/thm5.2", "upper", THM52_EPS, "n_max"),
                                        ("bun/thm5.1", "lower", THM51_EPS, "n_min")):
        if spec.kind != "cluster-srs":
            out.append(_no(cid, direction, "stated for single-stage cluster sampling (ℓ of k "
                           f"clusters kept whole); the design is {spec.kind}"))
            continue
        bad = _relations(spec, Relation.ADD_REMOVE, Relation.ADD_REMOVE, cid, direction) or \
            _pure(spec, cid, direction)
        if bad:
            out.append(bad)
            continue
        if k < 2 or ell >= k:
            out.append(_no(cid, direction, f"needs ℓ < k; ℓ = {ell}, k = {k}"))
            continue
        # the record goes to the largest cluster: the largest n_i + n_other for both bounds
        n_i, n_o = sizes[0], sizes[1] if direction == "upper" else sizes[-1]
        out.append(Bound(cid, direction, True,
                         f"ℓ = {ell} of k = {k} clusters, record added to the largest cluster "
                         f"(n_i = {n_i}, {other} = {n_o})", expr,
                         {"ell": ell, "k": k, "n_i": n_i, other: n_o}))
    return out


def _pps(spec: AuditSpec) -> list[Bound]:
    cid = "bun/sec6.1:pps"
    if spec.kind != "poisson-pps":
        return [_no(cid, "lower", "the inclusion probabilities of successive PPS draws have no "
                                  "closed form here; see the exact instance")]
    bad = _pure(spec, cid, "lower")
    if bad:
        return [bad]
    total = sum(m * c for m, c in spec.size_classes)
    top = spec.size_classes[-1][0]
    a = min(Fraction(1), spec.params["expected_size"] * top / total)
    return [Bound(cid, "lower", True,
                  f"the largest inclusion probability a_i = min(1, n·s_i/T) = {a} "
                  f"(size measure {top})", sympy.log(1 + sympy.Symbol("a") * (sympy.exp(EPS) - 1)),
                  {"a": a})]


def _systematic(spec: AuditSpec) -> list[Bound]:
    k, n = spec.params["interval"], spec.size
    if spec.kind == "systematic-random":
        m = -(-n // k)  # the larger of the two SRS sizes of the mixture (sec6.3)
        return _thm22(spec, m, n, f"random secret order ≡ SRS of ⌈N/interval⌉ = {m} "
                                  "(bun/sec6.3:systematic)")
    bad = _pure(spec, "bun/sec6.3:systematic", "lower")
    return [bad or Bound("bun/sec6.3:systematic", "lower", True,
                         "a fixed, known order makes systematic sampling cluster sampling of the "
                         "interval's residue classes: no amplification (ε' ≥ ε)", EPS, {})]


def _must_row(spec: AuditSpec, scheme: str, cid: str, n: int, b: int | None,
              m: int) -> list[Bound]:
    """MUST Table 2 / Theorem 5 for substitution: ε' = log(1 + η(e^ε − 1)) together with
    δ' = Σ_j Pr[K = j] δ_j(ε), δ_j the base's group-j profile. With only an (ε, δ) guarantee
    known, δ_1 = δ and δ_j ≤ 1, so δ' ≤ Pr[K = 1]·δ + Pr[K ≥ 2] (certified here)."""
    bad = _relations(spec, Relation.REPLACE, Relation.REPLACE, cid, "upper")
    if bad:
        return [bad]
    lo, hi = eta_bracket(scheme, n, b, m, bits=64)
    law = copies_law(scheme, n, b, m)
    eta_sym = sympy.Symbol("eta")
    expr = sympy.log(1 + eta_sym * (sympy.exp(EPS) - 1))
    note = ""
    if law is not None:
        p1 = law.prob(1)
        many = 1 - law.prob(0) - p1
        dp: Bracket | None = Bracket.point(p1 * spec.base.delta + many)
        if many:
            note = (f"Pr[K ≥ 2] = {float(many):.3g}: the record can appear several times, and "
                    "a pure ε-DP base then only gives δ' > 0 (group privacy)")
    else:
        dp = Bracket(Fraction(0), hi)
        note = "law of K not expanded (b·m too large); δ' ≤ η = Pr[K ≥ 1]"
    return [Bound(cid, "upper", True,
                  f"η = Pr[K ≥ 1] ∈ [{float(lo):.6g}, {float(hi):.6g}] (n = {n}"
                  + (f", b = {b}" if b is not None else "") + f", m = {m}); the (ε', δ') pair "
                  "holds with δ' as stated", expr, {"eta": hi}, dp, note)]  # ε' increases with η


def catalogue_bounds(spec: AuditSpec, neyman_delta: int | None = None) -> list[Bound]:
    """Every candidate theorem for the design, applicable or not (with the reason)."""
    kind, p, n = spec.kind, spec.params, spec.size
    table: dict[str, Callable[[], list[Bound]]] = {
        "srswor": lambda: _srswor(spec),
        "srswr": lambda: _must_row(spec, "wr", "must/table2:wr", n, None, p["m"]),
        "poisson": lambda: _must_row_poisson(spec),
        "random-size": lambda: _random_size(spec),
        "proportional": lambda: _proportional(spec),
        "stratified-proportional": lambda: _stratified(spec),
        "stratified-fixed": lambda: _stratified(spec),
        "stratified-neyman": lambda: _neyman(spec, neyman_delta),
        "cluster-srs": lambda: _clusters(spec),
        "two-stage-cluster": lambda: _clusters(spec),
        "cluster-pps": lambda: [*_clusters(spec), _no(
            "bun/sec6.2:pps-cluster", "lower",
            "qualitative only (large clusters break amplification); see the exact instance")],
        "poisson-pps": lambda: _pps(spec),
        "successive-pps": lambda: _pps(spec),
        "systematic-fixed": lambda: _systematic(spec),
        "systematic-random": lambda: _systematic(spec),
    }
    if kind.startswith("must-"):
        scheme = kind
        cid = f"must/thm5:{kind.split('-')[1]}"
        return _must_row(spec, scheme, cid, n, p["b"], p["m"])
    return table[kind]()


def _must_row_poisson(spec: AuditSpec) -> list[Bound]:
    cid = "must/table2:poisson"
    bad = _relations(spec, Relation.REPLACE, Relation.REPLACE, cid, "upper")
    if bad:
        return [bad]
    q = spec.params["q"]
    return [Bound(cid, "upper", True, f"Poisson sampling with γ = {q}",
                  sympy.log(1 + sympy.Symbol("eta") * (sympy.exp(EPS) - 1)), {"eta": q},
                  Bracket.point(q * spec.base.delta))]


def best_upper(bounds: list[Bound], eps: Fraction) -> tuple[Bound, Bracket] | None:
    """The applicable upper bound with the smallest certified upper end at ε."""
    best = None
    for b in bounds:
        if b.direction == "upper" and b.applies:
            br = b.eps_prime(eps)
            if br is not None and (best is None or br.hi < best[1].hi):
                best = (b, br)
    return best


def best_lower(bounds: list[Bound], eps: Fraction) -> tuple[Bound, Bracket] | None:
    best = None
    for b in bounds:
        if b.direction == "lower" and b.applies:
            br = b.eps_prime(eps)
            if br is not None and (best is None or br.lo > best[1].lo):
                best = (b, br)
    return best
