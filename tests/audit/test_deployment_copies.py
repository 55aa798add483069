"""Designs that may draw a record twice (with replacement, MUST.OW/WW) under substitution:
two chained add/remove links (`verifydp.accounting.chained`), which the deployment audit
uses for MUST.OW/WW (with replacement reveals the copy count instead:
tests/audit/test_deployment_copies_revealed.py, and the audit's bracket is checked here
against the same sum tests). The chain is
checked against an exact two-neighbour Gaussian (and its mutant without e^{ε₁} caught),
against every dataset pair of small populations (the oracle enumerates the samples from the
records), and after T releases against independent sum tests on concrete dataset pairs."""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from typing import Any

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.test_deployment import (
    EPS,
    _gauss_sf,
    _raw,
    dataset_pairs,
    must_ow,
    must_ww,
    set_delta,
    srswr,
)
from verifydp.accounting import Grid, composed, law_pair
from verifydp.accounting.chained import chained_upper
from verifydp.accounting.dominating import copies_chain
from verifydp.audit.deployment import audit_deployment, chained_delta
from verifydp.audit.spec import DesignFileError, parse_design
from verifydp.exact.arb import ball, rational


def _gauss_delta(shift: F, eps: F) -> F:
    """δ(ε) of N(shift, 1) against N(0, 1), exactly (a lower end in arb)."""
    s, e = ball(shift), ball(eps)
    half = flint.arb(2).sqrt()
    val = ((e / s - s / 2) / half).erfc() / 2 - e.exp() * ((e / s + s / 2) / half).erfc() / 2
    return rational(val, up=False)


def test_chain_bounds_two_gaussian_neighbours_and_its_mutant_is_caught() -> None:
    """Links N(0) vs N(1): a record removed then added moves the mean by 2, whose exact δ
    the chain must bound. Without e^{ε₁} (the chain read as a sum) it falls below the exact
    δ at ε = 1 (0.477 < 0.510): the factor is what makes it sound."""
    link = composed(law_pair(((1, F(1)),), F(1), F(1), "gauss", "added"), 1, Grid(F(1, 200)))
    for eps in (F(0), F(1, 2), F(1), F(2), F(4)):
        chain = chained_upper(link.delta_upper, eps, splits=16)
        assert _gauss_delta(F(2), eps) <= chain <= 1
        searched = chained_upper(link.delta_upper, eps, link.delta_upper_estimate)
        assert chain <= searched and _gauss_delta(F(2), eps) <= searched
    eps = F(1)
    sum_only = min(link.delta_upper(eps * j / 16) + link.delta_upper(eps - eps * j / 16)
                   for j in range(17))
    assert sum_only < _gauss_delta(F(2), eps)


DESIGNS = {  # oracle on the records, audit kind and parameters
    "srswr": (lambda v: srswr(v, 2), {"m": 2}),
    "must-ow": (lambda v: must_ow(v, 2, 2), {"b": 2, "m": 2}),
    "must-ww": (lambda v: must_ww(v, 2, 2), {"b": 2, "m": 2}),
}


def _one_release(kind: str, params: dict[str, Any], n: int, sigma: F
                 ) -> tuple[Any, dict[F, Any]]:
    link = copies_chain(kind, params, n, "gaussian", "sum", F(1), F(2), sigma)
    fn = chained_delta(link, 1, Grid(F(1, 250)))
    return link, {e: fn(e) for e in EPS}


@pytest.mark.parametrize("kind", sorted(DESIGNS))
def test_chain_covers_every_substitution_of_small_populations(kind: str) -> None:
    """N = 3, m = 2 (b = 2), contributions on {−1, −1/2, 0, 1}, Gaussian σ = 1, ε ∈ {0, 1/2,
    2}, both orientations: no substitution exceeds the chained upper end, and the lower end
    (realised by pairs on this grid) is at most the largest test-set δ found plus the test's
    slack (set_delta chooses a set on a float grid)."""
    oracle, params = DESIGNS[kind]
    sigma = F(1)
    _, brackets = _one_release(kind, params, 3, sigma)
    best = dict.fromkeys(EPS, F(0))
    for d1, d2 in dataset_pairs(2, False):
        m1, m2 = oracle(d1), oracle(d2)
        for e in EPS:
            for a, b in ((m1, m2), (m2, m1)):
                val = set_delta(a, b, sigma, "gauss", e)
                assert val <= brackets[e].hi, (kind, d1, d2, e)
                best[e] = max(best[e], val)
    for e in EPS:
        assert brackets[e].lo <= best[e] * F(1001, 1000) + F(1, 10**6), (kind, e)


