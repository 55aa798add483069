"""Certified isolation of the positive real roots of a polynomial with interval coefficients.

Used by the hockey-stick brackets of Gaussian mixtures (Zhao & Liu, MUST §3.3, claim
`must/sec3.3:pair`): P − e^ε Q = φ_σ(t)·h(w) with w = e^{t/(Dσ²)} and h a polynomial whose
coefficients are only known as intervals, so the sign changes of h on w > 0 decide where the
optimal event {P > e^ε Q} starts and ends (docs/foundations.md#rigorous-brackets).

Method (Vincent–Collins–Akritas): the positive roots of h in (a, b) are the positive roots
of (1 + v)^d h((a + b v)/(1 + v)) (or of h(a + v) for b = ∞), and Descartes' rule of signs
bounds their number (with multiplicity) by the sign variations of its coefficients.  A
coefficient counts only when its sign is certified for every polynomial in the interval
family, so a count of 0 or 1 holds for the true polynomial; a count of 1 is a simple root,
hence a sign change.  Intervals with a larger count are split at a point where the sign of h
is certified.  Each isolated root is then narrowed: Newton steps on the intervals' midpoints
*propose* a point r (a search, not a decision), and the root is certified in
[r − d, r + d] only when h has certified opposite signs at both ends; otherwise, bisection on
certified signs.

Nothing here decides with floats: the only arithmetic is the evaluator's outward-rounded
interval arithmetic on exact rational points.  When a sign cannot be certified at the
evaluator's precision the functions raise `Uncertified` rather than guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from verifydp.exact.interval import Evaluator, mpf_to_fraction

__all__ = [
    "PositiveRoots",
    "RootBracket",
    "Uncertified",
    "descartes_bound",
    "isolate_positive_roots",
    "positive_roots",
    "refine_root",
    "sign_at",
]

# a coefficient list: interval values (the evaluator's ivmpf) or None for a structural zero
Coefficients = Sequence[Any | None]

MAX_DEPTH = 80
REFINE_STEPS = 200
REL_WIDTH_BITS = 110
NEWTON_STEPS = 12


class Uncertified(ArithmeticError):
    """A sign could not be certified at the working precision."""


@dataclass(frozen=True)
class RootBracket:
    """A positive simple root of h lies in [lo, hi] (exact rationals, 0 < lo ≤ hi)."""

    lo: Fraction
    hi: Fraction


@dataclass(frozen=True)
class PositiveRoots:
    """Every positive root of h, in increasing order, and the sign of h on (0, first root)."""

    sign_near_zero: int
    roots: tuple[RootBracket, ...]


def _sign(ev: Evaluator, iv: Any) -> int | None:
    """+1 / −1 when certified, 0 for an exact point zero, None when undecided."""
    slo, shi = ev.sign_info(iv)
    if slo > 0:
        return 1
    if shi < 0:
        return -1
    if slo == 0 and shi == 0:
        return 0
    return None


def _horner(ev: Evaluator, coef: Coefficients, w: Any) -> Any:
    acc = ev.from_fraction(Fraction(0))
    for v in reversed(coef):
        acc = acc * w
        if v is not None:
            acc = acc + v
    return acc


def sign_at(ev: Evaluator, coef: Coefficients, w: Fraction) -> int | None:
    """The certified sign of h(w) at a rational point (None when undecided)."""
    return _sign(ev, _horner(ev, coef, ev.from_fraction(Fraction(w))))


def _poly_pow(base: list[Fraction], k: int) -> list[Fraction]:
    out = [Fraction(1)]
    for _ in range(k):
        nxt = [Fraction(0)] * (len(out) + len(base) - 1)
        for i, u in enumerate(out):
            for j, v in enumerate(base):
                nxt[i + j] += u * v
        out = nxt
    return out


def _transform(ev: Evaluator, coef: Coefficients, a: Fraction,
               b: Fraction | None) -> list[Any | None]:
    """Coefficients whose positive roots v are the roots of h in (a, b) (b None = ∞):
    (1+v)^d h((a + b v)/(1+v)) for finite b, h(a + v) otherwise; exact rational factors."""
    d = len(coef) - 1
    out: list[Any | None] = [None] * (d + 1)
    for k, hk in enumerate(coef):
        if hk is None:
            continue
        if b is None:
            row = [Fraction(comb(k, j)) * a ** (k - j) for j in range(k + 1)]
        else:
            p1 = _poly_pow([a, b], k)
            p2 = [Fraction(comb(d - k, j)) for j in range(d - k + 1)]
            row = [Fraction(0)] * (d + 1)
            for u, cu in enumerate(p1):
                for v, cv in enumerate(p2):
                    row[u + v] += cu * cv
        for j, r in enumerate(row):
            if r:
                term = hk * ev.from_fraction(r)
                prev = out[j]
                out[j] = term if prev is None else prev + term
    return out


def descartes_bound(ev: Evaluator, coef: Coefficients) -> int | None:
    """Sign variations of the coefficients (an upper bound on the number of positive roots,
    with multiplicity, of every polynomial in the family), or None if a sign is undecided."""
    signs = []
    for v in coef:
        if v is None:
            continue
        s = _sign(ev, v)
        if s is None:
            return None
        if s:
            signs.append(s)
    return sum(1 for u, v in zip(signs, signs[1:], strict=False) if u != v)


def _split_point(ev: Evaluator, coef: Coefficients, a: Fraction, b: Fraction | None) -> Fraction:
    """A point of (a, b) near its middle where the sign of h is certified."""
    mid = (a + b) / 2 if b is not None else (2 * a if a > 0 else Fraction(1))
    for k in range(1, 20):
        if sign_at(ev, coef, mid):
            return mid
        mid = mid + (b - a) / (7 * 2**k) if b is not None else mid * (1 + Fraction(1, 7 * k))
    raise Uncertified("no certified split point")


def _trimmed(coef: Coefficients) -> list[Any | None]:
    out = list(coef)
    while out and out[-1] is None:
        out.pop()
    if not out:
        raise ValueError("the zero polynomial has no isolated roots")
    return out


def isolate_positive_roots(ev: Evaluator, coef: Coefficients,
                           max_depth: int = MAX_DEPTH) -> list[tuple[Fraction, Fraction | None]]:
    """Disjoint open intervals (a, b) of w > 0, increasing, each holding exactly one root of h
    (simple), and together holding all of them; b None means ∞.  The ends are rational points
    where the sign of h is certified (or 0)."""
    coef = _trimmed(coef)
    out: list[tuple[Fraction, Fraction | None]] = []
    stack: list[tuple[Fraction, Fraction | None, int]] = [(Fraction(0), None, 0)]
    while stack:
        a, b, depth = stack.pop()
        count = descartes_bound(ev, _transform(ev, coef, a, b))
        if count is None:
            raise Uncertified(f"a Descartes sign on ({a}, {b}) is not certified")
        if count == 0:
            continue
        if count == 1:
            out.append((a, b))
            continue
        if depth > max_depth:
            raise Uncertified("root isolation did not converge")
        s = _split_point(ev, coef, a, b)
        stack.append((a, s, depth + 1))
        stack.append((s, b, depth + 1))
    return sorted(out, key=lambda r: r[0])


def _newton_point(ev: Evaluator, coef: Coefficients, lo: Fraction, hi: Fraction
                  ) -> Fraction | None:
    """A proposed root of h in (lo, hi) by Newton's method on midpoints (None if it leaves
    the interval or does not settle); only a search: `refine_root` certifies the result."""
    dcoef = [None if v is None else v * ev.from_fraction(Fraction(k))
             for k, v in enumerate(coef)][1:]
    m = (lo + hi) / 2
    for _ in range(NEWTON_STEPS):
        hv = _horner(ev, coef, ev.from_fraction(m))
        dv = _horner(ev, dcoef, ev.from_fraction(m))
        if _sign(ev, dv) in (None, 0):
            return None
        step = mpf_to_fraction((hv / dv).mid._mpi_[0])
        nxt = _dyadic(m - step, REL_WIDTH_BITS + 16)
        if not lo < nxt < hi:
            return None
        if abs(nxt - m) <= nxt / 2 ** (REL_WIDTH_BITS + 8):
            return nxt
        m = nxt
    return None


def _dyadic(x: Fraction, bits: int) -> Fraction:
    """x rounded to `bits` significant bits (x > 0): short exact points to evaluate at."""
    shift = bits - x.numerator.bit_length() + x.denominator.bit_length()
    return Fraction(round(x * 2**shift)) / 2**shift if shift > 0 else Fraction(round(x))


def _certified_near(ev: Evaluator, coef: Coefficients, r: Fraction, lo: Fraction,
                    hi: Fraction, s_left: int) -> RootBracket | None:
    """[r − d, r + d] with d = r·2^-k, the narrowest (k from REL_WIDTH_BITS down) whose ends
    have certified opposite signs inside (lo, hi): then the simple root is inside."""
    for bits in range(REL_WIDTH_BITS, REL_WIDTH_BITS - 40, -10):
        d = Fraction(1, 2 ** (bits - r.numerator.bit_length() + r.denominator.bit_length()))
        a, b = r - d, r + d
        if not lo <= a < b <= hi:
            return None
        if sign_at(ev, coef, a) == s_left and sign_at(ev, coef, b) == -s_left:
            return RootBracket(a, b)
    return None


def refine_root(ev: Evaluator, coef: Coefficients, a: Fraction, b: Fraction | None,
                s_left: int, steps: int = REFINE_STEPS) -> RootBracket:
    """Narrow the unique simple root of h in (a, b) (from `isolate_positive_roots`), where h
    has sign `s_left` just right of a.  Ends move only on certified signs, so the root stays
    inside; a Newton proposal is kept only when the signs at its two ends certify it, and
    otherwise bisection stops at relative width 2^-110 or where signs become undecided."""
    lo, hi = a, b
    if hi is None:
        hi = max(2 * a, Fraction(1))
        for _ in range(4 * REFINE_STEPS):
            s = sign_at(ev, coef, hi)
            if s == -s_left:
                break
            if s == s_left:  # only a certified sign may move the lower end past hi
                lo = hi
            hi *= 2
        else:
            raise Uncertified("no certified point beyond the last root")
    r = _newton_point(ev, coef, lo, hi)
    found = _certified_near(ev, coef, r, lo, hi, s_left) if r is not None else None
    if found is not None:
        return found
    for _ in range(steps):
        if lo > 0:  # off-centre tries: a rational root at the midpoint leaves it undecided
            tries = [(lo + hi) / 2, lo + (hi - lo) * 3 / 7, lo + (hi - lo) * 4 / 7]
        else:
            tries = [hi / 256]
        mid, s = tries[0], None
        for mid in tries:
            s = sign_at(ev, coef, mid)
            if s is not None:
                break
        if s == 0:
            return RootBracket(mid, mid)  # h(mid) is exactly 0 (a point interval)
        if s is None:
            break  # undecided here: the bracket is as tight as this precision allows
        if s == s_left:
            lo = mid
        else:
            hi = mid
        if lo > 0 and hi - lo <= hi / 2**REL_WIDTH_BITS:
            break
    if lo <= 0:
        raise Uncertified("root bracket reaches w = 0")
    return RootBracket(lo, hi)


def positive_roots(ev: Evaluator, coef: Coefficients) -> PositiveRoots:
    """All positive roots of h as narrow certified brackets, and the sign of h near 0⁺ (the
    sign of its lowest non-zero coefficient).  Raises `Uncertified` when a needed sign is not
    decided at the evaluator's precision."""
    coef = _trimmed(coef)
    first = next((v for v in coef if v is not None), None)
    s0 = _sign(ev, first)
    if not s0:
        raise Uncertified("sign of the lowest coefficient is not certified")
    roots = []
    for a, b in isolate_positive_roots(ev, coef):
        s_left = s0 if a == 0 else sign_at(ev, coef, a)
        if not s_left:
            raise Uncertified(f"sign of h at w = {a} not certified")
        roots.append(refine_root(ev, coef, a, b, s_left))
    return PositiveRoots(s0, tuple(roots))
