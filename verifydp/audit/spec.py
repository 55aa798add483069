"""Design files: a proposed sampling design, read from TOML and validated (issue 6).

A design file states the population's shape, the design, the base mechanism's guarantee, the
neighbouring relation to protect and the target guarantee (docs/design-files.md; the JSON
Schema is docs/design-schema.json). Every problem is reported as one `DesignFileError` whose
message starts with the dotted name of the offending field, e.g.
``design.r: must be in (0, 1), got 3/2``. Validation never lets another exception escape.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifydp import numparse
from verifydp.designs import (
    SRSWOR,
    SRSWR,
    ClusterPPS,
    ClusterSRS,
    Design,
    DesignError,
    MustOW,
    MustWO,
    MustWW,
    Poisson,
    PoissonPPS,
    ProportionalWOR,
    RandomSizeWOR,
    StratifiedFixed,
    StratifiedNeyman,
    StratifiedProportional,
    SuccessivePPS,
    SystematicFixed,
    SystematicRandomOrder,
    TwoStageCluster,
)
from verifydp.exact.numtext import fraction_text
from verifydp.files import NotRegular, TooLarge, read_bounded
from verifydp.population import Relation

try:  # Python ≥ 3.11; `tomli` is the same parser for 3.10
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[no-redef]

# Limits of the audit (beyond them the exact law or the neighbour search gets too large).
MAX_POPULATION = 10**7
MAX_STRATA = 50
MAX_CLUSTERS = 10**5
MAX_SIZE_CLASSES = 50
MAX_NEYMAN_VALUE = 10**5
MAX_EPSILON = Fraction(20)
MAX_MUST_DRAWS = 10**6

ROUNDINGS = ("half-up", "half-even", "floor", "randomised")
NEYMAN_ROUNDINGS = ("half-up", "half-even", "floor", "ceil")
KINDS = (
    "poisson", "srswor", "srswr", "random-size", "proportional", "stratified-proportional",
    "stratified-fixed", "stratified-neyman", "cluster-srs", "two-stage-cluster", "cluster-pps",
    "poisson-pps", "successive-pps", "systematic-fixed", "systematic-random",
    "must-ow", "must-wo", "must-ww", "shuffle", "balls-and-bins",
)
# parameters of each design kind: (required, optional)
PARAMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "poisson": (("q",), ()),
    "srswor": (("m",), ()),
    "srswr": (("m",), ()),
    "random-size": (("size_law",), ()),
    "proportional": (("r", "rounding"), ()),
    "stratified-proportional": (("r", "rounding"), ()),
    "stratified-fixed": (("sizes",), ()),
    "stratified-neyman": (("m", "rounding"), ("variance", "max_value")),
    "cluster-srs": (("ell",), ()),
    "two-stage-cluster": (("ell", "within"), ("q", "m")),
    "cluster-pps": (("ell",), ()),
    "poisson-pps": (("expected_size",), ()),
    "successive-pps": (("m",), ()),
    "systematic-fixed": (("interval",), ()),
    "systematic-random": (("interval",), ()),
    "must-ow": (("b", "m"), ()),
    "must-wo": (("b", "m"), ()),
    "must-ww": (("b", "m"), ()),
    "shuffle": (("batch",), ()),
    "balls-and-bins": (("batch",), ()),
}
NEEDS = {  # which part of population a design kind needs
    "stratified-proportional": "strata", "stratified-fixed": "strata",
    "stratified-neyman": "strata", "cluster-srs": "clusters", "two-stage-cluster": "clusters",
    "cluster-pps": "clusters", "poisson-pps": "size_classes", "successive-pps": "size_classes",
}
TOP_KEYS = ("name", "description", "population", "design", "base", "protect", "target", "audit",
            "mechanism", "composition", "accountant")

# deployment sections (issue 16): the concrete mechanism, T releases, the user's accountant
MECHANISMS = ("gaussian", "laplace", "randomized-response", "discrete-gaussian")
QUERIES = ("sum", "mean", "count")
DISCRETE_MECHANISMS = ("randomized-response", "discrete-gaussian")
DGAUSS_SIGMA = (Fraction(1, 10), Fraction(5000))  # the discrete engine's range of σ
ACCOUNTANTS = ("dp-accounting-pld", "dp-accounting-rdp", "opacus-rdp", "opacus-prv",
               "prv-accountant", "autodp")
ASSUMED_SAMPLERS = ("poisson", "fixed-size", "shuffle")
CLUSTER_FRAMES = ("open", "fixed")
SIZE_MEASURES = ("own", "fixed")
SYSTEMATIC_ORDERS = ("values", "fixed")
MAX_STEPS = 10**6
# designs whose per-step dominating pair is derived (verifydp.accounting.dominating)
NOT_DEPLOYABLE = {  # why a design has no per-release dominating pair (docs/design-files.md)
    "stratified-neyman": "the allocation follows the records' values (each stratum's spread), "
                         "so one record can move every stratum's sample size; no pair is "
                         "derived",
    "systematic-fixed": "a known order set by the records: a record added or changed moves "
                        "the residue class of the records after it (no amplification, Bun "
                        "et al. §6.3); no pair is derived (a frame order that a changed "
                        "record keeps: state [protect] order = \"fixed\")",
}
DEPLOYMENT_KINDS = ("poisson", "poisson-pps", "srswor", "srswr", "random-size", "proportional",
                    "stratified-proportional", "stratified-fixed", "cluster-srs",
                    "two-stage-cluster", "must-ow", "must-wo", "must-ww", "shuffle",
                    "systematic-random", "successive-pps", "cluster-pps", "balls-and-bins")


class DesignFileError(ValueError):
    """A malformed or impossible design file; the message names the field."""


def _fail(where: str, msg: str) -> DesignFileError:
    return DesignFileError(f"{where}: {msg}")


@dataclass(frozen=True)
class Stratum:
    name: str
    size: int
    values: tuple[tuple[int, int], ...] = ()  # (record value, count), for Neyman allocation
    bounds: tuple[int, int] | None = None  # values [lo, hi] that belong to this stratum


@dataclass(frozen=True)
class Guarantee:
    """An ε or (ε, δ) guarantee under a neighbouring relation."""

    epsilon: Fraction
    delta: Fraction
    relation: Relation

    def describe(self) -> str:
        d = f", δ = {fraction_text(self.delta)}" if self.delta else ""
        return f"ε = {fraction_text(self.epsilon)}{d} ({self.relation.value})"


@dataclass(frozen=True)
class MechanismSpec:
    """The concrete base mechanism (issue 16): noise of `kind` on a clipped query. `clip`
    bounds each record's contribution (its norm: L2 for Gaussian noise, L1 for Laplace), so
    one record moves a sum by at most `clip` when added or removed and by 2·clip when
    substituted; a count moves by 1 either way; a mean is the sum over the public `divisor`.
    `noise` is the standard deviation σ (Gaussian kinds; the discrete Gaussian's σ on ℤ, with
    an integer clip) or the scale b (Laplace), on the released query's own scale.
    Randomized response releases a binary statistic of the sample: query "binary", clip 1,
    noise 0 (unused) and `epsilon0` its parameter."""

    kind: str
    query: str
    clip: Fraction
    noise: Fraction
    divisor: Fraction = Fraction(1)
    epsilon0: Fraction = Fraction(0)

    @property
    def magnitude(self) -> Fraction:
        """How far one added or removed record moves the released query."""
        return (Fraction(1) if self.query == "count" else self.clip) / self.divisor

    @property
    def diameter(self) -> Fraction:
        """How far one record's change of value moves the released query (values in a
        ball of radius clip: diameter 2·clip; counts: 0 or 1)."""
        return (Fraction(1) if self.query == "count" else 2 * self.clip) / self.divisor


@dataclass(frozen=True)
class CompositionSpec:
    """T releases; exactly one of a target δ (report ε(δ)) or a target ε (report δ(ε)).
    `resample`: every release draws a new sample (DP-SGD) or all use one sample (a survey
    publishing T tables)."""

    steps: int
    delta: Fraction | None
    epsilon: Fraction | None
    resample: bool = True
    rtol: Fraction = Fraction(1, 50)


@dataclass(frozen=True)
class AccountantSpec:
    """The accountant the user runs, with what it assumes (e.g. Poisson with q = batch/N)."""

    name: str
    assumes: str
    q: Fraction
    noise_multiplier: Fraction
    steps: int


@dataclass(frozen=True)
class AuditSpec:
    """A validated design file."""

    name: str
    description: str
    size: int
    strata: tuple[Stratum, ...]
    clusters: tuple[int, ...]  # cluster sizes, largest first
    size_classes: tuple[tuple[Fraction, int], ...]  # (size measure, count)
    kind: str
    params: Mapping[str, Any]
    base: Guarantee
    protect: Relation
    target: Guarantee
    instance_size: int = 40
    eps_grid: tuple[Fraction, ...] = ()
    design: Design = field(default=None, compare=False)  # type: ignore[assignment]
    mechanism: MechanismSpec | None = None
    composition: CompositionSpec | None = None
    accountant: AccountantSpec | None = None
    # cluster designs: "open" — a record type carries its cluster, so a neighbour may form,
    # dissolve or change a record's cluster; "fixed" — the file states that the cluster frame
    # is public and fixed (records join or change within existing clusters)
    cluster_frame: str = "open"
    # PPS designs under substitution: "own" — the size measure is the record's own, so a
    # changed record may change it (and the total); "fixed" — the file states that measures
    # are frame data (a register's size band), kept by a changed record
    size_measures: str = "own"
    # a design file read as an equivalent design (systematic sampling over a frame order
    # stated fixed is cluster sampling of its residue classes): the reading, in words
    reading: str = ""
    # sections a deployment file left out and the single-release part filled in ("base",
    # "target"; `_single_release_defaults`): the report says which
    defaulted: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        def js(v: Any) -> Any:
            if isinstance(v, Fraction):
                return str(v)
            if isinstance(v, Mapping):
                return {str(k): js(x) for k, x in v.items()}
            return v

        return {
            "name": self.name,
            "population": {
                "size": self.size,
                "strata": {s.name: s.size for s in self.strata} or None,
                "clusters": len(self.clusters) or None,
                "largest_cluster": max(self.clusters, default=None),
                "size_classes": [[str(m), c] for m, c in self.size_classes] or None,
            },
            "design": {"kind": self.kind, **js(dict(self.params)),
                       **({"read_as": self.reading} if self.reading else {})},
            "base": {"epsilon": str(self.base.epsilon), "delta": str(self.base.delta),
                     "relation": self.base.relation.value},
            "protect": self.protect.value,
            "target": {"epsilon": str(self.target.epsilon), "delta": str(self.target.delta)},
            **({"defaulted": list(self.defaulted)} if self.defaulted else {}),
        }


# ---------------------------------------------------------------- scalar readers


# every number of a design file is 0 or within these magnitudes (issue 28: 1e-300 and 1e300
# crashed or hung the engines in a dozen places); each key's own domain is checked after
MAGNITUDE = (Fraction(1, 10**12), Fraction(10**12))


def number(where: str, x: object) -> Fraction:
    """A rational from an int, a decimal float (read as its decimal text: 0.1 is 1/10), or a
    string 'a/b' / '0.25'. Booleans, NaN and infinities are refused."""
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise _fail(where, f"must be a number, got {x!r}")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise _fail(where, f"must be finite, got {x!r}")
        x = repr(x)
    try:  # the one parser (issue 28): "1e999999999" once built a billion-digit Fraction
        v = numparse.number(x, where)
        if v and not MAGNITUDE[0] <= abs(v) <= MAGNITUDE[1]:
            raise _fail(where, f"must be 0 or of magnitude between {float(MAGNITUDE[0]):g} and "
                               f"{float(MAGNITUDE[1]):g}, got {x}")
        return v
    except numparse.NumberError as exc:
        if "exponent" in str(exc) or "digits" in str(exc):
            raise _fail(where, str(exc).removeprefix(where).lstrip(": =")) from None
        raise _fail(where, f"must be a number such as 3, 0.25 or '1/4', got {x!r}") from None


def integer(where: str, x: object, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise _fail(where, f"must be an integer, got {x!r}")
    if x < lo:
        raise _fail(where, f"must be at least {lo}, got {x}")
    if hi is not None and x > hi:
        raise _fail(where, f"{x} exceeds the limit {hi}")
    return x


def probability(where: str, x: object) -> Fraction:
    p = number(where, x)
    if not 0 <= p <= 1:
        raise _fail(where, f"probability outside [0, 1]: {p}")
    return p


def _table(where: str, x: object) -> Mapping[str, Any]:
    if not isinstance(x, Mapping):
        raise _fail(where, f"must be a table, got {type(x).__name__}")
    return x


def _keys(where: str, obj: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for k in obj:
        if k not in allowed:
            raise _fail(f"{where}.{k}" if where else str(k),
                        f"unknown key (allowed: {', '.join(allowed)})")


def _choice(where: str, x: object, options: tuple[str, ...]) -> str:
    if not isinstance(x, str) or x not in options:
        raise _fail(where, f"must be one of {', '.join(options)}; got {x!r}")
    return x


def _relation(where: str, x: object) -> Relation:
    if not isinstance(x, str):
        raise _fail(where, f"must be 'add-remove' or 'replace', got {x!r}")
    try:
        return Relation.parse(x)
    except ValueError:
        raise _fail(where, f"must be 'add-remove' or 'replace', got {x!r}") from None


# ---------------------------------------------------------------- sections


def _guarantee(where: str, obj: object, default_relation: Relation | None) -> Guarantee:
    t = _table(where, obj)
    _keys(where, t, ("epsilon", "delta", "relation"))
    if "epsilon" not in t:
        raise _fail(f"{where}.epsilon", "missing")
    eps = number(f"{where}.epsilon", t["epsilon"])
    if not 0 < eps <= MAX_EPSILON:
        raise _fail(f"{where}.epsilon", f"must be in (0, {MAX_EPSILON}], got {eps}")
    delta = probability(f"{where}.delta", t.get("delta", 0))
    if delta >= 1:
        raise _fail(f"{where}.delta", f"must be below 1, got {delta}")
    if "relation" in t or default_relation is None:
        rel = _relation(f"{where}.relation", t.get("relation", "add-remove"))
    else:
        rel = default_relation
    return Guarantee(eps, delta, rel)


def _strata(obj: object) -> tuple[Stratum, ...]:
    t = _table("population.strata", obj)
    if not t:
        raise _fail("population.strata", "is empty")
    if len(t) > MAX_STRATA:
        raise _fail("population.strata", f"{len(t)} strata exceed the limit {MAX_STRATA}")
    out = []
    for name, v in t.items():
        where = f"population.strata.{name}"
        if isinstance(v, Mapping):
            _keys(where, v, ("size", "values", "range"))
            values: list[tuple[int, int]] = []
            for val, c in _table(f"{where}.values", v.get("values", {})).items():
                try:
                    iv = int(val)
                except ValueError:
                    raise _fail(f"{where}.values", f"value {val!r} is not an integer") from None
                if not 0 <= iv <= MAX_NEYMAN_VALUE:
                    raise _fail(f"{where}.values", f"value {iv} outside [0, {MAX_NEYMAN_VALUE}]")
                values.append((iv, integer(f"{where}.values.{val}", c, 1, MAX_POPULATION)))
            total = sum(c for _, c in values)
            size = integer(f"{where}.size", v["size"], 1, MAX_POPULATION) if "size" in v else total
            if values and size != total:
                raise _fail(f"{where}.size", f"{size} differs from the {total} records in values")
            if size < 1:
                raise _fail(where, "needs a size or values")
            rng = _range(f"{where}.range", v["range"]) if "range" in v else None
            if rng and any(not rng[0] <= x <= rng[1] for x, _ in values):
                raise _fail(f"{where}.values", f"a value lies outside the stratum's range {rng}")
            out.append(Stratum(str(name), size, tuple(sorted(values)), rng))
        else:
            out.append(Stratum(str(name), integer(where, v, 1, MAX_POPULATION)))
    ranges = sorted(s.bounds for s in out if s.bounds)
    if ranges and len(ranges) != len(out):
        raise _fail("population.strata", "give a range to every stratum or to none")
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        if lo != hi + 1:
            raise _fail("population.strata", f"stratum ranges must be contiguous; {hi} is "
                                             f"followed by {lo}")
    return tuple(out)


def _range(where: str, x: object) -> tuple[int, int]:
    if not isinstance(x, list) or len(x) != 2:
        raise _fail(where, f"must be [lowest, highest], got {x!r}")
    lo = integer(f"{where}[0]", x[0], 0, MAX_NEYMAN_VALUE)
    hi = integer(f"{where}[1]", x[1], lo, MAX_NEYMAN_VALUE)
    return lo, hi


def _clusters(obj: object) -> tuple[int, ...]:
    where = "population.clusters"
    if not isinstance(obj, list) or not obj:
        raise _fail(where, "must be a non-empty array of sizes or of {size, count} tables")
    sizes: list[int] = []
    for i, c in enumerate(obj):
        if isinstance(c, Mapping):
            _keys(f"{where}[{i}]", c, ("size", "count"))
            if "size" not in c:
                raise _fail(f"{where}[{i}].size", "missing")
            s = integer(f"{where}[{i}].size", c["size"], 1, MAX_POPULATION)
            k = integer(f"{where}[{i}].count", c.get("count", 1), 1, MAX_CLUSTERS)
        else:
            s, k = integer(f"{where}[{i}]", c, 1, MAX_POPULATION), 1
        if len(sizes) + k > MAX_CLUSTERS:
            raise _fail(where, f"more than {MAX_CLUSTERS} clusters")
        sizes += [s] * k
    return tuple(sorted(sizes, reverse=True))


def _size_classes(obj: object) -> tuple[tuple[Fraction, int], ...]:
    where = "population.size_classes"
    if not isinstance(obj, list) or not obj:
        raise _fail(where, "must be a non-empty array of {measure, count} tables")
    if len(obj) > MAX_SIZE_CLASSES:
        raise _fail(where, f"{len(obj)} classes exceed the limit {MAX_SIZE_CLASSES}")
    out: dict[Fraction, int] = {}
    for i, c in enumerate(obj):
        t = _table(f"{where}[{i}]", c)
        _keys(f"{where}[{i}]", t, ("measure", "count"))
        for k in ("measure", "count"):
            if k not in t:
                raise _fail(f"{where}[{i}].{k}", "missing")
        meas = number(f"{where}[{i}].measure", t["measure"])
        if meas <= 0:
            raise _fail(f"{where}[{i}].measure", f"size measure must be positive, got {meas}")
        out[meas] = out.get(meas, 0) + integer(f"{where}[{i}].count", t["count"], 1, MAX_POPULATION)
    return tuple(sorted(out.items()))


def _population(obj: object) -> tuple[int, tuple[Stratum, ...], tuple[int, ...],
                                      tuple[tuple[Fraction, int], ...]]:
    t = _table("population", obj)
    _keys("population", t, ("size", "strata", "clusters", "size_classes"))
    strata = _strata(t["strata"]) if "strata" in t else ()
    clusters = _clusters(t["clusters"]) if "clusters" in t else ()
    classes = _size_classes(t["size_classes"]) if "size_classes" in t else ()
    totals = {
        "strata": sum(s.size for s in strata), "clusters": sum(clusters),
        "size_classes": sum(c for _, c in classes),
    }
    given = {k: v for k, v in totals.items() if v}
    if "size" in t:
        size = integer("population.size", t["size"], 1, MAX_POPULATION)
    elif given:
        size = next(iter(given.values()))
    else:
        raise _fail("population.size", "missing (give size, strata, clusters or size_classes)")
    if size > MAX_POPULATION:
        raise _fail("population.size", f"{size} exceeds the limit {MAX_POPULATION}")
    for k, v in given.items():
        if v != size:
            raise _fail(f"population.{k}", f"add up to {v} records, but population.size is {size}")
    return size, strata, clusters, classes


def _param(kind: str, name: str, raw: object, size: int) -> Any:
    where = f"design.{name}"
    if name in ("q",):
        return probability(where, raw)
    if name == "r":
        r = number(where, raw)
        if not 0 < r < 1:
            raise _fail(where, f"must be in (0, 1), got {r}")
        return r
    if name == "rounding":
        return _choice(where, raw, NEYMAN_ROUNDINGS if kind == "stratified-neyman" else ROUNDINGS)
    if name == "variance":
        return _choice(where, raw, ("population", "sample"))
    if name == "within":
        return _choice(where, raw, ("poisson", "srs"))
    if name == "expected_size":
        e = number(where, raw)
        if not 0 <= e <= size:
            raise _fail(where, f"must be in [0, population size {size}], got {e}")
        return e
    if name == "size_law":
        law = {}
        for k, p in _table(where, raw).items():
            try:
                mm = int(k)
            except ValueError:
                raise _fail(where, f"sample size {k!r} is not an integer") from None
            if not 0 <= mm <= size:
                raise _fail(where, f"sample size {mm} outside [0, population size {size}]")
            law[mm] = probability(f"{where}.{k}", p)
        if not law or sum(law.values()) != 1:
            raise _fail(where, f"probabilities must sum to 1, got {sum(law.values())}")
        return law
    if name == "sizes":
        return {str(h): integer(f"{where}.{h}", v, 0, MAX_POPULATION)
                for h, v in _table(where, raw).items()}
    if name in ("b", "m") and kind.startswith("must-"):
        return integer(where, raw, 0, MAX_MUST_DRAWS)
    if name == "max_value":
        return integer(where, raw, 1, MAX_NEYMAN_VALUE)
    if name == "batch":
        return integer(where, raw, 1, MAX_POPULATION)
    if name in ("m", "ell", "interval"):
        return integer(where, raw, 1 if name == "interval" else 0, MAX_POPULATION)
    raise _fail(where, "unknown parameter")  # pragma: no cover - PARAMS lists every name


def _cross_checks(kind: str, p: dict[str, Any], size: int, strata: tuple[Stratum, ...],
                  clusters: tuple[int, ...]) -> None:
    """Constraints between parameters and the population's shape."""
    if kind in ("srswor", "successive-pps") and p["m"] > size:
        raise _fail("design.m", f"sample size {p['m']} exceeds population size {size}")
    if kind in ("shuffle", "balls-and-bins") and p["batch"] > size:
        raise _fail("design.batch", f"batch size {p['batch']} exceeds population size {size}")
    if kind == "srswr" and p["m"] > 10 * size:
        raise _fail("design.m", f"{p['m']} draws exceed the limit 10 × population size")
    if kind in ("systematic-fixed", "systematic-random") and p["interval"] > size:
        raise _fail("design.interval", f"interval {p['interval']} exceeds population size {size}")
    if kind in ("cluster-srs", "two-stage-cluster", "cluster-pps"):
        if not 1 <= p["ell"] <= len(clusters):
            raise _fail("design.ell", f"must be in [1, {len(clusters)}] (the number of clusters),"
                                      f" got {p['ell']}")
        if kind == "two-stage-cluster":
            need = "q" if p["within"] == "poisson" else "m"
            other = "m" if need == "q" else "q"
            if need not in p:
                raise _fail(f"design.{need}", f"missing (within = {p['within']!r})")
            if other in p:
                raise _fail(f"design.{other}", f"not used with within = {p['within']!r}")
    if kind == "stratified-fixed":
        names = {s.name: s.size for s in strata}
        for h, m in p["sizes"].items():
            if h not in names:
                raise _fail(f"design.sizes.{h}", "no such stratum in population.strata")
            if m > names[h]:
                raise _fail(f"design.sizes.{h}", f"allocation {m} exceeds the stratum size "
                                                 f"{names[h]}")
        missing = sorted(set(names) - set(p["sizes"]))
        if missing:
            raise _fail("design.sizes", f"no allocation for stratum {missing[0]!r}")
    if kind == "stratified-neyman":
        if p["m"] > size:
            raise _fail("design.m", f"sample size {p['m']} exceeds population size {size}")
        bare = [s.name for s in strata if not s.values]
        if bare:
            raise _fail(f"population.strata.{bare[0]}.values",
                        "Neyman allocation needs the record values (e.g. employee counts)")
        top = max(s.bounds[1] for s in strata) if strata[0].bounds else None
        if top is not None and p.get("max_value", 0) > top:
            raise _fail("design.max_value", f"{p['max_value']} lies above every stratum's "
                                            f"range (highest {top})")
    if kind.startswith("must-"):
        b, m = p["b"], p["m"]
        if kind == "must-ow" and b > size:
            raise _fail("design.b", f"stage-1 size {b} exceeds population size {size}")
        if kind == "must-wo" and m > b:
            raise _fail("design.m", f"stage-2 size {m} exceeds stage-1 size b = {b}")
        if b == 0 and m > 0:
            raise _fail("design.b", "is 0, so no stage-2 draws are possible")


