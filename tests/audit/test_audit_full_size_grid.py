"""Full size first over the whole grid (issue 27, "Full size first"): the exact worst case at
the file's own N is the main table and the headline wherever it is computed — at every ε of
the grid and every δ'(ε') point — and a scaled instance appears only where full size is out of
reach, with the reason. JSON carries `full_size.grid` in the report's one bracket shape."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from verifydp.audit import audit, core
from verifydp.audit.html import render_html
from verifydp.audit.instance import FullSize, FullSizeAnswer
from verifydp.audit.report import Report

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
POISSON = {"population": {"size": 1000}, "design": {"kind": "poisson", "q": "1/10"},
           "base": {"epsilon": 1}, "target": {"epsilon": "1/2"}}
# no orbit builder for PPS with the record's own measure: full size is out of reach
PPS = {"population": {"size_classes": [{"measure": 1, "count": 30},
                                       {"measure": 5, "count": 6}]},
       "design": {"kind": "poisson-pps", "expected_size": 4},
       "base": {"epsilon": 1}, "target": {"epsilon": 1}, "audit": {"eps_grid": [2]}}
BRACKET = {"lo", "hi", "lo_float", "hi_float"}


def _text(report: Report) -> str:
    from rich.console import Console

    buf = io.StringIO()
    report.render(Console(file=buf, width=150))
    return buf.getvalue()


def _tables(text: str) -> list[str]:
    """The titles of the text report's tables, in order (the line above each top border)."""
    lines = text.splitlines()
    return [lines[i - 1].strip() for i, x in enumerate(lines) if x.startswith("┏") and i]


@pytest.fixture(scope="module")
def poisson() -> Report:
    return audit(POISSON)


@pytest.fixture(scope="module")
def pps() -> Report:
    return audit(PPS)


def test_pure_base_grid_is_solved_at_full_size(poisson: Report) -> None:
    """One full-size entry per ε of the grid (the base ε among them), none on the scaled
    instance: its only point is the base ε, kept for the witness and the cross-check."""
    fs = poisson.to_json()["full_size"]
    ratios = [g for g in fs["grid"] if g["quantity"] == "ratio"]
    grid = ["0.25", "0.5", "1", "2", "4"]  # ε × {1/4, 1/2, 1, 2, 4}
    assert [g["eps"] for g in ratios] == grid
    for g in ratios:
        assert g["solved"] and g["complete"] and not g["lower_bound_only"]
        assert g["out_of_reach"] is None and g["orbit_points"] > 0 and g["seconds"] >= 0
        for key in ("ratio", "eps_prime", "e_eps"):
            assert set(g[key]) == BRACKET, key
        assert g["effect"] == "amplifies"
    deltas = [g for g in fs["grid"] if g["quantity"] == "delta"]
    assert deltas and all(set(g["delta_prime"]) == BRACKET for g in deltas)
    assert "0.5" in [g["eps_prime_at"] for g in deltas]  # δ' at the target ε'
    # the scaled instance: the base ε only, no grid, no δ' points
    assert poisson.scaled_points() == [] and poisson.scaled_hockey() == []
    assert [p.eps for p in poisson.points] == [Fraction(1)] and poisson.hockey == []
    assert poisson.grid_summary() == \
        "at full size: amplifies at every ε of the grid (0.25 to 4)"


def test_text_report_leads_with_the_full_size_table(poisson: Report) -> None:
    text = _text(poisson)
    titles = _tables(text)
    assert titles[0].startswith("exact worst case over all base mechanisms at full size")
    assert not any("scaled" in t for t in titles)
    head = text.splitlines()[1]
    assert "at full size (N = 1000)" in head and "scaled" not in poisson.headline()
    for eps in ("0.25", "0.5", "2", "4"):
        assert f"ε = {eps} " in text
    # the scaled instance is one line after the tables, saying what it is kept for
    assert "kept for the replayable witness" in text
    page = render_html(poisson)
    assert page.index("at full size (N = 1000)</h3>") < page.index("Scaled instance")


