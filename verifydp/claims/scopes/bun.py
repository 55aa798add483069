"""Scopes of the Bun, Drechsler, Gaboardi, McMillan, Sarathy claims (issue 14; paper key
`bun`; checkers in verifydp/claims/bun/; docs/foundations.md#claims). Reviewed in
docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Narrowing, Scope, q
from verifydp.claims.scopes.common import (
    all_approx,
    all_pure,
    eps_grid,
    formula,
    none,
    wor_background,
)

EPS3 = "t = e^ε ∈ {11/10, 2} and ε = 1/2"
EPS4 = "t = e^ε ∈ {11/10, 2, 5} and ε = 1/2"
FITTED = ("fitted/hard-coded check (issue 14 list): the checker reproduces a fixed instance "
          "instead of quantifying over the printed domain; being replaced by another engineer")

# Lemma B.1 (issue 14): the lemma's deletion neighbours are unordered, so both orientations
LEMB1_ORIENT = q("P, P' deletion neighbours (either may be the larger)",
                 "both orientations P' = P ∪ {x} and P = P' ∪ {x}", "exhaustive")
LEMB1_POP = wor_background("every P", "the smaller dataset of size 1, 2, 3 or 5")
LEMB1_SIZES = q("SRS of m from P, m' from P'", "every m ≤ |P|, m' ≤ |P'| (0 and full size "
                "included)", "exhaustive")
LEMB1_EPS = eps_grid("ε > 0", "t ∈ {2, 5} and ε = 1/2 (irrational t)")

SCOPES: dict[str, Scope] = {
    "bun/thm2.2": Scope(
        "bun/thm2.2",
        all_approx("replacement; δ = 0 for the pure part"),
        q("M replacement-DP; P, P' replacement neighbours (both orders)",
          "P = {a×(n−1), x}, P' = {a×(n−1), y}; ratio and hockey-stick both ways", "proof",
          "the other orientation is the relabelling x ↔ y, which the LP is invariant under"),
        wor_background("every population of size n", "{a×(n−1), x} vs {a×(n−1), y}, "
                       "n ∈ {1, 2, 3, 4, 7, 20, 1000}"),
        q("SRS without replacement, m of n", "m ∈ {0, 1, ⌊n/2⌋, n−1, n}", "grid"),
        (eps_grid("ε > 0", EPS4), eps_grid("δ ∈ [0, 1]", "δ ∈ {0, 1/100, 1/10, 1/2}")),
    ),
    "bun/thm3.1:upper": Scope(
        "bun/thm3.1:upper",
        all_pure("deletion"),
        q("M ε-deletion-DP; M_C replacement-DP (P, P' replacement neighbours)",
          "replacement pair {a×(n−1), x} vs {a×(n−1), y}, ratio both ways", "proof",
          "orientation: relabelling x ↔ y"),
        wor_background("every dataset of size n", "n ∈ {2, 3, 4, 6, 10}"),
        q("every size law t on {0, …, n}",
          "point masses at 0, 1, n/2, n; uniform; two-point {0, n}; binomial(n, 1/2); "
          "heavy-tail", "grid"),
        (eps_grid("ε > 0", EPS4),),
    ),
    "bun/thm3.1:upper:corrected": Scope(
        "bun/thm3.1:upper:corrected",
        all_pure("deletion"),
        q("M ε-deletion-DP; M_C replacement-DP (P, P' replacement neighbours)",
          "replacement pair {a×(n−1), x} vs {a×(n−1), y}, ratio both ways", "proof",
          "orientation: relabelling x ↔ y"),
        wor_background("every dataset of size n", "n ∈ {2, 3, 4, 6, 10}"),
        q("every size law t on {0, …, n}",
          "point masses at 0, 1, n/2, n; uniform; two-point {0, n}; binomial(n, 1/2); "
          "heavy-tail", "grid"),
        (eps_grid("ε > 0", EPS4),),
    ),
    "bun/thm3.1:lower": Scope(
        "bun/thm3.1:lower",
        q("the printed construction (#ones + Lap(1/ε))", "exactly that mechanism, and the LP "
          "over every ε-deletion-DP M (the bound never exceeds the worst case)", "exhaustive"),
        q("App. B: P = n ones, P' = P \\ {1} ∪ {0}", "that pair", "exhaustive"),
        q("every n", "n ∈ {1, 2, 3, 4, 6, 10}", "grid"),
        q("every size law t", "the 8 laws of thm3.1:upper", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2, 5}"),),
    ),
    "bun/thm3.1:approx": Scope(
        "bun/thm3.1:approx", none(), none(), none(), none(),
        (formula("small ε, every a = E_t̃[m]/n", "first-order series in ε, a symbolic"),),
    ),
    "bun/lemB.1": Scope(
        "bun/lemB.1",
        all_pure("replacement, as printed"),
        LEMB1_ORIENT,
        LEMB1_POP,
        LEMB1_SIZES,
        (LEMB1_EPS,),
    ),
    "bun/lemB.1:deletion": Scope(
        "bun/lemB.1:deletion",
        all_pure("deletion, as the proof's Lemma A.3 needs"),
        LEMB1_ORIENT,
        LEMB1_POP,
        LEMB1_SIZES,
        (LEMB1_EPS,),
    ),
    "bun/lemB.1:corrected": Scope(
        "bun/lemB.1:corrected",
        all_pure("deletion"),
        LEMB1_ORIENT,
        LEMB1_POP,
        LEMB1_SIZES,
        (LEMB1_EPS,),
    ),
    "bun/sec4.1": Scope(
        "bun/sec4.1",
        q("the named M^count = |S| + Lap(1/ε)", "exactly that mechanism (exact density ratio)",
          "exhaustive"),
        q("P' = P ∪ {x} with f(P') = f(P) + Δ", "that pair, ratio both ways", "exhaustive"),
        q("every P", "|P| = m + Δ + 2", "grid"),
        q("every deterministic allocation f", "f(P) = m ∈ {0, 1, 4}, Δ ∈ {1, 2, 3, 5}", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2, 3}"),),
    ),
    "bun/sec4.3:det-rounding": Scope(
        "bun/sec4.3:det-rounding",
        q("M^count with Laplace noise (no amplification)", "that mechanism, symbolic in t",
          "proof"),
        q("P' = P ∪ {x}", "that pair", "exhaustive"),
        q("|P| = 14, |P'| = 15 (printed)", "exactly those", "exhaustive"),
        q("round(r|P|), r = 1/10 (printed)", "half-up and half-even", "exhaustive"),
        (formula("every ε > 0", "exact sign of a rational function of t on t > 1"),),
    ),
    "bun/thm4.3": Scope(
        "bun/thm4.3",
        all_pure("deletion"),
        q("deletion neighbours", "P' = P ∪ {x}, ratio both ways", "exhaustive"),
        wor_background("every P with |P| ≥ 1/r", "|P| from ⌈1/r⌉ to ⌈1/r⌉ + 4, and 20, 41 "
                       "(r|P| integer and not)"),
        q("randomised rounding of r|P|", "r ∈ {1/10, 1/4, 1/3, 1/2, 2/3, 9/10}", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2, 5}, ε = 1/2"),),
    ),
    "bun/thm4.3:approx": Scope(
        "bun/thm4.3:approx", none(), none(), none(), none(),
        (formula("small ε, every r", "first-order series in ε, r symbolic"),),
    ),
    "bun/thm7.2": Scope(
        "bun/thm7.2",
        all_pure("deletion"),
        q("stratified deletion neighbours (a record added to one stratum)",
          "a record added to each stratum in turn, ratio both ways", "exhaustive"),
        wor_background("every stratified P with r|S_j| ≥ 1",
                       "13 stratum shapes with 2–3 strata (sizes 2–21)"),
        q("proportional allocation with randomised rounding", "r ∈ {1/10, 1/4, 1/2, 2/3}",
          "grid"),
        (eps_grid("ε > 0", "t ∈ {2, 5}, ε = 1/2"),),
    ),
    "bun/thm5.1": Scope(
        "bun/thm5.1",
        q("∃ an ε-deletion-DP M (lower bound)", "the App. D construction and the LP over "
          "every ε-deletion-DP M", "exhaustive"),
        q("∃ P, P' with C'_i = C_i ∪ {x}", "the construction's pair", "exhaustive"),
        q("every sequence n_i > 0", "cluster sizes ≤ 4, k ≤ 8 (16 size vectors)", "grid"),
        q("ℓ of k clusters without replacement", "ℓ < k ≤ 8", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2}"),),
    ),
    "bun/thm5.2": Scope(
        "bun/thm5.2",
        all_pure("deletion"),
        q("C'_i = C_i ∪ {x} (ε'-indistinguishable: both directions)",
          "x added to each cluster position, ratio both ways", "exhaustive"),
        q("every sequence n_i > 0", "cluster sizes ≤ 4, k ≤ 8 (16 size vectors)", "grid",
          "records inside one cluster are one type: the map c ↦ first c distinct records is "
          "1-Lipschitz, so distinct within-cluster records add nothing (fact 4's argument)"),
        q("ℓ of k clusters without replacement", "ℓ < k ≤ 8", "grid"),
        (eps_grid("ε > 0", EPS3),),
    ),
    "bun/prop6.1": Scope(
        "bun/prop6.1",
        q("every ε-DP M (lower bound from any M, E)", "randomized response on a / x and the "
          "LP-optimal binary mechanism", "grid"),
        q("replacement of record i", "replacing a or x", "grid"),
        q("populations with inclusion probabilities a_i", "4-record populations", "grid"),
        q("every design", "SRSWOR(2), Poisson-PPS (2, 3), successive PPS (2, 3)", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2}"),),
    ),
    "bun/sec6.1:pps": Scope(
        "bun/sec6.1:pps",
        q("∃ an ε-DP M attaining the bound", "randomized response on x_i (exact)", "exhaustive"),
        q("replacement of record i", "every record i of the population", "exhaustive"),
        q("populations with inclusion probabilities a_i", "4-record populations", "grid"),
        q("PPS designs", "Poisson-PPS and successive PPS (and SRSWOR)", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2, 5}"),),
    ),
    "bun/sec6.2:pps-cluster": Scope(
        "bun/sec6.2:pps-cluster",
        q("ε-DP M", "LP over every ε-deletion-DP M", "exhaustive"),
        q("x added to a cluster", "x added to the large cluster", "grid"),
        q("large clusters / a single large cluster", "cluster sizes (s, 1, 1, 1), "
          "s ∈ {1, 2, 3, 4, 6, 8, 12, 16}; the size s*(t) from which ε' ≥ ε is derived, not "
          "fitted", "grid"),
        q("PPS cluster sampling", "one cluster drawn with probability ∝ size", "grid"),
        (eps_grid("ε > 0", "t ∈ {21/20, 11/10, 2, 5}"),
         q("'pushing towards the no amplification regime' (qualitative)",
           "R1 ε' nondecreasing in s, R2 ε' ≥ ε reached and kept; inconclusive unless both "
           "hold", "grid")),
    ),
    "bun/sec6.3:systematic": Scope(
        "bun/sec6.3:systematic",
        q("ε-DP M", "LP over every ε-DP M (no-amplification part)", "exhaustive"),
        q("neighbouring populations", "replacement: any record moved to any gap of the "
          "order, both orders (a witness, or every pair before a refutation)", "exhaustive"),
        q("every N", "N ∈ {4, 6, 8, 9}", "grid"),
        q("systematic sampling with interval k", "k ∈ {2, 3, 4}; random and fixed order",
          "grid"),
        (eps_grid("ε > 0", "t ∈ {1001/1000, 2}"),),
    ),
    "bun/thm5.3": Scope(
        "bun/thm5.3",
        q("ε-DP M with a test H; ∃ an event E", "sympy: E = Ω reduces the bound to 1 for every "
          "ℓ/k, ε' (vacuous as printed); exact instances: ε-DP binary mechanisms p(w·s) on the "
          "grid {0, 1/4, …, 1}, tests H ∈ {id, 1 − id, 0}, every E ⊆ {0, 1}", "proof"),
        q("P' differing from P in C_i", "C'_i = C_i ∪ {x} (instances); any P' (the proof)",
          "proof"),
        q("every cluster layout", "k = 2, 3 singletons and k = 2 with |C_1| = 2 (instances)",
          "proof", "E = Ω works for every layout"),
        q("ℓ of k clusters", "ℓ/k ∈ {1/2, 1/3, 2/3} (instances); every ℓ/k (the proof)",
          "proof"),
        (formula("ε > 0, ℓ ∈ [0, k]", "sympy identity at e^{ε''} = 1; instances t ∈ {2, 5}"),),
    ),
    "bun/thm5.3:event": Scope(
        "bun/thm5.3:event",
        q("every ε-DP M with a test H", "one exact binary mechanism table (the witness)",
          "grid", "a refutation needs one instance"),
        q("P' differing from P in C_i", "one pair", "grid", "a refutation needs one instance"),
        none(), q("ℓ of k clusters", "ℓ/k = 1/2", "grid", "a refutation needs one instance"),
        (eps_grid("ε > 0", "t = 2"),),
    ),
    "bun/thm5.3:event:corrected": Scope(
        "bun/thm5.3:event:corrected",
        q("every ε-DP M with a test H", "acceptance tables with values in {0, 1/8, …, 1} "
          "(106 meet the hypotheses)", "grid"),
        q("P' differing from P in C_i", "one cluster layout", "grid"),
        none(), q("ℓ of k clusters", "ℓ/k = 1/2", "grid"),
        (eps_grid("ε > 0", "t = 2"),),
        (Narrowing("one search space (ℓ/k = 1/2, t = 2, one cluster layout) for a statement "
                   "over every ε, ℓ, k and test",
                   "Then there exists an event", FITTED, "being widened",
                   "other engineer (bun/general.py)"),),
    ),
    "bun/fig2": Scope(
        "bun/fig2",
        q("the plotted curves; M_C for ε-deletion-DP M", "the curves exactly; the concrete "
          "#x − #y + geometric noise", "exhaustive"),
        q("replacement neighbours", "one replacement pair", "exhaustive"),
        q("n = 10^4 (printed)", "n = 10^4", "exhaustive"),
        q("truncated Gaussian t, mean n/2, σ ∈ [1, 10^3]", "17 σ values", "grid"),
        (q("ε = 0.01 (printed)", "ε = 1/100", "exhaustive"),),
    ),
    "bun/prop4.1": Scope(
        "bun/prop4.1",
        q("ε-DP size tests H (e^{−ε} ≤ Pr ratio ≤ e^ε)", "all of them (LP over tests)",
          "exhaustive"),
        q("P' = P ∪ {x}", "that pair", "exhaustive"),
        q("every P", "|P| ∈ {1, 2, 3, 5, 14}", "grid"),
        q("every f̃ meeting the hypothesis", "randomised, half-up, half-even and floor "
          "rounding of r|P|, r ∈ {1/10, 1/3, 1/2, 2/3}", "grid"),
        (eps_grid("ε > 0", EPS3),),
    ),
    "bun/prop4.2": Scope(
        "bun/prop4.2",
        q("every ε-deletion-DP M (hypothesis)", "LP over all of them (hypothesis of the "
          "counterexample)", "exhaustive"),
        q("replacement pairs", "replacement pairs of sizes 4–7", "grid"),
        q("∃ P", "|P| ∈ {4, 5, 6, 7}", "grid", "a refutation needs one instance"),
        q("every f, f̃", "K·1[|P| odd, |P| ≥ K] and randomised rounding", "grid"),
        (eps_grid("ε > 0", "t ∈ {11/10, 2}, ε ∈ {1/10, 1}"),),
    ),
    "bun/lemA.4": Scope(
        "bun/lemA.4",
        q("all distributions X0, X1, Y0, Y1", "seeded random, hill-climbed and two-point "
          "distributions on 2–4 points (99)", "grid"),
        none(), none(), none(),
        (eps_grid("ε, ε' ≥ 0, q ∈ [0, 1]", "q incl. 0 and 1; 55 values of e^ε"),),
    ),
    "bun/lemB.3": Scope(
        "bun/lemB.3",
        q("every ε-log-Lipschitz q", "the max over q by LP", "exhaustive"),
        none(), none(), none(),
        (eps_grid("w nondecreasing, p ≥ 0, every n", "43 (w, p) incl. constant w and p with "
                  "zeros; t ∈ {11/10, 2, 9/4, 4}"),),
    ),
    "bun/sec7.2:neyman": Scope(
        "bun/sec7.2:neyman",
        q("ε-DP release of the stratum sample sizes", "geometric noise, sensitivity 1, on the "
          "printed sizes (exact ratio t^Δ)", "exhaustive"),
        q("neighbouring populations (add-remove and replace)", "the printed pair of "
          "allocations (E.1's neighbour); the search on the synthetic population is a finding",
          "grid"),
        q("the CBP population (microdata not published)", "not covered: a synthetic population "
          "fitted to the printed vectors cannot confirm them (cells inconclusive)",
          "not covered", "the paper's microdata are not published"),
        q("Neyman allocation, m = 10,000", "z3: ceil, nearest, floor, within-1 rounding on "
          "the printed vectors", "exhaustive"),
        (eps_grid("ε > 0.1", "t ∈ {101/100, 21/20, 11/10, 3/2, 2}"),),
    ),
}
