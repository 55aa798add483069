"""Witnesses for refuted claims whose counterexample is a parameter point, not a dataset.

Most refutations in the catalogue are of this kind: a printed table cell that the certified
recomputation excludes (must/table3, kifer/table1), a closed form that is exceeded at some
(n, m, ε) (must/prop7), an accountant's bracket that misses δ (must/alg1).  The witness is the
instance itself — the claim, its parameters, what is claimed and what was certified.

`replay_json` trusts none of the stored numbers: it re-runs the claim's checker from scratch
and confirms that the instance with exactly these parameters is refuted again; it prints the
recomputed values next to the stored ones.  (A replay therefore costs one check of the claim.)
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from verifydp import __version__
from verifydp.witness import ReplayReport

KIND = "instance"


def _normal(params: dict[str, Any]) -> str:
    """Parameters as they compare after a JSON round trip (tuples → lists, keys sorted)."""
    return json.dumps(params, sort_keys=True, default=str)


@dataclass(frozen=True)
class InstanceWitness:
    """The first refuted instance of a claim (`claims.base.Claim.check` attaches it); empty
    `params` when a statement is refuted as a whole, with `actual` its reason."""

    claim: str
    statement: str
    params: dict[str, Any]
    claimed: str
    actual: str
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "claim": self.claim,
            "tool": f"verifydp {__version__}",
            "statement": self.statement,
            "params": json.loads(_normal(self.params)),
            "quantity": self.statement,
            "claimed": {"value": self.claimed},
            "actual": {"value": self.actual},
            "note": self.note,
        }

    def csv_text(self) -> str:
        buf = io.StringIO()
        wr = csv.writer(buf)
        wr.writerow(["field", "value"])
        wr.writerow(["claim", self.claim])
        for k, v in self.params.items():
            wr.writerow([f"param:{k}", v])
        wr.writerow(["claimed", self.claimed])
        wr.writerow(["certified actual", self.actual])
        return buf.getvalue()


def replay_json(obj: dict[str, Any]) -> ReplayReport:
    from verifydp.claims import Budget, get_claim
    from verifydp.claims.base import Verdict

    claim_id = obj["claim"]
    key = _normal(obj["params"])
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
            inst = next((i for i in st.instances if _normal(i.params) == key), None)
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
