"""The balls-and-bins loader in the deployment audit (issue 30): the design file's checks
(each refusal names its field), the audit's bracket against the certified epoch pair composed
directly, a partial last epoch bracketed by the epochs begun and completed, one step as
Poisson(1/t), and the Poisson accountant not flagged where the certified answer lies below
it. The pair itself is checked against an independent oracle and concrete datasets in
tests/accounting/test_ballsbins.py (proofs/deployment_pairs.md#balls-and-bins)."""

from __future__ import annotations

import copy
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest

from verifydp.accounting import Grid, allocation_gaussian, compose
from verifydp.audit.deployment import allocation_delta, audit_deployment
from verifydp.audit.spec import DesignFileError, one_release, parse_design, tomllib

# one worker for the module and the example's render test (issue 29): the epoch's certified
# laws (t = 234, σ = 1.1, ~5 s) are computed once per process
pytestmark = pytest.mark.xdist_group("balls-and-bins")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "deploy_dpsgd_balls_and_bins.toml"


def _raw(**changes: Any) -> dict[str, Any]:
    """The example with "section.key" changes (None removes the key)."""
    obj = copy.deepcopy(tomllib.loads(EXAMPLE.read_text(encoding="utf-8")))
    for key, value in changes.items():
        section, _, field = key.partition(".")
        if value is None:
            obj[section].pop(field, None)
        else:
            obj.setdefault(section, {})[field] = value
    return obj


@pytest.mark.parametrize("changes, field", [
    ({"protect.relation": "substitution"}, "protect.relation"),
    ({"mechanism.kind": "laplace", "mechanism.noise_multiplier": None,
      "mechanism.scale": 2.0}, "mechanism.kind"),
    ({"composition.resample": False}, "composition.resample"),
    ({"population.size": 60160}, "protect.relation"),   # N mod b = 0: a neighbour's t differs
    ({"population.size": 60159}, "protect.relation"),   # N mod b = b − 1
    ({"design.batch": 60001}, "design.batch"),
])
def test_unsupported_files_are_refused_by_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(DesignFileError) as exc:
        parse_design(_raw(**changes))
    assert str(exc.value).startswith(field), str(exc.value)


def test_one_step_is_poisson_at_one_over_t() -> None:
    spec = parse_design(_raw())
    one = one_release(spec)
    assert one.kind == "poisson" and one.params == {"q": F(1, 234)}
    assert spec.design.q == F(1, 234)  # type: ignore[attr-defined]


def test_audit_matches_the_pair_composed_directly() -> None:
    """Two epochs at ε = 1/2 (δ ≈ 3e-7): the audit's bracket is the epoch pair's, composed
    twice, at the noise multiplier the file states (σ = noise / clip)."""
    raw = _raw(**{"composition.steps": 468, "composition.delta": None,
                  "composition.epsilon": 0.5, "composition.rtol": "1/50"})
    raw.pop("accountant")
    dep = audit_deployment(parse_design(raw), curves=False)
    direct = compose(allocation_gaussian(234, F(11, 10)), 2, epsilon=F(1, 2), rtol=F(1, 50))
    assert dep.result.lo <= direct.hi and direct.lo <= dep.result.hi
    assert dep.result.width <= F(1, 50) * dep.result.hi


def test_a_partial_epoch_is_bracketed_by_the_epochs_begun_and_completed() -> None:
    spec = parse_design(_raw(**{"composition.steps": 468 + 100}))
    g = Grid(F(1, 200))
    part = allocation_delta(spec, 468 + 100, g)(F(1, 2))
    two = allocation_delta(spec, 468, g)(F(1, 2))
    three = allocation_delta(spec, 3 * 234, g)(F(1, 2))
    assert part.hi == three.hi and part.lo <= two.lo + F(1, 10**12)
    assert two.lo <= part.hi and part.lo <= three.hi and two.hi < three.lo


def test_the_example_is_tight_and_its_poisson_accountant_is_not_flagged() -> None:
    """The DP-SGD example (43 epochs of 234 steps): within 1 %; dp-accounting's Poisson PLD
    at q = 256/60000 lies above the certified bracket, so it is not flagged (random
    allocation is not worse than Poisson here, Feldman & Shenfeld 2025)."""
    pytest.importorskip("dp_accounting")
    dep = audit_deployment(parse_design(_raw()), curves=False)
    assert dep.relative_width <= 0.01
    assert dep.accountant is not None and dep.accountant.value is not None
    assert dep.accountant.understates is None
    assert dep.accountant.value > dep.result.hi


def test_heavy_tails_beyond_the_lattice_are_refused_before_any_work() -> None:
    """σ = 0.5 at t = 234: two or more tail terms at the largest cut the capped window
    allows carry about 3e-7 of P-mass per epoch, 1.5e-5 over 43 epochs (≥ δ = 1e-5), so no
    finite ε(δ) is certifiable: a one-line refusal naming the field, not an internal error
    after minutes of lattice work."""
    spec = parse_design(_raw(**{"mechanism.noise_multiplier": 0.5}))
    with pytest.raises(DesignFileError) as exc:
        audit_deployment(spec, curves=False)
    assert str(exc.value).startswith("mechanism.noise_multiplier: balls-and-bins at σ = 0.5")
