"""The audit applies catalogued theorems only under their checked hypotheses, and catches a
theorem's bound that the certified worst case of the instance refutes (issue 14 item 3).

Every theorem of verifydp/audit/bounds.py's HYPOTHESES is shown applied on a design inside its
hypotheses and refused, with the failed hypothesis named, on one outside them; the issue's
reproduction (Poisson, replace/replace) is pinned; mutants that skip the relation hypothesis
are caught by the contradiction check."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from verifydp.audit import audit, parse_design
from verifydp.audit import bounds as bounds_mod
from verifydp.audit.bounds import HYPOTHESES, HYPOTHESIS_NAMES, Bound, Check, catalogue_bounds
from verifydp.audit.report import Report
from verifydp.claims.scopes import scope_of
from verifydp.exact.dist import FiniteDist
from verifydp.population import Relation

AR, RE = "add-remove", "replace"


def design(kind: str, params: dict[str, Any], base: str = AR, protect: str | None = None,
           population: dict[str, Any] | None = None, delta: str = "0") -> dict[str, Any]:
    out: dict[str, Any] = {
        "population": population or {"size": 40}, "design": {"kind": kind, **params},
        "base": {"epsilon": 1, "relation": base, "delta": delta},
        "target": {"epsilon": 1, "delta": "1/2" if delta != "0" else "0"},
    }
    if protect:
        out["protect"] = {"relation": protect}
    return out


STRATA = {"strata": {"a": 50, "b": 30}}
CLUSTERS = {"clusters": [{"size": 3, "count": 4}, {"size": 2, "count": 4}]}
CLASSES = {"size_classes": [{"measure": 1, "count": 20}, {"measure": 4, "count": 5}]}
LAW = {"size_law": {"5": "1/2", "10": "1/2"}}
REPRO = {"population": {"size": 1000}, "design": {"kind": "poisson", "q": "1/2"},
         "base": {"epsilon": 1, "relation": RE}, "protect": {"relation": RE},
         "target": {"epsilon": "0.7"}}

# claim → (a design inside its hypotheses, one outside, the hypothesis that fails)
CASES: dict[str, tuple[dict[str, Any] | None, dict[str, Any], str]] = {
    "bun/thm2.2": (design("srswor", {"m": 10}, RE),
                   design("srswor", {"m": 10}, AR), "protected relation"),
    "bun/lemB.1:corrected": (design("srswor", {"m": 10}, AR),
                             design("srswor", {"m": 10}, RE, AR), "base relation"),
    "bun/thm3.1:upper:corrected": (design("random-size", LAW, AR, RE),
                                   design("random-size", LAW, AR, AR), "protected relation"),
    "bun/thm3.1:lower": (design("random-size", LAW, AR, RE),
                         design("random-size", LAW, AR, RE, delta="1/100"), "base δ"),
    "bun/thm4.3": (design("proportional", {"r": "1/10", "rounding": "randomised"},
                          population={"size": 100}),
                   design("proportional", {"r": "1/10", "rounding": "randomised"}, RE,
                          AR, population={"size": 100}), "base relation"),
    "bun/thm7.2": (design("stratified-proportional", {"r": "1/10", "rounding": "randomised"},
                          population=STRATA),
                   design("stratified-proportional", {"r": "1/10", "rounding": "randomised"},
                          population={"strata": {"a": 50, "b": 5}}), "sizes"),
    "bun/sec4.1": (design("proportional", {"r": "1/10", "rounding": "half-up"},
                          population={"size": 15}),
                   design("proportional", {"r": "1/10", "rounding": "half-up"}, RE,
                          population={"size": 15}), "sizes"),
    # never applied: its pairs C'_i = C_i ∪ {x} are not all of a design file's add-remove
    # neighbours (a record may form a new cluster), see HYPOTHESES
    "bun/thm5.2": (None, design("cluster-srs", {"ell": 2}, population=CLUSTERS),
                   "protected relation"),
    "bun/thm5.1": (design("cluster-srs", {"ell": 2}, population=CLUSTERS),
                   design("cluster-srs", {"ell": 2}, RE, population=CLUSTERS),
                   "base relation"),
    "bun/sec6.1:pps": (design("poisson-pps", {"expected_size": 5}, RE, population=CLASSES),
                       design("poisson-pps", {"expected_size": 5}, AR, population=CLASSES),
                       "protected relation"),
    "bun/sec6.3:systematic": (design("systematic-fixed", {"interval": 4}),
                              design("systematic-fixed", {"interval": 4}, RE),
                              "protected relation"),
    "must/table2:poisson": (design("poisson", {"q": "1/2"}, AR), REPRO, "base relation"),
    "must/table2:wor": (design("srswor", {"m": 10}, RE), design("srswor", {"m": 10}, RE, AR),
                        "protected relation"),
    "must/table2:wr": (design("srswr", {"m": 10}, RE), design("srswr", {"m": 10}, AR),
                       "base relation"),
    "must/thm5:ow": (design("must-ow", {"b": 10, "m": 5}, RE),
                     design("must-ow", {"b": 10, "m": 5}, AR), "base relation"),
    "must/thm5:wo": (design("must-wo", {"b": 10, "m": 5}, RE),
                     design("must-wo", {"b": 10, "m": 5}, RE, AR), "protected relation"),
    "must/thm5:ww:corrected": (design("must-ww", {"b": 10, "m": 5}, RE),
                               design("must-ww", {"b": 10, "m": 5}, AR), "base relation"),
}


def _bound(d: dict[str, Any], claim: str) -> Bound:
    spec = parse_design(d)
    return next(b for b in catalogue_bounds(spec, neyman_delta=1) if b.claim == claim)


def test_every_catalogued_theorem_has_a_case() -> None:
    assert set(CASES) == set(HYPOTHESES)


@pytest.mark.parametrize("claim", sorted(HYPOTHESES))
def test_theorem_applies_inside_and_is_refused_outside_its_hypotheses(claim: str) -> None:
    inside, outside, failing = CASES[claim]
    if inside is not None:
        ok = _bound(inside, claim)
        assert ok.applies, ok.reason
        assert [c.hypothesis for c in ok.checks] == list(HYPOTHESIS_NAMES)
        assert all(c.ok for c in ok.checks)
    bad = _bound(outside, claim)
    assert not bad.applies
    assert bad.failed is not None and bad.failed.hypothesis == failing, bad.reason
    assert f"hypothesis '{failing}' fails" in bad.reason


@pytest.mark.parametrize("claim", sorted(HYPOTHESES))
def test_relations_agree_with_the_claims_declared_scope(claim: str) -> None:
    """The relation hypotheses restate the claim's scope (verifydp/claims/scopes): the words
    of the scope's relation quantifier name the protected relation declared here."""
    scope = scope_of(claim)
    assert scope is not None
    words = (scope.relations.printed + " " + scope.mechanisms.printed).lower()
    synonyms = {Relation.REPLACE: ("replace", "substitution", "replacement"),
                Relation.ADD_REMOVE: ("add", "deletion", "remove", "c'_i = c_i ∪ {x}")}
    for rel in HYPOTHESES[claim].protect:
        if claim in ("bun/sec4.1", "bun/thm3.1:lower", "bun/thm5.1", "bun/sec6.3:systematic"):
            continue  # existence constructions: the scope names the construction's pair
        assert any(w in words for w in synonyms[rel]), (claim, rel, words)


