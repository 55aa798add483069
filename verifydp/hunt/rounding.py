"""Rounding jumps of proportional allocation rules, found and proved complete with z3.

Bun et al. §4.3 (bun/sec4.3:det-rounding, bun/thm4.3) and §7.3 (bun/thm7.2): the sample size
m(N) = ρ(r·N) of a population of N records, with ρ a deterministic rounding rule of
`verifydp.designs.allocation` (the same definitions as `round_allocation`):

* half-up:   ρ(x) = ⌊x + 1/2⌋;
* half-even: ρ(x) = the nearest integer to x, ties to the even one (Python's `round`);
* floor:     ρ(x) = ⌊x⌋.

Definitions (add-remove neighbours P ⊂ P', |P| = N, |P'| = N + 1):

* a **jump point** of (ρ, r) is an N with m(N + 1) ≠ m(N): there the sample size itself
  tells P from P', and no amplification is possible (bun/sec4.3:det-rounding, where N = 14,
  r = 1/10). `jump_set` returns the complete set of jump points with n_min ≤ N ≤ n_max.
* the **allocation sensitivity** is Δ = max over neighbours |m(P) − m(P')|
  = max_N |m(N + 1) − m(N)|. For 0 < r < 1, z3 proves 0 ≤ m(N + 1) − m(N) ≤ 1 for every
  integer N (no jump is ever by 2 or more), so Δ = 1 and the jump points are exactly where
  the size changes at all.
* stratified proportional allocation m_h = ρ(r·N_h) (`StratifiedProportional`): under
  stratified deletion neighbours one stratum grows by one record; under the stratified
  replacement of Def. 7.1 one record moves from stratum a to stratum b (N_a + 1, N_b) vs
  (N_a, N_b + 1). `stratified_sensitivity` gives the largest change of one stratum's
  allocation, of the total sample size and of the allocation vector in L1, each attained
  by a z3 model in range and proved maximal for all stratum sizes ≥ 0.

How completeness is proved without enumerating 10^6 models, for r = p/q in lowest terms:

1. periodicity: with Q = q (floor, half-up) or Q = 2q (half-even, whose ties alternate
   between rounding down and up), z3 proves m(N + Q) = m(N) + pQ/q for every integer N
   (the negation is unsat), so jump(N + Q) ⇔ jump(N);
2. the residues R = {N mod Q : jump(N)} are enumerated over one period with z3 models and
   blocking clauses until unsat, and each is re-checked with `round_allocation` in exact
   rationals (the z3 encoding of ρ must agree with the engine's definition on the period);
3. z3 then proves directly, over the whole range, jump(N) ⇔ (N mod Q) ∈ R (unsat of the
   negation): a second, independent proof of completeness on [n_min, n_max].

Floats are never involved; every z3 answer other than the expected unsat raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import z3

from verifydp.designs.allocation import Rounding, check_rate, round_allocation
from verifydp.population import Relation

DETERMINISTIC = (Rounding.HALF_UP, Rounding.HALF_EVEN, Rounding.FLOOR)
Z3_TIMEOUT_MS = 60_000


class ProofFailure(RuntimeError):
    """z3 did not answer unsat where a proof needed it (sat or unknown)."""


def sample_size(rule: Rounding | str, r: Fraction, n: int) -> int:
    """m(n) = ρ(r·n), exactly as the designs compute it (`round_allocation`)."""
    (m,) = round_allocation(Fraction(r) * n, rule).support()
    return m


def _rule(rule: Rounding | str) -> Rounding:
    rule = Rounding.parse(rule)
    if rule not in DETERMINISTIC:
        raise ValueError(f"jump points are defined for deterministic rounding, not {rule.value}")
    return rule


def period(rule: Rounding | str, r: Fraction) -> int:
    """Q with m(N + Q) = m(N) + rQ for all N (proved by `jump_set`)."""
    r = check_rate(r)
    return 2 * r.denominator if _rule(rule) is Rounding.HALF_EVEN else r.denominator


def size_term(rule: Rounding, r: Fraction, n: z3.ArithRef, name: str) -> tuple[z3.ArithRef, z3.BoolRef]:
    """A fresh z3 integer m and the constraint "m = ρ(r·n)" in linear integer arithmetic."""
    p, q = r.numerator, r.denominator
    m = z3.Int(name)
    if rule is Rounding.FLOOR:  # q m ≤ p n < q (m + 1)
        return m, z3.And(q * m <= p * n, p * n < q * (m + 1))
    if rule is Rounding.HALF_UP:  # ⌊(2pn + q) / 2q⌋
        return m, z3.And(2 * q * m <= 2 * p * n + q, 2 * p * n + q < 2 * q * (m + 1))
    # half-even: |m − pn/q| ≤ 1/2, and at a tie (distance exactly 1/2) m is even
    gap = 2 * q * m - 2 * p * n
    tie = z3.Or(gap == q, gap == -q)
    return m, z3.And(gap >= -q, gap <= q, z3.Implies(tie, m % 2 == 0))


def _unsat(solver: z3.Solver, what: str) -> str:
    res = solver.check()
    if res != z3.unsat:
        extra = f": counterexample {solver.model()}" if res == z3.sat else ""
        raise ProofFailure(f"z3 answered {res} for the negation of '{what}'{extra}")
    return f"z3 unsat of the negation: {what}"


def _solver() -> z3.Solver:
    s = z3.Solver()
    s.set("timeout", Z3_TIMEOUT_MS)
    return s


def _step(rule: Rounding, r: Fraction, n: z3.ArithRef, tag: str) -> tuple[z3.ArithRef, z3.BoolRef]:
    """d = m(n + 1) − m(n) as a z3 term, with its defining constraints."""
    m0, c0 = size_term(rule, r, n, f"m0_{tag}")
    m1, c1 = size_term(rule, r, n + 1, f"m1_{tag}")
    return m1 - m0, z3.And(c0, c1)


@dataclass(frozen=True)
class JumpSet:
    """All N in [n_min, n_max] with m(N + 1) ≠ m(N), as N ≡ residue (mod period)."""

    rule: Rounding
    r: Fraction
    n_min: int
    n_max: int
    period: int
    residues: tuple[int, ...]
    sensitivity: int  # max |m(N + 1) − m(N)| over all integers N (proved)
    proofs: tuple[str, ...]

    def __contains__(self, n: object) -> bool:
        return (
            isinstance(n, int) and self.n_min <= n <= self.n_max
            and n % self.period in self.residues
        )

    def __iter__(self) -> Iterator[int]:
        base = self.n_min - self.n_min % self.period
        for start in range(base, self.n_max + 1, self.period):
            for res in self.residues:
                if self.n_min <= start + res <= self.n_max:
                    yield start + res

    def __len__(self) -> int:
        return sum(
            _count_congruent(self.n_min, self.n_max, res, self.period) for res in self.residues
        )

    def first_at_least(self, n: int) -> int | None:
        """The smallest jump point ≥ n (None if there is none up to n_max)."""
        start = max(n, self.n_min)
        cand = min((start + (res - start) % self.period for res in self.residues), default=None)
        return cand if cand is not None and cand <= self.n_max else None

    def describe(self) -> str:
        return (
            f"{self.rule.value}, r = {self.r}: {len(self)} jump points N ∈ [{self.n_min}, "
            f"{self.n_max}] (m(N+1) = m(N) + 1), N mod {self.period} ∈ {list(self.residues)}"
        )


def _count_congruent(lo: int, hi: int, res: int, mod: int) -> int:
    """#{N ∈ [lo, hi] : N ≡ res (mod mod)}."""
    if hi < lo:
        return 0
    first = lo + (res - lo) % mod
    return 0 if first > hi else (hi - first) // mod + 1


