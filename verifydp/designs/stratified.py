"""Stratified designs: independent SRSWOR within each stratum (Bun et al. §7).

Strata are the `RecordType.stratum` labels. Strata occupy disjoint coordinates of the
count vector, so the sample law is the product of per-stratum laws, folded in one stratum
at a time (`independent_sum`) rather than enumerated jointly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from verifydp.designs.allocation import Rounding, check_rate, round_allocation
from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import (
    Coords,
    check_int,
    exact_fraction,
    hypergeometric_law,
    independent_sum,
    type_coords,
)
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


def strata_coords(pop: Population, universe: Universe) -> dict[str | None, Coords]:
    groups: dict[str | None, list[tuple[int, int]]] = {}
    for i, c in type_coords(pop, universe):
        groups.setdefault(universe[i].stratum, []).append((i, c))
    return {h: tuple(cs) for h, cs in groups.items()}


@dataclass(frozen=True)
class StratifiedProportional(Design):
    """Within each stratum h, SRSWOR of m_h = round(r|P_h|): f_{r,prop} of Bun et al. §7.3.

    Proportional allocation makes every m_h depend on its stratum's size, which is what
    drives the privacy analysis of bun/thm7.2. Unlabelled records form one stratum.
    """

    kind: ClassVar[str] = "stratified-proportional"
    r: Fraction
    rounding: Rounding

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", check_rate(self.r))
        object.__setattr__(self, "rounding", Rounding.parse(self.rounding))

    def stratum_law(self, coords: Coords, dim: int) -> FiniteDist[CountVector]:
        n = sum(c for _, c in coords)
        return FiniteDist.mixture(
            (p, hypergeometric_law(coords, m, dim))
            for m, p in round_allocation(self.r * n, self.rounding)
        )

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        dim = len(universe)
        return independent_sum(
            (self.stratum_law(cs, dim) for cs in strata_coords(pop, universe).values()), dim
        )

    def params(self) -> dict[str, Any]:
        return {"r": str(self.r), "rounding": self.rounding.value}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> StratifiedProportional:
        return cls(exact_fraction("r", params["r"]), Rounding.parse(params["rounding"]))


@dataclass(frozen=True)
class StratifiedFixed(Design):
    """Within each stratum h, SRSWOR of a fixed m_h = sizes[h] (Bun et al. §7).

    Every stratum of the population needs a size, and records must carry stratum labels.
    A listed stratum absent from the population is fine only with size 0.
    """

    kind: ClassVar[str] = "stratified-fixed"
    sizes: Mapping[str, int]

    def __post_init__(self) -> None:
        if not isinstance(self.sizes, Mapping):
            raise DesignError(f"sizes must map stratum labels to sizes, got {self.sizes!r}")
        for h, m in self.sizes.items():
            if not isinstance(h, str):
                raise DesignError(f"stratum label must be a string, got {h!r}")
            if check_int(f"size of stratum {h!r}", m) < 0:
                raise DesignError(f"size of stratum {h!r} is negative: {m}")
        # a private sorted copy: callers may mutate their dict, and order must not matter
        object.__setattr__(self, "sizes", dict(sorted(self.sizes.items())))

    def __hash__(self) -> int:  # dicts are unhashable; the design is immutable in practice
        return hash((self.kind, frozenset(self.sizes.items())))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        dim = len(universe)
        groups = strata_coords(pop, universe)
        if None in groups:
            raise DesignError("stratified-fixed needs a stratum label on every record")
        unknown = sorted(h for h in groups if h not in self.sizes)  # type: ignore[operator]
        if unknown:
            raise DesignError(f"no sample size given for strata {unknown}")
        laws = []
        for h, m in self.sizes.items():
            coords = groups.get(h, ())
            n = sum(c for _, c in coords)
            if m > n:
                raise DesignError(f"m = {m} exceeds population size {n} of stratum {h!r}")
            laws.append(hypergeometric_law(coords, m, dim))
        return independent_sum(laws, dim)

    def params(self) -> dict[str, Any]:
        return {"sizes": dict(self.sizes)}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> StratifiedFixed:
        return cls({str(h): int(m) for h, m in params["sizes"].items()})