def build_design(kind: str, p: Mapping[str, Any]) -> Design:
    """The engine's design object for validated parameters (population-independent)."""
    if kind == "poisson":
        return Poisson(p["q"])
    if kind == "srswor":
        return SRSWOR(p["m"])
    if kind == "srswr":
        return SRSWR(p["m"])
    if kind == "random-size":
        return RandomSizeWOR(p["size_law"])
    if kind == "proportional":
        return ProportionalWOR(p["r"], p["rounding"])
    if kind == "stratified-proportional":
        return StratifiedProportional(p["r"], p["rounding"])
    if kind == "stratified-fixed":
        return StratifiedFixed(p["sizes"])
    if kind == "stratified-neyman":
        return StratifiedNeyman(p["m"], p["rounding"], p.get("variance", "population"))
    if kind == "cluster-srs":
        return ClusterSRS(p["ell"])
    if kind == "two-stage-cluster":
        w = p["within"]
        return TwoStageCluster(p["ell"], w, p["q"] if w == "poisson" else p["m"])
    if kind == "cluster-pps":
        return ClusterPPS(p["ell"])
    if kind == "poisson-pps":
        return PoissonPPS(p["expected_size"], {"s": Fraction(1)})
    if kind == "successive-pps":
        return SuccessivePPS(p["m"], {"s": Fraction(1)})
    if kind == "systematic-fixed":
        return SystematicFixed(p["interval"])
    if kind == "systematic-random":
        return SystematicRandomOrder(p["interval"])
    if kind == "shuffle":  # one batch alone: b of N without replacement (epochs: deployment)
        return SRSWOR(p["batch"])
    cls = {"must-ow": MustOW, "must-wo": MustWO, "must-ww": MustWW}[kind]
    return cls(p["b"], p["m"])


