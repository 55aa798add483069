"""The deployment audit (issue 16): dominating pairs checked against every dataset pair of
small populations, composed results against independent lower bounds from concrete dataset
pairs, peers inside the bracket, the fixed-size accountant flag, and mutants caught."""

from __future__ import annotations

import copy
import functools
import itertools
import math
from fractions import Fraction as F
from math import comb
from pathlib import Path
from typing import Any

import flint
import mpmath
import numpy as np
import pytest

from verifydp.accounting import Grid, composed, dominating_pairs, law_pair
from verifydp.accounting.atoms import ProfilePair
from verifydp.accounting.composition import Product, memo_cells
from verifydp.accounting.forms import bernoulli
from verifydp.audit.deployment import audit_deployment, number_json
from verifydp.audit.flags import red_flags
from verifydp.audit.spec import load_design, parse_design, tomllib
from verifydp.exact.arb import ball, rational

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

Comps = list[tuple[F, F]]  # (weight, centre)


# ---------------------------------------------------------------- certified test-set bounds


def _cdf(kernel: str, u: flint.arb) -> flint.arb:
    if kernel == "gauss":
        return (-u / flint.arb(2).sqrt()).erfc() / 2
    return u.exp() / 2 if u < 0 else 1 - (-u).exp() / 2


def _mass(comps: Comps, scale: F, kernel: str, a: F | None, b: F | None) -> flint.arb:
    """Mixture mass of [a, b] (None: ±∞), exact centres and weights, arb cdfs."""
    tot = flint.arb(0)
    for w, c in comps:
        hi = flint.arb(1) if b is None else _cdf(kernel, (ball(b) - ball(c)) / ball(scale))
        lo = flint.arb(0) if a is None else _cdf(kernel, (ball(a) - ball(c)) / ball(scale))
        tot += ball(w) * (hi - lo)
    return tot


def _logpdf(comps: Comps, scale: float, kernel: str, x: np.ndarray) -> np.ndarray:
    terms = [math.log(float(w)) + (-((x - float(c)) / scale) ** 2 / 2 if kernel == "gauss"
                                   else -np.abs(x - float(c)) / scale) for w, c in comps if w]
    return np.logaddexp.reduce(np.array(terms), axis=0)


def set_delta(p: Comps, q: Comps, scale: F, kernel: str, eps: F) -> F:
    """A certified lower bound of H_{e^ε}(P‖Q): floats choose the set {p > e^ε q} as a union
    of intervals, arb computes P(A) − e^ε Q(A) exactly enough (any set gives a lower bound).

    Memoised per process (issue 29): the exhaustive sweeps here and in the modules that import
    it meet the same pair of laws many times (in this module 21 405 calls, 9 403 distinct);
    the value is a function of its arguments alone."""
    return _set_delta(tuple(p), tuple(q), scale, kernel, eps)


@functools.cache
def _set_delta(p: tuple[tuple[F, F], ...], q: tuple[tuple[F, F], ...], scale: F, kernel: str,
               eps: F) -> F:
    reach = (14 if kernel == "gauss" else 40) * float(scale)
    lo = min(float(c) for _, c in p + q) - reach
    hi = max(float(c) for _, c in p + q) + reach
    xs = np.linspace(lo, hi, 4001)
    good = _logpdf(p, float(scale), kernel, xs) - _logpdf(q, float(scale), kernel, xs) > float(eps)
    if not good.any():
        return F(0)
    edges = np.flatnonzero(np.diff(good.astype(int)))
    cuts = [F(float(xs[i])) for i in edges]
    bounds = ([None] if good[0] else []) + cuts + ([None] if good[-1] else [])
    val = flint.arb(0)
    for a, b in zip(bounds[::2], bounds[1::2], strict=True):
        val += _mass(p, scale, kernel, a, b) - ball(eps).exp() * _mass(q, scale, kernel, a, b)
    return max(rational(val, up=False), F(0))


# ---------------------------------------------------------------- small populations


def _law(sums: list[F]) -> Comps:
    out: dict[F, F] = {}
    for s in sums:
        out[s] = out.get(s, F(0)) + F(1, len(sums))
    return sorted((w, c) for c, w in out.items())


def srswor(values: tuple[F, ...], m: int) -> Comps:
    return _law([sum(s, F(0)) for s in itertools.combinations(values, m)])


def srswr(values: tuple[F, ...], m: int) -> Comps:
    return _law([sum(s, F(0)) for s in itertools.product(values, repeat=m)])


def must_ow(values: tuple[F, ...], b: int, m: int) -> Comps:
    """b of n without replacement, then m draws with replacement from those b."""
    return _law([sum(d, F(0)) for s in itertools.combinations(values, b)
                 for d in itertools.product(s, repeat=m)])


def must_ww(values: tuple[F, ...], b: int, m: int) -> Comps:
    """b draws with replacement, then m draws with replacement from the b draws."""
    return _law([sum(d, F(0)) for s in itertools.product(values, repeat=b)
                 for d in itertools.product(s, repeat=m)])


def poisson(values: tuple[F, ...], q: F) -> Comps:
    out: dict[F, F] = {}
    for keep in itertools.product((0, 1), repeat=len(values)):
        w = math.prod((q if k else 1 - q) for k in keep)
        s = sum((v for v, k in zip(values, keep, strict=True) if k), F(0))
        out[s] = out.get(s, F(0)) + w
    return sorted((w, c) for c, w in out.items())


GRID = (F(-1), F(-1, 2), F(0), F(1))
EPS = (F(0), F(1, 2), F(2))


def dataset_pairs(n_others: int, add_remove: bool):  # type: ignore[no-untyped-def]
    """Every (others, D, D') with contributions on GRID (C = 1): the others are any multiset;
    add/remove adds x, substitution changes x to x' — both orientations are checked."""
    for others in itertools.combinations_with_replacement(GRID, n_others):
        for x in GRID:
            if add_remove:
                yield others + (x,), others
            else:
                for x2 in GRID:
                    if x2 != x:
                        yield others + (x,), others + (x2,)


def violations(mechanism: Any, pair: Any, add_remove: bool, n_others: int, kernel: str,
               scale: F, first: bool = False) -> list[tuple[Any, ...]]:
    """Dataset pairs whose certified δ exceeds the claimed pair's certified upper bound."""
    c = composed(pair, 1, Grid(z=40 if kernel == "laplace" else 12))
    his = {e: c.delta(e).hi for e in EPS}
    bad = []
    for d1, d2 in dataset_pairs(n_others, add_remove):
        m1, m2 = mechanism(d1), mechanism(d2)
        for e in EPS:
            for a, b in ((m1, m2), (m2, m1)):
                if set_delta(a, b, scale, kernel, e) > his[e]:
                    bad.append((d1, d2, e))
                    if first:
                        return bad
    return bad


def _pairs(kind: str, params: dict[str, Any], n: int, add_remove: bool, noise: F,
           mech: str = "gaussian") -> Any:
    (d,) = dominating_pairs(kind, params, n, mech, "sum", F(1), F(2), noise, add_remove)
    return d.pair


CASES = [  # (name, mechanism on a dataset, design kind, params, relations covered)
    ("srswor", lambda v: srswor(v, 2), "srswor", {"m": 2}, (True, False)),
    ("poisson", lambda v: poisson(v, F(1, 3)), "poisson", {"q": F(1, 3)}, (True, False)),
    ("srswr", lambda v: srswr(v, 2), "srswr", {"m": 2}, (True,)),
    ("must-ow", lambda v: must_ow(v, 2, 2), "must-ow", {"b": 2, "m": 2}, (True,)),
    ("must-ww", lambda v: must_ww(v, 2, 2), "must-ww", {"b": 2, "m": 2}, (True,)),
]
RUNS = [(c[0], c[1], c[2], c[3], ar) for c in CASES for ar in c[4]]


@pytest.mark.parametrize("name,mech,kind,params,add_remove", RUNS,
                         ids=[f"{r[0]}-{'add-remove' if r[4] else 'substitution'}"
                              for r in RUNS])
def test_dominating_pair_covers_every_dataset_pair(name: str, mech: Any, kind: str,
                                                   params: dict[str, Any],
                                                   add_remove: bool) -> None:
    """N = 3 (the larger dataset), contributions on {−1, −1/2, 0, 1}, Gaussian σ = 1,
    ε ∈ {0, 1/2, 2}, both orientations: no dataset pair exceeds the claimed pair."""
    sigma = F(1)
    pair = _pairs(kind, params, 3, add_remove, sigma)
    assert violations(mech, pair, add_remove, 2, "gauss", sigma) == []


