"""The audit report as one self-contained HTML page, plots embedded as base64 PNG (issues 6
and 17).

Plots never decide anything: the exact points are drawn as the band of their certified brackets
(ε' = log of the bracket's ends), the theorem curves as bands of rigorous brackets of the
printed formulas, δ' on a log axis; the page lists the brackets themselves in real tables,
the populations in words, and the worst-case base mechanism as its acceptance table.
"""

from __future__ import annotations

import base64
import io
import math
from fractions import Fraction
from html import escape
from typing import Any

from verifydp.audit.deployment_plots import html_section
from verifydp.audit.report import (
    ExactPoint,
    FullSizePoint,
    Report,
    decimal_text,
    population_text,
)
from verifydp.exact.numtext import bracket_text, number_text

CURVE_POINTS = 24


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _eps_of(p: ExactPoint | FullSizePoint) -> float:
    return float(p.eps) if p.eps is not None else p.label


def _finite_log(x: Fraction | None, cap: float) -> float:
    return cap if x is None else math.log(x) if x > 0 else 0.0


def eps_plot(report: Report) -> str:
    """The ε' against ε figure as a base64 PNG."""
    import matplotlib.pyplot as plt

    fig = eps_figure(report)
    out = _png(fig)
    plt.close(fig)
    return out


def _ratio_band(ax: Any, pts: list[Any], cap: float, colour: str, label: str) -> None:
    """Certified brackets of ε' as a band, both ends of every bracket marked; ε' = ∞ as a
    triangle at the cap, a lower bound only (full size, some neighbour unbounded) as an
    upward triangle at its lower end."""
    xs = [_eps_of(p) for p in pts]
    lo = [min(_finite_log(p.lower, cap), cap) for p in pts]
    partial = [not getattr(p, "complete", True) and p.lower is not None for p in pts]
    hi = [a if part else max(min(_finite_log(p.upper, cap), cap), a)
          for p, a, part in zip(pts, lo, partial, strict=True)]
    ax.fill_between(xs, lo, hi, color=colour, alpha=0.3, lw=0, label=label)
    # both ends of every bracket, joined: a tight bracket shows as one dot
    ax.errorbar(xs, lo, yerr=[[0] * len(lo), [h - a for a, h in zip(lo, hi, strict=True)]],
                fmt="none", ecolor=colour, capsize=3, lw=1.5)
    ax.plot(xs + xs, lo + hi, "o", color=colour, ms=4)
    infinite = [x for p, x in zip(pts, xs, strict=True) if p.lower is None]
    if infinite:
        ax.plot(infinite, [cap] * len(infinite), "^", color=colour, label="exact: ε' = ∞")
    below = [(x, a) for x, a, part in zip(xs, lo, partial, strict=True) if part]
    if below:
        ax.plot([x for x, _ in below], [a for _, a in below], "^", color=colour, ms=8,
                mfc="none", label="a lower bound only (ε' ≥)")


