"""dp-accounting's RDP and PLD accountants on the Poisson-subsampled Gaussian against a
certified lower bound of the true privacy curve (optional extra `peers`): sound; PLD is tight
for one step, RDP is not."""

from __future__ import annotations

import pytest

pytest.importorskip("dp_accounting")

from verifydp.regress import peers  # noqa: E402


@pytest.mark.parametrize("peer", ["dp-accounting RDP", "dp-accounting PLD"])
@pytest.mark.parametrize("sigma, q, k", [(1.0, 0.1, 1), (2.0, 0.01, 4)])
def test_accountants_are_sound(peer: str, sigma: float, q: float, k: int) -> None:
    j = peers.judge_gaussian(peer, sigma, q, k)
    assert not j.unsound and j.ratio >= 1


def test_pld_is_tight_and_rdp_is_loose_for_one_step() -> None:
    pld = peers.judge_gaussian("dp-accounting PLD", 1.0, 0.1, 1)
    rdp = peers.judge_gaussian("dp-accounting RDP", 1.0, 0.1, 1)
    assert pld.ratio < 1.001 < 1.1 < rdp.ratio