def test_displaced_pair_fails_for_two_copies_under_substitution() -> None:
    """Why with replacement reveals the copy count under substitution and MUST.OW/WW chain
    two links: the displaced pair Σ Pr(K = l) N(2lC) vs N(0) is beaten by others at −C/2 and
    the record −C → +C (tests/audit/test_deployment_copies_revealed.py)."""
    sigma = F(1)
    law = ((0, F(4, 9)), (1, F(4, 9)), (2, F(1, 9)))  # Binomial(2, 1/3)
    pair = law_pair(law, F(2), sigma, "gauss", "displaced")
    hi = composed(pair, 1).delta(F(0)).hi
    others = (F(-1, 2), F(-1, 2))
    d1, d2 = srswr(others + (F(-1),), 2), srswr(others + (F(1),), 2)
    assert set_delta(d1, d2, sigma, "gauss", F(0)) > hi
    with pytest.raises(ValueError, match="substitution"):
        _pairs("must-ow", {"b": 2, "m": 2}, 3, False, sigma)
    # Gaussian noise: the pair of a convex profile bound (tests/audit/
    # test_deployment_copies_partial.py); other kernels reveal the count
    assert isinstance(_pairs("srswr", {"m": 2}, 3, False, sigma), ProfilePair)


def test_dominating_pair_laplace_fixed_size() -> None:
    b = F(1, 2)
    pair = _pairs("srswor", {"m": 2}, 3, True, b, "laplace")
    assert violations(lambda v: srswor(v, 2), pair, True, 2, "laplace", b) == []


def test_poisson_pair_is_refuted_for_fixed_size_batches() -> None:
    """The pitfall the issue names: the Poisson pair (record adds C) for fixed-size batches
    under add/remove is beaten by others at −C and the record at +C (it displaces one)."""
    sigma = F(1)
    wrong = law_pair(((0, F(2, 3)), (1, F(1, 3))), F(1), sigma, "gauss", "added")
    bad = violations(lambda v: srswor(v, 2), wrong, True, 2, "gauss", sigma)
    assert any(d2 == (F(-1), F(-1)) and d1[-1] == 1 for d1, d2, _ in bad)
    fixed = _pairs("srswor", {"m": 2}, 3, True, sigma)
    assert not violations(lambda v: srswor(v, 2), fixed, True, 2, "gauss", sigma, first=True)


def test_added_pair_is_refuted_for_poisson_substitution() -> None:
    """Mutant: under substitution a Poisson record's value moves from −C to +C (shift 2C
    when sampled); the add/remove pair (shift C) is beaten."""
    sigma = F(1)
    wrong = law_pair(((0, F(2, 3)), (1, F(1, 3))), F(1), sigma, "gauss", "added")
    assert violations(lambda v: poisson(v, F(1, 3)), wrong, False, 1, "gauss", sigma)


def test_dominating_pairs_are_realisable() -> None:
    """The pairs are attained: others at −C, the record at +C (lower ends are lower bounds of
    the design's worst case)."""
    sigma = F(1)
    pair = _pairs("srswor", {"m": 2}, 3, True, sigma)
    real_p, real_q = srswor((F(-1), F(-1), F(1)), 2), srswor((F(-1), F(-1)), 2)
    shift = -real_q[0][1]
    assert sorted((w, c + shift) for w, c in real_p) == sorted(pair.p)
    assert [(w, c + shift) for w, c in real_q] == list(pair.q)


def systematic_random(values: tuple[F, ...], k: int) -> Comps:
    """Systematic sampling with interval k over a uniformly random order: every order and
    every start, enumerated (independent of the SRS-mixture reading the design uses)."""
    sums = [sum((order[p] for p in range(s, len(order), k)), F(0))
            for order in itertools.permutations(values) for s in range(k)]
    return _law(sums)


INDEX_CASES = [  # (name, mechanism, kind, params, strata sizes)
    ("systematic-random", lambda v: systematic_random(v, 2), "systematic-random",
     {"interval": 2}, None),
    ("systematic-random-divides", lambda v: systematic_random(v, 3), "systematic-random",
     {"interval": 3}, None),
]


@pytest.mark.parametrize("name,mech,kind,params,strata", INDEX_CASES,
                         ids=[c[0] for c in INDEX_CASES])
def test_index_designs_dominating_pair_covers_every_substitution(
        name: str, mech: Any, kind: str, params: dict[str, Any], strata: Any) -> None:
    """Systematic sampling over a secret random order (a fixed-size sample given the
    data-independent start): every substitution of N = 3
    records with contributions on {−1, −1/2, 0, 1} stays below the displaced pair at the
    label's largest rate, and the lower pair is realised (others at 0, the record at ±1)."""
    sigma = F(1)
    (d,) = dominating_pairs(kind, params, 3, "gaussian", "sum", F(1), F(2), sigma, False,
                            strata)
    assert violations(mech, d.pair, False, 2, "gauss", sigma) == []
    if d.lower is not None:
        p, q = mech((F(0), F(0), F(1))), mech((F(0), F(0), F(-1)))
        assert sorted(p) == sorted(d.lower.p) and sorted(q) == sorted(d.lower.q)
    else:  # one sample size: others at −C realise the pair itself (up to translation)
        p, q = mech((F(-1), F(-1), F(1))), mech((F(-1), F(-1), F(-1)))
        shift = -q[0][1]
        assert sorted((w, c + shift) for w, c in p) == sorted(d.pair.p)
    with pytest.raises(ValueError, match="add-remove"):
        dominating_pairs(kind, params, 3, "gaussian", "sum", F(1), F(2), sigma, True, strata)


def _combined(parts: list[Comps]) -> Comps:
    """Independent parts (strata): the law of the sum of their sums."""
    out: dict[F, F] = {F(0): F(1)}
    for comps in parts:
        nxt: dict[F, F] = {}
        for w, c in comps:
            for c0, w0 in out.items():
                nxt[c0 + c] = nxt.get(c0 + c, F(0)) + w0 * w
        out = nxt
    return sorted((w, c) for c, w in out.items())


def _strata(groups: tuple[tuple[tuple[F, ...], int], ...]) -> Comps:
    """Independent SRSs per stratum: (values, m) for each, the sums' law."""
    return _combined([srswor(values, m) for values, m in groups])


def _beats(pairs: list[tuple[Comps, Comps]], his: dict[F, F], within: dict[F, F],
           sigma: F, where: Any) -> bool:
    """Every pair, both orders, below `his`; whether one exceeds `within` (the mutant)."""
    beaten = False
    for a_, b_ in pairs:
        for e in EPS:
            for u, v in ((a_, b_), (b_, a_)):
                val = set_delta(u, v, sigma, "gauss", e)
                assert val <= his[e], (where, e)
                beaten = beaten or val > within[e]
    return beaten


def _max_his(cands: Any) -> dict[F, F]:
    cs = [composed(d.pair, 1, Grid(h=F(1, 200))) for d in cands]
    return {e: max(c.delta(e).hi for c in cs) for e in EPS}


def test_stratified_replacements_that_move_strata_are_covered() -> None:
    """Stratified fixed allocation, strata h and g of 2 records each, m = 1 in both, replace:
    the record may change value within its stratum or move to the other one (a record type
    carries its stratum: docs/foundations.md). Every such pair, both orientations, the record
    on {−1, −1/2, 0, 1} (its new value on {−1, 0, 1}) and the others at ±1, stays below the candidates' largest certified δ; the
    within-stratum pair alone (the mutant: strata fixed) is beaten by a move."""
    sigma = F(1)
    cands = dominating_pairs("stratified-fixed", {"sizes": {"h": 1, "g": 1}}, 4, "gaussian",
                             "sum", F(1), F(2), sigma, False, {"h": 2, "g": 2})
    assert {d.form for d in cands} == {"displaced", "moved"}
    his = _max_his(cands)
    within = _max_his(cands[:1])
    beaten = False
    ends = (F(-1), F(1))  # the others at ±C; the record anywhere on the grid
    for h1, gs, x, x2 in itertools.product(ends, itertools.combinations_with_replacement(ends, 2),
                                           GRID, ends + (F(0),)):
        d = _strata((((h1, x), 1), (gs, 1)))
        pairs = [(d, _strata((((h1,), 1), (gs + (x2,), 1))))]  # moved from h to g
        if x2 != x:
            pairs.append((d, _strata((((h1, x2), 1), (gs, 1)))))  # within h
        beaten = _beats(pairs, his, within, sigma, (h1, gs, x, x2)) or beaten
    assert beaten


def test_systematic_pair_without_displacement_is_refuted() -> None:
    """Mutant: the largest rate 2/3 (N = 3, interval 2) but the shift C of a Poisson
    accountant instead of the displacement d = 2C is beaten by a concrete substitution."""
    sigma = F(1)
    mutant = law_pair(((0, F(1, 3)), (1, F(2, 3))), F(1), sigma, "gauss", "added")
    assert violations(lambda v: systematic_random(v, 2), mutant, False, 2, "gauss", sigma,
                      first=True)


def _sized(values: tuple[F, ...], law: list[tuple[int, F]]) -> Comps:
    """An SRS of a size drawn from `law` (independently of the values), the sums' law."""
    out: dict[F, F] = {}
    for m, w in law:
        for p, c in srswor(values, m):
            out[c] = out.get(c, F(0)) + w * p
    return sorted((w, c) for c, w in out.items())


def _rounded(values: tuple[F, ...], r: F, rounding: str) -> Comps:
    from verifydp.designs.allocation import round_allocation

    return _sized(values, list(round_allocation(r * len(values), rounding)))


