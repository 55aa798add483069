"""Vector interval arithmetic (`verifydp.exact.vecint`): outward rounding reaches the
neighbouring floats, exp and log enclose mpmath's values at 40 digits, and a mutant without
the outward step is caught."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from verifydp.exact import vecint as V


def _mp(x: float) -> mpmath.mpf:
    return mpmath.mpf(float(x))


def _encloses(lo: np.ndarray, hi: np.ndarray, exact: list[mpmath.mpf]) -> bool:
    return all(_mp(a) <= e <= _mp(b) for a, b, e in zip(lo, hi, exact, strict=True))


def test_outward_rounding_reaches_the_neighbouring_floats() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(20000) * 10.0 ** rng.integers(-320, 300, 20000)
    x = np.concatenate((x, [0.0, 5e-324, -5e-324, 1.0, -1.0, 2.0, 0.5, 2.2250738585072014e-308,
                            np.nextafter(2.0, 0.0), -np.nextafter(2.0, 0.0)]))
    assert np.all(V.rup(x) >= np.nextafter(x, np.inf))
    assert np.all(V.rdn(x) <= np.nextafter(x, -np.inf))
    assert np.all(V.rup(x) <= np.nextafter(np.nextafter(np.nextafter(x, np.inf), np.inf), np.inf))


def test_exp_and_log_enclose_the_exact_values() -> None:
    rng = np.random.default_rng(1)
    y = np.concatenate((rng.uniform(-700, 700, 300), rng.uniform(-1, 1, 300),
                        [0.0, 1e-300, -1e-300, 709.0, -745.0, np.log(2)]))
    with mpmath.workdps(40):
        lo, hi = V.exp_points(y)
        assert _encloses(lo, hi, [mpmath.exp(_mp(v)) for v in y])
        m = np.abs(y) < 700  # tight: the reduction y − n·ln2 errs by about |y|·2^-52
        assert np.all(hi[m] - lo[m] <= lo[m] * (np.abs(y[m]) + 1) * 1e-14)
        v = np.concatenate((10.0 ** rng.uniform(-300, 300, 300), rng.uniform(0.5, 2, 300),
                            [1.0, 2.0, 0.7071067811865476, 5e-324, 1.7976931348623157e308]))
        lo, hi = V.log_points(v)
        assert _encloses(lo, hi, [mpmath.log(_mp(t)) for t in v])
        assert np.all(hi - lo <= 1e-14 * np.maximum(np.abs(lo), 1e-3))


def test_without_outward_rounding_the_enclosures_fail(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A mutant that rounds to nearest only (no outward step) leaves "enclosures" that miss
    the exact value: the outward rounding is what makes them rigorous."""
    monkeypatch.setattr(V, "rup", lambda x: x)
    monkeypatch.setattr(V, "rdn", lambda x: x)
    y = np.random.default_rng(2).uniform(-50, 50, 400)
    with mpmath.workdps(40):
        lo, hi = V.exp_points(y)
        assert not _encloses(lo, hi, [mpmath.exp(_mp(v)) for v in y])


@pytest.mark.parametrize("c, d, n", [(-3.2, 0.0173, 2000), (12.5, -0.41, 1500),
                                     (-650.0, 0.9, 700), (0.0, 1e-9, 5)])
def test_exp_affine_encloses_the_geometric_sequence(c: float, d: float, n: int) -> None:
    """e^{c + m·d} for m < n against mpmath at 40 digits: enclosed, and tight
    to (|c| + n|d| + 1)·2e-14 relatively (`exp_points`' accuracy on the two factors'
    exponents); the midpoint alone misses the exact value somewhere, so the outward ends
    are what encloses it."""
    lo, hi = V.exp_affine((c, c), (d, d), n)
    with mpmath.workdps(40):
        exact = [mpmath.exp(_mp(c) + m * _mp(d)) for m in range(n)]
        assert _encloses(lo, hi, exact)
        assert np.all(hi - lo <= lo * (abs(c) + n * abs(d) + 1) * 2e-14)
        mid = (lo + hi) / 2
        assert not all(_mp(x) >= e for x, e in zip(mid, exact, strict=True)) or \
            not all(_mp(x) <= e for x, e in zip(mid, exact, strict=True))


def test_exp_affine_declines_exponents_beyond_700() -> None:
    assert V.exp_affine((650.0, 650.0), (1.0, 1.0), 100) is None


def test_total_encloses_the_exact_sum_of_any_signs() -> None:
    """`total`: Σ over intervals of any sign, the exact rational sum of the ends inside; a
    cancelling triple (1e16, 1, −1e16) sums to 0 in floats, 1 exactly, and is enclosed;
    2^17 masses summing to 1 are enclosed within a few ulps (complements 1 − Σ read them:
    a margin of n·u·Σ|x|, 3·10^-11 here, is too wide)."""
    from fractions import Fraction

    rng = np.random.default_rng(11)
    for n in (1, 7, 1000, 20000):
        lo = rng.normal(size=n) * 10.0 ** rng.integers(-20, 20, size=n)
        hi = lo + np.abs(rng.normal(size=n)) * 1e-12 * np.abs(lo)
        a, b = V.total((lo, hi))
        exact_lo = sum((Fraction(x) for x in lo.tolist()), Fraction(0))
        exact_hi = sum((Fraction(x) for x in hi.tolist()), Fraction(0))
        assert Fraction(a) <= exact_lo and exact_hi <= Fraction(b)
    x = np.array([1e16, 1.0, -1e16])
    assert float(x.sum()) != 1.0  # the float sum alone misses the exact 1
    a, b = V.total((x, x))
    assert a <= 1.0 <= b and b - a < 1e3
    assert V.total((np.zeros(0), np.zeros(0))) == (0.0, 0.0)
    masses = rng.random(2**17)
    masses /= masses.sum()
    a, b = V.total((masses, masses))
    exact = sum((Fraction(x) for x in masses.tolist()), Fraction(0))
    assert Fraction(a) <= exact <= Fraction(b) and b - a <= 1e-15
