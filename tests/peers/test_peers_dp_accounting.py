"""Cross-checks against a peer library: Google's dp-accounting (optional extra `peers`).

Peers compute in floats, so these are consistency checks, never verdicts. dp-accounting's
*optimistic* privacy-loss distribution gives a lower bound on the true δ(ε); the pessimistic one
an upper bound. Our rigorous brackets must be consistent with both.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

from verifydp.exact.special import exp_bracket  # noqa: E402
from verifydp.mechanisms.profiles import gaussian_profile  # noqa: E402

TOL = 1e-6  # discretisation of the peer's privacy-loss distribution


def peer(sigma: float, q: float, pessimistic: bool):  # type: ignore[no-untyped-def]
    return pld.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=1.0, pessimistic_estimate=pessimistic,
        sampling_prob=q, value_discretization_interval=1e-3, use_connect_dots=pessimistic,
    )


@pytest.mark.parametrize("sigma", [Fraction(1), Fraction(2)])
@pytest.mark.parametrize("eps", [Fraction(1, 2), Fraction(2)])
def test_gaussian_profile_lies_between_the_peers_bounds(sigma: Fraction, eps: Fraction) -> None:
    # must/thm1:gauss: δ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), θ = Δ/σ
    ours = gaussian_profile(eps, 1 / sigma)
    lo = peer(float(sigma), 1.0, False).get_delta_for_epsilon(float(eps))
    hi = peer(float(sigma), 1.0, True).get_delta_for_epsilon(float(eps))
    assert lo - TOL <= float(ours.hi) and float(ours.lo) <= hi + TOL


@pytest.mark.parametrize("gamma", [Fraction(1, 10), Fraction(1, 2)])
@pytest.mark.parametrize("eps", [Fraction(1), Fraction(2)])
def test_table2_poisson_bound_is_sound_against_the_peer(gamma: Fraction, eps: Fraction) -> None:
    # must/table2:poisson: M∘Poisson(γ) is (log(1 + γ(e^ε − 1)), γ δ(ε))-DP (add-remove);
    # the peer's optimistic δ at that ε' is a lower bound on the truth, so it cannot exceed it
    sigma = Fraction(1)
    t = exp_bracket(eps)
    eps_prime = float(1 + gamma * (t.lo - 1))  # smaller ε' makes the peer's δ larger: safe side
    import math

    bound = gamma * gaussian_profile(eps, 1 / sigma).hi
    lower = peer(float(sigma), float(gamma), False).get_delta_for_epsilon(math.log(eps_prime))
    assert lower <= float(bound) + TOL
