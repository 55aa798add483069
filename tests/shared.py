"""Computations several test modules read (issue 29: each runs once per test process).

A test that reads one of these marks itself with the xdist_group named beside it, so that
`--dist loadgroup` (pyproject's addopts) runs every reader on one worker and the work is
done once in the suite, not once per worker.
"""

from __future__ import annotations

import functools

from verifydp.claims import ClaimResult, catalogue

# must/fig4 (tests/claims/test_must_figs.py and the sentences of
# tests/cli/test_readable_numbers.py) and must/sec3.3:pair:corrected (test_must_pair.py and
# the same sentences)
MUST_GROUP = "must-fig4-pair"


@functools.cache
def checked(claim_id: str) -> ClaimResult:
    """The catalogue's full-budget check of a claim, once per process (read only)."""
    return catalogue()[claim_id].check()
