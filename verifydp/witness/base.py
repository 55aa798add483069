"""Counterexample witnesses: build, serialise, replay (docs/foundations.md).

A witness is a concrete population pair, a design, a base mechanism that provably belongs to
the claimed class (an acceptance function on the LP region, exactly DP on every edge), and the
event "the mechanism accepts". `replay` recomputes everything from the stored inputs and never
trusts the stored numbers.
"""

from __future__ import annotations

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
from verifydp.exact.interval import Bracket
from verifydp.exact.loss import privacy_loss
from verifydp.exact.numtext import bracket_text, decimal_string, fraction_text
from verifydp.population import PopulationPair, Relation
from verifydp.witness import schema as sch
from verifydp.witness.companion import ClaimAbout, companion_markdown, dataset_tables
from verifydp.witness.text import (
    LIMITS,
    WitnessLimitError,
    exact,
    origin,
    parse_srepr,
    readable,
)
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
    found_at: dict[str, Any] | None = None  # the search point that produced it (hunt)

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
                "about": ABOUT_ADD_REMOVE if self.base_relation is Relation.ADD_REMOVE
                else ABOUT_REPLACE,
                "universe": [rt.to_json() for rt in self.pair.universe],
                **acc.to_json(),
            },
            "event": EVENT,
            "probabilities": {"P": str(acc.pr_p), "P_prime": str(acc.pr_q)},
            "claimed": {
                "expression": readable(self.claimed_expr),
                "srepr": sympy.srepr(self.claimed_expr),
                "t_prime_expression": (
                    readable(self.t_prime_expr) if self.t_prime_expr is not None else None
                ),
                "t_prime_srepr": (
                    sympy.srepr(self.t_prime_expr) if self.t_prime_expr is not None else None
                ),
                "params": self.params,
                "derived_by": self.derived_by,
                "value": self.claimed_text,
            },
            "actual": {
                "value": self.actual_text,
                "certified_by": CERTIFIED_BY,
            },
        } | origin(self.found_at)


CERTIFIED_BY = (
    "exact rational arithmetic: acceptance table re-checked against every DP constraint at a "
    "rational t <= e^eps; probabilities computed exactly; claimed value bracketed with mpmath "
    "interval arithmetic"
)
EVENT = "mechanism outputs 1"
ABOUT_ADD_REMOVE = (
    "outputs 1 with the probability listed for the sample's count vector (0 where unlisted); "
    "a sample holding more or fewer copies of a value than any sample of P or P' can is "
    "treated as holding the nearest count that can occur; exactly (t, delta)-DP for every "
    "pair of datasets differing in one record"
)
ABOUT_REPLACE = (
    "outputs 1 with the probability listed for the sample's count vector (0 where unlisted); "
    "exactly (t, delta)-DP for every pair of count vectors differing by one replaced record"
)

# the shape of a sampling witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "claim": sch.text(sch.MAX_ID), "tool": sch.text(200),
    "populations": sch.POPULATIONS, "design": sch.design,
    "design_prime": sch.nullable(sch.design),
    "base_mechanism_class": {"relation": sch.RELATION, "epsilon": sch.epsilon,
                             "delta": sch.rational(0, 1)},
    "quantity": sch.one_of("ratio", "hockey", "lower"),
    "direction": sch.one_of("forward", "backward"),
    "mechanism": {
        "kind": sch.text(equal="acceptance-table"),
        "about": sch.one_of(ABOUT_ADD_REMOVE, ABOUT_REPLACE),
        "universe": [sch.RECORD], "t": sch.rational(1, 10**6), "delta": sch.rational(0, 1),
        "symmetry?": [[sch.integer(0, sch.MAX_SIZE)]],
        "table": [{"counts": [sch.integer(0, sch.MAX_SIZE)], "accept": sch.rational(0, 1)}],
        "pr_P?": sch.rational(0, 1), "pr_P_prime?": sch.rational(0, 1)},
    "event": sch.text(equal=EVENT),
    "probabilities": {"P": sch.rational(0, 1), "P_prime": sch.rational(0, 1)},
    "claimed": {"expression": sch.text(), "srepr": sch.text(LIMITS["formula characters"]),
                "t_prime_expression?": sch.nullable(sch.text()),
                "t_prime_srepr?": sch.nullable(sch.text(LIMITS["formula characters"])),
                "params": sch.mapping(sch.text(sch.MAX_ID), sch.rational()),
                "derived_by?": sch.nullable(sch.text(sch.MAX_ID)), "value": sch.text()},
    "actual": {"value": sch.text(), "certified_by": sch.text(equal=CERTIFIED_BY)},
}



