"""Privacy loss between two finite distributions, exactly (docs/architecture.md, exact/).

`max_divergence(P, Q)` is sup_E P(E)/Q(E) = max_x P(x)/Q(x) (mediant inequality), None when P
charges a point Q does not; `hockey_stick(P, Q, t')` is sup_E P(E) − t'·Q(E) =
Σ_x max(0, P(x) − t'·Q(x)). Both directions are reported by `privacy_loss`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.exact.dist import FiniteDist


def max_divergence(p: FiniteDist[Any], q: FiniteDist[Any]) -> Fraction | None:
    """e^{D_∞(P‖Q)} exactly; None means +∞."""
    best = Fraction(0)
    for x, px in p:
        qx = q.prob(x)
        if qx == 0:
            return None
        best = max(best, px / qx)
    return best


def hockey_stick(p: FiniteDist[Any], q: FiniteDist[Any], t_prime: Fraction) -> Fraction:
    """δ(ε') = sup_E P(E) − e^{ε'} Q(E) at e^{ε'} = t_prime, exactly."""
    return sum((max(Fraction(0), px - t_prime * q.prob(x)) for x, px in p), Fraction(0))


@dataclass(frozen=True)
class PrivacyLoss:
    forward: Fraction | None  # e^{D_∞(P‖Q)}
    backward: Fraction | None  # e^{D_∞(Q‖P)}

    @property
    def worst(self) -> Fraction | None:
        if self.forward is None or self.backward is None:
            return None
        return max(self.forward, self.backward)


def privacy_loss(p: FiniteDist[Any], q: FiniteDist[Any]) -> PrivacyLoss:
    return PrivacyLoss(max_divergence(p, q), max_divergence(q, p))
