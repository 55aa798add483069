"""Regression-check an implementation of a printed amplification formula against the paper
and against the exact worst case (issue 8).

    from verifydp.regress import regress
    report = regress(amplified_epsilon, claim="bun/thm2.2")
    assert report.ok, report.summary()

Hypothesis strategies for populations, designs, rates and group profiles (for users' own
property tests) are those of `verifydp.claims.strategies`, re-exported here as `strategies`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from verifydp.claims import strategies
from verifydp.regress.accountant import regress_accountant
from verifydp.regress.adapters import ADAPTERS
from verifydp.regress.core import Adapter, Mismatch, RegressReport, Tolerance, UsageError, run

__all__ = ["ADAPTERS", "Adapter", "Mismatch", "RegressReport", "Tolerance", "UsageError",
           "regress", "regress_accountant", "strategies", "supported_claims"]


def supported_claims() -> dict[str, str]:
    """claim id → the signature a user's function must have."""
    return {cid: a.signature for cid, a in sorted(ADAPTERS.items())}


def regress(
    fn: Callable[..., Any], claim: str, params: Mapping[str, Any] | None = None,
    rtol: float = 1e-6, atol: float = 1e-12, max_examples: int = 200, sound_examples: int = 60,
    mapping: Mapping[str, str] | None = None, vectorised: bool = False,
    sound_only: bool = False, name: str | None = None,
) -> RegressReport:
    """Compare `fn` with claim `claim`'s printed formula (certified brackets) over its whole
    parameter domain, and with the exact worst case where computable (soundness).

    `params` restricts the domain: argument name → a hypothesis strategy or a fixed value.
    `mapping` renames arguments (claim's name → yours, e.g. {"eps": "epsilon"});
    `vectorised` calls `fn` with numpy arrays (and once on all inputs stacked);
    `sound_only` skips the printed formula: a looser but sound bound passes.
    Raises KeyError for a claim without an adapter (see `supported_claims()`) and
    `UsageError` for a signature that does not fit or a domain left empty."""
    if claim not in ADAPTERS:
        raise KeyError(f"no regress adapter for claim {claim!r}; supported: "
                       + ", ".join(sorted(ADAPTERS)))
    return run(ADAPTERS[claim], fn, params, Tolerance(rtol, atol), max_examples, sound_examples,
               mapping, vectorised, sound_only, name)
