"""Search spaces of the Bun et al. claims (`verifydp hunt`; docs/foundations.md#search).

Each space draws the parameters its statement quantifies over — wider than the checker's grid —
and judges a point with the claim's own certified checker. Sizes count the records of the two
datasets, which is what shrinking minimises.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil

import sympy
from hypothesis import strategies as st

from verifydp.claims.base import Budget, InstanceResult, Params, SearchSpace
from verifydp.claims.bun.amplification import (
    LEMB1_CORRECTED_EPS,
    LEMB1_EPS,
    THM22_EPS,
    THM43_EPS,
    add_pair,
    lemb1_instance,
    replace_pair,
    thm31_upper_expr,
)
from verifydp.claims.checkers import Instance, check_ratio_upper
from verifydp.claims.strategies import populations, rates, size_laws, t_values
from verifydp.designs import SRSWOR, ProportionalWOR, RandomSizeWOR, Rounding
from verifydp.epsilon import EpsSpec
from verifydp.exact.dist import FiniteDist
from verifydp.exact.tfunc import exp_of
from verifydp.population import Population, PopulationPair, RecordType, Relation

__all__ = ["SPACES", "ratio_point", "replace_records", "add_records"]


def ratio_point(claim: str, expr: sympy.Expr, inst: Instance) -> InstanceResult:
    """One instance judged by the generic certified ratio checker."""
    return check_ratio_upper(claim, expr, [inst], Budget()).results[0]


def replace_records(p: Params) -> int:  # P = {a^(n−1), x}, P' = {a^(n−1), y}
    return 2 * (p["pop"].size if "pop" in p else int(p["n"]))


def add_records(p: Params) -> int:  # P = {a^n}, P' = P ∪ {x}
    return 2 * int(p["n"]) + 1


def _thm22(p: Params) -> InstanceResult:
    if "pop" in p:  # an arbitrary population, one record replaced by a fresh value
        pop = p["pop"]
        types = pop.types()
        gone = types[p["swap"] % len(types)]
        counts = {rt: c for rt, c in pop.entries}
        counts[gone] -= 1
        counts[RecordType("fresh")] = 1
        pair = PopulationPair(pop, Population.of({rt: c for rt, c in counts.items() if c}),
                              Relation.REPLACE)
        n, m = pop.size, min(p["m"], pop.size)
    else:
        pair, n, m = replace_pair(p["n"]), p["n"], p["m"]
    inst = Instance({"m": m, "n": n, "delta": 0}, pair, SRSWOR(m), Relation.REPLACE,
                    EpsSpec.of_t(p["t"]))
    return ratio_point("bun/thm2.2", exp_of(THM22_EPS), inst)


_nm = st.one_of(
    st.integers(1, 40).flatmap(lambda n: st.fixed_dictionaries(
        {"n": st.just(n), "m": st.integers(0, n), "t": t_values()})),
    st.fixed_dictionaries({"pop": populations(3, 4).filter(lambda q: q.size > 0),
                           "swap": st.integers(0, 2), "m": st.integers(0, 12),
                           "t": t_values()}),
)


def _thm31(claim: str, two_eps: bool) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        law = p["law"]
        inst = Instance({"n": p["n"]}, replace_pair(p["n"]),
                        RandomSizeWOR(FiniteDist.from_pairs(law.items())), Relation.ADD_REMOVE,
                        EpsSpec.of_t(p["t"]), label={"t(m)": {k: str(v) for k, v in law.items()}})
        return ratio_point(claim, exp_of(thm31_upper_expr(law, two_eps)), inst)
    return ev


_thm31_space = st.integers(1, 6).flatmap(lambda n: st.fixed_dictionaries(
    {"n": st.just(n), "law": size_laws(n), "t": t_values(10)}))


def _thm43(p: Params) -> InstanceResult:
    inst = Instance({"r": p["r"]}, add_pair(p["n"]), ProportionalWOR(p["r"], Rounding.RANDOMISED),
                    Relation.ADD_REMOVE, EpsSpec.of_t(p["t"]), label={"|P|": p["n"]})
    return ratio_point("bun/thm4.3", exp_of(THM43_EPS), inst)


# the theorem assumes |P| ≥ 1/r
_thm43_space = rates(10).flatmap(lambda r: st.fixed_dictionaries({
    "r": st.just(r), "n": st.integers(ceil(1 / r), ceil(1 / r) + 12), "t": t_values(10)}))

_RANDOM_SIZE = "random-size SRS, any size law on {0..n}, n ≤ 6"


def _lemb1(claim: str, base: Relation, expr: sympy.Expr) -> Callable[[Params], InstanceResult]:
    """P, P' = {a^n} and {a^n, x} in either order (the lemma's deletion neighbours are
    unordered; issue 14), m and m' clipped to the sizes of P and P'."""
    def ev(p: Params) -> InstanceResult:
        n_, p_small = int(p["n"]), bool(p["p_small"])
        p_size, q_size = (n_, n_ + 1) if p_small else (n_ + 1, n_)
        inst = lemb1_instance(n_, p_small, min(p["m"], p_size), min(p["m_prime"], q_size),
                              base, EpsSpec.of_t(p["t"]))
        return ratio_point(claim, exp_of(expr), inst)
    return ev


_lemb1_space = st.fixed_dictionaries({
    "n": st.integers(1, 8), "p_small": st.booleans(), "m": st.integers(0, 9),
    "m_prime": st.integers(0, 9), "t": t_values(10)})
_LEMB1 = "SRSWOR(m) vs SRSWOR(m'), P ⊂ P' or P' ⊂ P"

SPACES: dict[str, SearchSpace] = {
    "bun/thm2.2": SearchSpace(_nm, _thm22, replace_records, "SRSWOR(m) of n, t = e^ε ∈ (1, 20]"),
    "bun/thm3.1:upper": SearchSpace(_thm31_space, _thm31("bun/thm3.1:upper", False),
                                    replace_records, _RANDOM_SIZE),
    "bun/thm3.1:upper:corrected": SearchSpace(
        _thm31_space, _thm31("bun/thm3.1:upper:corrected", True), replace_records,
        _RANDOM_SIZE),
    "bun/thm4.3": SearchSpace(_thm43_space, _thm43, add_records,
                              "proportional SRS with randomised rounding, |P| ≥ 1/r"),
    "bun/lemB.1": SearchSpace(_lemb1_space, _lemb1("bun/lemB.1", Relation.REPLACE, LEMB1_EPS),
                              add_records, _LEMB1 + ", replacement-DP base (as printed)"),
    "bun/lemB.1:deletion": SearchSpace(
        _lemb1_space, _lemb1("bun/lemB.1:deletion", Relation.ADD_REMOVE, LEMB1_EPS),
        add_records, _LEMB1 + ", deletion-DP base"),
    "bun/lemB.1:corrected": SearchSpace(
        _lemb1_space,
        _lemb1("bun/lemB.1:corrected", Relation.ADD_REMOVE, LEMB1_CORRECTED_EPS),
        add_records, _LEMB1 + ", deletion-DP base, min(|P|, |P'|)"),
}
