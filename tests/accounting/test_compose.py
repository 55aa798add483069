"""The certified accountant (`verifydp.accounting.compose`, issue 15) against exact values,
peers, refinement, and mutants that drop a term."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as F

import mpmath
import pytest

from tests.shared import CELL_GROUP, true_cell_masses
from verifydp.accounting import composition as C
from verifydp.exact import barith, special


def exact_gaussian_delta(mu: F, eps: F) -> tuple[F, F]:
    """Theorem 1 of Zhao & Liu (the Gaussian privacy profile) with θ = μ: the k-fold
    composition of N(1, σ²) vs N(0, σ²) is N(μ, 1) vs N(0, 1) with μ = √k/σ, and
    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), bracketed with the package's rigorous Φ."""
    d = barith.sub(special.ncdf(mu / 2 - eps / mu),
                   barith.mul(special.exp(eps), special.ncdf(-mu / 2 - eps / mu)))
    return d.lo, d.hi


def exact_gaussian_epsilon(mu: int, delta: F, start: float) -> F:
    """ε(δ) of the same profile to 35 digits (mpmath at 40), the root found from `start`."""
    with mpmath.workdps(40):
        m = mpmath.mpf(mu)
        tgt = mpmath.mpf(delta.numerator) / delta.denominator
        root = mpmath.findroot(lambda e: mpmath.ncdf(m / 2 - e / m)
                               - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m) - tgt, start)
        return F(mpmath.nstr(root, 35))


@pytest.mark.parametrize("sigma,k,eps", [(F(2), 16, F(1)), (F(1), 4, F(1, 2)),
                                         (F(3, 2), 9, F(2)), (F(1, 2), 1, F(3))])
def test_plain_gaussian_contains_the_exact_delta(sigma: F, k: int, eps: F) -> None:
    lo, hi = exact_gaussian_delta(F(int(k**0.5)) / sigma, eps)
    b = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=eps, grid=C.Grid(h=F(1, 200)))
    assert b.lo <= lo and hi <= b.hi
    assert b.width <= b.hi / 500  # and it is tight


def test_epsilon_of_delta_contains_the_exact_epsilon() -> None:
    mu = F(2)  # k = 16, σ = 2
    target = F(1, 10**3)
    exact = exact_gaussian_epsilon(2, target, 4)
    b = C.compose(C.poisson_gaussian(F(1), F(2)), 16, delta=target, grid=C.Grid(h=F(1, 200)))
    assert b.lo <= exact <= b.hi
    assert b.width < F(1, 100)
    assert exact_gaussian_delta(mu, b.hi)[1] <= target  # the upper end is a valid ε


def test_brackets_shrink_and_nest_as_the_grid_refines() -> None:
    pair = C.poisson_gaussian(F(1, 10), F(1))
    coarse, mid, fine = (C.compose(pair, 50, epsilon=F(1, 2), grid=C.Grid(h=F(1, n)))
                         for n in (100, 200, 400))
    for a, b in ((coarse, mid), (mid, fine)):
        assert a.lo <= b.lo <= b.hi <= a.hi
        assert b.width < a.width / 2


