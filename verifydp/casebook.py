"""The casebook: every witness file in `counterexamples/`, its index, and replay dispatch.

A witness names its kind; each kind recomputes everything from the stored inputs and never
trusts the stored numbers (docs/foundations.md#witnesses). This module sits above the claim
catalogue because two kinds need it: instance witnesses re-run a claim's certified check, and
some sampling witnesses re-derive a claim's parameters from the stored mechanism.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from verifydp.claims import Budget, catalogue, get_claim
from verifydp.claims.base import Verdict
from verifydp.claims.bun.general import thm53_params
from verifydp.claims.must.pair import hockey_stick_mixtures
from verifydp.witness import base as sampling
from verifydp.witness import gaussian_sum, group, pinq
from verifydp.witness import regress as regress_witness
from verifydp.witness.base import ReplayReport, WitnessFormatError, atomic_write, witness_size
from verifydp.witness.instance import normal_params

__all__ = ["KINDS", "replay", "replay_instance", "replay_object", "write_index"]


def _thm53(pair: Any, design: Any, accept: Any) -> dict[str, Any] | None:
    return thm53_params(pair, design, accept, "c0")


# parameters a sampling witness's claimed value depends on, re-derived from its mechanism
DERIVATIONS = {"bun-thm5.3": _thm53}


def replay_instance(obj: dict[str, Any]) -> ReplayReport:
    """Replay an instance witness: re-run the claim's certified check from scratch and find the
    same instance (or statement) refuted again; the stored numbers are only displayed."""
    claim_id = obj["claim"]
    key = normal_params(obj["params"])
    lines = [f"claim {claim_id}", f"instance {key}",
             f"stored: claimed {obj['claimed']['value']}; actual {obj['actual']['value']}",
             "re-running the claim's certified check from scratch …"]
    res = get_claim(claim_id).check(Budget())
    # the same parameters may recur in other statements: match the statement first
    for st in (s for s in res.statements if s.text == obj["statement"]):
        if not obj["params"]:  # a statement refuted as a whole
            what, verdict = "statement", st.verdict
            lines.append(f"recomputed: {st.note}")
        else:
            inst = next((i for i in st.instances if normal_params(i.params) == key), None)
            if inst is None:
                continue
            what, verdict = "instance", inst.verdict
            lines.append(f"recomputed: claimed {inst.claimed}; actual {inst.actual}")
        ok = verdict is Verdict.REFUTED
        lines.append(f"CONFIRMED: the {what} is refuted" if ok
                     else f"NOT confirmed: the {what} is now {verdict.value}")
        return ReplayReport(ok, tuple(lines))
    return ReplayReport(False, (*lines, "NOT confirmed: the checker no longer has this "
                                        "statement or instance"))


# every witness kind and its replay; "sampling" (design + acceptance table) is the default
KINDS: dict[str, Callable[[dict[str, Any]], ReplayReport]] = {
    "sampling": lambda obj: sampling.replay_json(obj, DERIVATIONS),
    "pinq-plan": pinq.replay_json,
    "group-profile": group.replay_json,
    "gaussian-sum": lambda obj: gaussian_sum.replay_json(obj, hockey_stick_mixtures),
    "instance": replay_instance,
    regress_witness.KIND: regress_witness.replay_json,
}


def replay_object(obj: dict[str, Any]) -> ReplayReport:
    """Re-verify a parsed witness of any kind."""
    kind = obj.get("kind", "sampling")
    if kind not in KINDS:
        raise ValueError(f"unknown witness kind {kind!r} (known: {', '.join(KINDS)})")
    return KINDS[kind](obj)


def replay(path: Path | str) -> ReplayReport:
    """Re-verify a stored witness from scratch."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise WitnessFormatError(f"cannot read witness {path}: {exc}") from exc
    try:
        return replay_object(obj)
    except (KeyError, TypeError, ValueError) as exc:
        raise WitnessFormatError(f"malformed witness {path}: {exc}") from exc





def write_index(directory: Path) -> Path:
    """Regenerate `README.md` of a witness directory from the JSON files in it."""
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
    atomic_write(path, text)
    return path


