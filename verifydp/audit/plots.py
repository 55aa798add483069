"""Plots of recomputed figures (matplotlib, headless Agg backend).

Plotting never decides a verdict: each curve is drawn as the band of its certified brackets
(computed by the claim checkers; a line through the band's middle guides the eye where the band
is thinner than the line), and the brackets are written beside the image (CSV).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from verifydp.claims.bun.lemmas import (
    FIG2_EPS,
    FIG2_N,
    FIG2_PLOT_SIGMAS,
    FIG2_PREC,
    Fig2Point,
    fig2_points,
)


def _mid(b) -> float:  # type: ignore[no-untyped-def]
    return float((b.lo + b.hi) / 2)


def write_fig2_csv(points: Sequence[Fig2Point], path: Path) -> Path:
    """The certified brackets behind the plot (exact rational endpoints as decimals)."""
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sigma", "E_tilde_m_lo", "E_tilde_m_hi", "upper_lo", "upper_hi",
                    "lower_lo", "lower_hi", "corrected_upper_lo", "corrected_upper_hi"])
        for p in points:
            w.writerow([
                "inf" if p.sigma is None else p.sigma,
                *(f"{float(x):.15g}" for x in p.mean),
                *(f"{float(x):.15g}" for b in (p.upper, p.lower, p.corrected)
                  for x in (b.lo, b.hi)),
            ])
    return path


def plot_bun_fig2(path: Path | str, points: Sequence[Fig2Point] | None = None) -> Path:
    """Bun et al. Figure 2 recomputed: Theorem 3.1's printed upper and lower bounds against σ
    (truncated Gaussian t on {0..n}, mean n/2, n = 10^4, ε = 0.01), plus the corrected
    (e^{2ε}) upper bound dashed. Also writes the brackets as CSV next to the image."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    all_pts = list(points) if points else fig2_points((*FIG2_PLOT_SIGMAS, None))
    pts = [p for p in all_pts if p.sigma is not None]
    sig = [p.sigma for p in pts]
    eps = float(FIG2_EPS)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for attr, colour, style, lw, label in (
            ("upper", "C0", "-", 3, r"upper bound (Thm 3.1 as printed, $e^{\varepsilon}$)"),
            ("lower", "C1", "-", 1.2, r"lower bound (Thm 3.1 as printed)"),
            ("corrected", "C2", "--", 1.2, r"corrected upper bound ($e^{2\varepsilon}$)")):
        brs = [getattr(p, attr) for p in pts]
        ax.fill_between(sig, [float(b.lo) for b in brs], [float(b.hi) for b in brs],
                        color=colour, alpha=0.3, lw=0)
        ax.plot(sig, [_mid(b) for b in brs], style, color=colour, lw=lw,
                alpha=0.6 if attr == "upper" else 1.0, label=label + " (certified band)")
    ax.axhline(eps, color="grey", lw=0.8, ls=":")
    ax.axhline(eps / 2, color="grey", lw=0.8, ls=":")
    ax.text(sig[0], eps, r" $\varepsilon$ (attained by $\mathcal{M}_{\mathcal{C}}$ with "
            r"$\mathcal{M}$ = #x − #y + geometric noise)", va="top", color="grey", fontsize=8)
    ax.text(sig[0], eps / 2, r" $\varepsilon/2$", va="bottom", color="grey")
    ax.set_xscale("log")
    ax.set_xlabel(r"standard deviation $\sigma$ of $t$")
    ax.set_ylabel(r"$\varepsilon'$")
    ax.set_title(
        rf"Bun et al. Fig. 2 recomputed: $n = {FIG2_N}$, $\varepsilon = {eps}$ "
        f"({FIG2_PREC}-bit interval arithmetic)", fontsize=10)
    ax.legend(fontsize=8, loc="center left")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    write_fig2_csv(all_pts, path.with_suffix(".csv"))
    return path


if __name__ == "__main__":  # python -m verifydp.audit.plots [OUT.png]
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "docs/figures/bun_fig2.png"
    print(plot_bun_fig2(out))
