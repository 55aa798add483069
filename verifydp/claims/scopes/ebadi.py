"""Scopes of the Ebadi, Antignac, Sands claims (issue 14; paper key `ebadi`; checker
verifydp/claims/ebadi.py; docs/foundations.md#fact-4). Reviewed in docs/narrowing-review.md."""

from __future__ import annotations

from verifydp.claims.scope import Scope, q
from verifydp.claims.scopes.common import all_pure, eps_grid, none, wor_background

T3 = "t ∈ {11/10, 2, 3} (no large ε)"
ADD = q("add-remove (Definition 1), both directions", "D = {a×m} vs D ∪ {x}, ratio both ways",
        "proof", "adding a copy of an existing value is the image of adding a new value under "
        "the 1-stable map x ↦ a (fact 2's argument)")
PAIR = q("every pair-ε-DP ⟨M1, M2⟩", "LP upper bound over all of them; exact lower bound "
         "from the best noisy-sum pair", "exhaustive")
PINQ = q("PINQ's aggregations", "NoisyCount/NoisySum with geometric noise (exact in t)", "grid",
         "the PINQ model, not all ε-DP mechanisms")


def _sampler(claim: str, design: str, covered: str, sizes: str,
             mech: str = "pure") -> Scope:
    return Scope(
        claim, all_pure("add-remove") if mech == "pure" else PAIR, ADD,
        wor_background("every D", sizes), q(design, covered, "grid"),
        (eps_grid("ε > 0", T3),),
    )


SCOPES: dict[str, Scope] = {
    "ebadi/pinq:take": Scope(
        "ebadi/pinq:take", PINQ, q("add-remove", "D vs D ∪ {7}", "grid"),
        q("every dataset", "∅ and the paper's 9 records", "grid",
          "a refutation needs one instance"),
        q("Listing 1", "scales 1–5 and 1000; 8 transformations' stabilities", "grid"),
        (eps_grid("ε > 0", "symbolic multiple of ε"),),
    ),
    "ebadi/skip": Scope(
        "ebadi/skip", PINQ, q("add-remove (insertions)", "every insertion position", "exhaustive"),
        q("every dataset", "exhaustive up to length 3; z3 for every length", "proof"),
        q("Skip(n)", "every n (z3)", "proof"), (eps_grid("ε > 0", "scales 1–4"),),
    ),
    "ebadi/thm2.1": Scope(
        "ebadi/thm2.1", all_pure("add-remove"), q("add-remove", "every insertion", "exhaustive"),
        q("every dataset", "sequences of length ≤ 2 over {a, b, c} and their insertions",
          "grid"),
        q("every c-stable T", "7 PINQ transformations (c ∈ {1, 2})", "grid"),
        (eps_grid("ε > 0", "t = 2"),),
    ),
    "ebadi/thm2.2": Scope(
        "ebadi/thm2.2", PINQ, q("add-remove", "every insertion", "exhaustive"),
        q("every dataset", "sequences of length ≤ 2 and their insertions", "grid"),
        q("every sequence of ε_i-DP queries", "3 plans", "grid",
          "sequential composition is standard (McSherry 2009); the grid checks the plan model"),
        (eps_grid("ε_i > 0", "t = 2"),),
    ),
    "ebadi/thm2.3": Scope(
        "ebadi/thm2.3", PINQ, q("add-remove", "every insertion", "exhaustive"),
        q("every dataset", "sequences of length ≤ 2 and their insertions", "grid"),
        q("every partition and ε_i-DP M1, M2", "a where-partition, (ε1, ε2) ∈ {(1,1), (1,2), "
          "(3,1)}", "grid", "parallel composition is standard (McSherry 2009)"),
        (eps_grid("ε_i > 0", "t = 2"),),
    ),
    "ebadi/prop4.1": Scope(
        "ebadi/prop4.1", all_pure("add-remove"), q("add-remove", "every insertion",
                                                   "exhaustive"),
        q("every dataset", "sequences of length ≤ 2 and their insertions", "grid"),
        q("every c-stable T", "7 PINQ transformations", "grid"), (eps_grid("ε > 0", "t = 3"),),
    ),
    "ebadi/prop4.2": _sampler("ebadi/prop4.2", "RS1 = Union(S, S), RS2 = Bernoulli(b)",
                              "b ∈ {1/10, 1/2}", "|D| ∈ {0, 1}"),
    "ebadi/prop4.2:corrected": _sampler("ebadi/prop4.2:corrected",
                                        "RS1 = Union(S, S), RS2 = Bernoulli(b)",
                                        "b ∈ {1/10, 1/2}", "|D| ∈ {0, 1}"),
    "ebadi/thm4.3": _sampler("ebadi/thm4.3", "every sampler with a recursive form ψ",
                             "Bernoulli (1/10, 1/2), fraction (1/2, 1/3), reservoir (1, 2)",
                             "|D| ≤ 4"),
    "ebadi/thm4.4": Scope(
        "ebadi/thm4.4", none(), none(), q("every D", "|D| ≤ 5", "grid"),
        q("R_n", "n ∈ {1, 2, 3}", "grid"), (eps_grid("—", "exact transition law"),),
    ),
    "ebadi/thm4.5": _sampler("ebadi/thm4.5", "reservoir R_n", "n ∈ {1, 2, 3}", "|D| ≤ n + 2"),
    "ebadi/thm4.6": _sampler("ebadi/thm4.6", "partition R̂_n", "n ∈ {1, 2, 3}", "|D| ≤ n + 1",
                             mech="pair"),
    "ebadi/thm4.6:corrected": _sampler("ebadi/thm4.6:corrected", "partition R̂_n",
                                       "n ∈ {1, 2, 3}", "|D| ≤ n + 1", mech="pair"),
    "ebadi/wr": Scope(
        "ebadi/wr", all_pure("add-remove"), ADD,
        q("every D", "D = {a×m}, |D| ∈ {1, 2, 3} (σ); ∅ vs {a} (lower bound)", "grid",
          "with replacement identical records give only a lower bound of the distinct-records "
          "worst case (fact 4): sound for the refutation and for the nε lower bound, so no "
          "'holds' of an upper bound rests on it"),
        q("with replacement, n draws", "n ∈ {1, 2, 3} (σ), n ≤ 4 (lower bound)", "grid"),
        (eps_grid("ε > 0", T3),),
    ),
    "ebadi/fraction:recursion": Scope(
        "ebadi/fraction:recursion", none(), none(), q("every D", "|D| ≤ 5", "grid"),
        q("P_p", "p ∈ {1/4, 1/3, 1/2, 2/3}", "grid"), (eps_grid("—", "exact laws"),),
    ),
    "ebadi/thm4.7": _sampler("ebadi/thm4.7", "fraction sampling P_p", "p ∈ {1/4, 1/3, 1/2, 2/3}",
                             "|D| ≤ 5"),
    "ebadi/fraction:partition": _sampler("ebadi/fraction:partition", "partition P̂_p",
                                         "p ∈ {1/4, 1/3, 1/2, 2/3}", "|D| ≤ 4", mech="pair"),
    "ebadi/bernoulli": _sampler("ebadi/bernoulli", "Bernoulli B_b", "b ∈ {1/10, 1/2, 9/10}",
                                "|D| ≤ 3"),
    "ebadi/thm4.8": _sampler("ebadi/thm4.8", "partition B̂_b", "b ∈ {1/10, 1/2, 9/10}",
                             "|D| ≤ 2", mech="pair"),
}
