"""Exact privacy loss of a plan on two neighbouring datasets (ebadi §3).

Noise. Each aggregation with privacy parameter k·ε adds two-sided geometric noise
Pr[Z = z] = (u − 1)/(u + 1) · u^{−|z|}, u = t^k, t = e^ε: the discrete Laplace mechanism,
exactly ε-DP for a sensitivity-1 statistic, with rational probabilities at rational t. For
integer statistics the sup of the *Laplace* density ratio is the same number: between two
consecutive integers the ratio of two mixtures of Laplace densities is a Möbius function of
u^{2y}, hence monotone, so its sup is at integers, where it equals the geometric one.

Exactness. The noisy output y ∈ ℤ^k is clamped to the box spanned by the statistics of both
datasets. Beyond the box every kernel in a coordinate scales by the same factor per step, so
each clamped point merges points of one common likelihood ratio: the max-divergence of the
clamped (finite) output laws equals that of the true outputs, and it is computed exactly by
`verifydp.exact.loss.privacy_loss` on `FiniteDist`s.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from verifydp.exact.dist import FiniteDist
from verifydp.exact.loss import PrivacyLoss, privacy_loss
from verifydp.pinq.plan import Dataset, Plan, PlanError, statistics_law

Box = tuple[tuple[int, int], ...]


def clamped_geometric(u: Fraction, s: int, lo: int, hi: int) -> dict[int, Fraction]:
    """Law of clamp(s + Z, lo, hi) for Z two-sided geometric with parameter u > 1."""
    c = (u - 1) / (u + 1)
    if lo == hi:
        return {lo: Fraction(1)}
    out = {y: c * u ** (-abs(y - s)) for y in range(lo + 1, hi)}
    # Pr[s + Z ≥ hi] = u^{1 − d}/(u + 1) with d = hi − s ≥ 0; symmetrically at lo
    out[hi] = u ** (1 - (hi - s)) / (u + 1)
    out[lo] = u ** (1 - (s - lo)) / (u + 1)
    return out


def box_of(*laws: FiniteDist[tuple[int, ...]]) -> Box:
    pts = [s for law in laws for s in law.support()]
    return tuple((min(p[j] for p in pts), max(p[j] for p in pts)) for j in range(len(pts[0])))


def noisy_output_law(
    stats: FiniteDist[tuple[int, ...]], us: Sequence[Fraction], box: Box
) -> FiniteDist[tuple[int, ...]]:
    """Exact law of the clamped noisy outputs, one geometric noise of parameter us[j] each."""
    acc: dict[tuple[int, ...], Fraction] = {}
    for s, p in stats:
        kernels = [
            clamped_geometric(u, sj, lo, hi) for u, sj, (lo, hi) in zip(us, s, box, strict=True)
        ]
        for ys in itertools.product(*(k.items() for k in kernels)):
            y = tuple(v for v, _ in ys)
            w = p
            for _, q in ys:
                w *= q
            acc[y] = acc.get(y, Fraction(0)) + w
    return FiniteDist.from_pairs(acc.items())


@dataclass(frozen=True)
class PlanLoss:
    """Exact e^{loss} both ways, at t = e^ε, and the output laws it was computed from."""

    loss: PrivacyLoss
    law_d: FiniteDist[tuple[int, ...]]
    law_d_prime: FiniteDist[tuple[int, ...]]

    @property
    def ratio(self) -> Fraction | None:
        return self.loss.worst


def stats_loss(
    stats_d: FiniteDist[tuple[int, ...]], stats_dp: FiniteDist[tuple[int, ...]],
    us: Sequence[Fraction],
) -> PlanLoss:
    box = box_of(stats_d, stats_dp)
    law_d = noisy_output_law(stats_d, us, box)
    law_dp = noisy_output_law(stats_dp, us, box)
    return PlanLoss(privacy_loss(law_d, law_dp), law_d, law_dp)


def exact_loss(plan: Plan, d: Dataset, d_prime: Dataset, t: Fraction) -> PlanLoss:
    """max over events of Pr[plan(D) ∈ E]/Pr[plan(D') ∈ E] and back, exactly at t = e^ε."""
    if t <= 1:
        raise PlanError("t = e^ε must exceed 1")
    if not plan.aggregations:
        raise PlanError("the plan has no aggregation")
    us = [Fraction(t) ** k for k in plan.eps_multiples()]
    return stats_loss(statistics_law(plan, d), statistics_law(plan, d_prime), us)


def loss_multiple(plan: Plan, d: Dataset, d_prime: Dataset) -> int:
    """For a deterministic plan, the exact loss is m·ε for every ε > 0, m = Σ_j k_j|Δs_j|:
    the outputs are independent shifted noises, and one noise of parameter u shifted by Δ has
    max likelihood ratio exactly u^{|Δ|} (attained in either tail)."""
    if not plan.deterministic:
        raise PlanError("loss_multiple needs a deterministic plan")
    (s,) = statistics_law(plan, d).support()
    (s2,) = statistics_law(plan, d_prime).support()
    return sum(k * abs(a - b) for k, a, b in zip(plan.eps_multiples(), s, s2, strict=True))


def laplace_sup_ratio(
    stats_d: FiniteDist[tuple[int, ...]], stats_dp: FiniteDist[tuple[int, ...]],
    us: Sequence[Fraction],
) -> Fraction:
    """sup over outputs y ∈ ℝ^k of the Laplace density ratio, both ways, exactly: the
    densities are Σ_s Pr[s] Π_j u_j^{−|y_j − s_j|} up to a common constant, and the sup is at an
    integer point of the box (module docstring), so the box's integer points are enough. An
    independent route to the same number as `stats_loss` (tests)."""
    box = box_of(stats_d, stats_dp)

    def density(law: FiniteDist[tuple[int, ...]], y: tuple[int, ...]) -> Fraction:
        total = Fraction(0)
        for s, p in law:
            w = p
            for u, yj, sj in zip(us, y, s, strict=True):
                w *= u ** (-abs(yj - sj))
            total += w
        return total

    best = Fraction(0)
    for y in itertools.product(*(range(lo, hi + 1) for lo, hi in box)):
        a, b = density(stats_d, y), density(stats_dp, y)
        best = max(best, a / b, b / a)
    return best
