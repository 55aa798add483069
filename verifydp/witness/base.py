"""Counterexample witnesses: build, serialise, replay (docs/foundations.md).

A witness is a concrete population pair, a design, a base mechanism that provably belongs to
the claimed class (an acceptance function on the LP region, exactly DP on every edge), and the
event "the mechanism accepts". `replay` recomputes everything from the stored inputs and never
trusts the stored numbers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import sympy

from verifydp import __version__
from verifydp.designs.base import Design
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.loss import privacy_loss
from verifydp.population import PopulationPair, Relation
from verifydp.worstcase.certify import two_sided_ok
from verifydp.worstcase.engine import AcceptanceWitness, region_for, symmetrise


@dataclass(frozen=True)
class Witness:
    """Everything needed to re-verify a violation of an upper-bound claim."""

    claim: str
    pair: PopulationPair
    design: Design
    design_prime: Design | None  # a different design applied to P' (e.g. Lemma B.1)
    base_relation: Relation
    eps: EpsSpec
    delta: Fraction
    quantity: str  # "ratio" (e^{ε'} bound) or "hockey" (δ' bound at e^{ε'})
    direction: str  # "forward": P against P'; "backward": P' against P
    acceptance: AcceptanceWitness
    claimed_expr: sympy.Expr  # e^{ε'} (ratio) or δ' (hockey), as printed
    t_prime_expr: sympy.Expr | None  # e^{ε'} for hockey claims
    params: dict[str, str]
    claimed_text: str
    actual_text: str
    derived_by: str | None = None  # params that replay re-derives from the mechanism

    def to_json(self) -> dict[str, Any]:
        acc = self.acceptance
        return {
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "populations": self.pair.to_json(),
            "design": self.design.to_json(),
            "design_prime": self.design_prime.to_json() if self.design_prime else None,
            "base_mechanism_class": {
                "relation": self.base_relation.value,
                "epsilon": self.eps.to_json(),
                "delta": str(self.delta),
            },
            "quantity": self.quantity,
            "direction": self.direction,
            "mechanism": {
                "kind": "acceptance-table",
                "about": (
                    "binary mechanism over sample count vectors; it outputs 1 with the listed "
                    "probability (0 where unlisted) after retracting the dataset onto the LP "
                    "region; exactly (t, delta)-DP on every edge of the region"
                ),
                "universe": [rt.to_json() for rt in self.pair.universe],
                **acc.to_json(),
            },
            "event": "mechanism outputs 1",
            "probabilities": {"P": str(acc.pr_p), "P_prime": str(acc.pr_q)},
            "claimed": {
                "expression": sympy.srepr(self.claimed_expr),
                "printed": str(self.claimed_expr),
                "t_prime_expression": (
                    sympy.srepr(self.t_prime_expr) if self.t_prime_expr is not None else None
                ),
                "params": self.params,
                "derived_by": self.derived_by,
                "value": self.claimed_text,
            },
            "actual": {
                "value": self.actual_text,
                "certified_by": (
                    "exact rational arithmetic: acceptance table re-checked against every DP "
                    "constraint at a rational t <= e^eps; probabilities computed exactly; "
                    "claimed value bracketed with mpmath interval arithmetic"
                ),
            },
        }


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def witness_stem(claim_id: str) -> str:
    return claim_id.replace("/", "_").replace(":", "_")


def witness_size(obj: dict[str, Any]) -> int:
    """Records in the witness's two datasets (what minimisation reduces)."""
    pops = obj.get("populations")
    if isinstance(pops, dict) and "P" in pops:
        return sum(int(e.get("count", 1)) for side in ("P", "P_prime") for e in pops[side])
    if "n" in obj:
        return 2 * int(obj["n"])
    return int(obj.get("size", 10**9))


class KindWitness(Protocol):
    """A witness of another kind (see `KINDS`): its JSON carries "kind", and `csv_text` is the
    dataset(s) it is about."""

    claim: str

    def to_json(self) -> dict[str, Any]: ...

    def csv_text(self) -> str: ...


def write_witness(w: Witness | KindWitness, directory: Path) -> Path:
    """Write `<claim>.json` and `<claim>.csv` (the two datasets) atomically."""
    stem = witness_stem(w.claim)
    path = directory / f"{stem}.json"
    atomic_write(path, json.dumps(w.to_json(), indent=2) + "\n")
    if not isinstance(w, Witness):
        atomic_write(directory / f"{stem}.csv", w.csv_text())
        return path
    buf = io.StringIO()
    wr = csv.writer(buf)
    wr.writerow(["dataset", "value", "stratum", "cluster", "count"])
    for name, pop in (("P", w.pair.p), ("P_prime", w.pair.q)):
        for rt, c in pop.entries:
            wr.writerow([name, rt.value, rt.stratum or "", rt.cluster or "", c])
    atomic_write(directory / f"{stem}.csv", buf.getvalue())
    return path


@dataclass(frozen=True)
class ReplayReport:
    confirmed: bool
    lines: tuple[str, ...]


