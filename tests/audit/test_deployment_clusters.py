"""Cluster designs of the deployment audit against every dataset pair of small populations
with clusters of different sizes (the oracle enumerates the design from the records, not
from the audit's cluster reading): the certified one-release bracket covers the largest δ
of the pairs from above, and its lower end lies below it (it is realised). Hypothesis draws
the cluster sizes, the design and the noise; the exhaustive tiny case shares the oracle.
(A lower end that only clusters of one size realise got through the equal-size tests:
proofs/deployment_pairs.md#clusters.)"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.test_deployment import Comps, _law, set_delta
from verifydp.accounting import Grid, composed, law_pair
from verifydp.accounting.forms import bernoulli
from verifydp.audit.deployment import audit_deployment
from verifydp.audit.spec import parse_design

VALS = (F(-1), F(0), F(1))
EPS = F(1, 2)


def _draws(clusters: tuple[tuple[F, ...], ...], ell: int, m: int | None) -> Comps:
    """ℓ of the clusters uniformly; all records of each (m None) or an SRS of min(m, size)."""
    sums: list[F] = []
    per = []
    for c in clusters:
        k = len(c) if m is None else min(m, len(c))
        per.append([sum(s, F(0)) for s in itertools.combinations(c, k)])
    lcm = math.lcm(*(len(p) for p in per))
    for pick in itertools.combinations(range(len(clusters)), ell):
        for combo in itertools.product(*(per[i] for i in pick)):
            weight = lcm ** len(pick) // math.prod(len(per[i]) for i in pick)
            sums += [sum(combo, F(0))] * weight
    return _law(sums)


def _pairs(sizes: tuple[int, ...], relation: str) -> list[tuple[int, tuple[tuple[F, ...], ...],
                                                           tuple[tuple[F, ...], ...]]]:
    """(cluster of the record, larger or first dataset, other) for every dataset pair of the
    stated relation with the file's cluster sizes: values on {−1, 0, 1}; under add/remove
    the file's population is either dataset (a one-record cluster left empty stays in the
    fixed frame, drawn with nothing in it)."""
    out = []
    for i, s in enumerate(sizes):
        shapes = [(s, s)] if relation == "replace" else [(s, s - 1), (s + 1, s)]
        for big, small in shapes:
            others = [n for j, n in enumerate(sizes) if j != i]
            for mates in itertools.product(VALS, repeat=small if relation == "add-remove"
                                           else s - 1):
                for rest in itertools.product(VALS, repeat=sum(others)):
                    it = iter(rest)
                    other = [tuple(next(it) for _ in range(n)) for n in others]
                    for x in VALS:
                        if relation == "replace":
                            for y in VALS:
                                if y > x:
                                    a = [*other[:i], (*mates, x), *other[i:]]
                                    b = [*other[:i], (*mates, y), *other[i:]]
                                    out.append((i, tuple(a), tuple(b)))
                        else:
                            a = [*other[:i], (*mates[:big - 1], x), *other[i:]]
                            b = [*other[:i], tuple(mates[:small]), *other[i:]]
                            if big - 1 != small:  # the record joins: its mates are D's
                                continue
                            out.append((i, tuple(a), tuple(b)))
    return out


def _check(sizes: tuple[int, ...], design: dict[str, Any], relation: str, sigma: F) -> F:
    """The bracket against every pair; returns the largest δ found."""
    obj = {"population": {"clusters": list(sizes)}, "design": design,
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": relation, "clusters": "fixed"},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": str(sigma)},
           "composition": {"steps": 1, "epsilon": str(EPS), "rtol": "1/2"}}
    res = audit_deployment(parse_design(obj), curves=False).result
    ell, m = design["ell"], design.get("m")
    best = F(0)
    for _, a, b in _pairs(sizes, relation):
        p, q = _draws(a, ell, m), _draws(b, ell, m)
        val = max(set_delta(p, q, sigma, "gauss", EPS), set_delta(q, p, sigma, "gauss", EPS))
        assert val <= res.hi, (sizes, design, relation, a, b)
        best = max(best, val)
    # `set_delta` is a lower bound of each pair's δ (floats choose the set on a grid) that
    # may trail an attained lower end in the seventh digit
    assert res.lo <= best * (1 + F(1, 10**4)), (sizes, design, relation, res, best)
    return best


def test_two_stage_clusters_of_three_and_one() -> None:
    """The case that exposed the lower end: clusters of 3 and 1, an SRS of 2 inside, σ = C/2,
    add/remove. The old lower end, the displaced pair at rate 1/3 (others at −C), is above
    every dataset pair: the smaller cluster brings one record, so no dataset realises it."""
    best = _check((3, 1), {"kind": "two-stage-cluster", "ell": 1, "within": "srs", "m": 2},
                  "add-remove", F(1, 2))
    old = law_pair(bernoulli(F(1, 3)), F(2), F(1, 2), "gauss", "displaced")
    assert composed(old, 1, Grid(h=F(1, 500))).delta(EPS).lo > best


@settings(max_examples=3)
@given(sizes=st.lists(st.integers(1, 2), min_size=2, max_size=3).map(tuple).filter(
           lambda s: sum(s) <= 4),
       kind=st.sampled_from(["cluster-srs", "two-stage-cluster"]),
       relation=st.sampled_from(["replace", "add-remove"]),
       sigma=st.sampled_from([F(1, 4), F(1, 2), F(1)]), data=st.data())
def test_cluster_designs_bracket_every_small_dataset_pair(
        sizes: tuple[int, ...], kind: str, relation: str, sigma: F,
        data: st.DataObject) -> None:
    ell = data.draw(st.integers(1, len(sizes) - 1))
    design: dict[str, Any] = {"kind": kind, "ell": ell}
    if kind == "two-stage-cluster":
        design.update(within="srs", m=data.draw(st.integers(1, max(sizes))))
    _check(tuple(sorted(sizes, reverse=True)), design, relation, sigma)