def test_a_mutant_that_drops_the_infinite_tail_is_caught(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With a short output range (z = 2) much P-mass lies beyond the last cut; the upper
    bound must count it at +∞. Dropping that term makes the bracket miss the exact value."""
    sigma, k, eps = F(2), 16, F(1)
    lo, hi = exact_gaussian_delta(F(4) / sigma, eps)
    grid = C.Grid(h=F(1, 200), z=2)
    ok = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=eps, grid=grid)
    assert ok.lo <= lo and hi <= ok.hi
    real = C._Step

    def no_tail(*args, **kw):  # type: ignore[no-untyped-def]
        s = real(*args, **kw)
        return dataclasses.replace(s, upper_inf=C.flint.arb(0))

    monkeypatch.setattr(C, "_Step", no_tail)
    # caught: either the "upper bound" falls below the true δ, or below the certified lower
    # bound, which the accountant refuses as inconsistent
    try:
        bad = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=eps, grid=grid)
    except ArithmeticError:
        return
    assert bad.hi < lo


def test_a_mutant_that_drops_the_tail_q_mass_is_caught(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The lower bound's test must count the Q-mass beyond the last cut. A mutant that
    forgets it (with a short output range, z = 1, where that mass is large) makes the
    "lower bound" exceed the true δ."""
    sigma, k, eps = F(2), 16, F(1)
    lo, hi = exact_gaussian_delta(F(4) / sigma, eps)
    grid = C.Grid(h=F(1, 200), z=1)
    ok = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=eps, grid=grid)
    assert ok.lo <= lo and hi <= ok.hi
    real = C._mass
    calls = []

    def forgetful(comps, n_cuts, reach):  # type: ignore[no-untyped-def]
        cells, below, above = real(comps, n_cuts, reach)
        calls.append(1)
        if len(calls) % 2 == 0:  # the Q side
            return cells, C.flint.arb(0), C.flint.arb(0)
        return cells, below, above

    monkeypatch.setattr(C, "_mass", forgetful)
    try:
        bad = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=eps, grid=grid)
    except ArithmeticError:
        return
    assert bad.lo > hi


def test_fixed_size_and_law_of_k_against_numerical_integration() -> None:
    """k = 1: the δ of the substitution pair equals the hockey-stick integral, computed here
    independently by mpmath quadrature at 30 digits."""
    q, sigma, eps = F(1, 4), F(1), F(1, 2)
    b = C.compose(C.fixed_size_gaussian(q, sigma), 1, epsilon=eps, grid=C.Grid(h=F(1, 400)))
    with mpmath.workdps(30):
        qq, s, e = mpmath.mpf(1) / 4, mpmath.mpf(1), mpmath.mpf(1) / 2

        def dens(x, c):  # type: ignore[no-untyped-def]
            return mpmath.npdf(x, c, s)

        def f(x):  # type: ignore[no-untyped-def]
            p = (1 - qq) * dens(x, 0) + qq * dens(x, 1)
            r = (1 - qq) * dens(x, 0) + qq * dens(x, -1)
            return p - mpmath.exp(e) * r

        # the loss is increasing: p − e^ε q > 0 exactly right of its root
        ref = mpmath.quad(f, [mpmath.findroot(f, 1), mpmath.inf])
    assert b.lo <= F(mpmath.nstr(ref, 28)) * (1 + F(1, 10**12)) and F(mpmath.nstr(ref, 28)) <= b.hi * (1 + F(1, 10**12))


def test_laplace_single_release_is_exact_within_the_bracket() -> None:
    """Laplace(b) on a sensitivity-1 query: δ(ε) = 1 − e^{(ε − 1/b)/2} for ε < 1/b."""
    b_, eps = F(1, 2), F(1)
    br = C.compose(C.laplace(b_), 1, epsilon=eps, grid=C.Grid(h=F(1, 400)))
    e = special.exp((eps - 1 / b_) / 2)
    assert br.lo <= 1 - e.hi and 1 - e.lo <= br.hi


