"""A certified bracket of the k-fold composed hockey-stick divergence δ(ε) (MUST §3.3).

For a pair (P, Q) whose privacy loss L is finite and increasing in the output t, the k-fold
product pair has (MUST Theorem 4, one direction)

    δ_{P^k‖Q^k}(ε) = E[g(L(t_1) + … + L(t_k))],   t_i iid ~ P,   g(s) = (1 − e^{ε−s})_+.

What is certified, and why each step is sound (everything else is exact integer arithmetic):

1. **Cells.**  The t-axis is cut at τ_i = i/M; on [τ_i, τ_{i+1}] the loss lies in
   [L(τ_i), L(τ_{i+1})] (monotone).  Cell masses and grid losses are rigorous enclosures
   (`pair.cells`).
2. **Coupling.**  g is increasing, so replacing every loss by a pointwise larger (smaller)
   value, independently per step, can only increase (decrease) E[g(Σ)]: the upper bound
   moves each cell's mass to the upper end of its loss range, the lower bound to the lower
   end; mass beyond the t-grid goes to +∞ (upper) or −∞ (lower), mass beyond the loss window
   to +∞ / the window's lower end (upper) or the window's upper end / −∞ (lower).  The same
   moves are applied to the partial sums after every convolution.
3. **Lattice.**  Sums must live on the lattice hℤ.  Upper bound: a mass p at loss s between
   lattice points s_a < s < s_b is *split* into p_a at s_a and p − p_a at s_b with
   p_a e^{−s_a} + (p − p_a) e^{−s_b} = p e^{−s}.  For every shift c, x ↦ g(c − log x) =
   (1 − e^{ε−c} x)_+ is convex in x = e^{−s}, and the split is a mean-preserving spread in x,
   so by Jensen the expectation can only grow (the "connect-the-dots" domination, error O(h²)
   per step).  Lower bound: round down to s_a (coupling, error ≤ h per step).
4. **Masses.**  E[g(Σ)] is a polynomial with non-negative coefficients in the per-step masses,
   so using upper (lower) enclosures of every mass, rounded up (down) to the scale 2^-64 after
   every product, gives an upper (lower) bound.  Convolutions are exact (`intconv`).
5. **Final sum.**  Σ_j v_j g(s_j) + (mass at +∞) with g enclosed by outward-rounded intervals.

The result is a `Bracket` [lo, hi] ∋ δ_{P^k‖Q^k}(ε), for the direction given by the pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from verifydp.accounting.intconv import convolve
from verifydp.accounting.pair import SCALE_BITS, Cells, MixturePair, cells
from verifydp.exact.interval import Bracket, Evaluator, mpf_to_fraction

_PREC = 128


@dataclass(frozen=True)
class Grid:
    """Discretisation: t-cells 1/m, loss lattice 1/lattice, loss windows (in loss units)."""

    m: int = 100
    lattice: int = 1000
    step_window: int = 20   # per-step losses outside [−w, w] go to the window's ends / ±∞
    sum_window: int = 20    # partial sums outside [ε − w, ε + w] likewise
    z: int = 10             # t-cells cover every component ± z σ


@dataclass
class _Dist:
    """Masses v[j] (scale 2^SCALE_BITS) at loss (off + j)/lattice, plus a mass at +∞."""

    off: int
    v: list[int]
    inf: int = 0


def _exp_enclosure(ev: Evaluator, x: Fraction) -> tuple[Fraction, Fraction]:
    lo, hi = ev.exp(ev.from_fraction(x))._mpi_
    return mpf_to_fraction(lo), mpf_to_fraction(hi)


def _step(c: Cells, grid: Grid, upper: bool) -> _Dist:
    """The per-step lattice distribution (step 2–3 of the module docstring)."""
    hgrid = grid.lattice
    w_lo, w_hi = -grid.step_window * hgrid, grid.step_window * hgrid
    acc: dict[int, int] = {}
    inf = 0
    ev = Evaluator(_PREC)
    h = Fraction(1, hgrid)
    e_h = _exp_enclosure(ev, h)
    den_lo, den_hi = e_h[0] - 1, e_h[1] - 1  # e^h − 1

    def put(j: int, mass: int) -> None:
        if mass:
            acc[j] = acc.get(j, 0) + mass

    def place_upper(s: Fraction, mass: int) -> None:
        nonlocal inf
        if s > w_hi * h:
            inf += mass
            return
        if s <= w_lo * h:
            put(w_lo, mass)
            return
        ja = floor(s * hgrid)
        if ja * h == s:
            put(ja, mass)
            return
        # split: p_a = p (e^{s_b − s} − 1)/(e^h − 1); both parts rounded up
        ex = _exp_enclosure(ev, (ja + 1) * h - s)
        fa_lo, fa_hi = max((ex[0] - 1) / den_hi, Fraction(0)), min((ex[1] - 1) / den_lo, 1)
        put(ja, ceil(mass * fa_hi))
        put(ja + 1, ceil(mass * (1 - fa_lo)))

    def place_lower(s: Fraction, mass: int) -> None:
        if s < w_lo * h:
            return  # to −∞
        put(min(floor(s * hgrid), w_hi), mass)

    if upper:
        place_upper(c.loss[c.i0][1], c.left[1])
        for i in range(c.i0, c.i1):
            place_upper(c.loss[i + 1][1], c.hi[i])
        inf += c.right[1]
    else:
        for i in range(c.i0, c.i1):
            place_lower(c.loss[i][0], c.lo[i])
        place_lower(c.loss[c.i1][0], c.right[0])
    if not acc:
        return _Dist(0, [0], inf)
    off = min(acc)
    v = [0] * (max(acc) - off + 1)
    for j, mass in acc.items():
        v[j - off] = mass
    return _Dist(off, v, inf)


def _mul(x: _Dist, y: _Dist, upper: bool, s_lo: int, s_hi: int) -> _Dist:
    """Exact product, clamped to [s_lo, s_hi] (step 2) and rescaled to 2^SCALE_BITS
    (ceiling for the upper bound, floor for the lower)."""
    conv = convolve(x.v, y.v)
    off = x.off + y.off
    inf = x.inf * (sum(y.v) + y.inf) + sum(x.v) * y.inf
    first, last = max(s_lo, off), min(s_hi, off + len(conv) - 1)
    low = sum(conv[: max(first - off, 0)])
    high = sum(conv[max(last + 1 - off, 0):])
    if first <= last:
        core = conv[first - off:last + 1 - off]
    else:  # everything fell outside the window
        first = last = s_lo if upper else s_hi
        core = [0]
    if upper:
        if first == s_lo:
            core[0] += low
        inf += high  # partial sums above the window: to +∞
    elif last == s_hi:
        core[-1] += high  # below the window: dropped (to −∞)
    sh = SCALE_BITS
    if upper:
        core = [-((-t) >> sh) for t in core]
        inf = -((-inf) >> sh)
    else:
        core = [t >> sh for t in core]
        inf = 0
    nz = [i for i, t in enumerate(core) if t] or [0]
    return _Dist(first + nz[0], core[nz[0]:nz[-1] + 1], inf)


def _power(step: _Dist, k: int, upper: bool, s_lo: int, s_hi: int) -> _Dist:
    out: _Dist | None = None
    base = step
    while True:
        if k & 1:
            out = base if out is None else _mul(out, base, upper, s_lo, s_hi)
        k >>= 1
        if not k:
            break
        base = _mul(base, base, upper, s_lo, s_hi)
    assert out is not None
    return out


def _expectation(d: _Dist, eps: Fraction, lattice: int, upper: bool) -> Fraction:
    """2^-SCALE_BITS (Σ_j v_j g(s_j) + inf), g(s) = 1 − e^{ε−s} for s > ε, outward."""
    ev = Evaluator(_PREC)
    h = Fraction(1, lattice)
    j0 = max(floor(eps * lattice) + 1, d.off)  # first lattice point with s > ε
    if j0 > d.off + len(d.v) - 1:
        total = ev.from_fraction(Fraction(0))
    else:
        e = ev.exp(ev.from_fraction(eps - j0 * h))
        step = ev.exp(ev.from_fraction(-h))
        one = ev.from_fraction(Fraction(1))
        total = ev.from_fraction(Fraction(0))
        for j in range(j0, d.off + len(d.v)):
            vj = d.v[j - d.off]
            if vj:
                total = total + ev.from_fraction(Fraction(vj)) * (one - e)
            e = e * step
    lo, hi = total._mpi_
    val = mpf_to_fraction(hi if upper else lo) + (d.inf if upper else 0)
    return max(val, Fraction(0)) / (1 << SCALE_BITS)


def one_direction(pair: MixturePair, k: int, eps: Fraction, grid: Grid = Grid(),
                  sides: tuple[bool, ...] = (False, True)) -> Bracket:
    """Certified [lo, hi] ∋ δ_{P^k‖Q^k}(ε) for the direction P‖Q of `pair`.

    ``sides`` selects the ends computed (False = lower, True = upper); an end not computed
    is returned as the trivial bound (0 or 1)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    eps = Fraction(eps)
    c = cells(pair, grid.m, grid.z)
    s_lo = floor((eps - grid.sum_window) * grid.lattice)
    s_hi = ceil((eps + grid.sum_window) * grid.lattice)
    ends = {False: Fraction(0), True: Fraction(1)}
    for upper in sides:
        d = _power(_step(c, grid, upper), k, upper, s_lo, s_hi)
        ends[upper] = _expectation(d, eps, grid.lattice, upper)
    return Bracket(min(ends[False], ends[True]), ends[True])


def composed_delta(pair: MixturePair, k: int, eps: Fraction, grid: Grid = Grid(),
                   sides: tuple[bool, ...] = (False, True)) -> Bracket:
    """MUST Theorem 4: δ(ε) = max(δ_{X/X'}(ε), δ_{X'/X}(ε)) of the k-fold composition."""
    fwd = one_direction(pair, k, eps, grid, sides)
    if pair.symmetric:
        return fwd
    rev = one_direction(pair.reversed(), k, eps, grid, sides)
    return Bracket(max(fwd.lo, rev.lo), max(fwd.hi, rev.hi))
