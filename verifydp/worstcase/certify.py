"""Exact certification of float LP solutions (docs/foundations.md#fact-5).

A float primal is turned into an exactly feasible rational acceptance function (a witness
mechanism and a certified lower bound); a float dual into an exactly feasible rational dual
(a certified upper bound). Nothing here trusts a float comparison.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from verifydp.worstcase.lp import oriented_rows
from verifydp.worstcase.region import Region, neighbours_of

DENOMINATORS = (10**3, 10**6, None)  # None: the float's exact binary value


def rationalise(values: Sequence[float] | np.ndarray, denom: int | None) -> list[Fraction]:
    out = []
    for v in values:
        fr = Fraction(float(v))
        out.append(fr.limit_denominator(denom) if denom else fr)
    return out


def dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b) if x and y), Fraction(0))


# ---------------------------------------------------------------- ratio (pure ε-DP)


def lipschitz_closure(region: Region, f: list[Fraction], t: Fraction) -> list[Fraction]:
    """Smallest g ≥ f with g_y ≤ t·g_x on every edge (max-product Dijkstra, exact)."""
    g = [max(v, Fraction(0)) for v in f]
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


def ratio_edges_ok(region: Region, f: Sequence[Fraction], t: Fraction) -> bool:
    return all(f[i] <= t * f[j] and f[j] <= t * f[i] for i, j in region.edges)


def two_sided_ok(region: Region, f: Sequence[Fraction], t: Fraction, delta: Fraction) -> bool:
    """Every DP constraint of the binary mechanism f on every edge, both orientations."""
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
    best: tuple[Fraction, list[Fraction]] | None = None
    for denom in DENOMINATORS:
        g = lipschitz_closure(region, rationalise(primal, denom), t)
        num, den = dot(p, g), dot(q, g)
        if den <= 0:
            continue
        r = num / den
        if best is None or r > best[0]:
            best = (r, g)
    if best is None:  # degenerate float output: the constant function is always feasible
        g = [Fraction(1)] * len(region.points)
        best = (dot(p, g) / dot(q, g), g)
    r, g = best
    # Scale into [0, (t-1)/t] so the 1 - f constraints hold too (fact 1): a genuine mechanism.
    top = max(g)
    scale = (t - 1) / (t * top) if t > 1 else Fraction(1, 2) / top
    witness = [v * scale for v in g]
    # the lower bound is only as good as this exact check of every DP constraint
    if not two_sided_ok(region, witness, t, Fraction(0)):
        raise AssertionError("certified ratio witness violates a DP constraint")
    return r, witness


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
    best: Fraction | None = None
    for denom in DENOMINATORS:
        w = [max(v, Fraction(0)) for v in rationalise(edge_duals, denom)]
        lam = max(rationalise([q_dual], denom)[0], Fraction(0))
        deficit = list(p)
        for r, (x, y) in enumerate(rows):
            if w[r]:
                deficit[x] -= w[r]
                deficit[y] += t * w[r]
        for x in range(len(deficit)):
            deficit[x] -= lam * q[x]
        parent, order = _bfs_tree(region, q)
        for x in order:  # farthest first
            if deficit[x] > 0 and q[x] == 0:
                px = parent[x]
                deficit[px] += t * deficit[x]
                deficit[x] = Fraction(0)
        extra = max((deficit[x] / q[x] for x in range(len(q)) if q[x] > 0), default=Fraction(0))
        bound = lam + max(extra, Fraction(0))
        if best is None or bound < best:
            best = bound
    assert best is not None
    return best


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
    best: tuple[Fraction, list[Fraction]] | None = None
    for denom in DENOMINATORS:
        f = [min(max(v, Fraction(0)), Fraction(1)) for v in rationalise(primal, denom)]
        f = _mix_to_feasible(region, f, t, delta)
        if not two_sided_ok(region, f, t, delta):
            raise AssertionError("certified hockey-stick witness violates a DP constraint")
        val = dot(c, f)
        if best is None or val > best[0]:
            best = (val, f)
    assert best is not None
    return best


def _mix_to_feasible(
    region: Region, f: list[Fraction], t: Fraction, delta: Fraction
) -> list[Fraction]:
    viol = Fraction(0)
    for i, j in region.edges:
        for a, b in ((f[i], f[j]), (f[j], f[i])):
            viol = max(viol, a - t * b - delta, (1 - a) - t * (1 - b) - delta)
    if viol <= 0:
        return f
    slack = delta + (t - 1) / 2  # slack of the constant 1/2 in both constraint families
    eta = Fraction(1) if slack == 0 else min(Fraction(1), viol / (viol + slack))
    g = [(1 - eta) * v + eta / 2 for v in f]
    assert two_sided_ok(region, g, t, delta)
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
    best: Fraction | None = None
    for denom in DENOMINATORS:
        y = [max(v, Fraction(0)) for v in rationalise(duals, denom)]
        reduced = list(c)
        bound = Fraction(0)
        for r, (a, b) in enumerate(rows):
            y1, y2 = y[r], y[nrows + r]
            if y1:  # f_a − t f_b ≤ δ
                reduced[a] -= y1
                reduced[b] += t * y1
                bound += delta * y1
            if y2:  # −f_a + t f_b ≤ t − 1 + δ
                reduced[a] += y2
                reduced[b] -= t * y2
                bound += (t - 1 + delta) * y2
        bound += sum((r for r in reduced if r > 0), Fraction(0))  # f ≤ 1 multipliers
        if best is None or bound < best:
            best = bound
    assert best is not None
    return best
