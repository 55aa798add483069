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

import json
from dataclasses import dataclass
from typing import Any

from verifydp import __version__
from verifydp.witness import schema as sch

KIND = "instance"


def _param(value: Any, where: str) -> None:
    """A parameter of an instance: a bounded number, a short string, or a short list or
    object of them (tuples became lists in JSON)."""
    if isinstance(value, dict):
        sch.mapping(sch.text(sch.MAX_ID), _param)(value, where)
    elif isinstance(value, list):
        sch.validate(value, [_param], where)
    elif isinstance(value, str):
        sch.text(sch.MAX_ID)(value, where)
    elif isinstance(value, int) and not isinstance(value, bool):
        sch.integer(-(10**12), 10**12)(value, where)
    elif not (value is None or isinstance(value, (bool, float))):
        raise sch.SchemaError(f"{where} is not a parameter value")


# the shape of an instance witness (`verifydp.witness.schema`), checked before replay
SCHEMA = {
    "kind": sch.text(equal=KIND), "claim": sch.text(sch.MAX_ID), "tool": sch.text(200),
    "statement": sch.text(), "params": sch.mapping(sch.text(sch.MAX_ID), _param),
    "quantity": sch.text(), "claimed": {"value": sch.text()}, "actual": {"value": sch.text()},
    "note": sch.text(),
}


def normal_params(params: dict[str, Any]) -> str:
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
            "params": json.loads(normal_params(self.params)),
            "quantity": self.statement,
            "claimed": {"value": self.claimed},
            "actual": {"value": self.actual},
            "note": self.note,
        }
