"""The pytest plugin's `verifydp_regress` fixture (issue 8), run by pytester in a subprocess
(in-process runs re-import numpy, which it refuses)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INNER = '''
import math

def good(eps, m, n):
    return math.log1p(m / n * math.expm1(eps))

def planted(eps, m, n):  # m/n replaced by (m+1)/(n+1)
    return math.log1p((m + 1) / (n + 1) * math.expm1(eps))

def test_good(verifydp_regress):
    report = verifydp_regress(good, claim="bun/thm2.2", max_examples=30, sound_examples=10)
    assert report.agrees and report.sound

def test_planted(verifydp_regress):
    verifydp_regress(planted, claim="bun/thm2.2", max_examples=30, sound_examples=10)
'''


@pytest.fixture
def no_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    """Load the plugin only through `-p` (once the `pytest11` entry point is installed it would
    be loaded twice, under two names)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_fixture_passes_good_and_fails_planted_with_the_minimal_witness(
        pytester: pytest.Pytester, no_autoload: None) -> None:
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "verifydp.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*differs from the printed formula at (eps = 1, m = 0, n = 1)*",
    ])


def test_fixture_is_absent_without_the_plugin(pytester: pytest.Pytester, no_autoload: None) -> None:
    pytester.makepyfile(test_inner="def test_x(verifydp_regress):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)


def test_entry_point_loads_the_plugin(pytester: pytest.Pytester) -> None:
    from importlib.metadata import entry_points

    if not [ep for ep in entry_points(group="pytest11") if ep.name == "verifydp"]:
        pytest.skip("the pytest11 entry point `verifydp` is not installed yet")
    pytester.makepyfile(test_inner="def test_x(verifydp_regress):\n    assert callable(verifydp_regress)\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
