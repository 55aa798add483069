"""The declared domain of every claim in the catalogue (issue 14): one table per paper,
merged here. `verifydp check --json` reports `SCOPES[claim].to_json()` as `scope`; see
verifydp/claims/scope.py and docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Scope
from verifydp.claims.scopes import bun, ebadi, hu, kifer, must

SCOPES: dict[str, Scope] = {
    **bun.SCOPES, **must.SCOPES, **ebadi.SCOPES, **hu.SCOPES, **kifer.SCOPES,
}


def scope_of(claim_id: str) -> Scope | None:
    """The scope of a claim id, None for an id without one (the test forbids that)."""
    return SCOPES.get(claim_id)


__all__ = ["SCOPES", "scope_of"]
