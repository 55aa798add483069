"""Audit reports people trust (issue 17): the headline summarises the whole ε grid, a bracket
straddling ε is "undetermined" (never "neither"), brackets too wide to read are inconclusive
with the reason, grid labels are the user's exact numbers, plots draw certified bands with δ
on a log axis, the HTML has real tables and the worst-case mechanism, and every certified
number in --json has one shape."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import pytest

from verifydp.audit import audit
from verifydp.audit.html import delta_figure, eps_figure, render_html
from verifydp.audit.report import (
    ExactPoint,
    FullSizePoint,
    Report,
    bracket_json,
    effect_of,
    exact_text,
    grid_summary,
)
from verifydp.exact.special import brackets_for_eps

POISSON_GRID = {"population": {"size": 1000}, "design": {"kind": "poisson", "q": "1/10"},
                "base": {"epsilon": 1}, "target": {"epsilon": "1/2"},
                "audit": {"eps_grid": [0.25, 0.5, 2]}}
ROUNDED = {"population": {"size": 15}, "design": {"kind": "proportional", "r": "1/10",
                                                  "rounding": "half-up"},
           "base": {"epsilon": 1}, "target": {"epsilon": "1/2", "delta": "1/100"},
           "audit": {"eps_grid": [0.25, 4]}}


def point(eps: Fraction, lower: Fraction | None, upper: Fraction | None) -> ExactPoint:
    t_lo, t_hi = brackets_for_eps(eps)
    return ExactPoint(float(eps), t_lo, t_hi, lower, upper, None, "forward",  # type: ignore[arg-type]
                      None, 0, eps)


def ratio(x: float) -> Fraction:
    return Fraction(math.exp(x)).limit_denominator(10**9)


@pytest.fixture(scope="module")
def poisson() -> Report:
    return audit(POISSON_GRID)


@pytest.fixture(scope="module")
def rounded() -> Report:
    return audit(ROUNDED)


# ---------------------------------------------------------------- verdict words


def test_straddling_bracket_is_undetermined_not_neither() -> None:
    t_lo, t_hi = brackets_for_eps(Fraction(1))
    assert effect_of(t_lo / 2, t_hi * 2, t_lo, t_hi) == "undetermined"
    assert effect_of(t_lo, t_hi * (1 + Fraction(1, 10**6)), t_lo, t_hi) == "undetermined"
    assert effect_of(t_lo, t_hi, t_lo, t_hi) == "neither"  # ε' = ε to the bracket's width
    assert effect_of(t_hi * 2, None, t_lo, t_hi) == "degrades"
    assert effect_of(None, None, t_lo, t_hi) == "degrades"
    assert effect_of(Fraction(1), t_lo / 2, t_lo, t_hi) == "amplifies"


def test_grid_headline_summarises_every_eps() -> None:
    pts = [point(Fraction(e), ratio(0.5 * float(Fraction(e))),
                 ratio(0.5 * float(Fraction(e)) + 1e-6)) for e in ("1/4", "1/2", "1", "2")]
    pts.append(point(Fraction(4), ratio(5), ratio(5 + 1e-6)))
    assert grid_summary(pts) == "amplifies for ε ≤ 2, degrades at ε = 4"
    mid = [pts[0], point(Fraction(1), ratio(0.5), ratio(1.5)), pts[4]]
    assert grid_summary(mid) == "amplifies at ε = 0.25, undetermined at ε = 1, " \
                                "degrades at ε = 4"
    assert grid_summary(pts[:2]) == "amplifies at every ε of the grid (0.25 to 0.5)"


def test_wide_brackets_are_inconclusive_with_the_reason() -> None:
    """Poisson at ε = 8 once printed ε' ∈ [0.010, 4.653] as if it were a value."""
    wide = point(Fraction(8), ratio(0.010), ratio(4.653))
    assert wide.effect == "amplifies" and not wide.precise
    assert "too wide" in wide.why_inconclusive() and "ε = 8" in wide.why_inconclusive()
    narrow = point(Fraction(8), ratio(2.6), ratio(2.6 + 1e-4))
    assert narrow.precise and narrow.why_inconclusive() == ""
    straddle = point(Fraction(1), ratio(0.95), ratio(1.55))
    assert "contains ε" in straddle.why_inconclusive()
    assert "inconclusive at ε = 8" in grid_summary([narrow, wide][1:])


