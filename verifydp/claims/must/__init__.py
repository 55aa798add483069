"""Zhao & Liu: privacy amplification by multistage sampling (MUST). Each module encodes one part
of the paper; `CLAIMS` is their union."""

from __future__ import annotations

from verifydp.claims.base import Claim, with_spaces
from verifydp.claims.must import alg1, amplification, figs, pair, profiles, spaces, tables

CLAIMS: list[Claim] = with_spaces([
    *amplification.CLAIMS, *profiles.CLAIMS, *tables.CLAIMS, *figs.CLAIMS, *pair.CLAIMS,
    *alg1.CLAIMS,
], spaces.SPACES)

__all__ = ["CLAIMS"]