SIZED = [  # (kind, params): allocations that jump, that never do, and random ones
    ("proportional", {"r": F(1, 2), "rounding": "half-up"}),
    ("proportional", {"r": F(1, 2), "rounding": "floor"}),
    ("proportional", {"r": F(1, 2), "rounding": "randomised"}),
    ("proportional", {"r": F(2, 3), "rounding": "randomised"}),
    ("random-size", {"size_law": {1: F(1, 2), 2: F(1, 2)}}),
]


def _sized_mech(kind: str, params: dict[str, Any]) -> Any:
    if kind == "random-size":
        return lambda v: _sized(v, list(params["size_law"].items()))
    return lambda v: _rounded(v, params["r"], params["rounding"])


@pytest.mark.parametrize("add_remove", [True, False], ids=["add-remove", "substitution"])
@pytest.mark.parametrize("kind,params", SIZED,
                         ids=[f"{k}-{p.get('rounding', 'law')}-{p.get('r', '')}"
                              for k, p in SIZED])
def test_sizes_that_follow_the_data_are_covered(kind: str, params: dict[str, Any],
                                                add_remove: bool) -> None:
    """Sizes that follow N (m = round(r·N), three roundings) or are drawn from a law: every
    dataset pair of N = 3 (add/remove: 2 against 3 records), contributions on
    {−1, −1/2, 0, 1}, σ = 1, both orientations, stays below the candidates' largest
    certified δ (a revealed mixture over the coupled sizes when they are random), and the
    realised lower pairs are attained."""
    sigma = F(1)
    cands = dominating_pairs(kind, params, 3, "gaussian", "sum", F(1), F(2), sigma, add_remove)
    his = _max_his(cands)
    mech = _sized_mech(kind, params)
    for d1, d2 in dataset_pairs(2, add_remove):
        m1, m2 = mech(d1), mech(d2)
        for e in EPS:
            for a_, b_ in ((m1, m2), (m2, m1)):
                assert set_delta(a_, b_, sigma, "gauss", e) <= his[e], (d1, d2, e)
    for d in cands:  # others at 0 and the record at +C (add/remove) or ±C realise `lower`
        if d.lower is None:
            continue
        big = mech((F(0), F(0), F(1)))
        small = mech((F(0), F(0))) if add_remove else mech((F(0), F(0), F(-1)))
        assert (sorted(big), sorted(small)) == (sorted(d.lower.p), sorted(d.lower.q))
        if d.realised is not None:  # others at −C, the record at +C, D's size certain
            from verifydp.accounting.threshold import mixture_count_test

            n = int(d.realised.where.split("(")[1].split(" ")[0])
            small = mech((F(-1),) * n)
            assert len(small) == 1
            big = mech((F(-1),) * n + (F(1),))
            assert sorted(d.realised.comps) == sorted((w, c - small[0][1]) for w, c in big)
            test = mixture_count_test("gauss", d.realised.comps, 1)
            for e in EPS:
                assert test.delta(e) <= his[e]


def test_an_allocation_that_jumps_beats_the_displaced_pair() -> None:
    """Mutant: proportional allocation r = 1/10 with half-up rounding at N = 45
    (round(4.5) = 5 against round(4.4) = 4) accounted as a fixed-size draw (displaced pair
    at rate 5/45). With every record at +C the added record adds C with certainty (sums 5C
    against 4C): the mutant is beaten, the engine's candidates are not."""
    from verifydp.designs.allocation import round_allocation

    sigma, r = F(1), F(1, 10)
    (m_big, _), = round_allocation(r * 45, "half-up")
    (m_small, _), = round_allocation(r * 44, "half-up")
    big, small = [(F(1), F(m_big))], [(F(1), F(m_small))]
    mutant = law_pair(((0, F(8, 9)), (1, F(1, 9))), F(2), sigma, "gauss", "displaced")
    cands = dominating_pairs("proportional", {"r": r, "rounding": "half-up"}, 45, "gaussian",
                             "sum", F(1), F(2), sigma, True)
    his = _max_his(cands)
    mut = composed(mutant, 1, Grid(h=F(1, 200)))
    e = F(1, 2)
    val = set_delta(big, small, sigma, "gauss", e)
    assert val > mut.delta(e).hi
    assert val <= his[e]


@pytest.mark.parametrize("rounding", ["half-up", "randomised"])
def test_stratified_proportional_moves_are_covered(rounding: str) -> None:
    """Stratified proportional allocation (r = 1/2), strata h and g of 2 records, replace:
    the record changes value in h or moves to g (h then holds 1 record, round(1/2), and g 3,
    round(3/2): both allocations move). Every such pair, both orientations, the record on
    {−1, −1/2, 0, 1} (new value on {−1, 0, 1}), the others at ±1, stays below the
    candidates' largest certified δ; the in-place candidate alone is beaten by a move."""
    sigma, r = F(1), F(1, 2)
    params = {"r": r, "rounding": rounding}
    cands = dominating_pairs("stratified-proportional", params, 4, "gaussian", "sum", F(1),
                             F(2), sigma, False, {"h": 2, "g": 2})
    assert {d.form for d in cands} == {"resized", "moved"} and cands[0].form == "resized"
    his, within = _max_his(cands), _max_his(cands[:1])
    beaten = False
    ends = (F(-1), F(1))
    for h1, gs, x, x2 in itertools.product(ends, itertools.combinations_with_replacement(ends, 2),
                                           GRID, ends + (F(0),)):
        d = _combined([_rounded((h1, x), r, rounding), _rounded(gs, r, rounding)])
        pairs = [(d, _combined([_rounded((h1,), r, rounding),
                                _rounded(gs + (x2,), r, rounding)]))]
        if x2 != x:
            pairs.append((d, _combined([_rounded((h1, x2), r, rounding),
                                        _rounded(gs, r, rounding)])))
        beaten = _beats(pairs, his, within, sigma, (h1, gs, x, x2)) or beaten
    assert beaten


# ---------------------------------------------------------------- composed results


def _gauss_sf(mu: F, sd: flint.arb, t: F) -> flint.arb:
    return ((ball(t) - ball(mu)) / (sd * flint.arb(2).sqrt())).erfc() / 2


def sum_test_delta(law_t: list[tuple[int, F]], shift: F, sigma: F, steps: int,
                   eps: F) -> F:
    """Independent lower bound for T releases of one concrete dataset pair (others −C, the
    record +C): the adversary adds up the T outputs. Under D' the sum is Σ_k Pr(k copies in
    all) N(k·shift, Tσ²), under D it is N(0, Tσ²): δ ≥ best threshold test, in arb."""
    sd = ball(sigma) * flint.arb(steps).sqrt()
    best = F(0)
    e = ball(eps).exp()
    for t in np.linspace(0, float(shift) * steps, 161)[1:]:
        tt = F(float(t))
        p = sum((ball(w) * _gauss_sf(F(k) * shift, sd, tt) for k, w in law_t), flint.arb(0))
        val = p - e * _gauss_sf(F(0), sd, tt)
        best = max(best, rational(val, up=False))
    return best


def max_test_delta(q: F, shift: F, sigma: F, steps: int, eps: F) -> F:
    """Independent lower bound, the other test: "some release exceeds t". Per release the
    concrete pair is (1−q)N(0, σ²) + qN(shift, σ²) vs N(0, σ²), releases independent."""
    best = F(0)
    e = ball(eps).exp()
    one = flint.arb(1)
    for t in np.linspace(0, float(shift) + 12 * float(sigma), 241)[1:]:
        tt = F(float(t))
        s0 = _gauss_sf(F(0), ball(sigma), tt)
        p1 = (1 - ball(q)) * s0 + ball(q) * _gauss_sf(shift, ball(sigma), tt)
        val = (one - (one - p1) ** steps) - e * (one - (one - s0) ** steps)
        best = max(best, rational(val, up=False))
    return best


def _binomial(steps: int, q: F) -> list[tuple[int, F]]:
    return [(k, comb(steps, k) * q**k * (1 - q) ** (steps - k)) for k in range(steps + 1)]


@pytest.mark.parametrize("example", ["deploy_dpsgd_poisson.toml",
                                     "deploy_dpsgd_fixed_batch.toml"])
def test_composed_delta_is_sound_against_concrete_pairs(example: str) -> None:
    """δ after T = 60 releases at ε ∈ {1/2, 1}: the certified upper end is at least the
    sum-test δ of the concrete pair (others −C, record +C), computed here independently."""
    q = F(256, 60000)
    shift = F(1) if "poisson" in example else F(2)
    with memo_cells():  # one set of certified cells for both ε (issue 29)
        deps = {eps: audit_deployment(parse_design(_raw(example, 60, eps)), curves=False)
                for eps in (F(1, 2), F(1))}
    for eps, dep in deps.items():
        indep = max(sum_test_delta(_binomial(60, q), shift, F(11, 10), 60, eps),
                    max_test_delta(q, shift, F(11, 10), 60, eps))
        assert indep > 0
        assert indep <= dep.result.hi, (indep, dep.result)


