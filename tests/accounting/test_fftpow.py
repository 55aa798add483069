"""The certified round-off bound of the float FFT power (verifydp.accounting.fftpow) and the
FFT-composed upper vectors against ball arithmetic."""

from fractions import Fraction

import flint
import numpy as np
import pytest

from verifydp.accounting import composition as C
from verifydp.accounting.fftpow import power, round_off_bound


def _exact_circular(a: np.ndarray, k: int, n: int) -> list[flint.arb]:
    coeffs = (flint.arb_poly([flint.arb(float(x)) for x in a]) ** k).coeffs()
    out = [flint.arb(0)] * n
    for i, x in enumerate(coeffs):
        out[i % n] += x
    return out


@pytest.mark.parametrize("k", [1, 2, 5, 17])
def test_bound_covers_the_float_error(k: int) -> None:
    rng = np.random.default_rng(k)
    n = 64
    a = rng.random(40)
    a /= a.sum()
    c, e = power(a, k, n)
    exact = _exact_circular(a, k, n)
    assert e > 0
    for m in range(n):
        # known-true: the exact value lies within E of the float one
        assert abs(flint.arb(float(c[m])) - exact[m]).upper() <= e
    # the float result is not exact, so a zero round-off term would be false somewhere
    worst = max(float(abs(flint.arb(float(c[m])) - exact[m]).upper()) for m in range(n))
    assert worst > 0 and e < 1e-12


def test_bound_grows_with_k_and_length() -> None:
    a = np.full(100, 0.01)
    assert round_off_bound(a, 1000, 256) > round_off_bound(a, 10, 256)
    assert round_off_bound(a, 10, 2**16) > round_off_bound(a, 10, 256)


def test_fft_upper_vector_matches_balls() -> None:
    """The tilted FFT composition's certified upper end is within 0.1 % of the ball one's
    (both certified; the FFT's is sharp at its target ε)."""
    g = C.Grid(h=Fraction(1, 400))
    pair = C.poisson_gaussian(Fraction(1, 20), Fraction(1))
    balls = C.composed(pair, 300, g)
    fft = C.composed(pair, 300, g, target=1.0)
    for d in (0, 1):
        b = balls._upper_at(d, Fraction(1))
        f = fft._upper_at(d, Fraction(1))
        assert abs(f - b) <= b / 1000
    lo = max(balls._lower(0, Fraction(1)), balls._lower(1, Fraction(1)))
    assert 0 < lo <= fft.delta(Fraction(1)).hi


def test_fft_upper_above_certified_lower_at_tiny_delta() -> None:
    """δ ≈ 1e-19: the tilted FFT's upper end (sharper than the balls' here) stays above the
    certified lower end (0 here: the ball buckets certify nothing so far out)."""
    g = C.Grid(h=Fraction(1, 400))
    pair = C.poisson_gaussian(Fraction(1, 100), Fraction(2))
    fft = C.composed(pair, 300, g, target=1.0)
    b = fft.delta(Fraction(1))
    assert 0 <= b.lo <= b.hi and b.hi > 0


def test_far_target_falls_back_to_balls_without_overflow() -> None:
    """A target ε far above every lattice point of a short composition (δ-mode audits at a
    large ε): the tilt would overflow a float, so the balls compose it (once crashed with
    OverflowError); both brackets certified."""
    from fractions import Fraction as F

    from verifydp.accounting import Grid, composed, poisson_gaussian

    pair, g = poisson_gaussian(F(1, 234), F(11, 10)), Grid(F(1, 100))
    for eps in (F(1, 2), F(1)):
        far = composed(pair, 60, g, target=float(eps)).delta(eps)
        balls = composed(pair, 60, g).delta(eps)
        assert far.lo <= balls.hi and balls.lo <= far.hi  # both certified


def test_cells_are_certified_once_per_pair_and_lattice() -> None:
    from fractions import Fraction as F

    from verifydp.accounting import Grid, poisson_gaussian
    from verifydp.accounting.composition import _steps, memo_cells

    pair = poisson_gaussian(F(1, 100), F(1))
    with memo_cells():
        assert _steps(pair, Grid(F(1, 100))) is _steps(pair, Grid(F(1, 100)))
        assert _steps(pair, Grid(F(1, 100))) is not _steps(pair, Grid(F(1, 200)))
    assert _steps(pair, Grid(F(1, 100))) is not _steps(pair, Grid(F(1, 100)))


