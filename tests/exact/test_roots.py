"""Certified positive-root isolation (verifydp.exact.roots): brackets hold the true roots, all
of them and only the positive ones; a double root is refused; a miscounting mutant is caught."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifydp.exact import roots
from verifydp.exact.interval import Evaluator, iv_to_bracket

F = Fraction


def _ev() -> Evaluator:
    return Evaluator(160)


def _coef(ev: Evaluator, rats: list[Fraction]) -> list:
    return [ev.from_fraction(r) if r else None for r in rats]


def _from_roots(rs: list[Fraction]) -> list[Fraction]:
    """Coefficients (lowest power first) of Π (w − r)."""
    out = [F(1)]
    for r in rs:
        out = [F(0), *out]
        for i in range(len(out) - 1):
            out[i] -= r * out[i + 1]
    return out


def _finds(rs: list[Fraction]) -> bool:
    ev = _ev()
    got = roots.positive_roots(ev, _coef(ev, _from_roots(rs))).roots
    pos = sorted(r for r in rs if r > 0)
    return len(got) == len(pos) and all(b.lo <= r <= b.hi for b, r in zip(got, pos, strict=True))


def test_rational_roots_bracketed() -> None:
    ev = _ev()
    rs = [F(1, 3), F(2), F(5)]
    res = roots.positive_roots(ev, _coef(ev, _from_roots(rs)))
    assert res.sign_near_zero == -1  # h(0) = −10/3
    assert len(res.roots) == 3
    for b, r in zip(res.roots, rs, strict=True):
        assert b.lo <= r <= b.hi and b.hi - b.lo <= b.hi / 2**100


def test_interval_coefficient_root() -> None:
    ev = _ev()
    e = ev.exp(ev.from_fraction(F(1)))
    res = roots.positive_roots(ev, [-e, None, ev.from_fraction(F(1))])  # w² − e
    (b,) = res.roots
    eb = iv_to_bracket(e)
    assert b.lo**2 <= eb.hi and b.hi**2 >= eb.lo and b.hi - b.lo < F(1, 10**25)


def test_negative_roots_ignored() -> None:
    assert _finds([F(-1), F(-7, 2), F(2)])


def test_double_root_refused() -> None:
    ev = _ev()
    with pytest.raises(roots.Uncertified):
        roots.positive_roots(ev, _coef(ev, _from_roots([F(1), F(1)])))


def test_undecided_coefficient_refused() -> None:
    ev = _ev()
    zero_ish = ev.ctx.make_mpf((ev.from_fraction(F(-1, 10))._mpi_[0],
                                ev.from_fraction(F(1, 10))._mpi_[1]))
    with pytest.raises(roots.Uncertified):
        roots.positive_roots(ev, [zero_ish, ev.from_fraction(F(1))])


@given(st.lists(st.fractions(min_value=F(-5), max_value=F(20), max_denominator=12),
                min_size=1, max_size=5, unique=True).filter(lambda rs: F(0) not in rs))
def test_random_roots(rs: list[Fraction]) -> None:
    assert _finds(rs)


def test_mutant_descartes_cap_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count capped at 1 stops splitting and reports one root where there are three."""
    rs = [F(1, 3), F(2), F(5)]
    assert _finds(rs)
    real = roots.descartes_bound
    monkeypatch.setattr(roots, "descartes_bound",
                        lambda ev, c: None if real(ev, c) is None else min(real(ev, c), 1))
    assert not _finds(rs)


def test_newton_proposal_is_certified_narrow() -> None:
    """The Newton route returns brackets as narrow as bisection's, each end's sign certified."""
    ev = _ev()
    coef = _coef(ev, _from_roots([F(3, 2), F(5), F(-2)]))
    for (a, b), r in zip(roots.isolate_positive_roots(ev, coef), (F(3, 2), F(5)), strict=True):
        s_left = roots.sign_at(ev, coef, a) if a else roots.positive_roots(ev, coef).sign_near_zero
        got = roots.refine_root(ev, coef, a, b, s_left)
        assert got.lo <= r <= got.hi
        assert got.hi - got.lo <= got.hi / 2 ** (roots.REL_WIDTH_BITS - 2)
        assert roots.sign_at(ev, coef, got.lo) == s_left
        assert roots.sign_at(ev, coef, got.hi) == -s_left


@pytest.mark.parametrize("off", [F(101, 100), F(99, 100), F(1, 3)])
def test_a_wrong_newton_proposal_is_not_trusted(monkeypatch: pytest.MonkeyPatch,
                                                off: Fraction) -> None:
    """Floats only propose: a proposal off the root fails the sign test, and bisection still
    brackets the true root."""
    ev = _ev()
    coef = _coef(ev, _from_roots([F(7, 3)]))
    monkeypatch.setattr(roots, "_newton_point", lambda ev, c, lo, hi: F(7, 3) * off)
    got = roots.positive_roots(ev, coef).roots
    assert len(got) == 1 and got[0].lo <= F(7, 3) <= got[0].hi
    assert got[0].hi - got[0].lo <= got[0].hi / 2 ** (roots.REL_WIDTH_BITS - 2)
