"""Concrete mechanisms acting on samples (count vectors over a universe of record types).

Each mechanism is calibrated with the parameter t = e^ε and is ε-DP under a relation exactly
when its sensitivity there is at most 1 (`is_eps_dp`). Every probability or density ratio is
a rational function of t, evaluated exactly (Fractions for rational t; sympy for symbolic t).

* `GeometricCount`: Σ w(x) over the sample plus two-sided geometric (discrete Laplace) noise,
  Pr[Z = z] = (t − 1)/(t + 1) · t^{−|z|}. With w ≡ 1 this is the noisy sample size M^count.
* `LaplaceCount`: Σ w(x) plus Lap(1/ε); ratios of densities at points (Bun et al. use it in
  §4.1 and in the lower bound of Thm 3.1, App. B).
* `RandomizedResponse`: the bit "the sample contains a record of the given types", reported
  truthfully with probability t/(1 + t).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Relation, Universe


@dataclass(frozen=True)
class PointRatio:
    """Pr_P[output = y] / Pr_{P'}[output = y] (or the density ratio) at the maximising y."""

    ratio: Fraction | None  # None: +∞ (P' gives the point probability 0)
    point: Any
    pr_p: Fraction
    pr_q: Fraction


class Mechanism(ABC):
    kind: str

    @abstractmethod
    def sensitivity(self, relation: Relation, universe: Universe) -> int:
        """Max change of the released statistic between neighbouring datasets."""

    def is_eps_dp(self, relation: Relation, universe: Universe) -> bool:
        return self.sensitivity(relation, universe) <= 1

    @abstractmethod
    def max_ratio(
        self, law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector],
        universe: Universe, t: Fraction,
    ) -> PointRatio:
        """Exact sup over outputs y of the likelihood (or density) ratio P/P'."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...


def _weights_vector(weights: Mapping[str, int] | None, universe: Universe) -> list[int]:
    if weights is None:
        return [1] * len(universe)
    return [int(weights.get(rt.value, 0)) for rt in universe]


def _stat_law(law: FiniteDist[CountVector], w: list[int]) -> FiniteDist[int]:
    return law.map(lambda c: sum(a * b for a, b in zip(w, c)))


def _sens(w: list[int], relation: Relation) -> int:
    if not w:
        return 0
    if relation is Relation.ADD_REMOVE:
        return max(abs(v) for v in w)
    return max(w) - min(w)


def _kernel_mass(s_law: FiniteDist[int], y: int, t: Any) -> Any:
    """Σ_s Pr[s] t^{−|y − s|} (unnormalised: the normalising constant cancels in ratios)."""
    total: Any = 0
    for s, pr in s_law:
        total += pr * t ** (-abs(y - s)) if isinstance(t, Fraction) else pr / t ** abs(y - s)
    return total


@dataclass(frozen=True)
class _CountBase(Mechanism):
    weights: tuple[tuple[str, int], ...] | None = None  # value -> weight; None: all 1

    def __post_init__(self) -> None:
        if self.weights is not None:  # canonical order, so equal mechanisms compare equal
            object.__setattr__(self, "weights", tuple(sorted(self.weights)))

    def _w(self, universe: Universe) -> list[int]:
        return _weights_vector(None if self.weights is None else dict(self.weights), universe)

    def sensitivity(self, relation: Relation, universe: Universe) -> int:
        return _sens(self._w(universe), relation)

    def max_ratio(
        self, law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector],
        universe: Universe, t: Fraction,
    ) -> PointRatio:
        # Outside [min s, max s] the ratio is constant (both masses scale by t^{∓y}), and
        # between integers it is monotone (a Möbius function of t^{2y}), so integers suffice.
        w = self._w(universe)
        sp, sq = _stat_law(law_p, w), _stat_law(law_q, w)
        pts = list(sp.support()) + list(sq.support())
        best: PointRatio | None = None
        for y in range(min(pts), max(pts) + 1):
            a, b = _kernel_mass(sp, y, t), _kernel_mass(sq, y, t)
            r = a / b
            if best is None or (best.ratio is not None and r > best.ratio):
                best = PointRatio(r, y, a * self._norm(t), b * self._norm(t))
        assert best is not None
        return best

    def point_ratio(
        self, law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector],
        universe: Universe, t: Any, y: int,
    ) -> Any:
        """Ratio at one output y; t may be a sympy symbol (for proofs)."""
        w = self._w(universe)
        return _kernel_mass(_stat_law(law_p, w), y, t) / _kernel_mass(_stat_law(law_q, w), y, t)

    @abstractmethod
    def _norm(self, t: Fraction) -> Fraction: ...

    def to_json(self) -> dict[str, Any]:
        weights = None if self.weights is None else dict(self.weights)
        return {"kind": self.kind, "weights": weights}


@dataclass(frozen=True)
class GeometricCount(_CountBase):
    kind = "geometric-count"

    def _norm(self, t: Fraction) -> Fraction:
        return (t - 1) / (t + 1)

    def hockey(
        self, law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector],
        universe: Universe, t: Fraction, t_prime: Fraction,
    ) -> Fraction:
        """Exact Σ_y max(0, Pr_P[y] − t'·Pr_{P'}[y]) including the two geometric tails."""
        w = self._w(universe)
        sp, sq = _stat_law(law_p, w), _stat_law(law_q, w)
        pts = list(sp.support()) + list(sq.support())
        lo, hi = min(pts), max(pts)
        c = self._norm(t)
        total = Fraction(0)
        for y in range(lo, hi + 1):
            total += max(Fraction(0), c * (_kernel_mass(sp, y, t) - t_prime * _kernel_mass(sq, y, t)))
        # y = hi + k (k ≥ 1): mass_k = t^{-k} mass_hi; Σ_k t^{-k} = 1/(t − 1)
        for edge in (hi, lo):
            d = c * (_kernel_mass(sp, edge, t) - t_prime * _kernel_mass(sq, edge, t))
            if d > 0:
                total += d / (t - 1)
        return total


@dataclass(frozen=True)
class LaplaceCount(_CountBase):
    kind = "laplace-count"

    def _norm(self, t: Fraction) -> Fraction:
        return Fraction(1)  # density up to the common factor ε/2, which cancels in ratios


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Randomized response on the predicate "the sample contains a record of `values`"."""

    values: tuple[str, ...]
    kind = "randomized-response"

    def sensitivity(self, relation: Relation, universe: Universe) -> int:
        return 1

    def _p_one(self, law: FiniteDist[CountVector], universe: Universe, t: Fraction) -> Fraction:
        hit = [rt.value in self.values for rt in universe]
        p_in = sum((pr for c, pr in law if any(h and k for h, k in zip(hit, c))), Fraction(0))
        return p_in * t / (1 + t) + (1 - p_in) / (1 + t)

    def max_ratio(
        self, law_p: FiniteDist[CountVector], law_q: FiniteDist[CountVector],
        universe: Universe, t: Fraction,
    ) -> PointRatio:
        a1, b1 = self._p_one(law_p, universe, t), self._p_one(law_q, universe, t)
        r1, r0 = a1 / b1, (1 - a1) / (1 - b1)
        return PointRatio(r1, 1, a1, b1) if r1 >= r0 else PointRatio(r0, 0, 1 - a1, 1 - b1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "values": list(self.values)}


def mechanism_from_json(obj: Mapping[str, Any]) -> Mechanism:
    kind = obj.get("kind")
    if kind in ("geometric-count", "laplace-count"):
        weights = obj.get("weights")
        wt = (
            None if weights is None
            else tuple(sorted((str(k), int(v)) for k, v in weights.items()))
        )
        return GeometricCount(wt) if kind == "geometric-count" else LaplaceCount(wt)
    if kind == "randomized-response":
        return RandomizedResponse(tuple(obj["values"]))
    raise ValueError(f"unknown mechanism kind {kind!r}")


def weights_for(values: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(values.items()))

