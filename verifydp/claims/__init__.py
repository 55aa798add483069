"""The claim catalogue: one module per paper; each claim is data plus a checker."""

from __future__ import annotations

from verifydp.claims.base import Budget, Claim, ClaimResult, Verdict


class UnknownClaim(KeyError):
    """A claim id that is not in the catalogue."""


def catalogue() -> dict[str, Claim]:
    from verifydp.claims import bun

    return {c.id: c for c in bun.CLAIMS}


def get_claim(claim_id: str) -> Claim:
    cat = catalogue()
    if claim_id not in cat:
        raise UnknownClaim(claim_id)
    return cat[claim_id]


__all__ = ["Budget", "Claim", "ClaimResult", "UnknownClaim", "Verdict", "catalogue", "get_claim"]