def eps_figure(report: Report) -> Any:
    """ε' against ε: the exact worst case at full size (N of the file) as the certified band
    [lower, upper], and on the scaled instance only at the ε where full size is out of reach
    (each band says which), with the points' brackets as error bars; the applicable bounds as
    bands of their rigorous brackets, y = ε; the ε ticks are the user's exact values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = report.spec
    full = sorted((p for p in report.full_size_points() if p.quantity == "ratio" and p.solved),
                  key=_eps_of)
    scaled = sorted(report.scaled_points(), key=_eps_of)
    pts: list[Any] = sorted([*full, *scaled], key=_eps_of)
    xs_pts = [_eps_of(p) for p in pts]
    top = max([*xs_pts, float(spec.base.epsilon) * 2, float(spec.target.epsilon)])
    grid = [top * (i + 1) / CURVE_POINTS for i in range(CURVE_POINTS)]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(grid, grid, ":", color="grey", lw=1, label="ε' = ε (no amplification)")
    for i, b in enumerate(x for x in report.bounds if x.applies and x.expr is not None):
        los, his = [], []
        for e in grid:
            br = b.eps_prime(Fraction(e).limit_denominator(10**6))
            los.append(float(br.lo) if br is not None else math.nan)
            his.append(float(br.hi) if br is not None else math.nan)
        approx = b.delta_prime is not None and b.delta_prime.hi > 0
        bad = any(c.claim == b.claim for c in report.contradictions)
        what = f"{b.direction} bound, full size" + (", with δ' > 0" if approx else "") + \
            (", CONTRADICTED by an exact worst case" if bad else "")
        ax.fill_between(grid, los, his, color=f"C{i + 1}", alpha=0.35, lw=0)
        ax.plot(grid, his if b.direction == "upper" else los,
                "-" if b.direction == "upper" else "--", color=f"C{i + 1}",
                label=f"{b.claim} ({what})")
    if pts:
        # the axis reaches every finite end (Neyman's ε' = 16 at ε = 4 lay above the old cap
        # of 1.5 × the grid, which drew an upper end below the lower and crashed matplotlib)
        ends = [math.log(x) for p in pts for x in (p.lower, p.upper) if x is not None and x > 0]
        cap = max([top * 1.5, *(1.1 * e for e in ends)])
        if full:
            _ratio_band(ax, full, cap, "C0", f"exact worst case at full size (N = "
                                             f"{spec.size}), certified band")
        if scaled:
            _ratio_band(ax, scaled, cap, "C7", "exact worst case on a scaled instance (full "
                                               "size out of reach there), certified band")
        ax.set_xticks(xs_pts, [p.eps_text for p in pts])
    ax.axhline(float(spec.target.epsilon), color="red", lw=0.8,
               label=f"target ε' = {decimal_text(spec.target.epsilon)}")
    ax.set_xlabel("ε of the base mechanism")
    ax.set_ylabel("ε' of the sampled mechanism")
    ax.set_title(spec.name, fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def delta_plot(report: Report) -> str | None:
    """The δ'(ε') figure as a base64 PNG (None without δ' points)."""
    import matplotlib.pyplot as plt

    fig = delta_figure(report)
    if fig is None:
        return None
    out = _png(fig)
    plt.close(fig)
    return out


def delta_figure(report: Report) -> Any:
    """δ'(ε') of the exact worst case at the base (ε, δ) as its certified band, on a log δ
    axis — at full size where it is solved, on the scaled instance where it is out of reach
    (each band says which) — and the theorems' (ε', δ') points where stated."""
    full = sorted((p for p in report.full_size_points() if p.quantity == "delta" and p.solved),
                  key=lambda p: p.label)
    scaled = sorted(report.scaled_hockey(), key=lambda h: h.label)
    if not full and not scaled:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    both: list[Any] = [*full, *scaled]
    positive = [float(h.lower) for h in both if h.lower] + \
        [float(h.upper) for h in both if h.upper]
    floor = min(positive, default=1e-12) / 10  # a zero lower end is drawn at the floor
    for pts, colour, label in (
            (full, "C0", f"exact worst case δ'(ε') at full size (N = {report.spec.size}), "
                         "certified band"),
            (scaled, "C7", "exact worst case δ'(ε') on a scaled instance (full size out of "
                           "reach there), certified band")):
        if not pts:
            continue
        xs = [h.label for h in pts]
        lo = [max(float(h.lower or 0), floor) for h in pts]
        hi = [max(float(h.upper), floor) if h.upper is not None else 1.0 for h in pts]
        ax.fill_between(xs, lo, hi, color=colour, alpha=0.3, lw=0, label=label)
        ax.plot(xs, lo, "o", color=colour, ms=3)
        ax.plot(xs, hi, "_", color=colour, ms=8)
    eps = report.spec.base.epsilon
    for i, b in enumerate(x for x in report.bounds if x.applies and x.delta_prime is not None):
        br = b.eps_prime(eps)
        dp = b.delta_prime
        if br is not None and dp is not None:
            ax.plot([float(br.hi)], [max(float(dp.hi), floor)], "s", color=f"C{i + 1}",
                    label=f"{b.claim}: (ε', δ') at base ε (full size)")
    ax.axvline(float(report.spec.target.epsilon), color="red", lw=0.8, label="target ε'")
    if report.spec.target.delta:
        ax.axhline(float(report.spec.target.delta), color="red", lw=0.8, ls="--",
                   label="target δ'")
    ax.set_yscale("log")
    ax.set_xlabel("ε'")
    ax.set_ylabel("δ'(ε') (log scale)")
    ax.set_title(f"privacy profile at base ε = {decimal_text(eps)}", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{border:1px solid #ccc;
padding:4px 8px;vertical-align:top}th{background:#eee}.degrades{color:#b00}.amplifies{color:#070}
.neither{color:#a60}.flag{background:#fee;padding:6px;margin:4px 0}img{max-width:100%}"""


MECHANISM_ROWS = 40  # rows of the worst-case mechanism's acceptance table shown in the page


def _interval(lo: Fraction | None, hi: Fraction | None) -> str:
    def one(x: Fraction | None, up: bool) -> str:
        return ("∞" if up else "0") if x is None else f"{float(x):.6g}"

    return one(lo, False) if lo == hi else f"[{one(lo, False)}, {one(hi, True)}]"


def mechanism_table(report: Report) -> str:
    """The worst-case base mechanism at the base ε as a table: the probability that it
    accepts, for each sample (counts of each record type), where it accepts at all."""
    m = report.main
    if m is None or m.witness is None or m.lower is None:
        return ""
    w, sc = m.witness, m.scenario
    names = [rt.value + (f" ({rt.stratum})" if rt.stratum else "")
             + (f" ({rt.cluster})" if rt.cluster else "") for rt in sc.pair.universe]
    rows = [[*(str(c) for c in x), decimal_text(v)]
            for x, v in zip(w.region.points, w.values) if v]
    shown = rows[:MECHANISM_ROWS]
    more = (f"<p>… and {len(rows) - len(shown)} more samples (the full table is in "
            "<code>--json</code>, exact.worst_case_mechanism).</p>" if len(rows) > len(shown)
            else "")
    sym = (" Samples are listed up to the symmetry of interchangeable record types "
           "(orbit representatives)." if w.region.classes else "")
    return (f"<h3>Worst-case base mechanism on the scaled instance (ε = {escape(m.eps_text)})"
            "</h3>"
            f"<p>A binary mechanism, exactly e^ε-DP on every {escape(sc.pair.relation.value)} "
            f"edge of the samples' region, attaining the certified lower bound: it accepts "
            f"with Pr = {escape(_interval(w.pr_p, w.pr_p))} on the samples of P and "
            f"{escape(_interval(w.pr_q, w.pr_q))} on those of P' ({escape(m.direction)} "
            f"direction, pair: {escape(sc.label)}); it accepts no sample not listed.{sym}</p>"
            + _table([*(f"# {n}" for n in names), "Pr[accept]"], shown) + more)


def _verdict_class(target: str) -> str:
    return {"violated": "degrades", "met": "amplifies"}.get(target, "neither")


def _deployment_target(report: Report) -> float | None:
    """The deployment's own target (ε, or δ), when the file states one it is compared with."""
    dep = report.deployment
    if dep is None or dep.target == "not compared":
        return None
    t = report.spec.target
    return float(t.epsilon if dep.quantity == "epsilon" else t.delta)


def _full_size_table(report: Report) -> str:
    """The exact worst case at the file's own N: the single release's main table (the ε grid
    and δ'(ε') where they were solved; out of reach, the reason)."""
    caption = report.full_size_caption()
    return (f"<h3>Exact worst case over all base mechanisms at full size "
            f"(N = {report.spec.size})</h3>"
            + _table(["at", "certified", "effect", "single-release target", "worst pair",
                      "how"], report.full_size_rows())
            + (f"<p>{escape(caption)}</p>" if caption else ""))


def _scaled_section(report: Report) -> str:
    """The scaled instance: a table only where full size is out of reach (with the reason),
    else one line saying what it is kept for."""
    rows = report.scaled_rows()
    if not rows:
        return f"<h3>Scaled instance</h3><p>{escape(report.scaled_line())}</p>"
    return (f"<h3>On a scaled instance, where full size is out of reach</h3>"
            f"<p>Full size is out of reach there: {escape(report.out_of_reach())}. The "
            f"instance: {escape(report.instance.note)}</p>"
            + _table(["at", "certified (scaled instance)", "effect", "worst pair"], rows))


def render_html(report: Report) -> str:
    """The page answers the file's question first: with a deployment, its verdict is the
    first heading and the single release follows under its own heading (issue 27)."""
    s = report.spec
    eps = s.base.epsilon
    dep = report.deployment
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>verifydp audit: "
             f"{escape(s.name)}</title><style>{CSS}</style></head><body>",
             f"<h1>{escape(s.name)}</h1>",
             f"<p>{escape(s.description)}</p>" if s.description else "",
             f"<p>{escape(s.kind)}, N = {s.size}; protect {escape(s.protect.value)}</p>"]
    if dep is not None:
        target = _deployment_target(report)
        parts += [f"<h2 class='{_verdict_class(dep.target)}'>Deployment verdict: "
                  f"{escape(report.deployment_verdict())}</h2>",
                  html_section(dep, target),
                  f"<h2>Single release: {escape(report.single_release_question())}</h2>"]
    parts += [f"<h3 class='{report.effect()}'>{escape(report.single_release_headline())}</h3>",
              f"<p>{escape(report.single_release_target())}.</p>"]
    if report.full_size is not None:
        parts.append(_full_size_table(report))
    for c in report.contradictions:
        parts.append(f"<div class='flag'><b>{escape(c.text())}</b></div>")
    for why in report.undetermined():
        parts.append(f"<p class='neither'>Inconclusive: {escape(why)}</p>")
    parts += ["<h3>ε' against ε (one release)</h3>",
              f"<img alt='epsilon plot' src='data:image/png;base64,{eps_plot(report)}'>"]
    dplot = delta_plot(report)
    if dplot:
        parts += ["<h3>δ'(ε') (one release)</h3>",
                  f"<img alt='delta plot' src='data:image/png;base64,{dplot}'>"]
    rows = []
    for b in report.bounds:
        br = b.eps_prime(eps)
        val = "" if br is None else bracket_text(br.lo, br.hi)
        if b.delta_prime is not None and b.applies:
            val += f"; δ' ≤ {number_text(float(b.delta_prime.hi), 4)}"
        failed = b.failed
        rows.append([b.claim, b.direction, "yes" if b.applies else "no", val,
                     failed.hypothesis if failed else "",
                     b.reason + (f" ({b.note})" if b.note else "")])
    parts += ["<h3>Catalogued theorems</h3>",
              _table(["claim", "bound", "applies", "ε' at base ε", "failed hypothesis",
                      "why / why not"], rows)]
    parts.append(_scaled_section(report))
    pairs = [[sc.label, population_text(sc.pair.p), population_text(sc.pair.q),
              sc.design.describe() + (f" / P': {sc.design_prime.describe()}"
                                      if sc.design_prime else "")]
             for sc in report.instance.scenarios]
    parts.append(_table(["pair", "P", "P'", "design on the instance"], pairs))
    parts.append(mechanism_table(report))
    for f in report.flags:
        parts.append(f"<div class='flag'><b>Red flag: {escape(f.title)}</b> — {escape(f.why)}</div>")
    if report.suggestion:
        sg = report.suggestion
        parts.append(f"<h3>Suggestion</h3><p>{escape(sg.text())}</p>")
    if report.witness_path:
        parts.append(f"<p>Witness of the single-release target's violation: <code>{escape(report.witness_path)}"
                     "</code> (re-verify with <code>verifydp replay</code>).</p>")
    for n in report.notes:
        parts.append(f"<p><i>Note: {escape(n)}</i></p>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
