"""The FFT power's circular window (`composition._window_start`, `_chernoff`): on a skewed
step law (a rare large loss, as a subsampled step has) the start moves toward the heavy
tail and the certified aliased mass falls; the Chernoff bounds at the λs it returns hold
against the exact composed law (arb polynomial powers); a λ of the wrong sign, which would
not bound the tail (the mutant shown), is never used."""

from __future__ import annotations

import math

import flint
import numpy as np
import pytest

from verifydp.accounting.composition import _chernoff, _window_start

K = 100


def _law(mirror: bool) -> np.ndarray:
    a = np.zeros(321)
    a[20:32] = 0.5 ** np.arange(12)
    a[220:] = 1e-4  # the rare large steps: a heavy right tail
    a /= a.sum()
    return a[::-1].copy() if mirror else a


def _exact_tails(a: np.ndarray, start: int, size: int) -> tuple[flint.arb, flint.arb]:
    c = (flint.arb_poly([flint.arb(float(x)) for x in a]) ** K).coeffs()
    return sum(c[:start], flint.arb(0)), sum(c[start + size:], flint.arb(0))


@pytest.mark.parametrize("mirror", [False, True])
def test_window_moves_toward_the_heavy_tail_and_its_bounds_hold(mirror: bool) -> None:
    a = _law(mirror)
    n, size = len(a), 2048
    span = K * (n - 1) + 1
    la = np.log(np.where(a > 0, a, 1e-320))
    la[a == 0] = -np.inf
    poly = flint.arb_poly([flint.arb(float(x)) for x in a])
    mu = float((a * np.arange(n)).sum())
    j0 = int(round(K * mu - size / 2))
    one = flint.arb(1)

    def alias(start: int, lam_lo: float | None, lam_hi: float | None) -> flint.arb:
        return (_chernoff(poly, la, K, start - 1, False, one, lam_lo)
                + _chernoff(poly, la, K, start + size, True, one, lam_hi))

    start, lam_lo, lam_hi = _window_start(la, K, j0, size, span, -math.inf)
    assert lam_lo < 0 < lam_hi
    assert (start > j0) if not mirror else (start < j0)
    moved, symmetric = alias(start, lam_lo, lam_hi), alias(j0, None, None)
    assert moved.upper() < symmetric.upper() / 100
    lo, hi = _exact_tails(a, start, size)
    assert _chernoff(poly, la, K, start - 1, False, one, lam_lo).upper() >= lo.lower()
    assert _chernoff(poly, la, K, start + size, True, one, lam_hi).upper() >= hi.lower()
    # a goal already met: the start and the floats' own λs stay
    kept, _, _ = _window_start(la, K, j0, size, span, math.inf)
    assert kept == j0


def test_a_wrong_signed_lambda_is_replaced() -> None:
    a = _law(False)
    la = np.log(np.where(a > 0, a, 1e-320))
    la[a == 0] = -np.inf
    poly = flint.arb_poly([flint.arb(float(x)) for x in a])
    one = flint.arb(1)
    c = (poly ** K).coeffs()
    low = np.cumsum([float(x.mid()) for x in c])
    cut = int(np.searchsorted(low, 0.05))  # nineteen twentieths of the law lie above
    hi = sum(c[cut:], flint.arb(0))
    # the mutant: e^{−λ·cut}·M(e^λ)^k with λ < 0 is no bound of the upper tail
    lam = -0.01
    mutant = (poly(flint.arb(lam).exp()) ** K) * (-(flint.arb(lam) * cut)).exp()
    assert mutant.upper() < hi.lower()
    assert _chernoff(poly, la, K, cut, True, one, lam).upper() >= hi.lower()
