"""True stability of PINQ transformations vs the declared one (ebadi Definition 3, §3).

`exhaustive_stability` searches every sequence over a small domain up to a length and every
insertion of one record at any position (the neighbour relation of `plan.neighbours`), and
returns max |T(A) Δ T(A')| (multiset symmetric difference, summed over the outputs of a
multi-output transformation such as Partition) with a pair attaining it.

`z3_stability_bound` proves a bound for *all* lengths, sizes n and insertion positions for the
positional operations (Take, Skip) and for Where: records are tracked by identity (old index or
"the inserted record"); the value-level multiset difference is at most the identity-level one
(matching equal identities is a matching of equal values), so an identity bound is a bound.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from verifydp.pinq.plan import Dataset, Node, Plan, PlanBuilder, charge, evaluate

Transform = Callable[[Dataset], Sequence[Dataset]]  # one or more output datasets


def sym_diff(a: Dataset, b: Dataset) -> int:
    """|a Δ b| for multisets."""
    ca, cb = Counter(a), Counter(b)
    return sum(((ca - cb) + (cb - ca)).values())


def sequences(domain: Sequence[str], max_len: int) -> Iterator[Dataset]:
    for n in range(max_len + 1):
        yield from itertools.product(domain, repeat=n)


def insertions(a: Dataset, domain: Sequence[str]) -> Iterator[Dataset]:
    for i in range(len(a) + 1):
        for v in domain:
            yield a[:i] + (v,) + a[i:]


@dataclass(frozen=True)
class StabilityResult:
    stability: int
    pair: tuple[Dataset, Dataset] | None  # neighbours attaining it
    checked: int


def exhaustive_stability(
    transform: Transform, domain: Sequence[str] = ("a", "b", "c"), max_len: int = 4
) -> StabilityResult:
    """Exact max over neighbours A (|A| ≤ max_len) and A' = A plus one record."""
    best, pair, checked = 0, None, 0
    for a in sequences(domain, max_len):
        out_a = transform(a)
        for b in insertions(a, domain):
            checked += 1
            d = sum(sym_diff(x, y) for x, y in zip(out_a, transform(b), strict=True))
            if pair is None or d > best:
                best, pair = d, (a, b)
    return StabilityResult(best, pair, checked)


# ---------------------------------------------------------------- z3, all sizes


def _differs(op: str, n: z3.ArithRef, m: z3.ArithRef, j: z3.ArithRef,
             i: z3.ArithRef, keep_old: z3.FuncDeclRef, keep_new: z3.BoolRef) -> z3.BoolRef:
    """Item i (−1 = the inserted record, 0..m−1 = old positions) is in exactly one output."""
    pos = z3.If(i < j, i, i + 1)  # position of old record i after inserting at j
    if op == "take":
        before, after, inserted = i < n, pos < n, j < n
    elif op == "skip":
        before, after, inserted = i >= n, pos >= n, j >= n
    else:  # where: membership depends on the record only, not on its position
        before = after = keep_old(i)
        inserted = keep_new
    old = z3.And(i >= 0, i < m, before != after)
    return z3.Or(z3.And(i == -1, inserted), old)


def z3_stability_bound(op: str, bound: int) -> bool:
    """True when z3 proves |T(A) Δ T(A')| ≤ bound for every length m, parameter n ≥ 0 and
    insertion position j ∈ [0, m] (T = take(n), skip(n) or where(predicate))."""
    n, m, j = z3.Ints("n m j")
    items = z3.Ints(" ".join(f"i{k}" for k in range(bound + 1)))
    keep_old = z3.Function("keep", z3.IntSort(), z3.BoolSort())
    keep_new = z3.Bool("keep_new")
    s = z3.Solver()
    s.add(n >= 0, m >= 0, j >= 0, j <= m)
    s.add(z3.Distinct(*items))
    for i in items:
        s.add(i >= -1, _differs(op, n, m, j, i, keep_old, keep_new))
    return s.check() == z3.unsat


def plan_transform(plan: Plan, outputs: Sequence[int]) -> Transform:
    """The transformation "run the deterministic plan on D, read nodes `outputs`"."""
    def run(x: Dataset) -> tuple[Dataset, ...]:
        vals = evaluate(plan, x)
        return tuple(vals[k] for k in outputs)  # type: ignore[misc]
    return run


def unary(op: str, **params: Any) -> tuple[Plan, tuple[int, ...]]:
    """source → op (→ both parts for a partition; union: with `with_` public data or D)."""
    b = PlanBuilder()
    src = b.add("source")
    if op == "union":
        other = src if params.get("self") else b.add("public", values=params["values"])
        return _finish(b, b.add("union", src, other))
    node = b.add(op, src, **params)
    if op == "partition":
        parts = (b.add("part", node, key="true"), b.add("part", node, key="false"))
        return b.build(), parts
    return _finish(b, node)


def _finish(b: PlanBuilder, node: int) -> tuple[Plan, tuple[int, ...]]:
    return b.build(), (node,)


def exhaustive_binary_stability(
    fn: Callable[[Dataset, Dataset], Dataset], domain: Sequence[str] = ("a", "b"),
    max_len: int = 3,
) -> tuple[int, int]:
    """Stability of a two-argument transformation in each argument (the other one fixed):
    max |fn(A, B) Δ fn(A', B)| and max |fn(A, B) Δ fn(A, B')| over neighbours."""
    first = second = 0
    for a in sequences(domain, max_len):
        for b in sequences(domain, max_len):
            out = fn(a, b)
            for a2 in insertions(a, domain):
                first = max(first, sym_diff(out, fn(a2, b)))
            for b2 in insertions(b, domain):
                second = max(second, sym_diff(out, fn(a, b2)))
    return first, second


def declared_multiplier(plan: Plan, outputs: Sequence[int]) -> int:
    """What PINQ charges (as a multiple of ε) for an ε-DP count on each output of the
    transformation: its declared stability, with Union's two arguments and the partition's
    max rule applied."""
    nodes = list(plan.nodes)
    for k in outputs:
        nodes.append(Node("noisy-count", (k,), {"eps": 1}))
    return int(charge(Plan(tuple(nodes))))