def _ratios(report: Report) -> list[FullSizePoint]:
    return [p for p in report.full_size_points() if p.quantity == "ratio"]


def test_report_headline_and_labels(poisson: Report) -> None:
    """Full size first (issue 27): the exact answer at the file's N leads, and the ε grid is
    solved at full size too; the scaled instance keeps the base ε only (the witness)."""
    assert [p.eps_text for p in _ratios(poisson)] == ["0.25", "0.5", "1", "2"]
    assert [p.eps_text for p in poisson.points] == ["1"] and not poisson.scaled_points()
    head = poisson.headline()
    assert head.startswith("unnamed design: at full size (N = 1000): ε' = 0.158565")
    assert "over the ε grid at full size: amplifies at every ε of the grid (0.25 to 2)" in head
    assert "scaled" not in head
    fs = poisson.to_json()["full_size"]
    assert fs["quantity"] == "ratio" and fs["complete"] and fs["verdict"] == "met"
    assert set(fs["eps_prime"]) == {"lo", "hi", "lo_float", "hi_float"}
    assert abs(fs["eps_prime"]["lo_float"] - 0.1585650787) < 1e-9
    ratios = [g for g in fs["grid"] if g["quantity"] == "ratio"]
    assert [g["eps"] for g in ratios] == ["0.25", "0.5", "1", "2"]  # exact in JSON
    assert [g["verdict"] for g in ratios] == [None, None, "met", None]
    assert all(g["solved"] and g["complete"] and g["effect"] == "amplifies" for g in ratios)
    assert poisson.to_json()["exact"]["scope"] == "scaled instance"
    assert [g["eps"] for g in poisson.to_json()["exact"]["grid"]] == ["1"]
    for p in poisson.points:  # solved at the rigorous bracket of e^ε, not at a nearby t
        lo, hi = brackets_for_eps(p.eps)  # type: ignore[arg-type]
        assert p.t_lo <= lo and hi <= p.t_hi


def test_exact_text_prints_the_users_number() -> None:
    assert [exact_text(Fraction(x)) for x in ("1/4", "1/3", "2", "7/20", "1/1024")] == \
        ["0.25", "1/3", "2", "0.35", "0.0009765625"]


# ---------------------------------------------------------------- JSON numbers


