"""Computations several test modules read (issue 29: each runs once per test process).

A test that reads one of these marks itself with the xdist_group named beside it, so that
`--dist loadgroup` (pyproject's addopts) runs every reader on one worker and the work is
done once in the suite, not once per worker.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath

from verifydp.claims import ClaimResult, catalogue

# Replaying a dataset witness re-checks the claim it names from scratch, once per process
# (`verifydp.casebook._checker_keys`: must/thm5:ww 3.3 s, bun/lemB.1:deletion 1.8 s,
# bun/thm3.1:upper 1.7 s, bun/thm5.3:event 1.6 s, bun/lemB.1 1.3 s, ...). The modules that
# replay the same claims' witnesses in-process (the tamper, fuzz, CLI, interrupt and hunt tests,
# the bun claims' verdicts, the readable replays) share one worker, so each claim is re-checked
# once in the suite: measured together in one process 119 s against 147 s apart (issue 29).
REPLAY_GROUP = "claim-replays"

# must/fig4 (tests/claims/test_must_figs.py and the sentences of
# tests/cli/test_readable_numbers.py) and must/sec3.3:pair:corrected (test_must_pair.py and
# the same sentences)
MUST_GROUP = "must-fig4-pair"


@functools.cache
def checked(claim_id: str) -> ClaimResult:
    """The catalogue's full-budget check of a claim, once per process (read only)."""
    return catalogue()[claim_id].check()


# the cells of two Gaussian components 30 scales apart (tests/accounting/test_compose.py's arb
# cells and test_vector_cells.py's interval cells, each with and without the unknown shares:
# the same 4332 cells, 1.2 s of mpmath each time)
CELL_GROUP = "cell-masses"


@functools.cache
def true_cell_masses(components: tuple[tuple[Fraction, Fraction], ...], scale: Fraction,
                     cuts: tuple[float, ...]) -> tuple[mpmath.mpf, ...]:
    """Σ_j w_j (Φ((x_{i+1} − c_j)/s) − Φ((x_i − c_j)/s)) at 40 digits for every cell
    [x_i, x_{i+1}] of `cuts`, the mixture's (weight, centre) components at scale s (read
    only)."""
    with mpmath.workdps(40):
        s = mpmath.mpf(scale.numerator) / scale.denominator

        def cdf(x: float, c: Fraction) -> mpmath.mpf:
            return mpmath.ncdf((mpmath.mpf(float(x)) - mpmath.mpf(c.numerator) / c.denominator)
                               / s)

        return tuple(sum(mpmath.mpf(w.numerator) / w.denominator * (cdf(b, c) - cdf(a, c))
                         for w, c in components) for a, b in zip(cuts, cuts[1:], strict=False))
