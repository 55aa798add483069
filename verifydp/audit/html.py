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
    Report,
    exact_text,
    full_size_text,
    population_text,
)
from verifydp.exact.numtext import bracket_text, number_text

CURVE_POINTS = 24


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _eps_of(p: ExactPoint) -> float:
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


def eps_figure(report: Report) -> Any:
    """ε' against ε: the exact worst case on the instance as the certified band [lower, upper]
    (with the points' brackets as error bars), the applicable bounds as bands of their rigorous
    brackets, y = ε; the ε ticks are the user's exact values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = report.spec
    pts = sorted(report.points, key=_eps_of)
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
            (", CONTRADICTED on the instance" if bad else "")
        ax.fill_between(grid, los, his, color=f"C{i + 1}", alpha=0.35, lw=0)
        ax.plot(grid, his if b.direction == "upper" else los,
                "-" if b.direction == "upper" else "--", color=f"C{i + 1}",
                label=f"{b.claim} ({what})")
    if pts:
        # the axis reaches every finite end (Neyman's ε' = 16 at ε = 4 lay above the old cap
        # of 1.5 × the grid, which drew an upper end below the lower and crashed matplotlib)
        ends = [math.log(x) for p in pts for x in (p.lower, p.upper) if x is not None and x > 0]
        cap = max([top * 1.5, *(1.1 * e for e in ends)])
        lo = [min(_finite_log(p.lower, cap), cap) for p in pts]
        hi = [max(min(_finite_log(p.upper, cap), cap), a) for p, a in zip(pts, lo)]
        ax.fill_between(xs_pts, lo, hi, color="C0", alpha=0.3, lw=0,
                        label="exact worst case, certified band (scaled instance)")
        # both ends of every bracket, joined: a tight bracket shows as one dot
        ax.errorbar(xs_pts, lo, yerr=[[0] * len(lo), [h - a for a, h in zip(lo, hi)]],
                    fmt="none", ecolor="C0", capsize=3, lw=1.5)
        ax.plot(xs_pts + xs_pts, lo + hi, "o", color="C0", ms=4)
        infinite = [p for p in pts if p.lower is None]
        if infinite:
            ax.plot([_eps_of(p) for p in infinite], [cap] * len(infinite), "^", color="C0",
                    label="exact: ε' = ∞")
        ax.set_xticks(xs_pts, [p.eps_text for p in pts])
    fs = report.full_size
    if fs is not None and fs.quantity == "ratio" and fs.bracket is not None and \
            fs.bracket.lower is not None and fs.bracket.lower > 0 and fs.bracket.upper is not None:
        mid = (math.log(fs.bracket.lower) + math.log(fs.bracket.upper)) / 2
        ax.plot([float(spec.base.epsilon)], [mid], "*", color="black", ms=11, mfc="none",
                zorder=1, label=f"exact at full size (N = {spec.size})")  # hollow: the
        # scaled instance's point at the same ε stays visible under it
    ax.axhline(float(spec.target.epsilon), color="red", lw=0.8,
               label=f"target ε' = {exact_text(spec.target.epsilon)}")
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
    axis, and the theorems' (ε', δ') points where stated."""
    if not report.hockey:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    pts = sorted(report.hockey, key=lambda h: h.label)
    positive = [float(h.lower) for h in pts if h.lower > 0] + \
        [float(h.upper) for h in pts if h.upper]
    floor = min(positive, default=1e-12) / 10  # a zero lower end is drawn at the floor
    xs = [h.label for h in pts]
    lo = [max(float(h.lower), floor) for h in pts]
    hi = [float(h.upper) if h.upper is not None else 1.0 for h in pts]
    ax.fill_between(xs, lo, [max(h, floor) for h in hi], color="C0", alpha=0.3, lw=0,
                    label="exact worst case δ'(ε'), certified band (scaled instance)")
    ax.plot(xs, lo, "o", color="C0", ms=3)
    ax.plot(xs, [max(h, floor) for h in hi], "_", color="C0", ms=8)
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
    ax.set_title(f"privacy profile at base ε = {exact_text(eps)}", fontsize=10)
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
    rows = [[*(str(c) for c in x), exact_text(v) if v.denominator < 10**6 else f"{float(v):.6g}"]
            for x, v in zip(w.region.points, w.values) if v]
    shown = rows[:MECHANISM_ROWS]
    more = (f"<p>… and {len(rows) - len(shown)} more samples (the full table is in "
            "<code>--json</code>, exact.worst_case_mechanism).</p>" if len(rows) > len(shown)
            else "")
    sym = (" Samples are listed up to the symmetry of interchangeable record types "
           "(orbit representatives)." if w.region.classes else "")
    return (f"<h3>Worst-case base mechanism (ε = {escape(m.eps_text)})</h3>"
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
    """The exact worst case at the file's own N: the single release's main answer."""
    fs, s = report.full_size, report.spec
    assert fs is not None
    b = fs.bracket
    at = (f"ε = {exact_text(s.base.epsilon)}" if fs.quantity == "ratio" else
          f"ε' = {exact_text(s.target.epsilon)}")
    value = full_size_text(fs, s).partition(" at ")[0] if b is not None else "not solved"
    how = (f"{b.points} orbit points, {fs.seconds:.1f} s; {fs.plan.note}" if b is not None
           else fs.plan.reach or fs.plan.note)
    rows = [[at, value, fs.verdict, b.worst if b is not None else "—", how]]
    r = report.full_size_ratio
    if r is not None and r.bracket is not None:
        rows.insert(0, [f"ε = {exact_text(s.base.epsilon)}",
                        full_size_text(r, s).partition(" at ")[0], "—", r.bracket.worst,
                        f"{r.bracket.points} orbit points, {r.seconds:.1f} s"])
    return (f"<h3>Exact worst case over all base mechanisms at full size (N = {s.size})</h3>"
            + _table(["at", "certified", "single-release target", "worst pair", "how"], rows))


def render_html(report: Report) -> str:
    """The page answers the file's question first: with a deployment, its verdict is the
    first heading and the single release follows under its own heading (issue 27)."""
    s, v = report.spec, report.verdicts
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
    parts += [f"<h3 class='{v.effect}'>{escape(report.single_release_headline())}</h3>",
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
    rows = [[p.eps_text, p.ratio_text(), p.effect, p.scenario.label] for p in report.points]
    rows += [[f"δ' at ε' = {number_text(h.label)}", bracket_text(h.lower, h.upper), "",
              h.scenario.label] for h in report.hockey]
    parts += [f"<h3>The ε grid on a scaled instance</h3><p>{escape(report.instance.note)}"
              "</p>", _table(["ε", "certified", "effect", "worst pair"], rows)]
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
        extra = (f"; {sg.bound[0].claim} gives ε' ≤ {float(sg.bound[1].hi):.4g}" if sg.bound
                 else "")
        parts.append(f"<h3>Suggestion</h3><p>{escape(sg.why)}: {escape(sg.exact.ratio_text())}"
                     f"{escape(extra)} ({escape(sg.note)})</p>")
    if report.witness_path:
        parts.append(f"<p>Witness of the single-release target's violation: <code>{escape(report.witness_path)}"
                     "</code> (re-verify with <code>verifydp replay</code>).</p>")
    for n in report.notes:
        parts.append(f"<p><i>Note: {escape(n)}</i></p>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