def _numbers(obj: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    out = []
    if isinstance(obj, dict):
        if "lo" in obj or "hi" in obj:
            out.append((path, obj))
        for k, v in obj.items():
            out += _numbers(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _numbers(v, f"{path}[{i}]")
    return out


@pytest.mark.parametrize("which", ["poisson", "rounded"])
def test_json_numbers_have_one_shape(which: str, request: pytest.FixtureRequest) -> None:
    rep: Report = request.getfixturevalue(which)
    obj = rep.to_json()
    nums = _numbers(obj)
    assert len(nums) > 10
    for path, n in nums:
        assert set(n) == {"lo", "hi", "lo_float", "hi_float"}, path
        assert isinstance(n["lo"], str) and isinstance(n["hi"], str), path
        assert isinstance(n["lo_float"], float) and isinstance(n["hi_float"], float), path
    # no bare [lo, hi] pairs left where brackets live
    for p in obj["exact"]["grid"]:
        assert isinstance(p["ratio"], dict) and isinstance(p["eps_prime"], dict)
    for b in obj["theorems"]:
        assert b["eps_prime"] is None or isinstance(b["eps_prime"], dict)


def test_bracket_json_rounds_outward() -> None:
    third = Fraction(10**13 + 1, 3 * 10**13)  # a long denominator: printed as decimals
    out = bracket_json(third, third)
    assert Fraction(out["lo"]) <= third <= Fraction(out["hi"])
    assert Fraction(out["lo"]) < Fraction(out["hi"])
    assert bracket_json(Fraction(1, 4), None) == {"lo": "1/4", "hi": "inf", "lo_float": 0.25,
                                                   "hi_float": math.inf}


def test_eps_prime_json_encloses_the_log(poisson: Report) -> None:
    for p in [*poisson.points, *_ratios(poisson)]:
        e = p.to_json()["eps_prime"]
        assert p.lower is not None and p.upper is not None
        assert Fraction(e["lo"]) <= Fraction(math.log(p.lower)) + Fraction(1, 10**12)
        assert Fraction(e["hi"]) >= Fraction(math.log(p.upper)) - Fraction(1, 10**12)


# ---------------------------------------------------------------- plots and HTML


def test_eps_plot_draws_the_certified_band(poisson: Report) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    fig = eps_figure(poisson)
    ax = fig.axes[0]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)
             and "certified band" in str(c.get_label())]
    assert len(bands) == 1 and "at full size (N = 1000)" in str(bands[0].get_label())
    ys = bands[0].get_paths()[0].vertices[:, 1]
    pts = _ratios(poisson)
    lo = min(math.log(p.lower) for p in pts)  # type: ignore[arg-type]
    hi = max(math.log(p.upper) for p in pts)  # type: ignore[arg-type]
    assert min(ys) == pytest.approx(lo) and max(ys) == pytest.approx(hi)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.25", "0.5", "1", "2"]
    plt.close(fig)


def test_delta_plot_is_log_scale(rounded: Report) -> None:
    import matplotlib.pyplot as plt

    fig = delta_figure(rounded)
    assert fig is not None and fig.axes[0].get_yscale() == "log"
    plt.close(fig)


def test_html_has_real_tables_and_the_mechanism(poisson: Report) -> None:
    html = render_html(poisson)
    assert "{'" not in html and "'value'" not in html  # no raw dict text
    assert "Worst-case base mechanism" in html and "Pr[accept]" in html
    assert html.count("<table>") >= 4
    assert "failed hypothesis" in html
    assert re.search(r"<td>ε = 0\.25</td>", html) and "0.2495" not in html


DEPLOYED = {"population": {"size": 1000}, "design": {"kind": "srswor", "m": 10},
            "base": {"epsilon": 1}, "target": {"epsilon": 2, "delta": "1e-6"},
            "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "sigma": 2},
            "composition": {"steps": 20, "delta": "1e-6"}}


def test_the_python_api_gives_the_deployment_answer_as_the_cli_does(capsys: Any) -> None:
    """`audit()` carries the deployment part (the CLI's JSON and text come from it)."""
    report = audit(DEPLOYED, grid=False)
    dep = report.deployment
    assert dep is not None and dep.steps == 20 and dep.quantity == "epsilon"
    assert 0 < dep.result.lo <= dep.result.hi
    assert report.to_json()["deployment"] == dep.to_json()
    report.render()
    out = capsys.readouterr().out
    # the deployment's verdict leads (issue 27), the single release follows under its heading
    head, _, rest = out.partition("SINGLE RELEASE")
    # the certified bracket itself, not a lattice's digits: ε ≈ 0.679 within 1 %
    shown = re.search(r"DEPLOYMENT VERDICT: ε ∈ \[([0-9.]+), ([0-9.]+)\]", head)
    assert shown and "after 20 releases" in head
    lo, hi = float(shown[1]), float(shown[2])
    assert lo == pytest.approx(float(dep.result.lo), rel=1e-5)
    assert hi == pytest.approx(float(dep.result.hi), rel=1e-5)
    assert 0.67 < lo <= hi < 0.69 and hi - lo < 0.01 * hi
    assert "dominating pair: fixed size m = 10" in head
    assert "single-release target" in rest and "met" not in head
    assert report.headline().startswith(f"unnamed design: ε ∈ [{shown[1]}")
    assert "after 20 releases" in render_html(report)
    assert audit(DEPLOYED, grid=False, deployment=False).deployment is None

