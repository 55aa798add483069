"""Which catalogued theorems apply to a design file, and what they give (issues 6 and 14).

Each candidate theorem is a claim of the catalogue (verifydp/claims) with its printed formula
(the sympy expressions of the claim modules, never re-typed here). Its hypotheses are data
(`HYPOTHESES`: design kinds, the base mechanism's relation, the protected relation, the δ
convention and the size convention, worded after the claim's declared scope in
verifydp/claims/scopes/, docs/foundations.md#claims); `check_hypotheses` checks every one of
them against the design file, and a `Bound` can only be built as *applying* when every check
passed (`Bound.__post_init__` enforces it). A refused theorem carries the hypothesis that
failed. Values are rigorous brackets of the printed formula at the base ε (mpmath intervals).
Claims the catalogue refutes as printed are replaced by their `:corrected` versions, and the
report says so. A theorem's bound is only as good as the theorem: the audit confronts each
applied bound with the certified worst case of the scaled instance (verifydp.audit.core), and
`verifydp check <id>` shows what the engine found about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil
from typing import Any

import sympy

from verifydp.audit.spec import AuditSpec
from verifydp.claims.bun.amplification import (
    LEMB1_EPS,
    THM22_EPS,
    THM43_EPS,
    thm31_lower_expr,
    thm31_upper_expr,
)
from verifydp.claims.bun.cluster import THM51_EPS, THM52_EPS
from verifydp.claims.scopes import scope_of
from verifydp.designs import eta_bracket, k_law
from verifydp.designs.allocation import round_allocation
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import bracket_text, fraction_text, number_text
from verifydp.exact.tfunc import EPS
from verifydp.population import Relation

SIZE_LAW_TERMS = 200  # the tilted mean of Theorem 3.1 is a sum over the size law's support
# work above which the exact law of K (copies of one record) is not expanded: its cost is
# O(b·m) Fraction operations for MUST.WO/WW (WW: about 3 s at b·m = 2·10^4), O(m) otherwise
K_LAW_WORK = {"wor": 10**9, "wr": 20_000, "must-ow": 20_000, "must-wo": 20_000,
              "must-ww": 5_000}
AR, RE = Relation.ADD_REMOVE, Relation.REPLACE
HYPOTHESIS_NAMES = ("design kind", "base relation", "protected relation", "base δ", "sizes")


def copies_law(scheme: str, n: int, b: int | None, m: int) -> FiniteDist[int] | None:
    """Exact law of K (MUST Theorem 5 closed forms), or None when too costly."""
    work = m if scheme in ("wor", "wr", "must-ow") else (b or 0) * m
    return k_law(scheme, n, b, m) if work <= K_LAW_WORK[scheme] else None


# ---------------------------------------------------------------- hypotheses as data

SizeRule = Callable[[AuditSpec], str | None]  # None: the size convention holds; else why not


@dataclass(frozen=True)
class Hypotheses:
    """What a catalogued theorem assumes, as its paper states it (the claim's scope).

    `base`: the base mechanism's relations the statement admits; `converted` names a relation
    admitted only through a stated reduction (group privacy: ε-deletion-DP ⇒ 2ε-replacement
    DP), which the bound then applies. `delta`: "pure" (δ = 0 only) or "any" (the theorem
    states δ'). `sizes`: the size convention in words, `size_rule` checks it."""

    claim: str
    kinds: frozenset[str]
    base: frozenset[Relation]
    protect: frozenset[Relation]
    delta: str
    sizes: str
    size_rule: SizeRule | None = field(default=None, compare=False)
    converted: dict[Relation, str] = field(default_factory=dict, compare=False)
    protect_words: str = ""  # the stated neighbours, when no design-file relation is them

    def __post_init__(self) -> None:
        if self.delta not in ("pure", "any"):
            raise ValueError(f"δ convention must be 'pure' or 'any', not {self.delta!r}")


@dataclass(frozen=True)
class Check:
    """One hypothesis of a theorem checked against the design file."""

    hypothesis: str  # one of HYPOTHESIS_NAMES
    stated: str  # what the theorem assumes (with the claim's scope wording where it has one)
    found: str  # what the design file has
    ok: bool

    def text(self) -> str:
        return (f"hypothesis '{self.hypothesis}' {'holds' if self.ok else 'fails'}: the "
                f"theorem is stated for {self.stated}; the design file has {self.found}")

    def to_json(self) -> dict[str, Any]:
        return {"hypothesis": self.hypothesis, "stated": self.stated, "found": self.found,
                "ok": self.ok}


def _names(rels: frozenset[Relation]) -> str:
    return " or ".join(sorted(r.value for r in rels))


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _scope_words(claim: str, which: str) -> str:
    """The claim's scope wording for a quantifier (the knowledge lives in verifydp/claims)."""
    scope = scope_of(claim)
    if scope is None:
        return ""
    return str(getattr(scope, which).printed)


def check_hypotheses(spec: AuditSpec, claim: str) -> tuple[Check, ...]:
    """Every hypothesis of `claim` checked against the design file, in HYPOTHESIS_NAMES order."""
    h = HYPOTHESES[claim]
    mech, rel = _scope_words(claim, "mechanisms"), _scope_words(claim, "relations")
    base = spec.base.relation
    via = h.converted.get(base)
    base_found = f"{_article(base.value)} {base.value}-DP base" + (f" ({via})" if via else "")
    size_why = h.size_rule(spec) if h.size_rule else None
    return (
        Check("design kind", " or ".join(sorted(h.kinds)), spec.kind, spec.kind in h.kinds),
        Check("base relation", f"{_article(_names(h.base))} {_names(h.base)}-DP base mechanism"
              + (f" (scope: {mech})" if mech else ""), base_found,
              base in h.base or via is not None),
        Check("protected relation", (h.protect_words or f"{_names(h.protect)} neighbours")
              + (f" (scope: {rel})" if rel else ""), f"{spec.protect.value} neighbours",
              spec.protect in h.protect),
        Check("base δ", "a pure ε-DP base (δ = 0)" if h.delta == "pure"
              else "an (ε, δ)-DP base, δ' as stated", f"δ = {fraction_text(spec.base.delta)}",
              h.delta == "any" or spec.base.delta == 0),
        Check("sizes", h.sizes, size_why or "sizes within the convention", size_why is None),
    )


def first_failure(spec: AuditSpec, claim: str) -> Check | None:
    return next((c for c in check_hypotheses(spec, claim) if not c.ok), None)


@dataclass(frozen=True)
class Bound:
    """One catalogued theorem confronted with the design.

    `checks`: the hypotheses checked against the design file; a bound applies only when all
    of them were checked and hold (enforced), a refused one names the failure in `reason`."""

    claim: str
    direction: str  # "upper" or "lower" (on ε')
    applies: bool
    reason: str  # why it applies (with the parameters used) or the hypothesis that fails
    expr: sympy.Expr | None = None  # ε' as printed, in ε and the named parameters
    params: dict[str, Any] | None = None
    delta_prime: Bracket | None = None  # δ' where the theorem states one
    note: str = ""
    checks: tuple[Check, ...] = ()

    def __post_init__(self) -> None:
        if self.applies:
            names = {c.hypothesis for c in self.checks}
            if names != set(HYPOTHESIS_NAMES) or not all(c.ok for c in self.checks):
                raise ValueError(f"{self.claim} applied without every hypothesis checked")

    @property
    def failed(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)

    def eps_prime(self, eps: Fraction) -> Bracket | None:
        """Rigorous bracket of the theorem's ε' at base ε."""
        return self.eps_prime_at(EpsSpec.of_eps(eps))

    def eps_prime_at(self, eps: EpsSpec) -> Bracket | None:
        """Rigorous bracket of the theorem's ε' at base ε given as ε or as t = e^ε."""
        if not self.applies or self.expr is None:
            return None
        return eps.evaluate(self.expr, self.params or {})


def refused(spec: AuditSpec, claim: str, direction: str, reason: str = "") -> Bound:
    """The theorem does not apply: its first failed hypothesis (or `reason`, for a theorem
    that is never applied, e.g. a qualitative statement)."""
    checks = check_hypotheses(spec, claim) if claim in HYPOTHESES else ()
    bad = next((c for c in checks if not c.ok), None)
    return Bound(claim, direction, False, reason or (bad.text() if bad else "not applied"),
                 checks=checks)


def gate(spec: AuditSpec, claim: str, direction: str) -> Bound | None:
    """None when every hypothesis holds; otherwise the refusal naming the failed one."""
    return refused(spec, claim, direction) if first_failure(spec, claim) else None


def applied(spec: AuditSpec, claim: str, direction: str, reason: str, expr: sympy.Expr,
            params: dict[str, Any], delta_prime: Bracket | None = None, note: str = ""
            ) -> Bound:
    """The theorem applied, after checking every hypothesis against the design file (the only
    way to build an applying Bound; a failed hypothesis gives the refusal instead)."""
    checks = check_hypotheses(spec, claim)
    if not all(c.ok for c in checks):
        return refused(spec, claim, direction)
    return Bound(claim, direction, True, reason, expr, params, delta_prime, note, checks)


# ---------------------------------------------------------------- size conventions


def _one_srs_replacement(spec: AuditSpec) -> str | None:
    if spec.kind == "stratified-fixed" and spec.protect is RE and len(spec.strata) > 1:
        return ("a replacement may move a record between strata, changing two stratum sizes; "
                "the theorem covers a replacement within one SRS")
    return None


def _randomised_at_least_one(spec: AuditSpec) -> str | None:
    p = spec.params
    if p.get("rounding") != "randomised":
        return f"{p.get('rounding')} rounding"
    sizes = [s.size for s in spec.strata] if spec.strata else [spec.size]
    small = min(sizes)
    if p["r"] * (small - 1) < 1:
        return f"r·(|P| − 1) = r·{small - 1} = {fraction_text(p['r'] * (small - 1))} < 1"
    return None


def _size_law_expanded(spec: AuditSpec) -> str | None:
    law = spec.params.get("size_law", {})
    if len(law) > SIZE_LAW_TERMS:
        return (f"a size law over {len(law)} > {SIZE_LAW_TERMS} sizes (the tilted mean is not "
                "expanded)")
    return None


def _deterministic(spec: AuditSpec) -> str | None:
    rounding = spec.params.get("rounding")
    if spec.kind != "stratified-neyman" and rounding == "randomised":
        return "randomised rounding (the allocation does not jump deterministically)"
    if spec.protect is RE and not spec.strata:
        return "replacement neighbours of one population: |P| is fixed, the size never moves"
    return None


def _fewer_clusters_kept(spec: AuditSpec) -> str | None:
    k, ell = len(spec.clusters), spec.params.get("ell", 0)
    return None if k >= 2 and ell < k else f"ℓ = {ell}, k = {k}"


def _randomised(spec: AuditSpec) -> str | None:
    return None if spec.params.get("rounding") == "randomised" else \
        f"{spec.params.get('rounding')} rounding"


def _lemb1_sizes(spec: AuditSpec) -> str | None:
    if spec.kind in ("proportional", "stratified-proportional") and \
            spec.params.get("rounding") == "randomised":
        return "randomised rounding (two random sizes; Theorems 4.3/7.2 cover it)"
    return None


HYPOTHESES: dict[str, Hypotheses] = {h.claim: h for h in (
    Hypotheses("bun/thm2.2", frozenset({"srswor", "stratified-fixed", "systematic-random"}),
               frozenset({RE}), frozenset({RE}), "any",
               "|P| = |P'| = n fixed, an SRS of m ≤ n; one replacement within one SRS",
               _one_srs_replacement,
               {AR: "ε-deletion-DP implies 2ε-replacement-DP on equal-size samples (group "
                    "privacy): applied at 2ε"}),
    Hypotheses("bun/lemB.1:corrected",
               frozenset({"srswor", "stratified-fixed", "proportional",
                          "stratified-proportional"}),
               frozenset({AR}), frozenset({AR}), "pure",
               "fixed sample sizes m on P and m' on P' = P ∪ {x} (deterministic given |P|)",
               _lemb1_sizes),
    Hypotheses("bun/thm3.1:upper:corrected", frozenset({"random-size"}), frozenset({AR}),
               frozenset({RE}), "pure", "a data-independent size law on {0, …, n}",
               _size_law_expanded),
    Hypotheses("bun/thm3.1:lower", frozenset({"random-size"}), frozenset({AR}),
               frozenset({RE}), "pure", "a data-independent size law on {0, …, n}",
               _size_law_expanded),
    Hypotheses("bun/thm4.3", frozenset({"proportional"}), frozenset({AR}), frozenset({AR}),
               "pure", "randomised rounding of r|P| with r|P| ≥ 1 on both neighbours",
               _randomised_at_least_one),
    Hypotheses("bun/thm7.2", frozenset({"stratified-proportional"}), frozenset({AR}),
               frozenset({AR}), "pure",
               "randomised rounding of r|P_h| with r|P_h| ≥ 1 in every stratum",
               _randomised_at_least_one),
    Hypotheses("bun/sec4.1",
               frozenset({"proportional", "stratified-proportional", "stratified-neyman"}),
               frozenset({AR, RE}), frozenset({AR, RE}), "pure",
               "a deterministic allocation f with f(P') = f(P) + Δ for a neighbour P'",
               _deterministic),
    # an upper bound must cover every protected pair: a design file's add-remove neighbours
    # also add a record as a new cluster (k + 1 clusters), which C'_i = C_i ∪ {x} does not
    # (the certified full-size worst case finds that pair far worse); no relation of a design
    # file is this one, so the theorem is reported, never applied
    Hypotheses("bun/thm5.2", frozenset({"cluster-srs"}), frozenset({AR}), frozenset(),
               "pure", "ℓ < k whole clusters kept, C'_i = C_i ∪ {x}", _fewer_clusters_kept,
               protect_words="add-remove within an existing cluster only (C'_i = C_i ∪ {x}, "
                             "k fixed), not a record added as a new cluster"),
    Hypotheses("bun/thm5.1", frozenset({"cluster-srs"}), frozenset({AR}), frozenset({AR}),
               "pure", "ℓ < k whole clusters kept, C'_i = C_i ∪ {x}", _fewer_clusters_kept),
    Hypotheses("bun/sec6.1:pps", frozenset({"poisson-pps"}), frozenset({AR, RE}),
               frozenset({RE}), "pure",
               "inclusion probabilities a_i = min(1, n·s_i/T) in closed form"),
    Hypotheses("bun/sec6.3:systematic", frozenset({"systematic-fixed"}), frozenset({AR, RE}),
               frozenset({AR}), "pure", "a fixed, known order, interval k"),
    Hypotheses("must/table2:poisson", frozenset({"poisson"}), frozenset({AR}),
               frozenset({AR}), "any", "independent inclusion with probability γ"),
    Hypotheses("must/table2:wor", frozenset({"srswor"}), frozenset({RE}), frozenset({RE}),
               "any", "m of n without replacement, 1 ≤ m ≤ n"),
    Hypotheses("must/table2:wr", frozenset({"srswr"}), frozenset({RE}), frozenset({RE}),
               "any", "m draws with replacement from n"),
    Hypotheses("must/thm5:ow", frozenset({"must-ow"}), frozenset({RE}), frozenset({RE}),
               "any", "MUST.OW(n, b, m)"),
    Hypotheses("must/thm5:wo", frozenset({"must-wo"}), frozenset({RE}), frozenset({RE}),
               "any", "MUST.WO(n, b, m), m ≤ b"),
    Hypotheses("must/thm5:ww:corrected", frozenset({"must-ww"}), frozenset({RE}),
               frozenset({RE}), "any", "MUST.WW(n, b, m)"),
)}
MUST_CLAIMS = {"must-ow": "must/thm5:ow", "must-wo": "must/thm5:wo",
               "must-ww": "must/thm5:ww:corrected"}


# ---------------------------------------------------------------- per family


def _thm22(spec: AuditSpec, m: int | Fraction, n: int, what: str) -> list[Bound]:
    cid = "bun/thm2.2"
    bad = gate(spec, cid, "upper")
    if bad:
        return [bad]
    params = {"m": m, "n": n}
    dp = Bracket.point(Fraction(m) / n * spec.base.delta)
    if spec.base.relation is RE:
        return [applied(spec, cid, "upper", f"{what}, m = {m} of n = {n}, replacement-DP base",
                        THM22_EPS, params, dp)]
    expr = THM22_EPS.xreplace({EPS: 2 * EPS})
    return [applied(spec, cid, "upper", f"{what}, m = {m} of n = {n}; the base is "
                    "ε-deletion-DP, hence 2ε-replacement-DP (group privacy), so the theorem is "
                    "applied at 2ε", expr, params, Bracket.point(2 * dp.lo), note="applied at 2ε")]


def _lemb1(spec: AuditSpec, m: int | Fraction, n: int, jump: int, what: str) -> Bound:
    """Lemma B.1 (corrected: deletion-DP base, min(|P|, |P'|)); |P| = n − 1 is the worst size."""
    cid = "bun/lemB.1:corrected"
    params = {"m": m, "m_prime": Fraction(m) + jump, "P_size": n - 1}
    return applied(spec, cid, "upper",
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
    up, lo = "bun/thm3.1:upper:corrected", "bun/thm3.1:lower"
    out = []
    for cid, direction in ((up, "upper"), (lo, "lower")):
        bad = gate(spec, cid, direction)
        if bad:
            out.append(bad)
            continue
        law = spec.params["size_law"]
        expr = thm31_upper_expr(law, two_eps=True) if direction == "upper" else \
            thm31_lower_expr(law)
        out.append(applied(
            spec, cid, direction, f"data-independent size law over {len(law)} sizes, n = "
            f"{spec.size}, deletion-DP base, replacement neighbours", expr, {"n": spec.size},
            note=("bun/thm3.1:upper as printed (e^ε) is refuted by the engine; the corrected "
                  "e^{2ε} version is used") if direction == "upper" else ""))
    return out


def _thm43(spec: AuditSpec, cid: str, what: str) -> Bound:
    return applied(spec, cid, "upper", f"{what} with randomised rounding, r = "
                   f"{fraction_text(spec.params['r'])}, every size ≥ 1/r", THM43_EPS,
                   {"r": spec.params["r"]})


def _sec41(spec: AuditSpec, sizes: list[tuple[str, int]]) -> Bound:
    """§4.1/§4.3 lower bound Δ·ε = ε when round(r|P|) jumps next to the given sizes."""
    cid = "bun/sec4.1"
    bad = gate(spec, cid, "lower")
    if bad:
        return bad
    r, rule = spec.params["r"], spec.params["rounding"]

    def alloc(n: int) -> int:
        return round_allocation(r * n, rule).support()[0]

    jumps = [(nm, n, k) for nm, n in sizes for k in (n - 1, n + 1)
             if k >= 0 and alloc(k) != alloc(n)]
    if not jumps:
        return refused(spec, cid, "lower", f"round(r|P|) does not jump next to the given sizes "
                       f"(it does every {ceil(1 / r)} records or so: the exact instance "
                       "includes such a size)")
    nm, n, k = jumps[0]
    return applied(spec, cid, "lower",
                   f"round(r|P|) jumps at the given size of {nm}: {n} → {k} records moves m "
                   f"from {alloc(n)} to {alloc(k)} (bun/sec4.3:det-rounding); the mechanism "
                   "releasing the noisy sample size (M^count) then loses Δ·ε with Δ = 1",
                   EPS, {})


def _det_rounding(spec: AuditSpec, sizes: list[tuple[str, int]]) -> list[Bound]:
    """Deterministic rounding: Lemma B.1 (corrected) upper bound with |m − m'| ≤ 1, and the
    §4.1 lower bound."""
    r, rule = spec.params["r"], spec.params["rounding"]

    def alloc(n: int) -> int:
        return round_allocation(r * n, rule).support()[0]

    # P' = P ∪ {x} with |P| ∈ {N − 1, N}: the largest m/(|P| + 1) gives the largest bound
    name, small = max(((nm, k) for nm, n in sizes for k in (n - 1, n) if k >= 0),
                      key=lambda c: Fraction(alloc(c[1]), c[1] + 1))
    return [_lemb1(spec, alloc(small), small + 1, 1,
                   f"deterministic rounding, {name} (largest m/(|P|+1))"), _sec41(spec, sizes)]


def _proportional(spec: AuditSpec) -> list[Bound]:
    if spec.params["rounding"] == "randomised":
        return [_thm43(spec, "bun/thm4.3", "proportional allocation")]
    return [refused(spec, "bun/thm4.3", "upper"),
            *_det_rounding(spec, [("the population", spec.size)])]


def _stratified(spec: AuditSpec) -> list[Bound]:
    if spec.kind == "stratified-proportional":
        if spec.params["rounding"] == "randomised":
            return [_thm43(spec, "bun/thm7.2", "stratified proportional allocation")]
        return [refused(spec, "bun/thm7.2", "upper"),
                *_det_rounding(spec, [(f"stratum {s.name!r}", s.size) for s in spec.strata])]
    # stratified-fixed: strata are independent; the worst stratum decides
    sizes = spec.params["sizes"]
    worst = max(spec.strata, key=lambda s: Fraction(sizes[s.name], s.size))
    m, n = sizes[worst.name], worst.size
    what = f"fixed allocation, worst stratum {worst.name!r} (largest sampling fraction)"
    return [*_thm22(spec, m, n, what), _lemb1(spec, m, n, 0, what)]


def _neyman(spec: AuditSpec, delta_alloc: int | None) -> list[Bound]:
    cid = "bun/sec4.1"
    out = [refused(spec, "bun/lemB.1:corrected", "upper")]
    bad = gate(spec, cid, "lower")
    if bad:
        return [bad, *out]
    if delta_alloc is None:
        return [refused(spec, cid, "lower", "the neighbour search did not run"), *out]
    return [applied(spec, cid, "lower",
                    f"Neyman allocation is deterministic and data dependent "
                    f"(bun/sec7.2:neyman): a neighbour changes a stratum's allocation by "
                    f"Δ = {delta_alloc}; releasing that stratum's size with noise loses Δ·ε",
                    delta_alloc * EPS, {}), *out]


def _clusters(spec: AuditSpec) -> list[Bound]:
    out = []
    sizes, k, ell = spec.clusters, len(spec.clusters), spec.params["ell"]
    for cid, direction, expr, other in (("bun/thm5.2", "upper", THM52_EPS, "n_max"),
                                        ("bun/thm5.1", "lower", THM51_EPS, "n_min")):
        bad = gate(spec, cid, direction)
        if bad:
            out.append(bad)
            continue
        # the record goes to the largest cluster: the largest n_i + n_other for both bounds
        n_i, n_o = sizes[0], sizes[1] if direction == "upper" else sizes[-1]
        out.append(applied(spec, cid, direction,
                           f"ℓ = {ell} of k = {k} clusters, record added to the largest cluster "
                           f"(n_i = {n_i}, {other} = {n_o})", expr,
                           {"ell": ell, "k": k, "n_i": n_i, other: n_o}))
    return out


def _pps(spec: AuditSpec) -> list[Bound]:
    cid = "bun/sec6.1:pps"
    bad = gate(spec, cid, "lower")
    if bad:
        return [bad]
    total = sum(m * c for m, c in spec.size_classes)
    top = spec.size_classes[-1][0]
    a = min(Fraction(1), spec.params["expected_size"] * top / total)
    return [applied(spec, cid, "lower",
                    "the largest inclusion probability a_i = min(1, n·s_i/T) = "
                    f"{fraction_text(a)} (size measure {top})",
                    sympy.log(1 + sympy.Symbol("a") * (sympy.exp(EPS) - 1)), {"a": a})]


def _systematic(spec: AuditSpec) -> list[Bound]:
    k, n = spec.params["interval"], spec.size
    if spec.kind == "systematic-random":
        m = -(-n // k)  # the larger of the two SRS sizes of the mixture (sec6.3)
        return _thm22(spec, m, n, f"random secret order ≡ SRS of ⌈N/interval⌉ = {m} "
                                  "(bun/sec6.3:systematic)")
    return [applied(spec, "bun/sec6.3:systematic", "lower",
                    "a fixed, known order makes systematic sampling cluster sampling of the "
                    "interval's residue classes: no amplification (ε' ≥ ε)", EPS, {})]


def _must_row(spec: AuditSpec, scheme: str, cid: str, n: int, b: int | None,
              m: int) -> list[Bound]:
    """MUST Table 2 / Theorem 5 for substitution: ε' = log(1 + η(e^ε − 1)) together with
    δ' = Σ_j Pr[K = j] δ_j(ε), δ_j the base's group-j profile. With only an (ε, δ) guarantee
    known, δ_1 = δ and δ_j ≤ 1, so δ' ≤ Pr[K = 1]·δ + Pr[K ≥ 2] (certified here)."""
    bad = gate(spec, cid, "upper")
    if bad:
        return [bad]
    lo, hi = eta_bracket(scheme, n, b, m, bits=64)
    law = copies_law(scheme, n, b, m)
    expr = sympy.log(1 + sympy.Symbol("eta") * (sympy.exp(EPS) - 1))
    note = ""
    if law is not None:
        p1 = law.prob(1)
        many = 1 - law.prob(0) - p1
        dp: Bracket | None = Bracket.point(p1 * spec.base.delta + many)
        if many:
            note = (f"Pr[K ≥ 2] = {number_text(float(many), 3)}: the record can appear several "
                    "times, and a pure ε-DP base then only gives δ' > 0 (group privacy)")
    else:
        dp = Bracket(Fraction(0), hi)
        note = "law of K not expanded (b·m too large); δ' ≤ η = Pr[K ≥ 1]"
    if cid == "must/thm5:ww:corrected":
        note = ("must/thm5:ww as printed (formulas labelled MUST.OW) is refuted; the corrected "
                "MUST.WW reading is applied" + (f". {note}" if note else ""))
    return [applied(spec, cid, "upper",
                    f"η = Pr[K ≥ 1] ∈ {bracket_text(lo, hi)} (n = {n}"
                    + (f", b = {b}" if b is not None else "") + f", m = {m}); the (ε', δ') pair "
                    "holds with δ' as stated", expr, {"eta": hi}, dp, note)]  # ε' ↑ in η


def _poisson(spec: AuditSpec) -> list[Bound]:
    cid = "must/table2:poisson"
    q = spec.params["q"]
    return [applied(spec, cid, "upper", f"Poisson sampling with γ = {fraction_text(q)}, "
                    "add/remove on the sample and on the population",
                    sympy.log(1 + sympy.Symbol("eta") * (sympy.exp(EPS) - 1)), {"eta": q},
                    Bracket.point(q * spec.base.delta))]


def catalogue_bounds(spec: AuditSpec, neyman_delta: int | None = None) -> list[Bound]:
    """Every candidate theorem for the design, applicable or not (with the reason)."""
    kind, p, n = spec.kind, spec.params, spec.size
    table: dict[str, Callable[[], list[Bound]]] = {
        "srswor": lambda: _srswor(spec),
        "srswr": lambda: _must_row(spec, "wr", "must/table2:wr", n, None, p["m"]),
        "poisson": lambda: _poisson(spec),
        "random-size": lambda: _random_size(spec),
        "proportional": lambda: _proportional(spec),
        "stratified-proportional": lambda: _stratified(spec),
        "stratified-fixed": lambda: _stratified(spec),
        "stratified-neyman": lambda: _neyman(spec, neyman_delta),
        "cluster-srs": lambda: _clusters(spec),
        "two-stage-cluster": lambda: _clusters(spec),
        "cluster-pps": lambda: [*_clusters(spec), refused(
            spec, "bun/sec6.2:pps-cluster", "lower",
            "qualitative only (large clusters break amplification); see the exact instance")],
        "poisson-pps": lambda: _pps(spec),
        "successive-pps": lambda: _pps(spec),
        "systematic-fixed": lambda: _systematic(spec),
        "systematic-random": lambda: _systematic(spec),
    }
    if kind in MUST_CLAIMS:
        return _must_row(spec, kind, MUST_CLAIMS[kind], n, p["b"], p["m"])
    return table[kind]()


def best_upper(bounds: list[Bound], eps: Fraction,
               excluded: frozenset[str] = frozenset()) -> tuple[Bound, Bracket] | None:
    """The applicable upper bound with the smallest certified upper end at ε (bounds whose
    claim is in `excluded`, e.g. contradicted on the instance, are skipped)."""
    best = None
    for b in bounds:
        if b.direction == "upper" and b.applies and b.claim not in excluded:
            br = b.eps_prime(eps)
            if br is not None and (best is None or br.hi < best[1].hi):
                best = (b, br)
    return best


def best_lower(bounds: list[Bound], eps: Fraction,
               excluded: frozenset[str] = frozenset()) -> tuple[Bound, Bracket] | None:
    best = None
    for b in bounds:
        if b.direction == "lower" and b.applies and b.claim not in excluded:
            br = b.eps_prime(eps)
            if br is not None and (best is None or br.lo > best[1].lo):
                best = (b, br)
    return best
