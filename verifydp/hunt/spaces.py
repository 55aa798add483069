"""Search spaces for `verifydp hunt`: each claim carries its own (`Claim.space`, defined next
to the claim in its paper package, e.g. `verifydp.claims.bun.spaces`); `space_for` reads it.

A space's evaluator judges one drawn point with the claim's own certified checker, so a
"refuted" found by a search is exactly as certified as one found by `check`; its `margin`
(actual − claimed, > 0 exactly when violated) is what the search climbs with
`hypothesis.target`, and `size` is what minimisation reduces (the records of the two
datasets, as `verifydp.witness.witness_size` counts them, or n for formula claims).

Claims without a space are hunted by their checker's grid only (`verifydp.hunt.portfolio`).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from verifydp.claims import catalogue
from verifydp.claims.base import InstanceResult, Params, SearchSpace
from verifydp.claims.bun.amplification import LEMB1_EPS, A, X
from verifydp.claims.bun.spaces import add_records, ratio_point
from verifydp.claims.checkers import Instance
from verifydp.claims.strategies import t_values
from verifydp.designs import SRSWOR
from verifydp.epsilon import EpsSpec
from verifydp.exact.tfunc import exp_of
from verifydp.population import Population, PopulationPair, Relation

__all__ = ["SPACES", "HuntSpace", "space_for"]

HuntSpace = SearchSpace


def _lemb1(claim: str, base_replace: bool) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        small, big = Population.of({A: p["n"]}), Population.of({A: p["n"], X: 1})
        # the corrected lemma is stated for P' = P ∪ {x} only (|P| the smaller dataset); the
        # printed one for either orientation of the deletion pair
        p_small = p["p_small"] or not base_replace
        p_pop, q_pop = (small, big) if p_small else (big, small)
        m, mp = min(p["m"], p_pop.size), min(p["m_prime"], q_pop.size)
        inst = Instance({"m": m, "m_prime": mp, "P_size": p_pop.size},
                        PopulationPair(p_pop, q_pop, Relation.ADD_REMOVE), SRSWOR(m),
                        Relation.REPLACE if base_replace else Relation.ADD_REMOVE,
                        EpsSpec.of_t(p["t"]), design_prime=SRSWOR(mp))
        return ratio_point(claim, exp_of(LEMB1_EPS), inst)
    return ev


_lemb1_space = st.fixed_dictionaries({
    "n": st.integers(1, 8), "p_small": st.booleans(), "m": st.integers(0, 9),
    "m_prime": st.integers(0, 9), "t": t_values(10)})


def _spaces() -> dict[str, SearchSpace]:
    out = {c.id: c.space for c in catalogue().values() if c.space is not None}
    out["bun/lemB.1"] = SearchSpace(_lemb1_space, _lemb1("bun/lemB.1", True), add_records,
                                    "SRSWOR(m) vs SRSWOR(m'), P ⊂ P' or P' ⊂ P")
    out["bun/lemB.1:corrected"] = SearchSpace(
        _lemb1_space, _lemb1("bun/lemB.1:corrected", False), add_records,
        "SRSWOR(m) vs SRSWOR(m'), deletion-DP base")
    return out


SPACES: dict[str, SearchSpace] = _spaces()


def space_for(claim: str) -> SearchSpace | None:
    return SPACES.get(claim)
