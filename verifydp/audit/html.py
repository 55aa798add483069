"""The audit report as one self-contained HTML page, plots embedded as base64 PNG (issue 6).

Plots never decide anything: the exact points are drawn from their certified brackets (ε' =
log of the bracket's ends) and the theorem curves from the midpoints of rigorous brackets of the
printed formulas; the page lists the brackets themselves in its tables.
"""

from __future__ import annotations

import base64
import io
import math
from fractions import Fraction
from html import escape
from typing import Any

from verifydp.audit.report import Report

CURVE_POINTS = 24


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _mid(b: Any) -> float:
    return float((b.lo + b.hi) / 2)


def eps_plot(report: Report) -> str:
    """ε' against ε: the exact worst case on the instance, the applicable bounds, y = ε."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = report.spec
    xs_pts = [p.label for p in report.points]
    top = max([*xs_pts, float(spec.base.epsilon) * 2, float(spec.target.epsilon)])
    grid = [top * (i + 1) / CURVE_POINTS for i in range(CURVE_POINTS)]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(grid, grid, ":", color="grey", lw=1, label="ε' = ε (no amplification)")
    for i, b in enumerate(x for x in report.bounds if x.applies and x.expr is not None):
        ys = []
        for e in grid:
            br = b.eps_prime(Fraction(e).limit_denominator(10**6))
            ys.append(_mid(br) if br is not None else math.nan)
        approx = b.delta_prime is not None and b.delta_prime.hi > 0
        what = f"{b.direction} bound, full size" + (", with δ' > 0" if approx else "")
        ax.plot(grid, ys, "-" if b.direction == "upper" else "--", color=f"C{i + 1}",
                label=f"{b.claim} ({what})")
    finite = [p for p in report.points if p.lower is not None]
    if finite:
        lo = [p.eps_prime_lower() for p in finite]
        hi = [p.eps_prime_upper() for p in finite]
        err_hi = [(h - a) if h is not None and math.isfinite(h) else 0 for a, h in zip(lo, hi)]
        ax.errorbar([p.label for p in finite], lo, yerr=[[0] * len(lo), err_hi], fmt="o",
                    color="C0", capsize=3, label="exact worst case (scaled instance)")
    infinite = [p for p in report.points if p.lower is None]
    if infinite:
        ax.plot([p.label for p in infinite], [top * 1.5] * len(infinite), "^", color="C0",
                label="exact: ε' = ∞")
    ax.axhline(float(spec.target.epsilon), color="red", lw=0.8,
               label=f"target ε' = {float(spec.target.epsilon):g}")
    ax.set_xlabel("ε of the base mechanism")
    ax.set_ylabel("ε' of the sampled mechanism")
    ax.set_title(spec.name, fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    out = _png(fig)
    plt.close(fig)
    return out


def delta_plot(report: Report) -> str | None:
    """δ'(ε') of the exact worst case at the base (ε, δ), and the theorems' δ' where stated."""
    if not report.hockey:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    pts = sorted(report.hockey, key=lambda h: h.label)
    ax.plot([h.label for h in pts], [float(h.lower) for h in pts], "o-", color="C0",
            label="exact worst case δ'(ε') (scaled instance, certified lower end)")
    eps = report.spec.base.epsilon
    for i, b in enumerate(x for x in report.bounds if x.applies and x.delta_prime is not None):
        br = b.eps_prime(eps)
        if br is not None:
            ax.plot([float(br.hi)], [float(b.delta_prime.hi)], "s",  # type: ignore[union-attr]
                    color=f"C{i + 1}", label=f"{b.claim}: (ε', δ') at base ε (full size)")
    ax.axvline(float(report.spec.target.epsilon), color="red", lw=0.8, label="target ε'")
    if report.spec.target.delta:
        ax.axhline(float(report.spec.target.delta), color="red", lw=0.8, ls="--",
                   label="target δ'")
    ax.set_xlabel("ε'")
    ax.set_ylabel("δ'(ε')")
    ax.set_title(f"privacy profile at base ε = {float(eps):g}", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    out = _png(fig)
    plt.close(fig)
    return out


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{border:1px solid #ccc;
padding:4px 8px;vertical-align:top}th{background:#eee}.degrades{color:#b00}.amplifies{color:#070}
.neither{color:#a60}.flag{background:#fee;padding:6px;margin:4px 0}img{max-width:100%}"""


