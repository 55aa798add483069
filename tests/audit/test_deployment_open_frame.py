"""Open cluster frames under add/remove: the one-record cluster's pair against the oracle
(issue 30, proofs/deployment_pairs.md#restructured).

A record that forms a cluster of its own displaces, when its cluster is drawn, a whole drawn
cluster Z; the audit bounds each release by the added pair (1 − ρ)K(0) + ρK((w + 1)a)
against K(0), ρ = ℓ/(k + 1), Z not shown (the alignment lemma), where it used to reveal the
draw. Here the audit's certified brackets at T = 2 and 3 (and T = 1) are checked against the
composition oracle of `tests/audit/test_deployment_composition.py` (every concrete pair of a
tiny population, sequences of them, both orders) for the continuous kernels the oracle
enumerates, and the mutant that drops the displaced cluster's within-sample (shift a, not
(w + 1)a) is beaten by it.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tests.audit.test_deployment_composition import (
    DESIGNS,
    MECHANISMS,
    SLACK,
    candidates,
    certified,
    worst,
)
from verifydp.accounting.composition import Grid, composed
from verifydp.accounting.forms import bernoulli, law_pair
from verifydp.audit.deployment import audit_deployment
from verifydp.audit.spec import parse_design

OPEN = {d.name: d for d in DESIGNS if d.name.endswith("add-remove-clusters=open")}
CASES = [("two-stage-cluster-add-remove-clusters=open", "gaussian", 2),
         ("two-stage-cluster-add-remove-clusters=open", "laplace", 3),
         ("cluster-srs-add-remove-clusters=open", "gaussian", 3),
         ("cluster-srs-add-remove-clusters=open", "discrete-gaussian", 2)]


@pytest.mark.parametrize("name,mech,steps", CASES, ids=[f"{n}-{m}-T{t}" for n, m, t in CASES])
def test_one_record_cluster_pair_against_the_oracle(name: str, mech: str, steps: int) -> None:
    design, m = OPEN[name], MECHANISMS[mech]
    at_t, at_1 = certified(design, m, steps)
    cands = candidates(design, m)
    assert cands
    for t, brackets in ((steps, at_t), (1, at_1)):
        eps = sorted(brackets)
        w = worst(cands, m, t, eps)
        for j, e in enumerate(eps):
            b = brackets[e]
            assert w.lo[j] <= float(b.hi) + SLACK, (t, e, w.lo[j], float(b.hi), w.arg[j])
            assert float(b.lo) <= w.hi[j] + SLACK, (t, e, float(b.lo), w.hi[j])


def test_dropping_the_displaced_cluster_is_beaten() -> None:
    """Mutant: the one-record cluster's pair at shift a (the record alone, as if no drawn
    cluster left the sample). On two clusters of two, one drawn whole (cluster SRS), σ = 1,
    a record forming its own cluster displaces a drawn cluster of two records: the oracle's
    concrete sequences beat the mutant at T = 2, and stay below the audit's bracket."""
    design, m = OPEN["cluster-srs-add-remove-clusters=open"], MECHANISMS["gaussian"]
    at_t, _ = certified(design, m, 2)
    w = worst(candidates(design, m), m, 2, sorted(at_t))
    k, ell = len(design.population["clusters"]), design.params["ell"]
    mutant = law_pair(bernoulli(F(ell, k + 1)), F(1), F(1), "gauss", "added")
    c = composed(mutant, 2, Grid(F(1, 400)))
    beaten = [e for j, e in enumerate(sorted(at_t)) if w.lo[j] > float(c.delta(F(e)).hi)]
    assert beaten


WIDE = [{"kind": "gaussian", "query": "sum", "clip": 1, "sigma": 1},
        {"kind": "laplace", "query": "sum", "clip": 1, "scale": 1},
        {"kind": "laplace", "query": "count", "scale": 1},
        {"kind": "discrete-gaussian", "query": "sum", "clip": 1, "sigma": 1}]


@pytest.mark.parametrize("mech", WIDE, ids=[f"{m['kind']}-{m['query']}" for m in WIDE])
def test_a_whole_displaced_cluster_is_bracketed_tightly(mech: dict[str, object]) -> None:
    """A one-record cluster displacing a drawn cluster of 5 records, noise scale C: the shift
    6C (a count: 5) is many noise units, so the composed loss spreads over many nats and the
    lower end's test subtracts e^ε times the Q-mass its windows drop. The audit keeps masses
    far below the default 2^-75 there, and the bracket is tight (the realised pair is the
    dominating one); on the default lattice settings the same Gaussian pair's lower end
    collapses."""
    obj = {"population": {"clusters": [{"size": 10, "count": 40}]},
           "design": {"kind": "two-stage-cluster", "ell": 4, "within": "srs", "m": 5},
           "base": {"epsilon": 1}, "target": {"epsilon": 1},
           "protect": {"relation": "add-remove", "clusters": "open"},
           "mechanism": mech, "composition": {"steps": 3, "delta": "1e-6"}}
    dep = audit_deployment(parse_design(obj), curves=False)
    assert dep.relative_width < 0.02, dep.result
    if mech["kind"] != "gaussian":
        return
    assert float(dep.result.lo) > 40
    pair = law_pair(bernoulli(F(4, 41)), F(6), F(1), "gauss", "added")
    low = composed(pair, 3, Grid(F(1, 10)), directions=())
    assert low.delta_lower(dep.result.lo * F(9, 10)) < F(1, 10**6)  # default: collapsed