def _period_residues(rule: Rounding, r: Fraction, per: int) -> list[int]:
    """Residues of the jump points in [0, per): z3 models with blocking clauses."""
    s = _solver()
    n = z3.Int("N")
    d, cons = _step(rule, r, n, "res")
    s.add(cons, n >= 0, n < per, d != 0)
    found = []
    while True:
        res = s.check()
        if res == z3.unsat:
            return sorted(found)
        if res != z3.sat:
            raise ProofFailure(f"z3 answered {res} while enumerating jump residues")
        v = s.model()[n].as_long()
        found.append(v)
        s.add(n != v)


def _range_proof(rule: Rounding, r: Fraction, per: int, residues: list[int], n_min: int,
                 n_max: int) -> str:
    """For each class c mod per, unsat of: N ≡ c, n_min ≤ N ≤ n_max, jump(N) ≠ (c ∈ R).
    (One query per class on an incremental solver: a single query with a disjunction over
    hundreds of residues made z3 answer unknown.)"""
    s = _solver()
    n, k = z3.Int("N"), z3.Int("k")
    d, cd = _step(rule, r, n, "range")
    s.add(cd, n >= n_min, n <= n_max)
    members = set(residues)
    for c in range(per):
        s.push()
        s.add(n == per * k + c, (d != 0) != (c in members))
        _unsat(s, f"N ≡ {c} (mod {per}) in range: jump ⇔ {c in members}")
        s.pop()
    return (f"z3 unsat of the negation, for each of the {per} classes mod {per}: "
            f"∀N ∈ [{n_min}, {n_max}]: m(N + 1) ≠ m(N) ⇔ N mod {per} ∈ {residues}")


