"""prv-accountant's upper ε against a certified lower bound of the true privacy curve of the
Poisson-subsampled Gaussian (optional extra `peers`)."""

from __future__ import annotations

import pytest

pytest.importorskip("prv_accountant")

from verifydp.regress import peers  # noqa: E402


@pytest.mark.parametrize("sigma, q, k", [(1.0, 0.1, 1), (0.8, 0.5, 4)])
def test_upper_epsilon_is_sound_and_tight_for_one_step(sigma: float, q: float, k: int) -> None:
    j = peers.judge_gaussian("prv-accountant (upper)", sigma, q, k)
    assert not j.unsound and j.ratio >= 1
    if k == 1:  # the lower bound is exact for one step: the upper ε is within its 0.01 error
        assert j.eps_peer - float(j.eps_lower) < 0.02
