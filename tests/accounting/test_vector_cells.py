"""The Gaussian cells in numpy intervals (`composition._gauss_steps` and its parts): erfc's
Taylor models, cell masses, losses and the step vectors enclose the exact values (mpmath at
40 digits, or the arb path), and mutants (no Taylor remainder, no out-of-reach shares) are
caught. The interval arithmetic itself: tests/exact/test_vecint.py."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath
import numpy as np
import pytest

from tests.shared import CELL_GROUP, true_cell_masses
from verifydp.accounting import composition as C
from verifydp.exact import normal_iv as N
from verifydp.exact import vecint as vi


def _mp(x: float) -> mpmath.mpf:
    return mpmath.mpf(float(x))


def _encloses(lo: np.ndarray, hi: np.ndarray, exact: list[mpmath.mpf]) -> bool:
    return all(_mp(a) <= e <= _mp(b) for a, b, e in zip(lo, hi, exact, strict=True))


@pytest.mark.parametrize("c, s", [(F(0), F(1)), (F(1), F(3, 5)), (F(-3), F(2))])
def test_gauss_values_enclose_erfc(c: F, s: F) -> None:
    x = np.sort(np.concatenate((np.linspace(float(c) - 11 * float(s), float(c) + 11 * float(s),
                                            3001), [float(c)])))
    lo, hi, right = N.normal_tail(c, s, x)
    with mpmath.workdps(40):
        sm = mpmath.mpf(s.numerator) / s.denominator
        cm = mpmath.mpf(c.numerator) / c.denominator
        exact = [mpmath.erfc(abs(_mp(t) - cm) / (sm * mpmath.sqrt(2))) / 2 for t in x]
    assert np.array_equal(right, x > float(c))
    assert _encloses(lo, hi, exact)
    # as tight as the balls: a few 1e-15 of the value
    assert np.all(hi - lo <= 1e-12 * hi)


def test_a_taylor_model_without_its_remainder_is_caught(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Degree 2 on the same blocks: with the Lagrange remainder the values are still
    enclosed (wide); a mutant that drops the remainder misses the exact erfc."""
    c, s = F(0), F(1)
    x = np.linspace(-8.0, 8.0, 4001)
    with mpmath.workdps(40):
        exact = [mpmath.erfc(abs(_mp(t)) / mpmath.sqrt(2)) / 2 for t in x]
    monkeypatch.setattr(N, "_IV_DEG", 2)
    lo, hi, _ = N.normal_tail(c, s, x)
    assert _encloses(lo, hi, exact)
    real = N.taylor_iv

    def no_remainder(z, terms):  # type: ignore[no-untyped-def]
        out = real(z, terms)
        if terms == N._IV_DEG + 2:  # the remainder's coefficient over the block's ball
            out[-1] = (np.zeros_like(out[-1][0]), np.zeros_like(out[-1][1]))
        return out

    monkeypatch.setattr(N, "taylor_iv", no_remainder)
    lo, hi, _ = N.normal_tail(c, s, x)
    assert not _encloses(lo, hi, exact)


def _true_cell_masses(pair: C.Pair, cuts: np.ndarray) -> tuple[mpmath.mpf, ...]:
    """The cells' masses at 40 digits, once per process for the pair and cuts
    (tests/shared.py)."""
    return true_cell_masses(tuple(pair.p), pair.scale, tuple(float(x) for x in cuts))