def _raw(example: str, steps: int, eps: F | None = None, delta: F | None = None,
         accountant: bool = False) -> dict[str, Any]:
    obj = tomllib.loads((EXAMPLES / example).read_text(encoding="utf-8"))
    comp: dict[str, Any] = {"steps": steps}
    if eps is not None:
        comp["epsilon"] = str(eps)
    else:
        comp["delta"] = str(delta)
    comp["resample"] = obj["composition"].get("resample", True)
    comp["rtol"] = "1/2"  # soundness checks: any certified bracket will do, no refinement
    obj["composition"] = comp
    if not accountant:
        obj.pop("accountant", None)
    return obj


def test_one_sample_releases_are_sound_and_agree_at_one_step() -> None:
    """resample = false (one sample, T releases): with Gaussian noise the concrete pair's
    sum test is (1−q)N(0, Tσ²) + qN(T·2C, Tσ²) vs N(0, Tσ²); the certified bracket contains
    what it must, and at T = 1 the one-sample identity agrees with the plain pair (the
    identity's mutants — a wrong ε' or factor — would separate the two brackets)."""
    def raw(steps: int, eps: F, resample: bool) -> dict[str, Any]:
        o = _raw("deploy_dpsgd_fixed_batch.toml", steps, eps=eps)
        o["composition"]["resample"] = resample
        o["mechanism"]["noise_multiplier"] = 4  # a narrower loss range: a faster test
        return o

    eps = F(1, 1000)  # e^ε − 1 below q: the sum test has something to find
    one_sample = audit_deployment(parse_design(raw(8, eps, False)), curves=False).result
    q = F(256, 60000)
    indep = sum_test_delta([(0, 1 - q), (8, q)], F(2), F(4), 8, eps)
    assert 0 < indep <= one_sample.hi
    for resample in (True, False):
        o = raw(1, F(1, 4), resample)
        b = audit_deployment(parse_design(o), curves=False).result
        if resample:
            ref = b
    assert b.lo <= ref.hi and ref.lo <= b.hi


def test_peers_inside_the_certified_bracket_poisson_dpsgd() -> None:
    """The Poisson DP-SGD example at T = 300: dp-accounting's PLD ε and prv-accountant's
    interval at δ = 1e-5 meet the certified bracket."""
    pytest.importorskip("dp_accounting")
    obj = _raw("deploy_dpsgd_poisson.toml", 300, delta=F(1, 10**5), accountant=True)
    obj["accountant"]["steps"] = 300
    obj["composition"]["rtol"] = "1/100"
    dep = audit_deployment(parse_design(obj), curves=False)
    assert dep.accountant is not None and dep.accountant.value is not None
    assert dep.result.lo <= F(dep.accountant.value) <= dep.result.hi * F(1001, 1000)
    assert dep.accountant.understates is None
    prv = pytest.importorskip("prv_accountant")
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = prv.PRVAccountant([PoissonSubsampledGaussianMechanism(256 / 60000, 1.1)],
                            eps_error=0.01, delta_error=1e-12, max_self_compositions=[300])
    lo, _, hi = acc.compute_epsilon(1e-5, [300])
    assert F(lo) <= dep.result.hi and dep.result.lo <= F(hi)