def one_release(spec: AuditSpec) -> AuditSpec:
    """The design file as the single-release audit sees it: a shuffling loader's one release
    is one batch, b of N without replacement (`srswor`); a balls-and-bins loader's one step
    holds each record with probability 1/t independently (`poisson`, t = ⌊N/b⌋ steps per
    epoch); their epochs are the deployment audit's (verifydp.audit.deployment). Other kinds
    are returned unchanged."""
    if spec.kind == "shuffle":
        return replace(spec, kind="srswor", params={"m": spec.params["batch"]})
    if spec.kind == "balls-and-bins":
        return replace(spec, kind="poisson", params={"q": allocation_rate(spec)})
    return spec


def steps_per_epoch(size: int, batch: int) -> int:
    """t = ⌊N/b⌋: the steps of one epoch of a shuffling or balls-and-bins loader."""
    return size // batch


def allocation_rate(spec: AuditSpec) -> Fraction:
    """1/t: the chance that a balls-and-bins loader puts a record in a given step."""
    return Fraction(1, steps_per_epoch(spec.size, spec.params["batch"]))


def _design(obj: object, size: int, strata: tuple[Stratum, ...], clusters: tuple[int, ...],
            classes: tuple[tuple[Fraction, int], ...]) -> tuple[str, dict[str, Any], Design]:
    t = _table("design", obj)
    if "kind" not in t:
        raise _fail("design.kind", f"missing (one of {', '.join(KINDS)})")
    kind = _choice("design.kind", t["kind"], KINDS)
    required, optional = PARAMS[kind]
    _keys("design", t, ("kind", *required, *optional))
    for name in required:
        if name not in t:
            raise _fail(f"design.{name}", f"missing (required by {kind})")
    need = NEEDS.get(kind)
    if need and not {"strata": strata, "clusters": clusters, "size_classes": classes}[need]:
        raise _fail(f"population.{need}", f"missing (required by design kind {kind})")
    p = {name: _param(kind, name, t[name], size) for name in (*required, *optional) if name in t}
    _cross_checks(kind, p, size, strata, clusters)
    try:
        # balls-and-bins: one step alone holds each record w.p. 1/t, independently (its
        # epochs are the deployment audit's)
        design = (build_design("poisson", {"q": Fraction(1, steps_per_epoch(size, p["batch"]))})
                  if kind == "balls-and-bins" else build_design(kind, p))
    except (DesignError, ValueError, TypeError) as exc:
        raise _fail("design", str(exc)) from None
    return kind, p, design


