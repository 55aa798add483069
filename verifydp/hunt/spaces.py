"""Search spaces: for a claim, a hypothesis strategy over its parameters (wider than the
checker's fixed grid) and an evaluator that judges one drawn point with the claim's own
checker, so a "refuted" found by a search is exactly as certified as one found by `check`.

Each evaluator returns an `InstanceResult` whose `margin` (actual − claimed, > 0 exactly when
violated) is what the search climbs with `hypothesis.target`; `size` is what minimisation
reduces and reports: the records in P and P' (as `portfolio.witness_size` counts them in a
witness file), or n where the claim is about printed formulas and has no dataset.

Claims without a space are hunted by their checker's grid only (`verifydp.hunt.portfolio`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from verifydp.claims.base import Budget, InstanceResult, Verdict
from verifydp.hunt.strategies import group_profiles, populations, rates, size_laws, t_values

Params = dict[str, Any]


@dataclass(frozen=True)
class HuntSpace:
    claim: str
    strategy: st.SearchStrategy[Params]
    evaluate: Callable[[Params], InstanceResult]
    size: Callable[[Params], int]
    text: str


def _ratio_point(claim: str, expr, inst) -> InstanceResult:  # type: ignore[no-untyped-def]
    from verifydp.claims.checkers import check_ratio_upper

    return check_ratio_upper(claim, expr, [inst], Budget()).results[0]


# ---------------------------------------------------------------- bun


def _thm22(p: Params) -> InstanceResult:
    from verifydp.claims.bun.amplification import THM22_EPS, replace_pair
    from verifydp.claims.checkers import Instance
    from verifydp.designs import SRSWOR
    from verifydp.epsilon import EpsSpec
    from verifydp.exact.tfunc import exp_of
    from verifydp.population import Population, PopulationPair, RecordType, Relation

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
    return _ratio_point("bun/thm2.2", exp_of(THM22_EPS), inst)


_nm = st.one_of(
    st.integers(1, 40).flatmap(lambda n: st.fixed_dictionaries(
        {"n": st.just(n), "m": st.integers(0, n), "t": t_values()})),
    st.fixed_dictionaries({"pop": populations(3, 4).filter(lambda q: q.size > 0),
                           "swap": st.integers(0, 2), "m": st.integers(0, 12),
                           "t": t_values()}),
)


def _thm31(claim: str, two_eps: bool) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        from verifydp.claims.bun.amplification import replace_pair, thm31_upper_expr
        from verifydp.claims.checkers import Instance
        from verifydp.designs import RandomSizeWOR
        from verifydp.epsilon import EpsSpec
        from verifydp.exact.dist import FiniteDist
        from verifydp.exact.tfunc import exp_of
        from verifydp.population import Relation

        law = p["law"]
        inst = Instance({"n": p["n"]}, replace_pair(p["n"]),
                        RandomSizeWOR(FiniteDist.from_pairs(law.items())), Relation.ADD_REMOVE,
                        EpsSpec.of_t(p["t"]), label={"t(m)": {k: str(v) for k, v in law.items()}})
        return _ratio_point(claim, exp_of(thm31_upper_expr(law, two_eps)), inst)
    return ev


_thm31_space = st.integers(1, 6).flatmap(lambda n: st.fixed_dictionaries(
    {"n": st.just(n), "law": size_laws(n), "t": t_values(10)}))


def _thm43(p: Params) -> InstanceResult:
    from verifydp.claims.bun.amplification import THM43_EPS, add_pair
    from verifydp.claims.checkers import Instance
    from verifydp.designs import ProportionalWOR, Rounding
    from verifydp.epsilon import EpsSpec
    from verifydp.exact.tfunc import exp_of
    from verifydp.population import Relation

    inst = Instance({"r": p["r"]}, add_pair(p["n"]), ProportionalWOR(p["r"], Rounding.RANDOMISED),
                    Relation.ADD_REMOVE, EpsSpec.of_t(p["t"]), label={"|P|": p["n"]})
    return _ratio_point("bun/thm4.3", exp_of(THM43_EPS), inst)


def _thm43_space() -> st.SearchStrategy[Params]:
    from math import ceil

    # the theorem assumes |P| ≥ 1/r
    return rates(10).flatmap(lambda r: st.fixed_dictionaries({
        "r": st.just(r), "n": st.integers(ceil(1 / r), ceil(1 / r) + 12), "t": t_values(10)}))


def _lemb1(claim: str, base_replace: bool) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        from verifydp.claims.bun.amplification import LEMB1_EPS, A, X
        from verifydp.claims.checkers import Instance
        from verifydp.designs import SRSWOR
        from verifydp.epsilon import EpsSpec
        from verifydp.exact.tfunc import exp_of
        from verifydp.population import Population, PopulationPair, Relation

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
        return _ratio_point(claim, exp_of(LEMB1_EPS), inst)
    return ev


_lemb1_space = st.fixed_dictionaries({
    "n": st.integers(1, 8), "p_small": st.booleans(), "m": st.integers(0, 9),
    "m_prime": st.integers(0, 9), "t": t_values(10)})


# ---------------------------------------------------------------- must


def _group(claim: str, scheme: str) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        from verifydp.claims.must import amplification as must_pa
        from verifydp.claims.must.group import point_result
        from verifydp.worstcase.group import GroupProfileClass

        formula = {"wr": must_pa.t2_wr, "wor": must_pa.t2_wor, "must-ow": must_pa.thm5_ow,
                   "must-wo": must_pa.thm5_wo, "must-ww": must_pa.thm5_ww}[scheme]
        mc = GroupProfileClass(p["t"], p["deltas"])
        return point_result(claim, scheme, formula, p["n"], p.get("b"), p["m"], mc)
    return ev


def _group_space(scheme: str) -> st.SearchStrategy[Params]:
    def with_b(n: int) -> st.SearchStrategy[Params]:
        if scheme in ("wr", "wor"):
            return st.fixed_dictionaries({"n": st.just(n), "m": st.integers(1, n if scheme == "wor" else 4)})
        b = st.integers(1, n if scheme == "must-ow" else 4)
        return b.flatmap(lambda b_: st.fixed_dictionaries({
            "n": st.just(n), "b": st.just(b_),
            "m": st.integers(1, b_ if scheme == "must-wo" else 4)}))

    return st.integers(2, 5).flatmap(with_b).flatmap(lambda d: st.fixed_dictionaries({
        **{k: st.just(v) for k, v in d.items()}, "t": t_values(8),
        "deltas": group_profiles(d["m"])}))


def _prop7(p: Params) -> InstanceResult:
    from verifydp.claims.must.amplification import eta_ow_frac, eta_wor_frac, eta_wr_frac

    n, b, m = p["n"], p["b"], p["m"]
    ow, wr, wor = eta_ow_frac(n, b, m), eta_wr_frac(n, m), eta_wor_frac(n, m)
    ok = ow <= wr <= wor and (ow == wr) == (b == n)
    return InstanceResult(p, Verdict.HOLDS if ok else Verdict.REFUTED,
                          "η_OW ≤ η_WR ≤ η_WOR, and η_OW = η_WR only when b = n",
                          f"η_OW={ow}, η_WR={wr}, η_WOR={wor}",
                          margin=max(float(ow - wr), float(wr - wor)))


_prop7_space = st.integers(1, 200).flatmap(lambda n: st.fixed_dictionaries({
    "n": st.just(n), "b": st.integers(1, n), "m": st.integers(1, n)}))


def _remark2(p: Params) -> InstanceResult:
    from verifydp.designs.must import eta

    e = eta(p["scheme"], p["n"], p.get("b"), p["m"])
    ok = 0 < e < 1
    return InstanceResult(p, Verdict.HOLDS if ok else Verdict.REFUTED, "η ∈ (0, 1)",
                          f"η = {e}", margin=float(e) - 1)


def _remark2_space() -> st.SearchStrategy[Params]:
    def pick(scheme: str) -> st.SearchStrategy[Params]:
        def sized(n: int) -> st.SearchStrategy[Params]:
            if scheme in ("wr", "wor"):
                return st.fixed_dictionaries({"scheme": st.just(scheme), "n": st.just(n),
                                              "m": st.integers(1, n)})
            return st.integers(1, n).flatmap(lambda b: st.fixed_dictionaries({
                "scheme": st.just(scheme), "n": st.just(n), "b": st.just(b),
                "m": st.integers(1, b if scheme == "must-wo" else 2 * n)}))
        return st.integers(1, 60).flatmap(sized)
    return st.sampled_from(("wor", "wr", "must-ow", "must-wo", "must-ww")).flatmap(pick)


def _n(p: Params) -> int:
    return int(p["n"])


def _replace_records(p: Params) -> int:  # P = {a^(n−1), x}, P' = {a^(n−1), y}
    return 2 * (p["pop"].size if "pop" in p else int(p["n"]))


def _add_records(p: Params) -> int:  # P = {a^n}, P' = P ∪ {x}
    return 2 * int(p["n"]) + 1


def _spaces() -> dict[str, HuntSpace]:
    out = [
        HuntSpace("bun/thm2.2", _nm, _thm22, _replace_records, "SRSWOR(m) of n, t = e^ε ∈ (1, 20]"),
        HuntSpace("bun/thm3.1:upper", _thm31_space, _thm31("bun/thm3.1:upper", False),
                  _replace_records, "random-size SRS, any size law on {0..n}, n ≤ 6"),
        HuntSpace("bun/thm3.1:upper:corrected", _thm31_space,
                  _thm31("bun/thm3.1:upper:corrected", True), _replace_records,
                  "random-size SRS, any size law on {0..n}, n ≤ 6"),
        HuntSpace("bun/thm4.3", _thm43_space(), _thm43, _add_records,
                  "proportional SRS with randomised rounding, |P| ≥ 1/r"),
        HuntSpace("bun/lemB.1", _lemb1_space, _lemb1("bun/lemB.1", True),
                  _add_records, "SRSWOR(m) vs SRSWOR(m'), P ⊂ P' or P' ⊂ P"),
        HuntSpace("bun/lemB.1:corrected", _lemb1_space, _lemb1("bun/lemB.1:corrected", False),
                  _add_records, "SRSWOR(m) vs SRSWOR(m'), deletion-DP base"),
        HuntSpace("must/prop7", _prop7_space, _prop7, _n, "1 ≤ b, m ≤ n ≤ 200"),
        HuntSpace("must/remark2", _remark2_space(), _remark2, _n,
                  "every scheme, n ≤ 60"),
    ]
    for claim, scheme in (("must/table2:wr", "wr"), ("must/table2:wor", "wor"),
                          ("must/thm5:ow", "must-ow"), ("must/thm5:wo", "must-wo"),
                          ("must/thm5:ww", "must-ww")):
        out.append(HuntSpace(claim, _group_space(scheme), _group(claim, scheme), _replace_records,
                             f"{scheme}, n ≤ 5, any t and group profile δ_1 ≤ … ≤ δ_m"))
    return {s.claim: s for s in out}


SPACES: dict[str, HuntSpace] = _spaces()


def space_for(claim: str) -> HuntSpace | None:
    return SPACES.get(claim)