def test_peers_for_discrete_mechanisms_meet_the_certified_bracket() -> None:
    """dp-accounting's PLD for the Poisson discrete-Gaussian example (σ = 3, q = 1/100, 52
    weeks) and the Poisson-subsampled randomized response of the panel example: the
    pessimistic PLD lies at or above the certified lower end, the optimistic one at or below
    the upper end (at a discretisation of 1e-5, fine enough to meet them), and neither is
    flagged."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    dg = audit_deployment(load_design(EXAMPLES / "deploy_dgauss_count.toml"), curves=False)
    assert dg.accountant is not None and dg.accountant.understates is None
    for pessimistic in (True, False):
        d = pld.from_discrete_gaussian_mechanism(3, sampling_prob=0.01,
                                                 pessimistic_estimate=pessimistic,
                                                 value_discretization_interval=1e-5)
        e = F(d.self_compose(52).get_epsilon_for_delta(1e-6))
        assert (e >= dg.result.lo) if pessimistic else (e <= dg.result.hi), (pessimistic, e)
    rr = audit_deployment(load_design(EXAMPLES / "deploy_survey_rr.toml"), curves=False)
    assert rr.accountant is not None and rr.accountant.value is not None
    assert rr.accountant.understates is None
    assert F(rr.accountant.value) >= rr.result.lo


def test_fixed_size_example_flags_the_poisson_accountant() -> None:
    """Fixed-size batches accounted as Poisson: the report states the understatement with
    the certified numbers (T = 300 here; the example's 10^4 steps run in bench/)."""
    pytest.importorskip("dp_accounting")
    obj = _raw("deploy_dpsgd_fixed_batch.toml", 300, delta=F(1, 10**5), accountant=True)
    obj["accountant"]["steps"] = 300
    dep = audit_deployment(parse_design(obj), curves=False)
    a = dep.accountant
    assert a is not None and a.understates is not None and a.understates > 2
    assert f"{float(dep.result.lo):.6g}" in a.note and "understates by" in a.note
    assert "assumes poisson" in a.note and "fixed-size" in a.note
    assert F(a.value) < dep.result.lo  # type: ignore[arg-type]


def test_json_numbers_have_one_shape() -> None:
    obj = _raw("deploy_household_two_stage.toml", 2, delta=F(1, 10**6))
    data = audit_deployment(parse_design(obj), curves=True).to_json()
    for key in ("result", "one_step"):
        assert set(data[key]) == {"lo", "hi", "lo_float", "hi_float"}
        assert F(data[key]["lo"]) <= F(data[key]["hi"])
    assert all(set(p["delta"]) == {"lo", "hi", "lo_float", "hi_float"}
               for p in data["curve_delta"])
    b = number_json(audit_deployment(parse_design(obj), curves=False).result)
    assert b["lo_float"] <= b["hi_float"] and F(b["lo"]) <= F(b["hi"])


def test_plots_draw(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from verifydp.audit.deployment_plots import html_section, write_plots

    dep = audit_deployment(parse_design(_raw("deploy_survey_laplace_tables.toml", 4,
                                             delta=F(1, 10**6))))
    paths = write_plots(dep, tmp_path)
    assert all(p.stat().st_size > 1000 for p in paths)
    assert "Deployment" in html_section(dep)


def test_examples_load() -> None:
    for p in sorted(EXAMPLES.glob("deploy_*.toml")):
        spec = load_design(p)
        assert spec.mechanism is not None and spec.composition is not None


def _two_stage(clusters: tuple[tuple[F, ...], ...]) -> Comps:
    """One of the clusters uniformly, then one of its records uniformly."""
    return _law([v for c in clusters for v in c for _ in range(
        math.lcm(*(len(x) for x in clusters)) // len(c))])


def test_revealed_cluster_bound_covers_every_dataset_pair() -> None:
    """Two clusters of 3 (record's cluster: the record and 2 mates), one drawn, then one
    record of it; mates and record in {−1, 0, 1}, the other cluster in {−1, 1}, σ = 1/4,
    ε ∈ {0, 1}, add/remove, both orientations: the certified one-release δ of the deployment
    (the revealed bound) covers every dataset pair."""
    vals = (F(-1), F(0), F(1))
    obj = {"population": {"clusters": [3, 3]},
           "design": {"kind": "two-stage-cluster", "ell": 1, "within": "srs", "m": 1},
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": "add-remove", "clusters": "fixed"},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": "1/4"}}
    sigma = F(1, 4)
    his = _one_release_his(obj)
    for mates in itertools.combinations_with_replacement(vals, 2):
        for other in itertools.combinations_with_replacement((F(-1), F(1)), 3):
            for x in vals:
                big, small = _two_stage((mates + (x,), other)), _two_stage((mates, other))
                for e in his:
                    for a, b in ((big, small), (small, big)):
                        assert set_delta(a, b, sigma, "gauss", e) <= his[e], (mates, other, x)


def _systematic_frame(values: tuple[F, ...], k: int) -> Comps:
    """Systematic sampling over the listed order: start s uniform on k, the positions
    s, s + k, … (written from the positions, not from the cluster reading)."""
    return _law([sum(values[s::k], F(0)) for s in range(k)])


@pytest.mark.parametrize("size,k", [(5, 2)])
def test_systematic_frame_order_covers_every_substitution(size: int, k: int) -> None:
    """Systematic sampling over a frame order a changed record keeps (`[protect] order =
    "fixed"`, read as cluster sampling of the residue classes): every substitution of one
    value of N records (values on {−1, 0, 1}, the record at every position), both orders,
    stays below the certified one-release δ, and the certified lower end (the separation of
    the record's class: mates at −C, other classes at +C) lies below the largest of them,
    within 5 % of the upper end (classes of 3 and 2)."""
    sigma, vals = F(1, 4), (F(-1), F(0), F(1))
    obj = {"population": {"size": size}, "design": {"kind": "systematic-fixed", "interval": k},
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": "replace", "order": "fixed"},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": str(sigma)}}
    spec = parse_design(obj)
    assert spec.kind == "cluster-srs" and "residue classes" in spec.reading
    assert "known-order-systematic" in {f.code for f in red_flags(spec)}
    for e in (F(1, 2),):
        o = copy.deepcopy(obj)
        o["composition"] = {"steps": 1, "epsilon": str(e), "rtol": "1/100"}
        res = audit_deployment(parse_design(o), curves=False).result
        best = F(0)
        for data in itertools.product(vals, repeat=size):
            for x in vals:
                if x <= data[0]:
                    continue
                a = _systematic_frame(data, k)
                b = _systematic_frame((x, *data[1:]), k)
                val = max(set_delta(a, b, sigma, "gauss", e), set_delta(b, a, sigma, "gauss", e))
                assert val <= res.hi, (data, x, e)
                best = max(best, val)
        assert res.lo <= best <= res.hi
        # classes of 3 and 2: 4C apart, 8 noise units: the lower end is tight
        assert res.hi - res.lo <= res.hi / 20


def _cluster_srs(clusters: tuple[tuple[F, ...], ...], ell: int) -> Comps:
    """ℓ of the clusters uniformly, every record of each drawn."""
    return _law([sum((v for c in pick for v in c), F(0))
                 for pick in itertools.combinations(clusters, ell)])


@pytest.mark.parametrize("relation", ["replace", "add-remove"])
def test_cluster_sampling_separation_lower_end(relation: str) -> None:
    """Two of three clusters of 2 drawn whole (σ = C/4, cluster frame fixed): every dataset
    pair (the record in the first cluster, every other value ±1, the record on {−1, 0, 1};
    under add/remove it joins or leaves, both orientations) lies below the certified
    one-release δ and the lower end below the largest of them. At clusters of 20 (σ = C) the
    concrete pair behind the lower end (mates at −C, other clusters at +C: the record's
    cluster drawn shows) lies in the bracket, which is within 5 % (without the separation
    the lower end is the hidden pair's, far below)."""
    sigma, ends = F(1, 4), (F(-1), F(1))
    obj = {"population": {"clusters": [2, 2, 2]}, "design": {"kind": "cluster-srs", "ell": 2},
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": relation, "clusters": "fixed"},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": str(sigma)}}
    o = copy.deepcopy(obj)
    o["composition"] = {"steps": 1, "epsilon": "1/2", "rtol": "1/100"}
    res = audit_deployment(parse_design(o), curves=False).result
    best = F(0)
    for mate, c2, c3 in itertools.product(ends, itertools.product(ends, repeat=2),
                                          itertools.product(ends, repeat=2)):
        for x, y in itertools.combinations((F(-1), F(0), F(1)), 2):
            if relation == "replace":
                pairs = [(_cluster_srs(((mate, x), c2, c3), 2),
                          _cluster_srs(((mate, y), c2, c3), 2))]
            else:  # the file's clusters as the smaller or the larger dataset
                pairs = [(_cluster_srs(((mate, x), c2, c3), 2),
                          _cluster_srs(((mate,), c2, c3), 2)),
                         (_cluster_srs(((mate, mate, x), c2, c3), 2),
                          _cluster_srs(((mate, mate), c2, c3), 2))]
            for a, b in pairs:
                val = max(set_delta(a, b, sigma, "gauss", F(1, 2)),
                          set_delta(b, a, sigma, "gauss", F(1, 2)))
                assert val <= res.hi, (mate, c2, c3, x, y)
                best = max(best, val)
    assert res.lo <= best <= res.hi
    big = copy.deepcopy(o)
    big["population"]["clusters"] = [20, 20, 20]
    big["mechanism"]["sigma"] = "1"
    res = audit_deployment(parse_design(big), curves=False).result
    # the concrete pair: drawn with the record's cluster (2/3) at 1 ± C (replace) or 1 vs 2
    # (add/remove), else at 40 in both: its δ is (2/3)·H(K(shift)‖K(0)) less a far tail of
    # the common part (below 1e-70), the closed form in mpmath
    mpmath.mp.dps = 40
    shift, e = (2 if relation == "replace" else 1), mpmath.mpf(1) / 2
    exact = 2 * (mpmath.ncdf(shift / 2 - e / shift)
                 - mpmath.exp(e) * mpmath.ncdf(-shift / 2 - e / shift)) / 3
    assert float(res.lo) <= float(exact) * (1 + 1e-12) and float(exact) <= float(res.hi) * (1 + 1e-12)
    assert res.hi - res.lo <= res.hi / 20


def test_frame_order_is_refused_where_it_does_not_apply() -> None:
    base = {"population": {"size": 100}, "design": {"kind": "systematic-fixed", "interval": 5},
            "base": {"epsilon": 1}, "target": {"epsilon": 1}}
    with pytest.raises(ValueError, match="applies to substitution"):
        parse_design({**base, "protect": {"relation": "add-remove", "order": "fixed"}})
    with pytest.raises(ValueError, match="systematic-fixed only"):
        parse_design({**base, "design": {"kind": "srswor", "m": 5},
                      "protect": {"relation": "replace", "order": "fixed"}})


def _one_release_his(obj: dict[str, Any], eps: tuple[F, ...] = (F(0), F(1))) -> dict[F, F]:
    """The certified one-release upper end of the design `obj` at each ε (rtol 1/2). The
    audits differ only in the ε read and share one set of certified cells (the audit's own
    `memo_cells` held open across them: issue 29; the same numbers)."""
    his = {}
    with memo_cells():
        for e in eps:
            o = copy.deepcopy(obj)
            o["composition"] = {"steps": 1, "epsilon": str(e), "rtol": "1/2"}
            his[e] = audit_deployment(parse_design(o), curves=False).result.hi
    return his


def _cluster_his(relation: str, frame: str, sigma: str) -> dict[F, F]:
    obj = {"population": {"clusters": [2, 2]},
           "design": {"kind": "two-stage-cluster", "ell": 1, "within": "srs", "m": 1},
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": relation, "clusters": frame},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": sigma}}
    return _one_release_his(obj)


@pytest.mark.parametrize("relation", ["add-remove", "replace"])
def test_neighbours_that_change_the_clusters_are_covered(relation: str) -> None:
    """Two clusters of 2, one drawn, then one record of it, σ = 1 (an open cluster frame:
    a record type carries its cluster). Add/remove: the record forms a cluster of its own
    (3 clusters); replace: a record moves to the other cluster or to a new one. Every such
    pair, both orientations, values in {−1, 0, 1} (the other cluster at ±1), stays below the
    certified one-release δ;
    the fixed-frame bound (the mutant that ignores these neighbours) is beaten."""
    sigma, vals = F(1), (F(-1), F(0), F(1))
    his = _cluster_his(relation, "open", "1")
    fixed = _cluster_his(relation, "fixed", "1")
    beaten = False
    ends = (F(-1), F(1))  # the other cluster at ±1
    for a_, b_ in itertools.product(itertools.product(vals, repeat=2),
                                    itertools.combinations_with_replacement(ends, 2)):
        d = _two_stage((a_, b_))  # a_ = (the record, its mate); b_ the other cluster
        if relation == "add-remove":
            others = [_two_stage((a_, b_, (x,))) for x in vals]
        else:
            others = [_two_stage(((a_[1],), b_ + (x,))) for x in vals]
            others += [_two_stage(((a_[1],), b_, (x,))) for x in vals]
        for d2 in others:
            for e in his:
                for u, v in ((d, d2), (d2, d)):
                    val = set_delta(u, v, sigma, "gauss", e)
                    assert val <= his[e], (a_, b_, e)
                    beaten = beaten or val > fixed[e]
    assert beaten


def test_count_test_is_a_lower_bound_of_the_composed_pair() -> None:
    """The threshold-count test (`accounting.threshold.count_test`) on the added pair lies below
    the certified accountant's upper end, and it is not vacuous."""
    from verifydp.accounting.threshold import count_test

    pair = law_pair(((0, F(7, 10)), (1, F(3, 10))), F(5), F(1), "gauss", "added")
    c = composed(pair, 3, Grid(h=F(1, 200)))
    test = count_test("gauss", F(5), F(3, 10), 3)
    for e in (F(1), F(4), F(8)):
        assert test.delta(e) <= c.delta(e).hi
    assert test.delta(F(4)) > c.delta(F(4)).hi / 2


def test_unrevealed_cluster_pair_is_refuted_at_full_size() -> None:
    """Mutant: the household example's block draw hidden (the record in the sample w.p.
    1/20 · 1/5, nothing shown). Its ε at δ = 1e-6 for one release lies below the certified
    lower end, which a concrete dataset pair attains (mates at −C, other blocks at +C)."""
    obj = _raw("deploy_household_two_stage.toml", 1, delta=F(1, 10**6))
    dep = audit_deployment(parse_design(obj), curves=False)
    hidden = law_pair(((0, F(99, 100)), (1, F(1, 100))), F(2), F(1), "gauss", "displaced")
    c = composed(hidden, 1, Grid(F(1, 250)))
    assert c.delta(dep.result.lo).hi < F(1, 10**6)  # hidden ε(1e-6) < certified lower end


# ---------------------------------------------------------------- discrete mechanisms


def _mpf(x: F) -> Any:
    import mpmath

    return mpmath.mpf(x.numerator) / x.denominator


def _product_delta(ps: list[list[Any]], qs: list[list[Any]], eps: F) -> Any:
    """max of both orders' δ(ε) of ⊗ps vs ⊗qs (per-release lists of masses), enumerated."""
    import mpmath

    e = mpmath.exp(_mpf(eps))
    fwd = rev = mpmath.mpf(0)
    for tup in itertools.product(*(range(len(p)) for p in ps)):
        a = mpmath.fprod(p[i] for p, i in zip(ps, tup, strict=True))
        b = mpmath.fprod(q[i] for q, i in zip(qs, tup, strict=True))
        fwd += max(mpmath.mpf(0), a - e * b)
        rev += max(mpmath.mpf(0), b - e * a)
    return max(fwd, rev)


def _rr_release(pr_one: F, eps0: F) -> list[Any]:
    """Output law (Pr 1, Pr 0) of binary randomized response of a bit that is 1 w.p. pr_one."""
    import mpmath

    t = mpmath.exp(_mpf(eps0))
    keep = t / (1 + t)
    p1 = _mpf(pr_one) * keep + (1 - _mpf(pr_one)) * (1 - keep)
    return [p1, 1 - p1]


def _deploy(design: dict[str, Any], mech: dict[str, Any], steps: int, eps: F,
            relation: str = "add-remove", size: int = 4) -> Any:
    obj = {"population": {"size": size}, "design": design,
           "base": {"epsilon": 1, "relation": relation}, "target": {"epsilon": 1},
           "mechanism": mech,
           "composition": {"steps": steps, "epsilon": str(eps), "rtol": "1/2"}}
    return audit_deployment(parse_design(obj), curves=False).result


def _frac(x: Any) -> F:
    import mpmath

    return F(mpmath.nstr(x, 40))


def test_randomized_response_audit_against_brute_force() -> None:
    """N = 4, fixed-size samples of 2, randomized response ε0 = 1, three releases. Add/remove:
    the predicate "the record is in the sample" (Pr 1/2 with it, 0 without, by enumerating
    the samples) attains the bracket. Substitution: the predicates "the sample holds value x"
    and "… value x'" chosen per release (realisable: no other record has x or x') beat every
    fixed-order composition of the binary pair — the certified upper end covers them."""
    import mpmath

    mpmath.mp.dps = 50
    eps0, steps, eps = F(1), 3, F(1, 5)
    design = {"kind": "srswor", "m": 2}
    mech = {"kind": "randomized-response", "epsilon0": 1}
    population = ("x", "a", "b", "c")  # the record is "x"
    samples = list(itertools.combinations(range(4), 2))
    with_rec = F(sum(1 for s in samples if 0 in s), len(samples))
    added = _deploy(design, mech, steps, eps)
    exact = _product_delta([_rr_release(with_rec, eps0)] * steps,
                           [_rr_release(F(0), eps0)] * steps, eps)
    assert added.lo <= _frac(exact) <= added.hi, (added, exact)

    subst = _deploy(design, mech, steps, eps, relation="substitution")
    d, d2 = population, ("x'",) + population[1:]
    favour_d = (F(sum(1 for s in samples if any(d[i] == "x" for i in s)), len(samples)),
                F(sum(1 for s in samples if any(d2[i] == "x" for i in s)), len(samples)))
    best_mixed = mpmath.mpf(0)
    for mask in itertools.product((0, 1), repeat=steps):  # which value the predicate names
        ps = [_rr_release(favour_d[m], eps0) for m in mask]
        qs = [_rr_release(favour_d[1 - m], eps0) for m in mask]
        best_mixed = max(best_mixed, _product_delta(ps, qs, eps))
    fixed = _product_delta([_rr_release(favour_d[0], eps0)] * steps,
                           [_rr_release(favour_d[1], eps0)] * steps, eps)
    assert subst.lo <= _frac(fixed) and _frac(best_mixed) <= subst.hi, (subst, best_mixed)
    assert _frac(best_mixed) > _frac(fixed) * F(101, 100)  # why the symmetric pair is needed


def _value_law(samples: list[tuple[tuple[str, ...], F]]) -> dict[tuple[str, ...], F]:
    """The law of the sample as a multiset of values (what any statistic sees)."""
    out: dict[tuple[str, ...], F] = {}
    for sample, w in samples:
        key = tuple(sorted(sample))
        out[key] = out.get(key, F(0)) + w
    return out


def _tv(a: dict[tuple[str, ...], F], b: dict[tuple[str, ...], F]) -> F:
    return sum((abs(a.get(k, F(0)) - b.get(k, F(0))) for k in set(a) | set(b)), F(0)) / 2


def _uniform(items: list[tuple[str, ...]]) -> list[tuple[tuple[str, ...], F]]:
    return [(x, F(1, len(items))) for x in items]


def _must(values: tuple[str, ...], b: int, m: int, first: str) -> dict[tuple[str, ...], F]:
    stage = (list(itertools.combinations(values, b)) if first == "wor"
             else list(itertools.product(values, repeat=b)))
    return _value_law([(d, w / b**m) for s, w in _uniform(stage)
                       for d in itertools.product(s, repeat=m)])


def _two_stage_sample(clusters: tuple[tuple[str, ...], ...], m: int) -> dict[tuple[str, ...], F]:
    return _value_law([(s, F(1, len(clusters)) * w) for c in clusters
                       for s, w in _uniform(list(itertools.combinations(c, min(m, len(c)))))])


def _rr_candidate(design: dict[str, Any], population: dict[str, Any], relation: str,
                  frame: str = "fixed") -> Any:
    """The one randomized-response candidate (ε0 = 1) of a design file."""
    from verifydp.audit.deployment import candidates

    obj = {"population": population, "design": design, "base": {"epsilon": 1},
           "target": {"epsilon": 1}, "protect": {"relation": relation},
           "mechanism": {"kind": "randomized-response", "epsilon0": 1},
           "composition": {"steps": 1, "epsilon": "1/5"}}
    if "clusters" in population:
        obj["protect"]["clusters"] = frame
    (d,) = candidates(parse_design(obj))
    return d


def _rr_theta(design: dict[str, Any], population: dict[str, Any], relation: str,
              frame: str = "fixed") -> F:
    d = _rr_candidate(design, population, relation, frame)
    return d.law[-1][1]  # ((0, 1 − θ), (1, θ)): the disagreement bound θ


def test_randomized_response_disagreement_bounds_the_total_variation() -> None:
    """Randomized response of any statistic is dominated by the symmetric pair at θ when
    θ bounds the total variation between the two runs' sample laws (a statistic sees values
    only). Checked exactly on every dataset pair with values in {u, v} for the record "x":
    MUST.OW and MUST.WW under add/remove (N = 3, b = 2, m = 2), a two-stage cluster design
    (2 clusters of 2, one drawn, one record of it) under add/remove with the frame fixed
    (the record joins a cluster) and open (it forms its own), and proportional allocation
    (r = 1/2, half-up: the size jumps) under add/remove. A θ below the worst pair fails."""
    vals = ("u", "v")
    cases = []
    for first, kind in (("wor", "must-ow"), ("wr", "must-ww")):
        worst = max(_tv(_must(o + ("x",), 2, 2, first), _must(o, 2, 2, first))
                    for o in itertools.product(vals, repeat=2))
        cases.append((worst, _rr_theta({"kind": kind, "b": 2, "m": 2}, {"size": 3},
                                       "add-remove")))
    two = {"kind": "two-stage-cluster", "ell": 1, "within": "srs", "m": 1}
    fixed = max(_tv(_two_stage_sample(((a, "x"), (b, c)), 1),
                    _two_stage_sample(((a,), (b, c)), 1))
                for a, b, c in itertools.product(vals, repeat=3))
    cases.append((fixed, _rr_theta(two, {"clusters": [2, 2]}, "add-remove")))
    opened = max(_tv(_two_stage_sample(((a, b), (c, e), ("x",)), 1),
                     _two_stage_sample(((a, b), (c, e)), 1))
                 for a, b, c, e in itertools.product(vals, repeat=4))
    cases.append((max(fixed, opened),
                  _rr_theta(two, {"clusters": [2, 2]}, "add-remove", frame="open")))
    prop = max(_tv(_value_law([(s, w * p) for m, p in ((2, F(1)),)
                               for s, w in _uniform(list(itertools.combinations(o + ("x",), m)))]),
                   _value_law([(s, w) for s, w in _uniform(list(itertools.combinations(o, 1)))]))
               for o in itertools.product(vals, repeat=2))
    cases.append((prop, _rr_theta({"kind": "proportional", "r": "1/2", "rounding": "half-up"},
                                  {"size": 3}, "add-remove")))
    def pps(records: tuple[tuple[str, F], ...]) -> dict[tuple[str, ...], F]:
        total = sum((m for _, m in records), F(0))
        rates = [min(F(1), m / total) for _, m in records]  # expected size 1
        return _value_law([(tuple(v for (v, _), k in zip(records, keep, strict=True) if k),
                            math.prod((r if k else 1 - r) for r, k in zip(rates, keep,
                                                                           strict=True)))
                           for keep in itertools.product((0, 1), repeat=len(records))])

    worst_pps = max(_tv(pps(tuple(zip(o, (F(1), F(1)), strict=True)) + (("x", F(3)),)),
                        pps(tuple(zip(o, (F(1), F(1)), strict=True))))
                    for o in itertools.product(vals, repeat=2))
    cases.append((worst_pps, _rr_theta({"kind": "poisson-pps", "expected_size": 1},
                                       {"size_classes": [{"measure": 1, "count": 2},
                                                         {"measure": 3, "count": 1}]},
                                       "add-remove")))
    for worst, theta in cases:
        assert worst <= theta, (worst, theta)
        assert worst > 0
    assert fixed < opened  # the open frame needs its own term
    # the realised lower end of the open frame (m = 2 ≤ every cluster): "fewer than ℓ·m
    # records" has probability ℓ/(k + 1) = 1/3 with the record's own cluster, 0 without,
    # above the record's inclusion 1/4
    from verifydp.accounting import randomized_response

    d = _rr_candidate({**two, "m": 2}, {"clusters": [4, 4]}, "add-remove", frame="open")
    block = ("u", "v", "u", "v")
    big = _two_stage_sample((block, block, ("x",)), 2)
    small = _two_stage_sample((block, block), 2)
    short = [sum((w for k, w in law.items() if len(k) < 2), F(0)) for law in (big, small)]
    assert short == [F(1, 3), F(0)]
    assert d.lower == randomized_response(F(1, 3), F(1), symmetric=False)


def _dg_law(sigma: F, reach: int) -> dict[int, Any]:
    import mpmath

    s2 = 2 * _mpf(sigma) ** 2
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(k) ** 2 / s2) for k in range(-reach - 300, reach + 301))
    return {k: mpmath.exp(-mpmath.mpf(k) ** 2 / s2) / z for k in range(-reach, reach + 1)}


