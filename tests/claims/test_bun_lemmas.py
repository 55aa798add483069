"""Claim checkers of `verifydp.claims.bun.lemmas` (Bun et al. Fig. 2, Props 4.1/4.2, Lemmas
A.4/B.3): verdicts as printed, mutants of each printed formula that must be caught, true
variants that must stay true, and independent cross-checks of the exact computations."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy

from verifydp.claims import catalogue
from verifydp.claims.base import Budget, Verdict
from verifydp.claims.bun import amplification as bun
from verifydp.claims.bun import lemmas as bl
from verifydp.designs import RandomSizeWOR, Rounding, round_allocation
from verifydp.exact.dist import FiniteDist
from verifydp.exact.interval import bracket
from verifydp.exact.tfunc import EPS, T
from verifydp.mechanisms import GeometricCount

E, LOG = sympy.exp, sympy.log
EPSP, Q, ALPHA, ET, N = bl.EPS_PRIME, bl.Q, bl.ALPHA, bl.E_TILDE, bun.n

EXPECTED = {
    "bun/fig2": Verdict.REFUTED,
    "bun/prop4.1": Verdict.HOLDS,
    "bun/prop4.2": Verdict.REFUTED,
    "bun/lemA.4": Verdict.HOLDS,
    "bun/lemB.3": Verdict.HOLDS,
}


def fast() -> Budget:
    return Budget(fail_fast=True)


def test_catalogue_has_the_claims() -> None:
    assert set(EXPECTED) <= set(catalogue())


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_printed_claim_verdict(claim_id: str) -> None:
    res = catalogue()[claim_id].check()
    assert res.verdict is EXPECTED[claim_id], res.summary()
    assert res.instances and all(i.params for i in res.instances)
    assert all(i.verdict is not Verdict.INCONCLUSIVE for i in res.instances), res.summary()


def _statement(res, prefix: str):  # type: ignore[no-untyped-def]
    return next(s for s in res.statements if s.text.startswith(prefix))


# ------------------------------------------------------------------ statement-level detail


def test_fig2_statements() -> None:
    res = catalogue()["bun/fig2"].check()
    verdicts = [s.verdict for s in res.statements]
    # the three narrative sentences hold for the plotted (printed) curves ...
    assert verdicts[:3] == [Verdict.HOLDS] * 3
    # ... but the guarantee of M_C itself is ≥ ε at every σ, above the plotted upper curve
    assert verdicts[3] is Verdict.REFUTED
    assert all(i.verdict is Verdict.REFUTED for i in res.statements[3].instances)
    at_800 = res.statements[2].instances[0]
    assert at_800.params["sigma"] == "800" and "3.21% off" in at_800.actual


def test_prop42_statements() -> None:
    res = catalogue()["bun/prop4.2"].check()
    def v(prefix: str) -> Verdict:
        return _statement(res, prefix).verdict

    assert v("the proposition") is Verdict.REFUTED  # the counterexample f = f̃ = K·1[...]
    assert v("the counterexample's") is Verdict.HOLDS  # its hypothesis, checked by the engine
    assert v("f(P) = r|P|") is Verdict.HOLDS  # randomised rounding: holds, but vacuously
    assert v("(proof, App. F)") is Verdict.REFUTED  # E[Lap(1/ε)²] = 2/ε², not 1/ε²


# ------------------------------------------------------------------ mutants that must be caught


def _untilted_fig2():  # type: ignore[no-untyped-def]
    return bl.check_fig2(fast(), tilt=Fraction(0))


FIG2_MUTANTS = {
    # (checker call, prefix of the statement that must be refuted)
    "fig2: drop the tilt e^{εm} (E_t[m] for E_t̃[m])": (_untilted_fig2, "(curves) n = 10,000"),
    "fig2: upper /n → /(2n)": (lambda: bl.check_fig2(
        fast(), upper=LOG(1 + ET / (2 * N) * (E(EPS) - 1))), "(curves) if t is highly"),
    "fig2: lower e^{−ε} → e^{−2ε}": (lambda: bl.check_fig2(
        fast(), lower=-LOG(1 - ET / N * (1 - E(-2 * EPS)))), "(curves) if t is highly"),
}


def test_fig2_size_law_has_mean_n_over_2() -> None:
    # the concrete-mechanism refutation uses E_t[m] = n/2 (symmetry); certified brackets agree
    for sigma in (1, 800, 1000):
        lo, hi = bl.fig2_points((sigma,), tilt=Fraction(0))[0].mean
        assert lo <= bl.FIG2_N // 2 <= hi and hi - lo < Fraction(1, 10**30)


@pytest.mark.parametrize("name", sorted(FIG2_MUTANTS))
def test_fig2_mutant_is_caught(name: str) -> None:
    run, prefix = FIG2_MUTANTS[name]
    res = run()
    assert _statement(res, prefix).verdict is Verdict.REFUTED, name


MUTANTS = {
    "prop4.1: (e^{ε'} − 1)/4": lambda: bl.check_prop41(fast(), (E(EPSP) - 1) / 4),
    "prop4.1: ε' → ε'/4": lambda: bl.check_prop41(fast(), E(EPSP / 4) - 1),
    "prop4.1: drop the ε-DP condition on H": lambda: bl.check_prop41(fast(), test_dp=False),
    "lemA.4: ε + qε' (drop log/exp)": lambda: bl.check_lema4(fast(), EPS + Q * EPSP),
    "lemA.4: drop the leading ε": lambda: bl.check_lema4(fast(), LOG(1 + Q * (E(EPSP) - 1))),
    "lemA.4: q → q/2": lambda: bl.check_lema4(fast(), EPS + LOG(1 + Q / 2 * (E(EPSP) - 1))),
    "lemA.4: drop hypothesis X1~Y0": lambda: bl.check_lema4(
        fast(), pairs=(("X1", "Y1"), ("X0", "Y1"))),
    "lemA.4: drop hypothesis X0~Y1": lambda: bl.check_lema4(
        fast(), pairs=(("X1", "Y1"), ("X1", "Y0"))),
    "lemB.3: drop 'w nondecreasing'": lambda: bl.check_lemb3(fast(), monotone=False),
    "lemB.3: e^{εm} → e^{εm/2}": lambda: bl.check_lemb3(fast(), _tilted(Fraction(1, 2))),
    "lemB.3: e^{εm} → 1 (untilted mean)": lambda: bl.check_lemb3(fast(), _tilted(Fraction(0))),
}


def _tilted(power: Fraction):  # type: ignore[no-untyped-def]
    k = sympy.Rational(power.numerator, power.denominator)

    def rhs(w, p):  # type: ignore[no-untyped-def]
        num = sum(E(k * EPS * m) * w[m] * p[m] for m in range(len(w)))
        return num / sum(E(k * EPS * m) * p[m] for m in range(len(w)))
    return rhs


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught(name: str) -> None:
    res = MUTANTS[name]()
    assert res.verdict is Verdict.REFUTED, (name, res.summary())


def test_prop42_refutation_does_not_depend_on_the_constant() -> None:
    # the flaw is the deletion/replacement mismatch, not (1/ε)² vs 2/ε²: K grows with the constant
    res = bl.check_prop42(fast(), ALPHA - 2 / EPS**2, proof_term=2 / EPS**2)
    assert res.statements[0].verdict is Verdict.REFUTED
    assert res.statements[3].verdict is Verdict.PROVED  # the proof step with 2/ε² is right


# ------------------------------------------------------------------ true variants stay true


def test_prop41_tight_bound_tanh_holds_and_is_attained() -> None:
    # For ε'-indistinguishable binary outputs adv ≤ (e^{ε'} − 1)/(e^{ε'} + 1); deterministic
    # rounding attains it (no amplification, e^{ε'} = e^ε): the printed e^{ε'} − 1 is loose.
    res = bl.check_prop41(Budget(), (E(EPSP) - 1) / (E(EPSP) + 1))
    assert res.verdict is Verdict.HOLDS
    attained = [i for i in res.statements[1].instances if i.params["epsilon"] == "t=2"
                and "max adv ≤ 1/3 " in i.claimed and "= 1/3;" in i.actual]
    assert len(attained) >= 5  # every size jump f̃(P') = f̃(P) + 1 (e.g. |P| = 14, r = 1/10)
    assert any(i.params["|P|"] == "14" and i.params["r"] == "1/10" for i in attained)


def test_lemb3_with_e2eps_tilt_still_holds() -> None:
    # e^{2εm} tilts further towards large m, and w is nondecreasing: a weaker, true bound
    assert bl.check_lemb3(Budget(), _tilted(Fraction(2))).verdict is Verdict.HOLDS


def test_lemb3_printed_bound_is_attained() -> None:
    res = bl.check_lemb3(Budget())
    assert all("attains it" in i.actual for i in res.instances)


def test_lema4_bound_is_attained_on_the_two_point_family() -> None:
    res = bl.check_lema4(Budget(), n_random=0, n_search=0)
    assert all("(bound attained)" in i.actual for i in res.statements[2].instances)


# ------------------------------------------------------------------ independent cross-checks


def test_lemb3_lp_matches_extreme_ray_enumeration() -> None:
    rng = random.Random(7)
    for _ in range(25):
        k = rng.randint(1, 5)
        w = [rng.randint(0, 5) for _ in range(k)]
        p = [rng.randint(0, 3) for _ in range(k)]
        if not any(p):
            p[0] = 1
        t = rng.choice((Fraction(2), Fraction(11, 10), Fraction(5, 2)))
        assert bl.lemb3_max(w, p, t) == bl.lemb3_max_by_rays(w, p, t)


def test_size_test_advantage_closed_forms() -> None:
    # sizes 1 vs 2 deterministically: the best ε-DP test has advantage (t − 1)/(t + 1)
    one, two = FiniteDist.point(1), FiniteDist.point(2)
    for t in (Fraction(2), Fraction(11, 10), Fraction(7)):
        assert bl.max_size_test_advantage(one, two, t) == (t - 1) / (t + 1)
        assert bl.max_size_test_advantage(one, two, None) == 1  # any test: TV distance
    # randomised rounding: tests are only as good as tanh(ε/2) times the TV distance
    a, b = round_allocation(Fraction(3, 10), Rounding.RANDOMISED), round_allocation(
        Fraction(4, 10), Rounding.RANDOMISED)
    assert bl.max_size_test_advantage(a, b, Fraction(2)) == Fraction(1, 10) * Fraction(1, 3)


def test_lema4_parameters_and_mixture() -> None:
    inst = bl.tight_mixtures(Fraction(2), Fraction(3), Fraction(1, 4))
    assert bl.lema4_parameters(inst) == (Fraction(2), Fraction(3))
    x, y = inst.mix("X"), inst.mix("Y")
    assert x[0] / y[0] == 2 * (1 + Fraction(1, 4) * 2)


def test_tilted_mean_interval_against_mpmath() -> None:
    n_, eps = 200, Fraction(1, 100)
    mpmath.mp.dps = 50
    try:
        for sigma in (1, 7, 40, 300, None):
            lo, hi = (mpmath.mpf(v) for v in bl.tilted_mean_interval(n_, eps, sigma))
            e = mpmath.mpf(eps.numerator) / eps.denominator
            ws = [mpmath.exp(e * m - (0 if sigma is None else
                                      mpmath.mpf(m - n_ // 2) ** 2 / (2 * mpmath.mpf(sigma) ** 2)))
                  for m in range(n_ + 1)]
            direct = mpmath.fsum(m * w for m, w in enumerate(ws)) / mpmath.fsum(ws)
            assert lo <= direct + mpmath.mpf(10) ** -40 and direct - mpmath.mpf(10) ** -40 <= hi
            assert hi - lo < mpmath.mpf(10) ** -40
    finally:
        mpmath.mp.dps = 15


def test_per_mean_formulas_are_bun_formulas() -> None:
    law = {0: Fraction(1, 3), 2: Fraction(1, 2), 3: Fraction(1, 6)}
    for builder, per in ((bun.thm31_upper_expr, bl.FIG2_UPPER),
                         (bun.thm31_lower_expr, bl.FIG2_LOWER)):
        direct = builder(law).subs({N: 5, EPS: sympy.log(2)})
        via = per.subs({ET: bun.tilted_mean(law), N: 5}).subs(EPS, sympy.log(2))
        assert sympy.simplify(direct - via) == 0


def test_concrete_mechanism_ratio_is_e_eps_for_symmetric_size_laws() -> None:
    # the closed form used for Fig. 2 (ratio (1 + μ(t−1))/(1 − μ(1 − 1/t)) = t at μ = 1/2),
    # against the exact mechanism on a small population with a symmetric size law
    assert sympy.simplify(bl.concrete_ratio_symmetric() - T) == 0
    mech = GeometricCount((("x", 1), ("y", -1)))
    for n_, law in ((4, {1: Fraction(1, 4), 2: Fraction(1, 2), 3: Fraction(1, 4)}),
                    (6, {0: Fraction(1, 10), 3: Fraction(4, 5), 6: Fraction(1, 10)})):
        pair = bun.replace_pair(n_)
        design = RandomSizeWOR(FiniteDist.from_pairs(law.items()))
        u = pair.universe
        lp, lq = design.sample_law(pair.p, u), design.sample_law(pair.q, u)
        for t in (Fraction(2), Fraction(11, 10)):
            assert mech.max_ratio(lp, lq, u, t).ratio == t


def test_prop42_counterexample_alpha_is_certified() -> None:
    # t = 2, ε' = 2ε: c = 1/4, α = K²·(1/4)/(2·5/4) = K²/10, and 1/ε² = 1/log(2)² ≈ 2.08
    alpha = bl.two_point_alpha(sympy.Integer(5), 2 * sympy.log(2))
    assert sympy.nsimplify(alpha) == sympy.Rational(5, 2)
    assert bracket(sympy.Rational(5, 2) - 1 / sympy.log(2) ** 2).lo > 0
    assert sympy.simplify(bl.laplace_second_moment() - 2 / EPS**2) == 0


def test_plot_helper_writes_png(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    from verifydp.audit.plots import plot_bun_fig2

    pts = bl.fig2_points((1, 100, 800, 1000, None))
    out = plot_bun_fig2(tmp_path / "fig2.png", pts)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.with_suffix(".csv").read_text().count("\n") == 6
