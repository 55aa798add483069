"""pytest plugin (entry point `verifydp`): the `verifydp_regress` fixture (issue 8).

    def test_mine(verifydp_regress):
        verifydp_regress(my_amplified_epsilon, claim="bun/thm2.2")

fails the test with the minimised disagreement (or the minimal unsound input) found by
`verifydp.regress.regress`, and returns the report when the function passes.  Enabled by the
`pytest11` entry point once verifydp is installed, or explicitly with `-p verifydp.pytest_plugin`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from verifydp.regress import RegressReport

# every pytest run of an environment with verifydp installed loads this plugin: the regress
# machinery (hypothesis, sympy, z3: about 2 s) is imported when the fixture is first used
RegressCheck = Callable[..., "RegressReport"]


@pytest.fixture
def verifydp_regress() -> RegressCheck:
    """`verifydp_regress(fn, claim=ID, **options)`: options as for `verifydp.regress.regress`."""
    from verifydp.regress import regress

    def check(fn: Callable[..., Any], claim: str, **options: Any) -> RegressReport:
        report = regress(fn, claim, **options)
        if not report.ok:
            pytest.fail(report.summary(), pytrace=False)
        return report

    return check
