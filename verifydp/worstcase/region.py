"""The finite grid of datasets on which the worst-case LP lives (docs/foundations.md#fact-2 to #fact-4).

Datasets are count vectors over the universe of record types occurring in P ∪ P' (fact 2).
The DP constraints must hold on every dataset (fact 3), so the LP ranges over a *region*
that contains every sample in the support of either law and admits a non-expansive
retraction of the whole lattice onto it: any function that satisfies the edge constraints on
the region then extends to all datasets by composing with the retraction (post-processing).

* add-remove: the box [lo, hi] spanned by the supports; retraction = coordinate clamping.
  Neighbours (one coordinate ±1) clamp to neighbours or to the same point.
* replace: for each sample size s occurring in the supports, the layer
  {x : Σx = s, x ≥ lo_s}, lo_s the coordinatewise minimum of the support points of size s.
  Retraction: keep lo_s, then fill the remaining s − |lo_s| units from (x − lo_s)^+ in a fixed
  order of types (a prefix). Layers of sizes outside the supports carry no constraint towards
  the region (replacement never changes the size). Non-expansiveness is tested exhaustively
  in tests/test_foundations.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb

from verifydp.population import CountVector, Relation


class RegionTooLarge(ValueError):
    """The exact LP would exceed the configured size limit."""


Classes = tuple[tuple[int, ...], ...]  # coordinates that the (design, P, P') treat alike


def canonical(x: CountVector, classes: Classes) -> CountVector:
    """Orbit representative of x under permutations within each class (fact 4): the counts of
    each class sorted in non-increasing order, written back onto the class's coordinates."""
    if not classes:
        return x
    out = list(x)
    for cls in classes:
        for i, v in zip(cls, sorted((x[i] for i in cls), reverse=True)):
            out[i] = v
    return tuple(out)


@dataclass(frozen=True)
class Layer:
    """Lower corner `lo` and upper corner `hi` of a box; `size` fixed for replace layers."""

    lo: CountVector
    hi: CountVector
    size: int | None


@dataclass(frozen=True)
class Region:
    relation: Relation
    layers: tuple[Layer, ...]
    points: tuple[CountVector, ...]  # orbit representatives when `classes` is non-empty
    edges: tuple[tuple[int, int], ...]  # undirected, i < j, indices into points
    classes: Classes = ()

    def index(self) -> dict[CountVector, int]:
        return {x: i for i, x in enumerate(self.points)}

    def retract(self, x: CountVector) -> CountVector | None:
        """The region point that dataset `x` is mapped to (None: a layer with no constraint)."""
        if self.relation is Relation.ADD_REMOVE:
            (layer,) = self.layers
            y = tuple(min(max(v, lo), hi) for v, lo, hi in zip(x, layer.lo, layer.hi))
            return canonical(y, self.classes)
        s = sum(x)
        for layer in self.layers:
            if layer.size == s:
                return canonical(_prefix_retract(x, layer.lo, s), self.classes)
        return None


def _prefix_retract(x: CountVector, lo: CountVector, s: int) -> CountVector:
    free = s - sum(lo)
    out = list(lo)
    for i, (v, low) in enumerate(zip(x, lo)):
        take = min(max(v - low, 0), free)
        out[i] += take
        free -= take
    # x has size s and at least |lo| - (units of lo it lacks) units above lo, so free ends at 0
    assert free == 0
    return tuple(out)


