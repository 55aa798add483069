"""Independent pairs released together (`composition.Product`) and the binomial count pair
(`atoms.BinomialPair`), against values computed here independently of the engine: exact
`Fraction` binomial pmfs (math.comb) and mpmath at 50 digits (Gaussian tails by
`mpmath.ncdf`), never the engine's own atoms, cells or lattice code.

Why each check matters:

* the certified atoms must contain the true pmf of every count and be in loss order, or
  every bracket built on them is unsound (the composition trusts both);
* the product of parts must contain the exact δ of the joint pair in *both* orders, alone and
  composed: a product composes like a step, so a wrong convolution or a wrong reverse order
  would show here first;
* mutants (a part dropped, a rate changed) must be caught, so the oracle comparisons above
  have teeth.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction as F

import flint
import mpmath
import pytest

from verifydp.accounting.atoms import Atoms, BinomialPair, binomial_atoms
from verifydp.accounting.composition import (
    Composed,
    Grid,
    Pair,
    Product,
    Revealed,
    compose,
    composed,
)
from verifydp.accounting.forms import law_pair
from verifydp.exact.interval import Bracket

DPS = 50
# The oracles are exact (Fractions) or good to ~1e-48 (mpmath at 50 digits), far tighter
# than this; it is applied to the oracle value only, never to widen a bracket.
SLACK = F(1, 10**30)
GRID = Grid(h=F(1, 500))
EPSILONS = (F(0), F(1, 2), F(1), F(2))

# ---------------------------------------------------------------- exact helpers


def _dyadic(man: int, exp: int) -> F:
    return F(man) * F(2) ** exp


def ends(b: flint.arb) -> tuple[F, F]:
    """The exact rational ends of an arb ball (its lower and upper ends are dyadic)."""
    lo, hi = b.lower().man_exp(), b.upper().man_exp()
    return _dyadic(int(lo[0]), int(lo[1])), _dyadic(int(hi[0]), int(hi[1]))


def in_ball(b: flint.arb, x: F, slack: F = F(0)) -> bool:
    lo, hi = ends(b)
    return lo - slack <= x <= hi + slack


def exact_mpf(x: mpmath.mpf) -> F:
    """An mpmath number as the exact rational it is (a binary float; `man_exp` leaves the
    sign out)."""
    man, exp = x.man_exp
    v = _dyadic(int(man), int(exp))
    return -v if x < 0 else v


def mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def binomial_pmf(n: int, r: F) -> list[F]:
    """Pr(Bin(n, r) = k), k = 0 … n, exactly (F(0) ** 0 == 1 covers rates 0 and 1)."""
    return [math.comb(n, k) * r**k * (1 - r) ** (n - k) for k in range(n + 1)]


def contains(b: Bracket, oracle: mpmath.mpf) -> bool:
    x = exact_mpf(oracle)
    return b.lo <= x + SLACK and x - SLACK <= b.hi


def discrete_delta(p: Sequence[F], q: Sequence[F], eps: F) -> mpmath.mpf:
    """δ_{P‖Q}(ε) = Σ_x (P(x) − e^ε Q(x))_+ for exact pmfs on a common finite support."""
    g = mpmath.exp(mp(eps))
    return mpmath.fsum(max(mpmath.mpf(0), mp(a) - g * mp(b)) for a, b in zip(p, q, strict=True))


def outer(a: Sequence[F], b: Sequence[F]) -> list[F]:
    """The pmf of two independent outputs, flattened."""
    return [x * y for x in a for y in b]


def binomial_product(parts: Sequence[tuple[int, F, F]]) -> tuple[list[F], list[F]]:
    """P = ⊗ Bin(n_i, p_i) and Q = ⊗ Bin(n_i, q_i) as flattened exact pmfs."""
    p, q = [F(1)], [F(1)]
    for n, a, b in parts:
        p, q = outer(p, binomial_pmf(n, a)), outer(q, binomial_pmf(n, b))
    return p, q


# ---------------------------------------------------------------- Gaussian mixture oracle


def gauss_h_fwd(gamma: mpmath.mpf, pi: F, shift: F, sigma: F) -> mpmath.mpf:
    """H_γ(A‖A') = ∫ (a − γ a')_+ for A = (1−π)N(0,σ²) + πN(s,σ²), A' = N(0,σ²). The ratio
    r(x) = (1−π) + π e^{(s x − s²/2)/σ²} increases from 1−π, so {r > γ} is (x*, ∞), or all
    of ℝ when γ ≤ 1−π."""
    w, pim, s, sg = 1 - mp(pi), mp(pi), mp(shift), mp(sigma)
    if gamma <= w:
        return 1 - gamma
    x = (sg**2 * mpmath.log((gamma - w) / pim) + s**2 / 2) / s

    def sf(c: mpmath.mpf) -> mpmath.mpf:
        return 1 - mpmath.ncdf(x, mu=c, sigma=sg)
    return w * sf(mpmath.mpf(0)) + pim * sf(s) - gamma * sf(mpmath.mpf(0))


def gauss_h_rev(gamma: mpmath.mpf, pi: F, shift: F, sigma: F) -> mpmath.mpf:
    """H_γ(A'‖A) = ∫ (a' − γ a)_+: a' > γ a iff r(x) < 1/γ, a half-line (−∞, x**), empty
    when 1/γ ≤ 1−π."""
    w, pim, s, sg = 1 - mp(pi), mp(pi), mp(shift), mp(sigma)
    t = 1 / gamma
    if t <= w:
        return mpmath.mpf(0)
    x = (sg**2 * mpmath.log((t - w) / pim) + s**2 / 2) / s

    def cdf(c: mpmath.mpf) -> mpmath.mpf:
        return mpmath.ncdf(x, mu=c, sigma=sg)
    return cdf(mpmath.mpf(0)) - gamma * (w * cdf(mpmath.mpf(0)) + pim * cdf(s))


def gauss_binomial_delta(pi: F, shift: F, sigma: F, n: int, p: F, q: F, eps: F,
                         direction: int) -> mpmath.mpf:
    """δ of (A ⊗ Bin(n,p)) against (A' ⊗ Bin(n,q)) in one order, by conditioning on the count:
    H_γ(A⊗B‖A'⊗B') = Σ_k b(k)·H_{γ b'(k)/b(k)}(A‖A') over b(k) > 0 (the count's own mass
    where b'(k) = 0 is all kept: H_0 = 1), and the reverse order with the roles swapped."""
    gamma = mpmath.exp(mp(eps))
    b, bq = binomial_pmf(n, p), binomial_pmf(n, q)
    if direction == 1:
        b, bq = bq, b
    h = gauss_h_fwd if direction == 0 else gauss_h_rev
    total = mpmath.mpf(0)
    for bk, bqk in zip(b, bq, strict=True):
        if bk:
            total += mp(bk) * h(gamma * mp(bqk) / mp(bk), pi, shift, sigma)
    return total


GAUSS = (F(1, 3), F(1), F(1))  # π, shift, σ
BIN = (5, F(1, 3), F(1, 4))


def gauss_part() -> Pair:
    pi, shift, sigma = GAUSS
    return law_pair(((0, 1 - pi), (1, pi)), shift, sigma, "gauss", "added")


# ---------------------------------------------------------------- 1. binomial atoms


RATES = [(F(1, 2), F(1, 3)), (F(1, 5), F(2, 5)), (F(9, 10), F(1, 10)), (F(0), F(1, 3)),
         (F(1), F(3, 4)), (F(2, 7), F(1)), (F(1, 4), F(0)), (F(0), F(1)), (F(1), F(0))]


def _check_atoms(at: Atoms) -> None:
    assert len(at.p) == len(at.q) == len(at.loss)
    mids = [float(x.mid()) for x in at.loss]
    assert all(a <= b for a, b in zip(mids, mids[1:])), mids


@pytest.mark.parametrize("n", [1, 3, 7])
@pytest.mark.parametrize("p,q", RATES)
def test_binomial_atoms_contain_the_exact_pmf(n: int, p: F, q: F) -> None:
    """Every count with both masses positive is one atom (matched by its exact loss, which
    lies in exactly one atom's loss ball); its P- and Q-balls contain the exact pmf; the atoms
    run in strictly increasing exact loss; counts at loss −∞ (P = 0) are Q-mass below and
    counts at +∞ (Q = 0) P-mass above; each side's total contains 1. At n ≤ 7 the float
    window holds every count, so nothing else is in the tails."""
    at = binomial_atoms(BinomialPair(n, p, q))
    _check_atoms(at)
    pp, qq = binomial_pmf(n, p), binomial_pmf(n, q)
    finite = [k for k in range(n + 1) if pp[k] and qq[k]]
    with mpmath.workdps(DPS):
        loss = {k: exact_mpf(mpmath.log(mp(pp[k])) - mpmath.log(mp(qq[k]))) for k in finite}
    matched = []
    for pb, qb, lb in zip(at.p, at.q, at.loss, strict=True):
        ks = [k for k in finite if in_ball(lb, loss[k], SLACK)]
        assert len(ks) == 1, (lb, ks)
        k = ks[0]
        assert in_ball(pb, pp[k]) and in_ball(qb, qq[k]), (k, pb, pp[k], qb, qq[k])
        matched.append(k)
    assert sorted(matched) == finite
    assert all(loss[a] < loss[b] for a, b in zip(matched, matched[1:]))
    q_minus_inf = sum((qq[k] for k in range(n + 1) if not pp[k]), F(0))
    p_inf = sum((pp[k] for k in range(n + 1) if not qq[k]), F(0))
    assert in_ball(at.p_below, F(0)) and in_ball(at.q_below, q_minus_inf)
    assert in_ball(at.p_above, p_inf) and in_ball(at.q_above, F(0))
    assert in_ball(sum(at.p, flint.arb(0)) + at.p_below + at.p_above, F(1))
    assert in_ball(sum(at.q, flint.arb(0)) + at.q_below + at.q_above, F(1))


def test_binomial_atoms_large_n() -> None:
    """n = 60000 at rates 400/294999 vs 400/295000 (a PPS class's count): the truncated
    tails are below 2^-60, each side's total contains 1 with a radius below 1e-9, every atom
    is tight and contains the pmf of the count its loss identifies (mpmath at 50 digits), and
    the counts cut off carry (by direct summation) less than the tail balls' upper ends."""
    n, p, q = 60000, F(400, 294999), F(400, 295000)
    at = binomial_atoms(BinomialPair(n, p, q))
    _check_atoms(at)
    tiny = flint.arb(2) ** -60
    for t in (at.p_below, at.q_below, at.p_above, at.q_above):
        assert t.upper() < tiny, t
    for side, below, above in ((at.p, at.p_below, at.p_above), (at.q, at.q_below, at.q_above)):
        total = sum(side, flint.arb(0)) + below + above
        assert in_ball(total, F(1)) and total.rad() < 1e-9, total
    assert max(float(x.rad()) for x in at.p + at.q + at.loss) < 1e-9
    with mpmath.workdps(DPS):
        pm, qm = mp(p), mp(q)
        slope = mpmath.log(pm / qm) - mpmath.log((1 - pm) / (1 - qm))
        base = n * mpmath.log((1 - pm) / (1 - qm))

        def pmf(r: mpmath.mpf, k: int) -> mpmath.mpf:
            return mpmath.binomial(n, k) * r**k * (1 - r) ** (n - k)

        counts = []
        for pb, qb, lb in zip(at.p, at.q, at.loss, strict=True):
            k = int(mpmath.nint((mp(sum(ends(lb)) / 2) - base) / slope))
            assert in_ball(lb, exact_mpf(base + k * slope), SLACK)
            assert in_ball(pb, exact_mpf(pmf(pm, k)), SLACK)
            assert in_ball(qb, exact_mpf(pmf(qm, k)), SLACK)
            counts.append(k)
        assert counts == list(range(counts[0], counts[-1] + 1))  # p > q: increasing counts

        def beyond(r: mpmath.mpf) -> mpmath.mpf:
            """Σ_{k > last atom} Pr(Bin(n, r) = k) until the terms vanish (past the mode)."""
            s, k, term = mpmath.mpf(0), counts[-1] + 1, pmf(r, counts[-1] + 1)
            while k <= n and term > s * mpmath.mpf(10) ** -40:
                s += term
                term *= mpmath.mpf(n - k) / (k + 1) * r / (1 - r)
                k += 1
            return s

        assert exact_mpf(beyond(pm)) <= ends(at.p_above)[1]
        assert exact_mpf(beyond(qm)) <= ends(at.q_above)[1]
        if counts[0] > 0:  # the counts below the window
            below_p = mpmath.fsum(pmf(pm, k) for k in range(counts[0]))
            below_q = mpmath.fsum(pmf(qm, k) for k in range(counts[0]))
            assert exact_mpf(below_p) <= ends(at.p_below)[1]
            assert exact_mpf(below_q) <= ends(at.q_below)[1]


# ---------------------------------------------------------------- 2. one step


BIN_PRODUCTS = [
    ((3, F(1, 2), F(1, 3)), (4, F(1, 5), F(2, 5))),   # one p > q, one p < q
    ((2, F(0), F(1, 3)), (5, F(3, 4), F(1, 2))),      # a rate 0: atoms at loss −∞
    ((3, F(2, 3), F(1)), (2, F(1, 6), F(1, 2))),      # a rate 1: atoms at loss +∞
]


def _finite(parts: Sequence[tuple[int, F, F]]) -> bool:
    """Every count of every part has a finite loss (no rate 0 or 1)."""
    return all(0 < r < 1 for _, a, b in parts for r in (a, b))


TIGHT = F(1, 10**4)  # h = 1/500: the upper end's error is O(h²) per step, about 1e-5 here


def _both_orders(c: Composed, eps: F, fwd: mpmath.mpf, rev: mpmath.mpf,
                 tight_lower: bool = True) -> None:
    """Each order's bracket contains its oracle and `.delta` (the larger order's) the max.
    The upper end is also tight, so a sound but loose upper end (one order's standing in for
    the other's, say) fails too and the mutants below bite; so is the lower end, except for
    parts with atoms at loss ±∞ (a rate 0 or 1): the test's bucket vectors put the −∞ mass
    in the first atom's bucket and the +∞ mass one bucket above the last atom's, which a
    product's convolution does not keep apart, so the lower end there is sound but loose
    (by up to 0.5 at ε = 2 for the second product below)."""
    for d, exact in ((0, fwd), (1, rev)):
        b = c.delta_direction(eps, d)
        assert contains(b, exact), (eps, d, b, exact)
        x = exact_mpf(exact)
        assert b.hi - x < TIGHT, (eps, d, b, exact)
        if tight_lower:
            assert x - b.lo < TIGHT, (eps, d, b, exact)
    b = c.delta(eps)
    assert contains(b, max(fwd, rev)), (eps, b, fwd, rev)


@pytest.mark.parametrize("parts", BIN_PRODUCTS)
def test_binomial_product_one_step(parts: tuple[tuple[int, F, F], ...]) -> None:
    """Two binomial counts released together: the joint pmf is the outer product of the exact
    pmfs, so δ in each order is an exact finite sum (only e^ε is irrational)."""
    c = composed(Product(tuple(BinomialPair(*x) for x in parts)), 1, GRID)
    p, q = binomial_product(parts)
    with mpmath.workdps(DPS):
        for eps in EPSILONS:
            _both_orders(c, eps, discrete_delta(p, q, eps), discrete_delta(q, p, eps),
                         tight_lower=_finite(parts))


def test_gaussian_binomial_product_one_step() -> None:
    """The Gaussian added pair (π = 1/3, shift 1, σ = 1) with a Bin(5, 1/3) vs Bin(5, 1/4)
    count: the oracle conditions on the count and uses the mixture's closed-form H_γ."""
    c = composed(Product((gauss_part(), BinomialPair(*BIN))), 1, GRID)
    with mpmath.workdps(DPS):
        for eps in EPSILONS:
            fwd, rev = (gauss_binomial_delta(*GAUSS, *BIN, eps, d) for d in (0, 1))
            _both_orders(c, eps, fwd, rev)


def test_gaussian_oracle_agrees_with_quadrature() -> None:
    """The closed form of the mixture's H_γ (both orders, γ on both sides of the ratio's
    infimum 1 − π) against direct numerical integration of (a − γa')_+: the oracle itself
    is checked, not only the engine against it."""
    pi, shift, sigma = GAUSS
    with mpmath.workdps(30):
        w, pim = 1 - mp(pi), mp(pi)

        def a(x: mpmath.mpf) -> mpmath.mpf:
            return w * mpmath.npdf(x) + pim * mpmath.npdf(x, mu=mp(shift))

        def kink(f: Callable[[mpmath.mpf], mpmath.mpf]) -> list[mpmath.mpf]:
            """The sign change of f on [−20, 20] (bisection), where (f)_+ has its kink."""
            lo, hi = mpmath.mpf(-20), mpmath.mpf(20)
            if (f(lo) > 0) == (f(hi) > 0):
                return []
            for _ in range(120):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if (f(mid) > 0) == (f(lo) > 0) else (lo, mid)
            return [lo]

        for gamma in (mpmath.mpf("0.4"), mpmath.mpf(1), mpmath.mpf(2), mpmath.e ** 2):
            def up(x: mpmath.mpf, g: mpmath.mpf = gamma) -> mpmath.mpf:
                return a(x) - g * mpmath.npdf(x)

            def down(x: mpmath.mpf, g: mpmath.mpf = gamma) -> mpmath.mpf:
                return mpmath.npdf(x) - g * a(x)

            fwd = mpmath.quad(lambda x: max(0, up(x)), [-mpmath.inf, *kink(up), mpmath.inf])
            rev = mpmath.quad(lambda x: max(0, down(x)), [-mpmath.inf, *kink(down), mpmath.inf])
            assert abs(fwd - gauss_h_fwd(gamma, pi, shift, sigma)) < 1e-25
            assert abs(rev - gauss_h_rev(gamma, pi, shift, sigma)) < 1e-25


def test_compose_with_rtol_contains_the_product_oracle() -> None:
    """The public `compose` (with its lattice chosen for rtol) on a product too."""
    parts = BIN_PRODUCTS[0]
    p, q = binomial_product(parts)
    eps = F(1, 2)
    b = compose(Product(tuple(BinomialPair(*x) for x in parts)), 1, epsilon=eps,
                rtol=F(1, 100))
    with mpmath.workdps(DPS):
        assert contains(b, max(discrete_delta(p, q, eps), discrete_delta(q, p, eps))), b
    assert b.hi - b.lo <= b.hi / 100


# ---------------------------------------------------------------- 3. composition


@pytest.mark.parametrize("steps", [2, 3])
def test_binomial_product_composed(steps: int) -> None:
    """T releases of Bin(n,p) vs Bin(n,q) are one release of Bin(Tn,p) vs Bin(Tn,q) (the
    loss depends on the count alone, which is sufficient), so the T-fold product's exact δ
    is the one-step δ of the product of the larger binomials."""
    parts = BIN_PRODUCTS[0]
    c = composed(Product(tuple(BinomialPair(*x) for x in parts)), steps, GRID)
    p, q = binomial_product([(steps * n, a, b) for n, a, b in parts])
    with mpmath.workdps(DPS):
        for eps in EPSILONS:
            _both_orders(c, eps, discrete_delta(p, q, eps), discrete_delta(q, p, eps))


# ---------------------------------------------------------------- 4. mutants


def test_dropping_a_part_is_caught() -> None:
    """Each part alone has a certified upper end below the product's exact δ at some ε (in
    some order), and the product's own upper end is above it there: a product that forgot a
    part would be caught."""
    parts = (gauss_part(), BinomialPair(*BIN))
    whole = composed(Product(parts), 1, GRID)
    with mpmath.workdps(DPS):
        exact = {(eps, d): gauss_binomial_delta(*GAUSS, *BIN, eps, d)
                 for eps in EPSILONS for d in (0, 1)}
    for part in parts:
        alone = composed(part, 1, GRID)
        caught = [(eps, d) for eps, d in exact
                  if alone.delta_direction(eps, d).hi < exact_mpf(exact[eps, d]) - SLACK
                  and whole.delta_direction(eps, d).hi > alone.delta_direction(eps, d).hi]
        assert caught, part


@pytest.mark.parametrize("mutant", [BinomialPair(5, F(1, 3), F(251, 1000)),
                                    BinomialPair(5, F(1003, 3000), F(1, 4)),
                                    BinomialPair(5, F(1, 4), F(1, 3))])
def test_a_mutated_rate_is_caught(mutant: BinomialPair) -> None:
    """A count part with one rate off by 1/1000 (or the rates swapped) gives brackets that
    exclude the true product's exact δ at some ε, in some order (the brackets at h = 1/500
    are below 1e-6 wide; the mutants move δ by about 1e-3)."""
    c = composed(Product((gauss_part(), mutant)), 1, GRID)
    with mpmath.workdps(DPS):
        missed = [(eps, d) for eps in EPSILONS for d in (0, 1)
                  if not contains(c.delta_direction(eps, d),
                                  gauss_binomial_delta(*GAUSS, *BIN, eps, d))]
    assert missed, mutant


# ---------------------------------------------------------------- 5. validation


def test_product_validation() -> None:
    """A product needs parts, and only plain parts: a nested product or a revealed mixture
    has no single lattice vector per part (their vectors are not a product's)."""
    b = BinomialPair(3, F(1, 2), F(1, 3))
    with pytest.raises(ValueError):
        Product(())
    with pytest.raises(ValueError):
        Product((b, Product((b,))))  # type: ignore[arg-type]
    revealed = Revealed(((F(1, 2), gauss_part()), (F(1, 2), gauss_part())))
    with pytest.raises(ValueError):
        Product((revealed,))  # type: ignore[arg-type]
    Product((b,))  # one part is allowed


@pytest.mark.parametrize("n,p,q", [(3, F(1, 2), F(1, 2)), (0, F(1, 2), F(1, 3)),
                                   (-1, F(1, 2), F(1, 3)), (3, F(0), F(0)),
                                   (3, F(3, 2), F(1, 3)), (3, F(1, 2), F(-1, 3))])
def test_binomial_pair_validation(n: int, p: F, q: F) -> None:
    """Equal rates (no privacy loss, a degenerate pair), no trials, or a rate outside
    [0, 1] are refused."""
    with pytest.raises(ValueError):
        BinomialPair(n, p, q)
