"""Scopes of the Zhao & Liu (MUST) claims (issue 14; paper key `must`; checkers in
verifydp/claims/must/; docs/foundations.md#fact-7). Reviewed in docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Narrowing, Scope, q
from verifydp.claims.scopes.common import (
    eps_grid,
    formula,
    group_class,
    none,
    printed_cells,
)

FITTED = ("fitted/hard-coded check (issue 14 list): the checker reproduces a fixed instance "
          "instead of quantifying over the printed domain; being replaced by another engineer")
SUBST = q("substitution (the paper's 'sampling neighboring relation' column)",
          "substitution, both directions of the divergence", "exhaustive")
PROFILES = eps_grid("every ε > 0 and profile δ_j", "t ∈ {11/10, 2, 5}; 6–9 profile vectors "
                    "(constant, increasing, steep)")
CELLS = q("printed setting", "the printed setting", "exhaustive")


def _sampler(design: str, covered: str, claim: str, narrowings: tuple[Narrowing, ...] = ()
             ) -> Scope:
    return Scope(
        claim, group_class(), SUBST,
        q("every population of size n", "P = C + {x}, P' = C + {x'}, C of distinct records "
          "(orbit LP, fact 7)", "proof",
          "fact 7: invariance under permutations of C; fact 2 with δ_j non-decreasing"),
        q(design, covered, "grid"),
        (formula("η, δ' as printed", "exact symbolic agreement with the law of K"), PROFILES),
        narrowings,
    )


SCOPES: dict[str, Scope] = {
    "must/table2:poisson": Scope(
        "must/table2:poisson",
        q("every (ε, δ)-DP M (the row's relation R: add/remove)",
          "all of them: certified LP over every ε-DP and every (ε, 1/10)-DP base mechanism "
          "(facts 1–5)", "exhaustive"),
        q("R on the subsample and on the entire data (add/remove; the printed 'R R')",
          "add/remove, both orientations (P' = P ∪ {x} and P = P' ∪ {x})", "exhaustive"),
        q("every population", "P = {a × n}, n ∈ {0, 1, 2, 4}", "grid",
          "fact 4: distinct common records reduce to identical ones; sizes n ≤ 4 only"),
        q("Poisson(γ)", "γ ∈ {1/10, 1/3, 1/2, 9/10, 1} (privacy); 13 values incl. 0 and 1 "
          "(η, δ' vs the law of K)", "grid"),
        (formula("η, δ'", "exact, per γ"),
         eps_grid("every ε > 0, δ ∈ [0, 1]", "t ∈ {11/10, 2, 5}, ε = 1/2; δ ∈ {0, 1/10}")),
    ),
    "must/table2:wor": _sampler("WOR(n, m)", "1 ≤ m ≤ n ≤ 10 (m = n included)",
                                "must/table2:wor"),
    "must/table2:wr": _sampler("WR(n, m)", "n ≤ 10, m ≤ 8", "must/table2:wr"),
    "must/thm5:ow": _sampler("MUST.OW(n, b, m)", "1 ≤ b ≤ n ≤ 10, m ≤ 8", "must/thm5:ow"),
    "must/thm5:wo": _sampler("MUST.WO(n, b, m)", "m ≤ b ≤ n ≤ 10", "must/thm5:wo"),
    "must/thm5:ww": _sampler("MUST.OW(n, b, m) (the printed label of (c))",
                             "1 ≤ b ≤ n ≤ 10, m ≤ 8", "must/thm5:ww"),
    "must/thm5:ww:corrected": _sampler("MUST.WW(n, b, m)", "b ≤ n ≤ 10, m ≤ 8",
                                       "must/thm5:ww:corrected"),
    "must/cor6": Scope(
        "must/cor6", none(), none(),
        q("every population", "index multisets by enumeration, n ≤ 3", "grid"),
        q("MUST.WO(n, b, m) vs WR(n, m)", "m ≤ b ≤ n ≤ 10 (formulas); n ≤ 3 (samples)",
          "grid"),
        (formula("η, δ' for every δ_j", "exact in symbolic δ_j"),),
    ),
    "must/prop7": Scope(
        "must/prop7", none(), none(), none(),
        q("every 1 ≤ b ≤ n, m ≥ 1", "exhaustive for n ≤ 30 (9,455 triples)", "grid"),
        (formula("η exact rationals"),),
    ),
    "must/remark2": Scope(
        "must/remark2", none(), none(), none(),
        q("Poisson, WOR, WR, MUST", "all six schemes, n ≤ 10, m, b ≤ 10, γ ∈ {1/10, 1/2, 1}",
          "grid"),
        (eps_grid("ε > 0", "ε = 1/2"),),
    ),
    "must/table3": Scope("must/table3", none(), none(), CELLS, CELLS,
                         (printed_cells("234 cells"),)),
    "must/thm1:laplace": Scope(
        "must/thm1:laplace",
        q("the Laplace mechanism f(X) + Lap(0, σ)", "exact hockey-stick integral", "exhaustive"),
        q("neighbours at ℓ1 distance Δ1 (group: jΔ1)", "the worst pair at distance jΔ1",
          "exhaustive"),
        none(), none(),
        (eps_grid("every Δ1, σ > 0", "θ = Δ1/σ ∈ {1/4, 1/2, 1, 4} (the profile depends on θ "
                  "only); widened in issue 14 from {1/2, 1}"),
         eps_grid("every ε ≥ 0", "ε ∈ {0, 1/10, 1/2, 1, 2, 5, 10, 20}"),
         eps_grid("every j ≥ 1", "j ∈ {1, 2, 3}")),
    ),
    "must/thm1:gauss": Scope(
        "must/thm1:gauss",
        q("the Gaussian mechanism f(X) + N(0, σ²I)", "certified hockey-stick integral",
          "exhaustive"),
        q("neighbours at ℓ2 distance Δ2 (group: jΔ2)", "the worst pair at distance jΔ2",
          "exhaustive"),
        none(), none(),
        (eps_grid("every Δ2, σ > 0", "θ = Δ2/σ ∈ {1/4, 1/2, 1, 4} (the profile depends on θ "
                  "only); widened in issue 14 from {1/2, 1}"),
         eps_grid("every ε ≥ 0", "ε ∈ {0, 1/10, 1/2, 1, 2, 5, 10, 20}"),
         eps_grid("every j ≥ 1", "j ∈ {1, 2, 3}")),
    ),
    "must/table4": Scope("must/table4", none(), none(), CELLS, CELLS,
                         (printed_cells("39 formula cells"),)),
    "must/table6": Scope(
        "must/table6", none(), none(), CELLS, CELLS,
        (printed_cells("σ and set-scheme δ' cells; the 6 multiset δ' cells under both readings "
                       "of θ the text supports (inconclusive: only a fitted θ reproduces them); "
                       "11 simulation cells inconclusive"),),
    ),
    "must/table8": Scope("must/table8", none(), none(), CELLS, CELLS,
                         (printed_cells("σ·m and δ_c cells; metrics inconclusive"),)),
    "must/table9": Scope("must/table9", none(), none(), CELLS, CELLS,
                         (printed_cells("36 cells"),)),
    "must/fig4": Scope(
        "must/fig4", none(), none(), CELLS, CELLS,
        (eps_grid("ε ∈ (0, 6)", "60 grid ε; the qualitative sentences under the readings "
                  "listed in each statement (a verdict must hold under every one)"),),
    ),
    "must/fig5": Scope("must/fig5", none(), none(), CELLS,
                       q("b ∈ [150, 200], m ∈ [100, 150]", "the printed grid, and n ∈ {30, "
                         "100} searched", "exhaustive"),
                       (q("ε = 1, Δ/σ = 1", "printed; ε ∈ {1/2, 2} searched", "exhaustive"),)),
    "must/sec3.3:pair": Scope(
        "must/sec3.3:pair",
        q("the per-step Gaussian mechanism on clipped sums (contributions in [−C, C])",
          "σ ∈ {1, 2}; 10-fold composition at σ = 2", "grid"),
        q("every pair of neighbouring datasets (WLOG), both directions of the divergence",
          "substitution: the differing record's x, x' ∈ {−1, −½, 0, ½, 1} (incl. ±C), both "
          "directions", "grid",
          "t ↦ −t and the reverse direction reduce the pairs exactly (claims/must/pair.py)"),
        q("every dataset of clipped values",
          "n = 20: every other record at c ∈ {−1, −½, 0, ½, 1} (incl. ±C), and three mixed "
          "multisets of other records", "grid",
          "the designs are exchangeable, so the other records enter through their multiset; "
          "a refutation needs one realisable pair (witness: others at −C)"),
        q("WR, MUST.OW, MUST.WW", "b = 5, m = 3", "grid"),
        (eps_grid("ε > 0; k-fold composition", "ε ∈ {1/2, 1, 2}; k = 10 at ε ∈ {1, 2}"),),
    ),
    "must/sec3.3:pair:corrected": Scope(
        "must/sec3.3:pair:corrected",
        q("the per-step Gaussian mechanism on clipped sums (contributions in [−C, C])",
          "σ ∈ {1, 2}", "grid"),
        q("every substitution pair, both directions of the divergence",
          "x, x' ∈ {−1, −½, 0, ½, 1} (incl. ±C), both directions", "grid"),
        q("every dataset of clipped values",
          "n = 20: every other record at c ∈ {−1, −½, 0, ½, 1}, and three mixed multisets "
          "(rigorous); per-draw values of the other records on the grid (floats, tests)",
          "grid",
          "joint convexity reduces mixed other records to per-draw values y (module "
          "docstring); that constant y is worst is checked, not proved"),
        q("WR, MUST.OW, MUST.WW", "b = 5, m = 3", "grid"),
        (eps_grid("ε > 0", "ε ∈ {1/1000, 1/2, 1, 2} (refuted at 1/1000)"),),
    ),
    "must/alg1": Scope(
        "must/alg1",
        q("the accountant's input pair", "N(1, σ²) vs N(−1, σ²), and Table 8's pair", "grid",
          "a refutation needs one instance"),
        none(), none(), none(),
        (eps_grid("L, r, k, ε", "L = 6 (printed), r ∈ {64, 200, 4096}, k ∈ {1, 4}"),),
    ),
}
