"""autodp against the engine (optional extra `peers`): its generic subsampling lemma is exact
for Poisson sampling and unsound for sampling with replacement, as its docstring claims it
applies to both; its RDP accountant is sound on a Poisson-subsampled Gaussian."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("autodp")

from verifydp.casebook import replay  # noqa: E402
from verifydp.regress import peers  # noqa: E402

WITNESS = Path(__file__).resolve().parents[2] / "counterexamples" / \
    "peer_autodp_subsample_epsdelta_wr.json"


@pytest.mark.parametrize("q", [Fraction(1, 10), Fraction(1, 2)])
def test_poisson_lemma_equals_the_exact_worst_case(q: Fraction) -> None:
    e, d = peers.autodp_subsample_epsdelta(math.log(2), 0.0, float(q))
    truth = peers.generic_poisson_truth(q, Fraction(2))  # exactly 1 + q(t − 1)
    assert d == 0 and truth == 1 + q
    assert math.isclose(math.exp(e), float(truth), rel_tol=1e-12)


@pytest.mark.parametrize("n, m", [(3, 2), (10, 3)])
def test_with_replacement_claim_is_unsound(n: int, m: int) -> None:
    e, _ = peers.autodp_subsample_epsdelta(math.log(2), 0.0, m / n)
    truth = peers.generic_srs_truth("wr", n, m, Fraction(2))
    assert truth == (1 + Fraction(1, n)) ** m  # the exact worst case: each draw may hit x
    assert Fraction(math.exp(e)) < truth * (1 - Fraction(1, 100))  # far below, not rounding


def test_committed_witness_replays() -> None:
    assert WITNESS.exists(), "run python bench/peers.py"
    report = replay(WITNESS)
    assert report.confirmed, report.lines


def test_rdp_accountant_is_sound_on_a_subsampled_gaussian() -> None:
    j = peers.judge_gaussian("autodp RDP", 1.0, 0.1, 1)
    assert not j.unsound and j.ratio >= 1
