"""A small exact model of a PINQ-style query plan (ebadi §3, claim ebadi/pinq:take).

A dataset is a tuple of records (strings). Order is kept because PINQ's Take/Skip read it:
Union concatenates its arguments in argument order and keeps the relative order inside each
("the order of sets passed as arguments to union determines the order of sets", §3). Two
datasets are neighbours when one is the other with one record inserted at some position
(Definition 1 on sequences: the added record can land anywhere in the order).

A plan is a list of nodes in SSA form; node k may only use nodes < k. Operations:

* ``source``               the protected dataset D
* ``public``               public data {"values": [...]} (never charged)
* ``where``                keep x with (x == value) == equal
* ``select``               x ↦ map.get(x, x)
* ``union``                concatenation of two arguments (protected or public), in order
* ``take`` / ``skip``      first n records / all but the first n
* ``partition``            by (x == value): parts "true" and "false"
* ``partition-sample``     a random partition by a sampling design: parts "sample", "rest"
* ``sample``               a sampling design (random transformation; ebadi §4)
* ``part``                 one part of a partition node
* ``noisy-count``          |X| + noise, privacy parameter eps = k·ε (k a positive integer)
* ``noisy-sum``            Σ weights[x] + noise, weights in {−1, 0, 1} (PINQ clamps to [−1, 1])

Sampled datasets are unordered (written in sorted order). LINQ's Union removes duplicates;
here Union keeps them (PINQ's Concat), which is what every plan in the paper needs (its
records are distinct) and has the same declared stability.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import verifydp.designs.pinq_samplers  # noqa: F401  (registers reservoir / with-replacement)
from verifydp.designs.base import Design
from verifydp.exact.dist import FiniteDist
from verifydp.population import Population, RecordType

Dataset = tuple[str, ...]
UNARY = ("where", "select", "take", "skip", "sample", "partition", "partition-sample")
AGGREGATIONS = ("noisy-count", "noisy-sum")
OPS = ("source", "public", "union", "part", *UNARY, *AGGREGATIONS)


class PlanError(ValueError):
    """A malformed plan."""


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "args": list(self.args), **dict(self.params)}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Node:
        params = {k: v for k, v in obj.items() if k not in ("op", "args")}
        return Node(str(obj["op"]), tuple(int(a) for a in obj.get("args", ())), params)


@dataclass(frozen=True)
class Plan:
    """Nodes in SSA order; the output is the tuple of the aggregations' statistics."""

    nodes: tuple[Node, ...]

    def __post_init__(self) -> None:
        for k, node in enumerate(self.nodes):
            if node.op not in OPS:
                raise PlanError(f"node {k}: unknown operation {node.op!r}")
            if any(not 0 <= a < k for a in node.args):
                raise PlanError(f"node {k}: arguments must refer to earlier nodes")
            want = {"source": 0, "public": 0, "union": 2}.get(node.op, 1)
            if len(node.args) != want:
                raise PlanError(f"node {k}: {node.op} takes {want} argument(s)")
            if node.op == "part" and self.nodes[node.args[0]].op not in (
                "partition", "partition-sample"
            ):
                raise PlanError(f"node {k}: part of a non-partition node")
            if node.op in AGGREGATIONS:
                eps = node.params.get("eps", 1)
                if isinstance(eps, bool) or not isinstance(eps, int) or eps < 1:
                    raise PlanError(f"node {k}: eps multiple must be a positive integer")
            if node.op == "noisy-sum" and any(
                w not in (-1, 0, 1) for w in node.params.get("weights", {}).values()
            ):
                raise PlanError(f"node {k}: noisy-sum weights must be in {{-1, 0, 1}}")

    @property
    def aggregations(self) -> tuple[int, ...]:
        return tuple(k for k, n in enumerate(self.nodes) if n.op in AGGREGATIONS)

    def eps_multiples(self) -> tuple[int, ...]:
        return tuple(int(self.nodes[k].params.get("eps", 1)) for k in self.aggregations)

    @property
    def deterministic(self) -> bool:
        return not any(n.op in ("sample", "partition-sample") for n in self.nodes)

    def to_json(self) -> list[dict[str, Any]]:
        return [n.to_json() for n in self.nodes]

    @staticmethod
    def from_json(obj: Sequence[Mapping[str, Any]]) -> Plan:
        return Plan(tuple(Node.from_json(n) for n in obj))


