"""Two neighbouring steps chained: a substitution as a removal followed by an addition.

Under substitution D and D' differ in one record's value; D⁻ (the record removed) is an
add/remove neighbour of both. If the T-fold releases satisfy H_{e^{ε₁}}(D‖D⁻) ≤ δ(ε₁) and
H_{e^{ε₂}}(D⁻‖D') ≤ δ(ε₂), then for every event E

    P_D(E) ≤ e^{ε₁} P_{D⁻}(E) + δ(ε₁) ≤ e^{ε₁ + ε₂} P_{D'}(E) + δ(ε₁) + e^{ε₁} δ(ε₂),

so δ_sub(ε) ≤ min over ε₁ + ε₂ = ε of δ(ε₁) + e^{ε₁} δ(ε₂) (the group-privacy step of Dwork &
Roth 2014, Theorem 2.2, taken on the composed δ curve rather than per release;
docs/foundations.md#composition). Any split gives a bound, so the split grid is a choice of
tightness only. The bound holds for the T-fold adaptive composition because D⁻ is a fixed
dataset: each link is one add/remove pair composed T times.

Used by the deployment audit for designs that may draw a record twice (with replacement,
MUST.OW/WW), where no single per-step pair under substitution is derived
(proofs/deployment_pairs.md#copies).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from verifydp.exact.arb import ball, rational

__all__ = ["chained_upper"]

_SPLITS = 64


def chained_upper(upper: Callable[[Fraction], Fraction], epsilon: Fraction,
                  estimate: Callable[[float], float] | None = None,
                  splits: int = _SPLITS) -> Fraction:
    """A certified upper end of δ(ε) for two chained neighbours: upper(ε₁) + e^{ε₁}·upper(ε −
    ε₁), e^{ε₁} rounded up, at ε₁ = ε·j/splits (j = 0..splits); `upper` is a certified
    upper end of one link's δ curve. With `estimate` (the same curve in floats) the split
    is chosen in floats and only it is certified; otherwise the least over all splits.
    Never above 1."""
    if splits < 1:
        raise ValueError("chained_upper: splits must be ≥ 1")
    eps = Fraction(epsilon)
    if eps < 0:
        raise ValueError("chained_upper: ε must be ≥ 0")
    e1s = [eps * j / splits for j in range(splits + 1)]
    if estimate is not None:
        def approx(e1: Fraction) -> float:
            return estimate(float(e1)) + math.exp(float(e1)) * estimate(float(eps - e1))
        e1s = [min(e1s, key=approx)]
    best = Fraction(1)
    for e1 in e1s:
        first = upper(e1)
        if first < best:
            best = min(best, first + rational(ball(e1).exp(), up=True) * upper(eps - e1))
    return best