def test_a_small_subsampled_laplace_loss_over_many_steps() -> None:
    """Laplace b = 20 at q = 1/100: one step's loss is below 10^-3, under the default lattice
    step, and a tail cut at 12 scales would leave e^-12/2 of P-mass per step at +∞ (δ ≥ 3e-3
    for every ε after 1000 steps). The bracket must be 1 % wide and agree with dp-accounting's
    pessimistic (an upper bound) and optimistic (a lower bound) PLDs."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    b = C.compose(C.laplace(F(20), F(1, 100)), 1000, epsilon=F(1, 20), rtol=F(1, 100))
    assert b.width <= b.hi / 100
    for pessimistic in (True, False):
        d = pld.from_laplace_mechanism(20.0, sampling_prob=0.01, pessimistic_estimate=pessimistic,
                                       value_discretization_interval=1e-4).self_compose(1000)
        val = F(d.get_delta_for_epsilon(0.05))
        assert b.lo <= val if pessimistic else val <= b.hi


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        C.poisson_gaussian(F(0), F(1))
    with pytest.raises(ValueError):
        C.compose(C.poisson_gaussian(F(1, 2), F(1)), 0, epsilon=F(1))
    with pytest.raises(ValueError):
        C.compose(C.poisson_gaussian(F(1, 2), F(1)), 3)
    with pytest.raises(ValueError):
        C.compose(C.poisson_gaussian(F(1, 2), F(1)), 3, delta=F(2))


def test_peers_fall_inside_the_certified_bracket() -> None:
    """dp-accounting's PLD and prv-accountant at the issue's setting (q = 0.01, σ = 1,
    k = 1000, ε = 1) lie inside the certified bracket."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    prv = pytest.importorskip("prv_accountant")
    b = C.compose(C.poisson_gaussian(F(1, 100), F(1)), 1000, epsilon=F(1))
    d = pld.from_gaussian_mechanism(1.0, sampling_prob=0.01,
                                    value_discretization_interval=1e-4).self_compose(1000)
    val = F(d.get_delta_for_epsilon(1.0))
    assert b.lo <= val <= b.hi
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = prv.PRVAccountant([PoissonSubsampledGaussianMechanism(0.01, 1.0)], eps_error=0.01,
                            delta_error=1e-10, max_self_compositions=[1000])
    d_lo, _, d_hi = acc.compute_delta(1.0, [1000])
    assert F(d_lo) <= b.hi and b.lo <= F(d_hi)  # prv's own interval overlaps ours
    assert b.width / b.hi <= F(1, 100)


def test_windows_follow_the_bulk_over_many_steps() -> None:
    """Issue 16: at q = 256/60000, σ = 1.1, 10^4 steps the float mean placing the windows
    was biased by −h/2 per step (cells' lower ends), the windows drifted off the bulk and
    about 4 % of P-mass went to +∞ (δ(1) ≤ 0.043 only). With cell midpoints δ(1) is pinned."""
    c = C.composed(C.poisson_gaussian(F(256, 60000), F(11, 10)), 10_000)
    b = c.delta(F(1))
    assert b.hi < F(7, 1000) and b.lo > F(4, 1000)


def test_delta_direction_is_one_order() -> None:
    """Issue 16: `Composed.delta_direction` brackets one order; the two orders differ for a
    subsampled pair (remove vs add), and `delta` is their maximum. A swapped order (mutant)
    would put the add direction's bracket above the remove direction's at large ε."""
    c = C.composed(C.poisson_gaussian(F(1, 10), F(1)), 4)
    for eps in (F(1, 2), F(2)):
        fwd, rev = c.delta_direction(eps, 0), c.delta_direction(eps, 1)
        both = c.delta(eps)
        assert both.hi == max(fwd.hi, rev.hi)
        assert fwd.lo <= both.hi and rev.lo <= both.hi
    # remove (P‖Q: the record may add a large loss) dominates add at large ε
    assert c.delta_direction(F(2), 1).hi < c.delta_direction(F(2), 0).lo


def test_the_tolerance_driven_cut_keeps_the_bracket() -> None:
    """`compose(rtol=…)` cuts masses far below the tolerated width (`_cut_bits`): fewer bits
    than the default, the plain Gaussian's exact δ still inside, the default-cut bracket on
    the same lattice reproduced to a tenth of rtol; ε(δ) mode likewise cuts."""
    pair, k, eps, rtol = C.poisson_gaussian(F(1), F(4)), 64, F(1), F(1, 100)
    lo, hi = exact_gaussian_delta(F(8) / F(4), eps)
    bits = C._cut_bits(k, C.Grid(), float(lo), float(eps), rtol)
    assert C._MIN_CUT_BITS <= bits < C.Grid().negligible_bits
    cut = C.composed(pair, k, C.Grid(negligible_bits=bits)).delta(eps)
    full = C.composed(pair, k).delta(eps)
    assert cut.lo <= lo and hi <= cut.hi
    assert abs(cut.lo - full.lo) <= rtol / 10 * full.hi
    assert abs(cut.hi - full.hi) <= rtol / 10 * full.hi
    assert C._cut_bits(k, C.Grid(), 1e-5, 1.0, rtol) < C.Grid().negligible_bits
    assert C._cut_bits(k, C.Grid(), 0.0, 1.0, rtol) == C.Grid().negligible_bits


