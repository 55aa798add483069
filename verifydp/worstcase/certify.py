"""Exact certification of float LP solutions (docs/foundations.md#fact-5).

A float primal is turned into an exactly feasible rational acceptance function (a witness
mechanism and a certified lower bound); a float dual into an exactly feasible rational dual
(a certified upper bound). Nothing here trusts a float comparison.

The arithmetic is exact rational throughout, done in python-flint's `fmpq` (C) rather than
`Fraction` for speed: the same rationals, so the same certificates and the same numbers.
Inputs and outputs stay `Fraction`s.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from fractions import Fraction

import flint
import numpy as np

from verifydp.exact.arb import fmpq_of, fraction_of
from verifydp.worstcase.lp import oriented_rows
from verifydp.worstcase.region import Region, neighbours_of

DENOMINATORS = (10**3, 10**6, None)  # None: the float's exact binary value


def rationalise(values: Sequence[float] | np.ndarray, denom: int | None) -> list[flint.fmpq]:
    """Each float as the closest rational with denominator ≤ `denom` (its exact binary value
    for None). LP outputs repeat a few values (powers of t), so each is converted once."""
    seen: dict[float, flint.fmpq] = {}
    out = []
    for v in values:
        fv = float(v)
        r = seen.get(fv)
        if r is None:
            fr = Fraction(fv)
            r = seen[fv] = fmpq_of(fr.limit_denominator(denom) if denom else fr)
        out.append(r)
    return out


def _q(values: Sequence[Fraction]) -> list[flint.fmpq]:
    return [fmpq_of(v) for v in values]


def dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), Fraction(0))


def _dot(a: Sequence[flint.fmpq], b: Sequence[flint.fmpq]) -> flint.fmpq:
    total = flint.fmpq(0)
    for x, y in zip(a, b):
        if x and y:
            total += x * y
    return total


# ---------------------------------------------------------------- ratio (pure ε-DP)


def lipschitz_closure(region: Region, f: list[flint.fmpq], t: flint.fmpq) -> list[flint.fmpq]:
    """Smallest g ≥ f with g_y ≤ t·g_x on every edge (max-product Dijkstra, exact)."""
    zero = flint.fmpq(0)
    g = [v if v > 0 else zero for v in f]
    adj = neighbours_of(region)
    heap = [(-v, i) for i, v in enumerate(g) if v > 0]
    heapq.heapify(heap)
    while heap:
        negv, i = heapq.heappop(heap)
        v = -negv
        if v != g[i]:
            continue
        cand = v / t
        for j in adj[i]:
            if cand > g[j]:
                g[j] = cand
                heapq.heappush(heap, (-cand, j))
    return g


def two_sided_ok(region: Region, f: Sequence[Fraction], t: Fraction, delta: Fraction) -> bool:
    """Every DP constraint of the binary mechanism f on every edge, both orientations."""
    return _two_sided_ok(region, _q(f), fmpq_of(t), fmpq_of(delta))


def _two_sided_ok(region: Region, f: Sequence[flint.fmpq], t: flint.fmpq,
                  delta: flint.fmpq) -> bool:
    if any(v < 0 or v > 1 for v in f):
        return False
    for i, j in region.edges:
        for a, b in ((f[i], f[j]), (f[j], f[i])):
            if a - t * b > delta or (1 - a) - t * (1 - b) > delta:
                return False
    return True


def ratio_lower(
    region: Region, p: list[Fraction], q: list[Fraction], t: Fraction, primal: np.ndarray
) -> tuple[Fraction, list[Fraction]]:
    """Best certified ratio over the rationalisations; returns (ratio, two-sided witness f)."""
    pq, qq, tq = _q(p), _q(q), fmpq_of(t)
    best: tuple[flint.fmpq, list[flint.fmpq]] | None = None
    for denom in DENOMINATORS:
        g = lipschitz_closure(region, rationalise(primal, denom), tq)
        num, den = _dot(pq, g), _dot(qq, g)
        if den <= 0:
            continue
        r = num / den
        if best is None or r > best[0]:
            best = (r, g)
    if best is None:  # degenerate float output: the constant function is always feasible
        g = [flint.fmpq(1)] * len(region.points)
        best = (_dot(pq, g) / _dot(qq, g), g)
    r, g = best
    # Scale into [0, (t-1)/t] so the 1 - f constraints hold too (fact 1): a genuine mechanism.
    top = max(g)
    scale = (tq - 1) / (tq * top) if tq > 1 else flint.fmpq(1, 2) / top
    witness = [v * scale for v in g]
    # the lower bound is only as good as this exact check of every DP constraint
    if not _two_sided_ok(region, witness, tq, flint.fmpq(0)):
        raise AssertionError("certified ratio witness violates a DP constraint")
    return fraction_of(r), [fraction_of(v) for v in witness]


def ratio_upper(
    region: Region,
    p: list[Fraction],
    q: list[Fraction],
    t: Fraction,
    edge_duals: np.ndarray,
    q_dual: float,
) -> Fraction:
    """Certified upper bound on sup p·f / q·f via a repaired rational dual.

    Dual: min λ s.t. λ q_x + Σ_rows w_r (e_x − t e_y)_x ≥ p_x, w ≥ 0. Deficits at points
    without q-mass are pushed along a BFS tree towards supp(q) (each push raises a row
    multiplier, moving the deficit, times t, to the parent), then λ absorbs the rest.
    Assumes every point is connected to supp(q).
    """
    rows = oriented_rows(region)
    pq, qq, tq = _q(p), _q(q), fmpq_of(t)
    zero = flint.fmpq(0)
    parent, order = _bfs_tree(region, q)
    best: flint.fmpq | None = None
    for denom in DENOMINATORS:
        w = [v if v > 0 else zero for v in rationalise(edge_duals, denom)]
        lam = max(rationalise([q_dual], denom)[0], zero)
        deficit = list(pq)
        for r, (x, y) in enumerate(rows):
            if w[r]:
                deficit[x] -= w[r]
                deficit[y] += tq * w[r]
        for x in range(len(deficit)):
            if qq[x]:
                deficit[x] -= lam * qq[x]
        for x in order:  # farthest first
            if deficit[x] > 0 and qq[x] == 0:
                px = parent[x]
                deficit[px] += tq * deficit[x]
                deficit[x] = zero
        extra = max((deficit[x] / qq[x] for x in range(len(qq)) if qq[x] > 0), default=zero)
        bound = lam + (extra if extra > 0 else zero)
        if best is None or bound < best:
            best = bound
    assert best is not None
    return fraction_of(best)


def _bfs_tree(region: Region, q: list[Fraction]) -> tuple[list[int], list[int]]:
    adj = neighbours_of(region)
    n = len(region.points)
    parent = [-1] * n
    dist = [-1] * n
    dq: deque[int] = deque()
    for x in range(n):
        if q[x] > 0:
            dist[x] = 0
            dq.append(x)
    seen_order = []
    while dq:
        x = dq.popleft()
        seen_order.append(x)
        for y in adj[x]:
            if dist[y] < 0:
                dist[y] = dist[x] + 1
                parent[y] = x
                dq.append(y)
    if any(d < 0 for d in dist):
        raise ValueError("region point not connected to the support of Q")
    return parent, seen_order[::-1]


# ---------------------------------------------------------------- hockey-stick ((ε, δ)-DP)


def hockey_lower(
    region: Region,
    c: list[Fraction],
    t: Fraction,
    delta: Fraction,
    primal: np.ndarray,
) -> tuple[Fraction, list[Fraction]]:
    """Certified lower bound c·f over an exactly feasible f (mixed with 1/2 if needed)."""
    cq, tq, dq = _q(c), fmpq_of(t), fmpq_of(delta)
    zero, one = flint.fmpq(0), flint.fmpq(1)
    best: tuple[flint.fmpq, list[flint.fmpq]] | None = None
    for denom in DENOMINATORS:
        f = [zero if v < 0 else one if v > 1 else v for v in rationalise(primal, denom)]
        f = _mix_to_feasible(region, f, tq, dq)
        if not _two_sided_ok(region, f, tq, dq):
            raise AssertionError("certified hockey-stick witness violates a DP constraint")
        val = _dot(cq, f)
        if best is None or val > best[0]:
            best = (val, f)
    assert best is not None
    return fraction_of(best[0]), [fraction_of(v) for v in best[1]]


def _mix_to_feasible(
    region: Region, f: list[flint.fmpq], t: flint.fmpq, delta: flint.fmpq
) -> list[flint.fmpq]:
    viol = flint.fmpq(0)
    for i, j in region.edges:
        for a, b in ((f[i], f[j]), (f[j], f[i])):
            viol = max(viol, a - t * b - delta, (1 - a) - t * (1 - b) - delta)
    if viol <= 0:
        return f
    slack = delta + (t - 1) / 2  # slack of the constant 1/2 in both constraint families
    one = flint.fmpq(1)
    eta = one if slack == 0 else min(one, viol / (viol + slack))
    g = [(1 - eta) * v + eta / 2 for v in f]
    assert _two_sided_ok(region, g, t, delta)
    return g


def hockey_upper(
    region: Region,
    c: list[Fraction],
    t: Fraction,
    delta: Fraction,
    duals: np.ndarray,
) -> Fraction:
    """Certified upper bound b·y + Σ w from a repaired rational dual (w covers deficits)."""
    rows = oriented_rows(region)
    nrows = len(rows)
    cq, tq, dq = _q(c), fmpq_of(t), fmpq_of(delta)
    zero = flint.fmpq(0)
    best: flint.fmpq | None = None
    for denom in DENOMINATORS:
        y = [v if v > 0 else zero for v in rationalise(duals, denom)]
        reduced = list(cq)
        bound = flint.fmpq(0)
        for r, (a, b) in enumerate(rows):
            y1, y2 = y[r], y[nrows + r]
            if y1:  # f_a − t f_b ≤ δ
                reduced[a] -= y1
                reduced[b] += tq * y1
                bound += dq * y1
            if y2:  # −f_a + t f_b ≤ t − 1 + δ
                reduced[a] += y2
                reduced[b] -= tq * y2
                bound += (tq - 1 + dq) * y2
        for r in reduced:  # f ≤ 1 multipliers
            if r > 0:
                bound += r
        if best is None or bound < best:
            best = bound
    assert best is not None
    return fraction_of(best)
