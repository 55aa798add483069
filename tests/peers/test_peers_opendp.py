"""OpenDP's population amplification against the engine (optional extra `peers`): on a simple
random sample of m of n (replacement = symmetric distance 2) it equals the exact worst case
over every ε-DP mechanism (bun/thm2.2's setting), up to its outward float rounding."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("opendp")

from verifydp.claims.bun.amplification import replace_pair  # noqa: E402
from verifydp.designs import SRSWOR  # noqa: E402
from verifydp.population import Relation  # noqa: E402
from verifydp.regress import peers  # noqa: E402
from verifydp.regress.truth import design_worst_ratio, eps_of_ratio  # noqa: E402


@pytest.mark.parametrize("scale, m, n", [(0.5, 10, 20), (2.0, 3, 7)])
def test_population_amplification_is_sound_and_tight(scale: float, m: int, n: int) -> None:
    base, amp = peers.opendp_population_amplification(scale, m, n)
    pair = replace_pair(n)
    truth = eps_of_ratio(design_worst_ratio(SRSWOR(m), pair.p, pair.q, Relation.REPLACE,
                                            Fraction(base)))
    assert Fraction(amp) >= truth.lo  # sound
    assert abs(amp - float(truth.hi)) <= 1e-12 * amp  # and exact