def test_rtol_meets_the_tolerance_and_contains_the_exact_delta() -> None:
    """`compose(epsilon=…, rtol=…)` chooses its own lattices (probe, O(h²) law, directions
    dropped once certified irrelevant): whatever it picks, the bracket contains the exact δ
    of the plain Gaussian and meets rtol."""
    for sigma, k in ((F(4), 64), (F(2), 16), (F(8), 1024)):
        theta = F(math.isqrt(k)) / sigma if math.isqrt(k) ** 2 == k else None
        b = C.compose(C.poisson_gaussian(F(1), sigma), k, epsilon=F(1), rtol=F(1, 100))
        assert b.hi - b.lo <= F(1, 100) * b.hi
        if theta is not None:
            lo, hi = exact_gaussian_delta(theta, F(1))
            assert b.lo <= lo and hi <= b.hi


def _true_cell_masses(pair: C.Pair, cuts: list[float]) -> tuple[mpmath.mpf, ...]:
    """Σ_j w_j (Φ((x_{i+1} − c_j)/s) − Φ((x_i − c_j)/s)) at 40 digits, every cell (once per
    process for the pair and cuts: tests/shared.py)."""
    return true_cell_masses(tuple(pair.p), pair.scale, tuple(float(x) for x in cuts))


def _contains(ball: C.flint.arb, x: mpmath.mpf) -> bool:
    return float(ball.lower()) <= float(x) * (1 + 1e-12) and float(x) * (1 - 1e-12) <= float(ball.upper())


