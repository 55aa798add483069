"""Populations, record types and neighbouring relations (docs/foundations.md#relations).

A record is a value with optional stratum and cluster labels. Records with identical labels
and value are indistinguishable to every design and every mechanism, so a population is a
multiset of `RecordType`s and a sample is a count vector over an ordered universe of types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum


class Relation(str, Enum):
    """Neighbouring relation between datasets."""

    ADD_REMOVE = "add-remove"  # deletion DP: one record added or removed
    REPLACE = "replace"  # substitution DP: same size, one record changed

    @staticmethod
    def parse(text: str) -> Relation:
        aliases = {
            "add-remove": Relation.ADD_REMOVE,
            "deletion": Relation.ADD_REMOVE,
            "add_remove": Relation.ADD_REMOVE,
            "replace": Relation.REPLACE,
            "replacement": Relation.REPLACE,
            "substitution": Relation.REPLACE,
        }
        try:
            return aliases[text.strip().lower()]
        except KeyError:
            raise ValueError(
                f"unknown neighbouring relation {text!r}; use 'add-remove' or 'replace'"
            ) from None


@dataclass(frozen=True)
class RecordType:
    """A kind of record: records of one type are identical (same value and labels)."""

    value: str
    stratum: str | None = None
    cluster: str | None = None

    def key(self) -> tuple[str, int, str, int, str]:
        """Total order (absent labels first) that never compares None with a string."""
        return (
            self.value,
            self.stratum is not None, self.stratum or "",
            self.cluster is not None, self.cluster or "",
        )  # type: ignore[return-value]

    def __lt__(self, other: RecordType) -> bool:
        return self.key() < other.key()

    def to_json(self) -> dict[str, str]:
        out = {"value": self.value}
        if self.stratum is not None:
            out["stratum"] = self.stratum
        if self.cluster is not None:
            out["cluster"] = self.cluster
        return out

    @staticmethod
    def from_json(obj: Mapping[str, str]) -> RecordType:
        return RecordType(str(obj["value"]), obj.get("stratum"), obj.get("cluster"))


Universe = tuple[RecordType, ...]
CountVector = tuple[int, ...]


@dataclass(frozen=True)
class Population:
    """A multiset of records, stored as (type, count) pairs sorted by type, counts > 0."""

    entries: tuple[tuple[RecordType, int], ...]

    @staticmethod
    def of(counts: Mapping[RecordType, int] | Iterable[tuple[RecordType, int]]) -> Population:
        items = counts.items() if isinstance(counts, Mapping) else counts
        acc: dict[RecordType, int] = {}
        for rt, c in items:
            if not isinstance(c, int) or c < 0:
                raise ValueError(f"record count must be a non-negative integer, got {c!r}")
            acc[rt] = acc.get(rt, 0) + c
        return Population(tuple(sorted(((rt, c) for rt, c in acc.items() if c > 0), key=lambda e: e[0].key())))

    @staticmethod
    def from_values(values: Iterable[str], stratum: str | None = None) -> Population:
        acc: dict[RecordType, int] = {}
        for v in values:
            rt = RecordType(v, stratum)
            acc[rt] = acc.get(rt, 0) + 1
        return Population.of(acc)

    @property
    def size(self) -> int:
        return sum(c for _, c in self.entries)

    def count(self, rt: RecordType) -> int:
        return dict(self.entries).get(rt, 0)

    def types(self) -> tuple[RecordType, ...]:
        return tuple(rt for rt, _ in self.entries)

    def strata(self) -> tuple[str | None, ...]:
        return tuple(sorted({rt.stratum for rt, _ in self.entries}, key=lambda s: (s is None, s)))

    def stratum(self, name: str | None) -> Population:
        return Population(tuple((rt, c) for rt, c in self.entries if rt.stratum == name))

    def counts_over(self, universe: Universe) -> CountVector:
        d = dict(self.entries)
        missing = set(d) - set(universe)
        if missing:
            raise ValueError(f"population has types outside the universe: {sorted(missing)}")
        return tuple(d.get(rt, 0) for rt in universe)

    def records(self) -> list[RecordType]:
        """Every record individually (for naive oracles on tiny populations)."""
        return [rt for rt, c in self.entries for _ in range(c)]

    def to_json(self) -> list[dict[str, object]]:
        return [{**rt.to_json(), "count": c} for rt, c in self.entries]

    @staticmethod
    def from_json(obj: Iterable[Mapping[str, object]]) -> Population:
        return Population.of((RecordType.from_json(e), int(e["count"])) for e in obj)  # type: ignore[arg-type]


def universe_of(*pops: Population) -> Universe:
    return tuple(sorted({rt for p in pops for rt, _ in p.entries}, key=RecordType.key))


def are_neighbours(a: Population, b: Population, relation: Relation) -> bool:
    """Whether two populations are neighbours under `relation` (one record differs)."""
    ua = dict(a.entries)
    ub = dict(b.entries)
    diff = {rt: ua.get(rt, 0) - ub.get(rt, 0) for rt in set(ua) | set(ub)}
    plus = sum(v for v in diff.values() if v > 0)
    minus = -sum(v for v in diff.values() if v < 0)
    if relation is Relation.ADD_REMOVE:
        return plus + minus == 1
    return plus == 1 and minus == 1


@dataclass(frozen=True)
class PopulationPair:
    """Two neighbouring populations P and P' under a stated relation; refuses non-neighbours."""

    p: Population
    q: Population
    relation: Relation

    def __post_init__(self) -> None:
        if not are_neighbours(self.p, self.q, self.relation):
            raise ValueError(
                f"P (size {self.p.size}) and P' (size {self.q.size}) are not "
                f"{self.relation.value} neighbours"
            )

    @property
    def universe(self) -> Universe:
        return universe_of(self.p, self.q)

    def swapped(self) -> PopulationPair:
        return PopulationPair(self.q, self.p, self.relation)

    def to_json(self) -> dict[str, object]:
        return {"P": self.p.to_json(), "P_prime": self.q.to_json(), "relation": self.relation.value}

    @staticmethod
    def from_json(obj: Mapping[str, object]) -> PopulationPair:
        return PopulationPair(
            Population.from_json(obj["P"]),  # type: ignore[arg-type]
            Population.from_json(obj["P_prime"]),  # type: ignore[arg-type]
            Relation.parse(str(obj["relation"])),
        )