def build_region(
    supports: Iterable[CountVector],
    relation: Relation,
    max_points: int = 200_000,
    classes: Classes = (),
) -> Region:
    """The region (see module docstring); with `classes`, only orbit representatives, and an
    edge between two representatives whenever some members of their orbits are neighbours."""
    support = sorted({canonical(x, classes) for x in supports})
    if not support:
        raise ValueError("empty support")
    dim = len(support[0])
    if relation is Relation.ADD_REMOVE:
        lo = _invariant(tuple(min(x[i] for x in support) for i in range(dim)), classes, min)
        hi = _invariant(tuple(max(x[i] for x in support) for i in range(dim)), classes, max)
        count = _orbit_count(lo, hi, classes)
        if count > max_points:
            raise RegionTooLarge(f"LP grid would have {count} points (limit {max_points})")
        points = tuple(_box_orbits(lo, hi, classes))
        idx = {x: i for i, x in enumerate(points)}
        edges: set[tuple[int, int]] = set()
        for i, x in enumerate(points):
            for k in range(dim):
                for step in (1, -1):
                    v = x[k] + step
                    if lo[k] <= v <= hi[k]:
                        j = idx[canonical(x[:k] + (v,) + x[k + 1 :], classes)]
                        if i != j:
                            edges.add((min(i, j), max(i, j)))
        return Region(relation, (Layer(lo, hi, None),), points, tuple(sorted(edges)), classes)

    by_size: dict[int, list[CountVector]] = {}
    for x in support:
        by_size.setdefault(sum(x), []).append(x)
    layer_list = []
    pts: set[CountVector] = set()
    for s in sorted(by_size):
        xs = by_size[s]
        lo = _invariant(tuple(min(x[i] for x in xs) for i in range(dim)), classes, min)
        free = s - sum(lo)
        hi = tuple(low + free for low in lo)
        layer_list.append(Layer(lo, hi, s))
        for c in _compositions(free, dim):
            pts.add(canonical(tuple(a + b for a, b in zip(lo, c)), classes))
            if len(pts) > max_points:
                raise RegionTooLarge(f"LP grid would have over {max_points} points")
    points = tuple(sorted(pts))
    idx = {x: i for i, x in enumerate(points)}
    edges_set: set[tuple[int, int]] = set()
    for i, x in enumerate(points):
        for u in range(dim):
            if x[u] == 0:
                continue
            for v in range(dim):
                if v == u:
                    continue
                y = list(x)
                y[u] -= 1
                y[v] += 1
                j = idx.get(canonical(tuple(y), classes))
                if j is not None and i != j:
                    edges_set.add((min(i, j), max(i, j)))
    return Region(relation, tuple(layer_list), points, tuple(sorted(edges_set)), classes)


def _invariant(v: CountVector, classes: Classes, agg) -> CountVector:  # type: ignore[no-untyped-def]
    """Make a corner of the box invariant under the symmetry (same value across a class)."""
    out = list(v)
    for cls in classes:
        val = agg(v[i] for i in cls)
        for i in cls:
            out[i] = val
    return tuple(out)


def _blocks(dim: int, classes: Classes) -> list[tuple[int, ...]]:
    in_class = {i for cls in classes for i in cls}
    return [*classes, *((i,) for i in range(dim) if i not in in_class)]


def _orbit_count(lo: CountVector, hi: CountVector, classes: Classes) -> int:
    count = 1
    for block in _blocks(len(lo), classes):
        width = hi[block[0]] - lo[block[0]] + 1
        count *= comb(width + len(block) - 1, len(block))
    return count


def _box_orbits(lo: CountVector, hi: CountVector, classes: Classes) -> Iterable[CountVector]:
    blocks = _blocks(len(lo), classes)
    choices = []
    for block in blocks:
        values = range(lo[block[0]], hi[block[0]] + 1)
        choices.append([
            tuple(sorted(c, reverse=True))
            for c in itertools.combinations_with_replacement(values, len(block))
        ])
    for combo in itertools.product(*choices):
        x = [0] * len(lo)
        for block, vals in zip(blocks, combo):
            for i, v in zip(block, vals):
                x[i] = v
        yield tuple(x)


def _compositions(total: int, parts: int) -> Iterable[tuple[int, ...]]:
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def components(region: Region) -> list[int]:
    """Connected-component label of every point of the region's graph."""
    parent = list(range(len(region.points)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i, j in region.edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    return [find(i) for i in range(len(region.points))]


def neighbours_of(region: Region) -> list[list[int]]:
    adj: list[list[int]] = [[] for _ in region.points]
    for i, j in region.edges:
        adj[i].append(j)
        adj[j].append(i)
    return adj


def dataset_neighbours(x: Sequence[int], relation: Relation) -> list[CountVector]:
    """All neighbours of dataset `x` in the full lattice (for tests of the retraction)."""
    out: list[CountVector] = []
    n = len(x)
    if relation is Relation.ADD_REMOVE:
        for k in range(n):
            out.append(tuple(x[:k]) + (x[k] + 1,) + tuple(x[k + 1 :]))
            if x[k] > 0:
                out.append(tuple(x[:k]) + (x[k] - 1,) + tuple(x[k + 1 :]))
        return out
    for u in range(n):
        if x[u] == 0:
            continue
        for v in range(n):
            if v != u:
                y = list(x)
                y[u] -= 1
                y[v] += 1
                out.append(tuple(y))
    return out
