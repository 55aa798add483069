"""The samplers of Ebadi, Antignac, Sands, "Sampling and Partitioning for Differential
Privacy" (paper key `ebadi`, §4) that are not already designs of the engine.

Equivalences with existing designs (tested in tests/test_pinq.py against the paper's own
algorithms, enumerated exactly):

* Bernoulli sampling B_b (Definition 7)            = `Poisson(b)`.
* Fraction sampling P_p (§4.4, Algorithm 2)         = `ProportionalWOR(p, Rounding.FLOOR)`:
  a uniform ⌊p|D|⌋-subset.
* Reservoir sampling R_n (Definition 6, Alg. 1)     = `Reservoir(n)` below: `SRSWOR(n)` when
  n < |D|, the whole dataset otherwise (`SRSWOR` refuses n > |D|, so it needs its own class).
* Sampling with replacement (§4.3)                  = `WithReplacement(n)` below: `SRSWR(n)`,
  except that the empty dataset gives the empty sample (the paper's "∅ vs {a}" comparison;
  `SRSWR` refuses to draw from an empty population).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import SRSWR, check_int, hypergeometric_law, type_coords
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


@dataclass(frozen=True)
class Reservoir(Design):
    """R_n: a uniform n-subset when n < |D|, else D itself (ebadi Definition 6, Thm 4.4)."""

    kind: ClassVar[str] = "reservoir"
    n: int

    def __post_init__(self) -> None:
        if check_int("n", self.n) < 0:
            raise DesignError(f"reservoir size n = {self.n} is negative")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords = type_coords(pop, universe)
        return hypergeometric_law(coords, min(self.n, pop.size), len(universe))

    def params(self) -> dict[str, Any]:
        return {"n": self.n}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Reservoir:
        return cls(int(params["n"]))


@dataclass(frozen=True)
class WithReplacement(Design):
    """n uniform draws with replacement; the empty dataset gives the empty sample (ebadi §4.3)."""

    kind: ClassVar[str] = "with-replacement"
    n: int

    def __post_init__(self) -> None:
        if check_int("n", self.n) < 0:
            raise DesignError(f"sample size n = {self.n} is negative")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        if pop.size == 0:
            return FiniteDist.point((0,) * len(universe))
        return SRSWR(self.n).sample_law(pop, universe)

    def params(self) -> dict[str, Any]:
        return {"n": self.n}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> WithReplacement:
        return cls(int(params["n"]))
