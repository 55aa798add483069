"""Search spaces for `verifydp hunt`: each claim carries its own (`Claim.space`, defined next
to the claim in its paper package, e.g. `verifydp.claims.bun.spaces`); `space_for` reads it.

A space's evaluator judges one drawn point with the claim's own certified checker, so a
"refuted" found by a search is exactly as certified as one found by `check`; its `margin`
(actual − claimed, > 0 exactly when violated) is what the search climbs with
`hypothesis.target`, and `size` is what minimisation reduces (the records of the two
datasets, as `verifydp.witness.witness_size` counts them, or n for formula claims).

Claims without a space are hunted by their checker's grid only (`verifydp.hunt.portfolio`).
"""

from __future__ import annotations

from verifydp.claims import catalogue
from verifydp.claims.base import SearchSpace

__all__ = ["SPACES", "HuntSpace", "space_for"]

HuntSpace = SearchSpace


def _spaces() -> dict[str, SearchSpace]:
    return {c.id: c.space for c in catalogue().values() if c.space is not None}


SPACES: dict[str, SearchSpace] = _spaces()


def space_for(claim: str) -> SearchSpace | None:
    return SPACES.get(claim)
