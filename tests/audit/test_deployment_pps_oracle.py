"""The PPS pairs of issue 30 composed the way the audit uses them, against the brute-force
composition oracle of tests/audit/test_deployment_composition.py (the other records' values
free per release, both orientations), after T = 2 or 3 releases and after one:

* Poisson PPS under add/remove with the others' inclusions shown
  (`verifydp.accounting.pps.poisson_pps_pairs`, proofs/deployment_pairs.md#pps): every
  record of either measure added to or removed from the population {1, 1, 3};
* successive PPS under substitution with the measures fixed, the others' arrival clocks
  shown (`successive_race_pair`, proofs/deployment_pairs.md#successive): every change of
  one record's value.

The oracle's default run covers a Laplace count at T = 2 (Poisson PPS) and a Laplace sum at
T = 2 (successive); these add the Gaussian sum at T = 3 and a discrete Gaussian at T = 2."""

from __future__ import annotations

import pytest

from tests.audit.test_deployment_composition import (
    DESIGNS,
    MECHANISMS,
    _check,
    candidates,
    certified,
)

_BY_NAME = {x.name: x for x in DESIGNS}


@pytest.mark.parametrize("design,mech,steps", [
    ("poisson-pps-add-remove", "gaussian", 3),
    ("poisson-pps-add-remove", "dgauss-count", 2),
    ("successive-pps-replace-measures=fixed", "gaussian", 3),
    ("successive-pps-replace-measures=fixed", "discrete-gaussian", 2),
])
def test_composed_against_the_oracle(design: str, mech: str, steps: int) -> None:
    """The certified upper end is above every oracle lower value and the lower end below the
    largest oracle upper value, after T releases and after one."""
    mechanism, des = MECHANISMS[mech], _BY_NAME[design]
    at_t, at_1 = certified(des, mechanism, steps)
    cands = candidates(des, mechanism)
    bad = _check(des, mechanism, steps, at_t, cands) + _check(des, mechanism, 1, at_1, cands)
    assert not bad, "\n".join(bad)