def _audit_options(obj: object) -> tuple[int, tuple[Fraction, ...]]:
    t = _table("audit", obj)
    _keys("audit", t, ("instance_size", "eps_grid"))
    size = integer("audit.instance_size", t.get("instance_size", 40), 4, 200)
    grid_raw = t.get("eps_grid", [])
    if not isinstance(grid_raw, list) or len(grid_raw) > 12 or ("eps_grid" in t and not grid_raw):
        raise _fail("audit.eps_grid", "must be an array of 1 to 12 values of ε (leave it out "
                                      "for the default grid)")
    grid = []
    for i, e in enumerate(grid_raw):
        v = number(f"audit.eps_grid[{i}]", e)
        if not 0 < v <= MAX_EPSILON:
            raise _fail(f"audit.eps_grid[{i}]", f"must be in (0, {MAX_EPSILON}], got {v}")
        grid.append(v)
    return size, tuple(sorted(set(grid)))


def _positive(where: str, x: object) -> Fraction:
    v = number(where, x)
    if v <= 0:
        raise _fail(where, f"must be positive, got {v}")
    return v


def _mechanism(obj: object, protect: Relation) -> MechanismSpec:
    where = "mechanism"
    t = _table(where, obj)
    _keys(where, t, ("kind", "query", "clip", "sigma", "noise_multiplier", "scale", "divisor",
                     "epsilon0"))
    if "kind" not in t:
        raise _fail("mechanism.kind", f"missing (one of {', '.join(MECHANISMS)})")
    kind = _choice("mechanism.kind", t["kind"], MECHANISMS)
    if kind == "randomized-response":
        return _randomized_response(t)
    query = _choice("mechanism.query", t.get("query", "sum"), QUERIES)
    if query == "count":
        if "clip" in t:
            raise _fail("mechanism.clip", "a count has no clipping bound (each record adds 0 "
                                          "or 1)")
        clip = Fraction(1)
    elif "clip" not in t:
        raise _fail("mechanism.clip", f"missing (the clipping bound of each record's "
                                      f"contribution to the {query})")
    else:
        clip = _positive("mechanism.clip", t["clip"])
    if kind == "discrete-gaussian":
        # integer outputs: the noise is on ℤ, so a record must move the sum by an integer
        if query == "mean":
            raise _fail("mechanism.query", "discrete-gaussian takes count or sum (integer "
                                           "contributions), not mean")
        if clip.denominator != 1:
            raise _fail("mechanism.clip", f"discrete-gaussian needs an integer clip "
                                          f"(contributions are integers), got {clip}")
    divisor = _positive("mechanism.divisor", t["divisor"]) if "divisor" in t else Fraction(1)
    if query != "mean" and "divisor" in t:
        raise _fail("mechanism.divisor", "only a mean has a divisor")
    if query == "mean" and "divisor" not in t:
        raise _fail("mechanism.divisor", "missing (the public denominator of the mean, e.g. "
                                         "the batch size)")
    allowed = {"gaussian": ("sigma", "noise_multiplier"), "laplace": ("scale",),
               "discrete-gaussian": ("sigma", "noise_multiplier")}[kind]
    given = [k for k in ("sigma", "noise_multiplier", "scale") if k in t]
    for k in given:
        if k not in allowed:
            raise _fail(f"mechanism.{k}", f"not a parameter of {kind} (use {' or '.join(allowed)})")
    if len(given) != 1:
        raise _fail(f"mechanism.{allowed[0]}", f"give exactly one of {', '.join(allowed)}")
    noise = _positive(f"mechanism.{given[0]}", t[given[0]])
    if given[0] == "noise_multiplier":  # DP-SGD convention: σ = multiplier × clip (sum scale)
        noise = noise * clip / divisor
    if kind == "discrete-gaussian" and not DGAUSS_SIGMA[0] <= noise <= DGAUSS_SIGMA[1]:
        # every integer within ±12σ is an atom (accounting.atoms); below 1/10 the loss of one
        # step spans hundreds of nats and ε(δ) leaves the lattice's range
        raise _fail(f"mechanism.{given[0]}", f"discrete-gaussian σ = {float(noise):g} is outside "
                                             f"[{DGAUSS_SIGMA[0]}, {DGAUSS_SIGMA[1]}] (the "
                                             f"discrete engine's range)")
    if kind != "discrete-gaussian":
        sens = (Fraction(1) if query == "count" else clip) / divisor
        if not NOISE_RATIO[0] <= noise / sens <= NOISE_RATIO[1]:
            # below, one release's loss spans hundreds of nats and the accountant's lattice
            # does not fit in memory; above, the loss is below what it resolves (issue 28:
            # clip = 1e12 or sigma = 1e-12 were internal errors)
            raise _fail(f"mechanism.{given[0]}", f"{kind} noise {float(noise):g} is "
                                                 f"{float(noise / sens):g} × the sensitivity "
                                                 f"{float(sens):g}; allowed: "
                                                 f"[{float(NOISE_RATIO[0]):g}, "
                                                 f"{float(NOISE_RATIO[1]):g}] × it")
    if "epsilon0" in t:
        raise _fail("mechanism.epsilon0", f"not a parameter of {kind} (randomized-response "
                                          f"only)")
    return MechanismSpec(kind, query, clip, noise, divisor)


