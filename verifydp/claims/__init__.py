"""The claim catalogue: one module per paper; each claim is data plus a checker."""

from __future__ import annotations

import importlib

from verifydp.claims.base import Budget, Claim, ClaimResult, Verdict


class UnknownClaim(KeyError):
    """A claim id that is not in the catalogue."""


# one module per paper (or per part of a long paper); each defines CLAIMS
MODULES = ("bun", "must", "ebadi", "hu", "kifer")


def catalogue() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for name in MODULES:
        try:
            mod = importlib.import_module(f"verifydp.claims.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"verifydp.claims.{name}":
                raise
            continue  # a paper part not encoded yet
        out.update({c.id: c for c in mod.CLAIMS})
    return out


def get_claim(claim_id: str) -> Claim:
    cat = catalogue()
    if claim_id not in cat:
        raise UnknownClaim(claim_id)
    return cat[claim_id]


__all__ = ["Budget", "Claim", "ClaimResult", "UnknownClaim", "Verdict", "catalogue", "get_claim"]