class PlanBuilder:
    """Appends nodes and returns their ids (for readable plan construction)."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []

    def add(self, op: str, *args: int, **params: Any) -> int:
        self.nodes.append(Node(op, tuple(args), params))
        return len(self.nodes) - 1

    def build(self) -> Plan:
        return Plan(tuple(self.nodes))


# ---------------------------------------------------------------- semantics


def _population(d: Dataset) -> Population:
    return Population.from_values(d)


def _sample_law(design: Design, d: Dataset) -> FiniteDist[tuple[Dataset, Dataset]]:
    """Law of (sample, rest) as sorted tuples; `rest` is meaningless for with-replacement."""
    pop = _population(d)
    universe = tuple(sorted({RecordType(v) for v in d}, key=RecordType.key))
    full = pop.counts_over(universe) if universe else ()

    def split(c: tuple[int, ...]) -> tuple[Dataset, Dataset]:
        sample = tuple(rt.value for rt, k in zip(universe, c) for _ in range(k))
        rest = tuple(rt.value for rt, n, k in zip(universe, full, c) for _ in range(max(n - k, 0)))
        return sample, rest

    return design.sample_law(pop, universe).map(split)


def _unary(node: Node, x: Dataset) -> Dataset:
    p = node.params
    if node.op == "where":
        return tuple(r for r in x if (r == str(p["value"])) == bool(p.get("equal", True)))
    if node.op == "select":
        mapping = p["map"]
        return tuple(mapping.get(r, r) for r in x)
    if node.op == "take":
        return x[: int(p["n"])]
    if node.op == "skip":
        return x[int(p["n"]) :]
    raise PlanError(f"not a deterministic unary operation: {node.op}")


def statistic(node: Node, x: Dataset) -> int:
    if node.op == "noisy-count":
        return len(x)
    weights = node.params.get("weights", {})
    return sum(int(weights.get(r, 0)) for r in x)


Value = Dataset | dict[str, Dataset] | int


def _worlds(plan: Plan, data: Dataset) -> list[tuple[Fraction, list[Value]]]:
    """Every joint outcome of the random nodes, with its probability and all node values
    (node by node, so deep deterministic plans such as Listing 1 at scale 1000 are fine)."""
    worlds: list[tuple[Fraction, list[Value]]] = [(Fraction(1), [])]
    for node in plan.nodes:
        nxt: list[tuple[Fraction, list[Value]]] = []
        for prob, vals in worlds:
            args = [vals[a] for a in node.args]
            if node.op in ("sample", "partition-sample"):
                design = Design.from_json(node.params["design"])
                for (sample, rest), q in _sample_law(design, args[0]):  # type: ignore[arg-type]
                    out: Value = sample if node.op == "sample" else {"sample": sample, "rest": rest}
                    nxt.append((prob * q, [*vals, out]))
            else:
                vals.append(_deterministic(node, args, data))
                nxt.append((prob, vals))
        worlds = nxt
    return worlds


def _deterministic(node: Node, args: list[Value], data: Dataset) -> Value:
    if node.op == "source":
        return data
    if node.op == "public":
        return tuple(str(v) for v in node.params["values"])
    if node.op == "union":
        return args[0] + args[1]  # type: ignore[operator]
    if node.op == "partition":
        x = args[0]
        v = str(node.params["value"])
        return {"true": tuple(r for r in x if r == v), "false": tuple(r for r in x if r != v)}  # type: ignore[union-attr]
    if node.op == "part":
        return args[0][str(node.params["key"])]  # type: ignore[index]
    if node.op in AGGREGATIONS:
        return statistic(node, args[0])  # type: ignore[arg-type]
    return _unary(node, args[0])  # type: ignore[arg-type]


def statistics_law(plan: Plan, data: Dataset) -> FiniteDist[tuple[int, ...]]:
    """Exact law of the aggregations' (noise-free) statistics on dataset `data`."""
    aggs = plan.aggregations
    return FiniteDist.from_pairs(
        (tuple(vals[k] for k in aggs), p) for p, vals in _worlds(plan, data)  # type: ignore[misc]
    )


def evaluate(plan: Plan, data: Dataset) -> list[Value]:
    """All node values of a deterministic plan."""
    if not plan.deterministic:
        raise PlanError("evaluate() needs a deterministic plan; use statistics_law")
    ((_, vals),) = list(_worlds(plan, data))
    return vals


# ---------------------------------------------------------------- PINQ's accounting


# PINQ's declared stabilities (Union: per protected argument; Partition: max over parts)
DECLARED_STABILITY = {"where": 1, "select": 1, "take": 1, "skip": 1, "union": 1, "partition": 1}


def charge(plan: Plan) -> Fraction:
    """What PINQ deducts from D's budget, as a multiple of ε (ebadi §3): an aggregation with
    eps = kε on a node charges k·ε times the product of the declared stabilities back to the
    source (Union: 1 per protected argument, charges from several consumers add up), and a
    partition is charged the maximum over its parts (parallel composition)."""
    if not plan.deterministic:
        raise PlanError("PINQ has no sampling operator: its accounting is undefined here")
    usage = [Fraction(0)] * len(plan.nodes)
    part_usage: dict[int, dict[str, Fraction]] = {}
    for k in range(len(plan.nodes) - 1, -1, -1):
        node = plan.nodes[k]
        if node.op == "partition":  # its parts have larger ids: their usage is complete
            usage[k] += max(part_usage.get(k, {}).values(), default=Fraction(0))
        if node.op in AGGREGATIONS:
            usage[node.args[0]] += int(node.params.get("eps", 1))
        elif node.op == "part":
            parts = part_usage.setdefault(node.args[0], {})
            key = str(node.params["key"])
            parts[key] = parts.get(key, Fraction(0)) + usage[k]
        elif node.op == "union":
            for a in node.args:
                if plan.nodes[a].op != "public":
                    usage[a] += DECLARED_STABILITY["union"] * usage[k]
        elif node.op in ("where", "select", "take", "skip", "partition"):
            usage[node.args[0]] += DECLARED_STABILITY[node.op] * usage[k]
    return sum((usage[k] for k, n in enumerate(plan.nodes) if n.op == "source"), Fraction(0))


def neighbours(a: Dataset, b: Dataset) -> bool:
    """One is the other with one record inserted somewhere (ebadi Definition 1, on sequences)."""
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    if len(long_) != len(short) + 1:
        return False
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))
