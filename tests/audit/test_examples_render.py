"""Every shipped example renders as text, JSON and HTML from one audit (issue 27: `audit
--html` crashed on business_survey_neyman.toml, where ε' = 16 at ε = 4 lay above the plot's
cap, and the JSON was lost with it).

One test per example file: the report is computed once and rendered the three ways the
command line offers (`verifydp audit FILE`, `--json`, `--html`). The verdicts and numbers of
the examples are pinned elsewhere (tests/audit/test_audit.py, test_deployment*.py,
test_fullsize.py); here the question is only whether each renders, leads with the right
answer and keeps JSON's one number shape.

Budget: the suite runs on 2 cores within 10 minutes, and some examples take 10–70 s in full.
Those run on a temporary copy with the file's own knobs turned down — listed in `LIGHTER`
with the reason — which changes the numbers, never the code paths the rendering takes: a
coarser `[composition] rtol`, fewer `steps` (whole epochs for shuffled batches), a shorter
`[audit] eps_grid` (kept above ε = 2 where the full grid reaches a large ε', the case that
crashed), a smaller `instance_size`, a smaller sample `[design] m` where the pair's
construction scales with it.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from verifydp.audit import audit
from verifydp.audit.html import render_html
from verifydp.audit.spec import parse_design, tomllib

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))

# example → (overrides by "section.key", why the example is lightened)
LIGHTER: dict[str, tuple[dict[str, Any], str]] = {
    "deploy_business_pps.toml": (
        {"composition.rtol": 0.5, "audit.eps_grid": [4]},
        "5 s in full (2026-11-27): all 12 releases, a coarser tolerance and one grid ε"),
    "deploy_dpsgd_with_replacement.toml": (
        {"composition.steps": 100, "composition.rtol": 0.5, "audit.eps_grid": [4],
         "design.m": 32},
        "17 s in full (2026-11-27): 10 000 steps of the revealed copy count; 100 here (its "
        "10^4-step bracket: tests/audit/test_deployment_copies_revealed.py, bench), and "
        "batches of 32 (the partly shown count's profile scales with the batch: 6.5 → 4.3 s)"),
    "deploy_register_systematic.toml": (
        {"composition.steps": 2, "composition.rtol": 0.5, "audit.eps_grid": [4],
         "audit.instance_size": 10},
        "15 s in full; still 9 s, most of it the single release's δ'(ε') points"),
    "deploy_household_two_stage.toml": (
        {"composition.steps": 2, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "12 s in full: open-frame cluster pairs with the draw revealed"),
    "deploy_dpsgd_fixed_batch.toml": (
        {"composition.steps": 300, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "11 s in full; at 300 steps ε ∈ [3.898, 3.902] still violates the target ε ≤ 3"),
    "deploy_dpsgd_poisson.toml": (
        {"composition.steps": 100, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "7 s in full"),
    "deploy_dpsgd_shuffle.toml": (
        {"composition.rtol": 0.5, "audit.eps_grid": [4]}, "6 s in full"),
    "deploy_survey_proportional.toml": (
        {"composition.steps": 2, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "6 s in full"),
    "deploy_business_successive_pps.toml": (
        {"composition.steps": 2, "composition.rtol": 0.5, "design.m": 40},
        "6 s in full; the race pair's arrival laws scale with the sample: m = 40 of 400 here "
        "(4.1 → 1.5 s; its bracket at small sizes: tests/audit/test_deployment_successive.py)"),
    "deploy_dpsgd_balls_and_bins.toml": (
        {"composition.steps": 468, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "10 s in full (2026-11-27): 43 epochs; two here, the epoch's certified laws (~5 s) "
        "are the same"),
    "deploy_business_pps_frame.toml": (
        {"composition.steps": 2, "composition.rtol": 0.5, "audit.eps_grid": [4]},
        "5 s in full"),
}


def _lightened(path: Path) -> dict[str, Any]:
    obj = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, value in LIGHTER.get(path.name, ({}, ""))[0].items():
        section, _, field = key.partition(".")
        obj.setdefault(section, {})[field] = value
    return obj


def _numbers(obj: Any) -> list[dict[str, Any]]:
    if isinstance(obj, dict):
        own = [obj] if {"lo", "hi"} <= set(obj) else []
        return own + [n for v in obj.values() for n in _numbers(v)]
    if isinstance(obj, list):
        return [n for v in obj for n in _numbers(v)]
    return []


# the balls-and-bins example shares its worker with its own tests (one set of epoch laws)
@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xdist_group("balls-and-bins"))
    if "balls_and_bins" in p.name else p for p in EXAMPLES], ids=[p.stem for p in EXAMPLES])
def test_example_renders_text_json_and_html(path: Path, tmp_path: Path) -> None:
    """One audit of the example (lightened per `LIGHTER`), rendered three ways."""
    from rich.console import Console

    spec = parse_design(_lightened(path))
    report = audit(spec, witness_dir=tmp_path)
    buf = io.StringIO()
    report.render(Console(file=buf, width=150))
    text = buf.getvalue()
    page = render_html(report)
    obj = json.loads(json.dumps(report.to_json()))
    assert text.startswith(spec.name) and "Traceback" not in text
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", page)
    lines = text.splitlines()
    if report.deployment is not None:  # the deployment's verdict leads, in all three
        assert headings[0].startswith("Deployment verdict:"), headings[0]
        verdict = next(i for i, x in enumerate(lines) if x.startswith("DEPLOYMENT VERDICT:"))
        assert verdict < next(i for i, x in enumerate(lines) if x.startswith("SINGLE RELEASE"))
        assert obj["headline"].startswith(f"{spec.name}: ") and "after" in obj["headline"]
        assert headings[1].startswith("Single release:")
    assert obj["full_size"] is not None and obj["single_release"]["headline"]
    if path.name == "deploy_dpsgd_fixed_batch.toml":  # issue 27: it opened with "amplifies"
        assert "VIOLATED" in headings[0]
        assert "VIOLATED" in " ".join(lines[verdict:verdict + 2])
        assert obj["deployment"]["target"] == "violated"
        # full size first: ε' at the file's N (its target is (ε', δ'), so δ' is solved too)
        fs = obj["full_size"]
        assert fs["quantity"] == "delta" and fs["delta_prime"] is not None
        assert 0.0268950 < fs["eps_prime"]["lo_float"] <= fs["eps_prime"]["hi_float"] < 0.0268951
        assert "at full size (N = 60000): ε' = 0.026895" in obj["single_release"]["headline"]
    for n in _numbers(obj):  # one shape, and decimal strings in one format
        assert set(n) == {"lo", "hi", "lo_float", "hi_float"}, n
        for end in ("lo", "hi"):
            assert "E" not in n[end] and not re.search(r"\.\d*0$", n[end]), n
