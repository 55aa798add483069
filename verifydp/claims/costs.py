"""Expected seconds of each slow claim's check, a scheduling hint only (issue 29).

`verifydp check --all` hands claims to its workers longest first, so that the last claim to
finish is a short one and two workers end together (longest-processing-time-first). A stale
or missing entry only costs balance, never a verdict: claims not listed count as short.
Figures: `check --all --json`'s `detail.seconds` on 2 cores, 2026-11-27, scaled to an unloaded
machine; refresh them with `python bench/run.py --costs`.
"""

from __future__ import annotations

SECONDS: dict[str, float] = {
    "must/sec3.3:pair:corrected": 17.0,
    "must/thm1:gauss": 12.8,
    "must/sec3.3:pair": 12.0,
    "bun/thm5.2": 9.1,
    "bun/lemB.1:corrected": 8.3,
    "bun/lemB.1:deletion": 7.8,
    "hu/amplification": 7.0,
    "bun/sec6.3:systematic": 6.3,
    "bun/thm2.2": 6.3,
    "must/table8": 6.2,
    "must/thm5:ww": 6.2,
    "must/alg1": 6.0,
    "must/fig4": 5.5,
    "bun/thm5.1": 4.9,
    "must/table2:poisson": 4.5,
    "bun/prop4.1": 4.3,
    "must/thm5:ww:corrected": 3.9,
    "bun/thm3.1:upper": 3.4,
    "bun/thm3.1:upper:corrected": 3.1,
    "kifer/gdp": 2.9,
    "must/table3": 2.9,
    "must/thm1:laplace": 2.8,
    "bun/thm7.2": 2.7,
    "bun/thm4.3": 2.5,
    "must/table6": 2.5,
    "bun/thm5.3": 2.3,
    "bun/thm5.3:event": 2.2,
    "ebadi/thm4.3": 2.2,
    "bun/thm3.1:lower": 2.1,
    "bun/fig2": 2.0,
    "must/thm5:ow": 1.9,
    "kifer/table2": 1.9,
    "kifer/thm6.2": 1.7,
    "bun/lemB.1": 1.6,
    "must/fig5": 1.4,
    "bun/sec7.2:neyman": 1.1,
    "must/table4": 1.0,
}


def expected_seconds(claim_id: str) -> float:
    """The hint for one claim (0 for a short one)."""
    return SECONDS.get(claim_id, 0.0)
