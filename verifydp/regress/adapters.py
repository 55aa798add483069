"""Per-claim adapters for `verifydp.regress`: the signature a user's implementation must have,
its parameter domain (with edges), the printed formula it is compared with, and the exact
worst case it must never undercut.

* `bun/thm2.2` — Bun et al. Theorem 2.2: `amplified_epsilon(eps, m, n) -> float`, the ε' of
  SRSWOR(m of n) for an ε-DP (replacement) base mechanism; printed `bun.THM22_EPS`; worst case:
  `worst_case_ratio` on `bun.replace_pair(n)`.
* `bun/thm4.3` — Bun et al. Theorem 4.3: `amplified_epsilon(eps, r) -> float` for proportional
  SRS with randomised rounding (deletion DP, |P| ≥ 1/r); printed `bun.THM43_EPS`; worst case on
  `bun.add_pair(n)` for several n ≥ 1/r.
* `must/table2:wor|wr`, `must/thm5:ow|wo|ww` — Zhao & Liu, Table 2 and Theorem 5:
  `amplified(eps, deltas, n, m) -> (eps_prime, delta_prime)` (and `…, n, b, m)` for MUST), where
  `deltas[j-1]` = δ_{M,j}(ε), the base mechanism's group privacy profile for j = 1 … k_max
  (k_max = 1 for WOR, max(m, 1) otherwise), and ε' = log(1 + η(e^ε − 1)); printed `must_pa.t2_*` / `must_pa.thm5_*`; worst
  case: `worstcase.group.group_worst_hockey` (every base mechanism with that group profile).
* `must/table2:poisson` — `amplified(eps, deltas, gamma) -> (eps_prime, delta_prime)`,
  `len(deltas) = 1`; worst case: `worst_case_hockey` on `bun.add_pair(n)` with an
  (ε, δ_1)-add-remove-DP base mechanism (Table 2 states relation R for Poisson).

The exact worst case needs a rational e^ε: the soundness search draws ε from a fixed grid and
uses a rational t ≤ e^ε (within 10⁻¹²; the class at t is contained in the class at e^ε, so its
worst case is a certified lower bound of the true one).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from fractions import Fraction
from math import ceil
from typing import Any

import sympy
from hypothesis import strategies as st

from verifydp.claims import catalogue, ebadi
from verifydp.claims.bun.amplification import THM22_EPS, THM43_EPS, add_pair, replace_pair
from verifydp.claims.must import amplification as must_pa
from verifydp.claims.must.group import design_of
from verifydp.claims.strategies import group_profiles
from verifydp.designs import SRSWOR, Poisson, ProportionalWOR, Rounding
from verifydp.exact.interval import Bracket, bracket, rational_in
from verifydp.exact.special import brackets_for_eps, exp_bracket
from verifydp.exact.tfunc import EPS
from verifydp.pinq.pairs import canonical_pair
from verifydp.population import Relation
from verifydp.regress.core import Adapter, Mismatch, Params, Tolerance, draw, require
from verifydp.witness.regress import BUILDERS, truth_floor

# ---------------------------------------------------------------- domains (with edges first:
# hypothesis shrinks a one_of towards its first branch, so minimal witnesses use edge values)

EDGE_EPS = (1.0, 1e-9, 1e-3, 0.5, 2.0, 10.0, 30.0)
SOUND_EPS = (1.0, 0.5, 2.0, 0.1, 3.0, 5.0, 1e-3)
EDGE_N = (1, 2, 3, 10, 1000, 10**6, 10**9)
SOUND_N_MAX = 8
MUST_N_MAX, MUST_BM_MAX = 5, 4  # group LP sizes kept small (as the hunt's spaces do)
FORMULA_BM_MAX = 8  # MUST formulas are sums of b·m sympy terms

eps_full = st.one_of(st.sampled_from(EDGE_EPS), st.floats(1e-9, 30.0))
eps_grid = st.sampled_from(SOUND_EPS)
n_full = st.one_of(st.sampled_from(EDGE_N), st.integers(1, 10**9))


def upto(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integers in [lo, hi], the ends often; a failure at `hi` still shrinks towards `lo`
    through the middle branch."""
    return st.one_of(st.just(lo), st.integers(lo, hi), st.just(hi))


