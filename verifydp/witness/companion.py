"""What a witness says, for people: the per-dataset CSV files and the `.md` companion written
next to every witness JSON (issue 17; docs/hunting.md#witness-files).

Both are derived from the witness's JSON alone (so committed witnesses can be regenerated
from their files), plus what the catalogue says about the claim (`ClaimAbout`), which the
casebook supplies: this layer sits below the claims.  Neither is read by `replay`: the JSON
is the witness; these only describe it.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.worstcase.group import substitution_pair

__all__ = ["KNOWN_KINDS", "ClaimAbout", "companion_markdown", "dataset_tables", "mechanism_words"]


@dataclass(frozen=True)
class ClaimAbout:
    """The catalogue's description of a claim: its id, paper, place, summary, printed text."""

    id: str
    paper: str
    where: str
    summary: str
    printed: str


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(header)
    wr.writerows(rows)
    return buf.getvalue()


def _pop_rows(pop: list[dict[str, Any]]) -> list[list[Any]]:
    return [[e.get("value", ""), e.get("stratum", ""), e.get("cluster", ""), e.get("count", 1)]
            for e in pop]




# the kinds this module describes in full; other kinds get their JSON's own "about" text
KNOWN_KINDS = ("sampling", "pinq-plan", "group-profile", "instance")
POP_HEADER = ["value", "stratum", "cluster", "count"]
SEQ_HEADER = ["position", "value"]


def dataset_tables(obj: dict[str, Any]) -> dict[str, str]:
    """One CSV text per dataset of the witness (name → text, header first); empty datasets
    are written with their header only, and instance witnesses have none."""
    kind = obj.get("kind", "sampling")
    if kind == "pinq-plan":
        return {name: _csv(SEQ_HEADER, [[i, v] for i, v in enumerate(obj["datasets"][name])])
                for name in ("D", "D_prime")}
    if kind == "group-profile":
        p, q, _ = substitution_pair(int(obj["n"]))
        return {"P": _csv(POP_HEADER, _pop_rows(p.to_json())),
                "P_prime": _csv(POP_HEADER, _pop_rows(q.to_json()))}
    pops = obj.get("populations")
    if isinstance(pops, dict) and "P" in pops:
        return {name: _csv(POP_HEADER, _pop_rows(pops[name])) for name in ("P", "P_prime")}
    return {}


def _dec(x: Fraction) -> str:
    return f"{float(x):.6g}"


def _rat(text: Any) -> str:
    """"5/4 ≈ 1.25" for a rational field, the text itself otherwise."""
    try:
        x = Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        return str(text)
    return str(x) if x.denominator == 1 else f"{x} ≈ {_dec(x)}"


def _multiset(pop: list[dict[str, Any]]) -> str:
    if not pop:
        return "∅ (empty)"
    parts = []
    for e in pop:
        label = str(e.get("value"))
        extra = [f"{k} {e[k]}" for k in ("stratum", "cluster") if e.get(k)]
        if extra:
            label += f" ({', '.join(extra)})"
        c = int(e.get("count", 1))
        parts.append(label if c == 1 else f"{label} ×{c}")
    return "{" + ", ".join(parts) + "}"


def _design_words(design: dict[str, Any] | None, docs: dict[str, str]) -> str:
    if not design:
        return "—"
    kind = design.get("kind", "?")
    args = ", ".join(f"{k} = {v}" for k, v in design.items() if k != "kind")
    words = docs.get(kind, "")
    return f"`{kind}`({args})" + (f": {words}" if words else "")


def mechanism_words(obj: dict[str, Any]) -> list[str]:
    """The witness's mechanism, described for a reader."""
    kind = obj.get("kind", "sampling")
    if kind == "pinq-plan":
        return [
            "The query plan below runs on the dataset; each of its aggregations (a noisy "
            "count, or a noisy sum of weights in {−1, 0, 1}) adds two-sided geometric noise "
            "Pr[Z = z] ∝ t^(−|z|) — the discrete Laplace mechanism, exactly ε-DP at "
            f"e^ε = t = {obj.get('t')}. The output is the tuple of noisy answers.",
            "", "```json", _json_line(obj.get("plan")), "```",
        ]
    if kind == "group-profile":
        rows = obj.get("mechanism", [])
        return [
            f"M sees a sample of m = {obj.get('m')} draws only through its profile "
            "(copies of x, copies of x′, copies of the common records) and outputs 1 with "
            "the probability listed for that profile, 0 for any profile not listed; every "
            "pairwise constraint of the group-profile class was checked exactly.",
            "", "| profile (x, x′, common) | Pr[M = 1] |", "|---|---|",
            *(f"| {r['orbit']} | {_rat(r['accept'])} |" for r in rows),
        ]
    if kind not in KNOWN_KINDS:
        mech = obj.get("mechanism")
        about = mech.get("about") if isinstance(mech, dict) else None
        return [str(about or "See the witness JSON for this kind's mechanism.")]
    if kind == "instance":
        return ["No dataset: the counterexample is a parameter point of the printed statement "
                "(see the numbers below)."]
    mech = obj.get("mechanism", {})
    universe = [u.get("value") for u in mech.get("universe", [])]
    rel = obj.get("base_mechanism_class", {}).get("relation", "")
    lines = [
        "M is a binary mechanism applied to the sample. It looks only at how many copies of "
        f"each record value the sample holds — the count vector over ({', '.join(universe)}) — "
        "and outputs 1 with the probability listed below for that count vector (0 for a "
        "count vector not listed).",
    ]
    if rel == "add-remove":
        lines.append(
            "A sample holding more (or fewer) copies of a value than any sample of P or P′ can "
            "is treated as holding the nearest count that can occur, so M is defined on every "
            "dataset; with that convention it was checked to be exactly (t, δ)-DP for every "
            "pair of datasets that differ in one record.")
    else:
        lines.append(
            "Samples of a size neither design produces never occur here, so M's value on them "
            "is irrelevant; on every pair of count vectors that differ by replacing one record, "
            "M was checked to be exactly (t, δ)-DP.")
    lines += [f"(t = {mech.get('t')} ≤ e^ε, δ = {mech.get('delta')}.)", "",
              f"| count vector ({', '.join(universe)}) | Pr[M = 1] |", "|---|---|"]
    lines += [f"| {tuple(r['counts'])} | {_rat(r['accept'])} |" for r in mech.get("table", [])]
    return lines