def jump_set(rule: Rounding | str, r: Fraction | int | str, n_max: int = 10**6,
             n_min: int = 1) -> JumpSet:
    """The complete set of jump points N ∈ [n_min, n_max] of (ρ, r), with its proofs."""
    rule, r = _rule(rule), check_rate(r)
    if not 0 <= n_min <= n_max:
        raise ValueError(f"need 0 ≤ n_min ≤ n_max, got {n_min}, {n_max}")
    per = period(rule, r)
    shift = r * per
    assert shift.denominator == 1
    proofs = []

    # 1. periodicity, for every integer N
    s = _solver()
    n = z3.Int("N")
    a, ca = size_term(rule, r, n, "a")
    b, cb = size_term(rule, r, n + per, "b")
    s.add(ca, cb, b != a + int(shift))
    proofs.append(_unsat(s, f"∀N ∈ ℤ: m(N + {per}) = m(N) + {shift}"))

    # the step is 0 or 1 for every integer N: the allocation sensitivity is at most 1
    s = _solver()
    d, cd = _step(rule, r, n, "sens")
    s.add(cd, z3.Or(d < 0, d > 1))
    proofs.append(_unsat(s, "∀N ∈ ℤ: m(N + 1) − m(N) ∈ {0, 1}"))

    # 2. the residues on one period, cross-checked against the engine's rounding
    residues = _period_residues(rule, r, per)
    for v in range(per):
        jumped = sample_size(rule, r, v + 1) != sample_size(rule, r, v)
        if jumped != (v in residues):
            raise ProofFailure(
                f"z3 encoding of {rule.value} disagrees with round_allocation at N = {v}, r = {r}"
            )
    proofs.append(f"z3 models with blocking clauses: jump residues mod {per} are {residues}; "
                  f"round_allocation agrees on N = 0..{per - 1}")

    # 3. completeness and soundness over the range, directly, one residue class at a time
    proofs.append(_range_proof(rule, r, per, residues, n_min, n_max))
    sens = 1 if residues else 0
    return JumpSet(rule, r, n_min, n_max, per, tuple(residues), sens, tuple(proofs))


def jump_grid(rates: Iterable[Fraction | int | str], rules: Iterable[Rounding | str] = DETERMINISTIC,
              n_max: int = 10**6, n_min: int = 1) -> tuple[JumpSet, ...]:
    """`jump_set` for every (rule, r) of the grid."""
    rules = tuple(rules)
    return tuple(jump_set(rule, r, n_max, n_min) for r in rates for rule in rules)


# ---------------------------------------------------------------- stratified allocation


@dataclass(frozen=True)
class StratifiedSensitivity:
    """Largest change of the proportional allocation m_h = ρ(r·N_h) between stratified
    neighbours: per stratum, of the total Σ_h m_h, and of the vector in L1. Each maximum is
    attained by `witness` (stratum sizes of P and P', within [n_min, n_max]) and proved to be
    the maximum over all stratum sizes ≥ 0 (only the strata that change matter)."""

    rule: Rounding
    r: Fraction
    relation: Relation
    max_stratum_change: int
    max_total_change: int
    max_l1_change: int
    witnesses: dict[str, tuple[tuple[int, ...], tuple[int, ...]]]
    proofs: tuple[str, ...]