@pytest.mark.parametrize("n", [4, 8, 256])
def test_real_input_transforms_match_the_complex_ones(n: int) -> None:
    """The half-length real-input FFT (`fftpow._rfft`) gives the first n/2 + 1 entries of the
    full complex FFT, with Y_0 and Y_{n/2} exactly real, and `_irfft` of a Hermitian vector's
    half is n times its inverse transform: both against numpy's FFT (an independent
    implementation) to a few ulps."""
    from verifydp.accounting import fftpow

    rng = np.random.default_rng(n)
    a = rng.random(n)
    yr, yi = fftpow._rfft(a)
    ref = np.fft.fft(a)[: n // 2 + 1]
    assert np.allclose(yr + 1j * yi, ref, rtol=0, atol=1e-13 * a.sum())
    assert yi[0] == 0 and yi[-1] == 0
    back = fftpow._irfft(yr, yi) / n
    assert np.allclose(back, a, rtol=0, atol=1e-14 * n)
    # a mutant: dropping the twiddles of the last stage breaks the match
    bad = np.fft.fft(a[0::2]) + np.fft.fft(a[1::2])
    assert not np.allclose((yr + 1j * yi)[: n // 2], bad, rtol=0, atol=1e-13 * a.sum())


def test_lengths_below_four_are_refused() -> None:
    with pytest.raises(ValueError):
        power(np.array([0.5, 0.5]), 3, 2)


@pytest.mark.parametrize("side", ["up", "low"])
def test_scaled_entries_in_intervals_are_certified(side: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's untilted entries g·R^{−m}(vals ± pad), enclosed in float intervals
    (`composition._scaled_entries`), against a 200-bit arb reference: on the certified side
    of every entry (above for ``up``, below for ``low``) and within 1e-11 of it, as are the
    entry-by-entry arb values of the fallback. Tail entries are mostly pad (the round-off bound),
    so dropping it or taking the wrong side would be caught."""
    pair = C.poisson_gaussian(Fraction(1, 20), Fraction(1))
    step = C._steps(pair, C.Grid(h=Fraction(1, 200)))[0]
    f = C._fft_core(C._fvec(step, "upper"), 50, side, 1.0, 1 / 200)
    assert f is not None
    up = side == "up"
    pick = 1 if up else 0  # the certified side's float
    fast = [flint.arb(x) for x in C._scaled_entries(f, up)[pick].tolist()]
    monkeypatch.setattr(C, "_log_iv", lambda x: None)
    slow = [flint.arb(x) for x in C._scaled_entries(f, up)[pick].tolist()]
    assert len(fast) == len(slow) == len(f.vals)
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        g = flint.arb(f.g.upper() if up else f.g.lower())
        r_inv = 1 / flint.arb(f.R)
        nonzero = 0
        for i, x in enumerate(f.vals.tolist()):
            v = flint.arb(x) + f.err if up else flint.arb(x) - f.slack
            ref = g * r_inv**i * v
            if not up and ref < 0:
                assert fast[i] == 0 and slow[i] == 0
                continue
            nonzero += 1
            for got in (fast[i], slow[i]):
                assert (got >= ref) if up else (got <= ref)
                assert abs(got - ref) <= abs(ref) * 1e-11
    finally:
        flint.ctx.prec = old
    assert nonzero > len(f.vals) // 4


@pytest.mark.parametrize("upper", [True, False])
def test_tilted_entries_are_certified(upper: bool) -> None:
    """The tilted one-step vector a_i vs f_i·R^i/K (`composition._tilted_entries`) for exact
    floats f_i ≥ 0: float intervals where the exponents allow, arb entry by entry beyond
    ±700 (forced here by a K of 1e-320's order: e^{−log K} ≈ e^{737}); both on the
    certified side of a 200-bit reference and within 1e-11 of it."""
    rng = np.random.default_rng(5)
    f = rng.random(300) * 1e-3
    f[7] = 0.0
    f[9] = 5e-324  # the least subnormal (an upper end below the subnormals, rounded up)
    for R, K in ((1.0371, 2.5), (11.0, 1e305)):
        a = C._tilted_entries(f, R, K, upper)
        old = flint.ctx.prec
        flint.ctx.prec = 200
        try:
            for i, x in enumerate(f.tolist()):
                ref = flint.arb(x) * flint.arb(R) ** i / flint.arb(K)
                if ref == 0:
                    assert a[i] == 0
                    continue
                assert (flint.arb(a[i]) >= ref) if upper else (flint.arb(a[i]) <= ref)
                if ref > 1e-290:  # relative accuracy in the normal range only
                    assert abs(flint.arb(a[i]) - ref) <= ref * 1e-11
        finally:
            flint.ctx.prec = old


def _textbook_fft(re: np.ndarray, im: np.ndarray, nudge: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The in-place radix-2 decimation-in-time FFT of the textbooks (bit-reversal, then
    butterflies u ± ω̂·v on the same twiddle table and the same rounded operations); `nudge`
    moves the table's real parts by that relative amount (a mutant)."""
    from verifydp.accounting import fftpow

    n = len(re)
    wr, wi, _ = fftpow._twiddles(n)
    wr = wr * (1 + nudge)
    t = n.bit_length() - 1
    rev = np.array([int(format(i, f"0{t}b")[::-1], 2) for i in range(n)]) if t else np.zeros(1, int)
    xr, xi = re[rev].copy(), im[rev].copy()
    m = 2
    while m <= n:
        half = m // 2
        tr, ti = wr[:: n // m][:half], wi[:: n // m][:half]
        for s in range(0, n, m):
            vr, vi = xr[s + half:s + m].copy(), xi[s + half:s + m].copy()
            pr = vr * tr - vi * ti
            pi_ = vr * ti + vi * tr
            ur, ui = xr[s:s + half].copy(), xi[s:s + half].copy()
            xr[s:s + half], xr[s + half:s + m] = ur + pr, ur - pr
            xi[s:s + half], xi[s + half:s + m] = ui + pi_, ui - pi_
        m *= 2
    return xr, xi


@pytest.mark.parametrize("n", [2, 4, 16, 1024])
def test_stockham_order_is_bit_for_bit_the_textbook_fft(n: int) -> None:
    """`fftpow._fft` (Stockham's autosort order) performs the textbook algorithm's rounded
    operations on the same twiddles, so its results are identical bit for bit, and Higham's
    bound applies unchanged; the comparison sees a one-ulp change of the twiddles."""
    from verifydp.accounting import fftpow

    rng = np.random.default_rng(n)
    re, im = rng.standard_normal(n), rng.standard_normal(n)
    got = fftpow._fft(re, im, inverse=False)
    ref = _textbook_fft(re, im)
    assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])
    if n >= 4:
        bad = _textbook_fft(re, im, nudge=2.0**-52)
        assert not (np.array_equal(bad[0], got[0]) and np.array_equal(bad[1], got[1]))