def _json_line(x: Any) -> str:
    return json.dumps(x, ensure_ascii=False)


def companion_markdown(obj: dict[str, Any], about: ClaimAbout | None, json_name: str,
                       csv_names: dict[str, str], design_docs: dict[str, str]) -> str:
    """The `.md` companion of a witness: the claim as printed, the datasets, the design, the
    mechanism in words, the numbers claimed vs actual, and how to replay it."""
    claim = obj.get("claim", "?")
    kind = obj.get("kind", "sampling")
    out = [f"# Counterexample to `{claim}`", ""]
    if about is not None:
        out += [f"**{about.paper}**, {about.where}: {about.summary}", "",
                "The statement as printed:", "", *[f"> {ln}" for ln in about.printed.splitlines()],
                ""]
    else:
        out += ["(This claim id is not in the catalogue.)", ""]
    out += ["## Datasets", ""]
    if kind == "pinq-plan":
        ds = obj.get("datasets", {})
        for name, label in (("D", "D"), ("D_prime", "D′")):
            seq = ds.get(name, [])
            out.append(f"- {label} = [{', '.join(map(str, seq))}]" if seq
                       else f"- {label} = [] (the empty dataset)")
    elif kind == "group-profile":
        n = obj.get("n")
        out.append(f"- P = {{x, c1, …, c{int(n) - 1}}}, P′ = {{x′, c1, …, c{int(n) - 1}}} "
                   f"(n = {n} records each, differing in one)")
    elif kind == "instance":
        out.append("- none (a parameter point): " + _json_line(obj.get("params", {})))
    else:
        pops = obj.get("populations", {})
        out += [f"- P = {_multiset(pops.get('P', []))}",
                f"- P′ = {_multiset(pops.get('P_prime', []))}",
                f"- neighbouring relation: {pops.get('relation', '?')}"]
    if csv_names:
        out.append("- as CSV (one file per dataset, header first): "
                   + ", ".join(f"[{f}]({f})" for f in csv_names.values()))
    out.append("")
    if kind in ("sampling", "group-profile"):
        out += ["## Design", "", f"- applied to P: {_design_words(obj.get('design'), design_docs)}"]
        if obj.get("design_prime") and obj.get("design_prime") != obj.get("design"):
            out.append(f"- applied to P′: {_design_words(obj['design_prime'], design_docs)}")
        out.append("")
    out += ["## Mechanism", "", *mechanism_words(obj), ""]
    out += ["## Claimed vs actual", ""]
    claimed = obj.get("claimed", {}) if isinstance(obj.get("claimed"), dict) else {}
    actual = obj.get("actual", {}) if isinstance(obj.get("actual"), dict) else {}
    if kind == "instance":
        out.append(f"- statement: {obj.get('statement')}")
    else:
        out.append(f"- quantity: {obj.get('quantity')}")
    if claimed.get("expression"):
        out.append(f"- printed formula: `{claimed['expression']}`"
                   + (f" with {_json_line(claimed['params'])}" if claimed.get("params") else ""))
    if claimed.get("t_prime_expression"):
        out.append(f"- at e^ε′ = `{claimed['t_prime_expression']}`")
    out.append(f"- claimed: {claimed.get('value')}")
    out.append(f"- certified actual: {actual.get('value')}")
    probs = obj.get("probabilities")
    if isinstance(probs, dict):
        out.append(f"- Pr[M = 1 | P] = {_rat(probs.get('P'))}; "
                   f"Pr[M = 1 | P′] = {_rat(probs.get('P_prime'))} (exact)")
    if kind == "group-profile":
        out.append(f"- class: t = {obj['class']['t']}, δ_d = {obj['class']['deltas']}; "
                   f"t′ = {_rat(obj.get('t_prime'))}; claimed δ′ = "
                   f"{_rat(claimed.get('value'))}; actual {_rat(actual.get('value'))}")
    if actual.get("certified_by"):
        out.append(f"- certified by: {actual['certified_by']}")
    out += ["", "## Replay", "", "```", f"verifydp replay {json_name}", "```", "",
            "`replay` recomputes every number above from the stored inputs and never trusts "
            "the stored results; it prints CONFIRMED only when the violation is re-established "
            "in exact arithmetic.", ""]
    return "\n".join(out)