@settings(max_examples=4, deadline=None, derandomize=True)
@given(n=st.integers(2, 4), m=st.integers(1, 3), sigma=st.sampled_from([F(1, 2), F(1), F(2)]))
def test_chain_covers_with_replacement_substitutions(n: int, m: int, sigma: F) -> None:
    """With replacement, N records (N − 1 others on {−1, 0, 1}, the record −1 → 1 or 0 → 1),
    m draws: the chained upper end covers every such pair, both orientations (one oracle
    with the exhaustive test above)."""
    _, brackets = _one_release("srswr", {"m": m}, n, sigma)
    vals = (F(-1), F(0), F(1))
    for others in itertools.combinations_with_replacement(vals, n - 1):
        for x, x2 in ((F(-1), F(1)), (F(0), F(1))):
            m1, m2 = srswr(others + (x,), m), srswr(others + (x2,), m)
            for e in EPS:
                for a, b in ((m1, m2), (m2, m1)):
                    assert set_delta(a, b, sigma, "gauss", e) <= brackets[e].hi


def _copies_sum_test(law_t: list[tuple[int, F]], a: F, b: F, sigma: F, steps: int,
                     eps: F) -> F:
    """Independent lower end for T releases of the concrete pair with every copy at a (D)
    or b (D'): the adversary adds up the T outputs, Σ_k Pr(k copies in all) N(k·c, Tσ²),
    c = a or b; the best threshold test in both orders, in arb."""
    sd = ball(sigma) * flint.arb(steps).sqrt()
    e = ball(eps).exp()
    best = F(0)
    top = float(max(abs(a), abs(b))) * max(k for k, _ in law_t) + 8 * float(sigma) * steps
    for t in np.linspace(-top, top, 241):
        tt = F(float(t))
        pa = sum((ball(w) * _gauss_sf(F(k) * a, sd, tt) for k, w in law_t), flint.arb(0))
        pb = sum((ball(w) * _gauss_sf(F(k) * b, sd, tt) for k, w in law_t), flint.arb(0))
        for up, down in ((pa, pb), (pb, pa), (1 - pa, 1 - pb), (1 - pb, 1 - pa)):
            best = max(best, rational(up - e * down, up=False))
    return best


def _t_fold(law: tuple[tuple[int, F], ...], steps: int) -> list[tuple[int, F]]:
    out = {0: F(1)}
    for _ in range(steps):
        nxt: dict[int, F] = {}
        for k, w in out.items():
            for j, v in law:
                nxt[k + j] = nxt.get(k + j, F(0)) + w * v
        out = nxt
    return sorted(out.items())


def test_composed_with_replacement_substitution_is_sound() -> None:
    """Batches of 8 drawn with replacement from 60 records under substitution, T = 10,
    ε = 1: the certified bracket's upper end is at least the sum
    test of the concrete pairs (the others at one end or at the centre of the value range,
    the record moved across it), computed here from the exact law of K."""
    obj = {"name": "wr", "population": {"size": 60}, "design": {"kind": "srswr", "m": 8},
           "protect": {"relation": "replace"}, "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "noise_multiplier": 2},
           "composition": {"steps": 10, "epsilon": "1/2", "rtol": "1/2"}}
    link = copies_chain("srswr", {"m": 8}, 60, "gaussian", "sum", F(1), F(2), F(2))
    total = sum(w for _, w in link.law)
    law_t = _t_fold(tuple((k, w / total) for k, w in link.law), 10)
    for eps in (F(1),):
        obj["composition"]["epsilon"] = str(eps)
        dep = audit_deployment(parse_design(obj), curves=False)
        for a in (F(0), F(-1)):  # others at one end, at the centre
            indep = _copies_sum_test(law_t, a, a + 2, F(2), 10, eps)
            indep -= 10 * link.tail * 4  # the truncated law: Tτ(1 + e^ε), ε = 1
            assert indep > 0
            assert indep <= dep.result.hi, (eps, a, indep, dep.result)
        assert dep.result.lo <= dep.result.hi
        assert "least convex profile" in " ".join(dep.pairs)  # Gaussian: the profile's pair


def test_chain_is_refused_where_it_is_not_derived() -> None:
    """One sample for all releases stays refused under substitution (one line, exit 2 at
    the command line); add/remove is untouched (the plain displaced pair)."""
    obj = _raw("deploy_dpsgd_fixed_batch.toml", 10, eps=F(1))
    obj["design"] = {"kind": "srswr", "m": 256}
    obj["protect"] = {"relation": "replace"}
    obj["composition"]["resample"] = False
    with pytest.raises(DesignFileError, match="resample"):
        audit_deployment(parse_design(obj), curves=False)
    obj["protect"] = {"relation": "add-remove"}
    dep = audit_deployment(parse_design(obj | {"composition": {"steps": 10, "epsilon": "1",
                                                                  "rtol": "1/2"}}),
                           curves=False)
    assert "removal then an addition" not in " ".join(dep.pairs)
