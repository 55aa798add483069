"""Finite probability distributions with exact rational weights."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


class DistributionError(ValueError):
    """Weights that do not form a probability distribution."""


@dataclass(frozen=True)
class FiniteDist(Generic[T]):
    """A probability distribution on finitely many outcomes, weights exact `Fraction`s.

    Zero weights are dropped; the weights must sum to exactly 1.
    """

    probs: Mapping[T, Fraction]

    @staticmethod
    def from_pairs(pairs: Iterable[tuple[T, Fraction | int]]) -> FiniteDist[T]:
        acc: dict[T, Fraction] = {}
        for outcome, w in pairs:
            w = Fraction(w)
            if w < 0:
                raise DistributionError(f"negative probability {w} for {outcome!r}")
            if w:
                acc[outcome] = acc.get(outcome, Fraction(0)) + w
        total = sum(acc.values(), Fraction(0))
        if total != 1:
            raise DistributionError(f"probabilities sum to {total}, not 1")
        return FiniteDist(MappingProxyType(acc))

    @staticmethod
    def point(outcome: T) -> FiniteDist[T]:
        return FiniteDist(MappingProxyType({outcome: Fraction(1)}))

    @staticmethod
    def mixture(components: Iterable[tuple[Fraction | int, FiniteDist[T]]]) -> FiniteDist[T]:
        return FiniteDist.from_pairs(
            (x, Fraction(w) * p) for w, d in components for x, p in d.probs.items()
        )

    def __iter__(self) -> Iterator[tuple[T, Fraction]]:
        return iter(self.probs.items())

    def __len__(self) -> int:
        return len(self.probs)

    def prob(self, outcome: T) -> Fraction:
        return self.probs.get(outcome, Fraction(0))

    def support(self) -> tuple[T, ...]:
        return tuple(self.probs)

    def map(self, fn: Callable[[T], U]) -> FiniteDist[U]:
        return FiniteDist.from_pairs((fn(x), p) for x, p in self.probs.items())

    def product(self, other: FiniteDist[U], combine: Callable[[T, U], T]) -> FiniteDist[T]:
        """Law of `combine(X, Y)` for independent X ~ self, Y ~ other."""
        return FiniteDist.from_pairs(
            (combine(x, y), p * q) for x, p in self.probs.items() for y, q in other.probs.items()
        )

    def expectation(self, fn: Callable[[T], Fraction | int]) -> Fraction:
        return sum((p * Fraction(fn(x)) for x, p in self.probs.items()), Fraction(0))
