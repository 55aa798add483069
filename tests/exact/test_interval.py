"""Tests for rigorous brackets (verifydp.exact.interval) and t = e^eps rewriting (tfunc)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.exact.interval import (
    Bracket,
    IntervalDomainError,
    bracket,
    rational_in,
)
from verifydp.exact.special import brackets_for_eps, exp_bracket, log_bracket
from verifydp.exact.tfunc import EPS, T, eval_at_t, exp_of, to_t

x, y = sp.symbols("x y", real=True)
r = sp.Symbol("r", positive=True)

rats = st.fractions(min_value=-5, max_value=5, max_denominator=1000)
pos_rats = st.fractions(min_value=Fraction(1, 1000), max_value=5, max_denominator=1000)
unit_rats = st.fractions(min_value=0, max_value=1, max_denominator=1000)
small_eps = st.fractions(min_value=Fraction(1, 100), max_value=3, max_denominator=1000)

PROPERTY = settings(derandomize=True, deadline=None, max_examples=60)

# (name, expression in x, y, r, domain restriction on (x, y, r))
EXPRESSIONS: list[tuple[str, sp.Expr]] = [
    ("exp", sp.exp(x)),
    ("log", sp.log(1 + x**2)),
    ("log_shift", sp.log(6 + x) - sp.exp(-(x**2) / 3)),
    ("nested", sp.log(1 + sp.exp(x)) - sp.exp(sp.log(2 + y**2) / 3)),
    ("symbolic_pow", (1 + x**2) ** y),
    ("rational_pow", (1 + x**2) ** sp.Rational(2, 5) - sp.Rational(3, 7) * (2 + y**2) ** -3),
    ("sqrt_consts", sp.sqrt(1 + x**2) * sp.pi - sp.E**y),
    ("abs", sp.Abs(x - y * sp.pi)),
    ("max_min", sp.Max(sp.exp(x), y) - sp.Min(sp.log(7 + x), y, sp.Rational(1, 3))),
    ("amplification", sp.log(1 + r * (sp.exp(2 * sp.Abs(x)) - 1)) + sp.log(1 + 2 * r * y**2)),
    ("division", sp.exp(x) / (3 + sp.log(2 + y**2))),
]


@functools.cache
def _mp_function(expr: sp.Expr, syms: tuple[sp.Symbol, ...]) -> Callable[..., mpmath.mpf]:
    """The expression as an mpmath function of `syms`, made once per expression (issue 29:
    lambdify on every example was a quarter of the property tests' time)."""
    return sp.lambdify(syms, expr, modules="mpmath")


def _mp_value(expr: sp.Expr, subs: dict[sp.Symbol, Fraction], dps: int = 50) -> Fraction:
    """Reference: evaluate with mpmath at ``dps`` digits, returned as an exact Fraction."""
    syms = sorted(subs, key=str)
    f = _mp_function(expr, tuple(syms))
    with mpmath.workdps(dps):
        args = [mpmath.mpf(subs[s].numerator) / subs[s].denominator for s in syms]
        return _mpf_frac(mpmath.mpf(f(*args)))


def _mpf_frac(v: mpmath.mpf) -> Fraction:
    # Read the raw (sign, man, exp, bc) tuple: mpf.man_exp drops the sign.
    sign, man, exp, _ = v._mpf_
    val = Fraction(man) * Fraction(2) ** exp
    return -val if sign else val


def _contains_reference(b: Bracket, ref: Fraction, dps: int = 50) -> bool:
    # The reference is itself rounded to ~dps digits, so allow that much slack (and no
    # more); brackets are wider than this by many orders of magnitude unless exact.
    tol = abs(ref) * Fraction(1, 10 ** (dps - 3)) + Fraction(1, 10 ** (dps + 10))
    return b.lo - tol <= ref <= b.hi + tol


# --------------------------------------------------------------------------- bracket()


@pytest.mark.parametrize(("name", "expr"), EXPRESSIONS, ids=[n for n, _ in EXPRESSIONS])
@PROPERTY
@given(xv=rats, yv=rats, rv=unit_rats)
def test_bracket_contains_mpmath_value(
    name: str, expr: sp.Expr, xv: Fraction, yv: Fraction, rv: Fraction
) -> None:
    subs = {x: xv, y: yv, r: rv}
    used = {s: v for s, v in subs.items() if s in expr.free_symbols}
    b = bracket(expr, used)
    ref = _mp_value(expr, used)
    assert _contains_reference(b, ref), (name, b, float(ref))
    # 128 bits should give ~35 correct digits for these well-conditioned expressions.
    assert b.width <= Fraction(1, 10**30) * (1 + abs(ref))


@pytest.mark.parametrize(("name", "expr"), EXPRESSIONS, ids=[n for n, _ in EXPRESSIONS])
@PROPERTY
@given(xv=rats, yv=rats, rv=unit_rats)
def test_low_precision_brackets_still_enclose(
    name: str, expr: sp.Expr, xv: Fraction, yv: Fraction, rv: Fraction
) -> None:
    # At 24 bits the rounding is coarse, so enclosure genuinely tests outward rounding.
    subs = {x: xv, y: yv, r: rv}
    used = {s: v for s, v in subs.items() if s in expr.free_symbols}
    b = bracket(expr, used, prec_bits=24)
    assert _contains_reference(b, _mp_value(expr, used)), (name, b)


@PROPERTY
@given(xv=rats)
def test_float_is_its_exact_binary_value(xv: Fraction) -> None:
    fl = sp.Float(float(xv))  # a binary64 value; bracket must use it exactly
    exact = Fraction(float(xv))
    b = bracket(fl * sp.exp(x), {x: xv})
    with mpmath.workdps(50):
        ref = _mpf_frac(
            mpmath.mpf(exact.numerator)
            / exact.denominator
            * mpmath.exp(mpmath.mpf(xv.numerator) / xv.denominator)
        )
    assert _contains_reference(b, ref)
    assert bracket(fl) == Bracket.point(exact)


def test_rational_results_are_points() -> None:
    assert bracket(sp.Rational(3, 7)) == Bracket.point(Fraction(3, 7))
    assert bracket(x**2 + y / 3, {x: Fraction(1, 2), y: 3}) == Bracket.point(Fraction(5, 4))
    assert bracket(sp.exp(x) * sp.exp(-x) + sp.log(y), {x: 5, y: 1}) == Bracket.point(1)
    assert bracket(sp.sqrt(x), {x: Fraction(9, 4)}) == Bracket.point(Fraction(3, 2))
    assert bracket(Fraction(2, 3)) == Bracket.point(Fraction(2, 3))
    assert bracket(5).is_point


@pytest.mark.parametrize(
    ("expr", "subs"),
    [
        (x + y, {x: 1}),  # free symbol left
        (sp.log(x), {x: 0}),  # log 0
        (sp.log(x), {x: -2}),  # complex
        (1 / (x - 1), {x: 1}),  # division by zero
        (sp.sqrt(x), {x: -1}),  # complex
        ((x - 3) ** sp.Rational(1, 3), {x: 1}),  # principal root of a negative: complex
        (sp.sin(x), {x: 1}),  # unsupported function
        (sp.EulerGamma, None),  # unsupported constant
        (sp.oo, None),
    ],
)
def test_bad_inputs_raise_value_error(expr: sp.Expr, subs: dict[sp.Symbol, int] | None) -> None:
    with pytest.raises(ValueError):
        bracket(expr, subs)


def test_domain_errors_on_intervals_not_simplified_by_sympy() -> None:
    # exp(log 3) - 3 == 0, but kept unevaluated so only the interval walk can see it.
    zero = sp.Add(sp.exp(sp.log(3, evaluate=False), evaluate=False), -3, evaluate=False)
    with pytest.raises(IntervalDomainError, match="log"):
        bracket(sp.log(zero, evaluate=False))
    with pytest.raises(IntervalDomainError, match="division"):
        bracket(sp.Pow(zero, -1, evaluate=False))
    with pytest.raises(IntervalDomainError):
        bracket(sp.Pow(-2, sp.Rational(1, 2), evaluate=False))


def test_float_subs_rejected() -> None:
    with pytest.raises(TypeError):
        bracket(sp.exp(x), {x: 0.5})  # type: ignore[dict-item]


def test_precision_escalates_under_cancellation() -> None:
    # exp(x) - 1 - x - x^2/2 ~ x^3/6 ~ 1.7e-91: at 128 bits the interval straddles 0.
    tiny = Fraction(1, 10**30)
    expr = sp.log(sp.exp(x) - 1 - x - x**2 / 2)
    b = bracket(expr, {x: tiny})
    assert _contains_reference(b, _mp_value(expr, {x: tiny}, dps=200), dps=120)
    with pytest.raises(IntervalDomainError):
        bracket(expr, {x: tiny}, max_prec_bits=128)


def test_huge_and_tiny_magnitudes() -> None:
    big = bracket(sp.exp(x), {x: 10**5})
    tiny = bracket(sp.exp(-x), {x: 10**5})
    with mpmath.workdps(60):
        assert _contains_reference(big, _mpf_frac(mpmath.exp(10**5)))
        assert _contains_reference(tiny, _mpf_frac(mpmath.exp(-(10**5))))
    assert big.width < big.lo * Fraction(1, 10**30)
    assert str(big).startswith("[2.8066633e+43429")
    with pytest.raises(ValueError, match="too large"):
        bracket(sp.exp(x), {x: 10**9})


def test_global_mpmath_state_untouched() -> None:
    before = (mpmath.mp.prec, mpmath.iv.prec)
    bracket(sp.exp(x) + sp.log(y), {x: 1, y: 2}, prec_bits=333)
    exp_bracket(Fraction(1, 3), prec_bits=999)
    assert (mpmath.mp.prec, mpmath.iv.prec) == before


# --------------------------------------------------------------------------- helpers


@PROPERTY
@given(v=rats)
def test_exp_bracket(v: Fraction) -> None:
    b = exp_bracket(v)
    with mpmath.workdps(50):
        ref = _mpf_frac(mpmath.exp(mpmath.mpf(v.numerator) / v.denominator))
    assert _contains_reference(b, ref)
    assert b.is_point == (v == 0)


@PROPERTY
@given(v=pos_rats)
def test_log_bracket(v: Fraction) -> None:
    b = log_bracket(v)
    with mpmath.workdps(50):
        ref = _mpf_frac(mpmath.log(mpmath.mpf(v.numerator) / v.denominator))
    assert _contains_reference(b, ref)
    assert b.is_point == (v == 1)


def test_log_bracket_rejects_nonpositive() -> None:
    with pytest.raises(ValueError):
        log_bracket(0)
    with pytest.raises(ValueError):
        log_bracket(Fraction(-1, 2))


@PROPERTY
@given(v=st.fractions(min_value=-50, max_value=50, max_denominator=10**6))
def test_brackets_for_eps(v: Fraction) -> None:
    lo, hi = brackets_for_eps(v)
    assert lo <= hi
    assert hi - lo < lo * Fraction(1, 10**30)
    with mpmath.workdps(60):
        ref = _mpf_frac(mpmath.exp(mpmath.mpf(v.numerator) / v.denominator))
    assert _contains_reference(Bracket(lo, hi), ref, dps=60)


@PROPERTY
@given(a=rats, b=rats)
def test_rational_in_is_simplest_inside(a: Fraction, b: Fraction) -> None:
    br = Bracket(min(a, b), max(a, b))
    q = rational_in(br)
    assert br.contains(q)
    # No rational with a smaller denominator fits (brute force over small denominators).
    for d in range(1, min(q.denominator, 200)):
        k = -((-br.lo * d).numerator // (br.lo * d).denominator)  # ceil(lo*d)
        assert Fraction(k, d) > br.hi


def test_rational_in_examples() -> None:
    assert rational_in(Bracket(Fraction(31415, 10000), Fraction(31416, 10000))) == Fraction(
        333, 106
    )
    assert rational_in(Bracket(Fraction(-7, 3), Fraction(-2))) == -2
    assert rational_in(Bracket(Fraction(-1, 3), Fraction(1, 2))) == 0
    assert rational_in(Bracket.point(Fraction(22, 7))) == Fraction(22, 7)
    assert exp_bracket(1).contains(rational_in(exp_bracket(1)))


# --------------------------------------------------------------------------- Bracket


def test_bracket_construction_and_validation() -> None:
    b = Bracket(0, 1)
    assert b.lo == 0 and isinstance(b.lo, Fraction)
    assert b.width == 1 and not b.is_point
    assert Bracket.point(Fraction(1, 3)).is_point
    with pytest.raises(ValueError):
        Bracket(Fraction(2), Fraction(1))
    with pytest.raises(TypeError):
        Bracket(0.5, 1)  # type: ignore[arg-type]
    assert b.contains(Fraction(1, 2)) and b.contains(0) and b.contains(1)
    assert not b.contains(Fraction(-1, 10**40))


def test_definitely_comparisons() -> None:
    a = Bracket(Fraction(1), Fraction(2))
    c = Bracket(Fraction(3), Fraction(4))
    touching = Bracket(Fraction(2), Fraction(3))
    overlap = Bracket(Fraction(3, 2), Fraction(5, 2))
    assert a.definitely_lt(c) is True and c.definitely_gt(a) is True
    assert c.definitely_lt(a) is False and a.definitely_gt(c) is False
    for other in (touching, overlap):
        assert a.definitely_lt(other) is None
    assert a.definitely_gt(overlap) is None
    # Touching at 2: x <= 2 <= y, so "x > y" is surely false, but "x < y" is undecided.
    assert a.definitely_gt(touching) is False
    assert a.definitely_le(touching) is True
    assert a.definitely_ge(touching) is None
    assert a.definitely_lt(Fraction(3, 2)) is None
    assert a.definitely_lt(2) is None
    assert a.definitely_lt(3) is True and a.definitely_gt(0) is True
    p = Bracket.point(Fraction(2))
    assert p.definitely_lt(2) is False and p.definitely_gt(2) is False
    assert p.definitely_le(2) is True and p.definitely_ge(2) is True
    e = exp_bracket(1)
    assert e.definitely_gt(Fraction(2718281828, 10**9)) is True
    assert e.definitely_lt(Fraction(2718281829, 10**9)) is True


def test_json_round_trip() -> None:
    b = exp_bracket(Fraction(1, 3))
    js = b.to_json()
    assert set(js) == {"lo", "hi"} and all("/" in v for v in js.values())
    assert Bracket.from_json(js) == b
    assert Bracket.point(3).to_json() == {"lo": "3/1", "hi": "3/1"}
    with pytest.raises(ValueError):
        Bracket.from_json({"lo": "1"})


@PROPERTY
@given(
    a=st.fractions(max_denominator=10**12) | st.fractions(min_value=-1, max_value=1),
    b=st.fractions(max_denominator=10**12),
)
def test_str_rounds_outward(a: Fraction, b: Fraction) -> None:
    br = Bracket(min(a, b), max(a, b))
    s = str(br)
    if br.is_point and br.lo.denominator <= 1000:
        assert Fraction(s) == br.lo  # exact rationals are shown exactly
        return
    assert s.startswith("[") and s.endswith("]")
    lo_s, hi_s = s[1:-1].split(", ")
    assert Fraction(lo_s) <= br.lo and Fraction(hi_s) >= br.hi
    # ~8 significant digits: displayed endpoints are close to the true ones.
    for shown, true in ((Fraction(lo_s), br.lo), (Fraction(hi_s), br.hi)):
        assert abs(shown - true) <= abs(true) * Fraction(1, 10**7)


def test_str_examples() -> None:
    assert str(Bracket.point(1)) == "1"
    assert str(Bracket.point(Fraction(5, 2))) == "5/2"
    assert str(exp_bracket(1)) == "[2.7182818, 2.7182819]"
    assert str(Bracket(Fraction(-1, 3), Fraction(1, 3))) == "[-0.33333334, 0.33333334]"
    assert str(Bracket(Fraction(99999999), Fraction(999999995, 10))) == "[99999999, 100000000]"


# --------------------------------------------------------------------------- tfunc


def test_exp_of_amplification_example() -> None:
    eps_prime = sp.log(1 + 2 * r * (sp.exp(2 * EPS) - 1)) + sp.log(1 + r * (sp.exp(2 * EPS) - 1))
    got = to_t(exp_of(eps_prime))
    want = (1 + 2 * r * (T**2 - 1)) * (1 + r * (T**2 - 1))
    assert sp.simplify(got - want) == 0
    assert not got.has(EPS)


EPS_EXPRESSIONS: list[sp.Expr] = [
    sp.log(1 + 2 * r * (sp.exp(2 * EPS) - 1)) + sp.log(1 + r * (sp.exp(2 * EPS) - 1)),
    sp.log(1 + r * (sp.exp(EPS) - 1)),
    EPS / 2 + sp.log(1 + r),
    3 * (sp.log(r + 1) - sp.log(sp.exp(EPS) + 1)),
    -sp.log(1 - r / 2) + sp.Rational(1, 3) * sp.log(sp.exp(3 * EPS) + r),
    sp.log(1 + r * (sp.exp(EPS) - 1)) * r,
]


@pytest.mark.parametrize("eps_prime", EPS_EXPRESSIONS, ids=[str(e) for e in EPS_EXPRESSIONS])
@PROPERTY
@given(ev=small_eps, rv=unit_rats)
def test_exp_of_and_to_t_match_mpmath(eps_prime: sp.Expr, ev: Fraction, rv: Fraction) -> None:
    rewritten = exp_of(eps_prime)
    in_t = to_t(rewritten)
    f_orig = sp.lambdify((EPS, r), sp.exp(eps_prime), modules="mpmath")
    f_t = sp.lambdify((T, r), in_t, modules="mpmath")
    with mpmath.workdps(50):
        e = mpmath.mpf(ev.numerator) / ev.denominator
        rr = mpmath.mpf(rv.numerator) / rv.denominator
        want = f_orig(e, rr)
        got = f_t(mpmath.exp(e), rr)
        assert abs(got - want) <= abs(want) * mpmath.mpf(10) ** -45


def test_exp_of_rules() -> None:
    a, b = sp.symbols("a b")
    assert exp_of(sp.log(a)) == a
    assert exp_of(-sp.log(a)) == 1 / a
    assert exp_of(sp.log(a) + sp.log(b)) == a * b
    assert exp_of(b * sp.log(a)) == a**b
    assert exp_of(a) == sp.exp(a)
    assert exp_of(a + sp.log(b)) == b * sp.exp(a)
    # c*(log a + log b) with c symbolic: distributed, then split.
    c = sp.Symbol("c")
    got = exp_of(sp.Mul(c, sp.Add(sp.log(a), sp.log(b)), evaluate=False))
    assert got == a**c * b**c


def test_to_t_rules() -> None:
    assert to_t(sp.exp(EPS)) == T
    assert to_t(sp.exp(2 * EPS)) == T**2
    assert to_t(sp.exp(-EPS / 2)) == T ** sp.Rational(-1, 2)
    assert to_t(sp.exp(EPS) ** 3) == T**3
    assert sp.simplify(to_t(sp.exp(3 * (EPS + sp.log(2)))) - 8 * T**3) == 0
    assert to_t(1 + r * (sp.exp(EPS) - 1)) == 1 + r * (T - 1)
    assert to_t(r) == r
    assert to_t(2**EPS) == T ** sp.log(2)
    assert eval_at_t(4 ** (EPS / 2) * 3, Fraction(5, 2)) is None  # (5/2)**log 2: irrational
    with pytest.raises(ValueError):
        to_t(EPS * sp.exp(EPS))
    with pytest.raises(ValueError):
        to_t(sp.exp(EPS**2))


def test_eval_at_t_exact() -> None:
    m, n = sp.symbols("m n", positive=True, integer=True)
    claim = 1 + (m / n) * (sp.exp(EPS) - 1)
    t = Fraction(7, 3)
    assert eval_at_t(claim, t, {m: 2, n: 5}) == 1 + Fraction(2, 5) * (t - 1)
    assert eval_at_t(sp.exp(EPS / 2), 4) == 2
    assert eval_at_t(sp.exp(EPS / 2), 2) is None  # sqrt 2 is irrational
    assert eval_at_t(sp.exp(EPS) * r, 3) is None  # free symbol left
    assert eval_at_t((1 + sp.sqrt(2)) * (1 - sp.sqrt(2)) * sp.exp(EPS), 2) == -2
    with pytest.raises(ValueError):
        eval_at_t(sp.exp(EPS), 0)
    with pytest.raises(TypeError):
        eval_at_t(sp.exp(EPS) * r, 2, {r: 0.5})  # type: ignore[dict-item]


@PROPERTY
@given(t=st.fractions(min_value=Fraction(1, 100), max_value=20, max_denominator=1000), rv=unit_rats)
def test_eval_at_t_agrees_with_bracket(t: Fraction, rv: Fraction) -> None:
    eps_prime = EPS_EXPRESSIONS[0]
    e_prime = exp_of(eps_prime)
    val = eval_at_t(e_prime, t, {r: rv})
    assert val is not None
    # Independent route: substitute eps = log t and bracket rigorously.
    b = bracket(
        sp.exp(eps_prime).xreplace({EPS: sp.log(sp.Rational(t.numerator, t.denominator))}), {r: rv}
    )
    assert b.contains(val)