@pytest.mark.xdist_group(CELL_GROUP)  # the masses shared with test_vector_cells.py
@pytest.mark.parametrize("drop_bounds", [False, True])
def test_cell_masses_outside_a_components_reach_are_still_enclosed(drop_bounds, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each component is evaluated only at the cuts of its reach (`_reaches`); every other
    cell gets an unknown share bounded by the component's tail. Two components 30 scales apart
    with a short reach (small cut) leave cells in the middle out of reach of both: the
    enclosures must still contain the true masses (mpmath, 40 digits). A mutant that drops the
    tail bounds leaves those cells at 0 and is caught."""
    pair = C.mixture_gaussian(((0, F(1, 2)), (30, F(1, 2))), F(1), substitution=True)
    grid = C.Grid(h=F(1, 2), negligible_bits=4)
    cuts = C._cut_points(pair, grid)
    reach = C._reaches(pair, cuts, grid)
    assert any(r.j0 > 0 or r.j1 < len(cuts) - 1 for r in reach.values())
    if drop_bounds:
        monkeypatch.setattr(C, "_up_to", lambda x: C.flint.arb(0))
    cells, _, _ = C._mass(pair.p, len(cuts), reach)
    truth = _true_cell_masses(pair, cuts)
    ok = all(_contains(b, t) for b, t in zip(cells, truth, strict=True))
    assert ok != drop_bounds


def test_log_densities_of_integer_centres_enclose_the_loss() -> None:
    """The polynomial route (`_log_polynomial`, integer centres) and the generic route both
    enclose the privacy loss log p(x)/q(x) computed by mpmath at 40 digits; the polynomial
    route's shift u^{c_min} matters (Q's centres are negative here)."""
    law = ((0, F(1, 3)), (1, F(1, 3)), (4, F(1, 3)))
    pair = C.mixture_gaussian(law, F(1, 2), substitution=True)
    xs_f = [-3.25, -1.0, 0.0, 0.375, 2.5, 5.125]
    xs = [C.flint.arb(x) for x in xs_f]

    def loss(x: float) -> mpmath.mpf:
        with mpmath.workdps(40):
            def dens(comps: tuple[tuple[F, F], ...]) -> mpmath.mpf:
                return sum(mpmath.mpf(w.numerator) / w.denominator
                           * mpmath.npdf(x, mpmath.mpf(c.numerator) / c.denominator, 0.5)
                           for w, c in comps)
            return mpmath.log(dens(pair.p) / dens(pair.q))

    poly = [a - b for a, b in zip(C._log_densities(pair, pair.p, xs),
                                  C._log_densities(pair, pair.q, xs), strict=True)]
    generic = [a - b for a, b in zip(
        [sum(((lw + a * x + b).exp() for lw, a, b in C._exponents(pair, pair.p)),
             C.flint.arb(0)).log() for x in xs],
        [sum(((lw + a * x + b).exp() for lw, a, b in C._exponents(pair, pair.q)),
             C.flint.arb(0)).log() for x in xs], strict=True)]
    for x, p, g in zip(xs_f, poly, generic, strict=True):
        t = float(loss(x))
        assert float(p.lower()) - 1e-12 <= t <= float(p.upper()) + 1e-12
        assert float(g.lower()) - 1e-12 <= t <= float(g.upper()) + 1e-12
        assert p.rad() < 1e-9


def test_a_symmetrised_pair_gets_a_lattice_from_its_tolerance() -> None:
    """compose(…, rtol=…) on a symmetrised pair (the substitution upper end): the lattice is
    chosen from the inner pair's loss spread (it raised AttributeError before), and the
    bracket is the inner pair's larger order's at ε ≥ 0 for one release.

    One refinement, not the default three (issue 29: 17 s → 3.5 s of CPU): the symmetrised
    pair's lower end is 0, so no lattice meets the tolerance and every refinement is spent;
    the first lattice (from the tolerance) and one refinement of it are what is checked."""
    inner = C.poisson_gaussian(F(1, 100), F(1))
    sym = C.Symmetrised(inner)
    b = C.compose(sym, 1, epsilon=F(1, 2), rtol=F(1, 2), max_refinements=1)
    both = C.compose(inner, 1, epsilon=F(1, 2), rtol=F(1, 100))
    assert both.lo <= b.hi and b.hi <= both.hi * F(11, 10)


@pytest.mark.parametrize("target", [None, 1.0])
def test_upper_end_from_suffix_sums_matches_the_cellwise_sum(target: float | None) -> None:
    """`_upper` (Σ c_i − e^ε Σ c_i e^{−s_i} over the cells above ε, one ball polynomial)
    against the cell-by-cell sum Σ c_i (1 − e^{ε−s_i})_+ at 200 bits, for ε on a lattice
    point, just above and below one, in the bulk and far in the tail: never below it (sound)
    and within 1e-9 of it. A mutant that starts one cell late (drops the first cell above ε)
    is caught."""
    import flint

    from verifydp.exact.arb import ball

    pair = C.poisson_gaussian(F(1, 20), F(1))
    grid = C.Grid(h=F(1, 200))
    comp = C.composed(pair, 40, grid, target=target)
    up = comp.upper[0]
    assert up is not None
    suffix = C._suffix(up, grid.h)
    h = grid.h
    eps_list = [F(1), F(1) + F(1, 10**9), F(1) - F(1, 10**9), F(1, 3), F(3), F(6)]
    old = flint.ctx.prec
    for eps in eps_list:
        got = C._upper(up, eps, h, suffix)
        flint.ctx.prec = 200
        try:
            ea, ha = ball(eps), ball(h)
            ref = up.out + sum((c * (1 - (ea - ha * (up.off + i)).exp())
                                for i, c in enumerate(up.c) if h * (up.off + i) > eps),
                               flint.arb(0))
        finally:
            flint.ctx.prec = old
        assert ball(got) >= ref.lower()
        assert abs(ball(got) - ref) <= ref * 1e-9 + flint.arb(2) ** -1000
        start = max(0, math.floor(eps / h) + 1 - up.off)
        if start + 1 < len(up.c) and up.c[start] > 0:
            mass, tilt = suffix.at(start + 1)
            late = up.out + mass - flint.arb(ea.mid()).exp() * tilt
            assert late.upper() < ref.lower()  # the mutant is below the true sum: unsound


def test_epsilon_of_delta_after_many_steps_tilts_to_the_saddle_guess() -> None:
    """`compose(delta=…, rtol=…)` after ≥ 100 steps composes by tilted FFT at the saddle
    point's ε estimate (`_saddle_eps`): the plain Gaussian's exact ε (k = 400, σ = 20: μ = 1)
    inside, within 1 %, and the guess within a tenth of it; a Poisson-subsampled case agrees
    with the δ(ε) path's certified brackets at both ends (δ(ε_hi) may not exceed δ, δ(ε_lo)
    may not fall below it)."""
    target = F(1, 10**5)
    exact = exact_gaussian_epsilon(1, target, 3)
    plain = C.poisson_gaussian(F(1), F(20))
    guess = C._saddle_eps(plain, 400, float(target))
    assert guess is not None and abs(guess - float(exact)) <= 0.1 * float(exact)
    b = C.compose(plain, 400, delta=target, rtol=F(1, 100))
    assert b.lo <= exact <= b.hi and b.width <= b.hi / 100
    sub = C.poisson_gaussian(F(1, 100), F(1))
    e = C.compose(sub, 1000, delta=target, rtol=F(1, 100))
    assert e.width <= e.hi / 100
    assert C.compose(sub, 1000, epsilon=e.hi, rtol=F(1, 100)).lo <= target
    assert C.compose(sub, 1000, epsilon=e.lo, rtol=F(1, 100)).hi >= target
    assert C._saddle_eps(C.poisson_gaussian(F(1, 100), F(1)), 100, 1.5) is None


def test_float_suffix_sums_enclose_the_arb_sums() -> None:
    """`_float_suffixes` (an FFT power's δ upper end at every ε) against arb suffix sums at
    200 bits, every j; the mutant without the cumulative sums' growth factor falls on both
    sides of them."""
    import flint
    import numpy as np

    rng = np.random.default_rng(9)
    c = rng.random(2000) * 1e-3
    c[::7] *= 1e-9
    ha = flint.arb(F(1, 300).numerator) / F(1, 300).denominator
    got = C._float_suffixes((c, c.copy()), ha)
    assert got is not None
    m_lo, m_hi, t_lo, t_hi = got
    plain = np.cumsum(c[::-1])[::-1]  # the mutant: float suffix sums without the growth factor
    below = above = 0
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        r = (-ha).exp()
        mass, tilt = flint.arb(0), flint.arb(0)
        for j in range(len(c) - 1, -1, -1):
            mass = mass + flint.arb(float(c[j]))
            tilt = tilt + flint.arb(float(c[j])) * r**j
            assert flint.arb(m_lo[j]) <= mass <= flint.arb(m_hi[j])
            assert flint.arb(t_lo[j]) <= tilt <= flint.arb(t_hi[j])
            assert m_hi[j] - m_lo[j] <= 1e-9 * float(mass.mid())
            below += bool(flint.arb(float(plain[j])) < mass)
            above += bool(flint.arb(float(plain[j])) > mass)
    finally:
        flint.ctx.prec = old
    assert below and above  # neither side of the plain float sums is a bound


def test_refinement_stops_when_a_finer_lattice_moves_neither_end(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """At δ ≈ 10⁻¹⁹ (q = 1/1000, σ = 2, k = 1000, ε = 1) the cut holds both ends: the first
    real lattice repeats the last probe's bracket, so no finer lattice is composed (there
    were three more, 2 s, for the same bracket); the saddle point estimate of δ (floats)
    lies below its upper end."""
    calls: list[F] = []
    real = C.composed

    def counting(pair, steps, grid, *a, **kw):  # type: ignore[no-untyped-def]
        calls.append(grid.h)
        return real(pair, steps, grid, *a, **kw)

    monkeypatch.setattr(C, "composed", counting)
    pair = C.poisson_gaussian(F(1, 1000), F(2))
    b = C.compose(pair, 1000, epsilon=F(1), rtol=F(1, 100))
    assert b.lo == 0 and 0 < b.hi < F(1, 10**18)
    assert len(calls) <= 3
    lo, hi = C._support(pair, C.Grid())
    import numpy as np
    xs = np.linspace(lo, hi, C._PLAN_POINTS)
    lp, lq = C._float_logpdf(pair, pair.p, xs), C._float_logpdf(pair, pair.q, xs)
    est = C._saddle(lp, lp - lq, 1000, 1.0)
    assert est is not None and est[1] <= float(b.hi)
