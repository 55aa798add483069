"""Counterexample witnesses: build, serialise, replay (design.md §7).

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
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import sympy

from verifydp import __version__
from verifydp.designs.base import Design
from verifydp.epsilon import EpsSpec
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


def _atomic_write(path: Path, text: str) -> None:
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
    _atomic_write(path, json.dumps(w.to_json(), indent=2) + "\n")
    if not isinstance(w, Witness):
        _atomic_write(directory / f"{stem}.csv", w.csv_text())
        return path
    buf = io.StringIO()
    wr = csv.writer(buf)
    wr.writerow(["dataset", "value", "stratum", "cluster", "count"])
    for name, pop in (("P", w.pair.p), ("P_prime", w.pair.q)):
        for rt, c in pop.entries:
            wr.writerow([name, rt.value, rt.stratum or "", rt.cluster or "", c])
    _atomic_write(directory / f"{stem}.csv", buf.getvalue())
    return path


def write_index(directory: Path) -> Path:
    """Regenerate `README.md` of a witness directory from the JSON files in it."""
    from verifydp.claims import catalogue
    from verifydp.hunt.portfolio import witness_size

    cat = catalogue()
    rows = []
    for f in sorted(directory.glob("*.json")):
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
            claim = cat.get(obj["claim"])
            size = "—" if obj.get("kind") == "instance" else witness_size(obj)
            rows.append(
                f"| `{obj['claim']}` | {claim.summary if claim else ''} | [{f.name}]({f.name}) | "
                f"{size} | {obj['quantity']} | "
                f"{obj['claimed']['value']} | {obj['actual']['value']} |"
            )
        except (OSError, KeyError, TypeError, ValueError):
            continue
    text = "\n".join([
        "# Counterexamples",
        "",
        "Generated from the witness files by `verifydp check` / `verifydp hunt`; every file",
        "replays with `verifydp replay FILE`, which recomputes everything from the datasets,",
        "design and mechanism it stores (tests/test_cli.py replays them all). The hunt only",
        "ever replaces a witness by a smaller one. Records: |P| + |P'|; '—' marks an",
        "instance witness (a parameter point or table cell, no dataset), which replays by",
        "re-running the claim's certified check and finding the same instance refuted.",
        "",
        "| claim | what is claimed | witness | records | quantity | claimed | certified actual |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
    ])
    path = directory / "README.md"
    _atomic_write(path, text)
    return path


@dataclass(frozen=True)
class ReplayReport:
    confirmed: bool
    lines: tuple[str, ...]


def _thm53(pair, design, accept):  # type: ignore[no-untyped-def]
    from verifydp.claims.bun_general import thm53_params

    return thm53_params(pair, design, accept, "c0")


DERIVATIONS = {"bun-thm5.3": _thm53}


class WitnessFormatError(ValueError):
    """A witness file that cannot be read."""


def replay(path: Path | str) -> ReplayReport:
    """Re-verify a stored witness from scratch."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise WitnessFormatError(f"cannot read witness {path}: {exc}") from exc
    try:
        return _replay(obj)
    except (KeyError, TypeError, ValueError) as exc:
        raise WitnessFormatError(f"malformed witness {path}: {exc}") from exc


# Witnesses that are not "sampling design + acceptance table" name a kind; each kind's module
# defines `replay_json(obj) -> ReplayReport` and must recompute everything from the inputs.
KINDS: dict[str, str] = {
    "pinq-plan": "verifydp.pinq.witness",
    "group-profile": "verifydp.worstcase.group_witness",
    "instance": "verifydp.instance_witness",
}


def _replay(obj: dict[str, Any]) -> ReplayReport:
    kind = obj.get("kind", "sampling")
    if kind != "sampling":
        if kind not in KINDS:
            raise ValueError(f"unknown witness kind {kind!r} (known: sampling, {', '.join(KINDS)})")
        import importlib

        return importlib.import_module(KINDS[kind]).replay_json(obj)  # type: ignore[no-any-return]
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
        derived = DERIVATIONS[claimed["derived_by"]](
            pair, design, lambda s: table[region.retract(s)]
        )
        stored = {k: Fraction(v) for k, v in params.items() if k in (derived or {})}
        if derived is None or any(derived[k] != v for k, v in stored.items()):
            return ReplayReport(False, (*lines, "stored parameters do not match the mechanism"))
        lines.append(f"parameters re-derived from the mechanism: {derived}")
    bound = eps.evaluate(expr, params)
    if obj["quantity"] == "lower":
        from verifydp.exact.dist import FiniteDist
        from verifydp.exact.loss import privacy_loss

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
