"""Poisson PPS under add/remove with the others' inclusions shown
(`verifydp.accounting.pps.poisson_pps_pairs`, proofs/deployment_pairs.md#pps), composed the
way the audit uses it: after T = 2 and 3 releases against the brute-force composition oracle
of tests/audit/test_deployment_composition.py (every record of either measure added to or
removed from the population {1, 1, 3}, the other records' values free per release, both
orientations). Its default run covers a Laplace count at T = 2; these add the Gaussian sum
at T = 3 and the discrete Gaussian count at T = 2."""

from __future__ import annotations

import pytest

from tests.audit.test_deployment_composition import (
    DESIGNS,
    MECHANISMS,
    _check,
    candidates,
    certified,
)

_PPS = next(x for x in DESIGNS if x.name == "poisson-pps-add-remove")


@pytest.mark.parametrize("mech,steps", [("gaussian", 3), ("dgauss-count", 2)])
def test_composed_against_the_oracle(mech: str, steps: int) -> None:
    """The certified upper end is above every oracle lower value and the lower end below the
    largest oracle upper value, after T releases and after one."""
    mechanism = MECHANISMS[mech]
    at_t, at_1 = certified(_PPS, mechanism, steps)
    cands = candidates(_PPS, mechanism)
    bad = _check(_PPS, mechanism, steps, at_t, cands) + _check(_PPS, mechanism, 1, at_1, cands)
    assert not bad, "\n".join(bad)
