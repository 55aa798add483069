"""The FFT path's float step vectors (`composition._fvec`, `_fwindow`, the cells' `floats`):
each float interval overlaps its ball and is no wider where the cells were computed in
floats, the windows move the cut masses exactly as the ball windows do (`_window`), and
the mutant window that drops the mass below instead of moving it up is caught."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import numpy as np
import pytest

from verifydp.accounting import composition as C


@pytest.mark.parametrize("pair", [C.poisson_gaussian(F(1, 100), F(1)),
                                  C.fixed_size_gaussian(F(1, 50), F(3, 5))])
def test_cell_floats_sit_inside_their_balls(pair: C.Pair) -> None:
    both = C._steps_of(pair, C.Grid(h=F(1, 300)))
    for d in (0, 1):
        st = both[d]
        assert st.floats is not None
        for key, (lo, hi) in zip(("upper", "low_p", "low_q"), st.floats, strict=True):
            balls = getattr(st, key)
            assert len(balls) == len(lo) == len(hi)
            for b, a, c in zip(balls, lo.tolist(), hi.tolist(), strict=True):
                # both enclose the mass: they overlap, and the floats are as tight
                assert a <= c and b.overlaps(flint.arb(a).union(flint.arb(c)))
                assert c - a <= 2 * float(b.rad()) + 4 * abs(c) * 2.0**-52


def _vec(rng: np.random.Generator, n: int) -> list[flint.arb]:
    head = np.array([3e-31, 4e-31, 5e-31])  # below the negligible 2^-100, cut
    mass = np.concatenate((head, [2e-30], rng.random(n - 8), [2e-30], head))
    return [flint.arb(float(m), float(m) * 1e-9) for m in mass]


@pytest.mark.parametrize("upper", [True, False])
def test_float_window_moves_the_masses_as_the_ball_window(upper: bool) -> None:
    rng = np.random.default_rng(7)
    c = _vec(rng, 40)
    step = C._Step(c, flint.arb(0.25), c, c, -5, 0.0, 0.0, 1.0, 0.0, 0.0)
    negligible = 2.0**-100
    ball = C._window(C._Vec(list(c), -5, flint.arb(0.25) if upper else flint.arb(0)),
                     -(10**9), 10**9, upper, flint.arb(negligible))
    key = "upper" if upper else "low_p"
    fl = C._fwindow(C._fvec(step, key), upper, negligible)
    assert fl.off == ball.off and len(fl.hi) == len(ball.c) == 34

    def near(x: float, y: flint.arb) -> bool:  # a float sum of the balls' ends
        return abs(x - float(y.upper())) <= 1e-12 * float(y.upper())

    assert all(near(h, b) for h, b in zip(fl.hi.tolist(), ball.c, strict=True))
    assert near(float(fl.out.upper()), ball.out)
    if upper:  # the mass below is rounded up to the window's bottom, not dropped
        dropped = C._FVec(fl.lo, np.concatenate(([C._fvec(step, key).hi[3]], fl.hi[1:])),
                          fl.off, fl.out)
        assert not near(float(dropped.hi[0]), ball.c[0])


def test_mirrored_float_vector() -> None:
    c = [flint.arb(x) for x in (0.5, 0.25, 0.25)]
    step = C._Step(c, flint.arb(0), c, c, 2, 0.0, 0.0, 1.0, 0.0, 0.0)
    v = C._fvec(step, "low_q", mirror=True)
    assert v.off == -4 and v.hi.tolist() == [0.25, 0.25, 0.5]
