"""Systematic sampling (Bun et al. §6.3, bun/sec6.3:systematic).

The N records are listed in some order; a start s is drawn uniformly from
{0, ..., interval - 1} and the sample is the records at positions s, s + interval,
s + 2 interval, ... (0-based, positions < N). How much privacy this gives depends on the
order: a fixed, known order makes systematic sampling cluster sampling of the `interval`
residue classes (no amplification once the chosen class is detectable), while a uniformly
random secret order makes it a mixture of SRSWORs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import check_int, hypergeometric_law, type_coords
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


def check_interval(interval: object) -> int:
    if check_int("interval", interval) < 1:
        raise DesignError(f"sampling interval must be at least 1, got interval = {interval}")
    return interval  # type: ignore[return-value]


def _hits(x: int, s: int, interval: int) -> int:
    """#{p in [0, x) : p = s mod interval}, for 0 <= s < interval."""
    return max(0, (x - s + interval - 1) // interval)


@dataclass(frozen=True)
class SystematicFixed(Design):
    """Systematic sampling over a fixed, public order (bun/sec6.3:systematic).

    The order lists the population's records sorted by `RecordType.key()`, copies of one
    type adjacent; it is a function of the data, so adding one record shifts the position
    of every later record. Each type occupies a block [a, b) of positions, and the start
    s selects #{p in [a, b) : p = s mod interval} of its records, computed per block (no
    record enumeration). Starts s >= N give the empty sample.
    """

    kind: ClassVar[str] = "systematic-fixed"
    interval: int

    def __post_init__(self) -> None:
        check_interval(self.interval)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        type_coords(pop, universe)  # refuse types outside the universe
        index = {rt: i for i, rt in enumerate(universe)}
        step, dim = self.interval, len(universe)
        blocks: list[tuple[int, int, int]] = []  # (universe slot, first position, end)
        pos = 0
        for rt, c in sorted(pop.entries, key=lambda e: e[0].key()):
            blocks.append((index[rt], pos, pos + c))
            pos += c
        n = pos

        def outcome(s: int) -> CountVector:
            v = [0] * dim
            for i, a, b in blocks:
                v[i] = _hits(b, s, step) - _hits(a, s, step)
            return tuple(v)

        pairs = [(outcome(s), Fraction(1, step)) for s in range(min(step, n))]
        if step > n:
            pairs.append(((0,) * dim, Fraction(step - n, step)))
        return FiniteDist.from_pairs(pairs)

    def params(self) -> dict[str, Any]:
        return {"interval": self.interval}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> SystematicFixed:
        return cls(int(params["interval"]))


@dataclass(frozen=True)
class SystematicRandomOrder(Design):
    """Systematic sampling over a uniformly random, secret order (bun/sec6.3:systematic).

    Equivalence used for the exact law: for a fixed start s the chosen positions are a
    fixed set of size n_s = #{p < N : p = s mod interval}, and under a uniform random
    permutation the records at any fixed set of n_s positions form a uniform n_s-subset.
    So the design is: draw s uniformly, then SRSWOR of n_s records. Writing
    N = q * interval + r (0 <= r < interval), exactly r starts have n_s = q + 1 and the
    other interval - r have n_s = q, giving the mixture
    (r / interval) Hyp(q + 1) + (1 - r / interval) Hyp(q).
    Bun et al. note this is SRSWOR when interval divides N. The test suite checks the
    equivalence against an oracle enumerating all N! orders.
    """

    kind: ClassVar[str] = "systematic-random"
    interval: int

    def __post_init__(self) -> None:
        check_interval(self.interval)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords, dim = type_coords(pop, universe), len(universe)
        q, r = divmod(sum(c for _, c in coords), self.interval)
        parts = [(Fraction(self.interval - r, self.interval), q)]
        if r:
            parts.append((Fraction(r, self.interval), q + 1))
        return FiniteDist.mixture((w, hypergeometric_law(coords, m, dim)) for w, m in parts)

    def params(self) -> dict[str, Any]:
        return {"interval": self.interval}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> SystematicRandomOrder:
        return cls(int(params["interval"]))