@pytest.mark.parametrize("design,mech,values", [
    ({"kind": "poisson", "q": "1/2"}, {"kind": "discrete-gaussian", "query": "count",
                                       "sigma": 1}, (0, 0, 1)),
    ({"kind": "srswor", "m": 2}, {"kind": "discrete-gaussian", "query": "sum", "clip": 1,
                                  "sigma": "3/2"}, (-1, -1, 1)),
])
def test_discrete_gaussian_audit_against_brute_force(design: dict[str, Any],
                                                     mech: dict[str, Any],
                                                     values: tuple[int, ...]) -> None:
    """N = 3, two releases at ε = 1/2: the concrete pair (others at −C or 0, the record at +C
    or 1; the record's removal) by enumerating the samples, then the two releases' outputs
    exactly (mpmath, 50 digits): inside the certified bracket (the pair is realisable)."""
    import mpmath

    mpmath.mp.dps = 50
    sigma, steps, eps = F(mech["sigma"]), 2, F(1, 2)
    res = _deploy(design, mech, steps, eps, size=3)

    def sums(vals: tuple[int, ...]) -> dict[int, F]:
        out: dict[int, F] = {}
        if design["kind"] == "poisson":
            for keep in itertools.product((0, 1), repeat=len(vals)):
                w = F(1, 2 ** len(vals))
                s = sum(v for v, k in zip(vals, keep, strict=True) if k)
                out[s] = out.get(s, F(0)) + w
        else:
            combos = list(itertools.combinations(vals, design["m"]))
            for c in combos:
                out[sum(c)] = out.get(sum(c), F(0)) + F(1, len(combos))
        return out

    law_d, law_d2 = sums(values), sums(values[:-1])
    g = _dg_law(sigma, 30)
    xs = range(-22, 23)
    p = [mpmath.fsum(_mpf(w) * g.get(x - s, 0) for s, w in law_d.items()) for x in xs]
    q = [mpmath.fsum(_mpf(w) * g.get(x - s, 0) for s, w in law_d2.items()) for x in xs]
    exact = _product_delta([p] * steps, [q] * steps, eps)
    assert res.lo <= _frac(exact) <= res.hi, (res, exact)