def test_a_bound_cannot_apply_without_its_checks() -> None:
    with pytest.raises(ValueError, match="without every hypothesis checked"):
        Bound("must/table2:poisson", "upper", True, "no checks")
    partial = (Check("design kind", "poisson", "poisson", True),)
    with pytest.raises(ValueError, match="without every hypothesis checked"):
        Bound("must/table2:poisson", "upper", True, "one check", checks=partial)


def _repro() -> Report:
    return audit(REPRO, grid=False)


def assert_repro_sound(rep: Report) -> None:
    """Issue 14 item 3: no 'met' from a theorem outside its hypotheses, no contradiction."""
    row = next(b for b in rep.bounds if b.claim == "must/table2:poisson")
    assert not row.applies and row.failed is not None
    assert row.failed.hypothesis in ("base relation", "protected relation")
    assert rep.verdicts.target_full != "met"
    assert rep.verdicts.target_instance == "violated"
    assert not rep.contradictions


def test_issue_14_repro_poisson_replace_is_not_met() -> None:
    rep = _repro()
    assert_repro_sound(rep)
    assert "met" not in rep.verdicts.to_json()["target_full_size"]
    m = rep.main
    assert m is not None and m.lower is not None and m.lower > Fraction(2)  # ε' ≥ 0.951