class WitnessFormatError(ValueError):
    """A witness file that cannot be read."""


Derivation = Callable[[PopulationPair, Design, Callable[[Any], Fraction]], "dict[str, Fraction] | None"]


def replay_json(obj: dict[str, Any],
                derivations: Mapping[str, Derivation] | None = None) -> ReplayReport:
    """Re-verify a sampling witness (design + acceptance table) from its JSON.

    `derivations` names the functions that re-derive a claim's parameters from the mechanism
    (a witness whose claimed value depends on the mechanism stores `derived_by`); the casebook
    supplies them, since they belong to the claims (`verifydp.casebook`)."""
    lines: list[str] = [f"claim {obj['claim']}"]
    pair = PopulationPair.from_json(obj["populations"])
    design = Design.from_json(obj["design"])
    design_q = Design.from_json(obj["design_prime"]) if obj.get("design_prime") else design
    universe = pair.universe
    law_p = design.sample_law(pair.p, universe)
    law_q = design_q.sample_law(pair.q, universe)
    if obj["direction"] == "backward":
        law_p, law_q = law_q, law_p
    base = obj["base_mechanism_class"]
    relation = Relation.parse(base["relation"])
    eps = EpsSpec.from_json(base["epsilon"])
    delta = Fraction(base["delta"])
    mech = obj["mechanism"]
    t_w = Fraction(mech["t"])
    if Fraction(mech["delta"]) != delta:
        return ReplayReport(False, (*lines, "witness delta differs from the class delta"))
    t_lo, _ = eps.t_bracket()
    if t_w > t_lo:
        return ReplayReport(False, (*lines, f"witness t = {t_w} is not certified ≤ e^ε ({eps})"))
    classes = tuple(tuple(int(i) for i in c) for c in mech.get("symmetry", []))
    law_p, law_q = symmetrise(law_p, classes), symmetrise(law_q, classes)  # checked exactly
    region = region_for(law_p, law_q, relation, classes=classes)
    idx = region.index()
    f = [Fraction(0)] * len(region.points)
    for row in mech["table"]:
        key = tuple(int(v) for v in row["counts"])
        if key not in idx:
            return ReplayReport(False, (*lines, f"table point {key} is not in the LP region"))
        f[idx[key]] = Fraction(row["accept"])
    if not two_sided_ok(region, f, t_w, delta):
        return ReplayReport(False, (*lines, "acceptance table violates a DP constraint"))
    lines.append(
        f"mechanism: {len(region.points)}-point region, every one of {2 * len(region.edges)} "
        f"oriented edges satisfies the ({relation.value}) DP constraints at t = {t_w} ≤ e^ε"
    )
    pr_p = sum((pr * f[idx[x]] for x, pr in law_p), Fraction(0))
    pr_q = sum((pr * f[idx[x]] for x, pr in law_q), Fraction(0))
    lines.append(f"Pr[accept | P] = {pr_p}, Pr[accept | P'] = {pr_q} (exact)")
    claimed = obj["claimed"]
    expr = sympy.sympify(claimed["expression"])
    params = claimed["params"]
    if claimed.get("derived_by"):
        table = dict(zip(region.points, f))
        name = claimed["derived_by"]
        if derivations is None or name not in derivations:
            return ReplayReport(False, (*lines, f"unknown parameter derivation {name!r}"))
        derived = derivations[name](
            pair, design, lambda s: table[region.retract(s)]
        )
        stored = {k: Fraction(v) for k, v in params.items() if k in (derived or {})}
        if derived is None or any(derived[k] != v for k, v in stored.items()):
            return ReplayReport(False, (*lines, "stored parameters do not match the mechanism"))
        lines.append(f"parameters re-derived from the mechanism: {derived}")
    bound = eps.evaluate(expr, params)
    if obj["quantity"] == "lower":
        def bern(x: Fraction) -> FiniteDist[int]:
            return FiniteDist.from_pairs([(1, x), (0, 1 - x)])

        actual = privacy_loss(bern(pr_p), bern(pr_q)).worst
        ok = actual is not None and actual < bound.lo
        lines.append(f"exact e^ε̃ = {actual} vs printed lower bound {bound}")
    elif obj["quantity"] == "ratio":
        if pr_q == 0:
            ok = pr_p > 0
            lines.append(f"ratio = ∞ > claimed e^ε' ∈ {bound}")
        else:
            ratio = pr_p / pr_q
            ok = ratio > bound.hi
            lines.append(f"ratio = {ratio} ≈ {float(ratio):.6g} vs claimed e^ε' ∈ {bound}")
    else:
        tp = eps.evaluate(sympy.sympify(claimed["t_prime_expression"]), params)
        value = pr_p - tp.hi * pr_q
        ok = value > bound.hi
        lines.append(f"Pr_P − e^ε'·Pr_P' ≥ {float(value):.6g} vs claimed δ' ∈ {bound}")
    lines.append("CONFIRMED: the claimed bound is violated" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))
