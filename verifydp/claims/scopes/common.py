"""Quantifiers shared by the scope tables (issue 14; docs/foundations.md#relations, #fact-1 …
#fact-7). The wording says what a `holds-on-instance` verdict speaks for."""

from __future__ import annotations

from verifydp.claims.scope import Quantifier, q

FOLLOW_UP = "follow-up (owner of the claim module)"


def all_pure(relation: str) -> Quantifier:
    """Every ε-DP base mechanism, decided by the exact LP (facts 1–5)."""
    return q(f"every ε-DP M ({relation})",
             "all of them: certified LP over every ε-DP base mechanism (facts 1–5)",
             "exhaustive")


def all_approx(relation: str) -> Quantifier:
    return q(f"every (ε, δ)-DP M ({relation})",
             "all of them: certified hockey-stick LP over every (ε, δ)-DP mechanism (facts 1–5)",
             "exhaustive")


def group_class() -> Quantifier:
    return q("every M with group privacy profile δ_j (substitution)",
             "all of them: group-profile orbit LP (fact 7), exact primal and dual", "exhaustive")


def wor_background(printed: str, covered: str) -> Quantifier:
    """Populations of a without-replacement design: identical common records lose nothing."""
    return q(printed, covered, "proof",
             "fact 4: for designs without replacement a population whose common records are "
             "distinct has the same worst case as one whose common records are identical; "
             "fact 2: only values in P ∪ P' matter")


def eps_grid(printed: str, covered: str, note: str = "") -> Quantifier:
    return q(printed, covered, "grid", note)


def formula(printed: str, covered: str = "symbolic in the printed parameters") -> Quantifier:
    return q(printed, covered, "proof", "sympy identity / series, all values")


def printed_cells(what: str) -> Quantifier:
    return q(f"the printed cells ({what})", "every printed cell", "exhaustive")


def none(what: str = "—") -> Quantifier:
    return q(what, "—", "exhaustive", "the statement has no such quantifier")
