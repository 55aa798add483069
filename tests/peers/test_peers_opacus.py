"""Opacus's RDP analysis against a certified lower bound of the true privacy curve of the
Poisson-subsampled Gaussian (optional extra `peers`).  `opacus/accountants/analysis/rdp.py`
is loaded from its file: importing the `opacus` package imports torch."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("opacus") is None:
    pytest.skip("opacus is not installed", allow_module_level=True)

from verifydp.regress import peers  # noqa: E402


@pytest.mark.parametrize("sigma, q, k", [(1.0, 0.1, 1), (2.0, 0.01, 4)])
def test_rdp_epsilon_is_sound(sigma: float, q: float, k: int) -> None:
    j = peers.judge_gaussian("opacus RDP (analysis.rdp)", sigma, q, k)
    assert not j.unsound and j.ratio >= 1


def test_matches_dp_accounting_rdp_which_uses_the_same_bound() -> None:
    pytest.importorskip("dp_accounting")
    a = peers.opacus_rdp(1.0, 0.1, 4, 1e-5)
    b = peers.dp_accounting_rdp(1.0, 0.1, 4, 1e-5)
    assert abs(a - b) < 1e-3 * b
