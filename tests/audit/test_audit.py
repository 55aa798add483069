"""`verifydp audit` (issue 6): the examples' verdicts, the witnesses they write, the catalogued
bounds they use, and the CLI harness (the lead wires `register`/`run` into verifydp/cli/main.py)."""

from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction
from pathlib import Path

import pytest

from verifydp.audit import audit, load_design, parse_design
from verifydp.audit.report import Report
from verifydp.casebook import replay
from verifydp.cli.audit import register, run
from verifydp.cli.main import UsageError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# file → (effect on the scaled instance, target on the instance, target at full size,
#         red flags, suggested design kind or None)
EXPECTED = {
    "business_survey_proportional_rounded": (
        "neither", "violated", "violated", {"data-dependent-allocation", "deterministic-rounding"},
        "stratified-proportional"),
    "business_survey_proportional_randomised": (
        "amplifies", "met", "met", {"data-dependent-allocation"}, None),
    "business_survey_neyman": (
        "degrades", "violated", "violated", {"data-dependent-allocation", "deterministic-rounding"},
        "stratified-proportional"),
    # a record added as a new cluster (the open frame) violates the target on the instance
    # and at full size alike
    "household_two_stage": ("amplifies", "violated", "violated", {"large-clusters"}, None),
    "dpsgd_poisson": ("amplifies", "met", "met", set(), None),  # must/table2:poisson, R R
    "dpsgd_fixed_batch": ("amplifies", "violated", "violated", set(), "poisson"),
    "dpsgd_with_replacement": (
        "amplifies", "violated", "violated", {"with-replacement-copies"}, "poisson"),
    "must_bootstrap": ("degrades", "violated", "violated", {"with-replacement-copies"},
                       "srswor"),
}

_CACHE: dict[str, tuple[Report, float]] = {}


def audited(name: str, tmp: Path | None = None) -> tuple[Report, float]:
    if name not in _CACHE:
        start = time.monotonic()
        rep = audit(EXAMPLES / f"{name}.toml", witness_dir=tmp, grid=False)
        _CACHE[name] = (rep, time.monotonic() - start)
    return _CACHE[name]


def test_every_example_has_an_expectation() -> None:
    # deploy_* examples (issue 16's deployments) are pinned by the deployment tests
    assert {p.stem for p in EXAMPLES.glob("*.toml") if not p.stem.startswith("deploy_")} == \
        set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_verdict(name: str) -> None:
    rep, seconds = audited(name)
    effect, tgt_inst, tgt_full, flags, suggested = EXPECTED[name]
    v = rep.verdicts
    assert (v.effect, v.target_instance, v.target_full) == (effect, tgt_inst, tgt_full)
    assert {f.code for f in rep.flags} == flags
    assert (rep.suggestion.kind if rep.suggestion else None) == suggested
    assert seconds < 60
    assert not [n for n in rep.notes if "not solved" in n]  # every exact point solved
    assert not rep.contradictions, [c.text() for c in rep.contradictions]
    json.dumps(rep.to_json())  # serialisable


def test_deterministic_rounding_gives_no_amplification_and_randomised_fixes_it() -> None:
    """Bun et al. §4.3: at a jump of round(r|P|) the exact worst case is exactly e^ε; the
    suggested randomised rounding is much better, and Theorem 7.2 applies to it."""
    rep, _ = audited("business_survey_proportional_rounded")
    m = rep.main
    assert m is not None and m.lower is not None and m.upper is not None
    # ratio = e^ε: certified lower end at t_lo ≤ e^ε, upper end within the dual's slack
    assert m.lower == m.t_lo and m.upper <= m.t_hi * (1 + Fraction(1, 10**9))
    sg = rep.suggestion
    assert sg is not None and sg.params["rounding"] == "randomised"
    assert sg.exact.upper is not None and sg.exact.upper < Fraction(18, 10)
    assert sg.bound is not None and sg.bound[0].claim == "bun/thm7.2"


def test_srswor_matches_theorem_2_2_exactly() -> None:
    """SRS without replacement under replacement DP: the exact worst case on the instance
    equals log(1 + (m/n)(e^ε − 1)) (bun/thm2.2 is tight) when the instance is the full size."""
    rep = audit({"population": {"size": 40}, "design": {"kind": "srswor", "m": 10},
                 "base": {"epsilon": "1/2", "relation": "replace"},
                 "target": {"epsilon": 1}}, grid=False)
    thm = next(b for b in rep.bounds if b.claim == "bun/thm2.2")
    assert thm.applies
    br = thm.eps_prime(Fraction(1, 2))
    m = rep.main
    assert m is not None and m.lower is not None and m.upper is not None
    assert br is not None and br.lo <= math.log(m.upper) + 1e-9
    assert math.log(m.lower) <= br.hi + 1e-9
    assert rep.verdicts.target_full == "met"