def render_html(report: Report) -> str:
    s, v = report.spec, report.verdicts
    eps = s.base.epsilon
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>verifydp audit: "
             f"{escape(s.name)}</title><style>{CSS}</style></head><body>",
             f"<h1>{escape(s.name)}</h1>",
             f"<p>{escape(s.description)}</p>" if s.description else "",
             f"<p>{escape(s.kind)}, N = {s.size}; base {escape(s.base.describe())}; protect "
             f"{escape(s.protect.value)}; target {escape(s.target.describe())}</p>",
             f"<h2 class='{v.effect}'>{escape(report.headline())}</h2>",
             f"<p>Target on the scaled instance: <b>{v.target_instance}</b>; at full size by the "
             f"catalogued theorems: <b>{v.target_full}</b>.</p>",
             "<h2>ε' against ε</h2>",
             f"<img alt='epsilon plot' src='data:image/png;base64,{eps_plot(report)}'>"]
    dplot = delta_plot(report)
    if dplot:
        parts += ["<h2>δ'(ε')</h2>",
                  f"<img alt='delta plot' src='data:image/png;base64,{dplot}'>"]
    rows = []
    for b in report.bounds:
        br = b.eps_prime(eps)
        val = "" if br is None else f"[{float(br.lo):.6g}, {float(br.hi):.6g}]"
        if b.delta_prime is not None and b.applies:
            val += f"; δ' ≤ {float(b.delta_prime.hi):.4g}"
        rows.append([b.claim, b.direction, "yes" if b.applies else "no", val,
                     b.reason + (f" ({b.note})" if b.note else "")])
    parts += ["<h2>Catalogued theorems</h2>",
              _table(["claim", "bound", "applies", "ε' at base ε", "why / why not"], rows)]
    rows = [[f"{p.label:.4g}", p.ratio_text(), p.scenario.label] for p in report.points]
    rows += [[f"δ'(ε' = {h.label:.4g})", f"[{float(h.lower):.6g}, "
              f"{'∞' if h.upper is None else f'{float(h.upper):.6g}'}]", h.scenario.label]
             for h in report.hockey]
    parts += [f"<h2>Exact worst case over all base mechanisms</h2><p>{escape(report.instance.note)}"
              "</p>", _table(["ε", "certified", "worst pair"], rows)]
    pairs = [[sc.label, str(sc.pair.p.to_json()), str(sc.pair.q.to_json()), sc.design.describe()
              + (f" / P': {sc.design_prime.describe()}" if sc.design_prime else "")]
             for sc in report.instance.scenarios]
    parts.append(_table(["pair", "P", "P'", "design on the instance"], pairs))
    for f in report.flags:
        parts.append(f"<div class='flag'><b>Red flag: {escape(f.title)}</b> — {escape(f.why)}</div>")
    if report.suggestion:
        sg = report.suggestion
        extra = (f"; {sg.bound[0].claim} gives ε' ≤ {float(sg.bound[1].hi):.4g}" if sg.bound
                 else "")
        parts.append(f"<h2>Suggestion</h2><p>{escape(sg.why)}: {escape(sg.exact.ratio_text())}"
                     f"{escape(extra)} ({escape(sg.note)})</p>")
    if report.witness_path:
        parts.append(f"<p>Witness of the target's violation: <code>{escape(report.witness_path)}"
                     "</code> (re-verify with <code>verifydp replay</code>).</p>")
    for n in report.notes:
        parts.append(f"<p><i>Note: {escape(n)}</i></p>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