NOISE_RATIO = (Fraction(1, 10), Fraction(10**4))  # σ (or b) over the add/remove sensitivity


def _randomized_response(t: Mapping[str, Any]) -> MechanismSpec:
    """Binary randomized response of a statistic of the sample: no query, clip or noise."""
    for k in ("query", "clip", "sigma", "noise_multiplier", "scale", "divisor"):
        if k in t:
            raise _fail(f"mechanism.{k}", "not a parameter of randomized-response (it releases "
                                          "a binary statistic of the sample; give epsilon0)")
    if "epsilon0" not in t:
        raise _fail("mechanism.epsilon0", "missing (randomized response keeps the bit w.p. "
                                          "e^ε0 / (1 + e^ε0))")
    eps0 = _positive("mechanism.epsilon0", t["epsilon0"])
    if eps0 > MAX_EPSILON:
        raise _fail("mechanism.epsilon0", f"must be at most {MAX_EPSILON}, got {eps0}")
    return MechanismSpec("randomized-response", "binary", Fraction(1), Fraction(0),
                         epsilon0=eps0)


def _composition(obj: object) -> CompositionSpec:
    where = "composition"
    t = _table(where, obj)
    _keys(where, t, ("steps", "delta", "epsilon", "resample", "rtol"))
    if "steps" not in t:
        raise _fail("composition.steps", "missing (the number of releases T)")
    steps = t["steps"]
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise _fail("composition.steps", f"must be an integer, got {steps!r}")
    if steps <= 0:
        raise _fail("composition.steps", f"must be positive, got {steps}")
    if steps > MAX_STEPS:
        raise _fail("composition.steps", f"{steps} exceeds the limit {MAX_STEPS}")
    if ("delta" in t) == ("epsilon" in t):
        raise _fail("composition", "give exactly one of delta (report ε at this δ) or epsilon "
                                   "(report δ at this ε)")
    delta = eps = None
    if "delta" in t:
        delta = number("composition.delta", t["delta"])
        if not 0 < delta < 1:
            raise _fail("composition.delta", f"must be in (0, 1), got {delta}")
    else:
        eps = number("composition.epsilon", t["epsilon"])
        if not 0 <= eps <= MAX_EPSILON:
            raise _fail("composition.epsilon", f"must be in [0, {MAX_EPSILON}], got {eps}")
    resample = t.get("resample", True)
    if not isinstance(resample, bool):
        raise _fail("composition.resample", f"must be true or false, got {resample!r}")
    rtol = number("composition.rtol", t.get("rtol", "1/50"))
    if not Fraction(1, 1000) <= rtol <= Fraction(1, 2):
        raise _fail("composition.rtol", f"must be in [1/1000, 1/2], got {rtol}")
    return CompositionSpec(steps, delta, eps, resample, rtol)