def test_printed_refuted_claims_are_replaced_by_corrected_ones() -> None:
    rep = audit({"population": {"size": 30},
                 "design": {"kind": "random-size", "size_law": {"5": 0.5, "10": 0.5}},
                 "base": {"epsilon": 1}, "protect": {"relation": "replace"},
                 "target": {"epsilon": 1}}, grid=False)
    claims = {b.claim: b for b in rep.bounds}
    assert "bun/thm3.1:upper" not in claims
    up = claims["bun/thm3.1:upper:corrected"]
    assert up.applies and "refuted" in up.note
    m = rep.main
    assert m is not None and m.upper is not None
    # the corrected bound holds on the instance (it is at the full size n = 30)
    assert math.log(m.lower) <= up.eps_prime(Fraction(1)).hi  # type: ignore[union-attr, arg-type]


def test_assumption_failures_are_explained() -> None:
    rep, _ = audited("dpsgd_fixed_batch")
    thm = next(b for b in rep.bounds if b.claim == "bun/thm2.2")
    assert not thm.applies and "add-remove" in thm.reason


def test_witness_written_and_replays(tmp_path: Path) -> None:
    rep = audit(EXAMPLES / "dpsgd_fixed_batch.toml", witness_dir=tmp_path, grid=False)
    assert rep.witness_path is not None
    res = replay(rep.witness_path)
    assert res.confirmed, res.lines
    assert Path(rep.witness_path).parent == tmp_path


def test_no_witness_when_target_met(tmp_path: Path) -> None:
    rep = audit(EXAMPLES / "dpsgd_poisson.toml", witness_dir=tmp_path, grid=False)
    assert rep.witness_path is None and not list(tmp_path.iterdir())


def test_approximate_base_uses_the_hockey_stick() -> None:
    rep = audit({"population": {"size": 20}, "design": {"kind": "poisson", "q": "1/4"},
                 "base": {"epsilon": 1, "delta": "1/100", "relation": "add-remove"},
                 "target": {"epsilon": 1, "delta": "1/100"}}, grid=False)
    assert rep.main is None and rep.hockey
    # Poisson(1/4) with an (ε, δ) base: δ' = qδ at ε' = log(1 + q(e^ε − 1)) < ε
    assert rep.verdicts.effect == "amplifies"
    assert rep.verdicts.target_instance == "met"
    row = next(b for b in rep.bounds if b.claim == "must/table2:poisson")
    assert row.delta_prime is not None and row.delta_prime.hi == Fraction(1, 400)


# ---------------------------------------------------------------- CLI harness


def _cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="verifydp")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["audit", *argv])
    return run(args)


def test_cli_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = _cli(str(EXAMPLES / "dpsgd_poisson.toml"), "--json", "--no-grid", "--witness-dir",
                str(tmp_path))
    out = capsys.readouterr().out
    assert code == 0
    obj = json.loads(out)
    assert obj["verdict"]["effect"] == "amplifies"
    assert obj["exact"]["at_base_eps"]["pair"]
    assert obj["design"]["design"]["kind"] == "poisson"


def test_cli_text_and_html(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    code = _cli(str(EXAMPLES / "must_bootstrap.toml"), "--no-grid", "--html", str(html),
                "--no-witnesses")
    out = capsys.readouterr().out
    assert code == 0 and "degrades at ε = 1" in out and "with-replacement copies" in out
    text = html.read_text(encoding="utf-8")
    assert text.count("data:image/png;base64,") >= 1 and "must/thm5:ww" in text


def test_cli_bad_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[population]\nsize = 10\n[design]\nkind = "poisson"\nq = 1.5\n'
                   '[base]\nepsilon = 1\n[target]\nepsilon = 1\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"design\.q: probability outside \[0, 1\]"):
        _cli(str(bad))
    with pytest.raises(UsageError, match="no such design file"):
        _cli(str(tmp_path / "missing.toml"))


def test_examples_load() -> None:
    for p in EXAMPLES.glob("*.toml"):
        spec = load_design(p)
        assert spec.name and spec.kind


def test_parse_accepts_fractions_and_decimals() -> None:
    spec = parse_design({"population": {"size": 100}, "design": {"kind": "poisson", "q": 0.1},
                         "base": {"epsilon": "1/2"}, "target": {"epsilon": 1}})
    assert spec.params["q"] == Fraction(1, 10) and spec.base.epsilon == Fraction(1, 2)


def test_package_is_callable() -> None:
    """`verifydp.audit(design)` mirrors the CLI (the package is a callable module)."""
    import verifydp.audit as api

    rep = api({"population": {"size": 10}, "design": {"kind": "poisson", "q": "1/2"},
               "base": {"epsilon": 1}, "target": {"epsilon": 1}}, grid=False)
    assert isinstance(rep, Report) and rep.verdicts.effect == "amplifies"