def _allocation_changes(rule: Rounding, r: Fraction, relation: Relation, na: z3.ArithRef,
                        nb: z3.ArithRef) -> tuple[dict[str, z3.ArithRef], z3.BoolRef]:
    """z3 terms for the three change measures between P and P' (two strata a, b)."""
    da, ca = _step(rule, r, na, "a")
    if relation is Relation.ADD_REMOVE:  # P = (N_a, N_b), P' = (N_a + 1, N_b)
        absa = z3.If(da >= 0, da, -da)
        return {"stratum": absa, "total": absa, "l1": absa}, ca
    # replace (Def. 7.1): P = (N_a + 1, N_b), P' = (N_a, N_b + 1); m_a drops by da, m_b grows by db
    db, cb = _step(rule, r, nb, "b")
    absa, absb = z3.If(da >= 0, da, -da), z3.If(db >= 0, db, -db)
    tot = db - da
    return {
        "stratum": z3.If(absa >= absb, absa, absb),
        "total": z3.If(tot >= 0, tot, -tot),
        "l1": absa + absb,
    }, z3.And(ca, cb)


def stratified_sensitivity(rule: Rounding | str, r: Fraction | int | str,
                           relation: Relation | str = Relation.ADD_REMOVE,
                           n_max: int = 10**6, n_min: int = 1) -> StratifiedSensitivity:
    """Allocation sensitivity of stratified proportional allocation (bun §7.3, Def. 7.1)."""
    rule, r = _rule(rule), check_rate(r)
    relation = Relation.parse(relation) if isinstance(relation, str) else relation
    na, nb = z3.Int("N_a"), z3.Int("N_b")
    changes, cons = _allocation_changes(rule, r, relation, na, nb)
    best: dict[str, int] = {}
    witnesses: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    proofs = []
    for key, term in changes.items():
        value = 0
        while True:  # climb: a model in range attaining value + 1?
            s = _solver()
            s.add(cons, na >= n_min, na <= n_max, nb >= n_min, nb <= n_max, term >= value + 1)
            res = s.check()
            if res == z3.unsat:
                break
            if res != z3.sat:
                raise ProofFailure(f"z3 answered {res} while maximising the {key} change")
            value += 1
        if value:
            witnesses[key] = _smallest_witness(cons, term, value, relation, na, nb, n_min, n_max)
        s = _solver()  # the maximum holds for all stratum sizes, not only in range
        s.add(cons, na >= 0, nb >= 0, term >= value + 1)
        proofs.append(_unsat(s, f"∀ stratum sizes ≥ 0: {key} change ≤ {value}"))
        best[key] = value
    for key, (sp, sq) in witnesses.items():  # re-check every witness with round_allocation
        got = _exact_change(rule, r, sp, sq)[key]
        if got != best[key]:
            raise ProofFailure(f"witness {sp} vs {sq} gives {key} change {got} ≠ {best[key]}")
    return StratifiedSensitivity(rule, r, relation, best["stratum"], best["total"], best["l1"],
                                 witnesses, tuple(proofs))


def _smallest_witness(cons: z3.BoolRef, term: z3.ArithRef, value: int, relation: Relation,
                      na: z3.ArithRef, nb: z3.ArithRef, n_min: int,
                      n_max: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Stratum sizes attaining `value`, with N_a + N_b as small as possible (z3 Optimize)."""
    opt = z3.Optimize()
    opt.set("timeout", Z3_TIMEOUT_MS)
    opt.add(cons, na >= n_min, na <= n_max, nb >= n_min, nb <= n_max, term >= value)
    opt.minimize(na + nb)
    if opt.check() != z3.sat:
        raise ProofFailure("z3 Optimize lost a witness it had found")
    mod = opt.model()
    return _witness(relation, mod[na].as_long(), mod[nb].as_long())


def _witness(relation: Relation, a: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if relation is Relation.ADD_REMOVE:
        return (a, b), (a + 1, b)
    return (a + 1, b), (a, b + 1)


def _exact_change(rule: Rounding, r: Fraction, sizes_p: tuple[int, ...],
                  sizes_q: tuple[int, ...]) -> dict[str, int]:
    mp = [sample_size(rule, r, n) for n in sizes_p]
    mq = [sample_size(rule, r, n) for n in sizes_q]
    diffs = [abs(x - y) for x, y in zip(mp, mq)]
    return {"stratum": max(diffs), "total": abs(sum(mp) - sum(mq)), "l1": sum(diffs)}
