"""`verifydp convert` through a tiny argparse harness (the lead wires it into cli.py)."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction as F

import pytest

from verifydp import convert


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    p = argparse.ArgumentParser(prog="verifydp")
    sub = p.add_subparsers(dest="command", required=True)
    convert.register(sub)
    rc = convert.run(p.parse_args(["convert", *argv]))
    out, err = capsys.readouterr()
    return rc, out, err


def test_zcdp_to_approx_issue_example(capsys):
    rc, out, _ = _run(["--from", "zcdp", "--rho", "2.63", "--to", "approx", "--delta", "1e-10",
                       "--json"], capsys)
    assert rc == 0
    data = json.loads(out)
    by_role = {v["role"]: (float(v["lo"]), float(v["hi"])) for v in data["values"]}
    lo, hi = by_role["printed"]
    assert lo <= 2.63 + 2 * (2.63 * 23.025850929940457) ** 0.5 <= hi
    g, w, c = by_role["exact (Gaussian)"], by_role["worst case"], by_role["sharper bound"]
    assert w[0] == g[0] and w[1] == min(c[1], hi) and g[1] < c[0] < lo
    assert data["params"] == {"delta": "1/10000000000", "rho": "263/100"}


def test_cks_matches_dp_accounting(capsys):
    r = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    rc, out, _ = _run(["--from", "rdp", "--alpha", "2", "--gamma", "1", "--to", "approx",
                       "--delta", "1e-5", "--json"], capsys)
    assert rc == 0
    sharp = next(v for v in json.loads(out)["values"] if v["role"] == "sharper bound")
    ref = r.compute_epsilon([2.0], [1.0], 1e-5)[0]
    assert float(sharp["lo"]) <= ref * (1 + 1e-9) and ref <= float(sharp["hi"]) * (1 + 1e-9)


def test_gdp_and_gaussian_agree_with_dp_accounting(capsys):
    pl = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    rc, out, _ = _run(["--from", "gdp", "--mu", "1", "--to", "approx", "--epsilon", "1",
                       "--json"], capsys)
    v = json.loads(out)["values"][0]
    ref = pl.GaussianPrivacyLoss(standard_deviation=1.0, sensitivity=1.0).get_delta_for_epsilon(1)
    assert rc == 0 and float(v["lo"]) <= ref * (1 + 1e-12) and ref <= float(v["hi"]) * (1 + 1e-12)


@pytest.mark.parametrize("argv", [
    ["--from", "zcdp", "--rho", "2.63", "--to", "pbdp", "--delta", "1e-6"],
    ["--from", "zcdp", "--rho", "2.63", "--to", "pbdp", "--epsilon", "10"],
    ["--from", "zcdp", "--rho", "2.63", "--to", "approx", "--epsilon", "10"],
    ["--from", "zcdp", "--rho", "2.63", "--to", "rdp", "--alpha", "3"],
    ["--from", "zcdp", "--rho", "0.1115", "--to", "power", "--level", "0.05"],
    ["--from", "zcdp", "--rho", "2.63", "--to", "bayes", "--epsilon", "5"],
    ["--from", "gdp", "--mu", "2", "--to", "zcdp"],
    ["--from", "gdp", "--mu", "2", "--to", "power", "--level", "0.01"],
    ["--from", "rdp", "--alpha", "2", "--gamma", "1", "--to", "pbdp", "--epsilon", "5"],
    ["--from", "rdp", "--alpha", "2", "--gamma", "1", "--to", "power", "--level", "0.05"],
    ["--from", "pure", "--epsilon", "1", "--to", "power", "--level", "0.05"],
    ["--from", "approx", "--epsilon", "1", "--delta", "0.01", "--to", "power", "--level", "0.05"],
])
def test_directions_give_ordered_brackets(argv, capsys):
    rc, out, _ = _run([*argv, "--json"], capsys)
    assert rc == 0
    for v in json.loads(out)["values"]:
        assert float(v["lo"]) <= float(v["hi"])
    rc, text, _ = _run(argv, capsys)
    assert rc == 0 and "→" in text


def test_zcdp_power_bracket_contains_table2_value(capsys):
    rc, out, _ = _run(["--from", "zcdp", "--rho", "2.63", "--to", "power", "--level", "0.01",
                       "--json"], capsys)
    sup = next(v for v in json.loads(out)["values"] if v["role"] == "bound (Thm 6.3)")
    assert 0.695 <= float(sup["lo"]) <= float(sup["hi"]) <= 0.705  # Table 2 prints 0.70


@pytest.mark.parametrize("argv,msg", [
    (["--from", "zcdp", "--to", "approx", "--delta", "1e-10"], "missing --rho"),
    (["--from", "zcdp", "--rho", "1", "--to", "approx"], "exactly one of"),
    (["--from", "zcdp", "--rho", "1", "--to", "approx", "--delta", "2"], "--delta"),
    (["--from", "pure", "--epsilon", "1", "--to", "rdp"], "unsupported conversion"),
    (["--from", "zcdp", "--rho", "-1", "--to", "rdp", "--alpha", "2"], "positive"),
    (["--from", "zcdp", "--rho", "1", "--to", "approx", "--epsilon", "1/2"], "exceed"),
])
def test_usage_errors_one_line_exit_2(argv, msg, capsys):
    rc, out, err = _run(argv, capsys)
    assert rc == 2 and out == "" and msg in err and err.count("\n") == 1


def test_bad_number_is_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        _run(["--from", "zcdp", "--rho", "abc", "--to", "rdp"], capsys)
    assert exc.value.code == 2


def test_convert_function_exact_rational():
    conv = convert.convert("zcdp", "rdp", {"rho": F(263, 100), "alpha": F(2)})
    assert conv.values[0].bracket.lo == F(263, 50)