def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader (or a crash, SIGKILL included) sees either the
    old file or the new one, never a mixture: a flushed temporary file, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
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


def witness_order(obj: dict[str, Any]) -> tuple[int, int, str]:
    """The order in which witnesses of one claim are preferred (smallest first): records,
    then the length of the stored numbers (so t = 2 beats t = 6 at the same size, as
    hypothesis's shrinker would have it), then the text itself, so that the order is total
    and two runs agree on which witness to keep. Provenance (`tool`, `note`, the hunt's
    `found_at`) is not compared: a hunt's minimal witness carries `found_at`, so the check's
    equally small witness of the other orientation used to replace it (issue 27: `check
    --all` rewrote committed witnesses)."""
    text = json.dumps({k: v for k, v in obj.items() if k not in ("tool", "note", "found_at")},
                      sort_keys=True, ensure_ascii=False)
    return witness_size(obj), len(text), text


class KindWitness(Protocol):
    """A witness of another kind (see `KINDS`): its JSON carries "kind"."""

    claim: str

    def to_json(self) -> dict[str, Any]: ...


def design_docs() -> dict[str, str]:
    """Each design kind's one-line description (its class docstring's first line)."""
    return {kind: (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
            for kind, cls in Design.registry.items()}


def witness_files(obj: dict[str, Any], stem: str,
                  about: ClaimAbout | None = None) -> dict[str, str]:
    """Every file of one witness, name → text: `<stem>.json` (the witness), one
    `<stem>.<dataset>.csv` per dataset (header first, empty datasets included) and the
    `<stem>.md` companion for people."""
    csvs = {name: f"{stem}.{name}.csv" for name in dataset_tables(obj)}
    files = {f"{stem}.json": json.dumps(obj, indent=2, ensure_ascii=False) + "\n"}
    files.update({csvs[name]: text for name, text in dataset_tables(obj).items()})
    files[f"{stem}.md"] = companion_markdown(obj, about, f"{stem}.json", csvs, design_docs())
    return files


def write_witness(w: Witness | KindWitness, directory: Path,
                  about: ClaimAbout | None = None) -> Path:
    """Write the witness's files (`witness_files`) atomically, the JSON last, so that a JSON
    on disk always has its companions; `about` (the catalogue's words for the claim) goes
    into the companion.  Returns the JSON's path."""
    stem = witness_stem(w.claim)
    files = witness_files(w.to_json(), stem, about)
    json_name = f"{stem}.json"
    for name, text in files.items():
        if name != json_name:
            atomic_write(directory / name, text)
    (directory / f"{stem}.csv").unlink(missing_ok=True)  # the old two-dataset CSV
    path = directory / json_name
    atomic_write(path, files[json_name])
    return path


@dataclass(frozen=True)
class ReplayReport:
    confirmed: bool
    lines: tuple[str, ...]


class WitnessFormatError(ValueError):
    """A witness file that cannot be read."""


Derivation = Callable[[PopulationPair, Design, Callable[[Any], Fraction]], "dict[str, Fraction] | None"]


def _formula(claimed: dict[str, Any], srepr_key: str, text_key: str) -> sympy.Expr:
    """The stored formula, rebuilt safely from its srepr; the printed form must be its
    readable rendering (an edited printed formula would otherwise mislead a reader)."""
    expr = parse_srepr(claimed[srepr_key])
    if claimed.get(text_key) != readable(expr):
        raise FormulaMismatch(f"the printed formula {claimed.get(text_key)!r} is not the stored "
                              f"expression {readable(expr)!r}")
    return expr


class FormulaMismatch(ValueError):
    """A witness whose human-readable formula disagrees with its stored expression."""


def replay_json(obj: dict[str, Any],
                derivations: Mapping[str, Derivation] | None = None) -> ReplayReport:
    """Re-verify a sampling witness (design + acceptance table) from its JSON.

    `derivations` names the functions that re-derive a claim's parameters from the mechanism
    (a witness whose claimed value depends on the mechanism stores `derived_by`); the casebook
    supplies them, since they belong to the claims (`verifydp.casebook`)."""
    lines: list[str] = [f"claim {obj['claim']}"]
    pair = PopulationPair.from_json(obj["populations"])
    if pair.p.size + pair.q.size > LIMITS["records in a dataset"]:
        raise WitnessLimitError(f"the datasets exceed the limit of "
                                f"{LIMITS['records in a dataset']} records in a dataset")
    design = Design.from_json(obj["design"])
    design_q = Design.from_json(obj["design_prime"]) if obj.get("design_prime") else design
    universe = pair.universe
    mech = obj["mechanism"]
    # the table's count vectors are over the stored universe; a record renamed in every place
    # may sort elsewhere, so the columns are matched by record, not by position
    want = [json.dumps(rt.to_json(), sort_keys=True) for rt in universe]
    have = [json.dumps(r, sort_keys=True) for r in mech["universe"]]
    if sorted(have) != sorted(want) or len(set(have)) != len(have):
        raise ValueError("mechanism.universe is not the records of P and P'")
    column = [have.index(w) for w in want]  # stored column of each universe record
    moved = {have.index(w): i for i, w in enumerate(want)}  # stored index → universe index
    sch.lengths_equal((row["counts"] for row in mech["table"]), len(universe),
                      "mechanism.table counts")
    if mech["about"] != (ABOUT_ADD_REMOVE if Relation.parse(obj["base_mechanism_class"]
                                                            ["relation"]) is Relation.ADD_REMOVE
                         else ABOUT_REPLACE):
        raise ValueError("mechanism.about does not describe the class's relation")
    law_p = design.sample_law(pair.p, universe)
    law_q = design_q.sample_law(pair.q, universe)
    if obj["direction"] not in ("forward", "backward"):
        raise ValueError(f"direction must be forward or backward, not {obj['direction']!r}")
    if obj["direction"] == "backward":
        law_p, law_q = law_q, law_p
    base = obj["base_mechanism_class"]
    relation = Relation.parse(base["relation"])
    eps = EpsSpec.from_json(base["epsilon"])
    delta = exact(base["delta"])
    t_w = exact(mech["t"])
    if exact(mech["delta"]) != delta:
        return ReplayReport(False, (*lines, "NOT confirmed: witness delta differs from the "
                                            "class delta"))
    t_lo, _ = eps.t_bracket()
    if t_w > t_lo:
        return ReplayReport(False, (*lines, f"NOT confirmed: witness t = {t_w} is not certified "
                                            f"≤ e^ε ({eps})"))
    classes = tuple(tuple(moved[int(i)] if int(i) in moved else int(i) for i in c)
                    for c in mech.get("symmetry", []))
    law_p, law_q = symmetrise(law_p, classes), symmetrise(law_q, classes)  # checked exactly
    region = region_for(law_p, law_q, relation, classes=classes)
    idx = region.index()
    f = [Fraction(0)] * len(region.points)
    for row in mech["table"]:
        key = tuple(int(row["counts"][j]) for j in column)
        if key not in idx:
            return ReplayReport(False, (*lines, f"NOT confirmed: table point {key} is not in "
                                                "the LP region"))
        f[idx[key]] = exact(row["accept"])
    if not two_sided_ok(region, f, t_w, delta):
        return ReplayReport(False, (*lines, "NOT confirmed: the acceptance table violates a "
                                            "DP constraint"))
    lines.append(
        f"mechanism: {len(region.points)}-point region, every one of {2 * len(region.edges)} "
        f"oriented edges satisfies the ({relation.value}) DP constraints at t = {t_w} ≤ e^ε"
    )
    pr_p = sum((pr * f[idx[x]] for x, pr in law_p), Fraction(0))
    pr_q = sum((pr * f[idx[x]] for x, pr in law_q), Fraction(0))
    lines.append(f"Pr[accept | P] = {pr_p}, Pr[accept | P'] = {pr_q} (exact)")
    stored = obj["probabilities"]
    shown = [(exact(stored["P"]), exact(stored["P_prime"]))]
    if "pr_P" in mech or "pr_P_prime" in mech:
        shown.append((exact(mech["pr_P"]), exact(mech["pr_P_prime"])))
    if any(pair_ != (pr_p, pr_q) for pair_ in shown):
        return ReplayReport(False, (*lines, "NOT confirmed: the stored probabilities are not "
                                            "the recomputed ones (the file was edited)"))
    claimed = obj["claimed"]
    try:
        expr = _formula(claimed, "srepr", "expression")
        t_expr = (_formula(claimed, "t_prime_srepr", "t_prime_expression")
                  if obj["quantity"] == "hockey" else None)
    except FormulaMismatch as exc:
        return ReplayReport(False, (*lines, f"NOT confirmed: {exc}"))
    params = claimed["params"]
    if not isinstance(params, dict):
        raise ValueError("claimed.params must be an object")
    params = {str(k): str(exact(v)) for k, v in params.items()}
    if claimed.get("derived_by"):
        table = dict(zip(region.points, f))
        name = claimed["derived_by"]
        if derivations is None or name not in derivations:
            return ReplayReport(False, (*lines, f"NOT confirmed: unknown parameter derivation "
                                                f"{name!r}"))
        derived = derivations[name](
            pair, design, lambda s: table[region.retract(s)]
        )
        stored_p = {k: Fraction(v) for k, v in params.items() if k in (derived or {})}
        if derived is None or any(derived[k] != v for k, v in stored_p.items()):
            return ReplayReport(False, (*lines, "NOT confirmed: stored parameters do not match "
                                                "the mechanism"))
        lines.append("parameters re-derived from the mechanism: "
                     + ", ".join(f"{k} = {fraction_text(v)}" for k, v in derived.items()))
    bound = eps.evaluate(expr, params)
    if obj["quantity"] == "lower":
        def bern(x: Fraction) -> FiniteDist[int]:
            return FiniteDist.from_pairs([(1, x), (0, 1 - x)])

        actual = privacy_loss(bern(pr_p), bern(pr_q)).worst
        ok = actual is not None and actual < bound.lo
        lines.append(f"exact e^ε̃ = {fraction_text(actual) if actual is not None else '∞'} vs printed "
                     f"lower bound {_claimed(bound)}")
    elif obj["quantity"] == "ratio":
        if pr_q == 0:
            ok = pr_p > 0
            lines.append(f"ratio = ∞ > claimed e^ε' ≤ {_claimed(bound)}")
        else:
            ratio = pr_p / pr_q
            ok = ratio > bound.hi
            lines.append(f"ratio = {_exact(ratio)} vs claimed e^ε' ≤ {_claimed(bound)}")
    elif obj["quantity"] == "hockey":
        assert t_expr is not None
        tp = eps.evaluate(t_expr, params)
        value = pr_p - tp.hi * pr_q
        ok = value > bound.hi
        lines.append(f"Pr_P − e^ε'·Pr_P' ≥ {fraction_text(value)} vs claimed δ' ≤ {_claimed(bound)}")
    else:
        raise ValueError(f"unknown quantity {obj['quantity']!r}")
    lines.append("CONFIRMED: the claimed bound is violated" if ok else "NOT confirmed")
    return ReplayReport(ok, tuple(lines))


def _exact(x: Fraction) -> str:
    """An exact rational for a replay line, as a decimal (issue 27): "36 (exact)",
    "3.25 (exact)", "0.416667 (exact)"; the file keeps the rational."""
    return f"{fraction_text(x)} (exact)"


def _claimed(b: Bracket) -> str:
    """A printed bound for a replay line: its value when the bracket is a point ("6"), else
    the upper end with the bracket ("2.71828 (certified bracket [2.71828, 2.71829])") — the
    line used to read "e^ε' ∈ 6" (issue 27). Decimals, never a rational."""
    if b.lo == b.hi:
        return fraction_text(b.lo)
    return f"{decimal_string(b.hi, True, 6)} (certified bracket {bracket_text(b.lo, b.hi)})"
