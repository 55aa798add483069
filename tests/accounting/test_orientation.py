"""The orientation rule (accounting.orientation) and the symmetrised pair
(composition.Symmetrised), issue 26: under substitution the upper end composes a pair that
dominates both orders of every release (proofs/deployment_pairs.md#orientation)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from scipy import signal, stats

from verifydp.accounting import Grid, composed
from verifydp.accounting.composition import Revealed, Symmetrised, symmetrised
from verifydp.accounting.dominating import dominating_pairs
from verifydp.accounting.forms import bernoulli, law_pair, moved_pair

GRID = Grid(F(1, 250), 60)


def _two_fold_mixed(q: float, shift: float, scale: float, eps: float) -> float:
    """δ(ε) of (P ⊗ Q ‖ Q ⊗ P), P = (1−q)L(0) + qL(shift), Q = L(0), Laplace of scale b, by
    quadrature on a fine grid (the losses of the two coordinates add): the order flips at
    the second release, which a substitution allows (the displaced pair's a = 0, b = d)."""
    x = np.linspace(-40 * scale, 40 * scale + shift, 400_001)
    dx = x[1] - x[0]
    lap = stats.laplace(scale=scale)
    p = (1 - q) * lap.pdf(x) + q * lap.pdf(x - shift)
    qd = lap.pdf(x)
    loss1 = np.log(p) - np.log(qd)        # release 1: P against Q, x ~ P
    loss2 = np.log(qd) - np.log(p)        # release 2: Q against P, y ~ Q
    bins = np.linspace(-30, 30, 60_001)
    h1, _ = np.histogram(loss1, bins, weights=p * dx)
    h2, _ = np.histogram(loss2, bins, weights=qd * dx)
    centres = (bins[:-1] + bins[1:]) / 2
    conv = signal.fftconvolve(h1, h2)
    s = np.arange(len(conv)) * (bins[1] - bins[0]) + 2 * centres[0]
    return float((conv * np.clip(1 - np.exp(eps - s), 0, None)).sum())


def test_symmetrised_catches_the_flipped_order_that_separate_orders_miss() -> None:
    """srswor 2 of 3, Laplace b = C = 1, T = 2 (issue 26): composing (P, Q) and (Q, P)
    separately certifies δ(1) ≤ 0.30039, below the flipped sequence P⊗Q against Q⊗P
    (quadrature ≈ 0.3115); the symmetrised pair's upper end lies above it."""
    pair = law_pair(bernoulli(F(2, 3)), F(2), F(1), "laplace", "displaced")
    flipped = _two_fold_mixed(2 / 3, 2.0, 1.0, 1.0)
    separate = composed(pair, 2, GRID).delta(F(1))
    sym = composed(symmetrised(pair), 2, GRID).delta(F(1))
    assert float(separate.hi) < flipped - 1e-3  # the mutant (today's code before the fix)
    assert float(sym.hi) >= flipped
    assert sym.lo == 0  # a bound only: no lower end of its own


@pytest.mark.parametrize("kernel", ["gauss", "laplace"])
def test_one_release_agrees_with_the_larger_order(kernel: str) -> None:
    """At T = 1 the symmetrised pair's δ(ε ≥ 0) is the larger order's (its profile at
    γ ≥ 1 is their maximum), up to the lattice."""
    pair = law_pair(bernoulli(F(1, 3)), F(2), F(1), kernel, "displaced")
    plain, sym = composed(pair, 1, GRID), composed(symmetrised(pair), 1, GRID)
    for eps in (F(0), F(1, 4), F(1), F(2)):
        a, b = plain.delta(eps), sym.delta(eps)
        assert b.hi >= a.lo
        assert float(b.hi) <= float(a.hi) * 1.002 + 1e-12


def test_symmetrised_is_symmetric_and_dominates_both_orders_after_composition() -> None:
    """Composed T times, S^T lies above both orders of (P, Q)^T and is symmetric (one
    vector serves both orders)."""
    pair = moved_pair(F(1, 4), F(1, 2), F(2), F(1), "gauss")
    plain = composed(pair, 3, GRID)
    c = composed(symmetrised(pair), 3, GRID)
    assert c.upper[0] is c.upper[1]
    for eps in (F(0), F(1, 2), F(3, 2)):
        assert c.delta(eps).hi >= max(b.lo for b in plain.directions(eps))


def test_revealed_mixtures_are_symmetrised_branch_by_branch() -> None:
    a = law_pair(bernoulli(F(1, 2)), F(2), F(1), "gauss", "displaced")
    b = law_pair(bernoulli(F(1, 5)), F(2), F(1), "gauss", "displaced")
    s = symmetrised(Revealed(((F(1, 2), a), (F(1, 2), b))))
    assert isinstance(s, Revealed)
    assert all(isinstance(x, Symmetrised) for _, x in s.branches)


def _pairs(kind: str, mechanism: str, add_remove: bool, **kw: object):  # type: ignore[no-untyped-def]
    params = kw.pop("params")
    return dominating_pairs(kind, params, 100, mechanism, "sum", F(1), F(2), F(1),  # type: ignore[arg-type]
                            add_remove, **kw)  # type: ignore[arg-type]


def test_the_rule() -> None:
    """Add/remove: as derived. Substitution: displaced symmetrised; Gaussian swapped and
    moved as they are; Laplace swapped and moved widened (displaced at shift s + s′)."""
    (d,) = _pairs("srswor", "gaussian", True, params={"m": 10})
    assert d.upper is None and d.upper_pair is d.pair
    (d,) = _pairs("srswor", "gaussian", False, params={"m": 10})
    assert isinstance(d.upper_pair, Symmetrised) and d.upper_pair.inner == d.pair
    (d,) = _pairs("poisson", "gaussian", False, params={"q": F(1, 10)})
    assert d.upper is None
    (d,) = _pairs("poisson", "laplace", False, params={"q": F(1, 10)})
    assert isinstance(d.upper_pair, Symmetrised)
    assert max(c for _, c in d.upper_pair.inner.p) == 2  # shift 2C
    strata = {"a": 50, "b": 50}
    cands = _pairs("stratified-fixed", "laplace", False, params={"sizes": {"a": 5, "b": 10}},
                   strata_sizes=strata)
    moved = [d for d in cands if d.form == "moved"]
    assert moved and all(isinstance(d.upper_pair, Symmetrised) for d in moved)
    assert all(max(c for _, c in d.upper_pair.inner.p) == 4 for d in moved)  # d_h + d_g
    cands = _pairs("stratified-fixed", "gaussian", False, params={"sizes": {"a": 5, "b": 10}},
                   strata_sizes=strata)
    assert all(d.upper is None for d in cands if d.form == "moved")


def test_a_widened_pair_at_rate_one_is_the_shift_pair() -> None:
    """Stratified proportional allocation, a record moved between strata of 3 and 2 with
    r = 1/2 under the discrete Gaussian: a side sampled in full widens to rate 1, i.e. the
    shift pair, which is its own mirror image; symmetrising it would leave a loss-0 atom of
    exactly 0, which no enclosure certifies (the composition oracle's full sweep crashed
    the audit there)."""
    cands = dominating_pairs("stratified-proportional", {"r": F(1, 2), "rounding": "randomised"},
                             5, "discrete-gaussian", "sum", F(1), F(2), F(1), False,
                             {"a": 3, "b": 2})
    for d in cands:
        composed(d.upper_pair, 2, GRID).delta(F(1))  # no ArithmeticError
    moved = next(d for d in cands if d.form == "moved")
    assert isinstance(moved.upper_pair, Revealed)
    leaves = [b for _, b in moved.upper_pair.branches]
    assert any(not isinstance(b, Symmetrised) and "widened" in b.name for b in leaves)