@pytest.mark.parametrize("mech,field", [
    ({"kind": "discrete-gaussian", "query": "sum", "clip": 1.5, "sigma": 2}, "mechanism.clip"),
    ({"kind": "discrete-gaussian", "query": "mean", "clip": 1, "sigma": 2, "divisor": 10},
     "mechanism.query"),
    ({"kind": "discrete-gaussian", "query": "count", "sigma": 0.01}, "mechanism.sigma"),
    ({"kind": "randomized-response", "epsilon0": 0}, "mechanism.epsilon0"),
    ({"kind": "randomized-response", "epsilon0": -1}, "mechanism.epsilon0"),
    ({"kind": "randomized-response", "epsilon0": 1, "clip": 1}, "mechanism.clip"),
    ({"kind": "randomized-response", "epsilon0": 1, "query": "count"}, "mechanism.query"),
])
def test_discrete_bad_files_exit_2_one_line(mech: dict[str, Any], field: str,
                                            tmp_path: Path) -> None:
    import argparse

    from verifydp.cli.audit import register, run
    from verifydp.cli.main import UsageError

    body = ", ".join(f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"'
                     for k, v in mech.items())
    bad = tmp_path / "d.toml"
    bad.write_text('[population]\nsize = 100\n[design]\nkind = "poisson"\nq = 0.1\n'
                   "[base]\nepsilon = 1\n[target]\nepsilon = 1\n"
                   f"[mechanism]\n{body.replace(', ', chr(10))}\n"
                   "[composition]\nsteps = 10\ndelta = 1e-5\n", encoding="utf-8")
    parser = argparse.ArgumentParser(prog="verifydp")
    register(parser.add_subparsers(dest="command", required=True))
    with pytest.raises(UsageError) as exc:
        run(parser.parse_args(["audit", str(bad), "--no-witnesses", "--no-grid"]))
    msg = str(exc.value)
    assert field in msg, msg
    assert "\n" not in msg


def test_randomized_response_rounds_a_huge_inclusion_probability_outward() -> None:
    """With replacement, π = 1 − (1 − 1/N)^m has a denominator of m·log10(N) digits: the
    upper pair takes π rounded up, the lower pair π rounded down (both to 2^-96)."""
    from verifydp.accounting.dominating import inclusion, rr_pairs

    exact = inclusion("srswr", {"m": 5000}, 10**5)
    for add_remove in (True, False):
        (d,) = rr_pairs("srswr", {"m": 5000}, 10**5, F(1), add_remove)
        assert d.lower is not None
        up, low = d.pair.p[0][1], d.lower.p[0][1]  # the b-coefficient of atom 1 is π
        assert low <= exact <= up and up - low <= F(2, 2**96)


def _opacus_accountants() -> None:
    """Opacus's accountants import torch; skip when it is absent (the [peers] extra leaves
    torch out: .ci/run installs the CPU build when the machine has its wheel)."""
    pytest.importorskip("torch")
    pytest.importorskip("opacus")


@pytest.mark.parametrize("name", ["opacus-rdp", "opacus-prv"])
def test_opacus_accountants_against_the_certified_bracket(name: str) -> None:
    """Poisson DP-SGD at T = 300, δ = 1e-5, accounted by opacus: the RDP accountant is an
    upper bound (never below the certified lower end, so never flagged) and the PRV
    accountant's upper end lies within its own eps_error of the bracket; the same accountants on the
    fixed-size example are flagged as understating ε with the certified numbers."""
    _opacus_accountants()
    obj = _raw("deploy_dpsgd_poisson.toml", 300, delta=F(1, 10**5), accountant=True)
    obj["accountant"].update(name=name, steps=300)
    obj["composition"]["rtol"] = "1/100"
    dep = audit_deployment(parse_design(obj), curves=False)
    a = dep.accountant
    assert a is not None and a.value is not None, a
    assert a.understates is None
    assert F(a.value) >= dep.result.lo
    if name == "opacus-prv":  # opacus reports the PRV interval's upper end (eps_error 0.01)
        assert F(a.value) <= dep.result.hi + F(2, 100)
    fixed = _raw("deploy_dpsgd_fixed_batch.toml", 300, delta=F(1, 10**5), accountant=True)
    fixed["accountant"].update(name=name, steps=300)
    b = audit_deployment(parse_design(fixed), curves=False)
    assert b.accountant is not None and b.accountant.understates is not None
    assert b.accountant.understates > 2 and "understates by" in b.accountant.note


def test_one_sample_releases_refuse_sizes_that_follow_the_data() -> None:
    """`resample = false` needs the record in the sample at most once with nothing else
    moving: a proportional allocation's size may move with the record (the one-sample
    identity would take the inclusion rate for a shift that happens with certainty)."""
    from verifydp.audit.spec import DesignFileError

    obj = {"population": {"size": 1000},
           "design": {"kind": "proportional", "r": "1/10", "rounding": "half-up"},
           "base": {"epsilon": 1}, "target": {"epsilon": 1, "delta": 1e-6},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": 2},
           "composition": {"steps": 10, "delta": 1e-6, "resample": False}}
    with pytest.raises(DesignFileError, match="resized pair"):
        audit_deployment(parse_design(obj), curves=False)


