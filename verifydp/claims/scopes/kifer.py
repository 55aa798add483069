"""Scopes of the Kifer et al. claims (issue 14; paper key `kifer`; checker
verifydp/claims/kifer.py). Reviewed in docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Quantifier, Scope, q
from verifydp.claims.scopes.common import (
    eps_grid,
    formula,
    none,
    printed_cells,
)

NEIGH = q("neighbouring datasets D1, D2", "the mechanism's pair of output laws", "exhaustive")
FINITE = ("randomized response (t ∈ {11/10, 2, 3}), a 3-point mechanism, truncated geometric, "
          "Gaussian")


def _named(printed: str, covered: str, note: str) -> Quantifier:
    return q(printed, covered, "grid", note)


SCOPES: dict[str, Scope] = {
    "kifer/gdp": Scope(
        "kifer/gdp", q("the Gaussian mechanism", "μ ∈ {1/2, 2}, ρ ∈ {1/10, 1/2, 0.1115, 2.63}",
                       "grid"),
        NEIGH, none(), none(),
        (eps_grid("every ε, level, δ", "ε ∈ {0, 1, 3}; 3 levels; 3 δ"),
         q("μ = √(2ρ)", "the ρ-zCDP Gaussian mechanism's own δ(ε) (hockey-stick integral) vs "
           "the GDP curve at μ(ρ), ρ ∈ {1/8, 1/2, 9/8, 2}, ε ∈ {0, 1, 3}; zCDP of σ² = 1/(2ρ) "
           "by sympy", "grid")),
    ),
    "kifer/zcdp-tail": Scope(
        "kifer/zcdp-tail",
        _named("every ρ-zCDP mechanism", "Gaussian σ² = 1/(2ρ), RR ε0 ∈ {1/2, 1}",
               "cited proof: Bun & Steinke 2016, Lemma 3.5; the grid checks the encoding"),
        NEIGH, none(), none(),
        (eps_grid("ε > ρ, δ", "ρ ∈ {1/10, 1/8, 1/2, 2.63}; 3 δ"),),
    ),
    "kifer/rdp-tail": Scope(
        "kifer/rdp-tail",
        _named("every (α, γ)-RDP mechanism", "Gaussian, RR (3 t), a 3-point mechanism",
               "cited proof: Bun & Steinke 2016, Lemma 3.5 (Markov on e^{(α−1)L})"),
        NEIGH, none(), none(), (eps_grid("α > 1, ε > γ", "α ∈ {3/2, 2, 3, 5}"),),
    ),
    "kifer/thm6.1": Scope(
        "kifer/thm6.1",
        _named("every ε-DP mechanism and every level-ℓ test", FINITE + "; every test "
               "(Neyman–Pearson, exact)",
               "cited reduction: Wasserman & Zhou 2010 — every ε-DP trade-off dominates "
               "randomized response's, which is in the grid and attains the bound"),
        NEIGH, none(), none(), (eps_grid("ε, ℓ ∈ [0, 1]", "ℓ incl. 0 and 1; 5 values of t"),),
    ),
    "kifer/thm6.2": Scope(
        "kifer/thm6.2",
        q("every (ε, δ)-DP mechanism and every level-ℓ test",
          "the extremal (ε, δ) mechanism of each (ε, δ) on the grid, whose trade-off every "
          "(ε, δ)-DP mechanism dominates (Kairouz, Oh, Viswanath 2015, Thm 2.1), and "
          + FINITE + ", SRS n = 4, m = 2 at δ = their exact δ(ε); every test", "proof",
          "the class reduces to the extremal mechanism; its power envelope equals the printed "
          "bound (tests)"),
        NEIGH, none(), none(),
        (eps_grid("ε, δ, ℓ", "t ∈ {1, 3/2, 2, 5}, δ ∈ {0, 1/100, 1/10, 1/3}; 21 levels incl. "
                  "0 and 1"),),
    ),
    "kifer/thm6.3": Scope(
        "kifer/thm6.3",
        _named("every (α, γ)-RDP / ρ-zCDP mechanism and every test",
               FINITE + "; every test", "the inequality is data processing for Rényi "
               "divergence (cited: van Erven & Harremoës 2014); the grid checks the encoding"),
        NEIGH, none(), none(), (eps_grid("α > 1, ℓ", "α ∈ {3/2, 2, 3, 4, 5}; 39 levels"),),
    ),
    "kifer/table1": Scope("kifer/table1", none(), none(), none(), none(),
                          (printed_cells("15 cells"),)),
    "kifer/table2": Scope("kifer/table2", none(), none(), none(), none(),
                          (printed_cells("9 cells, DGM certified"),)),
    "kifer/table6": Scope("kifer/table6", none(), none(), none(), none(),
                          (printed_cells("9 cells, DGM certified"),)),
    "kifer/scenarios": Scope("kifer/scenarios", none(), none(), none(), none(),
                             (printed_cells("26 cells"),)),
    "kifer/ex4.7": Scope(
        "kifer/ex4.7", q("releasing m random records", "exact PLRV by enumeration", "exhaustive"),
        q("neighbouring datasets (both orders)", "both orders", "exhaustive"), none(),
        q("m of n", "n ≤ 7, every m < n; identity C(n−1,m)/C(n,m) = (n−m)/n proved", "grid"),
        (eps_grid("ε", "t ∈ {1, 2, 100}"),),
    ),
    "kifer/ex5.6": Scope("kifer/ex5.6", q("M1, M2, M* (printed)", "exact", "exhaustive"),
                         NEIGH, none(), none(), (printed_cells("(1.01, 0.02)"),)),
    "kifer/bayes": Scope(
        "kifer/bayes",
        _named("every mechanism of the class (ε-DP, RDP, zCDP, f-DP)",
               "RR on Jessie, noisy counts (t ∈ {2, 5}), Gaussian", "the theorems are cited "
               "results; the grid checks the encoding; the inline typo is refuted"),
        q("every prior, record r, output ω", "6 priors (incl. correlated), r ∈ {0, 1}, "
          "ω ∈ {0, 1, 2}", "grid"), none(), none(),
        (eps_grid("ε, α, ρ, δ", "8 values of e^ε; α ∈ {2, 3}; ρ ∈ {1/8, 1/2, 2, 2.63}"),),
    ),
    "kifer/bayes:corrected": Scope(
        "kifer/bayes:corrected",
        _named("every mechanism of the class (ε-DP, RDP, zCDP, f-DP)",
               "RR on Jessie, noisy counts (t ∈ {2, 5}), Gaussian", "the theorems are cited "
               "results; the grid checks the encoding"),
        q("every prior, record r, output ω", "6 priors (incl. correlated), r ∈ {0, 1}, "
          "ω ∈ {0, 1, 2}", "grid"), none(), none(),
        (eps_grid("ε, α, ρ, δ", "8 values of e^ε; α ∈ {2, 3}; ρ ∈ {1/8, 1/2, 2, 2.63}"),
         formula("the inline δ = e^{−(ε−ρ)²/(4ρ)}", "sympy identity with the zCDP tail derived "
                 "as min over α of e^{(α−1)(αρ−ε)}; points ρ ∈ {1/2, 2.63}, ε/ρ ∈ {3/2, 4}")),
    ),
}
