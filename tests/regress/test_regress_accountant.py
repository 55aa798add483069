"""Regress for accountants (issue 16 item 5): functions (σ, q or batch size, n, steps, δ) → ε
against the certified composition of the named design; steps ≤ 10 keeps each test fast."""

from __future__ import annotations

import importlib.util
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from verifydp.casebook import replay_object
from verifydp.regress import UsageError, regress_accountant
from verifydp.regress.accountant import Point, certified_epsilon

# the regress modules share one worker: their claims' certified truths are computed once per
# process (issue 29: 20.8 → 17.8 s measured apart vs together)
pytestmark = pytest.mark.xdist_group("regress")

SMALL = {"sigma": 1.0, "batch_size": 10, "n": 1000, "steps": (1, 10)}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "regress"


def upper(design: str):  # type: ignore[no-untyped-def]
    """An accountant returning the certified upper end for `design` (sound by construction)."""
    def eps(sigma: float, batch_size: int, n: int, steps: int, delta: float) -> float:
        return float(certified_epsilon(design, Point(sigma, batch_size, n, steps, delta)).hi)
    return eps


def test_certified_upper_end_is_sound_and_poisson_is_unsound_for_fixed_size() -> None:
    assert regress_accountant(upper("poisson"), "poisson", SMALL).ok
    report = regress_accountant(upper("poisson"), "fixed-size", SMALL)
    assert not report.ok and report.unsound is not None
    u = report.unsound
    assert u.params["steps"] == 1  # the fewest steps on the grid already shows it
    assert u.floor is not None and Fraction(u.values[0]) < u.floor
    assert report.claim == "accountant:fixed-size"


def test_rate_q_signature_and_mapping() -> None:
    def by_rate(noise: float, q: float, steps: int, delta: float) -> float:
        n = 1000
        return upper("poisson")(noise, round(q * n), n, steps, delta)

    assert regress_accountant(by_rate, "poisson", SMALL, mapping={"sigma": "noise"}).ok
    with pytest.raises(UsageError, match="signature mismatch"):
        regress_accountant(by_rate, "poisson", SMALL)  # `noise` is not an accountant argument


def test_an_accountant_low_at_one_grid_point_is_caught_with_its_fewest_steps() -> None:
    good = upper("poisson")

    def low_once(sigma: float, batch_size: int, n: int, steps: int, delta: float) -> float:
        v = good(sigma, batch_size, n, steps, delta)
        return v / 2 if (sigma, steps) == (2.0, 10) else v

    report = regress_accountant(low_once, "poisson",
                                {**SMALL, "sigma": (1.0, 2.0), "steps": (1, 10)}, refine=True)
    u = report.unsound
    assert u is not None and u.params["sigma"] == 2.0 and u.params["steps"] == 10
    assert report.sound_examples == 4  # every grid point up to the finding


def test_refinement_bisects_the_steps() -> None:
    good = upper("poisson")

    def low_from_4(sigma: float, batch_size: int, n: int, steps: int, delta: float) -> float:
        v = good(sigma, batch_size, n, steps, delta)
        return v / 2 if steps >= 4 else v

    report = regress_accountant(low_from_4, "poisson", {**SMALL, "steps": (1, 8)})
    assert report.unsound is not None and report.unsound.params["steps"] == 4


def test_witness_replays_and_a_raised_value_does_not() -> None:
    report = regress_accountant(upper("poisson"), "fixed-size", {**SMALL, "steps": 1})
    w = report.witness()
    assert w is not None
    obj = json.loads(json.dumps(w.to_json()))
    assert replay_object(obj).confirmed
    obj["outputs"]["ε"] = {"float": 1.0, "hex": (1.0).hex()}
    assert not replay_object(obj).confirmed


@pytest.mark.parametrize("params, match", [
    ({"sigma": -1.0}, "outside the domain"),
    ({"batch_size": 2000}, "outside the domain"),
    ({"q": 0.1}, "not q"),
    ({"alpha": 2}, "unknown parameter"),
])
def test_bad_grids_are_usage_errors(params, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match=match):
        regress_accountant(upper("poisson"), "poisson", {**SMALL, **params})


def test_unknown_design_and_missing_arguments() -> None:
    with pytest.raises(UsageError, match="unknown design"):
        regress_accountant(upper("poisson"), "shuffle", SMALL)
    with pytest.raises(UsageError, match="rate q or the batch size"):
        regress_accountant(lambda sigma, steps, delta: 1.0, "poisson", SMALL)


def _example(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"verifydp_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_dp_accounting_poisson_pld_is_sound_for_poisson_and_unsound_for_fixed_size() -> None:
    pytest.importorskip("dp_accounting")
    fn = _example("dp_accounting_poisson").epsilon
    assert regress_accountant(fn, "poisson", {**SMALL, "steps": (1, 10)}).ok
    report = regress_accountant(fn, "fixed-size", {**SMALL, "steps": (1, 10)})
    assert report.unsound is not None and report.unsound.params["steps"] == 1
    assert replay_object(json.loads(json.dumps(report.witness().to_json()))).confirmed  # type: ignore[union-attr]