@pytest.mark.xdist_group(CELL_GROUP)  # the masses shared with test_compose.py
@pytest.mark.parametrize("drop", [False, True])
def test_cell_masses_outside_a_components_reach(drop: bool, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two components 30 scales apart with a short reach leave cells out of reach of both:
    their interval masses must still contain the true ones (the unknown shares); a mutant
    without the shares is caught."""
    pair = C.mixture_gaussian(((0, F(1, 2)), (30, F(1, 2))), F(1), substitution=True)
    grid = C.Grid(h=F(1, 2), negligible_bits=4)
    cuts = np.asarray(C._cut_points(pair, grid))
    reach = C._reaches_iv(pair, cuts, grid)
    assert any(r.j0 > 0 or r.j1 < len(cuts) - 1 for r in reach.values())
    if drop:
        monkeypatch.setattr(C, "_unknown_shares", lambda left, right, comps: np.zeros(len(left) - 1))
    (lo, hi), _, _ = C._mass(pair.p, len(cuts), reach)
    truth = _true_cell_masses(pair, cuts)
    assert _encloses(lo, hi, truth) != drop


@pytest.mark.parametrize("pair, h", [
    (C.poisson_gaussian(F(1, 1000), F(1)), F(1, 700)),
    (C.fixed_size_gaussian(F(1, 50), F(3, 5)), F(1, 300)),
    (C.mixture_gaussian(((0, F(1, 2)), (1, F(1, 3)), (3, F(1, 6))), F(1), substitution=False),
     F(1, 200)),
])
def test_interval_steps_match_the_balls(pair: C.Pair, h: F, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The interval path's step vectors against the arb path's on the same cuts: the same
    lattice offsets, overlapping bucket masses, upper vectors within 1e-8, and δ brackets of
    a composition that agree to 1e-8 (both certified)."""
    grid = C.Grid(h=h)
    vec = C._steps_of(pair, grid)
    monkeypatch.setattr(C, "_VECTOR_CELLS", False)
    arb = C._steps_of(pair, grid)
    for d in (0, 1):
        a, v = arb[d], vec[d]
        assert a.off == v.off and len(a.upper) == len(v.upper)
        for key in ("low_p", "low_q"):
            assert all(x.overlaps(y) for x, y in zip(getattr(a, key), getattr(v, key), strict=True))
        # the end entries hold the masses beyond the cuts (under 2^-60 since the cells stop
        # where that is negligible), enclosed by arb's erfc and by the interval Taylor models
        # alike but not equally tightly: 2^-100 absolute there, far below any negligible mass
        for x, y in zip(a.upper, v.upper, strict=True):
            assert abs(float(x.upper()) - float(y.upper())) <= 1e-8 * float(x.upper()) + 2.0**-100
    balls = C.composed(pair, 50, grid).delta(F(1))
    monkeypatch.setattr(C, "_VECTOR_CELLS", True)
    floats = C.composed(pair, 50, grid).delta(F(1))
    assert floats.lo <= balls.hi and balls.lo <= floats.hi
    assert abs(floats.lo - balls.lo) <= F(1, 10**8) * balls.hi
    assert abs(floats.hi - balls.hi) <= F(1, 10**8) * balls.hi


def test_interval_losses_enclose_the_exact_loss() -> None:
    law = ((0, F(1, 3)), (1, F(1, 3)), (4, F(1, 3)))
    pair = C.mixture_gaussian(law, F(1, 2), substitution=True)
    x = np.linspace(-3.0, 3.0, 201)
    lo, hi = vi.sub(C._log_density_iv(pair, pair.p, x), C._log_density_iv(pair, pair.q, x))
    with mpmath.workdps(40):
        s = mpmath.mpf(1) / 2

        def dens(comps, t):  # type: ignore[no-untyped-def]
            return sum(mpmath.mpf(w.numerator) / w.denominator
                       * mpmath.exp(-((_mp(t) - mpmath.mpf(c.numerator) / c.denominator) ** 2)
                                    / (2 * s * s)) for w, c in comps)

        exact = [mpmath.log(dens(pair.p, t) / dens(pair.q, t)) for t in x]
    assert _encloses(lo, hi, exact)
    assert np.all(hi - lo <= 1e-12 * np.maximum(np.abs(hi), 1))


def test_taylor_coefficients_in_intervals_match_arb() -> None:
    """`normal_iv.taylor_iv` (all blocks at once, vector intervals) against `erfc_taylor`
    (arb, one z at a time, the reference): each interval overlaps the arb ball and is about
    as tight; over a wide z interval (the remainder's ball)
    it encloses the arb coefficients at points of it. A sign slip in the Hermite recursion
    (+2m instead of −2m) is caught."""
    zs = np.array([0.0, 0.3, 1.0, 2.7, 6.1, 11.0, 19.5])
    got = N.taylor_iv((zs, zs), N._IV_DEG + 2)
    for b, z in enumerate(zs.tolist()):
        ref = N.erfc_taylor(flint.arb(z), N._IV_DEG + 2)[1:]
        for (lo, hi), r in zip(got, ref, strict=True):
            assert flint.arb(lo[b]) <= r.upper() and flint.arb(hi[b]) >= r.lower()
            # as tight as arb's ball up to a factor 10 (near a root of a Hermite polynomial
            # both lose digits to cancellation), or 1e-12 of the value
            assert hi[b] - lo[b] <= 20 * float(r.rad()) + 1e-12 * abs(float(r)) + 1e-300
    wide = N.taylor_iv((np.array([2.0]), np.array([2.125])), N._IV_DEG + 2)
    for z in (2.0, 2.06, 2.125):
        ref = N.erfc_taylor(flint.arb(z), N._IV_DEG + 2)[1:]
        for (lo, hi), r in zip(wide, ref, strict=True):
            assert flint.arb(lo[0]) <= r.lower() and r.upper() <= flint.arb(hi[0])
    # the mutant recursion: H_{m+1} = 2zH_m + 2mH_{m−1} gives other coefficients
    bad = [flint.arb(1), 2 * flint.arb(2.7)]
    for m in range(1, 6):
        bad.append(2 * flint.arb(2.7) * bad[-1] + 2 * m * bad[-2])
    g = 2 / flint.arb.pi().sqrt() * (-(flint.arb(2.7) ** 2)).exp()
    a5_bad = -g * bad[4] / flint.arb.fac_ui(5)
    lo, hi = got[4]
    assert not (flint.arb(lo[3]) <= a5_bad <= flint.arb(hi[3]))


def test_cells_stop_where_the_mass_beyond_is_negligible(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`_carrying`: the cut axis ends where P's and Q's mass beyond is under a quarter of
    2^-bits (exact tails by mpmath), far inside the support, and every step-vector entry
    above the negligible mass is what the untrimmed cells give; the mutant that trims a
    thousand times more aggressively changes such entries."""
    pair, grid = C.poisson_gaussian(F(1, 1000), F(1)), C.Grid(h=F(1, 2000), negligible_bits=75)
    cuts = C._cut_points(pair, grid)
    lo, hi = C._support(pair, grid)
    assert hi - cuts[-1] > 0.5  # trimmed

    def beyond(x: float) -> mpmath.mpf:
        up = sum(mpmath.mpf(float(w)) * mpmath.ncdf(-(x - float(c))) for w, c in pair.p)
        return max(up, mpmath.ncdf(-x))

    q4 = mpmath.mpf(2) ** -75 / 4  # floats place the cuts: about a quarter
    assert beyond(cuts[-1]) <= 1.01 * q4 < beyond(cuts[-1] - 0.05)
    neg = 2.0**-75

    def heavy(key: str) -> dict[int, float]:
        st = C._gauss_steps(pair, grid)[0]
        return {st.off + i: float(x.upper()) for i, x in enumerate(getattr(st, key))
                if x.upper() > neg}

    trimmed = {key: heavy(key) for key in ("upper", "low_p", "low_q")}
    real = C._carrying
    monkeypatch.setattr(C, "_carrying", lambda p, x, bits: np.ones(len(x), dtype=bool))
    for key, full in ((key, heavy(key)) for key in trimmed):
        assert full.keys() == trimmed[key].keys()
        assert all(abs(full[i] - trimmed[key][i]) <= 1e-10 * full[i] for i in full)
    monkeypatch.setattr(C, "_carrying", lambda p, x, bits: real(p, x, bits - 10))
    mutant = heavy("upper")
    assert mutant.keys() != trimmed["upper"].keys()


@pytest.mark.parametrize("pair", [
    C.poisson_gaussian(F(1, 1000), F(1)),
    C.mixture_gaussian(((0, F(1, 2)), (1, F(1, 3)), (3, F(1, 6))), F(3, 5), substitution=True),
])
def test_float_gauss_loss_and_slope_match_mpmath(pair: C.Pair) -> None:
    """`_gauss_loss` (floats: the cut rules' loss and Newton slope) against the loss
    log p/q and its derivative at 40 digits; the mutant that keeps one side's quadratic
    (a loss off by x²/2s²) is caught."""
    x = np.linspace(-6.0, 9.0, 61)
    loss, slope = C._gauss_loss(pair, x)
    s = _mp(float(pair.scale))

    def ref(comps: tuple[tuple[F, F], ...], t: mpmath.mpf) -> mpmath.mpf:
        return mpmath.log(sum(_mp(float(w)) * mpmath.exp(-((t - _mp(float(c))) ** 2) / (2 * s * s))
                              for w, c in comps))

    with mpmath.workdps(40):
        for xi, li, si in zip(x.tolist(), loss.tolist(), slope.tolist(), strict=True):
            t = _mp(xi)
            exact = ref(pair.p, t) - ref(pair.q, t)
            d = mpmath.diff(lambda u: ref(pair.p, u) - ref(pair.q, u), t)
            assert abs(li - exact) <= 1e-12 * (1 + abs(exact))
            assert abs(si - d) <= 1e-10 * (1 + abs(d))
            assert abs(li - xi * xi / (2 * float(pair.scale) ** 2) - exact) > 1e-6 or xi == 0
