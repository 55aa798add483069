"""Balls-and-bins (random allocation) with Gaussian noise against the released code of the
papers (optional extra `peers`): Feldman & Shenfeld's `PLD_accounting` (arXiv:2602.17284) and,
where installed, their `random-allocation` (arXiv:2502.08202), which vendors Chua et al.'s
lower bound (arXiv:2412.16802). docs/peers-allocation.md.

Peers compute in floats, so only the sound direction is asserted: a peer's claimed upper bound
must not lie below verifydp's certified lower end, a claimed lower bound not above its certified
upper end. Estimates (Chua et al.'s Monte Carlo) are not asserted here (docs/peers-allocation.md).
`random-allocation` is not in the `peers` extra (it pins numpy < 2.2, needs numba and imports
pandas without declaring it), so its tests run only where it is installed by hand.
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from functools import cache

import pytest

from verifydp.accounting import allocation_gaussian, compose

# one worker computes each certified bracket once (issue 29)
pytestmark = pytest.mark.xdist_group("ballsbins-peers")

REL = 1e-9  # float rounding allowance on a peer's value (relative), nothing more

# (t steps per epoch, σ, E epochs, δ): each verifydp bracket in ≤ 6 s, PLD_accounting ≤ 10 s
# without numba. The first is in the table of a third-party note computed with these packages.
SETTINGS = [(64, F(1), 1, F(1, 10**8)), (16, F(1), 8, F(1, 10**6))]
IDS = [f"t={t}-sigma={s}-E={e}" for t, s, e, _ in SETTINGS]
# the second setting runs with the slow tests (issue 29's suite budget)
CASES = [SETTINGS[0], pytest.param(*SETTINGS[1], marks=pytest.mark.slow)]


@cache
def epsilon_bracket(t: int, sigma: F, epochs: int, delta: F):  # type: ignore[no-untyped-def]
    return compose(allocation_gaussian(t, sigma), epochs, delta=delta, rtol=F(1, 100))


@cache
def delta_bracket(t: int, sigma: F, epochs: int, epsilon: F):  # type: ignore[no-untyped-def]
    return compose(allocation_gaussian(t, sigma), epochs, epsilon=epsilon, rtol=F(1, 100))


def up(x: F) -> float:
    """The least float ≥ x (a certified upper end passed to a float peer stays an upper end)."""
    f = float(x)
    return f if F(f) >= x else math.nextafter(f, math.inf)


def below(peer_upper: float, certified_lower: F) -> bool:
    return peer_upper * (1 + REL) < float(certified_lower)


def above(peer_lower: float, certified_upper: F) -> bool:
    return peer_lower * (1 - REL) > float(certified_upper)


@pytest.mark.parametrize("t, sigma, epochs, delta", CASES, ids=IDS)
def test_pld_accounting_range_is_consistent(t: int, sigma: F, epochs: int, delta: F) -> None:
    # PLD_accounting's adaptive API: (upper, lower) from its dominating (BoundType.DOMINATES)
    # and dominated (IS_DOMINATED) PLDs, both directions (add and remove), E epochs composed
    pld = pytest.importorskip("PLD_accounting")
    ours = epsilon_bracket(t, sigma, epochs, delta)
    upper, lower = pld.gaussian_allocation_epsilon_range(
        delta=float(delta), sigma=float(sigma), num_steps=t, num_selected=1, num_epochs=epochs)
    print(f"t={t} σ={sigma} E={epochs} δ={delta}: verifydp [{float(ours.lo):.6f}, "
          f"{float(ours.hi):.6f}]; PLD_accounting lower {lower:.6f}, upper {upper:.6f}")
    assert not below(upper, ours.lo), (upper, ours.lo)
    assert not above(lower, ours.hi), (lower, ours.hi)


def _ra():  # type: ignore[no-untyped-def]
    pytest.importorskip("random_allocation")
    from random_allocation.comparisons.definitions import PrivacyParams, SchemeConfig
    from random_allocation.comparisons.structs import Verbosity

    def params(t: int, sigma: F, epochs: int, **kw: float):  # type: ignore[no-untyped-def]
        return PrivacyParams(sigma=float(sigma), num_steps=t, num_epochs=epochs, **kw)

    # the RDP orders of the package's own paper experiments (examples/paper_experiments.py)
    config = SchemeConfig(allocation_direct_alpha_orders=list(range(2, 61)),
                          verbosity=Verbosity.NONE)
    return params, config


@pytest.mark.parametrize("t, sigma, epochs, delta", CASES, ids=IDS)
def test_random_allocation_upper_bounds_are_consistent(t: int, sigma: F, epochs: int,
                                                       delta: F) -> None:
    # Feldman & Shenfeld 2025's upper bounds on ε(δ), max of the add and remove directions:
    # `direct` (RDP), `RDP_DCO` and `combined` (the least of their bounds)
    params, config = _ra()
    from random_allocation.random_allocation_scheme import (
        allocation_epsilon_combined,
        allocation_epsilon_direct,
        allocation_epsilon_RDP_DCO,
    )

    ours = epsilon_bracket(t, sigma, epochs, delta)
    p = params(t, sigma, epochs, delta=float(delta))
    for name, f in [("direct", allocation_epsilon_direct), ("RDP_DCO", allocation_epsilon_RDP_DCO),
                    ("combined", allocation_epsilon_combined)]:
        eps = f(p, config)
        print(f"t={t} σ={sigma} E={epochs}: random-allocation {name} ε = {eps:.6f}, "
              f"verifydp [{float(ours.lo):.6f}, {float(ours.hi):.6f}]")
        assert not below(eps, ours.lo), (name, eps, ours.lo)


def test_chua_lower_bound_is_consistent() -> None:
    # Chua et al.'s lower bound on δ(ε) (one epoch, remove direction; `BnBAccountant.
    # get_deltas_lower_bound`, vendored): below the certified upper end of δ(ε), both at a
    # given ε and at the upper end of ε(δ), where the true δ is at most δ
    params, config = _ra()
    from random_allocation.random_allocation_scheme import allocation_delta_lower_bound

    t, sigma, epochs, delta = SETTINGS[0]
    ours = epsilon_bracket(t, sigma, epochs, delta)
    at_hi = allocation_delta_lower_bound(params(t, sigma, epochs, epsilon=up(ours.hi)), config)
    assert not above(at_hi, delta), (at_hi, delta)
    eps = F(1)
    ours_delta = delta_bracket(t, sigma, epochs, eps)
    lower = allocation_delta_lower_bound(params(t, sigma, epochs, epsilon=float(eps)), config)
    print(f"t={t} σ={sigma}: Chua lower δ({float(ours.hi):.6f}) = {at_hi:.4e} (δ = {delta}); "
          f"δ(1) ≥ {lower:.6e}, verifydp [{float(ours_delta.lo):.6e}, {float(ours_delta.hi):.6e}]")
    assert not above(lower, ours_delta.hi), (lower, ours_delta.hi)
