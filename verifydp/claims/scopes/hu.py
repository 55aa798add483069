"""Scopes of the Hu, Drechsler, Kim claims (issue 14; paper key `hu`; checker
verifydp/claims/hu.py). Reviewed in docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Scope, q
from verifydp.claims.scopes.common import (
    all_approx,
    eps_grid,
    formula,
    none,
    printed_cells,
    wor_background,
)

SCOPES: dict[str, Scope] = {
    "hu/amplification": Scope(
        "hu/amplification",
        all_approx("bounded DP (replacement)"),
        q("bounded DP: P, P' differ in one record", "{a×(n−1), x} vs {a×(n−1), y}, both ways",
          "proof", "the other orientation is the relabelling x ↔ y"),
        wor_background("every population of size N", "N ∈ {1, …, 1000} (13 sizes)"),
        q("SRSWOR, n of N", "n ∈ {0, 1, ⌊N/2⌋, N−1, N} and the inverse at 15 (n, N)",
          "grid"),
        (eps_grid("ε > 0", "32 values of t from 11/10 to 21"),
         eps_grid("δ ∈ [0, 1]", "12 values from 0 to 1/5")),
    ),
    "hu/approx": Scope("hu/approx", none(), none(), none(), none(),
                       (formula("small ε, every r", "first-order series"),)),
    "hu/def2": Scope(
        "hu/def2", q("every mechanism 𝒜 (equivalence)", "all mechanisms on 3–4 outputs with "
                     "weights in quarters", "grid", "a refutation needs one instance"),
        q("bounded neighbours", "one pair", "grid", "a refutation needs one instance"),
        none(), none(), (eps_grid("ε > 0", "t ∈ {3/2, 2}"),),
    ),
    "hu/def3": Scope(
        "hu/def3", q("every mechanism 𝒜 (equivalence)", "all mechanisms on 3–4 outputs with "
                     "weights in quarters", "grid", "a refutation needs one instance"),
        q("bounded neighbours", "one pair", "grid", "a refutation needs one instance"),
        none(), none(), (eps_grid("ε > 0, δ", "t ∈ {3/2, 2}, δ ∈ {1/10, 1/4}"),),
    ),
    "hu/sec4.1": Scope("hu/sec4.1", none(), none(), none(), none(),
                       (formula("every ε, n, N, Var, Δ"),)),
    "hu/mean": Scope(
        "hu/mean", q("the Laplace mechanism on the mean", "exact", "exhaustive"),
        q("bounded DP", "every replacement (sensitivities)", "exhaustive"),
        q("every population in [0, R]", "3 populations, N ≤ 6", "grid"),
        q("SRSWOR n of N", "all samples, n ≤ 5", "exhaustive"),
        (formula("every ε > 0, n/N", "r(ε, n/N) < 1 proved for all"),),
    ),
    "hu/median": Scope(
        "hu/median", q("smooth sensitivity (eq. 4)", "brute force vs eq. (4)", "grid"),
        q("replacement", "every replacement within [0, Λ]", "exhaustive"),
        q("every population", "N ∈ {3, 5}, Λ ∈ {3, 4, 6} (175 datasets)", "grid"),
        none(), (eps_grid("β", "grid; simulation numbers inconclusive"),),
    ),
    "hu/inline": Scope("hu/inline", none(), none(), none(), none(),
                       (printed_cells("13 inline numbers"),)),
}
