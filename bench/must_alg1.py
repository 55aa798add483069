"""Bench for must/alg1: Table 8's printed (δ_c,L, δ_c,U) at ε_c = 2, k = 1000, recomputed as
certified brackets (`claims.must.alg1.table8_cell`, lattice h = 1/40) under both readings of the accountant's σ,
and Algorithm 1 itself at the paper's grid (floats, L = 6, r = 3·10^5; WR 2·10^5).

Run: python bench/must_alg1.py [--fa]   (several minutes; prints one line per cell)
"""

from __future__ import annotations

import sys
import time

from verifydp.claims.must.alg1 import (
    BENCH_H,
    judge_fa_cell,
    law_pair,
    printed_upper,
    table8_cell,
)
from verifydp.claims.must.tables import (
    T8_B,
    T8_C,
    T8_EPS_P,
    T8_M,
    T8_N,
    T8_PRINTED,
    eta_range,
    sigma_bracket,
)


def sigma_m(scheme: str):  # type: ignore[no-untyped-def]
    b = T8_B if scheme.startswith("MUST") else None
    lo, hi = eta_range(scheme, T8_N, b, T8_M)
    return sigma_bracket(T8_C / T8_N, T8_N, T8_EPS_P, lo, hi, factor=T8_M)


def main() -> None:
    for conv in ("sigma*m", "sigma*m/C"):
        for scheme, (_, _, cell) in T8_PRINTED.items():
            if cell == "NA":
                continue
            upper = printed_upper(cell)
            t = time.time()
            br = table8_cell(scheme, sigma_m(scheme), conv, BENCH_H)
            verdict, why = judge_fa_cell(upper, br)
            print(f"{conv:10s} {scheme:8s} printed δ_U = {upper:9s} certified δ(2) ∈ "
                  f"[{float(br.lo):.4g}, {float(br.hi):.4g}]  {verdict.value}: {why} "
                  f"({time.time() - t:.0f} s)", flush=True)
    if "--fa" in sys.argv:
        from fractions import Fraction

        from verifydp.accounting import fourier

        for scheme in ("Poisson", "WOR", "WR", "MUST.OW", "MUST.WW"):
            sm = sigma_m(scheme)
            for conv, scale in (("sigma*m", Fraction(1)), ("sigma*m/C", 1 / T8_C)):
                pair, _ = law_pair(scheme, T8_N, T8_B if scheme.startswith("MUST") else None,
                                   T8_M, sm.lo * scale)
                r = 200_000 if scheme == "WR" else 300_000
                fa = fourier.accountant(fourier.mixture_omega(pair), 2.0, 1000, 6.0, r)
                print(f"Algorithm 1 (floats) {conv:10s} {scheme:8s} (δ_L, δ, δ_U) = "
                      f"({fa.lower:.4g}, {fa.value:.4g}, {fa.upper:.4g})", flush=True)


if __name__ == "__main__":
    main()
