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

KIND = "instance"


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