def test_out_of_reach_shows_the_scaled_grid_with_the_reason(pps: Report) -> None:
    """No orbit reduction for PPS with the record's own measure: every full-size point says
    why, and the scaled instance answers the grid under a title naming the reason."""
    fs = pps.to_json()["full_size"]
    assert fs["grid"] and not any(g["solved"] for g in fs["grid"])
    assert all("no orbit reduction" in g["out_of_reach"] for g in fs["grid"])
    assert all(g["ratio"] is None for g in fs["grid"] if g["quantity"] == "ratio")
    assert [p.eps for p in pps.scaled_points()] == [Fraction(1), Fraction(2)]
    text = _text(pps)
    flat = " ".join(text.split())  # a long title wraps over lines
    assert "on a scaled instance, where full size is out of reach (no orbit reduction" in flat
    assert "not solved" in text and "out of reach at every ε" in text
    assert "over the ε grid on a scaled instance" in pps.headline()
    assert "full size not solved: no orbit reduction" in pps.headline()
    page = render_html(pps)
    assert "where full size is out of reach</h3>" in page and "no orbit reduction" in page
    json.dumps(pps.to_json())


def test_scaled_only_where_full_size_is_out_of_reach(monkeypatch: Any) -> None:
    """Full size out of reach at one ε of the grid only (a solver limit there): the scaled
    instance is solved at that ε (and the base ε) alone, and the report says why there."""
    real = core.full_size_answer

    def limited(spec: Any, **kw: Any) -> FullSizeAnswer:
        if spec.base.epsilon == 2 and kw.get("quantity") == "ratio":
            plan = FullSize((), "test", "RegionTooLarge: the test's limit at ε = 2")
            return FullSizeAnswer(plan, "ratio", None, "undetermined", 0.0)
        return real(spec, **kw)

    monkeypatch.setattr(core, "full_size_answer", limited)
    rep = audit({**POISSON, "audit": {"eps_grid": ["1/2", 2]}})
    assert [p.eps for p in rep.points] == [Fraction(1), Fraction(2)]  # base ε, then ε = 2
    assert [p.eps for p in rep.scaled_points()] == [Fraction(2)]
    grid = {g["eps"]: g for g in rep.to_json()["full_size"]["grid"] if g["quantity"] == "ratio"}
    assert grid["2"]["out_of_reach"] == "RegionTooLarge: the test's limit at ε = 2"
    assert grid["0.5"]["solved"] and grid["1"]["solved"]
    head = rep.headline()
    assert "over the ε grid at full size: amplifies at every ε of the grid (0.5 to 1)" in head
    assert "where full size is out of reach on a scaled instance: amplifies at ε = 2" in head
    text = _text(rep)
    assert _tables(text)[0].startswith("exact worst case over all base mechanisms at full size")
    assert "where full size is out of reach (RegionTooLarge: the test's limit" in \
        " ".join(text.split())


def test_human_text_writes_decimals_not_rationals() -> None:
    """Neyman's suggestion printed `r = m/N = 24/241`; δ' rows printed `ε' = 5/744`."""
    rep = audit(EXAMPLES / "business_survey_neyman.toml", grid=False)
    assert rep.suggestion is not None and "r = m/N = 0.0995851" in rep.suggestion.why
    # the nearby design is answered at full size too, and says so
    assert rep.suggestion.at_full_size and "at full size (N = 1205)" in rep.suggestion.text()
    assert rep.to_json()["suggestion"]["full_size"]["complete"]
    text = _text(audit(EXAMPLES / "dpsgd_poisson.toml"))
    rows = [x for x in text.splitlines() if "δ'(ε' = " in x]
    assert rows and not any("/" in x.split("δ'(ε' = ")[1].split(")")[0] for x in rows)
