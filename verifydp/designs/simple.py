"""Unstratified designs: Poisson, SRSWOR, SRSWR and random-size WOR sampling.

All laws are computed over count vectors, never over individual records: records of one
type are exchangeable, so e.g. SRSWOR is a multivariate hypergeometric law on the counts.
The helpers here are shared by `allocation` and `stratified`.

Reference: Bun, Drechsler, Gaboardi, McMillan, Sarathy, "Controlling Privacy Loss in
Sampling Schemes" (cited below as Bun et al.).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, factorial, prod
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.exact.dist import DistributionError, FiniteDist
from verifydp.population import CountVector, Population, Universe

# (universe index, count in the population) for each type present in the population.
Coords = tuple[tuple[int, int], ...]


def exact_fraction(name: str, x: object) -> Fraction:
    """`x` as a Fraction; floats are refused because their binary value is rarely meant."""
    if isinstance(x, (bool, float)):
        raise DesignError(f"{name} must be exact (Fraction, int or 'a/b' string), got {x!r}")
    try:
        return Fraction(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, ZeroDivisionError):
        raise DesignError(f"{name} must be a rational number, got {x!r}") from None


def check_int(name: str, x: object) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise DesignError(f"{name} must be an integer, got {x!r}")
    return x


def type_coords(pop: Population, universe: Universe) -> Coords:
    index = {rt: i for i, rt in enumerate(universe)}
    missing = [rt for rt, _ in pop.entries if rt not in index]
    if missing:
        raise DesignError(f"population has types outside the universe: {missing}")
    return tuple((index[rt], c) for rt, c in pop.entries)


def bounded_compositions(caps: Sequence[int], m: int) -> Iterator[tuple[int, ...]]:
    """Every k with 0 <= k_i <= caps[i] and sum(k) = m, in lexicographic order."""
    # room[j] = most that coordinates j.. can still absorb; pruning with it means every
    # branch of the recursion ends in a valid vector, so the cost is output-sensitive.
    room = [0] * (len(caps) + 1)
    for j in range(len(caps) - 1, -1, -1):
        room[j] = room[j + 1] + caps[j]

    def rec(j: int, left: int, prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if j == len(caps):
            yield prefix
            return
        for k in range(max(0, left - room[j + 1]), min(caps[j], left) + 1):
            yield from rec(j + 1, left - k, (*prefix, k))

    if 0 <= m <= room[0]:
        yield from rec(0, m, ())


def embed(dim: int, idx: Sequence[int], ks: Sequence[int]) -> CountVector:
    v = [0] * dim
    for i, k in zip(idx, ks, strict=True):
        v[i] = k
    return tuple(v)


def hypergeometric_law(coords: Coords, m: int, dim: int) -> FiniteDist[CountVector]:
    """SRSWOR of m from the records described by `coords`: prod C(c_i,k_i) / C(N,m)."""
    n = sum(c for _, c in coords)
    if m < 0:
        raise DesignError(f"sample size m = {m} is negative")
    if m > n:
        raise DesignError(f"m = {m} exceeds population size {n}")
    idx = [i for i, _ in coords]
    caps = [c for _, c in coords]
    total = comb(n, m)
    return FiniteDist.from_pairs(
        (
            embed(dim, idx, ks),
            Fraction(prod(comb(c, k) for c, k in zip(caps, ks, strict=True)), total),
        )
        for ks in bounded_compositions(caps, m)
    )


def independent_sum(laws: Iterable[FiniteDist[CountVector]], dim: int) -> FiniteDist[CountVector]:
    """Law of the sum of independent count vectors, built one factor at a time.

    Folding factor by factor merges equal partial vectors early, so the work is bounded by
    (outcomes so far) x (outcomes of the next factor) instead of a Cartesian product.
    """
    acc: dict[CountVector, Fraction] = {(0,) * dim: Fraction(1)}
    for law in laws:
        nxt: dict[CountVector, Fraction] = {}
        for v, p in acc.items():
            for w, q in law:
                key = tuple(a + b for a, b in zip(v, w, strict=True))
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        acc = nxt
    return FiniteDist.from_pairs(acc.items())


@dataclass(frozen=True)
class Poisson(Design):
    """Poisson sampling: each record is kept independently with probability q.

    The classical amplification-by-subsampling setting (Bun et al. §3); the count law is
    a product of Binomial(c_i, q) over record types.
    """

    kind: ClassVar[str] = "poisson"
    q: Fraction

    def __post_init__(self) -> None:
        q = exact_fraction("q", self.q)
        if not 0 <= q <= 1:
            raise DesignError(f"sampling probability must be in [0, 1], got q = {q}")
        object.__setattr__(self, "q", q)

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        dim, q = len(universe), self.q
        laws = (
            FiniteDist.from_pairs(
                (embed(dim, [i], [k]), comb(c, k) * q**k * (1 - q) ** (c - k)) for k in range(c + 1)
            )
            for i, c in type_coords(pop, universe)
        )
        return independent_sum(laws, dim)

    def params(self) -> dict[str, Any]:
        return {"q": str(self.q)}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Poisson:
        return cls(exact_fraction("q", params["q"]))


@dataclass(frozen=True)
class SRSWOR(Design):
    """Simple random sampling of exactly m records without replacement (Bun et al. §4).

    A fixed m is the design whose deletion-DP amplification fails (bun/thm4.3): adding a
    record changes which records are likely to be chosen, not just whether one is.
    """

    kind: ClassVar[str] = "srswor"
    m: int

    def __post_init__(self) -> None:
        if check_int("m", self.m) < 0:
            raise DesignError(f"sample size m = {self.m} is negative")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        return hypergeometric_law(type_coords(pop, universe), self.m, len(universe))

    def params(self) -> dict[str, Any]:
        return {"m": self.m}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> SRSWOR:
        return cls(int(params["m"]))


@dataclass(frozen=True)
class SRSWR(Design):
    """m independent uniform draws with replacement; the sample is a multiset.

    Counts follow Multinomial(m; c_i / N), so a count may exceed the type's multiplicity.
    """

    kind: ClassVar[str] = "srswr"
    m: int

    def __post_init__(self) -> None:
        if check_int("m", self.m) < 0:
            raise DesignError(f"sample size m = {self.m} is negative")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords, dim, m = type_coords(pop, universe), len(universe), self.m
        n = sum(c for _, c in coords)
        if n == 0:
            if m:
                raise DesignError(f"cannot draw m = {m} records from an empty population")
            return FiniteDist.point((0,) * dim)
        idx = [i for i, _ in coords]
        caps = [c for _, c in coords]
        denom = n**m
        return FiniteDist.from_pairs(
            (
                embed(dim, idx, ks),
                Fraction(
                    factorial(m)
                    // prod(factorial(k) for k in ks)
                    * prod(c**k for c, k in zip(caps, ks, strict=True)),
                    denom,
                ),
            )
            for ks in bounded_compositions([m] * len(caps), m)
        )

    def params(self) -> dict[str, Any]:
        return {"m": self.m}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> SRSWR:
        return cls(int(params["m"]))


def _size_law(x: object) -> FiniteDist[int]:
    if isinstance(x, Mapping):
        try:
            x = FiniteDist.from_pairs(
                (int(k), exact_fraction("size probability", v)) for k, v in x.items()
            )
        except DistributionError as e:
            raise DesignError(f"size law is not a distribution: {e}") from None
    if not isinstance(x, FiniteDist):
        raise DesignError(f"size law must be a FiniteDist[int] or a mapping, got {x!r}")
    bad = [m for m in x.support() if isinstance(m, bool) or not isinstance(m, int) or m < 0]
    if bad:
        raise DesignError(f"size law outside the non-negative integers: {bad}")
    return x


@dataclass(frozen=True)
class RandomSizeWOR(Design):
    """Draw m from `size_law` independently of the data, then SRSWOR of m (bun/thm3.1).

    Data-independent random sizes are the setting of Bun et al. Thm 3.1. A mapping
    {m: prob} is accepted in place of a FiniteDist.
    """

    kind: ClassVar[str] = "random-size"
    size_law: FiniteDist[int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "size_law", _size_law(self.size_law))

    def __hash__(self) -> int:  # FiniteDist wraps a mappingproxy, which is unhashable
        return hash((self.kind, frozenset(self.size_law.probs.items())))

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        coords = type_coords(pop, universe)
        n = sum(c for _, c in coords)
        over = sorted(m for m in self.size_law.support() if m > n)
        if over:
            raise DesignError(f"size law outside {{0..|P|}} = {{0..{n}}}: support has {over}")
        return FiniteDist.mixture(
            (p, hypergeometric_law(coords, m, len(universe))) for m, p in self.size_law
        )

    def params(self) -> dict[str, Any]:
        return {"size_law": {str(m): str(p) for m, p in sorted(self.size_law)}}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> RandomSizeWOR:
        return cls(_size_law(params["size_law"]))
