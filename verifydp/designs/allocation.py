"""Data-dependent sample sizes: proportional allocation and linear size rules.

Bun et al. ("Controlling Privacy Loss in Sampling Schemes") §4: when the sample size is a
function of the data, its sensitivity and the rounding rule govern privacy loss. §4.3
studies m = r|P| under deterministic rounding (f_det,r) and randomised rounding
(f_rand,r); §4.1 the general allocation with bounded sensitivity.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from math import ceil, floor
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import check_int, exact_fraction, hypergeometric_law, type_coords
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


class Rounding(str, Enum):
    """How a fractional allocation r|P| becomes an integer sample size."""

    HALF_UP = "half-up"
    HALF_EVEN = "half-even"
    FLOOR = "floor"
    RANDOMISED = "randomised"

    @staticmethod
    def parse(x: object) -> Rounding:
        try:
            return Rounding(x)
        except ValueError:
            options = [r.value for r in Rounding]
            raise DesignError(f"unknown rounding {x!r}; use one of {options}") from None


def round_allocation(x: Fraction, rounding: Rounding | str) -> FiniteDist[int]:
    """Law of the integer sample size obtained by rounding the allocation x.

    Randomised rounding is unbiased (E[m] = x); Bun et al. §4.3 show it behaves better
    than deterministic rounding, whose jumps at .5 make the size sensitive to one record.
    """
    x = Fraction(x)
    rule = Rounding.parse(rounding)
    if rule is Rounding.HALF_UP:
        return FiniteDist.point(floor(x + Fraction(1, 2)))
    if rule is Rounding.HALF_EVEN:
        return FiniteDist.point(round(x))
    if rule is Rounding.FLOOR:
        return FiniteDist.point(floor(x))
    lo, frac = floor(x), x - floor(x)
    if frac == 0:
        return FiniteDist.point(lo)
    return FiniteDist.from_pairs([(lo, 1 - frac), (ceil(x), frac)])


def check_rate(r: object) -> Fraction:
    r = exact_fraction("r", r)
    if not 0 < r < 1:
        raise DesignError(f"r must be in (0, 1), got r = {r}")
    return r


@dataclass(frozen=True)
class ProportionalWOR(Design):
    """SRSWOR of m = round(r|P|) records: f_det,r / f_rand,r of Bun et al. §4.3 (bun/thm4.3).

    The size depends on |P|, so neighbouring populations can get different m.
    """

    kind: ClassVar[str] = "proportional"
    r: Fraction
    rounding: Rounding

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", check_rate(self.r))
        object.__setattr__(self, "rounding", Rounding.parse(self.rounding))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords = type_coords(pop, universe)
        n = sum(c for _, c in coords)
        return FiniteDist.mixture(
            (p, hypergeometric_law(coords, m, len(universe)))
            for m, p in round_allocation(self.r * n, self.rounding)
        )

    def params(self) -> dict[str, Any]:
        return {"r": str(self.r), "rounding": self.rounding.value}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> ProportionalWOR:
        return cls(exact_fraction("r", params["r"]), Rounding.parse(params["rounding"]))


@dataclass(frozen=True)
class LinearSizeRule(Design):
    """SRSWOR of f(P) = base + slope * #{records with this value}, clamped to [0, |P|].

    A deterministic allocation of sensitivity |slope| (Bun et al. §4.1): it models sample
    sizes that leak a statistic of the data, e.g. oversampling a subgroup.
    """

    kind: ClassVar[str] = "linear-size"
    base: int
    slope: int
    value: str

    def __post_init__(self) -> None:
        check_int("base", self.base)
        check_int("slope", self.slope)
        if not isinstance(self.value, str):
            raise DesignError(f"value must be a string, got {self.value!r}")

    def size(self, pop: Population) -> int:
        hits = sum(c for rt, c in pop.entries if rt.value == self.value)
        return min(max(self.base + self.slope * hits, 0), pop.size)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        return hypergeometric_law(type_coords(pop, universe), self.size(pop), len(universe))

    def params(self) -> dict[str, Any]:
        return {"base": self.base, "slope": self.slope, "value": self.value}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> LinearSizeRule:
        return cls(int(params["base"]), int(params["slope"]), str(params["value"]))