def _accountant(obj: object, kind: str, params: Mapping[str, Any], size: int,
                mech: MechanismSpec, comp: CompositionSpec | None) -> AccountantSpec:
    where = "accountant"
    t = _table(where, obj)
    _keys(where, t, ("name", "assumes", "q", "noise_multiplier", "steps"))
    if "name" not in t:
        raise _fail("accountant.name", f"missing (one of {', '.join(ACCOUNTANTS)})")
    name = _choice("accountant.name", t["name"], ACCOUNTANTS)
    assumes = _choice("accountant.assumes", t.get("assumes", "poisson"), ASSUMED_SAMPLERS)
    if "q" in t:
        q = probability("accountant.q", t["q"])
    elif kind == "poisson":
        q = params["q"]
    elif kind == "srswor":
        q = Fraction(params["m"], size)  # what loaders pass: batch / N
    elif kind in ("shuffle", "balls-and-bins"):
        q = Fraction(params["batch"], size)
    else:
        raise _fail("accountant.q", f"missing (the sampling rate the accountant is given; "
                                    f"no default for design kind {kind})")
    if not 0 < q <= 1:
        raise _fail("accountant.q", f"must be in (0, 1], got {q}")
    if "noise_multiplier" in t:
        z = _positive("accountant.noise_multiplier", t["noise_multiplier"])
    else:  # what the accountant is given: σ over the add/remove sensitivity
        z = mech.noise / mech.magnitude
    if "steps" in t:
        steps = integer("accountant.steps", t["steps"], 1, MAX_STEPS)
    elif comp is not None:
        steps = comp.steps
    else:
        raise _fail("accountant.steps", "missing (no [composition] section gives it)")
    if mech.kind != "gaussian" and name != "dp-accounting-pld":
        raise _fail("accountant.name", f"{name} is compared for Gaussian noise only "
                                       f"(dp-accounting-pld also takes Laplace, the discrete "
                                       f"Gaussian and randomized response)")
    return AccountantSpec(name, assumes, q, z, steps)


