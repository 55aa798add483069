"""Rigorous rational brackets for real numbers involving exp/log.

Floats must never decide a verdict.  Every value that is not exactly rational is
enclosed in a `Bracket` with exact `Fraction` endpoints, computed by outward-rounded
interval arithmetic (mpmath's interval engine).  Each call uses a private
`MPIntervalContext`, so the global `mpmath.iv` precision is never touched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import sympy
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext

__all__ = [
    "Bracket",
    "Evaluator",
    "IntervalDomainError",
    "bracket",
    "iv_to_bracket",
    "mpf_to_fraction",
    "rational_in",
    "substitute",
]

Rat = Fraction | int
_DISPLAY_DIGITS = 8
_MAX_FRACTION_BITS = 1 << 24


def _as_fraction(x: Any) -> Fraction:
    """Exact Fraction from int/Fraction/sympy Rational; refuse floats (they are inexact)."""
    if isinstance(x, bool):
        raise TypeError("bool is not a number here")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    raise TypeError(f"expected an exact rational (int, Fraction, sympy.Rational), got {x!r}")


# --------------------------------------------------------------------------- Bracket


@dataclass(frozen=True)
class Bracket:
    """A guaranteed enclosure ``lo <= x <= hi`` of a real number, exact rational endpoints."""

    lo: Fraction
    hi: Fraction

    def __post_init__(self) -> None:
        # Coerce ints so callers may write Bracket(0, 1); reject floats outright.
        object.__setattr__(self, "lo", _as_fraction(self.lo))
        object.__setattr__(self, "hi", _as_fraction(self.hi))
        if self.lo > self.hi:
            raise ValueError(f"empty bracket: lo={self.lo} > hi={self.hi}")

    @staticmethod
    def point(x: Rat) -> Bracket:
        """The degenerate bracket [x, x]."""
        x = _as_fraction(x)
        return Bracket(x, x)

    @property
    def width(self) -> Fraction:
        """hi - lo (exact)."""
        return self.hi - self.lo

    @property
    def is_point(self) -> bool:
        """True iff the bracket pins down its number exactly."""
        return self.lo == self.hi

    def contains(self, x: Rat) -> bool:
        """Whether the rational ``x`` lies in the (closed) bracket."""
        x = _as_fraction(x)
        return self.lo <= x <= self.hi

    # Comparisons: True/False only when the answer holds for every pair of values in the
    # two enclosures; None when overlap makes it undecidable at this precision.

    def definitely_lt(self, other: Bracket | Rat) -> bool | None:
        """True if x < y surely, False if x >= y surely, None if undecided."""
        o = _coerce_bracket(other)
        if self.hi < o.lo:
            return True
        if self.lo >= o.hi:
            return False
        return None

    def definitely_gt(self, other: Bracket | Rat) -> bool | None:
        """True if x > y surely, False if x <= y surely, None if undecided."""
        return _coerce_bracket(other).definitely_lt(self)

    def definitely_le(self, other: Bracket | Rat) -> bool | None:
        """True if x <= y surely, False if x > y surely, None if undecided."""
        o = _coerce_bracket(other)
        if self.hi <= o.lo:
            return True
        if self.lo > o.hi:
            return False
        return None

    def definitely_ge(self, other: Bracket | Rat) -> bool | None:
        """True if x >= y surely, False if x < y surely, None if undecided."""
        return _coerce_bracket(other).definitely_le(self)

    def __str__(self) -> str:
        if self.is_point and self.lo.denominator <= 1000:
            return str(self.lo)  # an exact rational: show it exactly
        # Display is rounded outward so the printed interval is still an enclosure.
        lo = _decimal_str(self.lo, _DISPLAY_DIGITS, up=False)
        hi = _decimal_str(self.hi, _DISPLAY_DIGITS, up=True)
        return f"[{lo}, {hi}]"

    def to_json(self) -> dict[str, str]:
        """{"lo": "p/q", "hi": "p/q"} -- exact, round-trips through `from_json`."""
        return {"lo": _frac_str(self.lo), "hi": _frac_str(self.hi)}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Bracket:
        """Inverse of `to_json` (accepts "p/q" or integer strings)."""
        try:
            lo, hi = data["lo"], data["hi"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a bracket JSON object: {data!r}") from exc
        if not isinstance(lo, str | int) or not isinstance(hi, str | int):
            raise ValueError(f"bracket endpoints must be 'p/q' strings: {data!r}")
        return Bracket(Fraction(lo), Fraction(hi))


def _coerce_bracket(x: Bracket | Rat) -> Bracket:
    return x if isinstance(x, Bracket) else Bracket.point(x)


def _frac_str(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _decimal_str(x: Fraction, digits: int, up: bool) -> str:
    """``x`` rounded to ``digits`` significant digits, toward +inf if ``up`` else -inf."""
    if x == 0:
        return "0"
    neg = x < 0
    a = -x if neg else x
    # e = floor(log10 a): estimate from bit lengths (str() of huge ints is capped by
    # Python), then correct exactly with rational comparisons.
    bits = a.numerator.bit_length() - a.denominator.bit_length()
    e = (bits * 30103) // 100000
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    scaled = a * Fraction(10) ** (digits - 1 - e)
    # Rounding the magnitude up moves a negative number down, hence the xor.
    mag_up = up != neg
    m = (
        -((-scaled.numerator) // scaled.denominator)
        if mag_up
        else scaled.numerator // scaled.denominator
    )
    if m >= 10**digits:  # ceiling spilled into the next decade
        m //= 10
        e += 1
    sign = "-" if neg else ""
    if -5 <= e < 15:
        return sign + format(Decimal(m).scaleb(e - digits + 1).normalize(), "f")
    # Scientific notation built by hand: Decimal's default context caps exponents at 1e6.
    ds = str(m).rstrip("0")
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return f"{sign}{mant}e{e:+d}"


# --------------------------------------------------------------------------- mpf <-> Fraction


def mpf_to_fraction(v: tuple[int, int, int, int]) -> Fraction:
    """Exact value of a raw mpf tuple; infinities/NaN are refused (no finite enclosure)."""
    sign, man, exp, bc = v
    if man == 0:
        if v == libmp.fzero:
            return Fraction(0)
        raise ValueError("interval evaluation produced an infinite or NaN endpoint")
    if abs(exp) + bc > _MAX_FRACTION_BITS:
        # e.g. exp(10**12): fine as an mpf, but the exact Fraction would not fit in memory.
        raise ValueError(f"value of magnitude 2^{exp + bc} is too large/small for a Fraction")
    val = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -val if sign else val


class IntervalDomainError(ValueError):
    """A function was applied to an interval reaching outside its domain.

    ``retryable`` is True when the offending interval had positive width, i.e. more
    precision might separate it from the singularity.
    """

    def __init__(self, msg: str, retryable: bool) -> None:
        super().__init__(msg)
        self.retryable = retryable


class Evaluator:
    """Recursive rigorous evaluation of a numeric sympy tree in a private iv context."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.ctx = MPIntervalContext()
        self.ctx.prec = prec
        # 2^-(prec-4): a few ulps, used to widen transcendental results.  mpmath's
        # directed rounding of exp/log is not formally proven correctly rounded, so the
        # extra slack is what makes the enclosure guaranteed rather than merely likely.
        self._slack_shift = prec - 4

    # -- interval helpers (raw (lo, hi) mpf tuples wrapped as ivmpf)

    def from_fraction(self, x: Fraction) -> Any:
        p, q = x.numerator, x.denominator
        lo = libmp.from_rational(p, q, self.prec, libmp.round_floor)
        hi = libmp.from_rational(p, q, self.prec, libmp.round_ceiling)
        return self.ctx.make_mpf((lo, hi))

    def widen(self, iv: Any) -> Any:
        lo, hi = iv._mpi_
        dlo = libmp.mpf_shift(libmp.mpf_abs(lo), -self._slack_shift)
        dhi = libmp.mpf_shift(libmp.mpf_abs(hi), -self._slack_shift)
        lo = libmp.mpf_sub(lo, dlo, self.prec, libmp.round_floor)
        hi = libmp.mpf_add(hi, dhi, self.prec, libmp.round_ceiling)
        return self.ctx.make_mpf((lo, hi))

    @staticmethod
    def sign_info(iv: Any) -> tuple[int, int]:
        lo, hi = iv._mpi_
        return libmp.mpf_sign(lo), libmp.mpf_sign(hi)

    @staticmethod
    def is_point(iv: Any) -> bool:
        lo, hi = iv._mpi_
        return bool(lo == hi)

    def check_finite(self, iv: Any) -> Any:
        for v in iv._mpi_:
            if v[1] == 0 and v != libmp.fzero:
                raise ValueError("interval evaluation produced an infinite or NaN endpoint")
        return iv

    # -- elementary functions with domain checks

    def exp(self, x: Any) -> Any:
        return self.widen(self.ctx.exp(x))

    def log(self, x: Any) -> Any:
        slo, _ = self.sign_info(x)
        if slo <= 0:
            raise IntervalDomainError(
                f"log of an interval containing values <= 0: {x}", not self.is_point(x)
            )
        return self.widen(self.ctx.ln(x))

    def sqrt(self, x: Any) -> Any:
        slo, _ = self.sign_info(x)
        if slo < 0:
            raise IntervalDomainError(
                f"sqrt of an interval containing negative values: {x}", not self.is_point(x)
            )
        return self.widen(self.ctx.sqrt(x))

    def pow_int(self, x: Any, n: int) -> Any:
        slo, shi = self.sign_info(x)
        if n < 0 and slo <= 0 <= shi:
            raise IntervalDomainError(
                f"division by an interval containing 0: {x}", not self.is_point(x)
            )
        return self.check_finite(x**n)

    def pow_rational(self, x: Any, e: Fraction) -> Any:
        if e.denominator == 1:
            return self.pow_int(x, e.numerator)
        slo, shi = self.sign_info(x)
        if slo < 0:
            # sympy's x**(p/q) is the principal (complex) root for x < 0, not a real one.
            raise IntervalDomainError(
                f"non-integer power {e} of an interval containing negative values: {x}",
                not self.is_point(x),
            )
        if e.denominator == 2:
            return self.pow_int(self.sqrt(x), e.numerator)
        if slo == 0:
            if e < 0:
                raise IntervalDomainError(
                    f"negative power {e} of an interval containing 0: {x}", not self.is_point(x)
                )
            # t -> t**e is increasing on [0, inf) and 0**e == 0.
            if shi == 0:
                return self.ctx.make_mpf((libmp.fzero, libmp.fzero))
            hi = self.ctx.make_mpf((x._mpi_[1], x._mpi_[1]))
            top = self.exp(self.from_fraction(e) * self.log(hi))
            return self.ctx.make_mpf((libmp.fzero, top._mpi_[1]))
        return self.exp(self.from_fraction(e) * self.log(x))

    def pow_general(self, x: Any, y: Any) -> Any:
        slo, _ = self.sign_info(x)
        if slo <= 0:
            raise IntervalDomainError(
                f"symbolic power of an interval containing values <= 0: {x}",
                not self.is_point(x),
            )
        return self.exp(y * self.log(x))

    def max2(self, a: Any, b: Any, pick_max: bool) -> Any:
        (alo, ahi), (blo, bhi) = a._mpi_, b._mpi_

        def choose(u: Any, v: Any) -> Any:
            bigger = libmp.mpf_cmp(u, v) >= 0
            return u if bigger == pick_max else v

        return self.ctx.make_mpf((choose(alo, blo), choose(ahi, bhi)))

    # -- the tree walk

    def eval(self, e: sympy.Basic) -> Any:
        if isinstance(e, sympy.Rational):
            return self.from_fraction(Fraction(int(e.p), int(e.q)))
        if isinstance(e, sympy.Float):
            return self.from_fraction(_float_to_fraction(e))
        if e is sympy.E:
            return self.widen(self.ctx.e)
        if e is sympy.pi:
            return self.widen(self.ctx.pi)
        if isinstance(e, sympy.Add):
            return self._fold(e.args, lambda u, v: u + v)
        if isinstance(e, sympy.Mul):
            return self._fold(e.args, lambda u, v: u * v)
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, sympy.exp):
            return self.exp(self.eval(e.args[0]))
        if isinstance(e, sympy.log):
            return self.log(self.eval(e.args[0]))
        if isinstance(e, sympy.Abs):
            return abs(self.eval(e.args[0]))
        if isinstance(e, sympy.Max | sympy.Min):
            pick_max = isinstance(e, sympy.Max)
            vals = [self.eval(a) for a in e.args]
            out = vals[0]
            for v in vals[1:]:
                out = self.max2(out, v, pick_max)
            return out
        if e.is_Symbol:
            raise ValueError(f"free symbol {e} left after substitution")
        if e in (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            raise ValueError(f"expression evaluates to {e}")
        raise ValueError(f"unsupported expression node {type(e).__name__}: {e}")

    def _fold(self, args: tuple[sympy.Basic, ...], op: Callable[[Any, Any], Any]) -> Any:
        acc = self.eval(args[0])
        for a in args[1:]:
            acc = op(acc, self.eval(a))
        return self.check_finite(acc)

    def _pow(self, e: sympy.Pow) -> Any:
        base, ex = e.args
        x = self.eval(base)
        if isinstance(ex, sympy.Rational):
            return self.pow_rational(x, Fraction(int(ex.p), int(ex.q)))
        if isinstance(ex, sympy.Float):
            return self.pow_rational(x, _float_to_fraction(ex))
        return self.pow_general(x, self.eval(ex))


def _float_to_fraction(f: sympy.Float) -> Fraction:
    """The exact binary value of a sympy Float."""
    v = f._mpf_
    return mpf_to_fraction(v)


def iv_to_bracket(iv: Any) -> Bracket:
    lo, hi = iv._mpi_
    # mpf endpoints are dyadic rationals, so this conversion is exact: no widening needed.
    return Bracket(mpf_to_fraction(lo), mpf_to_fraction(hi))


def substitute(expr: sympy.Basic, subs: Mapping[sympy.Symbol, Rat] | None) -> sympy.Basic:
    expr = sympy.sympify(expr)
    if subs:
        repl = {}
        for k, v in subs.items():
            f = _as_fraction(v)
            repl[k] = sympy.Rational(f.numerator, f.denominator)
        expr = expr.xreplace(repl)
    return expr


def bracket(
    expr: sympy.Expr | int | Fraction,
    subs: Mapping[sympy.Symbol, Rat] | None = None,
    prec_bits: int = 128,
    max_prec_bits: int | None = None,
) -> Bracket:
    """Rigorous enclosure of ``expr`` after substituting exact rationals ``subs``.

    Rational results come back as point brackets.  Otherwise the sympy tree is walked
    with outward-rounded interval arithmetic at ``prec_bits``; if a domain check fails
    only because an interval is too wide (e.g. log of [-1e-40, 1e-38]) the evaluation is
    retried at higher precision up to ``max_prec_bits`` (default ``max(16*prec_bits,
    2048)``).  Raises ValueError for free symbols, non-real/undefined values or
    unsupported functions.
    """
    if isinstance(expr, Fraction | int) and not isinstance(expr, bool):
        return Bracket.point(expr)
    if prec_bits < 16:
        raise ValueError("prec_bits must be at least 16")
    e = substitute(expr, subs)
    if isinstance(e, sympy.Rational):
        return Bracket.point(Fraction(int(e.p), int(e.q)))
    free = e.free_symbols
    if free:
        names = ", ".join(sorted(str(s) for s in free))
        raise ValueError(f"free symbols left after substitution: {names}")
    if e.has(sympy.I) or e.has(sympy.zoo) or e.has(sympy.nan) or e.has(sympy.oo):
        raise ValueError(f"expression is not a finite real number: {e}")
    cap = max_prec_bits if max_prec_bits is not None else max(16 * prec_bits, 2048)
    prec = prec_bits
    while True:
        try:
            return iv_to_bracket(Evaluator(prec).eval(e))
        except IntervalDomainError as err:
            if not err.retryable or prec * 4 > cap:
                raise
            prec *= 4


def rational_in(b: Bracket) -> Fraction:
    """The simplest rational (smallest denominator, then numerator) in the closed bracket."""
    lo, hi = b.lo, b.hi
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -_simplest_between(-hi, -lo)
    return _simplest_between(lo, hi)


def _simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """Simplest rational in [a, b], 0 < a <= b, via continued fractions (iterative)."""
    parts: list[int] = []
    while True:
        fl = a.numerator // a.denominator
        if fl == a:
            last = Fraction(fl)
            break
        if fl + 1 <= b:
            last = Fraction(fl + 1)
            break
        # Same integer part and a is not an integer: recurse on the reciprocal tails.
        parts.append(fl)
        a, b = 1 / (b - fl), 1 / (a - fl)
    x = last
    for fl in reversed(parts):
        x = fl + 1 / x
    return x
