"""Expected seconds of each slow claim's check, a scheduling hint only (issue 29).

`verifydp check --all` hands claims to its workers longest first, so that the last claim to
finish is a short one and two workers end together (longest-processing-time-first). A stale
or missing entry only costs balance, never a verdict: claims not listed count as short.
Figures: CPU seconds of each claim's check in one process, 2026-11-27 (2 cores, loaded);
refresh them from a `check --all` run with `python bench/run.py --only check-all --costs`.
"""

from __future__ import annotations

SECONDS: dict[str, float] = {
    "must/sec3.3:pair:corrected": 7.4,
    "must/thm1:gauss": 7.2,
    "must/sec3.3:pair": 5.9,
    "bun/thm5.2": 5.5,
    "must/alg1": 4.8,
    "bun/sec6.3:systematic": 4.6,
    "must/table8": 3.5,
    "must/thm5:ww": 3.1,
    "must/fig4": 3.0,
    "bun/thm5.1": 2.9,
    "bun/thm5.3": 2.3,
    "bun/lemB.1:corrected": 2.1,
    "bun/thm5.3:event": 2.0,
    "bun/lemB.1:deletion": 1.9,
    "must/table2:poisson": 1.8,
    "kifer/thm6.2": 1.8,
    "bun/prop4.1": 1.7,
    "must/thm5:ww:corrected": 1.7,
    "must/thm1:laplace": 1.7,
    "must/table3": 1.7,
    "bun/fig2": 1.7,
    "bun/thm2.2": 1.6,
    "kifer/table2": 1.6,
    "hu/amplification": 1.6,
    "must/table6": 1.5,
    "bun/thm3.1:upper": 1.5,
    "must/thm5:ow": 1.3,
    "bun/thm3.1:upper:corrected": 1.3,
    "kifer/gdp": 1.1,
    "bun/thm4.3": 1.1,
    "bun/thm7.2": 0.9,
    "must/fig5": 0.8,
    "bun/thm3.1:lower": 0.8,
    "bun/sec7.2:neyman": 0.8,
    "ebadi/thm4.3": 0.7,
    "must/table4": 0.7,
    "must/thm5:wo": 0.6,
    "bun/lemB.1": 0.5,
    "kifer/bayes": 0.5,
    "bun/lemA.4": 0.5,
    "must/cor6": 0.5,
    "bun/prop4.2": 0.5,
}


def expected_seconds(claim_id: str) -> float:
    """The hint for one claim (0 for a short one)."""
    return SECONDS.get(claim_id, 0.0)
