"""Search spaces of the MUST claims (`verifydp hunt`; docs/foundations.md#search).

Group-profile claims draw a small design, t and a whole group profile δ_1 ≤ … ≤ δ_m and judge
the point with the exact orbit LP of `verifydp.claims.must.group`; the formula claims draw
(n, b, m) over ranges far beyond the checker's grid.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from verifydp.claims.base import InstanceResult, Params, SearchSpace, Verdict
from verifydp.claims.must import amplification as pa
from verifydp.claims.must.group import point_result
from verifydp.claims.strategies import group_profiles, t_values
from verifydp.designs.must import eta
from verifydp.worstcase.group import GroupProfileClass

__all__ = ["SPACES"]

_FORMULAS = {"wr": pa.t2_wr, "wor": pa.t2_wor, "must-ow": pa.thm5_ow, "must-wo": pa.thm5_wo,
             "must-ww": pa.thm5_ww}


def _n(p: Params) -> int:
    return int(p["n"])


def _replace_records(p: Params) -> int:  # P = {a^(n−1), x}, P' = {a^(n−1), y}
    return 2 * int(p["n"])


def _group(claim: str, scheme: str) -> Callable[[Params], InstanceResult]:
    def ev(p: Params) -> InstanceResult:
        mc = GroupProfileClass(p["t"], p["deltas"])
        return point_result(claim, scheme, _FORMULAS[scheme], p["n"], p.get("b"), p["m"], mc)
    return ev


def _group_space(scheme: str) -> st.SearchStrategy[Params]:
    def with_b(n: int) -> st.SearchStrategy[Params]:
        if scheme in ("wr", "wor"):
            return st.fixed_dictionaries({"n": st.just(n),
                                          "m": st.integers(1, n if scheme == "wor" else 4)})
        b = st.integers(1, n if scheme == "must-ow" else 4)
        return b.flatmap(lambda b_: st.fixed_dictionaries({
            "n": st.just(n), "b": st.just(b_),
            "m": st.integers(1, b_ if scheme == "must-wo" else 4)}))

    return st.integers(2, 5).flatmap(with_b).flatmap(lambda d: st.fixed_dictionaries({
        **{k: st.just(v) for k, v in d.items()}, "t": t_values(8),
        "deltas": group_profiles(d["m"])}))


def _prop7(p: Params) -> InstanceResult:
    n, b, m = p["n"], p["b"], p["m"]
    ow, wr, wor = pa.eta_ow_frac(n, b, m), pa.eta_wr_frac(n, m), pa.eta_wor_frac(n, m)
    ok = ow <= wr <= wor and (ow == wr) == (b == n)
    return InstanceResult(p, Verdict.HOLDS if ok else Verdict.REFUTED,
                          "η_OW ≤ η_WR ≤ η_WOR, and η_OW = η_WR only when b = n",
                          f"η_OW={ow}, η_WR={wr}, η_WOR={wor}",
                          margin=max(float(ow - wr), float(wr - wor)))


_prop7_space = st.integers(1, 200).flatmap(lambda n: st.fixed_dictionaries({
    "n": st.just(n), "b": st.integers(1, n), "m": st.integers(1, n)}))


def _remark2(p: Params) -> InstanceResult:
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


SPACES: dict[str, SearchSpace] = {
    "must/prop7": SearchSpace(_prop7_space, _prop7, _n, "1 ≤ b, m ≤ n ≤ 200"),
    "must/remark2": SearchSpace(_remark2_space(), _remark2, _n, "every scheme, n ≤ 60"),
    **{claim: SearchSpace(_group_space(scheme), _group(claim, scheme), _replace_records,
                          f"{scheme}, n ≤ 5, any t and group profile δ_1 ≤ … ≤ δ_m")
       for claim, scheme in (("must/table2:wr", "wr"), ("must/table2:wor", "wor"),
                             ("must/thm5:ow", "must-ow"), ("must/thm5:wo", "must-wo"),
                             ("must/thm5:ww:corrected", "must-ww"))},
}
