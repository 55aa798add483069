#!/usr/bin/env python
"""Reduced-size reproduction of the simulations of Hu, Drechsler, Kim (paper key `hu`).

Usage:  python bench/hu.py [--T 200] [--seed 1] [--skip-mse] [--json]

Not run by the tests.  Floats throughout: nothing here decides a verdict (hu/median reports
the simulation numbers as INCONCLUSIVE); this shows what the described designs give.

The three populations, as far as the paper specifies them (N = 10,001 each):

  beta      §2.4: Beta(2, 10), range R = 1.                          seed: not given
  lognormal §4.3: Lognormal(μ = 5, σ = 0.5).                          seed: not given
  mixture   §4.4, App. B: c(rbeta(5001, 2, 10)/2, rbeta(5000, 2, 10) + 1), min-max scaled
            to [0, 1]; set.seed(123) in R.

Unspecified, and chosen here: the RNG (numpy's PCG64, not R's Mersenne-Twister, so
set.seed(123) cannot be replayed); the data range Λ used by the smooth sensitivity for the
log-normal population (not bounded; Λ = the population maximum here, which the paper's "R is
a known bound, not data-specific" forbids but gives nothing else); the convention for y_i
with i ∉ 1..N in eq. (4) (Nissim et al.'s: 0 below, Λ above); how the sample's sensitivity
is bounded (the same Λ).  δ = 1/(2N), ε_n and δ_n from the §3 inverse; samples are SRSWOR
of n = rate·(N − 1) + 1 (n = 1001, 101 for the rates 0.1, 0.01, as printed).

Printed values it compares with (Fig. 6, log-normal): median sample/population smooth-
sensitivity ratio 1.28 (n = 1001) and 3.72 (n = 101) at ε = 0.1; 4.24 and 23.30 at ε = 1.
Mixture median 0.21 (Fig. 9).  Table 1: gains for ε ≤ 0.1 (log-normal), ε ≤ 3 (mixture).

Also (Fig. 5): where float64 evaluation of r(ε, n/N) reaches 1 at n/N = 10⁻⁴, although the
exact r is < 1 for every ε (hu/mean).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import sympy

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout even without an install
    sys.path.insert(0, str(REPO))

from verifydp.accuracy import smooth  # noqa: E402

N = 10001
DELTA = 1 / (2 * N)
PRINTED_RATIOS = {(0.1, 1001): 1.28, (0.1, 101): 3.72, (1.0, 1001): 4.24, (1.0, 101): 23.30}


def populations(rng: np.random.Generator) -> dict[str, tuple[np.ndarray, float]]:
    """name → (sorted values, range upper end Λ); all lower ends are 0."""
    beta = np.sort(rng.beta(2, 10, N))
    logn = np.sort(rng.lognormal(5, 0.5, N))
    raw = np.concatenate([rng.beta(2, 10, (N + 1) // 2) / 2, rng.beta(2, 10, (N - 1) // 2) + 1])
    mix = np.sort((raw - raw.min()) / (raw.max() - raw.min()))
    return {"beta": (beta, 1.0), "lognormal": (logn, float(logn[-1])), "mixture": (mix, 1.0)}


def amplified(eps: float, rate: float) -> tuple[float, float]:
    """(ε_n, δ_n) = (log(1 + (N/n)(e^ε − 1)), (N/n)δ), the §3 inverse."""
    return math.log1p(math.expm1(eps) / rate), DELTA / rate


def smooth_sensitivity(ys: np.ndarray, top: float, eps: float, delta: float) -> float:
    """Eq. (4) on sorted data, Nissim's boundary convention, stopping once e^{−kβ}Λ cannot
    beat the running maximum."""
    size = len(ys)
    beta = eps / (2 * math.log(2 / delta))
    pad = np.concatenate([np.zeros(size + 2), ys, np.full(size + 2, top)])
    off, mid = size + 2 - 1, (size + 1) // 2  # pad[off + i] = y_i (1-based)
    best = 0.0
    for k in range(size + 1):
        weight = math.exp(-k * beta)
        if weight * top <= best:
            break
        hi = pad[off + mid: off + mid + k + 2]
        lo = pad[off + mid - k - 1: off + mid + 1]
        best = max(best, weight * float(np.max(hi - lo)))
    return best


def _self_check(rng: np.random.Generator) -> None:
    """The float eq. (4) here against the exact profile of verifydp.accuracy.smooth."""
    for _ in range(50):
        ys = np.sort(rng.integers(0, 9, 7))
        prof = smooth.printed_profile(tuple(int(y) for y in ys), 8)
        exact = smooth.smooth_sensitivity(prof, smooth.beta(sympy.Rational(3, 10),
                                                            sympy.Rational(1, 100)))
        got = smooth_sensitivity(ys.astype(float), 8.0, 0.3, 0.01)
        assert float(exact.lo) - 1e-12 <= got <= float(exact.hi) + 1e-12


def ratio_study(pop: np.ndarray, top: float, rng: np.random.Generator, trials: int
                ) -> dict[str, float]:
    """Figs. 6/10 and 7/12: median S_n/S_N and noise variances, ε ∈ {0.1, 0.5, 1}."""
    out = {}
    for eps in (0.1, 0.5, 1.0):
        s_pop = smooth_sensitivity(pop, top, eps, DELTA)
        out[f"eps={eps} population noise var"] = 2 * (2 * s_pop / eps) ** 2
        for n in (1001, 101):
            e_n, d_n = amplified(eps, n / N)
            ratios, noise = [], []
            for _ in range(trials):
                sample = np.sort(rng.choice(pop, n, replace=False))
                s = smooth_sensitivity(sample, top, e_n, d_n)
                ratios.append(s / s_pop)
                noise.append(2 * (2 * s / e_n) ** 2)
            out[f"eps={eps} n={n} eps_n"] = e_n
            out[f"eps={eps} n={n} median S_n/S_N"] = float(np.median(ratios))
            out[f"eps={eps} n={n} mean noise var"] = float(np.mean(noise))
    return out


def mse_study(pop: np.ndarray, top: float, rng: np.random.Generator, trials: int
              ) -> dict[str, float]:
    """Figs. 8/13: log MSE of the privatized median vs the sampling rate."""
    m_pop = float(pop[(N - 1) // 2])
    out = {}
    for eps in (0.01, 0.1, 0.5, 1.0, 3.0, 5.0):
        s_pop = smooth_sensitivity(pop, top, eps, DELTA)
        out[f"eps={eps} rate=1 (population: exact E noise²)"] = math.log(2 * (2 * s_pop / eps) ** 2)
        for rate in (0.01, 0.1, 0.3, 0.5, 0.7, 0.9):
            n = int(round(rate * (N - 1))) + 1
            e_n, d_n = amplified(eps, n / N)
            errs = []
            for _ in range(trials):
                sample = np.sort(rng.choice(pop, n, replace=False))
                s = smooth_sensitivity(sample, top, e_n, d_n)
                noisy = sample[(n - 1) // 2] + rng.laplace(0, 2 * s / e_n)
                errs.append((noisy - m_pop) ** 2)
            out[f"eps={eps} rate={rate}"] = math.log(float(np.mean(errs)))
    return out


def seed_spread(seeds: int, trials: int) -> dict[str, list[float]]:
    """Fig. 6's four printed medians and the mixture median across population draws: how
    far one population draw moves them (the paper's own draw is not reproducible)."""
    out: dict[str, list[float]] = {"mixture median": []}
    for seed in range(seeds):
        rng = np.random.default_rng(1000 + seed)
        pops = populations(rng)
        out["mixture median"].append(float(pops["mixture"][0][(N - 1) // 2]))
        pop, top = pops["lognormal"]
        for eps, n in PRINTED_RATIOS:
            s_pop = smooth_sensitivity(pop, top, eps, DELTA)
            e_n, d_n = amplified(eps, n / N)
            ratios = [smooth_sensitivity(np.sort(rng.choice(pop, n, replace=False)), top, e_n,
                                         d_n) / s_pop for _ in range(trials)]
            out.setdefault(f"eps={eps} n={n}", []).append(float(np.median(ratios)))
    return out


def fig5_float(rate: float = 1e-4) -> list[tuple[float, float]]:
    """(log ε, float64 r) where naive float evaluation gives r ≥ 1 (exact r < 1 always)."""
    hits = []
    for le in np.arange(-30.0, -15.0, 0.25):
        e = math.exp(le)
        r = (rate * math.log(1 + (math.exp(e) - 1) / rate) / e) ** 2
        if r >= 1:
            hits.append((float(le), r))
    return hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=200, help="simulation runs (paper: 1000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-mse", action="store_true")
    ap.add_argument("--pop-seeds", type=int, default=0,
                    help="also redraw the populations this many times (spread of Fig. 6)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    _self_check(rng)
    pops = populations(rng)
    report: dict[str, object] = {
        "mixture median (printed 0.21)": float(pops["mixture"][0][(N - 1) // 2]),
        "fig5 float64 r >= 1 at (log eps, r)": fig5_float(),
    }
    for name in ("lognormal", "mixture"):
        pop, top = pops[name]
        report[f"{name} ratios"] = ratio_study(pop, top, rng, args.T)
        if not args.skip_mse:
            report[f"{name} log MSE"] = mse_study(pop, top, rng, args.T)
    if args.pop_seeds:
        report["spread over population draws"] = {
            k: f"{min(v):.3g} .. {max(v):.3g}" for k, v in
            seed_spread(args.pop_seeds, args.T).items()}
    report["printed lognormal median ratios"] = {
        f"eps={e} n={n}": v for (e, n), v in PRINTED_RATIOS.items()}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, val in report.items():
            if isinstance(val, dict):
                print(key)
                for k, v in val.items():
                    print(f"  {k:40s} {v if isinstance(v, str) else f'{v:.4g}'}")
            else:
                print(f"{key}: {val}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
