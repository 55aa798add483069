"""Plots of a deployment audit (issue 16): ε(δ) and ε against steps, brackets drawn as bands.

Plots never decide anything: they draw the certified brackets of `audit.deployment`
(docs/design-files.md#deployment). δ is on a log axis.
"""

from __future__ import annotations

import base64
import io
from html import escape
from pathlib import Path
from typing import Any

from verifydp.audit.deployment import Deployment
from verifydp.exact.numtext import number_text


def _figure() -> tuple[Any, Any]:
    import matplotlib  # plotting is optional at run time: loaded only when a plot is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6, 4))


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def plot_epsilon_delta(dep: Deployment) -> bytes:
    """ε against δ after T releases: at each ε of the grid the certified δ bracket; since
    ε(δ) is non-increasing the true curve lies inside the band between the two ends."""
    fig, ax = _figure()
    pts = [(float(e), float(b.lo), float(b.hi)) for e, b in dep.curve_delta if b.hi > 0]
    if pts:
        eps = [p[0] for p in pts]
        lo = [max(p[1], 1e-300) for p in pts]
        hi = [p[2] for p in pts]
        ax.fill_betweenx(eps, lo, hi, alpha=0.35, label="certified bracket")
        ax.plot(hi, eps, lw=1)
    if dep.quantity == "epsilon":
        ax.errorbar([float(dep.at)], [float((dep.result.lo + dep.result.hi) / 2)],
                    yerr=[[float((dep.result.hi - dep.result.lo) / 2)]] * 2, fmt="o",
                    label=f"target δ = {float(dep.at):g}")
    ax.set_xscale("log")
    ax.set_xlabel("δ")
    ax.set_ylabel("ε")
    ax.set_title(f"ε(δ) after {dep.steps} releases")
    ax.legend()
    return _png(fig)


def plot_steps(dep: Deployment, target: float | None = None) -> bytes:
    """ε (or δ) against the number of releases, certified brackets as a band, and the
    file's target as a horizontal line when it states one (issue 27)."""
    fig, ax = _figure()
    ts = [t for t, _ in dep.curve_steps]
    lo = [float(b.lo) for _, b in dep.curve_steps]
    hi = [float(b.hi) for _, b in dep.curve_steps]
    ax.fill_between(ts, lo, hi, alpha=0.35, label="certified bracket")
    ax.plot(ts, hi, "o-", lw=1, ms=3)
    if dep.accountant is not None and dep.accountant.value is not None:
        ax.plot([dep.accountant.steps], [dep.accountant.value], "rx",
                label=f"{dep.accountant.name}")
    if target is not None:
        ax.axhline(target, color="red", lw=0.8, ls="--",
                   label=f"target {'ε' if dep.quantity == 'epsilon' else 'δ'} = {target:g}")
    ax.set_xscale("log")
    ax.set_xlabel("releases (steps)")
    sym = "ε" if dep.quantity == "epsilon" else "δ"
    other = "δ" if dep.quantity == "epsilon" else "ε"
    if dep.quantity == "delta":
        ax.set_yscale("log")
    ax.set_ylabel(f"{sym} at {other} = {float(dep.at):g}")
    ax.set_title(f"{sym} against releases (certified)")
    ax.legend()
    return _png(fig)


def write_plots(dep: Deployment, out_dir: Path | str, stem: str = "deployment") -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}_epsilon_delta.png", out / f"{stem}_steps.png"]
    paths[0].write_bytes(plot_epsilon_delta(dep))
    paths[1].write_bytes(plot_steps(dep))
    return paths


def html_section(dep: Deployment, target: float | None = None) -> str:
    """The deployment part of the HTML report (numbers, flag, both plots under their own
    headings; the report's first heading states the verdict, issue 27). `target`: the
    file's ε (or δ) target, drawn on the plot against releases."""
    lines = "".join(f"<li>{escape(x)}</li>" for x in dep.lines())
    flag = ""
    if dep.accountant is not None and dep.accountant.understates is not None:
        flag = f"<div class='flag'><b>{escape(dep.accountant.note)}</b></div>"
    sym, other = ("ε", "δ") if dep.quantity == "epsilon" else ("δ", "ε")
    imgs = "".join(
        f"<h3>{escape(title)}</h3>"
        f"<img alt='{alt}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
        for title, alt, png in (
            (f"Deployment: ε against δ after {dep.steps} releases", "epsilon against delta",
             plot_epsilon_delta(dep)),
            (f"Deployment: {sym} at {other} = {number_text(float(dep.at))} against the number "
             f"of releases",
             "against steps", plot_steps(dep, target))))
    return f"{flag}<ul>{lines}</ul>{imgs}"
