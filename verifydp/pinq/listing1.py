"""The attack of ebadi Listing 1 / Algorithm 3 (Appendix A.1), claim ebadi/pinq:take.

    for s in 1..scale:
        (K, K̄) = D.Partition(x == i);  r = a fresh public record
        D = K̄.Union(K.Union(r).Take(1))
    return D.NoisyCount(ε)

PINQ charges ε (every step is declared 1-stable, the partition costs the max over its parts),
but when i ∉ D every iteration adds r while with i ∈ D it adds nothing: the counts differ by
scale − 1, so the exact loss is (scale − 1)·ε.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifydp.pinq.loss import loss_multiple
from verifydp.pinq.plan import Dataset, Plan, PlanBuilder, charge

PAPER_DATA: Dataset = ("1", "2", "3", "4", "5", "6", "8", "9", "10")  # Listing 1's rawData
TARGET = "7"


def fresh_record(s: int) -> str:
    """The listing's r: `invalid[0] += 0.0001` from 999 before each use."""
    return f"999.{s:04d}"


def listing1_plan(scale: int, target: str = TARGET, eps: int = 1) -> Plan:
    if scale < 0:
        raise ValueError("scale must be non-negative")
    b = PlanBuilder()
    cur = b.add("source")
    for s in range(1, scale + 1):
        parts = b.add("partition", cur, value=target)
        k = b.add("part", parts, key="true")
        k_bar = b.add("part", parts, key="false")
        r = b.add("public", values=[fresh_record(s)])
        taken = b.add("take", b.add("union", k, r), n=1)
        cur = b.add("union", k_bar, taken)
    b.add("noisy-count", cur, eps=eps)
    return b.build()


@dataclass(frozen=True)
class Gap:
    scale: int
    d: Dataset
    d_prime: Dataset
    charged: Fraction  # multiple of ε that PINQ deducts
    exact: int  # the exact loss is exact·ε for every ε > 0


def gap(scale: int, d: Dataset, d_prime: Dataset) -> Gap:
    plan = listing1_plan(scale)
    return Gap(scale, d, d_prime, charge(plan), loss_multiple(plan, d, d_prime))


def loss_by_iterations(
    scales: range, d: Dataset = PAPER_DATA, target: str = TARGET
) -> list[Gap]:
    """Charged and exact loss (multiples of ε) as a function of the number of iterations,
    on D and D ∪ {target} (the paper's experiment uses its 9-record D)."""
    return [gap(s, d, (*d, target)) for s in scales]


def smallest_gap(max_scale: int = 6, max_size: int = 2) -> Gap | None:
    """The witness with the fewest records (|D| + |D'|), then the fewest iterations, among
    D = (c1, …, c_k), D' = D plus the target at any position, where exact loss > charge."""
    for size in range(max_size + 1):
        d = tuple(f"c{j}" for j in range(1, size + 1))
        for scale in range(max_scale + 1):
            for pos in range(size + 1):
                g = gap(scale, d, d[:pos] + (TARGET,) + d[pos:])
                if g.exact > g.charged:
                    return g
    return None
