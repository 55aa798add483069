"""Bun, Drechsler, Gaboardi, McMillan, Sarathy: privacy amplification for stratified and
cluster sampling. Each module encodes one part of the paper; `CLAIMS` is their union."""

from __future__ import annotations

from verifydp.claims.base import Claim, with_spaces
from verifydp.claims.bun import amplification, cluster, general, lemmas, neyman, spaces

CLAIMS: list[Claim] = with_spaces([
    *amplification.CLAIMS, *cluster.CLAIMS, *general.CLAIMS, *lemmas.CLAIMS, *neyman.CLAIMS,
], spaces.SPACES)

__all__ = ["CLAIMS"]
