"""Smooth sensitivity of the median as printed in hu eq. (4) (claim hu/median).

Δ^S(Y_N) = max_{k=0..N} e^{−kβ} max_{t=0..k+1} (y_{(N+1)/2+t} − y_{(N+1)/2+t−k−1}),
β = ε/(2 log(2/δ)), N odd, y sorted.  The paper does not say what y_i means for i < 1 or
i > N, which the formula reaches for large k; Nissim, Raskhodnikova and Smith (2007), whom it
cites, set y_i = 0 below and y_i = Λ (the upper end of the range) above.  Both readings are
implemented (`Boundary`); the oracle is the definition itself — the largest local sensitivity
over all datasets within k replacements — computed by brute force on a small integer grid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import Enum
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement

import sympy

from verifydp.exact.interval import Bracket, bracket


class Boundary(str, Enum):
    NISSIM = "y_i = 0 for i < 1, y_i = Λ for i > N (Nissim et al. 2007)"
    IN_RANGE = "only terms with both indices in 1..N (a literal reading)"


def median(ys: Sequence[int]) -> Fraction:
    """The median of an odd-sized dataset (the paper's m_N)."""
    s = sorted(ys)
    if len(s) % 2 == 0:
        raise ValueError("the paper's smooth sensitivity is stated for N odd")
    return Fraction(s[len(s) // 2])


def printed_a_k(ys: Sequence[int], k: int, top: int, boundary: Boundary = Boundary.NISSIM
                ) -> int | None:
    """max_{t=0..k+1} (y_{m+t} − y_{m+t−k−1}) with m = (N+1)/2 (None: no term defined)."""
    s = sorted(ys)
    size, mid = len(s), (len(s) + 1) // 2

    def y(i: int) -> int | None:
        if 1 <= i <= size:
            return s[i - 1]
        if boundary is Boundary.IN_RANGE:
            return None
        return 0 if i < 1 else top

    terms = [(hi, lo) for t in range(k + 2)
             if (hi := y(mid + t)) is not None and (lo := y(mid + t - k - 1)) is not None]
    return max((hi - lo for hi, lo in terms), default=None)


def printed_profile(ys: Sequence[int], top: int, boundary: Boundary = Boundary.NISSIM
                    ) -> tuple[int, ...]:
    """(A_0, …, A_N) of eq. (4); an undefined A_k (no term) counts as 0."""
    return tuple(printed_a_k(ys, k, top, boundary) or 0 for k in range(len(ys) + 1))


def printed_local_sensitivity(ys: Sequence[int]) -> int:
    """§2.2 as printed: max(y_{(m+1)} − y_{(m)}, y_{(m)} − y_{(m−1)}), N odd ≥ 3."""
    s = sorted(ys)
    mid = len(s) // 2  # 0-based index of the median
    return max(s[mid + 1] - s[mid], s[mid] - s[mid - 1])


# ------------------------------------------------------------------ brute-force oracle


@cache
def datasets(size: int, top: int) -> tuple[tuple[int, ...], ...]:
    """Every dataset of `size` values in {0..top}, as a sorted tuple (a multiset)."""
    return tuple(combinations_with_replacement(range(top + 1), size))


def distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Replacements needed to turn multiset a into multiset b (equal sizes)."""
    return len(a) - sum((Counter(a) & Counter(b)).values())


@cache
def local_sensitivity(ys: tuple[int, ...], top: int) -> Fraction:
    """max |med(Y) − med(Y')| over one replacement with a value in {0..top} (brute force)."""
    med = median(ys)
    best = Fraction(0)
    for i in range(len(ys)):
        for new in range(top + 1):
            other = ys[:i] + (new,) + ys[i + 1:]
            best = max(best, abs(median(other) - med))
    return best


def oracle_profile(ys: Sequence[int], top: int) -> tuple[Fraction, ...]:
    """A^{(k)}(Y) = max LS(Y') over Y' within k replacements, k = 0..N (brute force)."""
    base = tuple(sorted(ys))
    out = []
    for k in range(len(base) + 1):
        out.append(max(local_sensitivity(other, top) for other in datasets(len(base), top)
                       if distance(base, other) <= k))
    return tuple(out)


def global_sensitivity(size: int, top: int) -> Fraction:
    """max LS over every dataset of `size` values in {0..top} (brute force)."""
    return max(local_sensitivity(ys, top) for ys in datasets(size, top))


# ------------------------------------------------------------------ the smooth sensitivity


def beta(eps: sympy.Expr, delta: sympy.Expr) -> sympy.Expr:
    """β = ε/(2 log(2/δ)) as printed."""
    return eps / (2 * sympy.log(2 / delta))


def smooth_sensitivity(profile: Sequence[int], b: sympy.Expr) -> Bracket:
    """Rigorous bracket of max_k e^{−kβ} A_k: the hull of the termwise brackets' maxima."""
    terms = [bracket(sympy.Integer(a) * sympy.exp(-k * b)) for k, a in enumerate(profile) if a]
    if not terms:
        return Bracket.point(0)
    return Bracket(max(t.lo for t in terms), max(t.hi for t in terms))