# ---------------------------------------------------------------- exact helpers


def _rat(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def printed_value(expr: sympy.Expr, values: Mapping[str, Fraction | int]) -> Bracket:
    """Rigorous bracket of a printed formula, symbols matched by name (ε is `epsilon`)."""
    subs = {}
    for sym in expr.free_symbols:
        key = "eps" if sym.name == EPS.name else sym.name
        subs[sym] = _rat(Fraction(values[key]))
    return bracket(expr.xreplace(subs))


@functools.lru_cache(maxsize=256)
def t_below(eps: float) -> Fraction:
    """A simple rational t with e^ε·(1 − 10⁻¹²) ≤ t ≤ e^ε (rigorous)."""
    lo, _ = brackets_for_eps(Fraction(eps))
    return rational_in(Bracket(lo - lo / 10**12, lo))


def t_above(eps_prime: Fraction) -> Fraction:
    """A simple rational t' ≥ max(1, e^{ε'}) (rigorous)."""
    hi = exp_bracket(eps_prime).hi
    return max(Fraction(1), rational_in(Bracket(hi, hi + hi / 10**12)))


def _paper(params: Params, names: tuple[str, ...], values: tuple[Fraction, ...],
           refs: tuple[Bracket, ...], tol: Tolerance) -> Mismatch | None:
    for name, v, ref in zip(names, values, refs):
        if tol.outside(v, ref):
            return Mismatch("paper", params, "", f"{name} ∈ {ref}",
                            f"{name} off by {float(v - (ref.lo + ref.hi) / 2):.3g}",
                            output=name, bound=ref)
    return None


Truth = tuple[Fraction, dict[str, Any]]  # a certified lower bound and the problem replaying it
RATIO_WHAT, HOCKEY_WHAT = "exact worst-case ε'", "exact worst-case δ at your ε'"


def _unsound(params: Params, value: Fraction, truth: Truth, what: str, tol: Tolerance,
             output: str = "ε'") -> Mismatch | None:
    floor, problem = truth
    if tol.below(value, floor):
        tied = {k: v for k, v in params.items() if not isinstance(v, tuple)}
        return Mismatch("unsound", params, "", f"{what} ≥ {float(floor):.17g}",
                        "certified lower bound of the exact worst case over all base mechanisms",
                        output=output, floor=floor, problem={**problem, "arguments": tied},
                        what=what)
    return None


def _problem(kind: str, design: Any, pair: Any, relation: Any, eps: float, t: Fraction,
             **extra: Any) -> dict[str, Any]:
    """A truth problem of `verifydp.witness.regress` (recomputed there, and on replay)."""
    return {"problem": kind, "design": design.to_json(), "populations": pair.to_json(),
            "relation": relation.value, "eps": str(Fraction(eps)), "t": str(t),
            **{k: str(v) for k, v in extra.items()}}


# ---------------------------------------------------------------- bun/thm2.2


def _thm22_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    n = draw(data, "n", n_full, over)
    m = draw(data, "m", upto(0, n), over)
    require(0 <= m <= n and n >= 1)
    return {"eps": draw(data, "eps", eps_full, over), "m": m, "n": n}


def _thm22_sound_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    n = draw(data, "n", upto(1, SOUND_N_MAX), over)
    m = draw(data, "m", upto(0, n), over)
    require(0 <= m <= n <= SOUND_N_MAX)
    return {"eps": draw(data, "eps", eps_grid, over), "m": m, "n": n}


def _thm22_paper(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    ref = printed_value(THM22_EPS, {"eps": Fraction(p["eps"]), "m": p["m"], "n": p["n"]})
    return _paper(p, ("ε'",), out, (ref,), tol)


@functools.lru_cache(maxsize=1024)
def thm22_worst(eps: float, m: int, n: int) -> Truth:
    """Certified lower bound of the exact worst-case ε' of SRSWOR(m of n), replacement."""
    problem = _problem("ratio", SRSWOR(m), replace_pair(n), Relation.REPLACE, eps, t_below(eps))
    return truth_floor(problem)[0], problem


def _ratio_sound(p: Params, out: tuple[Fraction, ...], tol: Tolerance,
                 truth: Truth) -> Mismatch | None:
    return _unsound(p, out[0], truth, RATIO_WHAT, tol)


def _thm22_sound(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    return _ratio_sound(p, out, tol, thm22_worst(p["eps"], p["m"], p["n"]))


# ---------------------------------------------------------------- bun/thm4.3

DYADIC_RATES = (0.5, 0.25, 0.125, 0.75, 0.375)  # the designs need r ∈ (0, 1)


def _thm43_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    r = draw(data, "r", st.one_of(st.sampled_from(DYADIC_RATES + (0.1, 1e-6)),
                                  st.floats(1e-6, 1.0, exclude_max=True)), over)
    require(0 < r < 1)
    return {"eps": draw(data, "eps", eps_full, over), "r": r}


def _thm43_sound_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    r = draw(data, "r", st.sampled_from(DYADIC_RATES), over)
    require(0.1 <= r < 1)
    return {"eps": draw(data, "eps", eps_grid, over), "r": r}


def _thm43_paper(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    # Theorem 7.2 (stratified) prints the same bound; its one-stratum case is Theorem 4.3's
    ref = printed_value(THM43_EPS, {"eps": Fraction(p["eps"]), "r": Fraction(p["r"])})
    return _paper(p, ("ε'",), out, (ref,), tol)


@functools.lru_cache(maxsize=512)
def thm43_worst(eps: float, r: float) -> Truth:
    """Certified lower bound of the worst-case ε' over |P| = ⌈1/r⌉ … ⌈1/r⌉ + 3 (deletion),
    with the problem of the |P| that attains it."""
    rate = Fraction(r)
    design = ProportionalWOR(rate, Rounding.RANDOMISED)
    truths = [(truth_floor(pb)[0], pb) for pb in (
        _problem("ratio", design, add_pair(n), Relation.ADD_REMOVE, eps, t_below(eps))
        for n in range(ceil(1 / rate), ceil(1 / rate) + 4))]
    return max(truths, key=lambda tp: tp[0])


def _thm43_sound(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    return _ratio_sound(p, out, tol, thm43_worst(p["eps"], p["r"]))


# ---------------------------------------------------------------- MUST (Table 2, Theorem 5)


def _deltas(data: st.DataObject, over: Mapping[str, Any], k_max: int) -> tuple[float, ...]:
    """A group profile δ_1 ≤ … ≤ δ_k_max (exact small rationals), handed over as floats."""
    ds = draw(data, "deltas", group_profiles(k_max).map(lambda d: tuple(float(x) for x in d)),
              over)
    ds = tuple(ds)
    require(len(ds) >= k_max and all(0 <= a <= b <= 1 for a, b in zip((0.0, *ds), ds)))
    return ds


def k_max(claim: str, m: int) -> int:
    """How many δ_j the user's function receives: the most copies of the differing record a
    sample can hold (1 for WOR, m for WR and MUST), at least 1."""
    return 1 if claim == "must/table2:wor" else max(m, 1)


@functools.lru_cache(maxsize=4096)
def _must_formula(claim: str, args: tuple[int, ...]) -> tuple[Fraction, tuple[Fraction, ...]]:
    """η and the coefficients c_j of δ' = Σ_j c_j δ_j of the printed formula (exact)."""
    formula = {"wr": must_pa.t2_wr, "wor": must_pa.t2_wor, "must-ow": must_pa.thm5_ow,
               "must-wo": must_pa.thm5_wo, "must-ww": must_pa.thm5_ww}[SCHEMES[claim]]
    if args[-1] == 0:  # m = 0: nothing sampled (the printed sums are empty)
        return Fraction(0), ()
    eta, dprime = formula(*args)
    d = sympy.expand(sympy.sympify(dprime))
    used = sorted(int(s.name.split("_")[1]) for s in d.free_symbols)
    coeffs = [Fraction(0)] * max(used, default=0)
    for j in used:
        coeffs[j - 1] = _frac(d.coeff(must_pa.dsym(j)))
    return _frac(eta), tuple(coeffs)


def _frac(x: Any) -> Fraction:
    q = sympy.Rational(sympy.sympify(x))
    return Fraction(int(q.p), int(q.q))


def eps_prime_of(eta: Fraction, eps: float) -> Bracket:
    """ε' = log(1 + η(e^ε − 1)), rigorously."""
    return bracket(sympy.log(1 + _rat(eta) * (sympy.exp(_rat(Fraction(eps))) - 1)))


def _must_paper(claim: str, keys: tuple[str, ...]
                ) -> Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None]:
    def judge(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
        eta, coeffs = _must_formula(claim, tuple(p[k] for k in keys))
        dprime = sum((c * Fraction(d) for c, d in zip(coeffs, p["deltas"])), Fraction(0))
        return _paper(p, ("ε'", "δ'"), out, (eps_prime_of(eta, p["eps"]),
                                             Bracket.point(dprime)), tol)
    return judge


def _must_domain(claim: str) -> Callable[[st.DataObject, Mapping[str, Any]], Params]:
    two_stage = claim.startswith("must/thm5")

    def domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
        n = draw(data, "n", n_full, over)
        out: Params = {"eps": draw(data, "eps", eps_full, over)}
        if two_stage:
            b = draw(data, "b", upto(1, min(n, FORMULA_BM_MAX)), over)
            top = b if claim == "must/thm5:wo" else FORMULA_BM_MAX
            m = draw(data, "m", upto(0, top), over)
            require(1 <= b <= n and 0 <= m <= top)
            args: Params = {"n": n, "b": b, "m": m}
        else:
            top = n if claim == "must/table2:wor" else FORMULA_BM_MAX
            m = draw(data, "m", upto(0, min(top, 10**9)), over)
            require(0 <= m <= top and n >= 1)
            args = {"n": n, "m": m}
        out["deltas"] = _deltas(data, over, k_max(claim, m))
        return {**out, **args}
    return domain


def _must_sound_domain(claim: str) -> Callable[[st.DataObject, Mapping[str, Any]], Params]:
    two_stage = claim.startswith("must/thm5")

    def domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
        n = draw(data, "n", upto(1, MUST_N_MAX), over)
        out: Params = {"eps": draw(data, "eps", eps_grid, over)}
        if two_stage:
            b = draw(data, "b", upto(1, min(n, MUST_BM_MAX) if SCHEMES[claim] != "must-ww"
                                     else MUST_BM_MAX), over)
            m = draw(data, "m", upto(0, b if claim == "must/thm5:wo" else MUST_BM_MAX), over)
            ok = 1 <= b <= MUST_BM_MAX and 0 <= m <= MUST_BM_MAX
            ok = ok and (SCHEMES[claim] == "must-ww" or b <= n) and (claim != "must/thm5:wo" or m <= b)
            require(ok and n <= MUST_N_MAX)
            args: Params = {"n": n, "b": b, "m": m}
        else:
            m = draw(data, "m", upto(0, n if claim == "must/table2:wor" else MUST_BM_MAX), over)
            require(0 <= m <= MUST_BM_MAX and n <= MUST_N_MAX
                    and (claim != "must/table2:wor" or m <= n))
            args = {"n": n, "m": m}
        out["deltas"] = _deltas(data, over, k_max(claim, m))
        return {**out, **args}
    return domain


SCHEMES = {"must/table2:wr": "wr", "must/table2:wor": "wor", "must/thm5:ow": "must-ow",
           "must/thm5:wo": "must-wo", "must/thm5:ww": "must-ww",
           "must/thm5:ww:corrected": "must-ww"}


@functools.lru_cache(maxsize=4096)
def must_worst(claim: str, eps: float, deltas: tuple[float, ...], n: int, b: int | None, m: int,
               t_prime: Fraction) -> Truth:
    """Certified lower bound of sup D_{t'}(M∘S(P) ‖ M∘S(P')) over base mechanisms with group
    profile `deltas` at e^ε ≥ t_below(ε) (substitution pair of size n)."""
    if m == 0:
        return Fraction(0), {}  # the sample is empty on both sides: nothing to undercut
    # δ_j the user was not asked about (j above k_max) are unconstrained: δ_j = 1 is vacuous
    profile = tuple(Fraction(d) for d in deltas[:m]) + (Fraction(1),) * max(0, m - len(deltas))
    problem = {"problem": "group", "design": design_of(SCHEMES[claim], b, m).to_json(),
               "n": n, "m": m, "eps": str(Fraction(eps)), "t": str(t_below(eps)),
               "deltas": [str(d) for d in profile], "t_prime": str(t_prime)}
    return truth_floor(problem)[0], problem


def _must_sound(claim: str) -> Callable[[Params, tuple[Fraction, ...], Tolerance], Mismatch | None]:
    def judge(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
        worst = must_worst(claim, p["eps"], tuple(p["deltas"]), p["n"], p.get("b"), p["m"],
                           t_above(out[0]))
        return _unsound(p, out[1], worst, HOCKEY_WHAT, tol, "δ'")
    return judge


# ---------------------------------------------------------------- MUST Table 2, Poisson row


def _poisson_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    gamma = draw(data, "gamma", st.one_of(st.sampled_from((0.5, 0.0, 1.0, 1e-9, 0.1)),
                                          st.floats(0.0, 1.0)), over)
    require(0 <= gamma <= 1)
    return {"eps": draw(data, "eps", eps_full, over), "deltas": _deltas(data, over, 1),
            "gamma": gamma}


def _poisson_sound_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    gamma = draw(data, "gamma", st.sampled_from((0.5, 0.25, 1.0, 0.125, 0.75)), over)
    deltas = draw(data, "deltas", st.sampled_from(((0.0,), (0.1,), (0.01,), (0.5,))), over)
    require(0 < gamma <= 1 and len(deltas) == 1 and 0 <= deltas[0] <= 1)
    return {"eps": draw(data, "eps", eps_grid, over), "deltas": tuple(deltas), "gamma": gamma}


def _poisson_paper(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    eta, dprime = must_pa.t2_poisson(Fraction(p["gamma"]))
    d = _frac(sympy.sympify(dprime).subs(must_pa.dsym(1), _rat(Fraction(p["deltas"][0]))))
    return _paper(p, ("ε'", "δ'"), out, (eps_prime_of(_frac(eta), p["eps"]),
                                         Bracket.point(d)), tol)


@functools.lru_cache(maxsize=2048)
def poisson_worst(eps: float, delta: float, gamma: float, t_prime: Fraction) -> Truth:
    """Certified lower bound of the worst-case δ at t' of Poisson(γ) on an add-remove pair
    (|P| = 1, 2), over (ε, δ)-add-remove-DP base mechanisms (Table 2: relation R, R)."""
    truths = [(truth_floor(pb)[0], pb) for pb in (
        _problem("hockey", Poisson(Fraction(gamma)), add_pair(n), Relation.ADD_REMOVE, eps,
                 t_below(eps), delta=Fraction(delta), t_prime=t_prime, eps_prime_output="ε'")
        for n in (1, 2))]
    return max(truths, key=lambda tp: tp[0])


def _poisson_sound(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    worst = poisson_worst(p["eps"], p["deltas"][0], p["gamma"], t_above(out[0]))
    return _unsound(p, out[1], worst, HOCKEY_WHAT, tol, "δ'")


# ---------------------------------------------------------------- ebadi/bernoulli (pure Poisson)

BERNOULLI_RATES = (0.5, 0.25, 0.125, 0.75, 0.9375)


def _bernoulli_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    b = draw(data, "b", st.one_of(st.sampled_from((0.5, 1.0, 1e-9, 0.1)),
                                  st.floats(0.0, 1.0)), over)
    require(0 <= b <= 1)
    return {"eps": draw(data, "eps", eps_full, over), "b": b}


def _bernoulli_sound_domain(data: st.DataObject, over: Mapping[str, Any]) -> Params:
    b = draw(data, "b", st.sampled_from(BERNOULLI_RATES), over)
    require(0 < b <= 1)
    return {"eps": draw(data, "eps", eps_grid, over), "b": b}


def _bernoulli_paper(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    ref = printed_value(ebadi.BERNOULLI, {"eps": Fraction(p["eps"]), "b": Fraction(p["b"])})
    return _paper(p, ("ε'",), out, (ref,), tol)


@functools.lru_cache(maxsize=512)
def bernoulli_worst(eps: float, b: float) -> Truth:
    """Certified lower bound of the worst-case ε' of Poisson(b) on (D, D ∪ {x}), |D| ≤ 2,
    every ε-DP (add/remove) base mechanism (PINQ's symmetric-difference neighbours)."""
    truths = [(truth_floor(pb)[0], pb) for pb in (
        _problem("ratio", Poisson(Fraction(b)), canonical_pair(m), Relation.ADD_REMOVE, eps,
                 t_below(eps)) for m in (0, 1, 2))]
    return max(truths, key=lambda tp: tp[0])


def _bernoulli_sound(p: Params, out: tuple[Fraction, ...], tol: Tolerance) -> Mismatch | None:
    return _ratio_sound(p, out, tol, bernoulli_worst(p["eps"], p["b"]))


# ---------------------------------------------------------------- the catalogue


def described(claim: str) -> str:
    """The claim's own one-line description, from the catalogue (one place per claim)."""
    return catalogue()[claim].summary


def _must(claim: str, keys: tuple[str, ...]) -> Adapter:
    sig_args = ", ".join(keys)
    return Adapter(
        claim, f"amplified(eps: float, deltas: tuple[float, ...], {sig_args}) "
               "-> (eps_prime, delta_prime)",
        ("ε'", "δ'"), _must_domain(claim), _must_paper(claim, keys),
        _must_sound_domain(claim), _must_sound(claim), described(claim),
        ("eps", "deltas", *keys))


def _thm43_like(claim: str) -> Adapter:
    return Adapter(claim, "amplified_epsilon(eps: float, r: float) -> float", ("ε'",),
                   _thm43_domain, _thm43_paper, _thm43_sound_domain, _thm43_sound,
                   described(claim), ("eps", "r"))


ADAPTERS: dict[str, Adapter] = {a.claim: a for a in (
    Adapter("bun/thm2.2", "amplified_epsilon(eps: float, m: int, n: int) -> float", ("ε'",),
            _thm22_domain, _thm22_paper, _thm22_sound_domain, _thm22_sound,
            described("bun/thm2.2"), ("eps", "m", "n")),
    _thm43_like("bun/thm4.3"),
    _thm43_like("bun/thm7.2"),
    Adapter("ebadi/bernoulli", "sigma(eps: float, b: float) -> float", ("ε'",),
            _bernoulli_domain, _bernoulli_paper, _bernoulli_sound_domain, _bernoulli_sound,
            described("ebadi/bernoulli"), ("eps", "b")),
    Adapter("must/table2:poisson",
            "amplified(eps: float, deltas: tuple[float], gamma: float) -> (eps_prime, delta_prime)",
            ("ε'", "δ'"), _poisson_domain, _poisson_paper, _poisson_sound_domain,
            _poisson_sound, described("must/table2:poisson"), ("eps", "deltas", "gamma")),
    _must("must/table2:wor", ("n", "m")),
    _must("must/table2:wr", ("n", "m")),
    _must("must/thm5:ow", ("n", "b", "m")),
    _must("must/thm5:wo", ("n", "b", "m")),
    _must("must/thm5:ww", ("n", "b", "m")),
    _must("must/thm5:ww:corrected", ("n", "b", "m")),
)}


# ---------------------------------------------------------------- replay (issue 28)


def _arg(args: Mapping[str, Any], name: str, kind: type, lo: float, hi: float) -> Any:
    """One stored argument of a witness, of the type and in the range the soundness search
    draws it from (a file is untrusted: n = 10⁹ would enumerate a huge law)."""
    v = args.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or \
            (kind is int and not isinstance(v, int)):
        raise ValueError(f"argument {name} must be {'an integer' if kind is int else 'a number'}")
    if not lo <= v <= hi:
        raise ValueError(f"argument {name} = {v} is outside [{lo}, {hi}]")
    return kind(v)


def _deltas_arg(args: Mapping[str, Any], k: int) -> tuple[float, ...]:
    ds = args.get("deltas")
    if not isinstance(ds, list) or not 1 <= len(ds) <= max(k, 1) + MUST_BM_MAX:
        raise ValueError("argument deltas must be a non-empty list of numbers")
    return tuple(_arg({"d": d}, "d", float, 0, 1) for d in ds)


def witness_truth(claim: str, args: Mapping[str, Any], outputs: Mapping[str, Fraction]) -> Truth:
    """The truth a soundness check of `claim` compares with at these arguments and outputs:
    what `_*_sound` computes, rebuilt for replay."""
    eps = _arg(args, "eps", float, 1e-12, 30.0)
    if claim == "bun/thm2.2":
        n = _arg(args, "n", int, 1, SOUND_N_MAX)
        return thm22_worst(eps, _arg(args, "m", int, 0, n), n)
    if claim in ("bun/thm4.3", "bun/thm7.2"):
        return thm43_worst(eps, _arg(args, "r", float, 0.1, 1 - 1e-9))
    if claim == "ebadi/bernoulli":
        return bernoulli_worst(eps, _arg(args, "b", float, 1e-9, 1.0))
    if "ε'" not in outputs:
        raise ValueError("the outputs have no ε'")
    if claim == "must/table2:poisson":
        return poisson_worst(eps, _deltas_arg(args, 1)[0], _arg(args, "gamma", float, 1e-9, 1.0),
                             t_above(outputs["ε'"]))
    n = _arg(args, "n", int, 1, MUST_N_MAX)
    m = _arg(args, "m", int, 0, MUST_BM_MAX)
    b = _arg(args, "b", int, 1, MUST_BM_MAX) if claim.startswith("must/thm5") else None
    return must_worst(claim, eps, _deltas_arg(args, k_max(claim, m)), n, b, m,
                      t_above(outputs["ε'"]))


def _builder(claim: str) -> Callable[[Mapping[str, Any], Mapping[str, Fraction],
                                      Mapping[str, Any]], tuple[dict[str, Any], str] | None]:
    what = RATIO_WHAT if claim.startswith(("bun/", "ebadi/")) else HOCKEY_WHAT

    def build(args: Mapping[str, Any], outputs: Mapping[str, Fraction],
              stored: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
        del stored  # everything follows from the arguments and the outputs
        _, problem = witness_truth(claim, args, outputs)
        if not problem:
            return None
        return {**problem, "arguments": {k: v for k, v in args.items()
                                         if not isinstance(v, (list, tuple))}}, what
    return build


BUILDERS.update({claim: _builder(claim) for claim in ADAPTERS})
