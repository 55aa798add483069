"""One scenario of the exact worst case: a population pair and the design applied to each side.

The claims' checkers (`verifydp.claims.checkers.Instance` adds the base mechanism class and the
printed parameters) and the audit's instances (`verifydp.audit.instance`) both build these; the
worst-case engine reads the two sample laws and the orbit classes from it
(docs/foundations.md#fact-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifydp.designs.base import Design
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, PopulationPair, RecordType

__all__ = ["Scenario"]


@dataclass(frozen=True)
class Scenario:
    """One population pair with the design(s) applied to each side."""

    label: str
    pair: PopulationPair
    design: Design
    design_prime: Design | None = None  # a different design on P' (e.g. Bun et al. Lemma B.1)
    symmetric: tuple[tuple[RecordType, ...], ...] = ()  # interchangeable record types
    shape: dict[str, Any] = field(default_factory=dict)  # reported only

    def classes(self) -> tuple[tuple[int, ...], ...]:
        """The interchangeable record types as index classes of the pair's universe."""
        pos = {rt: i for i, rt in enumerate(self.pair.universe)}
        return tuple(tuple(sorted(pos[rt] for rt in g)) for g in self.symmetric)

    def laws(self) -> tuple[FiniteDist[CountVector], FiniteDist[CountVector]]:
        """The exact sample laws of P and P' over the pair's universe."""
        u = self.pair.universe
        return (self.design.sample_law(self.pair.p, u),
                (self.design_prime or self.design).sample_law(self.pair.q, u))