def _poisson_pps(records: tuple[tuple[F, F], ...], n: F) -> Comps:
    """Poisson PPS of (value, measure) records: each kept w.p. min(1, n·s/T), the sums' law."""
    total = sum((m for _, m in records), F(0))
    rates = [min(F(1), n * m / total) for _, m in records]
    out: dict[F, F] = {}
    for keep in itertools.product((0, 1), repeat=len(records)):
        w = math.prod((r if k else 1 - r) for r, k in zip(rates, keep, strict=True))
        if w:
            c = sum((v for (v, _), k in zip(records, keep, strict=True) if k), F(0))
            out[c] = out.get(c, F(0)) + w
    return sorted((w, c) for c, w in out.items())


@pytest.mark.parametrize("sizes,n,count", [
    (((1, 2), (3, 1)), F(1), 1),  # one product covers every neighbour
    (((1, 1), (2, 1)), F(1), 2),  # capped rates: a neighbour outside the order, its own
])
def test_poisson_pps_pairs_cover_every_neighbour(sizes: tuple[tuple[int, int], ...], n: F,
                                                 count: int) -> None:
    """Poisson PPS (proofs/deployment_pairs.md#pps): every record of any listed measure
    added to the file or removed from it, with values on {−1, −1/2, 0, 1} (C = 1), σ = 1,
    both orientations, stays below the candidates' largest certified δ; the realised pair
    (others at 0) is attained; the mutant without the class counts (the record's own added
    pair: the rates' move ignored) is beaten. (Where capped rates put a neighbour outside
    the garbling order its own candidate is added; the first candidate alone was not beaten
    on this grid: the order is sufficient, not necessary.)"""
    sigma = F(1)
    classes = tuple((F(m), c) for m, c in sizes)
    cands = dominating_pairs("poisson-pps", {"expected_size": n}, sum(c for _, c in sizes),
                             "gaussian", "sum", F(1), F(2), sigma, True, size_classes=classes)
    assert len(cands) == count
    assert all(isinstance(d.pair, Product) for d in cands)
    his = _max_his(cands)
    own = cands[0].pair.parts[0]
    mutant = composed(own, 1, Grid(h=F(1, 200)))
    mutant_hi = {e: mutant.delta(e).hi for e in EPS}  # once per ε, not once per pair
    beaten = False
    file_measures = tuple(F(m) for m, c in sizes for _ in range(c))
    bases = [(file_measures, u) for u, _ in classes]  # a record of measure u added
    bases += [(file_measures[:i] + file_measures[i + 1:], file_measures[i])
              for i in range(len(file_measures))]    # the file's record i removed
    for base, u in bases:
        for vals in itertools.product(GRID, repeat=len(base)):
            others = tuple(zip(vals, base, strict=True))
            for x in GRID:
                big, small = _poisson_pps(others + ((x, u),), n), _poisson_pps(others, n)
                for e in EPS:
                    for a_, b_ in ((big, small), (small, big)):
                        val = set_delta(a_, b_, sigma, "gauss", e)
                        assert val <= his[e], (others, x, u, e)
                        beaten = beaten or val > mutant_hi[e]
    assert beaten
    for d in cands:  # each lower end is the added pair of its own neighbour, others at 0
        assert d.lower is not None and d.lower.q == ((F(1), F(0)),)
    big = _poisson_pps(tuple((F(0), m) for m in file_measures[:-1])
                       + ((F(1), file_measures[-1]),), n)
    assert sorted(big) == sorted(cands[0].lower.p)
    with pytest.raises(ValueError, match="substitution"):
        dominating_pairs("poisson-pps", {"expected_size": n}, 3, "gaussian", "sum", F(1), F(2),
                         sigma, False, size_classes=classes)


def test_poisson_pps_with_fixed_measures_is_poisson_at_the_largest_rate() -> None:
    """Substitution with the measures stated fixed (frame data): classes {1: 2 records,
    3: 1}, expected size 1 (rates 1/5, 1/5, 3/5). Every change of one record's value, the
    measure kept, with values on GRID (C = 1), σ = 1, both orders, stays below the pair
    (Poisson at the largest rate 3/5); the change on the largest measure with others at 0
    attains the pair's lower end; and Poisson at the smallest rate (the record's class
    read as the most populous) is beaten. Fixed measures under add/remove are refused."""
    sigma, n = F(1), F(1)
    classes = ((F(1), 2), (F(3), 1))
    cands = dominating_pairs("poisson-pps", {"expected_size": n}, 3, "gaussian", "sum", F(1),
                             F(2), sigma, False, size_classes=classes, fixed_measures=True)
    (poisson,) = dominating_pairs("poisson", {"q": F(3, 5)}, 3, "gaussian", "sum", F(1), F(2),
                                  sigma, False)
    assert [d.pair for d in cands] == [poisson.pair] and "measures fixed" in cands[0].why
    his = _max_his(cands)
    small = composed(dominating_pairs("poisson", {"q": F(1, 5)}, 3, "gaussian", "sum", F(1),
                                      F(2), sigma, False)[0].pair, 1, Grid(h=F(1, 200)))
    small_hi = {e: small.delta(e).hi for e in EPS}  # once per ε, not once per pair
    measures = (F(1), F(1), F(3))
    beaten = False
    for i in range(3):  # the changed record
        for vals in itertools.product(GRID, repeat=3):
            for x2 in GRID:
                if x2 == vals[i]:
                    continue
                a_ = _poisson_pps(tuple(zip(vals, measures, strict=True)), n)
                b_ = _poisson_pps(tuple(zip(vals[:i] + (x2,) + vals[i + 1:], measures,
                                            strict=True)), n)
                for e in EPS:
                    val = set_delta(a_, b_, sigma, "gauss", e)
                    assert val <= his[e], (i, vals, x2, e)
                    beaten = beaten or val > small_hi[e]
    assert beaten
    rr = dominating_pairs("poisson-pps", {"expected_size": n}, 3, "randomized-response",
                          "binary", F(1), F(1), F(0), False, epsilon0=F(1),
                          size_classes=classes, fixed_measures=True)
    assert rr[0].law == bernoulli(F(3, 5))
    with pytest.raises(ValueError, match="fixed measures apply to substitution"):
        dominating_pairs("poisson-pps", {"expected_size": n}, 3, "gaussian", "sum", F(1), F(2),
                         sigma, True, size_classes=classes, fixed_measures=True)


def test_pps_example_under_substitution_with_fixed_measures() -> None:
    """The business PPS example read under substitution with the measures stated fixed:
    the audit runs Poisson at the largest rate min(1, 400·100/295000) = 8/59, and refuses
    the same file when the measures are the records' own."""
    from verifydp.audit.spec import DesignFileError

    raw = tomllib.loads((ROOT / "examples" / "deploy_business_pps.toml").read_text("utf-8"))
    raw["protect"] = {"relation": "replace", "measures": "fixed"}
    dep = audit_deployment(parse_design(raw), curves=False)
    assert "measures fixed: Poisson(q = 8/59)" in dep.pairs[0]
    assert dep.result.lo <= dep.result.hi and dep.result.width <= dep.result.hi / 50
    raw["protect"] = {"relation": "replace"}
    with pytest.raises(DesignFileError, match="state the measures fixed"):
        audit_deployment(parse_design(raw), curves=False)


def test_accountant_above_a_zero_upper_end_is_reported() -> None:
    """A certified upper end of 0 (epsilon0 = 1e-6 on the randomized-response example, run
    as the file says) and a positive accountant: 'conservative', not a ZeroDivisionError
    (issue 28's fuzz)."""
    pytest.importorskip("dp_accounting")
    from verifydp.audit.deployment import _accountant
    from verifydp.exact.interval import Bracket

    obj = _raw("deploy_survey_rr.toml", 36, delta=F(1, 10**8), accountant=True)
    obj["mechanism"]["epsilon0"] = "1e-6"
    res = _accountant(parse_design(obj), "epsilon", F(1, 10**8), Bracket(F(0), F(0)))
    assert res.value is not None and res.value > 0
    assert "conservative" in res.note and "upper end is 0" in res.note


def test_first_lattice_follows_the_loss_spread() -> None:
    """Few releases and chained brackets start coarse; many releases start at the coarsest
    ladder lattice with a few points per sd of one release's loss (Poisson q = 256/60000,
    σ = 1.1 needs 1/1000; the displaced pair's loss is wider); refinement steps 2 to 5/2."""
    from verifydp.audit.deployment import _COARSE_H, _LADDER, _finer_by, _first_h, candidates
    from verifydp.exact.interval import Bracket

    fixed = candidates(parse_design(_raw("deploy_dpsgd_fixed_batch.toml", 10000, delta=F(1, 10**5))))
    poisson = candidates(parse_design(_raw("deploy_dpsgd_poisson.toml", 10000, delta=F(1, 10**5))))
    assert _first_h(poisson, 10000, False) == _LADDER[-1]
    assert _first_h(fixed, 10000, False) == _LADDER[0]
    assert _first_h(fixed, 12, False) == _first_h(fixed, 10000, True) == _COARSE_H
    assert _finer_by(Bracket(F(1), F(2)), F(1, 50)) == F(5, 2)
    assert _finer_by(Bracket(F(100), F(101)), F(1, 50)) == 2