def _neighbour_epoch(size: int, batch: int) -> tuple[str, int] | None:
    """Where an add/remove neighbour (N − 1 or N + 1 records) cuts a different number of
    steps per epoch than ⌊N/b⌋ — exactly when N mod b ∈ {0, b − 1} — that neighbour and its
    count; else None."""
    if size % batch == 0:
        return "N − 1", (size - 1) // batch
    if size % batch == batch - 1:
        return "N + 1", (size + 1) // batch
    return None


def _shuffle_checks(batch: int, size: int, protect: Relation,
                    comp: CompositionSpec | None) -> None:
    """Shuffling into ⌊N/b⌋ batches per epoch (the last N mod b records sit the epoch out):
    releases come in whole epochs, and under add/remove both neighbours (N − 1 and N + 1
    records) must cut the same number of batches, so that adding or removing the record
    only trades it for one of the records that sit out (proofs/deployment_pairs.md#shuffle)."""
    per = size // batch
    moved = _neighbour_epoch(size, batch)
    if protect is Relation.ADD_REMOVE and moved is not None:
        side, other = moved
        raise _fail("protect.relation", f"add-remove with N mod b = {size % batch}: a "
                                        f"neighbour of {side} records cuts {other} batches "
                                        f"per epoch, not {per}, so the number of releases "
                                        f"changes and no pair is derived (use substitution, "
                                        f"or a batch with N mod b outside {{0, b − 1}})")
    if comp is not None and comp.steps % per:
        raise _fail("composition.steps", f"{comp.steps} is not a whole number of epochs "
                                         f"(one epoch = N // batch = {per} releases)")
    if comp is not None and not comp.resample:
        raise _fail("composition.resample", "false is not meaningful for shuffle (every "
                                            "release is a new batch of the epoch)")


def _allocation_checks(batch: int, size: int, mech: MechanismSpec | None, protect: Relation,
                       comp: CompositionSpec | None) -> None:
    """Balls-and-bins (each record in one of the t = ⌊N/b⌋ steps of an epoch, independently):
    its pair (Chua et al. 2025) is derived for Gaussian noise under add/remove, with a fresh
    assignment every epoch and the same t in both neighbours
    (proofs/deployment_pairs.md#balls-and-bins)."""
    moved = _neighbour_epoch(size, batch)
    if moved is not None and protect is Relation.ADD_REMOVE:
        other = moved[1]
        raise _fail("protect.relation", f"add-remove with N mod b = {size % batch}: a "
                                        f"neighbour cuts {other} steps per epoch, not "
                                        f"{size // batch}, so the pair's t differs between "
                                        f"the neighbours (use a batch with N mod b outside "
                                        f"{{0, b − 1}})")
    if protect is not Relation.ADD_REMOVE:
        raise _fail("protect.relation", "balls-and-bins: the pair is derived under add-remove "
                                        "only (Chua et al. 2025); no pair is derived under "
                                        "substitution")
    if mech is not None and mech.kind != "gaussian":
        raise _fail("mechanism.kind", f"{mech.kind}: balls-and-bins is derived for gaussian "
                                      f"noise only")
    if comp is not None and not comp.resample:
        raise _fail("composition.resample", "false is not meaningful for balls-and-bins "
                                            "(every epoch assigns the records afresh)")