def _mutant_relations(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant whose Poisson row skips the relation hypotheses (admits every relation)."""
    h = HYPOTHESES["must/table2:poisson"]
    every = frozenset(Relation)
    monkeypatch.setitem(HYPOTHESES, "must/table2:poisson",
                        dataclasses.replace(h, base=every, protect=every))


def test_mutant_skipping_the_relation_hypothesis_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _mutant_relations(monkeypatch)
    rep = _repro()
    with pytest.raises(AssertionError):
        assert_repro_sound(rep)
    # and the audit itself catches the application: the bound 0.620 is below the certified
    # lower bound 0.951 of the instance, a contradiction, never "met"
    assert rep.verdicts.target_full != "met"
    (c,) = [c for c in rep.contradictions if c.claim == "must/table2:poisson"]
    assert c.direction == "upper" and c.exact[0] is not None
    assert float(c.theorem.hi) == pytest.approx(0.6201, abs=1e-3)
    assert c.exact[0] > Fraction(2)  # e^{0.951}
    assert "CONTRADICTION" in rep.headline()
    assert rep.to_json()["contradictions"][0]["claim"] == "must/table2:poisson"


def test_mutant_check_that_ignores_relations_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check function itself mutated: relation checks always pass."""
    real = bounds_mod.check_hypotheses

    def lax(spec: Any, claim: str) -> tuple[Check, ...]:
        return tuple(dataclasses.replace(c, ok=True) if "relation" in c.hypothesis else c
                     for c in real(spec, claim))

    monkeypatch.setattr(bounds_mod, "check_hypotheses", lax)
    rep = _repro()
    with pytest.raises(AssertionError):
        assert_repro_sound(rep)
    assert rep.contradictions and rep.verdicts.target_full != "met"


def test_applicable_bounds_agree_with_the_instance_no_contradiction() -> None:
    """Inside the hypotheses the theorems hold on the instance: no false contradictions."""
    for d in (design("poisson", {"q": "1/4"}, AR), design("srswor", {"m": 10}, RE),
              design("cluster-srs", {"ell": 2}, population=CLUSTERS)):
        rep = audit(d, grid=False)
        assert any(b.applies for b in rep.bounds)
        assert not rep.contradictions, [c.text() for c in rep.contradictions]


def test_mutant_dropping_copies_from_delta_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUST Table 2's WR row with the copies' mass dropped from δ' (δ' = ηδ, the classic
    slip): the certified δ'(ε') of the instance and of the full size refute it."""
    real = bounds_mod.copies_law

    def no_copies(scheme: str, n: int, b: int | None, m: int) -> FiniteDist[int] | None:
        law = real(scheme, n, b, m)
        assert law is not None
        eta = 1 - law.prob(0)
        return FiniteDist({0: 1 - eta, 1: eta})

    d = {"population": {"size": 20}, "design": {"kind": "srswr", "m": 10},
         "base": {"epsilon": 1, "delta": "1/100", "relation": RE},
         "target": {"epsilon": 1, "delta": "1/10"}}
    assert not audit(d).contradictions
    monkeypatch.setattr(bounds_mod, "copies_law", no_copies)
    rep = audit(d)
    hits = [c for c in rep.contradictions if c.claim == "must/table2:wr"]
    assert hits and all(c.quantity == "delta_prime" for c in hits)
    assert {("scaled instance" in c.at, "full size" in c.at) for c in hits} >= \
        {(True, False), (False, True)}
    assert all(c.exact[0] is not None and c.exact[0] > c.theorem.hi for c in hits)


def test_mutant_cluster_theorem_over_every_add_remove_pair_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """bun/thm5.2 admitted for every add-remove neighbour: a record forming a new cluster
    refutes the application (on the scaled instance, and at full size)."""
    h = HYPOTHESES["bun/thm5.2"]
    monkeypatch.setitem(HYPOTHESES, "bun/thm5.2",
                        dataclasses.replace(h, protect=frozenset({Relation.ADD_REMOVE})))
    rep = audit(design("cluster-srs", {"ell": 2}, population=CLUSTERS), grid=False)
    assert any(b.claim == "bun/thm5.2" and b.applies for b in rep.bounds)
    hits = [c for c in rep.contradictions if c.claim == "bun/thm5.2"]
    assert hits and all(c.scenario == "add a record as a new cluster" for c in hits)
    assert rep.verdicts.best_upper is None or rep.verdicts.best_upper[0].claim != "bun/thm5.2"
