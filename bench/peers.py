"""Check peer libraries against the engine and write docs/peers.md (issue 8).

    python bench/peers.py [--out docs/peers.md] [--witness-dir counterexamples]

For every installed peer (the optional extra `verifydp[peers]`; a missing one is listed as
such): its numbers on the settings it supports, judged with certified ground truth
(`verifydp.regress.truth`): sound or not, and how tight.  A certified-unsound number gets a
replayable witness in `counterexamples/`.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifydp.casebook import replay  # noqa: E402
from verifydp.claims.bun.amplification import replace_pair  # noqa: E402
from verifydp.designs import SRSWOR  # noqa: E402
from verifydp.population import Relation  # noqa: E402
from verifydp.regress import peers  # noqa: E402
from verifydp.regress.truth import design_worst_ratio, eps_of_ratio  # noqa: E402
from verifydp.witness import write_witness  # noqa: E402

SUPPORT = {  # what each peer supports (from its API), for the table
    "dp-accounting RDP": "Poisson (add/remove), sampling w/o replacement (replace-one); "
                         "Gaussian, Laplace, randomized response events; composition",
    "dp-accounting PLD": "Poisson (add/remove); Gaussian, Laplace, discrete events; composition",
    "opacus RDP (analysis.rdp)": "Poisson-subsampled Gaussian (add/remove); composition",
    "prv-accountant (upper)": "Poisson-subsampled Gaussian (add/remove); pure/approx DP, "
                              "Laplace PRVs; composition",
    "autodp RDP": "Poisson and fixed-size subsampling of RDP mechanisms; composition",
}


def gaussian_rows() -> list[str]:
    rows = []
    for name in peers.GAUSSIAN_PEERS:
        judged, unsound, err = [], [], ""
        start = time.monotonic()
        for sigma, q in peers.GAUSSIAN_SETTINGS:
            for k in peers.COMPOSITIONS:
                try:
                    j = peers.judge_gaussian(name, sigma, q, k)
                except ImportError as exc:
                    err = f"not installed ({exc})"
                    break
                judged.append(j)
                if j.unsound:
                    unsound.append(f"σ={sigma}, q={q}, k={k}: ε={j.eps_peer:.6g}")
            if err:
                break
        if err:
            rows.append(f"| {name} | {SUPPORT[name]} | {err} | | | |")
            continue
        k1 = [j.ratio for j in judged if j.k == 1]
        kn = [j.ratio for j in judged if j.k > 1]
        verdict = "**UNSOUND**: " + "; ".join(unsound) if unsound else \
            f"sound on all {len(judged)} settings"
        rows.append(
            f"| {name} | {SUPPORT[name]} | {verdict} | {max(k1):.4f} | {max(kn):.4f} | "
            f"{time.monotonic() - start:.0f} s |")
    return rows


def generic_rows(witness_dir: Path) -> list[str]:
    rows = []
    t = Fraction(2)
    eps = math.log(2)
    # autodp, Poisson: ε' = log(1 + q(e^ε − 1)) against the engine
    try:
        tight = []
        for q in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
            e, _ = peers.autodp_subsample_epsdelta(eps, 0.0, float(q))
            truth = peers.generic_poisson_truth(q, t)
            tight.append(math.exp(e) / float(truth))
        rows.append("| autodp `subsample_epsdelta` | any (ε, δ)-DP mechanism; Poisson "
                    "(add/remove) | sound, exact: e^ε' / exact worst case = "
                    f"{min(tight):.12f} … {max(tight):.12f} | engine LP, Poisson on add pairs |")
        bad = []
        for n, m in ((3, 2), (10, 3), (6, 4)):
            e, _ = peers.autodp_subsample_epsdelta(eps, 0.0, m / n)
            truth = peers.generic_srs_truth("wr", n, m, t)
            if Fraction(math.exp(e)) < truth:  # floats only select rows; the witness certifies
                bad.append(f"n={n}, m={m}: e^ε' = {math.exp(e):.6g} < {truth} = {float(truth):.6g}")
        w = peers.autodp_wr_witness()
        path = write_witness(w, witness_dir)
        ok = replay(path).confirmed
        rows.append("| autodp `subsample_epsdelta` | its docstring: \"applies to both subsampling "
                    "with replacement and Poisson\" | **UNSOUND for with-replacement sampling** "
                    f"(prob = m/n, ε = log 2): {'; '.join(bad)}. Witness `{path.name}` "
                    f"(replay: {'confirmed' if ok else 'NOT confirmed'}) | engine LP, SRSWR on "
                    "replacement pairs |")
    except ImportError as exc:
        rows.append(f"| autodp `subsample_epsdelta` | | not installed ({exc}) | |")
    try:
        tight = []
        for scale, m, n in ((0.5, 10, 20), (2.0, 3, 7), (0.25, 5, 100)):
            base, amp = peers.opendp_population_amplification(scale, m, n)
            pair = replace_pair(n)
            truth = eps_of_ratio(design_worst_ratio(SRSWOR(m), pair.p, pair.q, Relation.REPLACE,
                                                    Fraction(base)))
            status = "sound" if Fraction(amp) >= truth.lo else "UNSOUND"
            tight.append((status, amp / float(truth.hi)))
        verdict = "sound" if all(s == "sound" for s, _ in tight) else "**UNSOUND**"
        rows.append("| OpenDP `make_population_amplification` | any ε-DP measurement on sized "
                    "data (a simple random sample, replacement = d_in 2) | "
                    f"{verdict}; ε' / exact worst-case ε' = "
                    f"{min(r for _, r in tight):.12f} … {max(r for _, r in tight):.12f} | "
                    "engine LP, SRSWOR on replacement pairs (bun/thm2.2's setting) |")
    except ImportError as exc:
        rows.append(f"| OpenDP `make_population_amplification` | | not installed ({exc}) | |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "peers.md")
    ap.add_argument("--witness-dir", type=Path, default=ROOT / "counterexamples")
    args = ap.parse_args(argv)
    logging.getLogger("absl").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    start = time.monotonic()
    gen = generic_rows(args.witness_dir)
    gauss = gaussian_rows()
    text = "\n".join([
        "# Peers: real libraries against the engine",
        "",
        "Generated by `python bench/peers.py` (the optional extra `verifydp[peers]`). Peers "
        "compute in floats; verifydp's side is certified (exact LP worst cases, rigorous "
        "brackets). Tests: `tests/test_peers_*.py`.",
        "",
        "## Amplifying an arbitrary ε-DP mechanism (ground truth: the exact worst case)",
        "",
        "| peer | supports | verdict | ground truth |",
        "|---|---|---|---|",
        *gen,
        "",
        "## DP-SGD accountants: Poisson-subsampled Gaussian, add/remove, ε at δ = 1e-5",
        "",
        f"Settings (σ, q) ∈ {list(peers.GAUSSIAN_SETTINGS)}, k ∈ {list(peers.COMPOSITIONS)} "
        "compositions. Ground truth: a certified lower bound of the true δ(ε) from the events "
        "{S > τ}, {S < τ} on the sum S of the k outputs (`verifydp.regress.truth`), exact for "
        "k = 1. *Unsound* = the certified lower bound of the true δ at the peer's ε exceeds "
        "1e-5. Tightness = peer's ε / certified lower bound of the true ε(δ): for k = 1 this "
        "is the peer's true overestimate; for k > 1 it also contains the slack of our lower "
        "bound (the sum is not a sufficient statistic), so compare peers with each other there.",
        "",
        "| peer | supports | soundness | max ε/ε_true (k = 1) | max ε/ε_lower (k > 1) | time |",
        "|---|---|---|---:|---:|---:|",
        *gauss,
        "",
        "Notes: a peer's ε whose true δ exceeds 1e-5 only by float rounding (relative < "
        "1e-9; autodp's exact one-step value is 6e-15 over) counts as exact, not unsound. "
        "prv-accountant is run with eps_error = 0.01 (additive), which dominates its ratio at "
        "small ε (σ = 2, q = 0.01). Opacus's RDP analysis and dp-accounting's RDP accountant "
        "implement the same bound (Mironov et al.) and agree.",
        "",
        "Not a finding: dp-accounting's default PLD at q = 0.001, σ = 1, k = 1000 (δ(1) ≈ "
        "2.5e-13, `python bench/accountant.py --finding`) lands below or above the certified "
        "bracket with the FFT length and the numpy build (2.118e-13 below [2.5355e-13, "
        "2.5524e-13] with numpy 2.4.6 and dp-accounting 0.6.0; 2.5560e-13 above on another "
        "install; 2.540930e-13 by an independent computation without discretisation, inside). "
        "At that δ the value is dominated by double-precision FFT round-off, about 3e-13 on its "
        "own composed PMF: the gap (4.2e-14) is 0.12× that scale, a float's error and not a "
        "soundness finding about the method, whose pessimistic PMFs composed exactly lie above "
        "the truth.",
        "",
        "Not measured: dp-accounting's sampling without replacement (its RDP event takes a "
        "Gaussian under replace-one; our Gaussian ground truth is add/remove only); Opacus is "
        "checked through `opacus/accountants/analysis/rdp.py` loaded from its file, because "
        "importing the `opacus` package imports torch (a multi-GB dependency from PyPI); "
        "Opacus's PRV accountant is prv-accountant's method.",
        "",
        f"Run time: {time.monotonic() - start:.0f} s.",
        "",
        "Balls-and-bins (random allocation) against Feldman & Shenfeld's and Chua et al.'s "
        "released code: docs/peers-allocation.md.",
        "",
    ])
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