def parse_design(obj: object) -> AuditSpec:
    """Validate a design file already parsed into a dict (from TOML or JSON)."""
    t = _table("design file", obj)
    _keys("", t, TOP_KEYS)
    deploy = "mechanism" in t or "composition" in t
    # a deployment's question is the T-release ε of its mechanism: [base] and [target] (the
    # single-release audit's ε-DP base and its target) mean nothing to a DP-SGD user, so a
    # deployment file may leave them out (issue 27; `_single_release_defaults`)
    for k in ("population", "design") if deploy else ("population", "design", "base", "target"):
        if k not in t:
            raise _fail(k, "missing section")
    t, defaulted = _single_release_defaults(t)
    name = t.get("name", "unnamed design")
    desc = t.get("description", "")
    if not isinstance(name, str):
        raise _fail("name", f"must be a string, got {name!r}")
    if not isinstance(desc, str):
        raise _fail("description", f"must be a string, got {desc!r}")
    size, strata, clusters, classes = _population(t["population"])
    kind, params, design = _design(t["design"], size, strata, clusters, classes)
    base = _guarantee("base", t["base"], None)
    prot = _table("protect", t.get("protect", {}))
    _keys("protect", prot, ("relation", "clusters", "measures", "order"))
    protect = _relation("protect.relation", prot.get("relation", base.relation.value))
    frame = _choice("protect.clusters", prot.get("clusters", "open"), CLUSTER_FRAMES)
    if "clusters" in prot and kind not in ("cluster-srs", "two-stage-cluster", "cluster-pps"):
        raise _fail("protect.clusters", f"applies to cluster designs only, not {kind}")
    measures = _choice("protect.measures", prot.get("measures", "own"), SIZE_MEASURES)
    if "measures" in prot and kind not in ("poisson-pps", "successive-pps"):
        raise _fail("protect.measures", f"applies to PPS designs only, not {kind}")
    if measures == "fixed" and protect is Relation.ADD_REMOVE:
        raise _fail("protect.measures", "\"fixed\" applies to substitution (an added or "
                                        "removed record brings or takes its own measure)")
    order = _choice("protect.order", prot.get("order", "values"), SYSTEMATIC_ORDERS)
    if "order" in prot and kind != "systematic-fixed":
        raise _fail("protect.order", f"applies to systematic-fixed only, not {kind}")
    reading = ""
    if order == "fixed":
        if protect is Relation.ADD_REMOVE:
            raise _fail("protect.order", "\"fixed\" applies to substitution (an added or "
                                         "removed record shifts every position after it)")
        kind, params, design, clusters, reading = _frame_order(params["interval"], size)
        frame = "fixed"
    target = _guarantee("target", t["target"], protect)
    if base.delta == 0 and target.delta > 0:
        pass  # a pure base may be compared with an approximate target: fine
    if base.delta > 0 and target.delta == 0:
        raise _fail("target.delta", "is 0, but a base with δ > 0 can never give a pure "
                                    "guarantee; state the target δ")
    inst, grid = _audit_options(t.get("audit", {}))
    mech = _mechanism(t["mechanism"], protect) if "mechanism" in t else None
    comp = _composition(t["composition"]) if "composition" in t else None
    if "accountant" in t and mech is None:
        raise _fail("mechanism", "missing section (an accountant needs the mechanism)")
    if (mech or comp) and kind not in DEPLOYMENT_KINDS:
        why = NOT_DEPLOYABLE.get(kind, "no dominating pair is derived for this design yet")
        raise _fail("design.kind", f"{kind}: {why} (deployment audits: "
                                   f"{', '.join(DEPLOYMENT_KINDS)})")
    if kind == "shuffle":
        if mech is not None and mech.kind in DISCRETE_MECHANISMS:
            raise _fail("mechanism.kind", f"{mech.kind}: shuffled batches are derived for "
                                          f"gaussian and laplace only")
        _shuffle_checks(params["batch"], size, protect, comp)
    if kind == "balls-and-bins":
        _allocation_checks(params["batch"], size, mech, protect, comp)
    acct = (_accountant(t["accountant"], kind, params, size, mech, comp)  # type: ignore[arg-type]
            if "accountant" in t else None)
    return AuditSpec(name, desc, size, strata, clusters, classes, kind, params, base,
                     protect, target, inst, grid, design, mech, comp, acct, frame, measures,
                     reading, defaulted)


DEFAULT_BASE_EPSILON = 1


def _single_release_defaults(t: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A deployment file without [base] or [target]: the single-release part of the report
    is then a reference answer — every ε-DP mechanism at ε = 1 (under the relation
    protected), target ε' ≤ that ε (sampling does not make one release worse) — and the
    report says that these were not the file's. Their values decide nothing about the
    deployment: its target is compared only when the file states one at the composition's
    δ (or ε). Returns the table with the sections filled in and the names filled."""
    missing = tuple(k for k in ("base", "target") if k not in t)
    if not missing:
        return t, ()
    prot = t.get("protect", {})
    relation = prot.get("relation", "add-remove") if isinstance(prot, Mapping) else "add-remove"
    filled = dict(t)
    if "base" not in t:
        filled["base"] = {"epsilon": DEFAULT_BASE_EPSILON, "relation": relation}
    if "target" not in t:
        base = filled["base"]
        eps = base.get("epsilon", DEFAULT_BASE_EPSILON) if isinstance(base, Mapping) else \
            DEFAULT_BASE_EPSILON
        filled["target"] = {"epsilon": eps, **({"delta": base["delta"]} if isinstance(
            base, Mapping) and "delta" in base else {})}
    return filled, missing


def _frame_order(interval: int, size: int
                 ) -> tuple[str, dict[str, Any], Design, tuple[int, ...], str]:
    """Systematic sampling over a frame order that a changed record keeps (`[protect] order
    = "fixed"`): the start picks one of the interval's residue classes uniformly, so the
    design is cluster sampling of one of k fixed clusters, N mod k of ⌈N/k⌉ records and the
    rest of ⌊N/k⌋ (Bun et al. §6.3; the exact laws agree, bun/sec6.3:systematic)."""
    k = interval
    sizes = tuple(size // k + (1 if j < size % k else 0) for j in range(k))
    params = {"ell": 1}
    each = (f"{sizes[0]}" if min(sizes) == max(sizes) else f"{min(sizes)}–{max(sizes)}")
    reading = (f"systematic sampling (interval {k}) over a frame order stated fixed "
               f"([protect] order = \"fixed\") is cluster sampling of one of its {k} residue "
               f"classes ({each} records each), the classes fixed")
    return "cluster-srs", params, build_design("cluster-srs", params), sizes, reading


def load_design(path: Path | str) -> AuditSpec:
    """Read and validate a TOML design file."""
    path = Path(path)
    try:
        text = read_bounded(path, MAX_FILE_BYTES).decode("utf-8")
    except NotRegular:
        raise DesignFileError(f"{path}: not a regular file") from None
    except TooLarge:
        raise DesignFileError(f"{path}: larger than {MAX_FILE_BYTES} bytes, the limit for a "
                              "design file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DesignFileError(f"{path}: cannot read design file ({exc})") from None
    return loads(text, str(path))


MAX_FILE_BYTES = 1_000_000


def loads(text: str, source: str = "design file") -> AuditSpec:
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DesignFileError(f"{source}: not valid TOML ({exc})") from None
    except RecursionError:  # 2000 nested arrays or inline tables (issue 28)
        raise DesignFileError(f"{source}: nested too deeply to be a design file") from None
    return parse_design(obj)
